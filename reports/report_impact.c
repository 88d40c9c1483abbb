/* report_impact.c - impact classes in reports (report.h): what a failing
 * result means for the user, escapes first (docs/CONTRACT.md, "Impact
 * classes"). */
#include <string.h>

#include "report.h"

int report_impact_of(const struct report_res *r)
{
	return r && r->v == RV_FAIL ? store_impact_index(r->impact) : -1;
}

void report_impact_count(const struct report_set *s, size_t col, size_t n[STORE_N_IMPACTS])
{
	memset(n, 0, STORE_N_IMPACTS * sizeof *n);
	for (size_t i = 0; i < s->n_scens; i++) {
		int c = report_impact_of(report_cell(s, i, col));

		if (c >= 0)
			n[c]++;
	}
}
