/* test_landlock.c - tests for the Landlock module (landlock.h).
 *
 * Every case runs in a forked child that restricts itself (a Landlock domain
 * can never be left), performs operations and sends one record per check to
 * the parent, which numbers and prints them (TAP-like: "ok N - text").
 * Each denial is paired with a permitted neighbour in the same child, and
 * the parent checks the sibling directory on the host afterwards. */
#include "landlock.h"
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

enum { ST_FAIL, ST_PASS, ST_SKIP };

struct rec {
	int status;
	char text[200];
};

static int g_rep = -1; /* in a case child: the pipe to the parent */

static void emit(int status, const char *text)
{
	if (g_rep >= 0) {
		struct rec r;

		memset(&r, 0, sizeof(r));
		r.status = status;
		snprintf(r.text, sizeof(r.text), "%s", text);
		/* One record is below PIPE_BUF, so the write is atomic. */
		if (write(g_rep, &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(99);
		return;
	}
	if (status == ST_SKIP)
		t_skipped("%s", text);
	else
		t_ok(status == ST_PASS, "%s", text);
}

__attribute__((format(printf, 2, 3))) static void check(bool cond,
							 const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(cond ? ST_PASS : ST_FAIL, buf);
}

__attribute__((format(printf, 1, 2))) static void skip(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(ST_SKIP, buf);
}

static const char *ename(int e)
{
	const char *n;

	if (e == 0)
		return "success";
	n = strerrorname_np(e);
	return n ? n : "?";
}

/* got/want are 0 (success) or a positive errno. */
static void check_errno(const char *what, int got, int want)
{
	check(got == want, "%s: %s (want %s)", what, ename(got), ename(want));
}

/* 0, or errno, for calls that return -1 on failure. */
#define E(expr) ((expr) == -1 ? errno : 0)

/* ---- running a case in a child --------------------------------------- */

static void run_case(const char *name, void (*fn)(void *), void *arg)
{
	int pfd[2], status;
	struct rec r;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) != 0) {
		check(false, "%s: pipe: %s", name, strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		check(false, "%s: fork: %s", name, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		g_rep = pfd[1];
		alarm(30); /* a hung case fails instead of hanging the suite */
		fn(arg);
		_exit(0);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], &r, sizeof(r))) == (ssize_t)sizeof(r)) {
		r.text[sizeof(r.text) - 1] = '\0';
		emit(r.status, r.text);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: case child exited cleanly (status 0x%x)", name, status);
}

/* ---- temp dirs ---------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove a tree without following symlinks. */
static int rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

struct dirs {
	char base[64];
	char in[96];  /* the write_dir */
	char out[96]; /* its sibling, outside the policy */
};

static int dirs_make(struct dirs *d)
{
	char p[160];
	int fd;

	snprintf(d->base, sizeof(d->base), "/tmp/ll-test.XXXXXX");
	if (mkdtemp(d->base) == NULL)
		return -errno;
	snprintf(d->in, sizeof(d->in), "%s/in", d->base);
	snprintf(d->out, sizeof(d->out), "%s/out", d->base);
	if (mkdir(d->in, 0755) != 0 || mkdir(d->out, 0755) != 0)
		return -errno;
	snprintf(p, sizeof(p), "%s/existing", d->out);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, "host\n", 5) != 5) {
		close(fd);
		return -EIO;
	}
	close(fd);
	snprintf(p, sizeof(p), "%s/keepdir", d->out);
	if (mkdir(p, 0755) != 0)
		return -errno;
	/* A regular file outside the write dir, granted through write_files. */
	snprintf(p, sizeof(p), "%s/granted", d->base);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static char *pathf(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

/* Host-side oracle: the sibling directory holds exactly "existing" (with
 * its original content) and "keepdir", whatever the child reported. */
static void check_out_untouched(const char *label, const struct dirs *d)
{
	char p[160], buf[16];
	struct dirent *de;
	int n = 0, other = 0, fd;
	ssize_t len = -1;
	DIR *dir;

	dir = opendir(d->out);
	if (dir) {
		while ((de = readdir(dir)) != NULL) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			n++;
			if (strcmp(de->d_name, "existing") && strcmp(de->d_name, "keepdir"))
				other++;
		}
		closedir(dir);
	}
	fd = open(pathf(p, sizeof(p), d->out, "existing"), O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf));
		close(fd);
	}
	check(n == 2 && other == 0 && len == 5 && !memcmp(buf, "host\n", 5),
	      "%s: host oracle: sibling dir unchanged (%d entries, %d foreign)",
	      label, n, other);
}

