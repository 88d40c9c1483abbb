/* report_md.c - Markdown for a CI step summary (GitHub's
 * $GITHUB_STEP_SUMMARY, at most 1 MiB): a summary table per column, the
 * results that did not pass with their evidence, and the skips (report.h).
 *
 * Table cells escape '|' and HTML; evidence goes in code fences longer than
 * any backtick run inside it, so nothing recorded can end the fence. */
#include <errno.h>
#include <string.h>

#include "report.h"

#define ROWS_MAX 500                 /* rows of each table */
#define DETAILS_MAX 50               /* results whose evidence is shown */
#define EV_BYTES 4096                /* bytes of one evidence body */
#define CELL_BYTES 300               /* bytes of one table cell */

/* Text for a table cell: one line, '|' and HTML escaped, control
 * characters dropped, at most max bytes (plus an ellipsis). */
static void md_cell(FILE *f, const char *s, size_t max)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++, n++) {
		if (n >= max) {
			fputs("&hellip;", f);
			return;
		}
		switch (*p) {
		case '|': fputs("\\|", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '\\': fputs("\\\\", f); break;
		case '`': fputs("&#96;", f); break;
		case '\n': case '\r': case '\t': fputc(' ', f); break;
		default:
			if (*p >= 0x20 && *p != 0x7F)
				fputc(*p, f);
		}
	}
}

