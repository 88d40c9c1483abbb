/* test_reports.c - renderers, baseline, diff and merge (reports/).
 *
 * Usage: test_reports [PATH/reports/tests]   (the directory holding
 * junit.xsd, check_junit.py and check_html.py; default: the current one)
 *
 * Builds small databases through the store (sandproof/store.h) - several scenarios and
 * runners, every verdict, a repeated result, an older run, and evidence
 * holding markup, '&', invalid UTF-8 and control characters - then runs each
 * subcommand in a forked child (its stdout and stderr into files) and checks
 * the output.  Every file lives in one mkdtemp directory, removed at the end
 * (kept, for a look, when TEST_REPORTS_KEEP is set).  python3, prove and xmllint are used when present; a check needing a
 * missing one is a SKIP. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "t.h"
#include "sandproof/store.h"
#include "report.h"

#ifndef TEST_DIR
#define TEST_DIR "."
#endif

static char base[256];
static const char *test_dir = TEST_DIR;

static const char *P(const char *name)
{
	static char bufs[8][PATH_MAX];
	static int k;
	char *b = bufs[k++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", base, name);
	return b;
}

static void cleanup(void)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(P(e->d_name));
	closedir(d);
	rmdir(base);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, k;

	if (!f)
		return strdup("");
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
	} while (k > 0);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Runs fn(argv) in a child with stdout into out and stderr into err (NULL:
 * the base's "stdout"/"stderr"); returns its exit status, or -1. */
