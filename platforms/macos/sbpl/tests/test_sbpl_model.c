/* test_sbpl_model.c - the Seatbelt model's semantics, one check each
 * (platforms/macos/sbpl/MODEL.md gives the source of every one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namefold.h"
#include "sbpl_model.h"
#include "t.h"

static struct sbpl_model *parse_p(const char *text, const struct sbpl_param *p, size_t n)
{
	char err[SBPL_ERR_MAX];
	struct sbpl_model *m;

	if (sbpl_model_parse(text, p, n, &m, err) < 0) {
		printf("# parse failed: %s\n", err);
		return NULL;
	}
	return m;
}

static struct sbpl_model *parse(const char *text)
{
	return parse_p(text, NULL, 0);
}

static int fs(const struct sbpl_model *m, const char *op, const char *path, enum sbpl_order o)
{
	struct sbpl_query q = {.op = op, .path = path, .order = o};

	return m ? sbpl_model_decide(m, &q) : -1;
}

#define FS(m, op, path) fs(m, op, path, SBPL_ORDER_SPECIFIC_FIRST)

static const char *const ifaddrs[] = {"192.0.2.10", "2001:db8::10"};

/* An outbound IP connection from an unbound socket (the usual connect). */
static int net_out(const struct sbpl_model *m, enum sbpl_proto p, const char *ip, int port)
{
	struct sbpl_query q = {.op = "network-outbound", .proto = p,
			       .local = {.port = -1, .unbound = true},
			       .remote = {.ip = ip, .port = port}, .ifaddrs = ifaddrs, .n_ifaddrs = 2};

	return m ? sbpl_model_decide(m, &q) : -1;
}

/* The same, from a socket bound to local:lport first. */
static int net_out_bound(const struct sbpl_model *m, const char *local, int lport, const char *ip,
			 int port)
{
	struct sbpl_query q = {.op = "network-outbound", .proto = SBPL_PROTO_TCP,
			       .local = {.ip = local, .port = lport},
			       .remote = {.ip = ip, .port = port}, .ifaddrs = ifaddrs, .n_ifaddrs = 2};

	return m ? sbpl_model_decide(m, &q) : -1;
}

static int perr(const char *text, const char *want)
{
	char err[SBPL_ERR_MAX];
	struct sbpl_model *m;
	int rc = sbpl_model_parse(text, NULL, 0, &m, err);

	if (rc == 0)
		sbpl_model_free(m);
	else
		printf("# %s\n", err);
	return rc == -22 && strstr(err, want) != NULL;
}

#define HEAD "(version 1)\n(deny default)\n"

static void last_match(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				     "(deny file-write* (literal \"/w/x\"))\n");
	struct sbpl_model *r = parse(HEAD "(deny file-write* (literal \"/w/x\"))\n"
				     "(allow file-write* (subpath \"/w\"))\n");

	t_ok(FS(m, "file-write-data", "/w/x") == 0, "last match wins: a later deny of /w/x");
	t_ok(FS(m, "file-write-data", "/w/y") == 1, "the earlier allow still holds for /w/y");
	t_ok(FS(r, "file-write-data", "/w/x") == 1, "reversed: the later allow wins for /w/x");
	t_ok(FS(m, "file-write-data", "/v") == 0, "no rule: the default denies");
	sbpl_model_free(m);
	sbpl_model_free(r);
}

