/* rtwin.c - runtime roots on Windows (platform_runtime_ops, platform.h) and
 * the replay `gc` runs (platform_replay_crashed).
 *
 * canonicalize: a drive path, made absolute against the working directory,
 *   cleaned and judged by the Windows path rules (winpath.h: what they
 *   refuse -- "..", UNC, device and verbatim prefixes, streams, short
 *   names, trailing dots -- is refused here, EINVAL); its longest existing
 *   ancestor opened (reparse points followed: a junction or link resolves,
 *   as POSIX resolves a symlink) and named by GetFinalPathNameByHandleW on
 *   that handle, the rest appended as written.
 * open_parent: from the drive's root, one component at a time, each opened
 *   relative to its parent's handle with O_NOFOLLOW (the compat openat
 *   refuses any reparse point: ELOOP), so no junction below the root can
 *   move the parent.  A missing component (create) is made by NtCreateFile
 *   relative to its parent's handle with the protected owner-only DACL of
 *   rtacl_parent_plan() in the same call: it never exists with another
 *   DACL, and the walk goes on from the handle that create returned (no
 *   name of ours is looked up twice).  The parent's owner and DACL, read through a handle reopened from
 *   the walk's own (never by name), must pass rtacl_parent_check(): -EPERM
 *   otherwise (RT-2: the owner and mode bits the core checks are
 *   synthesised on Windows and prove nothing).
 * Eviction needs nothing here: the core opens every name with O_NOFOLLOW
 *   relative to a handle, and the compat layer reports a reparse point as
 *   S_IFLNK and refuses to open one (compat/README.md), so a junction in a
 *   root is unlinked, never descended. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtacl.h"
#include "winpath.h"
#include "winseam.h"

#include <aclapi.h> /* after windows.h */
#include <sddl.h>
#include <winternl.h>

#define RTWIN_SHARE (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

/* The runner's user SID in string form. */
static int rtwin_user_sid(char out[RTACL_SID_MAX])
{
	BYTE buf[512];
	DWORD n = 0;
	HANDLE tok;
	char *s = NULL;
	int rc = -EIO;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return -wenf_errno(GetLastError());
	if (GetTokenInformation(tok, TokenUser, buf, sizeof(buf), &n) &&
	    ConvertSidToStringSidA(((TOKEN_USER *)buf)->User.Sid, &s)) {
		rc = snprintf(out, RTACL_SID_MAX, "%s", s) < RTACL_SID_MAX ? 0 : -ENAMETOOLONG;
		LocalFree(s);
	}
	CloseHandle(tok);
	return rc;
}

/* NtCreateFile of name relative to root (an empty name: root itself). */
static int rtwin_nt_open(HANDLE root, const wchar_t *name, ACCESS_MASK acc, ULONG disp,
			 ULONG opts, PSECURITY_DESCRIPTOR sd, HANDLE *out)
{
	UNICODE_STRING us = {.Buffer = (PWSTR)name};
	OBJECT_ATTRIBUTES oa;
	IO_STATUS_BLOCK io;
	NTSTATUS st;

	us.Length = us.MaximumLength = (USHORT)(wcslen(name) * sizeof(wchar_t));
	InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE, root, sd);
	st = NtCreateFile(out, acc | SYNCHRONIZE, &oa, &io, NULL, FILE_ATTRIBUTE_NORMAL,
			  RTWIN_SHARE, disp, opts | FILE_SYNCHRONOUS_IO_NONALERT, NULL, 0);
	if (st == (NTSTATUS)0xC0000035L) /* STATUS_OBJECT_NAME_COLLISION */
		return -EEXIST;
	return NT_SUCCESS(st) ? 0 : -wenf_errno(RtlNtStatusToDosError(st));
}

/* The final name of an open object as a clean drive path (UTF-8).  A
 * volume reached only by a UNC or device name is refused (EINVAL). */
