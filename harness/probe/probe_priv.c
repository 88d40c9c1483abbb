/* probe_priv.c - privilege operations of the probe: tracing other
 * processes, terminal injection, namespaces, capabilities, no_new_privs. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#ifdef SANDPROOF_PROBE_LINUX
#include <linux/capability.h>
#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#endif

#define PROBE_PTRACE_WAIT_MS 2000
#define PROBE_TIOCSTI_CHAR '#' /* a shell reading it sees a comment */

/* PID is a positive number or @PIDFILE: a file whose first line is the
 * pid, read when the op runs (a pid known only inside the sandbox, such as
 * a spawn_daemon's). */
static int probe_check_pid(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (a[0][0] == '@' && a[0][1] != '\0')
		return 0;
	if (probe_parse_ll(a[0], 1, 0x7fffffff, &v) < 0)
		return probe_check_msg(msg, len,
				       "PID must be a positive number or @PIDFILE, not \"%s\"", a[0]);
	return 0;
}

#ifdef SANDPROOF_PROBE_LINUX
/* The pid argument s (validated by probe_check_pid): 0 after failing res
 * at step "pidfile" when @PIDFILE cannot be read (its errno) or does not
 * hold a pid (EINVAL). */
static pid_t probe_pid_arg(const char *s, struct probe_res *res)
{
	long long v = 0;
	char buf[32], *nl;
	ssize_t r;
	int fd;

	if (s[0] != '@') {
		probe_parse_ll(s, 1, 0x7fffffff, &v);
		return (pid_t)v;
	}
	fd = open(s + 1, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		probe_res_fail(res, errno, "pidfile");
		return 0;
	}
	r = read(fd, buf, sizeof(buf) - 1);
	if (r < 0)
		probe_res_fail(res, errno, "pidfile");
	close(fd);
	if (r < 0)
		return 0;
	buf[r] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (probe_parse_ll(buf, 1, 0x7fffffff, &v) < 0) {
		probe_res_fail(res, EINVAL, "pidfile");
		return 0;
	}
	return (pid_t)v;
}

/* Attach, wait (bounded) for the attach stop, detach.  Success of the
 * attach is the finding; the stop is awaited only so the detach leaves the
 * target running exactly as before. */
static void probe_ptrace_attach(pid_t pid, struct probe_res *res)
{
	struct timespec pause = {0, 5 * 1000 * 1000};
	int waited = 0, st;

	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0) {
		probe_res_fail(res, errno, "attach");
		return;
	}
	while (waited < PROBE_PTRACE_WAIT_MS) {
		pid_t r = waitpid(pid, &st, __WALL | WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		nanosleep(&pause, NULL);
		waited += 5;
	}
	if (ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0)
		probe_field_errno(res, "detach_errno", errno);
	probe_field_int(res, "pid", (long long)pid);
}

static void probe_op_ptrace(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	pid_t pid = probe_pid_arg(a[0], res);

	(void)ctx, (void)n;
	if (pid > 0)
		probe_ptrace_attach(pid, res);
}

/* The parent is the classic target: typically the sandbox's init or the
 * runner's helper, which may hold descriptors outside the sandbox. */
static void probe_op_ptrace_parent(struct probe_ctx *ctx, char **a, int n,
				   struct probe_res *res)
{
	(void)ctx, (void)a, (void)n;
	probe_ptrace_attach(getppid(), res);
}

/* The first readable mapping of pid, from /proc/PID/maps; 0 if unknown. */
static unsigned long probe_first_readable(pid_t pid)
{
	char path[64], buf[4096];
	unsigned long lo = 0, hi;
	char perms[8];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
		    perms[0] == 'r')
			return lo;
	}
	return 0;
}

/* The kernel checks ptrace-attach permission before touching memory, so
 * EPERM is the policy answer and EFAULT means permission was granted but
 * the guessed address (used when /proc/PID/maps is unreadable) was not
 * mapped. */
static void probe_op_process_vm_readv(struct probe_ctx *ctx, char **a, int n,
				      struct probe_res *res)
{
	pid_t pid = probe_pid_arg(a[0], res);
	unsigned long addr;
	char buf[64], hex[32];
	struct iovec local = {buf, sizeof(buf)};
	struct iovec remote;
	ssize_t r;

