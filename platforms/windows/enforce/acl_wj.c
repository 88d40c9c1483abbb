/* acl_wj.c - the journal engine's operations (platforms/windows/journal/
 * wjournal.h) as Win32 calls: objects opened through handles that refuse
 * reparse points (acl_open_checked), DACLs read and set through those
 * handles as SDDL, the journal appended and flushed (FlushFileBuffers)
 * before the engine makes the change it undoes.  Failures are reported in
 * the context's wenf_error, each naming its Win32 call and error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "winenf.h"

static struct wenf_error *err_of(void *ctx)
{
	return ((struct acl_wj *)ctx)->e;
}

static int wj_open(void *ctx, const char *path, struct wj_obj *o)
{
	wchar_t *w = wenf_wide(path);
	BY_HANDLE_FILE_INFORMATION info;
	HANDLE h = INVALID_HANDLE_VALUE;
	struct wenf_error one = {0};
	int rc;

	if (!w)
		return wenf_fail(err_of(ctx), "acl", path, EINVAL, "path is not valid UTF-8");

	rc = acl_open_checked(w, 0, &h, &info, &one);
	/* An absent path is the engine's to judge: not reported here. */
	if (rc < 0 && rc != -ENOENT && err_of(ctx))
		*err_of(ctx) = one;
	free(w);
	if (rc < 0)
		return rc;
	o->vol = info.dwVolumeSerialNumber;
	o->idx = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
	o->dir = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
	o->h = h;
	return 0;
}

static void wj_close(void *ctx, struct wj_obj *o)
{
	(void)ctx;
	if (o->h)
		CloseHandle(o->h);
	o->h = NULL;
}

static int wj_get(void *ctx, const struct wj_obj *o, char **sddl)
{
	wchar_t *w = NULL;
	int rc = acl_sddl_of(o->h, &w, err_of(ctx));

	if (rc < 0)
		return rc;
	*sddl = wenf_utf8(w);
	LocalFree(w);
	return *sddl ? 0 : wenf_fail(err_of(ctx), "acl", NULL, ENOMEM, "SDDL as UTF-8");
}

static int wj_set(void *ctx, const struct wj_obj *o, const char *sddl)
{
	wchar_t *w = wenf_wide(sddl);
	int rc = w ? acl_sddl_set(o->h, w, err_of(ctx))
		   : wenf_fail(err_of(ctx), "acl_restore", NULL, EINVAL, "SDDL not UTF-8");

	free(w);
	return rc;
}

static int wj_mkdir(void *ctx, const char *path)
{
	wchar_t *w = wenf_wide(path);
	DWORD err = 0;

	if (!w)
		return wenf_fail(err_of(ctx), "acl", path, EINVAL, "path is not valid UTF-8");
	if (!CreateDirectoryW(w, NULL))
		err = GetLastError();
	free(w);
	if (err == ERROR_ALREADY_EXISTS)
		return -EEXIST;
	return err ? wenf_fail(err_of(ctx), "acl", path, wenf_errno(err),
			       "cannot create the absent directory: error %lu", err)
		   : 0;
}

/* The directory removed through a handle with DELETE, reopened checked and
 * required to be the same object; one with content stays (-ENOTEMPTY). */
static int wj_rmdir(void *ctx, const struct wj_obj *o, const char *path)
{
	wchar_t *w = wenf_wide(path);
	BY_HANDLE_FILE_INFORMATION info;
	FILE_DISPOSITION_INFO di = {TRUE};
	HANDLE h = INVALID_HANDLE_VALUE;
	int rc = w ? acl_open_checked(w, DELETE, &h, &info, NULL) : -EINVAL;

	(void)ctx;
	free(w);
	if (rc < 0)
		return rc;
	if (info.dwVolumeSerialNumber != o->vol ||
	    ((uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow) != o->idx)
		rc = -EEXIST;
	else if (!SetFileInformationByHandle(h, FileDispositionInfo, &di, sizeof(di)))
		rc = GetLastError() == ERROR_DIR_NOT_EMPTY ? -ENOTEMPTY : -wenf_errno(GetLastError());
	CloseHandle(h);
	return rc;
}

static int wj_append(void *ctx, const char *line, size_t len)
{
	struct acl_wj *c = ctx;
	int rc = c->j ? acl_journal_write(c->j, line, len) : -EBADF;

	return rc < 0 ? wenf_fail(c->e, "acl_journal", NULL, -rc, "cannot write and flush the "
				  "journal: nothing changed") : 0;
}

static int wj_propagate(void *ctx, const struct wj_obj *o)
{
	return acl_propagate(o->h, NULL, NULL, err_of(ctx));
}

struct wj_ops acl_wj_ops(struct acl_wj *ctx)
{
	return (struct wj_ops){.ctx = ctx, .open_path = wj_open, .close_obj = wj_close,
			       .get_dacl = wj_get, .set_dacl = wj_set, .make_dir = wj_mkdir,
			       .rmdir_empty = wj_rmdir, .append = wj_append,
			       .propagate = wj_propagate};
}
