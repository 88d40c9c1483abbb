/* desktop.c - a window station and desktop of the run's own (issue 32 §3).
 *
 * Contract: desktop_create() makes a window station and, in it, a desktop
 * whose DACLs grant full access to SYSTEM, the runner's user and the logon
 * SID of the command's token, nothing else; the command is started on
 * "<station>\<desktop>" (STARTUPINFO.lpDesktop).  So it sees no window of
 * the user's desktop, and the clipboard and global atom table it reaches
 * are its window station's, not the user's (both belong to a window station,
 * "Window Stations").  The sandbox account's processes can start at all only
 * because this desktop grants their logon SID: the interactive desktop does
 * not.  Both objects end with their last handle (desktop_close), so nothing
 * of the host is changed.  CreateDesktop makes the desktop in the calling
 * process's window station: the runner switches to the new one for that
 * call and back (SetProcessWindowStation), before the command exists. */
#include <errno.h>
#include <stdio.h>
#include <wchar.h>

#include "winenf.h"

#include <sddl.h> /* after windows.h */

/* "D:P(A;;GA;;;SY)(A;;GA;;;<user>)(A;;GA;;;<logon>)" as a descriptor. */
static int desk_sd(PSID logon, PSECURITY_DESCRIPTOR *sd, struct wenf_error *e)
{
	unsigned char buf[128];
	TOKEN_USER *tu = (TOKEN_USER *)buf;
	DWORD n = 0;
	HANDLE self;
	wchar_t *u = NULL, *l = NULL, text[512];
	int rc = 0;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &self))
		return wenf_fail(e, "desktop", NULL, wenf_errno(GetLastError()),
				 "OpenProcessToken: error %lu", GetLastError());
	if (!GetTokenInformation(self, TokenUser, buf, sizeof(buf), &n) ||
	    !ConvertSidToStringSidW(tu->User.Sid, &u) || !ConvertSidToStringSidW(logon, &l))
		rc = wenf_fail(e, "desktop", NULL, ENOMEM, "the user or logon SID");
	CloseHandle(self);
	if (rc == 0) {
		swprintf(text, 512, L"D:P(A;;GA;;;SY)(A;;GA;;;%ls)(A;;GA;;;%ls)", u, l);
		if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(text, SDDL_REVISION_1, sd,
									  NULL))
			rc = wenf_fail(e, "desktop", NULL, EINVAL, "the desktop's descriptor");
	}
	LocalFree(u);
	LocalFree(l);
	return rc;
}

/* The desktop, made in d->ws while the process is switched to it. */
static int desk_in_station(struct wdesk *d, SECURITY_ATTRIBUTES *sa, const wchar_t *name,
			   struct wenf_error *e)
{
	HWINSTA old = GetProcessWindowStation();
	DWORD err = 0;

	if (!old || !SetProcessWindowStation(d->ws))
		return wenf_fail(e, "desktop", NULL, wenf_errno(GetLastError()),
				 "SetProcessWindowStation: error %lu", GetLastError());
	d->desk = CreateDesktopW(name, NULL, NULL, 0, GENERIC_ALL, sa);
	if (!d->desk)
		err = GetLastError();
	if (!SetProcessWindowStation(old) && !err)
		err = GetLastError();
	if (err)
		return wenf_fail(e, "desktop", NULL, wenf_errno(err),
				 "CreateDesktopW in the run's window station: error %lu", err);
	return 0;
}

int desktop_create(PSID logon, struct wdesk *d, struct wenf_error *e)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, FALSE};
	wchar_t ws[64], dk[64];
	int rc;

	memset(d, 0, sizeof(*d));
	rc = desk_sd(logon, &sd, e);
	sa.lpSecurityDescriptor = sd;
	swprintf(ws, 64, L"sandproof-%lu-%llu", (unsigned long)GetCurrentProcessId(),
		 (unsigned long long)GetTickCount64());
	swprintf(dk, 64, L"run");
	if (rc == 0) {
		d->ws = CreateWindowStationW(ws, 0, GENERIC_ALL, &sa);
		if (!d->ws)
			rc = wenf_fail(e, "desktop", NULL, wenf_errno(GetLastError()),
				       "CreateWindowStationW: error %lu", GetLastError());
	}
	if (rc == 0)
		rc = desk_in_station(d, &sa, dk, e);
	LocalFree(sd);
	if (rc < 0) {
		desktop_close(d);
		return rc;
	}
	swprintf(d->name, sizeof(d->name) / sizeof(d->name[0]), L"%ls\\%ls", ws, dk);
	return 0;
}

void desktop_close(struct wdesk *d)
{
	if (d->desk)
		CloseDesktop(d->desk);
	if (d->ws)
		CloseWindowStation(d->ws);
	memset(d, 0, sizeof(*d));
}
