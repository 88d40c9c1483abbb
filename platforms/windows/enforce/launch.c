/* launch.c - one run's enforcement put in place and taken down (winseam.h).
 *
 * Order, each step refusing the run when it fails (SETUP-1), nothing of
 * the command running before the last:
 *   apply   the workspace lock; for a plan whose token base is the sandbox
 *           account, an elevated runner and the account (account.c); every
 *           ACE, its prior DACL journalled first; the WFP filters;
 *   start   the base token (the account's batch logon, or the runner's
 *           own), the command's token derived and verified (token.c), the
 *           run's window station and desktop (desktop.c), the job, the
 *           plan's canaries under that token in that job (canary.c), the
 *           process created suspended, assigned, resumed;
 *   undo    the job's processes killed, the filters closed, the DACLs
 *           restored, the lock released, every handle closed. */
#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "winseam.h"

#include <sddl.h> /* after windows.h */

/* Network deny runs the command as the sandbox account, which only an
 * elevated runner may create, re-key and log on. */
static int account_prepare(struct launch *l, struct wenf_error *e)
{
	if (l->plan->wp.token.base != WINPLAN_BASE_ACCOUNT)
		return 0;
	if (!token_is_elevated())
		return wenf_fail(e, "network", NULL, EPERM,
				 "network deny runs the command as the sandbox account and adds WFP "
				 "filters; both need an elevated runner: refused, nothing ran");
	return account_ensure(WINPLAN_ACCOUNT, &l->account, e);
}

int winseam_launch_apply(struct launch *l, struct wenf_error *e)
{
	struct plan *p = l->plan;
	int rc = account_prepare(l, e);

	l->run = p->sids;
	l->run.account = l->account;
	if (rc == 0)
		rc = acl_journal_workspace_lock(p->journal_dir, p->sids.cap, &l->ws_lock, e);
	if (rc == 0)
		rc = acl_journal_open(&l->j, p->journal_dir, e);
	for (size_t i = 0; rc == 0 && i < p->wp.n_aces; i++) {
		bool applied = false;

		rc = acl_apply(&p->wp.aces[i], &l->run, &l->j, &applied, e);
		p->enf.windows.acl_entries += applied; /* OUT-4: what was set */
	}
	if (rc == 0 && p->wp.network_denied && !p->wp.n_filters)
		rc = wenf_fail(e, "network", NULL, EINVAL,
			       "the plan denies the network but names no filter: refused");
	if (rc == 0 && p->wp.network_denied)
		rc = wfp_apply(p->wp.filters, p->wp.n_filters, &l->run, &l->wfp, e);
	if (rc == 0 && p->wp.network_denied)
		p->enf.windows.wfp_filters = (unsigned)p->wp.n_filters;
	return rc;
}

/* The base token and the command's: for the account, a fresh batch logon
 * whose logon SID the token restricts to and the desktop grants. */
static int token_make(struct launch *l, struct wenf_error *e)
{
	struct plan *p = l->plan;
	int rc = 0;

	if (p->wp.token.base == WINPLAN_BASE_ACCOUNT) {
		rc = account_logon(WINPLAN_ACCOUNT, p->journal_dir, &l->base, e);
		if (rc == 0)
			rc = token_logon_sid_of(l->base, &l->base_logon, e);
		l->run.logon = l->base_logon;
	}
	if (rc == 0)
		rc = token_restricted_create(&p->wp.token, l->base, &l->run, &l->token, e);
	if (rc == 0)
		rc = desktop_create(l->run.logon, &l->desk, e);
	return rc;
}

static HANDLE os_handle(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}

