/* wm_token.c - tokens and CreateRestrictedToken as documented (wm.h). */
#include <stdio.h>
#include <string.h>

#include "wm.h"

static bool copy_sid(char dst[WM_SID_MAX], const char *sid)
{
	size_t n = strlen(sid);

	if (n >= WM_SID_MAX)
		return false;
	memcpy(dst, sid, n + 1);
	return true;
}

bool wm_token_add_group(struct wm_token *t, const char *sid, uint32_t attrs)
{
	if (t->n_groups == WM_GROUPS_MAX || !copy_sid(t->groups[t->n_groups].sid, sid))
		return false;
	t->groups[t->n_groups++].attrs = attrs;
	return true;
}

bool wm_token_add_privilege(struct wm_token *t, const char *name)
{
	if (t->n_privileges == WM_PRIVS_MAX || strlen(name) >= sizeof(t->privileges[0]))
		return false;
	snprintf(t->privileges[t->n_privileges++], sizeof(t->privileges[0]), "%s", name);
	return true;
}

bool wm_token_has_privilege(const struct wm_token *t, const char *name)
{
	for (size_t i = 0; i < t->n_privileges; i++)
		if (strcmp(t->privileges[i], name) == 0)
			return true;
	return false;
}

const struct wm_sid_attr *wm_token_group(const struct wm_token *t, const char *sid)
{
	for (size_t i = 0; i < t->n_groups; i++)
		if (strcmp(t->groups[i].sid, sid) == 0)
			return &t->groups[i];
	return NULL;
}

const char *wm_token_logon_sid(const struct wm_token *t)
{
	for (size_t i = 0; i < t->n_groups; i++)
		if ((t->groups[i].attrs & WM_SE_GROUP_LOGON_ID) == WM_SE_GROUP_LOGON_ID)
			return t->groups[i].sid;
	return NULL;
}

static bool named(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* "Disabling a SID turns off SE_GROUP_ENABLED and SE_GROUP_ENABLED_BY_DEFAULT
 * and sets SE_GROUP_USE_FOR_DENY_ONLY" (CreateRestrictedToken,
 * SidsToDisable); it may name the user SID and mandatory groups ("SID
 * Attributes in an Access Token"). */
static uint32_t disabled(uint32_t attrs)
{
	return (attrs & ~(WM_SE_GROUP_ENABLED | WM_SE_GROUP_ENABLED_BY_DEFAULT)) |
	       WM_SE_GROUP_USE_FOR_DENY_ONLY;
}

/* Privileges: with DISABLE_MAX_PRIVILEGE the documents say all but
 * SeChangeNotifyPrivilege are *disabled* (and PrivilegesToDelete is
 * ignored); a disabled privilege is still held and may be enabled again,
 * so the model keeps them.  PrivilegesToDelete deletes. */
static void restrict_privileges(struct wm_token *o, uint32_t flags, const char *const *del,
				size_t n_del)
{
	size_t k = 0;

	if (flags & WM_DISABLE_MAX_PRIVILEGE)
		return;
	for (size_t i = 0; i < o->n_privileges; i++)
		if (!named(del, n_del, o->privileges[i]))
			memmove(o->privileges[k++], o->privileges[i], sizeof(o->privileges[0]));
	o->n_privileges = k;
}

/* The restricting SIDs: those given; when base is already restricted, only
 * those in both lists (a restricted token can only narrow). */
static bool restrict_sids(struct wm_token *o, const struct wm_token *base,
			  const char *const *rs, size_t n_rs)
{
	o->n_restricting = 0;
	for (size_t i = 0; i < n_rs; i++) {
		bool keep = base->n_restricting == 0;

		for (size_t j = 0; !keep && j < base->n_restricting; j++)
			keep = strcmp(base->restricting[j], rs[i]) == 0;
		if (!keep)
			continue;
		if (o->n_restricting == WM_RSIDS_MAX ||
		    !copy_sid(o->restricting[o->n_restricting++], rs[i]))
			return false;
	}
	return true;
}

bool wm_create_restricted(const struct wm_token *base, uint32_t flags,
			  const char *const *disable, size_t n_disable,
			  const char *const *delete_privs, size_t n_delete,
			  const char *const *restrict_sids_v, size_t n_restrict,
			  struct wm_token *out)
{
	*out = *base;
	if (named(disable, n_disable, out->user.sid))
		out->user.attrs = disabled(out->user.attrs);
	for (size_t i = 0; i < out->n_groups; i++)
		if (named(disable, n_disable, out->groups[i].sid))
			out->groups[i].attrs = disabled(out->groups[i].attrs);
	restrict_privileges(out, flags, delete_privs, n_delete);
	if (n_restrict && !restrict_sids(out, base, restrict_sids_v, n_restrict))
		return false;
	if (!n_restrict && base->n_restricting == 0)
		out->n_restricting = 0;
	out->write_restricted = base->write_restricted || (flags & WM_WRITE_RESTRICTED);
	return true;
}
