/* watch_none.c - the change report's event source (platform.h) on a
 * platform layer that has none: every run's report comes from the walk of
 * the write roots before and after (ref/changes.c).  Its own file, shared
 * by the posix, macos and windows layers. */
#include <errno.h>
#include <stdio.h>

#include "sandproof/platform.h"

int platform_watch_start(const struct request *req, struct platform_watch **out,
			 char *why, size_t whylen)
{
	(void)req;
	*out = NULL;
	snprintf(why, whylen, "no file system event source on this platform");
	return -ENOTSUP;
}

int platform_watch_pollfd(const struct platform_watch *w)
{
	(void)w;
	return -1;
}

void platform_watch_service(struct platform_watch *w)
{
	(void)w;
}

int platform_watch_finish(struct platform_watch *w, platform_change_fn *emit, void *ctx,
			  char *why, size_t whylen)
{
	(void)w;
	(void)emit;
	(void)ctx;
	snprintf(why, whylen, "no file system event source on this platform");
	return -ENOTSUP;
}

void platform_watch_free(struct platform_watch *w)
{
	(void)w;
}