static void paths(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-read* (subpath \"/a/b\"))\n"
				     "(allow file-write* (literal \"/l/f\"))\n"
				     "(allow file-write-create (prefix \"/p/ab\"))\n"
				     "(allow file-write-data (regex #\"^/r/[^/]+\\.txt$\"))\n"
				     "(allow file-read-metadata (subpath \"/\"))\n");

	t_ok(FS(m, "file-read-data", "/a/b") == 1, "subpath: the path itself");
	t_ok(FS(m, "file-read-data", "/a/b/c/d") == 1, "subpath: beneath it");
	t_ok(FS(m, "file-read-data", "/a/bc") == 0, "subpath: /a/bc is not under /a/b");
	t_ok(FS(m, "file-read-data", "/a") == 0, "subpath: not its parent");
	t_ok(FS(m, "file-write-unlink", "/l/f") == 1, "literal: the path itself");
	t_ok(FS(m, "file-write-unlink", "/l/f/g") == 0, "literal: nothing beneath it");
	t_ok(FS(m, "file-write-create", "/p/abc") == 1, "prefix: a plain string prefix");
	t_ok(FS(m, "file-write-create", "/p/a") == 0, "prefix: not shorter");
	t_ok(FS(m, "file-write-data", "/r/x.txt") == 1, "regex: matches");
	t_ok(FS(m, "file-write-data", "/r/d/x.txt") == 0, "regex: anchored, [^/]");
	t_ok(FS(m, "file-read-metadata", "/anything/at/all") == 1, "subpath /: every path");
	sbpl_model_free(m);
}

static void canonical(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-write* (subpath \"/a//b\"))\n"
				     "(allow file-write* (subpath \"/c/./d\"))\n"
				     "(allow file-write* (literal \"/e/f/\"))\n"
				     "(allow file-write* (subpath \"/tmp/w\"))\n");

	t_ok(FS(m, "file-write-data", "/a/b/x") == 0, "a // spelling matches nothing");
	t_ok(FS(m, "file-write-data", "/c/d/x") == 0, "a /./ spelling matches nothing");
	t_ok(FS(m, "file-write-data", "/e/f") == 0, "a trailing / spelling matches nothing");
	t_ok(FS(m, "file-write-data", "/private/tmp/w/x") == 0, "/tmp does not match /private/tmp");
	t_ok(FS(m, "file-write-data", "/a//b/x") == -22, "a query path with // is refused (-EINVAL)");
	t_ok(FS(m, "file-write-data", "rel/x") == -22, "a relative query path is refused");
	sbpl_model_free(m);
}

static void logic(void)
{
	struct sbpl_model *m = parse(HEAD
		"(allow file-write* (require-all (subpath \"/w\") (require-not (subpath \"/w/.git\"))))\n"
		"(allow file-read-data (require-any (literal \"/x\") (literal \"/y\")))\n"
		"(allow file-read-metadata (literal \"/m1\") (literal \"/m2\"))\n");

	t_ok(FS(m, "file-write-create", "/w/src") == 1, "require-all with require-not: allowed part");
	t_ok(FS(m, "file-write-create", "/w/.git/hooks") == 0, "require-not excludes its subpath");
	t_ok(FS(m, "file-write-create", "/w/.gitx") == 1, "require-not (subpath) keeps the boundary");
	t_ok(FS(m, "file-read-data", "/y") == 1 && FS(m, "file-read-data", "/z") == 0, "require-any");
	t_ok(FS(m, "file-read-metadata", "/m2") == 1 && FS(m, "file-read-metadata", "/m3") == 0,
	     "several filters in one rule: any of them");
	sbpl_model_free(m);
}

static void params(void)
{
	struct sbpl_param p[] = {{"ROOT", "/ws"}, {"SUB", "/ws/ro"}};
	struct sbpl_model *m = parse_p(HEAD "(allow file-write* (subpath (param \"ROOT\")))\n"
				       "(deny file-write* (subpath (string-append (param \"ROOT\") \"/ro\")))\n",
				       p, 2);

	t_ok(FS(m, "file-write-data", "/ws/f") == 1, "param substituted: ROOT");
	t_ok(FS(m, "file-write-data", "/ws/ro/f") == 0, "string-append of a param");
	t_ok(perr(HEAD "(allow file-write* (subpath (param \"NOPE\")))", "line 3 col 29 (byte 55): no parameter \"NOPE\""),
	     "a missing param is refused with its position");
	sbpl_model_free(m);
}