static int sub(int (*fn)(int, char **), const char *out, const char *err, ...)
{
	char *argv[32];
	int argc = 0, st;
	va_list ap;
	pid_t pid;

	va_start(ap, err);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int o = open(out ? out : P("stdout"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err ? err : P("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(99);
		st = fn(argc, argv);
		fflush(stdout);
		fflush(stderr);
		_exit(st);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs a shell command line (for python3, prove, xmllint); its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	fflush(stdout);
	st = system(cmd);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have(const char *prog)
{
	return sh("command -v %s >/dev/null 2>&1", prog) == 0;
}

/* ---- building databases ------------------------------------------------ */

static const char *const EVIL_EV =
	"{\"op\":\"write\",\"ok\":false,\"errno\":\"EACCES\"}\n"
	"<script>alert('x')</script> & \"quoted\" ]]> \x01\x1b[31m bad utf8 \xff\xfe end\n"
	"```\n<script>fenced()</script>\n";

static void scen(struct store *db, const char *id, const char *area, const char *claim)
{
	struct store_scenario s = {
		.id = id, .area = area, .clauses = "FS-1", .claim = claim,
		.file = "scenarios/x.lua", .expect_json = "{\"linux\":[\"pass\"]}",
	};

	if (store_put_scenario(db, &s))
		fprintf(stderr, "scenario %s: %s\n", id, store_get_error(db));
}

static int64_t run(struct store *db, const char *os, const char *started, const char *runners)
{
	struct store_run r = {
		.started_at = started, .os = os, .kernel = "6.18.0", .arch = "x86_64",
		.user = "tester", .uid = 1000, .harness_version = "0.1.0",
		.git_revision = "abc123", .runners = runners, .seed = 7,
		.env_json = "{\"landlock_abi\":7,\"seccomp_notify\":true,\"userns\":{\"kernel.x\":\"1\"}}",
	};
	int64_t id = store_begin_run(db, &r);

	if (id < 0)
		fprintf(stderr, "run: %s\n", store_get_error(db));
	return id;
}

static void res(struct store *db, int64_t run_id, const char *runner, const char *sid,
		const char *verdict, const char *reason, const char *evidence)
{
	struct store_result r = {
		.run_id = run_id, .runner = runner, .scenario_id = sid, .verdict = verdict,
		.expected = "pass", .observed = "denied <b>bold</b>", .reason = reason,
		.attempts = 1, .windows_hit = -1, .min_windows = -1, .seed = 7,
		.duration_ms = 12,
	};
	struct store_evidence ev[2] = {
		{ "probe", evidence ? evidence : "{\"op\":\"write\",\"ok\":true}" },
		{ "stderr", "tail & more" },
	};

	if (!strcmp(verdict, "fail"))  /* net.deny: a reporting fault, the rest escapes */
		r.impact = !strcmp(sid, "net.deny") ? "reporting" : "escape";
	if (!strcmp(sid, "net.deny"))
		r.windows_hit = 0;   /* how the harness records a plain scenario */
	if (!strcmp(sid, "swap.race")) {
		r.attempts = 100;
		r.windows_hit = 3;
		r.min_windows = 10;
	}
	if (store_add_result(db, &r, ev, 2) < 0)
		fprintf(stderr, "result %s/%s: %s\n", sid, runner, store_get_error(db));
}

/* Database A (linux): an older run, then a run of ref and none over five
 * scenarios with every verdict; proc.tree is run twice for ref (pass, then
 * error) and not at all for none. */
static int make_a(const char *path, const char *net_ref, const char *net_none)
{
	struct store *db;
	char err[512];
	int64_t r1, r2;

	if (store_open(path, &db, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	scen(db, "fs.write.outside", "fs", "writes stay in the workspace <img src=x onerror=alert(1)>");
	scen(db, "meta.hooks", "meta", "hooks are read-only");
	scen(db, "swap.race", "swap", "a swapped dir never redirects a write");
	scen(db, "net.deny", "net", "no network & no loopback");
	scen(db, "proc.tree", "proc", "the tree dies");
	r1 = run(db, "linux", "2025-01-01T00:00:00.000Z", "ref");
	res(db, r1, "ref", "fs.write.outside", "fail", NULL, NULL);
	store_finish_run(db, r1, "2025-01-01T00:01:00.000Z");
	r2 = run(db, "linux", "2025-06-01T12:00:00.000Z", "ref,none");
	res(db, r2, "ref", "fs.write.outside", "pass", NULL, NULL);
	res(db, r2, "none", "fs.write.outside", "fail", NULL, EVIL_EV);
	res(db, r2, "ref", "meta.hooks", "skip", "landlock unavailable <b>#1</b>", NULL);
	res(db, r2, "none", "meta.hooks", "unsupported", "cannot express protected names", NULL);
	res(db, r2, "ref", "swap.race", "inconclusive", "3 windows < 10", NULL);
	res(db, r2, "none", "swap.race", "error", "lua error", "traceback <script>");
	res(db, r2, "ref", "net.deny", net_ref, NULL, NULL);
	res(db, r2, "none", "net.deny", net_none, NULL, NULL);
	res(db, r2, "ref", "proc.tree", "pass", NULL, NULL);
	res(db, r2, "ref", "proc.tree", "error", "repeat 2 broke", NULL);
	store_finish_run(db, r2, "2025-06-01T12:05:00.000Z");
	return store_close(db);
}

/* A later run appended to a copy of A: ref net.deny gets worse, none's
 * gets better. */
static int add_later_run(const char *path, const char *net_ref, const char *net_none)
{
	struct store *db;
	char err[512];
	int64_t r3;

	if (store_open(path, &db, err, sizeof err))
		return -1;
	r3 = run(db, "linux", "2025-07-01T00:00:00.000Z", "ref,none");
	res(db, r3, "ref", "fs.write.outside", "pass", NULL, NULL);
	res(db, r3, "ref", "net.deny", net_ref, NULL, NULL);
	res(db, r3, "none", "net.deny", net_none, NULL, NULL);
	store_finish_run(db, r3, NULL);
	return store_close(db);
}

/* A one-run database of os with two scenarios for ref, both pass. */
static int make_os(const char *path, const char *os, const char *started)
{
	struct store *db;
	char err[512];
	struct store_scenario s = {
		.id = "net.deny", .area = "net", .clauses = "NET-1", .claim = "no network",
		.expect_json = NULL,
	};
	int64_t r;
	char ex[128];

	if (store_open(path, &db, err, sizeof err))
		return -1;
	snprintf(ex, sizeof ex, "{\"%s\":[\"denied\"]}", os);
	s.expect_json = ex;
	store_put_scenario(db, &s);
	scen(db, !strcmp(os, "linux") ? "fs.linux_only" : "fs.macos_only", "fs", "os specific");
	r = run(db, os, started, "ref");
	res(db, r, "ref", "net.deny", "pass", NULL, NULL);
	res(db, r, "ref", !strcmp(os, "linux") ? "fs.linux_only" : "fs.macos_only", "pass",
	    NULL, NULL);
	store_finish_run(db, r, NULL);
	return store_close(db);
}

/* A byte copy (a closed database has no -wal to carry along). */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[8192];
	size_t k;
	int r = in && out ? 0 : -1;

	while (r == 0 && (k = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, k, out) != k)
			r = -1;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		r = -1;
	return r;
}

/* What a database holds, read back through the store. */
struct db_tally {
	struct store *db;
	int64_t runs, results, evidence;
	char os[4][16];              /* the distinct OSes of its runs */
	int n_os;
	int net_deny_union;          /* scenario net.deny expects denied on linux and macos */
};

static int tally_run(const struct store_run_row *row, void *ctx)
{
	struct db_tally *t = ctx;
	int i;

	t->runs++;
	for (i = 0; i < t->n_os && strcmp(t->os[i], row->run.os); i++)
		;
	if (i == t->n_os && t->n_os < 4)
		snprintf(t->os[t->n_os++], sizeof t->os[0], "%s", row->run.os);
	return 0;
}

static int tally_evidence(int64_t id, const struct store_evidence *ev, void *ctx)
{
	(void)id;
	(void)ev;
	((struct db_tally *)ctx)->evidence++;
	return 0;
}

static int tally_result(const struct store_result_row *row, void *ctx)
{
	struct db_tally *t = ctx;

	t->results++;
	return store_read_evidence(t->db, row->id, tally_evidence, t);
}

/* expect_json's first outcome for os, or "". */
static const char *expect_first(const cJSON *ex, const char *os)
{
	const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ex, os), 0);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static int tally_scenario(const struct store_scenario *sc, void *ctx)
{
	struct db_tally *t = ctx;
	cJSON *ex;

	if (strcmp(sc->id, "net.deny"))
		return 0;
	ex = cJSON_Parse(sc->expect_json);
	t->net_deny_union = !strcmp(expect_first(ex, "linux"), "denied") &&
			    !strcmp(expect_first(ex, "macos"), "denied");
	cJSON_Delete(ex);
	return 0;
}

/* Fills *t from the database at path; 0 or -errno. */
static int db_tally(const char *path, struct db_tally *t)
{
	char err[512];
	int r;

	memset(t, 0, sizeof *t);
	r = store_open_readonly(path, &t->db, err, sizeof err);
	if (r) {
		printf("# %s\n", err);
		return r;
	}
	r = store_read_runs(t->db, tally_run, t);
	r = r ?: store_read_results(t->db, 0, tally_result, t);
	r = r ?: store_read_scenarios(t->db, tally_scenario, t);
	store_close(t->db);
	t->db = NULL;
	return r;
}

/* ---- checks ------------------------------------------------------------ */

/* Lines outside code fences hold no "<script" (Markdown renders raw HTML). */
static int md_no_raw_script(const char *md)
{
	size_t fence = 0;

	for (const char *l = md; *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l), ticks = 0;

		while (ticks < len && l[ticks] == '`')
			ticks++;
		if (ticks >= 3 && (fence == 0 || ticks == fence))
			fence = fence ? 0 : ticks;
		else if (!fence && memmem(l, len, "<script", 7))
			return 0;
		l += len + (nl != NULL);
	}
	return 1;
}

static void check_html(const char *db)
{
	char *h;

	t_ok(sub(report_main, NULL, NULL, "report", db, "-o", P("r.html"), NULL) == 0,
	     "report --format html (default) -o FILE exits 0");
	h = slurp(P("r.html"));
	t_ok(count(h, "<table id=\"matrix\">") == 1, "HTML has one <table id=\"matrix\">");
	t_ok(count(h, "<th>escape</th><th>exposure</th><th>hardening</th><th>reporting</th><th>fidelity</th><th>residue</th>") == 1 &&
	     strstr(h, "<section id=\"impact\">") && strstr(h, "<section id=\"impact\">") < strstr(h, "<section id=\"summary\">") &&
	     count(h, "<td class=\"n\" data-impact=\"escape\">1<br><span class=\"t\">fs.write.outside</span></td>") == 1 &&
	     count(h, "<td class=\"n\" data-impact=\"reporting\">1<br><span class=\"t\">net.deny</span></td>") == 1,
	     "HTML: the impact table leads, each class with its scenarios");
	t_ok(count(h, "data-runner=\"none\" data-impact=\"escape\"") == 1 &&
	     count(h, "data-runner=\"none\" data-impact=\"reporting\"") == 1 &&
	     count(h, "data-impact=\"none\" title=") == 8 &&
	     count(h, "<input type=\"checkbox\" checked data-impact=\"escape\">") == 1,
	     "HTML: every cell carries its class, and the filters offer each class");
	t_ok(count(h, "<td class=\"cell ") == 10, "HTML has 5 scenarios x 2 runners = 10 cells (got %zu)",
	     count(h, "<td class=\"cell "));
	t_ok(count(h, "data-verdict=\"none\" data-scenario=\"proc.tree\" data-os=\"linux\" data-runner=\"none\"") == 1,
	     "a scenario not run is a cell with data-verdict=none");
	t_ok(count(h, "<script") == 1 && count(h, "<img") == 0,
	     "no <script> or <img> from evidence or claims: only the report's own script");
	t_ok(count(h, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;") == 1,
	     "evidence is shown, escaped");
	t_ok(!strchr(h, '\x01') && !strchr(h, '\x1b') && count(h, "\xEF\xBF\xBD") >= 2,
	     "control characters dropped, invalid UTF-8 replaced by U+FFFD");
	t_ok(count(h, "data-verdict=\"pass\" data-scenario=\"fs.write.outside\" data-os=\"linux\" data-runner=\"ref\"") == 1,
	     "the latest run per runner is shown (older fail hidden)");
	t_ok(count(h, "data-verdict=\"error\" data-scenario=\"proc.tree\" data-os=\"linux\" data-runner=\"ref\"") == 1
	     && count(h, "worst of 2") == 1, "repeats fold into the worst verdict");
	t_ok(count(h, "race 3/100 min 10</span>") == 2 && count(h, "class=\"race low\"") == 2 &&
	     count(h, "class=\"race") == 2,
	     "race power shown (attempts, windows hit, minimum)");
	t_ok(count(h, "&quot;landlock_abi&quot;:\t7") == 1 || count(h, "&quot;landlock_abi&quot;: 7") == 1,
	     "environment fingerprint shown");
	t_ok(count(h, "://") == 0 && count(h, "default-src 'none'") == 1,
	     "nothing fetched: no URL, a CSP of default-src 'none'");
	t_ok(count(h, "data-area=\"swap\"") >= 2 && count(h, "data-v=\"inconclusive\"") == 1,
	     "filters by area and verdict");
	if (have("python3"))
		t_ok(sh("python3 %s/check_html.py %s 10 >%s 2>&1", test_dir, P("r.html"),
			P("py.out")) == 0, "python html.parser: one script element, 10 matrix cells, no injected element");
	else
		t_skipped("python3 missing: HTML parse check");
	free(h);
}

/* none's fails: fs.write.outside an escape, net.deny a reporting fault;
 * ref has none.  Escapes come first in every report. */
static void check_junit_impact(void)
{
	char *x = slurp(P("r.xml"));
	const char *esc = strstr(x, "<property name=\"impact.escape\" value=\"1: fs.write.outside\"/>");
	const char *run = esc ? strstr(esc, "<property name=\"run\"") : NULL;

	t_ok(esc && run && strstr(x, "name=\"impact.") == strstr(x, "name=\"impact.escape\"") && count(x, "<property name=\"impact.reporting\" value=\"1: net.deny\"/>") == 1 &&
	     count(x, "<property name=\"impact.escape\" value=\"0\"/>") == 1,
	     "JUnit: each suite's fails by class, escapes first, before the run's properties");
	t_ok(count(x, "<failure type=\"escape\"") == 1 && count(x, "<failure type=\"reporting\"") == 1 &&
	     count(x, "\nimpact: escape\n") == 1,
	     "JUnit: a failure's type is its impact class");
	free(x);
}

static void check_junit(const char *db)
{
	t_ok(sub(report_main, NULL, NULL, "report", "--format", "junit", db, "-o", P("r.xml"), NULL) == 0,
	     "report --format junit exits 0");
	if (have("python3"))
		t_ok(sh("python3 %s/check_junit.py %s/junit.xsd %s 9 2 3 2 >%s 2>&1", test_dir,
			test_dir, P("r.xml"), P("py.out")) == 0,
		     "JUnit parses (xml.etree), counts 9 tests 2 failures 3 errors 2 skipped, valid against junit.xsd");
	else
		t_skipped("python3 missing: JUnit parse");
	if (have("xmllint"))
		t_ok(sh("xmllint --noout --schema %s/junit.xsd %s >%s 2>&1", test_dir, P("r.xml"),
			P("lint.out")) == 0, "xmllint --schema junit.xsd accepts it");
	else
		t_skipped("xmllint missing: second schema check");
	check_junit_impact();
}

static void check_tap_md(const char *db, const char *good_db)
{
	char *t, *m;

	t_ok(sub(report_main, NULL, NULL, "report", db, "--format", "tap", "-o", P("r.tap"), NULL) == 0,
	     "report --format tap exits 0");
	t = slurp(P("r.tap"));
	t_ok(count(t, "\n1..9\n") == 1 && count(t, "\nok ") == 4 && count(t, "\nnot ok ") == 5 &&
	     count(t, " # SKIP ") == 2, "TAP: plan 1..9, 4 ok (2 SKIP), 5 not ok");
	t_ok(count(t, "\n<script") == 0 && count(t, "\n#   <script>alert") == 1,
	     "TAP evidence lines are diagnostics");
	if (have("prove")) {
		t_ok(sh("prove -v --exec cat %s >%s 2>&1", P("r.tap"), P("prove.out")) != 0 &&
		     sh("grep -q 'Failed 5/9 subtests' %s", P("prove.out")) == 0 &&
		     sh("grep -qi 'parse error' %s", P("prove.out")) != 0,
		     "prove parses it: Failed 5/9 subtests, no parse error");
		t_ok(sub(report_main, NULL, NULL, "report", good_db, "--format", "tap", "-o",
			 P("good.tap"), NULL) == 0 &&
		     sh("prove --exec cat %s >%s 2>&1", P("good.tap"), P("prove.out")) == 0,
		     "prove passes a database of passes");
	} else {
		t_skipped("prove missing");
		t_skipped("prove missing");
	}
	t_ok(sub(report_main, NULL, NULL, "report", db, "--format", "markdown", "-o", P("r.md"), NULL) == 0,
	     "report --format markdown exits 0");
	m = slurp(P("r.md"));
	t_ok(count(m, "## sandproof results") == 1 && count(m, "### Not passing (5)") == 1 &&
	     count(m, "| ref | 2 | 0 | **1** | **1** | **1** | 0 | 0 |") == 1,
	     "Markdown: summary table row and the failing results");
	t_ok(md_no_raw_script(m) && count(m, "<details>") == 6,
	     "Markdown: evidence only in fences and <details>, no raw <script>");
	t_ok(strstr(m, "### Impact of the failures (escapes first)") &&
	     strstr(m, "### Impact of the failures") < strstr(m, "| runner | pass |") &&
	     count(m, "| runner | escape | exposure | hardening | reporting | fidelity | residue |") == 1 &&
	     count(m, "| none | **1** | 0 | 0 | **1** | 0 | 0 |") == 1 && count(m, "| ref | 0 | 0 | 0 | 0 | 0 | 0 |") == 1,
	     "Markdown: the impact table leads, escapes first");
	t_ok(count(m, "- none, escape (1):<code>fs.write.outside</code>\n- none, reporting (1):<code>net.deny</code>\n") == 1,
	     "Markdown: each class with its scenarios, escapes first");
	free(t);
	free(m);
}

/* A database whose one runner fails three scenarios, one per class that
 * comes first (escape, exposure, hardening), plus a reporting fault: every
 * format names hardening, after exposure and before reporting. */
static int make_classes(const char *path)
{
	static const char *const fails[][2] = {
		{"net.deny", "reporting"}, {"priv.ptrace", "hardening"},
		{"fs.dev", "exposure"}, {"fs.write.outside", "escape"},
	};
	struct store *db;
	char err[512];
	int64_t r;

	if (store_open(path, &db, err, sizeof err))
		return -1;
	r = run(db, "linux", "2025-06-01T12:00:00.000Z", "bwrap");
	for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
		struct store_result x = {
			.run_id = r, .runner = "bwrap", .scenario_id = fails[i][0], .verdict = "fail",
			.expected = "refused", .observed = "attached", .attempts = 1,
			.windows_hit = -1, .min_windows = -1, .seed = 7, .duration_ms = 3,
			.impact = fails[i][1],
		};

		scen(db, fails[i][0], "priv", "x");
		store_add_result(db, &x, NULL, 0);
	}
	store_finish_run(db, r, NULL);
	return store_close(db);
}

static void check_hardening(void)
{
	char *h, *x, *m, *t;

	t_ok(make_classes(P("cls.sqlite")) == 0, "a database with an escape, an exposure, a hardening and a reporting fail");
	t_ok(sub(report_main, NULL, NULL, "report", P("cls.sqlite"), "-o", P("cls.html"), NULL) == 0 &&
	     sub(report_main, NULL, NULL, "report", P("cls.sqlite"), "--format", "junit", "-o", P("cls.xml"), NULL) == 0 &&
	     sub(report_main, NULL, NULL, "report", P("cls.sqlite"), "--format", "markdown", "-o", P("cls.md"), NULL) == 0 &&
	     sub(report_main, NULL, NULL, "report", P("cls.sqlite"), "--format", "tap", "-o", P("cls.tap"), NULL) == 0,
	     "it renders in the four formats");
	h = slurp(P("cls.html"));
	x = slurp(P("cls.xml"));
	m = slurp(P("cls.md"));
	t = slurp(P("cls.tap"));
	t_ok(count(h, "<td class=\"n\" data-impact=\"hardening\">1<br><span class=\"t\">priv.ptrace</span></td>") == 1 &&
	     strstr(h, "data-impact=\"exposure\">1") < strstr(h, "data-impact=\"hardening\">1") &&
	     strstr(h, "data-impact=\"hardening\">1") < strstr(h, "data-impact=\"reporting\">1") &&
	     count(h, "<input type=\"checkbox\" checked data-impact=\"hardening\">") == 1 &&
	     count(h, "data-runner=\"bwrap\" data-impact=\"hardening\"") == 1,
	     "HTML: hardening counted after exposure, before reporting; a filter and a cell class");
	t_ok(count(x, "<property name=\"impact.hardening\" value=\"1: priv.ptrace\"/>") == 1 &&
	     strstr(x, "name=\"impact.exposure\"") < strstr(x, "name=\"impact.hardening\"") &&
	     strstr(x, "name=\"impact.hardening\"") < strstr(x, "name=\"impact.reporting\"") &&
	     count(x, "<failure type=\"hardening\"") == 1,
	     "JUnit: impact.hardening between exposure and reporting; a failure of type hardening");
	t_ok(count(m, "| bwrap | **1** | **1** | **1** | **1** | 0 | 0 |") == 1 &&
	     count(m, "- bwrap, escape (1):<code>fs.write.outside</code>\n- bwrap, exposure (1):<code>fs.dev</code>\n"
		      "- bwrap, hardening (1):<code>priv.ptrace</code>\n- bwrap, reporting (1):<code>net.deny</code>\n") == 1,
	     "Markdown: a hardening column and list, after exposure, before reporting");
	t_ok(count(t, "# verdict: fail; expected: refused; impact: hardening\n") == 1 &&
	     count(t, "; impact: ") == 4, "TAP: each fail's class on its verdict line");
	free(h);
	free(x);
	free(m);
	free(t);
}

static void check_diff(const char *a, const char *b, const char *c)
{
	char *o;
	cJSON *j;
	const cJSON *v;

	t_ok(sub(diff_main, NULL, NULL, "diff", a, b, NULL) == 1, "diff: planted regression exits 1");
	o = slurp(P("stdout"));
	t_ok(count(o, "worse (1):\n  linux/ref  net.deny  pass -> fail") == 1 &&
	     count(o, "better (1):\n  linux/none  net.deny  fail -> pass") == 1,
	     "diff lists the worse and the better result");
	free(o);
	t_ok(sub(diff_main, NULL, NULL, "diff", "--runner", "none", a, b, NULL) == 0,
	     "diff --runner none: an improvement only exits 0");
	t_ok(sub(diff_main, NULL, NULL, "diff", a, c, NULL) == 0, "diff of an improvement exits 0");
	t_ok(sub(diff_main, NULL, NULL, "diff", a, a, NULL) == 0, "diff of a database with itself exits 0");

	t_ok(sub(baseline_main, NULL, NULL, "baseline", a, "-o", P("base.json"), NULL) == 0 &&
	     sub(baseline_main, P("base2.json"), NULL, "baseline", a, NULL) == 0,
	     "baseline -o FILE and to stdout exit 0");
	o = slurp(P("base.json"));
	{
		char *o2 = slurp(P("base2.json"));

		t_ok(!strcmp(o, o2) && count(o, "\n\t\t\t\t\"fs.write.outside\": {\"verdict\": \"pass\", \"expected\": \"pass\"},\n") == 1,
		     "baseline is stable, one scenario per line");
		free(o2);
	}
	j = cJSON_Parse(o);
	v = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(j, "results"), "linux"), "none"), "meta.hooks"), "verdict");
	t_ok(cJSON_IsString(v) && !strcmp(v->valuestring, "unsupported"),
	     "baseline: results.linux.none[meta.hooks].verdict is unsupported");
	cJSON_Delete(j);
	free(o);
	t_ok(sub(diff_main, NULL, NULL, "diff", "--baseline", P("base.json"), a, NULL) == 0,
	     "diff --baseline against its own database exits 0");
	t_ok(sub(diff_main, NULL, NULL, "diff", "--baseline", P("base.json"), b, NULL) == 1,
	     "diff --baseline detects the regression");
	t_ok(sub(diff_main, NULL, NULL, "diff", P("base.json"), b, NULL) == 1,
	     "diff OLD NEW takes a baseline export as OLD");
}

