/* test_sbpl_contract.c - the contract, asked of every generated profile.
 *
 *   test_sbpl_contract [--min N] [--fold norm|case] [--shard K/N] PATH...
 *
 * Every *.json under each PATH (a directory, or one file) is a request, as
 * sandproof-ref would read it.  Each one request_parse accepts has its
 * paths spelled as a macOS harness would give them (/tmp, /var and /etc
 * are /private/tmp, /private/var, /private/etc), gets a private temp
 * directory (beneath its runtime root when it has one: <parent>/<16
 * hex>/tmp, else a per-run /private/var/folders one) and its profile from
 * sbpl_generate; the model (sbpl_model.h) then answers the contract's
 * questions (docs/CONTRACT.md), each under both precedence readings
 * (MODEL.md): a profile must hold whichever reading Seatbelt has.
 *
 *   FS-1     no file-write-* operation outside the write roots and the
 *            temp directory (restricted filesystem);
 *   META-1/3 every protected name of every write root, present or absent:
 *            no create, write or unlink of it or beneath it (a rename is
 *            the unlink of its source and the create of its target);
 *   META-2   each ancestor of it, up to and including the write root: no
 *            unlink (renamed away) and no create (renamed into place);
 *            no hard link (file-link) of it or made in the write root (it
 *            would be written through its new name);
 *   FS-2     read_only_subpaths and deny_write likewise (ancestors: within
 *            the write root that holds them);
 *   FS-3     deny_read: no read of its content (file-read-data of it,
 *            read-data, read-metadata, exec and clone beneath it), no unlink of it
 *            or of an ancestor within a write root (moved out from under
 *            its deny);
 *   NET-1    network deny: no outbound, inbound or bind, TCP or UDP, to or
 *            from loopback, TEST-NET, the host's interface addresses
 *            (fixtures 192.0.2.10, 2001:db8::10), bound or unbound;
 *   NET-4    block_unix_sockets: no AF_UNIX socket, connect or bind;
 *   controls writes inside each write root and the temp directory are
 *            allowed, and with network allow a connection is: a profile
 *            that denies everything fails.
 * With --fold the volume folds names (namefold.h: norm, or case and
 * norm): the profile is generated for it (sbpl_opts.name_fold), the model
 * decides on that file system (sbpl_query.fs_fold: the caller's spelling
 * or the stored one, whichever is allowed), and every question about a
 * protected name, read-only subpath, deny_write or deny_read path and each
 * of their ancestors is asked again of every other spelling of it
 * (sbpl_variants.h), with the path absent and present.
 * A request the generator refuses is counted and its reason shown (a
 * refusal runs nothing: fail closed, not a violation).  At least N (default
 * 1) distinct requests must get a profile, so an empty recording fails. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "namefold.h"
#include "sandproof/request.h"
#include "sbpl.h"
#include "sbpl_model.h"
#include "sbpl_variants.h"
#include "t.h"

#define HOME "/Users/sandproof"
#define MAX_SHOWN 12

static const char *const ifaddrs[] = {"192.0.2.10", "2001:db8::10"};
static const char *const write_ops[] = {
	"file-write-data", "file-write-create", "file-write-unlink", "file-write-mode",
	"file-write-owner", "file-write-xattr", "file-write-flags", "file-write-times",
	"file-write-setugid", NULL,
};

/* One request's check. */
struct chk {
	const char *name;
	const struct sbpl_profile *p;
	struct sbpl_model *m;
	long asked, failed;
};

static long total_asked, total_controls, total_variants;

/* --fold: the volume's folding and its index (NULL: names are bytes). */
static unsigned fold;
static struct namefold_index *fold_ix;

/* The paths that exist, as stored, for the model's folding file system:
 * the write roots and the temp directory, and while a question about a
 * present path is asked, that path and its ancestors. */
#define FS_MAX 64
static const char *fs_names[FS_MAX];
static size_t fs_base, fs_n;

/* The line of the profile at byte pos, for a failure message. */
static void rule_text(const char *text, long pos, char *buf, size_t len)
{
	const char *s, *e;
	long line = 1;

	if (pos < 0) {
		snprintf(buf, len, "no rule decided");
		return;
	}
	for (s = text; s < text + pos; s++)
		line += *s == '\n';
	e = strchr(text + pos, '\n');
	snprintf(buf, len, "line %ld: %.*s", line, (int)(e ? e - (text + pos) : 80),
		 text + pos);
}

