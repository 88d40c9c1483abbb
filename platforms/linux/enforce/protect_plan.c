/* protect_plan.c - the plan of the protected names of one write root: one
 * race-safe look at the host (contract in protect.h, what the parts share
 * in protect_int.h). */
#include "protect_int.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/* A relative name is clean: non-empty components, none "." or "..". */
static bool plan_name_valid(const char *name)
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
	struct namecase_cache *nc;
};

/* Open the root by walking from "/" one component at a time: a symlink
 * anywhere in it is refused, so what is protected is the directory the
 * request names, not wherever a link points today. */
static int plan_open_root(const char *root, char *err)
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
static int plan_add_ro(struct plan_build *b, char *path, int fd, bool is_dir)
{
	struct protect_plan *p = b->p;

	for (size_t i = 0; i < p->n_ro; i++)
		if (strcmp(p->ro[i].path, path) == 0) {
			free(path);
			close(fd);
			return 0;
		}
	if (protect_grow(&p->ro, &b->cap_ro, p->n_ro, sizeof(*p->ro)) < 0) {
		free(path);
		close(fd);
		return -ENOMEM;
	}
	p->ro[p->n_ro++] = (struct protect_path){ path, fd, is_dir };
	return 0;
}

/* Does not take ownership: dups fd and copies path when the pin is new. */
static int plan_add_pin(struct plan_build *b, const char *path, int fd)
{
	struct protect_plan *p = b->p;
	char *s;
	int nfd;

	for (size_t i = 0; i < p->n_pin; i++)
		if (strcmp(p->pin[i].path, path) == 0)
			return 0;
	if (protect_grow(&p->pin, &b->cap_pin, p->n_pin, sizeof(*p->pin)) < 0)
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

/* META-6: how dir's volume matches names, and that the monitor can match
 * every component still missing (name, then suffix's) as it does. */
static int plan_watch_nc(struct plan_build *b, const char *dir, int dfd,
			 const char *rest, struct namecase *nc)
{
	char comp[PROTECT_PATH_MAX];
	int r;

	r = namecase_probe(b->nc, dfd, dir, nc, b->p->err, sizeof(b->p->err));
	for (const char *c = rest; r == 0 && *c;) {
		size_t n = strcspn(c, "/");

		snprintf(comp, sizeof(comp), "%.*s", (int)n, c);
		r = namecase_check(nc, dir, comp, b->p->err, sizeof(b->p->err));
		c += n + (c[n] == '/');
	}
	return r;
}

static int plan_add_watch(struct plan_build *b, const char *dir, int dfd,
			   const char *name, const char *suffix,
			   const char *target)
{
	struct protect_plan *p = b->p;
	struct protect_watch w = { 0 };
	int r;

	if ((r = plan_watch_nc(b, dir, dfd, name, &w.nc)) < 0)
		return r;
	if (protect_grow(&p->watch, &b->cap_watch, p->n_watch, sizeof(*p->watch)) < 0)
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

/* One name's walk from the root: the directory reached so far and what is
 * left of the name.  dfd is rootfd or owned by the walk; cur and target are
 * owned. */
struct plan_walk {
	struct plan_build *b;
	int rootfd, dfd;
	char *cur;     /* the path of dfd */
	const char *c; /* the components not walked yet */
	char *target;  /* root + "/" + name */
};

/* Where the object held by fd (at path next, reached by the component of
 * length n at w->c) leaves the walk: a symlink is refused, the last
 * component becomes a read-only bind, a non-directory before it a watch.
 * Takes fd and next in every case.  Returns 0 when the name is planned,
 * 1 when fd is a directory on the way (then pinned and descended into),
 * or -errno. */
static int plan_place(struct plan_walk *w, int fd, char *next, size_t n)
{
	struct protect_plan *p = w->b->p;
	const char *c = w->c;
	struct stat st;
	int r;

	if (fstat(fd, &st) != 0) {
		r = -errno;
		snprintf(p->err, sizeof(p->err), "%s: %s", next, strerror(-r));
	} else if (S_ISLNK(st.st_mode)) {
		/* Refused, never followed: the link's target is chosen by
		 * whoever controls the workspace. */
		snprintf(p->err, sizeof(p->err),
			 "%s: protected path component is a symlink", next);
		r = -ELOOP;
	} else if (!c[n]) {
		return plan_add_ro(w->b, next, fd, S_ISDIR(st.st_mode));
	} else if (!S_ISDIR(st.st_mode)) {
		/* A file where a directory is needed: it can be replaced by
		 * a directory during the run, so the name is watched in its
		 * parent like a missing one. */
		r = plan_add_watch(w->b, w->cur, w->dfd, c, c + n + 1, w->target);
	} else if ((r = plan_add_pin(w->b, next, fd)) == 0) {
		if (w->dfd != w->rootfd)
			close(w->dfd);
		w->dfd = fd;
		free(w->cur);
		w->cur = next;
		w->c += n + 1;
		return 1;
	}
	close(fd);
	free(next);
	return r;
}

/* Take the next component of the walk.  Returns 1 to go on, 0 when the
 * name is planned, -errno (p->err set but for -ENOMEM). */
static int plan_step(struct plan_walk *w)
{
	struct protect_plan *p = w->b->p;
	char comp[PROTECT_PATH_MAX], *next;
	size_t n = strcspn(w->c, "/");
	int fd, r;

	if (n >= sizeof(comp)) {
		snprintf(p->err, sizeof(p->err), "%s: %s", w->target,
			 strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	memcpy(comp, w->c, n);
	comp[n] = '\0';
	next = protect_path_join(w->cur, comp);
	if (!next)
		return -ENOMEM;
	fd = openat(w->dfd, comp, WALK_FLAGS);
	if (fd < 0 && errno == ENOENT) {
		free(next);
		return plan_add_watch(w->b, w->cur, w->dfd, w->c,
				      w->c[n] ? w->c + n + 1 : "", w->target);
	}
	if (fd < 0) {
		r = -errno;
		snprintf(p->err, sizeof(p->err), "%s: %s", next, strerror(-r));
		free(next);
		return r;
	}
	return plan_place(w, fd, next, n);
}

/* Walk one name from the root.  Each component is opened relative to the
 * previous one with O_NOFOLLOW and checked through the descriptor, so the
 * type seen is the type of the object held, not of whatever the name points
 * to a moment later.  0 or -errno. */
static int plan_walk_name(struct plan_build *b, int rootfd, const char *name)
{
	struct plan_walk w = {.b = b, .rootfd = rootfd, .dfd = rootfd, .c = name};
	int r = -ENOMEM;

	w.cur = strdup(b->p->root);
	w.target = protect_path_join(b->p->root, name);
	if (w.cur && w.target)
		while ((r = plan_step(&w)) > 0)
			;
	if (w.dfd != rootfd)
		close(w.dfd);
	free(w.cur);
	free(w.target);
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
	struct namecase_cache nc = { .n = 0 };

	return protect_plan_nc(root, names, &nc, out);
}

int protect_plan_nc(const char *root, const struct strv *names,
		    struct namecase_cache *nc, struct protect_plan *out)
{
	struct plan_build b = { .p = out, .nc = nc };
	int rootfd, r = 0;

	memset(out, 0, sizeof(*out));
	if (!root || root[0] != '/' || (strlen(root) > 1 &&
	    (root[strlen(root) - 1] == '/' || !plan_name_valid(root + 1)))) {
		snprintf(out->err, sizeof(out->err), "%s: not an absolute "
			 "clean path", root ? root : "(null)");
		return -EINVAL;
	}
	for (size_t i = 0; i < names->n; i++)
		if (!plan_name_valid(names->v[i]) ||
		    names->v[i][strlen(names->v[i]) - 1] == '/') {
			snprintf(out->err, sizeof(out->err),
				 "protected name \"%s\": not a clean relative "
				 "path", names->v[i]);
			return -EINVAL;
		}
	out->root = strdup(root);
	if (!out->root)
		return -ENOMEM;
	rootfd = plan_open_root(root, out->err);
	if (rootfd < 0) {
		r = rootfd;
		goto fail;
	}
	/* META-6: the root's volume decided first, so the outcome says how
	 * it matches names even when every protected name exists. */
	if (names->n) {
		struct namecase rootnc;

		r = namecase_probe(b.nc, rootfd, root, &rootnc, out->err, sizeof(out->err));
		if (r < 0) {
			close(rootfd);
			goto fail;
		}
	}
	for (size_t i = 0; i < names->n && r == 0; i++)
		r = plan_walk_name(&b, rootfd, names->v[i]);
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