static void hierarchy(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				     "(allow file* (subpath \"/f\"))\n(allow network* (local ip \"*:*\"))\n");
	static const char *const wops[] = {"file-write-data", "file-write-create", "file-write-unlink",
					   "file-write-mode", "file-write-xattr", "file-write-flags",
					   "file-write-times", "file-write-owner", "file-write-setugid"};
	size_t k;
	int all = 1;

	for (k = 0; k < sizeof(wops) / sizeof(wops[0]); k++)
		all &= FS(m, wops[k], "/w/x") == 1;
	t_ok(all, "file-write* covers every file-write-* operation");
	t_ok(FS(m, "file-read-data", "/w/x") == 0, "file-write* does not cover file-read-data");
	t_ok(FS(m, "file-read-data", "/f/x") == 1 && FS(m, "file-write-unlink", "/f/x") == 1,
	     "file* covers file-read* and file-write*");
	t_ok(FS(m, "file-bogus", "/f/x") == -22, "an unknown query operation is refused");
	sbpl_model_free(m);
}

static void precedence(void)
{
	struct sbpl_model *m = parse(HEAD "(deny file-write-unlink (literal \"/w/keep\"))\n"
				     "(allow file-write* (subpath \"/w\"))\n"
				     "(allow file-read-data (subpath \"/\"))\n"
				     "(deny file-read* (literal \"/secret\"))\n");

	t_ok(FS(m, "file-write-unlink", "/w/keep") == 0,
	     "a specific deny is not undone by a later wildcard allow");
	t_ok(FS(m, "file-write-data", "/w/keep") == 1, "the wildcard allow holds for other operations");
	t_ok(FS(m, "file-read-data", "/secret") == 1,
	     "a specific allow is not undone by a later wildcard deny");
	t_ok(FS(m, "file-read-metadata", "/secret") == 0, "the wildcard deny holds for the rest");
	t_ok(fs(m, "file-write-unlink", "/w/keep", SBPL_ORDER_FLAT) == 1,
	     "flat order: the later wildcard allow wins");
	t_ok(fs(m, "file-read-data", "/secret", SBPL_ORDER_FLAT) == 0,
	     "flat order: the later wildcard deny wins");
	sbpl_model_free(m);
	m = parse("(version 1)\n(allow file-write* (subpath \"/w\"))\n(deny default)\n");
	t_ok(fs(m, "file-write-data", "/w/x", SBPL_ORDER_FLAT) == 1 && FS(m, "file-write-data", "/w/x") == 1,
	     "default is the fallback wherever it stands");
	sbpl_model_free(m);
}