/* Ask q under both readings; each must answer want (1 allow, 0 deny). */
__attribute__((format(printf, 4, 5)))
static void ask(struct chk *c, struct sbpl_query *q, int want, const char *fmt, ...)
{
	static const enum sbpl_order orders[] = {SBPL_ORDER_SPECIFIC_FIRST, SBPL_ORDER_FLAT};
	static const char *const oname[] = {"specific-first", "flat"};
	char what[512], rule[256];
	va_list ap;
	long pos;

	for (size_t k = 0; k < 2; k++) {
		int got;

		q->order = orders[k];
		got = sbpl_model_decide_why(c->m, q, &pos);
		c->asked++;
		if (got == want)
			continue;
		if (c->failed++ >= MAX_SHOWN)
			continue;
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		rule_text(c->p->text, pos, rule, sizeof(rule));
		printf("# %s: %s: want %s, the model says %s (%s reading; %s)\n", c->name, what,
		       want ? "allow" : "deny", got == 1 ? "allow" : got == 0 ? "deny" : "an error",
		       oname[k], rule);
	}
}

static void ask_fs(struct chk *c, const char *op, const char *path, int want, const char *why)
{
	struct sbpl_query q = {.op = op, .path = path, .fs_fold = fold, .fs_names = fs_names,
			       .n_fs_names = fs_n};

	ask(c, &q, want, "%s %s (%s%s)", op, path, why,
	    !fold ? "" : fs_n > fs_base ? "; present, on a folding volume"
					 : "; absent, on a folding volume");
}

/* Only the base paths exist again (the ones fs_present added go). */
static void fs_absent(void)
{
	while (fs_n > fs_base)
		free((char *)fs_names[--fs_n]);
}

/* p and its ancestors (but "/") exist, spelled as p spells them, for the
 * next questions. */
static void fs_present(const char *p)
{
	char *a = strdup(p), *slash;

	fs_absent();
	while (a && *a && strcmp(a, "/") && fs_n < FS_MAX) {
		fs_names[fs_n++] = strdup(a);
		slash = strrchr(a, '/');
		*(slash == a ? slash + 1 : slash) = '\0';
	}
	free(a);
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s = malloc(la + strlen(b) + 2);

	if (!s)
		abort();
	sprintf(s, "%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
	return s;
}

static bool beneath(const char *root, const char *p)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return true;
	return !strncmp(root, p, n) && (!p[n] || p[n] == '/');
}

/* ---- the request as a macOS harness spells it --------------------------- */

static void canon(char **s)
{
	static const char *const links[] = {"/tmp", "/var", "/etc", NULL};

	for (size_t k = 0; *s && links[k]; k++) {
		size_t n = strlen(links[k]);

		if (!strncmp(*s, links[k], n) && ((*s)[n] == '/' || !(*s)[n])) {
			char *t = malloc(strlen(*s) + 9);

			if (!t)
				abort();
			sprintf(t, "/private%s", *s);
			free(*s);
			*s = t;
			return;
		}
	}
}

static void canon_strv(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		canon(&sv->v[i]);
}

static void canon_request(struct request *r)
{
	canon(&r->cwd);
	canon(&r->runtime_parent);
	canon_strv(&r->read_roots);
	canon_strv(&r->deny_read);
	canon_strv(&r->deny_write);
	for (size_t i = 0; i < r->n_write_roots; i++) {
		canon(&r->write_roots[i].root);
		canon_strv(&r->write_roots[i].read_only_subpaths);
	}
}

/* ---- the questions -------------------------------------------------------- */

struct ctx {
	const struct request *r;
	const char *temp; /* the temp directory, NULL: none */
};

static bool writable(const struct ctx *x, const char *p)
{
	for (size_t i = 0; i < x->r->n_write_roots; i++)
		if (beneath(x->r->write_roots[i].root, p))
			return true;
	return x->temp && beneath(x->temp, p);
}

static void ask_writes(struct chk *c, const struct ctx *x, const char *p)
{
	if (writable(x, p))
		return;
	for (size_t o = 0; write_ops[o]; o++)
		ask_fs(c, write_ops[o], p, 0, "outside the write roots, FS-1");
}

/* FS-1: every write operation on paths outside the writable set: fixed
 * ones, and around each write root its parent, a sibling in it, and a
 * sibling sharing the root's name as a prefix (/a/bc beside /a/b). */
