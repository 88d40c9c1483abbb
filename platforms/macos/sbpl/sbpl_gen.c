/* sbpl_gen.c - a request's Seatbelt profile (sbpl.h): parse (the request is
 * already parsed), plan (sbpl_plan.c), then write the text here.
 *
 * Shape of every profile, in this order, because Seatbelt lets the last
 * matching rule win: (deny default); the process, sysctl and mach-lookup
 * allowances; the read, device and write allowances; the network allowance
 * when the request allows it; then every deny: write denies, move-blocking
 * ancestors, hard links, deny_read, network deny, unix sockets.  No
 * (allow default) and no localhost or loopback filter is ever written
 * (platforms/macos/README.md gives the reason for each rule). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_gen_int.h"

/* Launchd services a shell and common tools look up, each for a reason;
 * anything else (launchservices, pasteboard, tccd, securityd...) stays
 * denied: a mach service is a door out of the sandbox. */
static const char *const mach_base[] = {
	"com.apple.system.opendirectoryd.libinfo",    /* getpwuid, getgrgid */
	"com.apple.system.opendirectoryd.membership", /* group membership */
	"com.apple.system.logger",                    /* asl, syslog(3) */
	"com.apple.logd",                             /* os_log */
	"com.apple.system.notification_center",       /* notify(3), libc */
	/* confstr(_CS_DARWIN_USER_TEMP_DIR / _CACHE_DIR): it hands back the
	 * user's own folders (making them when missing), nothing the
	 * command names */
	"com.apple.bsd.dirhelper",
	NULL,
};

/* Only with network allow: name resolution and TLS trust.  Under network
 * deny they stay closed, as mDNSResponder would resolve (and so send) a
 * name for the sandbox. */
static const char *const mach_network[] = {
	"com.apple.dnssd.service",
	"com.apple.SystemConfiguration.DNSConfiguration",
	"com.apple.SystemConfiguration.configd",
	"com.apple.trustd.agent",
	NULL,
};

/* include_platform_roots with restricted reads: what dyld, a shell and
 * the system's tools read (canonical spellings: /private/etc, never /etc). */
static const char *const platform_roots[] = {
	"/bin", "/sbin", "/usr", "/System", "/Library", "/private/etc",
	"/private/var/db/timezone",
	/* /bin/sh reads which shell it is from here */
	"/private/var/select",
	/* /usr/bin/git and the other Xcode shims (xcrun): the selected
	 * developer directory, and Xcode's own (the Command Line Tools are in
	 * /Library) */
	"/private/var/db/xcode_select_link", "/Applications/Xcode.app",
	NULL,
};

static void emit_param_filter(struct sbpl_gen *g, const char *kind, size_t param)
{
	sbpl_buf_addf(&g->b, "(%s (param ", kind);
	sbpl_buf_quoted(&g->b, g->pl->params[param].name);
	sbpl_buf_add(&g->b, "))");
}

/* The end of a deny rule: its message tag when there is one. */
void sbpl_gen_deny_end(struct sbpl_gen *g)
{
	if (g->pl->tag) {
		sbpl_buf_add(&g->b, " (with message ");
		sbpl_buf_quoted(&g->b, g->pl->tag);
		sbpl_buf_add(&g->b, ")");
	}
	sbpl_buf_add(&g->b, ")\n");
}

void sbpl_gen_names(struct sbpl_gen *g, const char *const names[])
{
	for (size_t i = 0; names[i]; i++) {
		sbpl_buf_add(&g->b, "\n  (global-name ");
		sbpl_buf_quoted(&g->b, names[i]);
		sbpl_buf_add(&g->b, ")");
	}
	sbpl_buf_add(&g->b, ")\n");
}

/* The readable set as filters: read roots, platform roots, writable
 * subpaths (a command reads what it writes). */
