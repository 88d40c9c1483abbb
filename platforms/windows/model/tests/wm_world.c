/* wm_world.c - the plan applied to a model machine (wm_world.h). */
#include "wm_world.h"

#include <stdio.h>
#include <string.h>

#define EN (WM_SE_GROUP_ENABLED | WM_SE_GROUP_ENABLED_BY_DEFAULT | WM_SE_GROUP_MANDATORY)
#define FULL 0x001F01FFu
#define RX (WM_READ_CONTROL | WM_SYNCHRONIZE | WM_FILE_READ_DATA | WM_FILE_READ_ATTRIBUTES | \
	    WM_FILE_READ_EA | WM_FILE_EXECUTE)
#define MODIFY (RX | WM_FILE_WRITE_DATA | WM_FILE_APPEND_DATA | WM_FILE_WRITE_EA | \
		WM_FILE_WRITE_ATTRIBUTES | WM_DELETE)

static void add(struct wm_sd *sd, unsigned type, unsigned flags, uint32_t mask, const char *sid)
{
	struct wm_ace *a = &sd->dacl[sd->n_dacl++];

	memset(a, 0, sizeof(*a));
	a->type = type;
	a->flags = flags;
	a->mask = mask;
	snprintf(a->sid, WM_SID_MAX, "%s", sid);
}

/* C:\ as a default install leaves it (an input, README.md "Inputs"):
 * Administrators and SYSTEM full, Users read, Authenticated Users may add
 * folders here and modify below, CREATOR OWNER full below. */
static void drive_sd(struct wm_sd *sd)
{
	memset(sd, 0, sizeof(*sd));
	strcpy(sd->owner, WM_SYSTEM);
	sd->has_dacl = true;
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_ADMINISTRATORS);
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_SYSTEM);
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI, RX, WM_USERS);
	add(sd, WM_ACE_ALLOW, 0, WM_FILE_APPEND_DATA, WM_AUTHENTICATED_USERS);
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI | WM_IO, MODIFY, WM_AUTHENTICATED_USERS);
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI | WM_IO, WM_GENERIC_ALL, WM_CREATOR_OWNER);
}

/* A profile directory: protected, SYSTEM, Administrators and its user. */
static void profile_sd(struct wm_sd *sd, const char *user)
{
	memset(sd, 0, sizeof(*sd));
	snprintf(sd->owner, WM_SID_MAX, "%s", user);
	sd->has_dacl = true;
	sd->protected_dacl = true;
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_SYSTEM);
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_ADMINISTRATORS);
	add(sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, user);
}

/* Create every missing component of path; the last as kind.  A name
 * directly under C:\Users is a profile.  The node, or -1. */
