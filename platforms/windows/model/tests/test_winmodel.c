/* test_winmodel.c - the access-check model (platforms/windows/model) on the
 * worked examples of the documents it was written from, before it judges
 * any plan.  Each block names its source; README.md there gives the URLs. */
#include <string.h>

#include "t.h"
#include "wm.h"
#include "wm_fs.h"
#include "wm_ref.h"

#define ANDREW "S-1-5-21-9-9-9-1101"
#define JANE "S-1-5-21-9-9-9-1102"
#define GROUP_A "S-1-5-21-9-9-9-2001"
#define X_SID "S-1-5-21-9-9-9-3001"
#define EN (WM_SE_GROUP_ENABLED | WM_SE_GROUP_ENABLED_BY_DEFAULT | WM_SE_GROUP_MANDATORY)

#define R WM_FILE_READ_DATA
#define W WM_FILE_WRITE_DATA
#define X WM_FILE_EXECUTE
/* The examples' read, write and execute as the only rights of a type. */
static const struct wm_mapping rwx = {.read = R, .write = W, .execute = X, .all = R | W | X};

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

static void token(struct wm_token *t, const char *user)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->user.sid, user);
	t->integrity = WM_IL_MEDIUM;
	t->no_write_up = true;
}

/* "How DACLs Control Access to an Object": ACE 1 denies Andrew read, write
 * and execute; ACE 2 allows Group A write; ACE 3 allows Everyone read and
 * execute.  Thread A (Andrew) is denied at ACE 1; Thread B is granted write
 * by ACE 2 and read and execute by ACE 3; with another order the system
 * "might have granted access to Thread A". */
static void test_how_dacls_control_access(void)
{
	struct wm_sd sd;
	struct wm_token a, b;

	sd_init(&sd, JANE);
	ace(&sd, WM_ACE_DENY, 0, R | W | X, ANDREW);
	ace(&sd, WM_ACE_ALLOW, 0, W, GROUP_A);
	ace(&sd, WM_ACE_ALLOW, 0, R | X, WM_EVERYONE);
	token(&a, ANDREW);
	wm_token_add_group(&a, GROUP_A, EN);
	wm_token_add_group(&a, WM_EVERYONE, EN);
	token(&b, "S-1-5-21-9-9-9-1103");
	wm_token_add_group(&b, GROUP_A, EN);
	wm_token_add_group(&b, WM_EVERYONE, EN);
	t_ok(!wm_access(&sd, &a, W, &rwx, generic), "DACL example: Thread A (Andrew) denied write at ACE 1");
	t_ok(!wm_access(&sd, &a, R, &rwx, generic), "DACL example: Thread A denied read at ACE 1");
	t_ok(wm_access(&sd, &b, R | W | X, &rwx, generic),
	     "DACL example: Thread B granted write (ACE 2) and read, execute (ACE 3)");
	t_ok(wm_access_max(&sd, &a, &rwx, generic) == 0, "DACL example: Thread A's maximum is nothing");
	/* Allow ACE 2 first: Andrew, a member of Group A, is granted write. */
	sd.dacl[0].type = WM_ACE_ALLOW, sd.dacl[0].mask = W, strcpy(sd.dacl[0].sid, GROUP_A);
	sd.dacl[1].type = WM_ACE_DENY, sd.dacl[1].mask = R | W | X, strcpy(sd.dacl[1].sid, ANDREW);
	t_ok(wm_access(&sd, &a, W, &rwx, generic),
	     "DACL example, other order: Thread A granted write (ACE order matters)");
	t_ok(!wm_access(&sd, &a, W | R, &rwx, generic),
	     "DACL example, other order: read still denied to Andrew");
}

/* "DACLs and ACEs": deny Andrew RWX, allow Group A RW, allow Everyone X:
 * members of Group A get RWX by accumulation, Andrew nothing. */
