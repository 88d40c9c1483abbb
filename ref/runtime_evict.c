/* runtime_evict.c - eviction of runtime roots and gc (runtime.h).
 *
 * Safety rules every path below keeps:
 *  - a root is evicted only while holding its lease exclusively (taken
 *    non-blocking: a root in use, or whose lease cannot be taken for any
 *    reason, is skipped);
 *  - only entries with the expected name shape that are directories owned by
 *    the caller are touched; symlinks and foreign entries are reported;
 *  - a root is first renamed to a tombstone in the same parent (a concurrent
 *    starter then finds it gone and provisions afresh), then deleted with
 *    descriptor-relative calls that never follow a symlink nor cross a
 *    mount point: a directory on another mount than the root's (mountid.h:
 *    the mount id, so a bind mount of the same file system counts) is left
 *    alone with everything in it. */
#include "runtime.h"
#include "mountid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUNTIME_TREE_DEPTH_MAX 256
#define RUNTIME_STAMP_TMP_STALE_S 60

static void runtime_report_add(struct runtime_report_entry *v, size_t *n, size_t *total,
			       const char *name, const char *reason)
{
	if (*n < RUNTIME_REPORT_MAX) {
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
		snprintf(v[*n].reason, sizeof(v[*n].reason), "%s", reason);
		(*n)++;
	}
	(*total)++;
}

void runtime_report_evicted(struct runtime_report *rep, const char *name, const char *reason)
{
	runtime_report_add(rep->evicted, &rep->n_evicted, &rep->evicted_total, name, reason);
}

void runtime_report_skipped(struct runtime_report *rep, const char *name, const char *reason)
{
	runtime_report_add(rep->skipped, &rep->n_skipped, &rep->skipped_total, name, reason);
}

static void runtime_report_skipped_err(struct runtime_report *rep, const char *name,
				       const char *what, int err)
{
	char reason[96];
	snprintf(reason, sizeof(reason), "%s: %s", what, strerror(-err));
	runtime_report_skipped(rep, name, reason);
}

/* ------------------------------------------------------------ tree delete */

/* Is the directory fd (or, fd < 0, name in dfd) on the mount mnt?  Any
 * doubt (no mount id to compare) is "no". */
static bool runtime_same_mount(int dfd, const char *name, int fd, uint64_t mnt)
{
	uint64_t id;

	return (fd >= 0 ? mountid_fd(fd, &id) : mountid_at(dfd, name, &id)) == 0 && id == mnt;
}

static int runtime_rm_at(int dfd, const char *name, uint64_t mnt, bool top, int depth)
{
	struct stat s;
	int err = 0;

	if (fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(s.st_mode))
		return (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) ? -errno : 0;
	/* Security: a mount point (of another file system, or a bind mount of
	 * this one) is left alone: deleting through it would empty whatever
	 * was mounted there, outside the tree. */
	if (!top && !runtime_same_mount(dfd, name, -1, mnt))
		return -EXDEV;
	if (depth > RUNTIME_TREE_DEPTH_MAX)
		return -ELOOP;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && s.st_uid == geteuid() &&
	    fchmodat(dfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		/* swapped for a symlink or file since the fstatat: remove the
		 * link itself, never what it points to */
		if (errno == ELOOP || errno == ENOTDIR)
			return (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) ? -errno : 0;
		return -errno;
	}
	/* the object opened, not the one looked at: mounted on since? */
	if (fstat(fd, &s) < 0 || (!top && !runtime_same_mount(-1, NULL, fd, mnt))) {
		close(fd);
		return -EXDEV;
	}
	/* read-only directories (Go's module cache makes them) would refuse
	 * the unlinks below; we own them, so open them up first */
	if (s.st_uid == geteuid() && (s.st_mode & 0700) != 0700)
		(void)fchmod(fd, (s.st_mode & 07777) | 0700);
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	for (int pass = 0; pass < 4; pass++) {
		struct dirent *e;
		err = 0;
		rewinddir(d);
		while ((errno = 0, e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			int r = runtime_rm_at(fd, e->d_name, mnt, false, depth + 1);
			if (r < 0 && !err)
				err = r;
		}
		if (errno && !err)
			err = -errno;
		if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) {
			err = 0;
			break;
		}
		if (errno != ENOTEMPTY && errno != EEXIST) {
			if (!err)
				err = -errno;
			break;
		}
		if (err)
			break; /* something inside cannot go: retrying will not help */
		if (pass == 3)
			err = -ENOTEMPTY;
	}
	closedir(d);
	return err;
}

