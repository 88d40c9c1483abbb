/* winplan_token.c - the token recipe's rule and its listing (winplan.h).
 *
 * The rule (README.md, "The token"): every group deny-only but the user,
 * the logon SID, Everyone and Users; every privilege deleted but
 * SeChangeNotifyPrivilege; integrity at most medium.  Administrators, the
 * other builtin administrative groups, domain groups, Authenticated Users,
 * INTERACTIVE, SERVICE and BATCH all become deny-only: an allow ACE for
 * them grants the command nothing, a deny ACE still stops it.  Chromium's
 * restricted tokens keep a longer list enabled (Users, Everyone,
 * Interactive, Local, Authenticated Users, the user); this plan keeps less,
 * because the access-check model (platforms/windows/model) showed the
 * others' allow ACEs (Authenticated Users may modify below C:\, BATCH and
 * INTERACTIVE full control of the public folders) let the command delete
 * outside its grant under one reading of WRITE_RESTRICTED. */
#include <string.h>

#include "winplan.h"

#define EN WINPLAN_GROUP_ENABLED

/* "user", the logon SID, Everyone, Users: every other group of the base
 * token becomes deny-only (winplan_token.c says why these). */
static const char *const keep_enabled[] = {"user", "logon", "S-1-1-0", "S-1-5-32-545"};

/* The token (README.md, "The token"; winplan_token_recipe in winplan.h).
 * Restricted filesystem: write-
 * restricted to the capability SID (what every ACE names), the logon SID
 * (the session's window station, desktop and console grant it; a process
 * cannot start without them) and Everyone (the NUL device and pipes grant
 * only Everyone); with network deny the base is the sandbox account, whose
 * user SID the WFP filters match.  Cost, stated in README.md: an object
 * that grants write to Everyone or the logon SID stays writable; the deny
 * ACEs still hold there. */
void winplan_token_recipe(struct winplan_token *t, bool restricted, bool account)
{
	*t = (struct winplan_token){
		.flags = WINPLAN_LUA_TOKEN, .keep_enabled = keep_enabled,
		.n_keep_enabled = sizeof(keep_enabled) / sizeof(keep_enabled[0]),
		.keep_privilege = "SeChangeNotifyPrivilege", .integrity = WINPLAN_IL_MEDIUM,
		.base = account ? WINPLAN_BASE_ACCOUNT : WINPLAN_BASE_RUNNER,
	};
	if (!restricted)
		return;
	t->flags |= WINPLAN_WRITE_RESTRICTED;
	t->restricting[0] = WINPLAN_SID_CAPABILITY;
	t->restricting[1] = WINPLAN_SID_LOGON;
	t->restricting[2] = WINPLAN_SID_EVERYONE;
	t->n_restricting = 3;
}

bool winplan_token_keeps(const struct winplan_token *t, const char *sid, uint32_t attrs)
{
	for (size_t i = 0; i < t->n_keep_enabled; i++) {
		const char *k = t->keep_enabled[i];

		if (strcmp(k, "logon") == 0 ? (attrs & WINPLAN_GROUP_LOGON_ID) == WINPLAN_GROUP_LOGON_ID
					    : strcmp(k, sid) == 0)
			return true;
	}
	return false;
}

/* What `whoami /all` lists for an elevated administrator's interactive
 * logon on a default install: the most a runner brings. */
static const struct winplan_tgroup admin_groups[] = {
	{"S-1-1-0", "Everyone", EN},
	{"S-1-5-114", "NT AUTHORITY\\Local account and member of Administrators group", EN},
	{"S-1-5-32-544", "BUILTIN\\Administrators", EN | 0x8u},
	{"S-1-5-32-545", "BUILTIN\\Users", EN},
	{"S-1-5-4", "NT AUTHORITY\\INTERACTIVE", EN},
	{"S-1-2-1", "CONSOLE LOGON", EN},
	{"S-1-5-11", "NT AUTHORITY\\Authenticated Users", EN},
	{"S-1-5-15", "NT AUTHORITY\\This Organization", EN},
	{"S-1-5-113", "NT AUTHORITY\\Local account", EN},
	{"<logon>", "the logon SID (S-1-5-5-x-y)", EN | WINPLAN_GROUP_LOGON_ID},
	{"S-1-2-0", "LOCAL", EN},
	{"S-1-5-64-10", "NT AUTHORITY\\NTLM Authentication", EN},
};

