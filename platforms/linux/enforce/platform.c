/* platform_linux.c - the Linux adapter behind ref/platform.h.
 *
 * prepare: validate the request against the host (policy paths exist and
 * are not symlinks, Landlock and seccomp notification probed) and build the
 * mount plan.  launch: clone pid 1 of the sandbox into new namespaces,
 * write its uid/gid maps, release it, and read its spawn report; receive
 * the seccomp listener.  supervise: answer seccomp notifications (typed
 * denials), watch for protected-metadata creates.  kill: SIGKILL pid 1
 * through its pidfd, which ends the whole pid namespace. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "kfacts.h"
#include "landlock.h"
#include "limits_plan.h"
#include "mounts.h"
#include "names.h"
#include "nsinit.h"
#include "sandproof/platform.h"
#include "protect.h"
#include "spawn.h"
#include "timings.h"
#include "userns.h"

#define PROTECT_EV_BATCH 16

struct plan {
	const struct request *req; /* outlives the plan (run_execute) */
	struct protect_plan *protect; /* one per write root */
	size_t n_protect;
	struct mplan mounts;
	struct limits_plan limits;
	struct strv envp;
	struct enforcement enf;
	struct namecase_cache nc; /* how each volume matches names (META-6) */
};

struct launch {
	struct protect_mon *mon; /* NULL when no protected name is absent */
	const struct limits_plan *limits; /* the plan's: outlives the launch */
	pid_t pid;
	int pidfd;
	int status_fd;
	int notify_fd;
	bool have_status;  /* status: the command's, as platform_status() said */
	int status;
	uint64_t cpu_ms;   /* the command's own CPU time; UINT64_MAX: unknown */
};

static int setup_err(struct setup_error *e, const char *step, int err,
		     const char *detail)
{
	snprintf(e->step, sizeof(e->step), "%s", step);
	e->err = err;
	snprintf(e->detail, sizeof(e->detail), "%.*s", (int)sizeof(e->detail) - 1,
		 detail ? detail : "");
	return -err;
}

int platform_supervisor_init(void)
{
	/* Belt and braces: anything that leaves the pid namespace's reach
	 * still comes back to us, not to the host's init. */
	tm_init();
	tm_mark("supervisor_init");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -errno;
	return 0;
}

static bool is_var(const char *kv, const char *name)
{
	size_t n = strlen(name);

	return strncmp(kv, name, n) == 0 && kv[n] == '=';
}

/* The command's environment: the request's, plus the two markers; when the
 * runtime root's tmp/ is served as /tmp, the temp variables say /tmp. */
static int env_build(const struct request *req, const struct mplan *m,
		     struct strv *env)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < req->env.n; i++) {
		const char *kv = req->env.v[i];

		if (is_var(kv, "SANDPROOF_SANDBOXED") || is_var(kv, "SANDPROOF_NETWORK"))
			continue;
		if (m->tmp_source && (is_var(kv, "TMPDIR") || is_var(kv, "TMP") ||
				      is_var(kv, "TEMP")))
			rc = strv_push(env, kv[3] == 'D' ? "TMPDIR=/tmp" :
					    kv[3] == 'P' ? "TEMP=/tmp" : "TMP=/tmp");
		else
			rc = strv_push(env, kv);
	}
	if (rc == 0)
		rc = strv_push(env, "SANDPROOF_SANDBOXED=1");
	if (rc == 0)
		rc = strv_push(env, req->network == NET_DENY ? "SANDPROOF_NETWORK=deny"
							     : "SANDPROOF_NETWORK=allow");
	return rc;
}

int mplan_add_hides(struct mplan *p, const struct request *req, struct setup_error *err);

/* Protected metadata (META-*): existing protected paths become read-only
 * binds, every existing directory between the write root and a protected
 * path is pinned (a mount point cannot be renamed or removed, so
 * `mv .git x && mkdir .git` fails), and absent names are watched from the
 * host while the command runs. */
