/* protect.c - protected metadata: the plan, the create monitor and cleanup
 * (contracts and limits in protect.h).
 *
 * Every lookup here is one component at a time, relative to a descriptor,
 * with O_NOFOLLOW: a name the sandboxed command controls is never resolved
 * through a symlink it planted, neither while planning, nor while the
 * monitor descends into new directories, nor while cleanup deletes. */
#include "protect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define WALK_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)

/* IN_Q_OVERFLOW, IN_IGNORED and IN_UNMOUNT are always delivered. */
#define WATCH_MASK                                                            \
	(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_MOVE_SELF | IN_DELETE_SELF)

/* ---- small helpers ---------------------------------------------------- */

/* a + "/" + b, without doubling the slash when a is "/". */
static char *path_join(const char *a, const char *b)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a, strcmp(a, "/") ? "/" : "", b) < 0)
		return NULL;
	return s;
}

/* Is p a proper directory prefix of t ("/r/.git" of "/r/.git/hooks")?
 * Returns the offset in t of the component after p, or 0 when it is not. */
static size_t path_below(const char *p, const char *t)
{
	size_t n = strlen(p);

	if (n == 1 && p[0] == '/')
		return t[0] == '/' && t[1] ? 1 : 0;
	if (strncmp(p, t, n) != 0 || t[n] != '/' || !t[n + 1])
		return 0;
	return n + 1;
}

