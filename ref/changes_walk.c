/* changes_walk.c - the change report's walk (changes.h, changes_int.h):
 * a baseline of every write root before the launch, compared after. */
#include "changes.h"
#include "changes_int.h"
#include "mountid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FNV-1a, 64 bits: a key, not a security boundary (equal keys are
 * compared by path too). */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t path_key(unsigned root, const char *rel)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = hash_bytes(h, &root, sizeof(root));
	return hash_bytes(h, rel, strlen(rel));
}

/* What makes a file "modified": a different object, type, mode, owner,
 * size, link count, or modification or change time. */
static uint64_t stat_digest(const struct stat *st)
{
	uint64_t h = 0xcbf29ce484222325ull;
	/* Nanoseconds where the build says struct stat has them (Linux);
	 * elsewhere whole seconds (CONTRACT.md, OUT-8 says what is missed). */
#ifdef SANDPROOF_HAVE_ST_MTIM
	uint64_t f[10] = {(uint64_t)st->st_ino, (uint64_t)st->st_mode,
			  (uint64_t)st->st_uid, (uint64_t)st->st_gid,
			  (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
			  (uint64_t)st->st_mtim.tv_nsec, (uint64_t)st->st_ctim.tv_sec,
			  (uint64_t)st->st_ctim.tv_nsec, (uint64_t)st->st_nlink};
#else
	uint64_t f[10] = {(uint64_t)st->st_ino, (uint64_t)st->st_mode,
			  (uint64_t)st->st_uid, (uint64_t)st->st_gid,
			  (uint64_t)st->st_size, (uint64_t)st->st_mtime, 0,
			  (uint64_t)st->st_ctime, 0, (uint64_t)st->st_nlink};
#endif

	/* A directory's times, size and link count move with its entries,
	 * which are reported themselves: it is modified only when replaced,
	 * re-moded or given to another owner (the first four fields). */
	if (S_ISDIR(st->st_mode))
		return hash_bytes(h, f, 4 * sizeof(f[0]));
	return hash_bytes(h, f, sizeof(f));
}

/* One walk: the root being walked and where its entries go. */
struct walk {
	struct changes *c;
	const struct request *req;
	unsigned root;
	dev_t dev;
	uint64_t mnt;     /* the root's mount (mountid.h) */
	bool after;       /* the second walk: compare instead of record */
	bool truncated;
	size_t visited;
	char rel[CHANGES_DEPTH_MAX * 256 + 256];
};

static int base_add(struct changes *c, uint64_t key, uint64_t digest,
		    unsigned root, const char *rel, bool dir)
{
	size_t len = strlen(rel) + 1;

	if (c->n >= CHANGES_WALK_MAX || c->paths_len + len > CHANGES_PATH_BYTES_MAX)
		return -ENOSPC;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct changes_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	if (c->paths_len + len > c->paths_cap) {
		size_t cap = c->paths_cap ? c->paths_cap * 2 : 65536;
		char *p;

		while (cap < c->paths_len + len)
			cap *= 2;
		p = realloc(c->paths, cap);
		if (!p)
			return -ENOMEM;
		c->paths = p;
		c->paths_cap = cap;
	}
	memcpy(c->paths + c->paths_len, rel, len);
	c->v[c->n++] = (struct changes_entry){.key = key, .digest = digest,
		.path_off = (uint32_t)c->paths_len, .root = (uint16_t)root, .dir = dir};
	c->paths_len += len;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct changes_entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static struct changes_entry *base_find(struct changes *c, uint64_t key,
				       unsigned root, const char *rel)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->n && c->v[lo].key == key; lo++)
		if (c->v[lo].root == root && strcmp(c->paths + c->v[lo].path_off, rel) == 0)
			return &c->v[lo];
	return NULL;
}

/* One entry seen by a walk: recorded (baseline) or compared (after). */
static int walk_entry(struct walk *w, const struct stat *st)
{
	struct changes *c = w->c;
	bool dir = S_ISDIR(st->st_mode);
	uint64_t key = path_key(w->root, w->rel), digest = stat_digest(st);
	struct changes_entry *e;

	if (++w->visited > CHANGES_WALK_MAX) {
		w->truncated = true;
		return -ENOSPC;
	}
	if (!w->after) {
		int rc = base_add(c, key, digest, w->root, w->rel, dir);

		if (rc == -ENOSPC)
			w->truncated = true;
		return rc;
	}
	e = base_find(c, key, w->root, w->rel);
	if (e) {
		e->seen = true;
		if (e->digest != digest)
			changes_report_add(c, CHANGE_MODIFIED, w->req->write_roots[w->root].root, w->rel);
	} else if (!c->base_truncated) {
		/* Only a complete baseline proves the entry is new. */
		changes_report_add(c, CHANGE_CREATED, w->req->write_roots[w->root].root, w->rel);
	}
	return 0;
}

