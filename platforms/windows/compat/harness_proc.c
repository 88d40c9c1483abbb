/* harness_proc.c - getppid, setenv, unsetenv and getpwuid for the harness
 * and the runner's CLI in the windows build (compat/README.md). */
#include "wincompat_int.h"
#include "wincompat_harness.h"

#include <pwd.h>

/* ProcessBasicInformation as NT lays it out (winternl.h names the parent's
 * field Reserved3). */
struct basic_info {
	NTSTATUS exit_status;
	void *peb;
	ULONG_PTR affinity;
	LONG base_priority;
	ULONG_PTR pid;
	ULONG_PTR parent_pid;
};

/* The pid of the process that created this one (NT records it at
 * creation; it is not updated when that process ends, so it may name a
 * process that is gone, or a later one with the same pid, as a POSIX
 * orphan's getppid would not).  -1 with errno on failure. */
pid_t wincompat_getppid(void)
{
	struct basic_info bi;
	NTSTATUS st = NtQueryInformationProcess(GetCurrentProcess(), ProcessBasicInformation,
						&bi, sizeof(bi), NULL);

	if (st < 0) {
		errno = wc_errno_nt(st);
		return -1;
	}
	return (pid_t)bi.parent_pid;
}

/* Removes name from this process's environment (the CRT's and the OS's:
 * _putenv_s with an empty value removes). */
/* POSIX setenv over the CRT's _putenv_s.  One difference, from the CRT: an
 * empty value removes the variable (Windows keeps no empty variables in the
 * CRT's table). */
int wincompat_setenv(const char *name, const char *value, int overwrite)
{
	if (!name || !*name || strchr(name, '=') || !value) {
		errno = EINVAL;
		return -1;
	}
	if (!overwrite && getenv(name))
		return 0;
	return _putenv_s(name, value) == 0 ? 0 : (errno = ENOMEM, -1);
}

int wincompat_unsetenv(const char *name)
{
	if (!name || !*name || strchr(name, '=')) {
		errno = EINVAL;
		return -1;
	}
	if (!getenv(name))
		return 0;
	return _putenv_s(name, "") == 0 ? 0 : (errno = EINVAL, -1);
}

struct passwd *wincompat_getpwuid(uid_t uid)
{
	static char name[256 * 3];
	static struct passwd pw;
	wchar_t w[257];
	DWORD n = 257;

	if (uid != 0 || !GetUserNameW(w, &n) ||
	    !WideCharToMultiByte(CP_UTF8, 0, w, -1, name, sizeof(name), NULL, NULL))
		return NULL;
	pw = (struct passwd){.pw_name = name, .pw_uid = 0, .pw_gid = 0, .pw_dir = "",
			     .pw_shell = ""};
	return &pw;
}
