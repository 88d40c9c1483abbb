/* fanwatch_links.c - the comparison's routes (where directories with
 * events lie under a root) and the other names of objects whose link
 * count changed or which were written (fanwatch_int.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanwatch_int.h"

static int fw_route_add(struct fw_diff *d, const char *rel)
{
	return *rel ? fw_strv_add(&d->routes, &d->n_routes, &d->cap_routes, rel) : 0;
}

/* Unprivileged: where directory obj was under root ri (its parents'
 * listing entries), into buf; false when not under that root. */
static bool fw_t0_path(const struct platform_watch *w, uint32_t obj, size_t ri, char *buf,
		       size_t len)
{
	const char *comp[FW_DEPTH_MAX + 2];
	int n = 0;
	size_t at = 0;

	const struct fw_dir *dir = fw_dirp(w, obj);

	while (dir && dir->parent != FW_NONE && n < FW_DEPTH_MAX + 2) {
		comp[n++] = w->arena + w->t0[dir->t0ent].name_off;
		dir = fw_dirp(w, dir->parent);
	}
	if (!dir || dir->parent != FW_NONE || dir->t0ent != ri)
		return false;
	buf[0] = '\0';
	while (n-- > 0) {
		int k = snprintf(buf + at, len - at, "%s%s", at ? "/" : "", comp[n]);

		if (k < 0 || (size_t)k >= len - at)
			return false;
		at += (size_t)k;
	}
	return true;
}

/* Privileged: where directory obj is now under the root, into buf. */
static bool fw_now_path(struct fw_diff *d, uint32_t obj, char *buf, size_t len)
{
	char link[64], path[PATH_MAX];
	int fd = fw_live_open(d, obj);
	size_t rl = strlen(d->root->path);
	ssize_t n;

	if (fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1) {
		/* a directory with events that cannot be placed: not looked at */
		fw_lose(d->w, "a directory with events could not be named");
		return false;
	}
	path[n] = '\0';
	if (!strcmp(d->root->path, "/"))
		return snprintf(buf, len, "%s", path + 1) < (int)len;
	if (strncmp(path, d->root->path, rl) || (path[rl] != '/' && path[rl]))
		return false;
	return snprintf(buf, len, "%s", path + rl + (path[rl] ? 1 : 0)) < (int)len;
}

/* Every directory events named (or whose attributes changed), as a path
 * under the root ri: unprivileged where it was, privileged where it is. */
int fw_routes(struct fw_diff *d, size_t ri)
{
	struct platform_watch *w = d->w;
	char rel[PATH_MAX];
	int rc = 0;

	for (uint32_t i = 0; rc == 0 && i < w->n_objs; i++) {
		const struct fw_dir *dir = fw_dirp(w, i);

		if ((!dir || dir->slots == FW_NONE) && !(w->objs[i].flags & FW_DIRATTR))
			continue;
		if (w->privileged ? fw_now_path(d, i, rel, sizeof(rel)) :
		    ((w->objs[i].flags & FW_T0DIR) && fw_t0_path(w, i, ri, rel, sizeof(rel))))
			rc = fw_route_add(d, rel);
	}
	if (d->n_routes)
		qsort(d->routes, d->n_routes, sizeof(*d->routes), fw_strcmp);
	return rc;
}

static int fw_u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool fw_ino_noted(const struct fw_diff *d, uint64_t ino)
{
	return d->n_inos && bsearch(&ino, d->inos, d->n_inos, sizeof(*d->inos), fw_u64cmp);
}

/* Open the directory at rel under the root (O_NOFOLLOW each step). */
static int fw_open_rel(const struct fw_diff *d, const char *rel)
{
	char buf[PATH_MAX], *save = NULL, *comp;
	int fd = dup(d->root->fd);

	snprintf(buf, sizeof(buf), "%s", rel);
	for (comp = strtok_r(buf, "/", &save); fd >= 0 && comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(fd);
		fd = next;
	}
	return fd;
}

/* d->path := the root's path joined with rel and name. */
static void fw_set_path(struct fw_diff *d, const char *rel, const char *name)
{
	bool top = !strcmp(d->root->path, "/");

	snprintf(d->path, sizeof(d->path), "%s%s%s%s%s", top ? "" : d->root->path, "/", rel,
		 *rel ? "/" : "", name);
	d->len = strlen(d->path);
}

/* Another name of a written or re-linked object, unchanged itself: its
 * link count or change time moved, so the walk reports it modified. */
static void fw_other_name(struct fw_diff *d, int dirfd, const char *rel, const char *name,
			  uint64_t ino)
{
	struct statx x;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &x) < 0 ||
	    x.stx_ino != ino || S_ISDIR(x.stx_mode))
		return;
	fw_set_path(d, rel, name);
	fw_emit(d, PLATFORM_MODIFIED);
}

