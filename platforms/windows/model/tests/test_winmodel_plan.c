/* test_winmodel_plan.c - every catalogue request's Windows plan through the
 * access-check model (platforms/windows/model/README.md, "Properties").
 *
 *   test_winmodel_plan GOLDEN_DIR
 *
 * For each request of the golden catalogue (tests/winplan/NAME.json with a
 * NAME.plan: the requests the plan accepts), built as `profile --os
 * windows` builds it (NAME.args), on a model machine whose protected names
 * are absent and then present, for each runner token the model knows
 * (administrator elevated and not, standard user, an administrator's
 * service logon), under every reading of the documents' open points:
 *   fs       the command can change nothing outside the write roots and the
 *            temp directory, nothing at or below a protected name, read-only
 *            subpath or deny_write path, and cannot delete, rename or
 *            re-secure a write root or a directory between it and a
 *            protected path (what is allowed is derived from the request,
 *            never from the plan);
 *   network  with network deny, the plan's filters block the command at
 *            every ALE layer and block no runner's own processes;
 *   token    no privileged group enabled, no privilege but
 *            SeChangeNotifyPrivilege, integrity at most medium;
 *   admin    an object only Administrators and SYSTEM may read is not read;
 *   works    in each write root the command may write, create and delete
 *            what the runner itself may there (a plan that forbids
 *            everything passes nothing).
 * Under a reading where the plan's outside canary gets through (the
 * command's token may delete, re-secure or write a file of the runner's
 * outside the grant) the backend refuses the run: nothing runs, nothing is
 * checked for that reading, and the test says so; a plan the canary refuses
 * under every reading fails "works".
 * One TAP line per request and property; the first failures are printed. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "winpath.h"
#include "wm_world.h"

/* Failures printed per request and property (SP_WM_DETAIL overrides). */
static int max_detail = 4;

static const enum wm_ref runners[] = {WM_REF_ADMIN_ELEVATED, WM_REF_ADMIN_FILTERED,
				      WM_REF_STANDARD_USER, WM_REF_SERVICE_ADMIN};
#define N_RUNNERS (sizeof(runners) / sizeof(runners[0]))

enum prop { P_FS = 0, P_NET, P_TOK, P_ADMIN, P_WORKS, P_COUNT };
static const char *const prop_names[P_COUNT] = {
	"fs: nothing outside the grant is writable",
	"network: the filters block the command and no runner",
	"token: no privileged group or privilege, at most medium",
	"admin: an Administrators-only object is not readable",
	"works: the write roots are writable",
};

struct tally {
	int fail[P_COUNT];
	int refused[WM_N_READINGS];  /* worlds where the outside canary refuses */
	int worlds;
	const char *name;
};

