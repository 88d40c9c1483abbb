/* gc_cli.c - `sandproof-ref gc [--parent DIR] [--max-age S] [--max-roots N]
 *                              [--dry-run] [--json]`
 *
 * Evicts runtime roots in a parent by age, then LRU down to a count, exactly
 * as a run does for roots other than its own (runtime_gc()).  First, unless
 * --dry-run, it restores what crashed runs left on the host
 * (platform_replay_crashed(): on Windows the DACL journals; nothing on
 * POSIX) and says how many.  Exit status: 0 done (skipped entries are
 * reported, not errors), 1 gc failed (unsafe or unreadable parent, or a
 * replay that failed: the eviction still ran), 2 usage error. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"
#include "runtime.h"

#define GC_DEFAULT_MAX_AGE 2592000u
#define GC_DEFAULT_MAX_ROOTS 64u

static const char gc_usage[] =
	"usage: sandproof-ref gc [--parent DIR] [--max-age S] [--max-roots N] [--dry-run] [--json]\n"
	"  --parent DIR     runtime parent (default ~/.cache/sandproof/runtime/v1)\n"
	"  --max-age S      evict roots unused for more than S seconds (default 2592000)\n"
	"  --max-roots N    then evict least recently used until N remain (default 64)\n"
	"  --dry-run        report what would be evicted, change nothing\n"
	"  --json           print the report as JSON\n";

static int gc_usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "sandproof-ref gc: %s%s%s\n%s", msg, arg ? ": " : "", arg ? arg : "",
		gc_usage);
	return 2;
}

/* A plain decimal without sign, spaces or suffix. */
static bool gc_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* The parent as a request's profile.runtime.parent would take it: absolute
 * and lexically clean by this OS's path rules, never resolved by name. */
static int gc_clean_parent(const char *val, char *out, size_t n)
{
	const struct request_path_rules *r = platform_path_rules();
	const char *why;
	if ((size_t)snprintf(out, n, "%s", val) >= n)
		return -ENAMETOOLONG;
	if (!r)
		return request_clean_path(out);
	return r->absolute(out) ? r->clean(out, &why) : -EINVAL;
}

/* "--opt VALUE" or "--opt=VALUE": value into *val, advancing *i. */
static int gc_opt_value(int argc, char **argv, int *i, const char *opt, const char **val)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];
	if (strncmp(a, opt, n))
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

/* "replay": null when this OS has nothing to replay or in a dry run. */
static void gc_json_replay(struct jw *w, const struct platform_replay *pr, bool ran)
{
	if (!ran || !pr->what) {
		jw_null(w, "replay");
		return;
	}
	jw_obj_open(w, "replay");
	jw_str(w, "what", pr->what);
	jw_str(w, "where", pr->where);
	jw_uint(w, "replayed", (uint64_t)pr->replayed);
	if (pr->err)
		jw_str(w, "error", pr->detail);
	jw_obj_close(w);
}

static void gc_print_json(const char *parent, const struct runtime_report *rep, int rc,
			  const struct platform_replay *pr, bool replay_ran)
{
	struct jw w;
	jw_init(&w, stdout);
	jw_obj_open(&w, NULL);
	jw_str(&w, "parent", parent);
	jw_bool(&w, "dry_run", rep->dry_run);
	jw_bool(&w, "ok", rc == 0 && !pr->err);
	if (rc < 0)
		jw_str(&w, "error", strerror(-rc));
	gc_json_replay(&w, pr, replay_ran);
	jw_arr_open(&w, "evicted");
	for (size_t i = 0; i < rep->n_evicted; i++) {
		jw_obj_open(&w, NULL);
		jw_str(&w, "name", rep->evicted[i].name);
		jw_str(&w, "reason", rep->evicted[i].reason);
		jw_obj_close(&w);
	}
	jw_arr_close(&w);
	jw_uint(&w, "evicted_total", rep->evicted_total);
	jw_arr_open(&w, "skipped");
	for (size_t i = 0; i < rep->n_skipped; i++) {
		jw_obj_open(&w, NULL);
		jw_str(&w, "name", rep->skipped[i].name);
		jw_str(&w, "reason", rep->skipped[i].reason);
		jw_obj_close(&w);
	}
	jw_arr_close(&w);
	jw_uint(&w, "skipped_total", rep->skipped_total);
	jw_obj_close(&w);
	fputc('\n', stdout);
}