static int protect_prepare(struct plan *p, struct setup_error *err)
{
	const struct request *req = p->req;
	int rc = 0;

	if (req->fs_kind != FS_RESTRICTED || req->n_write_roots == 0)
		return 0;
	p->protect = calloc(req->n_write_roots, sizeof(*p->protect));
	if (!p->protect)
		return setup_err(err, "plan", ENOMEM, NULL);
	for (size_t i = 0; i < req->n_write_roots; i++) {
		struct protect_plan *pp = &p->protect[i];

		rc = protect_plan_nc(req->write_roots[i].root,
				     &req->write_roots[i].protected_names, &p->nc, pp);
		if (rc < 0) {
			char step[96];

			snprintf(step, sizeof(step), "protected_metadata:%s",
				 req->write_roots[i].root);
			return setup_err(err, step, -rc, pp->err);
		}
		p->n_protect++;
		for (size_t k = 0; rc == 0 && k < pp->n_pin; k++)
			rc = mplan_add(&p->mounts, MOP_PIN, pp->pin[k].path, true);
		for (size_t k = 0; rc == 0 && k < pp->n_ro; k++)
			rc = mplan_add(&p->mounts, MOP_RO, pp->ro[k].path, pp->ro[k].is_dir);
		if (rc < 0)
			return setup_err(err, "plan", ENOMEM, NULL);
	}
	return 0;
}

static bool protect_watches(const struct plan *p)
{
	for (size_t i = 0; i < p->n_protect; i++)
		if (p->protect[i].n_watch)
			return true;
	return false;
}

int platform_prepare(const struct request *req, struct plan **out,
		     struct setup_error *err)
{
	struct plan *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return setup_err(err, "plan", ENOMEM, NULL);
	p->req = req;
	tm_mark("prepare");
	rc = mplan_build(req, &p->mounts, err);
	tm_mark("prepare: mount plan");
	if (rc == 0)
		rc = protect_prepare(p, err);
	tm_mark("prepare: protect plan");
	if (rc == 0)
		rc = mplan_add_hides(&p->mounts, req, err);
	if (rc == 0)
		rc = mplan_add_aliases(&p->mounts, req, &p->nc, err);
	tm_mark("prepare: names");
	if (rc == 0)
		mplan_order(&p->mounts);
	if (rc == 0 && env_build(req, &p->mounts, &p->envp) < 0)
		rc = setup_err(err, "plan", ENOMEM, NULL);
	if (rc == 0)
		rc = limits_prepare(req, &p->mounts, &p->limits, err);
	tm_mark("prepare: limits");
	if (rc < 0) {
		platform_plan_free(p);
		return rc;
	}
	p->enf.backend = "linux";
	p->enf.user_ns = p->enf.mount_ns = p->enf.pid_ns = p->enf.ipc_ns = true;
	p->enf.net_ns = req->network == NET_DENY;
	p->enf.seccomp = p->enf.no_new_privs = p->enf.caps_dropped = true;
	p->enf.seccomp_notify = kfacts_seccomp_notify_offered() == 1;
	/* META-6: what the plan decided, for the directories it looked
	 * names up in (none when nothing is restricted). */
	if (req->fs_kind == FS_RESTRICTED && req->n_write_roots)
		p->enf.name_matching = p->nc.folded ? "case-insensitive" : "exact";
	memcpy(p->enf.limits, p->limits.applied, sizeof(p->enf.limits));
	/* Landlock is the second layer under the mounts: used whenever the
	 * kernel has it and the filesystem is restricted.  Once chosen here a
	 * Landlock failure in the sandbox is fatal, never skipped. */
	if (req->fs_kind == FS_RESTRICTED) {
		int abi = ll_probe();

		if (abi < 0) {
			platform_plan_free(p);
			return setup_err(err, "landlock", -abi,
					 "probing the Landlock ABI failed (not merely unavailable)");
		}
		p->enf.landlock_abi = abi > LL_ABI_KNOWN ? LL_ABI_KNOWN : abi;
	}
	tm_mark("prepare: kernel probes");
	*out = p;
	return 0;
}

void platform_plan_free(struct plan *plan)
{
	if (!plan)
		return;
	tm_mark("plan_free");
	for (size_t i = 0; i < plan->n_protect; i++)
		protect_plan_free(&plan->protect[i]);
	free(plan->protect);
	limits_free(&plan->limits); /* removes the cgroups: the sandbox is gone */
	mplan_free(&plan->mounts);
	strv_free(&plan->envp);
	free(plan);
	tm_mark("plan_free: done");
	tm_report(stderr);
}

