/* changes_int.h - shared by changes.c and changes_walk.c, nobody else. */
#ifndef SANDPROOF_CHANGES_INT_H
#define SANDPROOF_CHANGES_INT_H

#include "changes.h"

/* The walk's change of rel under root into the report (and, checking, into
 * the walk's set). */
void changes_report_add(struct changes *c, enum changes_op op, const char *root,
			const char *rel);
/* The walk (changes_walk.c): the baseline before the launch, compared
 * after; 0 or -errno. */
int changes_walk_baseline(struct changes *c, const struct request *req);
int changes_walk_compare(struct changes *c, const struct request *req);

#endif
