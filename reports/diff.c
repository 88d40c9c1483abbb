/* diff.c - the regression gate: `sandproof diff OLD NEW [--runner R]` and
 * `sandproof diff --baseline FILE NEW` (report.h).
 *
 * Each side is a database (its latest run per OS and runner) or a baseline
 * export; results are matched by (os, runner, scenario id).  Classes:
 *   worse    pass -> fail, error or inconclusive: a regression, exit 1
 *   better   fail, error, inconclusive, skip or unsupported -> pass
 *   changed  any other verdict change (e.g. pass -> skip: coverage lost,
 *            listed but not a regression: the host lacked something)
 *   vanished a pass in OLD with no result in NEW (a runner that stopped
 *            running, a deleted or filtered-out scenario): a regression,
 *            exit 1, unless --allow-removed; a runner with no result at all
 *            in NEW is named as missing
 *   added    only in NEW; removed: any other result only in OLD
 * Exit 0 no regression, 1 regression, 2 usage or unreadable input. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum diff_class { DC_WORSE, DC_VANISHED, DC_BETTER, DC_CHANGED, DC_ADDED, DC_REMOVED, DC_SAME,
		  DC_N };

static const char *const class_names[DC_N] = {
	"worse", "vanished", "better", "changed", "added", "removed", "unchanged",
};

/* One result of one side. */
struct diff_item {
	const char *os, *runner, *id;
	const struct report_res *r;
};

static int item_cmp(const void *a, const void *b)
{
	const struct diff_item *x = a, *y = b;
	int c = strcmp(x->os, y->os);

	if (!c)
		c = strcmp(x->runner, y->runner);
	return c ? c : strcmp(x->id, y->id);
}

static int is_bad(enum report_verdict v)
{
	return v == RV_FAIL || v == RV_ERROR || v == RV_INCONCLUSIVE;
}

static enum diff_class classify(enum report_verdict o, enum report_verdict n)
{
	if (o == n)
		return DC_SAME;
	if (o == RV_PASS && is_bad(n))
		return DC_WORSE;
	if (n == RV_PASS)
		return DC_BETTER;
	return DC_CHANGED;
}

/* The set's results, restricted to runner (NULL: all), sorted. */
static struct diff_item *items(const struct report_set *s, const char *runner, size_t *n)
{
	struct diff_item *v = calloc(s->n_scens * s->n_cols + 1, sizeof *v);

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n_scens; i++)
		for (size_t j = 0; j < s->n_cols; j++) {
			const struct report_res *r = report_cell(s, i, j);

			if (r && (!runner || !strcmp(runner, s->cols[j].runner)))
				v[(*n)++] = (struct diff_item){
					s->cols[j].os, s->cols[j].runner, s->scens[i].id, r,
				};
		}
	qsort(v, *n, sizeof *v, item_cmp);
	return v;
}

/* Text on a terminal: control characters (escape sequences from recorded
 * output) are shown as '?', at most max bytes. */
static void safe(FILE *f, const char *s, size_t max)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)(s ? s : "-"); *p && n < max; p++, n++)
		fputc(*p < 0x20 || *p == 0x7F ? '?' : *p, f);
	if (s && strlen(s) > max)
		fputs("...", f);
}

struct pair {
	const struct diff_item *o, *n;
	enum diff_class c;
};

static void put_pair(const struct pair *p)
{
	const struct diff_item *it = p->n ? p->n : p->o;

	printf("  ");
	safe(stdout, it->os, 64);
	printf("/");
	safe(stdout, it->runner, 64);
	printf("  ");
	safe(stdout, it->id, 256);
	printf("  ");
	if (p->o && p->n) {
		safe(stdout, p->o->r->verdict, 32);
		printf(" -> ");
	}
	safe(stdout, it->r->verdict, 32);
	if (p->n && p->n->r->v != RV_PASS && (p->n->r->observed || p->n->r->reason)) {
		printf("  (");
		safe(stdout, p->n->r->reason ? p->n->r->reason : p->n->r->observed, 200);
		printf(")");
	}
	printf("\n");
}

/* Does the sorted list v[0..n) hold a result of (os, runner)? */
static int has_column(const struct diff_item *v, size_t n, const char *os, const char *runner)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(v[k].os, os) && !strcmp(v[k].runner, runner))
			return 1;
	return 0;
}

/* Names every (os, runner) of OLD with no result at all in NEW: a runner
 * that stopped running, not a scenario that went away. */
static void put_missing_runners(const struct diff_item *o, size_t n_o, const struct diff_item *n,
				size_t n_n)
{
	for (size_t k = 0; k < n_o; k++) {
		size_t passes = 0, all = 0, e = k;

		if (k > 0 && !strcmp(o[k].os, o[k - 1].os) && !strcmp(o[k].runner, o[k - 1].runner))
			continue;
		if (has_column(n, n_n, o[k].os, o[k].runner))
			continue;
		for (; e < n_o && !strcmp(o[e].os, o[k].os) && !strcmp(o[e].runner, o[k].runner); e++, all++)
			passes += o[e].r->v == RV_PASS;
		printf("runner missing from NEW: ");
		safe(stdout, o[k].os, 64);
		printf("/");
		safe(stdout, o[k].runner, 64);
		printf(" (%zu results in OLD, %zu of them passes)\n", all, passes);
	}
}

