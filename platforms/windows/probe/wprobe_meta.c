/* wprobe_meta.c - the probe's link and metadata operations as Win32 calls:
 * symlink (CreateSymbolicLinkW), stat (the path itself, links not
 * followed), list (a directory's names). */
#include "wprobe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#ifndef SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE
#define SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE 0x2
#endif

/* Whether TARGET, read relative to the directory of the link PATH (as the
 * link will resolve it), is a directory: Windows records the kind in the
 * link, so a directory target needs SYMBOLIC_LINK_FLAG_DIRECTORY. */
static bool wprobe_target_is_dir(const wchar_t *target, const wchar_t *path)
{
	bool abs = target[0] == L'\\' || target[0] == L'/' ||
		   (target[0] && target[1] == L':');
	const wchar_t *sep = NULL;
	wchar_t *joined;
	DWORD attrs;

	for (const wchar_t *p = path; *p; p++)
		if (*p == L'\\' || *p == L'/')
			sep = p;
	if (abs || !sep) {
		attrs = GetFileAttributesW(target);
	} else {
		size_t dlen = (size_t)(sep - path) + 1, tlen = wcslen(target);

		joined = malloc((dlen + tlen + 1) * sizeof(*joined));
		if (!joined)
			return false;
		memcpy(joined, path, dlen * sizeof(*joined));
		memcpy(joined + dlen, target, (tlen + 1) * sizeof(*joined));
		attrs = GetFileAttributesW(joined);
		free(joined);
	}
	return attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY);
}

/* Without Developer Mode or SeCreateSymbolicLinkPrivilege this fails with
 * ERROR_PRIVILEGE_NOT_HELD: a host property, not a denial (winerr.h). */
static void wprobe_op_symlink(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	DWORD code = 0, flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
	wchar_t *target = wprobe_wide(a[0], &code);
	wchar_t *path = target ? wprobe_wide(a[1], &code) : NULL;
	bool dir;

	(void)ctx, (void)n;
	if (!target || !path) {
		wprobe_fail(res, code, "path");
		free(target);
		return;
	}
	dir = wprobe_target_is_dir(target, path);
	if (dir)
		flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
	if (!CreateSymbolicLinkW(path, target, flags))
		wprobe_fail(res, GetLastError(), NULL);
	else
		probe_field_bool(res, "directory", dir);
	free(target);
	free(path);
}

static const char *wprobe_type_name(DWORD attrs, DWORD tag)
{
	if (attrs & FILE_ATTRIBUTE_REPARSE_POINT) {
		if (tag == IO_REPARSE_TAG_SYMLINK)
			return "symlink";
		if (tag == IO_REPARSE_TAG_MOUNT_POINT)
			return "junction";
		return "reparse";
	}
	return (attrs & FILE_ATTRIBUTE_DIRECTORY) ? "dir" : "file";
}

/* The path itself: FILE_FLAG_OPEN_REPARSE_POINT opens a link, not what it
 * points to (under Wine a Unix symlink is followed regardless). */
static void wprobe_op_stat(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	BY_HANDLE_FILE_INFORMATION fi;
	FILE_ATTRIBUTE_TAG_INFO tag = {0};
	DWORD code = 0;
	wchar_t *w = wprobe_wide(a[0], &code);
	HANDLE h;
	char attrs[16];

	(void)ctx, (void)n;
	if (!w) {
		wprobe_fail(res, code, "path");
		return;
	}
	h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		wprobe_fail(res, GetLastError(), "open");
		return;
	}
	if (!GetFileInformationByHandle(h, &fi)) {
		wprobe_fail(res, GetLastError(), "info");
		CloseHandle(h);
		return;
	}
	if (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof(tag));
	CloseHandle(h);
	snprintf(attrs, sizeof(attrs), "0x%08lx", (unsigned long)fi.dwFileAttributes);
	probe_field_cstr(res, "type", wprobe_type_name(fi.dwFileAttributes, tag.ReparseTag));
	probe_field_cstr(res, "attributes", attrs);
	probe_field_int(res, "size", ((long long)fi.nFileSizeHigh << 32) | fi.nFileSizeLow);
	probe_field_int(res, "nlink", (long long)fi.nNumberOfLinks);
	probe_field_int(res, "ino", ((long long)fi.nFileIndexHigh << 32) | fi.nFileIndexLow);
	probe_field_int(res, "dev", (long long)fi.dwVolumeSerialNumber);
	if (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		probe_field_int(res, "reparse_tag", (long long)tag.ReparseTag);
}

