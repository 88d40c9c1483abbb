/* limits_plan.c - see limits_plan.h. */
#include "limits_plan.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

static const char *const cg_controller[LIMITS_CG_COUNT] = {"pids", "memory"};

static int lerr(struct setup_error *e, enum limit_id id, int err, const char *detail)
{
	snprintf(e->step, sizeof(e->step), "limits:%s", limit_names[id]);
	e->err = err;
	snprintf(e->detail, sizeof(e->detail), "%s", detail);
	return -err;
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

/* RLIMIT_NPROC binds the sandbox faithfully when the kernel counts it per
 * (user namespace, uid) - since 5.14 (ucounts), so the caller's processes
 * elsewhere do not count - and when the sandbox's id is not global root:
 * the kernel never applies it to INIT_USER.  The sandbox has the runner's
 * ids; their outside value is read from /proc/self/uid_map (one level up:
 * in the initial namespace that is the id itself). */
static bool nproc_faithful(void)
{
	unsigned long in, out, count, uid = (unsigned long)getuid();
	bool faithful = false;
	FILE *f;

	if (!kernel_at_least(5, 14) || !(f = fopen("/proc/self/uid_map", "re")))
		return false;
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
		if (uid >= in && uid - in < count)
			faithful = out + (uid - in) != 0;
	fclose(f);
	return faithful;
}

/* Our cgroup for controller ctl: made beneath the runner's own, or the one
 * made for the other controller when both live in the same hierarchy.
 * Returns the cgroup version (> 0) or -errno. */
static int cg_for(struct limits_plan *lp, enum limits_cg ctl)
{
	enum limits_cg other = ctl == LIMITS_CG_PIDS ? LIMITS_CG_MEMORY : LIMITS_CG_PIDS;
	char parent[PATH_MAX];
	enum cg_version v = cg_locate(cg_controller[ctl], parent, sizeof(parent));
	const char *slash = strrchr(lp->cg[other], '/');
	int rc;

	if (v == CG_NONE)
		return -EOPNOTSUPP;
	if (lp->cg_made[other] && slash && (size_t)(slash - lp->cg[other]) == strlen(parent) &&
	    strncmp(lp->cg[other], parent, strlen(parent)) == 0) {
		memcpy(lp->cg[ctl], lp->cg[other], sizeof(lp->cg[ctl]));
		return (int)v;
	}
	rc = cg_make(parent, lp->cg[ctl], sizeof(lp->cg[ctl]));
	if (rc < 0) {
		lp->cg[ctl][0] = '\0';
		return rc;
	}
	lp->cg_made[ctl] = true;
	return (int)v;
}

/* Forget our cgroup for ctl; remove it unless the other controller uses it. */
static void cg_drop(struct limits_plan *lp, enum limits_cg ctl)
{
	enum limits_cg other = ctl == LIMITS_CG_PIDS ? LIMITS_CG_MEMORY : LIMITS_CG_PIDS;

	if (lp->cg_made[ctl] && strcmp(lp->cg[ctl], lp->cg[other]) != 0)
		cg_remove(lp->cg[ctl]);
	else if (lp->cg_made[ctl])
		lp->cg_made[other] = true; /* the other keeps it, and removes it */
	lp->cg_made[ctl] = false;
	lp->cg[ctl][0] = '\0';
}

static int cg_configure(struct limits_plan *lp, enum limits_cg ctl, int v, uint64_t value)
{
	char text[32];
	const char *dir = lp->cg[ctl];
	int rc;

	snprintf(text, sizeof(text), "%llu", (unsigned long long)value);
	if (ctl == LIMITS_CG_PIDS)
		return cg_write(dir, "pids.max", text);
	if (v == CG_V2) {
		rc = cg_write(dir, "memory.max", text);
		/* no swap: swapping would let the sandbox hold more than asked */
		if (rc == 0 && cg_has(dir, "memory.swap.max"))
			rc = cg_write(dir, "memory.swap.max", "0");
		return rc;
	}
	rc = cg_write(dir, "memory.limit_in_bytes", text);
	if (rc == 0 && cg_has(dir, "memory.memsw.limit_in_bytes"))
		rc = cg_write(dir, "memory.memsw.limit_in_bytes", text);
	return rc;
}

/* pids or memory through a cgroup.  Returns 1 when applied, else 0 with
 * *why the errno that made the cgroup unusable.  Only with a restricted
 * filesystem: there the cgroup file system is read-only inside (FS-1);
 * with the host's view writable, a sandbox whose uid owns the cgroup files
 * (root, or the user a v2 subtree is delegated to) could write its way out
 * of its cgroup or raise its limit. */
static int plan_cgroup(const struct mplan *m, struct limits_plan *lp, enum limits_cg ctl,
		       enum limit_id id, uint64_t want, uint64_t cg_value, int *why)
{
	int v = m->restricted ? cg_for(lp, ctl) : -EOPNOTSUPP, rc;

	if (v < 0) {
		*why = -v;
		return 0;
	}
	rc = cg_configure(lp, ctl, v, cg_value);
	if (rc < 0) {
		*why = -rc;
		cg_drop(lp, ctl);
		return 0;
	}
	lp->applied[id] = (struct limit_applied){want, v == CG_V2 ? "cgroup-v2" : "cgroup-v1"};
	return 1;
}

static uint64_t hard_limit(int res)
{
	struct rlimit rl;

	if (getrlimit(res, &rl) < 0 || rl.rlim_max == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_max;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static int plan_pids(const struct request *req, const struct mplan *m, struct limits_plan *lp,
		     struct setup_error *err)
{
	uint64_t want = limit_wanted(&req->limits, LIMIT_PIDS);
	int why = EOPNOTSUPP;

	/* + 1: the sandbox's pid 1 is in the count, the bound is the command's */
	if (!want || plan_cgroup(m, lp, LIMITS_CG_PIDS, LIMIT_PIDS, want, want + 1, &why))
		return 0;
	if (nproc_faithful()) {
		lp->nproc = min_u64(want + 1, hard_limit(RLIMIT_NPROC));
		if (lp->nproc >= 2) {
			lp->applied[LIMIT_PIDS] = (struct limit_applied){lp->nproc - 1, "rlimit"};
			return 0;
		}
		lp->nproc = 0;
	}
	if (!req->limits.value[LIMIT_PIDS])
		return 0;
	return lerr(err, LIMIT_PIDS, why,
		    "no pids cgroup can be used here (none writable, or the filesystem is "
		    "unrestricted), and RLIMIT_NPROC does not bind the sandbox's id (global "
		    "uid 0, or a kernel before 5.14)");
}

static int plan_memory(const struct request *req, const struct mplan *m,
		       struct limits_plan *lp, struct setup_error *err)
{
	uint64_t want = limit_wanted(&req->limits, LIMIT_MEMORY);
	int why = EOPNOTSUPP;

	if (!want || plan_cgroup(m, lp, LIMITS_CG_MEMORY, LIMIT_MEMORY, want, want, &why) ||
	    !req->limits.value[LIMIT_MEMORY])
		return 0;
	return lerr(err, LIMIT_MEMORY, why, !m->restricted
		    ? "the filesystem is unrestricted: the sandbox could write its way out of a cgroup"
		    : "no memory cgroup can be made here (cgroup v2 with memory delegated, or a "
		      "writable cgroup v1 memory hierarchy); RLIMIT_AS bounds address space, not memory");
}

static int plan_tmpfs(const struct request *req, struct mplan *m, struct limits_plan *lp,
		      enum limit_id id, struct setup_error *err)
{
	uint64_t want = limit_wanted(&req->limits, id);
	bool ours = m->restricted && (id == LIMIT_SHM || !m->tmp_source);

	if (want && ours) {
		*(id == LIMIT_TMP ? &m->tmp_size : &m->shm_size) = want;
		lp->applied[id] = (struct limit_applied){want, "tmpfs"};
		return 0;
	}
	if (!want || !req->limits.value[id])
		return 0;
	return lerr(err, id, EOPNOTSUPP, !m->restricted
		    ? "the filesystem is unrestricted: /tmp and /dev/shm are the host's"
		    : "/tmp is the runtime root's tmp/, a host directory: no size can be enforced on it");
}

static void plan_rlimits(const struct request *req, struct limits_plan *lp)
{
	uint64_t files = limit_wanted(&req->limits, LIMIT_OPEN_FILES);
	uint64_t cpu = limit_wanted(&req->limits, LIMIT_CPU);

	if (files) {
		lp->nofile = min_u64(files, hard_limit(RLIMIT_NOFILE));
		lp->applied[LIMIT_OPEN_FILES] = (struct limit_applied){lp->nofile, "rlimit"};
	}
	if (cpu) {
		lp->cpu = min_u64(cpu, hard_limit(RLIMIT_CPU));
		lp->applied[LIMIT_CPU] = (struct limit_applied){lp->cpu, "rlimit"};
	}
}

int limits_prepare(const struct request *req, struct mplan *m, struct limits_plan *lp,
		   struct setup_error *err)
{
	int rc;

	memset(lp, 0, sizeof(*lp));
	if ((rc = plan_pids(req, m, lp, err)) < 0 || (rc = plan_memory(req, m, lp, err)) < 0 ||
	    (rc = plan_tmpfs(req, m, lp, LIMIT_TMP, err)) < 0 ||
	    (rc = plan_tmpfs(req, m, lp, LIMIT_SHM, err)) < 0)
		return rc;
	plan_rlimits(req, lp);
	return 0;
}

int limits_attach(const struct limits_plan *lp, pid_t pid, struct setup_error *err)
{
	for (int i = 0; i < LIMITS_CG_COUNT; i++) {
		int rc;

		if (!lp->cg[i][0] || (rc = cg_attach(lp->cg[i], pid)) == 0)
			continue;
		snprintf(err->step, sizeof(err->step), "limits:cgroup");
		err->err = -rc;
		snprintf(err->detail, sizeof(err->detail), "cannot move the sandbox into %.200s",
			 lp->cg[i]);
		return rc;
	}
	return 0;
}

static int set_rlimit(int res, uint64_t soft, uint64_t hard)
{
	struct rlimit rl = {.rlim_cur = (rlim_t)soft, .rlim_max = (rlim_t)hard};

	return setrlimit(res, &rl) < 0 ? -errno : 0;
}

int limits_apply_rlimits(const struct limits_plan *lp, const char **which)
{
	int rc = 0;

	if (lp->nproc && (rc = set_rlimit(RLIMIT_NPROC, lp->nproc, lp->nproc)) < 0)
		*which = "limits:pids";
	else if (lp->nofile && (rc = set_rlimit(RLIMIT_NOFILE, lp->nofile, lp->nofile)) < 0)
		*which = "limits:open_files";
	else if (lp->cpu && (rc = set_rlimit(RLIMIT_CPU, lp->cpu,
					    min_u64(lp->cpu + 1, hard_limit(RLIMIT_CPU)))) < 0)
		*which = "limits:cpu_seconds";
	return rc;
}

/* The kernel sends SIGXCPU when the process's CPU time (its PROF clock)
 * reaches the soft limit and SIGKILL at the hard one.  The command's own
 * PROF time at its death (nsinit.c) says whether it really was there: a
 * signal it arranged for itself earlier is not the limit. */
static bool killed_by_cpu(const struct limits_plan *lp, int sig, uint64_t cpu_ms)
{
	uint64_t hard = min_u64(lp->cpu + 1, hard_limit(RLIMIT_CPU));

	if (!lp->cpu || cpu_ms == UINT64_MAX)
		return false;
	if (sig == SIGXCPU)
		return cpu_ms >= lp->cpu * 1000;
	return sig == SIGKILL && cpu_ms >= hard * 1000;
}

void limits_observe(const struct limits_plan *lp, bool have_status, int status,
		    uint64_t cpu_ms, struct limit_report *r)
{
	int sig = have_status && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	const char *mem = lp->cg[LIMITS_CG_MEMORY];
	uint64_t n = 0;

	memset(r, 0, sizeof(*r));
	r->killed_by = -1;
	if (lp->cg[LIMITS_CG_PIDS][0] &&
	    cg_read_key(lp->cg[LIMITS_CG_PIDS], "pids.events", "max", &n) == 0) {
		r->counted[LIMIT_PIDS] = true;
		r->events[LIMIT_PIDS] = n;
	}
	if (mem[0] && (cg_read_key(mem, "memory.events", "oom_kill", &n) == 0 ||
		       cg_read_key(mem, "memory.oom_control", "oom_kill", &n) == 0)) {
		r->counted[LIMIT_MEMORY] = true;
		r->events[LIMIT_MEMORY] = n;
	}
	if (killed_by_cpu(lp, sig, cpu_ms))
		r->killed_by = LIMIT_CPU;
	else if (sig == SIGKILL && r->counted[LIMIT_MEMORY] && r->events[LIMIT_MEMORY] > 0)
		r->killed_by = LIMIT_MEMORY;
}

void limits_free(struct limits_plan *lp)
{
	for (int i = 0; i < LIMITS_CG_COUNT; i++)
		if (lp->cg_made[i])
			cg_remove(lp->cg[i]);
	memset(lp->cg_made, 0, sizeof(lp->cg_made));
}

void limits_doctor(FILE *out)
{
	for (int i = 0; i < LIMITS_CG_COUNT; i++) {
		char parent[PATH_MAX], dir[PATH_MAX];
		enum cg_version v = cg_locate(cg_controller[i], parent, sizeof(parent));
		int rc = v == CG_NONE ? -EOPNOTSUPP : cg_make(parent, dir, sizeof(dir));

		if (rc == 0)
			cg_remove(dir);
		if (rc == 0)
			fprintf(out, "limits: %-28s cgroup-v%d (%s)\n", cg_controller[i], (int)v, parent);
		else if (i == LIMITS_CG_PIDS && nproc_faithful())
			fprintf(out, "limits: %-28s rlimit (RLIMIT_NPROC, per user namespace)\n", "pids");
		else
			fprintf(out, "limits: %-28s no (%s; an explicit %s limit is refused)\n",
				cg_controller[i], strerror(-rc), i ? "memory_bytes" : "pids");
	}
}