int runtime_remove_tree(int dfd, const char *name)
{
	uint64_t mnt;
	int r = mountid_fd(dfd, &mnt);

	if (r < 0)
		return r;
	/* the tree itself must be on its parent's mount: a root something was
	 * mounted on is left alone like any mount point below it */
	if (!runtime_same_mount(dfd, name, -1, mnt)) {
		struct stat s;

		return fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT ? 0 : -EXDEV;
	}
	return runtime_rm_at(dfd, name, mnt, true, 0);
}

/* ---------------------------------------------------------------- evict */

struct runtime_cand {
	char name[RUNTIME_NAME_LEN + 1];
	int64_t sec;
	long nsec;
};

static int runtime_cand_cmp(const void *a, const void *b)
{
	const struct runtime_cand *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->nsec != y->nsec)
		return x->nsec < y->nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Last used more than max_age_s before now? */
static bool runtime_aged(int64_t sec, long nsec, const struct timespec *now, uint64_t max_age_s)
{
	if (max_age_s == UINT64_MAX)
		return false;
	int64_t as = (int64_t)now->tv_sec - sec;
	long an = now->tv_nsec - nsec;
	if (an < 0) {
		as--;
		an += 1000000000L;
	}
	if (as < 0)
		return false;
	return (uint64_t)as > max_age_s || ((uint64_t)as == max_age_s && an > 0);
}

enum runtime_why { RUNTIME_AGE, RUNTIME_LRU };

/* 1 evicted (or, dry run, would be), 0 left alone without a report (gone,
 * or used since the scan), -1 skipped and reported. */
