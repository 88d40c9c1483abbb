/* runtime.c - runtime roots: derivation, layout, stamp, lease, acquire.
 * Eviction and gc live in runtime_evict.c.  Contracts are in runtime.h. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandproof/platform.h"
#include "sha256.h"

/* A descriptor good enough to walk through a directory we may only search. */
#if defined(O_PATH)
#define RUNTIME_O_SEARCH O_PATH
#elif defined(O_SEARCH)
#define RUNTIME_O_SEARCH O_SEARCH
#else
#define RUNTIME_O_SEARCH O_RDONLY
#endif

#define RUNTIME_DIR_MODE 0700
#define RUNTIME_STAMP_MAX 4096

/* The layout, parents before children.  Changing it changes the plan digest,
 * so every existing root is re-provisioned on its next use. */
static const char *const runtime_layout[] = {
	"tmp", "cache", "data",
	"cache/npm", "cache/pip", "cache/go-build", "cache/go-mod", "cache/yarn",
	"data/cargo",
};
#define RUNTIME_N_LAYOUT (sizeof(runtime_layout) / sizeof(runtime_layout[0]))
_Static_assert(RUNTIME_N_LAYOUT + 1 <= RUNTIME_LAYOUT_MAX, "layout too large");

static const struct {
	const char *key, *rel;
} runtime_envmap[] = {
	{"TMPDIR", "tmp"}, {"TMP", "tmp"}, {"TEMP", "tmp"},
	{"XDG_CACHE_HOME", "cache"},
	{"npm_config_cache", "cache/npm"},
	{"PIP_CACHE_DIR", "cache/pip"},
	{"GOCACHE", "cache/go-build"},
	{"GOMODCACHE", "cache/go-mod"},
	{"YARN_CACHE_FOLDER", "cache/yarn"},
	{"CARGO_HOME", "data/cargo"},
};
_Static_assert(sizeof(runtime_envmap) / sizeof(runtime_envmap[0]) <= RUNTIME_ENV_MAX, "env");

/* ---------------------------------------------------------------- paths */

/* The OS's runtime-root operations (platform.h); NULL: the POSIX code
 * below.  Canonical paths use its separator. */
char runtime_sep(void)
{
	const struct platform_runtime_ops *o = platform_runtime_ops();
	return o ? o->sep : '/';
}

/* One runtime_canonicalize walk.  rest: the absolute path still to walk,
 * from pos on (rewritten when a symlink is followed); res: the resolved
 * prefix, rlen bytes, always symlink-free while exists, so ".." can be
 * applied to it lexically with the kernel's meaning; exists: false from the
 * first component that does not exist (the rest is taken as written). */
struct runtime_canon {
	char *rest, *tmp;          /* cap bytes each */
	char *res, *link;          /* PATH_MAX bytes each */
	size_t cap, pos, rlen;
	int links;                 /* symlinks followed so far */
	bool exists;
};

/* rest = path, made absolute against the working directory; res empty.
 * 0 or -errno. */
static int runtime_canon_begin(struct runtime_canon *c, const char *path)
{
	if (path[0] != '/') {
		if (!getcwd(c->res, PATH_MAX))
			return -errno;
		if ((size_t)snprintf(c->rest, c->cap, "%s/%s", c->res, path) >= c->cap)
			return -ENAMETOOLONG;
	} else if ((size_t)snprintf(c->rest, c->cap, "%s", path) >= c->cap) {
		return -ENAMETOOLONG;
	}
	c->res[0] = '\0';
	return 0;
}

/* res names a symlink: its target replaces it in front of what remains of
 * rest, and the walk restarts there, from / for an absolute target, else
 * from res's parent (res cut back to rlen).  0 or -errno (-ELOOP past 40
 * links). */
static int runtime_canon_splice(struct runtime_canon *c)
{
	ssize_t n;

	if (++c->links > 40)
		return -ELOOP;
	n = readlink(c->res, c->link, PATH_MAX);
	if (n < 0)
		return -errno;
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	c->link[n] = '\0';
	if ((size_t)snprintf(c->tmp, c->cap, "%s/%s", c->link, c->rest + c->pos) >= c->cap)
		return -ENAMETOOLONG;
	memcpy(c->rest, c->tmp, strlen(c->tmp) + 1);
	c->pos = 0;
	if (c->link[0] == '/')
		c->rlen = 0;
	c->res[c->rlen] = '\0';
	return 0;
}

