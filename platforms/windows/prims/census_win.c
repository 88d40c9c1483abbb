/* census_win.c - census.h on Windows: the process table from a Toolhelp
 * snapshot (CreateToolhelp32Snapshot), each process's creation time
 * (GetProcessTimes) and command line (NtQueryInformationProcess,
 * ProcessCommandLineInformation), judged by wcensus.h's portable rules;
 * files by wcensus's walk.  Only this reading of the OS is native.
 *
 * Not the run's job: a run's job object kills what is in it when it
 * closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, enforce/job.c and
 * proc_job.c), so what outlives a run is what left or was never in its
 * job; the marker and the live parent chain find that.  No mount table
 * exists to list: a census asking for mounts is -EOPNOTSUPP, never an
 * empty answer.  No lock table either: locks are found by contention
 * (lock_held below, over wcensus_add_locks's walk). */
#include "sandproof/census.h"

#include "wcensus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <tlhelp32.h>

#define CMDLINE_CLASS 60 /* ProcessCommandLineInformation (Windows 8.1+) */

typedef LONG(NTAPI *ntqip_fn)(HANDLE, ULONG, PVOID, ULONG, PULONG);

struct ustr { /* UNICODE_STRING */
	USHORT len, max;
	PWSTR buf;
};

static char *utf8(const wchar_t *w, int n)
{
	int m = WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
	char *s = m > 0 ? malloc((size_t)m + 1) : NULL;

	if (s) {
		WideCharToMultiByte(CP_UTF8, 0, w, n, s, m, NULL, NULL);
		s[m] = '\0';
	}
	return s;
}

/* The command line read from the process's PEB (x64 layout: the
 * ProcessParameters pointer at PEB+0x20, their CommandLine at +0x70), for
 * where ProcessCommandLineInformation is not answered (before Windows
 * 8.1; Wine 8).  NULL when any read fails. */
static char *peb_cmdline(HANDLE h, ntqip_fn ntqip)
{
	struct { PVOID r1; PVOID peb; PVOID r2[4]; } basic; /* PROCESS_BASIC_INFORMATION */
	PVOID params = NULL;
	struct ustr cl;
	wchar_t *w;
	char *s = NULL;
	SIZE_T got;

	if (ntqip(h, 0, &basic, sizeof(basic), NULL) < 0 || !basic.peb ||
	    !ReadProcessMemory(h, (char *)basic.peb + 0x20, &params, sizeof(params), &got) || !params ||
	    !ReadProcessMemory(h, (char *)params + 0x70, &cl, sizeof(cl), &got) || !cl.buf || !cl.len ||
	    !(w = malloc(cl.len)))
		return NULL;
	if (ReadProcessMemory(h, cl.buf, w, cl.len, &got) && got == cl.len)
		s = utf8(w, cl.len / 2);
	free(w);
	return s;
}

/* Creation time and command line of pid, when it can be opened. */
static void proc_details(struct wcensus_proc *p, ntqip_fn ntqip)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, p->pid);
	FILETIME c, e, k, u;
	static union { struct ustr s; char raw[65536]; } info;
	ULONG got = 0;

	if (!h)
		return;
	if (GetProcessTimes(h, &c, &e, &k, &u))
		p->created = ((uint64_t)c.dwHighDateTime << 32) | c.dwLowDateTime;
	if (ntqip && ntqip(h, CMDLINE_CLASS, &info, sizeof(info), &got) >= 0 && info.s.buf &&
	    info.s.len / 2 > 0)
		p->cmdline = utf8(info.s.buf, info.s.len / 2);
	CloseHandle(h);
	if (p->cmdline || !ntqip ||
	    !(h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, p->pid)))
		return;
	p->cmdline = peb_cmdline(h, ntqip);
	CloseHandle(h);
}

static void table_free(struct wcensus_proc *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].cmdline);
	free(v);
}

