/* test_seatbelt_argv.c - the macOS backend's plan and launch, white-box,
 * in the posix-sim (tests/macos-sim/sandbox-exec records its argv).
 *
 *   - what sandbox-exec is started with is exactly: SP_SANDBOX_EXEC, -p and
 *     the text sbpl_generate() gives for the same request, temp directory
 *     and tag, each -D NAME=VALUE of its parameters, --, the command
 *     resolved by execvp's rules, its arguments; the preflight the same up
 *     to --, then a path in the private temp directory that does not exist;
 *     the canary (between them) the same up to --, then /bin/bash -c, its
 *     script, the marker sandproof-canary and its five arguments: a
 *     control file in the write root, the listener's port, the first
 *     absent protected component, no other-case spelling (the sim's
 *     volume keeps case), a file in a fresh directory outside;
 *   - the command's environment has TMPDIR (TMP, TEMP) naming the request's
 *     temp_dir itself (the runtime root's tmp/, RT-3), which release leaves;
 *   - enforcement says "seatbelt-sim", denials not reported, names matched
 *     with normalization, the canary's three checks made;
 *   - policy paths: a write root that is a symlink, a deny_read below a
 *     symlinked directory, a dangling deny_write symlink are refused with
 *     their step and ELOOP; an absent deny_read outside is accepted;
 *   - a stated limit Seatbelt cannot enforce is refused (limits:pids);
 *   - a profile the sandbox-exec refuses (SANDPROOF_SIM_REFUSE) is a setup
 *     failure of the launch, step "seatbelt", and the command never ran (a
 *     marker it would create is absent). */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "namefold.h"
#include "sandproof/request.h"
#include "seatbelt.h"
#include "t.h"

static char area[128], argv_log[160];

static int parse(const char *json, struct request *req)
{
	char err[REQUEST_ERR_MAX];
	int rc = request_parse(json, strlen(json), req, err);

	if (rc < 0)
		printf("# request_parse: %s\n", err);
	return rc;
}

/* The record-th argv the fake logged (0: the first), NULL-terminated.
 * Arguments are NUL-terminated (a profile holds newlines): searched by
 * length, not as C strings. */
