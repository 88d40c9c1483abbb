/* baseline.c - the readable export of a database's verdicts, committed per
 * OS (reports/baseline/<os>.json) for `sandproof diff --baseline` (report.h).
 *
 *   {
 *   	"format": "sandproof-baseline",
 *   	"version": 1,
 *   	"results": {
 *   		"linux": {
 *   			"ref": {
 *   				"fs.write.outside": {"verdict": "pass", "expected": "pass"},
 *
 * OSes, runners and scenario ids in byte order, one scenario per line and
 * nothing time-dependent, so a new baseline's git diff shows exactly the
 * verdicts that changed. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "report.h"

#define BASELINE_VERSION 1
#define BASELINE_MAX_BYTES (64u << 20)

static const struct report_set *sort_set;

static int by_id(const void *a, const void *b)
{
	return strcmp(sort_set->scens[*(const size_t *)a].id,
		      sort_set->scens[*(const size_t *)b].id);
}

static int by_col(const void *a, const void *b)
{
	const struct report_col *x = &sort_set->cols[*(const size_t *)a];
	const struct report_col *y = &sort_set->cols[*(const size_t *)b];
	int c = strcmp(x->os, y->os);

	return c ? c : strcmp(x->runner, y->runner);
}

int baseline_write(const struct report_set *s, FILE *f)
{
	size_t *rows = calloc(s->n_scens + 1, sizeof *rows);
	size_t *cols = calloc(s->n_cols + 1, sizeof *cols);
	const char *os = NULL;

	if (!rows || !cols) {
		free(rows);
		free(cols);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_scens; i++)
		rows[i] = i;
	for (size_t j = 0; j < s->n_cols; j++)
		cols[j] = j;
	sort_set = s;
	qsort(rows, s->n_scens, sizeof *rows, by_id);
	qsort(cols, s->n_cols, sizeof *cols, by_col);
	fprintf(f, "{\n\t\"format\": \"sandproof-baseline\",\n\t\"version\": %d,\n\t\"results\": {",
		BASELINE_VERSION);
	for (size_t jj = 0; jj < s->n_cols; jj++) {
		const struct report_col *c = &s->cols[cols[jj]];
		int first = 1;

		if (!os || strcmp(os, c->os)) {
			fprintf(f, "%s\n\t\t", os ? "\n\t\t}," : "");
			report_json_str(f, c->os);
			fprintf(f, ": {");
			os = c->os;
		} else {
			fprintf(f, ",");
		}
		fprintf(f, "\n\t\t\t");
		report_json_str(f, c->runner);
		fprintf(f, ": {");
		for (size_t ii = 0; ii < s->n_scens; ii++) {
			const struct report_res *r = report_cell(s, rows[ii], cols[jj]);

			if (!r)
				continue;
			fprintf(f, "%s\n\t\t\t\t", first ? "" : ",");
			first = 0;
			report_json_str(f, s->scens[rows[ii]].id);
			fprintf(f, ": {\"verdict\": ");
			report_json_str(f, r->verdict);
			fprintf(f, ", \"expected\": ");
			report_json_str(f, r->expected);
			fprintf(f, "}");
		}
		fprintf(f, "%s}", first ? "" : "\n\t\t\t");
	}
	fprintf(f, "%s\n\t}\n}\n", os ? "\n\t\t}" : "");
	free(rows);
	free(cols);
	return ferror(f) ? -EIO : 0;
}

/* ---- reading ------------------------------------------------------------- */

