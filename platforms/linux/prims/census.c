/* census.c - see census.h. */
#include "sandproof/census.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- items --------------------------------------------------------------- */

const char *census_kind_name(enum census_kind k)
{
	switch (k) {
	case CENSUS_PROC: return "proc";
	case CENSUS_MARKED: return "marked";
	case CENSUS_MOUNT: return "mount";
	case CENSUS_LOCK: return "lock";
	case CENSUS_FILE: return "file";
	}
	return "?";
}

void census_free(struct census *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].key);
		free(c->items[i].text);
	}
	free(c->items);
	c->items = NULL;
	c->n = c->cap = 0;
}

/* Takes ownership of key and text (either NULL means out of memory). */
static int census_push(struct census *c, enum census_kind kind, char *key,
		       char *text)
{
	if (!key || !text)
		goto nomem;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct census_item *v = realloc(c->items, cap * sizeof(*v));

		if (!v)
			goto nomem;
		c->items = v;
		c->cap = cap;
	}
	c->items[c->n++] = (struct census_item){kind, key, text};
	return 0;
nomem:
	free(key);
	free(text);
	return -ENOMEM;
}

__attribute__((format(printf, 1, 2)))
static char *census_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/* Whole small file (proc files report size 0: read until EOF), NUL
 * terminated, at most max bytes.  NULL with errno set on failure. */
static char *census_slurp(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= max)
				break;
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

/* ---- the process table --------------------------------------------------- */

int census_proc_read(pid_t pid, struct census_proc *p)
{
	char path[64], buf[1024], *close_paren, *s;
	unsigned long long f[20];
	ssize_t r;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = read(fd, buf, sizeof(buf) - 1);
	i = errno;
	close(fd);
	if (r <= 0)
		return r == 0 ? -ESRCH : -i;
	buf[r] = '\0';
	/* comm may hold any byte, ')' included: the last ')' ends it. */
	close_paren = strrchr(buf, ')');
	s = strchr(buf, '(');
	if (!close_paren || !s || close_paren < s || close_paren[1] != ' ')
		return -EIO;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%.*s",
		 (int)(close_paren - s - 1), s + 1);
	s = close_paren + 2;
	p->state = *s++;
	/* fields 4..22 of proc_pid_stat(5): ppid pgrp session ... starttime */
	for (i = 0; i < 19; i++) {
		char *end;

		f[i] = strtoull(s, &end, 10);
		if (end == s)
			return -EIO;
		s = end;
	}
	p->ppid = (pid_t)f[0];
	p->pgid = (pid_t)f[1];
	p->sid = (pid_t)f[2];
	p->start = f[18];
	return 0;
}