static int rtwin_final_path(HANDLE h, char *out, size_t outlen)
{
	wchar_t w[WINPATH_MAX + 1];
	DWORD n = GetFinalPathNameByHandleW(h, w, WINPATH_MAX, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	const wchar_t *p = w;
	char *u;
	int rc = 0;

	if (n == 0 || n >= WINPATH_MAX)
		return n == 0 ? -wenf_errno(GetLastError()) : -ENAMETOOLONG;
	if (!wcsncmp(p, L"\\\\?\\", 4))
		p += 4;
	if (!((p[0] >= L'A' && p[0] <= L'Z') || (p[0] >= L'a' && p[0] <= L'z')) || p[1] != L':')
		return -EINVAL; /* UNC\..., a volume GUID: not a drive path */
	if (!(u = wenf_utf8(p)))
		return -ENOMEM;
	if (snprintf(out, outlen, "%s", u) >= (int)outlen)
		rc = -ENAMETOOLONG;
	free(u);
	return rc;
}

/* path made absolute and clean into abs (PATH_MAX); -EINVAL for what the
 * Windows path rules refuse, a drive-relative or rooted path included. */
static int rtwin_absolute(const char *path, char abs[PATH_MAX])
{
	const char *why;
	char cwd[PATH_MAX];

	if (winpath_is_absolute(path)) {
		if (snprintf(abs, PATH_MAX, "%s", path) >= PATH_MAX)
			return -ENAMETOOLONG;
	} else if (path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':')) {
		return -EINVAL;
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (snprintf(abs, PATH_MAX, "%s\\%s", cwd, path) >= PATH_MAX)
			return -ENAMETOOLONG;
	}
	return winpath_clean(abs, &why) < 0 ? -EINVAL : 0;
}

