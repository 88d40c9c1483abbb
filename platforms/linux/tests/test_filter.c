/* test_filter.c - the command's seccomp filter (filter.h).
 *
 * Each run forks a child that takes a controlling pty, sets no_new_privs,
 * installs the filter (errno or notify mode, with or without
 * block_unix_sockets) and tries every denied call plus positive controls,
 * writing one line per check to a pipe:
 *   "P label" pass, "F label: detail" fail, "S label: reason" skip,
 *   "N name"  a denied call was made (notify mode: the parent must have
 *             received exactly these names).
 * The parent services notifications while it reads.  Children leave with
 * _exit() so no sanitizer exit hook (LeakSanitizer uses ptrace) runs under
 * the filter.  Arguments of denied calls are chosen so that the call fails
 * with another errno, or succeeds harmlessly, when the filter is absent. */
#include "filter.h"
#include "kfacts.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>

#define X32_BIT 0x40000000L
#define NR_OPEN_TREE_ATTR 467
#define NR_X32_PTRACE 521 /* x32 has its own ptrace entry */
#define WAIT_MS 20000

static int n_check, n_pass, n_fail;

static void vreport(char kind, const char *fmt, va_list ap)
{
	n_check++;
	if (kind == 'P')
		n_pass++;
	else if (kind == 'F')
		n_fail++;
	printf("%sok %d - %s", kind == 'F' ? "not " : "", n_check,
	       kind == 'S' ? "# SKIP " : "");
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

static void report(char kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(kind, fmt, ap);
	va_end(ap);
}

static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cond ? 'P' : 'F', fmt, ap);
	va_end(ap);
}

static const char *ename(int e)
{
	const char *s = e ? strerrorname_np(e) : "no error";

	return s ? s : "E?";
}

/* ---- child side ---------------------------------------------------- */

static int out_fd = -1; /* the child's result pipe */

static void emit(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(out_fd, line, (size_t)n) != n)
		_exit(3);
}

/* A denied call: must fail with want (EPERM), and is announced as made. */
static void expect_err(const char *name, const char *label, long rc, int err,
		       int want)
{
	if (want == EPERM)
		emit("N %s", name);
	if (rc == -1 && err == want)
		emit("P %s fails %s", label, ename(want));
	else
		emit("F %s fails %s: rc %ld %s", label, ename(want), rc,
		     rc == -1 ? ename(err) : "");
}

#define DENY(name, label, expr) do { \
	long rc_; \
	errno = 0; \
	rc_ = (long)(expr); \
	expect_err(name, label, rc_, errno, EPERM); \
} while (0)

/* A positive control: must succeed.  A returned descriptor is closed. */
static void expect_ok(const char *label, long rc, int err, bool is_fd)
{
	if (rc >= 0)
		emit("P %s still works", label);
	else
		emit("F %s still works: %s", label, ename(err));
	if (rc >= 0 && is_fd)
		close((int)rc);
}

#define ALLOW(label, expr, is_fd) do { \
	long rc_; \
	errno = 0; \
	rc_ = (long)(expr); \
	expect_ok(label, rc_, errno, is_fd); \
} while (0)

/* Runs fn in a grandchild (for calls that change the caller) and returns
 * what fn returned: 0, or an errno value. */
static int in_grandchild(int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(fn());
	if (waitpid(pid, &st, 0) < 0)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int gc_unshare_user(void)
{
	return syscall(SYS_unshare, CLONE_NEWUSER) == 0 ? 0 : errno;
}

static int gc_unshare_user_ns(void)
{
	return syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) == 0 ? 0 : errno;
}

static int gc_unshare_none(void)
{
	return syscall(SYS_unshare, 0) == 0 ? 0 : errno;
}

static int gc_exec_true(void)
{
	char *argv[] = {"true", NULL}, *envp[] = {NULL};

	execve("/bin/true", argv, envp);
	return errno;
}

