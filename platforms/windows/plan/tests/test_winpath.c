/* test_winpath.c - the Windows path rules (winpath.h): every accepted and
 * refused spelling by table, the properties every cleaned path has (also
 * over generated spellings), the case-insensitive comparisons, and the
 * request parser judging paths with the Windows rules. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/request.h"
#include "t.h"
#include "winpath.h"

static const struct { const char *in, *out; } accepted[] = {
	{"C:\\a\\b", "C:\\a\\b"},
	{"c:/a/b", "C:\\a\\b"},
	{"C:\\", "C:\\"},
	{"z:/", "Z:\\"},
	{"C:\\a\\\\b\\", "C:\\a\\b"},
	{"C:/a//./b/", "C:\\a\\b"},
	{"C:\\.\\a", "C:\\a"},
	{"C:\\a b\\c.d", "C:\\a b\\c.d"},
	{"C:\\Users\\Jos\xc3\xa9", "C:\\Users\\Jos\xc3\xa9"},
	{"C:\\...x", "C:\\...x"},
	{"C:\\a~b\\x~", "C:\\a~b\\x~"},
	{"C:\\console\\COM10\\LPT0\\nul_x\\conx", "C:\\console\\COM10\\LPT0\\nul_x\\conx"},
	{"C:\\.git\\hooks", "C:\\.git\\hooks"},
	{" C"  ":\\x", NULL},  /* a leading space is no drive: refused below */
};

static const struct { const char *in, *why; } refused[] = {
	{"", "absolute Windows path"},
	{"a\\b", "absolute Windows path"},
	{"\\a", "absolute Windows path"},
	{"/a/b", "absolute Windows path"},
	{" C:\\x", "absolute Windows path"},
	{"1:\\x", "absolute Windows path"},
	{"C:", "drive-relative"},
	{"C:a\\b", "drive-relative"},
	{"\\\\?\\C:\\a", "device or verbatim"},
	{"\\\\.\\C:\\a", "device or verbatim"},
	{"//?/C:/a", "device or verbatim"},
	{"\\\\.\\pipe\\x", "device or verbatim"},
	{"\\\\?\\UNC\\srv\\share", "device or verbatim"},
	{"\\\\server\\share\\a", "UNC"},
	{"//server/share", "UNC"},
	{"\\??\\C:\\a", "NT object"},
	{"C:\\a\\..\\b", "\"..\""},
	{"C:\\..", "\"..\""},
	{"C:/a/b/..", "\"..\""},
	{"C:\\a\\b:stream", "alternate data stream"},
	{"C:\\a::$DATA", "alternate data stream"},
	{"C:\\a\\b:", "alternate data stream"},
	{"C:\\a\\C:\\b", "alternate data stream"},
	{"C:\\a\\b.", "ending in '.' or ' '"},
	{"C:\\a\\b ", "ending in '.' or ' '"},
	{"C:\\a.\\b", "ending in '.' or ' '"},
	{"C:\\a \\b", "ending in '.' or ' '"},
	{"C:\\CON", "DOS device"},
	{"C:\\con.txt", "DOS device"},
	{"C:\\a\\Nul", "DOS device"},
	{"C:\\a\\nul .txt", "DOS device"},
	{"C:\\a\\aux.tar.gz", "DOS device"},
	{"C:\\prn", "DOS device"},
	{"C:\\COM1", "DOS device"},
	{"C:\\x\\com9.c", "DOS device"},
	{"C:\\lpt9.log", "DOS device"},
	{"C:\\LPT1", "DOS device"},
	{"C:\\conin$", "DOS device"},
	{"C:\\CONOUT$", "DOS device"},
	{"C:\\PROGRA~1", "8.3 short name"},
	{"C:\\a\\GIT~1\\hooks", "8.3 short name"},
	{"C:\\a\\x~12.txt", "8.3 short name"},
	{"C:\\a<b", "character"},
	{"C:\\a>b", "character"},
	{"C:\\a|b", "character"},
	{"C:\\a*", "character"},
	{"C:\\a?", "character"},
	{"C:\\a\"b", "character"},
	{"C:\\a\x01" "b", "character"},
};