/* A pass missing from NEW is a regression unless --allow-removed; a runner
 * with no result at all in NEW is named.  good holds ref only (net.deny and
 * fs.linux_only, both pass): from a, ref's fs.write.outside pass vanishes
 * and none is gone; from c, none's one result, a pass, vanishes with it. */
static void check_diff_vanished(const char *a, const char *c, const char *good)
{
	char *o;

	t_ok(sub(diff_main, NULL, NULL, "diff", a, good, NULL) == 1, "diff: a vanished pass exits 1");
	o = slurp(P("stdout"));
	t_ok(count(o, "vanished (1), passes missing from NEW:\n  linux/ref  fs.write.outside  pass\n") == 1 &&
	     count(o, "1 vanished,") == 1,
	     "diff lists the vanished pass");
	t_ok(count(o, "runner missing from NEW: linux/none (4 results in OLD, 0 of them passes)") == 1 &&
	     count(o, "runner missing") == 1,
	     "diff names the runner missing from NEW");
	t_ok(count(o, "removed (7):") == 1 && count(o, "  linux/ref  meta.hooks  skip\n") == 1,
	     "a vanished skip is listed as removed, not counted");
	free(o);
	t_ok(sub(diff_main, NULL, NULL, "diff", "--allow-removed", a, good, NULL) == 0,
	     "diff --allow-removed: a vanished pass alone exits 0");
	o = slurp(P("stdout"));
	t_ok(count(o, "vanished (1), allowed by --allow-removed:") == 1, "and still lists it");
	free(o);
	t_ok(sub(diff_main, NULL, NULL, "diff", c, good, NULL) == 1, "diff: a runner whose pass vanished exits 1");
	o = slurp(P("stdout"));
	t_ok(count(o, "runner missing from NEW: linux/none (1 results in OLD, 1 of them passes)") == 1 &&
	     count(o, "  linux/none  net.deny  pass\n") == 1,
	     "the missing runner is named and its pass listed as vanished");
	free(o);
	t_ok(sub(diff_main, NULL, NULL, "diff", "--baseline", P("base.json"), good, NULL) == 1 &&
	     sub(diff_main, NULL, NULL, "diff", "--allow-removed", "--baseline", P("base.json"), good, NULL) == 0,
	     "diff --baseline counts a vanished pass too, unless --allow-removed");
	t_ok(sub(diff_main, NULL, NULL, "diff", "--runner", "ref", "--allow-removed", a, good, NULL) == 0 &&
	     sub(diff_main, NULL, NULL, "diff", "--runner", "ref", a, good, NULL) == 1,
	     "with --runner, the vanished passes of that runner count");
}

