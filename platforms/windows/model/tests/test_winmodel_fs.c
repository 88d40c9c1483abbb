/* test_winmodel_fs.c - the model's WFP conditions and arbitration, ACE
 * inheritance, propagation and file operations, on the documents' own
 * statements and examples (README.md there gives the URLs). */
#include <string.h>

#include "t.h"
#include "wm.h"
#include "wm_fs.h"
#include "wm_ref.h"

#define EN (WM_SE_GROUP_ENABLED | WM_SE_GROUP_ENABLED_BY_DEFAULT | WM_SE_GROUP_MANDATORY)
#define PKG "S-1-15-2-1-2-3-4-5-6-7"

static const struct wm_reading generic = {WM_WRITE_GENERIC, false};

static void sd_init(struct wm_sd *sd, const char *owner)
{
	memset(sd, 0, sizeof(*sd));
	strcpy(sd->owner, owner);
	sd->has_dacl = true;
}

static void ace(struct wm_sd *sd, unsigned type, unsigned flags, uint32_t mask, const char *sid)
{
	struct wm_ace *a = &sd->dacl[sd->n_dacl++];

	a->type = type;
	a->flags = flags;
	a->mask = mask;
	strcpy(a->sid, sid);
}

/* "Permitting and Blocking Applications and Users": a condition's SD built
 * with BuildExplicitAccessWithName(user, FWP_ACTRL_MATCH_FILTER, GRANT);
 * the condition is true when the DACL grants that right.  ALE_PACKAGE_ID:
 * the AppContainer's package SID. */
static void test_wfp_conditions(void)
{
	struct wm_condition c;
	struct wm_token user, other, pkg;

	memset(&c, 0, sizeof(c));
	c.field = WM_ALE_USER_ID;
	sd_init(&c.sd, WM_SYSTEM);
	ace(&c.sd, WM_ACE_ALLOW, 0, WM_FWP_ACTRL_MATCH_FILTER, WM_REF_USER_SID);
	wm_ref_token(WM_REF_STANDARD_USER, &user);
	wm_ref_token(WM_REF_OTHER_USER, &other);
	for (int i = 0; i < WM_N_READINGS; i++) {
		struct wm_reading r = wm_reading_nth(i);

		t_ok(wm_condition_holds(&c, &user, r) && !wm_condition_holds(&c, &other, r),
		     "ALE_USER_ID (%s): the user's process matches, another user's does not",
		     wm_reading_name(r));
	}
	c.match = WM_MATCH_NOT_EQUAL;
	t_ok(!wm_condition_holds(&c, &user, generic) && wm_condition_holds(&c, &other, generic),
	     "ALE_USER_ID, FWP_MATCH_NOT_EQUAL: the inverse");
	memset(&c, 0, sizeof(c));
	c.field = WM_ALE_PACKAGE_ID;
	strcpy(c.sid, PKG);
	pkg = user;
	strcpy(pkg.package, PKG);
	t_ok(wm_condition_holds(&c, &pkg, generic) && !wm_condition_holds(&c, &user, generic),
	     "ALE_PACKAGE_ID: the AppContainer's process matches its package SID, a plain one not");
}

/* "Filter Arbitration": within a sublayer the highest-weight matching filter
 * decides; every sublayer is evaluated and "Block" overrides "Permit". */
static void test_arbitration(void)
{
	struct wm_filter f[3];
	struct wm_token user;

	memset(f, 0, sizeof(f));
	wm_ref_token(WM_REF_STANDARD_USER, &user);
	for (int i = 0; i < 3; i++)
		f[i].layer = "CONNECT_V4";
	f[0].action = WM_BLOCK, f[0].weight = 1;
	f[1].action = WM_PERMIT, f[1].weight = 5;
	t_ok(wm_arbitrate(f, 2, "CONNECT_V4", &user, generic) == WM_PERMIT,
	     "arbitration: a higher-weight permit in the same sublayer wins");
	f[1].sublayer = 1;
	t_ok(wm_arbitrate(f, 2, "CONNECT_V4", &user, generic) == WM_BLOCK,
	     "arbitration: a block in another sublayer overrides a permit");
	t_ok(wm_arbitrate(f, 2, "RECV_ACCEPT_V4", &user, generic) == WM_PERMIT,
	     "arbitration: no filter at the layer, traffic permitted");
}

/* "ACE Inheritance Rules": the table, NO_PROPAGATE, and CREATOR OWNER mapped
 * on an effective copy while the inherit-only copy keeps it generic. */
