/* account.c - the local sandbox account a network-denied run's command runs
 * as (issue 32 §1; platforms/windows/README.md, "Network deny").
 *
 * Why an account: the WFP filters match a process by an access check of
 * its token against a security descriptor (FWPM_CONDITION_ALE_USER_ID).  A
 * capability SID that is only a restricting SID of a write-restricted token
 * is not among the SIDs that check sees enabled, so a filter naming it
 * matches nothing; a token's user SID always is.  So the command's token is
 * derived from a batch logon of a dedicated local user, WINPLAN_ACCOUNT,
 * whose SID the filters name (with the capability SID, for the reading where
 * the match right counts as a write).  Codex's Windows sandbox filters on a
 * dedicated account the same way.
 *
 * Contract:
 *   account_ensure   the account exists (created, elevated, when absent: a
 *                    plain user with a random password nobody keeps), is not
 *                    an administrator (refused, EPERM, otherwise), may log on
 *                    as a batch job (SeBatchLogonRight); its SID;
 *   account_logon    a fresh random password set (NetUserSetInfo, level
 *                    1003) and a batch logon (LogonUserW) under an exclusive
 *                    lock, so concurrent runs never log on with another's
 *                    password; the password lives in memory only for those
 *                    two calls and is wiped.  No secret is ever stored.
 * Every step needs an elevated runner, as network deny already does (WFP);
 * a step that fails refuses the run (step "account"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "winenf.h"

#include <bcrypt.h> /* after windows.h */
#include <lm.h>
#include <ntsecapi.h>

#define PW_LEN 24

/* A random password: letters and digits, and one of each class the default
 * password policy asks for.  Wiped by the caller. */
static int random_password(wchar_t pw[PW_LEN + 1])
{
	static const char set[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char r[PW_LEN];

	if (BCryptGenRandom(NULL, r, sizeof(r), BCRYPT_USE_SYSTEM_PREFERRED_RNG) < 0)
		return -EIO;
	for (int i = 0; i < PW_LEN; i++)
		pw[i] = (wchar_t)set[r[i] % (sizeof(set) - 1)];
	pw[0] = L'S', pw[1] = L'p', pw[2] = L'-', pw[3] = L'7';
	pw[PW_LEN] = L'\0';
	SecureZeroMemory(r, sizeof(r));
	return 0;
}

int account_sid(const char *name, PSID *out, struct wenf_error *e)
{
	wchar_t *w = wenf_wide(name), dom[256];
	DWORD n = 0, nd = 256;
	SID_NAME_USE use;

	*out = NULL;
	if (!w)
		return wenf_fail(e, "account", name, EINVAL, "not valid UTF-8");
	LookupAccountNameW(NULL, w, NULL, &n, dom, &nd, &use);
	if (n && (*out = LocalAlloc(LPTR, n)) && (nd = 256) &&
	    LookupAccountNameW(NULL, w, *out, &n, dom, &nd, &use) && use == SidTypeUser) {
		free(w);
		return 0;
	}
	free(w);
	LocalFree(*out);
	*out = NULL;
	return wenf_fail(e, "account", name, ENOENT, "no such local user");
}

/* Refuse an account in Administrators (directly or through a group). */
static int not_admin(const wchar_t *w, const char *name, struct wenf_error *e)
{
	LOCALGROUP_USERS_INFO_0 *g = NULL;
	DWORD n = 0, total = 0, st;
	unsigned char admins[SECURITY_MAX_SID_SIZE];
	DWORD len = sizeof(admins);
	int rc = 0;

	if (!CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, admins, &len))
		return wenf_fail(e, "account", name, EIO, "the Administrators SID");
	st = NetUserGetLocalGroups(NULL, w, 0, LG_INCLUDE_INDIRECT, (LPBYTE *)&g,
				   MAX_PREFERRED_LENGTH, &n, &total);
	if (st != NERR_Success)
		return wenf_fail(e, "account", name, EIO, "NetUserGetLocalGroups: error %lu", st);
	for (DWORD i = 0; rc == 0 && i < n; i++) {
		unsigned char sid[SECURITY_MAX_SID_SIZE];
		wchar_t dom[256];
		DWORD sl = sizeof(sid), dl = 256;
		SID_NAME_USE use;

		if (LookupAccountNameW(NULL, g[i].lgrui0_name, sid, &sl, dom, &dl, &use) &&
		    EqualSid(sid, admins))
			rc = wenf_fail(e, "account", name, EPERM, "the sandbox account is in "
				       "Administrators: refused");
	}
	NetApiBufferFree(g);
	return rc;
}

