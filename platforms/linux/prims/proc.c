/* proc.c - see proc.h.
 *
 * Layout: the seccomp filter is built and compiled to BPF in the parent
 * (libseccomp allocates; the child must not), the child only makes raw
 * system calls from a fixed plan, and the parent runs one poll loop over
 * the child's pidfd, its three pipes and the notification listener.
 *
 * The listener changes hands without a system call in the child: the
 * filter creates it in the child, whose every later call may itself be
 * held or faulted (sendmsg, write, close...), so the child publishes the
 * fd number in shared memory and spins until the parent has copied it with
 * pidfd_getfd().  A held call made after that is answered normally. */
#include "sandproof/proc.h"

/* How long processes of a run may take to finish dying after it ended
 * before they count as leftovers. */
#define PROC_GRACE_MS 300
#include "sandproof/census.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define PROC_KILL_WAIT_MS 3000

extern char **environ;

/* Child -> parent, through a MAP_SHARED page (no system call needed). */
struct proc_shm {
	int listener; /* child's listener fd number, -1 until published */
	int taken;    /* set by the parent once it holds a copy */
	int err;      /* setup errno, 0 if the child reached the program */
	char step[32];
};

/* The compiled filter and what the parent needs to answer it. */
struct proc_filter {
	struct sock_fprog prog; /* prog.filter malloc'd */
	bool notify;            /* has SECCOMP_RET_USER_NOTIF rules */
	int fault_nr;           /* -1: none, or the notified fault syscall */
	int hold_nr[PROC_MAX_HOLD];
	size_t nhold;
};

struct proc_buf {
	char *p;
	size_t len, cap, limit;
	bool truncated;
};

struct proc_known {
	pid_t pid;
	unsigned long long start;
};

void proc_opts_init(struct proc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->userns_fd = -1;
	o->netns_fd = -1;
}

void proc_result_free(struct proc_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int proc_init(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
}

static uint64_t proc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- killing descendants ------------------------------------------------- */

static bool proc_known_has(const struct proc_known *v, size_t n, pid_t pid,
			     unsigned long long start)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].start == start)
			return true;
	return false;
}

/* Direct children of the caller now: the processes a run must not touch. */
static int proc_children(struct proc_known **out, size_t *n)
{
	struct census_proc *v;
	size_t nv, k = 0;
	pid_t self = getpid();
	int r = census_procs(&v, &nv);

	if (r < 0)
		return r;
	*out = calloc(nv + 1, sizeof(**out));
	if (!*out) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nv; i++)
		if (v[i].ppid == self)
			(*out)[k++] = (struct proc_known){v[i].pid, v[i].start};
	*n = k;
	free(v);
	return 0;
}

/* Security: a pid read from /proc may be recycled before we signal it.
 * The pidfd pins one process; re-reading its start time after opening the
 * pidfd proves that process is the one the table described (a descendant),
 * so an unrelated process that took over the pid is never signalled. */