static int walk_dir(struct walk *w, int dfd, size_t rel_len, int depth);

/* Enter the directory name of dfd: O_NOFOLLOW, and only when it is still
 * the object just stat'ed (a swap in between is skipped, never followed). */
static int walk_child(struct walk *w, int dfd, const char *name,
		      const struct stat *st, size_t rel_len, int depth)
{
	struct stat now;
	uint64_t mnt;
	int fd;

	if (st->st_dev != w->dev)
		return 0; /* a mount inside the root: listed, not entered */
	if (depth >= CHANGES_DEPTH_MAX) {
		w->truncated = true;
		return 0;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &now) < 0 || now.st_ino != st->st_ino ||
	    now.st_dev != st->st_dev) {
		if (fd >= 0)
			close(fd);
		w->truncated = true; /* unreadable or swapped: incomplete */
		return 0;
	}
	/* Security: a bind mount of the root's own file system has its device
	 * number; only the mount id tells it apart.  Not entered: what it
	 * shows lies outside the write root. */
	if (mountid_fd(fd, &mnt) < 0 || mnt != w->mnt) {
		close(fd);
		return 0;
	}
	return walk_dir(w, fd, rel_len, depth + 1);
}

/* Walk the directory open at dfd (consumed), whose path relative to the
 * root is w->rel[0..rel_len). */
static int walk_dir(struct walk *w, int dfd, size_t rel_len, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(dfd);
		w->truncated = true;
		return 0;
	}
	while (rc == 0 && (de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (rel_len + 1 + nl + 1 > sizeof(w->rel)) {
			w->truncated = true;
			continue;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone since readdir: as if never there */
		snprintf(w->rel + rel_len, sizeof(w->rel) - rel_len, "%s%s",
			 rel_len ? "/" : "", de->d_name);
		rc = walk_entry(w, &st);
		if (rc == 0 && S_ISDIR(st.st_mode))
			rc = walk_child(w, dirfd(d), de->d_name, &st,
					rel_len + (rel_len ? 1 : 0) + nl, depth);
		w->rel[rel_len] = '\0';
	}
	closedir(d);
	return rc;
}

/* The root, opened component by component from "/" with O_NOFOLLOW: a
 * symlink anywhere on its path refuses it.  fd or -errno. */
static int root_open(const char *path)
{
	char buf[4096];
	char *save = NULL, *comp;
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%s", path);
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
	}
	return fd;
}

static int walk_roots_(struct changes *c, const struct request *req, bool after,
		      bool *truncated)
{
	for (size_t i = 0; i < req->n_write_roots; i++) {
		struct walk *w = calloc(1, sizeof(*w));
		struct stat st;
		int fd, rc;

		if (!w)
			return -ENOMEM;
		if (i > UINT16_MAX) { /* past what an entry can name */
			*truncated = true;
			free(w);
			break;
		}
		*w = (struct walk){.c = c, .req = req, .root = (unsigned)i, .after = after};
		fd = root_open(req->write_roots[i].root);
		if (fd < 0 || fstat(fd, &st) < 0 || mountid_fd(fd, &w->mnt) < 0) {
			if (fd >= 0)
				close(fd);
			*truncated = true;
			free(w);
			continue;
		}
		w->dev = st.st_dev;
		rc = walk_dir(w, fd, 0, 0);
		if (w->truncated)
			*truncated = true;
		free(w);
		if (rc == -ENOMEM)
			return rc;
		if (rc == -ENOSPC)
			break; /* the walk's bound: the rest is unknown */
	}
	return 0;
}


int changes_walk_baseline(struct changes *c, const struct request *req)
{
	int rc = walk_roots_(c, req, false, &c->base_truncated);

	if (rc < 0)
		return rc;
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), entry_cmp);
	return 0;
}

/* After the run: modified entries are certain whatever the bounds; created
 * ones only against a complete baseline; deleted ones only when both walks
 * were complete (an entry the second walk did not reach is not gone). */
int changes_walk_compare(struct changes *c, const struct request *req)
{
	bool after_truncated = false;
	int rc = walk_roots_(c, req, true, &after_truncated);

	if (rc < 0)
		return rc;
	c->truncated = c->base_truncated || after_truncated;
	if (!c->truncated)
		for (size_t i = 0; i < c->n; i++)
			if (!c->v[i].seen)
				changes_report_add(c, CHANGE_DELETED,
						   req->write_roots[c->v[i].root].root,
						   c->paths + c->v[i].path_off);
	free(c->v);
	free(c->paths);
	c->v = NULL;
	c->paths = NULL;
	c->n = c->cap = c->paths_len = c->paths_cap = 0;
	return 0;
}