static void q_outside(struct chk *c, const struct ctx *x)
{
	static const char *const fixed[] = {
		"/", "/Users/sandproof/.ssh/authorized_keys", "/usr/local/bin/x",
		"/private/tmp/sandproof-outside", "/private/var/tmp/x",
		"/Library/LaunchAgents/x.plist", "/dev/disk0", "/private/etc/hosts", NULL};

	for (size_t k = 0; fixed[k]; k++)
		ask_writes(c, x, fixed[k]);
	for (size_t i = 0; i < x->r->n_write_roots; i++) {
		const char *root = x->r->write_roots[i].root;
		char *parent = strdup(root), *slash, *sib, *pre = malloc(strlen(root) + 2);

		if (!parent || !pre)
			abort();
		slash = strrchr(parent, '/');
		*(slash == parent ? slash + 1 : slash) = '\0';
		sib = join(parent, "sandproof-sibling");
		sprintf(pre, "%sx", root);
		ask_writes(c, x, parent);
		ask_writes(c, x, sib);
		ask_writes(c, x, pre);
		free(parent);
		free(sib);
		free(pre);
	}
}

typedef void (*question)(struct chk *c, const char *spelling, const char *why);

/* Ask q of p, and on a folding volume of every other spelling of p too,
 * with p absent and with p (and its ancestors) present as p spells them. */
static void each_spelling(struct chk *c, const char *p, question q, const char *why)
{
	struct variants v;

	q(c, p, why);
	if (!fold || variants_of(fold_ix, p, &v) < 0)
		return;
	total_variants += (long)v.n;
	for (int present = 0; present < 2; present++) {
		if (present)
			fs_present(p);
		for (size_t i = 0; i < v.n; i++)
			q(c, v.v[i], why);
		fs_absent();
	}
	variants_free(&v);
}

/* The write root of the denied path being asked about (NULL: none),
 * where a file of the command's own stands for the other end of a move. */
static const char *cur_root;

/* An operation on two paths (sbpl_model_decide_move), both readings. */
static void ask_move(struct chk *c, enum sbpl_move kind, const char *from, const char *to,
		     int want, const char *why)
{
	static const enum sbpl_order orders[] = {SBPL_ORDER_SPECIFIC_FIRST, SBPL_ORDER_FLAT};
	static const char *const kname[] = {"rename", "exchange", "link", "clone"};

	for (size_t k = 0; k < 2; k++) {
		struct sbpl_query q = {.order = orders[k], .fs_fold = fold, .fs_names = fs_names,
				       .n_fs_names = fs_n};
		int got = sbpl_model_decide_move(c->m, &q, kind, from, to);

		c->asked++;
		if (got == want || c->failed++ >= MAX_SHOWN)
			continue;
		printf("# %s: %s %s -> %s (%s): want %s, the model says %s (%s reading)\n", c->name,
		       kname[kind], from, to, why, want ? "allow" : "deny",
		       got == 1 ? "allow" : got == 0 ? "deny" : "an error", k ? "flat" : "specific-first");
	}
}

/* Binding a unix socket at p: the socket's node would be p. */
static void ask_bind(struct chk *c, const char *p, const char *why)
{
	struct sbpl_query q = {.op = "network-bind", .remote = {.port = -1},
			       .local = {.unix_path = p, .port = -1}};

	ask(c, &q, 0, "bind a unix socket at %s (%s)", p, why);
}

/* No create, data, unlink or mode change of it or beneath it; nothing
 * renamed, exchanged or hard-linked into its place; no unix socket bound
 * at it; no hard link of it made in the write root. */
static void q_denied_one(struct chk *c, const char *p, const char *why)
{
	static const char *const ops[] = {"file-write-create", "file-write-data",
					  "file-write-unlink", "file-write-mode", NULL};
	char *child = join(p, "sandproof-child");

	for (size_t o = 0; ops[o]; o++) {
		ask_fs(c, ops[o], p, 0, why);
		ask_fs(c, ops[o], child, 0, why);
	}
	ask_bind(c, p, why);
	if (cur_root) {
		char *src = join(cur_root, "sandproof-src"), *lnk = join(cur_root, "sandproof-link");

		ask_move(c, SBPL_MOVE_RENAME, src, p, 0, why);
		ask_move(c, SBPL_MOVE_EXCHANGE, p, src, 0, why);
		ask_move(c, SBPL_MOVE_LINK, src, p, 0, why);
		ask_move(c, SBPL_MOVE_LINK, p, lnk, 0, why);
		free(src);
		free(lnk);
	}
	free(child);
}