static const char *const admin_privs[] = {
	"SeIncreaseQuotaPrivilege", "SeSecurityPrivilege", "SeTakeOwnershipPrivilege",
	"SeLoadDriverPrivilege", "SeSystemProfilePrivilege", "SeSystemtimePrivilege",
	"SeProfileSingleProcessPrivilege", "SeIncreaseBasePriorityPrivilege",
	"SeCreatePagefilePrivilege", "SeBackupPrivilege", "SeRestorePrivilege",
	"SeShutdownPrivilege", "SeDebugPrivilege", "SeSystemEnvironmentPrivilege",
	"SeChangeNotifyPrivilege", "SeRemoteShutdownPrivilege", "SeUndockPrivilege",
	"SeManageVolumePrivilege", "SeImpersonatePrivilege", "SeCreateGlobalPrivilege",
	"SeIncreaseWorkingSetPrivilege", "SeTimeZonePrivilege", "SeCreateSymbolicLinkPrivilege",
	"SeDelegateSessionUserImpersonatePrivilege",
};

/* The sandbox account: a plain user (Users, not Administrators) logged on
 * as a batch job. */
static const struct winplan_tgroup account_groups[] = {
	{"S-1-1-0", "Everyone", EN},
	{"S-1-5-32-545", "BUILTIN\\Users", EN},
	{"S-1-5-3", "NT AUTHORITY\\BATCH", EN},
	{"S-1-5-11", "NT AUTHORITY\\Authenticated Users", EN},
	{"S-1-5-15", "NT AUTHORITY\\This Organization", EN},
	{"S-1-5-113", "NT AUTHORITY\\Local account", EN},
	{"<logon>", "the logon SID (S-1-5-5-x-y)", EN | WINPLAN_GROUP_LOGON_ID},
	{"S-1-2-0", "LOCAL", EN},
	{"S-1-5-64-10", "NT AUTHORITY\\NTLM Authentication", EN},
};

static const char *const user_privs[] = {
	"SeShutdownPrivilege", "SeChangeNotifyPrivilege", "SeUndockPrivilege",
	"SeIncreaseWorkingSetPrivilege", "SeTimeZonePrivilege",
};

void winplan_token_reference(enum winplan_base base, struct winplan_listing *out)
{
	bool admin = base == WINPLAN_BASE_RUNNER;
	const struct winplan_tgroup *g = admin ? admin_groups : account_groups;
	const char *const *pv = admin ? admin_privs : user_privs;

	memset(out, 0, sizeof(*out));
	out->what = admin ? "an elevated administrator (reference)"
			  : "the sandbox account " WINPLAN_ACCOUNT " (reference)";
	out->user = admin ? "<runner user>" : "<" WINPLAN_ACCOUNT ">";
	out->n_groups = admin ? sizeof(admin_groups) / sizeof(admin_groups[0])
			      : sizeof(account_groups) / sizeof(account_groups[0]);
	memcpy(out->groups, g, out->n_groups * sizeof(*g));
	out->n_privileges = admin ? sizeof(admin_privs) / sizeof(admin_privs[0])
				  : sizeof(user_privs) / sizeof(user_privs[0]);
	memcpy(out->privileges, pv, out->n_privileges * sizeof(*pv));
	out->integrity = admin ? 0x3000u : 0x2000u;
}

void winplan_token_apply(const struct winplan_token *t, const struct winplan_listing *in,
			 struct winplan_listing *out)
{
	size_t k = 0;

	*out = *in;
	out->user_deny_only = false; /* "user" is always kept */
	for (size_t i = 0; i < out->n_groups; i++)
		if (!winplan_token_keeps(t, out->groups[i].sid, out->groups[i].attrs))
			out->groups[i].attrs = (out->groups[i].attrs & ~(EN | 0x2u)) |
					       WINPLAN_GROUP_DENY_ONLY;
	for (size_t i = 0; i < in->n_privileges; i++)
		if (t->keep_privilege && strcmp(in->privileges[i], t->keep_privilege) == 0)
			out->privileges[k++] = in->privileges[i];
	out->n_privileges = k;
	if (out->integrity > t->integrity)
		out->integrity = t->integrity;
}