static int proc_kill_verified(pid_t pid, unsigned long long start)
{
	struct census_proc now;
	int fd = pidfd_open(pid, 0), r;

	if (fd < 0)
		return -errno;
	r = census_proc_read(pid, &now);
	if (r == 0 && now.start != start)
		r = -ESRCH;
	if (r == 0 && pidfd_send_signal(fd, SIGKILL, NULL, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* One or more passes over the caller's descendants, restricted to those
 * whose top ancestor below the caller is not in pre (pre NULL: all).  Dead
 * children among them are reaped (a child's pid cannot be recycled before
 * we reap it, so waitpid by pid is exact); skip_pid, the program whose
 * status the caller wants, is never reaped here.  With kill, live ones get
 * SIGKILL and passes repeat until none is left or wait_ms passes; *killed
 * counts distinct processes signalled (skip_pid, counted by the caller,
 * excepted).  Returns live ones left, or -errno. */
static int proc_sweep(const struct proc_known *pre, size_t npre,
			pid_t skip_pid, bool kill, int wait_ms, int *killed)
{
	uint64_t deadline = proc_now_ms() + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
	struct proc_known *done = NULL;
	size_t ndone = 0, capdone = 0;
	pid_t self = getpid();
	int alive;

	for (;;) {
		struct census_proc *v;
		size_t n;
		int r = census_procs(&v, &n);

		if (r < 0) {
			free(done);
			return r;
		}
		alive = 0;
		for (size_t i = 0; i < n; i++) {
			pid_t top = census_top(v, n, i, self);
			const struct census_proc *t;

			if (!top)
				continue;
			t = census_find(v, n, top);
			if (pre && t && proc_known_has(pre, npre, t->pid, t->start))
				continue;
			if (v[i].state == 'Z' || v[i].state == 'X') {
				if (v[i].ppid == self && v[i].pid != skip_pid)
					waitpid(v[i].pid, NULL, WNOHANG);
				continue;
			}
			alive++;
			if (!kill || proc_kill_verified(v[i].pid, v[i].start) < 0)
				continue;
			if (v[i].pid == skip_pid ||
			    proc_known_has(done, ndone, v[i].pid, v[i].start))
				continue;
			if (ndone == capdone) {
				size_t nc = capdone ? capdone * 2 : 16;
				struct proc_known *nd = realloc(done, nc * sizeof(*nd));

				if (!nd) {
					free(v);
					free(done);
					return -ENOMEM;
				}
				done = nd;
				capdone = nc;
			}
			done[ndone++] = (struct proc_known){v[i].pid, v[i].start};
		}
		free(v);
		if (!kill || alive == 0 || proc_now_ms() >= deadline)
			break;
		/* SIGKILLed processes need a moment to become zombies, and
		 * their orphans a moment to re-parent to us. */
		nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
	}
	if (killed)
		*killed = (int)ndone;
	free(done);
	return alive;
}

int proc_kill_descendants(int wait_ms)
{
	int killed = 0;
	int r = proc_sweep(NULL, 0, 0, true, wait_ms > 0 ? wait_ms : PROC_KILL_WAIT_MS,
			     &killed);

	if (r < 0)
		return r;
	/* A last pass reaps the zombies the kills just made. */
	proc_sweep(NULL, 0, 0, false, 0, NULL);
	return killed;
}

/* ---- the filter ---------------------------------------------------------- */

static int proc_resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* Negative numbers are libseccomp pseudo-syscalls: not on x86_64. */
	return nr == __NR_SCMP_ERROR || nr < 0 ? -EINVAL : nr;
}

/* Compile the FAULT and HOLD rules into f.  Default allow; a foreign ABI
 * is allowed too: this filter observes and injects faults, it is not a
 * confinement boundary.  0 or -errno. */
static int proc_filter_build(const struct proc_opts *o, struct proc_filter *f)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r = 0, fd = -1, fault_nr = -1;
	off_t size;

	memset(f, 0, sizeof(*f));
	f->fault_nr = -1;
	if (!ctx)
		return -ENOMEM;
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW) < 0) {
		r = -EINVAL;
		goto out;
	}
	if (o->fault_syscall) {
		fault_nr = proc_resolve(o->fault_syscall);
		if (fault_nr < 0 || o->fault_errno < 1 || o->fault_errno > 4095) {
			r = -EINVAL;
			goto out;
		}
		if (o->fault_nth <= 1 && !o->fault_once && o->fault_arg1_set) {
			/* compared as 32 bits, as the kernel reads an int */
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)o->fault_errno),
					     fault_nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
								  (uint32_t)o->fault_arg1));
		} else if (o->fault_nth <= 1 && !o->fault_once) {
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)o->fault_errno),
					     fault_nr, 0);
		} else if (o->fault_arg1_set) {
			r = -EINVAL; /* counted faults see every call: no argument filter */
		} else {
			r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, fault_nr, 0);
			f->fault_nr = fault_nr;
			f->notify = true;
		}
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; o->hold_syscalls && o->hold_syscalls[i]; i++) {
		int nr = proc_resolve(o->hold_syscalls[i]);

		if (nr < 0 || nr == fault_nr || f->nhold == PROC_MAX_HOLD) {
			r = -EINVAL;
			goto out;
		}
		f->hold_nr[f->nhold++] = nr;
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
		if (r == -EEXIST)
			r = 0; /* listed twice */
		if (r < 0)
			goto out;
		f->notify = true;
	}
	fd = memfd_create("proc-bpf", MFD_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		goto out;
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
		r = -EIO;
		goto out;
	}
	f->prog.filter = malloc((size_t)size);
	if (!f->prog.filter) {
		r = -ENOMEM;
		goto out;
	}
	if (pread(fd, f->prog.filter, (size_t)size, 0) != size) {
		r = -EIO;
		goto out;
	}
	f->prog.len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