/* An ancestor: not renamed away, nor renamed into place. */
static void q_ancestor_one(struct chk *c, const char *a, const char *why)
{
	(void)why;
	ask_fs(c, "file-write-unlink", a, 0, "an ancestor: renamed away, META-2");
	ask_fs(c, "file-write-create", a, 0, "an ancestor: renamed into place, META-2");
	if (cur_root && strcmp(a, cur_root)) {
		char *away = join(cur_root, "sandproof-away"), *src = join(cur_root, "sandproof-src");

		ask_move(c, SBPL_MOVE_RENAME, a, away, 0, "an ancestor renamed away, META-2");
		ask_move(c, SBPL_MOVE_RENAME, src, a, 0, "an ancestor renamed into place, META-2");
		free(away);
		free(src);
	}
}

/* Deny create, data and unlink of p and beneath it; unlink and create of
 * each ancestor from its parent up to and including root (NULL: none). */
static void q_denied_path(struct chk *c, const char *p, const char *root, const char *why)
{
	char *a = strdup(p), *slash;

	cur_root = root;
	each_spelling(c, p, q_denied_one, why);
	while (root && a && strcmp(a, root) && beneath(root, a)) {
		slash = strrchr(a, '/');
		*(slash == a ? slash + 1 : slash) = '\0';
		each_spelling(c, a, q_ancestor_one, why);
	}
	free(a);
}

/* The write root holding p, NULL: none. */
static const char *root_of(const struct request *r, const char *p)
{
	const char *best = NULL;

	for (size_t i = 0; i < r->n_write_roots; i++)
		if (beneath(r->write_roots[i].root, p) &&
		    (!best || strlen(r->write_roots[i].root) > strlen(best)))
			best = r->write_roots[i].root;
	return best;
}

static void q_protected(struct chk *c, const struct request *r)
{
	for (size_t i = 0; i < r->n_write_roots; i++) {
		const struct write_root *w = &r->write_roots[i];
		char *link = join(w->root, "sandproof-link");

		/* A hard link made in the write root to a protected or
		 * read-only file would be written through its new name (on
		 * Linux: EXDEV across the binds); no source read says which
		 * end Seatbelt's file-link filter sees, so both are asked. */
		if (w->protected_names.n || w->read_only_subpaths.n || r->deny_write.n) {
			ask_fs(c, "file-link", link, 0, "a hard link's new name, META-1");
			for (size_t k = 0; k < w->protected_names.n; k++) {
				char *p = join(w->root, w->protected_names.v[k]);

				ask_fs(c, "file-link", p, 0, "a hard link to a protected name, META-1");
				free(p);
			}
		}
		free(link);

		for (size_t k = 0; k < w->protected_names.n; k++) {
			char *p = join(w->root, w->protected_names.v[k]);

			q_denied_path(c, p, w->root, "a protected name, META-1/3");
			free(p);
		}
		for (size_t k = 0; k < w->read_only_subpaths.n; k++)
			q_denied_path(c, w->read_only_subpaths.v[k], w->root,
				      "a read-only subpath, FS-2");
	}
	for (size_t k = 0; k < r->deny_write.n; k++)
		q_denied_path(c, r->deny_write.v[k], root_of(r, r->deny_write.v[k]),
			      "deny_write, FS-2");
}

/* deny_read: no read of it or beneath it, no exec or clone beneath it,
 * not moved out. */
static void q_deny_read_one(struct chk *c, const char *d, const char *why)
{
	char *child = join(d, "sandproof-child");

	if (cur_root) {
		char *copy = join(cur_root, "sandproof-copy");

		ask_move(c, SBPL_MOVE_CLONE, child, copy, 0, "cloned out from beneath deny_read, FS-3");
		ask_move(c, SBPL_MOVE_RENAME, d, copy, 0, "deny_read renamed out, FS-3");
		free(copy);
	}

	(void)why;
	ask_fs(c, "file-read-data", d, 0, "deny_read, FS-3");
	ask_fs(c, "file-read-data", child, 0, "beneath deny_read, FS-3");
	ask_fs(c, "file-read-metadata", child, 0, "beneath deny_read, FS-3");
	ask_fs(c, "process-exec", child, 0, "beneath deny_read, FS-3");
	ask_fs(c, "file-clone", child, 0, "cloned out from beneath deny_read, FS-3");
	ask_fs(c, "file-write-unlink", d, 0, "deny_read moved out, FS-3");
	free(child);
}