static void emit_read_filters(struct sbpl_gen *g)
{
	const struct sbpl_plan *pl = g->pl;

	for (size_t i = 0; i < pl->reads.n; i++) {
		sbpl_buf_add(&g->b, "\n  ");
		emit_param_filter(g, "subpath", pl->reads.v[i]);
	}
	for (size_t i = 0; pl->platform_roots && platform_roots[i]; i++) {
		sbpl_buf_add(&g->b, "\n  (subpath ");
		sbpl_buf_quoted(&g->b, platform_roots[i]);
		sbpl_buf_add(&g->b, ")");
	}
	for (size_t i = 0; i < pl->writes.n; i++) {
		sbpl_buf_add(&g->b, "\n  ");
		emit_param_filter(g, "subpath", pl->writes.v[i]);
	}
	sbpl_buf_add(&g->b, ")\n");
}

static void emit_header(struct sbpl_gen *g)
{
	sbpl_buf_add(&g->b,
		";; sandproof Seatbelt profile, generated from one request\n"
		";; (platforms/macos/README.md).  Every path is a parameter:\n"
		";; sandbox-exec -D NAME=VALUE, read here as (param \"NAME\").\n"
		";; Allows come first, denies last: the last matching rule wins.\n"
		"(version 1)\n(deny default");
	sbpl_gen_deny_end(g);
}

static void emit_process(struct sbpl_gen *g)
{
	sbpl_buf_add(&g->b,
		"\n;; processes: fork; exec only of what is readable; signals and\n"
		";; process information only within this sandbox\n"
		"(allow process-fork)\n");
	if (g->pl->read_all) {
		sbpl_buf_add(&g->b, "(allow process-exec)\n");
	} else {
		sbpl_buf_add(&g->b, "(allow process-exec");
		emit_read_filters(g);
	}
	sbpl_buf_add(&g->b,
		"(allow signal (target same-sandbox))\n"
		"(allow process-info* (target same-sandbox))\n"
		"\n;; launchd services: an allowlist, never a wildcard\n"
		"(allow mach-lookup");
	sbpl_gen_names(g, mach_base);
	sbpl_gen_everyday(g);
}

static void emit_reads(struct sbpl_gen *g)
{
	sbpl_buf_add(&g->b, "\n;; reads\n");
	if (g->pl->read_all) {
		sbpl_buf_add(&g->b, "(allow file-read* file-map-executable)\n");
	} else {
		sbpl_buf_add(&g->b, "(allow file-read* file-map-executable");
		emit_read_filters(g);
		/* Lookups through macOS's own top-level symlinks, and through
		 * every ancestor of a readable root (META_i). */
		sbpl_buf_add(&g->b,
			"(allow file-read-metadata (literal \"/\") (literal \"/private\")\n"
			"  (literal \"/etc\") (literal \"/tmp\") (literal \"/var\")");
		for (size_t i = 0; i < g->pl->metas.n; i++) {
			sbpl_buf_add(&g->b, "\n  ");
			emit_param_filter(g, "literal", g->pl->metas.v[i]);
		}
		sbpl_buf_add(&g->b, ")\n");
	}
	sbpl_buf_add(&g->b,
		"\n;; devices: data only (no create, unlink or rename of a node)\n"
		"(allow file-read* file-write-data\n"
		"  (literal \"/dev/null\") (literal \"/dev/zero\")\n"
		"  (literal \"/dev/tty\") (literal \"/dev/dtracehelper\"))\n"
		"(allow file-ioctl (literal \"/dev/tty\") (literal \"/dev/dtracehelper\"))\n"
		"(allow file-read* (literal \"/dev/random\") (literal \"/dev/urandom\"))\n"
		"(allow file-read-data file-write-data (subpath \"/dev/fd\"))\n"
		"(allow file-read-metadata (literal \"/dev\"))\n");
}

