/* protect_monitor.c - the create monitor: inotify watches on the watch
 * parents of the plans, decisions by name, watch-then-scan into new
 * ancestors (contract and limits in protect.h). */
#include "handoff.h"
#include "protect_int.h"

#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* IN_Q_OVERFLOW, IN_IGNORED and IN_UNMOUNT are always delivered. */
#define WATCH_MASK                                                            \
	(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_MOVE_SELF | IN_DELETE_SELF)

#define SEEN_MAX 1024

/* Contract in protect_int.h. */
void mon_emit(struct protect_mon *m, enum protect_ev_kind kind, int err,
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
		    protect_grow(&m->seen, &m->cap_seen, m->n_seen,
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

void mon_forget_seen(struct protect_mon *m)
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
		     const char *spelled, bool is_static, size_t base)
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
			char *s = strdup(path), *sp = spelled ? strdup(spelled) : NULL;

			if (!s || (spelled && !sp)) {
				free(s);
				return -ENOMEM;
			}
			free(nd->path);
			free(nd->spelled);
			nd->path = s;
			nd->spelled = sp;
			nd->base = base;
			nd->nc = m->node[base].nc;
		}
		return (int)(nd - m->node);
	}
	if (!is_static && m->n_dynamic >= PROTECT_MAX_DYNAMIC) {
		inotify_rm_watch(m->ifd, wd);
		return -ENOSPC;
	}
	if (protect_grow(&m->node, &m->cap_node, m->n_node, sizeof(*m->node)) < 0)
		goto nomem;
	nd = &m->node[m->n_node];
	*nd = (struct mon_node){ .wd = wd, .is_static = is_static, .fd = -1,
				 .base = base, .dev = st.st_dev,
				 .ino = st.st_ino };
	nd->path = strdup(path);
	nd->spelled = spelled ? strdup(spelled) : NULL;
	if (!nd->path || (spelled && !nd->spelled)) {
		free(nd->path);
		free(nd->spelled);
		goto nomem;
	}
	if (is_static) {
		nd->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (nd->fd < 0) {
			int e = errno;

			free(nd->path);
			free(nd->spelled);
			inotify_rm_watch(m->ifd, wd);
			return -e;
		}
		nd->base = m->n_node;
	} else {
		nd->nc = m->node[base].nc;
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
	free(nd->spelled);
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

		off = protect_path_below(dpath, t);
		if (!off)
			continue;
		n = strcspn(t + off, "/");
		for (j = 0; j < i; j++) {
			offj = protect_path_below(dpath, m->target[j]);
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

/* Every spelling of a directory, on a volume where each is an object of
 * its own (META-6, namecase.h): the command may create the next component
 * in any of them, and a watch holds one.  A spelling of path is a spelling
 * of each of its components below the static base, looked up one by one. */
struct spell_ctx {
	struct protect_mon *m;
	size_t base;
	const char *path;   /* what is watched, as the protected paths spell it */
	const char *rest;   /* its components after the one being spelled */
	int dfd;            /* where that one is looked up */
	char *spelled;      /* PROTECT_PATH_MAX: the spelled path so far */
	size_t len;         /* its length before this component */
	unsigned *budget;   /* lookups left; past it the watch is LOST */
};

static int mon_spell_one(void *vc, const char *s)
{
	struct spell_ctx *c = vc, d;
	char comp[PROTECT_PATH_MAX];
	size_t n;
	int fd, r = 0;

	if (!*c->budget) {
		mon_emit(c->m, PROTECT_EV_LOST, E2BIG, c->path);
		return 1;
	}
	(*c->budget)--;
	fd = openat(c->dfd, s, WALK_FLAGS | O_DIRECTORY);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			mon_emit(c->m, PROTECT_EV_LOST, errno, c->path);
		return 0;
	}
	snprintf(c->spelled + c->len, PROTECT_PATH_MAX - c->len, "/%s", s);
	if (!*c->rest) {
		r = mon_watch(c->m, fd, c->path, c->spelled, false, c->base);
		if (r < 0)
			mon_emit(c->m, PROTECT_EV_LOST, -r, c->path);
		r = 0;
	} else {
		d = *c;
		d.dfd = fd;
		d.len = strlen(c->spelled);
		n = strcspn(c->rest, "/");
		snprintf(comp, sizeof(comp), "%.*s", (int)n, c->rest);
		d.rest = c->rest + n + (c->rest[n] == '/');
		r = namecase_spellings(comp, *c->budget, mon_spell_one, &d);
		if (r == -E2BIG || r == -ENAMETOOLONG)
			mon_emit(c->m, PROTECT_EV_LOST, -r, c->path);
		r = r > 0;
	}
	c->spelled[c->len] = '\0';
	close(fd);
	return r;
}

#define SPELL_BUDGET 4096

static void mon_watch_spellings(struct protect_mon *m, size_t base, const char *path)
{
	const struct mon_node *b = &m->node[base];
	size_t off = protect_path_below(b->path, path), n;
	char spelled[PROTECT_PATH_MAX], comp[PROTECT_PATH_MAX];
	unsigned budget = SPELL_BUDGET;
	struct spell_ctx c = {.m = m, .base = base, .path = path, .dfd = b->fd,
			      .spelled = spelled, .budget = &budget};
	int r;

	if (!off || b->fd < 0)
		return;
	snprintf(spelled, sizeof(spelled), "%s", b->path);
	c.len = strlen(spelled);
	n = strcspn(path + off, "/");
	snprintf(comp, sizeof(comp), "%.*s", (int)n, path + off);
	c.rest = path + off + n + (path[off + n] == '/');
	r = namecase_spellings(comp, budget, mon_spell_one, &c);
	if (r == -E2BIG || r == -ENAMETOOLONG)
		mon_emit(m, PROTECT_EV_LOST, -r, path);
}

/* name, on the way to a protected path, appeared in the directory pfd (it
 * is path's last component as the volume matches names; path spells it as
 * the protected paths do).  Open it without following: a symlink there is
 * a violation (through it the protected path would resolve wherever the
 * command chose), a non-directory cannot hold the rest and is ignored (it
 * will be seen again if a directory is renamed over it), a directory is
 * watched - under every spelling where each is an object of its own - then
 * scanned. */
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
		r = mon_watch(m, fd, path, NULL, false, base);
		if (r < 0) {
			mon_emit(m, PROTECT_EV_LOST, -r, path);
		} else {
			if (m->node[base].nc.separate)
				mon_watch_spellings(m, base, path);
			mon_scan(m, base, fd, path);
		}
	}
	close(fd);
}

