/* propagate.c - the backend's own propagation of inheritable ACEs (issue
 * 32 §5; platforms/windows/README.md, "Propagation").
 *
 * Why not SetSecurityInfo's: it "imposes the current inheritance model on
 * the ACLs of all objects in the hierarchy below the target object" by name
 * ("Automatic Propagation of Inheritable ACEs"), and whether that walk
 * enters a junction is not documented.  The capability SID is the same for
 * every run of a workspace, so a junction the command planted in one run
 * would, if followed, carry the next run's allow ACEs to its target.  So
 * the backend sets a DACL with SetKernelObjectSecurity, which sets the one
 * object (the low-level form; "security applied to a directory is not
 * inherited by its children", SetFileSecurity), and walks the tree itself:
 *   - children are listed through the directory's handle
 *     (GetFileInformationByHandleEx, FileIdBothDirectoryInfo) and each is
 *     opened relative to that handle (NtCreateFile with RootDirectory) with
 *     FILE_OPEN_REPARSE_POINT: the object itself, never what it points to;
 *   - a reparse point's own DACL is recomputed, but it is never descended
 *     (a cloud-file placeholder directory excepted: winreparse.h accepts
 *     its tag, read from the handle, as the object itself): the walk cannot
 *     leave the tree through a junction or link, whatever the command
 *     planted;
 *   - a child reachable by another name is left as it is: a file with more
 *     than one hard link (the object may be outside too), a directory whose
 *     final path is not its parent's plus its name (a link not flagged as a
 *     reparse point: Wine's Unix symlinks);
 *   - each child's new DACL is its explicit ACEs plus what it inherits from
 *     its parent, computed by CreatePrivateObjectSecurityEx with
 *     SEF_DACL_AUTO_INHERIT (the documented inheritance rules), and set with
 *     SetKernelObjectSecurity; a child with a protected DACL inherits
 *     nothing and is not descended (nothing below it inherits from above).
 * Depth is bounded (WALK_MAX_DEPTH): deeper is refused (ELOOP), fail closed.
 * The cost is one DACL written per object below, per apply and per restore:
 * the model measures it (platforms/windows/model, test_winmodel_walk). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "winenf.h"
#include "winreparse.h"

#include <aclapi.h> /* after windows.h */
#include <winternl.h>

#define WALK_MAX_DEPTH 256
#define WALK_SHARE (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
#define WALK_BUF (64 * 1024)

/* A child opened as itself, relative to its directory's handle (an empty
 * name: the directory itself); list: with FILE_LIST_DIRECTORY. */
static int child_open(HANDLE dir, const wchar_t *name, ULONG len, bool list, HANDLE *out)
{
	UNICODE_STRING us = {.Buffer = (PWSTR)name, .Length = (USHORT)len,
			     .MaximumLength = (USHORT)len};
	OBJECT_ATTRIBUTES oa;
	IO_STATUS_BLOCK io;
	NTSTATUS st;

	InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE, dir, NULL);
	st = NtCreateFile(out, READ_CONTROL | WRITE_DAC | SYNCHRONIZE | (list ? FILE_LIST_DIRECTORY : 0), &oa,
			  &io, NULL, 0, WALK_SHARE, FILE_OPEN,
			  FILE_OPEN_REPARSE_POINT | FILE_OPEN_FOR_BACKUP_INTENT |
				  FILE_SYNCHRONOUS_IO_NONALERT, NULL, 0);
	return NT_SUCCESS(st) ? 0 : -wenf_errno(RtlNtStatusToDosError(st));
}

/* The explicit ACEs of dacl (those without INHERITED_ACE), newly allocated. */
static PACL explicit_of(PACL dacl)
{
	ACL_SIZE_INFORMATION si;
	PACL out;

	if (!dacl || !GetAclInformation(dacl, &si, sizeof(si), AclSizeInformation))
		return NULL;
	out = LocalAlloc(LPTR, si.AclBytesInUse + sizeof(ACL));
	if (out && !InitializeAcl(out, si.AclBytesInUse + sizeof(ACL), ACL_REVISION)) {
		LocalFree(out);
		out = NULL;
	}
	if (!out)
		return NULL;
	for (DWORD i = 0; i < si.AceCount; i++) {
		ACE_HEADER *a;

		if (GetAce(dacl, i, (void **)&a) && !(a->AceFlags & INHERITED_ACE))
			AddAce(out, ACL_REVISION, MAXDWORD, a, a->AceSize);
	}
	return out;
}

