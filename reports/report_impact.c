/* report_impact.c - impact classes in reports (report.h): what a failing
 * result means for the user, escapes first (docs/CONTRACT.md, "Impact
 * classes"). */
#include <string.h>

#include "report.h"

const char *const report_impacts[REPORT_N_IMPACTS] = {
	"escape", "exposure", "reporting", "fidelity", "residue",
};

int report_impact_parse(const char *s)
{
	for (int c = 0; s && c < REPORT_N_IMPACTS; c++)
		if (!strcmp(s, report_impacts[c]))
			return c;
	return -1;
}

int report_impact_of(const struct report_res *r)
{
	return r && r->v == RV_FAIL ? report_impact_parse(r->impact) : -1;
}

void report_impact_count(const struct report_set *s, size_t col, size_t n[REPORT_N_IMPACTS])
{
	memset(n, 0, REPORT_N_IMPACTS * sizeof *n);
	for (size_t i = 0; i < s->n_scens; i++) {
		int c = report_impact_of(report_cell(s, i, col));

		if (c >= 0)
			n[c]++;
	}
}
