/* test_request.c - strict request parsing (REQ-1..REQ-6).
 * Each malformed request must be refused with an error that starts with the
 * exact field path; each valid one must parse to the values it states. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "sandproof/request.h"
#include "t.h"

#define P(x) "{\"version\":1,\"command\":[\"true\"],\"profile\":" x "}"
#define FS(x) P("{\"filesystem\":" x "}")
#define WR(x) FS("{\"write_roots\":[" x "]}")

static const struct bad {
	const char *json, *path, *why;
} bad[] = {
	{"", "request", "unexpected end of input"},
	{"{", "request", "unexpected end of input (expected a key)"},
	{"[]", "request", "must be a JSON object"},
	{"42", "request", "must be a JSON object"},
	{"{\"version\":1,\"command\":[\"true\"]} x", "request", "trailing bytes"},
	{"{\"command\":[\"true\"]}", "version", "missing"},
	{"{\"version\":2,\"command\":[\"true\"]}", "version", "unsupported version 2"},
	{"{\"version\":0,\"command\":[\"true\"]}", "version", "unsupported"},
	{"{\"version\":\"1\",\"command\":[\"true\"]}", "version", "must be a number"},
	{"{\"version\":1.5,\"command\":[\"true\"]}", "version", "must be an integer"},
	{"{\"version\":1}", "command", "missing"},
	{"{\"version\":1,\"command\":[]}", "command", "must not be empty"},
	{"{\"version\":1,\"command\":\"true\"}", "command", "must be an array"},
	{"{\"version\":1,\"command\":[1]}", "command[0]", "must be a string"},
	{"{\"version\":1,\"command\":[\"\"]}", "command[0]", "must not be empty"},
	{"{\"version\":1,\"command\":[\"a\\u0000b\"]}", "command[0]", "NUL"},
	{"{\"version\":1,\"command\":[\"ok\",\"x\\u0000\"]}", "command[1]", "NUL"},
	{"{\"version\":1,\"version\":1,\"command\":[\"true\"]}", "version", "duplicate key"},
	{"{\"version\":1,\"command\":[\"true\"],\"comand\":[]}", "comand", "unknown field"},
	{"{\"version\":1,\"command\":[\"true\"],\"cwd\":\"rel/dir\"}", "cwd", "absolute"},
	{"{\"version\":1,\"command\":[\"true\"],\"cwd\":\"/a/../b\"}", "cwd", "\"..\""},
	{"{\"version\":1,\"command\":[\"true\"],\"cwd\":7}", "cwd", "must be a string"},
	{"{\"version\":1,\"command\":[\"true\"],\"cwd\":\"\"}", "cwd", "must not be empty"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":[\"A=1\"]}", "env", "must be an object"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"A\":1}}", "env.A", "must be a string"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"A=B\":\"1\"}}", "env.A=B", "no '='"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"A\":\"1\",\"A\":\"2\"}}", "env.A", "duplicate key"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"A\":\"x\\u0000y\"}}", "env.A", "NUL"},
	{"{\"version\":1,\"command\":[\"true\"],\"stdin\":5}", "stdin", "must be a string"},
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":-1}", "timeout_ms", "non-negative integer"},
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":true}", "timeout_ms", "must be a number"},
	{"{\"version\":1,\"command\":[\"true\"],\"output_limit_bytes\":1000000000000}", "output_limit_bytes", "at most"},
	/* integers only: an underflow is never 0 ("no timeout"), 1.0 never 1 */
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":1e-400}", "timeout_ms", "must be an integer"},
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":0.0}", "timeout_ms", "must be an integer"},
	{"{\"version\":1.0,\"command\":[\"true\"]}", "version", "must be an integer"},
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":100e-2}", "timeout_ms", "must be an integer"},
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":1E3}", "timeout_ms", "must be an integer"},
	{"{\"version\":1,\"command\":[\"true\"],\"output_limit_bytes\":1073741824.00000001}",
	 "output_limit_bytes", "must be an integer"},
	{P("{\"limits\":{\"pids\":1e2}}"), "profile.limits.pids", "must be an integer"},
	{"{\"version\":1,\"command\":[\"true\"],\"profile\":[]}", "profile", "must be an object"},
	{P("{\"filesystm\":{}}"), "profile.filesystm", "unknown field"},
	{FS("{\"kind\":\"open\"}"), "profile.filesystem.kind", "must be \"restricted\""},
	{FS("{\"kind\":1}"), "profile.filesystem.kind", "must be a string"},
	{FS("{\"read_roots\":\"/\"}"), "profile.filesystem.read_roots", "must be an array"},
	{FS("{\"read_roots\":[\"usr\"]}"), "profile.filesystem.read_roots[0]", "absolute"},
	{FS("{\"include_platform_roots\":1}"), "profile.filesystem.include_platform_roots", "true or false"},
	{FS("{\"allow_temp\":\"yes\"}"), "profile.filesystem.allow_temp", "true or false"},
	{FS("{\"deny_read\":[\"/ok\",\"../x\"]}"), "profile.filesystem.deny_read[1]", "absolute"},
	{FS("{\"deny_write\":[\"/a/b/../../etc\"]}"), "profile.filesystem.deny_write[0]", "\"..\""},
	{FS("{\"write_roots\":{}}"), "profile.filesystem.write_roots", "must be an array"},
	{WR("\"/home\""), "profile.filesystem.write_roots[0]", "must be an object"},
	{WR("{\"rooot\":\"/w\"}"), "profile.filesystem.write_roots[0].rooot", "unknown field"},
	{WR("{\"root\":\"/w\"},{}"), "profile.filesystem.write_roots[1]", "missing field \"root\""},
	{WR("{\"root\":\"w\"}"), "profile.filesystem.write_roots[0].root", "absolute"},
	{WR("{\"root\":\"/w\",\"root\":\"/v\"}"), "profile.filesystem.write_roots[0].root", "duplicate key"},
	{WR("{\"root\":\"/w\",\"read_only_subpaths\":[\"/elsewhere\"]}"),
	 "profile.filesystem.write_roots[0].read_only_subpaths[0]", "beneath the write root"},
	{WR("{\"root\":\"/w\",\"read_only_subpaths\":[\"/wx\"]}"),
	 "profile.filesystem.write_roots[0].read_only_subpaths[0]", "beneath the write root"},
	{WR("{\"root\":\"/w\",\"protected_metadata_names\":[\"/abs\"]}"),
	 "profile.filesystem.write_roots[0].protected_metadata_names[0]", "relative"},
	{WR("{\"root\":\"/w\",\"protected_metadata_names\":[\".git/../x\"]}"),
	 "profile.filesystem.write_roots[0].protected_metadata_names[0]", "plain relative name"},
	{WR("{\"root\":\"/w\",\"protected_metadata_names\":[\"\"]}"),
	 "profile.filesystem.write_roots[0].protected_metadata_names[0]", "must not be empty"},
	{WR("{\"root\":\"/w\",\"protected_metadata_names\":[\"a//b\"]}"),
	 "profile.filesystem.write_roots[0].protected_metadata_names[0]", "plain relative name"},
	{P("{\"network\":\"deny\"}"), "profile.network", "must be an object"},
	{P("{\"network\":{}}"), "profile.network", "missing field \"mode\""},
	{P("{\"network\":{\"mode\":\"none\"}}"), "profile.network.mode", "\"deny\" or \"allow\""},
	{P("{\"network\":{\"mode\":\"deny\",\"allow\":[]}}"), "profile.network.allow", "unknown field"},
	{P("{\"block_unix_sockets\":\"true\"}"), "profile.block_unix_sockets", "true or false"},
	{P("{\"runtime\":{}}"), "profile.runtime", "missing field \"parent\""},
	{P("{\"runtime\":{\"parent\":\"rel\"}}"), "profile.runtime.parent", "absolute"},
	{P("{\"runtime\":{\"parent\":\"/r\",\"max_roots\":-3}}"), "profile.runtime.max_roots", "non-negative"},
	{P("{\"runtime\":{\"parent\":\"/r\",\"max_age\":1}}"), "profile.runtime.max_age", "unknown field"},
	/* '~' is not absolute and never expanded, whatever HOME says */
	{P("{\"runtime\":{\"parent\":\"~/.cache/rt\"}}"), "profile.runtime.parent", "never expanded"},
	{P("{\"runtime\":{\"parent\":\"~\"}}"), "profile.runtime.parent", "absolute"},
	{P("{\"runtime\":{\"parent\":\"~u/rt\"}}"), "profile.runtime.parent", "absolute"},
	{"{\"version\":1,\"command\":[\"true\"],\"cwd\":\"~/proj\"}", "cwd", "never expanded"},
	{WR("{\"root\":\"~/proj\"}"), "profile.filesystem.write_roots[0].root", "absolute"},
	/* a protected name ending in '/' is refused by the parser, by name */
	{WR("{\"root\":\"/w\",\"protected_metadata_names\":[\".agents\",\".git/hooks/\"]}"),
	 "profile.filesystem.write_roots[0].protected_metadata_names[1]", "must not end with '/'"},
	{WR("{\"root\":\"/w\",\"protected_metadata_names\":[\".zero/\"]}"),
	 "profile.filesystem.write_roots[0].protected_metadata_names[0]", "must not end with '/'"},
	/* duplicates are refused wherever they stand in an object, not only
	 * next to each other, at every level */
	{"{\"version\":1,\"command\":[\"true\"],\"cwd\":\"/\",\"version\":1}", "version", "duplicate key"},
	{P("{\"network\":{\"mode\":\"deny\"},\"block_unix_sockets\":false,\"network\":{\"mode\":\"allow\"}}"),
	 "profile.network", "duplicate key"},
	{FS("{\"kind\":\"restricted\",\"allow_temp\":true,\"read_roots\":[\"/\"],\"kind\":\"unrestricted\"}"),
	 "profile.filesystem.kind", "duplicate key"},
	{WR("{\"root\":\"/w\",\"read_only_subpaths\":[],\"protected_metadata_names\":[],\"root\":\"/\"}"),
	 "profile.filesystem.write_roots[0].root", "duplicate key"},
	{P("{\"runtime\":{\"parent\":\"/r\",\"max_age_s\":1,\"max_roots\":2,\"parent\":\"/s\"}}"),
	 "profile.runtime.parent", "duplicate key"},
	{P("{\"limits\":{\"pids\":64,\"open_files\":64,\"pids\":65}}"), "profile.limits.pids",
	 "duplicate key"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"A\":\"1\",\"B\":\"2\",\"A\":\"3\"}}", "env.A",
	 "duplicate key"},
	/* env's duplicates are found by sorting: the member named is still the
	 * earliest one a later member repeats, and a bad name before it is
	 * still reported first (document order) */
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"Z\":\"1\",\"B\":\"2\",\"B\":\"3\",\"Z\":\"4\"}}",
	 "env.Z", "duplicate key"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"C\":\"1\",\"A\":\"2\",\"B\":\"3\",\"A\":\"4\",\"C\":\"5\"}}",
	 "env.C", "duplicate key"},
	{"{\"version\":1,\"command\":[\"true\"],\"env\":{\"X=\":\"1\",\"A\":\"2\",\"A\":\"3\"}}",
	 "env.X=", "variable name must be non-empty"},
	{"{\"version\":1,\"command\":[\"\xff\"]}", "command[0]", "invalid UTF-8"},
	{"{\"version\":1,\"command\":[\"\xc0\xaf\"]}", "command[0]", "invalid UTF-8"},
	/* the grammar, exactly RFC 8259: what cJSON would read leniently */
	{"\xef\xbb\xbf{\"version\":1,\"command\":[\"true\"]}", "request", "byte order mark"},
	{"{\"version\":01,\"command\":[\"true\"]}", "version", "leading zero"},
	{"{\"version\":+1,\"command\":[\"true\"]}", "version", "unexpected character '+'"},
	{"{\"version\":0x1,\"command\":[\"true\"]}", "version", "unexpected character 'x'"},
	{"{\"version\":1.,\"command\":[\"true\"]}", "version", "malformed number"},
	{"{\"version\":.5,\"command\":[\"true\"]}", "version", "unexpected character '.'"},
	{"{\"version\":1e,\"command\":[\"true\"]}", "version", "malformed number"},
	{"{\"version\":-,\"command\":[\"true\"]}", "version", "malformed number"},
	{"{\"version\":NaN,\"command\":[\"true\"]}", "version", "unexpected character 'N'"},
	{"{\"version\":1,\"command\":[\"true\"],\"stdin\":nul}", "stdin", "expected a value"},
	{"{\"version\":1,\"command\":[\"true\"],\"stdin\":True}", "stdin", "expected a value"},
	{"{\"version\":1,\"command\":[\"true\"],}", "request", "expected a key"},
	{"{\"version\":1,\"command\":[\"true\",]}", "command[1]", "expected a value"},
	{"{\"version\":1 \"command\":[\"true\"]}", "version", "expected ',' or '}'"},
	{"{\"version\":1,'command':[\"true\"]}", "request", "expected a key"},
	{"{\"version\":1,\"command\":[\"tr\tue\"]}", "command[0]", "control byte 0x09"},
	{"{\"version\":1,\"command\":[\"a\\x41\"]}", "command[0]", "invalid escape '\\x'"},
	{"{\"version\":1,\"command\":[\"a\\u12\"]}", "command[0]", "four hex digits"},
	{"{\"version\":1,\"command\":[\"a\\ud800\"]}", "command[0]", "unpaired UTF-16 surrogate"},
	{"{\"version\":1,\"command\":[\"a\\ud800\\u0041\"]}", "command[0]", "unpaired"},
	{"{\"version\":1,\"command\":[\"a\\udc00\"]}", "command[0]", "unpaired"},
	{"{\"version\":1,\"command\":[\"true\"],\"timeout_ms\":"
	 "1000000000000000000000000000000000000000000000000000000000000000}", "timeout_ms",
	 "number longer than 63"},
	{"{\"version\":1,\"command\":[\"true\"],\"e\\u0000v\":1}", "request", "NUL"},
};