static void emit_writes(struct sbpl_gen *g)
{
	const struct sbpl_plan *pl = g->pl;

	if (pl->write_all) {
		sbpl_buf_add(&g->b, "\n;; writes: the filesystem is unrestricted\n"
			     "(allow file-write*)\n");
		return;
	}
	if (pl->writes.n == 0)
		return;
	sbpl_buf_add(&g->b, "\n;; writes: only beneath the write roots\n");
	if (pl->req->allow_temp)
		sbpl_buf_add(&g->b,
			";; and TEMP_DIR, the run's private temp directory, which the\n"
			";; backend exports to the command as TMPDIR\n");
	sbpl_buf_add(&g->b, "(allow file-write*");
	for (size_t i = 0; i < pl->writes.n; i++) {
		sbpl_buf_add(&g->b, "\n  ");
		emit_param_filter(g, "subpath", pl->writes.v[i]);
	}
	sbpl_buf_add(&g->b, ")\n");
}

static void emit_network_allow(struct sbpl_gen *g)
{
	if (g->pl->req->network != NET_ALLOW)
		return;
	sbpl_buf_add(&g->b,
		"\n;; network: allowed\n"
		"(allow network*)\n"
		"(allow system-socket)\n"
		"(allow mach-lookup");
	sbpl_gen_names(g, mach_network);
}

/* Every path of list, one deny rule each: ops, then filters of kinds,
 * then (a folding volume) the regex of every spelling of the path. */
static void emit_denies(struct sbpl_gen *g, const struct sbpl_ilist *l, const struct sbpl_ilist *fold,
			const char *ops, const char *const kinds[])
{
	for (size_t i = 0; i < l->n; i++) {
		sbpl_buf_addf(&g->b, "(deny %s", ops);
		for (size_t k = 0; kinds[k]; k++) {
			sbpl_buf_add(&g->b, " ");
			emit_param_filter(g, kinds[k], l->v[i]);
		}
		if (fold->v[i] != SIZE_MAX) {
			sbpl_buf_add(&g->b, "\n  ");
			emit_param_filter(g, "regex", fold->v[i]);
		}
		sbpl_gen_deny_end(g);
	}
}

/* With network allow: no unix socket bound at a denied path (its node
 * would be the path; whether binding also checks file-write-create is
 * not known). Under network deny, (deny network*) covers it. */
static void emit_bind_denies(struct sbpl_gen *g)
{
	const struct sbpl_plan *pl = g->pl;

	if (pl->req->network != NET_ALLOW || !pl->write_denies.n)
		return;
	sbpl_buf_add(&g->b,
		"\n;; no unix socket bound where a denied path is (its node would\n"
		";; be created there)\n");
	for (size_t i = 0; i < pl->write_denies.n; i++) {
		sbpl_buf_add(&g->b, "(deny network-bind (local unix-socket ");
		emit_param_filter(g, "subpath", pl->write_denies.v[i]);
		sbpl_buf_add(&g->b, ")");
		if (pl->write_denies_fold.v[i] != SIZE_MAX) {
			sbpl_buf_add(&g->b, "\n  (local unix-socket ");
			emit_param_filter(g, "path-regex", pl->write_denies_fold.v[i]);
			sbpl_buf_add(&g->b, ")");
		}
		sbpl_gen_deny_end(g);
	}
}

static void emit_fs_denies(struct sbpl_gen *g)
{
	static const char *const lit_sub[] = {"literal", "subpath", NULL};
	static const char *const lit[] = {"literal", NULL};
	static const char *const sub[] = {"subpath", NULL};
	const struct sbpl_plan *pl = g->pl;

	if (pl->write_denies.n)
		sbpl_buf_add(&g->b,
			"\n;; read-only subpaths, deny_write and protected metadata\n"
			";; names, present or not\n");
	/* file-write-data and file-read-data named beside their wildcards:
	 * the device allowances above name them, and where Seatbelt lets a
	 * rule naming the operation itself outrank a wildcard rule
	 * (MODEL.md), a deny naming only file-write* would not undo them
	 * (deny_write /dev/tty). */
	if (pl->write_denies.n && pl->fold)
		sbpl_buf_add(&g->b,
			";; on this volume a name has many spellings (case, Unicode\n"
			";; normalization): each deny also matches every one of them\n");
	emit_denies(g, &pl->write_denies, &pl->write_denies_fold, "file-write* file-write-data",
		    lit_sub);
	if (pl->ancestors.n)
		sbpl_buf_add(&g->b,
			"\n;; move-blocking: no ancestor of a denied path (up to its\n"
			";; writable root) may be renamed, removed or created, or the\n"
			";; path would move out from under its deny\n");
	emit_denies(g, &pl->ancestors, &pl->ancestors_fold, "file-write-unlink file-write-create",
		    lit);
	emit_bind_denies(g);
	sbpl_buf_add(&g->b,
		"\n;; hard links: none (a link made in a write root to a protected\n"
		";; file would be written through its writable name)\n"
		"(deny file-link");
	sbpl_gen_deny_end(g);
	sbpl_buf_add(&g->b,
		"\n;; clones: none (whether file-clone is checked against the source\n"
		";; or the new name is documented nowhere: a clone of a deny_read\n"
		";; file into a write root would reveal it; copyfile falls back to\n"
		";; copying)\n"
		"(deny file-clone");
	sbpl_gen_deny_end(g);
	if (pl->read_denies.n)
		sbpl_buf_add(&g->b,
			"\n;; deny_read: not read, not executed, not moved or cloned out\n");
	emit_denies(g, &pl->read_denies, &pl->read_denies_fold,
		    "file-read* file-read-data process-exec file-write-unlink file-clone", sub);
}

