/* test_winplan.c - what must hold of every Windows plan (winplan.h),
 * whatever its text (the golden files pin the text):
 *   - every write root and the temp dir have an allow ACE, inheriting, and
 *     no allow ACE names anything else; no allow grants DELETE_CHILD,
 *     WRITE_DAC or WRITE_OWNER;
 *   - every protected name has a deny ACE whatever the case it is spelled
 *     in, made a placeholder when absent; every read-only subpath and
 *     deny_write path has a deny ACE; every directory between a writable
 *     area and a denied path is pinned (DELETE denied), listed before it;
 *   - the token is write-restricted with the capability SID restricting,
 *     every administrative group deny-only, no privilege but
 *     SeChangeNotifyPrivilege, medium;
 *   - network deny <=> the sandbox account as the base, block filters for
 *     its SID and the capability SID at all four ALE layers, the canary;
 *   - each refusal names its field, and leaves nothing to free.
 * Over a grid of requests built from parts, plus the cases by hand. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/request.h"
#include "t.h"
#include "winpath.h"
#include "winplan.h"

#define TEMP "C:\\Users\\u\\AppData\\Local\\sandproof\\0123\\tmp"
#define FORBIDDEN_ALLOW (WINPLAN_FILE_DELETE_CHILD | WINPLAN_WRITE_DAC | WINPLAN_WRITE_OWNER)
#define INHERIT_ALL (WINPLAN_OBJECT_INHERIT | WINPLAN_CONTAINER_INHERIT)

static int failures;

__attribute__((format(printf, 3, 4)))
static void check(bool cond, const char *name, const char *fmt, ...);

static void check(bool cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!cond) {
		failures++;
		printf("# %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
}

static const struct winplan_ace *find_ace(const struct winplan *p, const char *path,
					  enum winplan_effect e, uint32_t need)
{
	for (size_t i = 0; i < p->n_aces; i++)
		if (p->aces[i].effect == e && winpath_equal(p->aces[i].path, path) &&
		    (p->aces[i].mask & need) == need)
			return &p->aces[i];
	return NULL;
}

static size_t ace_index(const struct winplan *p, const struct winplan_ace *a)
{
	return a ? (size_t)(a - p->aces) : (size_t)-1;
}

/* Every directory strictly between area and path is pinned before path. */
static void check_pinned(const struct winplan *p, const char *area, const char *path,
			 const char *name)
{
	size_t n = strlen(area);
	char *a = strdup(path);
	size_t at = ace_index(p, find_ace(p, path, WINPLAN_DENY, WINPLAN_MASK_DENY_WRITE));

	for (size_t k = n + 1; a[k]; k++) {
		if (a[k] != '\\')
			continue;
		a[k] = '\0';
		const struct winplan_ace *pin = find_ace(p, a, WINPLAN_DENY, WINPLAN_DELETE);
		check(pin && ace_index(p, pin) < at, name, "ancestor %s not pinned before its path", a);
		a[k] = '\\';
	}
	free(a);
}

