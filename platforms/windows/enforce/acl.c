/* acl.c - the ACL plan applied through handles (issue 16, item 1).
 *
 * Contract: every ACE of the plan is applied to the object its path names
 * at the moment of the open, never to whatever a name lookup finds later:
 * the path is opened once with FILE_FLAG_OPEN_REPARSE_POINT |
 * FILE_FLAG_BACKUP_SEMANTICS, the handle is checked, the prior DACL is
 * journalled through it and the new DACL set through it (SetSecurityInfo,
 * never SetNamedSecurityInfo).  A directory swapped for a junction between
 * the check and the change cannot redirect the change: the handle stays on
 * the object that was checked (the junction swap race, SWAP-*).
 *
 * The handle is refused (ELOOP, a typed setup error, nothing applied) when
 *  - the object is a reparse point whose tag the plan's rule refuses
 *    (winreparse.h: junctions, symbolic links, any other name surrogate or
 *    unknown tag, named in the refusal; a cloud-file placeholder, which
 *    OneDrive puts on a synced folder, is accepted: it names no other
 *    object, and this open never follows it), or
 *  - its final path (GetFinalPathNameByHandleW) is not the path asked for:
 *    FILE_FLAG_OPEN_REPARSE_POINT only stops at the last component, so a
 *    junction or link in an ancestor would otherwise redirect the open.
 * Short (8.3) spellings and differently cased paths compare by the final
 * path's own spelling: the plan's paths must be the long, normalised form,
 * and a plan path that is not is refused, never guessed at (fail closed). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <aclapi.h>
#include <sddl.h>

#include "winenf.h"
#include "winreparse.h"

bool acl_attrs_refused(DWORD attrs)
{
	return (attrs & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
}

bool acl_reparse_refused(DWORD attrs, DWORD tag, char *why, size_t n)
{
	if (!(attrs & FILE_ATTRIBUTE_REPARSE_POINT))
		return false;
	winreparse_describe(tag, why, n);
	return !winreparse_accepted(tag);
}

/* The reparse tag of an open handle (0 when it has none or it cannot be read:
 * an unknown tag, refused). */
static DWORD reparse_tag(HANDLE h)
{
	FILE_ATTRIBUTE_TAG_INFO ti = {0};

	return GetFileInformationByHandleEx(h, FileAttributeTagInfo, &ti, sizeof(ti)) ? ti.ReparseTag
										   : 0;
}

/* p without a leading \\?\ (and \\?\UNC\ as \\): the spelling both sides
 * of the comparison share. */
static const wchar_t *path_plain(const wchar_t *p, bool *unc)
{
	*unc = false;
	if (wcsncmp(p, L"\\\\?\\UNC\\", 8) == 0) {
		*unc = true;
		return p + 8;
	}
	if (wcsncmp(p, L"\\\\?\\", 4) == 0)
		return p + 4;
	if (wcsncmp(p, L"\\\\", 2) == 0) {
		*unc = true;
		return p + 2;
	}
	return p;
}

bool acl_final_path_differs(const wchar_t *want, const wchar_t *final)
{
	bool uw, uf;
	const wchar_t *w = path_plain(want, &uw), *f = path_plain(final, &uf);
	size_t nw = wcslen(w), nf = wcslen(f);

	/* A drive root keeps its separator ("C:\"); nothing else has one. */
	if (nw > 3 && w[nw - 1] == L'\\')
		nw--;
	if (nf > 3 && f[nf - 1] == L'\\')
		nf--;
	if (uw != uf || nw != nf || nw > INT_MAX)
		return true;
	return CompareStringOrdinal(w, (int)nw, f, (int)nf, TRUE) != CSTR_EQUAL;
}

wchar_t *acl_final_path(HANDLE h)
{
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *p;

	if (!n || !(p = malloc(((size_t)n + 1) * sizeof(*p))))
		return NULL;
	if (GetFinalPathNameByHandleW(h, p, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) > n) {
		free(p);
		return NULL;
	}
	return p;
}

