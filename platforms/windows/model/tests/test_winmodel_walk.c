/* test_winmodel_walk.c - per-run propagation of the workspace grant in the
 * model (issue 32 §5; platforms/windows/README.md, "Propagation"):
 *   1. its cost: the DACLs rewritten per run (apply and restore) as the
 *      workspace grows, against granting once and keeping the ACEs;
 *   2. a junction the command plants in one run, to a directory of the
 *      runner's it cannot write: a walk that never follows a junction
 *      (WM_PROP_NOFOLLOW, what propagate.c does by construction: a reparse
 *      point is re-secured, never descended) leaves the target's DACL as it
 *      was through the restore and the next run, and the command cannot
 *      write through it; a walk that follows (WM_PROP_FOLLOW, the
 *      undocumented case of SetSecurityInfo's own propagation) hands the
 *      target the grant and leaves it re-secured after the restore;
 *   3. why not grant once (as Codex does): the ACEs naming the shared
 *      sandbox account stay, so a later run for another workspace, as that
 *      account, reads this one; per run, the restore takes them off.
 * Every check holds under every reading of the open points (wm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "wm.h"
#include "wm_fs.h"
#include "wm_ref.h"

#define CAP_A "S-1-5-21-7-7-7-1"   /* workspace A's capability SID */
#define CAP_B "S-1-5-21-7-7-7-2"   /* workspace B's */
#define GRANT (WM_GENERIC_READ | WM_GENERIC_WRITE | WM_GENERIC_EXECUTE)

static void ace_add(struct wm_sd *sd, unsigned type, unsigned flags, uint32_t mask, const char *sid)
{
	struct wm_ace *a = &sd->dacl[sd->n_dacl++];

	a->type = type;
	a->flags = flags;
	a->mask = mask;
	strcpy(a->sid, sid);
}

/* C:\ as a default install (SYSTEM, Administrators full; Users read), and
 * C:\u, the runner's profile: protected, the runner and SYSTEM only (as
 * C:\Users\<name> is).  Returns C:\u. */
static int world(struct wm_fs *fs)
{
	struct wm_sd root, prof;
	int c, u;

	memset(&root, 0, sizeof(root));
	strcpy(root.owner, WM_SYSTEM);
	root.has_dacl = true;
	ace_add(&root, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_ALL, WM_SYSTEM);
	ace_add(&root, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_ALL, WM_ADMINISTRATORS);
	ace_add(&root, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_READ | WM_GENERIC_EXECUTE, WM_USERS);
	if (wm_fs_init(fs, &root) < 0)
		abort();
	c = wm_fs_resolve(fs, "C:", false);
	u = wm_fs_create(fs, c, "u", WM_DIR, WM_REF_USER_SID, NULL, NULL);
	memset(&prof, 0, sizeof(prof));
	ace_add(&prof, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_ALL, WM_SYSTEM);
	ace_add(&prof, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_ALL, WM_REF_USER_SID);
	wm_fs_set(fs, u, prof.dacl, prof.n_dacl, true, WM_PROP_NONE);
	return u;
}

/* The command's token: the sandbox account's, write-restricted to the
 * workspace's capability SID (what the plan's recipe restricts writes to). */
static void command_token(const char *cap, struct wm_token *out)
{
	struct wm_token acct;
	const char *rs[] = {cap};

	wm_ref_token(WM_REF_SANDBOX_ACCOUNT, &acct);
	if (!wm_create_restricted(&acct, WM_WRITE_RESTRICTED, NULL, 0, NULL, 0, rs, 1, out))
		abort();
}

/* The run's grant on ws: the explicit ACEs it had, and one ACE each for the
 * account and the capability, inheritable.  *saved: what to restore. */
static size_t grant(struct wm_fs *fs, int ws, const char *cap, enum wm_propagate mode,
		    struct wm_ace saved[WM_ACES_MAX])
{
	struct wm_sd g;
	size_t n = wm_fs_explicit(fs, ws, saved);

	memset(&g, 0, sizeof(g));
	memcpy(g.dacl, saved, n * sizeof(*saved));
	g.n_dacl = n;
	ace_add(&g, WM_ACE_ALLOW, WM_OI | WM_CI, GRANT, WM_REF_ACCOUNT_SID);
	ace_add(&g, WM_ACE_ALLOW, WM_OI | WM_CI, GRANT, cap);
	wm_fs_set(fs, ws, g.dacl, g.n_dacl, fs->v[ws].sd.protected_dacl, mode);
	return n;
}