static int wprobe_cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The sorted names, "\n"-joined, cut at a name boundary to PROBE_DATA_MAX
 * bytes ("truncated" then true); "count" is every name. */
static void wprobe_list_fields(char **names, size_t count, struct probe_res *res)
{
	static char buf[PROBE_DATA_MAX];
	size_t len = 0;
	bool cut = false;

	qsort(names, count, sizeof(*names), wprobe_cmp_str);
	for (size_t i = 0; i < count && !cut; i++) {
		size_t l = strlen(names[i]);

		if (len + (i ? 1 : 0) + l > sizeof(buf)) {
			cut = true;
			break;
		}
		if (i)
			buf[len++] = '\n';
		memcpy(buf + len, names[i], l);
		len += l;
	}
	probe_field_str(res, "entries", buf, len);
	probe_field_int(res, "count", (long long)count);
	probe_field_bool(res, "truncated", cut);
}

/* DIR with "\*" appended (a separator first unless DIR ends with one), as
 * a new string; NULL with the Win32 error in *code. */
static wchar_t *wprobe_pattern(const wchar_t *dir, DWORD *code)
{
	size_t len = wcslen(dir);
	bool sep = len && (dir[len - 1] == L'\\' || dir[len - 1] == L'/');
	wchar_t *p = malloc((len + 3) * sizeof(*p));

	if (!p) {
		*code = ERROR_NOT_ENOUGH_MEMORY;
		return NULL;
	}
	memcpy(p, dir, len * sizeof(*p));
	wcscpy(p + len, sep ? L"*" : L"\\*");
	return p;
}

/* Appends every name of the search h (its first entry in fd) but "." and
 * "..", as UTF-8; 0 or the Win32 error that ended it early. */
static DWORD wprobe_collect(HANDLE h, WIN32_FIND_DATAW *fd, char ***names, size_t *count)
{
	size_t cap = 0;

	do {
		if (wcscmp(fd->cFileName, L".") == 0 || wcscmp(fd->cFileName, L"..") == 0)
			continue;
		if (*count == cap) {
			char **grown = realloc(*names, (cap = cap ? 2 * cap : 64) * sizeof(**names));

			if (!grown)
				return ERROR_NOT_ENOUGH_MEMORY;
			*names = grown;
		}
		(*names)[*count] = wprobe_utf8(fd->cFileName, -1, NULL);
		if (!(*names)[*count])
			return ERROR_NOT_ENOUGH_MEMORY;
		(*count)++;
	} while (FindNextFileW(h, fd));
	return GetLastError() == ERROR_NO_MORE_FILES ? 0 : GetLastError();
}

/* The names in DIR (not "." and ".."), through FindFirstFileW(DIR\*).
 * A path that is not a directory is ENOTDIR (ERROR_DIRECTORY), as
 * opendir(3) would say. */
static void wprobe_op_list(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	WIN32_FIND_DATAW fd;
	DWORD code = 0, attrs;
	size_t count = 0;
	char **names = NULL;
	wchar_t *dir = wprobe_wide(a[0], &code), *pattern;
	HANDLE h;

	(void)ctx, (void)n;
	pattern = dir ? wprobe_pattern(dir, &code) : NULL;
	if (!pattern) {
		wprobe_fail(res, code, "path");
		free(dir);
		return;
	}
	attrs = GetFileAttributesW(dir);
	free(dir);
	if (attrs != INVALID_FILE_ATTRIBUTES && !(attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		wprobe_fail(res, ERROR_DIRECTORY, "open");
		free(pattern);
		return;
	}
	h = FindFirstFileW(pattern, &fd);
	free(pattern);
	if (h == INVALID_HANDLE_VALUE) {
		/* ERROR_FILE_NOT_FOUND on a directory that is there: no names */
		code = GetLastError();
		if (code != ERROR_FILE_NOT_FOUND || attrs == INVALID_FILE_ATTRIBUTES) {
			wprobe_fail(res, code, "open");
			return;
		}
		code = 0;
	} else {
		code = wprobe_collect(h, &fd, &names, &count);
		FindClose(h);
	}
	if (code)
		wprobe_fail(res, code, "read");
	else
		wprobe_list_fields(names, count, res);
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

const struct probe_op wprobe_meta_ops[] = {
	{"symlink", 2, 2, "TARGET PATH", NULL, wprobe_op_symlink},
	{"stat", 1, 1, "PATH", NULL, wprobe_op_stat},
	{"list", 1, 1, "DIR", NULL, wprobe_op_list},
	{NULL, 0, 0, NULL, NULL, NULL},
};
