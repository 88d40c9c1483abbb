/* test_limits.c - profile.limits on Linux (LIM-*), through sandproof-ref as
 * a black box.
 *
 *   test_limits SANDPROOF_REF SANDPROOF_PROBE SP_FAULT
 *
 * Each limit is shown to bind, with a positive control under it in the same
 * test: exactly pids - 1 children beside the probe; a memory hog killed (as
 * root, where a memory cgroup can be made) or the run refused (where none
 * can); ENOSPC in /tmp and /dev/shm after a write that fits; EMFILE below
 * open_files; a busy loop stopped by cpu_seconds while a self-sent SIGXCPU
 * is not taken for the limit.  Explicit limits that cannot be enforced are
 * refused with nothing run; defaults are reported as applied.  As root the
 * cgroups are checked on the host: the sandbox is in one, it is gone after
 * the run, one left by a SIGKILLed runner is removed by the next run, and
 * the sandbox cannot write its way out of it.  Every abuse runs under a
 * limit this test sets, bounded by the probe's own argument too. */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "enforce.h"
#include "t.h"

#define MIB (1024 * 1024)

static const char *ref, *probe, *fault;
static struct enf_area A;

/* The usual request plus profile.limits; command: the probe, ops appended. */
static cJSON *lim_req(const char *limits_json)
{
	cJSON *req = enf_req_new(A.ws, "deny");

	enf_write_root(req, A.ws);
	if (limits_json)
		cJSON_AddItemToObject(enf_req_at(req, "profile"), "limits", cJSON_Parse(limits_json));
	enf_arg(enf_cmd(req), "%s", A.probe);
	return req;
}

static cJSON *sh_req(const char *limits_json, const char *script)
{
	cJSON *req = lim_req(limits_json);

	cJSON_DeleteItemFromArray(enf_cmd(req), 0);
	enf_arg(enf_cmd(req), "sh");
	enf_arg(enf_cmd(req), "-c");
	enf_arg(enf_cmd(req), "%s", script);
	return req;
}

static const char *via(const struct enf_run *e, const char *limit)
{
	char path[96];

	snprintf(path, sizeof(path), "enforcement.limits.%s.via", limit);
	return oc_str(e->r.outcome, path);
}

static double value(const struct enf_run *e, const char *limit)
{
	char path[96];

	snprintf(path, sizeof(path), "enforcement.limits.%s.value", limit);
	return oc_num(e->r.outcome, path);
}

static bool is_null(const struct enf_run *e, const char *path)
{
	return cJSON_IsNull(oc_get(e->r.outcome, path));
}

static bool cgroup_via(const char *v)
{
	return strcmp(v, "cgroup-v1") == 0 || strcmp(v, "cgroup-v2") == 0;
}

/* The defaults, as reported and as seen from inside. */
static void defaults_reported(void)
{
	struct enf_run e;
	struct rlimit rl;
	double files = 8192;
	char want[64];

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    (double)rl.rlim_max < files)
		files = (double)rl.rlim_max;
	enf_run(ref, sh_req(NULL, "ulimit -n; grep -E ' /(tmp|dev/shm) ' /proc/self/mountinfo"), &e);
	snprintf(want, sizeof(want), "%.0f\n", files);
	t_ok(enf_kind_is(&e, "success") && strncmp(oc_str(e.r.outcome, "stdout"), want, strlen(want)) == 0,
	     "LIM-2 default open_files %.0f is what the command sees (%s)", files,
	     oc_str(e.r.outcome, "stdout"));
	t_ok(value(&e, "pids") == 4096 &&
		     (cgroup_via(via(&e, "pids")) || (strcmp(via(&e, "pids"), "rlimit") == 0 && getuid() != 0)),
	     "LIM-2 default pids 4096 via %s (rlimit never for uid 0: the kernel exempts it)",
	     via(&e, "pids"));
	t_ok(value(&e, "tmp_bytes") == 1024.0 * MIB && value(&e, "shm_bytes") == 256.0 * MIB &&
		     strcmp(via(&e, "tmp_bytes"), "tmpfs") == 0 &&
		     strstr(oc_str(e.r.outcome, "stdout"), "size=1048576k,nr_inodes=262144") &&
		     strstr(oc_str(e.r.outcome, "stdout"), "size=262144k,nr_inodes=65536"),
	     "LIM-4 default tmp 1 GiB and shm 256 MiB: reported, and the mounts say so");
	t_ok(is_null(&e, "enforcement.limits.memory_bytes") && is_null(&e, "enforcement.limits.cpu_seconds") &&
		     value(&e, "open_files") == files && strcmp(via(&e, "open_files"), "rlimit") == 0,
	     "LIM-2 no memory or CPU default; open_files via rlimit");
	t_ok(cJSON_IsNumber(oc_get(e.r.outcome, "limit_events.pids")) == cgroup_via(via(&e, "pids")) &&
		     !oc_get(e.r.outcome, "limit") && !oc_get(e.r.outcome, "limit_events.memory_bytes"),
	     "LIM-7 limit_events holds exactly the counted limits, no limit named");
	enf_run_free(&e);
}

