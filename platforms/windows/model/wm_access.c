/* wm_access.c - AccessCheck as Microsoft documents it (wm.h; each rule's
 * source in README.md).
 *
 * The DACL walk is computed for every right at once: a right is decided by
 * the first ACE that names it and applies to the token, granted by an allow
 * ACE, denied by a deny ACE; later ACEs cannot change it.  For one request
 * this is the documented walk ("How DACLs Control Access to an Object":
 * the system examines each ACE in sequence until a deny ACE denies any
 * requested right not yet granted, or allow ACEs have granted all of them,
 * or the ACEs run out): a request is granted exactly when each of its
 * rights is first decided by an allow ACE.  MAXIMUM_ALLOWED (MS-DTYP
 * 2.5.3.2) is the set of rights first decided by an allow. */
#include <string.h>

#include "wm.h"

/* FILE_GENERIC_READ, _WRITE, _EXECUTE, FILE_ALL_ACCESS (winnt.h). */
const struct wm_mapping wm_file_mapping = {
	.read = WM_READ_CONTROL | WM_SYNCHRONIZE | WM_FILE_READ_DATA | WM_FILE_READ_ATTRIBUTES |
		WM_FILE_READ_EA,
	.write = WM_READ_CONTROL | WM_SYNCHRONIZE | WM_FILE_WRITE_DATA | WM_FILE_WRITE_ATTRIBUTES |
		 WM_FILE_WRITE_EA | WM_FILE_APPEND_DATA,
	.execute = WM_READ_CONTROL | WM_SYNCHRONIZE | WM_FILE_READ_ATTRIBUTES | WM_FILE_EXECUTE,
	.all = 0x000F0000u | WM_SYNCHRONIZE | 0x1FFu,
};

uint32_t wm_map_generic(uint32_t mask, const struct wm_mapping *m)
{
	uint32_t out = mask & ~(WM_GENERIC_READ | WM_GENERIC_WRITE | WM_GENERIC_EXECUTE |
				WM_GENERIC_ALL);

	if (mask & WM_GENERIC_READ)
		out |= m->read;
	if (mask & WM_GENERIC_WRITE)
		out |= m->write;
	if (mask & WM_GENERIC_EXECUTE)
		out |= m->execute;
	if (mask & WM_GENERIC_ALL)
		out |= m->all;
	return out;
}

/* Rights only a write grants.  READ_CONTROL and SYNCHRONIZE, which every
 * FILE_GENERIC_* holds, are never counted as writes: the smaller set is the
 * reading that grants the token more. */
uint32_t wm_write_set(const struct wm_mapping *m, enum wm_write_set w)
{
	uint32_t not_write = m->read | m->execute;

	if (w == WM_WRITE_GENERIC)
		return m->write & ~not_write;
	return (m->all | WM_DELETE | WM_WRITE_DAC | WM_WRITE_OWNER) & ~not_write;
}

/* Who a pass of the check sees: the token's SIDs with their roles, or the
 * restricting SIDs (all enabled), or an AppContainer's SIDs. */
struct view {
	const char *allow[WM_GROUPS_MAX + 2];  /* match allow and deny ACEs */
	size_t n_allow;
	const char *deny_only[WM_GROUPS_MAX + 1]; /* match deny ACEs only */
	size_t n_deny_only;
	bool owner;                             /* the owner is one of allow[] */
};

static bool in(const char *const *v, size_t n, const char *sid)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], sid) == 0)
			return true;
	return false;
}

/* "SID Attributes in an Access Token": an enabled SID matches allow and deny
 * ACEs, a deny-only SID deny ACEs only, a SID with neither attribute
 * nothing.  The owner's implicit rights need the owner among the SIDs that
 * may be used for access: the user (unless deny-only) or an enabled group. */
static void view_normal(const struct wm_token *t, const char *owner, struct view *v)
{
	memset(v, 0, sizeof(*v));
	if (t->user.attrs & WM_SE_GROUP_USE_FOR_DENY_ONLY)
		v->deny_only[v->n_deny_only++] = t->user.sid;
	else
		v->allow[v->n_allow++] = t->user.sid;
	for (size_t i = 0; i < t->n_groups; i++) {
		uint32_t a = t->groups[i].attrs;

		if (a & WM_SE_GROUP_USE_FOR_DENY_ONLY)
			v->deny_only[v->n_deny_only++] = t->groups[i].sid;
		else if (a & WM_SE_GROUP_ENABLED)
			v->allow[v->n_allow++] = t->groups[i].sid;
	}
	v->owner = owner[0] && in(v->allow, v->n_allow, owner);
}

/* "Restricted Tokens": the second check uses the list of restricting SIDs,
 * so the owner's implicit rights there need the owner in that list. */
static void view_restricting(const struct wm_token *t, const char *owner, struct view *v)
{
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < t->n_restricting; i++)
		v->allow[v->n_allow++] = t->restricting[i];
	v->owner = owner[0] && in(v->allow, v->n_allow, owner);
}

static void view_package(const struct wm_token *t, const char *owner, struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->allow[v->n_allow++] = t->package;
	v->allow[v->n_allow++] = WM_ALL_APP_PACKAGES;
	v->owner = owner[0] && in(v->allow, v->n_allow, owner);
}

static bool ace_applies(const struct wm_ace *a, const struct view *v)
{
	/* OWNER RIGHTS stands for whoever owns the object. */
	if (strcmp(a->sid, WM_OWNER_RIGHTS) == 0)
		return v->owner;
	if (in(v->allow, v->n_allow, a->sid))
		return true;
	return a->type == WM_ACE_DENY && in(v->deny_only, v->n_deny_only, a->sid);
}

