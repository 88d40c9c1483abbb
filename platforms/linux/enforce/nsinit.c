/* nsinit.c - see nsinit.h.  Everything here runs after clone(), in the
 * sandbox: failures are reported through the spawn pipe and end in _exit. */
#include "nsinit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "landlock.h"
#include "pathexec.h"
#include "spawn.h"
#include "timings.h"

#define NSINIT_MAX_LL 64

static int lo_up(void)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (s < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		rc = -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (rc == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		rc = -errno;
	close(s);
	return rc;
}

/* Empty every capability set, bounding and ambient included, so that even
 * a command running as uid 0 cannot regain any capability through execve
 * (with no_new_privs already set, file capabilities are ignored too). */
static int caps_drop(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	if (d[0].effective | d[0].permitted | d[0].inheritable |
	    d[1].effective | d[1].permitted | d[1].inheritable)
		return -EPERM;
	return 0;
}

static int landlock_apply(const struct nsinit *a)
{
	static const char *const dev_dirs[] = {"/dev/shm", "/dev/pts", NULL};
	static const char *const dev_files[] = {"/dev/null", "/dev/zero", "/dev/full",
						"/dev/random", "/dev/urandom",
						"/dev/tty", "/dev/pts/ptmx", NULL};
	int dirs[NSINIT_MAX_LL], files[16];
	size_t nd = 0, nf = 0;
	struct ll_policy pol = {0};
	int rc = 0;

	/* Opened by name inside the new root: nothing but this process and
	 * pid 1 lives in the sandbox yet, so nothing can race these lookups. */
	for (size_t i = 0; i < a->mounts->writable_dirs.n && nd < NSINIT_MAX_LL - 2; i++)
		if ((dirs[nd] = open(a->mounts->writable_dirs.v[i],
				     O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0)
			nd++;
		else
			rc = -errno;
	for (size_t i = 0; dev_dirs[i]; i++)
		if ((dirs[nd] = open(dev_dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0)
			nd++;
	for (size_t i = 0; dev_files[i]; i++)
		if ((files[nf] = open(dev_files[i], O_PATH | O_CLOEXEC)) >= 0)
			nf++;
	if (rc == 0) {
		pol.write_dirs = dirs;
		pol.n_write_dirs = nd;
		pol.write_files = files;
		pol.n_write_files = nf;
		pol.scope_signals = a->landlock_abi >= LL_ABI_SCOPES;
		pol.scope_abstract_unix = a->landlock_abi >= LL_ABI_SCOPES &&
			(a->net_deny || a->req->block_unix_sockets);
		rc = ll_restrict_abi(&pol, a->landlock_abi);
	}
	while (nd)
		close(dirs[--nd]);
	while (nf)
		close(files[--nf]);
	return rc < 0 ? rc : 0;
}

/* Hand the seccomp listener (or the news that there is none) to the
 * runner.  A listener nobody reads would hang every denied call. */
static int send_listener(int sock, int fd)
{
	char tag = fd >= 0 ? 'N' : 'E';
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&tag, 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		struct cmsghdr *c;

		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

static _Noreturn void command(const struct nsinit *a)
{
	const struct request *r = a->req;
	struct filter_opts fo = {.block_unix_sockets = r->block_unix_sockets,
				 .notify = a->seccomp_notify};
	int rep = a->report_fd, nfd = -1, rc, err;

	tm_mark("command: forked");
	spawn_reset_signals();
	close(a->status_fd);
	if (setsid() < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "setsid", errno, NULL);
	if (dup2(a->io.in, 0) < 0 || dup2(a->io.out, 1) < 0 || dup2(a->io.err, 2) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "stdio", errno, NULL);
	if (syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "close_range", errno, NULL);
	if (r->cwd && chdir(r->cwd) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "chdir", errno, r->cwd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "no_new_privs", errno, NULL);
	if (a->landlock_abi > 0 && (rc = landlock_apply(a)) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "landlock", -rc, NULL);
	tm_mark("command: landlock applied");
	if ((rc = caps_drop()) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "capabilities", -rc, NULL);
	tm_mark("command: capabilities dropped");
	/* Last: from here on the mount family, ptrace & co. are gone. */
	if ((rc = filter_install(&fo, &nfd)) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "seccomp", -rc, NULL);
	tm_mark("command: seccomp loaded");
	if ((rc = send_listener(a->sock_fd, nfd)) < 0)
		spawn_fail(rep, SPAWN_MSG_SETUP, "seccomp_listener", -rc, NULL);
	if (nfd >= 0)
		close(nfd); /* the command must never hold its own listener */
	{
		struct setup_error e = {0};

		/* The last path lookups before execve: a deny_read path that
		 * appeared, or whose cover was left on a renamed-away object,
		 * while setup ran must not reach the command. */
		if (mplan_verify_hidden(a->mounts, &e) < 0)
			spawn_fail(rep, SPAWN_MSG_SETUP, e.step, e.err, e.detail);
	}
	/* Last, so no setup step above runs short of descriptors or
	 * processes; from here they bind the command and all it starts. */
	{
		const char *which = NULL;

		if ((rc = limits_apply_rlimits(a->limits, &which)) < 0)
			spawn_fail(rep, SPAWN_MSG_SETUP, which, -rc, "setrlimit");
	}
	tm_mark("command: execve");
	err = pathexec_execve(r->command.v, a->envp);
	spawn_fail(rep, SPAWN_MSG_EXEC, "exec", err, r->command.v[0]);
}

/* The CPU time of the command's own process (its threads, not its
 * children), read while it is a zombie, on the clock RLIMIT_CPU is
 * checked against: the process's CPUCLOCK_PROF (user + system time as
 * sampled by the tick), which the kernel lets anyone read.  /proc's utime
 * and stime are scaled to the scheduler's runtime and can read 15% lower
 * in a VM, too low to tell that the limit was reached. */
static uint64_t own_cpu_ms(pid_t pid)
{
	/* MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_PROF), include/linux/posix-timers.h */
	clockid_t prof = (clockid_t)((~(unsigned)pid << 3) | 0);
	struct timespec ts;

	if (clock_gettime(prof, &ts) < 0)
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The command ended (status): end the namespace and hand the status over.
 * kill(-1) means "everything in this pid namespace" only when we are its
 * pid 1; anywhere else it would reach processes that are not ours, so
 * never. */
static _Noreturn void reaper_finish(const struct nsinit_status *status, int status_fd)
{
	tm_mark("pid 1: command reaped");
	if (getpid() == 1)
		kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	tm_mark("pid 1: namespace emptied");
	if (status && write(status_fd, status, sizeof(*status)) < 0) {
		/* the runner then reports the raw status */
	}
	_exit(0);
}

/* pid 1: reap everything, forward signals to the command, and when the
 * command ends end the namespace (every other process in it dies).  Each
 * zombie is looked at (WNOWAIT) before it is reaped, so the command's own
 * CPU time is read while it still exists. */
static _Noreturn void reaper(pid_t cmd, int status_fd)
{
	sigset_t all;
	struct nsinit_status status = {0, UINT64_MAX};

	sigfillset(&all);
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&all, &si), st;

		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			kill(cmd, sig);
			continue;
		}
		for (;;) {
			memset(&si, 0, sizeof(si));
			if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
				break;
			if (si.si_pid != cmd) {
				waitpid(si.si_pid, NULL, 0);
				continue;
			}
			status.cpu_ms = own_cpu_ms(cmd);
			if (waitpid(cmd, &st, 0) != cmd)
				reaper_finish(NULL, status_fd); /* the runner has the raw one */
			status.status = st;
			reaper_finish(&status, status_fd);
		}
	}
}

static int cmp_int(const void *x, const void *y)
{
	return *(const int *)x - *(const int *)y;
}

/* pid 1 never execs, so close-on-exec does not protect it: every
 * descriptor it inherited from the runner but does not need is closed
 * here (above all the write end of the command's stdin pipe, which would
 * otherwise keep the command from ever seeing EOF). */
static void close_except(const int *keep_in, size_t n)
{
	int keep[16];
	unsigned lo = 0;

	memcpy(keep, keep_in, n * sizeof(int));
	qsort(keep, n, sizeof(int), cmp_int);
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < lo)
			continue;
		if ((unsigned)keep[i] > lo)
			syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0);
		lo = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0U, 0);
}

_Noreturn void nsinit_run(const struct nsinit *a)
{
	const int keep[] = {a->sync_fd, a->report_fd, a->sock_fd, a->status_fd,
			    a->io.in, a->io.out, a->io.err};

	struct setup_error err = {0};
	sigset_t all;
	pid_t cmd;
	char b;
	int rc;

	tm_mark("pid 1: cloned");
	close_except(keep, sizeof(keep) / sizeof(keep[0]));
	spawn_reset_signals();
	/* Die with the runner.  The sync read below closes the race with a
	 * runner that died before this was set: its end of the pipe closes. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		spawn_fail(a->report_fd, SPAWN_MSG_SETUP, "pdeathsig", errno, NULL);
	if (read(a->sync_fd, &b, 1) != 1)
		_exit(127);
	tm_mark("pid 1: released");
	close(a->sync_fd);
	if (a->net_deny && (rc = lo_up()) < 0)
		spawn_fail(a->report_fd, SPAWN_MSG_SETUP, "loopback", -rc, NULL);
	tm_mark("pid 1: loopback up");
	if (mplan_apply(a->mounts, &err) < 0)
		spawn_fail(a->report_fd, SPAWN_MSG_SETUP, err.step, err.err, err.detail);
	tm_mark("pid 1: mounts applied");
	if (getpid() != 1)
		spawn_fail(a->report_fd, SPAWN_MSG_SETUP, "pid_namespace", EINVAL,
			   "the sandbox's first process is not pid 1 of a new pid namespace");
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* vfork: the command's process borrows pid 1's memory until its
	 * execve (or _exit) instead of copying it, and pid 1 waits for that.
	 * Everything command() changes is the child's own (descriptor table,
	 * signal dispositions and mask, cwd, credentials, Landlock domain and
	 * seccomp filter are per process or per task, not memory); what it
	 * writes to memory before execve is our code's, never the command's. */
	cmd = vfork();
	if (cmd < 0)
		spawn_fail(a->report_fd, SPAWN_MSG_SETUP, "fork", errno, NULL);
	if (cmd == 0)
		command(a);
	close(a->report_fd);
	close(a->sock_fd);
	reaper(cmd, a->status_fd);
}
