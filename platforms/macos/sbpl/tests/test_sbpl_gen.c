/* test_sbpl_gen.c - the Seatbelt generator's lint and structural
 * guarantees (sbpl.h), on requests parsed as `run` parses them.
 *
 * The golden files (test_sbpl_golden.sh) pin the exact text; this test
 * states what must hold of every profile whatever its text: deny default
 * first, no (allow default), no localhost or remote-ip filter, every deny
 * after every allow, every protected path denied as literal and subpath,
 * every ancestor of a denied path move-blocked, parameters defined and
 * used, the lint passing; and the refusals: non-canonical spellings, the
 * 1025-byte literal limit, allow_temp without a temp directory. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "t.h"

static const char *const tmpdir = "/Users/dev/Library/Caches/sandproof/0123/tmp";

static int parse(const char *json, struct request *req)
{
	char err[REQUEST_ERR_MAX];
	int rc = request_parse(json, strlen(json), req, err);

	if (rc)
		printf("# request_parse: %s\n", err);
	return rc;
}

/* ---- the lint ------------------------------------------------------- */

static char *literal_profile(size_t n, const char *fill)
{
	size_t fl = strlen(fill);
	char *s = malloc(n * fl + 64), *w = s;

	w += sprintf(w, "(version 1)\n(allow file-read* (literal \"");
	for (size_t i = 0; i < n; i++, w += fl)
		memcpy(w, fill, fl);
	strcpy(w, "\"))\n");
	return s;
}

static void lint_literal_limit(void)
{
	char err[SBPL_ERR_MAX];
	char *a = literal_profile(1025, "a"), *b = literal_profile(1026, "a");
	char *qa = literal_profile(1025, "\\\""), *qb = literal_profile(1026, "\\\\");

	t_ok(sbpl_lint(a, err) == 0, "lint: a literal of 1025 bytes passes");
	t_ok(sbpl_lint(b, err) == -EINVAL && strstr(err, "1026 bytes"),
	     "lint: a literal of 1026 bytes is refused (%s)", err);
	t_ok(sbpl_lint(qa, err) == 0,
	     "lint: 1025 escaped quotes (2050 bytes of text) are a 1025-byte literal");
	t_ok(sbpl_lint(qb, err) == -EINVAL,
	     "lint: 1026 escaped backslashes are a 1026-byte literal, refused");
	free(a);
	free(b);
	free(qa);
	free(qb);
}

static void lint_forms(void)
{
	static const struct {
		const char *text;
		int want;
		const char *what;
	} cases[] = {
		{"(version 1)\n(deny default)\n", 0, "balanced forms"},
		{"(version 1", -EINVAL, "an unclosed '('"},
		{"(version 1))", -EINVAL, "a ')' that closes nothing"},
		{")(", -EINVAL, "')' before '('"},
		{"(deny file-read* (literal \"a)b\"))", 0, "a ')' inside a string"},
		{"(deny file-read* (literal \"a\\\")\"))", 0, "an escaped quote then ')' inside a string"},
		{"(deny file-read* (literal \"a\\\"))", -EINVAL, "a string whose only quote is escaped"},
		{"(version 1) ; )\n", 0, "a ')' in a comment"},
		{"(allow file-read* (regex #\"^/a(b\"))", 0, "a '(' inside a regex literal"},
		{"(allow file-read* (literal \"abc", -EINVAL, "an unterminated string"},
	};
	char err[SBPL_ERR_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = sbpl_lint(cases[i].text, err);

		t_ok(rc == cases[i].want, "lint: %s: %s (rc %d)", cases[i].what,
		     cases[i].want ? "refused" : "passes", rc);
	}
}

/* ---- structure of generated profiles --------------------------------- */

