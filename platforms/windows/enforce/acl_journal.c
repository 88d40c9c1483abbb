/* acl_journal.c - the crash-safe record of the DACLs a run changed.
 *
 * Contract: before acl.c changes a DACL it appends the prior DACL here, and
 * the entry is on disk (WriteFile + FlushFileBuffers) before the change is
 * made.  After the run acl_journal_restore() sets every prior DACL back in
 * reverse order (so several ACEs on one object end at its original DACL),
 * removes the directories the run created when they are empty, and deletes
 * the journal.  A run that dies before that leaves its journal, which the
 * next run or `gc` replays (acl_journal_replay).
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
 * live run's DACLs would remove its deny ACEs while it runs.
 *
 * An entry names its object by path and identity (volume serial number and
 * file index): the restore opens the path through acl_open_checked (no
 * reparse point, no redirection) and restores only when the identity is
 * the journalled one; another object at that path is refused and the
 * journal kept for a human to look at.
 *
 * Format, one UTF-8 line per entry, tab-separated (a Windows path holds
 * neither tab nor newline; SDDL holds neither):
 *   v1 TAB <volume serial, hex> TAB <file index, hex> TAB <created 0|1>
 *      TAB <SDDL of the prior DACL> TAB <path> LF */
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

int acl_journal_append(struct acl_journal *j, const BY_HANDLE_FILE_INFORMATION *id,
		       bool created, const wchar_t *sddl, const wchar_t *path,
		       struct wenf_error *e)
{
	char *s = wenf_utf8(sddl), *p = wenf_utf8(path), *line = NULL;
	int n = -1, rc;

	if (s && p)
		n = snprintf(NULL, 0, "v1\t%08lx\t%08lx%08lx\t%d\t%s\t%s\n",
			     (unsigned long)id->dwVolumeSerialNumber,
			     (unsigned long)id->nFileIndexHigh, (unsigned long)id->nFileIndexLow,
			     created ? 1 : 0, s, p);
	if (n > 0 && (line = malloc((size_t)n + 1)))
		snprintf(line, (size_t)n + 1, "v1\t%08lx\t%08lx%08lx\t%d\t%s\t%s\n",
			 (unsigned long)id->dwVolumeSerialNumber, (unsigned long)id->nFileIndexHigh,
			 (unsigned long)id->nFileIndexLow, created ? 1 : 0, s, p);
	free(s);
	free(p);
	if (!line)
		return wenf_fail(e, "acl_journal", NULL, ENOMEM, "cannot format an entry");
	rc = write_flushed(j->file, line, (size_t)n);
	free(line);
	if (rc < 0)
		return wenf_fail(e, "acl_journal", NULL, -rc,
				 "cannot write and flush the journal: the DACL is left unchanged");
	j->entries++;
	return 0;
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

/* Split line into its six tab-separated fields in place. */
static bool entry_split(char *line, char *f[6])
{
	for (int i = 0; i < 6; i++) {
		f[i] = line;
		if (i == 5)
			break;
		line = strchr(line, '\t');
		if (!line)
			return false;
		*line++ = '\0';
	}
	return strcmp(f[0], "v1") == 0 && (strcmp(f[3], "0") == 0 || strcmp(f[3], "1") == 0) &&
	       strlen(f[1]) == 8 && strlen(f[2]) == 16 && f[4][0] && f[5][0];
}

/* Restore one entry (see the file comment). */
static int entry_restore(char *line, struct wenf_error *e)
{
	char *f[6], ident[32];
	wchar_t *path, *sddl;
	BY_HANDLE_FILE_INFORMATION info;
	HANDLE h;
	bool created;
	int rc;

	if (!entry_split(line, f))
		return wenf_fail(e, "acl_restore", NULL, EINVAL, "malformed journal entry");
	created = f[3][0] == '1';
	path = wenf_wide(f[5]);
	sddl = wenf_wide(f[4]);
	rc = path && sddl ? acl_open_checked(path, created ? DELETE : 0, &h, &info, e)
			  : wenf_fail(e, "acl_restore", NULL, EINVAL, "entry is not UTF-8");
	if (rc == -ENOENT)
		rc = 0; /* gone: nothing of ours left to restore */
	else if (rc == 0) {
		snprintf(ident, sizeof(ident), "%08lx%08lx%08lx",
			 (unsigned long)info.dwVolumeSerialNumber,
			 (unsigned long)info.nFileIndexHigh, (unsigned long)info.nFileIndexLow);
		if (_strnicmp(ident, f[1], 8) != 0 || _stricmp(ident + 8, f[2]) != 0)
			rc = wenf_fail(e, "acl_restore", f[5], EEXIST,
				       "another object now has this path: not restored");
		if (rc == 0)
			rc = acl_sddl_set(h, sddl, e);
		if (rc == 0 && created) {
			FILE_DISPOSITION_INFO di = {TRUE};

			/* Not empty: left in place (the DACL is restored). */
			SetFileInformationByHandle(h, FileDispositionInfo, &di, sizeof(di));
		}
		CloseHandle(h);
	}
	free(path);
	free(sddl);
	return rc;
}

/* Every entry of buf, last first; every one attempted, the first error kept. */
static int lines_restore(char *buf, size_t len, struct wenf_error *e)
{
	size_t n = 0, k = 0;
	char **v;
	int rc = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	if (len && buf[len - 1] != '\n')
		return wenf_fail(e, "acl_restore", NULL, EINVAL, "journal ends in a torn entry");
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return wenf_fail(e, "acl_restore", NULL, ENOMEM, NULL);
	for (char *p = buf; k < n; k++) {
		char *nl = strchr(p, '\n');

		*nl = '\0';
		v[k] = p;
		p = nl + 1;
	}
	while (k-- > 0) {
		struct wenf_error one;
		int r = entry_restore(v[k], &one);

		if (r < 0 && rc == 0) {
			rc = r;
			if (e)
				*e = one;
		}
	}
	free(v);
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
