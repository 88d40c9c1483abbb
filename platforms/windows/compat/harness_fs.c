/* harness_fs.c - fnmatch, glob, nftw, realpath, mkdtemp and symlink for the
 * harness in the windows build (compat/README.md; the headers fnmatch.h,
 * glob.h, ftw.h and wincompat_harness.h say what each supports).  Paths
 * are UTF-8 with '/' or '\' separators; lookups go through the compat
 * layer's own calls (opendir, lstat) so a reparse point is seen as one. */
#include "wincompat_int.h"
#include "wincompat_harness.h"

#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>

/* ---- fnmatch */

/* The bracket expression at p (after '['): *matched, and the pattern after
 * its ']', or NULL when the bracket is not closed (then '[' is literal). */
static const char *bracket(const char *p, char c, int *matched)
{
	int neg = (*p == '!' || *p == '^'), hit = 0;

	if (neg)
		p++;
	for (int first = 1; *p && (first || *p != ']'); first = 0) {
		char lo = *p == '\\' && p[1] ? *++p : *p;
		char hi = lo;

		p++;
		if (*p == '-' && p[1] && p[1] != ']') {
			hi = p[1] == '\\' && p[2] ? p[2] : p[1];
			p += p[1] == '\\' && p[2] ? 3 : 2;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	if (*p != ']')
		return NULL;
	*matched = hit != neg;
	return p + 1;
}

int wincompat_fnmatch(const char *p, const char *s, int flags)
{
	if (flags != 0)
		return FNM_NOMATCH; /* no flag is supported: never a false match */
	for (; *p; p++, s++) {
		int m;
		const char *after;

		switch (*p) {
		case '*':
			while (p[1] == '*')
				p++;
			for (const char *t = s;; t++) {
				if (wincompat_fnmatch(p + 1, t, 0) == 0)
					return 0;
				if (!*t)
					return FNM_NOMATCH;
			}
		case '?':
			if (!*s)
				return FNM_NOMATCH;
			break;
		case '[':
			if (*s && (after = bracket(p + 1, *s, &m))) {
				if (!m)
					return FNM_NOMATCH;
				p = after - 1;
				break;
			}
			if (*s != '[')
				return FNM_NOMATCH;
			break;
		case '\\':
			if (p[1])
				p++;
			/* fall through */
		default:
			if (*s != *p)
				return FNM_NOMATCH;
		}
	}
	return *s ? FNM_NOMATCH : 0;
}

/* ---- glob */

static const char *last_sep(const char *s)
{
	const char *a = strrchr(s, '/'), *b = strrchr(s, '\\');

	return a > b ? a : b;
}

static int glob_add(glob_t *g, size_t *cap, const char *dir, size_t dirlen, const char *name)
{
	char *path;

	if (g->gl_pathc + 1 >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **v = realloc(g->gl_pathv, ncap * sizeof(*v));

		if (!v)
			return -1;
		g->gl_pathv = v;
		*cap = ncap;
	}
	if (!(path = malloc(dirlen + strlen(name) + 1)))
		return -1;
	memcpy(path, dir, dirlen);
	strcpy(path + dirlen, name);
	g->gl_pathv[g->gl_pathc++] = path;
	g->gl_pathv[g->gl_pathc] = NULL;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wincompat_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	const char *sep = last_sep(pattern), *name = sep ? sep + 1 : pattern;
	size_t dirlen = sep ? (size_t)(sep - pattern) + 1 : 0, cap = 0;
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	(void)errfunc;
	memset(g, 0, sizeof(*g));
	if (dirlen >= sizeof(dir) || strcspn(pattern, "*?[") < dirlen) {
		errno = dirlen >= sizeof(dir) ? ENAMETOOLONG : EINVAL;
		return GLOB_ABORTED;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)dirlen, pattern);
	if (!(d = opendir(dirlen ? dir : ".")))
		return GLOB_ABORTED;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' && name[0] != '.')
			continue;
		if (wincompat_fnmatch(name, de->d_name, 0) == 0 &&
		    glob_add(g, &cap, pattern, dirlen, de->d_name) < 0) {
			closedir(d);
			wincompat_globfree(g);
			return GLOB_NOSPACE;
		}
	}
	closedir(d);
	if (g->gl_pathc == 0)
		return GLOB_NOMATCH;
	if (!(flags & GLOB_NOSORT))
		qsort(g->gl_pathv, g->gl_pathc, sizeof(char *), cmp_str);
	return 0;
}

void wincompat_globfree(glob_t *g)
{
	for (size_t i = 0; i < g->gl_pathc; i++)
		free(g->gl_pathv[i]);
	free(g->gl_pathv);
	memset(g, 0, sizeof(*g));
}

/* ---- nftw */

typedef int (*nftw_fn)(const char *, const struct stat *, int, struct FTW *);

static int has_dotdot(const char *p)
{
	for (const char *c = p; *c; c++)
		if ((c == p || c[-1] == '/' || c[-1] == '\\') && c[0] == '.' && c[1] == '.' &&
		    (c[2] == 0 || c[2] == '/' || c[2] == '\\'))
			return 1;
	return 0;
}

/* The names in dir (but . and ..), read in full first: a callback may
 * remove them.  NULL with errno on failure. */
static char **dir_names(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n + 1 >= cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		if (!(v[*n] = strdup(de->d_name)))
			break;
		v[++*n] = NULL;
	}
	closedir(d);
	if (!v)
		v = calloc(1, sizeof(*v));
	return v;
}