static void check_aces(const struct request *req, const struct winplan *p, const char *temp,
		       const char *name)
{
	for (size_t i = 0; i < p->n_aces; i++) {
		const struct winplan_ace *a = &p->aces[i];
		bool known = temp && winpath_equal(a->path, temp);

		bool account = p->token.base == WINPLAN_BASE_ACCOUNT;

		check(a->sids[0] == WINPLAN_SID_CAPABILITY && a->n_sids == (account ? 2u : 1u) &&
		      (!account || a->sids[1] == WINPLAN_SID_ACCOUNT), name,
		      "ACE on %s: not the capability SID (and the account when the base is one)",
		      a->path);
		check(a->clause && a->clause[0] && a->why && a->why[0], name, "%s: no clause/why",
		      a->path);
		for (size_t r = 0; r < req->n_write_roots; r++)
			known |= winpath_equal(a->path, req->write_roots[r].root);
		if (a->effect == WINPLAN_ALLOW) {
			check(known, name, "allow ACE outside the write roots and temp: %s", a->path);
			check(!(a->mask & FORBIDDEN_ALLOW), name, "allow on %s grants DELETE_CHILD, "
			      "WRITE_DAC or WRITE_OWNER", a->path);
			check(!(a->mask & WINPLAN_DELETE) || (a->inherit & WINPLAN_INHERIT_ONLY), name,
			      "allow on %s grants DELETE on the directory itself", a->path);
		}
	}
	for (size_t r = 0; r < req->n_write_roots; r++) {
		const struct write_root *wr = &req->write_roots[r];
		const struct winplan_ace *a = find_ace(p, wr->root, WINPLAN_ALLOW,
						       WINPLAN_FILE_WRITE_DATA),
					 *d = find_ace(p, wr->root, WINPLAN_ALLOW, WINPLAN_DELETE);

		check(a && a->inherit == INHERIT_ALL, name, "write root %s: no inheriting allow", wr->root);
		check(d && d->inherit == (INHERIT_ALL | WINPLAN_INHERIT_ONLY), name,
		      "write root %s: no inherit-only DELETE for what is below", wr->root);
		for (size_t j = 0; j < wr->read_only_subpaths.n; j++) {
			const char *s = wr->read_only_subpaths.v[j];
			a = find_ace(p, s, WINPLAN_DENY, WINPLAN_MASK_DENY_WRITE);
			check(a && a->inherit == INHERIT_ALL && winpath_beneath(wr->root, s), name,
			      "read-only subpath %s: no deny beneath its root", s);
			if (!winpath_equal(s, wr->root))
				check_pinned(p, wr->root, s, name);
		}
		for (size_t j = 0; j < wr->protected_names.n; j++) {
			char *pp;
			if (winpath_join(wr->root, wr->protected_names.v[j], &pp))
				abort();
			a = find_ace(p, pp, WINPLAN_DENY, WINPLAN_MASK_DENY_WRITE);
			check(a && a->inherit == INHERIT_ALL && a->absent == WINPLAN_ABSENT_CREATE_DIR,
			      name, "protected %s: no inheriting deny made when absent", pp);
			check_pinned(p, wr->root, pp, name);
			free(pp);
		}
	}
	for (size_t i = 0; i < req->deny_write.n; i++)
		check(find_ace(p, req->deny_write.v[i], WINPLAN_DENY, WINPLAN_MASK_DENY_WRITE) != NULL,
		      name, "deny_write %s: no deny", req->deny_write.v[i]);
	if (temp)
		check(find_ace(p, temp, WINPLAN_ALLOW, WINPLAN_FILE_WRITE_DATA) != NULL, name,
		      "temp %s: no allow", temp);
}

static void check_token_net(const struct request *req, const struct winplan *p, const char *name)
{
	static const char *const layers[] = {
		"FWPM_LAYER_ALE_AUTH_CONNECT_V4", "FWPM_LAYER_ALE_AUTH_CONNECT_V6",
		"FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V4", "FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V6",
	};
	bool cap = false, deny = req->network == NET_DENY;

	for (size_t i = 0; i < p->token.n_restricting; i++)
		cap |= p->token.restricting[i] == WINPLAN_SID_CAPABILITY;
	check((p->token.flags & WINPLAN_WRITE_RESTRICTED) && cap &&
	      !(p->token.flags & WINPLAN_DISABLE_MAX_PRIVILEGE) && (p->token.flags & WINPLAN_LUA_TOKEN),
	      name, "token not write-restricted with the capability SID (or DISABLE_MAX_PRIVILEGE, "
	      "which keeps privileges held, is set)");
	check(p->token.keep_privilege && !strcmp(p->token.keep_privilege, "SeChangeNotifyPrivilege"),
	      name, "a privilege other than SeChangeNotifyPrivilege is kept");
	check(!winplan_token_keeps(&p->token, "S-1-5-32-544", 0x7) &&
	      !winplan_token_keeps(&p->token, "S-1-5-114", 0x7) &&
	      !winplan_token_keeps(&p->token, "S-1-5-32-551", 0x7) &&
	      winplan_token_keeps(&p->token, "S-1-5-5-0-1", 0xC0000007u),
	      name, "an administrative group stays enabled, or the logon SID does not");
	check(p->token.integrity == WINPLAN_IL_MEDIUM, name, "integrity not medium");
	check((p->token.base == WINPLAN_BASE_ACCOUNT) == deny, name,
	      "the sandbox account is the base iff the network is denied");
	check(p->network_denied == deny, name, "network_denied wrong");
	check(deny == !!(p->canaries & WINPLAN_CANARY_NETWORK), name, "network canary wrong");
	check(deny || p->n_filters == 0, name, "network allow has filters");
	for (size_t l = 0; deny && l < 4; l++) {
		bool found = false;
		for (size_t i = 0; i < p->n_filters; i++)
			found |= strcmp(p->filters[i].layer, layers[l]) == 0 &&
				 strcmp(p->filters[i].action, "block") == 0 && p->filters[i].n_sids == 2 &&
				 p->filters[i].sids[0] == WINPLAN_SID_ACCOUNT &&
				 p->filters[i].sids[1] == WINPLAN_SID_CAPABILITY;
		check(found, name, "network deny: no block filter for the account and capability "
		      "SIDs at %s", layers[l]);
	}
}

