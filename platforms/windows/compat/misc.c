/* misc.c - ids, anonymous memory, strndup, uname.
 *
 * geteuid/getuid: 0.  Windows has no uid; the file ownership the runtime
 * roots compare (st_uid == geteuid()) is then always equal, and the
 * guarantee it gave on POSIX (no other user's directory is adopted or
 * evicted) must come from the directory's ACL, which the Windows backend
 * sets on the runtime parent (compat/README.md says so for the lead).
 * mmap: anonymous private memory only (MAP_ANONYMOUS, fd -1):
 *   VirtualAlloc reserve + commit, zero-filled, pages materialised on
 *   first touch; MAP_NORESERVE is not honoured (the commit charge is
 *   taken); anything else is EINVAL.  munmap releases a whole mapping
 *   (VirtualFree MEM_RELEASE; len is not used).
 * uname: sysname "Windows", release major.minor.build (RtlGetVersion,
 *   which does not lie about the version), machine x86_64. */
#define _CRT_RAND_S
#include "wincompat_int.h"

uid_t wincompat_geteuid(void)
{
	return 0;
}

void *wincompat_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (addr || fd != -1 || off != 0 || !(flags & MAP_ANONYMOUS) || !(flags & MAP_PRIVATE) ||
	    len == 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	DWORD p = (prot & PROT_WRITE) ? PAGE_READWRITE : (prot & PROT_READ) ? PAGE_READONLY
									     : PAGE_NOACCESS;
	void *m = VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, p);
	if (!m) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return m;
}

int wincompat_munmap(void *addr, size_t len)
{
	(void)len;
	if (!VirtualFree(addr, 0, MEM_RELEASE)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

char *wincompat_strndup(const char *s, size_t n)
{
	size_t l = strnlen(s, n);
	char *d = malloc(l + 1);

	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(d, s, l);
	d[l] = 0;
	return d;
}

int wincompat_uname(struct utsname *u)
{
	RTL_OSVERSIONINFOW v = {.dwOSVersionInfoSize = sizeof(v)};
	NTSTATUS (NTAPI *get)(RTL_OSVERSIONINFOW *) = NULL;
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");
	DWORD n = sizeof(u->nodename);

	memset(u, 0, sizeof(*u));
	snprintf(u->sysname, sizeof(u->sysname), "Windows");
	snprintf(u->machine, sizeof(u->machine), "x86_64");
	if (nt)
		get = (NTSTATUS (NTAPI *)(RTL_OSVERSIONINFOW *))(void (*)(void))GetProcAddress(
			nt, "RtlGetVersion");
	if (get && get(&v) == 0)
		snprintf(u->release, sizeof(u->release), "%lu.%lu.%lu", v.dwMajorVersion,
			 v.dwMinorVersion, v.dwBuildNumber);
	if (!GetComputerNameA(u->nodename, &n))
		snprintf(u->nodename, sizeof(u->nodename), "unknown");
	return 0;
}

/* getentropy: the system's random generator (rand_s: RtlGenRandom), at
 * most 256 bytes, as POSIX says. */
int wincompat_getentropy(void *buf, size_t len)
{
	unsigned char *p = buf;

	if (len > 256) {
		errno = EIO;
		return -1;
	}
	for (size_t i = 0; i < len; i += sizeof(unsigned int)) {
		unsigned int r;
		if (rand_s(&r) != 0) {
			errno = EIO;
			return -1;
		}
		memcpy(p + i, &r, len - i < sizeof(r) ? len - i : sizeof(r));
	}
	return 0;
}

/* Binary stdio: the CRT opens stdin, stdout and stderr in text mode
 * ("\n" written as "\r\n", ^Z read as the end); POSIX code, its JSON
 * lines and its golden outputs expect bytes.  Run before main (the link
 * keeps this object: --undefined=wincompat_binary_stdio). */
__attribute__((constructor)) void wincompat_binary_stdio(void);
__attribute__((constructor)) void wincompat_binary_stdio(void)
{
	_fmode = _O_BINARY;
	for (int fd = 0; fd < 3; fd++)
		_setmode(fd, _O_BINARY);
}