/* Idle processes of this user outside the sandbox, dying with us. */
static int host_procs(pid_t *v, int n)
{
	pid_t self = getpid();
	int k = 0;

	for (; k < n; k++) {
		v[k] = fork();
		if (v[k] < 0)
			break;
		if (v[k] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			pause();
			_exit(0);
		}
	}
	return k;
}

/* A fork bomb of 200 under pids=16: the probe and exactly 15 children,
 * with 40 more processes of the same user outside the sandbox (they must
 * not count: RLIMIT_NPROC is per user namespace, a cgroup per cgroup). */
static void pids_bounded(void)
{
	struct enf_run e;
	cJSON *req;
	pid_t outside[40];
	int n_out = host_procs(outside, 40);

	for (int k = 0; k < 2; k++) {
		req = lim_req(k ? "{\"pids\":16}" : "{\"pids\":64}");
		enf_op(req, 2, "forkn", "200");
		enf_op(req, 1, "getpid");
		enf_run(ref, req, &e);
		if (k == 0)
			t_ok(enf_num(&e, 0, "forked") == 63 && enf_failed_with(&e, 0, "EAGAIN"),
			     "LIM-3 control: pids=64 lets the probe fork exactly 63 (%g, %s)",
			     enf_num(&e, 0, "forked"), enf_errno(&e, 0));
		else
			t_ok(e.sentinel && enf_num(&e, 0, "forked") == 15 && enf_failed_with(&e, 0, "EAGAIN") &&
				     enf_ok(&e, 1) == 1 && enf_kind_is(&e, "success") &&
				     value(&e, "pids") == 16,
			     "LIM-3 pids=16: the probe and exactly 15 children, then EAGAIN; the command "
			     "goes on (%g forked, %s, %s via %s)", enf_num(&e, 0, "forked"),
			     enf_errno(&e, 0), enf_kind(&e), via(&e, "pids"));
		if (k && cgroup_via(via(&e, "pids")))
			t_ok(oc_num(e.r.outcome, "limit_events.pids") >= 1,
			     "LIM-7 the refused forks are counted (pids.events max %g)",
			     oc_num(e.r.outcome, "limit_events.pids"));
		enf_run_free(&e);
	}
	t_ok(n_out == 40, "40 processes of this user outside the sandbox meanwhile");
	for (int i = 0; i < n_out; i++) {
		kill(outside[i], SIGKILL); /* our unreaped children: pids not recycled */
		waitpid(outside[i], NULL, 0);
	}
}

/* Where this test (and so the runner it starts) may make a memory cgroup:
 * a cgroup v1 memory hierarchy as root, as on this project's CI hosts. */
static bool memcg_expected(void)
{
	return getuid() == 0 && access("/sys/fs/cgroup/memory/cgroup.procs", W_OK) == 0;
}