/* clone() without a stack, fork-like: the child leaves at once. */
static long raw_clone(unsigned long flags)
{
	long rc = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (rc == 0)
		_exit(0);
	if (rc > 0) {
		int err = errno;

		waitpid((pid_t)rc, NULL, 0);
		errno = err;
	}
	return rc;
}

static void *thread_fn(void *arg)
{
	return arg;
}

static void probe_socket_families(bool block_unix)
{
	unsigned long hi = 1UL << 32;

	DENY("socket", "socket(AF_UNSPEC)", socket(AF_UNSPEC, SOCK_STREAM, 0));
	DENY("socket", "socket(AF_PACKET)", socket(AF_PACKET, SOCK_RAW, 0));
	DENY("socket", "socket(AF_VSOCK)", socket(AF_VSOCK, SOCK_STREAM, 0));
	DENY("socket", "socket(AF_ALG)", socket(AF_ALG, SOCK_SEQPACKET, 0));
	DENY("socket", "socket(AF_BLUETOOTH)", socket(AF_BLUETOOTH, SOCK_RAW, 0));
	DENY("socket", "socket(AF_KEY)", socket(AF_KEY, SOCK_RAW, 2));
	DENY("socket", "socket(AF_NETLINK, NETLINK_SOCK_DIAG)",
	     socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG));
	DENY("socket", "socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT)",
	     socket(AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT));
	DENY("socket", "socket(family 63)", socket(63, SOCK_STREAM, 0));
	DENY("socket", "socket(AF_PACKET | 1<<32) (high bits)",
	     syscall(SYS_socket, hi | AF_PACKET, SOCK_RAW, 0));
	DENY("socket", "socket(AF_NETLINK, protocol 1<<32 | NETLINK_SOCK_DIAG)",
	     syscall(SYS_socket, AF_NETLINK, SOCK_RAW, hi | NETLINK_SOCK_DIAG));
	DENY("socketpair", "socketpair(AF_PACKET)",
	     socketpair(AF_PACKET, SOCK_DGRAM, 0, (int[2]){0}));
	DENY("socketpair", "socketpair(AF_VSOCK)",
	     socketpair(AF_VSOCK, SOCK_STREAM, 0, (int[2]){0}));

	ALLOW("socket(AF_INET)", socket(AF_INET, SOCK_STREAM, 0), true);
	ALLOW("socket(AF_NETLINK, NETLINK_ROUTE)",
	      socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), true);
	errno = 0;
	int fd6 = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd6 < 0 && errno == EAFNOSUPPORT)
		emit("S socket(AF_INET6) still works: no IPv6 here");
	else
		expect_ok("socket(AF_INET6)", fd6, errno, true);

	if (block_unix) {
		int sv[2];

		DENY("socket", "socket(AF_UNIX, SOCK_STREAM)", socket(AF_UNIX, SOCK_STREAM, 0));
		DENY("socket", "socket(AF_UNIX, SOCK_DGRAM)", socket(AF_UNIX, SOCK_DGRAM, 0));
		DENY("socketpair", "socketpair(AF_UNIX)", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	} else {
		int sv[2];

		ALLOW("socket(AF_UNIX)", socket(AF_UNIX, SOCK_STREAM, 0), true);
		errno = 0;
		long rc = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		expect_ok("socketpair(AF_UNIX)", rc, errno, false);
		if (rc == 0) {
			close(sv[0]);
			close(sv[1]);
		}
	}
}

