/* wprobe_fs.c - the probe's file operations as Win32 calls.
 *
 * Like the POSIX probe, the attacker follows links (CreateFileW without
 * FILE_FLAG_OPEN_REPARSE_POINT: symlinks and junctions are traversed);
 * stat alone opens the link itself.  Every share mode is granted, so the
 * probe's own open never causes the sharing violation it would report. */
#include "wprobe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WPROBE_SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

/* Opening or deleting a directory as a file fails with ERROR_ACCESS_DENIED
 * whatever the ACL says: that is not evidence of a policy, so it is
 * reported as Linux would (EISDIR, the Win32 name kept, "denied" false). */
static void wprobe_fail_path(struct probe_res *res, DWORD code, const wchar_t *w,
			     const char *step)
{
	DWORD attrs;

	if (code == ERROR_ACCESS_DENIED && w &&
	    (attrs = GetFileAttributesW(w)) != INVALID_FILE_ATTRIBUTES &&
	    (attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		probe_res_fail(res, EISDIR, step);
		res->err_name = "EISDIR";
		probe_field_cstr(res, "win32_error", "ERROR_ACCESS_DENIED");
		probe_field_int(res, "win32_code", (long long)code);
		probe_field_bool(res, "denied", false);
		probe_field_bool(res, "is_dir", true);
		return;
	}
	wprobe_fail(res, code, step);
}

/* Opens path (UTF-8) with CreateFileW; INVALID_HANDLE_VALUE after the
 * failure is reported at step. */
static HANDLE wprobe_open(const char *path, DWORD access, DWORD disposition, DWORD flags,
			  const char *step, struct probe_res *res)
{
	DWORD code = 0;
	wchar_t *w = wprobe_wide(path, &code);
	HANDLE h;

	if (!w) {
		wprobe_fail(res, code, step);
		return INVALID_HANDLE_VALUE;
	}
	h = CreateFileW(w, access, WPROBE_SHARE_ALL, NULL, disposition, flags, NULL);
	if (h == INVALID_HANDLE_VALUE)
		wprobe_fail_path(res, GetLastError(), w, step);
	free(w);
	return h;
}

static int wprobe_write_all(HANDLE h, const char *p, size_t n, DWORD *code)
{
	while (n > 0) {
		DWORD chunk = n > 0x40000000 ? 0x40000000 : (DWORD)n, w = 0;

		if (!WriteFile(h, p, chunk, &w, NULL)) {
			*code = GetLastError();
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

/* write: truncate (OPEN_ALWAYS then SetEndOfFile, not CREATE_ALWAYS, which
 * fails with ERROR_ACCESS_DENIED on a hidden or system file whatever the
 * ACL); append: FILE_APPEND_DATA only, so an ACL that allows appending but
 * not overwriting is observed as such. */
static void wprobe_put_text(const char *path, const char *text, bool append,
			    struct probe_res *res)
{
	size_t n = strlen(text);
	DWORD code = 0;
	HANDLE h = wprobe_open(path, append ? FILE_APPEND_DATA : GENERIC_WRITE, OPEN_ALWAYS,
			       FILE_ATTRIBUTE_NORMAL, "open", res);

	if (h == INVALID_HANDLE_VALUE)
		return;
	if (!append && !SetEndOfFile(h)) {
		wprobe_fail(res, GetLastError(), "truncate");
		CloseHandle(h);
		return;
	}
	if (wprobe_write_all(h, text, n, &code) < 0) {
		wprobe_fail(res, code, "write");
		CloseHandle(h);
		return;
	}
	if (!CloseHandle(h)) {
		wprobe_fail(res, GetLastError(), "close");
		return;
	}
	probe_field_int(res, "bytes", (long long)n);
}

static void wprobe_op_write(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_put_text(a[0], a[1], false, res);
}

static void wprobe_op_append(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_put_text(a[0], a[1], true, res);
}

/* create: a new empty file, failing when the name exists (O_EXCL). */
static void wprobe_op_create(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	HANDLE h;

	(void)ctx, (void)n;
	h = wprobe_open(a[0], GENERIC_WRITE, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, "open", res);
	if (h != INVALID_HANDLE_VALUE && !CloseHandle(h))
		wprobe_fail(res, GetLastError(), "close");
}

/* The first PROBE_DATA_MAX bytes and whether more followed. */
static void wprobe_op_read(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	static char buf[PROBE_DATA_MAX + 1];
	DWORD got = 0, r;
	HANDLE h;

	(void)ctx, (void)n;
	h = wprobe_open(a[0], GENERIC_READ, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, "open", res);
	if (h == INVALID_HANDLE_VALUE)
		return;
	while (got < sizeof(buf)) {
		if (!ReadFile(h, buf + got, (DWORD)sizeof(buf) - got, &r, NULL)) {
			wprobe_fail(res, GetLastError(), "read");
			CloseHandle(h);
			return;
		}
		if (r == 0)
			break;
		got += r;
	}
	CloseHandle(h);
	probe_field_str(res, "data", buf, got > PROBE_DATA_MAX ? PROBE_DATA_MAX : got);
	probe_field_int(res, "bytes", (long long)(got > PROBE_DATA_MAX ? PROBE_DATA_MAX : got));
	probe_field_bool(res, "truncated", got > PROBE_DATA_MAX);
}

/* The one-call operations: the call on the paths as UTF-16, its failure
 * reported with no step (as the POSIX probe's single syscalls). */
enum wprobe_call { WP_MKDIR, WP_RENAME, WP_LINK, WP_UNLINK, WP_RMDIR };

static void wprobe_path_call(enum wprobe_call call, char **a, struct probe_res *res)
{
	DWORD code = 0;
	wchar_t *w0 = wprobe_wide(a[0], &code);
	wchar_t *w1 = (w0 && (call == WP_RENAME || call == WP_LINK)) ? wprobe_wide(a[1], &code) : NULL;
	BOOL ok = FALSE;

	if (!w0 || ((call == WP_RENAME || call == WP_LINK) && !w1)) {
		wprobe_fail(res, code, "path");
		free(w0);
		return;
	}
	switch (call) {
	case WP_MKDIR: ok = CreateDirectoryW(w0, NULL); break;
	/* rename(2) replaces an existing file: MOVEFILE_REPLACE_EXISTING */
	case WP_RENAME: ok = MoveFileExW(w0, w1, MOVEFILE_REPLACE_EXISTING); break;
	case WP_LINK: ok = CreateHardLinkW(w1, w0, NULL); break;
	case WP_UNLINK: ok = DeleteFileW(w0); break;
	case WP_RMDIR: ok = RemoveDirectoryW(w0); break;
	}
	if (!ok)
		wprobe_fail_path(res, GetLastError(), call == WP_UNLINK ? w0 : NULL, NULL);
	free(w0);
	free(w1);
}

static void wprobe_op_mkdir(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_path_call(WP_MKDIR, a, res);
}

static void wprobe_op_rename(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_path_call(WP_RENAME, a, res);
}

static void wprobe_op_link(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_path_call(WP_LINK, a, res);
}

static void wprobe_op_unlink(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_path_call(WP_UNLINK, a, res);
}

static void wprobe_op_rmdir(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_path_call(WP_RMDIR, a, res);
}

const struct probe_op wprobe_fs_ops[] = {
	{"write", 2, 2, "PATH TEXT", NULL, wprobe_op_write},
	{"append", 2, 2, "PATH TEXT", NULL, wprobe_op_append},
	{"create", 1, 1, "PATH", NULL, wprobe_op_create},
	{"read", 1, 1, "PATH", NULL, wprobe_op_read},
	{"mkdir", 1, 1, "PATH", NULL, wprobe_op_mkdir},
	{"rename", 2, 2, "FROM TO", NULL, wprobe_op_rename},
	{"link", 2, 2, "EXISTING NEW", NULL, wprobe_op_link},
	{"unlink", 1, 1, "PATH", NULL, wprobe_op_unlink},
	{"rmdir", 1, 1, "PATH", NULL, wprobe_op_rmdir},
	{NULL, 0, 0, NULL, NULL, NULL},
};