/* Pairs the sorted lists and classifies each pair; returns how many. */
static size_t diff_pair(const struct diff_item *o, size_t n_o, const struct diff_item *n,
			size_t n_n, struct pair *p)
{
	size_t i = 0, j = 0, n_p = 0;

	while (i < n_o || j < n_n) {
		int c = i == n_o ? 1 : j == n_n ? -1 : item_cmp(&o[i], &n[j]);

		if (c < 0) {
			p[n_p++] = (struct pair){ &o[i], NULL,
						  o[i].r->v == RV_PASS ? DC_VANISHED : DC_REMOVED };
			i++;
		} else if (c > 0) {
			p[n_p++] = (struct pair){ NULL, &n[j++], DC_ADDED };
		} else {
			p[n_p] = (struct pair){ &o[i], &n[j], classify(o[i].r->v, n[j].r->v) };
			n_p++, i++, j++;
		}
	}
	return n_p;
}

/* Compares the two sets and prints the differences; returns the number of
 * regressions (vanished passes among them unless allow_removed), or
 * -ENOMEM. */
static long diff_sets(const struct report_set *old, const struct report_set *new,
		      const char *runner, int allow_removed, size_t *seen)
{
	size_t n_o, n_n, n_p, count[DC_N] = {0};
	struct diff_item *o = items(old, runner, &n_o), *n = items(new, runner, &n_n);
	struct pair *p = calloc(n_o + n_n + 1, sizeof *p);
	long bad;

	if (!o || !n || !p) {
		free(o);
		free(n);
		free(p);
		return -ENOMEM;
	}
	n_p = diff_pair(o, n_o, n, n_n, p);
	for (size_t k = 0; k < n_p; k++)
		count[p[k].c]++;
	put_missing_runners(o, n_o, n, n_n);
	for (int c = 0; c < DC_SAME; c++) {
		if (!count[c])
			continue;
		printf("%s (%zu)%s:\n", class_names[c], count[c],
		       c == DC_VANISHED ? (allow_removed ? ", allowed by --allow-removed"
							 : ", passes missing from NEW") : "");
		for (size_t k = 0; k < n_p; k++)
			if (p[k].c == (enum diff_class)c)
				put_pair(&p[k]);
	}
	printf("%zu worse, %zu vanished, %zu better, %zu changed, %zu added, %zu removed, %zu unchanged\n",
	       count[DC_WORSE], count[DC_VANISHED], count[DC_BETTER], count[DC_CHANGED],
	       count[DC_ADDED], count[DC_REMOVED], count[DC_SAME]);
	*seen = n_o + n_n;
	bad = (long)count[DC_WORSE] + (allow_removed ? 0 : (long)count[DC_VANISHED]);
	free(o);
	free(n);
	free(p);
	return bad;
}

static const char diff_usage[] =
"usage: sandproof diff OLD NEW [--runner R] [--allow-removed]\n"
"       sandproof diff --baseline FILE NEW [--runner R] [--allow-removed]\n"
"Compares the verdicts of two results databases (their latest run per OS and\n"
"runner) or of a baseline export (sandproof baseline) and a database, by OS,\n"
"runner and scenario: worse (pass -> fail, error, inconclusive), vanished (a\n"
"pass with no result in NEW), better, changed, added, removed; a runner with no\n"
"result at all in NEW is named.  Exit 1 when anything got worse or a pass\n"
"vanished (--allow-removed: vanished passes are listed, not counted), 0\n"
"otherwise, 2 for usage errors and unreadable inputs.\n";

int diff_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"runner", required_argument, NULL, 'r'}, {"baseline", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'}, {"allow-removed", no_argument, NULL, 'a'}, {0},
	};
	const char *runner = NULL, *baseline = NULL, *paths[2];
	struct report_set sets[2] = {0};
	char err[1024] = "";
	size_t seen = 0;
	long worse;
	int c, rc = 0, allow_removed = 0;

	report_getopt_reset();
	while ((c = getopt_long(argc, argv, "r:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(diff_usage, stdout); return 0;
		case 'r': runner = optarg; break;
		case 'b': baseline = optarg; break;
		case 'a': allow_removed = 1; break;
		default: fputs(diff_usage, stderr); return REPORT_EXIT_USAGE;
		}
	}
	if (argc - optind != (baseline ? 1 : 2)) {
		fputs(diff_usage, stderr);
		return REPORT_EXIT_USAGE;
	}
	paths[0] = baseline ? baseline : argv[optind];
	paths[1] = argv[argc - 1];
	for (int k = 0; k < 2 && rc == 0; k++) {
		int r = k == 0 && baseline ? baseline_load(paths[0], &sets[0], err, sizeof err)
					   : report_load_any(paths[k], &sets[k], err, sizeof err);

		if (r) {
			fprintf(stderr, "sandproof: %s\n", err[0] ? err : strerror(-r));
			rc = r == -ENOMEM ? REPORT_EXIT_INTERNAL : REPORT_EXIT_USAGE;
		}
	}
	if (rc == 0) {
		printf("sandproof diff: ");
		safe(stdout, paths[0], 1024);
		printf(" -> ");
		safe(stdout, paths[1], 1024);
		printf("%s%s\n", runner ? ", runner " : "", runner ? runner : "");
		worse = diff_sets(&sets[0], &sets[1], runner, allow_removed, &seen);
		if (worse < 0) {
			fprintf(stderr, "sandproof: diff: out of memory\n");
			rc = REPORT_EXIT_INTERNAL;
		} else if (runner && seen == 0) {
			fprintf(stderr, "sandproof: diff: no results for runner %s on either side\n", runner);
			rc = REPORT_EXIT_USAGE;
		} else {
			rc = worse ? REPORT_EXIT_REGRESSION : 0;
		}
	}
	report_free(&sets[0]);
	report_free(&sets[1]);
	return rc;
}