/* Appends the component rest[start, start + clen) to res and, while the
 * prefix exists, looks at it with lstat: a symlink is spliced
 * (runtime_canon_splice), anything else kept (rlen grows over it).  A
 * missing component ends the lookups.  0 or -errno. */
static int runtime_canon_append(struct runtime_canon *c, size_t start, size_t clen)
{
	struct stat st;

	if (c->rlen + 1 + clen >= PATH_MAX)
		return -ENAMETOOLONG;
	c->res[c->rlen] = '/';
	memcpy(c->res + c->rlen + 1, c->rest + start, clen);
	c->res[c->rlen + 1 + clen] = '\0';
	if (c->exists) {
		if (lstat(c->res, &st) < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				return -errno;
			c->exists = false;
		} else if (S_ISLNK(st.st_mode)) {
			return runtime_canon_splice(c);
		}
	}
	c->rlen += 1 + clen;
	return 0;
}

/* Walks rest into res, component by component: "." dropped, ".." taken
 * off res lexically, any other through runtime_canon_append.  0 or
 * -errno. */
static int runtime_canon_walk(struct runtime_canon *c)
{
	for (;;) {
		size_t start, clen;
		int r;

		while (c->rest[c->pos] == '/')
			c->pos++;
		if (!c->rest[c->pos])
			return 0;
		start = c->pos;
		while (c->rest[c->pos] && c->rest[c->pos] != '/')
			c->pos++;
		clen = c->pos - start;
		if (clen == 1 && c->rest[start] == '.')
			continue;
		if (clen == 2 && c->rest[start] == '.' && c->rest[start + 1] == '.') {
			while (c->rlen > 0 && c->res[c->rlen - 1] != '/')
				c->rlen--;
			if (c->rlen > 0)
				c->rlen--;
			c->res[c->rlen] = '\0';
			continue;
		}
		r = runtime_canon_append(c, start, clen);
		if (r < 0)
			return r;
	}
}

int runtime_canonicalize(const char *path, char *out, size_t outlen)
{
	struct runtime_canon c = {.cap = 2 * PATH_MAX + 2, .exists = true};
	const struct platform_runtime_ops *o = platform_runtime_ops();
	int r;

	if (!path || !*path)
		return -EINVAL;
	if (o)
		return o->canonicalize(path, out, outlen);
	c.rest = malloc(c.cap);
	c.tmp = malloc(c.cap);
	c.res = malloc(PATH_MAX);
	c.link = malloc(PATH_MAX);
	if (!c.rest || !c.tmp || !c.res || !c.link)
		r = -ENOMEM;
	else
		r = runtime_canon_begin(&c, path);
	if (r == 0)
		r = runtime_canon_walk(&c);
	if (r == 0 && c.rlen == 0) {
		c.res[0] = '/';
		c.res[1] = '\0';
		c.rlen = 1;
	}
	if (r == 0 && c.rlen + 1 > outlen)
		r = -ENAMETOOLONG;
	if (r == 0)
		memcpy(out, c.res, c.rlen + 1);
	free(c.rest);
	free(c.tmp);
	free(c.res);
	free(c.link);
	return r;
}

void runtime_derive_name(const char *canonical_ws, char name[RUNTIME_NAME_LEN + 1])
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256_digest(canonical_ws, strlen(canonical_ws), d);
	sha256_hex(d, hex);
	memcpy(name, hex, RUNTIME_NAME_LEN);
	name[RUNTIME_NAME_LEN] = '\0';
}