static char *slurp(const char *path, char *err, size_t errlen, int *r)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf;
	size_t n;

	if (!f) {
		*r = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size > BASELINE_MAX_BYTES) {
		*r = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file of at most %u MiB", path,
			 BASELINE_MAX_BYTES >> 20);
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		*r = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	buf[n] = 0;
	if (ferror(f)) {
		*r = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Adds one (os, runner, scenario) entry as a result of the set. */
static int add_entry(struct report_set *s, size_t *cap, const char *os, const char *runner,
		     const char *id, const char *verdict, const char *expected)
{
	struct report_res *r;
	const char *dot = strchr(id, '.');

	if (s->n_res == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		void *p = realloc(s->res, c * sizeof *s->res);

		if (!p)
			return -ENOMEM;
		s->res = p;
		*cap = c;
	}
	r = &s->res[s->n_res++];
	memset(r, 0, sizeof *r);
	r->id = (int64_t)s->n_res;
	r->os = strdup(os);
	r->runner = strdup(runner);
	r->scenario_id = strdup(id);
	r->verdict = strdup(verdict);
	r->expected = strdup(expected);
	r->area = dot ? strndup(id, (size_t)(dot - id)) : strdup("unknown");
	r->v = report_verdict_parse(verdict);
	r->attempts = 0;
	r->windows_hit = r->min_windows = r->duration_ms = -1;
	r->repeats = 1;
	if (!r->os || !r->runner || !r->scenario_id || !r->verdict || !r->expected || !r->area)
		return -ENOMEM;
	return 0;
}

int baseline_load(const char *path, struct report_set *s, char *err, size_t errlen)
{
	const cJSON *fmt, *ver, *res, *os, *runner, *sc;
	size_t cap = 0;
	cJSON *doc;
	char *text;
	int r = 0;

	memset(s, 0, sizeof *s);
	s->source = strdup(path);
	if (!s->source)
		return -ENOMEM;
	text = slurp(path, err, errlen, &r);
	if (!text)
		return r;
	doc = cJSON_Parse(text);
	free(text);
	fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
	ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	res = cJSON_GetObjectItemCaseSensitive(doc, "results");
	if (!doc || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, "sandproof-baseline") ||
	    !cJSON_IsNumber(ver) || !cJSON_IsObject(res)) {
		snprintf(err, errlen, "%s: not a sandproof baseline (a JSON object with "
			 "\"format\": \"sandproof-baseline\", \"version\" and \"results\")", path);
		cJSON_Delete(doc);
		return -EINVAL;
	}
	if (ver->valuedouble != BASELINE_VERSION) {
		snprintf(err, errlen, "%s: baseline version %g; this sandproof reads version %d",
			 path, ver->valuedouble, BASELINE_VERSION);
		cJSON_Delete(doc);
		return -EPROTO;
	}
	cJSON_ArrayForEach(os, res) {
		if (!cJSON_IsObject(os)) {
			r = -EINVAL;
			snprintf(err, errlen, "%s: results.%s: not an object", path, os->string);
			break;
		}
		cJSON_ArrayForEach(runner, os) {
			if (!cJSON_IsObject(runner)) {
				r = -EINVAL;
				snprintf(err, errlen, "%s: results.%s.%s: not an object", path,
					 os->string, runner->string);
				break;
			}
			cJSON_ArrayForEach(sc, runner) {
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(sc, "verdict");
				const cJSON *e = cJSON_GetObjectItemCaseSensitive(sc, "expected");

				if (!cJSON_IsString(v) || !cJSON_IsString(e) ||
				    report_verdict_parse(v->valuestring) == RV_NONE) {
					r = -EINVAL;
					snprintf(err, errlen, "%s: results.%s.%s.%s: needs a known "
						 "\"verdict\" and an \"expected\" string", path,
						 os->string, runner->string, sc->string);
					break;
				}
				r = add_entry(s, &cap, os->string, runner->string, sc->string,
					      v->valuestring, e->valuestring);
				if (r)
					break;
			}
			if (r)
				break;
		}
		if (r)
			break;
	}
	cJSON_Delete(doc);
	if (r == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (r == 0)
		r = report_index(s);
	return r;
}

int report_load_any(const char *path, struct report_set *set, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	int c = EOF;

	if (f) {
		do
			c = fgetc(f);
		while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
		fclose(f);
	}
	if (c == '{')
		return baseline_load(path, set, err, errlen);
	return report_load(path, 0, set, err, errlen);
}

/* ---- sandproof baseline DB [-o FILE] --------------------------------------- */

static const char baseline_usage[] =
"usage: sandproof baseline DB [-o FILE]\n"
"Writes the verdicts of DB's latest run per OS and runner as readable JSON\n"
"(default: stdout), the form committed as reports/baseline/<os>.json.\n";

int baseline_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {0},
	};
	const char *out = NULL;
	int c;

	report_getopt_reset();
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(baseline_usage, stdout);
			return 0;
		}
		if (c != 'o') {
			fputs(baseline_usage, stderr);
			return REPORT_EXIT_USAGE;
		}
		out = optarg;
	}
	if (argc - optind != 1) {
		fputs(baseline_usage, stderr);
		return REPORT_EXIT_USAGE;
	}
	return report_render_db(argv[optind], 0, out, baseline_write, "baseline");
}
