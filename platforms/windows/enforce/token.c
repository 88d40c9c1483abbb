/* token.c - the restricted token the command runs under (issues 16, 32).
 *
 * Contract: token_restricted_create() derives a primary token from a base
 * token (the runner's own, or the sandbox account's logon: account.c) with
 * CreateRestrictedToken, exactly the plan's flags (LUA_TOKEN,
 * WRITE_RESTRICTED; a flag this file does not know is refused, EINVAL) and
 * restricting SIDs, and the plan's rule for the rest (winplan.h, "The
 * token"):
 *   - every group of the base token is passed to SidsToDisable (made
 *     deny-only: its allow ACEs grant nothing, its deny ACEs still stop the
 *     command) but those winplan_token_keeps() keeps: Administrators and
 *     every other administrative or domain group are deny-only even when an
 *     elevated runner holds them enabled (§2 of issue 32);
 *   - every privilege but the plan's keep_privilege (SeChangeNotifyPrivilege)
 *     is passed to PrivilegesToDelete.  Not DISABLE_MAX_PRIVILEGE: the
 *     documents say it *disables* the others, and it makes
 *     PrivilegesToDelete ignored; a disabled privilege can be enabled again;
 *   - integrity lowered to the plan's level (medium) when above, never raised.
 * Then token_verify() reads the new token back and refuses it (EPERM, step
 * "token:verify") when a group the rule disables is still enabled, a
 * privilege but the kept one is still there, or the integrity is above the
 * plan's: the token is never weaker than the plan says, whatever
 * CreateRestrictedToken did.
 *
 * Why not low integrity: every write root would need a low mandatory label
 * (a SACL change on the user's workspace to journal and restore), and the
 * write jail is the write-restricted token plus the ACL plan.
 *
 * The default DACL of the new token grants its user, SYSTEM and the
 * restricting SIDs: a write-restricted process must be able to open the
 * objects it creates itself (its threads, its pipes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <aclapi.h>
#include <bcrypt.h>
#include <sddl.h>

#include "token_int.h"
#include "winenf.h"

#define CAP_DOMAIN L"sandproof-capability-v1"

static int sha256(const void *data, ULONG len, unsigned char out[32])
{
	BCRYPT_ALG_HANDLE alg = NULL;
	BCRYPT_HASH_HANDLE h = NULL;
	NTSTATUS st = BCryptOpenAlgorithmProvider(&alg, BCRYPT_SHA256_ALGORITHM, NULL, 0);

	if (st < 0)
		return -EIO;
	st = BCryptCreateHash(alg, &h, NULL, 0, NULL, 0, 0);
	if (st >= 0)
		st = BCryptHashData(h, (PUCHAR)CAP_DOMAIN, (ULONG)sizeof(CAP_DOMAIN), 0);
	if (st >= 0)
		st = BCryptHashData(h, (PUCHAR)data, len, 0);
	if (st >= 0)
		st = BCryptFinishHash(h, out, 32, 0);
	if (h)
		BCryptDestroyHash(h);
	BCryptCloseAlgorithmProvider(alg, 0);
	return st < 0 ? -EIO : 0;
}

int token_capability_sid(const char *workspace, PSID *out, struct wenf_error *e)
{
	wchar_t *w = wenf_wide(workspace), sidstr[96];
	unsigned char d[32];
	uint32_t v[4];
	int rc;

	*out = NULL;
	if (!w)
		return wenf_fail(e, "token", workspace, EINVAL, "workspace path is not valid UTF-8");
	/* One directory on a case-insensitive volume, one SID. */
	CharUpperBuffW(w, (DWORD)wcslen(w));
	rc = sha256(w, (ULONG)(wcslen(w) * sizeof(*w)), d);
	free(w);
	if (rc < 0)
		return wenf_fail(e, "token", NULL, EIO, "SHA-256 (bcrypt) unavailable");
	for (int i = 0; i < 4; i++)
		v[i] = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 |
		       (uint32_t)d[4 * i + 2] << 16 | (uint32_t)d[4 * i + 3] << 24;
	swprintf(sidstr, 96, L"S-1-5-21-%lu-%lu-%lu-%lu", (unsigned long)v[0],
		 (unsigned long)v[1], (unsigned long)v[2], (unsigned long)v[3]);
	if (!ConvertStringSidToSidW(sidstr, out))
		return wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
				 "ConvertStringSidToSidW: error %lu", GetLastError());
	return 0;
}