/* name appeared in ppath.  The verdict is taken from the name alone, before
 * any lookup, so an object already removed again is still a violation.
 * The name is compared with the protected paths' next component as the
 * volume matches names (META-6: on a volume that folds case, .GIT is .git)
 * and reported, and descended into, under the protected paths' spelling.
 * pfd < 0: the parent cannot be looked into (it moved away); only the
 * verdict by name is taken. */
static void mon_arrive(struct protect_mon *m, size_t base, int pfd,
		       const char *ppath, const char *name)
{
	unsigned fold = m->node[base].nc.fold;
	char comp[PROTECT_PATH_MAX], *below;
	size_t off, n, j;

	for (size_t i = 0; i < m->n_target; i++) {
		const char *t = m->target[i];

		off = protect_path_below(ppath, t);
		if (!off)
			continue;
		n = strcspn(t + off, "/");
		snprintf(comp, sizeof(comp), "%.*s", (int)n, t + off);
		if (!namecase_equal(fold, name, comp))
			continue;
		if (!t[off + n]) {
			mon_emit(m, PROTECT_EV_CREATE, 0, t);
			continue;
		}
		/* An ancestor: descended into once per spelling the
		 * protected paths give it ("/r/.git" for .git/hooks and
		 * .git/config alike). */
		for (j = 0; j < i; j++)
			if (strncmp(m->target[j], t, off + n) == 0 &&
			    m->target[j][off + n] == '/' &&
			    protect_path_below(ppath, m->target[j]))
				break;
		if (j < i || pfd < 0)
			continue;
		below = strndup(t, off + n);
		if (!below) {
			mon_emit(m, PROTECT_EV_LOST, ENOMEM, ppath);
			continue;
		}
		mon_descend(m, base, pfd, below, name);
		free(below);
	}
}

/* Reopen a dynamic node's directory by its path below its static base,
 * without following, and only if it is still the watched directory: if it
 * was moved away, what is at its old path now is another object, which has
 * (or will get) its own create event and watch.  Returns an O_PATH fd or
 * -1. */
static int mon_reopen(struct protect_mon *m, const struct mon_node *nd)
{
	const struct mon_node *b = &m->node[nd->base];
	const char *p = nd->spelled ? nd->spelled : nd->path;
	size_t off = protect_path_below(b->path, p), n;
	const char *c = p + off;
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
		if (protect_grow(&m->target, &m->cap_target, m->n_target,
			 sizeof(*m->target)) < 0 ||
		    !(m->target[m->n_target] = strdup(w->target)))
			return -ENOMEM;
		m->n_target++;
	}
	r = mon_watch(m, w->dir_fd, w->dir, NULL, true, 0);
	if (r < 0)
		return r;
	m->node[r].nc = w->nc;
	e.node = (size_t)r;
	e.name = strdup(w->name);
	if (!e.name || asprintf(&e.rel, "%s%s%s", w->name,
				w->suffix[0] ? "/" : "", w->suffix) < 0) {
		free(e.name);
		return -ENOMEM;
	}
	if (protect_grow(&m->ent, &m->cap_ent, m->n_ent, sizeof(*m->ent)) < 0) {
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

/* End the group.  Every mark is removed first, synchronously: once this
 * returns no watch of this run is on any inode and no event can be queued
 * (META-3/4: no mark outlives the runner), and the marks' memory is freed by
 * the kernel's reaper without anyone waiting for it.  Only the empty group
 * is left to the kernel (bench/RESULTS.md, "inotify teardown"). */
static void mon_release_group(struct protect_mon *m)
{
	for (size_t i = 0; i < m->n_node; i++)
		if (m->node[i].wd >= 0)
			inotify_rm_watch(m->ifd, m->node[i].wd);
	if (handoff_close(m->ifd) < 0) /* handoff.h */
		close(m->ifd); /* the same end, waited for */
	m->ifd = -1;
}

void protect_monitor_free(struct protect_mon *m)
{
	if (!m)
		return;
	if (m->ifd >= 0)
		mon_release_group(m);
	for (size_t i = 0; i < m->n_node; i++) {
		free(m->node[i].path);
		free(m->node[i].spelled);
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