static void q_deny_read_ancestor(struct chk *c, const char *a, const char *why)
{
	(void)why;
	ask_fs(c, "file-write-unlink", a, 0, "an ancestor of deny_read, FS-3");
}

static void q_deny_read(struct chk *c, const struct request *r)
{
	for (size_t k = 0; k < r->deny_read.n; k++) {
		const char *d = r->deny_read.v[k], *root = root_of(r, d);
		char *a = strdup(d), *slash;

		cur_root = root ? root : r->n_write_roots ? r->write_roots[0].root : NULL;
		each_spelling(c, d, q_deny_read_one, NULL);
		while (root && a && strcmp(a, root) && beneath(root, a)) {
			slash = strrchr(a, '/');
			*(slash == a ? slash + 1 : slash) = '\0';
			each_spelling(c, a, q_deny_read_ancestor, NULL);
		}
		free(a);
	}
}

static void ask_net(struct chk *c, const char *op, enum sbpl_proto pr, const char *lip, int lport,
		    const char *rip, int rport, int want, const char *why)
{
	struct sbpl_query q = {.op = op, .proto = pr, .ifaddrs = ifaddrs, .n_ifaddrs = 2,
			       .local = {.ip = lip, .port = lip ? lport : -1, .unbound = !lip},
			       .remote = {.ip = rip, .port = rip ? rport : -1}};

	ask(c, &q, want, "%s %s %s:%d -> %s:%d (%s)", op, pr == SBPL_PROTO_TCP ? "tcp" : "udp",
	    lip ? lip : "(unbound)", lport, rip ? rip : "-", rport, why);
}

static void q_network(struct chk *c, const struct request *r)
{
	static const char *const addrs[] = {"127.0.0.1", "::1", "192.0.2.1", "198.51.100.1",
					    "203.0.113.1", "192.0.2.10", "2001:db8::10", NULL};
	static const char *const any[] = {"0.0.0.0", "::"};

	if (r->network == NET_ALLOW) {
		ask_net(c, "network-outbound", SBPL_PROTO_TCP, NULL, 0, "203.0.113.1", 443, 1,
			"network allow: the positive control");
		return;
	}
	for (size_t k = 0; addrs[k]; k++) {
		bool v6 = strchr(addrs[k], ':') != NULL;

		for (enum sbpl_proto pr = SBPL_PROTO_TCP; pr <= SBPL_PROTO_UDP; pr++) {
			ask_net(c, "network-outbound", pr, NULL, 0, addrs[k], 80, 0, "NET-1");
			ask_net(c, "network-outbound", pr, addrs[k], 40000, addrs[k], 53, 0, "NET-1");
			ask_net(c, "network-bind", pr, addrs[k], 8080, NULL, 0, 0, "NET-1");
			ask_net(c, "network-bind", pr, any[v6], 8080, NULL, 0, 0, "NET-1");
			ask_net(c, "network-inbound", pr, addrs[k], 8080, addrs[k], 40000, 0, "NET-1");
		}
	}
}

static void q_unix(struct chk *c, const struct request *r)
{
	struct sbpl_query q = {.op = "system-socket", .socket_domain = "AF_UNIX"};
	const char *in = r->n_write_roots ? r->write_roots[0].root : "/private/tmp";
	char *sock = join(in, "sandproof.sock");

	if (!r->block_unix_sockets) {
		free(sock);
		return;
	}
	ask(c, &q, 0, "socket(AF_UNIX) (NET-4)");
	q = (struct sbpl_query){.op = "network-outbound", .local = {.port = -1},
				.remote = {.unix_path = "/private/var/run/mDNSResponder", .port = -1}};
	ask(c, &q, 0, "connect to a host unix socket (NET-4)");
	q.remote.unix_path = sock;
	ask(c, &q, 0, "connect to %s (NET-4)", sock);
	q = (struct sbpl_query){.op = "network-bind", .remote = {.port = -1},
				.local = {.unix_path = sock, .port = -1}};
	ask(c, &q, 0, "bind %s (NET-4)", sock);
	free(sock);
}

static void ask_other(struct chk *c, struct sbpl_query *q, int want, const char *what)
{
	ask(c, q, want, "%s (%s)", q->op, what);
}