static void memory_bounded(void)
{
	struct enf_run e;
	cJSON *req;
	char marker[PATH_MAX];

	snprintf(marker, sizeof(marker), "%s/mem-ran", A.ws);
	req = lim_req("{\"memory_bytes\":67108864}");
	enf_op(req, 3, "write", marker, "x");
	enf_op(req, 2, "alloc", "16777216");
	enf_op(req, 2, "alloc", "268435456");
	enf_run(ref, req, &e);
	if (enf_kind_is(&e, "sandbox_setup_failure")) {
		t_ok(!memcg_expected() && strcmp(oc_str(e.r.outcome, "setup_error.step"), "limits:memory_bytes") == 0 &&
			     !enf_lexists(marker),
		     "LIM-5 no memory cgroup here: memory_bytes refused (step %s, %s), nothing ran",
		     oc_str(e.r.outcome, "setup_error.step"), oc_str(e.r.outcome, "setup_error.errno"));
	} else {
		t_ok(enf_ok(&e, 1) == 1 && enf_ok(&e, 2) < 0 && enf_kind_is(&e, "limit_exceeded") &&
			     strcmp(oc_str(e.r.outcome, "state"), "cancelled") == 0 &&
			     strcmp(oc_str(e.r.outcome, "limit"), "memory_bytes") == 0 &&
			     oc_num(e.r.outcome, "exit.signal") == SIGKILL &&
			     oc_num(e.r.outcome, "limit_events.memory_bytes") >= 1,
		     "LIM-5 memory_bytes 64 MiB via %s: 16 MiB fits, 256 MiB is killed: %s, limit %s",
		     via(&e, "memory_bytes"), enf_kind(&e), oc_str(e.r.outcome, "limit"));
#if !defined(SANDPROOF_SANITIZED)
		t_ok(e.r.ru.ru_maxrss < 96 * 1024,
		     "LIM-5 host: no process of the run was ever resident past 96 MiB (%ld KiB)",
		     e.r.ru.ru_maxrss);
#endif
	}
	if (memcg_expected())
		t_ok(cgroup_via(via(&e, "memory_bytes")), "LIM-5 as root with cgroup v1 memory: enforced (%s)",
		     via(&e, "memory_bytes"));
	enf_run_free(&e);
	unlink(marker);
}

/* With an unrestricted filesystem the host's cgroup files are writable
 * inside for a sandbox that owns them (as root): no cgroup limit there.
 * pids falls back to RLIMIT_NPROC where it is faithful (not as root),
 * memory is refused.  The command tries to move itself out of any cgroup
 * first (into the runner's own), then forks 40 under pids=16. */
static void unrestricted_no_cgroup(void)
{
	char script[PATH_MAX + 128];
	struct enf_run e;
	cJSON *req;

	snprintf(script, sizeof(script), "echo $$ > /sys/fs/cgroup/pids/cgroup.procs 2>/dev/null; "
		 "exec %s forkn 40", A.probe);
	for (int k = 0; k < 2; k++) {
		req = sh_req(k ? "{\"memory_bytes\":67108864}" : "{\"pids\":16}", script);
		cJSON_DeleteItemFromObject(enf_req_at(req, "profile.filesystem"), "kind");
		cJSON_AddStringToObject(enf_req_at(req, "profile.filesystem"), "kind", "unrestricted");
		enf_run(ref, req, &e);
		if (k == 0 && getuid() != 0)
			t_ok(strcmp(via(&e, "pids"), "rlimit") == 0 && enf_num(&e, 0, "forked") == 15,
			     "LIM-8 unrestricted, unprivileged: pids through RLIMIT_NPROC, 15 forked (%s, %g)",
			     via(&e, "pids"), enf_num(&e, 0, "forked"));
		else
			t_ok(enf_kind_is(&e, "sandbox_setup_failure") &&
				     strcmp(oc_str(e.r.outcome, "setup_error.step"),
					    k ? "limits:memory_bytes" : "limits:pids") == 0,
			     "LIM-8 unrestricted%s: %s refused, no cgroup the sandbox could leave (%s %s; "
			     "forked %g)", k ? "" : " as root", k ? "memory_bytes" : "pids", enf_kind(&e),
			     oc_str(e.r.outcome, "setup_error.step"), enf_num(&e, 0, "forked"));
		enf_run_free(&e);
	}
}

static void tmp_bounded(void)
{
	struct enf_run e;
	cJSON *req = lim_req("{\"tmp_bytes\":1048576,\"shm_bytes\":1048576}");

	enf_op(req, 3, "fill", "/tmp/a", "262144");
	enf_op(req, 3, "fill", "/tmp/b", "4194304");
	enf_op(req, 3, "fill", "/dev/shm/a", "262144");
	enf_op(req, 3, "fill", "/dev/shm/b", "4194304");
	enf_run(ref, req, &e);
	t_ok(enf_ok(&e, 0) == 1 && enf_failed_with(&e, 1, "ENOSPC") && enf_num(&e, 1, "written") <= 786432 &&
		     enf_ok(&e, 2) == 1 && enf_failed_with(&e, 3, "ENOSPC") &&
		     enf_num(&e, 3, "written") <= 786432,
	     "LIM-4 tmp_bytes and shm_bytes 1 MiB: 256 KiB fits, then ENOSPC (%s %g, %s %g)",
	     enf_errno(&e, 1), enf_num(&e, 1, "written"), enf_errno(&e, 3), enf_num(&e, 3, "written"));
	enf_run_free(&e);
}

