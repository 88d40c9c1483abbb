/* runtime_glue.c - see runtime_glue.h.
 *
 * Runtime roots are not implemented yet (issue 4).  A request that asks for
 * one is refused rather than run without it: the command would otherwise
 * get a TMPDIR and caches it was not promised. */
#include "runtime_glue.h"

#include <errno.h>
#include <stdio.h>

int runtime_glue_acquire(const struct request *req, struct outcome_runtime *rt,
			 struct setup_error *err)
{
	(void)rt;
	if (!req->has_runtime)
		return 0;
	snprintf(err->step, sizeof(err->step), "runtime");
	err->err = EOPNOTSUPP;
	snprintf(err->detail, sizeof(err->detail),
		 "runtime roots are not supported by this build");
	return -EOPNOTSUPP;
}

const struct request *runtime_glue_request(const struct request *req)
{
	return req;
}

void runtime_glue_release(void)
{
}