static void ungrant(struct wm_fs *fs, int ws, const struct wm_ace *saved, size_t n,
		    enum wm_propagate mode)
{
	wm_fs_set(fs, ws, saved, n, fs->v[ws].sd.protected_dacl, mode);
}

/* 1. n files in directories of 100 below C:\u\ws: DACLs per run. */
static void test_cost(void)
{
	static const size_t sizes[] = {10, 100, 1000, 10000};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct wm_fs fs;
		struct wm_ace saved[WM_ACES_MAX];
		int u = world(&fs), ws, d = -1;
		size_t n, objects = 0;
		unsigned long apply, restore;
		char name[32];

		ws = wm_fs_create(&fs, u, "ws", WM_DIR, WM_REF_USER_SID, NULL, NULL);
		for (size_t i = 0; i < sizes[k]; i++) {
			if (i % 100 == 0) {
				snprintf(name, sizeof(name), "d%zu", i / 100);
				d = wm_fs_create(&fs, ws, name, WM_DIR, WM_REF_USER_SID, NULL, NULL);
				objects++;
			}
			snprintf(name, sizeof(name), "f%zu", i);
			wm_fs_create(&fs, d, name, WM_FILE, WM_REF_USER_SID, NULL, NULL);
			objects++;
		}
		fs.dacl_writes = 0;
		n = grant(&fs, ws, CAP_A, WM_PROP_NOFOLLOW, saved);
		apply = fs.dacl_writes;
		fs.dacl_writes = 0;
		ungrant(&fs, ws, saved, n, WM_PROP_NOFOLLOW);
		restore = fs.dacl_writes;
		printf("# %zu files (%zu objects below the workspace): per run %lu DACLs "
		       "written by the apply, %lu by the restore; granting once: %lu at the "
		       "grant, 0 per run, %lu at the revocation\n",
		       sizes[k], objects, apply, restore, apply, restore);
		t_ok(apply == objects + 1 && restore == objects + 1,
		     "%zu files: the apply and the restore each rewrite every object once "
		     "(%zu + 1): linear in the workspace", sizes[k], objects);
		wm_fs_free(&fs);
	}
}

/* The runner shares the workspace for reading (an explicit, inheritable
 * ACE for Users), so that what it passes on differs from its parent's. */
static void share_read(struct wm_fs *fs, int ws)
{
	struct wm_sd g;

	memset(&g, 0, sizeof(g));
	ace_add(&g, WM_ACE_ALLOW, WM_OI | WM_CI, WM_GENERIC_READ | WM_GENERIC_EXECUTE, WM_USERS);
	wm_fs_set(fs, ws, g.dacl, g.n_dacl, false, WM_PROP_NONE);
}

struct planted {
	struct wm_fs fs;
	int ws, secret, s;
	struct wm_sd secret0, s0; /* before any run */
};

/* C:\u\ws the workspace, C:\u\secret\s the runner's; the command of run 1
 * (which may: the workspace grants it) plants ws\j -> C:\u\secret. */
static bool plant(struct planted *p, enum wm_propagate mode, struct wm_reading r)
{
	struct wm_ace saved[WM_ACES_MAX];
	struct wm_token cmd;
	int u = world(&p->fs);
	size_t n;
	bool could;

	p->ws = wm_fs_create(&p->fs, u, "ws", WM_DIR, WM_REF_USER_SID, NULL, NULL);
	share_read(&p->fs, p->ws);
	p->secret = wm_fs_create(&p->fs, u, "secret", WM_DIR, WM_REF_USER_SID, NULL, NULL);
	p->s = wm_fs_create(&p->fs, p->secret, "s", WM_FILE, WM_REF_USER_SID, NULL, NULL);
	p->secret0 = p->fs.v[p->secret].sd;
	p->s0 = p->fs.v[p->s].sd;
	command_token(CAP_A, &cmd);
	n = grant(&p->fs, p->ws, CAP_A, mode, saved);
	could = wm_fs_can_add(&p->fs, p->ws, WM_JUNCTION, &cmd, r);
	wm_fs_create(&p->fs, p->ws, "j", WM_JUNCTION, WM_REF_ACCOUNT_SID, NULL, "C:\\u\\secret");
	ungrant(&p->fs, p->ws, saved, n, mode);
	return could;
}