int token_logon_sid_of(HANDLE h, PSID *out, struct wenf_error *e)
{
	TOKEN_GROUPS *g = token_groups(h);
	int rc = -ENOENT;

	*out = NULL;
	for (DWORD i = 0; g && i < g->GroupCount; i++) {
		DWORD len;

		if ((g->Groups[i].Attributes & SE_GROUP_LOGON_ID) != SE_GROUP_LOGON_ID)
			continue;
		len = GetLengthSid(g->Groups[i].Sid);
		*out = LocalAlloc(LPTR, len);
		if (*out && CopySid(len, *out, g->Groups[i].Sid))
			rc = 0;
		else
			rc = wenf_fail(e, "token", NULL, ENOMEM, "cannot copy the logon SID");
		break;
	}
	free(g);
	if (rc == -ENOENT)
		wenf_fail(e, "token", NULL, ENOENT, "no logon SID in the token");
	return rc;
}

int token_logon_sid(PSID *out, struct wenf_error *e)
{
	HANDLE h;
	int rc;

	*out = NULL;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &h))
		return wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
				 "OpenProcessToken: error %lu", GetLastError());
	rc = token_logon_sid_of(h, out, e);
	CloseHandle(h);
	return rc;
}

PSID token_plan_sid(enum winplan_sid which, const struct wenf_sids *s)
{
	static SID everyone = {SID_REVISION, 1, {SECURITY_WORLD_SID_AUTHORITY},
			       {SECURITY_WORLD_RID}};

	switch (which) {
	case WINPLAN_SID_CAPABILITY:
		return s ? s->cap : NULL;
	case WINPLAN_SID_LOGON:
		return s ? s->logon : NULL;
	case WINPLAN_SID_EVERYONE:
		return &everyone;
	case WINPLAN_SID_ACCOUNT:
		return s ? s->account : NULL;
	}
	return NULL;
}

bool token_is_elevated(void)
{
	HANDLE h;
	TOKEN_ELEVATION te = {0};
	DWORD n = 0;
	BOOL ok;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &h))
		return false;
	ok = GetTokenInformation(h, TokenElevation, &te, sizeof(te), &n);
	CloseHandle(h);
	return ok && te.TokenIsElevated;
}

/* Lower t's integrity to rid when it is above; never raise it. */
static int token_cap_integrity(HANDLE t, DWORD cap, struct wenf_error *e)
{
	unsigned char buf[64];
	TOKEN_MANDATORY_LABEL *ml = (TOKEN_MANDATORY_LABEL *)buf;
	DWORD n = 0, rid;
	PSID medium = NULL;
	int rc = 0;

	if (!GetTokenInformation(t, TokenIntegrityLevel, buf, sizeof(buf), &n))
		return wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
				 "TokenIntegrityLevel: error %lu", GetLastError());
	rid = *GetSidSubAuthority(ml->Label.Sid, *GetSidSubAuthorityCount(ml->Label.Sid) - 1);
	if (rid <= cap)
		return 0;
	{
		wchar_t str[32];

		swprintf(str, 32, L"S-1-16-%lu", (unsigned long)cap);
		if (!ConvertStringSidToSidW(str, &medium))
			return wenf_fail(e, "token", NULL, ENOMEM, "integrity SID");
	}
	ml->Label.Sid = medium;
	ml->Label.Attributes = SE_GROUP_INTEGRITY;
	if (!SetTokenInformation(t, TokenIntegrityLevel, ml,
				 sizeof(*ml) + GetLengthSid(medium)))
		rc = wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
			       "cannot lower the integrity: error %lu", GetLastError());
	LocalFree(medium);
	return rc;
}

/* The new token's default DACL: GENERIC_ALL for its user, SYSTEM and each
 * restricting SID (see the file comment). */