/* child's DACL: its explicit ACEs and what it inherits from parent_sd. */
static int child_resecure(HANDLE child, PSECURITY_DESCRIPTOR parent_sd, bool dir, bool *protect)
{
	static GENERIC_MAPPING fm = {FILE_GENERIC_READ, FILE_GENERIC_WRITE, FILE_GENERIC_EXECUTE,
				     FILE_ALL_ACCESS};
	PSECURITY_DESCRIPTOR cur = NULL, nsd = NULL;
	SECURITY_DESCRIPTOR creator;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	PSID owner = NULL, group = NULL;
	PACL dacl = NULL, ex = NULL;
	DWORD rev, err = GetSecurityInfo(child, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION |
					 GROUP_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
					 &owner, &group, &dacl, NULL, &cur);

	if (err == ERROR_SUCCESS && GetSecurityDescriptorControl(cur, &ctl, &rev) &&
	    (*protect = (ctl & SE_DACL_PROTECTED) != 0)) {
		LocalFree(cur);
		return 0; /* a protected DACL inherits nothing */
	}
	if (err == ERROR_SUCCESS && !(ex = explicit_of(dacl)))
		err = ERROR_NOT_ENOUGH_MEMORY;
	if (err == ERROR_SUCCESS && !(InitializeSecurityDescriptor(&creator, SECURITY_DESCRIPTOR_REVISION) &&
				      SetSecurityDescriptorOwner(&creator, owner, FALSE) &&
				      SetSecurityDescriptorGroup(&creator, group, FALSE) &&
				      SetSecurityDescriptorDacl(&creator, TRUE, ex, FALSE) &&
				      CreatePrivateObjectSecurityEx(parent_sd, &creator, &nsd, NULL, dir,
								    SEF_DACL_AUTO_INHERIT |
									    SEF_AVOID_OWNER_CHECK |
									    SEF_AVOID_PRIVILEGE_CHECK,
								    NULL, &fm) &&
				      SetKernelObjectSecurity(child, DACL_SECURITY_INFORMATION |
							      UNPROTECTED_DACL_SECURITY_INFORMATION, nsd)))
		err = GetLastError() ? GetLastError() : ERROR_INVALID_SECURITY_DESCR;
	if (nsd)
		DestroyPrivateObjectSecurity(&nsd);
	LocalFree(ex);
	LocalFree(cur);
	return err == ERROR_SUCCESS ? 0 : -wenf_errno(err);
}

struct walk {
	unsigned long rewritten, skipped;
	struct wenf_error *e;
};

static int walk(HANDLE dir, int depth, struct walk *w);

/* Whether the opened child c is also reachable by a name outside this walk,
 * so that re-securing it would change an object elsewhere: a file with more
 * than one hard link, or a directory whose final path is not its parent's
 * plus its listed name (what a link that is not flagged as a reparse point
 * would look like: Wine's Unix symlinks).  Such a child is left as it is,
 * on apply and on restore alike: it never received the workspace's ACEs
 * (a link made during a run does not change the object's DACL). */
static bool child_foreign(HANDLE c, bool isdir, const wchar_t *dfinal,
			  const FILE_ID_BOTH_DIR_INFO *fi)
{
	size_t nd = wcslen(dfinal), nn = fi->FileNameLength / sizeof(wchar_t);
	FILE_STANDARD_INFO st;
	wchar_t *want, *got;
	bool differs = true;

	if (!isdir)
		return !GetFileInformationByHandleEx(c, FileStandardInfo, &st, sizeof(st)) ||
		       st.NumberOfLinks > 1;
	want = malloc((nd + nn + 2) * sizeof(wchar_t));
	got = acl_final_path(c);
	if (want && got) {
		memcpy(want, dfinal, nd * sizeof(wchar_t));
		want[nd] = L'\\';
		memcpy(want + nd + 1, fi->FileName, nn * sizeof(wchar_t));
		want[nd + 1 + nn] = 0;
		differs = acl_final_path_differs(want, got);
	}
	free(want);
	free(got);
	return differs;
}

/* Whether a reparse point is one the walk descends: a cloud-file
 * placeholder directory (winreparse.h: the object itself, no other name);
 * every other tag, or one that cannot be read, is never descended. */
