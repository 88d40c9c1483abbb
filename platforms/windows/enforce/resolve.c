/* resolve.c - the command's executable, found by the request's own PATH.
 *
 * Contract (winseam_resolve): CreateProcess left to search by itself would
 * look in the runner's directory, the current directory and the runner's
 * PATH; the command gets exactly the request's environment, so its PATH is
 * the one searched.  A name holding '\\', '/' or ':' is a path (relative
 * ones to the request's cwd), tried as is and with ".exe"; a bare name is
 * tried in each PATH entry, as is, then with ".exe" and ".com" when it has
 * no extension.  A batch file (.bat, .cmd) is refused with -ENOEXEC:
 * CreateProcess would hand it to cmd.exe, which splits the command line by
 * other rules than CommandLineToArgvW, so an argument could inject a
 * command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "resolve.h"
#include "winenf.h"

static bool ends_with(const wchar_t *s, const wchar_t *suf)
{
	size_t n = wcslen(s), m = wcslen(suf);

	return n >= m && _wcsicmp(s + n - m, suf) == 0;
}

/* 1 when dir\name+ext is an existing file (*out set), 0 when not, -errno. */
static int try_one(const wchar_t *dir, const wchar_t *name, const wchar_t *ext, wchar_t **out)
{
	size_t len = (dir ? wcslen(dir) + 1 : 0) + wcslen(name) + wcslen(ext) + 1;
	wchar_t *c = malloc(len * sizeof(*c));
	DWORD a;

	if (!c)
		return -ENOMEM;
	swprintf(c, len, L"%ls%ls%ls%ls", dir ? dir : L"", dir ? L"\\" : L"", name, ext);
	a = GetFileAttributesW(c);
	if (a == INVALID_FILE_ATTRIBUTES || (a & FILE_ATTRIBUTE_DIRECTORY)) {
		free(c);
		return 0;
	}
	*out = c;
	return 1;
}

static int try_exts(const wchar_t *dir, const wchar_t *name, wchar_t **out)
{
	static const wchar_t *const exts[] = {L"", L".exe", L".com"};
	bool bare = !wcschr(name, L'.');
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < 3; i++)
		if (i == 0 || bare)
			rc = try_one(dir, name, exts[i], out);
	return rc;
}

/* The request environment's PATH value, or NULL. */
static const char *env_path(const struct request *req)
{
	for (size_t i = 0; i < req->env.n; i++)
		if (_strnicmp(req->env.v[i], "PATH=", 5) == 0)
			return req->env.v[i] + 5;
	return NULL;
}

static int search_path(const struct request *req, const wchar_t *name, wchar_t **out)
{
	const char *path = env_path(req);
	wchar_t *wp = path ? wenf_wide(path) : NULL, *d = wp;
	int rc = 0;

	if (path && !wp)
		return -ENOMEM;
	while (d && rc == 0) {
		wchar_t *semi = wcschr(d, L';');

		if (semi)
			*semi = L'\0';
		if (*d)
			rc = try_exts(d, name, out);
		d = semi ? semi + 1 : NULL;
	}
	free(wp);
	return rc;
}

int winseam_resolve(const struct request *req, wchar_t **out)
{
	wchar_t *name = wenf_wide(req->command.v[0]), *cwd = NULL;
	int rc;

	*out = NULL;
	if (!name)
		return -ENOMEM;
	if (wcspbrk(name, L"\\/:")) {
		bool abs = name[0] == L'\\' || name[0] == L'/' || (name[0] && name[1] == L':');

		cwd = abs ? NULL : wenf_wide(req->cwd);
		rc = abs || cwd ? try_exts(cwd, name, out) : -ENOMEM;
	} else {
		rc = search_path(req, name, out);
	}
	free(name);
	free(cwd);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return -ENOENT;
	if (ends_with(*out, L".bat") || ends_with(*out, L".cmd")) {
		free(*out);
		*out = NULL;
		return -ENOEXEC;
	}
	return 0;
}
