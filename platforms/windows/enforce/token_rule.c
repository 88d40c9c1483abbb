/* token_rule.c - the plan's rule for the command's token (winplan.h, "The
 * token"), applied to a real token and checked on the result: which groups
 * become deny-only (SidsToDisable), which privileges are deleted
 * (PrivilegesToDelete), and token_verify, which refuses a token the rule
 * was not applied to.  token.c makes the token; this file decides nothing
 * the plan did not (winplan_token_keeps is the plan's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token_int.h"
#include "winenf.h"

#include <sddl.h> /* after windows.h */

/* TokenGroups of h, newly allocated. */
TOKEN_GROUPS *token_groups(HANDLE h)
{
	DWORD n = 0;
	TOKEN_GROUPS *g;

	GetTokenInformation(h, TokenGroups, NULL, 0, &n);
	if (!n || !(g = malloc(n)))
		return NULL;
	if (!GetTokenInformation(h, TokenGroups, g, n, &n)) {
		free(g);
		return NULL;
	}
	return g;
}

/* The base token's groups the rule disables (SID_AND_ATTRIBUTES pointing
 * into *g, which the caller frees).  Integrity labels are not groups to
 * disable. */
static int disable_list(const struct winplan_token *t, HANDLE base, TOKEN_GROUPS **g,
			SID_AND_ATTRIBUTES **out, DWORD *n, struct wenf_error *e)
{
	*n = 0;
	*out = NULL;
	*g = token_groups(base);
	if (!*g || !(*out = calloc((*g)->GroupCount + 1, sizeof(**out))))
		return wenf_fail(e, "token", NULL, ENOMEM, "cannot read the base token's groups");
	for (DWORD i = 0; i < (*g)->GroupCount; i++) {
		SID_AND_ATTRIBUTES *ga = &(*g)->Groups[i];
		char *sid = NULL;
		bool keep;

		if (ga->Attributes & (SE_GROUP_INTEGRITY | SE_GROUP_INTEGRITY_ENABLED))
			continue;
		if (!ConvertSidToStringSidA(ga->Sid, &sid))
			return wenf_fail(e, "token", NULL, ENOMEM, "a group SID as a string");
		keep = winplan_token_keeps(t, sid, ga->Attributes);
		LocalFree(sid);
		if (!keep)
			(*out)[(*n)++] = (SID_AND_ATTRIBUTES){.Sid = ga->Sid, .Attributes = 0};
	}
	return 0;
}

/* TokenPrivileges of h, newly allocated. */
static TOKEN_PRIVILEGES *token_privileges(HANDLE h)
{
	DWORD n = 0;
	TOKEN_PRIVILEGES *p;

	GetTokenInformation(h, TokenPrivileges, NULL, 0, &n);
	if (!n || !(p = malloc(n)))
		return NULL;
	if (!GetTokenInformation(h, TokenPrivileges, p, n, &n)) {
		free(p);
		return NULL;
	}
	return p;
}

/* Whether privilege luid is the one the plan keeps. */
static bool kept_privilege(const struct winplan_token *t, LUID luid)
{
	wchar_t name[64];
	DWORD n = 64;
	char *u;
	bool keep;

	if (!t->keep_privilege || !LookupPrivilegeNameW(NULL, &luid, name, &n))
		return false;
	u = wenf_utf8(name);
	keep = u && strcmp(u, t->keep_privilege) == 0;
	free(u);
	return keep;
}

/* Every privilege of base but the kept one (LUID_AND_ATTRIBUTES in *p). */
static int delete_list(const struct winplan_token *t, HANDLE base, TOKEN_PRIVILEGES **p,
		       LUID_AND_ATTRIBUTES **out, DWORD *n, struct wenf_error *e)
{
	*n = 0;
	*out = NULL;
	*p = token_privileges(base);
	if (!*p || !(*out = calloc((*p)->PrivilegeCount + 1, sizeof(**out))))
		return wenf_fail(e, "token", NULL, ENOMEM, "cannot read the base token's privileges");
	for (DWORD i = 0; i < (*p)->PrivilegeCount; i++)
		if (!kept_privilege(t, (*p)->Privileges[i].Luid))
			(*out)[(*n)++] = (LUID_AND_ATTRIBUTES){.Luid = (*p)->Privileges[i].Luid};
	return 0;
}

int token_verify(HANDLE tok, const struct winplan_token *t, struct wenf_error *e)
{
	TOKEN_GROUPS *g = token_groups(tok);
	TOKEN_PRIVILEGES *p = token_privileges(tok);
	unsigned char buf[64];
	TOKEN_MANDATORY_LABEL *ml = (TOKEN_MANDATORY_LABEL *)buf;
	DWORD n = 0, rid = 0xffffffffu;
	int rc = (!g || !p) ? wenf_fail(e, "token:verify", NULL, ENOMEM, "cannot read the token")
			    : 0;

	for (DWORD i = 0; rc == 0 && i < g->GroupCount; i++) {
		char *sid = NULL;
		DWORD a = g->Groups[i].Attributes;

		if ((a & (SE_GROUP_INTEGRITY | SE_GROUP_USE_FOR_DENY_ONLY)) || !(a & SE_GROUP_ENABLED) ||
		    !ConvertSidToStringSidA(g->Groups[i].Sid, &sid))
			continue;
		if (!winplan_token_keeps(t, sid, a))
			rc = wenf_fail(e, "token:verify", NULL, EPERM, "group %s is still enabled: "
				       "refused", sid);
		LocalFree(sid);
	}
	for (DWORD i = 0; rc == 0 && i < p->PrivilegeCount; i++)
		if (!kept_privilege(t, p->Privileges[i].Luid))
			rc = wenf_fail(e, "token:verify", NULL, EPERM, "a privilege other than %s "
				       "is still held: refused", t->keep_privilege);
	if (rc == 0 && GetTokenInformation(tok, TokenIntegrityLevel, buf, sizeof(buf), &n))
		rid = *GetSidSubAuthority(ml->Label.Sid, *GetSidSubAuthorityCount(ml->Label.Sid) - 1);
	if (rc == 0 && rid > t->integrity)
		rc = wenf_fail(e, "token:verify", NULL, EPERM, "integrity 0x%lx is above the plan's: "
			       "refused", (unsigned long)rid);
	free(g);
	free(p);
	return rc;
}

/* CreateRestrictedToken with the rule's lists; the new token in *nt. */
int token_derive(const struct winplan_token *t, HANDLE base, SID_AND_ATTRIBUTES *rs,
			HANDLE *nt, struct wenf_error *e)
{
	TOKEN_GROUPS *g = NULL;
	TOKEN_PRIVILEGES *p = NULL;
	SID_AND_ATTRIBUTES *dis = NULL;
	LUID_AND_ATTRIBUTES *del = NULL;
	DWORD nd = 0, np = 0;
	int rc = disable_list(t, base, &g, &dis, &nd, e);

	if (rc == 0)
		rc = delete_list(t, base, &p, &del, &np, e);
	/* The plan's flags carry the winnt.h values (winplan.h). */
	if (rc == 0 && !CreateRestrictedToken(base, t->flags, nd, nd ? dis : NULL, np,
					      np ? del : NULL, (DWORD)t->n_restricting,
					      t->n_restricting ? rs : NULL, nt))
		rc = wenf_fail(e, "token", NULL, wenf_errno(GetLastError()),
			       "CreateRestrictedToken: error %lu", GetLastError());
	free(dis);
	free(del);
	free(g);
	free(p);
	return rc;
}

