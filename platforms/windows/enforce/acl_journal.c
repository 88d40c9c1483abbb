/* acl_journal.c - the crash-safe record of the DACLs a run changed: the
 * journal file, its lock and its replay; the record's format and order are
 * the portable engine's (platforms/windows/journal/wjournal.h), whose crash
 * safety a crash-injection test proves on a Linux model.
 *
 * Contract: before acl.c changes anything the engine appends the line that
 * undoes it here (a placeholder's intent before its mkdir, the prior DACL
 * before the change), written and flushed (WriteFile + FlushFileBuffers).
 * After the run acl_journal_restore() replays it (wj_replay: last first, a
 * torn last line skipped, the prior DACLs set back on the same objects, the
 * directories the run made removed when empty) and deletes the journal.  A
 * run that dies before that leaves its journal, which the next run or `gc`
 * replays (acl_journal_replay).
 *
 * Where: %LOCALAPPDATA%\sandproof\acl-journal\run-<pid>-<ticks>.journal.
 * Not next to the runtime roots: a run may have no runtime root, and the
 * journal must be somewhere the command cannot write; a replay sets DACLs
 * with the runner's rights on whatever paths the journal names, so a
 * journal the command could edit would be a way out.  %LOCALAPPDATA% is not
 * writable for the write-restricted token (the ACL plan never grants the
 * capability SID there).
 *
 * A live run holds an exclusive LockFileEx lock on one byte far past the
 * data (JOURNAL_LEASE_OFFSET) for its whole life; a replay takes the same
 * lock fail-immediately and skips the journal when it cannot: restoring a
 * live run's DACLs would remove its deny ACEs while it runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "winenf.h"

#include <sddl.h>

#define JOURNAL_LEASE_OFFSET_HIGH 0x7fff0000u
#define JOURNAL_MAX_BYTES (64u << 20)

static BOOL lease_lock(HANDLE f, DWORD flags)
{
	OVERLAPPED ov = {0};

	ov.OffsetHigh = JOURNAL_LEASE_OFFSET_HIGH;
	return LockFileEx(f, flags, 0, 1, 0, &ov);
}

int acl_journal_dir(char **out, struct wenf_error *e)
{
	wchar_t base[MAX_PATH], dir[MAX_PATH + 40];
	DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", base, MAX_PATH);

	*out = NULL;
	if (!n || n >= MAX_PATH)
		return wenf_fail(e, "acl_journal", NULL, ENOENT, "%%LOCALAPPDATA%% is not set");
	swprintf(dir, MAX_PATH + 40, L"%ls\\sandproof", base);
	if (!CreateDirectoryW(dir, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
		return wenf_fail(e, "acl_journal", NULL, wenf_errno(GetLastError()),
				 "cannot create %%LOCALAPPDATA%%\\sandproof: error %lu",
				 GetLastError());
	wcscat(dir, L"\\acl-journal");
	if (!CreateDirectoryW(dir, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
		return wenf_fail(e, "acl_journal", NULL, wenf_errno(GetLastError()),
				 "cannot create the journal directory: error %lu", GetLastError());
	*out = wenf_utf8(dir);
	return *out ? 0 : wenf_fail(e, "acl_journal", NULL, ENOMEM, NULL);
}

int acl_journal_open(struct acl_journal *j, const char *dir, struct wenf_error *e)
{
	wchar_t *wd = wenf_wide(dir), name[64];
	size_t len;

	memset(j, 0, sizeof(*j));
	j->file = INVALID_HANDLE_VALUE;
	if (!wd)
		return wenf_fail(e, "acl_journal", dir, EINVAL, "not valid UTF-8");
	swprintf(name, 64, L"\\run-%lu-%llu.journal", (unsigned long)GetCurrentProcessId(),
		 (unsigned long long)GetTickCount64());
	len = wcslen(wd) + wcslen(name) + 1;
	j->path = malloc(len * sizeof(wchar_t));
	if (!j->path) {
		free(wd);
		return wenf_fail(e, "acl_journal", dir, ENOMEM, NULL);
	}
	swprintf(j->path, len, L"%ls%ls", wd, name);
	free(wd);
	j->file = CreateFileW(j->path, GENERIC_READ | GENERIC_WRITE | DELETE,
			      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			      CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	if (j->file == INVALID_HANDLE_VALUE || !lease_lock(j->file, LOCKFILE_EXCLUSIVE_LOCK |
							   LOCKFILE_FAIL_IMMEDIATELY)) {
		int rc = wenf_fail(e, "acl_journal", dir, wenf_errno(GetLastError()),
				   "cannot create and lock a journal: error %lu", GetLastError());

		if (j->file != INVALID_HANDLE_VALUE)
			CloseHandle(j->file);
		j->file = INVALID_HANDLE_VALUE;
		free(j->path);
		j->path = NULL;
		return rc;
	}
	return 0;
}

/* The whole of buf at the end of f, then flushed to disk. */
static int write_flushed(HANDLE f, const char *buf, size_t len)
{
	LARGE_INTEGER zero = {0};
	DWORD done;

	if (!SetFilePointerEx(f, zero, NULL, FILE_END))
		return -wenf_errno(GetLastError());
	while (len) {
		if (!WriteFile(f, buf, len > 65536 ? 65536 : (DWORD)len, &done, NULL) || !done)
			return -wenf_errno(GetLastError());
		buf += done;
		len -= done;
	}
	return FlushFileBuffers(f) ? 0 : -wenf_errno(GetLastError());
}