static void check_properties(const char *in, const char *out)
{
	char again[256];
	const char *why = NULL;
	bool ok = true;

	snprintf(again, sizeof(again), "%s", out);
	ok &= winpath_clean(again, &why) == 0 && strcmp(again, out) == 0;
	ok &= strchr(out, '/') == NULL;
	ok &= strchr(out + 2, ':') == NULL;
	ok &= out[0] >= 'A' && out[0] <= 'Z' && out[1] == ':' && out[2] == '\\';
	ok &= strstr(out, "\\..\\") == NULL && strstr(out, "\\.\\") == NULL;
	ok &= strstr(out, "\\\\") == NULL;
	ok &= strlen(out) == 3 || out[strlen(out) - 1] != '\\';
	for (const char *p = out + 3; *p && ok;) {
		size_t n = strcspn(p, "\\");
		ok &= winpath_check_name(p, n, &why) == 0;
		p += n + (p[n] ? 1 : 0);
	}
	if (!ok)
		t_ok(0, "properties of clean(\"%s\") = \"%s\"", in, out);
}

static void test_tables(void)
{
	char buf[256];
	const char *why;

	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		if (!accepted[i].out)
			continue;
		snprintf(buf, sizeof(buf), "%s", accepted[i].in);
		why = "(none)";
		int rc = winpath_clean(buf, &why);
		t_ok(rc == 0 && strcmp(buf, accepted[i].out) == 0, "accepted \"%s\" -> \"%s\" (%s)",
		     accepted[i].in, rc == 0 ? buf : "refused", rc == 0 ? "ok" : why);
		if (rc == 0)
			check_properties(accepted[i].in, buf);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", refused[i].in);
		why = "";
		int rc = winpath_clean(buf, &why);
		t_ok(rc == -EINVAL && strstr(why, refused[i].why), "refused \"%s\": %s", refused[i].in,
		     rc ? why : "ACCEPTED");
	}
}

/* Spellings generated from pieces (a fixed LCG: the same run every time):
 * whatever is accepted has every property, the refusals never crash. */