/* Runs fn; its exit status must be want and its stderr must name what. */
static int fails_naming(int (*fn)(int, char **), int want, const char *what, ...)
{
	char *argv[16], *e;
	int argc = 0, st;
	va_list ap;

	va_start(ap, what);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	st = sub(fn, NULL, NULL, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], NULL);
	e = slurp(P("stderr"));
	st = st == want && strstr(e, what) != NULL;
	if (!st)
		printf("# stderr: %s", e);
	free(e);
	return st;
}

static void check_bad_input(const char *a)
{
	t_ok(fails_naming(report_main, 2, "missing.sqlite: cannot open", "report",
			  P("missing.sqlite"), NULL), "missing database: exit 2, named");
	t_ok(fails_naming(baseline_main, 2, "missing.sqlite: cannot open", "baseline",
			  P("missing.sqlite"), NULL), "baseline of a missing database: exit 2, named");
	sh("echo 'not a database at all, just some text padding it out to a page' > %s", P("junk.sqlite"));
	t_ok(fails_naming(diff_main, 2, "junk.sqlite: not a sqlite database", "diff", a,
			  P("junk.sqlite"), NULL), "non-sqlite file: exit 2, named");
	copy_file(a, P("newer.sqlite"));
	sh("sqlite3 %s 'PRAGMA user_version = 99'", P("newer.sqlite"));
	t_ok(fails_naming(report_main, 2, "newer.sqlite: schema version 99 is newer", "report",
			  P("newer.sqlite"), "--format", "tap", NULL), "newer schema: exit 2, named");
	sh("echo '{\"format\": \"sandproof-baseline\", \"version\": 2, \"results\": {}}' > %s",
	   P("newer.json"));
	t_ok(fails_naming(diff_main, 2, "newer.json: baseline version 2", "diff", "--baseline",
			  P("newer.json"), a, NULL), "newer baseline version: exit 2, named");
	t_ok(fails_naming(merge_main, 2, "missing.sqlite", "merge", P("missing.sqlite"), "-o",
			  P("m.sqlite"), NULL) && access(P("m.sqlite"), F_OK) != 0,
	     "merge of a missing input: exit 2, named, no output");
	t_ok(sub(report_main, NULL, NULL, "report", a, "--format", "pdf", NULL) == 2 &&
	     sub(diff_main, NULL, NULL, "diff", a, NULL) == 2 &&
	     sub(merge_main, NULL, NULL, "merge", a, NULL) == 2,
	     "usage errors exit 2");
	t_ok(sub(report_main, NULL, NULL, "report", a, "-o", "/nonexistent-dir/x.html", NULL) == 2,
	     "unwritable -o: exit 2");
}