__attribute__((format(printf, 3, 4)))
static void fail(struct tally *t, enum prop p, const char *fmt, ...)
{
	va_list ap;

	if (t->fail[p]++ >= max_detail)
		return;
	printf("# %s: %s: ", t->name, prop_names[p]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- what the request allows, in the model's own tree ---------------------- */

struct areas {
	int writable[16], denied[64];
	size_t n_writable, n_denied, n_roots;  /* writable[0..n_roots): write roots */
};

static void area_add(struct world *w, int *v, size_t *n, size_t cap, const char *path)
{
	int node = wm_fs_resolve(&w->fs, path, false);

	if (node >= 0 && *n < cap)
		v[(*n)++] = node;
}

static void areas_of(struct world *w, const struct request *req, struct areas *a)
{
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < req->n_write_roots; i++) {
		const struct write_root *wr = &req->write_roots[i];

		area_add(w, a->writable, &a->n_writable, 16, wr->root);
		for (size_t j = 0; j < wr->read_only_subpaths.n; j++)
			area_add(w, a->denied, &a->n_denied, 64, wr->read_only_subpaths.v[j]);
		for (size_t j = 0; j < wr->protected_names.n; j++) {
			char p[WM_PATH_MAX];

			if (snprintf(p, sizeof(p), "%s\\%s", wr->root, wr->protected_names.v[j]) >=
			    (int)sizeof(p))
				continue;
			for (char *c = p; *c; c++)
				if (*c == '/')
					*c = '\\';
			area_add(w, a->denied, &a->n_denied, 64, p);
		}
	}
	a->n_roots = a->n_writable;
	if (req->temp_dir)
		area_add(w, a->writable, &a->n_writable, 16, req->temp_dir);
	for (size_t j = 0; j < req->deny_write.n; j++)
		area_add(w, a->denied, &a->n_denied, 64, req->deny_write.v[j]);
}

static bool under_any(struct world *w, const int *v, size_t n, int node)
{
	for (size_t i = 0; i < n; i++)
		if (wm_fs_beneath(&w->fs, v[i], node))
			return true;
	return false;
}

/* A write root, or a directory between one and a denied path. */
static bool pinned(struct world *w, const struct areas *a, int node)
{
	for (size_t i = 0; i < a->n_roots; i++) {
		if (a->writable[i] == node)
			return true;
		for (size_t j = 0; j < a->n_denied; j++)
			if (wm_fs_beneath(&w->fs, a->writable[i], node) &&
			    wm_fs_beneath(&w->fs, node, a->denied[j]) && node != a->denied[j])
				return true;
	}
	return false;
}

/* ---- the properties ----------------------------------------------------------- */

static const uint32_t write_rights[] = {
	WM_FILE_WRITE_DATA, WM_FILE_APPEND_DATA, WM_FILE_WRITE_EA, WM_FILE_WRITE_ATTRIBUTES,
	WM_WRITE_DAC, WM_WRITE_OWNER,
};

static const char *what(uint32_t right)
{
	switch (right) {
	case WM_FILE_WRITE_DATA: return "WRITE_DATA/ADD_FILE";
	case WM_FILE_APPEND_DATA: return "APPEND_DATA/ADD_SUBDIRECTORY";
	case WM_FILE_WRITE_EA: return "WRITE_EA";
	case WM_FILE_WRITE_ATTRIBUTES: return "WRITE_ATTRIBUTES";
	case WM_WRITE_DAC: return "WRITE_DAC";
	case WM_WRITE_OWNER: return "WRITE_OWNER";
	}
	return "?";
}

static void check_fs(struct tally *t, struct world *w, const struct areas *a,
		     const struct wm_token *cmd, struct wm_reading r, const char *who)
{
	for (size_t n = 1; n < w->fs.n; n++) {
		int node = (int)n;
		bool writable = under_any(w, a->writable, a->n_writable, node) &&
				!under_any(w, a->denied, a->n_denied, node);
		bool pin = writable && pinned(w, a, node);
		char path[WM_PATH_MAX];

		if (writable && !pin)
			continue;
		wm_fs_path(&w->fs, node, path);
		for (size_t k = 0; !pin && k < sizeof(write_rights) / sizeof(write_rights[0]); k++)
			if (wm_fs_can(&w->fs, node, write_rights[k], cmd, r))
				fail(t, P_FS, "%s, %s: %s granted on %s", who, wm_reading_name(r),
				     what(write_rights[k]), path);
		if (pin && (wm_fs_can(&w->fs, node, WM_WRITE_DAC, cmd, r) ||
			    wm_fs_can(&w->fs, node, WM_WRITE_OWNER, cmd, r)))
			fail(t, P_FS, "%s, %s: %s may be re-secured", who, wm_reading_name(r), path);
		if (wm_fs_can_delete(&w->fs, node, cmd, r))
			fail(t, P_FS, "%s, %s: %s may be deleted or renamed", who, wm_reading_name(r),
			     path);
	}
}

static const char *const layers[] = {
	"FWPM_LAYER_ALE_AUTH_CONNECT_V4", "FWPM_LAYER_ALE_AUTH_CONNECT_V6",
	"FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V4", "FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V6",
};

static void check_net(struct tally *t, const struct winplan *p, const struct wm_token *base,
		      const struct wm_token *cmd, struct wm_reading r, const char *who)
{
	struct wm_filter f[16];
	size_t n = world_filters(p, base, f);

	if (!p->network_denied)
		return;
	for (size_t l = 0; l < 4; l++) {
		if (wm_arbitrate(f, n, layers[l], cmd, r) != WM_BLOCK)
			fail(t, P_NET, "%s, %s: the command's traffic is permitted at %s", who,
			     wm_reading_name(r), layers[l]);
		for (int k = 0; k < WM_REF_COUNT; k++) {
			struct wm_token other;

			if (!wm_ref_is_runner((enum wm_ref)k))
				continue;
			wm_ref_token((enum wm_ref)k, &other);
			if (wm_arbitrate(f, n, layers[l], &other, r) != WM_PERMIT)
				fail(t, P_NET, "%s, %s: %s's own traffic is blocked at %s", who,
				     wm_reading_name(r), wm_ref_name((enum wm_ref)k), layers[l]);
		}
	}
}

/* Privileged groups ("Well-known SIDs"): the builtin administrative
 * groups, the local-administrator marker, the domain's administrative
 * groups (by their RIDs). */
static bool privileged(const char *sid)
{
	static const char *const builtin[] = {
		WM_ADMINISTRATORS, WM_POWER_USERS, "S-1-5-32-548", "S-1-5-32-549", "S-1-5-32-550",
		WM_BACKUP_OPERATORS, "S-1-5-32-552", "S-1-5-32-556", "S-1-5-32-578",
		WM_LOCAL_ACCOUNT_ADMIN,
	};
	static const char *const domain_rids[] = {"-512", "-518", "-519", "-520"};
	size_t n = strlen(sid);

	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(sid, builtin[i]))
			return true;
	for (size_t i = 0; i < 4; i++)
		if (!strncmp(sid, "S-1-5-21-", 9) && n > 4 && !strcmp(sid + n - 4, domain_rids[i]))
			return true;
	return false;
}