out:
	if (r == -EOPNOTSUPP)
		r = -ENOSYS; /* libseccomp: no user notification here */
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return r;
}

/* ---- the child ----------------------------------------------------------- */

_Noreturn static void proc_fail(struct proc_shm *shm, const char *step, int err)
{
	snprintf(shm->step, sizeof(shm->step), "%s", step);
	__atomic_store_n(&shm->err, err ? err : EIO, __ATOMIC_RELEASE);
	_exit(127);
}

static int proc_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
	size_t n = strlen(text);

	if (fd < 0)
		return errno;
	if (write(fd, text, n) != (ssize_t)n)
		r = errno ? errno : EIO;
	close(fd);
	return r;
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
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int e;

	if (unshare(CLONE_NEWNS) < 0) {
		if (errno != EPERM)
			proc_fail(shm, "unshare mount", errno);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			proc_fail(shm, "unshare user+mount", errno);
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		if ((e = proc_write_file("/proc/self/uid_map", map)))
			proc_fail(shm, "uid_map", e);
		if ((e = proc_write_file("/proc/self/setgroups", "deny")))
			proc_fail(shm, "setgroups", e);
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		if ((e = proc_write_file("/proc/self/gid_map", map)))
			proc_fail(shm, "gid_map", e);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		proc_fail(shm, "mount private", errno);
}

/* execve argv[0], searched in envp's PATH when it has no '/'.  Returns the
 * errno describing the failure best (EACCES over ENOENT). */
static int proc_exec(char *const argv[], char *const envp[])
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	char full[PATH_MAX];
	int best = ENOENT;

	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, envp);
		return errno;
	}
	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	while (*path) {
		const char *end = strchrnul(path, ':');
		int n = (int)(end - path);

		if (snprintf(full, sizeof(full), "%.*s/%s", n ? n : 1,
			     n ? path : ".", argv[0]) < (int)sizeof(full)) {
			execve(full, argv, envp);
			if (errno == EACCES)
				best = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR && best != EACCES)
				best = errno;
		}
		path = *end ? end + 1 : end;
	}
	return best;
}

struct proc_plan {
	const struct proc_opts *o;
	const struct proc_filter *f; /* NULL: no filter */
	struct proc_shm *shm;
	pid_t parent;
	int fds[3];                    /* stdin read end, stdout/stderr write ends */
};

_Noreturn static void proc_child(const struct proc_plan *p)
{
	const struct proc_opts *o = p->o;
	struct proc_shm *shm = p->shm;
	char *const *envp = o->envp ? o->envp : environ;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;
	int hi[3];

	/* Die with the harness from the first instant. */
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
	if (close_range(3, ~0U, 0) < 0)
		proc_fail(shm, "close_range", errno);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Credentials may have changed above, which can clear the parent
	 * death signal: set it again and re-check the parent. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->parent)
		proc_fail(shm, "pdeathsig", ESRCH);
	if (p->f) {
		unsigned long fl = p->f->notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER |
			SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV : 0;
		long fd;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			proc_fail(shm, "no_new_privs", errno);
		/* WAIT_KILLABLE_RECV: once the parent has received a call,
		 * only SIGKILL interrupts it, so a signal cannot restart a
		 * held call and make it arrive (and count) twice. */
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, fl, &p->f->prog);
		if (fd < 0 && errno == EINVAL && p->f->notify) {
			fl &= ~SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
			fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, fl, &p->f->prog);
		}
		if (fd < 0)
			proc_fail(shm, "seccomp", errno);
		if (p->f->notify) {
			/* No system call from here to execve may come before
			 * the parent holds the listener: any of them could be
			 * held, with nobody to answer. */
			__atomic_store_n(&shm->listener, (int)fd, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&shm->taken, __ATOMIC_ACQUIRE))
				__builtin_ia32_pause();
			/* The listener is O_CLOEXEC: the program never holds
			 * it, so it cannot answer its own held calls. */
		}
	}
	proc_fail(shm, "exec", proc_exec(o->argv, envp));
}

/* ---- the parent ---------------------------------------------------------- */

