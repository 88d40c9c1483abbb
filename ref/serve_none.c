/* serve_none.c - serve_main where sessions are not built (every platform
 * but Linux: sess.c needs pidfd and memfd).  Refuses, runs nothing. */
#include <stdio.h>

#include "serve.h"

int serve_main(const struct serve_opts *opts)
{
	(void)opts;
	fprintf(stderr, "sandproof-ref: serve: not supported on this platform "
		"(sessions need pidfd); nothing ran\n");
	return 2;
}