static void check_bad(void)
{
	char err[REQUEST_ERR_MAX];
	struct request req;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad *b = &bad[i];
		size_t pl = strlen(b->path);
		int rc = request_parse(b->json, strlen(b->json), &req, err);

		t_ok(rc == -EINVAL && strncmp(err, b->path, pl) == 0 &&
			     err[pl] == ':' && strstr(err, b->why) != NULL,
		     "refused %s: got \"%s\"", b->path, rc ? err : "(accepted)");
		if (rc == 0)
			request_free(&req);
	}
}

/* The issue-12 family: a byte below 0x20 that cJSON reads as whitespace,
 * placed before every kind of token, must be refused wherever it stands
 * (a control byte in front of a string once carried "\u0000" and a cut-off
 * ".." past validation). */
static void check_control_bytes(void)
{
	static const char *const tmpl[] = {
		"@{\"version\":1,\"command\":[\"true\"]}",
		"{@\"version\":1,\"command\":[\"true\"]}",
		"{\"version\"@:1,\"command\":[\"true\"]}",
		"{\"version\":@1,\"command\":[\"true\"]}",
		"{\"version\":1@,\"command\":[\"true\"]}",
		"{\"version\":1,\"command\":[@\"true\"]}",
		"{\"version\":1,\"command\":[\"true\"@]}",
		"{\"version\":1,\"command\":[\"true\"]@}",
		"{\"version\":1,\"command\":[\"true\"]}@",
		"{\"version\":1,\"command\":[\"true\"],\"profile\":{\"filesystem\":{\"write_roots\":"
		"[{\"root\":@\"/tmp/t/ws\\u0000/sub\"}]}}}",
	};
	char err[REQUEST_ERR_MAX], text[256];
	struct request req;
	int refused = 0, total = 0;
	char first[REQUEST_ERR_MAX + 64] = "";

	for (int c = 1; c < 0x20; c++) {
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		for (size_t i = 0; i < sizeof(tmpl) / sizeof(tmpl[0]); i++) {
			size_t n = strlen(tmpl[i]);
			int rc;

			memcpy(text, tmpl[i], n + 1);
			*strchr(text, '@') = (char)c;
			rc = request_parse(text, n, &req, err);

			total++;
			if (rc == -EINVAL && strstr(err, "unexpected byte 0x"))
				refused++;
			else if (!first[0])
				snprintf(first, sizeof(first), "byte 0x%02x, form %zu: %s", c, i,
					 rc ? err : "accepted");
			if (rc == 0)
				request_free(&req);
		}
	}
	t_ok(refused == total, "every control byte outside strings refused, in every position "
	     "(%d of %d)%s%s", refused, total, first[0] ? "; first miss: " : "", first);
	/* The reproducer of the issue, with the byte 0x1f before the root. */
	static const char repro[] = "{\"version\":1,\"command\":[\"sh\",\"-c\",\"echo pwned > "
		"/tmp/t/ws/other\"],\"cwd\":\"/\",\"profile\":{\"filesystem\":{\"write_roots\":"
		"[{\"root\":\x1f\"/tmp/t/ws\\u0000/sub\"}]}}}";
	int rc = request_parse(repro, sizeof(repro) - 1, &req, err);

	t_ok(rc == -EINVAL && strncmp(err, "profile.filesystem.write_roots[0].root: unexpected byte 0x1f",
				      60) == 0, "widened write root refused: %s", rc ? err : "accepted");
	if (rc == 0)
		request_free(&req);
}