static void localhost(void)
{
	struct sbpl_model *rem = parse(HEAD "(allow network-outbound (remote ip \"localhost:*\"))\n");
	struct sbpl_model *loc = parse(HEAD "(allow network-outbound (local ip \"localhost:*\"))\n");
	struct sbpl_model *deny = parse(HEAD "(deny network*)\n");
	struct sbpl_model *port = parse(HEAD "(allow network-outbound (remote tcp4 \"*:443\"))\n");

	t_ok(net_out(rem, SBPL_PROTO_TCP, "127.0.0.1", 80) == 1, "remote localhost: 127.0.0.1");
	t_ok(net_out(rem, SBPL_PROTO_UDP, "::1", 53) == 1, "remote localhost: ::1");
	t_ok(net_out(rem, SBPL_PROTO_TCP, "192.0.2.10", 22) == 1,
	     "remote localhost: the host's interface address 192.0.2.10 too (the quirk)");
	t_ok(net_out(rem, SBPL_PROTO_TCP, "2001:db8::10", 22) == 1, "remote localhost: a v6 interface address");
	t_ok(net_out(rem, SBPL_PROTO_TCP, "192.0.2.99", 22) == 0, "remote localhost: not another host");
	t_ok(net_out(loc, SBPL_PROTO_TCP, "203.0.113.5", 80) == 1,
	     "local localhost: an unbound socket's local end matches, so any destination");
	t_ok(net_out_bound(loc, "198.51.100.7", 4000, "203.0.113.5", 80) == 0,
	     "local localhost: not a socket bound to another address");
	t_ok(net_out_bound(loc, "0.0.0.0", 4000, "203.0.113.5", 80) == 1 &&
	     net_out_bound(loc, "::", 4000, "2001:db8::5", 80) == 1,
	     "local localhost: the unspecified address too (an unbound end reads as it)");
	t_ok(net_out(rem, SBPL_PROTO_TCP, "0.0.0.0", 80) == 0,
	     "remote localhost: not the unspecified address");
	t_ok(net_out(deny, SBPL_PROTO_TCP, "127.0.0.1", 80) == 0 &&
	     net_out(deny, SBPL_PROTO_TCP, "192.0.2.10", 80) == 0, "plain (deny network*): nothing");
	t_ok(net_out(port, SBPL_PROTO_TCP, "203.0.113.5", 443) == 1 &&
	     net_out(port, SBPL_PROTO_TCP, "203.0.113.5", 80) == 0 &&
	     net_out(port, SBPL_PROTO_UDP, "203.0.113.5", 443) == 0 &&
	     net_out(port, SBPL_PROTO_TCP, "2001:db8::5", 443) == 0, "tcp4 \"*:443\": protocol, family, port");
	t_ok(net_out(rem, SBPL_PROTO_TCP, "localhost", 80) == -22, "a non-numeric query address is refused");
	sbpl_model_free(rem);
	sbpl_model_free(loc);
	sbpl_model_free(deny);
	sbpl_model_free(port);
}

static void others(void)
{
	struct sbpl_model *m = parse(HEAD "(allow mach-lookup (global-name \"com.apple.logd\"))\n"
				     "(allow signal (target same-sandbox))\n"
				     "(allow network-outbound (remote unix-socket (path-literal \"/s/sock\")))\n"
				     "(deny file-write* (literal \"/x\") (with message \"tag-1\"))\n");
	struct sbpl_query q = {.op = "mach-lookup", .global_name = "com.apple.logd"};

	t_ok(sbpl_model_decide(m, &q) == 1, "mach-lookup: a listed global-name");
	q.global_name = "com.apple.logdx";
	t_ok(sbpl_model_decide(m, &q) == 0, "mach-lookup: an unlisted name");
	q = (struct sbpl_query){.op = "signal", .target = SBPL_TARGET_SAME_SANDBOX};
	t_ok(sbpl_model_decide(m, &q) == 1, "signal: same-sandbox");
	q.target = SBPL_TARGET_OTHER;
	t_ok(sbpl_model_decide(m, &q) == 0, "signal: a process outside");
	q = (struct sbpl_query){.op = "network-outbound", .remote = {.unix_path = "/s/sock", .port = -1},
				.local = {.port = -1}};
	t_ok(sbpl_model_decide(m, &q) == 1, "unix-socket path-literal: that socket");
	q.remote.unix_path = "/s/other";
	t_ok(sbpl_model_decide(m, &q) == 0, "unix-socket path-literal: not another");
	sbpl_model_free(m);
	m = parse("(version 1)\n(deny default (with message \"t\"))\n(allow system-socket)\n(allow network*)\n"
		  "(deny system-socket (socket-domain AF_UNIX))\n(deny network* (remote unix-socket))\n"
		  "(deny network-bind (local unix-socket))\n");
	q = (struct sbpl_query){.op = "system-socket", .socket_domain = "AF_UNIX"};
	t_ok(sbpl_model_decide(m, &q) == 0, "socket-domain AF_UNIX: denied");
	q.socket_domain = "AF_INET";
	t_ok(sbpl_model_decide(m, &q) == 1, "socket-domain: AF_INET not matched");
	q = (struct sbpl_query){.op = "network-outbound", .remote = {.unix_path = "/any/sock", .port = -1},
				.local = {.port = -1}};
	t_ok(sbpl_model_decide(m, &q) == 0, "(remote unix-socket) without a path: every unix socket");
	q = (struct sbpl_query){.op = "network-bind", .local = {.unix_path = "/w/s", .port = -1},
				.remote = {.port = -1}};
	t_ok(sbpl_model_decide(m, &q) == 0, "(local unix-socket): a bind of any unix socket");
	q = (struct sbpl_query){.op = "network-outbound", .proto = SBPL_PROTO_TCP,
				.local = {.port = -1, .unbound = true}, .remote = {.ip = "203.0.113.1", .port = 80}};
	t_ok(sbpl_model_decide(m, &q) == 1, "unix-socket filters do not match an IP connection");
	sbpl_model_free(m);
}