/* Everyday allowances stay narrow (issue 33, section 2): no sysctl that
 * shows another process's arguments, environment or entry (PROC-9), and
 * one that libc reads is allowed (the control); no setting of the host's
 * ports (PRIV); no other terminal of the host read or written, a
 * terminal made in the sandbox is (the control); the preferences daemon
 * never when it could read what the file rules hide (FS-3, restricted
 * reads), and granted with unrestricted reads and no deny_read (the
 * control). */
static void q_everyday(struct chk *c, const struct request *r)
{
	static const char *const hidden[] = {"kern.procargs2", "kern.procargs", "kern.proc.all",
					     "kern.proc.pid.1", "kern.proc.pgrp.1", NULL};
	static const char *const prefs[] = {"/Library/Preferences", HOME "/Library/Preferences",
		HOME "/Library/Containers/a/Data/Library/Preferences",
		"/private/var/root/Library/Preferences", NULL};
	static const char *const pty[] = {"com.apple.sandbox.pty"};
	struct sbpl_query q = {.op = "sysctl-read"};
	bool read_all = r->fs_kind == FS_UNRESTRICTED, prefs_hidden = false;

	for (size_t k = 0; hidden[k]; k++) {
		q.sysctl_name = hidden[k];
		ask(c, &q, 0, "sysctl-read %s (another process's arguments or entry, PROC-9)", hidden[k]);
	}
	q.sysctl_name = "hw.ncpu";
	ask(c, &q, 1, "sysctl-read hw.ncpu (what libc reads: the control)");
	q = (struct sbpl_query){.op = "mach-host-special-port-set"};
	ask_other(c, &q, 0, "setting a host special port, PRIV");
	q.op = "mach-host-exception-port-set";
	ask_other(c, &q, 0, "setting a host exception port, PRIV");
	q = (struct sbpl_query){.op = "file-read-data", .path = "/dev/ttys003"};
	ask(c, &q, 0, "file-read-data /dev/ttys003 (another terminal of the host)");
	q.op = "file-write-data";
	ask(c, &q, 0, "file-write-data /dev/ttys003 (another terminal of the host)");
	q.extensions = pty, q.n_extensions = 1;
	ask(c, &q, 1, "file-write-data /dev/ttys003 (a terminal the sandbox made: the control)");
	for (size_t i = 0; i < r->read_roots.n; i++)
		read_all = read_all || !strcmp(r->read_roots.v[i], "/");
	for (size_t k = 0; k < r->deny_read.n; k++) {
		const char *d = r->deny_read.v[k];
		char home[512] = "", *slash;

		for (size_t i = 0; prefs[i]; i++)
			prefs_hidden = prefs_hidden || beneath(d, prefs[i]) || beneath(prefs[i], d);
		/* the home it lies in, whoever's: /Users/<u>/Library/Preferences */
		if (!strncmp(d, "/Users/", 7) && strlen(d) < 400) {
			snprintf(home, sizeof(home), "%s", d);
			if ((slash = strchr(home + 7, '/')))
				*slash = '\0';
			strcat(home, "/Library/Preferences");
			prefs_hidden = prefs_hidden || beneath(d, home) || beneath(home, d);
		}
	}
	/* what everyday commands need is there (the controls) */
	q = (struct sbpl_query){.op = "ipc-posix-sem", .ipc_name = "/mp-sandproof"};
	ask_other(c, &q, 1, "a POSIX semaphore: Python's multiprocessing");
	q = (struct sbpl_query){.op = "pseudo-tty"};
	ask_other(c, &q, 1, "a pseudo-terminal: openpty");
	q = (struct sbpl_query){.op = "file-write-data", .path = "/dev/ptmx"};
	ask(c, &q, 1, "file-write-data /dev/ptmx (openpty)");
	q = (struct sbpl_query){.op = "mach-lookup", .global_name = "com.apple.bsd.dirhelper"};
	ask_other(c, &q, 1, "dirhelper: confstr's user folders");
	for (size_t i = 0; i < r->n_write_roots; i++) {
		char *a = strdup(r->write_roots[i].root), *slash;

		/* a lookup of the write root walks every ancestor of it */
		while (a && (slash = strrchr(a, '/')) && slash != a) {
			bool under_deny = false;

			*slash = '\0';
			for (size_t k = 0; k < r->deny_read.n; k++)
				under_deny = under_deny || beneath(r->deny_read.v[k], a);
			if (!under_deny) /* a deny_read hides it, and all beneath (FS-3) */
				ask_fs(c, "file-read-metadata", a, 1,
				       "an ancestor of a write root: its lookup");
		}
		free(a);
	}
	q = (struct sbpl_query){.op = "mach-lookup", .global_name = "com.apple.cfprefsd.agent"};
	if (!read_all || prefs_hidden)
		ask_other(c, &q, 0, "the preferences daemon: it would read what the file rules hide");
	else if (!r->deny_read.n)
		ask_other(c, &q, 1, "the preferences daemon, reads unrestricted: the control");
}