/* Nesting past JSCAN_DEPTH is refused with a message that says so. */
static void check_depth(void)
{
	char err[REQUEST_ERR_MAX], text[512];
	struct request req;
	int n = 0, rc;

	n += snprintf(text + n, sizeof(text) - (size_t)n, "{\"version\":1,\"command\":[\"true\"],\"env\":");
	for (int i = 0; i < JSCAN_DEPTH; i++)
		text[n++] = '[';
	for (int i = 0; i < JSCAN_DEPTH; i++)
		text[n++] = ']';
	text[n++] = '}';
	rc = request_parse(text, (size_t)n, &req, err);
	t_ok(rc == -EINVAL && strstr(err, "nested deeper than 64 levels"),
	     "deep nesting refused: %s", rc ? err : "accepted");
	if (rc == 0)
		request_free(&req);
}

static void check_nul_byte_and_size(void)
{
	char err[REQUEST_ERR_MAX];
	struct request req;
	static const char raw[] = "{\"version\":1,\"command\":[\"a\0b\"]}";
	size_t big = REQUEST_MAX_BYTES + 1;
	char *text = malloc(big + 1);
	int rc;

	rc = request_parse(raw, sizeof(raw) - 1, &req, err);
	t_ok(rc == -EINVAL && strstr(err, "NUL") != NULL,
	     "raw NUL byte refused: %s", err);
	memset(text, ' ', big);
	memcpy(text, "{\"version\":1,\"command\":[\"true\"]}", 32);
	text[big] = '\0';
	rc = request_parse(text, big, &req, err);
	t_ok(rc == -EINVAL && strncmp(err, "request: larger than", 20) == 0,
	     "oversize request refused: %s", err);
	rc = request_parse(text, big - 1, &req, err);
	t_ok(rc == 0, "request of exactly the limit accepted: %s", rc ? err : "ok");
	if (rc == 0)
		request_free(&req);
	free(text);
}

