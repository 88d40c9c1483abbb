/* report.h - reading a results database into a matrix, and rendering it
 * (DESIGN.md "Results").  Everything under reports/ reads databases only:
 * it never runs a scenario or a runner.
 *
 * The matrix: one column per (os, runner) pair found in the database, one row
 * per scenario (sorted by area, then id).  A column shows the LATEST run
 * (greatest started_at, then greatest id) holding results for that pair;
 * older runs are counted, not shown.  When that run holds several results
 * for one scenario (`sandproof run --repeat`), the cell keeps the worst
 * verdict (fail > error > inconclusive > unsupported > skip > pass, the
 * latest among equals) and counts the repeats.
 *
 * The subcommands (report_main, diff_main, baseline_main, merge_main) are
 * declared in sandproof/report_cli.h, the one header the harness sees. */
#ifndef SANDPROOF_REPORT_H
#define SANDPROOF_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sandproof/report_cli.h"   /* the subcommands and their exit statuses */
#include "sandproof/store.h"        /* the impact classes */

/* Verdicts, in the schema's words; RV_NONE: no result in that cell. */
enum report_verdict {
	RV_PASS, RV_FAIL, RV_SKIP, RV_UNSUPPORTED, RV_INCONCLUSIVE, RV_ERROR,
	RV_NONE, RV_N
};

struct report_ev {
	char *kind;
	char *body;
};

/* One result (a matrix cell).  Strings are owned by the set; NULL where the
 * database holds NULL.  Numbers: -1 where the database holds NULL. */
struct report_res {
	int64_t id, run_id;
	enum report_verdict v;
	char *os;                    /* the run's OS */
	char *runner, *scenario_id, *verdict, *expected, *observed, *reason;
	char *finished_at;
	char *impact;                /* the class of a fail (NULL otherwise, and in a baseline) */
	char *area, *clauses, *claim;   /* the scenario's; clauses, claim may be NULL */
	int64_t attempts, windows_hit, min_windows, seed, duration_ms;
	struct report_ev *ev;
	size_t n_ev;
	unsigned repeats;            /* results folded into this cell, >= 1 */
};

struct report_run {
	int64_t id;
	char *started_at, *finished_at, *os, *kernel, *arch, *user;
	int64_t uid, seed;
	char *harness_version, *git_revision, *runners, *filter, *env_json;
};

/* A column: its strings are borrowed from one of its results. */
struct report_col {
	const char *os, *runner;
	size_t run;                  /* index in runs[]; (size_t)-1: none (baseline) */
	unsigned older_runs;         /* earlier runs of this pair, not shown */
	unsigned n[RV_N];            /* cells per verdict (RV_NONE: missing) */
	int64_t total_ms;            /* sum of the known durations */
};

/* A row: its strings are borrowed from one of its results. */
struct report_scen {
	const char *id, *area, *clauses, *claim;   /* clauses, claim: NULL if unknown */
};

struct report_set {
	char *source;                /* the file it was read from */
	struct report_run *runs;
	size_t n_runs;
	struct report_col *cols;     /* sorted by os, then runner ('ref' first) */
	size_t n_cols;
	struct report_scen *scens;   /* sorted by area, then id */
	size_t n_scens;
	struct report_res **cells;   /* [scen * n_cols + col]; NULL: not run */
	int multi_os;                /* columns span more than one OS */
	/* storage */
	struct report_res *res;
	size_t n_res;
};

/* ---- loading (report_load.c) ------------------------------------------- */

/* Reads the database at path (read-only, through the store) into *set, the
 * evidence of the shown cells too when with_evidence.  0, or -errno with a
 * message naming path in err: missing or unreadable file, not a sandproof
 * database, newer schema.  The caller frees *set with report_free(), also
 * after a failure. */
int report_load(const char *path, int with_evidence, struct report_set *set,
		char *err, size_t errlen);

/* Reads a database or a baseline export (baseline.c), told apart by the
 * file's first bytes (a JSON object or anything else). */
int report_load_any(const char *path, struct report_set *set, char *err,
		    size_t errlen);

void report_free(struct report_set *set);

/* Builds cols, scens and cells from the results res[0..n_res) of the set
 * (all of them shown): used by report_load() and baseline_load(). */
int report_index(struct report_set *set);

