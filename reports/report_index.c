/* report_index.c - the matrix over a set's results: columns (os, runner),
 * rows (scenarios by area and id), and the cell of each pair, repeats folded
 * into their worst verdict (report.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int col_cmp(const void *a, const void *b)
{
	const struct report_col *x = a, *y = b;
	int c = strcmp(x->os, y->os);

	if (c)
		return c;
	/* the reference runner first: it is what every other column is read against */
	if (!strcmp(x->runner, "ref") != !strcmp(y->runner, "ref"))
		return strcmp(x->runner, "ref") ? 1 : -1;
	return strcmp(x->runner, y->runner);
}

static int scen_cmp(const void *a, const void *b)
{
	const struct report_scen *x = a, *y = b;
	int c = strcmp(x->area, y->area);

	return c ? c : strcmp(x->id, y->id);
}

static int res_id_cmp(const void *a, const void *b)
{
	const struct report_res *const *x = a, *const *y = b;

	return strcmp((*x)->scenario_id, (*y)->scenario_id);
}

static size_t col_find(const struct report_set *s, const char *os, const char *runner)
{
	for (size_t j = 0; j < s->n_cols; j++)
		if (!strcmp(s->cols[j].os, os) && !strcmp(s->cols[j].runner, runner))
			return j;
	return (size_t)-1;
}

/* Rows sorted by id (order[] holds their indexes) for the lookup of each
 * result's row. */
static const struct report_set *cmp_set;

static int order_cmp(const void *a, const void *b)
{
	return strcmp(cmp_set->scens[*(const size_t *)a].id,
		      cmp_set->scens[*(const size_t *)b].id);
}

static size_t scen_find(const struct report_set *s, const size_t *order, const char *id)
{
	size_t lo = 0, hi = s->n_scens;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->scens[order[mid]].id, id);

		if (c == 0)
			return order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

/* Columns: one per (os, runner) among the results, ref first in each os;
 * by_id[] receives every result (in set order).  s->cols holds n_res. */
static void col_collect(struct report_set *s, struct report_res **by_id)
{
	for (size_t i = 0; i < s->n_res; i++) {
		struct report_res *r = &s->res[i];

		by_id[i] = r;
		if (col_find(s, r->os, r->runner) == (size_t)-1)
			s->cols[s->n_cols++] = (struct report_col){
				.os = r->os, .runner = r->runner, .run = (size_t)-1,
			};
	}
	qsort(s->cols, s->n_cols, sizeof *s->cols, col_cmp);
	for (size_t j = 1; j < s->n_cols; j++)
		if (strcmp(s->cols[j].os, s->cols[0].os))
			s->multi_os = 1;
}

/* Rows: unique scenario ids, taking claim and clauses from any result that
 * has them, sorted by area and id.  Sorts by_id[] (every result) by id. */
static void scen_collect(struct report_set *s, struct report_res **by_id)
{
	qsort(by_id, s->n_res, sizeof *by_id, res_id_cmp);
	for (size_t i = 0; i < s->n_res; i++) {
		struct report_res *r = by_id[i];
		struct report_scen *last = s->n_scens ? &s->scens[s->n_scens - 1] : NULL;

		if (!last || strcmp(last->id, r->scenario_id)) {
			s->scens[s->n_scens++] = (struct report_scen){
				r->scenario_id, r->area, r->clauses, r->claim,
			};
			continue;
		}
		if (!last->claim && r->claim) {
			last->area = r->area;
			last->clauses = r->clauses;
			last->claim = r->claim;
		}
	}
	qsort(s->scens, s->n_scens, sizeof *s->scens, scen_cmp);
}

/* Puts every result in its cell (order[]: the rows sorted by id); a repeat
 * folds into the cell: the worst verdict stands, the latest among equals,
 * and the cell counts the others in repeats. */
static void cell_fold(struct report_set *s, const size_t *order)
{
	for (size_t i = 0; i < s->n_res; i++) {
		struct report_res *r = &s->res[i];
		size_t row = scen_find(s, order, r->scenario_id), col = col_find(s, r->os, r->runner);
		struct report_res **cell = &s->cells[row * s->n_cols + col];
		int sr, sc;

		if (!*cell) {
			*cell = r;
			continue;
		}
		sr = report_verdict_severity(r->v);
		sc = report_verdict_severity((*cell)->v);
		if (sr > sc || (sr == sc && r->id > (*cell)->id)) {
			r->repeats = (*cell)->repeats + 1;
			*cell = r;
		} else {
			(*cell)->repeats++;
		}
	}
}

/* Each column's count per verdict (RV_NONE: an empty cell) and its total
 * time. */
static void col_count(struct report_set *s)
{
	for (size_t j = 0; j < s->n_cols; j++)
		for (size_t i = 0; i < s->n_scens; i++) {
			const struct report_res *r = report_cell(s, i, j);

			s->cols[j].n[r ? r->v : RV_NONE]++;
			if (r && r->duration_ms > 0)
				s->cols[j].total_ms += r->duration_ms;
		}
}

int report_index(struct report_set *s)
{
	struct report_res **by_id = NULL;
	size_t n = s->n_res, *order;

	s->cols = calloc(n ? n : 1, sizeof *s->cols);
	s->scens = calloc(n ? n : 1, sizeof *s->scens);
	by_id = calloc(n ? n : 1, sizeof *by_id);
	if (!s->cols || !s->scens || !by_id) {
		free(by_id);
		return -ENOMEM;
	}
	col_collect(s, by_id);
	scen_collect(s, by_id);
	free(by_id);

	s->cells = calloc(s->n_scens * s->n_cols + 1, sizeof *s->cells);
	order = calloc(s->n_scens ? s->n_scens : 1, sizeof *order);
	if (!s->cells || !order) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_scens; i++)
		order[i] = i;
	cmp_set = s;
	qsort(order, s->n_scens, sizeof *order, order_cmp);
	cell_fold(s, order);
	free(order);
	col_count(s);
	return 0;
}