static int make_path(struct world *w, const char *path, enum wm_kind last_kind)
{
	char buf[WM_PATH_MAX], *save = NULL, *c, *next;
	int node = 0;

	if (strlen(path) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '\\';
	c = strtok_r(buf, "\\", &save);
	if (!c)
		return -1;
	{
		struct wm_sd sd;

		drive_sd(&sd);
		node = wm_fs_drive(&w->fs, c, &sd);
		if (node < 0)
			return -1;
	}
	for (c = strtok_r(NULL, "\\", &save); c; c = next) {
		int k = wm_fs_child(&w->fs, node, c);

		next = strtok_r(NULL, "\\", &save);
		if (k < 0) {
			bool profile = w->fs.v[node].parent > 0 &&
				       w->fs.v[w->fs.v[node].parent].parent == 0 &&
				       !strcmp(w->fs.v[node].name, "Users");

			k = wm_fs_create(&w->fs, node, c, next ? WM_DIR : last_kind, w->user, NULL, NULL);
			if (k < 0)
				return -1;
			if (profile) {
				struct wm_sd sd;

				profile_sd(&sd, w->user);
				wm_fs_set(&w->fs, k, sd.dacl, sd.n_dacl, true, WM_PROP_NONE);
			}
		}
		node = k;
	}
	return node;
}

static int make_in(struct world *w, const char *dir, const char *rel, enum wm_kind kind)
{
	char p[WM_PATH_MAX];
	int n = snprintf(p, sizeof(p), "%s\\%s", dir, rel);

	return n < 0 || (size_t)n >= sizeof(p) ? -1 : make_path(w, p, kind);
}

/* C:\Users: SYSTEM's, protected; Administrators and SYSTEM full, Users and
 * Everyone read (an input, as the drive's). */
static int make_users(struct world *w)
{
	struct wm_sd sd;
	int u = wm_fs_create(&w->fs, wm_fs_resolve(&w->fs, "C:", false), "Users", WM_DIR,
			     WM_SYSTEM, NULL, NULL);

	if (u < 0)
		return -1;
	memset(&sd, 0, sizeof(sd));
	add(&sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_SYSTEM);
	add(&sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_ADMINISTRATORS);
	add(&sd, WM_ACE_ALLOW, WM_OI | WM_CI, RX, WM_USERS);
	add(&sd, WM_ACE_ALLOW, WM_OI | WM_CI, RX, WM_EVERYONE);
	return wm_fs_set(&w->fs, u, sd.dacl, sd.n_dacl, true, WM_PROP_NONE);
}

/* The objects outside the request every world has. */
static int make_fixtures(struct world *w)
{
	struct wm_sd sd;
	int admin;

	w->outside_file = make_path(w, "C:\\outside\\o.txt", WM_FILE);
	w->profile_file = make_path(w, "C:\\Users\\u\\doc.txt", WM_FILE);
	w->canary = make_path(w, "C:\\Users\\u\\AppData\\Local\\sandproof\\canary\\c", WM_FILE);
	admin = make_path(w, "C:\\adminonly", WM_DIR);
	if (w->outside_file < 0 || w->profile_file < 0 || w->canary < 0 || admin < 0)
		return -1;
	memset(&sd, 0, sizeof(sd));
	strcpy(w->fs.v[admin].sd.owner, WM_SYSTEM);
	sd.has_dacl = true;
	add(&sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_ADMINISTRATORS);
	add(&sd, WM_ACE_ALLOW, WM_OI | WM_CI, FULL, WM_SYSTEM);
	wm_fs_set(&w->fs, admin, sd.dacl, sd.n_dacl, true, WM_PROP_NONE);
	w->admin_only = make_in(w, "C:\\adminonly", "secret", WM_FILE);
	return w->admin_only < 0 ? -1 : 0;
}

/* A protected name present: "config" a file, anything else a directory
 * with a file in it. */
static int make_protected(struct world *w, const char *root, const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	char p[WM_PATH_MAX];

	base = strrchr(base, '\\') ? strrchr(base, '\\') + 1 : base;
	if (snprintf(p, sizeof(p), "%s\\%s", root, name) >= (int)sizeof(p))
		return -1;
	if (!strcmp(base, "config"))
		return make_path(w, p, WM_FILE);
	return make_in(w, p, "inside", WM_FILE);
}

int world_build(struct world *w, const struct request *req, const struct winplan *p,
		const struct wm_token *base, bool present)
{
	struct wm_sd sd;
	int rc = 0;

	(void)p;
	memset(w, 0, sizeof(*w));
	w->user = base->user.sid;
	drive_sd(&sd);
	if (wm_fs_init(&w->fs, &sd) < 0 || make_users(w) < 0 || make_fixtures(w) < 0) {
		snprintf(w->err, sizeof(w->err), "cannot build the fixtures");
		return -1;
	}
	for (size_t i = 0; rc >= 0 && i < req->n_write_roots; i++) {
		const struct write_root *wr = &req->write_roots[i];

		rc = make_in(w, wr->root, "f.txt", WM_FILE);
		if (rc >= 0)
			rc = make_in(w, wr->root, "sub\\g.txt", WM_FILE);
		for (size_t j = 0; rc >= 0 && j < wr->read_only_subpaths.n; j++)
			rc = make_in(w, wr->read_only_subpaths.v[j], "r.txt", WM_FILE);
		for (size_t j = 0; rc >= 0 && present && j < wr->protected_names.n; j++)
			rc = make_protected(w, wr->root, wr->protected_names.v[j]);
	}
	for (size_t j = 0; rc >= 0 && j < req->deny_write.n; j++)
		rc = make_in(w, req->deny_write.v[j], "d.txt", WM_FILE);
	if (rc >= 0 && req->temp_dir)
		rc = make_in(w, req->temp_dir, "t.txt", WM_FILE);
	if (rc < 0) {
		snprintf(w->err, sizeof(w->err), "cannot create the request's paths");
		return -1;
	}
	return 0;
}

const char *world_sid(enum winplan_sid s, const struct wm_token *base)
{
	switch (s) {
	case WINPLAN_SID_CAPABILITY:
		return WORLD_CAP_SID;
	case WINPLAN_SID_LOGON:
		return wm_token_logon_sid(base) ? wm_token_logon_sid(base) : "S-1-5-5-0-0";
	case WINPLAN_SID_EVERYONE:
		return WM_EVERYONE;
	case WINPLAN_SID_ACCOUNT:
		return WM_REF_ACCOUNT_SID;
	}
	return "S-1-0-0";
}

/* The ACEs merged as SetEntriesInAclW merges them: explicit denies first. */
static int merge(struct world *w, int node, const struct wm_ace *a, size_t na,
		 enum wm_propagate mode)
{
	struct wm_ace ex[WM_ACES_MAX], out[WM_ACES_MAX];
	size_t n = wm_fs_explicit(&w->fs, node, ex), k = 0;

	if (n + na > WM_ACES_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (ex[i].type == WM_ACE_DENY)
			out[k++] = ex[i];
	for (size_t i = 0; i < na; i++)
		if (a[i].type == WM_ACE_DENY)
			out[k++] = a[i];
	for (size_t i = 0; i < n; i++)
		if (ex[i].type != WM_ACE_DENY)
			out[k++] = ex[i];
	for (size_t i = 0; i < na; i++)
		if (a[i].type != WM_ACE_DENY)
			out[k++] = a[i];
	return wm_fs_set(&w->fs, node, out, k, w->fs.v[node].sd.protected_dacl, mode);
}

static int absent(struct world *w, const struct winplan_ace *pa)
{
	char parent[WM_PATH_MAX], *cut;
	int dir;

	if (pa->absent == WINPLAN_ABSENT_SKIP)
		return -2;
	if (pa->absent != WINPLAN_ABSENT_CREATE_DIR) {
		snprintf(w->err, sizeof(w->err), "%.200s: absent, and the plan refuses", pa->path);
		return -1;
	}
	snprintf(parent, sizeof(parent), "%s", pa->path);
	cut = strrchr(parent, '\\');
	if (!cut)
		return -1;
	*cut = '\0';
	dir = wm_fs_resolve(&w->fs, parent, false);
	if (dir < 0) {
		snprintf(w->err, sizeof(w->err), "%.200s: its parent is absent", pa->path);
		return -1;
	}
	return wm_fs_create(&w->fs, dir, cut + 1, WM_DIR, w->user, NULL, NULL);
}

int world_apply(struct world *w, const struct winplan *p, const struct wm_token *base,
		enum wm_propagate mode)
{
	for (size_t i = 0; i < p->n_aces; i++) {
		const struct winplan_ace *pa = &p->aces[i];
		int node = wm_fs_resolve(&w->fs, pa->path, false);
		struct wm_ace a[WINPLAN_SIDS_MAX];

		if (node < 0)
			node = absent(w, pa);
		if (node == -2)
			continue;
		if (node < 0)
			return -1;
		memset(a, 0, sizeof(a));
		for (size_t k = 0; k < pa->n_sids && k < WINPLAN_SIDS_MAX; k++) {
			a[k].type = pa->effect == WINPLAN_DENY ? WM_ACE_DENY : WM_ACE_ALLOW;
			a[k].mask = pa->mask;
			if (w->fs.v[node].kind != WM_FILE)
				a[k].flags = (pa->inherit & WINPLAN_OBJECT_INHERIT ? WM_OI : 0) |
					     (pa->inherit & WINPLAN_CONTAINER_INHERIT ? WM_CI : 0) |
					     (pa->inherit & WINPLAN_INHERIT_ONLY ? WM_IO : 0);
			snprintf(a[k].sid, WM_SID_MAX, "%s", world_sid(pa->sids[k], base));
		}
		/* An inherit-only ACE on a file would apply to nothing. */
		if (w->fs.v[node].kind == WM_FILE && (pa->inherit & WINPLAN_INHERIT_ONLY))
			continue;
		if (merge(w, node, a, pa->n_sids, mode) < 0) {
			snprintf(w->err, sizeof(w->err), "%.200s: the DACL is full", pa->path);
			return -1;
		}
	}
	return 0;
}

void world_free(struct world *w)
{
	wm_fs_free(&w->fs);
}

/* What the backend does with the plan's rule, in the adapter's own words:
 * a group stays enabled when keep_enabled names its SID, or "logon" and it
 * is the logon SID; every other group is passed to SidsToDisable. */
static bool kept(const struct winplan_token *t, const struct wm_sid_attr *g)
{
	for (size_t i = 0; i < t->n_keep_enabled; i++)
		if (!strcmp(t->keep_enabled[i], g->sid) ||
		    (!strcmp(t->keep_enabled[i], "logon") &&
		     (g->attrs & WM_SE_GROUP_LOGON_ID) == WM_SE_GROUP_LOGON_ID))
			return true;
	return false;
}

bool world_command_token(const struct winplan *p, const struct wm_token *runner,
			 struct wm_token *out)
{
	const char *rs[4], *dis[WM_GROUPS_MAX], *del[WM_PRIVS_MAX];
	size_t nd = 0, np = 0;
	uint32_t flags = 0;
	struct wm_token base;

	if (p->token.base == WINPLAN_BASE_ACCOUNT)
		wm_ref_token(WM_REF_SANDBOX_ACCOUNT, &base);
	else
		base = *runner;
	if (p->token.flags & WINPLAN_DISABLE_MAX_PRIVILEGE)
		flags |= WM_DISABLE_MAX_PRIVILEGE;
	if (p->token.flags & WINPLAN_LUA_TOKEN)
		flags |= WM_LUA_TOKEN;
	if (p->token.flags & WINPLAN_WRITE_RESTRICTED)
		flags |= WM_WRITE_RESTRICTED;
	for (size_t i = 0; i < p->token.n_restricting && i < 4; i++)
		rs[i] = world_sid(p->token.restricting[i], &base);
	for (size_t i = 0; i < base.n_groups; i++)
		if (!kept(&p->token, &base.groups[i]))
			dis[nd++] = base.groups[i].sid;
	for (size_t i = 0; i < base.n_privileges; i++)
		if (!p->token.keep_privilege || strcmp(base.privileges[i], p->token.keep_privilege))
			del[np++] = base.privileges[i];
	if (!wm_create_restricted(&base, flags, dis, nd, del, np, rs, p->token.n_restricting, out))
		return false;
	if (out->integrity > p->token.integrity)
		out->integrity = p->token.integrity;
	return true;
}

size_t world_filters(const struct winplan *p, const struct wm_token *base, struct wm_filter *f)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_filters && n < 16; i++, n++) {
		struct wm_condition *c = &f[n].cond[0];

		memset(&f[n], 0, sizeof(f[n]));
		f[n].layer = p->filters[i].layer;
		f[n].action = strcmp(p->filters[i].action, "block") == 0 ? WM_BLOCK : WM_PERMIT;
		f[n].n_cond = 1;
		c->field = WM_ALE_USER_ID;
		c->match = WM_MATCH_EQUAL;
		/* wfp.c: "O:SYG:SYD:(A;;CC;;;<sid>)..." */
		strcpy(c->sd.owner, WM_SYSTEM);
		c->sd.has_dacl = true;
		for (size_t k = 0; k < p->filters[i].n_sids; k++)
			add(&c->sd, WM_ACE_ALLOW, 0, WM_FWP_ACTRL_MATCH_FILTER,
			    world_sid(p->filters[i].sids[k], base));
	}
	return n;
}