static const char *const requests[] = {
	"{\"version\":1,\"command\":[\"true\"]}",
	"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":{\"write_roots\":"
	"[{\"root\":\"/Users/dev/proj\",\"read_only_subpaths\":[\"/Users/dev/proj/a/b/c\"]}],"
	"\"deny_read\":[\"/Users/dev/proj/s/k\",\"/Users/dev/.ssh\"],\"deny_write\":"
	"[\"/Users/dev/proj/d/e\"]}}}",
	"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"network\":{\"mode\":\"allow\"},"
	"\"block_unix_sockets\":true}}",
	"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"block_unix_sockets\":true}}",
	"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":{\"read_roots\":"
	"[\"/Users/dev/proj\"],\"write_roots\":[{\"root\":\"/Users/dev/proj\",\"protected_metadata_names\":"
	"[\"x/y/z\",\".git/hooks\"]},{\"root\":\"/Users/dev/proj/sub\"}]}}}",
	"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":{\"kind\":\"unrestricted\","
	"\"deny_read\":[\"/Users/dev/.aws/credentials\"]}}}",
	"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":{\"write_roots\":"
	"[{\"root\":\"/\"}]}}}",
};

static const char *param_value(const struct sbpl_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_params; i++)
		if (strcmp(p->params[i].name, name) == 0)
			return p->params[i].value;
	return NULL;
}

static bool has_line(const char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool has_line(const char *text, const char *fmt, ...)
{
	char want[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	return strstr(text, want) != NULL;
}

/* A NAME_FOLD parameter: the regex of every spelling of NAME's path. */
static bool is_fold(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, "_FOLD");
}

/* The offset of the last "(allow" and of the first deny after the header. */
static void rule_order(const char *text, long *last_allow, long *first_deny)
{
	const char *dd = strstr(text, "(deny default");
	const char *p;

	*last_allow = -1;
	*first_deny = -1;
	for (p = text; (p = strstr(p, "(allow")); p++)
		*last_allow = p - text;
	p = dd ? strstr(dd + 1, "(deny ") : NULL;
	if (p)
		*first_deny = p - text;
}

static bool header_ok(const char *text)
{
	const char *p = text + strspn(text, " \n"); /* comments are gone */

	return strncmp(p, "(version 1)\n(deny default", 25) == 0;
}

/* Every ancestor A of every denied path P, from P's parent up to each
 * write root (or TEMP_DIR) that holds P, is an ANCESTOR_* parameter with
 * its unlink/create deny in the text. */
static bool ancestors_blocked(const struct request *req, const struct sbpl_profile *p,
			      char *missing, size_t mlen)
{
	for (size_t i = 0; i < p->n_params; i++) {
		const char *v = p->params[i].value, *n = p->params[i].name;

		if (!strstr(n, "PROTECTED") && !strstr(n, "_RO_") && strncmp(n, "DENY_", 5))
			continue;
		for (size_t w = 0; w < req->n_write_roots + 1; w++) {
			const char *root = w < req->n_write_roots ? req->write_roots[w].root
								  : param_value(p, "TEMP_DIR");
			size_t rl = root ? strlen(root) : 0;
			char a[1100];

			if (!root || !(strcmp(root, "/") == 0 ||
				       (strncmp(v, root, rl) == 0 && v[rl] == '/')))
				continue;
			snprintf(a, sizeof(a), "%s", v);
			while (strcmp(a, root) != 0) {
				char *s = strrchr(a, '/');
				bool found = false;

				s[s == a ? 1 : 0] = '\0';
				for (size_t k = 0; k < p->n_params && !found; k++)
					found = strncmp(p->params[k].name, "ANCESTOR_", 9) == 0 &&
						strcmp(p->params[k].value, a) == 0 &&
						has_line(p->text, "(deny file-write-unlink file-write-create "
							 "(literal (param \"%s\"))", p->params[k].name);
				if (!found) {
					snprintf(missing, mlen, "%s of %s", a, v);
					return false;
				}
			}
		}
	}
	return true;
}

/* No ancestor parameter names a path another one names. */
static bool ancestors_unique(const struct sbpl_profile *p)
{
	for (size_t i = 0; i < p->n_params; i++)
		for (size_t k = i + 1; k < p->n_params; k++)
			if (strncmp(p->params[i].name, "ANCESTOR_", 9) == 0 &&
			    strncmp(p->params[k].name, "ANCESTOR_", 9) == 0 &&
			    strcmp(p->params[i].value, p->params[k].value) == 0)
				return false;
	return true;
}

static bool params_match(const struct sbpl_profile *p)
{
	const char *s = p->text;
	size_t used = 0;

	for (size_t i = 0; i < p->n_params; i++)
		if (!has_line(s, "(param \"%s\")", p->params[i].name))
			return false;
	while ((s = strstr(s, "(param \""))) {
		char name[128];

		s += 8;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(s, "\""), s);
		if (!param_value(p, name))
			return false;
		used++;
	}
	return used >= p->n_params;
}

static void check_structure(const struct request *req, const struct sbpl_profile *p, size_t k)
{
	const char *t = p->text;
	long last_allow, first_deny;
	char err[SBPL_ERR_MAX], missing[1200] = "";
	bool prot = true, hidden = true, blocked;

	rule_order(t, &last_allow, &first_deny);
	t_ok(header_ok(t), "request %zu: (version 1) then (deny default) first", k);
	t_ok(!strstr(t, "(allow default"), "request %zu: no (allow default)", k);
	t_ok(!strstr(t, "localhost") && !strstr(t, "(remote ip") && !strstr(t, "(local ip"),
	     "request %zu: no localhost or ip filter anywhere", k);
	t_ok(first_deny < 0 || last_allow < first_deny, "request %zu: every deny after every allow", k);
	t_ok(!strstr(t, "(allow mach-lookup)") && !strstr(t, "global-name-prefix") &&
	     !strstr(t, "global-name-regex"), "request %zu: mach-lookup is an allowlist", k);
	t_ok(!strstr(t, "(allow signal)") && !strstr(t, "(allow process-info*)"),
	     "request %zu: signal and process-info only (target same-sandbox)", k);
	if (req->network == NET_DENY)
		t_ok(!strstr(t, "(allow network") && !strstr(t, "(allow system-socket") &&
		     !strstr(t, "dnssd") && strstr(t, "(deny network*"),
		     "request %zu: network deny: no network allowance, no DNS service", k);
	if (req->block_unix_sockets)
		t_ok(strstr(t, "(deny network* (remote unix-socket)") &&
		     strstr(t, "(deny system-socket (socket-domain AF_UNIX)"),
		     "request %zu: unix sockets denied", k);
	if (req->fs_kind == FS_RESTRICTED && !(req->read_roots.n == 1 &&
					       strcmp(req->read_roots.v[0], "/") == 0))
		t_ok(!strstr(t, "(allow process-exec)") && !strstr(t, "(allow file-read*)"),
		     "request %zu: restricted reads: exec and reads are allowlisted", k);
	for (size_t i = 0; i < p->n_params; i++)
		if ((strstr(p->params[i].name, "PROTECTED") || strstr(p->params[i].name, "DENY_WRITE")) &&
		    !is_fold(p->params[i].name))
			prot &= has_line(t, "(deny file-write* file-write-data (literal (param \"%s\")) "
					 "(subpath (param \"%s\"))", p->params[i].name,
					 p->params[i].name);
	t_ok(prot, "request %zu: every protected and deny_write path denied as literal and subpath", k);
	for (size_t i = 0; i < p->n_params; i++)
		if (strncmp(p->params[i].name, "DENY_READ_", 10) == 0 && !is_fold(p->params[i].name))
			hidden &= has_line(t, "(deny file-read* file-read-data process-exec file-write-unlink "
					   "file-clone (subpath (param \"%s\"))", p->params[i].name);
	t_ok(hidden, "request %zu: every deny_read path unreadable, unexecutable, not moved or "
	     "cloned out", k);
	blocked = ancestors_blocked(req, p, missing, sizeof(missing));
	t_ok(blocked, "request %zu: every ancestor move-blocked%s%s", k,
	     blocked ? "" : ": missing ", missing);
	t_ok(ancestors_unique(p), "request %zu: every ancestor listed once", k);
	t_ok(has_line(t, "(deny default (with message \"tag \\\"q\\\"\"))"),
	     "request %zu: the tag's quotes escaped in every deny", k);
	t_ok(params_match(p), "request %zu: every parameter used and every use defined", k);
	t_ok(sbpl_lint(t, err) == 0, "request %zu: the lint passes", k);
}

/* The profile's forms without its comments (';' to the end of a line
 * outside a string): what a comment says is checked by eye, not here. */
static char *strip_comments(const char *text)
{
	char *out = malloc(strlen(text) + 1), *w = out;
	bool str = false;

	for (const char *p = text; *p; p++) {
		if (str && *p == '\\' && p[1]) {
			*w++ = *p++;
		} else if (*p == '"') {
			str = !str;
		} else if (!str && *p == ';') {
			while (p[1] && p[1] != '\n')
				p++;
			continue;
		}
		*w++ = *p;
	}
	*w = '\0';
	return out;
}

/* 300 deny_write paths sharing their ancestors in many ways: the
 * ancestor set grows (and rehashes) several times. */
static char *many_paths_request(void)
{
	size_t cap = 64 * 1024, n;
	char *s = malloc(cap);

	n = (size_t)snprintf(s, cap, "{\"version\":1,\"command\":[\"true\"],\"profile\":"
			     "{\"filesystem\":{\"allow_temp\":false,\"write_roots\":[{\"root\":"
			     "\"/Users/dev/proj\"},{\"root\":\"/Users/dev/proj/a3\"}],"
			     "\"deny_write\":[");
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s\"/Users/dev/proj/a%d/b%d/c%d\"",
				      i ? "," : "", i % 7, i % 13, i);
	snprintf(s + n, cap - n, "]}}}");
	return s;
}

static void structure(void)
{
	char *many = many_paths_request();

	for (size_t k = 0; k <= sizeof(requests) / sizeof(requests[0]); k++) {
		struct sbpl_opts o = {.temp_dir = tmpdir, .message_tag = "tag \"q\""};
		struct sbpl_profile p;
		struct request req;
		char err[SBPL_ERR_MAX];
		int rc;

		if (parse(k < sizeof(requests) / sizeof(requests[0]) ? requests[k] : many, &req)) {
			t_ok(0, "request %zu parses", k);
			continue;
		}
		rc = sbpl_generate(&req, &o, &p, err);
		if (t_ok(rc == 0, "request %zu: generated (%s)", k, rc ? err : "ok")) {
			char *full = p.text;

			p.text = strip_comments(full);
			check_structure(&req, &p, k);
			free(p.text);
			p.text = full;
		}
		sbpl_profile_free(&p);
		request_free(&req);
	}
	free(many);
}

/* ---- refusals ---------------------------------------------------------- */

static int gen_with(const char *json, const char *root, const char *temp, const char *tag,
		    char err[SBPL_ERR_MAX])
{
	struct sbpl_opts o = {.temp_dir = temp, .message_tag = tag};
	struct sbpl_profile p;
	struct request req;
	int rc;

	err[0] = '\0';
	if (parse(json, &req))
		return -1000;
	if (root) { /* past the parser, which would have cleaned it */
		free(req.write_roots[0].root);
		req.write_roots[0].root = strdup(root);
	}
	rc = sbpl_generate(&req, &o, &p, err);
	t_ok(rc != 0 || p.text, "generated or refused: *out holds a text only on success");
	sbpl_profile_free(&p);
	request_free(&req);
	return rc;
}

static void refusals(void)
{
	static const char wr[] = "{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":"
		"{\"allow_temp\":false,\"write_roots\":[{\"root\":\"/Users/dev/p\"}]}}}";
	static const char plain[] = "{\"version\":1,\"command\":[\"true\"]}";
	char err[SBPL_ERR_MAX], p1025[1100], p1026[1100];
	int rc;

	rc = gen_with(wr, "/Users//dev/p", NULL, NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "profile.filesystem.write_roots[0].root") &&
	     strstr(err, "spell it /Users/dev/p"), "a \"//\" write root is refused: %s", err);
	rc = gen_with(wr, "/Users/dev/./p", NULL, NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "spell it /Users/dev/p"), "\"/./\" is refused: %s", err);
	rc = gen_with(wr, "/Users/dev/p/", NULL, NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "trailing"), "a trailing '/' is refused: %s", err);
	rc = gen_with(wr, "/Users/dev/../p", NULL, NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "\"..\""), "\"..\" is refused: %s", err);
	rc = gen_with(wr, "/private/var/x\ny", NULL, NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "control byte 0x0a"), "a control byte is refused: %s", err);
	rc = gen_with(wr, "/Var/folders/x", NULL, NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "spell it /private/var/folders/x"),
	     "/Var (any case) is refused with its /private spelling: %s", err);
	rc = gen_with(plain, NULL, "/tmp/sp", NULL, err);
	t_ok(rc == -EINVAL && strstr(err, "temp_dir") && strstr(err, "/private/tmp/sp"),
	     "a /tmp temp_dir is refused: %s", err);
	rc = gen_with(plain, NULL, NULL, NULL, err);
	t_ok(rc == -EOPNOTSUPP && strncmp(err, "profile.filesystem.allow_temp:", 30) == 0,
	     "allow_temp without a temp directory: -EOPNOTSUPP naming the field");
	rc = gen_with(wr, NULL, NULL, "a\tb", err);
	t_ok(rc == -EINVAL && strstr(err, "message_tag"), "a control byte in the tag is refused");
	memset(p1025, 'a', sizeof(p1025));
	p1025[0] = '/';
	p1025[1025] = '\0';
	memcpy(p1026, p1025, 1025);
	p1026[1025] = 'a';
	p1026[1026] = '\0';
	rc = gen_with(plain, NULL, p1025, NULL, err);
	t_ok(rc == 0, "a 1025-byte temp_dir is accepted (rc %d)", rc);
	rc = gen_with(plain, NULL, p1026, NULL, err);
	t_ok(rc == -ENAMETOOLONG && strstr(err, "1026 bytes"),
	     "a 1026-byte temp_dir is refused: -ENAMETOOLONG");
}

int main(void)
{
	struct sbpl_profile p;
	struct request req;
	char err[SBPL_ERR_MAX];

	lint_literal_limit();
	lint_forms();
	structure();
	refusals();
	if (parse("{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":"
		  "{\"allow_temp\":false}}}", &req) == 0) {
		t_ok(sbpl_generate(&req, NULL, &p, err) == 0 && !strstr(p.text, "(with message"),
		     "NULL opts: a profile, no message tag");
		sbpl_profile_free(&p);
		request_free(&req);
	}
	return t_done();
}