/* Open the prefix abs[0, plen) following reparse points and name it. */
static int rtwin_name_prefix(const char *abs, size_t plen, char res[PATH_MAX], DWORD *err)
{
	wchar_t *w, *v = NULL;
	char head[PATH_MAX];
	HANDLE h;
	int rc;

	snprintf(head, sizeof(head), "%.*s", (int)plen, abs);
	w = wenf_wide(head);
	if (w && (v = malloc((wcslen(w) + 5) * sizeof(*v))))
		swprintf(v, wcslen(w) + 5, L"\\\\?\\%ls", w);
	free(w);
	if (!v)
		return -ENOMEM;
	h = CreateFileW(v, FILE_READ_ATTRIBUTES, RTWIN_SHARE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	*err = GetLastError();
	free(v);
	if (h == INVALID_HANDLE_VALUE)
		return -wenf_errno(*err);
	rc = rtwin_final_path(h, res, PATH_MAX);
	CloseHandle(h);
	return rc;
}

static int rtwin_canonicalize(const char *path, char *out, size_t outlen)
{
	char abs[PATH_MAX], res[PATH_MAX];
	const char *why;
	size_t plen, rl;
	DWORD err = 0;
	int rc = rtwin_absolute(path, abs);

	if (rc < 0)
		return rc;
	/* the longest existing prefix: abs[0, plen), "C:\" at the shortest */
	for (plen = strlen(abs); (rc = rtwin_name_prefix(abs, plen, res, &err)) < 0;) {
		if ((err != ERROR_FILE_NOT_FOUND && err != ERROR_PATH_NOT_FOUND) || plen <= 3)
			return rc;
		while (plen > 3 && abs[plen - 1] != '\\')
			plen--;
		if (plen > 3)
			plen--; /* drop the separator, keep "C:\" whole */
	}
	rl = strlen(res);
	if (abs[plen]) {
		const char *rest = abs + plen + (abs[plen] == '\\');
		if (snprintf(res + rl, sizeof(res) - rl, "%s%s", res[rl - 1] == '\\' ? "" : "\\",
			     rest) >= (int)(sizeof(res) - rl))
			return -ENAMETOOLONG;
	}
	if (winpath_clean(res, &why) < 0)
		return -EINVAL; /* a final name the rules refuse (a short name) */
	return snprintf(out, outlen, "%s", res) >= (int)outlen ? -ENAMETOOLONG : 0;
}

/* The protected owner-only descriptor of rtacl_parent_plan(), owned by the
 * user (sids[0]), LocalFree()d pieces in *sids and *acl. */
static int rtwin_parent_sd(SECURITY_DESCRIPTOR *sd, PSID sids[RTACL_PLAN_N], PACL *acl)
{
	struct rtacl_ace plan[RTACL_PLAN_N];
	char user[RTACL_SID_MAX];
	DWORD size = sizeof(ACL);
	int rc = rtwin_user_sid(user);

	*acl = NULL;
	memset(sids, 0, RTACL_PLAN_N * sizeof(*sids));
	if (rc == 0)
		rc = rtacl_parent_plan(user, plan);
	for (size_t i = 0; rc == 0 && i < RTACL_PLAN_N; i++) {
		if (!ConvertStringSidToSidA(plan[i].sid, &sids[i]))
			return -wenf_errno(GetLastError());
		size += sizeof(ACCESS_ALLOWED_ACE) + GetLengthSid(sids[i]);
	}
	if (rc < 0)
		return rc;
	if (!(*acl = LocalAlloc(LPTR, size)) || !InitializeAcl(*acl, size, ACL_REVISION))
		return -ENOMEM;
	for (size_t i = 0; i < RTACL_PLAN_N; i++)
		if (!AddAccessAllowedAceEx(*acl, ACL_REVISION, plan[i].flags, plan[i].mask, sids[i]))
			return -wenf_errno(GetLastError());
	/* the owner the check demands (rtacl.h): the user, never the elevated
	 * token's default (Administrators) */
	if (!InitializeSecurityDescriptor(sd, SECURITY_DESCRIPTOR_REVISION) ||
	    !SetSecurityDescriptorOwner(sd, sids[0], FALSE) ||
	    !SetSecurityDescriptorDacl(sd, TRUE, *acl, FALSE) ||
	    !SetSecurityDescriptorControl(sd, SE_DACL_PROTECTED, SE_DACL_PROTECTED))
		return -wenf_errno(GetLastError());
	return 0;
}

/* Create name in the directory dfd with the protected owner-only DACL,
 * atomically (the descriptor is given to the create itself), and open it:
 * *out a directory descriptor of the object the create made, never of
 * what the name leads to later.  0, or -EEXIST when something is there
 * already, or -errno. */
static int rtwin_mkdir_private(int dfd, const char *name, int *out)
{
	SECURITY_DESCRIPTOR sd;
	PSID sids[RTACL_PLAN_N];
	PACL acl;
	HANDLE h;
	wchar_t *w = wenf_wide(name);
	int rc = w ? rtwin_parent_sd(&sd, sids, &acl) : -EINVAL;

	if (rc == 0)
		rc = rtwin_nt_open((HANDLE)_get_osfhandle(dfd), w,
				   FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES, FILE_CREATE,
				   FILE_DIRECTORY_FILE | FILE_OPEN_REPARSE_POINT, &sd, &h);
	/* not inheritable (no OBJ_INHERIT): the descriptor is close-on-exec */
	if (rc == 0 && (*out = _open_osfhandle((intptr_t)h, _O_RDONLY | _O_BINARY | _O_NOINHERIT)) < 0) {
		CloseHandle(h);
		rc = -EMFILE;
	}
	for (size_t i = 0; w && i < RTACL_PLAN_N; i++)
		if (sids[i])
			LocalFree(sids[i]);
	if (w && acl)
		LocalFree(acl);
	free(w);
	return rc;
}

/* The DACL's entries as rtacl data (malloc'd *out). */
static int rtwin_aces(PACL dacl, struct rtacl_ace **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!dacl || dacl->AceCount == 0)
		return 0;
	if (!(*out = calloc(dacl->AceCount, sizeof(**out))))
		return -ENOMEM;
	for (DWORD i = 0; i < dacl->AceCount; i++) {
		ACE_HEADER *a;
		struct rtacl_ace *r = &(*out)[(*n)++];
		char *s = NULL;

		if (!GetAce(dacl, i, (void **)&a))
			return -wenf_errno(GetLastError());
		r->type = a->AceType;
		r->flags = a->AceFlags;
		if (a->AceType != ACCESS_ALLOWED_ACE_TYPE && a->AceType != ACCESS_DENIED_ACE_TYPE)
			continue; /* not understood: refused by the check */
		r->mask = ((ACCESS_ALLOWED_ACE *)a)->Mask;
		if (!ConvertSidToStringSidA(&((ACCESS_ALLOWED_ACE *)a)->SidStart, &s))
			return -wenf_errno(GetLastError());
		snprintf(r->sid, sizeof(r->sid), "%s", s);
		LocalFree(s);
	}
	return 0;
}

/* RT-2 on Windows: the directory fd is open on must pass
 * rtacl_parent_check(), read through a handle reopened from fd's. */
