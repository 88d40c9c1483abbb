/* protect_cleanup.c - after (or at) a violation: remove every protected
 * name that exists now and was absent at plan time, never following a
 * symlink (policy in protect.h). */
#include "protect_int.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* Open name in dfd as a directory for reading, never through a symlink.
 * The checked O_PATH descriptor is reopened through "." so the directory
 * read is the one checked.  A directory the command made unsearchable for
 * us is given back owner rwx first (through /proc/self/fd: the held object,
 * not a name); it is about to be deleted anyway.  -ENOTDIR: not a
 * directory (a symlink included). */
static int clean_open_dir(int dfd, const char *name)
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
static int clean_move_up(int from, const char *name, int to, unsigned long *gen)
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
 * of clean_empty_dir() shortens the tree by one level with two descriptors open
 * at most, however deep the command made it.  Returns 1 on progress. */
static int clean_hoist(int fd, const char *name, unsigned long *gen)
{
	struct dirent *de;
	int cfd, moved = 0, err = 0;
	DIR *d;

	cfd = clean_open_dir(fd, name);
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
			int r = clean_move_up(cfd, n, fd, gen);

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
static int clean_empty_dir(int fd)
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
			r = clean_hoist(fd, n, &gen);
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
static int clean_remove_tree(int dfd, const char *name)
{
	int fd, r;

	fd = clean_open_dir(dfd, name);
	if (fd == -ENOENT)
		return 0;
	if (fd == -ENOTDIR) {
		if (unlinkat(dfd, name, 0) == 0)
			return 1;
		return errno == ENOENT ? 0 : -errno;
	}
	if (fd < 0)
		return fd;
	r = clean_empty_dir(fd);
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
static void clean_entry(struct protect_mon *m, const struct mon_entry *e)
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
		next = comp ? protect_path_join(path, comp) : NULL;
		if (!next)
			goto nomem;
		if (!c[n]) {
			r = clean_remove_tree(dfd, comp);
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

static int clean_entries(struct protect_mon *m, struct protect_event *ev,
			 size_t max, bool running)
{
	m->ev = ev;
	m->ev_max = ev ? max : 0;
	m->count = 0;
	for (size_t i = 0; i < m->n_ent; i++)
		if (!running || !m->node[m->ent[i].node].nc.separate)
			clean_entry(m, &m->ent[i]);
	/* What was removed may be created again, and that is a new
	 * violation to report. */
	mon_forget_seen(m);
	m->ev = NULL;
	m->ev_max = 0;
	return m->count;
}

int protect_monitor_cleanup(struct protect_mon *m, struct protect_event *ev,
			    size_t max)
{
	return clean_entries(m, ev, max, false);
}

int protect_monitor_cleanup_running(struct protect_mon *m, struct protect_event *ev,
				    size_t max)
{
	return clean_entries(m, ev, max, true);
}