static void test_dacls_and_aces(void)
{
	struct wm_sd sd;
	struct wm_token member, andrew;

	sd_init(&sd, WM_SYSTEM);
	ace(&sd, WM_ACE_DENY, 0, R | W | X, ANDREW);
	ace(&sd, WM_ACE_ALLOW, 0, R | W, GROUP_A);
	ace(&sd, WM_ACE_ALLOW, 0, X, WM_EVERYONE);
	token(&member, JANE);
	wm_token_add_group(&member, GROUP_A, EN);
	wm_token_add_group(&member, WM_EVERYONE, EN);
	token(&andrew, ANDREW);
	wm_token_add_group(&andrew, WM_EVERYONE, EN);
	t_ok(wm_access_max(&sd, &member, &rwx, generic) == (R | W | X),
	     "DACLs and ACEs: Group A member accumulates RWX");
	t_ok(wm_access_max(&sd, &andrew, &rwx, generic) == 0,
	     "DACLs and ACEs: Andrew denied despite Everyone's execute");
}

/* "DACLs and ACEs" and MS-DTYP 2.5.3.2: no DACL, everyone has full access;
 * an empty DACL, no one, except the owner's implied access. */
static void test_null_and_empty_dacl(void)
{
	struct wm_sd sd;
	struct wm_token jane, other;

	token(&jane, JANE);
	token(&other, ANDREW);
	sd_init(&sd, JANE);
	sd.has_dacl = false;
	t_ok(wm_access(&sd, &other, WM_GENERIC_ALL, &wm_file_mapping, generic),
	     "NULL DACL: full access for anyone");
	sd.has_dacl = true;
	t_ok(wm_access_max(&sd, &other, &wm_file_mapping, generic) == 0, "empty DACL: nothing for a non-owner");
	t_ok(wm_access_max(&sd, &jane, &wm_file_mapping, generic) == (WM_READ_CONTROL | WM_WRITE_DAC),
	     "empty DACL: the owner keeps only READ_CONTROL and WRITE_DAC");
}

/* "SID Attributes in an Access Token": a deny-only SID is checked against
 * deny ACEs and ignored for allow ACEs; a SID with neither attribute is
 * ignored. */
static void test_sid_attributes(void)
{
	struct wm_sd sd;
	struct wm_token t;

	sd_init(&sd, JANE);
	ace(&sd, WM_ACE_ALLOW, 0, R | W, GROUP_A);
	token(&t, ANDREW);
	wm_token_add_group(&t, GROUP_A, WM_SE_GROUP_USE_FOR_DENY_ONLY);
	t_ok(!wm_access(&sd, &t, R, &rwx, generic), "deny-only SID: an allow ACE for it grants nothing");
	t.groups[0].attrs = 0;
	t_ok(!wm_access(&sd, &t, R, &rwx, generic), "a SID neither enabled nor deny-only is ignored");
	sd_init(&sd, JANE);
	ace(&sd, WM_ACE_DENY, 0, W, GROUP_A);
	ace(&sd, WM_ACE_ALLOW, 0, R | W, WM_EVERYONE);
	wm_token_add_group(&t, WM_EVERYONE, EN);
	t.groups[0].attrs = WM_SE_GROUP_USE_FOR_DENY_ONLY;
	t_ok(!wm_access(&sd, &t, W, &rwx, generic) && wm_access(&sd, &t, R, &rwx, generic),
	     "deny-only SID: a deny ACE for it still denies");
	t.groups[0].attrs = 0;
	t_ok(wm_access(&sd, &t, W, &rwx, generic), "a SID neither enabled nor deny-only: its deny ACE is ignored");
}

/* "Restricted Tokens": two access checks, one with the enabled SIDs, one
 * with the restricting SIDs; granted only if both allow.  CreateRestrictedToken,
 * WRITE_RESTRICTED: the restricting SIDs "are considered only when evaluating
 * write access". */