/* ---- child-side helpers ------------------------------------------------- */

static int set_nnp(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

static int e_creat(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	if (write(fd, "data\n", 5) != 5) {
		close(fd);
		return EIO;
	}
	close(fd);
	return 0;
}

static int e_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int e_bind_path(const char *path)
{
	struct sockaddr_un sa;
	int s, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	e = E(bind(s, (struct sockaddr *)&sa, sizeof(sa)));
	close(s);
	return e;
}

/* ioctl(TCGETS) on a fd opened now: ENOTTY when the device was reached,
 * EACCES when Landlock refused the ioctl. */
static int e_tcgets(const char *path, int flags)
{
	struct termios t;
	int fd = open(path, flags | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	e = E(ioctl(fd, TCGETS, &t));
	close(fd);
	return e;
}

static bool has_mknod(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct dt[2];

	if (syscall(SYS_capget, &h, dt) != 0)
		return false;
	return dt[CAP_MKNOD / 32].effective & (1U << (CAP_MKNOD % 32));
}

/* The next descriptor number: unchanged across a call means no fd leaked. */
static int next_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* ---- case: filesystem confinement at one ABI ---------------------------- */

struct fs_case {
	struct dirs d;
	int abi;          /* the ABI to restrict with */
	bool use_default; /* through ll_restrict() rather than _abi() */
};

static void fs_child(void *arg)
{
	const struct fs_case *c = arg;
	const struct dirs *d = &c->d;
	char a[160], b[160], lbl[48], what[200];
	int dfd, files[2], r, abi = c->abi;
	char buf[16];
	ssize_t len;
	struct ll_policy p;

	snprintf(lbl, sizeof(lbl), "abi %d", abi);
#define W(s) (snprintf(what, sizeof(what), "%s: %s", lbl, s), what)
	dfd = open(d->in, O_PATH | O_DIRECTORY | O_CLOEXEC);
	files[0] = open("/dev/null", O_PATH | O_CLOEXEC);
	files[1] = open(pathf(a, sizeof(a), d->base, "granted"), O_PATH | O_CLOEXEC);
	memset(&p, 0, sizeof(p));
	p.write_dirs = &dfd;
	p.n_write_dirs = 1;
	p.write_files = files;
	p.n_write_files = 2;
	if (set_nnp() != 0 || dfd < 0 || files[0] < 0 || files[1] < 0) {
		check(false, "%s: setup: %s", lbl, strerror(errno));
		return;
	}
	r = c->use_default ? ll_restrict(&p) : ll_restrict_abi(&p, abi);
	check(r == abi, "%s: %s returns the ABI used (%d)", lbl,
	      c->use_default ? "ll_restrict" : "ll_restrict_abi", r);
	if (r != abi)
		return;
	close(dfd);
	close(files[0]);
	close(files[1]);

	/* Positive controls beneath the write dir. */
	check_errno(W("create+write inside"), e_creat(pathf(a, sizeof(a), d->in, "f")), 0);
	check_errno(W("mkdir inside"), E(mkdir(pathf(a, sizeof(a), d->in, "d"), 0755)), 0);
	check_errno(W("rename inside, same dir"),
		    E(rename(pathf(a, sizeof(a), d->in, "f"), pathf(b, sizeof(b), d->in, "g"))), 0);
	e_creat(pathf(a, sizeof(a), d->in, "h"));
	/* Before ABI 2 REFER cannot be granted: any cross-directory rename or
	 * link is refused with EXDEV (documented in landlock.h). */
	check_errno(W("rename inside, into subdir (REFER)"),
		    E(rename(pathf(a, sizeof(a), d->in, "h"), pathf(b, sizeof(b), d->in, "d/h"))),
		    abi >= LL_ABI_REFER ? 0 : EXDEV);
	check_errno(W("hard link inside, into subdir (REFER)"),
		    E(link(pathf(a, sizeof(a), d->in, "g"), pathf(b, sizeof(b), d->in, "d/g2"))),
		    abi >= LL_ABI_REFER ? 0 : EXDEV);
	check_errno(W("symlink inside"), E(symlink("g", pathf(a, sizeof(a), d->in, "s"))), 0);
	check_errno(W("mkfifo inside"), E(mkfifo(pathf(a, sizeof(a), d->in, "p"), 0644)), 0);
	check_errno(W("bind unix socket inside"), e_bind_path(pathf(a, sizeof(a), d->in, "sock")), 0);
	check_errno(W("truncate inside"), E(truncate(pathf(a, sizeof(a), d->in, "g"), 0)), 0);
	check_errno(W("open O_TRUNC inside"),
		    e_open(pathf(a, sizeof(a), d->in, "g"), O_WRONLY | O_TRUNC), 0);
	check_errno(W("unlink inside"), E(unlink(pathf(a, sizeof(a), d->in, "s"))), 0);
	/* Without CAP_MKNOD the capability check refuses with EPERM after
	 * Landlock allowed it: never EACCES. */
	check_errno(W("mknod char device inside"),
		    E(mknod(pathf(a, sizeof(a), d->in, "c"), S_IFCHR | 0600, makedev(1, 3))),
		    has_mknod() ? 0 : EPERM);
	check_errno(W("mknod block device inside"),
		    E(mknod(pathf(a, sizeof(a), d->in, "b"), S_IFBLK | 0600, makedev(7, 0))),
		    has_mknod() ? 0 : EPERM);
	check_errno(W("mkdir+rmdir inside"), E(mkdir(pathf(a, sizeof(a), d->in, "e"), 0755)) ?:
		    E(rmdir(pathf(a, sizeof(a), d->in, "e"))), 0);

	/* Outside: the sibling directory. */
	check_errno(W("open existing for write outside"),
		    e_open(pathf(a, sizeof(a), d->out, "existing"), O_WRONLY), EACCES);
	check_errno(W("create outside"), e_creat(pathf(a, sizeof(a), d->out, "new")), EACCES);
	check_errno(W("mkdir outside"), E(mkdir(pathf(a, sizeof(a), d->out, "d"), 0755)), EACCES);
	check_errno(W("symlink outside"), E(symlink("x", pathf(a, sizeof(a), d->out, "s"))), EACCES);
	check_errno(W("mkfifo outside"), E(mkfifo(pathf(a, sizeof(a), d->out, "p"), 0644)), EACCES);
	check_errno(W("bind unix socket outside"),
		    e_bind_path(pathf(a, sizeof(a), d->out, "sock")), EACCES);
	check_errno(W("unlink outside"), E(unlink(pathf(a, sizeof(a), d->out, "existing"))), EACCES);
	check_errno(W("rmdir outside"), E(rmdir(pathf(a, sizeof(a), d->out, "keepdir"))), EACCES);
	/* Landlock checks before the CAP_MKNOD check, so EACCES either way. */
	check_errno(W("mknod char device outside"),
		    E(mknod(pathf(a, sizeof(a), d->out, "c"), S_IFCHR | 0600, makedev(1, 3))), EACCES);
	check_errno(W("mknod block device outside"),
		    E(mknod(pathf(a, sizeof(a), d->out, "b"), S_IFBLK | 0600, makedev(7, 0))), EACCES);
	check_errno(W("rename outside file into write dir"),
		    E(rename(pathf(a, sizeof(a), d->out, "existing"), pathf(b, sizeof(b), d->in, "x"))),
		    EACCES);
	check_errno(W("rename inside file out"),
		    E(rename(pathf(a, sizeof(a), d->in, "g"), pathf(b, sizeof(b), d->out, "g"))), EACCES);
	check_errno(W("hard link out (REFER)"),
		    E(link(pathf(a, sizeof(a), d->in, "g"), pathf(b, sizeof(b), d->out, "l"))), EACCES);
	if (abi >= LL_ABI_TRUNCATE)
		check_errno(W("truncate outside"),
			    E(truncate(pathf(a, sizeof(a), d->out, "existing"), 0)), EACCES);
	else
		skip("%s: truncate outside: TRUNCATE is not a Landlock right before ABI 3", lbl);

	/* Reads stay unrestricted. */
	r = open(pathf(a, sizeof(a), d->out, "existing"), O_RDONLY | O_CLOEXEC);
	len = r >= 0 ? read(r, buf, sizeof(buf)) : -1;
	if (r >= 0)
		close(r);
	check(len == 5 && !memcmp(buf, "host\n", 5), "%s: read outside still works", lbl);

	/* write_files: /dev/null granted, /dev/zero not. */
	r = open("/dev/null", O_WRONLY | O_TRUNC | O_CLOEXEC);
	check(r >= 0 && write(r, "x", 1) == 1, "%s: write to granted /dev/null (O_TRUNC)", lbl);
	if (r >= 0)
		close(r);
	check_errno(W("granted regular file: open O_WRONLY|O_TRUNC"),
		    e_open(pathf(a, sizeof(a), d->base, "granted"), O_WRONLY | O_TRUNC), 0);
	check_errno(W("granted regular file: truncate"),
		    E(truncate(pathf(a, sizeof(a), d->base, "granted"), 0)), 0);
	check_errno(W("granted regular file: unlink (no dir rights)"),
		    E(unlink(pathf(a, sizeof(a), d->base, "granted"))), EACCES);
	check_errno(W("create beside granted file"), e_creat(pathf(a, sizeof(a), d->base, "new")),
		    EACCES);
	check_errno(W("open ungranted /dev/zero for write"), e_open("/dev/zero", O_WRONLY), EACCES);
	check_errno(W("ioctl on granted /dev/null reaches the device"),
		    e_tcgets("/dev/null", O_WRONLY), ENOTTY);
	check_errno(W("ioctl on ungranted /dev/zero (IOCTL_DEV)"), e_tcgets("/dev/zero", O_RDONLY),
		    abi >= LL_ABI_IOCTL_DEV ? EACCES : ENOTTY);
#undef W
}

static void case_fs(int abi, bool use_default)
{
	struct fs_case c;
	char lbl[48];
	int r;

	memset(&c, 0, sizeof(c));
	c.abi = abi;
	c.use_default = use_default;
	snprintf(lbl, sizeof(lbl), "abi %d", abi);
	r = dirs_make(&c.d);
	if (r != 0) {
		check(false, "%s: temp dirs: %s", lbl, strerror(-r));
		return;
	}
	run_case(lbl, fs_child, &c);
	check_out_untouched(lbl, &c.d);
	check(rm_tree(c.d.base) == 0 && access(c.d.base, F_OK) != 0,
	      "%s: temp dirs removed", lbl);
}

/* ---- case: every failing step is an error, and leaves no restriction ---- */

enum fail_kind {
	FAIL_BADF_DIR,
	FAIL_NEG_FD_FILE,
	FAIL_FILE_AS_DIR,
	FAIL_DIR_AS_FILE,
	FAIL_SCOPE_OLD_ABI,
	FAIL_ABI_ZERO,
	FAIL_ABI_TOO_NEW,
	FAIL_NO_NNP,
	FAIL_SECCOMP_NOSYS,
	FAIL_SECCOMP_OPNOTSUPP,
	FAIL_SECCOMP_CREATE,
	FAIL_SECCOMP_ADD_RULE,
	FAIL_SECCOMP_RESTRICT,
};

struct fail_case {
	struct dirs d;
	enum fail_kind kind;
	const char *label;
	int want;      /* the negative errno ll_restrict* must return */
	int probe_nr;  /* for seccomp cases: syscall to fail */
	int probe_err;
	int probe_arg2; /* -1: any; else only when args[2] equals it */
};

/* Make syscall nr fail with err (only when its third argument equals
 * arg2, unless arg2 < 0), to inject a fault into one Landlock step. */
static int inject_fault(int nr, int err, int arg2)
{
#if defined(__x86_64__)
	struct sock_filter f[10];
	struct sock_fprog prog;
	unsigned n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      (unsigned)nr, 0, arg2 < 0 ? 1 : 3);
	if (arg2 >= 0) {
		f[n++] = (struct sock_filter)BPF_STMT(
			BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, args[2]));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)arg2, 0, 1);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ERRNO | (unsigned)err);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	prog.filter = f;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : -errno;