bool runtime_name_is_root(const char *name)
{
	size_t i;
	for (i = 0; name[i]; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return i == RUNTIME_NAME_LEN;
}

/* Both canonical: is p dir itself or below it?  Where the OS folds case
 * (Windows), ASCII letters compare folded: an overlap is never missed for
 * a difference of case (it moves the root to the fallback). */
static bool runtime_within(const char *p, const char *dir)
{
	const struct platform_runtime_ops *o = platform_runtime_ops();
	char sep = runtime_sep();
	size_t n = strlen(dir);
	if (n > 0 && dir[n - 1] == sep)
		n--; /* "/" or "C:\" */
	if (n == 0)
		return true;
	if (o && o->fold_case ? strncasecmp(p, dir, n) : strncmp(p, dir, n))
		return false;
	return p[n] == '\0' || p[n] == sep;
}

int runtime_unique_name(char *buf, size_t len, const char *name, const char *kind)
{
	static unsigned long seq;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long s = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	if ((size_t)snprintf(buf, len, "%s.%s.%ld.%lu.%ld", name, kind, (long)getpid(), s,
			     (long)ts.tv_nsec) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int runtime_open_parent(const char *canonical, bool create, int *out_fd)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	const char *p = canonical;
	const struct platform_runtime_ops *o = platform_runtime_ops();
	int fd, r;

	if (o)
		return o->open_parent(canonical, create, out_fd);
	if (canonical[0] != '/')
		return -EINVAL;
	fd = open("/", ((p[1] ? RUNTIME_O_SEARCH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0)
		return -errno;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		if (n > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			r = -EINVAL;
			goto fail;
		}
		/* Security: O_NOFOLLOW on every component, so a component
		 * swapped for a symlink after canonicalisation fails instead of
		 * moving the parent somewhere else. */
		int flags = (*p ? RUNTIME_O_SEARCH : O_RDONLY) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		int nfd = openat(fd, comp, flags);
		if (nfd < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, RUNTIME_DIR_MODE) < 0 && errno != EEXIST) {
				r = -errno;
				goto fail;
			}
			nfd = openat(fd, comp, flags);
		}
		if (nfd < 0) {
			r = -errno;
			goto fail;
		}
		close(fd);
		fd = nfd;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	/* Security: anyone else able to create or rename entries in the
	 * parent could plant the names we lock, stamp and delete. */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		r = -EPERM;
		goto fail;
	}
	*out_fd = fd;
	return 0;
fail:
	close(fd);
	return r;
}

/* ---------------------------------------------------------------- lease */

int runtime_lease_lock(int pfd, const char *name, int how, int *out_fd)
{
	char ln[NAME_MAX + 1];
	if ((size_t)snprintf(ln, sizeof(ln), "%s.lease", name) >= sizeof(ln))
		return -ENAMETOOLONG;
	for (int tries = 0; tries < 1000; tries++) {
		struct stat a, b;
		int fd = openat(pfd, ln, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &a) < 0 || !S_ISREG(a.st_mode) || a.st_uid != geteuid()) {
			close(fd);
			return -EPERM;
		}
		int r;
		do
			r = flock(fd, how);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			int e = errno;
			close(fd);
			return e == EAGAIN ? -EWOULDBLOCK : -e;
		}
		/* Security: an evictor unlinks the lease file while holding it
		 * exclusively; a lock on a file no longer at that name protects
		 * nothing, so it only counts if the name still leads to it. */
		if (fstatat(pfd, ln, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			*out_fd = fd;
			return 0;
		}
		close(fd);
		if (how & LOCK_EX)
			return -ESTALE;
	}
	return -EAGAIN;
}

/* ---------------------------------------------------------------- stamp */

static void runtime_obj_of(const struct stat *s, struct runtime_stamp_obj *o)
{
	o->dev = (uint64_t)s->st_dev;
	o->ino = (uint64_t)s->st_ino;
	o->uid = (uint32_t)s->st_uid;
	o->mode = (uint32_t)s->st_mode;
}

static const char *runtime_obj_rel(size_t i)
{
	return i == 0 ? "." : runtime_layout[i - 1];
}