/* Unprivileged: the listing's names of the noted objects the descent did
 * not look at (they had no event: the same object, re-linked or written
 * through another name). */
static void fw_links_listed(struct fw_diff *d, size_t ri)
{
	struct platform_watch *w = d->w;
	char rel[PATH_MAX];

	for (uint32_t o = 0; o < w->n_objs && d->n_inos; o++) {
		const struct fw_dir *dir = fw_dirp(w, o);
		int fd = -1;

		if (!dir || !(w->objs[o].flags & FW_T0DIR))
			continue;
		for (uint32_t i = 0; i < dir->t0_count; i++) {
			struct fw_t0ent *e = &w->t0[dir->t0_first + i];

			if (e->seen || e->dtype == DT_DIR || !fw_ino_noted(d, e->ino))
				continue;
			if (fd < 0 && (!fw_t0_path(w, o, ri, rel, sizeof(rel)) ||
				       (fd = fw_open_rel(d, rel)) < 0))
				break;
			e->seen = 1;
			fw_other_name(d, fd, rel, fw_name(w, e->name_off), e->ino);
		}
		if (fd >= 0)
			close(fd);
	}
}

/* Privileged: every name under the root whose inode is noted and that the
 * descent did not look at (a walk of directory entries: hard links only). */
static void fw_search(struct fw_diff *d, int fd, char *rel, size_t rl, int depth)
{
	DIR *dir;
	struct dirent *de;
	int c = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (c < 0 || !(dir = fdopendir(c))) {
		if (c >= 0)
			close(c);
		fw_lose(d->w, "a directory could not be read looking for hard links");
		return;
	}
	while ((de = readdir(dir))) {
		int k;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++d->visited > FW_VISIT_MAX || depth > FW_DEPTH_MAX) {
			fw_lose(d->w, "the bound of entries looked at, looking for hard links");
			break;
		}
		k = snprintf(rel + rl, PATH_MAX - rl, "%s%s", rl ? "/" : "", de->d_name);
		if (k < 0 || (size_t)k >= PATH_MAX - rl)
			continue;
		if (de->d_type == DT_DIR) {
			int sub = fw_open_child(d, dirfd(dir), de->d_name);

			if (sub >= 0) {
				fw_search(d, sub, rel, rl + (size_t)k, depth + 1);
				close(sub);
			}
		} else if (fw_ino_noted(d, de->d_ino) &&
			   (!d->n_seen ||
			    !bsearch(&(const char *){rel}, d->seen, d->n_seen, sizeof(char *), fw_strcmp))) {
			rel[rl] = '\0';
			fw_other_name(d, dirfd(dir), rel, de->d_name, de->d_ino);
		}
		rel[rl] = '\0';
	}
	closedir(dir);
}

/* Privileged: objects written or re-linked whose link count says they have
 * names the descent did not meet; their inode numbers into d->inos. */
void fw_links_candidates(struct fw_diff *d)
{
	struct platform_watch *w = d->w;

	d->n_inos = 0;
	for (uint32_t i = 0; i < w->n_objs; i++) {
		struct fw_obj *o = &w->objs[i];
		struct stat st;
		int fd;

		if ((o->flags & FW_ISDIR) || !(o->flags & (FW_TOUCHED | FW_LINKS | FW_MOVED | FW_CLOSEW)))
			continue;
		if (o->met) {
			if (o->nlink > o->met)
				fw_ino_note(d, o->ino);
			continue;
		}
		if (!(o->flags & FW_LINKS) || memcmp(w->arena + o->fid_off, d->root->fsid, 8))
			continue;
		/* met nowhere: gone, or linked only where the descent did not go */
		{
			struct {
				struct file_handle h;
				unsigned char bytes[128];
			} fh;

			fh.h.handle_bytes = o->fid_len - 12;
			memcpy(&fh.h.handle_type, w->arena + o->fid_off + 8, 4);
			memcpy(fh.h.f_handle, w->arena + o->fid_off + 12, fh.h.handle_bytes);
			fd = open_by_handle_at(d->root->fd, &fh.h, O_PATH | O_CLOEXEC);
		}
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_nlink > 0 && !S_ISDIR(st.st_mode))
			fw_ino_note(d, st.st_ino);
		if (fd >= 0)
			close(fd);
	}
}


/* The other names of the noted objects: in the listing (unprivileged), or
 * by a walk of directory entries (privileged). */
void fw_links_find(struct fw_diff *d, size_t ri)
{
	char rel[PATH_MAX] = "";

	if (!d->n_inos)
		return;
	qsort(d->inos, d->n_inos, sizeof(*d->inos), fw_u64cmp);
	if (d->w->privileged) {
		if (d->n_seen)
			qsort(d->seen, d->n_seen, sizeof(*d->seen), fw_strcmp);
		fw_search(d, d->root->fd, rel, 0, 0);
	} else {
		fw_links_listed(d, ri);
	}
}