static bool sd_same(const struct wm_sd *a, const struct wm_sd *b)
{
	if (a->n_dacl != b->n_dacl || a->protected_dacl != b->protected_dacl)
		return false;
	for (size_t i = 0; i < a->n_dacl; i++)
		if (a->dacl[i].type != b->dacl[i].type || a->dacl[i].flags != b->dacl[i].flags ||
		    a->dacl[i].mask != b->dacl[i].mask || strcmp(a->dacl[i].sid, b->dacl[i].sid))
			return false;
	return true;
}

/* 2. Run 2 after the plant: the command writing C:\u\secret\s through ws\j,
 * and the target's DACLs after run 2's restore. */
static void run2(enum wm_propagate mode, struct wm_reading r, bool *wrote, bool *kept)
{
	struct planted p;
	struct wm_ace saved[WM_ACES_MAX];
	struct wm_token cmd;
	bool could = plant(&p, mode, r);
	size_t n;
	int via;

	t_ok(could, "(%s, %s) the command may make a directory (a junction) in its workspace",
	     mode == WM_PROP_FOLLOW ? "follow" : "no follow", wm_reading_name(r));
	command_token(CAP_A, &cmd);
	n = grant(&p.fs, p.ws, CAP_A, mode, saved);
	via = wm_fs_resolve(&p.fs, "C:\\u\\ws\\j\\s", true);
	*wrote = via == p.s && wm_fs_can(&p.fs, via, WM_FILE_WRITE_DATA, &cmd, r);
	ungrant(&p.fs, p.ws, saved, n, mode);
	*kept = sd_same(&p.fs.v[p.secret].sd, &p.secret0) && sd_same(&p.fs.v[p.s].sd, &p.s0);
	wm_fs_free(&p.fs);
}

static void test_planted_junction(void)
{
	for (int i = 0; i < WM_N_READINGS; i++) {
		struct wm_reading r = wm_reading_nth(i);
		bool wrote, kept;

		run2(WM_PROP_NOFOLLOW, r, &wrote, &kept);
		t_ok(!wrote && kept, "(%s) a walk that never descends a junction: run 2's command "
		     "cannot write the runner's file through the planted junction, and the "
		     "target's DACLs are as before any run", wm_reading_name(r));
		run2(WM_PROP_FOLLOW, r, &wrote, &kept);
		t_ok(wrote && !kept, "(%s) a walk that follows it (the negative control): run 2's "
		     "command writes the runner's file (wrote %d), and the target is left "
		     "re-secured with what the workspace passes on (kept %d)",
		     wm_reading_name(r), wrote, kept);
	}
}

/* 3. Workspaces A and B of one runner; A's grant kept (grant once) or
 * taken off by its restore (per run); then B's run, as the same sandbox
 * account, tries to read and write A's file. */
static void test_grant_once(void)
{
	for (int i = 0; i < WM_N_READINGS; i++) {
		struct wm_reading r = wm_reading_nth(i);

		for (int once = 0; once < 2; once++) {
			struct wm_fs fs;
			struct wm_ace sa[WM_ACES_MAX], sb[WM_ACES_MAX];
			struct wm_token cmd_b;
			int u = world(&fs);
			int a = wm_fs_create(&fs, u, "a", WM_DIR, WM_REF_USER_SID, NULL, NULL);
			int b = wm_fs_create(&fs, u, "b", WM_DIR, WM_REF_USER_SID, NULL, NULL);
			int fa = wm_fs_create(&fs, a, "f", WM_FILE, WM_REF_USER_SID, NULL, NULL);
			size_t na = grant(&fs, a, CAP_A, WM_PROP_NOFOLLOW, sa), nb;
			bool read, write;

			if (!once)
				ungrant(&fs, a, sa, na, WM_PROP_NOFOLLOW);
			command_token(CAP_B, &cmd_b);
			nb = grant(&fs, b, CAP_B, WM_PROP_NOFOLLOW, sb);
			read = wm_fs_can(&fs, fa, WM_FILE_READ_DATA, &cmd_b, r);
			write = wm_fs_can(&fs, fa, WM_FILE_WRITE_DATA, &cmd_b, r);
			ungrant(&fs, b, sb, nb, WM_PROP_NOFOLLOW);
			if (once)
				t_ok(read && !write, "(%s) grant once: B's command, as the shared "
				     "account, reads A's file (A's ACEs kept); the write is stopped "
				     "only by the capability SID", wm_reading_name(r));
			else
				t_ok(!read && !write, "(%s) per run: A's restore took its ACEs off; "
				     "B's command neither reads nor writes A's file",
				     wm_reading_name(r));
			wm_fs_free(&fs);
		}
	}
}

int main(void)
{
	test_cost();
	test_planted_junction();
	test_grant_once();
	return t_done();
}