static char **log_argv(int record)
{
	static const char mark[] = "\n--end--\n";
	static char buf[1 << 16];
	static char *v[256];
	FILE *f = fopen(argv_log, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0, k = 0;
	char *p = buf, *end;

	if (f)
		fclose(f);
	buf[n] = '\0';
	for (int r = 0; r < record && p; r++)
		if ((p = memmem(p, n - (size_t)(p - buf), mark, sizeof(mark) - 1)))
			p += sizeof(mark) - 1;
	end = p ? memmem(p, n - (size_t)(p - buf), mark, sizeof(mark) - 1) : NULL;
	while (p && end && p < end && k < 255) {
		v[k++] = p;
		p += strlen(p) + 1;
	}
	v[k] = NULL;
	return v;
}

static size_t vlen(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* argv[0..] against the expected prefix: launcher, -p TEXT, -D pairs, --. */
static size_t check_prefix(char **v, const struct sbpl_profile *want, const char *what)
{
	size_t i = 0, n = vlen(v);
	bool same = n > 3 && strcmp(v[0], SP_SANDBOX_EXEC) == 0 && strcmp(v[1], "-p") == 0 &&
		    strcmp(v[2], want->text) == 0;

	t_ok(same, "%s: %s -p <exactly sbpl_generate's text>", what, SP_SANDBOX_EXEC);
	i = 3;
	for (size_t k = 0; k < want->n_params; k++, i += 2) {
		char kv[4096];

		snprintf(kv, sizeof(kv), "%s=%s", want->params[k].name, want->params[k].value);
		t_ok(i + 1 < n && strcmp(v[i], "-D") == 0 && strcmp(v[i + 1], kv) == 0,
		     "%s: -D %s", what, kv);
	}
	t_ok(i < n && strcmp(v[i], "--") == 0, "%s: -- after the parameters", what);
	return i + 1;
}

static const char *env_of(const struct plan *p, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < p->envp.n; i++)
		if (strncmp(p->envp.v[i], name, n) == 0 && p->envp.v[i][n] == '=')
			return p->envp.v[i] + n + 1;
	return NULL;
}

static void test_argv(void)
{
	char json[2048], tmpd[256], *exe = NULL;
	struct request req;
	struct plan *p = NULL;
	struct launch *l = NULL;
	struct launch_status st;
	struct setup_error err;
	struct sbpl_profile want;
	struct sbpl_opts o;
	struct launch_stdio io;
	struct denials d = {.n = 0};
	struct enforcement e;
	char gerr[SBPL_ERR_MAX], **v;
	int status = -1, nul = open("/dev/null", O_RDWR), rc;
	size_t i;

	snprintf(tmpd, sizeof(tmpd), "%s/rtmp", area);
	mkdir(tmpd, 0700);
	snprintf(json, sizeof(json),
		 "{\"version\":1,\"command\":[\"sh\",\"-c\",\"exit 3\",\"an arg\"],\"cwd\":\"%s/ws\","
		 "\"env\":{\"PATH\":\"/usr/bin:/bin\",\"TMPDIR\":\"/elsewhere\","
		 "\"SANDPROOF_SIM_ARGV_LOG\":\"%s\"},\"profile\":{\"filesystem\":{\"write_roots\":"
		 "[{\"root\":\"%s/ws\"}],\"deny_read\":[\"%s/absent\"]}}}", area, argv_log, area, area);
	if (!t_ok(parse(json, &req) == 0, "the request parses"))
		return;
	req.temp_dir = tmpd;
	rc = platform_prepare(&req, &p, &err);
	if (!t_ok(rc == 0, "prepare accepts canonical paths and an absent deny_read (%s %s)",
		  rc ? err.step : "", rc ? err.detail : "")) {
		request_free(&req);
		return;
	}
	t_ok(p->tmpdir && !strcmp(p->tmpdir, tmpd) && p->tmpdir_borrowed,
	     "the temp dir is the request's temp_dir itself (RT-3: the root's tmp/) (%s)", p->tmpdir);
	t_ok(p->tmpdir && env_of(p, "TMPDIR") && strcmp(env_of(p, "TMPDIR"), p->tmpdir) == 0 &&
	     strcmp(env_of(p, "TMP"), p->tmpdir) == 0 && strcmp(env_of(p, "TEMP"), p->tmpdir) == 0,
	     "TMPDIR, TMP and TEMP name it (the request's TMPDIR replaced)");
	o = (struct sbpl_opts){.temp_dir = p->tmpdir, .message_tag = p->tag,
			       .name_fold = p->name_fold, .terminal_ioctl = p->terminal_ioctl};
	t_ok(p->terminal_ioctl == (geteuid() != 0),
	     "terminal ioctls in the profile only for a runner that is not root (%s)",
	     p->terminal_ioctl ? "not root: allowed" : "root: not allowed");
	t_ok(p->name_fold == NAMEFOLD_NORM && !p->case_insensitive,
	     "the sim's volume keeps case: the profile folds normalization only");
	memset(&want, 0, sizeof(want));
	t_ok(sbpl_generate(&req, &o, &want, gerr) == 0, "sbpl_generate (the reference) works");
	t_ok(canon_resolve_command(&req, &exe) == 0, "the command resolves (%s)", exe ? exe : "-");
	io = (struct launch_stdio){nul, nul, nul};
	rc = platform_launch(p, &io, &l, &st);
	t_ok(rc == 0 && st.result == LAUNCH_RUNNING, "launch starts the command");
	if (rc == 0)
		waitpid(platform_pid(l), &status, 0);
	t_ok(WIFEXITED(status) && WEXITSTATUS(status) == 3, "its exit status comes back (3)");
	v = log_argv(0);
	i = check_prefix(v, &want, "preflight");
	t_ok(v[i] && strcmp(v[i], "") != 0 && strncmp(v[i], p->tmpdir, strlen(p->tmpdir)) == 0 &&
	     !v[i + 1] && access(v[i], F_OK) < 0,
	     "preflight: then one absent path in the private temp dir, nothing else");
	v = log_argv(1);
	i = check_prefix(v, &want, "canary");
	{
		char ctl[PATH_MAX], prot[PATH_MAX];

		snprintf(ctl, sizeof(ctl), "%s/ws/.sandproof-canary-%ld", area, (long)getpid());
		snprintf(prot, sizeof(prot), "%s/ws/.git", area);
		t_ok(v[i] && !strcmp(v[i], "/bin/bash") && v[i + 1] && !strcmp(v[i + 1], "-c") &&
		     v[i + 2] && v[i + 3] && !strcmp(v[i + 3], "sandproof-canary") && v[i + 4] &&
		     !strcmp(v[i + 4], ctl) && v[i + 5] && atoi(v[i + 5]) > 0 && v[i + 6] &&
		     !strcmp(v[i + 6], prot) && v[i + 7] && !v[i + 7][0] && v[i + 8] &&
		     strstr(v[i + 8], "/sandproof-canary.") && !v[i + 9],
		     "canary: /bin/bash -c SCRIPT sandproof-canary, control %s, a port, %s, no "
		     "other case, an outside file", ctl, prot);
		t_ok(v[i + 4] && access(v[i + 4], F_OK) < 0 && v[i + 8] && access(v[i + 8], F_OK) < 0,
		     "canary: its control file and outside directory are gone afterwards");
	}
	v = log_argv(2);
	i = check_prefix(v, &want, "run");
	t_ok(v[i] && exe && strcmp(v[i], exe) == 0 && v[i + 1] && strcmp(v[i + 1], "-c") == 0 &&
	     v[i + 2] && strcmp(v[i + 2], "exit 3") == 0 && v[i + 3] &&
	     strcmp(v[i + 3], "an arg") == 0 && !v[i + 4],
	     "run: then the resolved command and its arguments, unchanged");
	platform_enforcement(p, &e);
	t_ok(strcmp(e.backend, "seatbelt-sim") == 0 && !e.denials_logged && !e.seccomp_notify,
	     "enforcement: backend seatbelt-sim, denials not reported");
	t_ok(e.seatbelt.applied && !strcmp(e.name_matching, "normalization-insensitive") &&
	     e.seatbelt.n_canary == 3 && !strcmp(e.seatbelt.canary[0], "loopback_connect") &&
	     !strcmp(e.seatbelt.canary[1], "protected_create") &&
	     !strcmp(e.seatbelt.canary[2], "write_outside"),
	     "enforcement: name_matching normalization-insensitive, the canary's three checks");
	{
		char keep[256];

		snprintf(keep, sizeof(keep), "%s", p->tmpdir);
		platform_release(l, &d);
		t_ok(access(keep, F_OK) == 0 && d.n == 0,
		     "release leaves the root's tmp/ (RT-3), records no denial");
	}
	sbpl_profile_free(&want);
	free(exe);
	platform_plan_free(p);
	request_free(&req);
	close(nul);
}

/* prepare must refuse json with step and errno. */
static void refused(const char *json, const char *step, int e, const char *what)
{
	struct request req;
	struct plan *p = NULL;
	struct setup_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	if (parse(json, &req) < 0) {
		t_ok(0, "%s: the request parses", what);
		return;
	}
	rc = platform_prepare(&req, &p, &err);
	t_ok(rc == -e && strcmp(err.step, step) == 0 && !p, "%s: refused, %s (got %d %s: %s)", what,
	     step, rc, err.step, err.detail);
	platform_plan_free(p);
	request_free(&req);
}

static void test_refusals(void)
{
	char json[1024], step[400], path[256], target[256];

	snprintf(path, sizeof(path), "%s/wslink", area);
	snprintf(target, sizeof(target), "%s/ws", area);
	symlink(target, path);
	snprintf(json, sizeof(json), "{\"version\":1,\"command\":[\"true\"],\"cwd\":\"%s\","
		 "\"profile\":{\"filesystem\":{\"write_roots\":[{\"root\":\"%s\"}]}}}", area, path);
	snprintf(step, sizeof(step), "write_root:%s", path);
	refused(json, step, ELOOP, "a write root that is a symlink");
	snprintf(json, sizeof(json), "{\"version\":1,\"command\":[\"true\"],\"cwd\":\"%s\","
		 "\"profile\":{\"filesystem\":{\"deny_read\":[\"%s/secret\"]}}}", area, path);
	snprintf(step, sizeof(step), "deny_read:%s/secret", path);
	refused(json, step, ELOOP, "an absent deny_read below a symlinked directory");
	snprintf(path, sizeof(path), "%s/dangling", area);
	symlink("/nonexistent/x", path);
	snprintf(json, sizeof(json), "{\"version\":1,\"command\":[\"true\"],\"cwd\":\"%s\","
		 "\"profile\":{\"filesystem\":{\"deny_write\":[\"%s\"]}}}", area, path);
	snprintf(step, sizeof(step), "deny_write:%s", path);
	refused(json, step, ELOOP, "a deny_write that is a dangling symlink");
	snprintf(json, sizeof(json), "{\"version\":1,\"command\":[\"true\"],\"cwd\":\"%s\","
		 "\"profile\":{\"limits\":{\"pids\":64}}}", area);
	refused(json, "limits:pids", EOPNOTSUPP, "a stated pids limit (no per-sandbox bound)");
}

static void test_refused_profile(void)
{
	char json[1024], marker[256];
	struct request req;
	struct plan *p = NULL;
	struct launch *l = NULL;
	struct launch_status st;
	struct setup_error err;
	struct launch_stdio io = {0, 1, 2};
	int rc;

	snprintf(marker, sizeof(marker), "%s/ws/ran", area);
	snprintf(json, sizeof(json), "{\"version\":1,\"command\":[\"touch\",\"%s\"],\"cwd\":\"%s/ws\","
		 "\"env\":{\"PATH\":\"/usr/bin:/bin\",\"SANDPROOF_SIM_REFUSE\":\"(deny default\"},"
		 "\"profile\":{\"filesystem\":{\"write_roots\":[{\"root\":\"%s/ws\"}]}}}",
		 marker, area, area);
	if (!t_ok(parse(json, &req) == 0, "refusal: the request parses"))
		return;
	rc = platform_prepare(&req, &p, &err);
	t_ok(rc == 0, "refusal: prepare accepts it (the refusal is sandbox-exec's)");
	if (rc == 0) {
		rc = platform_launch(p, &io, &l, &st);
		t_ok(rc == -EINVAL && !l && st.result == LAUNCH_SETUP_FAILED &&
		     strcmp(st.setup.step, "seatbelt") == 0 && strstr(st.setup.detail, "exit 65") &&
		     strstr(st.setup.detail, "simulated refusal"),
		     "refusal: launch fails, step seatbelt, EINVAL, sandbox-exec's line as detail (%s)",
		     st.setup.detail);
	}
	t_ok(access(marker, F_OK) < 0, "refusal: the command did not run (no marker on the host)");
	platform_plan_free(p);
	request_free(&req);
}

int main(void)
{
	char ws[256];

	/* Under SP_TEST_AREA (CMakeLists.txt: /private/tmp on macOS, /dev/shm
	 * in the sim), never the build tree, which may lie below /tmp: the
	 * generator refuses /tmp and /var spellings as macOS would read them. */
	snprintf(area, sizeof(area), "%s/sp-seatbelt.XXXXXX", SP_TEST_AREA);
	if (!mkdtemp(area))
		return 1;
	snprintf(argv_log, sizeof(argv_log), "%s/argv.log", area);
	setenv("TMPDIR", area, 1); /* a run without a runtime root: its temp dir here */
	snprintf(ws, sizeof(ws), "%s/ws", area);
	mkdir(ws, 0755);
	test_argv();
	test_refusals();
	test_refused_profile();
	if (!getenv("KEEP")) canon_tree_remove(area);
	return t_done();
}
