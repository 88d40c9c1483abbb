/* winplan_int.h - what the plan builder's files share (not an interface). */
#ifndef SANDPROOF_WINPLAN_INT_H
#define SANDPROOF_WINPLAN_INT_H

#include <stdarg.h>

#include "sandproof/request.h"
#include "winplan.h"

/* The plan under construction, its capacities, and the refusal message. */
struct wpb {
	struct winplan *p;
	size_t cap_aces, cap_filters;
	char *err;
	enum winplan_sid sids[WINPLAN_SIDS_MAX]; /* whom every ACE names */
	size_t n_sids;
};

/* Write "FIELD: reason" into b->err; returns -EINVAL. */
int wpb_refuse(struct wpb *b, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append one ACE for b->sids (the path is copied); an ACE equal in path
 * (winpath_equal), effect, mask and inherit to one already planned is not
 * repeated.  0 or -ENOMEM. */
int wpb_add_ace(struct wpb *b, const char *path, enum winplan_effect effect, uint32_t mask,
		uint32_t inherit, enum winplan_absent absent, const char *clause,
		const char *why);

/* The deny ACEs of write confinement (winplan_deny.c). */
int wpb_add_denies(struct wpb *b, const struct request *req, const char *temp_dir);

#endif