void platform_enforcement(const struct plan *plan, struct enforcement *e)
{
	*e = plan->enf;
}

/* Identity maps (common/userns.h).  Unprivileged: the runner's own uid
 * and gid only (and setgroups denied, as the kernel requires).  Root (in
 * whatever user namespace the runner itself runs): every id range that
 * exists there, so ownership inside looks as it does outside; the command
 * still runs with no capability at all. */
static int maps_write(pid_t pid, struct setup_error *err)
{
	int rc = userns_write_maps(pid, USERNS_MAP_AUTO, NULL);

	return rc < 0 ? setup_err(err, "uid_map", -rc, "cannot write the id maps") : 0;
}

static pid_t clone_ns(uint64_t flags, int *pidfd)
{
	struct clone_args ca = {
		.flags = flags | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));

	/* clone3 may be filtered (ENOSYS) where clone is not. */
	if (pid < 0 && errno == ENOSYS)
		pid = syscall(SYS_clone, (unsigned long)(flags | CLONE_PIDFD | SIGCHLD),
			      NULL, pidfd, NULL, NULL);
	return (pid_t)pid;
}

static int recv_listener(int sock, struct plan *plan)
{
	char tag = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&tag, 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -EPROTO;
	c = CMSG_FIRSTHDR(&m);
	if (tag == 'N' && c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	plan->enf.seccomp_notify = fd >= 0;
	if (fd >= 0)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* The channels between the runner and pid 1, each a pair [read/own end,
 * write/peer end]: sync (the go byte), rep (the spawn report), stp (the
 * command's status), sk (the seccomp listener). */
struct launch_chans {
	int sync[2], rep[2], stp[2], sk[2];
};

static void chans_close(struct launch_chans *c)
{
	int *fds[] = {c->sync, c->rep, c->stp, c->sk};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		for (int k = 0; k < 2; k++)
			if (fds[i][k] >= 0) {
				close(fds[i][k]);
				fds[i][k] = -1;
			}
}

/* Clone pid 1 into new namespaces and run nsinit in it; the parent keeps
 * its ends of c (the child's are closed here) and fills l.  0, or a
 * setup error (no process then). */
static int launch_clone(struct plan *plan, const struct launch_stdio *io,
			struct launch_chans *c, struct launch *l, struct launch_status *st)
{
	const struct request *req = plan->req;
	uint64_t flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC;
	int pidfd = -1;
	pid_t pid;

	if (req->network == NET_DENY)
		flags |= CLONE_NEWNET;
	tm_mark("launch: clone");
	pid = clone_ns(flags, &pidfd);
	if (pid > 0)
		tm_mark("launch: clone returned");
	if (pid < 0)
		return setup_err(&st->setup, "clone", errno,
				 "cannot create the user, mount, pid, ipc and network namespaces");
	if (pid == 0) {
		struct nsinit a = {
			.req = req, .mounts = &plan->mounts, .envp = plan->envp.v,
			.net_deny = req->network == NET_DENY,
			.landlock_abi = plan->enf.landlock_abi,
			.seccomp_notify = plan->enf.seccomp_notify,
			.limits = &plan->limits,
			.sync_fd = c->sync[0], .report_fd = c->rep[1], .sock_fd = c->sk[1],
			.status_fd = c->stp[1], .io = *io,
		};

		close(c->sync[1]);
		close(c->rep[0]);
		close(c->sk[0]);
		close(c->stp[0]);
		nsinit_run(&a);
	}
	l->pid = pid;
	l->pidfd = pidfd;
	l->notify_fd = -1;
	l->limits = &plan->limits;
	l->cpu_ms = UINT64_MAX;
	close(c->sync[0]);
	close(c->rep[1]);
	close(c->sk[1]);
	close(c->stp[1]);
	c->sync[0] = c->rep[1] = c->sk[1] = c->stp[1] = -1;
	l->status_fd = c->stp[0];
	c->stp[0] = -1;
	return 0;
}

/* pid 1 exists and waits: its id maps and cgroups, then the go byte, its
 * spawn report and the seccomp listener.  Every failure is reported in
 * st (the caller reaps pid 1); closes the parent's ends of c. */
static void launch_release(struct plan *plan, struct launch *l, struct launch_chans *c,
			   struct launch_status *st)
{
	int rc;

	/* Into the cgroups before pid 1 is released: it forks the command
	 * only after the sync byte, so nothing of the sandbox starts outside. */
	rc = maps_write(l->pid, &st->setup);
	tm_mark("launch: id maps written");
	if (rc < 0 || limits_attach(&plan->limits, l->pid, &st->setup) < 0) {
		st->result = LAUNCH_SETUP_FAILED;
		chans_close(c); /* pid 1 reads EOF and exits */
		return;
	}
	if (write(c->sync[1], "g", 1) != 1) {
		st->result = LAUNCH_SETUP_FAILED;
		setup_err(&st->setup, "sync", errno, NULL);
	}
	close(c->sync[1]);
	c->sync[1] = -1;
	tm_mark("launch: released pid 1");
	rc = spawn_read_report(c->rep[0], st);
	tm_mark("launch: spawn report read");
	if (rc < 0) {
		st->result = LAUNCH_SETUP_FAILED;
		setup_err(&st->setup, "report", -rc, NULL);
	}
	if (st->result == LAUNCH_RUNNING) {
		l->notify_fd = recv_listener(c->sk[0], plan);
		if (l->notify_fd == -EPROTO) {
			l->notify_fd = -1;
			st->result = LAUNCH_SETUP_FAILED;
			setup_err(&st->setup, "seccomp_listener", EPROTO,
				  "the command started without reporting its filter");
		}
	}
	chans_close(c);
	tm_mark("launch: listener received");
}

int platform_launch(struct plan *plan, const struct launch_stdio *io,
		    struct launch **out, struct launch_status *st)
{
	struct launch_chans c = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
	struct launch *l;
	int rc;

	memset(st, 0, sizeof(*st));
	l = calloc(1, sizeof(*l));
	if (!l)
		return setup_err(&st->setup, "launch", ENOMEM, NULL);
	tm_mark("launch");
	/* Watch before anything runs: a create can only happen after this. */
	if (protect_watches(plan)) {
		rc = protect_monitor_start(plan->protect, plan->n_protect, &l->mon);
		if (rc < 0) {
			free(l);
			return setup_err(&st->setup, "protected_metadata_monitor", -rc,
					 rc == -ESTALE ? "a protected name appeared during setup"
						       : "cannot watch for protected names");
		}
	}
	tm_mark("launch: monitor started");
	if (pipe2(c.sync, O_CLOEXEC) < 0 || pipe2(c.rep, O_CLOEXEC) < 0 ||
	    pipe2(c.stp, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c.sk) < 0)
		rc = setup_err(&st->setup, "launch", errno, "pipes");
	else
		rc = launch_clone(plan, io, &c, l, st);
	if (rc < 0) {
		chans_close(&c);
		if (l->mon)
			protect_monitor_free(l->mon);
		free(l);
		return rc;
	}
	/* From here a process exists: failures are reported in st and the
	 * caller reaps it. */
	*out = l;
	launch_release(plan, l, &c, st);
	return 0;
}

pid_t platform_pid(const struct launch *l)
{
	return l->pid;
}

int platform_status(struct launch *l, int raw)
{
	struct nsinit_status st;

	/* pid 1 wrote the command's own wait status before it exited; if it
	 * was killed instead (timeout, cancel, a limit) the raw status is all
	 * there is. */
	tm_mark("status: pid 1 reaped");
	l->have_status = true;
	l->status = raw;
	if (l->status_fd >= 0 && read(l->status_fd, &st, sizeof(st)) == sizeof(st)) {
		l->status = st.status;
		l->cpu_ms = st.cpu_ms;
	}
	return l->status;
}

void platform_limits_observe(struct launch *l, struct limit_report *r)
{
	limits_observe(l->limits, l->have_status, l->status, l->cpu_ms, r);
}

int platform_kill_tree(struct launch *l)
{
	/* pid 1 of the namespace: its death kills every process in it.  The
	 * pidfd pins it, so a recycled pid can never be hit. */
	if (l->pidfd >= 0 && syscall(SYS_pidfd_send_signal, l->pidfd, SIGKILL, NULL, 0) < 0 &&
	    errno != ESRCH)
		return -errno;
	return 0;
}

int platform_pollfds(struct launch *l, struct pollfd *fds, int max)
{
	int n = 0;

	if (l->notify_fd >= 0 && n < max)
		fds[n++] = (struct pollfd){.fd = l->notify_fd, .events = POLLIN};
	if (l->mon && n < max)
		fds[n++] = (struct pollfd){.fd = protect_monitor_fd(l->mon), .events = POLLIN};
	return n;
}

/* Turn monitor events into typed denials.  Returns 1 when the run must
 * stop: a protected name was created, or the monitor can no longer vouch
 * that none was (queue overflow, lost watch) - fail closed. */
enum drain { DRAIN_EVENTS, DRAIN_CLEANUP_RUNNING, DRAIN_CLEANUP };

static int protect_drain(struct launch *l, struct denials *d, enum drain what)
{
	struct protect_event ev[PROTECT_EV_BATCH];
	bool cleanup = what != DRAIN_EVENTS;
	int stop = 0, n;

	do {
		n = what == DRAIN_CLEANUP ? protect_monitor_cleanup(l->mon, ev, PROTECT_EV_BATCH)
		    : what == DRAIN_CLEANUP_RUNNING
			? protect_monitor_cleanup_running(l->mon, ev, PROTECT_EV_BATCH)
			: protect_monitor_service(l->mon, ev, PROTECT_EV_BATCH);
		for (int i = 0; i < n && i < PROTECT_EV_BATCH; i++) {
			switch (ev[i].kind) {
			case PROTECT_EV_CREATE:
				denials_add(d, "protected_create", ev[i].path);
				stop = 1;
				break;
			case PROTECT_EV_OVERFLOW:
				denials_add(d, "protected_create", "(unknown: event queue overflow)");
				stop = 1;
				break;
			case PROTECT_EV_LOST:
				denials_add(d, "protected_watch_lost", ev[i].path);
				stop = 1;
				break;
			case PROTECT_EV_REMOVED:
				/* found (again) at cleanup: a create happened */
				denials_add(d, "protected_removed", ev[i].path);
				stop = 1;
				break;
			case PROTECT_EV_RESIDUE:
				denials_add(d, "protected_residue", ev[i].path);
				stop = 1;
				break;
			}
		}
	} while (!cleanup && n >= PROTECT_EV_BATCH);
	return stop;
}

int platform_service(struct launch *l, const struct pollfd *fds, int n,
		     struct denials *d)
{
	int stop = 0;

	for (int i = 0; i < n; i++) {
		char name[64];

		if (l->mon && fds[i].fd == protect_monitor_fd(l->mon) && fds[i].revents) {
			/* Remove at once, while the sandbox is being stopped, to
			 * keep the window in which the name exists on the host
			 * short; release() sweeps again once nothing runs. */
			if (protect_drain(l, d, DRAIN_EVENTS)) {
				protect_drain(l, d, DRAIN_CLEANUP_RUNNING);
				stop = 1;
			}
			continue;
		}
		if (fds[i].fd != l->notify_fd || !fds[i].revents)
			continue;
		if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* every filtered process is gone */
			close(l->notify_fd);
			l->notify_fd = -1;
			continue;
		}
		while (filter_notify_service(l->notify_fd, name, sizeof(name)) == 1)
			if (name[0])
				denials_add(d, "syscall", name);
	}
	return stop;
}

int platform_release(struct launch *l, struct denials *d)
{
	int stop = 0;

	/* The sandbox is gone: read the last events, then remove whatever
	 * protected name exists now that did not before (never following a
	 * symlink), so it stays absent on the host (META-3). */
	tm_mark("release");
	if (l->mon) {
		stop |= protect_drain(l, d, DRAIN_EVENTS);
		stop |= protect_drain(l, d, DRAIN_CLEANUP);
		tm_mark("release: monitor drained and swept");
		protect_monitor_free(l->mon);
		tm_mark("release: monitor freed");
	}
	if (l->notify_fd >= 0)
		close(l->notify_fd);
	if (l->pidfd >= 0)
		close(l->pidfd);
	if (l->status_fd >= 0)
		close(l->status_fd);
	free(l);
	tm_mark("release: done");
	return stop;
}

const char *platform_errno_name(int err)
{
	return names_errno(err);
}

const char *platform_signal_name(int sig)
{
	return names_signal(sig, NULL);
}