int runtime_stamp_read(int pfd, const char *name, struct runtime_stamp *st)
{
	char sn[NAME_MAX + 1], buf[RUNTIME_STAMP_MAX + 1];
	struct stat s;
	size_t len = 0;

	memset(st, 0, sizeof(*st));
	if ((size_t)snprintf(sn, sizeof(sn), "%s.stamp", name) >= sizeof(sn))
		return -ENAMETOOLONG;
	int fd = openat(pfd, sn, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &s) < 0 || !S_ISREG(s.st_mode) || s.st_uid != geteuid() ||
	    s.st_size > RUNTIME_STAMP_MAX) {
		close(fd);
		return -EINVAL;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, RUNTIME_STAMP_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == RUNTIME_STAMP_MAX)
			break;
	}
	close(fd);
	buf[len] = '\0';

	char *save = NULL, *line = strtok_r(buf, "\n", &save);
	int consumed = -1;
	if (!line || strcmp(line, "sandproof-runtime-stamp 1"))
		return -EINVAL;
	line = strtok_r(NULL, "\n", &save);
	if (!line || sscanf(line, "plan %64[0-9a-f]%n", st->plan, &consumed) != 1 ||
	    line[consumed] || strlen(st->plan) != 64)
		return -EINVAL;
	line = strtok_r(NULL, "\n", &save);
	long long sec;
	consumed = -1;
	if (!line || sscanf(line, "last_use %lld.%9ld%n", &sec, &st->last_nsec, &consumed) != 2 ||
	    line[consumed] || sec < 0 || st->last_nsec < 0 || st->last_nsec > 999999999)
		return -EINVAL;
	st->last_sec = sec;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char rel[64];
		unsigned long long dev, ino;
		unsigned uid, mode;
		consumed = -1;
		if (st->n_obj >= RUNTIME_N_LAYOUT + 1 ||
		    sscanf(line, "obj %63s %llu %llu %u %o%n", rel, &dev, &ino, &uid, &mode, &consumed) != 5 ||
		    line[consumed] || strcmp(rel, runtime_obj_rel(st->n_obj)))
			return -EINVAL;
		st->obj[st->n_obj++] = (struct runtime_stamp_obj){dev, ino, uid, mode};
	}
	return 0;
}

static int runtime_stamp_write(int pfd, const char *name, const char *plan,
			       const struct runtime_stamp_obj *obj, size_t n)
{
	char buf[RUNTIME_STAMP_MAX], tn[NAME_MAX + 1], sn[NAME_MAX + 1];
	struct timespec ts;
	size_t len;
	int r;

	clock_gettime(CLOCK_REALTIME, &ts);
	len = (size_t)snprintf(buf, sizeof(buf), "sandproof-runtime-stamp 1\nplan %s\nlast_use %lld.%09ld\n",
			       plan, (long long)ts.tv_sec, (long)ts.tv_nsec);
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "obj %s %llu %llu %u %o\n",
					runtime_obj_rel(i), (unsigned long long)obj[i].dev,
					(unsigned long long)obj[i].ino, obj[i].uid, obj[i].mode);
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	if ((size_t)snprintf(sn, sizeof(sn), "%s.stamp", name) >= sizeof(sn) ||
	    (r = runtime_unique_name(tn, sizeof(tn), name, "stamp.tmp")) < 0)
		return -ENAMETOOLONG;
	/* Security: O_EXCL|O_NOFOLLOW so the temporary is a file we just
	 * created, then rename over the stamp name: rename replaces whatever
	 * entry is there (a planted symlink included) and never follows it. */
	int fd = openat(pfd, tn, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r = -errno;
			close(fd);
			unlinkat(pfd, tn, 0);
			return r;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0 || renameat(pfd, tn, pfd, sn) < 0) {
		r = -errno;
		unlinkat(pfd, tn, 0);
		return r;
	}
	return 0;
}

/* The plan digest: the layout and the workspace the root serves. */
static void runtime_plan(const char *ws, char plan[65])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_LEN];
	sha256_init(&c);
	static const char head[] = "sandproof-runtime-plan 1\nworkspace ";
	static const char dir[] = "\ndir 0700 ";
	sha256_update(&c, head, sizeof(head) - 1);
	sha256_update(&c, ws, strlen(ws));
	for (size_t i = 0; i < RUNTIME_N_LAYOUT; i++) {
		sha256_update(&c, dir, sizeof(dir) - 1);
		sha256_update(&c, runtime_layout[i], strlen(runtime_layout[i]));
	}
	sha256_final(&c, d);
	sha256_hex(d, plan);
}