static void errors(void)
{
	char big[1200 + 64];

	t_ok(perr(HEAD "(allow file-write* (bogus \"/x\"))", "line 3 col 20 (byte 46): unknown filter bogus"),
	     "an unknown filter, with its position");
	t_ok(perr(HEAD "(allow file-scribble (subpath \"/x\"))", "line 3 col 8 (byte 34): unknown operation"),
	     "an unknown operation, with its position");
	t_ok(perr(HEAD "(allow file-write* (subpath \"/x\")", "line 3 col 1 (byte 27): list not closed"),
	     "an unclosed list");
	t_ok(perr(HEAD "(allow file-write*))", "unbalanced ')'"), "an extra ')'");
	t_ok(perr("(deny default)", "a rule before (version 1)"), "no version first");
	t_ok(perr("(version 1)\n(allow file-read*)", "no (allow default) or (deny default)"),
	     "no default rule: refused, never assumed");
	t_ok(perr(HEAD "(allow network-outbound (remote ip \"10.0.0.1:80\"))", "host must be * or localhost"),
	     "a host other than * or localhost");
	t_ok(perr(HEAD "(allow file-read* (literal \"/a\\qb\"))", "unknown escape"), "an unknown escape");
	t_ok(perr(HEAD "(import \"bsd.sb\")", "unknown form import"), "an unmodelled form");
	t_ok(perr(HEAD "(allow file-read* (subpath \"rel\"))", "needs an absolute path"), "a relative path");
	t_ok(perr(HEAD "(allow signal (target others))", "only self and same-sandbox"), "an unmodelled target");
	snprintf(big, sizeof(big), HEAD "(allow file-read* (literal \"/%01100d\"))", 0);
	t_ok(perr(big, "string literal over 1025 bytes"), "a literal over 1025 bytes");
}

/* Every prefix of a profile is parsed or refused with a position: the
 * reader never reads past the text or crashes (run under ASan too). */
static void prefixes(void)
{
	static const char text[] = HEAD "(allow file-write* (require-all (subpath \"/w\")\n"
		"  (require-not (regex #\"^/w/\\.git(/|$)\"))))\n"
		"(deny network* (remote ip \"localhost:*\") (with message \"t \\\" q\"))\n"
		"; a comment (\n(allow mach-lookup (global-name \"a\"))\n";
	char *buf, err[SBPL_ERR_MAX];
	struct sbpl_model *m;
	size_t n, bad = 0, whole = 0;

	for (n = 0; n < sizeof(text); n++) {
		int rc;

		/* exactly n + 1 bytes: a read past the end is ASan's to see */
		if (!(buf = malloc(n + 1)))
			abort();
		memcpy(buf, text, n);
		buf[n] = '\0';
		rc = sbpl_model_parse(buf, NULL, 0, &m, err);
		free(buf);
		if (rc == 0) {
			whole += n == sizeof(text) - 1;
			sbpl_model_free(m);
		} else if (rc != -22 || !strstr(err, "(byte ")) {
			bad++;
		}
	}
	t_ok(bad == 0 && whole == 1, "every prefix of a profile: read whole, or refused with a position");
}