static void test_generated(void)
{
	static const char *const pieces[] = {
		"a", "B", ".", "..", "/", "\\", "\\\\", ":", "~1", "con", "x.", "y ", "$DATA",
		".git", "hooks", "?", "nul.txt", "dir", "~", " z",
	};
	unsigned s = 12345, accepted_n = 0, total = 20000;
	char buf[256];
	const char *why;

	for (unsigned i = 0; i < total; i++) {
		size_t w = (size_t)snprintf(buf, sizeof(buf), "%s", (s & 1) ? "c:\\" : "D:/");
		for (int k = 0; k < 6; k++) {
			s = s * 1103515245u + 12345u;
			w += (size_t)snprintf(buf + w, sizeof(buf) - w, "%s",
					      pieces[(s >> 16) % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		char in[256];
		memcpy(in, buf, sizeof(in));
		if (winpath_clean(buf, &why) == 0) {
			accepted_n++;
			check_properties(in, buf);
		}
	}
	t_ok(accepted_n > 100 && accepted_n < total, "generated: %u of %u accepted, every one "
	     "clean, idempotent, '\\'-separated, no ':' past the drive, no '..'", accepted_n, total);
}

static void test_relnames(void)
{
	static const char *const good[] = {".git/hooks", ".git\\hooks", ".agents", "a b/c", NULL};
	static const char *const bad[] = {"", "/x", "\\x", "C:x", "a/../b", "a//b", "a/", "a\\",
					  "a:b", "a.", "nul", "x/GIT~1", "./a", NULL};
	const char *why;

	for (size_t i = 0; good[i]; i++)
		t_ok(winpath_check_relname(good[i], &why) == 0, "relname \"%s\" accepted", good[i]);
	for (size_t i = 0; bad[i]; i++) {
		why = "";
		t_ok(winpath_check_relname(bad[i], &why) == -EINVAL, "relname \"%s\" refused: %s",
		     bad[i], why);
	}
}

static void test_compare(void)
{
	char *j = NULL;

	t_ok(winpath_equal(".GiT\\Hooks", ".git/hooks"), ".GiT\\Hooks equals .git/hooks");
	t_ok(winpath_equal("C:\\W\\X", "c:\\w\\x"), "drive and names fold ASCII case");
	t_ok(!winpath_equal("C:\\w\\x", "C:\\w\\xy"), "a longer name differs");
	t_ok(!winpath_equal("C:\\\xc3\x89", "C:\\\xc3\xa9"),
	     "non-ASCII is compared byte for byte (documented: errs towards refusal)");
	t_ok(winpath_beneath("C:\\w", "c:\\W\\x"), "beneath, any case");
	t_ok(winpath_beneath("C:\\w", "C:\\w"), "a root is beneath itself");
	t_ok(!winpath_beneath("C:\\w", "C:\\wx"), "C:\\wx is not beneath C:\\w");
	t_ok(!winpath_beneath("C:\\w\\a", "C:\\w"), "a parent is not beneath its child");
	t_ok(!winpath_beneath("C:\\w", "D:\\w\\x"), "another drive is not beneath");
	t_ok(winpath_beneath("C:\\", "C:\\a\\b"), "everything on C: is beneath C:\\");
	t_ok(!winpath_beneath("C:\\", "D:\\a"), "D: is not beneath C:\\");
	t_ok(winpath_join("C:\\w", ".git/hooks", &j) == 0 && strcmp(j, "C:\\w\\.git\\hooks") == 0,
	     "join writes '\\'");
	free(j);
	t_ok(winpath_join("C:\\", "a", &j) == 0 && strcmp(j, "C:\\a") == 0, "join onto C:\\");
	free(j);
}

static int parse(const char *json, const struct request_path_rules *rules,
		 struct request *r, char *err)
{
	return request_parse_with(json, strlen(json), rules, r, err);
}

#define WREQ(fs) "{\"version\":1,\"command\":[\"cmd\"],\"cwd\":\"c:/w\",\"profile\":{\"filesystem\":" fs "}}"

static void test_request_rules(void)
{
	static const struct { const char *json, *want; } bad[] = {
		{"{\"version\":1,\"command\":[\"x\"],\"cwd\":\"/home/u\"}",
		 "cwd: must be an absolute Windows path (a drive letter, ':', '\\') (got \"/home/u\")"},
		{WREQ("{\"deny_write\":[\"C:\\\\a:b\"]}"),
		 "profile.filesystem.deny_write[0]: a ':' in a name (after the drive) names an alternate data stream"},
		{WREQ("{\"write_roots\":[{\"root\":\"C:\\\\w\",\"read_only_subpaths\":[\"D:\\\\w\\\\x\"]}]}"),
		 "read_only_subpaths[0]: must be beneath the write root"},
		{WREQ("{\"write_roots\":[{\"root\":\"C:\\\\w\",\"protected_metadata_names\":[\".git/../x\"]}]}"),
		 "protected_metadata_names[0]: \".\" and \"..\" components are not allowed"},
		{WREQ("{\"write_roots\":[{\"root\":\"\\\\\\\\srv\\\\share\"}]}"), "UNC path"},
	};
	struct request r;
	char err[REQUEST_ERR_MAX];
	int rc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = parse(bad[i].json, &winpath_request_rules, &r, err);
		t_ok(rc == -EINVAL && strstr(err, bad[i].want), "windows rules refuse: %s", err);
	}
	rc = parse(WREQ("{\"write_roots\":[{\"root\":\"c:/W\",\"read_only_subpaths\":[\"C:\\\\w\\\\V\"]}]}"),
		   &winpath_request_rules, &r, err);
	t_ok(rc == 0 && strcmp(r.cwd, "C:\\w") == 0 && strcmp(r.write_roots[0].root, "C:\\W") == 0 &&
	     r.read_roots.n == 0 && !r.read_roots_stated,
	     "windows rules: paths cleaned, subpath beneath its root in any case, no default read root (%s)",
	     rc ? err : "ok");
	if (rc == 0)
		request_free(&r);
	rc = parse("{\"version\":1,\"command\":[\"x\"],\"cwd\":\"C:\\\\w\"}", NULL, &r, err);
	t_ok(rc == -EINVAL && strstr(err, "cwd: must be an absolute path"),
	     "the POSIX rules (default) still refuse a drive path: %s", err);
	rc = parse("{\"version\":1,\"command\":[\"x\"],\"cwd\":\"/a//b/\"}", NULL, &r, err);
	t_ok(rc == 0 && strcmp(r.cwd, "/a/b") == 0 && r.read_roots.n == 1 &&
	     strcmp(r.read_roots.v[0], "/") == 0, "the POSIX rules are unchanged (default read root /)");
	if (rc == 0)
		request_free(&r);
}

int main(void)
{
	test_tables();
	test_generated();
	test_relnames();
	test_compare();
	test_request_rules();
	return t_done();
}
