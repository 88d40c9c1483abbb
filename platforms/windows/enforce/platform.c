/* platform.c - the runner seam (sandproof/platform.h) of Windows: a
 * restricted token, an ACL plan applied through reparse-refusing handles,
 * WFP filters, a job object (README.md).
 *
 *   prepare: the plan is built by winplan_build() (the policy is decided
 *            there, never here); a crashed run's DACL journals are replayed
 *            first (a stale allow ACE for this workspace's capability SID
 *            would weaken this run: a journal that cannot be replayed is a
 *            setup failure); the capability and logon SIDs, the command
 *            line, the environment (PROC-11) and the command's path are
 *            made; a limit a job object cannot enforce is refused (LIM-2);
 *   launch:  every ACE applied (journalled first), the WFP filters added
 *            (not elevated and the network denied: refused, step
 *            "network"), the token made, the process created suspended,
 *            assigned to the job and resumed; any failure undoes what was
 *            applied and nothing runs (SETUP-1);
 *   release: the tree killed, the job closed, the WFP session closed (its
 *            filters vanish), every DACL restored from the journal.
 *
 * The core supervises with POSIX calls that platforms/windows/compat
 * provides (poll on the pipes, waitpid): the child is registered there with
 * wincompat_child_add(); no descriptor is added to the poll (pollfds: 0). */
#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "winpath.h"
#include "winplan.h"
#include "winseam.h"

#include <sddl.h> /* after windows.h */

int winseam_fail(struct setup_error *out, const struct wenf_error *e)
{
	snprintf(out->step, sizeof(out->step), "%s", e->step);
	out->err = e->err ? e->err : EIO;
	snprintf(out->detail, sizeof(out->detail), "%s", e->detail);
	return -out->err;
}

static int seam_fail(struct setup_error *out, const char *step, int err, const char *detail)
{
	struct wenf_error e;

	wenf_fail(&e, step, NULL, err, "%s", detail ? detail : "");
	return winseam_fail(out, &e);
}

/* Windows policy paths (platforms/windows/plan/winpath.c). */
const struct request_path_rules *platform_path_rules(void)
{
	return &winpath_request_rules;
}

int platform_supervisor_init(void)
{
	/* The job object is the subreaper's counterpart (job.c).  No error
	 * dialog may ever wait for a click in an unattended run; the mode is
	 * inherited by the command. */
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
	return 0;
}

static bool is_var(const char *kv, const char *name)
{
	size_t n = strlen(name);

	return _strnicmp(kv, name, n) == 0 && kv[n] == '=';
}

/* PROC-11: the request's environment, the temp variables naming the run's
 * temp directory (RT-3), the two markers.  Names compare case-insensitively,
 * as Windows does. */
static int env_build(const struct request *req, struct plan *p)
{
	static const char *const tmpvars[] = {"TMPDIR", "TMP", "TEMP"};
	const char **v = calloc(req->env.n + 5, sizeof(*v));
	char *tmp[3] = {NULL, NULL, NULL};
	size_t n = 0;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < req->env.n; i++) {
		const char *kv = req->env.v[i];
		bool skip = is_var(kv, "SANDPROOF_SANDBOXED") || is_var(kv, "SANDPROOF_NETWORK");

		for (size_t k = 0; req->temp_dir && k < 3; k++)
			skip = skip || is_var(kv, tmpvars[k]);
		if (!skip)
			v[n++] = kv;
	}
	for (size_t k = 0; req->temp_dir && k < 3 && rc == 0; k++) {
		size_t len = strlen(tmpvars[k]) + strlen(req->temp_dir) + 2;

		tmp[k] = malloc(len);
		if (!tmp[k])
			rc = -ENOMEM;
		else {
			snprintf(tmp[k], len, "%s=%s", tmpvars[k], req->temp_dir);
			v[n++] = tmp[k];
		}
	}
	v[n++] = "SANDPROOF_SANDBOXED=1";
	v[n++] = req->network == NET_DENY ? "SANDPROOF_NETWORK=deny" : "SANDPROOF_NETWORK=allow";
	if (rc == 0)
		rc = spawn_envblock(v, n, &p->env);
	for (size_t k = 0; k < 3; k++)
		free(tmp[k]);
	free(v);
	return rc;
}