/* Whether the request itself denies writing p: beneath a read-only
 * subpath, deny_write, deny_read or a protected name. */
static bool denied_by_request(const struct request *r, const char *p)
{
	for (size_t k = 0; k < r->deny_write.n; k++)
		if (beneath(r->deny_write.v[k], p))
			return true;
	for (size_t k = 0; k < r->deny_read.n; k++)
		if (beneath(r->deny_read.v[k], p))
			return true;
	for (size_t i = 0; i < r->n_write_roots; i++) {
		const struct write_root *w = &r->write_roots[i];

		for (size_t k = 0; k < w->read_only_subpaths.n; k++)
			if (beneath(w->read_only_subpaths.v[k], p))
				return true;
		for (size_t k = 0; k < w->protected_names.n; k++) {
			char *q = join(w->root, w->protected_names.v[k]);
			bool hit = beneath(q, p);

			free(q);
			if (hit)
				return true;
		}
	}
	return false;
}

/* The positive controls: a fresh name in each write root and the temp
 * directory is writable, unless the request itself denies it. */
static void q_controls(struct chk *c, const struct ctx *x)
{
	size_t n = x->r->n_write_roots;

	for (size_t i = 0; i <= n; i++) {
		const char *dir = i < n ? x->r->write_roots[i].root : x->temp;
		char *p;

		if (!dir)
			continue;
		p = join(dir, "sandproof-control.txt");
		if ((i == n || root_of(x->r, p) == dir) && !denied_by_request(x->r, p)) {
			ask_fs(c, "file-write-create", p, 1, "positive control");
			ask_fs(c, "file-write-data", p, 1, "positive control");
			ask_fs(c, "file-write-unlink", p, 1, "positive control");
			ask_fs(c, "file-read-data", p, 1, "positive control");
			total_controls++;
		}
		free(p);
	}
}

/* ---- one request ---------------------------------------------------------- */

/* --shard K/N: of the distinct requests, in the order read, this run
 * checks those whose index is K modulo N (ctest runs the N shards side by
 * side; every shard reads and counts them all). */
static long shard_k, shard_n = 1;

struct tally {
	long files, refused_parse, refused_gen, profiled, distinct, checked;
	char **seen;
	size_t n_seen;
};