/* ----------------------------------------------------- verify, provision */

static bool runtime_obj_ok(const struct stat *s)
{
	return S_ISDIR(s->st_mode) && s->st_uid == geteuid() &&
	       (s->st_mode & 07777) == RUNTIME_DIR_MODE;
}

/* Current identity of the root (rfd) and its layout, in stamp order. */
static int runtime_collect(int rfd, struct runtime_stamp_obj *obj, char *why, size_t wl)
{
	struct stat s;
	if (fstat(rfd, &s) < 0 || !runtime_obj_ok(&s)) {
		snprintf(why, wl, "root identity changed");
		return -ESTALE;
	}
	runtime_obj_of(&s, &obj[0]);
	for (size_t i = 0; i < RUNTIME_N_LAYOUT; i++) {
		if (fstatat(rfd, runtime_layout[i], &s, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(why, wl, "%s missing", runtime_layout[i]);
			return -ESTALE;
		}
		if (!runtime_obj_ok(&s)) {
			snprintf(why, wl, "%s not a private directory", runtime_layout[i]);
			return -ESTALE;
		}
		runtime_obj_of(&s, &obj[i + 1]);
	}
	return 0;
}

/* 1 and *rfd_out when the objects match the stamp, else 0 with why. */
static int runtime_verify(int pfd, const char *name, const char *plan, int *rfd_out,
			  char *why, size_t wl)
{
	struct runtime_stamp st;
	struct runtime_stamp_obj now[RUNTIME_LAYOUT_MAX];
	int rfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rfd < 0) {
		snprintf(why, wl, errno == ENOENT ? "root missing" : "root not a directory");
		return 0;
	}
	int r = runtime_stamp_read(pfd, name, &st);
	if (r < 0)
		snprintf(why, wl, r == -ENOENT ? "no stamp" : "stamp unreadable");
	else if (strcmp(st.plan, plan))
		snprintf(why, wl, "plan changed");
	else if (st.n_obj != RUNTIME_N_LAYOUT + 1)
		snprintf(why, wl, "stamp objects incomplete");
	else if (runtime_collect(rfd, now, why, wl) == 0) {
		for (size_t i = 0; i < st.n_obj; i++) {
			if (memcmp(&now[i], &st.obj[i], sizeof(now[i]))) {
				snprintf(why, wl, "%s identity changed", runtime_obj_rel(i));
				close(rfd);
				return 0;
			}
		}
		*rfd_out = rfd;
		return 1;
	}
	close(rfd);
	return 0;
}

/* Make leaf in dfd a directory owned by us, mode 0700, and open it.
 *
 * Provisioning runs under the shared lease, possibly in several runs at
 * once, so it only ever converges: it never removes anything a concurrent
 * run could have accepted (a private directory of ours), only objects no
 * run would use: a non-directory is unlinked (unlinkat never follows a
 * symlink), a foreign directory is renamed to a tombstone and deleted. */