static int parse(const char *json, struct request *r)
{
	char err[REQUEST_ERR_MAX];
	int rc = request_parse_with(json, strlen(json), &winpath_request_rules, r, err);

	if (rc)
		printf("# request_parse: %s\n%s\n", err, json);
	return rc;
}

/* Build the plan of json and check every property; returns the plan's
 * ACE count (or -1). */
static long plan_check(const char *json, const char *temp, const char *name)
{
	struct winplan_opts o = {.temp_dir = temp};
	struct winplan p;
	struct request req;
	char err[WINPLAN_ERR_MAX];
	int before = failures;
	long n;

	if (parse(json, &req))
		return t_ok(0, "%s: the request parses", name), -1;
	int rc = winplan_build(&req, &o, &p, err);
	if (rc) {
		request_free(&req);
		return t_ok(0, "%s: plan built (%s)", name, err), -1;
	}
	check_aces(&req, &p, req.allow_temp ? temp : NULL, name);
	check_token_net(&req, &p, name);
	n = (long)p.n_aces;
	winplan_free(&p);
	request_free(&req);
	if (failures != before)
		t_ok(0, "%s: every property holds", name);
	return n;
}

static void test_grid(void)
{
	static const char *const roots[] = {
		"", "{\"root\":\"C:\\\\w\"}",
		"{\"root\":\"c:/w\",\"read_only_subpaths\":[\"C:\\\\w\\\\vendor\\\\lib\",\"c:/W/docs\"]}",
		"{\"root\":\"C:\\\\w\"},{\"root\":\"C:\\\\w\\\\sub\",\"protected_metadata_names\":[\".GiT/Hooks\",\".agents\"]}",
		"{\"root\":\"D:\\\\\",\"protected_metadata_names\":[]}",
	};
	static const char *const denies[] = {"", "\"C:\\\\w\\\\out\\\\keep\"", "\"E:\\\\elsewhere\""};
	static const char *const nets[] = {"deny", "allow"};
	char json[2048];
	int built = 0, total = 0;

	for (size_t r = 0; r < 5; r++)
		for (size_t d = 0; d < 3; d++)
			for (size_t n = 0; n < 2; n++)
				for (int t = 0; t < 2; t++) {
					if (d == 1 && r == 0)
						continue;  /* inside no write root: refused if absent, fine */
					snprintf(json, sizeof(json),
						 "{\"version\":1,\"command\":[\"cmd\"],\"profile\":{"
						 "\"filesystem\":{\"write_roots\":[%s],\"deny_write\":[%s],"
						 "\"allow_temp\":%s},\"network\":{\"mode\":\"%s\"}}}",
						 roots[r], denies[d], t ? "true" : "false", nets[n]);
					total++;
					built += plan_check(json, TEMP, json) >= 0;
				}
	t_ok(built == total && failures == 0, "grid: %d of %d plans built, every property holds",
	     built, total);
}

static void test_case_and_dupes(void)
{
	const char *json = "{\"version\":1,\"command\":[\"cmd\"],\"profile\":{\"filesystem\":{"
			   "\"allow_temp\":false,\"write_roots\":[{\"root\":\"C:\\\\w\","
			   "\"protected_metadata_names\":[\".GiT/Hooks\",\".git/hooks\",\".GIT\\\\HOOKS\"]}]}}}";
	struct request req;
	struct winplan p;
	char err[WINPLAN_ERR_MAX];
	size_t hooks = 0, git = 0;

	if (parse(json, &req) || winplan_build(&req, NULL, &p, err)) {
		t_ok(0, "case variants: plan built");
		return;
	}
	for (size_t i = 0; i < p.n_aces; i++) {
		hooks += winpath_equal(p.aces[i].path, "C:\\w\\.git\\hooks") &&
			 p.aces[i].effect == WINPLAN_DENY;
		git += winpath_equal(p.aces[i].path, "C:\\w\\.git");
	}
	t_ok(hooks == 1 && git == 1, ".GiT/Hooks, .git/hooks, .GIT\\HOOKS: one deny on .git\\hooks "
	     "(%zu), one pin on .git (%zu)", hooks, git);
	winplan_free(&p);
	request_free(&req);
}