static int grow(void *vp, size_t *cap, size_t n, size_t size)
{
	void **v = vp;
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	nv = reallocarray(*v, ncap, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* A relative name is clean: non-empty components, none "." or "..". */
static bool name_valid(const char *name)
{
	const char *p = name, *e;
	size_t n;

	if (!*name || *name == '/')
		return false;
	for (;;) {
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!e)
			return true;
		p = e + 1;
	}
}

/* ---- the plan ----------------------------------------------------------- */

struct plan_build {
	struct protect_plan *p;
	size_t cap_ro, cap_pin, cap_watch;
};

/* Open the root by walking from "/" one component at a time: a symlink
 * anywhere in it is refused, so what is protected is the directory the
 * request names, not wherever a link points today. */
static int open_root(const char *root, char *err)
{
	char comp[PROTECT_PATH_MAX];
	const char *p = root + 1;
	struct stat st;
	int fd, nfd;
	size_t n;

	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (*p) {
		n = strcspn(p, "/");
		if (n >= sizeof(comp)) {
			close(fd);
			snprintf(err, PROTECT_ERR_MAX, "%s: %s", root,
				 strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		nfd = openat(fd, comp, WALK_FLAGS);
		if (nfd < 0 || fstat(nfd, &st) != 0) {
			int e = errno;

			if (nfd >= 0)
				close(nfd);
			close(fd);
			snprintf(err, PROTECT_ERR_MAX, "%s: %s", root,
				 strerror(e));
			return -e;
		}
		close(fd);
		fd = nfd;
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, PROTECT_ERR_MAX,
				 "%.*s: write root component is a symlink",
				 (int)(p + n - root), root);
			close(fd);
			return -ELOOP;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, PROTECT_ERR_MAX,
				 "%.*s: not a directory", (int)(p + n - root),
				 root);
			close(fd);
			return -ENOTDIR;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return fd;
}

/* Takes ownership of path and fd, also on failure. */
static int add_ro(struct plan_build *b, char *path, int fd, bool is_dir)
{
	struct protect_plan *p = b->p;

	for (size_t i = 0; i < p->n_ro; i++)
		if (strcmp(p->ro[i].path, path) == 0) {
			free(path);
			close(fd);
			return 0;
		}
	if (grow(&p->ro, &b->cap_ro, p->n_ro, sizeof(*p->ro)) < 0) {
		free(path);
		close(fd);
		return -ENOMEM;
	}
	p->ro[p->n_ro++] = (struct protect_path){ path, fd, is_dir };
	return 0;
}

/* Does not take ownership: dups fd and copies path when the pin is new. */
static int add_pin(struct plan_build *b, const char *path, int fd)
{
	struct protect_plan *p = b->p;
	char *s;
	int nfd;

	for (size_t i = 0; i < p->n_pin; i++)
		if (strcmp(p->pin[i].path, path) == 0)
			return 0;
	if (grow(&p->pin, &b->cap_pin, p->n_pin, sizeof(*p->pin)) < 0)
		return -ENOMEM;
	s = strdup(path);
	if (!s)
		return -ENOMEM;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0) {
		free(s);
		return -errno;
	}
	p->pin[p->n_pin++] = (struct protect_path){ s, nfd, true };
	return 0;
}

static int add_watch_entry(struct plan_build *b, const char *dir, int dfd,
			   const char *name, const char *suffix,
			   const char *target)
{
	struct protect_plan *p = b->p;
	struct protect_watch w = { 0 };

	if (grow(&p->watch, &b->cap_watch, p->n_watch, sizeof(*p->watch)) < 0)
		return -ENOMEM;
	w.dir_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (w.dir_fd < 0)
		return -errno;
	w.dir = strdup(dir);
	w.name = strndup(name, strcspn(name, "/"));
	w.suffix = strdup(suffix);
	w.target = strdup(target);
	if (!w.dir || !w.name || !w.suffix || !w.target) {
		close(w.dir_fd);
		free(w.dir);
		free(w.name);
		free(w.suffix);
		free(w.target);
		return -ENOMEM;
	}
	p->watch[p->n_watch++] = w;
	return 0;
}

/* Walk one name from the root.  Each component is opened relative to the
 * previous one with O_NOFOLLOW and checked through the descriptor, so the
 * type seen is the type of the object held, not of whatever the name points
 * to a moment later. */
static int plan_name(struct plan_build *b, int rootfd, const char *name)
{
	struct protect_plan *p = b->p;
	char *cur = NULL, *next = NULL, *target = NULL;
	char comp[PROTECT_PATH_MAX];
	const char *c = name;
	int dfd = rootfd, fd = -1, r = 0;
	struct stat st;
	size_t n;

	cur = strdup(p->root);
	target = path_join(p->root, name);
	if (!cur || !target) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		n = strcspn(c, "/");
		if (n >= sizeof(comp)) {
			r = -ENAMETOOLONG;
			snprintf(p->err, sizeof(p->err), "%s: %s", target,
				 strerror(-r));
			goto out;
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		next = path_join(cur, comp);
		if (!next) {
			r = -ENOMEM;
			goto out;
		}
		fd = openat(dfd, comp, WALK_FLAGS);
		if (fd < 0 && errno == ENOENT) {
			r = add_watch_entry(b, cur, dfd, c, c[n] ? c + n + 1 : "",
					    target);
			goto out;
		}
		if (fd < 0 || fstat(fd, &st) != 0) {
			r = -errno;
			snprintf(p->err, sizeof(p->err), "%s: %s", next,
				 strerror(-r));
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			/* Refused, never followed: the link's target is
			 * chosen by whoever controls the workspace. */
			snprintf(p->err, sizeof(p->err),
				 "%s: protected path component is a symlink",
				 next);
			r = -ELOOP;
			goto out;
		}
		if (!c[n]) {
			r = add_ro(b, next, fd, S_ISDIR(st.st_mode));
			next = NULL;
			fd = -1;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			/* A file where a directory is needed: it can be
			 * replaced by a directory during the run, so the name
			 * is watched in its parent like a missing one. */
			r = add_watch_entry(b, cur, dfd, c, c + n + 1, target);
			goto out;
		}
		r = add_pin(b, next, fd);
		if (r < 0)
			goto out;
		if (dfd != rootfd)
			close(dfd);
		dfd = fd;
		fd = -1;
		free(cur);
		cur = next;
		next = NULL;
		c += n + 1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (dfd != rootfd)
		close(dfd);
	free(cur);
	free(next);
	free(target);
	return r;
}

/* A pin that is also bound read-only is already a mount point. */
static void plan_drop_ro_pins(struct protect_plan *p)
{
	size_t i, j, k = 0;

	for (i = 0; i < p->n_pin; i++) {
		for (j = 0; j < p->n_ro; j++)
			if (strcmp(p->pin[i].path, p->ro[j].path) == 0)
				break;
		if (j < p->n_ro) {
			free(p->pin[i].path);
			close(p->pin[i].fd);
			continue;
		}
		p->pin[k++] = p->pin[i];
	}
	p->n_pin = k;
}

int protect_plan(const char *root, const struct strv *names,
		 struct protect_plan *out)
{
	struct plan_build b = { .p = out };
	int rootfd, r = 0;

	memset(out, 0, sizeof(*out));
	if (!root || root[0] != '/' || (strlen(root) > 1 &&
	    (root[strlen(root) - 1] == '/' || !name_valid(root + 1)))) {
		snprintf(out->err, sizeof(out->err), "%s: not an absolute "
			 "clean path", root ? root : "(null)");
		return -EINVAL;
	}
	for (size_t i = 0; i < names->n; i++)
		if (!name_valid(names->v[i]) ||
		    names->v[i][strlen(names->v[i]) - 1] == '/') {
			snprintf(out->err, sizeof(out->err),
				 "protected name \"%s\": not a clean relative "
				 "path", names->v[i]);
			return -EINVAL;
		}
	out->root = strdup(root);
	if (!out->root)
		return -ENOMEM;
	rootfd = open_root(root, out->err);
	if (rootfd < 0) {
		r = rootfd;
		goto fail;
	}
	for (size_t i = 0; i < names->n && r == 0; i++)
		r = plan_name(&b, rootfd, names->v[i]);
	close(rootfd);
	if (r < 0)
		goto fail;
	plan_drop_ro_pins(out);
	return 0;
fail:
	if (r == -ENOMEM && !out->err[0])
		snprintf(out->err, sizeof(out->err), "out of memory");
	{
		char err[PROTECT_ERR_MAX];

		memcpy(err, out->err, sizeof(err));
		protect_plan_free(out);
		memcpy(out->err, err, sizeof(err));
	}
	return r;
}

void protect_plan_free(struct protect_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_ro; i++) {
		free(p->ro[i].path);
		close(p->ro[i].fd);
	}
	for (size_t i = 0; i < p->n_pin; i++) {
		free(p->pin[i].path);
		close(p->pin[i].fd);
	}
	for (size_t i = 0; i < p->n_watch; i++) {
		struct protect_watch *w = &p->watch[i];

		close(w->dir_fd);
		free(w->dir);
		free(w->name);
		free(w->suffix);
		free(w->target);
	}
	free(p->ro);
	free(p->pin);
	free(p->watch);
	free(p->root);
	memset(p, 0, sizeof(*p));
}

/* ---- the monitor -------------------------------------------------------- */

/* One inotify watch.  A static node is a watch parent from a plan: it
 * existed before the run, is pinned inside the sandbox, and its fd (a dup of
 * the plan's) is kept for scans and cleanup.  A dynamic node is a directory
 * the command created on the way to a protected name: it keeps no fd (so a
 * removed directory's watch goes away with it), only its identity and the
 * path it had when it was watched, relative to its static base. */
struct mon_node {
	int wd;
	bool is_static;
	char *path; /* absolute, as of when the watch was added */
	int fd;     /* static: O_PATH of the directory; dynamic: -1 */
	size_t base;     /* dynamic: index of the static node it lies under */
	dev_t dev;       /* dynamic: identity of the watched directory */
	ino_t ino;
};

/* One watch entry of a plan, kept for rescans and cleanup. */
struct mon_entry {
	size_t node;  /* its static node */
	char *name;   /* first missing component */
	char *rel;    /* name [+ "/" + suffix] */
};

struct protect_mon {
	int ifd;
	struct mon_node *node;
	size_t n_node, cap_node, n_dynamic;
	struct mon_entry *ent;
	size_t n_ent, cap_ent;
	char **target; /* protected paths not fully present at plan time */
	size_t n_target, cap_target;
	char **seen;   /* violations already reported, "C/path" or "L/path" */
	size_t n_seen, cap_seen;
	/* the sink of the call in progress */
	struct protect_event *ev;
	size_t ev_max;
	int count;
	int first_lost; /* positive errno of the first LOST, for start */
	union {
		struct inotify_event align;
		char buf[64 * 1024];
	} rd;
};

#define SEEN_MAX 1024

/* Record a violation (CREATE, OVERFLOW, LOST) or a cleanup result.  The
 * same CREATE or LOST path is counted once until cleanup forgets it; when
 * the seen set is full, paths are reported again rather than dropped. */
static void mon_emit(struct protect_mon *m, enum protect_ev_kind kind, int err,
		     const char *path)
{
	if (kind == PROTECT_EV_CREATE || kind == PROTECT_EV_LOST) {
		char *key;

		for (size_t i = 0; i < m->n_seen; i++)
			if (m->seen[i][0] == (kind == PROTECT_EV_CREATE ?
					       'C' : 'L') &&
			    strcmp(m->seen[i] + 2, path) == 0)
				return;
		if (m->n_seen < SEEN_MAX &&
		    grow(&m->seen, &m->cap_seen, m->n_seen,
			 sizeof(*m->seen)) == 0 &&
		    asprintf(&key, "%c/%s", kind == PROTECT_EV_CREATE ? 'C' :
			     'L', path) >= 0)
			m->seen[m->n_seen++] = key;
	}
	if (kind == PROTECT_EV_LOST && !m->first_lost)
		m->first_lost = err ? err : EIO;
	if ((size_t)m->count < m->ev_max) {
		struct protect_event *e = &m->ev[m->count];

		e->kind = kind;
		e->err = err;
		snprintf(e->path, sizeof(e->path), "%s", path);
	}
	if (m->count < INT32_MAX)
		m->count++;
}

static void mon_forget_seen(struct protect_mon *m)
{
	for (size_t i = 0; i < m->n_seen; i++)
		free(m->seen[i]);
	m->n_seen = 0;
}

static struct mon_node *mon_find(struct protect_mon *m, int wd)
{
	for (size_t i = 0; i < m->n_node; i++)
		if (m->node[i].wd == wd)
			return &m->node[i];
	return NULL;
}

/* Watch the directory fd refers to.  Through /proc/self/fd the watch lands
 * on the object the caller opened and checked, never on whatever its name
 * resolves to now.  The same inode gives the same wd, so a directory seen
 * twice (moved away and back) keeps one node with its newest path.  Returns
 * the node index or -errno. */
static int mon_watch(struct protect_mon *m, int fd, const char *path,
		     bool is_static, size_t base)
{
	char proc[64];
	struct mon_node *nd;
	struct stat st;
	int wd;

	if (fstat(fd, &st) != 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(m->ifd, proc, WATCH_MASK);
	if (wd < 0)
		return -errno;
	nd = mon_find(m, wd);
	if (nd) {
		if (!nd->is_static) {
			char *s = strdup(path);

			if (!s)
				return -ENOMEM;
			free(nd->path);
			nd->path = s;
			nd->base = base;
		}
		return (int)(nd - m->node);
	}
	if (!is_static && m->n_dynamic >= PROTECT_MAX_DYNAMIC) {
		inotify_rm_watch(m->ifd, wd);
		return -ENOSPC;
	}
	if (grow(&m->node, &m->cap_node, m->n_node, sizeof(*m->node)) < 0)
		goto nomem;
	nd = &m->node[m->n_node];
	*nd = (struct mon_node){ .wd = wd, .is_static = is_static, .fd = -1,
				 .base = base, .dev = st.st_dev,
				 .ino = st.st_ino };
	nd->path = strdup(path);
	if (!nd->path)
		goto nomem;
	if (is_static) {
		nd->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (nd->fd < 0) {
			int e = errno;

			free(nd->path);
			inotify_rm_watch(m->ifd, wd);
			return -e;
		}
		nd->base = m->n_node;
	} else {
		m->n_dynamic++;
	}
	return (int)m->n_node++;
nomem:
	inotify_rm_watch(m->ifd, wd);
	return -ENOMEM;
}

static void mon_drop(struct protect_mon *m, struct mon_node *nd)
{
	size_t i = (size_t)(nd - m->node);

	/* Static nodes are all added first and never dropped, so they keep
	 * their indices (entries and dynamic nodes refer to them); a dropped
	 * dynamic node is replaced by the last node, which is dynamic too. */
	free(nd->path);
	m->n_dynamic--;
	m->node[i] = m->node[--m->n_node];
}

static void mon_arrive(struct protect_mon *m, size_t base, int pfd,
		       const char *ppath, const char *name);

/* Scan a directory that is already watched for the next component of
 * every protected path below it.  Watch first, then scan: a component
 * created after the watch was added gives an event, one created before is
 * found here; a reported path is counted once, so both seeing it is fine. */
static void mon_scan(struct protect_mon *m, size_t base, int dfd,
		     const char *dpath)
{
	struct stat st;
	size_t off, offj, j, n;
	char *comp;

	for (size_t i = 0; i < m->n_target; i++) {
		const char *t = m->target[i];

		off = path_below(dpath, t);
		if (!off)
			continue;
		n = strcspn(t + off, "/");
		for (j = 0; j < i; j++) {
			offj = path_below(dpath, m->target[j]);
			if (offj && strcspn(m->target[j] + offj, "/") == n &&
			    strncmp(m->target[j] + offj, t + off, n) == 0)
				break;
		}
		if (j < i)
			continue; /* that component was handled already */
		comp = strndup(t + off, n);
		if (!comp) {
			mon_emit(m, PROTECT_EV_LOST, ENOMEM, dpath);
			return;
		}
		if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0)
			mon_arrive(m, base, dfd, dpath, comp);
		else if (errno != ENOENT && errno != ENOTDIR)
			mon_emit(m, PROTECT_EV_LOST, errno, dpath);
		free(comp);
	}
}

/* name, on the way to a protected path, appeared in the directory pfd.
 * Open it without following: a symlink there is a violation (through it
 * the protected path would resolve wherever the command chose), a
 * non-directory cannot hold the rest and is ignored (it will be seen again
 * if a directory is renamed over it), a directory is watched then scanned. */
static void mon_descend(struct protect_mon *m, size_t base, int pfd,
			const char *path, const char *name)
{
	struct stat st;
	int fd, r;

	fd = openat(pfd, name, WALK_FLAGS);
	if (fd < 0) {
		/* Gone already: if it comes back, that is a new event. */
		if (errno != ENOENT && errno != ENOTDIR)
			mon_emit(m, PROTECT_EV_LOST, errno, path);
		return;
	}
	if (fstat(fd, &st) != 0) {
		mon_emit(m, PROTECT_EV_LOST, errno, path);
	} else if (S_ISLNK(st.st_mode)) {
		mon_emit(m, PROTECT_EV_CREATE, 0, path);
	} else if (S_ISDIR(st.st_mode)) {
		r = mon_watch(m, fd, path, false, base);
		if (r < 0)
			mon_emit(m, PROTECT_EV_LOST, -r, path);
		else
			mon_scan(m, base, fd, path);
	}
	close(fd);
}

/* name appeared in ppath.  The verdict is taken from the name alone, before
 * any lookup, so an object already removed again is still a violation.
 * pfd < 0: the parent cannot be looked into (it moved away); only the
 * verdict by name is taken. */
static void mon_arrive(struct protect_mon *m, size_t base, int pfd,
		       const char *ppath, const char *name)
{
	bool below = false;
	char *path;

	path = path_join(ppath, name);
	if (!path) {
		mon_emit(m, PROTECT_EV_LOST, ENOMEM, ppath);
		return;
	}
	for (size_t i = 0; i < m->n_target; i++) {
		if (strcmp(m->target[i], path) == 0)
			mon_emit(m, PROTECT_EV_CREATE, 0, path);
		else if (path_below(path, m->target[i]))
			below = true;
	}
	if (below && pfd >= 0)
		mon_descend(m, base, pfd, path, name);
	free(path);
}

/* Reopen a dynamic node's directory by its path below its static base,
 * without following, and only if it is still the watched directory: if it
 * was moved away, what is at its old path now is another object, which has
 * (or will get) its own create event and watch.  Returns an O_PATH fd or
 * -1. */
static int mon_reopen(struct protect_mon *m, const struct mon_node *nd)
{
	const struct mon_node *b = &m->node[nd->base];
	size_t off = path_below(b->path, nd->path), n;
	const char *c = nd->path + off;
	int dfd = b->fd, fd = -1;
	struct stat st;
	char *comp;

	if (!off || b->fd < 0)
		return -1;
	for (;;) {
		n = strcspn(c, "/");
		comp = strndup(c, n);
		if (!comp)
			break;
		fd = openat(dfd, comp, WALK_FLAGS | O_DIRECTORY);
		free(comp);
		if (dfd != b->fd)
			close(dfd);
		if (fd < 0 || !c[n])
			break;
		dfd = fd;
		c += n + 1;
	}
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != nd->dev ||
			st.st_ino != nd->ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Every watch entry again, from its static parent: after an overflow (any
 * event may be lost) and at start. */
static void mon_rescan(struct protect_mon *m)
{
	struct stat st;

	for (size_t i = 0; i < m->n_ent; i++) {
		const struct mon_entry *e = &m->ent[i];
		const struct mon_node *nd = &m->node[e->node];

		if (fstatat(nd->fd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			mon_arrive(m, e->node, nd->fd, nd->path, e->name);
		else if (errno != ENOENT)
			mon_emit(m, PROTECT_EV_LOST, errno, nd->path);
	}
}

static void mon_event(struct protect_mon *m, const struct inotify_event *e)
{
	struct mon_node *nd;
	size_t base;
	char *ppath;
	int pfd;

	if (e->mask & IN_Q_OVERFLOW) {
		/* Events were dropped: some create may be unseen.  Fail
		 * closed (a violation of unknown path), then rescan so the
		 * watches on new ancestors are complete again. */
		mon_emit(m, PROTECT_EV_OVERFLOW, 0, "");
		mon_rescan(m);
		return;
	}
	nd = mon_find(m, e->wd);
	if (!nd)
		return;
	if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF |
		       IN_UNMOUNT)) {
		if (nd->is_static) {
			/* A pinned watch parent cannot move from inside the
			 * sandbox; if it moved, went away or lost its watch
			 * anyway, monitoring is incomplete: fail closed. */
			mon_emit(m, PROTECT_EV_LOST,
				 e->mask & IN_MOVE_SELF ? ESTALE :
				 e->mask & IN_UNMOUNT ? ENODEV : ENOENT,
				 nd->path);
			if (e->mask & IN_IGNORED)
				nd->wd = -1;
		} else if (e->mask & IN_IGNORED) {
			mon_drop(m, nd);
		}
		/* A dynamic directory moved away keeps its watch and its
		 * old path: a create in it is then reported under the old
		 * path (a false positive, never a miss; see protect.h). */
		return;
	}
	if (!(e->mask & (IN_CREATE | IN_MOVED_TO)) || !e->len)
		return;
	ppath = strdup(nd->path); /* nd may move when nodes are added */
	if (!ppath) {
		mon_emit(m, PROTECT_EV_LOST, ENOMEM, nd->path);
		return;
	}
	base = nd->base;
	pfd = nd->is_static ? nd->fd : mon_reopen(m, nd);
	mon_arrive(m, base, pfd, ppath, e->name);
	if (pfd >= 0 && pfd != m->node[base].fd)
		close(pfd);
	free(ppath);
}

static int mon_add_entry(struct protect_mon *m, const struct protect_watch *w)
{
	struct mon_entry e = { 0 };
	size_t i;
	int r;

	for (i = 0; i < m->n_target; i++)
		if (strcmp(m->target[i], w->target) == 0)
			break;
	if (i == m->n_target) {
		if (grow(&m->target, &m->cap_target, m->n_target,
			 sizeof(*m->target)) < 0 ||
		    !(m->target[m->n_target] = strdup(w->target)))
			return -ENOMEM;
		m->n_target++;
	}
	r = mon_watch(m, w->dir_fd, w->dir, true, 0);
	if (r < 0)
		return r;
	e.node = (size_t)r;
	e.name = strdup(w->name);
	if (!e.name || asprintf(&e.rel, "%s%s%s", w->name,
				w->suffix[0] ? "/" : "", w->suffix) < 0) {
		free(e.name);
		return -ENOMEM;
	}
	if (grow(&m->ent, &m->cap_ent, m->n_ent, sizeof(*m->ent)) < 0) {
		free(e.name);
		free(e.rel);
		return -ENOMEM;
	}
	m->ent[m->n_ent++] = e;
	return 0;
}

int protect_monitor_start(const struct protect_plan *plans, size_t n,
			  struct protect_mon **out)
{
	struct protect_mon *m;
	int r = 0;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->ifd < 0) {
		r = -errno;
		free(m);
		return r;
	}
	/* Every static node first (their indices must stay stable, see
	 * mon_drop), then the scan that may add dynamic ones. */
	for (size_t i = 0; i < n && r == 0; i++)
		for (size_t j = 0; j < plans[i].n_watch && r == 0; j++)
			r = mon_add_entry(m, &plans[i].watch[j]);
	if (r == 0) {
		mon_rescan(m);
		if (m->first_lost)
			r = -m->first_lost;
		else if (m->count)
			r = -ESTALE;
	}
	mon_forget_seen(m);
	m->count = 0;
	m->first_lost = 0;
	if (r < 0) {
		protect_monitor_free(m);
		return r;
	}
	*out = m;
	return 0;
}

int protect_monitor_fd(struct protect_mon *m)
{
	return m->ifd;
}

/* Bounded work per call: a command creating names in a loop must not keep
 * the supervisor from its other descriptors (timeouts, capture). */
#define SERVICE_READS 16

int protect_monitor_service(struct protect_mon *m, struct protect_event *ev,
			    size_t max)
{
	ssize_t n, off;
	int r = 0;

	m->ev = ev;
	m->ev_max = ev ? max : 0;
	m->count = 0;
	for (int reads = 0; reads < SERVICE_READS; reads++) {
		n = read(m->ifd, m->rd.buf, sizeof(m->rd.buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EAGAIN)
				r = -errno;
			break;
		}
		for (off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
			const struct inotify_event *e =
				(const void *)(m->rd.buf + off);

			mon_event(m, e);
			off += (ssize_t)sizeof(*e) + e->len;
		}
	}
	m->ev = NULL;
	m->ev_max = 0;
	return m->count ? m->count : r;
}

/* ---- cleanup ------------------------------------------------------------ */

/* Open name in dfd as a directory for reading, never through a symlink.
 * The checked O_PATH descriptor is reopened through "." so the directory
 * read is the one checked.  A directory the command made unsearchable for
 * us is given back owner rwx first (through /proc/self/fd: the held object,
 * not a name); it is about to be deleted anyway.  -ENOTDIR: not a
 * directory (a symlink included). */
static int open_dir_nofollow(int dfd, const char *name)
{
	char proc[64];
	struct stat st;
	int pfd, fd, e;

	pfd = openat(dfd, name, WALK_FLAGS);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) != 0) {
		e = errno;
		close(pfd);
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(pfd);
		return -ENOTDIR;
	}
	if ((st.st_mode & S_IRWXU) != S_IRWXU) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
		(void)chmod(proc, (st.st_mode & 07777) | S_IRWXU);
	}
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	close(pfd);
	return fd < 0 ? -e : fd;
}