static void test_restricted_tokens(void)
{
	struct wm_sd sd;
	struct wm_token t;

	sd_init(&sd, JANE);
	ace(&sd, WM_ACE_ALLOW, 0, R | W, ANDREW);
	ace(&sd, WM_ACE_ALLOW, 0, R, X_SID);
	token(&t, ANDREW);
	strcpy(t.restricting[0], X_SID);
	t.n_restricting = 1;
	t_ok(wm_access(&sd, &t, R, &rwx, generic) && !wm_access(&sd, &t, W, &rwx, generic),
	     "restricted token: read (both checks allow), not write (the restricting SID lacks it)");
	sd.dacl[1].mask = 0;
	t_ok(!wm_access(&sd, &t, R, &rwx, generic), "restricted token: read needs the second check too");
	t.write_restricted = true;
	for (int i = 0; i < WM_N_READINGS; i++) {
		struct wm_reading r = wm_reading_nth(i);

		t_ok(wm_access(&sd, &t, R, &rwx, r) && !wm_access(&sd, &t, W, &rwx, r),
		     "write-restricted (%s): read from the enabled SIDs alone, write needs a "
		     "restricting SID", wm_reading_name(r));
	}
	sd.dacl[1].mask = R | W;
	t_ok(wm_access(&sd, &t, W, &rwx, generic), "write-restricted: write granted when both allow it");
}

/* CreateRestrictedToken: SidsToDisable become deny-only (the user SID too);
 * DISABLE_MAX_PRIVILEGE "disables" all privileges but SeChangeNotify and
 * PrivilegesToDelete is then ignored (a disabled privilege is still held);
 * PrivilegesToDelete deletes. */
static void test_create_restricted(void)
{
	struct wm_token base, out;
	const char *dis[] = {WM_ADMINISTRATORS, WM_REF_USER_SID};
	const char *del[] = {"SeBackupPrivilege"};
	const char *rs[] = {X_SID};

	wm_ref_token(WM_REF_ADMIN_ELEVATED, &base);
	wm_create_restricted(&base, WM_WRITE_RESTRICTED, dis, 2, del, 1, rs, 1, &out);
	t_ok((wm_token_group(&out, WM_ADMINISTRATORS)->attrs &
	      (WM_SE_GROUP_ENABLED | WM_SE_GROUP_USE_FOR_DENY_ONLY)) == WM_SE_GROUP_USE_FOR_DENY_ONLY,
	     "SidsToDisable: Administrators deny-only, not enabled");
	t_ok(out.user.attrs & WM_SE_GROUP_USE_FOR_DENY_ONLY, "SidsToDisable may name the user SID");
	t_ok(!wm_token_has_privilege(&out, "SeBackupPrivilege") &&
	     wm_token_has_privilege(&out, "SeRestorePrivilege"),
	     "PrivilegesToDelete deletes what it names, nothing else");
	t_ok(out.write_restricted && out.n_restricting == 1, "WRITE_RESTRICTED and the restricting SIDs recorded");
	wm_create_restricted(&base, WM_DISABLE_MAX_PRIVILEGE, NULL, 0, del, 1, NULL, 0, &out);
	t_ok(wm_token_has_privilege(&out, "SeBackupPrivilege"),
	     "DISABLE_MAX_PRIVILEGE: privileges disabled, still held; PrivilegesToDelete ignored");
}

/* "Mandatory Integrity Control": a low principal "cannot write to an object
 * with a medium integrity level, even if that object's DACL allows write";
 * an object without a label is medium; no-write-up is the default policy. */