/* Explicit tmp limits where /tmp is not a tmpfs of ours: refused.  The
 * runtime root's tmp/ is /tmp only when no write root lies beneath /tmp
 * (RT-3): these runs use a workspace under /var/tmp. */
static void tmp_refused(void)
{
	char marker[PATH_MAX], parent[PATH_MAX];
	struct enf_area saved = A, V;
	struct enf_run e;
	cJSON *req, *rt;

	if (enf_area_new(&V, "/var/tmp", probe) < 0) {
		t_skipped("no area under /var/tmp: tmp limit refusals");
		return;
	}
	A = V;
	snprintf(marker, sizeof(marker), "%s/tmp-ran", A.ws);
	snprintf(parent, sizeof(parent), "%s/rt", A.top);
	for (int k = 0; k < 3; k++) {
		req = lim_req(k == 2 ? NULL : "{\"tmp_bytes\":1048576}");
		if (k == 0) {
			cJSON_DeleteItemFromObject(enf_req_at(req, "profile.filesystem"), "kind");
			cJSON_AddStringToObject(enf_req_at(req, "profile.filesystem"), "kind", "unrestricted");
		} else {
			rt = cJSON_AddObjectToObject(enf_req_at(req, "profile"), "runtime");
			cJSON_AddStringToObject(rt, "parent", parent);
		}
		enf_op(req, 3, "write", marker, "x");
		enf_run(ref, req, &e);
		if (k < 2)
			t_ok(enf_kind_is(&e, "sandbox_setup_failure") &&
				     strcmp(oc_str(e.r.outcome, "setup_error.step"), "limits:tmp_bytes") == 0 &&
				     !enf_lexists(marker),
			     "LIM-4 tmp_bytes with %s: refused, nothing ran (%s %s)",
			     k ? "/tmp the runtime root's tmp/" : "an unrestricted filesystem",
			     enf_kind(&e), oc_str(e.r.outcome, "setup_error.step"));
		else
			t_ok(enf_kind_is(&e, "success") && enf_lexists(marker) &&
				     is_null(&e, "enforcement.limits.tmp_bytes") &&
				     strcmp(via(&e, "shm_bytes"), "tmpfs") == 0,
			     "LIM-2 the default tmp_bytes on a runtime root's tmp/: not applied, reported null; "
			     "shm still applied (%s)", enf_kind(&e));
		enf_run_free(&e);
		unlink(marker);
	}
	enf_area_free(&V);
	A = saved;
}

static void open_files_bounded(void)
{
	struct enf_run e;
	cJSON *req = lim_req("{\"open_files\":32}");

	enf_op(req, 2, "openn", "20");
	enf_op(req, 2, "openn", "100");
	enf_run(ref, req, &e);
	t_ok(enf_ok(&e, 0) == 1 && enf_failed_with(&e, 1, "EMFILE") && enf_num(&e, 1, "opened") >= 20 &&
		     enf_num(&e, 1, "opened") < 32 && value(&e, "open_files") == 32,
	     "LIM-6 open_files=32: 20 open, then EMFILE below 32 (%g, %s)", enf_num(&e, 1, "opened"),
	     enf_errno(&e, 1));
	enf_run_free(&e);
}

