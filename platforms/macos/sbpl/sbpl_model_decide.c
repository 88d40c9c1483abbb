/* sbpl_model_decide.c - what a parsed profile decides for one query
 * (MODEL.md, "precedence" and "paths"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "namefold.h"

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

/* A filter over a query that has nothing of the kind it reads (a path
 * filter and a network query, say) does not match. */
bool sbpl_model_flt_match(const struct sbpl_flt *f, const struct sbpl_query *q)
{
	size_t k;

	switch (f->kind) {
	case SBPL_FLT_TRUE:
		return true;
	case SBPL_FLT_LITERAL:
	case SBPL_FLT_SUBPATH:
	case SBPL_FLT_PREFIX:
	case SBPL_FLT_REGEX:
		return q->path && path_match(f, q->path);
	case SBPL_FLT_ALL:
		for (k = 0; k < f->n_kids; k++)
			if (!sbpl_model_flt_match(&f->kids[k], q))
				return false;
		return true;
	case SBPL_FLT_ANY:
		for (k = 0; k < f->n_kids; k++)
			if (sbpl_model_flt_match(&f->kids[k], q))
				return true;
		return false;
	case SBPL_FLT_NOT:
		return !sbpl_model_flt_match(f->kids, q);
	case SBPL_FLT_TARGET:
		return target_match(f->target, q->target);
	case SBPL_FLT_IP:
	case SBPL_FLT_UNIX:
		return sbpl_model_net_match(f, q);
	case SBPL_FLT_GNAME:
		return q->global_name && !strcmp(q->global_name, f->str);
	case SBPL_FLT_GNAME_PREFIX:
		return q->global_name && !strncmp(q->global_name, f->str, strlen(f->str));
	case SBPL_FLT_SOCKET_DOMAIN:
		return q->socket_domain && !strcmp(q->socket_domain, f->str);
	case SBPL_FLT_SYSCTL:
		return q->sysctl_name && !strcmp(q->sysctl_name, f->str);
	case SBPL_FLT_SYSCTL_PREFIX:
		return q->sysctl_name && !strncmp(q->sysctl_name, f->str, strlen(f->str));
	case SBPL_FLT_IPC:
		return q->ipc_name && !strcmp(q->ipc_name, f->str);
	case SBPL_FLT_IPC_PREFIX:
		return q->ipc_name && !strncmp(q->ipc_name, f->str, strlen(f->str));
	case SBPL_FLT_IPC_REGEX:
		return q->ipc_name && regexec(&f->re, q->ipc_name, 0, NULL, 0) == 0;
	case SBPL_FLT_EXTENSION:
		for (k = 0; k < q->n_extensions; k++)
			if (!strcmp(q->extensions[k], f->str))
				return true;
		return false;
	}
	return false;
}

static bool rule_names(const struct sbpl_rule *r, int op)
{
	size_t k;

	for (k = 0; k < r->n_ops; k++)
		if (r->ops[k] == op)
			return true;
	return false;
}

/* The last rule naming exactly op whose filter matches, or NULL. */
static const struct sbpl_rule *last_at(const struct sbpl_model *m, int op,
				       const struct sbpl_query *q)
{
	size_t k;

	for (k = m->n_rules; k-- > 0;)
		if (rule_names(&m->rules[k], op) && sbpl_model_flt_match(&m->rules[k].flt, q))
			return &m->rules[k];
	return NULL;
}

/* The last rule naming op or any of its parents but default whose filter
 * matches (default is the fallback in either order, wherever it stands). */
static const struct sbpl_rule *last_flat(const struct sbpl_model *m, int op,
					 const struct sbpl_query *q)
{
	size_t k;
	int o;

	for (k = m->n_rules; k-- > 0;)
		for (o = op; o > SBPL_OP_DEFAULT; o = sbpl_model_op_parent(o))
			if (rule_names(&m->rules[k], o) && sbpl_model_flt_match(&m->rules[k].flt, q))
				return &m->rules[k];
	return NULL;
}

static int query_check(const struct sbpl_query *q)
{
	if (!q->op || sbpl_model_op_find(q->op) < 0)
		return -EINVAL;
	if (q->path && !sbpl_model_path_canonical(q->path))
		return -EINVAL;
	return sbpl_model_net_check(q);
}

/* The stored spelling of q->path on a folding file system: the longest
 * fs_names entry that is, compared folded, a prefix of path at a '/'
 * boundary, with the rest of path after it.  NULL when none is (or the
 * stored spelling is path itself); else malloc'd. */
static char *stored_spelling(const struct sbpl_query *q)
{
	const char *best = NULL;
	size_t best_len = 0, cut = 0;
	char *out;

	for (size_t i = 0; i < q->n_fs_names; i++) {
		for (size_t k = 1;; k++) {
			char *prefix;

			if (q->path[k] != '/' && q->path[k] != '\0')
				continue;
			if (!(prefix = strndup(q->path, k)))
				return NULL;
			if (strlen(q->fs_names[i]) > best_len &&
			    namefold_same(prefix, q->fs_names[i], q->fs_fold)) {
				best = q->fs_names[i];
				best_len = strlen(best);
				cut = k;
			}
			free(prefix);
			if (!q->path[k])
				break;
		}
	}
	if (!best || !(out = malloc(best_len + strlen(q->path + cut) + 1)))
		return NULL;
	strcpy(out, best);
	strcat(out, q->path + cut);
	if (!strcmp(out, q->path)) {
		free(out);
		return NULL;
	}
	return out;
}

static int decide_one(const struct sbpl_model *m, const struct sbpl_query *q, long *rule_pos);

int sbpl_model_decide_why(const struct sbpl_model *m, const struct sbpl_query *q, long *rule_pos)
{
	struct sbpl_query alt;
	char *stored;
	long pos2;
	int rc, rc2;

	rc = decide_one(m, q, rule_pos);
	if (rc != 0 || !q->fs_fold || !q->path || !(stored = stored_spelling(q)))
		return rc;
	alt = *q;
	alt.path = stored;
	rc2 = decide_one(m, &alt, &pos2);
	free(stored);
	if (rc2 == 1) /* the caller chooses: either spelling allowed is allowed */
		*rule_pos = pos2;
	return rc2 == 1 ? 1 : rc;
}

static int decide_one(const struct sbpl_model *m, const struct sbpl_query *q, long *rule_pos)
{
	const struct sbpl_rule *r = NULL;
	int op, rc = query_check(q);

	*rule_pos = -1;
	if (rc < 0)
		return rc;
	op = sbpl_model_op_find(q->op);
	if (q->order == SBPL_ORDER_FLAT) {
		if (!(r = last_flat(m, op, q)))
			r = last_at(m, SBPL_OP_DEFAULT, q);
	} else {
		for (; op >= 0 && !r; op = sbpl_model_op_parent(op))
			r = last_at(m, op, q);
	}
	if (!r) /* the parse requires a default rule: it always matches */
		return -EINVAL;
	*rule_pos = (long)r->pos;
	return r->allow ? 1 : 0;
}

int sbpl_model_decide(const struct sbpl_model *m, const struct sbpl_query *q)
{
	long pos;

	return sbpl_model_decide_why(m, q, &pos);
}