static void probe_tty(int pty, int pipe_rd)
{
	char c = 'x', sub = 0;
	unsigned long hi = 1UL << 32, ones = 0xffffffff00000000UL;
	struct termios tio;

	DENY("ioctl", "ioctl(TIOCSTI)", ioctl(pty, TIOCSTI, &c));
	DENY("ioctl", "ioctl(TIOCSTI | 1<<32) (high bits)",
	     syscall(SYS_ioctl, pty, hi | TIOCSTI, &c));
	DENY("ioctl", "ioctl(TIOCSTI | 0xffffffff<<32) (high bits)",
	     syscall(SYS_ioctl, pty, ones | TIOCSTI, &c));
	DENY("ioctl", "ioctl(TIOCLINUX)", ioctl(pty, TIOCLINUX, &sub));
	DENY("ioctl", "ioctl(TIOCLINUX | 1<<32) (high bits)",
	     syscall(SYS_ioctl, pty, hi | TIOCLINUX, &sub));

	ALLOW("ioctl(TCGETS) on a pty", ioctl(pty, TCGETS, &tio), false);
	ALLOW("ioctl(TIOCSTI<<32 | TCGETS) (rule reads the low 32 bits only)",
	      syscall(SYS_ioctl, pty, ((unsigned long)TIOCSTI << 32) | TCGETS, &tio), false);
	errno = 0;
	long rc = ioctl(pipe_rd, TCGETS, &tio);
	if (rc == -1 && errno == ENOTTY)
		emit("P ioctl(TCGETS) on a pipe fails ENOTTY, not EPERM");
	else
		emit("F ioctl(TCGETS) on a pipe fails ENOTTY, not EPERM: rc %ld %s",
		     rc, ename(errno));
}