static int runtime_evict_one(int pfd, const char *name, enum runtime_why why,
			     const struct timespec *now, const struct runtime_config *c,
			     bool dry_run, struct runtime_report *rep)
{
	char tomb[NAME_MAX + 1], aux[NAME_MAX + 1];
	struct stat s;
	int lfd, r;

	r = runtime_lease_lock(pfd, name, LOCK_EX | LOCK_NB, &lfd);
	if (r == -EWOULDBLOCK) {
		runtime_report_skipped(rep, name, "in use");
		return -1;
	}
	if (r < 0) {
		if (fstatat(pfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			return 0; /* another evictor got there first */
		runtime_report_skipped_err(rep, name, "lease", r);
		return -1;
	}
	/* From here, under the exclusive lease, no run uses or provisions the
	 * root; look again at what the name is now, not what the scan saw. */
	if (fstatat(pfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0) {
		r = errno;
		close(lfd);
		if (r == ENOENT)
			return 0;
		runtime_report_skipped_err(rep, name, "stat", -r);
		return -1;
	}
	if (!S_ISDIR(s.st_mode) || s.st_uid != geteuid()) {
		close(lfd);
		runtime_report_skipped(rep, name, S_ISLNK(s.st_mode) ? "symlink" :
					   !S_ISDIR(s.st_mode) ? "not a directory" : "not owned by caller");
		return -1;
	}
	if (why == RUNTIME_AGE) {
		struct runtime_stamp st;
		if (runtime_stamp_read(pfd, name, &st) == 0 &&
		    !runtime_aged(st.last_sec, st.last_nsec, now, c->max_age_s)) {
			close(lfd);
			return 0;
		}
	}
	const char *reason = why == RUNTIME_AGE ? "age" : "lru";
	if (dry_run) {
		close(lfd);
		runtime_report_evicted(rep, name, reason);
		return 1;
	}
	if ((r = runtime_unique_name(tomb, sizeof(tomb), name, "tomb")) < 0) {
		close(lfd);
		runtime_report_skipped_err(rep, name, "tombstone", r);
		return -1;
	}
	/* Security: rename first, so the root leaves its name atomically; the
	 * slow delete then works on a name no starter will ever look up. */
	if (renameat(pfd, name, pfd, tomb) < 0) {
		r = -errno;
		close(lfd);
		runtime_report_skipped_err(rep, name, "rename", r);
		return -1;
	}
	snprintf(aux, sizeof(aux), "%s.stamp", name);
	(void)unlinkat(pfd, aux, 0);
	/* The lease file goes last, still under the exclusive lock: a starter
	 * blocked on it finds it unlinked after we close and retries on a new
	 * one; an evictor that opened it finds the same and gives up. */
	snprintf(aux, sizeof(aux), "%s.lease", name);
	(void)unlinkat(pfd, aux, 0);
	close(lfd);
	runtime_report_evicted(rep, name, reason);
	if ((r = runtime_remove_tree(pfd, tomb)) < 0)
		runtime_report_skipped_err(rep, tomb, "delete", r);
	return 1;
}

/* A lease or stamp whose root is gone (an evictor killed between steps, or a
 * starter killed before provisioning): remove both under the exclusive lease. */
static void runtime_orphan(int pfd, const char *name)
{
	char aux[NAME_MAX + 1];
	struct stat s;
	int lfd;
	if (fstatat(pfd, name, &s, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return;
	if (runtime_lease_lock(pfd, name, LOCK_EX | LOCK_NB, &lfd) < 0)
		return;
	if (fstatat(pfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		snprintf(aux, sizeof(aux), "%s.stamp", name);
		(void)unlinkat(pfd, aux, 0);
		snprintf(aux, sizeof(aux), "%s.lease", name);
		(void)unlinkat(pfd, aux, 0);
	}
	close(lfd);
}

/* Entries of the parent, read up front so nothing is acted on mid-readdir. */
static int runtime_list(int pfd, char ***out, size_t *n)
{
	int fd = fcntl(pfd, F_DUPFD_CLOEXEC, 0);
	char **v = NULL;
	size_t cap = 0, len = 0;
	int r = 0;
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	rewinddir(d); /* the dup shares the offset of pfd */
	struct dirent *e;
	while ((errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **nv = realloc(v, nc * sizeof(*v));
			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		if (!(v[len] = strdup(e->d_name))) {
			r = -ENOMEM;
			break;
		}
		len++;
	}
	if (!r && errno)
		r = -errno;
	closedir(d);
	if (r < 0) {
		for (size_t i = 0; i < len; i++)
			free(v[i]);
		free(v);
		return r;
	}
	*out = v;
	*n = len;
	return 0;
}

/* name is "<16 hex>.<rest>": the root name part goes into base. */
static const char *runtime_suffix(const char *name, char base[RUNTIME_NAME_LEN + 1])
{
	if (strlen(name) <= RUNTIME_NAME_LEN + 1 || name[RUNTIME_NAME_LEN] != '.')
		return NULL;
	memcpy(base, name, RUNTIME_NAME_LEN);
	base[RUNTIME_NAME_LEN] = '\0';
	return runtime_name_is_root(base) ? name + RUNTIME_NAME_LEN + 1 : NULL;
}

static void runtime_tombstone(int pfd, const char *name, bool dry_run, struct runtime_report *rep)
{
	struct stat s;
	if (fstatat(pfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(s.st_mode) || s.st_uid != geteuid()) {
		runtime_report_skipped(rep, name, S_ISLNK(s.st_mode) ? "symlink" :
					   !S_ISDIR(s.st_mode) ? "not a directory" : "not owned by caller");
		return;
	}
	int r = dry_run ? 0 : runtime_remove_tree(pfd, name);
	if (r < 0)
		runtime_report_skipped_err(rep, name, "delete", r);
	else
		runtime_report_evicted(rep, name, "tombstone");
}

static void runtime_stale_temp(int pfd, const char *name, const struct timespec *now, bool dry_run)
{
	struct stat s;
	if (dry_run || fstatat(pfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISREG(s.st_mode) && s.st_uid == geteuid() &&
	    now->tv_sec - s.st_mtime > RUNTIME_STAMP_TMP_STALE_S)
		(void)unlinkat(pfd, name, 0);
}

int runtime_evict_others(int pfd, const struct runtime_config *c, const char *keep,
			 bool dry_run, struct runtime_report *rep)
{
	struct runtime_cand *cand = NULL;
	char **names = NULL;
	size_t n_names = 0, n_cand = 0;
	uint64_t count = 0;
	struct timespec now;
	int r;

	if ((r = runtime_list(pfd, &names, &n_names)) < 0)
		return r;
	cand = calloc(n_names ? n_names : 1, sizeof(*cand));
	if (!cand) {
		r = -ENOMEM;
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; i < n_names; i++) {
		const char *nm = names[i], *suf;
		char base[RUNTIME_NAME_LEN + 1];
		struct stat s;
		if (runtime_name_is_root(nm)) {
			if (fstatat(pfd, nm, &s, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			if (!S_ISDIR(s.st_mode) || s.st_uid != geteuid()) {
				runtime_report_skipped(rep, nm, S_ISLNK(s.st_mode) ? "symlink" :
							   !S_ISDIR(s.st_mode) ? "not a directory" :
							   "not owned by caller");
				continue;
			}
			count++;
			if (keep && !strcmp(nm, keep))
				continue; /* counted, never a candidate */
			struct runtime_stamp st;
			struct runtime_cand *k = &cand[n_cand++];
			memcpy(k->name, nm, RUNTIME_NAME_LEN + 1);
			/* no readable stamp: never used to completion, oldest */
			if (runtime_stamp_read(pfd, nm, &st) == 0) {
				k->sec = st.last_sec;
				k->nsec = st.last_nsec;
			}
		} else if ((suf = runtime_suffix(nm, base))) {
			if (!strncmp(suf, "tomb.", 5))
				runtime_tombstone(pfd, nm, dry_run, rep);
			else if (!strncmp(suf, "stamp.tmp.", 10))
				runtime_stale_temp(pfd, nm, &now, dry_run);
			else if ((!strcmp(suf, "lease") || !strcmp(suf, "stamp")) && !dry_run &&
				 !(keep && !strcmp(base, keep)))
				runtime_orphan(pfd, base);
		}
	}
	qsort(cand, n_cand, sizeof(*cand), runtime_cand_cmp);
	bool *done = calloc(n_cand ? n_cand : 1, sizeof(*done));
	if (!done) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_cand; i++) {
		if (!runtime_aged(cand[i].sec, cand[i].nsec, &now, c->max_age_s))
			continue;
		int e = runtime_evict_one(pfd, cand[i].name, RUNTIME_AGE, &now, c, dry_run, rep);
		if (e != 0)
			done[i] = true;
		if (e == 1)
			count--;
	}
	for (size_t i = 0; i < n_cand && count > c->max_roots; i++) {
		if (done[i])
			continue;
		if (runtime_evict_one(pfd, cand[i].name, RUNTIME_LRU, &now, c, dry_run, rep) == 1)
			count--;
	}
	free(done);
	r = 0;
out:
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	free(cand);
	return r;
}

int runtime_gc(const struct runtime_config *c, const char *keep_root_or_NULL,
	       bool dry_run, struct runtime_report *rep)
{
	char parent[PATH_MAX], keep[PATH_MAX];
	const char *keep_name = NULL;
	int pfd, r;

	memset(rep, 0, sizeof(*rep));
	rep->dry_run = dry_run;
	if (!c || !c->parent)
		return -EINVAL;
	if ((r = runtime_canonicalize(c->parent, parent, sizeof(parent))) < 0)
		return r;
	if (keep_root_or_NULL) {
		if ((r = runtime_canonicalize(keep_root_or_NULL, keep, sizeof(keep))) < 0)
			return r;
		keep_name = strrchr(keep, runtime_sep());
		keep_name = keep_name ? keep_name + 1 : keep;
	}
	r = runtime_open_parent(parent, false, &pfd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = runtime_evict_others(pfd, c, keep_name, dry_run, rep);
	close(pfd);
	return r;
}