/* LIM-2 with a job object: the process bound is the job's active-process
 * limit (processes, not threads: README.md says so); every other stated
 * limit is refused, every other default left out (reported null). */
static int limits_plan(const struct request *req, struct plan *p, struct setup_error *err)
{
	uint64_t pids = limit_wanted(&req->limits, LIMIT_PIDS);

	for (int i = 0; i < LIMIT_COUNT; i++) {
		char step[48];

		if (i == LIMIT_PIDS || !req->limits.value[i])
			continue;
		snprintf(step, sizeof(step), "limits:%s", limit_names[i]);
		return seam_fail(err, step, EOPNOTSUPP,
				 "the Windows backend cannot enforce this limit (a job object "
				 "bounds processes only here)");
	}
	if (pids > 0xffffffffu)
		pids = 0xffffffffu;
	p->max_procs = (DWORD)pids;
	if (pids) {
		p->enf.limits[LIMIT_PIDS].value = pids;
		p->enf.limits[LIMIT_PIDS].via = "job-object";
	}
	return 0;
}

/* A crashed run's journals restored before this run applies anything. */
static int journal_prepare(struct plan *p, struct setup_error *err)
{
	struct wenf_error e = {0};
	int rc = acl_journal_dir(&p->journal_dir, &e);

	if (rc == 0)
		rc = acl_journal_replay(p->journal_dir, &e);
	return rc < 0 ? winseam_fail(err, &e) : 0;
}

/* The SIDs: the capability SID of the workspace (the first write root, else
 * the working directory), the logon SID of this session. */
static int sids_make(struct plan *p, struct setup_error *err)
{
	const struct request *req = p->req;
	const char *ws = req->n_write_roots ? req->write_roots[0].root : req->cwd;
	struct wenf_error e = {0};
	int rc = token_capability_sid(ws, &p->sids.cap, &e);

	if (rc == 0)
		rc = token_logon_sid(&p->sids.logon, &e);
	return rc < 0 ? winseam_fail(err, &e) : 0;
}

static int command_make(struct plan *p, struct setup_error *err)
{
	const struct request *req = p->req;
	int rc = spawn_cmdline((const char *const *)req->command.v, req->command.n, &p->cmdline);

	if (rc == -EINVAL)
		return seam_fail(err, "command", EINVAL, "an argument cannot be passed through a "
				 "Windows command line intact (argv[0] holding '\"')");
	if (rc == 0)
		rc = env_build(req, p);
	if (rc == -EINVAL)
		return seam_fail(err, "env", EINVAL, "an environment entry without a name, or two "
				 "naming one variable (names are case-insensitive on Windows)");
	if (rc == 0 && !(p->cwd = wenf_wide(req->cwd)))
		rc = -EINVAL;
	if (rc == 0) {
		int e = winseam_resolve(req, &p->app);

		if (e == -ENOEXEC)
			return seam_fail(err, "command", ENOEXEC, "a batch file runs under cmd.exe, "
					 "whose parsing the argument quoting cannot protect: name "
					 "cmd.exe and its /c line explicitly");
		/* Not found: an exec failure (OUT-2) reported by launch. */
		p->exe_errno = e < 0 ? -e : 0;
		if (e == -ENOMEM)
			rc = -ENOMEM;
	}
	return rc < 0 ? seam_fail(err, "plan", -rc, "cannot build the command") : 0;
}