static void cpu_bounded(void)
{
	struct enf_run e;
	cJSON *req = lim_req("{\"cpu_seconds\":1}");
	double used;

	enf_op(req, 2, "spin", "200");
	enf_op(req, 2, "spin", "8000");
	enf_run(ref, req, &e);
	used = (double)(e.r.ru.ru_utime.tv_sec + e.r.ru.ru_stime.tv_sec) +
	       (double)(e.r.ru.ru_utime.tv_usec + e.r.ru.ru_stime.tv_usec) / 1e6;
	t_ok(enf_ok(&e, 0) == 1 && enf_ok(&e, 1) < 0 && enf_kind_is(&e, "limit_exceeded") &&
		     strcmp(oc_str(e.r.outcome, "limit"), "cpu_seconds") == 0 &&
		     strcmp(oc_str(e.r.outcome, "exit.signal_name"), "SIGXCPU") == 0 && used < 5,
	     "LIM-6 cpu_seconds=1: 200 ms fits, an 8 s busy loop is stopped by SIGXCPU: %s, limit %s "
	     "(host: the run used %.1f s of CPU)", enf_kind(&e), oc_str(e.r.outcome, "limit"), used);
	enf_run_free(&e);
	enf_run(ref, sh_req("{\"cpu_seconds\":1}", "kill -XCPU $$"), &e);
	t_ok(enf_kind_is(&e, "application_failure") &&
		     strcmp(oc_str(e.r.outcome, "exit.signal_name"), "SIGXCPU") == 0 &&
		     !oc_get(e.r.outcome, "limit"),
	     "LIM-6 a SIGXCPU the command sent itself is not the limit (%s)", enf_kind(&e));
	enf_run_free(&e);
}

/* Through sp_fault (sys fails with err; with arg1, only calls whose
 * second argument is arg1): a limit whose mechanism fails is refused. */
static void faulted(const char *sys, const char *err, const char *arg1, const char *limits,
		    const char *want, const char *why)
{
	char marker[PATH_MAX], *text;
	char *argv[] = {(char *)fault, (char *)sys, (char *)err, (char *)(arg1 ? arg1 : "--"),
			arg1 ? "--" : (char *)ref, arg1 ? (char *)ref : "run", arg1 ? "run" : "--request",
			arg1 ? "--request" : "-", arg1 ? "-" : NULL, NULL};
	cJSON *req = lim_req(limits);
	struct refrun r;

	snprintf(marker, sizeof(marker), "%s/fault-ran", A.ws);
	enf_op(req, 3, "write", marker, "x");
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	refrun(argv, text, &r, NULL, NULL);
	free(text);
	if (want)
		t_ok(strcmp(oc_str(r.outcome, "kind"), "sandbox_setup_failure") == 0 &&
			     strncmp(oc_str(r.outcome, "setup_error.step"), want, strlen(want)) == 0 &&
			     !enf_lexists(marker),
		     "SETUP-3 %s %s (%s): refused at %s, nothing ran", sys, err, why,
		     oc_str(r.outcome, "setup_error.step"));
	else
		t_ok(strcmp(oc_str(r.outcome, "kind"), "success") == 0 && enf_lexists(marker) &&
			     cJSON_IsNull(oc_get(r.outcome, "enforcement.limits.pids")),
		     "LIM-2 %s %s (%s): ran, pids reported not applied (%s)", sys, err, why,
		     oc_str(r.outcome, "kind"));
	refrun_free(&r);
	unlink(marker);
}

static void fail_closed(void)
{
	/* only prlimit64(pid, RLIMIT_CPU = 0, ...): a sanitizer's start-up
	 * needs getrlimit of other resources */
	faulted("prlimit64", "EPERM", "0", "{\"cpu_seconds\":600}", "limits:cpu_seconds",
		"RLIMIT_CPU cannot be set");
	if (getuid() == 0) {
		faulted("mkdir", "EACCES", NULL, "{\"pids\":64}", "limits:pids",
			"no cgroup, and RLIMIT_NPROC does not bind uid 0");
		faulted("mkdir", "EACCES", NULL, NULL, NULL, "the default pids limit has no mechanism");
	} else {
		t_skipped("pids without a cgroup as root: this test runs unprivileged");
	}
}

/* The pids cgroup v1 directory this test is in, so the runner it starts
 * too (cgroups are inherited): the parent of the runner's cgroups. */
static bool pids_parent(char *out, size_t n)
{
	char line[1024];
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ":pids:");

		if (!p)
			continue;
		p += 6;
		p[strcspn(p, "\n")] = '\0';
		snprintf(out, n, "/sys/fs/cgroup/pids%s", strcmp(p, "/") == 0 ? "" : p);
		found = access(out, F_OK) == 0;
	}
	if (f)
		fclose(f);
	return found;
}

/* Entries sandproof-<runner>-* in parent; the last one's path into last. */
static int find_ours(const char *parent, pid_t runner, char *last, size_t n)
{
	char prefix[64];
	DIR *d = opendir(parent);
	struct dirent *de;
	int count = 0;

	snprintf(prefix, sizeof(prefix), "sandproof-%d-", (int)runner);
	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0) {
			count++;
			if (last)
				snprintf(last, n, "%s/%s", parent, de->d_name);
		}
	if (d)
		closedir(d);
	return count;
}