static int rtwin_parent_check(int fd)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	PACL dacl = NULL;
	struct rtacl_ace *aces = NULL;
	char user[RTACL_SID_MAX], *os = NULL;
	const char *why, *who;
	size_t n = 0;
	HANDLE h;
	int rc = rtwin_nt_open((HANDLE)_get_osfhandle(fd), L"", READ_CONTROL, FILE_OPEN,
			       FILE_DIRECTORY_FILE, NULL, &h);

	if (rc < 0)
		return rc;
	DWORD e = GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION |
				  DACL_SECURITY_INFORMATION, &owner, NULL, &dacl, NULL, &sd);
	CloseHandle(h);
	if (e != ERROR_SUCCESS)
		return -wenf_errno(e);
	if ((rc = rtwin_user_sid(user)) == 0 && owner && !ConvertSidToStringSidA(owner, &os))
		rc = -wenf_errno(GetLastError());
	if (rc == 0)
		rc = rtwin_aces(dacl, &aces, &n);
	if (rc == 0)
		rc = rtacl_parent_check(os, user, dacl != NULL, aces, n, &why, &who);
	free(aces);
	if (os)
		LocalFree(os);
	LocalFree(sd);
	return rc;
}

/* The next component of a clean path at *p into comp; false at the end. */
static bool rtwin_next(const char **p, char comp[NAME_MAX + 1], int *rc)
{
	size_t n = strcspn(*p, "\\");

	if (!**p)
		return false;
	if (n > NAME_MAX) {
		*rc = -ENAMETOOLONG;
		return false;
	}
	memcpy(comp, *p, n);
	comp[n] = '\0';
	*p += n + ((*p)[n] == '\\');
	return true;
}

static int rtwin_open_parent(const char *canonical, bool create, int *out_fd)
{
	char clean[PATH_MAX], comp[NAME_MAX + 1], root[4];
	const char *why, *p;
	int fd, rc = 0;

	if (snprintf(clean, sizeof(clean), "%s", canonical) >= (int)sizeof(clean))
		return -ENAMETOOLONG;
	if (!winpath_is_absolute(canonical) || winpath_clean(clean, &why) < 0 ||
	    strcmp(clean, canonical))
		return -EINVAL; /* not a canonical drive path */
	snprintf(root, sizeof(root), "%.3s", canonical);
	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (p = canonical + 3; rtwin_next(&p, comp, &rc);) {
		/* Security: each component relative to its parent's handle,
		 * refused when it is a reparse point (ELOOP). */
		int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (nfd < 0 && errno == ENOENT && create) {
			int m = rtwin_mkdir_private(fd, comp, &nfd);
			if (m < 0 && m != -EEXIST) {
				rc = m;
				break;
			}
			if (m == -EEXIST) /* made by someone else meanwhile */
				nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0) {
			rc = -errno;
			break;
		}
		close(fd);
		fd = nfd;
	}
	if (rc == 0)
		rc = rtwin_parent_check(fd);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*out_fd = fd;
	return 0;
}

/* %LOCALAPPDATA%\sandproof\runtime-private: the user's own, never shared. */
static int rtwin_fallback_parent(char *buf, size_t len)
{
	wchar_t base[MAX_PATH];
	DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", base, MAX_PATH);
	char *u;
	int rc;

	if (n == 0 || n >= MAX_PATH)
		return -ENOENT;
	if (!(u = wenf_utf8(base)))
		return -ENOMEM;
	rc = snprintf(buf, len, "%s\\sandproof\\runtime-private", u) >= (int)len ? -ENAMETOOLONG : 0;
	free(u);
	return rc;
}

static const struct platform_runtime_ops rtwin_ops = {
	.sep = '\\',
	.fold_case = true,
	.canonicalize = rtwin_canonicalize,
	.open_parent = rtwin_open_parent,
	.fallback_parent = rtwin_fallback_parent,
};

const struct platform_runtime_ops *platform_runtime_ops(void)
{
	return &rtwin_ops;
}

/* `gc`: the DACL journals crashed runs left (acl_journal.c), never a live
 * run's (its lock is held: skipped). */
int platform_replay_crashed(bool dry_run, struct platform_replay *r)
{
	struct wenf_error e = {0};
	char *dir = NULL;
	int n;

	*r = (struct platform_replay){.what = "ACL journals"};
	if (dry_run)
		return 0; /* acl_journal_dir() would create the directory */
	n = acl_journal_dir(&dir, &e);
	if (dir)
		snprintf(r->where, sizeof(r->where), "%s", dir);
	if (n == 0)
		n = acl_journal_replay(dir, &e);
	free(dir);
	if (n < 0) {
		r->err = -n;
		snprintf(r->detail, sizeof(r->detail), "%s: %s", e.step, e.detail);
		return n;
	}
	r->replayed = n;
	return 0;
}