static size_t longest_backticks(const char *s, size_t max)
{
	size_t best = 0, run = 0;

	for (size_t i = 0; s[i] && i < max; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

static void fence(FILE *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc('`', f);
}

static void md_code(FILE *f, const char *body)
{
	size_t len = strlen(body), show = len > EV_BYTES ? EV_BYTES : len;
	size_t n = longest_backticks(body, show) + 1;

	if (n < 3)
		n = 3;
	fence(f, n);
	fputs("text\n", f);
	for (size_t i = 0; i < show; i++)
		if ((unsigned char)body[i] >= 0x20 || body[i] == '\n' || body[i] == '\t')
			fputc(body[i], f);
	if (show < len)
		fprintf(f, "\n... (%zu more bytes in the database)", len - show);
	fputc('\n', f);
	fence(f, n);
	fputs("\n\n", f);
}

static void put_summary(const struct report_set *s, FILE *f)
{
	static const enum report_verdict order[] = {
		RV_PASS, RV_FAIL, RV_ERROR, RV_INCONCLUSIVE, RV_SKIP, RV_UNSUPPORTED, RV_NONE,
	};
	char label[256];

	fprintf(f, "| %s |", s->multi_os ? "OS/runner" : "runner");
	for (size_t v = 0; v < sizeof order / sizeof *order; v++)
		fprintf(f, " %s |", order[v] == RV_NONE ? "not run" : report_verdict_name(order[v]));
	fprintf(f, " time | run |\n|---|");
	for (size_t v = 0; v < sizeof order / sizeof *order; v++)
		fprintf(f, "--:|");
	fprintf(f, "--:|---|\n");
	for (size_t j = 0; j < s->n_cols; j++) {
		const struct report_col *c = &s->cols[j];

		fprintf(f, "| ");
		md_cell(f, report_col_label(s, j, label, sizeof label), CELL_BYTES);
		fprintf(f, " |");
		for (size_t v = 0; v < sizeof order / sizeof *order; v++)
			fprintf(f, c->n[order[v]] && order[v] != RV_PASS && order[v] != RV_NONE
				   ? " **%u** |" : " %u |", c->n[order[v]]);
		fprintf(f, " %.1f s |", (double)c->total_ms / 1000.0);
		if (c->run != (size_t)-1) {
			const struct report_run *r = &s->runs[c->run];

			fprintf(f, " #%lld ", (long long)r->id);
			md_cell(f, r->started_at, CELL_BYTES);
			if (r->git_revision) {
				fprintf(f, " @ ");
				md_cell(f, r->git_revision, 12);
			}
		}
		fprintf(f, " |\n");
	}
	fprintf(f, "\n");
}

/* Per column, the fails by impact class, escapes first, then each class's
 * scenarios. */
static void put_impact(const struct report_set *s, FILE *f)
{
	char label[256];
	size_t n[STORE_N_IMPACTS];

	fprintf(f, "### Impact of the failures (escapes first)\n\n| %s |",
		s->multi_os ? "OS/runner" : "runner");
	for (int c = 0; c < STORE_N_IMPACTS; c++)
		fprintf(f, " %s |", store_impacts[c]);
	fprintf(f, "\n|---|");
	for (int c = 0; c < STORE_N_IMPACTS; c++)
		fprintf(f, "--:|");
	fprintf(f, "\n");
	for (size_t j = 0; j < s->n_cols; j++) {
		report_impact_count(s, j, n);
		fprintf(f, "| ");
		md_cell(f, report_col_label(s, j, label, sizeof label), CELL_BYTES);
		fprintf(f, " |");
		for (int c = 0; c < STORE_N_IMPACTS; c++)
			fprintf(f, n[c] ? " **%zu** |" : " %zu |", n[c]);
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
	for (size_t j = 0; j < s->n_cols; j++) {
		report_impact_count(s, j, n);
		for (int c = 0; c < STORE_N_IMPACTS; c++) {
			size_t k = 0;

			if (!n[c])
				continue;
			fprintf(f, "- ");
			md_cell(f, report_col_label(s, j, label, sizeof label), CELL_BYTES);
			fprintf(f, ", %s (%zu):", store_impacts[c], n[c]);
			for (size_t i = 0; i < s->n_scens; i++)
				if (report_impact_of(report_cell(s, i, j)) == c && k++ < ROWS_MAX) {
					fprintf(f, "%s<code>", k > 1 ? "," : "");
					md_cell(f, s->scens[i].id, CELL_BYTES);
					fprintf(f, "</code>");
				}
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n");
}

static int is_bad(const struct report_res *r)
{
	return r && (r->v == RV_FAIL || r->v == RV_ERROR || r->v == RV_INCONCLUSIVE ||
		     r->v == RV_NONE);
}

static int is_skip(const struct report_res *r)
{
	return r && (r->v == RV_SKIP || r->v == RV_UNSUPPORTED);
}

/* A table of the cells pred() selects; returns how many there are. */
static size_t put_table(const struct report_set *s, FILE *f,
			int (*pred)(const struct report_res *))
{
	char label[256];
	size_t n = 0;

	for (size_t i = 0; i < s->n_scens; i++)
		for (size_t j = 0; j < s->n_cols; j++) {
			const struct report_res *r = report_cell(s, i, j);

			if (!pred(r))
				continue;
			if (n == 0)
				fprintf(f, "| scenario | %s | verdict | impact | expected | observed / reason |\n"
					"|---|---|---|---|---|---|\n", s->multi_os ? "OS/runner" : "runner");
			if (++n > ROWS_MAX)
				continue;
			fprintf(f, "| <code>");
			md_cell(f, s->scens[i].id, CELL_BYTES);
			fprintf(f, "</code> | ");
			md_cell(f, report_col_label(s, j, label, sizeof label), CELL_BYTES);
			fprintf(f, " | **");
			md_cell(f, r->verdict, CELL_BYTES);
			fprintf(f, "** | ");
			md_cell(f, r->impact ? r->impact : "", CELL_BYTES);
			fprintf(f, " | ");
			md_cell(f, r->expected, CELL_BYTES);
			fprintf(f, " | ");
			md_cell(f, r->observed, CELL_BYTES);
			if (r->reason) {
				fprintf(f, "%s", r->observed ? " &mdash; " : "");
				md_cell(f, r->reason, CELL_BYTES);
			}
			fprintf(f, " |\n");
		}
	if (n > ROWS_MAX)
		fprintf(f, "\n%zu more not listed; see the HTML report.\n", n - ROWS_MAX);
	fprintf(f, "\n");
	return n;
}

static void put_details(const struct report_set *s, FILE *f)
{
	char label[256];
	size_t n = 0;

	for (size_t i = 0; i < s->n_scens; i++)
		for (size_t j = 0; j < s->n_cols; j++) {
			const struct report_res *r = report_cell(s, i, j);

			if (!is_bad(r) || n++ >= DETAILS_MAX)
				continue;
			fprintf(f, "<details><summary><code>");
			md_cell(f, s->scens[i].id, CELL_BYTES);
			fprintf(f, "</code> on ");
			md_cell(f, report_col_label(s, j, label, sizeof label), CELL_BYTES);
			fprintf(f, ": ");
			md_cell(f, r->verdict, CELL_BYTES);
			fprintf(f, "</summary>\n\n");
			if (report_is_race(r)) {
				char power[160];

				fprintf(f, "Race power: %s.\n\n", report_power(r, power, sizeof power));
			}
			for (size_t k = 0; k < r->n_ev; k++) {
				fprintf(f, "**");
				md_cell(f, r->ev[k].kind, CELL_BYTES);
				fprintf(f, "**\n\n");
				md_code(f, r->ev[k].body ? r->ev[k].body : "");
			}
			fprintf(f, "</details>\n\n");
		}
	if (n > DETAILS_MAX)
		fprintf(f, "Evidence of %zu more results: see the HTML report.\n\n", n - DETAILS_MAX);
}

static size_t count(const struct report_set *s, int (*pred)(const struct report_res *))
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_scens * s->n_cols; i++)
		n += pred(s->cells[i]) != 0;
	return n;
}

int report_markdown(const struct report_set *s, FILE *f)
{
	size_t bad = count(s, is_bad), skipped = count(s, is_skip);

	fprintf(f, "## sandproof results\n\n");
	fprintf(f, "%zu scenarios &times; %zu columns, latest run per %s.\n\n",
		s->n_scens, s->n_cols, s->multi_os ? "OS and runner" : "runner");
	put_impact(s, f);
	put_summary(s, f);
	report_explore_md(s, f);
	fprintf(f, "### Not passing (%zu)\n\n", bad);
	if (bad == 0) {
		fprintf(f, "Every result passed, was skipped or is unsupported.\n\n");
	} else {
		put_table(s, f, is_bad);
		put_details(s, f);
	}
	if (skipped) {
		fprintf(f, "<details><summary>Skipped or unsupported (%zu)</summary>\n\n", skipped);
		put_table(s, f, is_skip);
		fprintf(f, "</details>\n");
	}
	return ferror(f) ? -EIO : 0;
}