/* OUT-4: the process runs under the plan's token inside the job. */
static void enforcement_started(struct plan *p)
{
	char *sid = NULL;

	p->enf.windows.applied = true;
	p->enf.windows.restricted_token = true;
	p->enf.windows.write_restricted = (p->wp.token.flags & WINPLAN_WRITE_RESTRICTED) != 0;
	p->enf.windows.job_object = true;
	p->enf.windows.integrity = winplan_integrity_name(p->wp.token.integrity);
	if (ConvertSidToStringSidA(p->sids.cap, &sid)) {
		snprintf(p->enf.windows.capability_sid, sizeof(p->enf.windows.capability_sid),
			 "%s", sid);
		LocalFree(sid);
	}
}

/* The plan's canaries, under the command's token, in its job, on its
 * desktop (canary.c): anything getting through refuses the run. */
static int canaries(struct launch *l, struct wenf_error *e)
{
	struct plan *p = l->plan;
	struct canary_spawn s = {.token = l->token, .other_user = l->base != NULL, .job = l->job,
				 .desktop = l->desk.name, .exe = canary_exe()};
	int rc = 0;

	if (!s.exe)
		rc = wenf_fail(e, "network:canary", NULL, ENOENT, "sandproof-canary.exe: no path");
	if (rc == 0 && (p->wp.canaries & WINPLAN_CANARY_NETWORK))
		rc = canary_network(&s, e);
	if (rc == 0 && (p->wp.canaries & WINPLAN_CANARY_OUTSIDE))
		rc = canary_outside(&s, p->journal_dir, e);
	free((wchar_t *)s.exe);
	return rc;
}

int winseam_launch_start(struct launch *l, const struct launch_stdio *io, struct wenf_error *e)
{
	struct plan *p = l->plan;
	struct spawn_req r = {0};
	int rc = token_make(l, e);

	if (rc == 0)
		rc = job_create(p->max_procs, p->wp.job_ui, p->wp.job_die_on_exception, &l->job, e);
	if (rc == 0)
		rc = job_verify(l->job, p->max_procs, p->wp.job_ui, p->wp.job_die_on_exception, e);
	if (rc == 0 && p->wp.canaries)
		rc = canaries(l, e);
	r = (struct spawn_req){.token = l->token, .job = l->job, .app = p->app,
			       .cmdline = p->cmdline, .env = p->env, .cwd = p->cwd,
			       .other_user = l->base != NULL, .desktop = l->desk.name,
			       .in = os_handle(io->in), .out = os_handle(io->out),
			       .err = os_handle(io->err)};
	if (rc == 0 && (r.in == INVALID_HANDLE_VALUE || r.out == INVALID_HANDLE_VALUE ||
			r.err == INVALID_HANDLE_VALUE))
		rc = wenf_fail(e, "spawn", NULL, EBADF, "a stdio descriptor has no OS handle");
	if (rc == 0)
		rc = spawn_start(&r, &l->pi, e);
	if (rc == 0)
		enforcement_started(p);
	if (rc == 0) {
		l->pid = (pid_t)l->pi.dwProcessId;
		if (wincompat_child_add((int)l->pid, l->pi.hProcess) < 0) {
			job_kill(l->job, WINSEAM_KILL_CODE);
			rc = wenf_fail(e, "supervise", NULL, EIO,
				       "the compat layer cannot supervise the process: killed");
		}
	}
	return rc;
}

int winseam_launch_undo(struct launch *l, struct wenf_error *e)
{
	int rc;

	if (l->job) {
		job_kill(l->job, WINSEAM_KILL_CODE);
		CloseHandle(l->job);
		l->job = NULL;
	}
	wfp_close(&l->wfp);
	rc = acl_journal_restore(&l->j, e);
	/* Released only after the restore: the next run finds its DACLs back. */
	if (l->ws_lock != INVALID_HANDLE_VALUE)
		CloseHandle(l->ws_lock);
	l->ws_lock = INVALID_HANDLE_VALUE;
	desktop_close(&l->desk);
	if (l->token)
		CloseHandle(l->token);
	if (l->base)
		CloseHandle(l->base);
	LocalFree(l->account);
	LocalFree(l->base_logon);
	l->token = l->base = NULL;
	l->account = l->base_logon = NULL;
	return rc;
}