static bool seen_before(struct tally *t, const char *text)
{
	for (size_t k = 0; k < t->n_seen; k++)
		if (!strcmp(t->seen[k], text))
			return true;
	t->seen = realloc(t->seen, (t->n_seen + 1) * sizeof(*t->seen));
	if (!t->seen || !(t->seen[t->n_seen++] = strdup(text)))
		abort();
	return false;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (s = malloc((size_t)n + 1)) && fread(s, 1, (size_t)n, f) == (size_t)n) {
		s[n] = '\0';
		*len = (size_t)n;
	} else {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

static void check_profile(const char *name, const struct request *r, const char *temp,
			  const struct sbpl_profile *p)
{
	struct chk c = {.name = name, .p = p};
	struct ctx x = {r, temp};
	char err[SBPL_ERR_MAX];

	if (sbpl_model_parse(p->text, p->params, p->n_params, &c.m, err) < 0) {
		t_ok(0, "%s: the model reads the generated profile: %s", name, err);
		return;
	}
	/* What exists on the folding file system: the write roots and the
	 * temp directory, as the request spells them. */
	fs_n = 0;
	for (size_t i = 0; i < r->n_write_roots && fs_n < FS_MAX / 2; i++)
		fs_names[fs_n++] = r->write_roots[i].root;
	if (temp && fs_n < FS_MAX / 2)
		fs_names[fs_n++] = temp;
	fs_base = fs_n;
	if (r->fs_kind == FS_RESTRICTED) {
		q_outside(&c, &x);
		q_protected(&c, r);
		q_controls(&c, &x);
	}
	q_deny_read(&c, r);
	q_network(&c, r);
	q_unix(&c, r);
	q_everyday(&c, r);
	total_asked += c.asked;
	if (c.failed > MAX_SHOWN)
		printf("# %s: ... %ld more\n", name, c.failed - MAX_SHOWN);
	t_ok(c.failed == 0, "%s: %ld of %ld answers as the contract says", name,
	     c.asked - c.failed, c.asked);
	sbpl_model_free(c.m);
}

static void check_file(struct tally *t, const char *path)
{
	char err[REQUEST_ERR_MAX], gerr[SBPL_ERR_MAX], temp[4200];
	struct sbpl_profile p;
	struct request r;
	size_t len;
	char *text = slurp(path, &len);
	int rc;

	t->files++;
	if (!text || request_parse(text, len, &r, err) < 0) {
		t->refused_parse++;
		free(text);
		return;
	}
	canon_request(&r);
	if (r.has_runtime)
		snprintf(temp, sizeof(temp), "%s/0123456789abcdef/tmp", r.runtime_parent);
	else
		snprintf(temp, sizeof(temp), "/private/var/folders/sp/sandproof-run/T");
	struct sbpl_opts o = {.temp_dir = r.allow_temp ? temp : NULL, .message_tag = "sp-test",
			      .name_fold = fold};
	rc = sbpl_generate(&r, &o, &p, gerr);
	if (rc < 0) {
		t->refused_gen++;
		printf("# %s: the generator refuses it (fail closed): %s\n", path, gerr);
	} else {
		t->profiled++;
		if (!seen_before(t, text) && t->distinct++ % shard_n == shard_k) {
			t->checked++;
			check_profile(path, &r, o.temp_dir, &p);
		}
		sbpl_profile_free(&p);
	}
	request_free(&r);
	free(text);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void check_path(struct tally *t, const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n;

	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		check_file(t, path);
		return;
	}
	if ((n = scandir(path, &ents, NULL, by_name)) < 0) {
		t_ok(0, "%s: readable", path);
		return;
	}
	for (int k = 0; k < n; k++) {
		size_t l = strlen(ents[k]->d_name);

		if (l > 5 && !strcmp(ents[k]->d_name + l - 5, ".json")) {
			char *f = join(path, ents[k]->d_name);

			check_file(t, f);
			free(f);
		}
		free(ents[k]);
	}
	free(ents);
}

int main(int argc, char **argv)
{
	struct tally t = {0};
	long min = 1;
	int k = 1;

	for (; k + 1 < argc && argv[k][0] == '-'; k += 2) {
		if (!strcmp(argv[k], "--min")) {
			min = atol(argv[k + 1]);
		} else if (!strcmp(argv[k], "--fold") && !strcmp(argv[k + 1], "norm")) {
			fold = NAMEFOLD_NORM;
		} else if (!strcmp(argv[k], "--fold") && !strcmp(argv[k + 1], "case")) {
			fold = NAMEFOLD_CASE;
		} else if (!strcmp(argv[k], "--shard") &&
			   sscanf(argv[k + 1], "%ld/%ld", &shard_k, &shard_n) == 2 && shard_n > 0 &&
			   shard_k >= 0 && shard_k < shard_n) {
			continue;
		} else {
			k = argc;
			break;
		}
	}
	if (k >= argc) {
		fprintf(stderr, "usage: test_sbpl_contract [--min N] [--fold norm|case] [--shard K/N] "
			"PATH...\n");
		return 2;
	}
	if (fold && namefold_index_new(fold, &fold_ix) < 0)
		return 1;
	for (; k < argc; k++)
		check_path(&t, argv[k]);
	printf("# %ld files: %ld refused by request_parse, %ld by the generator, %ld profiles "
	       "(%ld distinct requests, %ld checked by shard %ld/%ld), %ld answers\n", t.files,
	       t.refused_parse, t.refused_gen, t.profiled, t.distinct, t.checked, shard_k, shard_n,
	       total_asked);
	t_ok(total_controls > 0, "positive controls were asked (%ld): a deny-everything profile fails",
	     total_controls);
	t_ok(t.distinct >= min && t.checked >= t.distinct / shard_n,
	     "at least %ld distinct requests got a profile (%ld), this shard's share checked (%ld)",
	     min, t.distinct, t.checked);
	if (fold)
		t_ok(total_variants > 0, "other spellings of the guarded names were asked (%ld)",
		     total_variants);
	namefold_index_free(fold_ix);
	for (size_t i = 0; i < t.n_seen; i++)
		free(t.seen[i]);
	free(t.seen);
	return t_done();
}