	(void)ctx, (void)n;
	if (pid <= 0)
		return;
	addr = probe_first_readable(pid);
	if (addr == 0)
		addr = 0x10000;
	remote.iov_base = (void *)addr;
	remote.iov_len = sizeof(buf);
	snprintf(hex, sizeof(hex), "0x%lx", addr);
	probe_field_cstr(res, "addr", hex);
	r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (r < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	probe_field_int(res, "bytes", (long long)r);
}

#endif

static int probe_tiocsti_fd(int fd)
{
	char c = PROBE_TIOCSTI_CHAR;

	return ioctl(fd, TIOCSTI, &c) < 0 ? errno : 0;
}

/* Both routes a sandboxed process has to a terminal: its controlling
 * terminal by name, and whatever fd 0 is.  ok if either injected. */
static void probe_op_tiocsti(struct probe_ctx *ctx, char **a, int n,
			     struct probe_res *res)
{
	int tty_err, fd0_err;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	(void)ctx, (void)a, (void)n;
	if (fd < 0) {
		tty_err = errno;
	} else {
		tty_err = probe_tiocsti_fd(fd);
		close(fd);
	}
	fd0_err = probe_tiocsti_fd(0);
	probe_field_bool(res, "tty_ok", tty_err == 0);
	probe_field_errno(res, "tty_errno", tty_err);
	probe_field_bool(res, "fd0_ok", fd0_err == 0);
	probe_field_errno(res, "fd0_errno", fd0_err);
	/* The top-level errno is the terminal's, unless there is no
	 * terminal at all (ENXIO, ENOENT): then fd 0's is the news. */
	if (tty_err && fd0_err) {
		bool none = tty_err == ENXIO || tty_err == ENOENT;

		probe_res_fail(res, none ? fd0_err : tty_err, none ? "fd0" : "tty");
	}
}

/* What the tiocsti_pty child tells its parent: the step that failed (an
 * index of probe_pty_steps, 0 for none) and its errno. */
struct probe_pty_msg {
	int step;
	int err;
};
static const char *const probe_pty_steps[] = {NULL, "setsid", "open", "sctty", "ioctl"};

/* Child: a new session whose controlling terminal is the slave `name`,
 * then TIOCSTI into it; the result goes down fd `out`.  Never returns. */
static void probe_pty_child(const char *name, int out)
{
	struct probe_pty_msg m = {0, 0};
	char c = PROBE_TIOCSTI_CHAR;
	int s = -1;

	if (setsid() < 0)
		m = (struct probe_pty_msg){1, errno};
	else if ((s = open(name, O_RDWR)) < 0)
		m = (struct probe_pty_msg){2, errno};
	else if (ioctl(s, TIOCSCTTY, 0) < 0) /* Linux: already; BSD: needed */
		m = (struct probe_pty_msg){3, errno};
	else if (ioctl(s, TIOCSTI, &c) < 0)
		m = (struct probe_pty_msg){4, errno};
	if (write(out, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(1);
	_exit(0);
}

/* Whether the master shows the injected character within 500 ms: the
 * line discipline echoes pushed input, a witness besides the ioctl's
 * answer. */
static bool probe_pty_echoed(int mfd)
{
	struct pollfd pfd = {mfd, POLLIN, 0};
	char buf[64];
	ssize_t r;

	if (poll(&pfd, 1, 500) <= 0 || !(pfd.revents & POLLIN))
		return false;
	r = read(mfd, buf, sizeof(buf));
	return r > 0 && memchr(buf, PROBE_TIOCSTI_CHAR, (size_t)r) != NULL;
}

/* The child's verdict into res; false when it gave none. */
static bool probe_pty_wait(pid_t pid, int in, struct probe_res *res)
{
	struct probe_pty_msg m = {0, 0};
	ssize_t r;
	int st;

	do
		r = read(in, &m, sizeof(m));
	while (r < 0 && errno == EINTR);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof(m) || m.step < 0 || m.step > 4) {
		probe_res_fail(res, EIO, "child");
		return false;
	}
	if (m.step)
		probe_res_fail(res, m.err, probe_pty_steps[m.step]);
	return m.step == 0;
}

/* TIOCSTI on a terminal the probe owns: a pty of its own, whose slave is
 * a child's controlling terminal.  No host terminal is touched, and no
 * terminal is needed from the caller, so a sandbox's refusal (PRIV-2: the
 * filter refuses TIOCSTI whatever the terminal) is told apart from there
 * being none.  ok: the push was accepted; `echoed`: the master saw it. */
static void probe_op_tiocsti_pty(struct probe_ctx *ctx, char **a, int n,
				 struct probe_res *res)
{
	int mfd, p[2];
	char *name;
	pid_t pid;
	bool ok;

	(void)ctx, (void)a, (void)n;
	mfd = posix_openpt(O_RDWR | O_NOCTTY);
	if (mfd < 0) {
		probe_res_fail(res, errno, "openpt");
		return;
	}
	(void)fcntl(mfd, F_SETFD, FD_CLOEXEC);
	name = grantpt(mfd) == 0 && unlockpt(mfd) == 0 ? ptsname(mfd) : NULL;
	if (!name || pipe(p) < 0) {
		probe_res_fail(res, errno, name ? "pipe" : "unlockpt");
		close(mfd);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		probe_pty_child(name, p[1]);
	}
	close(p[1]);
	if (pid < 0) {
		probe_res_fail(res, errno, "fork");
		close(p[0]);
		close(mfd);
		return;
	}
	ok = probe_pty_wait(pid, p[0], res);
	close(p[0]);
	if (ok)
		probe_field_bool(res, "echoed", probe_pty_echoed(mfd));
	close(mfd);
}

static int probe_check_clone(char **a, int n, char *msg, size_t len)
{
	(void)n;
	if (strcmp(a[0], "clone") != 0 && strcmp(a[0], "clone3") != 0)
		return probe_check_msg(msg, len, "clone_user takes clone or clone3, not \"%s\"", a[0]);
	return 0;
}

static int probe_check_abi(char **a, int n, char *msg, size_t len)
{
	(void)n;
	if (strcmp(a[0], "x32") != 0 && strcmp(a[0], "ia32") != 0)
		return probe_check_msg(msg, len, "foreign_abi takes x32 or ia32, not \"%s\"", a[0]);
	return 0;
}

#ifdef SANDPROOF_PROBE_LINUX
static void probe_op_unshare_user(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	(void)ctx, (void)a, (void)n;
	if (unshare(CLONE_NEWUSER) < 0)
		probe_res_fail(res, errno, NULL);
}

/* A child in a new user namespace, through clone() (flags in a register)
 * or clone3() (flags in a struct behind a pointer, which seccomp cannot
 * read): ok when the child was made.  The child exits at once; it shares
 * nothing with the probe (no CLONE_VM), so it runs on a copy of its stack. */
static void probe_op_clone_user(struct probe_ctx *ctx, char **a, int n,
				struct probe_res *res)
{
	long pid;

	(void)ctx, (void)n;
	if (strcmp(a[0], "clone3") == 0) {
		struct clone_args ca;

		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_NEWUSER;
		ca.exit_signal = SIGCHLD;
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
	} else {
		pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), NULL, NULL, NULL, NULL);
	}
	if (pid == 0)
		_exit(0);
	if (pid < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* getpid through a foreign system-call ABI of x86_64: x32 (the native
 * instruction, number | 0x40000000) or ia32 (int 0x80, i386 number 20).
 * ok when it answered our pid; a kernel without that ABI answers ENOSYS
 * (x32) or kills the probe with SIGSEGV (ia32 without its gate). */
static void probe_op_foreign_abi(struct probe_ctx *ctx, char **a, int n,
				 struct probe_res *res)
{
	(void)ctx, (void)n;
#if defined(__x86_64__)
	long r;

	if (strcmp(a[0], "x32") == 0) {
		r = syscall(0x40000000L | SYS_getpid);
		if (r < 0) {
			probe_res_fail(res, errno, NULL);
			return;
		}
	} else {
		r = 20; /* __NR_getpid of i386 */
		__asm__ volatile("int $0x80"
				 : "+a"(r)
				 :
				 : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
				   "memory");
		if (r < 0 && r > -4096) {
			probe_res_fail(res, (int)-r, NULL);
			return;
		}
	}
	probe_field_int(res, "ret", r);
	if (r != getpid())
		probe_res_fail(res, EPROTO, "answer");
#else
	(void)a;
	probe_res_fail(res, EOPNOTSUPP, "arch");
#endif
}

/* setns(2) into the namespace file PATH (e.g. /proc/self/ns/mnt), any
 * type: joining even its own namespaces needs CAP_SYS_ADMIN over them. */
static void probe_op_setns(struct probe_ctx *ctx, char **a, int n,
			   struct probe_res *res)
{
	int fd;

	(void)ctx, (void)n;
	fd = open(a[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		probe_res_fail(res, errno, "open");
		return;
	}
	if (setns(fd, 0) < 0)
		probe_res_fail(res, errno, "setns");
	close(fd);
}

static const char *const probe_cap_keys[5][2] = {
	{"CapInh:", "inh"}, {"CapPrm:", "prm"}, {"CapEff:", "eff"},
	{"CapBnd:", "bnd"}, {"CapAmb:", "amb"},
};

/* From /proc/self/status; 0 or -errno. */
static int probe_caps_proc(uint64_t v[5])
{
	char buf[8192];
	ssize_t r;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC), found = 0;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -EIO;
	buf[r] = '\0';
	for (int k = 0; k < 5; k++) {
		char *p = strstr(buf, probe_cap_keys[k][0]);

		if (p && sscanf(p + strlen(probe_cap_keys[k][0]), "%" SCNx64, &v[k]) == 1)
			found++;
	}
	return found == 5 ? 0 : -EIO;
}

/* Without /proc: capget for the three process sets, prctl for the
 * bounding and ambient sets bit by bit. */
static int probe_caps_syscall(uint64_t v[5])
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	v[0] = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	v[1] = d[0].permitted | (uint64_t)d[1].permitted << 32;
	v[2] = d[0].effective | (uint64_t)d[1].effective << 32;
	v[3] = v[4] = 0;
	for (int c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			v[3] |= (uint64_t)1 << c;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1)
			v[4] |= (uint64_t)1 << c;
	}
	return 0;
}

