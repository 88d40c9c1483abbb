/* limits_plan.h - profile.limits on Linux (docs/CONTRACT.md, LIM-*).
 *
 * Each limit gets the strongest mechanism this host offers that is
 * faithful to its definition:
 *   pids          a pids cgroup (v2 delegated, else v1; only with a restricted
 *                 filesystem, where the cgroup files are read-only inside), else RLIMIT_NPROC
 *                 where the kernel counts it per user namespace (>= 5.14)
 *                 and for a non-root id (the kernel never applies it to
 *                 global uid 0); the sandbox's pid 1 counts as one more
 *   memory_bytes  a memory cgroup, likewise (v2 memory.max with no swap; v1
 *                 memory.limit_in_bytes and memsw), else nothing: RLIMIT_AS
 *                 bounds address space per process, not memory
 *   tmp_bytes,    the size= and nr_inodes= (one per 4 KiB, at least 1024)
 *   shm_bytes     of the private tmpfs at /tmp and /dev/shm (mounts.c);
 *                 nothing when /tmp is a host directory (a runtime root's
 *                 tmp/) or the filesystem is unrestricted (the host's)
 *   open_files    RLIMIT_NOFILE, per process
 *   cpu_seconds   RLIMIT_CPU, per process (SIGXCPU, then SIGKILL a second
 *                 later)
 * A limit the request states that gets no mechanism fails the run at
 * prepare (SETUP-1, step "limits:<name>"); a default that gets none is not
 * applied, and enforcement.limits says so.  Once planned, any failure to
 * apply a limit, default or not, fails the run: nothing runs with less than
 * the plan reports.  Rlimits above the runner's own hard limit are lowered
 * to it (a stricter bound, reported as applied). */
#ifndef SANDPROOF_LIMITS_PLAN_H
#define SANDPROOF_LIMITS_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mounts.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"

enum limits_cg { LIMITS_CG_PIDS, LIMITS_CG_MEMORY, LIMITS_CG_COUNT };

struct limits_plan {
	struct limit_applied applied[LIMIT_COUNT];
	char cg[LIMITS_CG_COUNT][PATH_MAX]; /* our cgroup per controller, "" if none */
	bool cg_made[LIMITS_CG_COUNT];      /* cg[i] is a directory we made (not a
					     * second name for cg of the other) */
	uint64_t nproc;  /* RLIMIT_NPROC for the command, 0: none */
	uint64_t nofile; /* RLIMIT_NOFILE */
	uint64_t cpu;    /* RLIMIT_CPU soft (hard is one second more) */
};

/* Runner, at prepare: choose a mechanism per limit, make and configure the
 * cgroups, and set the tmpfs sizes in m.  0 or -errno with *err. */
int limits_prepare(const struct request *req, struct mplan *m, struct limits_plan *lp,
		   struct setup_error *err);

/* Runner, after clone, before the sandbox's pid 1 goes on: move it into
 * the cgroups (everything it starts stays there).  0 or -errno with *err. */
int limits_attach(const struct limits_plan *lp, pid_t pid, struct setup_error *err);

/* The command's process, last before execve.  0, or -errno with the
 * limit's name in *which. */
int limits_apply_rlimits(const struct limits_plan *lp, const char **which);

/* Runner, after the command was reaped: counters, and which limit killed
 * the command's process.  status: its wait status (have_status false when
 * pid 1 could not report it); cpu_ms: the CPU time of the command's own
 * process (UINT64_MAX: unknown). */
void limits_observe(const struct limits_plan *lp, bool have_status, int status,
		    uint64_t cpu_ms, struct limit_report *r);

/* Remove the cgroups (the sandbox must be gone). */
void limits_free(struct limits_plan *lp);

/* `doctor`: which mechanism each cgroup-backed limit would get here. */
void limits_doctor(FILE *out);

#endif