static void check_token(struct tally *t, const struct wm_token *cmd, const char *who)
{
	for (size_t i = 0; i < cmd->n_groups; i++)
		if (privileged(cmd->groups[i].sid) &&
		    !(cmd->groups[i].attrs & WM_SE_GROUP_USE_FOR_DENY_ONLY) &&
		    (cmd->groups[i].attrs & WM_SE_GROUP_ENABLED))
			fail(t, P_TOK, "%s: %s is enabled", who, cmd->groups[i].sid);
	for (size_t i = 0; i < cmd->n_privileges; i++)
		if (strcmp(cmd->privileges[i], "SeChangeNotifyPrivilege"))
			fail(t, P_TOK, "%s: %s is held", who, cmd->privileges[i]);
	if (cmd->integrity > WM_IL_MEDIUM)
		fail(t, P_TOK, "%s: integrity 0x%x", who, (unsigned)cmd->integrity);
}

/* Inside each write root not under a denied path, the command may do what
 * the runner itself may: the plan takes nothing away there. */
static void check_works(struct tally *t, struct world *w, const struct request *req,
			const struct areas *a, const struct wm_token *base,
			const struct wm_token *cmd, struct wm_reading r, const char *who)
{
	for (size_t i = 0; i < req->n_write_roots; i++) {
		char p[WM_PATH_MAX];
		int root = wm_fs_resolve(&w->fs, req->write_roots[i].root, false), f;
		bool lost = false;

		f = snprintf(p, sizeof(p), "%s\\f.txt", req->write_roots[i].root) < (int)sizeof(p)
			    ? wm_fs_resolve(&w->fs, p, false) : -1;
		if (root < 0 || f < 0) {
			fail(t, P_WORKS, "%s: %s or its f.txt is missing", who,
			     req->write_roots[i].root);
			continue;
		}
		if (under_any(w, a->denied, a->n_denied, root))
			continue;
		lost = (wm_fs_can(&w->fs, f, WM_FILE_WRITE_DATA, base, r) &&
			!wm_fs_can(&w->fs, f, WM_FILE_WRITE_DATA, cmd, r)) ||
		       (wm_fs_can_add(&w->fs, root, WM_FILE, base, r) &&
			!wm_fs_can_add(&w->fs, root, WM_FILE, cmd, r)) ||
		       (wm_fs_can_add(&w->fs, root, WM_DIR, base, r) &&
			!wm_fs_can_add(&w->fs, root, WM_DIR, cmd, r)) ||
		       (wm_fs_can_delete(&w->fs, f, base, r) && !wm_fs_can_delete(&w->fs, f, cmd, r));
		if (lost || !wm_fs_can(&w->fs, f, WM_FILE_WRITE_DATA, cmd, r))
			fail(t, P_WORKS, "%s, %s: cannot write, create or delete in %s", who,
			     wm_reading_name(r), req->write_roots[i].root);
	}
}

/* ---- one request ------------------------------------------------------------- */

static void check_world(struct tally *t, const struct request *req, const struct winplan *p,
			enum wm_ref runner, bool present)
{
	struct wm_token base, cmd;
	struct world w;
	struct areas a;
	char who[128];

