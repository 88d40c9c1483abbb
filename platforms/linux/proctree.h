/* proctree.h - find and kill every live descendant of this process.
 *
 * Used where no pid namespace holds the command's tree.  Works because the
 * runner is a child subreaper: an orphan is re-parented to the runner, not
 * to init, so "descendant of the runner" covers daemonized grandchildren
 * (setsid + double fork) too. */
#ifndef SANDPROOF_PROCTREE_H
#define SANDPROOF_PROCTREE_H

#include <sys/types.h>

/* SIGKILL every live descendant of `self`, rescanning until none is left
 * alive (zombies are left for the caller to reap) or budget_ms passes.
 * Each target is pinned with a pidfd and its ancestry re-checked after
 * pinning, so a pid recycled by an unrelated process is never signalled.
 * Returns the number of processes still alive (0 on success) or -errno. */
int proctree_kill(pid_t self, int budget_ms);

/* Live (non-zombie) descendants of self right now, or -errno. */
int proctree_count(pid_t self);

#endif
