/* winplan_api.h - the plan builder's interface as this backend expects it.
 *
 * platforms/windows/plan/winplan.h (committed before the builder) carries
 * the plan's types but not yet the builder's prototypes; win-plan writes
 * winplan_build().  These are the signatures this backend calls, declared
 * here until the builder's own header declares them (then this file goes:
 * the lead reconciles the two at merge).  opts is passed as NULL: the
 * builder's options are not settled yet (winplan_opts is opaque here). */
#ifndef SANDPROOF_WINPLAN_API_H
#define SANDPROOF_WINPLAN_API_H

#include "winplan.h"

struct request;
struct winplan_opts;

/* Build the plan for a validated request.  0, or -errno with err filled
 * (the plan then holds nothing to free). */
int winplan_build(const struct request *req, const struct winplan_opts *o,
		  struct winplan *out, char err[WINPLAN_ERR_MAX]);
void winplan_free(struct winplan *p);

#endif
