/* wm_ref.c - the reference tokens (wm_ref.h): inputs of the model. */
#include "wm_ref.h"

#include <string.h>

#define EN (WM_SE_GROUP_MANDATORY | WM_SE_GROUP_ENABLED_BY_DEFAULT | WM_SE_GROUP_ENABLED)
#define DENY_ONLY WM_SE_GROUP_USE_FOR_DENY_ONLY

enum logon { INTERACTIVE, SERVICE, BATCH };

/* What every logon of a local user holds; the logon type adds its group. */
static void common_groups(struct wm_token *t, const char *logon, enum logon kind)
{
	wm_token_add_group(t, WM_EVERYONE, EN);
	wm_token_add_group(t, WM_LOCAL_ACCOUNT, EN);
	wm_token_add_group(t, WM_USERS, EN);
	if (kind == SERVICE) {
		wm_token_add_group(t, WM_SERVICE, EN);
	} else if (kind == BATCH) {
		wm_token_add_group(t, WM_BATCH, EN);
	} else {
		wm_token_add_group(t, WM_INTERACTIVE, EN);
		wm_token_add_group(t, WM_CONSOLE_LOGON, EN);
	}
	wm_token_add_group(t, WM_AUTHENTICATED_USERS, EN);
	wm_token_add_group(t, WM_THIS_ORGANIZATION, EN);
	wm_token_add_group(t, WM_LOCAL, EN);
	wm_token_add_group(t, "S-1-5-64-10", EN); /* NTLM Authentication */
	wm_token_add_group(t, logon, EN | WM_SE_GROUP_LOGON_ID);
}

static const char *const user_privs[] = {
	"SeShutdownPrivilege", "SeChangeNotifyPrivilege", "SeUndockPrivilege",
	"SeIncreaseWorkingSetPrivilege", "SeTimeZonePrivilege",
};

static const char *const admin_privs[] = {
	"SeIncreaseQuotaPrivilege", "SeSecurityPrivilege", "SeTakeOwnershipPrivilege",
	"SeLoadDriverPrivilege", "SeSystemProfilePrivilege", "SeSystemtimePrivilege",
	"SeProfileSingleProcessPrivilege", "SeIncreaseBasePriorityPrivilege",
	"SeCreatePagefilePrivilege", "SeBackupPrivilege", "SeRestorePrivilege",
	"SeShutdownPrivilege", "SeDebugPrivilege", "SeSystemEnvironmentPrivilege",
	"SeChangeNotifyPrivilege", "SeRemoteShutdownPrivilege", "SeUndockPrivilege",
	"SeManageVolumePrivilege", "SeImpersonatePrivilege", "SeCreateGlobalPrivilege",
	"SeIncreaseWorkingSetPrivilege", "SeTimeZonePrivilege",
	"SeCreateSymbolicLinkPrivilege", "SeDelegateSessionUserImpersonatePrivilege",
};

static void privs(struct wm_token *t, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wm_token_add_privilege(t, v[i]);
}

static void user_token(struct wm_token *t, const char *sid, const char *logon, enum logon kind)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->user.sid, sid);
	t->no_write_up = true;
	common_groups(t, logon, kind);
}

static void admin_token(struct wm_token *t, bool elevated, bool service)
{
	uint32_t a = elevated ? EN | WM_SE_GROUP_OWNER : DENY_ONLY;

	user_token(t, WM_REF_USER_SID, WM_REF_LOGON_SID, service ? SERVICE : INTERACTIVE);
	wm_token_add_group(t, WM_ADMINISTRATORS, a);
	wm_token_add_group(t, WM_LOCAL_ACCOUNT_ADMIN, elevated ? EN : DENY_ONLY);
	t->integrity = elevated ? WM_IL_HIGH : WM_IL_MEDIUM;
	if (elevated)
		privs(t, admin_privs, sizeof(admin_privs) / sizeof(admin_privs[0]));
	else
		privs(t, user_privs, sizeof(user_privs) / sizeof(user_privs[0]));
}

void wm_ref_token(enum wm_ref which, struct wm_token *t)
{
	switch (which) {
	case WM_REF_ADMIN_ELEVATED:
		admin_token(t, true, false);
		return;
	case WM_REF_ADMIN_FILTERED:
		admin_token(t, false, false);
		return;
	case WM_REF_SERVICE_ADMIN:
		admin_token(t, true, true);
		return;
	case WM_REF_STANDARD_USER:
	case WM_REF_OTHER_USER:
	case WM_REF_SANDBOX_ACCOUNT:
		user_token(t, which == WM_REF_STANDARD_USER ? WM_REF_USER_SID
			      : which == WM_REF_OTHER_USER ? WM_REF_OTHER_SID
							   : WM_REF_ACCOUNT_SID,
			   which == WM_REF_SANDBOX_ACCOUNT ? WM_REF_ACCOUNT_LOGON_SID : WM_REF_LOGON_SID,
			   which == WM_REF_SANDBOX_ACCOUNT ? BATCH : INTERACTIVE);
		t->integrity = WM_IL_MEDIUM;
		privs(t, user_privs, sizeof(user_privs) / sizeof(user_privs[0]));
		return;
	case WM_REF_SYSTEM:
	default:
		memset(t, 0, sizeof(*t));
		strcpy(t->user.sid, WM_SYSTEM);
		t->no_write_up = true;
		wm_token_add_group(t, WM_ADMINISTRATORS, EN | WM_SE_GROUP_OWNER);
		wm_token_add_group(t, WM_EVERYONE, EN);
		wm_token_add_group(t, WM_AUTHENTICATED_USERS, EN);
		t->integrity = WM_IL_SYSTEM;
		privs(t, admin_privs, sizeof(admin_privs) / sizeof(admin_privs[0]));
		return;
	}
}

const char *wm_ref_name(enum wm_ref which)
{
	static const char *const names[] = {
		"administrator (elevated)", "administrator (not elevated)", "standard user",
		"administrator (service logon)", "SYSTEM", "another user", "sandbox account",
	};

	return which < WM_REF_COUNT ? names[which] : "?";
}

bool wm_ref_is_runner(enum wm_ref which)
{
	return which != WM_REF_SANDBOX_ACCOUNT;
}
