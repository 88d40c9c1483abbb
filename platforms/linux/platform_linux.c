/* platform_linux.c - the Linux adapter behind ref/platform.h.
 *
 * This is the plain adapter: it applies no confinement of its own, so it
 * accepts only requests that ask for none (filesystem "unrestricted" and
 * network "allow") and refuses every other with sandbox_setup_failure
 * before anything is started (SETUP-1: never run with less enforcement
 * than requested).  What it does provide is the lifecycle: a new session
 * and process group, exact exec reporting, and a tree kill that reaches
 * daemonized descendants through the child-subreaper attribute. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform.h"
#include "proctree.h"
#include "spawn.h"

/* How long a tree kill may keep rescanning before it reports survivors. */
#define KILL_BUDGET_MS 5000

struct plan {
	const struct request *req; /* outlives the plan (run_execute) */
};

struct launch {
	pid_t pid;
};

int platform_supervisor_init(void)
{
	/* Orphans of the command are re-parented to us, so the tree kill can
	 * find a grandchild that escaped with setsid + double fork. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -errno;
	return 0;
}

int platform_prepare(const struct request *req, struct plan **out,
		     struct setup_error *err)
{
	struct plan *p;

	if (req->fs_kind != FS_UNRESTRICTED || req->network != NET_ALLOW) {
		snprintf(err->step, sizeof(err->step), "enforcement");
		err->err = EOPNOTSUPP;
		snprintf(err->detail, sizeof(err->detail),
			 "no enforcement backend: this build confines neither filesystem nor network (asked: filesystem %s, network %s)",
			 req->fs_kind == FS_RESTRICTED ? "restricted" : "unrestricted",
			 req->network == NET_DENY ? "deny" : "allow");
		return -EOPNOTSUPP;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err->step, sizeof(err->step), "plan");
		err->err = ENOMEM;
		return -ENOMEM;
	}
	p->req = req;
	*out = p;
	return 0;
}

void platform_plan_free(struct plan *plan)
{
	free(plan);
}

void platform_enforcement(const struct plan *plan, struct enforcement *e)
{
	(void)plan;
	memset(e, 0, sizeof(*e));
	e->backend = "linux-plain";
}

/* Child: everything here either ends in execve or in spawn_fail(). */
static _Noreturn void child(const struct plan *p, const struct launch_stdio *io,
			    int rep, pid_t parent)
{
	const struct request *r = p->req;
	int err;

	spawn_reset_signals();
	/* Own session: no controlling terminal, own process group. */
	if (setsid() < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "setsid", errno, NULL);
	/* Die with the runner; re-check the parent to close the race with a
	 * runner that died before the attribute was set. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		spawn_fail(rep, SPAWN_MSG_SETUP, "pdeathsig", errno ? errno : ESRCH, NULL);
	if (dup2(io->in, 0) < 0 || dup2(io->out, 1) < 0 || dup2(io->err, 2) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "stdio", errno, NULL);
	/* Nothing but 0-2 crosses into the command (the report pipe is
	 * close-on-exec already). */
	if (syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "close_range", errno, NULL);
	if (r->cwd && chdir(r->cwd) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "chdir", errno, r->cwd);
	err = spawn_exec(r->command.v, r->env.v ? r->env.v : (char *[]){NULL});
	spawn_fail(rep, SPAWN_MSG_EXEC, "exec", err, r->command.v[0]);
}

int platform_launch(struct plan *plan, const struct launch_stdio *io,
		    struct launch **out, struct launch_status *st)
{
	struct launch *l;
	int rep[2], rc;
	pid_t parent = getpid(), pid;

	memset(st, 0, sizeof(*st));
	l = calloc(1, sizeof(*l));
	if (!l || pipe2(rep, O_CLOEXEC) < 0) {
		rc = l ? -errno : -ENOMEM;
		free(l);
		snprintf(st->setup.step, sizeof(st->setup.step), "launch");
		st->setup.err = -rc;
		return rc;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(rep[0]);
		close(rep[1]);
		free(l);
		snprintf(st->setup.step, sizeof(st->setup.step), "fork");
		st->setup.err = -rc;
		return rc;
	}
	if (pid == 0) {
		close(rep[0]);
		child(plan, io, rep[1], parent);
	}
	close(rep[1]);
	l->pid = pid;
	rc = spawn_read_report(rep[0], st);
	close(rep[0]);
	if (rc < 0) {
		st->result = LAUNCH_SETUP_FAILED;
		snprintf(st->setup.step, sizeof(st->setup.step), "report");
		st->setup.err = -rc;
	}
	*out = l;
	return 0;
}

pid_t platform_pid(const struct launch *l)
{
	return l->pid;
}

int platform_kill_tree(struct launch *l)
{
	(void)l;
	return proctree_kill(getpid(), KILL_BUDGET_MS);
}

int platform_pollfds(struct launch *l, struct pollfd *fds, int max)
{
	(void)l;
	(void)fds;
	(void)max;
	return 0;
}

int platform_service(struct launch *l, const struct pollfd *fds, int n,
		     struct denials *d)
{
	(void)l;
	(void)fds;
	(void)n;
	(void)d;
	return 0;
}

void platform_release(struct launch *l, struct denials *d)
{
	(void)d;
	free(l);
}