static bool descend_reparse(HANDLE c)
{
	FILE_ATTRIBUTE_TAG_INFO ti = {0};

	return GetFileInformationByHandleEx(c, FileAttributeTagInfo, &ti, sizeof(ti)) &&
	       winreparse_accepted(ti.ReparseTag);
}

/* One listed entry: re-secured, and descended when it is a directory (a
 * reparse point only when its tag is accepted); left alone when it is
 * reachable from elsewhere (child_foreign). */
static int walk_entry(HANDLE dir, const wchar_t *dfinal, PSECURITY_DESCRIPTOR sd,
		      const FILE_ID_BOTH_DIR_INFO *fi, int depth, struct walk *w)
{
	bool isdir = (fi->FileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0, protect = false;
	bool reparse = (fi->FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
	HANDLE c = NULL, l = NULL;
	int rc = child_open(dir, fi->FileName, fi->FileNameLength, isdir && !reparse, &c);

	if (rc == 0 && child_foreign(c, isdir, dfinal, fi)) {
		w->skipped++;
		CloseHandle(c);
		return 0;
	}
	if (rc == 0)
		rc = child_resecure(c, sd, isdir, &protect);
	if (rc == 0)
		w->rewritten++;
	if (rc == 0 && isdir && !protect && !reparse)
		rc = walk(c, depth + 1, w);
	else if (rc == 0 && isdir && !protect && descend_reparse(c) &&
		 (rc = child_open(c, L"", 0, true, &l)) == 0) {
		rc = walk(l, depth + 1, w);
		CloseHandle(l);
	}
	if (c)
		CloseHandle(c);
	if (rc < 0 && w->e && !w->e->detail[0])
		wenf_fail(w->e, "acl:propagate", NULL, -rc, "a child of a directory cannot be re-secured");
	return rc;
}

static bool dot(const FILE_ID_BOTH_DIR_INFO *fi)
{
	return (fi->FileNameLength == 2 && fi->FileName[0] == L'.') ||
	       (fi->FileNameLength == 4 && fi->FileName[0] == L'.' && fi->FileName[1] == L'.');
}

static int walk(HANDLE dir, int depth, struct walk *w)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	FILE_INFO_BY_HANDLE_CLASS cls = FileIdBothDirectoryRestartInfo;
	unsigned char *buf = NULL;
	wchar_t *dfinal = NULL;
	int rc = 0;

	if (depth > WALK_MAX_DEPTH)
		return wenf_fail(w->e, "acl:propagate", NULL, ELOOP, "deeper than %d: refused",
				 WALK_MAX_DEPTH);
	if (GetSecurityInfo(dir, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, NULL, NULL,
			    &sd) != ERROR_SUCCESS || !(dfinal = acl_final_path(dir)) ||
	    !(buf = malloc(WALK_BUF))) {
		rc = wenf_fail(w->e, "acl:propagate", NULL, EIO,
			       "a directory's DACL or final path: error %lu", GetLastError());
		goto out;
	}
	while (rc == 0 && GetFileInformationByHandleEx(dir, cls, buf, WALK_BUF)) {
		for (FILE_ID_BOTH_DIR_INFO *fi = (void *)buf; rc == 0;
		     fi = (void *)((unsigned char *)fi + fi->NextEntryOffset)) {
			if (!dot(fi))
				rc = walk_entry(dir, dfinal, sd, fi, depth, w);
			if (!fi->NextEntryOffset)
				break;
		}
		cls = FileIdBothDirectoryInfo;
	}
	if (rc == 0 && GetLastError() != ERROR_NO_MORE_FILES)
		rc = wenf_fail(w->e, "acl:propagate", NULL, wenf_errno(GetLastError()),
			       "listing a directory: error %lu", GetLastError());
out:
	free(buf);
	free(dfinal);
	LocalFree(sd);
	return rc;
}

int acl_propagate(HANDLE dir, unsigned long *rewritten, unsigned long *skipped,
		  struct wenf_error *e)
{
	struct walk w = {.e = e};
	HANDLE d = NULL;
	/* The same directory again, with the right to list it. */
	int rc = child_open(dir, L"", 0, true, &d);

	if (rc < 0)
		return wenf_fail(e, "acl:propagate", NULL, -rc, "a directory reopened to list it");
	rc = walk(d, 0, &w);
	CloseHandle(d);
	if (rewritten)
		*rewritten += w.rewritten;
	if (skipped)
		*skipped += w.skipped;
	return rc;
}