static void probe_process(void)
{
	char src[8] = "abcdefg", dst[8], ldt[16];
	struct iovec l = {dst, sizeof(dst)}, r = {src, sizeof(src)};
	struct timespec ts = {0, 0};
	pthread_t th;
	int err;

	DENY("ptrace", "ptrace", syscall(SYS_ptrace, 3 /* PEEKUSER */, 999999999, 0, 0));
	DENY("process_vm_readv", "process_vm_readv",
	     process_vm_readv(getpid(), &l, 1, &r, 1, 0));
	DENY("process_vm_writev", "process_vm_writev",
	     process_vm_writev(getpid(), &r, 1, &l, 1, 0));
	DENY("process_madvise", "process_madvise", syscall(SYS_process_madvise, -1, NULL, 0, 0, 0));
	DENY("kcmp", "kcmp", syscall(SYS_kcmp, getpid(), getpid(), 1 /* KCMP_VM */, 0, 0));
	DENY("pidfd_getfd", "pidfd_getfd", syscall(SYS_pidfd_getfd, -1, 0, 0));
	DENY("io_uring_setup", "io_uring_setup", syscall(SYS_io_uring_setup, 0, NULL));
	DENY("io_uring_enter", "io_uring_enter", syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
	DENY("io_uring_register", "io_uring_register",
	     syscall(SYS_io_uring_register, -1, 0, NULL, 0));
	DENY("kexec_load", "kexec_load", syscall(SYS_kexec_load, 0, 0, NULL, 0xdead0000UL));
	DENY("kexec_file_load", "kexec_file_load",
	     syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0xdead0000UL));
	DENY("init_module", "init_module", syscall(SYS_init_module, NULL, 0, ""));
	DENY("finit_module", "finit_module", syscall(SYS_finit_module, -1, "", 0));
	DENY("delete_module", "delete_module",
	     syscall(SYS_delete_module, "sandproof_no_such_module", O_NONBLOCK));
	DENY("bpf", "bpf", syscall(SYS_bpf, 0x7fffffff, NULL, 0));
	DENY("perf_event_open", "perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
	DENY("add_key", "add_key", syscall(SYS_add_key, NULL, NULL, NULL, 0, 0));
	DENY("request_key", "request_key", syscall(SYS_request_key, NULL, NULL, NULL, 0));
	DENY("keyctl", "keyctl", syscall(SYS_keyctl, 0x7fff, 0, 0, 0, 0));
	DENY("userfaultfd", "userfaultfd", syscall(SYS_userfaultfd, 1 | 0x10000000));
	DENY("setns", "setns", syscall(SYS_setns, -1, 0));
	DENY("open_by_handle_at", "open_by_handle_at", syscall(SYS_open_by_handle_at, -1, NULL, 0));
	DENY("modify_ldt", "modify_ldt", syscall(SYS_modify_ldt, 0, ldt, sizeof(ldt)));
	DENY("uselib", "uselib", syscall(SYS_uselib, NULL));
	DENY("iopl", "iopl", syscall(SYS_iopl, 99));
	DENY("ioperm", "ioperm", syscall(SYS_ioperm, 0xfffffUL, 16, 1));
	DENY("swapon", "swapon", syscall(SYS_swapon, NULL, 0));
	DENY("swapoff", "swapoff", syscall(SYS_swapoff, NULL));
	DENY("reboot", "reboot (bad magic)", syscall(SYS_reboot, 0, 0, 0, NULL));
	DENY("acct", "acct", syscall(SYS_acct, "/nonexistent/sandproof-acct"));
	DENY("settimeofday", "settimeofday(NULL, NULL)", syscall(SYS_settimeofday, NULL, NULL));
	DENY("clock_settime", "clock_settime", syscall(SYS_clock_settime, 12345, &ts));

	DENY("clone", "clone(CLONE_NEWUSER)", raw_clone(CLONE_NEWUSER));
	DENY("clone", "clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID)",
	     raw_clone(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID));
	emit("N unshare");
	err = in_grandchild(gc_unshare_user);
	emit("%c unshare(CLONE_NEWUSER) fails EPERM: %s", err == EPERM ? 'P' : 'F', ename(err));
	emit("N unshare");
	err = in_grandchild(gc_unshare_user_ns);
	emit("%c unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWNET) fails EPERM: %s",
	     err == EPERM ? 'P' : 'F', ename(err));
	errno = 0;
	long rc = syscall(SYS_clone3, NULL, 0);
	if (rc == -1 && errno == ENOSYS)
		emit("P clone3 fails ENOSYS (libc falls back to clone)");
	else
		emit("F clone3 fails ENOSYS: rc %ld %s", rc, ename(errno));

	ALLOW("getpid", getpid(), false);
	ALLOW("clone without CLONE_NEWUSER (raw clone, fork-like)", raw_clone(0), false);
	err = in_grandchild(gc_unshare_none);
	emit("%c unshare(0) still works: %s", err == 0 ? 'P' : 'F', ename(err));
	err = in_grandchild(gc_exec_true);
	emit("%c fork + execve(/bin/true) still works: %s", err == 0 ? 'P' : 'F',
	     err == 0 ? "exit 0" : ename(err));
	err = pthread_create(&th, NULL, thread_fn, NULL);
	if (err == 0)
		err = pthread_join(th, NULL);
	emit("%c pthread_create still works (clone3 ENOSYS fallback): %s",
	     err == 0 ? 'P' : 'F', ename(err));
}

static void probe_mounts(void)
{
	DENY("mount", "mount", syscall(SYS_mount, NULL, NULL, NULL, 0, NULL));
	DENY("umount2", "umount2", syscall(SYS_umount2, "/", 0xffff0000UL));
	DENY("pivot_root", "pivot_root", syscall(SYS_pivot_root, NULL, NULL));
	DENY("move_mount", "move_mount", syscall(SYS_move_mount, -1, NULL, -1, NULL, 0xffffffffUL));
	DENY("open_tree", "open_tree", syscall(SYS_open_tree, -1, NULL, 0xffffffffUL));
	DENY("open_tree_attr", "open_tree_attr",
	     syscall(NR_OPEN_TREE_ATTR, -1, NULL, 0xffffffffUL, NULL, 0));
	DENY("fsopen", "fsopen", syscall(SYS_fsopen, NULL, 0xffffffffUL));
	DENY("fsmount", "fsmount", syscall(SYS_fsmount, -1, 0xffffffffUL, 0));
	DENY("fsconfig", "fsconfig", syscall(SYS_fsconfig, -1, 0xffff, NULL, NULL, 0));
	DENY("fspick", "fspick", syscall(SYS_fspick, -1, NULL, 0xffffffffUL));
	DENY("mount_setattr", "mount_setattr",
	     syscall(SYS_mount_setattr, -1, NULL, 0xffffffffUL, NULL, 0));
}

static int send_fd(int sock, int fd)
{
	char byte = 'F';
	struct iovec iov = {&byte, 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,
			   .msg_control = u.b, .msg_controllen = sizeof(u.b)};
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char byte;
	struct iovec iov = {&byte, 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,
			   .msg_control = u.b, .msg_controllen = sizeof(u.b)};
	struct cmsghdr *c;
	struct pollfd p = {.fd = sock, .events = POLLIN};
	int fd;

	if (poll(&p, 1, WAIT_MS) != 1 || recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void child_quiet(void)
{
	struct rlimit no_core = {0, 0};

	/* An expected SIGSYS must not leave a core file behind. */
	setrlimit(RLIMIT_CORE, &no_core);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* Controlling pty, so that TIOCSTI without the filter would succeed (or
 * fail EIO where legacy TIOCSTI is off), never EPERM. */
static int take_pty(void)
{
	int m, s;

	if (setsid() < 0)
		return -1;
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return -1;
	s = open(ptsname(m), O_RDWR);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0)
		return -1;
	return s; /* the master stays open: it keeps the pty alive */
}

static void child_main(const struct filter_opts *o, int res, int sock)
{
	int pty, pp[2], nfd = -2, rc;
	char go;

	out_fd = res;
	child_quiet();
	pty = take_pty();
	if (pty < 0 || pipe(pp) < 0) {
		emit("F child setup (pty, pipe): %s", ename(errno));
		_exit(1);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		emit("F no_new_privs: %s", ename(errno));
		_exit(1);
	}
	rc = filter_install(o, &nfd);
	emit("%c filter_install returns 0: %s", rc == 0 ? 'P' : 'F', ename(-rc));
	if (rc != 0)
		_exit(1);
	if (o->notify) { /* run_mode forks only when notify is supported */
		int fl = fcntl(nfd, F_GETFD);

		emit("%c notify: listener fd >= 0 (%d)", nfd >= 0 ? 'P' : 'F', nfd);
		emit("%c notify: listener is close-on-exec", fl >= 0 && (fl & FD_CLOEXEC) ? 'P' : 'F');
		rc = send_fd(sock, nfd);
		emit("%c notify: sendmsg(SCM_RIGHTS) of the listener works under the filter: %s",
		     rc == 0 ? 'P' : 'F', ename(-rc));
		rc = close(nfd);
		emit("%c notify: close(listener) works under the filter", rc == 0 ? 'P' : 'F');
		/* Wait until the parent has probed the idle listener. */
		if (read(sock, &go, 1) != 1)
			_exit(1);
	} else {
		emit("%c no notify: *notify_fd == -1 (%d)", nfd == -1 ? 'P' : 'F', nfd);
	}

	probe_process();
	probe_mounts();
	probe_tty(pty, pp[0]);
	probe_socket_families(o->block_unix_sockets);
	_exit(0);
}

/* ---- parent side --------------------------------------------------- */

#define NAMES_MAX 256

struct names {
	char v[NAMES_MAX][64];
	int n;
};

static void names_add(struct names *s, const char *name)
{
	if (s->n < NAMES_MAX)
		snprintf(s->v[s->n++], sizeof(s->v[0]), "%s", name);
}

/* Remove one occurrence; 1 when it was there. */
static int names_take(struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->v[i], name) == 0) {
			memmove(s->v[i], s->v[i + 1], sizeof(s->v[0]) * (size_t)(s->n - i - 1));
			s->n--;
			return 1;
		}
	}
	return 0;
}