#else
	(void)nr;
	(void)err;
	(void)arg2;
	return -ENOSYS;
#endif
}

/* Empty the effective capability set so root behaves like an unprivileged
 * caller (landlock_restrict_self without no_new_privs needs CAP_SYS_ADMIN). */
static int drop_effective_caps(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct dt[2];

	if (syscall(SYS_capget, &h, dt) != 0)
		return -errno;
	dt[0].effective = dt[1].effective = 0;
	return syscall(SYS_capset, &h, dt) == 0 ? 0 : -errno;
}

static void fail_child(void *arg)
{
	const struct fail_case *c = arg;
	int dfd, ffd, bad, abi = ll_abi(), before, r, e;
	char a[160], what[200];
	struct ll_policy p;

	memset(&p, 0, sizeof(p));
	dfd = open(c->d.in, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ffd = open(pathf(a, sizeof(a), c->d.out, "existing"), O_PATH | O_CLOEXEC);
	/* A number that names no open fd, and above the lowest free one so
	 * the ruleset fd ll_restrict() creates cannot take it. */
	bad = 900;
	while (fcntl(bad, F_GETFD) != -1)
		bad++;
	p.write_dirs = &dfd;
	p.n_write_dirs = 1;
	if (c->kind == FAIL_NO_NNP) {
		e = drop_effective_caps();
		if (e != 0) {
			check(false, "%s: drop caps: %s", c->label, strerror(-e));
			return;
		}
	} else if (set_nnp() != 0) {
		check(false, "%s: no_new_privs: %s", c->label, strerror(errno));
		return;
	}
	switch (c->kind) {
	case FAIL_BADF_DIR:
		p.write_dirs = &bad;
		break;
	case FAIL_NEG_FD_FILE:
		bad = -1;
		p.write_files = &bad;
		p.n_write_files = 1;
		break;
	case FAIL_FILE_AS_DIR:
		p.write_dirs = &ffd;
		break;
	case FAIL_DIR_AS_FILE:
		p.write_files = &dfd;
		p.n_write_files = 1;
		break;
	case FAIL_SCOPE_OLD_ABI:
		p.scope_signals = true;
		break;
	default:
		break;
	}
	if (c->probe_nr) {
		e = inject_fault(c->probe_nr, c->probe_err, c->probe_arg2);
		if (e != 0) {
			check(false, "%s: install fault filter: %s", c->label, strerror(-e));
			return;
		}
	}
	before = next_fd();
	if (c->kind == FAIL_SCOPE_OLD_ABI)
		r = ll_restrict_abi(&p, LL_ABI_SCOPES - 1);
	else if (c->kind == FAIL_ABI_ZERO)
		r = ll_restrict_abi(&p, 0);
	else if (c->kind == FAIL_ABI_TOO_NEW)
		r = ll_restrict_abi(&p, (abi < LL_ABI_KNOWN ? abi : LL_ABI_KNOWN) + 1);
	else
		r = ll_restrict(&p);
	check(r == c->want, "%s: returns %s (want %s)", c->label,
	      r <= 0 ? ename(-r) : "an ABI", ename(-c->want));
	if (c->kind == FAIL_SECCOMP_NOSYS || c->kind == FAIL_SECCOMP_OPNOTSUPP)
		check(ll_abi() == 0, "%s: ll_abi() reports 0", c->label);
	check(next_fd() == before, "%s: no descriptor leaked", c->label);
	/* Not half-restricted: a write outside the policy still works. */
	snprintf(what, sizeof(what), "%s: write outside afterwards (thread not restricted)",
		 c->label);
	check_errno(what, e_creat(pathf(a, sizeof(a), c->d.out, "after")), 0);
}

static void case_fail(enum fail_kind kind, const char *label, int want,
		      int nr, int err, int arg2)
{
	struct fail_case c;
	char p[160];
	int r;

	memset(&c, 0, sizeof(c));
	c.kind = kind;
	c.label = label;
	c.want = want;
	c.probe_nr = nr;
	c.probe_err = err;
	c.probe_arg2 = arg2;
	r = dirs_make(&c.d);
	if (r != 0) {
		check(false, "%s: temp dirs: %s", label, strerror(-r));
		return;
	}
	run_case(label, fail_child, &c);
	check(access(pathf(p, sizeof(p), c.d.out, "after"), F_OK) == 0,
	      "%s: host oracle: the unrestricted write landed", label);
	check(rm_tree(c.d.base) == 0, "%s: temp dirs removed", label);
}

/* ---- case: signal scope -------------------------------------------------- */

struct sig_case {
	pid_t victim; /* the parent's other child, outside any domain */
	bool scoped;
};

static void sig_child(void *arg)
{
	const struct sig_case *c = arg;
	const char *l = c->scoped ? "scope_signals" : "no signal scope";
	struct ll_policy p;
	int r, st = 0;
	pid_t g;

	memset(&p, 0, sizeof(p));
	p.scope_signals = c->scoped;
	if (set_nnp() != 0 || (r = ll_restrict(&p)) < 0) {
		check(false, "%s: restrict failed", l);
		return;
	}
	if (!c->scoped) {
		/* Control: the same victim is reachable without the scope. */
		check_errno("no signal scope: kill(outside, 0) (control)",
			    E(kill(c->victim, 0)), 0);
		return;
	}
	check_errno("scope_signals: kill(outside, 0)", E(kill(c->victim, 0)), EPERM);
	check_errno("scope_signals: kill(outside, SIGTERM)",
		    E(kill(c->victim, SIGTERM)), EPERM);
	fflush(stdout);
	g = fork();
	if (g == 0) {
		close(g_rep);
		alarm(10);
		for (;;)
			pause();
	}
	check(g > 0, "scope_signals: fork inside the domain");
	if (g <= 0)
		return;
	check_errno("scope_signals: kill(own child, SIGTERM) (positive control)",
		    E(kill(g, SIGTERM)), 0);
	waitpid(g, &st, 0);
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	      "scope_signals: own child died of SIGTERM");
}