static void check_merge(void)
{
	struct db_tally t;
	char *h;
	struct stat st1, st2;

	make_os(P("linux.sqlite"), "linux", "2025-06-01T00:00:00.000Z");
	make_os(P("macos.sqlite"), "macos", "2025-06-01T00:00:01.000Z");
	t_ok(sub(merge_main, NULL, NULL, "merge", P("linux.sqlite"), P("macos.sqlite"), "-o",
		 P("all.sqlite"), NULL) == 0, "merge A B -o ALL exits 0");
	t_ok(db_tally(P("all.sqlite"), &t) == 0 && t.runs == 2 && t.n_os == 2 &&
	     t.results == 4 && t.evidence == 8,
	     "merged: both runs keep their OS, with every result and evidence");
	t_ok(t.net_deny_union, "merged scenario expectations are the union of the platforms'");
	t_ok(sub(report_main, NULL, NULL, "report", P("all.sqlite"), "-o", P("all.html"), NULL) == 0,
	     "report of the merged database exits 0");
	h = slurp(P("all.html"));
	t_ok(count(h, "<td class=\"cell ") == 3 * 2 && count(h, "data-runner=\"ref\">linux/ref</th>") == 1 &&
	     count(h, "data-runner=\"ref\">macos/ref</th>") == 1, "cross-platform matrix: os/runner columns, 3 x 2 cells");
	free(h);
	stat(P("all.sqlite"), &st1);
	t_ok(fails_naming(merge_main, 2, "all.sqlite exists; give --force", "merge",
			  P("linux.sqlite"), "-o", P("all.sqlite"), NULL) &&
	     stat(P("all.sqlite"), &st2) == 0 && st1.st_ino == st2.st_ino &&
	     st1.st_size == st2.st_size, "an existing output is refused without --force, untouched");
	t_ok(sub(merge_main, NULL, NULL, "merge", P("linux.sqlite"), P("linux.sqlite"), "-o",
		 P("all.sqlite"), "--force", NULL) == 0 &&
	     db_tally(P("all.sqlite"), &t) == 0 && t.runs == 1,
	     "--force replaces it; a run given twice is copied once");
	sh("echo frames > %s", P("busy.sqlite-wal"));
	t_ok(fails_naming(merge_main, 2, "busy.sqlite-wal is not empty", "merge", P("linux.sqlite"),
			  "-o", P("busy.sqlite"), NULL) && access(P("busy.sqlite"), F_OK) != 0,
	     "an output with a live -wal log is refused");
	t_ok(sub(merge_main, NULL, NULL, "merge", P("linux.sqlite"), P("junk.sqlite"), "-o",
		 P("none.sqlite"), NULL) == 2 && access(P("none.sqlite"), F_OK) != 0,
	     "a bad input: exit 2, no output left");
	{
		DIR *d = opendir(base);
		struct dirent *e;
		int tmp = 0;

		while (d && (e = readdir(d)))
			tmp += strstr(e->d_name, ".tmp-") != NULL;
		if (d)
			closedir(d);
		t_ok(tmp == 0, "no temporary file left behind");
	}
}