static void handle_line(char *line, struct names *announced, const char *tag)
{
	if (line[0] == 'N' && line[1] == ' ')
		names_add(announced, line + 2);
	else if (line[0] == 'S' && line[1] == ' ')
		report('S', "[%s] %s", tag, line + 2);
	else if ((line[0] == 'P' || line[0] == 'F') && line[1] == ' ')
		report(line[0], "[%s] %s", tag, line + 2);
	else
		report('F', "[%s] malformed child line: %s", tag, line);
}

static void run_mode(bool notify, bool block_unix)
{
	struct filter_opts o = {.block_unix_sockets = block_unix, .notify = notify};
	bool use_notify = notify && kfacts_seccomp_notify_usable();
	char tag[48], buf[8192];
	struct names announced = {.n = 0}, received = {.n = 0};
	int res[2], sv[2], nfd = -1, st, timed_out = 0;
	size_t len = 0;
	pid_t pid;

	snprintf(tag, sizeof(tag), "%s%s", notify ? "notify" : "errno",
		 block_unix ? ",block_unix" : "");
	if (notify && !use_notify) {
		report('S', "[%s] seccomp user notification unsupported here", tag);
		return;
	}
	if (pipe2(res, O_CLOEXEC) < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		report('F', "[%s] test setup: %s", tag, ename(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(res[0]);
		close(sv[0]);
		child_main(&o, res[1], sv[1]);
	}
	close(res[1]);
	close(sv[1]);
	if (pid < 0) {
		report('F', "[%s] fork: %s", tag, ename(errno));
		close(res[0]);
		close(sv[0]);
		return;
	}
	if (use_notify) {
		char name[64] = "x";

		nfd = recv_fd(sv[0]);
		check(nfd >= 0, "[%s] parent receives the listener", tag);
		if (nfd >= 0) {
			alarm(10); /* a blocking service call dies here, visibly */
			int r = filter_notify_service(nfd, name, sizeof(name));
			alarm(0);
			check(r == 0 && name[0] == '\0',
			      "[%s] filter_notify_service on an idle listener returns 0 at once (%d)", tag, r);
		}
		if (write(sv[0], "g", 1) != 1)
			report('F', "[%s] cannot start the child", tag);
	}

	for (;;) {
		struct pollfd p[2] = {{.fd = res[0], .events = POLLIN},
				      {.fd = nfd, .events = POLLIN}};
		int r = poll(p, nfd >= 0 ? 2 : 1, WAIT_MS);

		if (r == 0) {
			timed_out = 1;
			break;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (nfd >= 0 && (p[1].revents & POLLIN)) {
			char name[64];
			int s = filter_notify_service(nfd, name, sizeof(name));

			if (s == 1)
				names_add(&received, name);
			else if (s < 0)
				report('F', "[%s] filter_notify_service: %s", tag, ename(-s));
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(res[0], buf + len, sizeof(buf) - 1 - len);
			char *nl;

			if (n <= 0)
				break;
			len += (size_t)n;
			buf[len] = '\0';
			while ((nl = strchr(buf, '\n'))) {
				*nl = '\0';
				handle_line(buf, &announced, tag);
				len -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, len + 1);
			}
			if (len == sizeof(buf) - 1)
				len = 0; /* cannot happen: lines are short */
		}
	}
	if (timed_out)
		kill(pid, SIGKILL);
	check(!timed_out, "[%s] child finished in time", tag);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "[%s] child exited 0 (status 0x%x)", tag, st);

	if (use_notify) {
		int n_ann = announced.n, n_rec = received.n, missing = 0;
		char miss[512] = "";

		for (int i = 0; i < announced.n; i++) {
			if (!names_take(&received, announced.v[i])) {
				missing++;
				if (strlen(miss) + strlen(announced.v[i]) + 2 < sizeof(miss)) {
					strcat(miss, " ");
					strcat(miss, announced.v[i]);
				}
			}
		}
		check(n_ann > 40 && missing == 0,
		      "[%s] parent received the name of every denied call (%d made, %d named, missing:%s)",
		      tag, n_ann, n_rec, missing ? miss : " none");
		check(received.n == 0,
		      "[%s] no notification for an allowed call (%d extra%s%s)", tag, received.n,
		      received.n ? ", first " : "", received.n ? received.v[0] : "");
		close(nfd);
	}
	close(res[0]);
	close(sv[0]);
}

/* ---- foreign ABI: the whole process must die of SIGSYS ----------- */

#ifdef __x86_64__
static long ia32_getpid(void)
{
	long ret;

	/* int 0x80 from 64-bit code enters the ia32 syscall table (20: getpid). */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "r8", "r9", "r10", "r11", "memory");
	return ret;
}
#endif