static void proc_buf_take(struct proc_buf *b, const char *data, size_t n)
{
	size_t room = b->limit - b->len;

	if (n > room) {
		b->truncated = true;
		n = room;
	}
	if (!n)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > b->limit + 1)
			cap = b->limit + 1;
		p = realloc(b->p, cap);
		if (!p) {
			b->truncated = true; /* keep what we have */
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* Read what is there from *fd; at EOF or error close it and set -1. */
static void proc_drain(int *fd, struct proc_buf *b)
{
	char chunk[65536];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n > 0) {
		proc_buf_take(b, chunk, (size_t)n);
		return;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	close(*fd);
	*fd = -1;
}

/* Does the caller's comm equal want?  The caller is stopped in the
 * notified syscall, so its comm is the one it made the call with (a
 * process that cannot be read - gone meanwhile - does not count). */
static bool proc_comm_is(pid_t pid, const char *want)
{
	char path[32], comm[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, want) == 0;
}

/* Answer one pending notification.  Every call is answered: a held one
 * after the action ran, a faulted one with the error, anything else
 * continued.  Security of CONTINUE: the call then runs with arguments the
 * program may have changed meanwhile - exactly the race a hold replays,
 * never a permission we grant. */
static int proc_notify(int lfd, const struct proc_opts *o,
			 const struct proc_filter *f, struct proc_result *r)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (req.data.nr == f->fault_nr) {
		uint64_t nth = o->fault_nth ? o->fault_nth : 1;

		if (++r->fault_calls == nth || (r->fault_calls > nth && !o->fault_once)) {
			resp.flags = 0;
			resp.error = -o->fault_errno;
			r->fault_failed++;
		}
	} else {
		for (size_t i = 0; i < f->nhold; i++) {
			if (req.data.nr != f->hold_nr[i])
				continue;
			if (o->hold_comm && !proc_comm_is((pid_t)req.pid, o->hold_comm))
				break;
			r->hold_calls++;
			if (o->hold_at > 0 && r->hold_calls == (uint64_t)o->hold_at) {
				char *name = seccomp_syscall_resolve_num_arch(
					SCMP_ARCH_NATIVE, req.data.nr);

				r->hold_hit = true;
				r->hold_pid = (pid_t)req.pid;
				if (o->hold_action)
					r->action_rc = o->hold_action(o->hold_ctx, o->hold_at,
								      name ? name : "?",
								      (pid_t)req.pid);
				free(name);
			}
			break;
		}
	}
	/* ENOENT: the caller died or was killed meanwhile. */
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* waitid(P_PIDFD) with the kernel's rusage of the program and of every
 * descendant it (or they) reaped: the glibc wrapper has no rusage. */
static int proc_waitid(int pidfd, siginfo_t *si, int flags, struct proc_result *r)
{
	struct rusage ru;
	int rc;

	memset(&ru, 0, sizeof(ru));
	rc = (int)syscall(SYS_waitid, P_PIDFD, (id_t)pidfd, si, flags, &ru);
	if (rc == 0 && si->si_pid) {
		r->maxrss_kib = ru.ru_maxrss;
		r->cpu_ms = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	}
	return rc;
}

static void proc_status(struct proc_result *r, const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED) {
		r->exited = true;
		r->exit_code = si->si_status;
	} else {
		r->term_signal = si->si_status;
	}
}

static int proc_validate(const struct proc_opts *o)
{
	if (!o->argv || !o->argv[0] || (o->stdin_len && !o->stdin_data))
		return -EINVAL;
	if (o->hold_at < 0 || (o->fault_syscall && !*o->fault_syscall))
		return -EINVAL;
	if (o->hold_comm && (!*o->hold_comm || strlen(o->hold_comm) > 15))
		return -EINVAL;
	return 0;
}

struct proc_run {
	const struct proc_opts *o;
	struct proc_filter f;
	bool filtered;
	struct proc_shm *shm;
	struct proc_known *pre;
	size_t npre;
	int in[2], out[2], err[2];
	pid_t pid;
	int pidfd, lfd;
	bool reaped;
	struct proc_buf bout, berr;
};

/* The timeout: the program, its process group, and every process of the
 * run (descendants of the program or of orphans it left) get SIGKILL. */
static void proc_kill_run(struct proc_run *s, struct proc_result *r)
{
	int killed = 0;

	if (!s->reaped) {
		/* The unreaped program pins its pid, hence its group id:
		 * the group signal cannot reach a recycled group. */
		kill(-s->pid, SIGKILL);
		if (pidfd_send_signal(s->pidfd, SIGKILL, NULL, 0) == 0)
			r->killed++;
	}
	proc_sweep(s->pre, s->npre, s->pid, true, PROC_KILL_WAIT_MS, &killed);
	r->killed += killed;
}

