/* cgroup.h - the run's own control groups, for the limits that need one
 * (pids, memory: limits_plan.c).
 *
 * Where: beneath the runner's own cgroup of each hierarchy (read from
 * /proc/self/cgroup and /proc/self/mountinfo), never elsewhere, so the
 * sandbox stays inside every bound the caller itself runs under (a cgroup's
 * limits nest).  Which: cgroup v2 when the controller is delegated there
 * (listed in the runner's own cgroup.subtree_control: children get it);
 * else a cgroup v1 hierarchy of that controller; else none.  Whether a
 * cgroup can really be used is known only by making it (mkdir, write the
 * limit): that is the check.
 *
 * Names: sandproof-<runner pid>-<runner start time>.  A runner removes its
 * cgroups when the run ends; one that was SIGKILLed cannot, so every
 * cg_make() first removes the cgroups of this name shape, beside it, whose
 * runner is gone (pid absent or started at another time).  rmdir of a
 * cgroup that still holds a process fails (EBUSY): a sweep can never
 * empty a live sandbox's cgroup. */
#ifndef SANDPROOF_CGROUP_H
#define SANDPROOF_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum cg_version { CG_NONE = 0, CG_V1 = 1, CG_V2 = 2 };

/* The runner's own cgroup directory holding `controller` ("pids",
 * "memory") into dir: v2 if the controller is delegated to children there,
 * else v1.  Returns the version, or CG_NONE (dir unset) when neither. */
enum cg_version cg_locate(const char *controller, char *dir, size_t n);

/* mkdir <parent>/sandproof-<pid>-<start> (sweeping stale ones first) into
 * out.  0 or -errno (EACCES/EROFS: not ours to use). */
int cg_make(const char *parent, char *out, size_t n);

/* Write text to <dir>/<file>.  0 or -errno. */
int cg_write(const char *dir, const char *file, const char *text);

/* The number after `key` in <dir>/<file> (lines "key N", e.g. pids.events
 * "max 3", memory.events "oom_kill 1").  0 or -errno (-ENOENT: no such
 * file or key). */
int cg_read_key(const char *dir, const char *file, const char *key, uint64_t *out);

/* Move pid (and its threads) into the cgroup.  0 or -errno. */
int cg_attach(const char *dir, pid_t pid);

/* rmdir the cgroup, retrying briefly while its last tasks are released.
 * 0 or -errno. */
int cg_remove(const char *dir);

/* Whether <dir>/<file> exists (e.g. memory.memsw.limit_in_bytes). */
bool cg_has(const char *dir, const char *file);

#endif