enum abi_call { ABI_X32_GETPID, ABI_X32_PTRACE, ABI_X32_UNSHARE, ABI_IA32_GETPID };

#ifdef __x86_64__
/* Whether int 0x80 works at all here, without any filter: kernels built or
 * booted with ia32 emulation disabled fault it with SIGSEGV, so a filtered
 * run could not tell the filter's kill from the kernel's refusal. */
static bool ia32_available(void)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		child_quiet();
		_exit(ia32_getpid() > 0 ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
#endif

static void run_foreign(enum abi_call what, bool notify, const char *label)
{
#ifdef __x86_64__
	struct filter_opts o = {.notify = notify};
	int st;
	pid_t pid;

	if (what == ABI_IA32_GETPID && !ia32_available()) {
		report('S', "%s: ia32 emulation is off in this kernel (int 0x80 fails unfiltered)", label);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int nfd;

		child_quiet();
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || filter_install(&o, &nfd) != 0)
			_exit(2);
		switch (what) {
		case ABI_X32_GETPID:
			syscall(X32_BIT | SYS_getpid);
			break;
		case ABI_X32_PTRACE:
			syscall(X32_BIT | NR_X32_PTRACE, 3, 999999999, 0, 0);
			break;
		case ABI_X32_UNSHARE:
			syscall(X32_BIT | SYS_unshare, CLONE_NEWUSER);
			break;
		case ABI_IA32_GETPID:
			ia32_getpid();
			break;
		}
		_exit(0); /* survived: the filter let a foreign ABI through */
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		report('F', "%s: fork/wait: %s", label, ename(errno));
		return;
	}
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "%s kills the process with SIGSYS (status 0x%x)",
	      label, st);
