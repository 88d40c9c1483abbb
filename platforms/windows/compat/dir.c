/* dir.c - directories read through a handle: opendir, fdopendir, readdir,
 * closedir, dirfd.
 *
 * fdopendir takes over the descriptor (closed by closedir), as POSIX says,
 * and lists the directory that handle is open on with
 * GetFileInformationByHandleEx(FileIdBothDirectoryInfo): no path is ever
 * looked up again, so a directory renamed or replaced after it was opened
 * is not the one listed.  "." and ".." are returned as the file system
 * gives them.  A name that does not fit d_name or is not valid UTF-16 is
 * skipped (no POSIX code here could use it).  readdir returns NULL at the
 * end (errno unchanged) or on an error (errno set). */
#include "wincompat_int.h"

struct wincompat_dir {
	int fd;
	int first;
	DWORD left, off;            /* bytes in buf, offset of the next entry */
	union {
		FILE_ID_BOTH_DIR_INFO info;
		unsigned char bytes[16384];
	} buf;
	struct dirent ent;
};

struct wincompat_dir *wincompat_fdopendir(int fd)
{
	struct stat st;
	struct wincompat_dir *d;

	if (wincompat_fstat(fd, &st) < 0)
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->fd = fd;
	d->first = 1;
	return d;
}

struct wincompat_dir *wincompat_opendir(const char *path)
{
	int fd = wincompat_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct wincompat_dir *d = fd >= 0 ? wincompat_fdopendir(fd) : NULL;

	if (fd >= 0 && !d)
		_close(fd);
	return d;
}

static int wc_dir_fill(struct wincompat_dir *d)
{
	HANDLE h = wc_handle(d->fd);
	FILE_INFO_BY_HANDLE_CLASS c = d->first ? FileIdBothDirectoryRestartInfo
					       : FileIdBothDirectoryInfo;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	d->first = 0;
	if (!GetFileInformationByHandleEx(h, c, &d->buf, sizeof(d->buf))) {
		DWORD e = GetLastError();
		if (e == ERROR_NO_MORE_FILES)
			return 0;
		errno = wc_errno_win(e);
		return -1;
	}
	d->left = 1;
	d->off = 0;
	return 1;
}

struct dirent *wincompat_readdir(struct wincompat_dir *d)
{
	for (;;) {
		if (!d->left) {
			int r = wc_dir_fill(d);
			if (r <= 0)
				return NULL;
		}
		FILE_ID_BOTH_DIR_INFO *i = (void *)(d->buf.bytes + d->off);
		if (i->NextEntryOffset)
			d->off += i->NextEntryOffset;
		else
			d->left = 0;
		int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, i->FileName,
					    (int)(i->FileNameLength / sizeof(WCHAR)), d->ent.d_name,
					    (int)sizeof(d->ent.d_name) - 1, NULL, NULL);
		if (n <= 0)
			continue; /* not representable: skipped (see above) */
		d->ent.d_name[n] = 0;
		d->ent.d_namlen = (unsigned short)n;
		d->ent.d_ino = 0;
		return &d->ent;
	}
}

int wincompat_closedir(struct wincompat_dir *d)
{
	int rc = _close(d->fd);

	free(d);
	return rc;
}

int wincompat_dirfd(struct wincompat_dir *d)
{
	return d->fd;
}

void wincompat_rewinddir(struct wincompat_dir *d)
{
	d->first = 1;
	d->left = 0;
}

int wincompat_alphasort(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* scandir: the entries keep() accepts, sorted by cmp, each malloc'd, in a
 * malloc'd array; their count, or -1 with errno (nothing left allocated). */
int wincompat_scandir(const char *path, struct dirent ***list,
		      int (*keep)(const struct dirent *),
		      int (*cmp)(const struct dirent **, const struct dirent **))
{
	struct wincompat_dir *d = wincompat_opendir(path);
	struct dirent **v = NULL, *e;
	size_t n = 0, cap = 0;

	if (!d)
		return -1;
	errno = 0;
	while ((e = wincompat_readdir(d))) {
		if (keep && !keep(e))
			continue;
		if (n == cap) {
			struct dirent **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
			if (!nv)
				goto fail;
			v = nv;
		}
		if (!(v[n] = malloc(sizeof(*e))))
			goto fail;
		memcpy(v[n++], e, sizeof(*e));
		errno = 0;
	}
	if (errno)
		goto fail;
	wincompat_closedir(d);
	if (cmp && n)
		qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))cmp);
	*list = v;
	return (int)n;
fail:;
	int err = errno ? errno : ENOMEM;
	while (n)
		free(v[--n]);
	free(v);
	wincompat_closedir(d);
	errno = err;
	return -1;
}