static void case_signals(void)
{
	struct sig_case c;
	int st = 0;
	pid_t v;

	fflush(stdout);
	v = fork();
	if (v == 0) {
		alarm(30);
		for (;;)
			pause();
	}
	if (v < 0) {
		check(false, "signals: fork victim: %s", strerror(errno));
		return;
	}
	c.victim = v;
	c.scoped = true;
	run_case("scope_signals", sig_child, &c);
	check(waitpid(v, &st, WNOHANG) == 0, "scope_signals: host oracle: victim still alive");
	c.scoped = false;
	run_case("no signal scope", sig_child, &c);
	kill(v, SIGKILL);
	waitpid(v, &st, 0);
}

/* ---- case: abstract unix socket scope ------------------------------------ */

struct unix_case {
	struct sockaddr_un host; /* bound by the parent, outside any domain */
	socklen_t host_len;
	bool scoped;
};

static socklen_t abstract_addr(struct sockaddr_un *sa, const char *tag)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
		     "sandproof-ll-%s-%d-%ld", tag, (int)getpid(), (long)random());
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int e_connect(const struct sockaddr_un *sa, socklen_t len)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

	if (s < 0)
		return errno;
	e = E(connect(s, (const struct sockaddr *)sa, len));
	close(s);
	return e;
}