int acl_open_checked(const wchar_t *path, DWORD access, HANDLE *out,
		     BY_HANDLE_FILE_INFORMATION *info, struct wenf_error *e)
{
	char *u = wenf_utf8(path);
	const char *up = u ? u : "?";
	HANDLE h = CreateFileW(path, READ_CONTROL | WRITE_DAC | FILE_READ_ATTRIBUTES | access,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING,
			       FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
	wchar_t *fin;
	char why[128];
	int rc = 0;

	*out = INVALID_HANDLE_VALUE;
	if (h == INVALID_HANDLE_VALUE) {
		DWORD err = GetLastError();

		rc = wenf_fail(e, "acl", up, wenf_errno(err), "CreateFileW: error %lu", err);
		free(u);
		return rc;
	}
	if (!GetFileInformationByHandle(h, info))
		rc = wenf_fail(e, "acl", up, wenf_errno(GetLastError()),
			       "GetFileInformationByHandle: error %lu", GetLastError());
	else if (acl_reparse_refused(info->dwFileAttributes, reparse_tag(h), why, sizeof(why)))
		rc = wenf_fail(e, "acl", up, ELOOP, "is a reparse point, %s: refused, nothing applied",
			       why);
	else if (!(fin = acl_final_path(h)))
		rc = wenf_fail(e, "acl", up, wenf_errno(GetLastError()),
			       "GetFinalPathNameByHandleW: error %lu", GetLastError());
	else {
		if (acl_final_path_differs(path, fin))
			rc = wenf_fail(e, "acl", up, ELOOP,
				       "the open was redirected (a junction or link in the "
				       "path, or not its long normalised form): refused");
		free(fin);
	}
	free(u);
	if (rc < 0) {
		CloseHandle(h);
		return rc;
	}
	*out = h;
	return 0;
}

int acl_sddl_of(HANDLE h, wchar_t **out, struct wenf_error *e)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	DWORD err = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				    NULL, NULL, &sd);

	*out = NULL;
	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "acl", NULL, wenf_errno(err), "GetSecurityInfo: error %lu", err);
	if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(
		    sd, SDDL_REVISION_1, DACL_SECURITY_INFORMATION, out, NULL))
		err = GetLastError();
	LocalFree(sd);
	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "acl", NULL, wenf_errno(err), "DACL to SDDL: error %lu", err);
	return 0;
}

int acl_sddl_set(HANDLE h, const wchar_t *sddl, struct wenf_error *e)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev, err = ERROR_SUCCESS;

	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
		return wenf_fail(e, "acl_restore", NULL, EINVAL,
				 "SDDL not understood: error %lu", GetLastError());
	/* The one object (no automatic propagation: propagate.c walks). */
	if (!GetSecurityDescriptorControl(sd, &ctl, &rev) ||
	    !SetKernelObjectSecurity(h, DACL_SECURITY_INFORMATION |
				     ((ctl & SE_DACL_PROTECTED) ? PROTECTED_DACL_SECURITY_INFORMATION
								: UNPROTECTED_DACL_SECURITY_INFORMATION),
				     sd))
		err = GetLastError();
	LocalFree(sd);
	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "acl_restore", NULL, wenf_errno(err),
				 "SetKernelObjectSecurity: error %lu", err);
	return 0;
}

/* nacl set on h alone (SetKernelObjectSecurity: no automatic propagation,
 * propagate.c walks), keeping the protected flag of old_sd. */
static DWORD set_one(HANDLE h, PSECURITY_DESCRIPTOR old_sd, PACL nacl)
{
	SECURITY_DESCRIPTOR sd;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev;

	if (!GetSecurityDescriptorControl(old_sd, &ctl, &rev) ||
	    !InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) ||
	    !SetSecurityDescriptorDacl(&sd, TRUE, nacl, FALSE) ||
	    !SetKernelObjectSecurity(h, DACL_SECURITY_INFORMATION |
				     ((ctl & SE_DACL_PROTECTED) ? PROTECTED_DACL_SECURITY_INFORMATION
								: UNPROTECTED_DACL_SECURITY_INFORMATION),
				     &sd))
		return GetLastError() ? GetLastError() : ERROR_INVALID_SECURITY_DESCR;
	return ERROR_SUCCESS;
}

/* One ACE per SID of the entry merged into h's DACL (deny ACEs ordered first
 * by SetEntriesInAclW), set through h.  dir: h is a directory (a file takes
 * no inheritance flags). */