static void test_inheritance_rules(void)
{
	struct wm_sd p;
	struct wm_ace out[WM_ACES_MAX];
	size_t n;

	sd_init(&p, WM_SYSTEM);
	ace(&p, WM_ACE_ALLOW, WM_OI, WM_FILE_READ_DATA, WM_USERS);
	n = 0, wm_fs_inherited(&p, false, "O", out, &n);
	t_ok(n == 1 && out[0].flags == WM_INHERITED, "OI only: a file inherits an effective ACE");
	n = 0, wm_fs_inherited(&p, true, "O", out, &n);
	t_ok(n == 1 && out[0].flags == (WM_OI | WM_IO | WM_INHERITED),
	     "OI only: a directory inherits an inherit-only ACE");
	p.dacl[0].flags = WM_OI | WM_NP;
	n = 0, wm_fs_inherited(&p, true, "O", out, &n);
	t_ok(n == 0, "OI with NO_PROPAGATE: nothing for a directory");
	p.dacl[0].flags = WM_CI;
	n = 0, wm_fs_inherited(&p, false, "O", out, &n);
	t_ok(n == 0, "CI only: no effect on a file");
	n = 0, wm_fs_inherited(&p, true, "O", out, &n);
	t_ok(n == 1 && out[0].flags == (WM_CI | WM_INHERITED), "CI only: an effective, inheritable ACE");
	p.dacl[0].flags = WM_CI | WM_NP;
	n = 0, wm_fs_inherited(&p, true, "O", out, &n);
	t_ok(n == 1 && out[0].flags == WM_INHERITED, "CI with NO_PROPAGATE: effective, no longer inheritable");
	sd_init(&p, WM_SYSTEM);
	ace(&p, WM_ACE_ALLOW, WM_OI | WM_CI | WM_IO, WM_GENERIC_ALL, WM_CREATOR_OWNER);
	n = 0, wm_fs_inherited(&p, true, "S-1-5-21-1-1-1-7", out, &n);
	t_ok(n == 2 && strcmp(out[0].sid, "S-1-5-21-1-1-1-7") == 0 &&
	     out[0].mask == wm_file_mapping.all && strcmp(out[1].sid, WM_CREATOR_OWNER) == 0 &&
	     (out[1].flags & WM_IO) && out[1].mask == WM_GENERIC_ALL,
	     "CREATOR OWNER: an effective copy for the owner, mapped; an inherit-only copy, generic");
}

/* The operations: KB 238018 (FILE_DELETE_CHILD on the parent deletes a child
 * whatever the child's DACL), propagation ("Automatic Propagation of
 * Inheritable ACEs") against the low-level set, and a junction. */
static void test_tree(void)
{
	struct wm_fs fs;
	struct wm_sd root;
	struct wm_token user;
	struct wm_ace a;
	int d, f, out, j;

	sd_init(&root, WM_SYSTEM);
	ace(&root, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_ALL, WM_SYSTEM);
	wm_fs_init(&fs, &root);
	wm_ref_token(WM_REF_STANDARD_USER, &user);
	d = wm_fs_create(&fs, wm_fs_resolve(&fs, "C:", false), "d", WM_DIR, WM_SYSTEM, NULL, NULL);
	f = wm_fs_create(&fs, d, "f", WM_FILE, WM_SYSTEM, NULL, NULL);
	out = wm_fs_create(&fs, wm_fs_resolve(&fs, "C:", false), "out", WM_DIR, WM_SYSTEM, NULL, NULL);
	j = wm_fs_create(&fs, d, "j", WM_JUNCTION, WM_SYSTEM, NULL, "C:\\out");
	t_ok(wm_fs_resolve(&fs, "C:\\D\\F", true) == f, "names compare case-insensitively");
	t_ok(wm_fs_resolve(&fs, "C:\\d\\j", true) == out && wm_fs_resolve(&fs, "C:\\d\\j", false) == j,
	     "a junction is followed, unless it is the last name opened as itself");
	t_ok(!wm_fs_can_delete(&fs, f, &user, generic), "no right on f or d: f cannot be deleted");
	memset(&a, 0, sizeof(a));
	a.type = WM_ACE_ALLOW;
	a.mask = WM_FILE_DELETE_CHILD;
	strcpy(a.sid, WM_REF_USER_SID);
	wm_fs_set(&fs, d, &a, 1, false, WM_PROP_NONE);
	t_ok(wm_fs_can_delete(&fs, f, &user, generic), "KB 238018: FILE_DELETE_CHILD on d deletes f");
	a.mask = WM_FILE_WRITE_DATA;
	a.flags = WM_OI | WM_CI;
	wm_fs_set(&fs, d, &a, 1, false, WM_PROP_NONE);
	t_ok(!wm_fs_can(&fs, f, WM_FILE_WRITE_DATA, &user, generic),
	     "low-level set: an existing child does not inherit");
	fs.dacl_writes = 0;
	wm_fs_set(&fs, d, &a, 1, false, WM_PROP_NOFOLLOW);
	t_ok(wm_fs_can(&fs, f, WM_FILE_WRITE_DATA, &user, generic), "automatic propagation: f inherits");
	t_ok(fs.dacl_writes == 3, "propagation rewrote d, f and the junction j (%lu DACLs)", fs.dacl_writes);
	t_ok(!wm_fs_can(&fs, out, WM_FILE_WRITE_DATA, &user, generic),
	     "propagation that does not follow the junction leaves its target alone");
	wm_fs_set(&fs, d, &a, 1, false, WM_PROP_FOLLOW);
	t_ok(wm_fs_can(&fs, out, WM_FILE_WRITE_DATA, &user, generic),
	     "propagation that follows the junction re-secures its target (the undocumented case)");
	wm_fs_free(&fs);
}

int main(void)
{
	test_wfp_conditions();
	test_arbitration();
	test_inheritance_rules();
	test_tree();
	return t_done();
}