static int proc_loop(struct proc_run *s, struct proc_result *r)
{
	const struct proc_opts *o = s->o;
	int timeout = o->timeout_ms > 0 ? o->timeout_ms : PROC_TIMEOUT_MS;
	int drain = o->drain_ms > 0 ? o->drain_ms : PROC_DRAIN_MS;
	uint64_t start = proc_now_ms(), deadline = start + (uint64_t)timeout;
	uint64_t drain_end = 0;
	size_t fed = 0;
	int rc = 0;

	if (o->stdin_len == 0) {
		close(s->in[1]);
		s->in[1] = -1;
	}
	for (;;) {
		struct pollfd p[5];
		int np = 0, wait;
		uint64_t now = proc_now_ms();

		if (!s->reaped && now >= deadline) {
			r->timed_out = true;
			proc_kill_run(s, r);
			break;
		}
		if (s->reaped && ((s->out[0] < 0 && s->err[0] < 0) || now >= drain_end))
			break;
		if (!s->reaped && s->f.notify && s->lfd == -1) {
			int l = __atomic_load_n(&s->shm->listener, __ATOMIC_ACQUIRE);

			if (l >= 0) {
				s->lfd = pidfd_getfd(s->pidfd, l, 0);
				if (s->lfd < 0) {
					rc = -errno;
					proc_kill_run(s, r);
					break;
				}
				__atomic_store_n(&s->shm->taken, 1, __ATOMIC_RELEASE);
			}
		}
		wait = (int)((s->reaped ? drain_end : deadline) - now);
		if (!s->reaped && s->f.notify && s->lfd == -1 && wait > 1)
			wait = 1; /* the handshake is polled: the child spins */
		if (!s->reaped)
			p[np++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN};
		if (s->lfd >= 0)
			p[np++] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
		if (s->out[0] >= 0)
			p[np++] = (struct pollfd){.fd = s->out[0], .events = POLLIN};
		if (s->err[0] >= 0)
			p[np++] = (struct pollfd){.fd = s->err[0], .events = POLLIN};
		if (s->in[1] >= 0)
			p[np++] = (struct pollfd){.fd = s->in[1], .events = POLLOUT};
		if (poll(p, (nfds_t)np, wait) < 0 && errno != EINTR) {
			rc = -errno;
			proc_kill_run(s, r);
			break;
		}
		for (int i = 0; i < np; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == s->lfd) {
				if (p[i].revents & POLLIN) {
					int e = proc_notify(s->lfd, o, &s->f, r);

					if (e < 0 && e != -EINTR)
						rc = rc ? rc : e;
				} else {
					/* No filtered process is left. */
					close(s->lfd);
					s->lfd = -2;
				}
			} else if (p[i].fd == s->out[0]) {
				proc_drain(&s->out[0], &s->bout);
			} else if (p[i].fd == s->err[0]) {
				proc_drain(&s->err[0], &s->berr);
			} else if (p[i].fd == s->in[1]) {
				ssize_t n = write(s->in[1], (const char *)o->stdin_data + fed,
						  o->stdin_len - fed);

				if (n > 0)
					fed += (size_t)n;
				if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
				    fed == o->stdin_len) {
					close(s->in[1]);
					s->in[1] = -1;
				}
			} else if (p[i].fd == s->pidfd) {
				siginfo_t si;

				memset(&si, 0, sizeof(si));
				if (proc_waitid(s->pidfd, &si, WEXITED | WNOHANG, r) == 0 &&
				    si.si_pid) {
					s->reaped = true;
					proc_status(r, &si);
					r->duration_ms = proc_now_ms() - start;
					drain_end = proc_now_ms() + (uint64_t)drain;
				}
			}
		}
	}
	if (!s->reaped) {
		siginfo_t si;

		/* Killed above: SIGKILL ends it promptly (a held call is
		 * killable), so this wait is short. */
		memset(&si, 0, sizeof(si));
		while (proc_waitid(s->pidfd, &si, WEXITED, r) < 0 && errno == EINTR)
			;
		s->reaped = true;
		proc_status(r, &si);
		r->duration_ms = proc_now_ms() - start;
	}
	return rc;
}

