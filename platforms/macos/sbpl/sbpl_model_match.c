/* sbpl_model_match.c - whether a filter matches a query (MODEL.md,
 * "paths" and "a filter that does not apply").
 *
 * A filter over something the query does not have (a path filter and a
 * mach-lookup, a sysctl name and a file operation) does not apply; no
 * source read says what Seatbelt makes of it, above all under require-not
 * (require-not of a filter that cannot match: every query, or none?).  So
 * such a leaf is read both ways (na: its value), and sbpl_model_decide
 * allows what either reading allows: a profile that relies on one of them
 * is seen to be wrong. */
#include <string.h>

#include "sbpl_model_int.h"

/* literal: equal; subpath: equal, or beneath at a '/' boundary (so /a/bc
 * is not under /a/b).  p is canonical (query_check), so a literal or
 * subpath spelled with `//`, `/./` or a trailing `/` matches nothing. */
static bool path_match(const struct sbpl_flt *f, const char *p)
{
	size_t n = strlen(f->str);

	switch (f->kind) {
	case SBPL_FLT_LITERAL:
		return !strcmp(p, f->str);
	case SBPL_FLT_SUBPATH:
		if (strncmp(p, f->str, n))
			return false;
		return !p[n] || p[n] == '/' || (n == 1 && f->str[0] == '/');
	case SBPL_FLT_PREFIX:
		return !strncmp(p, f->str, n);
	default:
		return regexec(&f->re, p, 0, NULL, 0) == 0;
	}
}

static bool target_match(enum sbpl_target want, enum sbpl_target t)
{
	if (want == SBPL_TARGET_SELF)
		return t == SBPL_TARGET_SELF;
	return t == SBPL_TARGET_SELF || t == SBPL_TARGET_SAME_SANDBOX;
}

/* A name filter: s the query's name of that kind (NULL: it has none). */
static bool name_match(const struct sbpl_flt *f, const char *s, bool na)
{
	if (!s)
		return na;
	switch (f->kind) {
	case SBPL_FLT_GNAME_PREFIX:
	case SBPL_FLT_SYSCTL_PREFIX:
	case SBPL_FLT_IPC_PREFIX:
		return !strncmp(s, f->str, strlen(f->str));
	case SBPL_FLT_IPC_REGEX:
		return regexec(&f->re, s, 0, NULL, 0) == 0;
	default:
		return !strcmp(s, f->str);
	}
}

static bool is_network(const struct sbpl_query *q)
{
	return q->proto != SBPL_PROTO_NONE || q->local.ip || q->remote.ip || q->local.unix_path ||
	       q->remote.unix_path || q->local.unbound;
}

static bool extension_held(const struct sbpl_flt *f, const struct sbpl_query *q)
{
	for (size_t k = 0; k < q->n_extensions; k++)
		if (!strcmp(q->extensions[k], f->str))
			return true;
	return false;
}

bool sbpl_model_flt_eval(const struct sbpl_flt *f, const struct sbpl_query *q, bool na)
{
	size_t k;

	switch (f->kind) {
	case SBPL_FLT_TRUE:
		return true;
	case SBPL_FLT_LITERAL:
	case SBPL_FLT_SUBPATH:
	case SBPL_FLT_PREFIX:
	case SBPL_FLT_REGEX:
		return q->path ? path_match(f, q->path) : na;
	case SBPL_FLT_ALL:
		for (k = 0; k < f->n_kids; k++)
			if (!sbpl_model_flt_eval(&f->kids[k], q, na))
				return false;
		return true;
	case SBPL_FLT_ANY:
		for (k = 0; k < f->n_kids; k++)
			if (sbpl_model_flt_eval(&f->kids[k], q, na))
				return true;
		return false;
	case SBPL_FLT_NOT:
		return !sbpl_model_flt_eval(f->kids, q, na);
	case SBPL_FLT_TARGET:
		return q->target == SBPL_TARGET_NONE ? na : target_match(f->target, q->target);
	case SBPL_FLT_IP:
	case SBPL_FLT_UNIX:
		return is_network(q) ? sbpl_model_net_match(f, q) : na;
	case SBPL_FLT_GNAME:
	case SBPL_FLT_GNAME_PREFIX:
		return name_match(f, q->global_name, na);
	case SBPL_FLT_SOCKET_DOMAIN:
		return q->socket_domain ? !strcmp(q->socket_domain, f->str) : na;
	case SBPL_FLT_SYSCTL:
	case SBPL_FLT_SYSCTL_PREFIX:
		return name_match(f, q->sysctl_name, na);
	case SBPL_FLT_IPC:
	case SBPL_FLT_IPC_PREFIX:
	case SBPL_FLT_IPC_REGEX:
		return name_match(f, q->ipc_name, na);
	case SBPL_FLT_EXTENSION: /* the process's own: it always applies */
		return extension_held(f, q);
	case SBPL_FLT_VNODE:
		return name_match(f, q->vnode_type, na);
	case SBPL_FLT_IOKIT:
		return name_match(f, q->iokit_class, na);
	case SBPL_FLT_LOCAL_NAME:
		return name_match(f, q->local_name, na);
	case SBPL_FLT_SOCKET_PROTO:
		return q->socket_protocol ? q->socket_protocol == f->port : na;
	}
	return false;
}

bool sbpl_model_flt_match(const struct sbpl_flt *f, const struct sbpl_query *q)
{
	return sbpl_model_flt_eval(f, q, false);
}