static void check_good(void)
{
	static const char full[] =
		"{\"version\":1,\"command\":[\"sh\",\"-c\",\"make test\"],"
		"\"cwd\":\"/home/u//proj/./\",\"env\":{\"PATH\":\"/usr/bin:/bin\"},"
		"\"stdin\":\"hi\\n\",\"timeout_ms\":5000,\"output_limit_bytes\":10,"
		"\"profile\":{\"filesystem\":{\"kind\":\"restricted\",\"read_roots\":[\"/\"],"
		"\"include_platform_roots\":false,\"write_roots\":[{\"root\":\"/home/u/proj\","
		"\"read_only_subpaths\":[\"/home/u/proj/ro\"],\"protected_metadata_names\":[\".x\"]}],"
		"\"deny_read\":[\"/home/u/.ssh\"],\"deny_write\":[],\"allow_temp\":false},"
		"\"network\":{\"mode\":\"allow\"},\"block_unix_sockets\":true,"
		"\"runtime\":{\"parent\":\"/home/u/.cache/rt\",\"max_age_s\":60,\"max_roots\":3}}}";
	char err[REQUEST_ERR_MAX];
	struct request r;
	int rc = request_parse(full, sizeof(full) - 1, &r, err);

	if (!t_ok(rc == 0, "full example request parses: %s", rc ? err : "ok"))
		return;
	t_ok(r.command.n == 3 && strcmp(r.command.v[2], "make test") == 0, "command argv");
	t_ok(strcmp(r.cwd, "/home/u/proj") == 0, "cwd cleaned to %s", r.cwd);
	t_ok(r.env.n == 1 && strcmp(r.env.v[0], "PATH=/usr/bin:/bin") == 0, "env pair");
	t_ok(r.stdin_len == 3 && memcmp(r.stdin_data, "hi\n", 3) == 0, "stdin");
	t_ok(r.timeout_ms == 5000 && r.output_limit_bytes == 10, "limits");
	t_ok(r.fs_kind == FS_RESTRICTED && !r.include_platform_roots && !r.allow_temp,
	     "filesystem flags");
	t_ok(r.n_write_roots == 1 && strcmp(r.write_roots[0].root, "/home/u/proj") == 0 &&
		     r.write_roots[0].protected_names.n == 1 &&
		     r.write_roots[0].read_only_subpaths.n == 1,
	     "write root with explicit protected names");
	t_ok(r.network == NET_ALLOW && r.block_unix_sockets, "network allow, unix blocked");
	t_ok(r.has_runtime && strcmp(r.runtime_parent, "/home/u/.cache/rt") == 0 &&
		     r.runtime_max_age_s == 60 && r.runtime_max_roots == 3,
	     "runtime parent: %s", r.runtime_parent);
	request_free(&r);

	static const char min[] = "{\"version\":1,\"command\":[\"true\"],"
		"\"profile\":{\"filesystem\":{\"write_roots\":[{\"root\":\"/w\"}]}}}";
	rc = request_parse(min, sizeof(min) - 1, &r, err);
	if (!t_ok(rc == 0, "minimal request parses: %s", rc ? err : "ok"))
		return;
	t_ok(r.fs_kind == FS_RESTRICTED && r.network == NET_DENY,
	     "defaults fail closed: restricted filesystem, network deny");
	t_ok(r.read_roots.n == 1 && strcmp(r.read_roots.v[0], "/") == 0,
	     "default read root is /");
	t_ok(r.write_roots[0].protected_names.n == 4 &&
		     strcmp(r.write_roots[0].protected_names.v[0], ".git/hooks") == 0,
	     "default protected names");
	t_ok(r.timeout_ms == REQUEST_DEFAULT_TIMEOUT_MS &&
		     r.output_limit_bytes == REQUEST_DEFAULT_OUTPUT_LIMIT,
	     "default limits");
	t_ok(r.env.n == 0, "no env given: empty environment");
	request_free(&r);

	static const char esc[] = "{\"version\":1,\"command\":[\"\\u00e9\\\\u0000\"]}";
	rc = request_parse(esc, sizeof(esc) - 1, &r, err);
	t_ok(rc == 0 && strcmp(r.command.v[0], "\xc3\xa9\\u0000") == 0,
	     "escaped backslash before u0000 is text, not NUL: %s", rc ? err : "ok");
	if (rc == 0)
		request_free(&r);
}

static void check_clean_path(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"/", "/"}, {"//", "/"}, {"/a//b/", "/a/b"}, {"/a/./b/.", "/a/b"},
		{"/./", "/"}, {"a", NULL}, {"/a/..", NULL}, {"/..x/y", "/..x/y"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		int rc;

		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		rc = request_clean_path(buf);
		if (cases[i].out)
			t_ok(rc == 0 && strcmp(buf, cases[i].out) == 0,
			     "clean %s -> %s (got %s)", cases[i].in, cases[i].out, buf);
		else
			t_ok(rc == -EINVAL, "clean %s refused", cases[i].in);
	}
}

int main(void)
{
	check_bad();
	check_control_bytes();
	check_depth();
	check_nul_byte_and_size();
	check_good();
	check_clean_path();
	return t_done();
}