static void emit_network_denies(struct sbpl_gen *g)
{
	sbpl_gen_everyday_denies(g);
	if (g->pl->req->network == NET_DENY) {
		sbpl_buf_add(&g->b,
			"\n;; network: denied, with no exception at all: a localhost\n"
			";; filter would also match the host's own interface addresses\n"
			";; and an unbound socket's local endpoint\n"
			"(deny network*");
		sbpl_gen_deny_end(g);
	}
	if (!g->pl->req->block_unix_sockets)
		return;
	sbpl_buf_add(&g->b, "\n;; block_unix_sockets: no unix socket made, bound or reached\n"
		     "(deny system-socket (socket-domain AF_UNIX)");
	sbpl_gen_deny_end(g);
	sbpl_buf_add(&g->b, "(deny network* (remote unix-socket)");
	sbpl_gen_deny_end(g);
	sbpl_buf_add(&g->b, "(deny network* (local unix-socket)");
	sbpl_gen_deny_end(g);
}

/* Hand the plan's parameters over to out (the plan keeps none). */
static void take_params(struct sbpl_plan *pl, struct sbpl_profile *out)
{
	out->params = pl->params;
	out->n_params = pl->n_params;
	pl->params = NULL;
	pl->n_params = 0;
}

int sbpl_generate(const struct request *req, const struct sbpl_opts *opts,
		  struct sbpl_profile *out, char err[SBPL_ERR_MAX])
{
	static const struct sbpl_opts none;
	struct sbpl_plan pl;
	struct sbpl_gen g = {.pl = &pl};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = sbpl_plan_build(&pl, req, opts ? opts : &none, err);
	if (rc == 0) {
		emit_header(&g);
		emit_process(&g);
		emit_reads(&g);
		emit_writes(&g);
		emit_network_allow(&g);
		emit_fs_denies(&g);
		emit_network_denies(&g);
		rc = g.b.err ? sbpl_fail(err, g.b.err, "out of memory") : 0;
	}
	/* A profile Seatbelt would refuse or misread is a bug here: never
	 * handed out. */
	if (rc == 0) {
		char lint[SBPL_ERR_MAX];

		if (sbpl_lint(g.b.s, lint) != 0)
			rc = sbpl_fail(err, -EPROTO, "the generated profile fails the lint "
				       "(a bug of the generator): %s", lint);
	}
	if (rc == 0) {
		out->text = g.b.s;
		take_params(&pl, out);
	} else {
		sbpl_buf_free(&g.b);
	}
	sbpl_plan_free(&pl);
	return rc;
}

void sbpl_profile_free(struct sbpl_profile *p)
{
	if (!p)
		return;
	free(p->text);
	for (size_t i = 0; i < p->n_params; i++) {
		free(p->params[i].name);
		free(p->params[i].value);
	}
	free(p->params);
	memset(p, 0, sizeof(*p));
}