/* A volume that folds names (MODEL.md): the operation is decided on the
 * caller's spelling and on the stored spelling of what exists, allowed
 * when either is; a byte-for-byte literal then protects nothing from a
 * case variant, and a regex over every spelling does. */
static void folding(void)
{
	static const char *const exists[] = {"/w", "/w/.git"};
	struct sbpl_model *lit = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				       "(deny file-write* (literal \"/w/.git/hooks\") (subpath \"/w/.git/hooks\"))\n");
	struct sbpl_model *re = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				      "(deny file-write* (regex #\"^/w/\\.[Gg][Ii][Tt]/[Hh][Oo][Oo][Kk][Ss](/.*)?$\"))\n");
	struct sbpl_model *only_stored = parse(HEAD "(allow file-write* (literal \"/w/.GIT/x\"))\n");
	struct sbpl_query q = {.op = "file-write-create", .path = "/w/.GIT/HOOKS",
			       .fs_fold = NAMEFOLD_CASE, .fs_names = exists, .n_fs_names = 2};

	t_ok(lit && sbpl_model_decide(lit, &q) == 1,
	     "folding: a case variant of an absent protected name escapes a literal deny");
	t_ok(re && sbpl_model_decide(re, &q) == 0, "folding: a regex over every spelling denies it");
	q.fs_fold = 0;
	t_ok(lit && sbpl_model_decide(lit, &q) == 1 && FS(lit, "file-write-create", "/w/.git/hooks") == 0,
	     "bytes: the literal denies only its own spelling");
	q.path = "/w/.git/x";
	t_ok(only_stored && sbpl_model_decide(only_stored, &q) == 0,
	     "bytes: a rule on another spelling does not apply");
	q.fs_fold = NAMEFOLD_CASE;
	t_ok(only_stored && sbpl_model_decide(only_stored, &q) == 0,
	     "folding: what does not exist keeps the caller's spelling only");
	{
		static const char *const stored[] = {"/w/.GIT"};
		struct sbpl_query s2 = {.op = "file-write-create", .path = "/w/.git/x",
					.fs_fold = NAMEFOLD_CASE, .fs_names = stored, .n_fs_names = 1};

		t_ok(only_stored && sbpl_model_decide(only_stored, &s2) == 1,
		     "folding: an existing name is also handed over as stored (/w/.GIT)");
		s2.fs_fold = NAMEFOLD_NORM;
		t_ok(only_stored && sbpl_model_decide(only_stored, &s2) == 0,
		     "normalization only: .git and .GIT are two names");
	}
	sbpl_model_free(lit);
	sbpl_model_free(re);
	sbpl_model_free(only_stored);
}

/* A filter that does not apply to the query (a network filter and a file
 * write): read both ways, allowed when either reading allows (MODEL.md). */
static void not_applying(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				     "(deny file-write* (require-not (remote ip \"*:*\")))\n");
	struct sbpl_model *n = parse(HEAD "(allow file-write* (require-not (remote ip \"*:*\")))\n");
	struct sbpl_model *d = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				     "(deny file-write* (subpath \"/w/x\"))\n");

	t_ok(m && FS(m, "file-write-data", "/w/f") == 1,
	     "require-not over a filter that does not apply: a deny that only one reading "
	     "applies is not relied on (allowed)");
	t_ok(n && FS(n, "file-write-data", "/w/f") == 1,
	     "...and an allow that one reading applies is taken (allowed)");
	t_ok(d && FS(d, "file-write-data", "/w/x/f") == 0,
	     "filters that apply are read as before (denied)");
	sbpl_model_free(m);
	sbpl_model_free(n);
	sbpl_model_free(d);
}