static int runtime_ensure_dir(int dfd, const char *leaf, int pfd, const char *name, int *out)
{
	for (int tries = 0; tries < 8; tries++) {
		struct stat s;
		if (mkdirat(dfd, leaf, RUNTIME_DIR_MODE) < 0 && errno != EEXIST)
			return -errno;
		int fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			if (errno != ELOOP && errno != ENOTDIR)
				return -errno;
			if (unlinkat(dfd, leaf, 0) < 0 && errno != ENOENT)
				return -errno;
			continue;
		}
		if (fstat(fd, &s) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (s.st_uid != geteuid()) {
			char tomb[NAME_MAX + 1];
			close(fd);
			int r = runtime_unique_name(tomb, sizeof(tomb), name, "tomb");
			if (r < 0)
				return r;
			if (renameat(dfd, leaf, pfd, tomb) < 0 && errno != ENOENT)
				return -errno;
			(void)runtime_remove_tree(pfd, tomb); /* leftovers: gc */
			continue;
		}
		if ((s.st_mode & 07777) != RUNTIME_DIR_MODE && fchmod(fd, RUNTIME_DIR_MODE) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		*out = fd;
		return 0;
	}
	return -EAGAIN;
}

static int runtime_provision(int pfd, const char *name, int *rfd_out)
{
	int rfd, r;
	r = runtime_ensure_dir(pfd, name, pfd, name, &rfd);
	if (r < 0)
		return r;
	for (size_t i = 0; i < RUNTIME_N_LAYOUT; i++) {
		const char *rel = runtime_layout[i], *slash = strrchr(rel, '/');
		int dfd = rfd, sfd;
		if (slash) {
			char head[64];
			size_t hl = (size_t)(slash - rel);
			memcpy(head, rel, hl);
			head[hl] = '\0';
			/* the layout is at most two deep and head was ensured earlier */
			dfd = openat(rfd, head, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (dfd < 0) {
				r = -errno;
				goto fail;
			}
		}
		r = runtime_ensure_dir(dfd, slash ? slash + 1 : rel, pfd, name, &sfd);
		if (dfd != rfd)
			close(dfd);
		if (r < 0)
			goto fail;
		close(sfd);
	}
	*rfd_out = rfd;
	return 0;
fail:
	close(rfd);
	return r;
}

/* ---------------------------------------------------------------- acquire */

void runtime_root_init(struct runtime_root *r)
{
	memset(r, 0, sizeof(*r));
	r->root_fd = -1;
	r->lease_fd = -1;
}

void runtime_release(struct runtime_root *r)
{
	if (r->root_fd >= 0)
		close(r->root_fd);
	/* closing the only descriptor of the open file description drops the
	 * flock; the command never had one (O_CLOEXEC) */
	if (r->lease_fd >= 0)
		close(r->lease_fd);
	r->root_fd = -1;
	r->lease_fd = -1;
}

static int runtime_join(char *dst, const char *a, const char *b)
{
	char sep = runtime_sep();
	size_t al = strlen(a);
	int n = (al > 0 && a[al - 1] == sep) ? snprintf(dst, PATH_MAX, "%s%s", a, b)
					     : snprintf(dst, PATH_MAX, "%s%c%s", a, sep, b);
	return (n < 0 || n >= PATH_MAX) ? -ENAMETOOLONG : 0;
}

/* Canonical form of f with its last component taken literally, not
 * resolved.  Security: the default fallback lives in the world-writable
 * /var/tmp, where anyone can plant a symlink under our name; resolving it
 * would move our parent into a directory of the planter's choosing.  Taken
 * literally, runtime_open_parent()'s O_NOFOLLOW refuses such a symlink. */
static int runtime_canonicalize_dir_of(const char *f, char out[PATH_MAX])
{
	char head[PATH_MAX], dir[PATH_MAX], cdir[PATH_MAX];
	char sep = runtime_sep();
	size_t n = strlen(f);
	while (n > 1 && f[n - 1] == sep)
		n--;
	if (n >= sizeof(head))
		return -ENAMETOOLONG;
	memcpy(head, f, n);
	head[n] = '\0';
	char *slash = strrchr(head, sep);
	const char *leaf = slash ? slash + 1 : head;
	if (!*leaf || !strcmp(leaf, ".") || !strcmp(leaf, ".."))
		return runtime_canonicalize(f, out, PATH_MAX);
	if (slash == head || (slash && slash[-1] == ':')) /* "/" or "C:\" */
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - head + 1), head);
	else if (slash) {
		*slash = '\0';
		snprintf(dir, sizeof(dir), "%s", head);
	} else
		snprintf(dir, sizeof(dir), ".");
	int r = runtime_canonicalize(dir, cdir, sizeof(cdir));
	return r < 0 ? r : runtime_join(out, cdir, leaf);
}

/* Pick the parent: the configured one, or the fallback when the root would
 * overlap the workspace (inside it, or containing it: eviction would then
 * delete workspace files). */