#else
	(void)what;
	(void)notify;
	report('S', "%s: x86_64 only", label);
#endif
}

/* A notify install in a process whose chain already has a listener cannot
 * get one: it must fall back to EPERM, loaded.  raw: the first listener was
 * made by a raw seccomp() call (a harness holding this process; the kernel
 * answers EBUSY), else by filter_install itself (libseccomp's own state). */
static void run_nested(bool raw)
{
	const char *tag = raw ? "nested, raw listener" : "nested";
	int res[2], st;
	pid_t pid;

	if (!kfacts_seccomp_notify_usable()) {
		report('S', "[%s] seccomp user notification unsupported here", tag);
		return;
	}
	if (pipe(res) < 0) {
		report('F', "[%s] pipe: %s", tag, ename(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct filter_opts o = {.notify = true};
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog prog = {.len = 1, .filter = &allow};
		int fd1 = -2, fd2 = -2, rc;

		close(res[0]);
		out_fd = res[1];
		child_quiet();
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(1);
		if (raw) {
			fd1 = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
					   SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
			rc = fd1 >= 0 ? 0 : -errno;
		} else {
			rc = filter_install(&o, &fd1);
		}
		emit("%c first listener: 0 and a descriptor (%d, fd %d)",
		     rc == 0 && fd1 >= 0 ? 'P' : 'F', rc, fd1);
		rc = filter_install(&o, &fd2);
		emit("%c second notify install falls back: 0 and no listener (%d, fd %d)",
		     rc == 0 && fd2 == -1 ? 'P' : 'F', rc, fd2);
		/* Nobody services fd1: a notify rule left in force would block
		 * here (or fail ENOSYS without a listener); ERRNO outranks it. */
		alarm(10);
		errno = 0;
		long r = syscall(SYS_ptrace, 3, 999999999, 0, 0);
		emit("%c ptrace fails EPERM under the fallback filter: %s",
		     r == -1 && errno == EPERM ? 'P' : 'F', ename(errno));
		errno = 0;
		r = socket(AF_PACKET, SOCK_RAW, 0);
		emit("%c socket(AF_PACKET) fails EPERM under the fallback filter: %s",
		     r == -1 && errno == EPERM ? 'P' : 'F', ename(errno));
		_exit(0);
	}
	close(res[1]);
	if (pid < 0) {
		report('F', "[%s] fork: %s", tag, ename(errno));
		close(res[0]);
		return;
	}
	{
		char buf[4096], *line, *save = NULL;
		size_t len = 0;
		ssize_t n;
		struct names none = {.n = 0};

		while (len < sizeof(buf) - 1 &&
		       (n = read(res[0], buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)n;
		buf[len] = '\0';
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			handle_line(line, &none, tag);
	}
	close(res[0]);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "[%s] child exited 0 (status 0x%x)", tag, st);
}

/* A notification whose target is killed before it is answered: the
 * service call returns 0 without blocking. */
static void run_dead_target(void)
{
	int sv[2], nfd, st, r;
	char name[64] = "x";
	struct pollfd p;
	pid_t pid;

	if (!kfacts_seccomp_notify_usable()) {
		report('S', "[dead target] seccomp user notification unsupported here");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		report('F', "[dead target] socketpair: %s", ename(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct filter_opts o = {.notify = true};
		int fd;

		close(sv[0]);
		child_quiet();
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || filter_install(&o, &fd) != 0 ||
		    fd < 0 || send_fd(sv[1], fd) != 0)
			_exit(1);
		close(fd);
		syscall(SYS_ptrace, 3, 999999999, 0, 0); /* blocks until answered */
		_exit(0);
	}
	close(sv[1]);
	nfd = pid > 0 ? recv_fd(sv[0]) : -1;
	close(sv[0]);
	if (nfd < 0) {
		report('F', "[dead target] no listener from the child");
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return;
	}
	p = (struct pollfd){.fd = nfd, .events = POLLIN};
	r = poll(&p, 1, WAIT_MS);
	check(r == 1 && (p.revents & POLLIN), "[dead target] the blocked ptrace is pending on the listener");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	alarm(10);
	r = filter_notify_service(nfd, name, sizeof(name));
	alarm(0);
	check(r == 0 && name[0] == '\0',
	      "[dead target] filter_notify_service returns 0 at once, no name (%d '%s')", r, name);
	close(nfd);
}

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - a call blocked (SIGALRM)\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

int main(void)
{
	char name[8];
	int fd = 5;

	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN); /* a child that died early is reported, not fatal */
	setvbuf(stdout, NULL, _IOLBF, 0);

	check(filter_install(NULL, &fd) == -EINVAL, "filter_install(NULL) is -EINVAL");
	check(filter_notify_service(-1, name, sizeof(name)) == -EINVAL,
	      "filter_notify_service(-1) is -EINVAL");
	check(filter_notify_service(0, name, 0) == -EINVAL,
	      "filter_notify_service(namelen 0) is -EINVAL");
	printf("# kfacts_seccomp_notify_usable() = %d\n", kfacts_seccomp_notify_usable());

	run_mode(false, false);
	run_mode(false, true);
	run_mode(true, false);
	run_mode(true, true);

	run_foreign(ABI_X32_GETPID, false, "x32 getpid (nr | 0x40000000)");
	run_foreign(ABI_X32_PTRACE, false, "x32 ptrace (nr 521 | 0x40000000)");
	run_foreign(ABI_X32_UNSHARE, false, "x32 unshare(CLONE_NEWUSER) (nr | 0x40000000)");
	run_foreign(ABI_X32_GETPID, true, "x32 getpid under the notify filter");
	run_foreign(ABI_IA32_GETPID, false, "ia32 getpid through int 0x80");

	run_nested(false);
	run_nested(true);
	run_dead_target();

	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