static int token_default_dacl(HANDLE t, PSID user, PSID *extra, size_t n_extra,
			      struct wenf_error *e)
{
	static SID system = {SID_REVISION, 1, {SECURITY_NT_AUTHORITY},
			     {SECURITY_LOCAL_SYSTEM_RID}};
	EXPLICIT_ACCESSW ea[6];
	PSID who[6];
	size_t n = 0;
	PACL acl = NULL;
	TOKEN_DEFAULT_DACL dd;
	DWORD err;

	who[n++] = user;
	who[n++] = &system;
	for (size_t i = 0; i < n_extra && n < 6; i++)
		who[n++] = extra[i];
	for (size_t i = 0; i < n; i++) {
		memset(&ea[i], 0, sizeof(ea[i]));
		ea[i].grfAccessPermissions = GENERIC_ALL;
		ea[i].grfAccessMode = GRANT_ACCESS;
		ea[i].Trustee.TrusteeForm = TRUSTEE_IS_SID;
		ea[i].Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
		ea[i].Trustee.ptstrName = (LPWSTR)who[i];
	}
	err = SetEntriesInAclW((ULONG)n, ea, NULL, &acl);
	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "token", NULL, wenf_errno(err), "default DACL: error %lu", err);
	dd.DefaultDacl = acl;
	if (!SetTokenInformation(t, TokenDefaultDacl, &dd, sizeof(dd)))
		err = GetLastError();
	LocalFree(acl);
	if (err != ERROR_SUCCESS)
		return wenf_fail(e, "token", NULL, wenf_errno(err),
				 "TokenDefaultDacl: error %lu", err);
	return 0;
}

#define TOKEN_KNOWN_FLAGS (WINPLAN_LUA_TOKEN | WINPLAN_WRITE_RESTRICTED)

/* The restricting SIDs of t, resolved. */
static int restricting(const struct winplan_token *t, const struct wenf_sids *s,
		       SID_AND_ATTRIBUTES rs[4], PSID sids[4], struct wenf_error *e)
{
	if ((t->flags & ~TOKEN_KNOWN_FLAGS) || t->n_restricting > 4)
		return wenf_fail(e, "token", NULL, EINVAL,
				 "the plan asks for token flags 0x%x / %lu restricting SIDs this "
				 "backend cannot apply", (unsigned)t->flags, (unsigned long)t->n_restricting);
	for (size_t i = 0; i < t->n_restricting; i++) {
		sids[i] = token_plan_sid(t->restricting[i], s);
		if (!sids[i])
			return wenf_fail(e, "token", NULL, EINVAL, "restricting SID %lu unknown",
					 (unsigned long)i);
		rs[i].Sid = sids[i];
		rs[i].Attributes = 0;
	}
	return 0;
}

int token_restricted_create(const struct winplan_token *t, HANDLE base,
			    const struct wenf_sids *s, HANDLE *out, struct wenf_error *e)
{
	SID_AND_ATTRIBUTES rs[4];
	PSID sids[4];
	unsigned char ubuf[128];
	TOKEN_USER *tu = (TOKEN_USER *)ubuf;
	HANDLE self = NULL, nt = NULL;
	DWORD n = 0;
	int rc = restricting(t, s, rs, sids, e);

	*out = NULL;
	if (rc < 0)
		return rc;
	if (!base && !OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_QUERY |
				       TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT, &self))
		return wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
				 "OpenProcessToken: error %lu", GetLastError());
	rc = token_derive(t, base ? base : self, rs, &nt, e);
	if (rc == 0 && !GetTokenInformation(nt, TokenUser, ubuf, sizeof(ubuf), &n))
		rc = wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
			       "TokenUser: error %lu", GetLastError());
	if (rc == 0)
		rc = token_default_dacl(nt, tu->User.Sid, sids, t->n_restricting, e);
	if (rc == 0)
		rc = token_cap_integrity(nt, t->integrity, e);
	if (rc == 0)
		rc = token_verify(nt, t, e);
	if (self)
		CloseHandle(self);
	if (rc < 0) {
		if (nt)
			CloseHandle(nt);
		return rc;
	}
	*out = nt;
	return 0;
}