static void unix_child(void *arg)
{
	const struct unix_case *c = arg;
	struct ll_policy p;
	struct sockaddr_un own;
	socklen_t own_len;
	int s;

	memset(&p, 0, sizeof(p));
	p.scope_abstract_unix = c->scoped;
	if (set_nnp() != 0 || ll_restrict(&p) < 0) {
		check(false, "abstract unix: restrict failed");
		return;
	}
	if (!c->scoped) {
		check_errno("no unix scope: connect to host abstract socket (control)",
			    e_connect(&c->host, c->host_len), 0);
		return;
	}
	check_errno("scope_abstract_unix: connect to host abstract socket",
		    e_connect(&c->host, c->host_len), EPERM);
	own_len = abstract_addr(&own, "in");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	check(s >= 0 && bind(s, (struct sockaddr *)&own, own_len) == 0 && listen(s, 4) == 0,
	      "scope_abstract_unix: bind+listen abstract socket inside");
	check_errno("scope_abstract_unix: connect to own abstract socket (positive control)",
		    e_connect(&own, own_len), 0);
	if (s >= 0)
		close(s);
}

static void case_unix(void)
{
	struct unix_case c;
	int s;

	memset(&c, 0, sizeof(c));
	c.host_len = abstract_addr(&c.host, "host");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&c.host, c.host_len) != 0 || listen(s, 8) != 0) {
		check(false, "abstract unix: host listener: %s", strerror(errno));
		if (s >= 0)
			close(s);
		return;
	}
	c.scoped = true;
	run_case("scope_abstract_unix", unix_child, &c);
	c.scoped = false;
	run_case("no unix scope", unix_child, &c);
	close(s);
}