static void proc_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int proc_run(const struct proc_opts *o, struct proc_result *r)
{
	struct proc_run s = {.o = o, .pidfd = -1, .lfd = -1,
			       .in = {-1, -1}, .out = {-1, -1}, .err = {-1, -1}};
	sigset_t pipe_set, old_mask;
	int rc;

	if (!r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if (!o)
		return -EINVAL;
	if ((rc = proc_validate(o)) < 0)
		return rc;
	s.f.fault_nr = -1;
	if (o->fault_syscall || (o->hold_syscalls && o->hold_syscalls[0])) {
		if ((rc = proc_filter_build(o, &s.f)) < 0)
			goto out;
		s.filtered = true;
	}
	s.bout.limit = s.berr.limit = o->out_limit ? o->out_limit : PROC_OUT_LIMIT;
	s.shm = mmap(NULL, sizeof(*s.shm), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s.shm == MAP_FAILED) {
		s.shm = NULL;
		rc = -ENOMEM;
		goto out;
	}
	s.shm->listener = -1;
	if (pipe2(s.in, O_CLOEXEC) < 0 || pipe2(s.out, O_CLOEXEC) < 0 ||
	    pipe2(s.err, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out;
	}
	/* Processes that exist before the run are never the run's to kill. */
	if ((rc = proc_children(&s.pre, &s.npre)) < 0)
		goto out;
	/* A program that closes its stdin early must not kill the harness
	 * with SIGPIPE: block it here, consume it after an EPIPE. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_mask);
	{
		struct proc_plan plan = {
			.o = o, .f = s.filtered ? &s.f : NULL, .shm = s.shm,
			.parent = getpid(), .fds = {s.in[0], s.out[1], s.err[1]},
		};

		s.pid = fork();
		if (s.pid == 0)
			proc_child(&plan);
	}
	if (s.pid < 0) {
		rc = -errno;
		goto unmask;
	}
	proc_close(&s.in[0]);
	proc_close(&s.out[1]);
	proc_close(&s.err[1]);
	/* Our unreaped child: its pid cannot be recycled, so the pidfd names
	 * exactly the program. */
	s.pidfd = pidfd_open(s.pid, 0);
	if (s.pidfd < 0) {
		rc = -errno;
		kill(-s.pid, SIGKILL);
		kill(s.pid, SIGKILL);
		waitpid(s.pid, NULL, 0);
		goto unmask;
	}
	fcntl(s.in[1], F_SETFL, O_NONBLOCK);
	fcntl(s.out[0], F_SETFL, O_NONBLOCK);
	fcntl(s.err[0], F_SETFL, O_NONBLOCK);
	rc = proc_loop(&s, r);
	if (s.shm->err) {
		r->setup_err = s.shm->err;
		snprintf(r->setup_step, sizeof(r->setup_step), "%s", s.shm->step);
	}
	{
		/* Count first, so leftovers reports residue even when
		 * kill_leftovers then ends it. */
		int killed = 0;
		int left = proc_sweep(s.pre, s.npre, 0, false, 0, NULL);
		struct timespec tick = {0, 10 * 1000 * 1000};

		/* Grace: a process already dying (a pid namespace being torn
		 * down after its runner was killed) is not residue. */
		for (int i = 0; left > 0 && i < PROC_GRACE_MS / 10; i++) {
			nanosleep(&tick, NULL);
			left = proc_sweep(s.pre, s.npre, 0, false, 0, NULL);
		}

		r->leftovers = left > 0 ? left : 0;
		if (o->kill_leftovers && left > 0) {
			proc_sweep(s.pre, s.npre, 0, true, PROC_KILL_WAIT_MS, &killed);
			r->killed += killed;
			proc_sweep(s.pre, s.npre, 0, false, 0, NULL);
		}
	}
unmask:
	if (!sigismember(&old_mask, SIGPIPE)) {
		struct timespec zero = {0, 0};

		while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
			;
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
out:
	r->out = s.bout.p ? s.bout.p : strdup("");
	r->err = s.berr.p ? s.berr.p : strdup("");
	r->out_len = s.bout.len;
	r->err_len = s.berr.len;
	r->out_truncated = s.bout.truncated;
	r->err_truncated = s.berr.truncated;
	proc_close(&s.in[0]);
	proc_close(&s.in[1]);
	proc_close(&s.out[0]);
	proc_close(&s.out[1]);
	proc_close(&s.err[0]);
	proc_close(&s.err[1]);
	proc_close(&s.pidfd);
	if (s.lfd >= 0)
		close(s.lfd);
	if (s.shm)
		munmap(s.shm, sizeof(*s.shm));
	free(s.pre);
	free(s.f.prog.filter);
	return rc;
}