#define REQ(profile) "{\"version\":1,\"command\":[\"cmd\"],\"profile\":" profile "}"
#define FS(fs) REQ("{\"filesystem\":" fs "}")

static void test_refusals(void)
{
	static const struct { const char *json, *temp, *want; } cases[] = {
		{FS("{\"read_roots\":[\"C:\\\\\"]}"), TEMP, "profile.filesystem.read_roots: Windows cannot confine reads"},
		{FS("{\"read_roots\":[]}"), TEMP, "profile.filesystem.read_roots"},
		{FS("{\"deny_read\":[\"C:\\\\Users\\\\u\\\\.ssh\"]}"), TEMP, "profile.filesystem.deny_read: not enforceable"},
		{REQ("{\"block_unix_sockets\":true}"), TEMP, "profile.block_unix_sockets: WFP has no AF_UNIX layer"},
		{REQ("{\"limits\":{\"memory_bytes\":1048576}}"), TEMP, "profile.limits: memory_bytes: not in the Windows plan"},
		{FS("{}"), NULL, "profile.filesystem.allow_temp: the run's private temp directory is not known"},
		{FS("{}"), "C:\\t:x", "temp_dir (the run's private temp directory): C:\\t:x: a ':' in a name (after the drive)"},
		{FS("{}"), "/tmp/x", "temp_dir (the run's private temp directory): /tmp/x: must be an absolute Windows path"},
		{FS("{\"kind\":\"unrestricted\",\"write_roots\":[{\"root\":\"C:\\\\w\"}]}"), NULL, "profile.filesystem.kind"},
		{REQ("{\"filesystem\":{\"kind\":\"unrestricted\"},\"network\":{\"mode\":\"deny\"}}"), NULL, "profile.network.mode"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct winplan_opts o = {.temp_dir = cases[i].temp};
		struct request req;
		struct winplan p;
		char err[WINPLAN_ERR_MAX] = "";
		int rc;

		if (parse(cases[i].json, &req)) {
			t_ok(0, "refusal %zu: request parses", i);
			continue;
		}
		rc = winplan_build(&req, &o, &p, err);
		t_ok(rc == -EINVAL && strstr(err, cases[i].want) && p.n_aces == 0 && !p.aces &&
		     p.n_filters == 0 && !p.filters, "refused, named: %s", err);
		if (rc == 0)
			winplan_free(&p);
		request_free(&req);
	}
}

/* LIM-2: pids is the job's active-process limit, carried by the plan. */
static void test_pids(void)
{
	struct winplan_opts o = {.temp_dir = TEMP};
	struct request req;
	struct winplan p;
	char err[WINPLAN_ERR_MAX];

	if (parse(REQ("{\"limits\":{\"pids\":10}}"), &req) || winplan_build(&req, &o, &p, err)) {
		t_ok(0, "pids: plan built");
		return;
	}
	t_ok(p.job_max_processes == 10, "pids 10: the job's process limit is 10 (%llu)",
	     (unsigned long long)p.job_max_processes);
	winplan_free(&p);
	request_free(&req);
}

static void test_unrestricted(void)
{
	struct request req;
	struct winplan p;
	char err[WINPLAN_ERR_MAX];

	if (parse(REQ("{\"filesystem\":{\"kind\":\"unrestricted\"},\"network\":{\"mode\":\"allow\"}}"),
		  &req) || winplan_build(&req, NULL, &p, err)) {
		t_ok(0, "unrestricted: plan built");
		return;
	}
	t_ok(p.n_aces == 0 && p.n_filters == 0 && !(p.token.flags & WINPLAN_WRITE_RESTRICTED) &&
	     p.token.n_restricting == 0 && (p.token.flags & WINPLAN_LUA_TOKEN),
	     "unrestricted, network allow: a LUA token, no ACE, no filter");
	winplan_free(&p);
	request_free(&req);
}

int main(void)
{
	test_grid();
	test_case_and_dupes();
	test_refusals();
	test_pids();
	test_unrestricted();
	return t_done();
}