static int grant_batch_logon(PSID sid, const char *name, struct wenf_error *e)
{
	LSA_OBJECT_ATTRIBUTES oa;
	LSA_HANDLE pol = NULL;
	LSA_UNICODE_STRING right;
	static wchar_t batch[] = L"SeBatchLogonRight";
	NTSTATUS st;

	memset(&oa, 0, sizeof(oa));
	right.Buffer = batch;
	right.Length = (USHORT)(wcslen(batch) * sizeof(wchar_t));
	right.MaximumLength = right.Length;
	st = LsaOpenPolicy(NULL, &oa, POLICY_CREATE_ACCOUNT | POLICY_LOOKUP_NAMES, &pol);
	if (st == 0)
		st = LsaAddAccountRights(pol, sid, &right, 1);
	if (pol)
		LsaClose(pol);
	if (st != 0)
		return wenf_fail(e, "account", name, EPERM, "LsaAddAccountRights(SeBatchLogonRight): "
				 "error %lu", LsaNtStatusToWinError(st));
	return 0;
}

static int create_user(const wchar_t *w, const char *name, struct wenf_error *e)
{
	wchar_t pw[PW_LEN + 1];
	USER_INFO_1 ui;
	DWORD parm = 0, st;

	if (random_password(pw) < 0)
		return wenf_fail(e, "account", name, EIO, "no random bytes");
	memset(&ui, 0, sizeof(ui));
	ui.usri1_name = (wchar_t *)w;
	ui.usri1_password = pw;
	ui.usri1_priv = USER_PRIV_USER;
	ui.usri1_comment = (wchar_t *)L"sandproof: network-denied runs (no stored password)";
	ui.usri1_flags = UF_SCRIPT | UF_NORMAL_ACCOUNT | UF_DONT_EXPIRE_PASSWD | UF_PASSWD_CANT_CHANGE;
	st = NetUserAdd(NULL, 1, (LPBYTE)&ui, &parm);
	SecureZeroMemory(pw, sizeof(pw));
	if (st != NERR_Success && st != NERR_UserExists)
		return wenf_fail(e, "account", name, st == ERROR_ACCESS_DENIED ? EPERM : EIO,
				 "NetUserAdd: error %lu (creating it needs an elevated runner)", st);
	return 0;
}

int account_ensure(const char *name, PSID *sid, struct wenf_error *e)
{
	wchar_t *w = wenf_wide(name);
	int rc;

	*sid = NULL;
	if (!w)
		return wenf_fail(e, "account", name, EINVAL, "not valid UTF-8");
	rc = account_sid(name, sid, NULL);
	if (rc == -ENOENT)
		rc = create_user(w, name, e);
	if (rc == 0 && !*sid)
		rc = account_sid(name, sid, e);
	if (rc == 0)
		rc = not_admin(w, name, e);
	if (rc == 0)
		rc = grant_batch_logon(*sid, name, e);
	free(w);
	if (rc < 0) {
		LocalFree(*sid);
		*sid = NULL;
	}
	return rc;
}

/* Set a fresh password and log on with it; the password wiped. */
static int set_and_logon(const wchar_t *w, const char *name, HANDLE *token,
			 struct wenf_error *e)
{
	wchar_t pw[PW_LEN + 1];
	USER_INFO_1003 ui;
	DWORD st;
	int rc = 0;

	if (random_password(pw) < 0)
		return wenf_fail(e, "account", name, EIO, "no random bytes");
	ui.usri1003_password = pw;
	st = NetUserSetInfo(NULL, w, 1003, (LPBYTE)&ui, NULL);
	if (st != NERR_Success)
		rc = wenf_fail(e, "account", name, EPERM, "NetUserSetInfo(1003): error %lu", st);
	else if (!LogonUserW(w, L".", pw, LOGON32_LOGON_BATCH, LOGON32_PROVIDER_DEFAULT, token))
		rc = wenf_fail(e, "account", name, wenf_errno(GetLastError()),
			       "LogonUserW(batch): error %lu", GetLastError());
	SecureZeroMemory(pw, sizeof(pw));
	return rc;
}

int account_logon(const char *name, const char *lock_dir, HANDLE *token, struct wenf_error *e)
{
	wchar_t *w = wenf_wide(name), *d = wenf_wide(lock_dir), path[MAX_PATH + 32];
	OVERLAPPED ov = {0};
	HANDLE lk = INVALID_HANDLE_VALUE;
	int rc = 0;

	*token = NULL;
	if (!w || !d)
		rc = wenf_fail(e, "account", name, EINVAL, "not valid UTF-8");
	if (rc == 0) {
		swprintf(path, MAX_PATH + 32, L"%ls\\account.lock", d);
		lk = CreateFileW(path, GENERIC_READ | GENERIC_WRITE,
				 FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
				 OPEN_ALWAYS, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
		if (lk == INVALID_HANDLE_VALUE || !LockFileEx(lk, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov))
			rc = wenf_fail(e, "account", name, wenf_errno(GetLastError()),
				       "the account lock: error %lu", GetLastError());
	}
	if (rc == 0)
		rc = set_and_logon(w, name, token, e);
	if (lk != INVALID_HANDLE_VALUE)
		CloseHandle(lk); /* releases the lock */
	free(w);
	free(d);
	return rc;
}
