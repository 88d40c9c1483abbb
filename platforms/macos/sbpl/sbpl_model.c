/* sbpl_model.c - a profile's text into the model's rules (sbpl_model.h).
 *
 * Parse, then nothing else: the rules keep text order and the decision is
 * made per query (sbpl_model_decide.c).  Every refusal names its position. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_model_int.h"

static const char *head_of(const struct sbpl_node *n)
{
	if (n->kind != SBPL_NODE_LIST || !n->n_kids || n->kids[0].kind != SBPL_NODE_SYMBOL)
		return NULL;
	return n->kids[0].text;
}

/* (with message "...") (with report) (with no-report): reporting only,
 * no effect on the decision; (with no-sandbox) (an exec whose program
 * runs unsandboxed: the peers' /bin/ps) is read as its allow. */
static int rule_with(struct sbpl_pctx *c, const struct sbpl_node *n)
{
	const struct sbpl_node *k = n->kids;

	if (n->n_kids == 3 && k[1].kind == SBPL_NODE_SYMBOL && !strcmp(k[1].text, "message") &&
	    k[2].kind == SBPL_NODE_STRING)
		return 0;
	if (n->n_kids == 2 && k[1].kind == SBPL_NODE_SYMBOL &&
	    (!strcmp(k[1].text, "report") || !strcmp(k[1].text, "no-report") ||
	     !strcmp(k[1].text, "no-sandbox")))
		return 0;
	return sbpl_model_fail(c, n->pos, "with: only message \"...\", report, no-report, no-sandbox");
}

/* The operations of rule node n (its symbols after allow/deny) into r;
 * *first_filter is the index of the first item after them. */
static int rule_ops(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_rule *r,
		    size_t *first_filter)
{
	size_t k;
	int op;

	for (k = 1; k < n->n_kids && n->kids[k].kind == SBPL_NODE_SYMBOL; k++)
		;
	if (k == 1)
		return sbpl_model_fail(c, n->pos, "%s names no operation", n->kids[0].text);
	if (!(r->ops = calloc(k - 1, sizeof(*r->ops))))
		return -ENOMEM;
	for (k = 1; k < n->n_kids && n->kids[k].kind == SBPL_NODE_SYMBOL; k++) {
		if ((op = sbpl_model_op_find(n->kids[k].text)) < 0)
			return sbpl_model_fail(c, n->kids[k].pos, "unknown operation %s", n->kids[k].text);
		r->ops[r->n_ops++] = op;
	}
	*first_filter = k;
	return 0;
}

/* The filters of a rule: none (every query), one, or several (any). */
static int rule_filters(struct sbpl_pctx *c, const struct sbpl_node *n, size_t from,
			struct sbpl_rule *r)
{
	struct sbpl_flt *f = &r->flt;
	size_t k;
	int rc;

	f->kind = SBPL_FLT_TRUE;
	for (k = from; k < n->n_kids; k++) {
		const char *h = head_of(&n->kids[k]);

		if (h && !strcmp(h, "with")) {
			if ((rc = rule_with(c, &n->kids[k])) < 0)
				return rc;
			continue;
		}
		if (f->kind == SBPL_FLT_TRUE) {
			f->kind = SBPL_FLT_ANY;
			if (!(f->kids = calloc(n->n_kids - k, sizeof(*f->kids))))
				return -ENOMEM;
		}
		f->n_kids++;
		if ((rc = sbpl_model_flt_parse(c, &n->kids[k], &f->kids[f->n_kids - 1])) < 0)
			return rc;
	}
	if (r->n_ops && r->ops[0] == SBPL_OP_DEFAULT && (r->n_ops != 1 || f->kind != SBPL_FLT_TRUE))
		return sbpl_model_fail(c, n->pos, "default takes no other operation and no filter");
	return 0;
}

static int model_rule(struct sbpl_pctx *c, struct sbpl_model *m, const struct sbpl_node *n,
		      bool allow)
{
	struct sbpl_rule *r = realloc(m->rules, (m->n_rules + 1) * sizeof(*r));
	size_t from = 0;
	int rc;

	if (!r)
		return -ENOMEM;
	m->rules = r;
	r = &m->rules[m->n_rules++];
	memset(r, 0, sizeof(*r));
	r->allow = allow;
	r->pos = n->pos;
	if ((rc = rule_ops(c, n, r, &from)) < 0)
		return rc;
	return rule_filters(c, n, from, r);
}

/* The top-level forms: (version 1) once, first; then allow/deny rules;
 * a default rule somewhere (the model never assumes one). */
static int model_forms(struct sbpl_pctx *c, struct sbpl_model *m, const struct sbpl_node *top)
{
	bool version = false, dflt = false;
	size_t k, j;
	int rc;

	for (k = 0; k < top->n_kids; k++) {
		const struct sbpl_node *n = &top->kids[k];
		const char *h = head_of(n);

		if (h && !strcmp(h, "version")) {
			if (version || k || n->n_kids != 2 || n->kids[1].kind != SBPL_NODE_INT ||
			    n->kids[1].num != 1)
				return sbpl_model_fail(c, n->pos, "expected (version 1), once, first");
			version = true;
		} else if (h && (!strcmp(h, "allow") || !strcmp(h, "deny"))) {
			if (!version)
				return sbpl_model_fail(c, n->pos, "a rule before (version 1)");
			if ((rc = model_rule(c, m, n, h[0] == 'a')) < 0)
				return rc;
			for (j = 0; j < m->rules[m->n_rules - 1].n_ops; j++)
				dflt |= m->rules[m->n_rules - 1].ops[j] == SBPL_OP_DEFAULT;
		} else {
			return sbpl_model_fail(c, n->pos, "unknown form %s (the model reads "
					       "version, allow, deny)", h ? h : "(not a form)");
		}
	}
	if (!version)
		return sbpl_model_fail(c, 0, "no (version 1)");
	if (!dflt)
		return sbpl_model_fail(c, 0, "no (allow default) or (deny default)");
	return 0;
}

int sbpl_model_parse(const char *text, const struct sbpl_param *params, size_t n_params,
		     struct sbpl_model **out, char err[SBPL_ERR_MAX])
{
	struct sbpl_pctx c = {text, params, n_params, err};
	struct sbpl_node top;
	struct sbpl_model *m;
	int rc;

	*out = NULL;
	err[0] = '\0';
	if ((rc = sbpl_read_text(text, &top, err)) < 0)
		return rc;
	if (!(m = calloc(1, sizeof(*m)))) {
		sbpl_read_free(&top);
		return -ENOMEM;
	}
	rc = model_forms(&c, m, &top);
	sbpl_read_free(&top);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, SBPL_ERR_MAX, "out of memory");
		sbpl_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void sbpl_model_free(struct sbpl_model *m)
{
	size_t k;

	if (!m)
		return;
	for (k = 0; k < m->n_rules; k++) {
		free(m->rules[k].ops);
		sbpl_model_flt_free(&m->rules[k].flt);
	}
	free(m->rules);
	free(m);
}
