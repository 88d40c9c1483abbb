/* report_tap.c - TAP (version 13) for `prove` (report.h): one test point per
 * result, "ok" for pass, "ok ... # SKIP verdict: reason" for skip and
 * unsupported, "not ok" for fail (its impact class on the verdict line),
 * error and inconclusive, with the evidence as "# " diagnostic lines.  A scenario not run for a column has no
 * test point.  Recorded text never starts a line of its own: descriptions
 * are one line with '#' escaped, and every evidence line is prefixed. */
#include <errno.h>
#include <string.h>

#include "report.h"

#define EV_BYTES 4096

/* One line of text: newlines become spaces, '#' and '\' escaped (TAP
 * reads an unescaped '#' as the start of a directive), controls dropped. */
static void tap_line(FILE *f, const char *s, size_t max)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && n < max; p++, n++) {
		if (*p == '#' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n' || *p == '\r' || *p == '\t')
			fputc(' ', f);
		else if (*p >= 0x20 && *p != 0x7F)
			fputc(*p, f);
	}
}

/* Text as diagnostic lines, each "#   " + one line. */
static void tap_diag(FILE *f, const char *s, size_t max)
{
	size_t n = 0;
	int bol = 1;

	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && n < max; p++, n++) {
		if (bol) {
			fputs("#   ", f);
			bol = 0;
		}
		if (*p == '\n' || *p == '\r') {
			fputc('\n', f);
			bol = 1;
		} else if (*p >= 0x20 || *p == '\t') {
			fputc(*p, f);
		}
	}
	if (!bol)
		fputc('\n', f);
	if (s && strlen(s) > max)
		fprintf(f, "#   ... (%zu more bytes in the database)\n", strlen(s) - max);
}

static void put_point(FILE *f, unsigned n, const char *label, const char *id,
		      const struct report_res *r)
{
	int ok = r->v == RV_PASS || r->v == RV_SKIP || r->v == RV_UNSUPPORTED;

	fprintf(f, "%sok %u - ", ok ? "" : "not ", n);
	tap_line(f, label, 256);
	fputc(' ', f);
	tap_line(f, id, 512);
	if (r->v == RV_SKIP || r->v == RV_UNSUPPORTED) {
		fprintf(f, " # SKIP %s", r->verdict);
		if (r->reason) {
			fprintf(f, ": ");
			tap_line(f, r->reason, 512);
		}
	}
	fputc('\n', f);
	if (ok)
		return;
	fprintf(f, "# verdict: ");
	tap_line(f, r->verdict, 64);
	fprintf(f, "; expected: ");
	tap_line(f, r->expected, 256);
	if (r->impact) {
		fprintf(f, "; impact: ");
		tap_line(f, r->impact, 64);
	}
	fputc('\n', f);
	if (r->observed) {
		fprintf(f, "# observed: ");
		tap_line(f, r->observed, 1024);
		fputc('\n', f);
	}
	if (r->reason) {
		fprintf(f, "# reason: ");
		tap_line(f, r->reason, 1024);
		fputc('\n', f);
	}
	if (report_is_race(r)) {
		char power[160];

		fprintf(f, "# race: %s\n", report_power(r, power, sizeof power));
	}
	for (size_t k = 0; k < r->n_ev; k++) {
		fprintf(f, "# evidence ");
		tap_line(f, r->ev[k].kind, 64);
		fprintf(f, ":\n");
		tap_diag(f, r->ev[k].body, EV_BYTES);
	}
}

int report_tap(const struct report_set *s, FILE *f)
{
	unsigned n = 0, total = 0;
	char label[256];

	for (size_t i = 0; i < s->n_scens * s->n_cols; i++)
		total += s->cells[i] != NULL;
	fprintf(f, "TAP version 13\n1..%u\n", total);
	for (size_t i = 0; i < s->n_scens; i++)
		for (size_t j = 0; j < s->n_cols; j++) {
			const struct report_res *r = report_cell(s, i, j);

			if (r)
				put_point(f, ++n, report_col_label(s, j, label, sizeof label),
					  s->scens[i].id, r);
		}
	return ferror(f) ? -EIO : 0;
}