	wm_ref_token(runner, &base);
	snprintf(who, sizeof(who), "%s, protected names %s", wm_ref_name(runner),
		 present ? "present" : "absent");
	if (world_build(&w, req, p, &base, present) < 0 ||
	    world_apply(&w, p, &base, WM_PROP_NOFOLLOW) < 0) {
		/* Nothing was checked in this world: every property fails. */
		for (int k = 0; k < P_COUNT; k++)
			fail(t, (enum prop)k, "%s: not checked, the plan cannot be applied: %s", who,
			     w.err);
		world_free(&w);
		return;
	}
	if (!world_command_token(p, &base, &cmd)) {
		fail(t, P_TOK, "%s: the model cannot derive the token", who);
		world_free(&w);
		return;
	}
	areas_of(&w, req, &a);
	check_token(t, &cmd, who);
	for (int i = 0; i < WM_N_READINGS; i++) {
		struct wm_reading r = wm_reading_nth(i);

		/* The outside canary: the backend opens a file of the runner's,
		 * outside the grant, under the command's token; anything granted
		 * refuses the run, so under this reading nothing runs. */
		if ((p->canaries & WINPLAN_CANARY_OUTSIDE) &&
		    (wm_fs_can_delete(&w.fs, w.canary, &cmd, r) ||
		     wm_fs_can(&w.fs, w.canary, WM_WRITE_DAC | WM_FILE_WRITE_DATA, &cmd, r) ||
		     wm_fs_can(&w.fs, w.canary, WM_WRITE_DAC, &cmd, r) ||
		     wm_fs_can(&w.fs, w.canary, WM_FILE_WRITE_DATA, &cmd, r))) {
			t->refused[i]++;
			continue;
		}

		/* An unrestricted filesystem grants what the user may write. */
		if (req->fs_kind == FS_RESTRICTED)
			check_fs(t, &w, &a, &cmd, r, who);
		check_net(t, p, &base, &cmd, r, who);
		check_works(t, &w, req, &a, &base, &cmd, r, who);
		if (wm_fs_can(&w.fs, w.admin_only, WM_FILE_READ_DATA, &cmd, r))
			fail(t, P_ADMIN, "%s, %s: the command reads C:\\adminonly\\secret", who,
			     wm_reading_name(r));
	}
	world_free(&w);
}

/* Where the outside canary refuses the run: said, and a plan refused under
 * every reading does nothing at all ("works" fails). */
static void report_refusals(struct tally *t)
{
	int all = 0;

	for (int i = 0; i < WM_N_READINGS; i++) {
		if (!t->refused[i])
			continue;
		printf("# %s: under %s the outside canary refuses the run (%d of %d worlds)\n",
		       t->name, wm_reading_name(wm_reading_nth(i)), t->refused[i], t->worlds);
		all += t->refused[i] == t->worlds;
	}
	if (all == WM_N_READINGS)
		fail(t, P_WORKS, "the outside canary refuses the run under every reading");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* NAME.args: "--temp-dir" then its value, one argument a line. */
static char *temp_arg(const char *dir, const char *name)
{
	char path[1024], *args, *tmp = NULL;

	snprintf(path, sizeof(path), "%s/%s.args", dir, name);
	args = slurp(path);
	if (args) {
		char *line = strstr(args, "--temp-dir\n");

		if (line) {
			line += strlen("--temp-dir\n");
			line[strcspn(line, "\r\n")] = '\0';
			tmp = strdup(line);
		}
	}
	free(args);
	return tmp;
}

static int check_request(const char *dir, const char *name)
{
	char path[1024], err[REQUEST_ERR_MAX], perr[WINPLAN_ERR_MAX], *json;
	struct request req;
	struct winplan plan;
	struct tally t = {.name = name};
	char *temp = temp_arg(dir, name);

	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	json = slurp(path);
	if (!json || request_parse_with(json, strlen(json), &winpath_request_rules, &req, err)) {
		t_ok(0, "%s: the request parses", name);
		free(json);
		free(temp);
		return 0;
	}
	req.temp_dir = temp;
	if (winplan_build(&req, &(struct winplan_opts){.temp_dir = temp}, &plan, perr) < 0) {
		t_ok(0, "%s: the plan builds (%s)", name, perr);
	} else {
		for (size_t k = 0; k < N_RUNNERS; k++)
			for (int present = 0; present < 2; present++, t.worlds++)
				check_world(&t, &req, &plan, runners[k], present);
		report_refusals(&t);
		for (int p = 0; p < P_COUNT; p++)
			t_ok(t.fail[p] == 0, "%s: %s%s", name, prop_names[p],
			     p == P_NET && !plan.network_denied ? " (network allow: no filter)" : "");
		winplan_free(&plan);
	}
	req.temp_dir = NULL;
	request_free(&req);
	free(json);
	free(temp);
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char *names[256];
	size_t n = 0;
	int checked = 0;
	DIR *d;
	struct dirent *e;

	if (getenv("SP_WM_DETAIL"))
		max_detail = atoi(getenv("SP_WM_DETAIL"));
	if (argc != 2 || !(d = opendir(argv[1]))) {
		fprintf(stderr, "usage: test_winmodel_plan GOLDEN_DIR\n");
		return 2;
	}
	while ((e = readdir(d)) && n < 256) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".plan"))
			names[n++] = strndup(e->d_name, l - 5);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), by_name);
	for (size_t i = 0; i < n; i++) {
		checked += check_request(argv[1], names[i]);
		free(names[i]);
	}
	/* A catalogue that yields nothing must not pass. */
	t_ok(checked >= 15, "the catalogue holds %d plans (at least 15)", checked);
	return t_done();
}