/* /Users/x and /System/Volumes/Data/Users/x are one file (firmlinks). */
static void firmlinks(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-write* (subpath \"/System/Volumes/Data/Users/u\"))\n"
				     "(deny file-write* (subpath \"/Users/u/.git\"))\n");
	struct sbpl_model *r = parse(HEAD "(allow file-write* (subpath \"/System/Volumes/Data/Users/u\"))\n"
				     "(deny file-write* (regex #\"^(/System/Volumes/Data)?/Users/u/\\.git(/.*)?$\"))\n");

	t_ok(m && FS(m, "file-write-create", "/System/Volumes/Data/Users/u/.git/x") == 1 &&
	     FS(m, "file-write-create", "/Users/u/.git/x") == 1,
	     "firmlinks: a deny on one spelling leaves the other (allowed either way)");
	t_ok(r && FS(r, "file-write-create", "/System/Volumes/Data/Users/u/.git/x") == 0 &&
	     FS(r, "file-write-create", "/Users/u/.git/x") == 0,
	     "firmlinks: a deny on both spellings holds");
	t_ok(r && FS(r, "file-write-create", "/Users/u/f") == 1,
	     "firmlinks: the allow on the data volume's spelling reaches /Users too");
	sbpl_model_free(m);
	sbpl_model_free(r);
}

/* Two paths: every reading, allowed when one allows (MODEL.md). */
static void moves(void)
{
	struct sbpl_model *m = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				     "(deny file-write* (subpath \"/w/p\"))\n"
				     "(deny file-clone (subpath \"/w/secret\"))\n");
	struct sbpl_model *all = parse(HEAD "(allow file-write* (subpath \"/w\"))\n"
				       "(deny file-write* (subpath \"/w/p\"))\n(deny file-link)\n"
				       "(deny file-clone)\n");
	struct sbpl_query q = {.order = SBPL_ORDER_SPECIFIC_FIRST};

	t_ok(m && sbpl_model_decide_move(m, &q, SBPL_MOVE_RENAME, "/w/a", "/w/b") == 1 &&
	     sbpl_model_decide_move(m, &q, SBPL_MOVE_RENAME, "/w/a", "/w/p") == 0 &&
	     sbpl_model_decide_move(m, &q, SBPL_MOVE_RENAME, "/w/p", "/w/a") == 0,
	     "rename: unlink of the source and create of the target");
	t_ok(m && sbpl_model_decide_move(m, &q, SBPL_MOVE_EXCHANGE, "/w/p", "/w/a") == 0 &&
	     sbpl_model_decide_move(m, &q, SBPL_MOVE_EXCHANGE, "/w/a", "/w/b") == 1,
	     "exchange: denied when either path is");
	t_ok(m && sbpl_model_decide_move(m, &q, SBPL_MOVE_LINK, "/w/p/f", "/w/l") == 1,
	     "link: a deny on the existing file's writes does not stop a link of it (file-link "
	     "checked on the new name in one reading)");
	t_ok(m && sbpl_model_decide_move(m, &q, SBPL_MOVE_CLONE, "/w/secret/k", "/w/c") == 1,
	     "clone: a file-clone deny on the source is not relied on (checked on the new name "
	     "in one reading)");
	t_ok(all && sbpl_model_decide_move(all, &q, SBPL_MOVE_LINK, "/w/p/f", "/w/l") == 0 &&
	     sbpl_model_decide_move(all, &q, SBPL_MOVE_CLONE, "/w/secret/k", "/w/c") == 0,
	     "a link or clone denied everywhere is denied in every reading");
	sbpl_model_free(m);
	sbpl_model_free(all);
}

int main(void)
{
	last_match();
	paths();
	canonical();
	logic();
	params();
	hierarchy();
	precedence();
	localhost();
	others();
	errors();
	prefixes();
	folding();
	not_applying();
	firmlinks();
	moves();
	return t_done();
}