static void probe_op_caps(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	uint64_t v[5];
	const char *source = "proc";
	int rc;

	(void)ctx, (void)a, (void)n;
	if (probe_caps_proc(v) < 0) {
		source = "syscall";
		rc = probe_caps_syscall(v);
		if (rc < 0) {
			probe_res_fail(res, -rc, "capget");
			return;
		}
	}
	for (int k = 0; k < 5; k++) {
		char hex[24];

		snprintf(hex, sizeof(hex), "%016" PRIx64, v[k]);
		probe_field_cstr(res, probe_cap_keys[k][1], hex);
	}
	probe_field_cstr(res, "source", source);
}

static void probe_op_no_new_privs(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	int v;

	(void)ctx, (void)a, (void)n;
	v = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (v < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	probe_field_int(res, "value", v);
}

#endif

const struct probe_op probe_priv_ops[] = {
	{"ptrace", 1, 1, "PID", probe_check_pid, PROBE_LINUX_OP(probe_op_ptrace)},
	{"ptrace_parent", 0, 0, "", NULL, PROBE_LINUX_OP(probe_op_ptrace_parent)},
	{"process_vm_readv", 1, 1, "PID", probe_check_pid, PROBE_LINUX_OP(probe_op_process_vm_readv)},
	{"tiocsti", 0, 0, "", NULL, probe_op_tiocsti},
	{"tiocsti_pty", 0, 0, "", NULL, probe_op_tiocsti_pty},
	{"unshare_user", 0, 0, "", NULL, PROBE_LINUX_OP(probe_op_unshare_user)},
	{"clone_user", 1, 1, "clone|clone3", probe_check_clone, PROBE_LINUX_OP(probe_op_clone_user)},
	{"foreign_abi", 1, 1, "x32|ia32", probe_check_abi, PROBE_LINUX_OP(probe_op_foreign_abi)},
	{"setns", 1, 1, "PATH", NULL, PROBE_LINUX_OP(probe_op_setns)},
	{"caps", 0, 0, "", NULL, PROBE_LINUX_OP(probe_op_caps)},
	{"no_new_privs", 0, 0, "", NULL, PROBE_LINUX_OP(probe_op_no_new_privs)},
	/* Windows only (platforms/windows/probe/wprobe_ui.c): a window
	 * station's clipboard and input queue have no POSIX counterpart. */
	{"clipboard_read", 0, 0, "", NULL, probe_op_unsupported},
	{"clipboard_write", 1, 1, "TEXT", NULL, probe_op_unsupported},
	{"sendinput", 0, 0, "", NULL, probe_op_unsupported},
	{NULL, 0, 0, NULL, NULL, NULL},
};