static bool has_owner_rights_ace(const struct wm_sd *sd)
{
	for (size_t i = 0; i < sd->n_dacl; i++)
		if (!(sd->dacl[i].flags & WM_IO) && strcmp(sd->dacl[i].sid, WM_OWNER_RIGHTS) == 0)
			return true;
	return false;
}

/* One pass over the DACL for one view: the rights first decided by an allow
 * ACE.  A NULL DACL grants everything; an empty one nothing but the owner's
 * implicit READ_CONTROL and WRITE_DAC, which are granted before the walk
 * (MS-DTYP 2.5.3.2) unless an OWNER RIGHTS ACE replaces them. */
static uint32_t dacl_pass(const struct wm_sd *sd, const struct view *v, const struct wm_mapping *m)
{
	uint32_t granted = 0, denied = 0;

	if (!sd->has_dacl)
		return m->all;
	if (v->owner && !has_owner_rights_ace(sd))
		granted |= WM_READ_CONTROL | WM_WRITE_DAC;
	for (size_t i = 0; i < sd->n_dacl; i++) {
		const struct wm_ace *a = &sd->dacl[i];
		uint32_t mask = wm_map_generic(a->mask, m);

		if ((a->flags & WM_IO) || !ace_applies(a, v))
			continue;
		if (a->type == WM_ACE_DENY)
			denied |= mask & ~granted;
		else if (a->type == WM_ACE_ALLOW)
			granted |= mask & ~denied;
	}
	return granted;
}

/* "Mandatory Integrity Control": evaluated before the DACL; an object
 * without a label is medium with no-write-up; a token below the object's
 * level loses what the label's policy withholds. */
static uint32_t mic_withheld(const struct wm_sd *sd, const struct wm_token *t,
			     const struct wm_mapping *m, struct wm_reading r)
{
	uint32_t il = sd->has_label ? sd->label_il : WM_IL_MEDIUM;
	uint32_t pol = sd->has_label ? sd->label_policy : WM_NO_WRITE_UP;
	uint32_t out = 0;

	if (t->integrity >= il)
		return 0;
	if ((pol & WM_NO_WRITE_UP) && t->no_write_up)
		out |= wm_write_set(m, r.write_set);
	if (pol & WM_NO_READ_UP)
		out |= m->read & ~(m->write | m->execute);
	if (pol & WM_NO_EXECUTE_UP)
		out |= m->execute & ~(m->read | m->write);
	return out;
}

/* "Privilege Constants": rights a held privilege grants whatever the DACL
 * says (a held privilege counts: the process may enable it).  Backup and
 * restore are documented for files ("any file"); taking ownership and the
 * SACL right for any object. */
static uint32_t privilege_grants(const struct wm_token *t, const struct wm_mapping *m)
{
	uint32_t out = 0;
	bool file = m == &wm_file_mapping;

	if (file && wm_token_has_privilege(t, "SeBackupPrivilege"))
		out |= m->read;
	if (file && wm_token_has_privilege(t, "SeRestorePrivilege"))
		out |= wm_write_set(m, WM_WRITE_BROAD) | WM_DELETE | WM_WRITE_DAC | WM_WRITE_OWNER;
	if (wm_token_has_privilege(t, "SeTakeOwnershipPrivilege"))
		out |= WM_WRITE_OWNER;
	if (wm_token_has_privilege(t, "SeSecurityPrivilege"))
		out |= WM_ACCESS_SYSTEM_SECURITY;
	return out;
}

uint32_t wm_access_max(const struct wm_sd *sd, const struct wm_token *t,
		       const struct wm_mapping *m, struct wm_reading r)
{
	struct view v;
	uint32_t granted;

	view_normal(t, sd->owner, &v);
	granted = dacl_pass(sd, &v, m);
	if (t->n_restricting) {
		/* "two access checks ... granted only if both allow"; with
		 * WRITE_RESTRICTED the restricting SIDs count for writes only. */
		uint32_t second, w = t->write_restricted ? wm_write_set(m, r.write_set) : ~0u;

		view_restricting(t, sd->owner, &v);
		second = dacl_pass(sd, &v, m);
		granted = (granted & ~w) | (granted & second & w);
	}
	if (t->package[0]) {
		view_package(t, sd->owner, &v);
		granted &= dacl_pass(sd, &v, m);
	}
	granted &= ~mic_withheld(sd, t, m, r);
	return granted | privilege_grants(t, m);
}

bool wm_access(const struct wm_sd *sd, const struct wm_token *t, uint32_t desired,
	       const struct wm_mapping *m, struct wm_reading r)
{
	uint32_t want = wm_map_generic(desired, m) & ~WM_MAXIMUM_ALLOWED;

	return (wm_access_max(sd, t, m, r) & want) == want;
}

struct wm_reading wm_reading_nth(int i)
{
	return (struct wm_reading){.write_set = (i & 1) ? WM_WRITE_BROAD : WM_WRITE_GENERIC,
				   .match_is_write = (i & 2) != 0};
}

const char *wm_reading_name(struct wm_reading r)
{
	static const char *const names[] = {
		"writes=GENERIC_WRITE, match=not-a-write", "writes=broad, match=not-a-write",
		"writes=GENERIC_WRITE, match=a-write", "writes=broad, match=a-write",
	};

	return names[(r.write_set == WM_WRITE_BROAD) + 2 * r.match_is_write];
}