/* ---- main ------------------------------------------------------------------ */

int main(void)
{
	int kabi = ll_abi(), top;

	srandom((unsigned)getpid());
	if (kabi == 0) {
		skip("landlock unavailable on this kernel");
		return t_done();
	}
	check(kabi >= 1, "ll_abi() reports ABI %d", kabi);
	top = kabi < LL_ABI_KNOWN ? kabi : LL_ABI_KNOWN;

	/* The default entry point at the kernel's ABI, then each older ABI. */
	case_fs(top, true);
	for (int abi = top - 1; abi >= 1; abi--)
		case_fs(abi, false);

	case_fail(FAIL_BADF_DIR, "closed fd in write_dirs", -EBADF, 0, 0, -1);
	case_fail(FAIL_NEG_FD_FILE, "fd -1 in write_files", -EBADF, 0, 0, -1);
	case_fail(FAIL_FILE_AS_DIR, "file in write_dirs", -EINVAL, 0, 0, -1);
	case_fail(FAIL_DIR_AS_FILE, "directory in write_files", -EINVAL, 0, 0, -1);
	case_fail(FAIL_SCOPE_OLD_ABI, "scope asked at ABI 5", -EINVAL, 0, 0, -1);
	case_fail(FAIL_ABI_ZERO, "ABI 0 asked", -EINVAL, 0, 0, -1);
	case_fail(FAIL_ABI_TOO_NEW, "ABI beyond kernel asked", -EINVAL, 0, 0, -1);
	case_fail(FAIL_NO_NNP, "no no_new_privs, no CAP_SYS_ADMIN", -EPERM, 0, 0, -1);
#if defined(__x86_64__)
	case_fail(FAIL_SECCOMP_NOSYS, "kernel without landlock (ENOSYS)", -EOPNOTSUPP,
		  SYS_landlock_create_ruleset, ENOSYS, -1);
	case_fail(FAIL_SECCOMP_OPNOTSUPP, "landlock disabled (EOPNOTSUPP)", -EOPNOTSUPP,
		  SYS_landlock_create_ruleset, EOPNOTSUPP, -1);
	case_fail(FAIL_SECCOMP_CREATE, "create_ruleset fails", -ENOMEM,
		  SYS_landlock_create_ruleset, ENOMEM, 0);
	case_fail(FAIL_SECCOMP_ADD_RULE, "add_rule fails", -ENOMEM,
		  SYS_landlock_add_rule, ENOMEM, -1);
	case_fail(FAIL_SECCOMP_RESTRICT, "restrict_self fails", -E2BIG,
		  SYS_landlock_restrict_self, E2BIG, -1);
#else
	skip("fault injection: x86_64 only");
#endif

	if (kabi >= LL_ABI_SCOPES) {
		case_signals();
		case_unix();
	} else {
		skip("scopes: kernel ABI %d < %d", kabi, LL_ABI_SCOPES);
	}

	return t_done();
}
