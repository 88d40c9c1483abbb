/* proc_child.c - the launcher's child, from fork to execve (contract in
 * sandproof/proc.h and proc_int.h).  It allocates nothing: every failure
 * is a step name and an errno in the shared page, then _exit(127). */
#include "proc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "pathexec.h"
#include "userns.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

extern char **environ;

_Noreturn static void proc_fail(struct proc_shm *shm, const char *step, int err)
{
	snprintf(shm->step, sizeof(shm->step), "%s", step);
	__atomic_store_n(&shm->err, err ? err : EIO, __ATOMIC_RELEASE);
	_exit(127);
}

static bool proc_same_ns(int fd, const char *self)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(self, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* New mount namespace, every mount private: the program's mount and
 * umount calls then stay inside it, while the file system underneath is
 * the host's.  Without CAP_SYS_ADMIN, a user namespace with an identity
 * map (the program keeps its uid, files it writes keep their owner). */
static void proc_private_mounts(struct proc_shm *shm)
{
	struct userns_maps maps;
	const char *failed = "uid_map";
	int e;

	/* Our own ids, read before the unshare makes them unmapped. */
	if ((e = userns_maps_plan(USERNS_MAP_OWN, &maps, &failed)) < 0)
		proc_fail(shm, failed, -e);
	if (unshare(CLONE_NEWNS) < 0) {
		if (errno != EPERM)
			proc_fail(shm, "unshare mount", errno);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			proc_fail(shm, "unshare user+mount", errno);
		if ((e = userns_maps_write(0, &maps, &failed)) < 0)
			proc_fail(shm, failed, -e);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		proc_fail(shm, "mount private", errno);
}

/* Tie the child to the caller and give it the run's stdio: die with the
 * harness from the first instant, a new session, the pipe ends on 0-2. */
static void proc_child_stdio(const struct proc_plan *p)
{
	struct proc_shm *shm = p->shm;
	int hi[3];

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->parent)
		proc_fail(shm, "pdeathsig", ESRCH);
	/* Security: a new session has no controlling terminal, so TIOCSTI or
	 * a write to /dev/tty from the program reaches no real terminal. */
	if (setsid() < 0)
		proc_fail(shm, "setsid", errno);
	/* Lift the pipe ends above 2 first, so one cannot clobber another
	 * when the caller runs with 0, 1 or 2 closed. */
	for (int i = 0; i < 3; i++) {
		hi[i] = fcntl(p->fds[i], F_DUPFD_CLOEXEC, 3);
		if (hi[i] < 0)
			proc_fail(shm, "dup", errno);
	}
	for (int i = 0; i < 3; i++)
		if (dup2(hi[i], i) < 0)
			proc_fail(shm, "dup2", errno);
}

/* Close every descriptor above 2 but keep_fds, which lose close-on-exec:
 * the program inherits exactly its stdio and what the caller named. */
static void proc_child_close(const struct proc_opts *o, struct proc_shm *shm)
{
	unsigned int lo = 3;

	for (;;) {
		unsigned int next = ~0U;

		for (int i = 0; i < o->n_keep_fds; i++)
			if ((unsigned int)o->keep_fds[i] >= lo && (unsigned int)o->keep_fds[i] < next)
				next = (unsigned int)o->keep_fds[i];
		if (next > lo && close_range(lo, next == ~0U ? ~0U : next - 1, 0) < 0)
			proc_fail(shm, "close_range", errno);
		if (next == ~0U)
			return;
		if (fcntl((int)next, F_SETFD, 0) < 0)
			proc_fail(shm, "keep fd", errno);
		lo = next + 1;
	}
}

/* Join the namespaces, the private mounts and the working directory the
 * options ask for; then only 0-2 stay open and every signal is default
 * and unblocked. */
static void proc_child_enter(const struct proc_plan *p)
{
	const struct proc_opts *o = p->o;
	struct proc_shm *shm = p->shm;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	/* User namespace first: joining it grants the capabilities that
	 * joining a network namespace it owns requires. */
	if (o->userns_fd >= 0 && !proc_same_ns(o->userns_fd, "/proc/self/ns/user") &&
	    setns(o->userns_fd, CLONE_NEWUSER) < 0)
		proc_fail(shm, "setns user", errno);
	if (o->netns_fd >= 0 && setns(o->netns_fd, CLONE_NEWNET) < 0)
		proc_fail(shm, "setns net", errno);
	if (o->private_mounts)
		proc_private_mounts(shm);
	if (o->cwd && chdir(o->cwd) < 0)
		proc_fail(shm, "chdir", errno);
	proc_child_close(o, shm);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Load the filter (no_new_privs first) and hand its listener over. */
static void proc_child_filter(const struct proc_plan *p)
{
	const struct proc_filter *f = p->f;
	struct proc_shm *shm = p->shm;
	unsigned long fl = f->notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER |
		SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV : 0;
	long fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		proc_fail(shm, "no_new_privs", errno);
	/* WAIT_KILLABLE_RECV: once the parent has received a call, only
	 * SIGKILL interrupts it, so a signal cannot restart a held call and
	 * make it arrive (and count) twice. */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, fl, &f->prog);
	if (fd < 0 && errno == EINVAL && f->notify) {
		fl &= ~SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, fl, &f->prog);
	}
	if (fd < 0)
		proc_fail(shm, "seccomp", errno);
	if (f->notify) {
		/* No system call from here to execve may come before the
		 * parent holds the listener: any of them could be held, with
		 * nobody to answer. */
		__atomic_store_n(&shm->listener, (int)fd, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&shm->taken, __ATOMIC_ACQUIRE))
			__builtin_ia32_pause();
		/* The listener is O_CLOEXEC: the program never holds it, so
		 * it cannot answer its own held calls. */
	}
}

_Noreturn void proc_child(const struct proc_plan *p)
{
	const struct proc_opts *o = p->o;

	proc_child_stdio(p);
	proc_child_enter(p);
	/* Credentials may have changed above, which can clear the parent
	 * death signal: set it again and re-check the parent. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->parent)
		proc_fail(p->shm, "pdeathsig", ESRCH);
	if (p->f)
		proc_child_filter(p);
	proc_fail(p->shm, "exec", pathexec_execve(o->argv, o->envp ? o->envp : environ));
}