static int count_ours(const char *parent, pid_t runner)
{
	return find_ours(parent, runner, NULL, 0);
}

/* Wait (up to 5 s) until no process is left in the cgroup dir. */
static bool emptied(const char *dir)
{
	char procs[PATH_MAX + 16];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	for (int i = 0; i < 500; i++) {
		char *s = enf_slurp(procs);
		bool empty = s && !*s;

		free(s);
		if (empty)
			return true;
		usleep(10000);
	}
	return false;
}

struct kill_when {
	const char *marker;
};

/* SIGKILL the runner (by its pid: our unreaped child) once its command ran. */
static void kill_when_started(pid_t pid, void *arg)
{
	const struct kill_when *k = arg;

	for (int i = 0; i < 500 && !enf_lexists(k->marker); i++)
		usleep(10000);
	kill(pid, SIGKILL);
}

static void cgroup_residue(const char *parent)
{
	char marker[PATH_MAX], script[PATH_MAX + 64], left[PATH_MAX];
	struct kill_when k = {marker};
	struct enf_run e;
	pid_t dead;

	snprintf(marker, sizeof(marker), "%s/cg-started", A.ws);
	snprintf(script, sizeof(script), "touch %s; sleep 30", marker);
	enf_run_cb(ref, sh_req("{\"pids\":64}", script), &e, kill_when_started, &k);
	dead = e.r.pid;
	t_ok(enf_lexists(marker) && !e.r.outcome && find_ours(parent, dead, left, sizeof(left)) == 1,
	     "LIM-8 control: a runner SIGKILLed mid-run leaves its cgroup behind (%d in %s)",
	     count_ours(parent, dead), parent);
	t_ok(count_ours(parent, dead) == 1 && emptied(left),
	     "PROC-10 its sandbox died with it: nothing is left in %s", left);
	enf_run_free(&e);
	enf_run(ref, sh_req(NULL, "true"), &e);
	t_ok(enf_kind_is(&e, "success") && count_ours(parent, dead) == 0 &&
		     count_ours(parent, e.r.pid) == 0,
	     "LIM-8 the next run removed it, and its own (%s)", enf_kind(&e));
	enf_run_free(&e);
	unlink(marker);
	if (find_ours(parent, dead, left, sizeof(left)) && rmdir(left) == 0)
		fprintf(stderr, "# removed %s, which the runner left\n", left);
}

static void cgroup_checks(void)
{
	char parent[PATH_MAX], want[64];
	struct enf_run e;

	enf_run(ref, sh_req("{\"pids\":64}", "echo 0 > /sys/fs/cgroup/pids/cgroup.procs; echo rc=$?; "
					      "grep :pids: /proc/self/cgroup"), &e);
	if (!cgroup_via(via(&e, "pids")) || !pids_parent(parent, sizeof(parent))) {
		t_skipped("no pids cgroup v1 for this user (pids via %s): cgroup checks", via(&e, "pids"));
		enf_run_free(&e);
		return;
	}
	snprintf(want, sizeof(want), "/sandproof-%d-", (int)e.r.pid);
	t_ok(strstr(oc_str(e.r.outcome, "stdout"), want) && !strstr(oc_str(e.r.outcome, "stdout"), "rc=0"),
	     "LIM-8 the command is in the run's cgroup and cannot move itself out (%s)",
	     oc_str(e.r.outcome, "stdout"));
	t_ok(count_ours(parent, e.r.pid) == 0, "LIM-8 the run's cgroup is gone after it");
	enf_run_free(&e);
	cgroup_residue(parent);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_limits SANDPROOF_REF SANDPROOF_PROBE SP_FAULT\n");
		return 2;
	}
	ref = argv[1];
	probe = argv[2];
	fault = argv[3];
	if (enf_area_new(&A, "/tmp", probe) < 0) {
		fprintf(stderr, "cannot create an area under /tmp\n");
		return 2;
	}
	defaults_reported();
	pids_bounded();
	memory_bounded();
	unrestricted_no_cgroup();
	tmp_bounded();
	tmp_refused();
	open_files_bounded();
	cpu_bounded();
	fail_closed();
	cgroup_checks();
	enf_area_free(&A);
	return t_done();
}