int platform_prepare(const struct request *req, struct plan **out, struct setup_error *err)
{
	struct plan *p = calloc(1, sizeof(*p));
	char msg[WINPLAN_ERR_MAX] = "";
	int rc;

	*out = NULL;
	if (!p)
		return seam_fail(err, "plan", ENOMEM, NULL);
	p->req = req;
	p->enf.backend = WINSEAM_BACKEND;
	if (wenf_under_wine()) {
		/* SETUP-1: Wine's tokens, ACLs and WFP enforce nothing; a run
		 * there would have less enforcement than the outcome says. */
		free(p);
		return seam_fail(err, "unsupported", EOPNOTSUPP,
				 "running under Wine, which does not enforce restricted tokens, "
				 "ACLs or WFP filters: refused (a Wine run is never a Windows result)");
	}
	rc = winplan_build(req, &(struct winplan_opts){.temp_dir = req->temp_dir}, &p->wp, msg);
	if (rc < 0)
		rc = seam_fail(err, "plan", -rc, msg);
	else
		p->wp_built = true;
	if (rc == 0)
		rc = limits_plan(req, p, err);
	if (rc == 0)
		rc = journal_prepare(p, err);
	if (rc == 0)
		rc = sids_make(p, err);
	if (rc == 0)
		rc = command_make(p, err);
	if (rc < 0) {
		platform_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void platform_plan_free(struct plan *p)
{
	if (!p)
		return;
	if (p->wp_built)
		winplan_free(&p->wp);
	if (p->sids.cap)
		LocalFree(p->sids.cap);
	if (p->sids.logon)
		LocalFree(p->sids.logon);
	free(p->journal_dir);
	free(p->app);
	free(p->cmdline);
	free(p->env);
	free(p->cwd);
	free(p);
}

int platform_launch(struct plan *plan, const struct launch_stdio *io, struct launch **out,
		    struct launch_status *st)
{
	struct launch *l = calloc(1, sizeof(*l));
	struct wenf_error e = {0};
	int rc;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	if (!l)
		return seam_fail(&st->setup, "launch", ENOMEM, NULL);
	l->plan = plan;
	l->pid = -1;
	l->j.file = INVALID_HANDLE_VALUE;
	l->ws_lock = INVALID_HANDLE_VALUE;
	if (plan->exe_errno) {
		/* Nothing is applied for a command that cannot start (OUT-2). */
		st->result = LAUNCH_EXEC_FAILED;
		st->exec_errno = plan->exe_errno;
		*out = l;
		return 0;
	}
	rc = winseam_launch_apply(l, &e);
	if (rc == 0)
		rc = winseam_launch_start(l, io, &e);
	if (rc == 0) {
		st->result = LAUNCH_RUNNING;
		*out = l;
		return 0;
	}
	winseam_launch_undo(l, NULL); /* a restore that fails keeps its journal (replayed) */
	if (l->pi.hProcess) {
		CloseHandle(l->pi.hThread);
		CloseHandle(l->pi.hProcess);
	}
	memset(&l->pi, 0, sizeof(l->pi));
	l->pid = -1;
	if (!strcmp(e.step, "spawn") && (e.err == ENOENT || e.err == EACCES)) {
		st->result = LAUNCH_EXEC_FAILED; /* applied, then CreateProcess failed */
		st->exec_errno = e.err;
		*out = l;
		return 0;
	}
	rc = winseam_fail(&st->setup, &e);
	st->result = LAUNCH_SETUP_FAILED;
	free(l);
	return rc;
}

pid_t platform_pid(const struct launch *l)
{
	return l->pid;
}

int platform_status(struct launch *l, int raw_status)
{
	(void)l;
	return raw_status; /* the compat layer's waitpid encodes the exit code */
}

int platform_kill_tree(struct launch *l)
{
	/* The job holds the command's whole tree and nothing else (job.c). */
	return l->job ? job_kill(l->job, WINSEAM_KILL_CODE) : 0;
}

int platform_pollfds(struct launch *l, struct pollfd *fds, int max)
{
	(void)l;
	(void)fds;
	(void)max;
	return 0;
}

int platform_service(struct launch *l, const struct pollfd *fds, int n, struct denials *d)
{
	(void)l;
	(void)fds;
	(void)n;
	(void)d;
	return 0;
}

void platform_enforcement(const struct plan *plan, struct enforcement *e)
{
	*e = plan->enf;
}

void platform_limits_observe(struct launch *l, struct limit_report *r)
{
	(void)l;
	memset(r, 0, sizeof(*r));
	r->killed_by = -1; /* no counter of the job is read yet (README.md) */
}

const char *platform_errno_name(int err)
{
	return names_errno(err);
}

const char *platform_signal_name(int sig)
{
	return names_signal(sig, NULL);
}

int platform_release(struct launch *l, struct denials *d)
{
	(void)d;
	if (!l)
		return 0;
	/* A restore that fails keeps its journal: the next run refuses to
	 * start until it is replayed (journal_prepare). */
	winseam_launch_undo(l, NULL);
	if (l->pi.hThread)
		CloseHandle(l->pi.hThread);
	if (l->pi.hProcess)
		CloseHandle(l->pi.hProcess);
	free(l);
	return 0;
}