static int walk(char *path, size_t len, size_t cap, nftw_fn fn, int flags, int level)
{
	struct FTW f = {.base = (int)(last_sep(path) ? last_sep(path) - path + 1 : 0),
			.level = level};
	struct stat st;
	char **names;
	size_t n;
	int rc = 0;

	if (lstat(path, &st) < 0)
		return fn(path, &st, FTW_NS, &f);
	if (S_ISLNK(st.st_mode))
		return fn(path, &st, FTW_SL, &f);
	if (!S_ISDIR(st.st_mode))
		return fn(path, &st, FTW_F, &f);
	if (!(names = dir_names(path, &n)))
		return fn(path, &st, FTW_DNR, &f);
	if (!(flags & FTW_DEPTH))
		rc = fn(path, &st, FTW_D, &f);
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t nl = strlen(names[i]);

		if (len + 1 + nl >= cap) {
			errno = ENAMETOOLONG;
			rc = -1;
			break;
		}
		path[len] = '/';
		memcpy(path + len + 1, names[i], nl + 1);
		rc = walk(path, len + 1 + nl, cap, fn, flags, level + 1);
		path[len] = 0;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == 0 && (flags & FTW_DEPTH))
		rc = fn(path, &st, FTW_DP, &f);
	return rc;
}

int wincompat_nftw(const char *path, nftw_fn fn, int nopenfd, int flags)
{
	char buf[PATH_MAX];

	(void)nopenfd;
	if (!(flags & FTW_PHYS) || has_dotdot(path) || strlen(path) >= sizeof(buf)) {
		errno = strlen(path) >= sizeof(buf) ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	strcpy(buf, path);
	return walk(buf, strlen(buf), sizeof(buf), fn, flags, 0);
}

/* ---- realpath: the final path of the object the name opens (every
 * reparse point on the way resolved by Windows), as "C:/dir/name". */

static char *final_path(HANDLE h, char *resolved)
{
	wchar_t w[PATH_MAX];
	DWORD n = GetFinalPathNameByHandleW(h, w, PATH_MAX, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	const wchar_t *s = w;
	char *out = resolved ? resolved : malloc(PATH_MAX);
	int len;

	if (n == 0 || n >= PATH_MAX) {
		errno = n ? ENAMETOOLONG : wc_errno_win(GetLastError());
		goto fail;
	}
	if (!wcsncmp(s, L"\\\\?\\UNC\\", 8))
		s += 6, w[6] = L'\\';
	else if (!wcsncmp(s, L"\\\\?\\", 4))
		s += 4;
	if (!out || !(len = WideCharToMultiByte(CP_UTF8, 0, s, -1, out, PATH_MAX, NULL, NULL))) {
		errno = out ? ENAMETOOLONG : ENOMEM;
		goto fail;
	}
	for (char *c = out; *c; c++)
		if (*c == '\\')
			*c = '/';
	return out;
fail:
	if (!resolved)
		free(out);
	return NULL;
}

char *wincompat_realpath(const char *path, char *resolved)
{
	wchar_t *w = wc_wide(path, 0);
	HANDLE h;
	char *r;

	if (!w)
		return NULL;
	h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = wc_errno_win(GetLastError());
		return NULL;
	}
	r = final_path(h, resolved);
	CloseHandle(h);
	return r;
}

/* ---- mkdtemp: CreateDirectoryW never opens an existing name, so a name
 * someone else made (a junction among them) is never taken. */
char *wincompat_mkdtemp(char *templ)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(templ);

	if (n < 6 || strcmp(templ + n - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return NULL;
	}
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		wchar_t *w;
		BOOL ok;

		if (getentropy(r, sizeof(r)) < 0)
			return NULL;
		for (int i = 0; i < 6; i++)
			templ[n - 6 + i] = set[r[i] % (sizeof(set) - 1)];
		if (!(w = wc_wide(templ, 0)))
			return NULL;
		ok = CreateDirectoryW(w, NULL);
		free(w);
		if (ok)
			return templ;
		if (GetLastError() != ERROR_ALREADY_EXISTS) {
			errno = wc_errno_win(GetLastError());
			return NULL;
		}
	}
	errno = EEXIST;
	return NULL;
}

/* ---- symlink: CreateSymbolicLinkW, a directory link when the target (as
 * seen from the link's directory) is a directory now.  Windows needs the
 * privilege or developer mode: EPERM otherwise. */
static int target_is_dir(const char *target, const char *linkpath)
{
	char buf[PATH_MAX];
	const char *sep = last_sep(linkpath);
	int absolute = target[0] == '/' || target[0] == '\\' || (target[0] && target[1] == ':');
	struct stat st;

	if (absolute || !sep)
		snprintf(buf, sizeof(buf), "%s", target);
	else
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(sep - linkpath), linkpath, target);
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
}

int wincompat_symlink(const char *target, const char *linkpath)
{
	wchar_t *t = wc_wide(target, 1), *l = wc_wide(linkpath, 0);
	DWORD flags = target_is_dir(target, linkpath) ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0;
	BOOLEAN ok = FALSE;

	if (t && l) {
		/* 0x2: SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE (developer
		 * mode); a Windows that does not know it refuses the flag. */
		ok = CreateSymbolicLinkW(l, t, flags | 0x2);
		if (!ok && GetLastError() == ERROR_INVALID_PARAMETER)
			ok = CreateSymbolicLinkW(l, t, flags);
		if (!ok)
			errno = wc_errno_win(GetLastError());
	}
	free(t);
	free(l);
	return ok ? 0 : -1;
}
