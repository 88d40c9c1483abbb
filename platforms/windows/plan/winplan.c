/* winplan.c - request -> the Windows enforcement plan (winplan.h).
 *
 * The order of the checks is the order of the request's fields; every
 * field the plan cannot enforce is a refusal naming it (fail closed), never
 * an omission.  The ACEs: allows first (write roots, temp), then the denies
 * (winplan_deny.c); the backend applies them grouped by path, so the order
 * here is for the reader and for the ancestors a placeholder needs (always
 * listed before the paths beneath them). */
#include "winplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/request.h"
#include "winpath.h"
#include "winplan_int.h"

int wpb_refuse(struct wpb *b, const char *field, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(b->err, WINPLAN_ERR_MAX, "%s: ", field);

	va_start(ap, fmt);
	if (n >= 0 && n < WINPLAN_ERR_MAX)
		vsnprintf(b->err + n, WINPLAN_ERR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int wpb_add_ace(struct wpb *b, const char *path, enum winplan_effect effect, uint32_t mask,
		uint32_t inherit, enum winplan_absent absent, const char *clause,
		const char *why)
{
	struct winplan *p = b->p;
	struct winplan_ace *a;

	for (size_t i = 0; i < p->n_aces; i++) {
		a = &p->aces[i];
		if (a->effect == effect && a->mask == mask && a->inherit == inherit &&
		    winpath_equal(a->path, path))
			return 0;
	}
	if (p->n_aces == b->cap_aces) {
		size_t cap = b->cap_aces ? 2 * b->cap_aces : 16;
		void *v = realloc(p->aces, cap * sizeof(*p->aces));

		if (!v)
			return -ENOMEM;
		p->aces = v;
		b->cap_aces = cap;
	}
	a = &p->aces[p->n_aces];
	*a = (struct winplan_ace){.n_sids = b->n_sids, .effect = effect, .mask = mask,
				  .inherit = inherit, .absent = absent, .clause = clause,
				  .why = why};
	memcpy(a->sids, b->sids, sizeof(a->sids));
	a->path = strdup(path);
	if (!a->path)
		return -ENOMEM;
	p->n_aces++;
	return 0;
}

/* What the plan cannot express, refused by field (README.md, "Refusals"). */
static int check_expressible(struct wpb *b, const struct request *req,
			     const struct winplan_opts *o)
{
	if (req->fs_kind == FS_UNRESTRICTED) {
		if (req->n_write_roots || req->deny_write.n || req->deny_read.n)
			return wpb_refuse(b, "profile.filesystem.kind",
					  "\"unrestricted\" with write roots, deny_write or deny_read: "
					  "only a write-restricted token carries the capability SID a "
					  "deny ACE names; refused");
		if (req->network == NET_DENY)
			return wpb_refuse(b, "profile.network.mode",
					  "\"deny\" with an unrestricted filesystem: network deny runs "
					  "the command as the sandbox account, whose token is "
					  "write-restricted to the ACL plan; refused");
	}
	if (req->read_roots_stated)
		return wpb_refuse(b, "profile.filesystem.read_roots",
				  "Windows cannot confine reads to roots (a write-restricted token "
				  "checks its restricting SIDs for writes only); leave read_roots out");
	if (req->deny_read.n)
		return wpb_refuse(b, "profile.filesystem.deny_read",
				  "not enforceable: a write-restricted token checks the capability "
				  "SID for writes only, so a deny ACE for it does not stop a read");
	if (req->block_unix_sockets)
		return wpb_refuse(b, "profile.block_unix_sockets",
				  "WFP has no AF_UNIX layer and socket(AF_UNIX) cannot be made to "
				  "fail per SID on Windows; refused");
	/* LIM-2: the process bound is the job object's active-process limit
	 * (processes, not threads); nothing else has a job-object form here. */
	for (size_t i = 0; i < LIMIT_COUNT; i++)
		if (i != LIMIT_PIDS && req->limits.value[i])
			return wpb_refuse(b, "profile.limits", "%s: not in the Windows plan "
					  "(a job object bounds processes only here); refused",
					  limit_names[i]);
	if (req->fs_kind == FS_RESTRICTED && req->allow_temp && !o->temp_dir)
		return wpb_refuse(b, "profile.filesystem.allow_temp",
				  "the run's private temp directory is not known (a runtime root "
				  "provides one: profile.runtime); set allow_temp false or give a "
				  "runtime root");
	return 0;
}

/* The temp directory, cleaned into buf (winpath rules). */
static int clean_temp(struct wpb *b, const char *temp_dir, char *buf, size_t n)
{
	const char *why = "refused";

	if (strlen(temp_dir) >= n)
		return wpb_refuse(b, "temp_dir", "too long");
	memcpy(buf, temp_dir, strlen(temp_dir) + 1);
	if (winpath_clean(buf, &why) < 0)
		return wpb_refuse(b, "temp_dir (the run's private temp directory)", "%s: %s",
				  temp_dir, why);
	return 0;
}

/* Network deny: the command runs as the sandbox account, so a filter can
 * name a SID its token has enabled; the capability SID is granted too, so
 * the condition holds whether or not the filter engine's match right is a
 * write for the restricting SIDs (README.md, "Network deny").  No other
 * token holds either SID, so no other process matches. */
static int plan_filters(struct winplan *p, enum net_mode mode)
{
	static const char *const layers[] = {
		"FWPM_LAYER_ALE_AUTH_CONNECT_V4", "FWPM_LAYER_ALE_AUTH_CONNECT_V6",
		"FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V4", "FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V6",
	};
	static const char *const whys[] = {
		"no outbound connection or first datagram over IPv4, loopback included",
		"no outbound connection or first datagram over IPv6, loopback included",
		"no inbound connection or datagram accepted over IPv4, loopback included",
		"no inbound connection or datagram accepted over IPv6, loopback included",
	};

	if (mode != NET_DENY)
		return 0;
	p->filters = calloc(4, sizeof(*p->filters));
	if (!p->filters)
		return -ENOMEM;
	for (size_t i = 0; i < 4; i++)
		p->filters[i] = (struct winplan_filter){
			.layer = layers[i], .action = "block", .n_sids = 2,
			.sids = {WINPLAN_SID_ACCOUNT, WINPLAN_SID_CAPABILITY},
			.why = whys[i], .clause = "NET-1"};
	p->n_filters = 4;
	p->network_denied = true;
	p->canaries |= WINPLAN_CANARY_NETWORK;
	return 0;
}

/* A writable area's allow: the area's own directory without DELETE, and
 * DELETE for everything below through an inherit-only ACE (why_below). */
static int allow_area(struct wpb *b, const char *path, const char *clause, const char *why,
		      const char *why_below)
{
	int rc = wpb_add_ace(b, path, WINPLAN_ALLOW, WINPLAN_MASK_ALLOW_ROOT,
			     WINPLAN_OBJECT_INHERIT | WINPLAN_CONTAINER_INHERIT,
			     WINPLAN_ABSENT_REFUSE, clause, why);

	if (!rc)
		rc = wpb_add_ace(b, path, WINPLAN_ALLOW, WINPLAN_DELETE,
				 WINPLAN_OBJECT_INHERIT | WINPLAN_CONTAINER_INHERIT |
				 WINPLAN_INHERIT_ONLY, WINPLAN_ABSENT_REFUSE, clause, why_below);
	return rc;
}

static int plan_allows(struct wpb *b, const struct request *req, const char *temp)
{
	int rc = 0;

	for (size_t i = 0; i < req->n_write_roots && !rc; i++)
		rc = allow_area(b, req->write_roots[i].root, "FS-1",
				"a write root: the command may create, write and delete beneath it",
				"below the write root the command may delete and rename; never the "
				"root itself, an ancestor of its protected names (META-2)");
	if (!rc && temp)
		rc = allow_area(b, temp, "FS-4",
				"the run's private temp directory (TEMP, TMP): writable",
				"below the temp directory the command may delete and rename; the "
				"directory itself is the runtime root's");
	return rc;
}

int winplan_build(const struct request *req, const struct winplan_opts *o,
		  struct winplan *out, char err[WINPLAN_ERR_MAX])
{
	static const struct winplan_opts none = {0};
	struct wpb b = {.p = out, .err = err};
	char temp[WINPATH_MAX + 1];
	const char *t = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	o = o ? o : &none;
	rc = check_expressible(&b, req, o);
	if (!rc && req->fs_kind == FS_RESTRICTED && req->allow_temp) {
		rc = clean_temp(&b, o->temp_dir, temp, sizeof(temp));
		t = temp;
	}
	if (rc)
		return rc;
	winplan_token_recipe(&out->token, req->fs_kind == FS_RESTRICTED, req->network == NET_DENY);
	/* Every ACE names the capability SID (the restricting check) and, when
	 * the command runs as the sandbox account, the account (the check of
	 * the enabled SIDs, which decides alone what a write-restricted token
	 * does not check against its restricting SIDs). */
	b.sids[b.n_sids++] = WINPLAN_SID_CAPABILITY;
	if (out->token.base == WINPLAN_BASE_ACCOUNT)
		b.sids[b.n_sids++] = WINPLAN_SID_ACCOUNT;
	else if (req->fs_kind == FS_RESTRICTED)
		out->canaries |= WINPLAN_CANARY_OUTSIDE;
	out->job_max_processes = req->limits.value[LIMIT_PIDS];
	/* Every run: the command reaches no USER object, clipboard, atom or
	 * setting of the user's session through the job, and a crash ends the
	 * process instead of waiting on an error dialog (PRIV-5). */
	out->job_ui = WINPLAN_JOB_UI_ALL;
	out->job_die_on_exception = true;
	rc = plan_filters(out, req->network);
	if (!rc && req->fs_kind == FS_RESTRICTED)
		rc = plan_allows(&b, req, t);
	if (!rc && req->fs_kind == FS_RESTRICTED)
		rc = wpb_add_denies(&b, req, t);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, WINPLAN_ERR_MAX, "out of memory");
		winplan_free(out);
	}
	return rc;
}

void winplan_free(struct winplan *p)
{
	for (size_t i = 0; i < p->n_aces; i++)
		free(p->aces[i].path);
	free(p->aces);
	free(p->filters);
	memset(p, 0, sizeof(*p));
}

const char *winplan_sid_name(enum winplan_sid sid)
{
	switch (sid) {
	case WINPLAN_SID_CAPABILITY: return "capability";
	case WINPLAN_SID_LOGON: return "logon";
	case WINPLAN_SID_EVERYONE: return "everyone";
	case WINPLAN_SID_ACCOUNT: return "account";
	}
	return "?";
}

const char *winplan_base_name(enum winplan_base b)
{
	return b == WINPLAN_BASE_ACCOUNT ? "account" : "runner";
}

const char *winplan_absent_name(enum winplan_absent a)
{
	switch (a) {
	case WINPLAN_ABSENT_REFUSE: return "refuse";
	case WINPLAN_ABSENT_SKIP: return "skip";
	case WINPLAN_ABSENT_CREATE_DIR: return "create-dir";
	}
	return "?";
}
