/* cfvol.c - cfvol.h on Linux: exFAT through FUSE on an autoclear loop
 * device, mounted in the caller's own mount namespace (the contract and
 * the reasons in sandproof/cfvol.h). */
#include "sandproof/cfvol.h"
#include "sandproof/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define CFVOL_FUSE_MAGIC 0x65735546 /* FUSE_SUPER_MAGIC: fuseblk too */
#define CFVOL_BYTES (64u << 20)
#define CFVOL_TOOL_MS 30000
#define CFVOL_END_MS 10000

struct cfvol {
	char *dir;
	char dev[32];
	dev_t img_dev; /* identity of the image, to tell our binding of the */
	ino_t img_ino; /* loop device from a later one of someone else's */
	struct proc_handle *daemon; /* the FUSE daemon, in the foreground */
	struct proc_opts o;         /* its options: valid while it runs */
	char *argv[7];
};

static int cfvol_err(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -e;
}

/* The first of dirs holding an executable name, into out. */
static bool cfvol_tool(const char *name, char *out, size_t outlen)
{
	static const char *const dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(out, outlen, "%s/%s", dirs[i], name);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* What this host lacks for a volume, with the reason; 0 when nothing. */
static int cfvol_prereq(char *mkfs, char *mnt, size_t len, char *err, size_t errlen)
{
	if (geteuid() != 0)
		return cfvol_err(err, errlen, EPERM, "needs root (a loop device and a "
				 "block-device FUSE mount); running as uid %u", (unsigned)geteuid());
	if (access("/dev/fuse", R_OK | W_OK) != 0)
		return cfvol_err(err, errlen, errno == EACCES ? EACCES : ENOENT,
				 "no usable /dev/fuse (%s)", strerror(errno));
	if (access("/dev/loop-control", R_OK | W_OK) != 0)
		return cfvol_err(err, errlen, ENOENT, "no usable /dev/loop-control (%s)",
				 strerror(errno));
	if (!cfvol_tool("mkfs.exfat", mkfs, len))
		return cfvol_err(err, errlen, ENOENT, "mkfs.exfat not found (Debian: exfatprogs)");
	if (!cfvol_tool("mount.exfat-fuse", mnt, len))
		return cfvol_err(err, errlen, ENOENT,
				 "mount.exfat-fuse not found (Debian: exfat-fuse)");
	return 0;
}

/* Once per process: a mount namespace of our own whose mounts never
 * propagate to the host's, so the volume dies with this process's tree. */
static int cfvol_private_ns(char *err, size_t errlen)
{
	static bool done;

	if (done)
		return 0;
	if (unshare(CLONE_NEWNS) < 0)
		return cfvol_err(err, errlen, errno, "unshare(CLONE_NEWNS): %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return cfvol_err(err, errlen, errno, "make / private: %s", strerror(errno));
	done = true;
	return 0;
}

/* Run a tool to its end: 0, or -errno with err holding its stderr's tail. */
static int cfvol_run(char *const *argv, char *err, size_t errlen)
{
	struct proc_opts o;
	struct proc_result r;
	int rc;

	proc_opts_init(&o);
	o.argv = argv;
	o.timeout_ms = CFVOL_TOOL_MS;
	o.out_limit = 4096;
	rc = proc_run(&o, &r);
	if (rc == 0 && !(r.exited && r.exit_code == 0 && !r.setup_err)) {
		size_t n = strlen(r.err);

		rc = cfvol_err(err, errlen, r.timed_out ? ETIMEDOUT : EIO,
			       "%s failed (exit %d%s): %s", argv[0], r.exited ? r.exit_code : -1,
			       r.timed_out ? ", timed out" : "", r.err + (n > 200 ? n - 200 : 0));
	} else if (rc < 0) {
		cfvol_err(err, errlen, -rc, "%s: %s", argv[0], strerror(-rc));
	}
	proc_result_free(&r);
	return rc;
}

/* Attach the image open at img to a free loop device with autoclear (it
 * detaches itself at its last close).  The device's fd, or -errno.  Another
 * process may take the same free device first: then the next one. */
static int cfvol_loop(struct cfvol *v, int img, const char *image, char *err, size_t errlen)
{
	struct loop_config c;
	int ctl, fd = -1, e = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return cfvol_err(err, errlen, errno, "/dev/loop-control: %s", strerror(errno));
	for (int tries = 0; tries < 16; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			e = errno;
			break;
		}
		snprintf(v->dev, sizeof(v->dev), "/dev/loop%d", n);
		fd = open(v->dev, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			break;
		}
		memset(&c, 0, sizeof(c));
		c.fd = (unsigned)img;
		c.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		snprintf((char *)c.info.lo_file_name, LO_NAME_SIZE, "%s", image);
		if (ioctl(fd, LOOP_CONFIGURE, &c) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
		if (e != EBUSY)
			break;
	}
	close(ctl);
	if (fd < 0)
		return cfvol_err(err, errlen, e ? e : EBUSY, "attach a loop device: %s",
				 strerror(e ? e : EBUSY));
	return fd;
}

/* The image: a sparse file of the size asked, made an exFAT volume. */
static int cfvol_image(struct cfvol *v, const struct cfvol_opts *o, const char *mkfs,
		       char *err, size_t errlen)
{
	char *argv[] = {(char *)mkfs, (char *)o->image, NULL};
	struct stat st;
	int fd, rc;

	fd = open(o->image, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return cfvol_err(err, errlen, errno, "%s: %s", o->image, strerror(errno));
	if (ftruncate(fd, (off_t)(o->bytes ? o->bytes : CFVOL_BYTES)) < 0 || fstat(fd, &st) < 0) {
		rc = cfvol_err(err, errlen, errno, "%s: %s", o->image, strerror(errno));
		close(fd);
		return rc;
	}
	v->img_dev = st.st_dev;
	v->img_ino = st.st_ino;
	rc = cfvol_run(argv, err, errlen);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* The FUSE daemon, kept in the foreground (-d; its debug output
 * discarded) as a child of ours: proc_start gives it PR_SET_PDEATHSIG, so
 * when this process dies - a harness killed with SIGKILL included - the
 * daemon dies with it, nothing is left in our mount namespace, and the
 * kernel drops the mount.  A daemon that went to the background would
 * outlive us and keep the namespace, the mount and the loop device.
 * Returns once the volume is mounted at dir (0), or -errno. */
static int cfvol_daemon(struct cfvol *v, const char *mnt, char *err, size_t errlen)
{
	struct statfs sf;
	int rc;

	v->argv[0] = "/bin/sh";
	v->argv[1] = "-c";
	v->argv[2] = "exec \"$0\" -d \"$1\" \"$2\" >/dev/null 2>&1";
	v->argv[3] = (char *)mnt;
	v->argv[4] = v->dev;
	v->argv[5] = v->dir;
	v->argv[6] = NULL;
	proc_opts_init(&v->o);
	v->o.argv = v->argv;
	v->o.timeout_ms = 0x7fffffff; /* the volume's life: ended by cfvol_end */
	rc = proc_start(&v->o, &v->daemon);
	if (rc < 0)
		return cfvol_err(err, errlen, -rc, "start %s: %s", mnt, strerror(-rc));
	for (int waited = 0; waited < CFVOL_TOOL_MS; waited += 10) {
		if (statfs(v->dir, &sf) == 0 && sf.f_type == CFVOL_FUSE_MAGIC)
			return 0;
		if (proc_wait(v->daemon, 10) == 1)
			break; /* it ended: the mount failed */
	}
	return cfvol_err(err, errlen, EIO, "%s %s %s: no file system mounted after it started",
			 mnt, v->dev, v->dir);
}

/* Leave the daemon a mount namespace without its own volume.  Why: a
 * block-device FUSE file system asks its daemon (FUSE_DESTROY) when its
 * last mount goes, and waits for the answer; if that last mount goes
 * because the daemon itself is the last process of the namespace holding
 * it - killed, in its exit, before its /dev/fuse is released - the daemon
 * waits for itself, unkillable, and the loop device stays bound (seen: a
 * timeout's kill did it).  So this process moves on to a copy of the
 * namespace (where the volume stays, for it and all it starts) and
 * unmounts the volume from the one the daemon keeps: whoever ends the
 * volume's last mount is then never its daemon.  The working directory is
 * kept.  0 or -errno. */
static int cfvol_leave_daemon(const char *dir, char *err, size_t errlen)
{
	int old = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC), cwd, nu = -1, rc = 0;

	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (old < 0 || cwd < 0 || unshare(CLONE_NEWNS) < 0 ||
	    (nu = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		rc = cfvol_err(err, errlen, errno, "a mount namespace of our own: %s", strerror(errno));
	else if (setns(old, CLONE_NEWNS) < 0)
		rc = cfvol_err(err, errlen, errno, "setns to the daemon's namespace: %s", strerror(errno));
	else {
		int u = umount2(dir, MNT_DETACH) < 0 ? errno : 0;

		/* back first, whatever the unmount did */
		if (setns(nu, CLONE_NEWNS) < 0)
			rc = cfvol_err(err, errlen, errno, "back to our namespace: %s", strerror(errno));
		else if (u)
			rc = cfvol_err(err, errlen, u, "unmount %s in the daemon's namespace: %s", dir,
				       strerror(u));
	}
	if (cwd >= 0 && fchdir(cwd) < 0 && rc == 0)
		rc = cfvol_err(err, errlen, errno, "back to the working directory: %s", strerror(errno));
	if (old >= 0)
		close(old);
	if (nu >= 0)
		close(nu);
	if (cwd >= 0)
		close(cwd);
	return rc;
}

/* The volume mounted at dir folds names: a name made there is found
 * under its upper-case spelling. */
static int cfvol_check(const char *dir, char *err, size_t errlen)
{
	char a[4096], b[4096];
	struct statfs sf;
	struct stat st;
	int fd;

	if (statfs(dir, &sf) < 0 || sf.f_type != CFVOL_FUSE_MAGIC)
		return cfvol_err(err, errlen, EIO, "%s: no FUSE file system mounted there", dir);
	snprintf(a, sizeof(a), "%s/cfvol-probe", dir);
	snprintf(b, sizeof(b), "%s/CFVOL-PROBE", dir);
	fd = open(a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return cfvol_err(err, errlen, errno, "%s: %s", a, strerror(errno));
	close(fd);
	fd = stat(b, &st);
	unlink(a);
	if (fd != 0)
		return cfvol_err(err, errlen, EOPNOTSUPP, "%s: the volume does not match "
				 "names case-insensitively (%s not found)", dir, b);
	return 0;
}

int cfvol_make(const struct cfvol_opts *o, struct cfvol **out, char *err, size_t errlen)
{
	char mkfs[64], mnt[64];
	struct cfvol *v;
	int rc, img = -1, loop = -1;

	*out = NULL;
	if (!o || !o->dir || !o->image)
		return cfvol_err(err, errlen, EINVAL, "cfvol: dir and image are required");
	if ((rc = cfvol_prereq(mkfs, mnt, sizeof(mkfs), err, errlen)) < 0 ||
	    (rc = cfvol_private_ns(err, errlen)) < 0)
		return rc;
	v = calloc(1, sizeof(*v));
	if (!v || !(v->dir = strdup(o->dir))) {
		free(v);
		return cfvol_err(err, errlen, ENOMEM, "cfvol: out of memory");
	}
	rc = img = cfvol_image(v, o, mkfs, err, errlen);
	if (rc >= 0)
		rc = loop = cfvol_loop(v, img, o->image, err, errlen);
	if (rc >= 0)
		rc = cfvol_daemon(v, mnt, err, errlen);
	if (rc >= 0)
		rc = cfvol_leave_daemon(v->dir, err, errlen);
	/* Ours closed: from now on the daemon and the mounted file system hold
	 * the device, and when both let go autoclear detaches it. */
	if (img >= 0)
		close(img);
	if (loop >= 0)
		close(loop);
	if (rc >= 0 && (rc = cfvol_check(v->dir, err, errlen)) < 0)
		cfvol_end(v, NULL, 0);
	else if (rc < 0)
		cfvol_end(v, NULL, 0); /* what was started is ended */
	if (rc < 0)
		return rc;
	*out = v;
	return 0;
}

const char *cfvol_device(const struct cfvol *v)
{
	return v ? v->dev : "";
}

/* Whether the loop device is still bound to our image. */
static bool cfvol_bound(const struct cfvol *v)
{
	struct loop_info64 li;
	int fd = open(v->dev, O_RDONLY | O_CLOEXEC);
	bool bound;

	if (fd < 0)
		return false;
	bound = ioctl(fd, LOOP_GET_STATUS64, &li) == 0 && li.lo_inode == v->img_ino &&
		li.lo_device == v->img_dev;
	close(fd);
	return bound;
}

static void cfvol_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int cfvol_end(struct cfvol *v, char *err, size_t errlen)
{
	int rc = 0, tries;

	if (!v)
		return 0;
	/* A process of the run still inside keeps it busy for a moment. */
	for (tries = 0; tries < 50 && umount2(v->dir, 0) < 0; tries++) {
		if (errno == EINVAL || errno == ENOENT)
			break; /* not mounted (any more) */
		if (errno != EBUSY) {
			rc = cfvol_err(err, errlen, errno, "umount %s: %s", v->dir, strerror(errno));
			break;
		}
		cfvol_sleep_ms(20);
	}
	if (tries == 50) {
		umount2(v->dir, MNT_DETACH);
		rc = cfvol_err(err, errlen, EBUSY, "%s busy: detached lazily", v->dir);
	}
	/* The daemon ends when its file system is gone (killed when it does
	 * not in time), and with its last close the loop device detaches
	 * itself (autoclear). */
	if (v->daemon) {
		struct proc_result r;

		if (proc_wait(v->daemon, CFVOL_END_MS / 2) != 1)
			proc_kill(v->daemon);
		proc_end(v->daemon, &r);
		proc_result_free(&r);
	}
	for (tries = 0; v->dev[0] && tries < CFVOL_END_MS / 20 && cfvol_bound(v); tries++)
		cfvol_sleep_ms(20);
	if (rc == 0 && v->dev[0] && cfvol_bound(v))
		rc = cfvol_err(err, errlen, ETIMEDOUT, "%s still bound to the image after %d s",
			       v->dev, CFVOL_END_MS / 1000);
	free(v->dir);
	free(v);
	return rc;
}