/* Move name (in from) into dir to under a fresh name, never replacing. */
static int move_up(int from, const char *name, int to, unsigned long *gen)
{
	char tmp[64];
	struct stat st;

	for (int tries = 0; tries < 1000; tries++) {
		snprintf(tmp, sizeof(tmp), ".sp-protect-rm.%lu", (*gen)++);
		if (renameat2(from, name, to, tmp, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno != EINVAL)
			return -errno;
		/* No RENAME_NOREPLACE on this filesystem: check, then
		 * rename.  Only reached after the run, with nobody to race. */
		if (fstatat(to, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		return renameat(from, name, to, tmp) == 0 ? 0 : -errno;
	}
	return -EEXIST;
}

/* Remove the entries of the directory cfd (named name in fd) that can go
 * directly, and move each non-empty subdirectory up into fd, so every pass
 * of empty_dir() shortens the tree by one level with two descriptors open
 * at most, however deep the command made it.  Returns 1 on progress. */
static int hoist(int fd, const char *name, unsigned long *gen)
{
	struct dirent *de;
	int cfd, moved = 0, err = 0;
	DIR *d;

	cfd = open_dir_nofollow(fd, name);
	if (cfd == -ENOENT)
		return 1;
	if (cfd < 0)
		return cfd;
	d = fdopendir(cfd);
	if (!d) {
		err = errno;
		close(cfd);
		return -err;
	}
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (unlinkat(cfd, n, 0) == 0 ||
		    ((errno == EISDIR || errno == EPERM) &&
		     unlinkat(cfd, n, AT_REMOVEDIR) == 0)) {
			moved++;
			continue;
		}
		if (errno == ENOTEMPTY || errno == EEXIST) {
			int r = move_up(cfd, n, fd, gen);

			if (r == 0)
				moved++;
			else if (!err)
				err = -r;
		} else if (!err) {
			err = errno;
		}
	}
	closedir(d);
	if (unlinkat(fd, name, AT_REMOVEDIR) == 0)
		moved++;
	return moved ? 1 : -(err ? err : EIO);
}

#define EMPTY_PASSES (1u << 20)

/* Empty the directory fd.  unlinkat() never follows a symlink: a link in
 * the tree is removed itself and its target is never touched. */
static int empty_dir(int fd)
{
	unsigned long gen = 0;
	struct dirent *de;
	DIR *d;

	for (unsigned pass = 0; pass < EMPTY_PASSES; pass++) {
		size_t found = 0, done = 0;
		int dfd, err = 0;

		dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (dfd < 0)
			return -errno;
		d = fdopendir(dfd);
		if (!d) {
			err = errno;
			close(dfd);
			return -err;
		}
		rewinddir(d);
		while ((de = readdir(d))) {
			const char *n = de->d_name;
			int r;

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			found++;
			if (unlinkat(fd, n, 0) == 0 || errno == ENOENT ||
			    ((errno == EISDIR || errno == EPERM) &&
			     (unlinkat(fd, n, AT_REMOVEDIR) == 0 ||
			      errno == ENOENT))) {
				done++;
				continue;
			}
			if (errno != ENOTEMPTY && errno != EEXIST) {
				if (!err)
					err = errno;
				continue;
			}
			r = hoist(fd, n, &gen);
			if (r > 0)
				done++;
			else if (!err)
				err = -r;
		}
		closedir(d);
		if (!found)
			return 0;
		if (!done)
			return -(err ? err : EIO);
	}
	return -EAGAIN;
}

/* Remove name in dfd, whatever it is, never following a symlink.
 * Returns 1 when something was removed, 0 when nothing was there. */
static int remove_tree(int dfd, const char *name)
{
	int fd, r;

	fd = open_dir_nofollow(dfd, name);
	if (fd == -ENOENT)
		return 0;
	if (fd == -ENOTDIR) {
		if (unlinkat(dfd, name, 0) == 0)
			return 1;
		return errno == ENOENT ? 0 : -errno;
	}
	if (fd < 0)
		return fd;
	r = empty_dir(fd);
	close(fd);
	if (r < 0)
		return r;
	if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 1;
	return -errno;
}

/* Walk one entry's name from its static parent without following.  The
 * components from the entry's name on were absent (or not directories) at
 * plan time, so anything at the protected name is new and goes, and a
 * symlink on the way is new too and goes (the link, not its target).
 * Directories on the way are left (protect.h: cleanup policy). */
static void mon_clean_entry(struct protect_mon *m, const struct mon_entry *e)
{
	const struct mon_node *b = &m->node[e->node];
	char *path = NULL, *next = NULL, *comp = NULL;
	const char *c = e->rel;
	int dfd = b->fd, fd, r;
	struct stat st;
	size_t n;

	path = strdup(b->path);
	if (!path)
		goto nomem;
	for (;;) {
		n = strcspn(c, "/");
		free(comp);
		comp = strndup(c, n);
		free(next);
		next = comp ? path_join(path, comp) : NULL;
		if (!next)
			goto nomem;
		if (!c[n]) {
			r = remove_tree(dfd, comp);
			if (r > 0)
				mon_emit(m, PROTECT_EV_REMOVED, 0, next);
			else if (r < 0)
				mon_emit(m, PROTECT_EV_RESIDUE, -r, next);
			break;
		}
		fd = openat(dfd, comp, WALK_FLAGS);
		if (fd < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				mon_emit(m, PROTECT_EV_RESIDUE, errno, next);
			break;
		}
		if (fstat(fd, &st) != 0) {
			mon_emit(m, PROTECT_EV_RESIDUE, errno, next);
			close(fd);
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			if (!S_ISLNK(st.st_mode))
				break;
			if (unlinkat(dfd, comp, 0) == 0)
				mon_emit(m, PROTECT_EV_REMOVED, 0, next);
			else if (errno != ENOENT)
				mon_emit(m, PROTECT_EV_RESIDUE, errno, next);
			break;
		}
		if (dfd != b->fd)
			close(dfd);
		dfd = fd;
		free(path);
		path = next;
		next = NULL;
		c += n + 1;
	}
	goto out;
nomem:
	mon_emit(m, PROTECT_EV_RESIDUE, ENOMEM, b->path);
out:
	if (dfd != b->fd)
		close(dfd);
	free(path);
	free(next);
	free(comp);
}

int protect_monitor_cleanup(struct protect_mon *m, struct protect_event *ev,
			    size_t max)
{
	m->ev = ev;
	m->ev_max = ev ? max : 0;
	m->count = 0;
	for (size_t i = 0; i < m->n_ent; i++)
		mon_clean_entry(m, &m->ent[i]);
	/* What was removed may be created again, and that is a new
	 * violation to report. */
	mon_forget_seen(m);
	m->ev = NULL;
	m->ev_max = 0;
	return m->count;
}

void protect_monitor_free(struct protect_mon *m)
{
	if (!m)
		return;
	if (m->ifd >= 0)
		close(m->ifd);
	for (size_t i = 0; i < m->n_node; i++) {
		free(m->node[i].path);
		if (m->node[i].fd >= 0)
			close(m->node[i].fd);
	}
	for (size_t i = 0; i < m->n_ent; i++) {
		free(m->ent[i].name);
		free(m->ent[i].rel);
	}
	for (size_t i = 0; i < m->n_target; i++)
		free(m->target[i]);
	mon_forget_seen(m);
	free(m->seen);
	free(m->node);
	free(m->ent);
	free(m->target);
	free(m);
}