int acl_journal_write(struct acl_journal *j, const char *line, size_t len)
{
	int rc = j->file == INVALID_HANDLE_VALUE ? -EBADF : write_flushed(j->file, line, len);

	if (rc == 0)
		j->entries++;
	return rc;
}

/* The journal's content from its start, NUL-terminated, newly allocated. */
static int read_all(HANDLE f, char **out, size_t *len)
{
	LARGE_INTEGER size, zero = {0};
	char *buf;
	size_t got = 0;
	DWORD n;

	*out = NULL;
	if (!GetFileSizeEx(f, &size) || !SetFilePointerEx(f, zero, NULL, FILE_BEGIN))
		return -wenf_errno(GetLastError());
	if (size.QuadPart < 0 || size.QuadPart > JOURNAL_MAX_BYTES)
		return -EFBIG;
	buf = malloc((size_t)size.QuadPart + 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)size.QuadPart) {
		if (!ReadFile(f, buf + got, (DWORD)((size_t)size.QuadPart - got), &n, NULL) || !n) {
			free(buf);
			return -EIO;
		}
		got += n;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

/* Every entry of buf undone, last first (wj_replay); a torn last line
 * skipped, every other entry attempted, the first error kept. */
static int lines_restore(char *buf, size_t len, struct wenf_error *e)
{
	struct wenf_error one = {0};
	struct acl_wj ctx = {.j = NULL, .e = &one};
	struct wj_ops ops = acl_wj_ops(&ctx);
	struct wj_report rep;
	int rc = wj_replay(&ops, buf, len, &rep);

	if (rc < 0) {
		if (one.detail[0] && e)
			*e = one;
		else
			wenf_fail(e, "acl_restore", NULL, -rc, "%s", rep.why ? rep.why : "replay failed");
	}
	return rc;
}

/* Restore from f (locked by the caller), then delete and close it; on
 * failure it is closed and kept for a later replay. */
static int file_restore(HANDLE f, struct wenf_error *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = read_all(f, &buf, &len);

	if (rc < 0)
		rc = wenf_fail(e, "acl_restore", NULL, -rc, "cannot read the journal");
	else
		rc = lines_restore(buf, len, e);
	free(buf);
	if (rc == 0) {
		FILE_DISPOSITION_INFO di = {TRUE};

		if (!SetFileInformationByHandle(f, FileDispositionInfo, &di, sizeof(di)))
			rc = wenf_fail(e, "acl_restore", NULL, wenf_errno(GetLastError()),
				       "restored, but the journal cannot be deleted: error %lu",
				       GetLastError());
	}
	CloseHandle(f);
	return rc;
}

int acl_journal_restore(struct acl_journal *j, struct wenf_error *e)
{
	int rc = 0;

	if (j->file != INVALID_HANDLE_VALUE)
		rc = file_restore(j->file, e);
	j->file = INVALID_HANDLE_VALUE;
	free(j->path);
	j->path = NULL;
	return rc;
}

int acl_journal_restore_file(const wchar_t *path, struct wenf_error *e)
{
	BY_HANDLE_FILE_INFORMATION info;
	HANDLE f = CreateFileW(path, GENERIC_READ | GENERIC_WRITE | DELETE,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);

	if (f == INVALID_HANDLE_VALUE)
		return wenf_fail(e, "acl_replay", NULL, wenf_errno(GetLastError()),
				 "cannot open a journal: error %lu", GetLastError());
	if (!GetFileInformationByHandle(f, &info) || acl_attrs_refused(info.dwFileAttributes)) {
		CloseHandle(f);
		return wenf_fail(e, "acl_replay", NULL, ELOOP, "journal is a reparse point: refused");
	}
	if (!lease_lock(f, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY)) {
		CloseHandle(f);
		return -EBUSY; /* a live run's */
	}
	return file_restore(f, e);
}

int acl_journal_replay(const char *dir, struct wenf_error *e)
{
	wchar_t *wd = wenf_wide(dir), *pat;
	WIN32_FIND_DATAW fd;
	HANDLE fh;
	size_t len;
	int done = 0, rc = 0;

	if (!wd)
		return wenf_fail(e, "acl_replay", dir, EINVAL, "not valid UTF-8");
	len = wcslen(wd) + MAX_PATH + 2;
	pat = malloc(len * sizeof(*pat));
	if (!pat) {
		free(wd);
		return wenf_fail(e, "acl_replay", dir, ENOMEM, NULL);
	}
	swprintf(pat, len, L"%ls\\run-*.journal", wd);
	fh = FindFirstFileW(pat, &fd);
	for (bool more = fh != INVALID_HANDLE_VALUE; more; more = FindNextFileW(fh, &fd)) {
		struct wenf_error one;
		int r;

		swprintf(pat, len, L"%ls\\%ls", wd, fd.cFileName);
		r = acl_journal_restore_file(pat, &one);
		if (r == 0)
			done++;
		else if (r != -EBUSY && rc == 0) {
			rc = r;
			if (e)
				*e = one;
		}
	}
	if (fh != INVALID_HANDLE_VALUE)
		FindClose(fh);
	free(pat);
	free(wd);
	return rc < 0 ? rc : done;
}

int acl_journal_workspace_lock(const char *dir, PSID cap, HANDLE *out, struct wenf_error *e)
{
	wchar_t *wd = wenf_wide(dir), *sid = NULL, *path;
	size_t len;
	HANDLE f;

	*out = INVALID_HANDLE_VALUE;
	if (!wd || !ConvertSidToStringSidW(cap, &sid)) {
		free(wd);
		return wenf_fail(e, "acl_lock", dir, EINVAL, "cannot name the workspace lock");
	}
	len = wcslen(wd) + wcslen(sid) + 16;
	path = malloc(len * sizeof(*path));
	if (path)
		swprintf(path, len, L"%ls\\ws-%ls.lock", wd, sid);
	LocalFree(sid);
	free(wd);
	if (!path)
		return wenf_fail(e, "acl_lock", dir, ENOMEM, NULL);
	f = CreateFileW(path, GENERIC_READ | GENERIC_WRITE,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_ALWAYS,
			FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(path);
	if (f == INVALID_HANDLE_VALUE)
		return wenf_fail(e, "acl_lock", dir, wenf_errno(GetLastError()),
				 "cannot open the workspace lock: error %lu", GetLastError());
	if (!lease_lock(f, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY)) {
		CloseHandle(f);
		return wenf_fail(e, "acl_lock", dir, EBUSY,
				 "another run on this workspace holds its ACLs: refused (runs on "
				 "one workspace are serialised)");
	}
	*out = f;
	return 0;
}