static int acl_merge(HANDLE h, bool dir, const struct winplan_ace *ace, PSID *sids,
		     struct wenf_error *e)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL old = NULL, nacl = NULL;
	EXPLICIT_ACCESSW ea[WINPLAN_SIDS_MAX];
	DWORD err = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				    &old, NULL, &sd);

	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "acl", ace->path, wenf_errno(err),
				 "GetSecurityInfo: error %lu", err);
	memset(ea, 0, sizeof(ea));
	for (size_t i = 0; i < ace->n_sids; i++) {
		ea[i].grfAccessPermissions = ace->mask;
		ea[i].grfAccessMode = ace->effect == WINPLAN_DENY ? DENY_ACCESS : GRANT_ACCESS;
		ea[i].grfInheritance = dir ? ace->inherit : NO_INHERITANCE;
		ea[i].Trustee.TrusteeForm = TRUSTEE_IS_SID;
		ea[i].Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
		ea[i].Trustee.ptstrName = (LPWSTR)sids[i];
	}
	err = SetEntriesInAclW((ULONG)ace->n_sids, ea, old, &nacl);
	if (err == ERROR_SUCCESS)
		err = set_one(h, sd, nacl);
	LocalFree(nacl);
	LocalFree(sd);
	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "acl", ace->path, wenf_errno(err),
				 "SetEntriesInAclW/SetKernelObjectSecurity: error %lu", err);
	return 0;
}

/* The plan's rule for an absent path is the engine's (same values). */
_Static_assert(WINPLAN_ABSENT_REFUSE == (int)WJ_ABSENT_REFUSE &&
	       WINPLAN_ABSENT_SKIP == (int)WJ_ABSENT_SKIP &&
	       WINPLAN_ABSENT_CREATE_DIR == (int)WJ_ABSENT_CREATE_DIR, "absent rules");

/* The engine's change: the entry's ACEs merged into the object's DACL.  An
 * inherit-only entry on a file would apply to nothing: skipped. */
struct merge_arg {
	const struct winplan_ace *ace;
	PSID *sids;
	struct wenf_error *e;
};

static int merge_change(void *arg, const struct wj_obj *o)
{
	struct merge_arg *m = arg;
	int rc;

	if (!o->dir && (m->ace->inherit & WINPLAN_INHERIT_ONLY))
		return 0;
	rc = acl_merge(o->h, o->dir, m->ace, m->sids, m->e);
	/* An inheritable ACE on a directory reaches what exists below it
	 * through the backend's own walk (propagate.c), never a junction. */
	if (rc == 0 && o->dir && (m->ace->inherit & (WINPLAN_OBJECT_INHERIT | WINPLAN_CONTAINER_INHERIT)))
		rc = acl_propagate(o->h, NULL, NULL, m->e);
	return rc;
}

int acl_apply(const struct winplan_ace *ace, const struct wenf_sids *s, struct acl_journal *j,
	      bool *applied, struct wenf_error *e)
{
	PSID sids[WINPLAN_SIDS_MAX];
	struct acl_wj ctx = {.j = j, .e = e};
	struct wj_ops ops = acl_wj_ops(&ctx);
	struct merge_arg m = {.ace = ace, .sids = sids, .e = e};
	int rc;

	*applied = false;
	if (!ace->n_sids || ace->n_sids > WINPLAN_SIDS_MAX || !ace->mask)
		return wenf_fail(e, "acl", ace->path, EINVAL, "ACE without SID or access mask");
	for (size_t i = 0; i < ace->n_sids; i++)
		if (!(sids[i] = token_plan_sid(ace->sids[i], s)))
			return wenf_fail(e, "acl", ace->path, EINVAL, "ACE without SID");
	/* The engine journals (an intent before a placeholder, the prior DACL
	 * before the change), flushed, before it changes anything. */
	rc = wj_apply(&ops, ace->path, (enum wj_absent)ace->absent,
		      (ace->inherit & (WINPLAN_OBJECT_INHERIT | WINPLAN_CONTAINER_INHERIT)) != 0,
		      merge_change, &m, applied);
	if (rc == -ENOENT)
		return wenf_fail(e, "acl", ace->path, ENOENT,
				 "does not exist and the plan does not allow it absent");
	if (rc == -EINVAL && e && !e->detail[0])
		return wenf_fail(e, "acl", ace->path, EINVAL, "a path or SDDL holding a tab or newline");
	return rc;
}