static int table_read(struct wcensus_proc **out, size_t *n)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W pe = {.dwSize = sizeof(pe)};
	ntqip_fn ntqip = (ntqip_fn)(void (*)(void))GetProcAddress(GetModuleHandleW(L"ntdll.dll"),
								 "NtQueryInformationProcess");
	struct wcensus_proc *v = NULL;
	size_t cap = 0;
	BOOL more;

	*out = NULL;
	*n = 0;
	if (snap == INVALID_HANDLE_VALUE)
		return -EIO;
	for (more = Process32FirstW(snap, &pe); more; more = Process32NextW(snap, &pe)) {
		if (*n == cap) {
			struct wcensus_proc *w = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

			if (!w) {
				table_free(v, *n);
				CloseHandle(snap);
				*n = 0;
				return -ENOMEM;
			}
			v = w;
		}
		struct wcensus_proc *p = &v[(*n)++];
		char *exe = utf8(pe.szExeFile, -1);

		memset(p, 0, sizeof(*p));
		p->pid = pe.th32ProcessID;
		p->ppid = pe.th32ParentProcessID;
		snprintf(p->exe, sizeof(p->exe), "%s", exe ? exe : "?");
		free(exe);
		proc_details(p, ntqip);
	}
	CloseHandle(snap);
	*out = v;
	return 0;
}

/* Whether another handle holds a lock on path: an exclusive lock on every
 * byte (the range compat/flock.c's flock takes, so a lease ref holds,
 * shared or exclusive, conflicts), failing at once instead of waiting,
 * and released at once when granted.  A file whose open is a sharing
 * violation is held too (a handle that lets no reader in).  The link is
 * never followed (FILE_FLAG_OPEN_REPARSE_POINT; the walk asks only about
 * regular files).  1 held, 0 free, -ENOENT gone, -EACCES or -EIO not
 * asked.  Security: a momentary exclusive lock: a runner or gc taking a
 * lease while it is held sees it busy (gc skips the root), never a lease
 * lost; the census runs after the runs it looks at. */
static int lock_held(const char *path, void *arg)
{
	wchar_t w[4200];
	OVERLAPPED ov = {0};
	HANDLE h;
	DWORD e;
	int held = 0;

	(void)arg;
	if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, 4200))
		return -ENAMETOOLONG;
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		e = GetLastError();
		if (e == ERROR_SHARING_VIOLATION)
			return 1;
		return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? -ENOENT :
		       e == ERROR_ACCESS_DENIED ? -EACCES : -EIO;
	}
	if (LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD, &ov))
		held = UnlockFileEx(h, 0, MAXDWORD, MAXDWORD, &ov) ? 0 : -EIO;
	else
		held = GetLastError() == ERROR_LOCK_VIOLATION ? 1 : -EIO;
	CloseHandle(h);
	return held;
}

int census_take(const struct census_opts *o, struct census *out)
{
	struct wcensus_proc *v;
	size_t n;
	int rc;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!o)
		return -EINVAL;
	if (o->mount_prefixes && o->mount_prefixes[0])
		return -EOPNOTSUPP; /* no mount table to list */
	if ((rc = table_read(&v, &n)) < 0)
		return rc;
	rc = wcensus_add_procs(out, v, n, (uint32_t)GetCurrentProcessId(), o->marker);
	table_free(v, n);
	if (rc == 0)
		rc = wcensus_add_files(out, o->temp_dirs);
	if (rc == 0 && o->lock_dir)
		rc = wcensus_add_locks(out, o->lock_dir, lock_held, NULL);
	return rc;
}

int census_diff(const struct census *before, const struct census *after, struct census *added)
{
	return wcensus_diff(before, after, added);
}

void census_free(struct census *c)
{
	wcensus_free(c);
}

const char *census_kind_name(enum census_kind k)
{
	return wcensus_kind_name(k);
}

const struct census_proc *census_find(const struct census_proc *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}