enum report_verdict report_verdict_parse(const char *s);   /* RV_NONE if unknown */
const char *report_verdict_name(enum report_verdict v);
/* The ordering used to fold repeats: higher is worse. */
int report_verdict_severity(enum report_verdict v);

/* The cell of scenario i, column j, or NULL. */
static inline struct report_res *report_cell(const struct report_set *s, size_t i, size_t j)
{
	return s->cells[i * s->n_cols + j];
}

/* A race result: one with a stated power (min_windows), or with windows
 * hit.  (A plain scenario has windows_hit NULL by the schema; 0 is read as
 * "not a race" too, as some harness versions record it.) */
static inline int report_is_race(const struct report_res *r)
{
	return r->min_windows >= 0 || r->windows_hit > 0;
}

/* ---- output (report_out.c) ---------------------------------------------- */

/* An output file written atomically: into a temporary file beside path,
 * renamed over path by report_out_close() only when every write succeeded,
 * so a failed render never leaves half a report where a good one was.
 * path NULL or "-": stdout. */
struct report_out {
	FILE *f;
	char *path, *tmp;
};
int report_out_open(struct report_out *o, const char *path, char *err, size_t errlen);
/* Finishes the file (commit != 0) or throws it away.  0 or -errno. */
int report_out_close(struct report_out *o, int commit, char *err, size_t errlen);
/* The common body of `report` and `baseline`: load the database db (with
 * its evidence or not), render it into out (report_out_open's path) and
 * say on stderr, prefixed "sandproof: WHO:", what went wrong.  Returns the
 * exit status: 0, REPORT_EXIT_USAGE (unreadable database, unwritable out)
 * or REPORT_EXIT_INTERNAL (out of memory, a failed render or write). */
int report_render_db(const char *db, int with_evidence, const char *out,
		     int (*render)(const struct report_set *, FILE *), const char *who);

/* Writes at most max bytes of s (0: all) as markup text: & < > " ' escaped,
 * invalid UTF-8 replaced by U+FFFD, control characters other than tab,
 * newline and CR dropped (XML 1.0 forbids them).  attr: for an attribute
 * value, where tab, newline and CR are written as character references.
 * Returns the number of input bytes left out past max. */
size_t report_esc(FILE *f, const char *s, size_t max, int attr);

/* Writes s as a JSON string literal (quotes included). */
void report_json_str(FILE *f, const char *s);

/* Column col's label into buf: "os/runner" when the set spans several
 * OSes, else "runner".  Returns buf. */
const char *report_col_label(const struct report_set *s, size_t col, char *buf, size_t n);

/* A race's power in words into buf: "3 windows hit in 100 attempts
 * (minimum 10), seed 7".  Returns buf. */
const char *report_power(const struct report_res *r, char *buf, size_t n);

/* ---- impact classes (report_impact.c) ------------------------------------ */

/* The classes of a failing result, in the order reports list them, are the
 * store's (sandproof/store.h: store_impacts, store_impact_index). */
/* The class index of a fail, or -1 (not a fail, or a fail without a known
 * class: a baseline export). */
int report_impact_of(const struct report_res *r);
/* n[c]: the fails of column col in class c. */
void report_impact_count(const struct report_set *s, size_t col, size_t n[STORE_N_IMPACTS]);

/* Resets getopt for a subcommand parsed after another parse in the same
 * process (tests call several subcommands). */
void report_getopt_reset(void);

/* ---- renderers (one file each) ------------------------------------------ */

int report_html(const struct report_set *s, FILE *f);
int report_junit(const struct report_set *s, FILE *f);
int report_markdown(const struct report_set *s, FILE *f);
int report_tap(const struct report_set *s, FILE *f);

/* ---- baseline export (baseline.c) --------------------------------------- */

/* Writes the readable export of s: per os, per runner, scenario id ->
 * verdict and expected, keys sorted, one scenario per line. */
int baseline_write(const struct report_set *s, FILE *f);

/* Reads an export written by baseline_write() into *set (no runs, no
 * evidence).  0 or -errno with a message naming path in err. */
int baseline_load(const char *path, struct report_set *set, char *err, size_t errlen);

/* The section for `sandproof explore` runs (report_explore.c): nothing
 * when the set holds none. */
void report_explore_md(const struct report_set *s, FILE *f);
void report_explore_html(const struct report_set *s, FILE *f);

#endif
