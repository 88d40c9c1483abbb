/* runtime_ops.c - the runtime-root seam (platform.h) of every POSIX
 * platform layer: the core's own walk, ownership and mode bits; a
 * crashed run leaves nothing on the host to replay (its mounts, namespaces
 * and temporary files die with it or are the runtime roots' own, which
 * eviction removes).  Its own file, so linking it pulls in nothing else. */
#include "sandproof/platform.h"

const struct platform_runtime_ops *platform_runtime_ops(void)
{
	return NULL;
}

int platform_replay_crashed(bool dry_run, struct platform_replay *r)
{
	(void)dry_run;
	*r = (struct platform_replay){.what = NULL};
	return 0;
}