int main(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	if (argc > 1)
		test_dir = argv[1];
	snprintf(base, sizeof base, "%s/test_reports.XXXXXX", tmpdir);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	t_ok(make_a(P("a.sqlite"), "pass", "fail") == 0, "database A built through the store");
	copy_file(P("a.sqlite"), P("b.sqlite"));
	add_later_run(P("b.sqlite"), "fail", "pass");
	copy_file(P("a.sqlite"), P("c.sqlite"));
	add_later_run(P("c.sqlite"), "pass", "pass");
	make_os(P("good.sqlite"), "linux", "2025-06-01T00:00:00.000Z");

	/* P() reuses its buffers: keep these paths apart */
	{
		char *a = strdup(P("a.sqlite")), *b = strdup(P("b.sqlite"));
		char *c = strdup(P("c.sqlite")), *good = strdup(P("good.sqlite"));

		check_html(a);
		check_junit(a);
		check_tap_md(a, good);
		check_hardening();
		check_diff(a, b, c);
		check_diff_vanished(a, c, good);
		check_bad_input(a);
		check_merge();
		free(a); free(b); free(c); free(good);
	}
	if (getenv("TEST_REPORTS_KEEP"))
		printf("# kept %s\n", base);
	else
		cleanup();
	return t_done();
}
