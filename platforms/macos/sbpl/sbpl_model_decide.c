/* sbpl_model_decide.c - what a parsed profile decides for one query of
 * one spelling (MODEL.md, "precedence"); sbpl_model_spell.c asks it of
 * every spelling the operation may be handed in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_model_int.h"

static bool rule_names(const struct sbpl_rule *r, int op)
{
	size_t k;

	for (k = 0; k < r->n_ops; k++)
		if (r->ops[k] == op)
			return true;
	return false;
}

/* The last rule naming exactly op whose filter matches, or NULL (na: the
 * value of a filter that does not apply, sbpl_model_match.c). */
static const struct sbpl_rule *last_at(const struct sbpl_model *m, int op,
				       const struct sbpl_query *q, bool na)
{
	size_t k;

	for (k = m->n_rules; k-- > 0;)
		if (rule_names(&m->rules[k], op) && sbpl_model_flt_eval(&m->rules[k].flt, q, na))
			return &m->rules[k];
	return NULL;
}

/* The last rule naming op or any of its parents but default whose filter
 * matches (default is the fallback in either order, wherever it stands). */
static const struct sbpl_rule *last_flat(const struct sbpl_model *m, int op,
					 const struct sbpl_query *q, bool na)
{
	size_t k;
	int o;

	for (k = m->n_rules; k-- > 0;)
		for (o = op; o > SBPL_OP_DEFAULT; o = sbpl_model_op_parent(o))
			if (rule_names(&m->rules[k], o) && sbpl_model_flt_eval(&m->rules[k].flt, q, na))
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

/* One spelling, one reading of the filters that do not apply. */
static int decide_reading(const struct sbpl_model *m, const struct sbpl_query *q, bool na,
			  long *rule_pos)
{
	const struct sbpl_rule *r = NULL;
	int op = sbpl_model_op_find(q->op);

	if (q->order == SBPL_ORDER_FLAT) {
		if (!(r = last_flat(m, op, q, na)))
			r = last_at(m, SBPL_OP_DEFAULT, q, na);
	} else {
		for (; op >= 0 && !r; op = sbpl_model_op_parent(op))
			r = last_at(m, op, q, na);
	}
	if (!r) /* the parse requires a default rule: it always matches */
		return -EINVAL;
	*rule_pos = (long)r->pos;
	return r->allow ? 1 : 0;
}

/* One spelling: allowed when either reading allows (the first that
 * does decides *rule_pos). */
int sbpl_model_decide_spelling(const struct sbpl_model *m, const struct sbpl_query *q,
			       long *rule_pos)
{
	long pos2;
	int rc = query_check(q), rc2;

	*rule_pos = -1;
	if (rc < 0)
		return rc;
	rc = decide_reading(m, q, false, rule_pos);
	if (rc != 0)
		return rc;
	rc2 = decide_reading(m, q, true, &pos2);
	if (rc2 == 1)
		*rule_pos = pos2;
	return rc2 == 1 ? 1 : rc;
}

int sbpl_model_decide(const struct sbpl_model *m, const struct sbpl_query *q)
{
	long pos;

	return sbpl_model_decide_why(m, q, &pos);
}