static int census_proc_cmp(const void *a, const void *b)
{
	const struct census_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int census_procs(struct census_proc **out, size_t *n)
{
	struct census_proc *v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (!out || !n)
		return -EINVAL;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct census_proc p;

		if (*end || pid <= 0)
			continue;
		if (census_proc_read((pid_t)pid, &p) < 0)
			continue; /* gone meanwhile, or unreadable */
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct census_proc *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[cnt++] = p;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), census_proc_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

const struct census_proc *census_find(const struct census_proc *v, size_t n,
				      pid_t pid)
{
	struct census_proc key = {.pid = pid};

	return n ? bsearch(&key, v, n, sizeof(*v), census_proc_cmp) : NULL;
}

pid_t census_top(const struct census_proc *v, size_t n, size_t i, pid_t self)
{
	const struct census_proc *p = &v[i];

	/* n steps bound the walk even if the table holds a cycle (pids are
	 * read at different moments, so a reused pid could make one). */
	for (size_t step = 0; step <= n; step++) {
		if (p->pid == self || p->ppid <= 0)
			return 0;
		if (p->ppid == self)
			return p->pid;
		p = census_find(v, n, p->ppid);
		if (!p)
			return 0;
	}
	return 0;
}

/* cmdline with NULs shown as spaces; "" when unreadable (kernel threads). */
static char *census_cmdline(pid_t pid)
{
	char path[64], *s;
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	s = census_slurp(path, 64 * 1024, &len);
	if (!s)
		return strdup("");
	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

static int census_add_proc(struct census *c, enum census_kind kind,
			   const struct census_proc *p, const char *cmd)
{
	return census_push(c, kind,
			   census_fmt("%d %llu", (int)p->pid, p->start),
			   census_fmt("pid %d ppid %d state %c comm %s cmdline %s",
				      (int)p->pid, (int)p->ppid, p->state,
				      p->comm, cmd));
}

static int census_take_procs(const struct census_opts *o, struct census *c)
{
	pid_t self = getpid();
	struct census_proc *v;
	size_t n;
	int r = census_procs(&v, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		bool desc = census_top(v, n, i, self) != 0;
		bool want_mark = o->marker && *o->marker;
		char *cmd;

		if (!desc && !want_mark)
			continue;
		cmd = census_cmdline(v[i].pid);
		if (!cmd) {
			r = -ENOMEM;
			break;
		}
		if (desc)
			r = census_add_proc(c, CENSUS_PROC, &v[i], cmd);
		if (r == 0 && want_mark && strstr(cmd, o->marker))
			r = census_add_proc(c, CENSUS_MARKED, &v[i], cmd);
		free(cmd);
	}
	free(v);
	return r;
}

/* ---- mounts -------------------------------------------------------------- */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void census_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* path is prefix itself or lies under it (component-wise). */
static bool census_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (n == 1 && prefix[0] == '/')
		return true;
	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int census_take_mounts(const struct census_opts *o, struct census *c)
{
	char *buf = census_slurp("/proc/self/mountinfo", 64u << 20, NULL);
	char *save = NULL, *line, **pre;
	size_t npre = 0;
	int r = 0;

	if (!buf)
		return -errno;
	while (o->mount_prefixes[npre])
		npre++;
	pre = calloc(npre + 1, sizeof(*pre));
	if (!pre) {
		free(buf);
		return -ENOMEM;
	}
	/* The kernel reports resolved mount points: compare them against the
	 * canonical prefix when it resolves, else the prefix as given. */
	for (size_t i = 0; i < npre && r == 0; i++) {
		pre[i] = realpath(o->mount_prefixes[i], NULL);
		if (!pre[i])
			pre[i] = strdup(o->mount_prefixes[i]);
		if (!pre[i])
			r = -ENOMEM;
	}
	for (line = strtok_r(buf, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char id[32], mp[PATH_MAX];

		/* fields: id parent maj:min root mountpoint ... */
		if (sscanf(line, "%31s %*s %*s %*s %4095s", id, mp) != 2)
			continue;
		census_unescape(mp);
		for (size_t i = 0; i < npre; i++) {
			if (census_under(mp, pre[i])) {
				r = census_push(c, CENSUS_MOUNT,
						census_fmt("%s %s", id, mp),
						strdup(line));
				break;
			}
		}
	}
	for (size_t i = 0; i < npre; i++)
		free(pre[i]);
	free(pre);
	free(buf);
	return r;
}

/* ---- directory walks ----------------------------------------------------- */

struct census_walk {
	int (*visit)(struct census_walk *w, const char *path,
		     const struct stat *st);
	struct census *c;
	size_t count;
	bool truncated;
	/* lock census: files seen, by device and inode */
	struct census_file { dev_t dev; ino_t ino; char *path; } *files;
	size_t nfiles, capfiles;
};

/* Walks the directory dfd (consumed) named path.  Never follows a symlink
 * below the root: entries are lstat'ed and opened O_NOFOLLOW, so a link
 * planted by a run cannot lead the census elsewhere. */
static int census_walk_dir(struct census_walk *w, int dfd, const char *path,
			   int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (r == 0 && (de = readdir(d))) {
		struct stat st;
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* removed meanwhile */
		if (w->count++ >= CENSUS_MAX_FILES) {
			w->truncated = true;
			break;
		}
		sub = census_fmt("%s/%s", path, de->d_name);
		if (!sub) {
			r = -ENOMEM;
			break;
		}
		r = w->visit(w, sub, &st);
		if (r == 0 && S_ISDIR(st.st_mode) && depth < CENSUS_MAX_DEPTH) {
			int sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
					 O_NOFOLLOW | O_CLOEXEC);

			if (sfd >= 0)
				r = census_walk_dir(w, sfd, sub, depth + 1);
		} else if (S_ISDIR(st.st_mode)) {
			w->truncated = true;
		}
		free(sub);
	}
	closedir(d);
	return r;
}

static int census_walk(struct census_walk *w, const char *root)
{
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	return census_walk_dir(w, dfd, root, 0);
}

static int census_visit_file(struct census_walk *w, const char *path,
			     const struct stat *st)
{
	char type = S_ISDIR(st->st_mode) ? 'd' : S_ISLNK(st->st_mode) ? 'l' :
		    S_ISREG(st->st_mode) ? 'f' : 'o';

	return census_push(w->c, CENSUS_FILE, strdup(path),
			   census_fmt("%c %s", type, path));
}

static int census_take_files(const struct census_opts *o, struct census *c)
{
	for (size_t i = 0; o->temp_dirs[i]; i++) {
		struct census_walk w = {.visit = census_visit_file, .c = c};
		int r = census_walk(&w, o->temp_dirs[i]);

		if (r == 0 && w.truncated)
			r = census_push(c, CENSUS_FILE,
					census_fmt("truncated %s", o->temp_dirs[i]),
					census_fmt("census of %s truncated",
						   o->temp_dirs[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- locks --------------------------------------------------------------- */

static int census_visit_lockable(struct census_walk *w, const char *path,
				 const struct stat *st)
{
	if (w->nfiles == w->capfiles) {
		size_t nc = w->capfiles ? w->capfiles * 2 : 64;
		struct census_file *v = realloc(w->files, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->files = v;
		w->capfiles = nc;
	}
	w->files[w->nfiles].path = strdup(path);
	if (!w->files[w->nfiles].path)
		return -ENOMEM;
	w->files[w->nfiles].dev = st->st_dev;
	w->files[w->nfiles].ino = st->st_ino;
	w->nfiles++;
	return 0;
}

/* /proc/locks: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF", the
 * device as hex major:minor; waiters are continuation lines with "->". */
static int census_take_locks(const struct census_opts *o, struct census *c)
{
	struct census_walk w = {.visit = census_visit_lockable, .c = c};
	char *buf = NULL, *save = NULL, *line;
	int r = census_walk(&w, o->lock_dir);

	if (r == 0 && w.nfiles) {
		buf = census_slurp("/proc/locks", 16u << 20, NULL);
		if (!buf)
			r = errno == ENOENT ? 0 : -errno;
	}
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char type[16], mode[16], access[16];
		unsigned int maj, mnr;
		unsigned long long ino;
		int pid;

		if (strstr(line, "->"))
			continue;
		if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", type, mode,
			   access, &pid, &maj, &mnr, &ino) != 7)
			continue;
		for (size_t i = 0; i < w.nfiles; i++) {
			if (major(w.files[i].dev) != maj ||
			    minor(w.files[i].dev) != mnr ||
			    (unsigned long long)w.files[i].ino != ino)
				continue;
			r = census_push(c, CENSUS_LOCK,
					census_fmt("%s %s %d %s", type, access, pid,
						   w.files[i].path),
					census_fmt("%s %s %s pid %d %s", type, mode,
						   access, pid, w.files[i].path));
			break;
		}
	}
	free(buf);
	for (size_t i = 0; i < w.nfiles; i++)
		free(w.files[i].path);
	free(w.files);
	return r;
}

/* ---- snapshot and diff --------------------------------------------------- */

int census_take(const struct census_opts *o, struct census *out)
{
	int r;

	if (!out)
		return -EINVAL;
	*out = (struct census){0};
	if (!o)
		return -EINVAL;
	r = census_take_procs(o, out);
	if (r == 0 && o->mount_prefixes)
		r = census_take_mounts(o, out);
	if (r == 0 && o->lock_dir)
		r = census_take_locks(o, out);
	if (r == 0 && o->temp_dirs)
		r = census_take_files(o, out);
	return r;
}

static int census_item_cmp(const void *a, const void *b)
{
	const struct census_item *x = *(const struct census_item *const *)a;
	const struct census_item *y = *(const struct census_item *const *)b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->key, y->key);
}

int census_diff(const struct census *before, const struct census *after,
		struct census *added)
{
	const struct census_item **idx = NULL;
	int r = 0;

	if (!added)
		return -EINVAL;
	*added = (struct census){0};
	if (!before || !after)
		return -EINVAL;
	if (before->n) {
		idx = malloc(before->n * sizeof(*idx));
		if (!idx)
			return -ENOMEM;
		for (size_t i = 0; i < before->n; i++)
			idx[i] = &before->items[i];
		qsort(idx, before->n, sizeof(*idx), census_item_cmp);
	}
	for (size_t i = 0; i < after->n && r == 0; i++) {
		const struct census_item *it = &after->items[i];

		if (idx && bsearch(&it, idx, before->n, sizeof(*idx), census_item_cmp))
			continue;
		r = census_push(added, it->kind, strdup(it->key), strdup(it->text));
	}
	free(idx);
	return r;
}