static void test_mandatory_integrity(void)
{
	struct wm_sd sd;
	struct wm_token t;

	sd_init(&sd, JANE);
	ace(&sd, WM_ACE_ALLOW, 0, WM_GENERIC_ALL, WM_EVERYONE);
	token(&t, ANDREW);
	wm_token_add_group(&t, WM_EVERYONE, EN);
	t.integrity = WM_IL_LOW;
	for (int i = 0; i < 2; i++) {
		struct wm_reading r = wm_reading_nth(i);

		t_ok(!wm_access(&sd, &t, WM_FILE_WRITE_DATA, &wm_file_mapping, r) &&
		     wm_access(&sd, &t, WM_FILE_READ_DATA, &wm_file_mapping, r),
		     "MIC (%s): low cannot write an unlabeled (medium) object, may read it",
		     wm_reading_name(r));
	}
	t.integrity = WM_IL_MEDIUM;
	t_ok(wm_access(&sd, &t, WM_FILE_WRITE_DATA, &wm_file_mapping, generic), "MIC: medium writes a medium object");
	sd.has_label = true;
	sd.label_il = WM_IL_HIGH;
	sd.label_policy = WM_NO_WRITE_UP | WM_NO_READ_UP;
	t_ok(!wm_access(&sd, &t, WM_FILE_READ_DATA, &wm_file_mapping, generic),
	     "MIC: no-read-up on a high label withholds read from medium");
}

/* OWNER RIGHTS (S-1-3-4, "Well-known SIDs"): with an ACE for it, "the system
 * ignores the implicit READ_CONTROL and WRITE_DAC permissions for the object
 * owner"; "Owner of a New Object": the owner implicitly has WRITE_DAC. */
static void test_owner_rights(void)
{
	struct wm_sd sd;
	struct wm_token jane;

	sd_init(&sd, JANE);
	ace(&sd, WM_ACE_ALLOW, 0, WM_FILE_READ_DATA, WM_EVERYONE);
	token(&jane, JANE);
	wm_token_add_group(&jane, WM_EVERYONE, EN);
	t_ok(wm_access(&sd, &jane, WM_WRITE_DAC, &wm_file_mapping, generic), "owner: implicit WRITE_DAC");
	ace(&sd, WM_ACE_ALLOW, 0, WM_READ_CONTROL, WM_OWNER_RIGHTS);
	t_ok(!wm_access(&sd, &jane, WM_WRITE_DAC, &wm_file_mapping, generic) &&
	     wm_access(&sd, &jane, WM_READ_CONTROL, &wm_file_mapping, generic),
	     "OWNER RIGHTS ACE: the owner gets what it grants, no implicit WRITE_DAC");
	jane.user.attrs = WM_SE_GROUP_USE_FOR_DENY_ONLY;
	sd.n_dacl = 1;
	t_ok(!wm_access(&sd, &jane, WM_WRITE_DAC, &wm_file_mapping, generic),
	     "owner whose SID is deny-only: no implicit rights");
}

/* "Privilege Constants": SeBackupPrivilege grants all read access, SeRestore
 * all write access, SeTakeOwnership WRITE_OWNER, whatever the ACL. */
static void test_privileges(void)
{
	struct wm_sd sd;
	struct wm_token t;

	sd_init(&sd, JANE);
	token(&t, ANDREW);
	wm_token_add_privilege(&t, "SeBackupPrivilege");
	t_ok(wm_access(&sd, &t, WM_GENERIC_READ, &wm_file_mapping, generic) &&
	     !wm_access(&sd, &t, WM_FILE_WRITE_DATA, &wm_file_mapping, generic),
	     "SeBackupPrivilege: read despite an empty DACL, no write");
	wm_token_add_privilege(&t, "SeRestorePrivilege");
	t_ok(wm_access(&sd, &t, WM_FILE_WRITE_DATA | WM_DELETE | WM_WRITE_DAC, &wm_file_mapping, generic),
	     "SeRestorePrivilege: write, delete, WRITE_DAC");
	token(&t, ANDREW);
	wm_token_add_privilege(&t, "SeTakeOwnershipPrivilege");
	t_ok(wm_access(&sd, &t, WM_WRITE_OWNER, &wm_file_mapping, generic), "SeTakeOwnershipPrivilege: WRITE_OWNER");
}

int main(void)
{
	test_how_dacls_control_access();
	test_dacls_and_aces();
	test_null_and_empty_dacl();
	test_sid_attributes();
	test_restricted_tokens();
	test_create_restricted();
	test_mandatory_integrity();
	test_owner_rights();
	test_privileges();
	return t_done();
}