static int runtime_place(const struct runtime_config *c, struct runtime_root *out)
{
	char fb[PATH_MAX];
	const struct platform_runtime_ops *o = platform_runtime_ops();
	int r = runtime_canonicalize(c->parent, out->parent, sizeof(out->parent));
	if (r < 0)
		return r;
	if ((r = runtime_join(out->root, out->parent, out->name)) < 0)
		return r;
	if (!runtime_within(out->root, out->workspace) && !runtime_within(out->workspace, out->root))
		return 0;
	const char *f = c->fallback_parent;
	if (!f && o) {
		if ((r = o->fallback_parent(fb, sizeof(fb))) < 0)
			return r;
		f = fb;
	} else if (!f) {
		snprintf(fb, sizeof(fb), "/var/tmp/sandproof-runtime-%lu", (unsigned long)geteuid());
		f = fb;
	}
	if ((r = runtime_canonicalize_dir_of(f, out->parent)) < 0 ||
	    (r = runtime_join(out->root, out->parent, out->name)) < 0)
		return r;
	if (runtime_within(out->root, out->workspace) || runtime_within(out->workspace, out->root))
		return -EINVAL;
	out->private_root = true;
	return 0;
}

int runtime_acquire(const struct runtime_config *c, const char *workspace,
		    struct runtime_root *out, struct runtime_report *rep)
{
	struct runtime_stamp_obj obj[RUNTIME_LAYOUT_MAX];
	char plan[65], why[128];
	int pfd = -1, r;

	memset(rep, 0, sizeof(*rep));
	runtime_root_init(out);
	if (!c || !c->parent || !workspace)
		return -EINVAL;
	if ((r = runtime_canonicalize(workspace, out->workspace, sizeof(out->workspace))) < 0)
		return r;
	runtime_derive_name(out->workspace, out->name);
	if ((r = runtime_place(c, out)) < 0)
		return r;
	if ((r = runtime_join(out->tmp, out->root, "tmp")) < 0 ||
	    (r = runtime_join(out->cache, out->root, "cache")) < 0 ||
	    (r = runtime_join(out->data, out->root, "data")) < 0)
		return r;
	for (size_t i = 0; i < sizeof(runtime_envmap) / sizeof(runtime_envmap[0]); i++) {
		out->env[i].key = runtime_envmap[i].key;
		if ((r = runtime_join(out->env[i].value, out->root, runtime_envmap[i].rel)) < 0)
			return r;
		out->n_env = i + 1;
	}
	if ((r = runtime_open_parent(out->parent, true, &pfd)) < 0)
		return r;
	/* The lease comes before any look at the root: from here on no
	 * evictor can rename it away until runtime_release(). */
	if ((r = runtime_lease_lock(pfd, out->name, LOCK_SH, &out->lease_fd)) < 0)
		goto fail;
	runtime_plan(out->workspace, plan);
	if (!runtime_verify(pfd, out->name, plan, &out->root_fd, why, sizeof(why))) {
		rep->reprovisioned = true;
		snprintf(rep->reprovision_reason, sizeof(rep->reprovision_reason), "%s", why);
		/* a concurrent provisioner may still be converging the same
		 * objects: provision until what we stamp is what we made */
		for (int attempt = 0;; attempt++) {
			if ((r = runtime_provision(pfd, out->name, &out->root_fd)) < 0)
				goto fail;
			if ((r = runtime_collect(out->root_fd, obj, why, sizeof(why))) == 0)
				break;
			close(out->root_fd);
			out->root_fd = -1;
			if (attempt == 3)
				goto fail;
		}
	} else if ((r = runtime_collect(out->root_fd, obj, why, sizeof(why))) < 0) {
		goto fail;
	}
	/* Stamp what is there now (after provisioning, the fresh objects),
	 * which also records the last use. */
	if ((r = runtime_stamp_write(pfd, out->name, plan, obj, RUNTIME_N_LAYOUT + 1)) < 0)
		goto fail;
	rep->evict_error = runtime_evict_others(pfd, c, out->name, false, rep);
	close(pfd);
	return 0;
fail:
	close(pfd);
	runtime_release(out);
	return r;
}