static void gc_print_replay(const struct platform_replay *pr, bool ran)
{
	if (!pr->what)
		return;
	if (!ran)
		printf("%s: not replayed (dry run)\n", pr->what);
	else if (pr->err)
		fprintf(stderr, "sandproof-ref gc: %s in %s: replay failed: %s (%s)\n", pr->what,
			pr->where[0] ? pr->where : "-", pr->detail, strerror(pr->err));
	else
		printf("%s in %s: %d left by crashed runs, restored\n", pr->what, pr->where,
		       pr->replayed);
}

static void gc_print_text(const char *parent, const struct runtime_report *rep)
{
	const char *verb = rep->dry_run ? "would evict" : "evicted";
	for (size_t i = 0; i < rep->n_evicted; i++)
		printf("%s %s (%s)\n", verb, rep->evicted[i].name, rep->evicted[i].reason);
	for (size_t i = 0; i < rep->n_skipped; i++)
		printf("skipped %s: %s\n", rep->skipped[i].name, rep->skipped[i].reason);
	printf("%s: %zu %s, %zu skipped\n", parent, rep->evicted_total,
	       rep->dry_run ? "to evict" : "evicted", rep->skipped_total);
}

/* argv[0] is the subcommand name ("gc"). */
int gc_main(int argc, char **argv)
{
	struct runtime_config cfg = {.max_age_s = GC_DEFAULT_MAX_AGE,
				     .max_roots = GC_DEFAULT_MAX_ROOTS};
	struct runtime_report rep;
	char defparent[4096];
	const char *parent = NULL, *val;
	bool dry_run = false, json = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int m;
		if (!strcmp(a, "--dry-run")) {
			dry_run = true;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(gc_usage, stdout);
			return 0;
		} else if ((m = gc_opt_value(argc, argv, &i, "--parent", &val))) {
			if (m < 0)
				return gc_usage_error("--parent needs a directory", NULL);
			if (!*val)
				return gc_usage_error("--parent must not be empty", NULL);
			if (gc_clean_parent(val, defparent, sizeof(defparent)) < 0)
				return gc_usage_error("--parent must be an absolute path without "
						      "\"..\" components (as profile.runtime.parent)", val);
			parent = defparent;
		} else if ((m = gc_opt_value(argc, argv, &i, "--max-age", &val))) {
			if (m < 0 || !gc_parse_u64(val, &cfg.max_age_s))
				return gc_usage_error("--max-age needs a number of seconds", m < 0 ? NULL : val);
		} else if ((m = gc_opt_value(argc, argv, &i, "--max-roots", &val))) {
			if (m < 0 || !gc_parse_u64(val, &cfg.max_roots))
				return gc_usage_error("--max-roots needs a count", m < 0 ? NULL : val);
		} else {
			return gc_usage_error("unexpected argument", a);
		}
	}
	if (!parent) {
		/* HOME as the request's "~" takes it, judged by this OS's path
		 * rules (Windows: "C:\\Users\\u"; '/' is a separator there too) */
		const char *home = getenv("HOME");
		char joined[sizeof(defparent)];
		if (!home || !*home)
			return gc_usage_error("HOME is not set; give --parent", NULL);
		if ((size_t)snprintf(joined, sizeof(joined), "%s/.cache/sandproof/runtime/v1",
				     home) >= sizeof(joined))
			return gc_usage_error("HOME is too long; give --parent", NULL);
		if (gc_clean_parent(joined, defparent, sizeof(defparent)) < 0)
			return gc_usage_error("HOME is not an absolute path; give --parent", home);
		parent = defparent;
	}
	cfg.parent = parent;
	struct platform_replay pr;
	(void)platform_replay_crashed(dry_run, &pr); /* pr says what happened */
	int rc = runtime_gc(&cfg, NULL, dry_run, &rep);
	if (json)
		gc_print_json(parent, &rep, rc, &pr, !dry_run);
	else {
		gc_print_replay(&pr, !dry_run);
		if (rc == 0)
			gc_print_text(parent, &rep);
	}
	if (rc < 0) {
		fprintf(stderr, "sandproof-ref gc: %s: %s%s\n", parent, strerror(-rc),
			rc == -EPERM ? " (the parent must be a directory owned by you that no one "
				       "else may write: not group- or world-writable; on Windows, "
				       "no other principal in its owner or DACL)" : "");
		return 1;
	}
	return pr.err ? 1 : 0;
}
