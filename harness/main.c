/* main.c - the sandproof command line.
 *
 *   sandproof run [--runner RUNNER[,RUNNER...]] [--adapter FILE.lua] [--filter GLOB] [--out DIR]
 *                 [--seed N] [--repeat N] [--timeout S] [--db-wait S]
 *                 [--jobs N]
 *   sandproof list [--filter GLOB] [--impact]
 *   sandproof env
 *
 * Exit status: 0 every result in its expected set (or skip/unsupported),
 * 1 any other verdict, 2 usage error, 3 internal error (among them a result
 * the database refused). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sandproof/store.h"
#include "child.h"
#include "datadir.h"
#include "envinfo.h"
#include "explore.h"
#include "jobs.h"
#include "sandproof/report_cli.h"
#include "runlog.h"
#include "runner.h"
#include "session.h"
#include "smoke.h"
#include "sp.h"
#include "scen.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"

#define EXIT_FAILED SESSION_EXIT_FAILED
#define EXIT_USAGE SESSION_EXIT_USAGE
#define EXIT_INTERNAL SESSION_EXIT_INTERNAL

static const char usage[] =
"usage: sandproof run [--runner RUNNER[,RUNNER...]] [--adapter FILE.lua] [--filter GLOB]\n"
"                     [--out DIR] [--seed N] [--repeat N] [--timeout S] [--db-wait S]\n"
"                     [--jobs N]\n"
"       sandproof list [--filter GLOB] [--impact]\n"
"       sandproof env\n"
"       sandproof smoke [--out DIR] [--runner RUNNER[,RUNNER...]] [--db-wait S]\n"
"       sandproof report DB [--format html|junit|markdown|tap] [-o FILE]\n"
"       sandproof diff OLD NEW [--runner R]   (OLD: a database or --baseline FILE)\n"
"       sandproof baseline DB -o FILE\n"
"       sandproof merge A.sqlite B.sqlite ... -o ALL.sqlite [--force]\n"
"       sandproof explore --runner R [--budget N] [--time S] [--seed N] [--out DIR]\n"
"                         [--max-ops N] [--batch N] [--jobs N] [--no-shrink]\n"
"\n"
"run    replays the scenarios (default: all) against each runner (default: ref)\n"
"       and records every result in DIR/<os>.sqlite (default ./sandproof-out;\n"
"       <os> is this platform's: linux, posix, ...).\n"
"       Exit 0 when every result is in its expected set (or skip/unsupported),\n"
"       1 when any is not, 2 for usage errors (also: a corrupt database or one\n"
"       from a newer schema), 3 for internal errors, among them a result that\n"
"       could not be recorded (a full disk; a database another process held\n"
"       locked for more than --db-wait seconds, default 30): the run says on\n"
"       stderr how many were lost and why.\n"
"       Interrupted (SIGINT, SIGTERM, SIGHUP): the running scenarios are\n"
"       stopped and cleaned up, the results so far kept; exit 128 + the signal.\n"
"       --jobs N (1..64, default 1) runs up to N pairs at once, a scenario\n"
"       that declares `exclusive` alone; the lines print in the order\n"
"       --jobs 1 prints them, each result is recorded as it ends.\n"
"list   one scenario per line: id, area, clauses, claim (--impact: id and\n"
"       its failing outcomes by impact class, docs/CONTRACT.md).\n"
"env    the environment fingerprint recorded with every run, and where\n"
"       the data below was found (\"data\").\n"
"report renders a database (HTML matrix, JUnit XML, Markdown, TAP).\n"
"diff   lists verdicts that got worse, better, added, removed; exit 1 on a\n"
"       regression.  baseline writes the readable export diff compares against.\n"
"merge  joins per-OS databases into one cross-platform matrix.\n"
"explore runs generated attack programs against runner R (default budget\n"
"       100 programs), judged on the host by the contract; shrinks each\n"
"       violating one and writes it as DIR/found/<id>.lua (docs/EXPLORE.md).\n"
"       Exit 0 no violation, 1 a violation found, 2 usage, 3 internal.\n"
"smoke  checks this host's prerequisites and a few telling properties of\n"
"       every runner found; exit 0 when the reference runner holds, 1 when a\n"
"       property fails, 3 when this host cannot enforce the contract at all\n"
"       or a result could not be recorded (as for run).\n"
"\n"
"RUNNER (docs/RUNNERS.md, \"Naming a runner\"): NAME, a built-in adapter\n"
"(harness/runners/NAME.lua: ref, sandproof-ref; none, no sandbox, the negative\n"
"control; the peers bwrap, firejail, codex, srt, podman) or NAME.lua on\n"
"SANDPROOF_RUNNER_PATH; [NAME=]contract:PATH, a program that speaks the\n"
"contract (docs/YOUR-RUNNER.md); [NAME=]FILE.lua, a Lua adapter (also\n"
"--adapter FILE.lua, repeatable).  --runner is repeatable; a bad runner\n"
"exits 2 before anything runs.\n"
"\n"
"Data: the Lua libraries, runner adapters and scenarios, sandproof-ref and\n"
"the probe are found relative to this executable: in its build tree, the\n"
"source tree's; installed, PREFIX/share/sandproof, PREFIX/bin and\n"
"PREFIX/libexec/sandproof.  SANDPROOF_HARNESS_DIR, SANDPROOF_SCENARIOS,\n"
"SANDPROOF_REF and SANDPROOF_PROBE override each.\n";

static struct scen_paths paths;

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "sandproof: %s%s%s\nTry 'sandproof --help'.\n", msg,
		arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE;
}

/* The sandbox replaces /tmp with a private one, so a probe built under /tmp
 * would be invisible to the runner under test.  Stage a copy in a fresh
 * directory under /var/tmp for the run (removed at exit). */
static char staged_dir[64];

static void probe_unstage(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/sandproof-probe", staged_dir);
	unlink(path);
	rmdir(staged_dir);
}

static int probe_stage(void)
{
	static char path[128];
	char buf[65536];
	int in, out, rc;
	ssize_t n;

	if (strncmp(paths.probe, "/tmp/", 5) != 0)
		return 0;
	/* claimed like a scenario's temp dir: if we are SIGKILLed, the next
	 * run's scen_sweep_stale removes it */
	snprintf(path, sizeof(path), "/var/tmp/sandproof-%d-probe-", (int)getpid());
	rc = sp_mkdtemp_claimed(path, staged_dir, sizeof(staged_dir));
	if (rc < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/sandproof-probe", staged_dir);
	in = open(paths.probe, O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out < 0 || close(out) < 0) {
		rmdir(staged_dir);
		return -EIO;
	}
	atexit(probe_unstage);
	paths.probe = path;
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {{"filter", required_argument, NULL, 'f'},
					     {"impact", no_argument, NULL, 'i'}, {0}};
	const char *filter = NULL;
	bool impact = false;
	struct scen_list l;
	char err[1024];
	int c;

	while ((c = getopt_long(argc, argv, "+f:", opts, NULL)) != -1) {
		if (c == 'i')
			impact = true;
		else if (c == 'f')
			filter = optarg;
		else
			return usage_error("list: bad option", NULL);
	}
	if (optind != argc)
		return usage_error("list: unexpected argument", argv[optind]);
	if (scen_load_all(&paths, filter, &l, err, sizeof(err)) < 0) {
		fprintf(stderr, "sandproof: %s\n", err);
		return EXIT_USAGE;
	}
	if (filter && l.n == 0) {
		scen_list_free(&l);
		return usage_error("--filter matches no scenario:", filter);
	}
	for (size_t i = 0; i < l.n; i++)
		if (impact)
			printf("%s\t%s\n", l.v[i].id, l.v[i].impact);
		else
			printf("%s\t%s\t%s\t%s\n", l.v[i].id, l.v[i].area, l.v[i].clauses,
			       l.v[i].claim);
	scen_list_free(&l);
	return 0;
}

static int cmd_env(void)
{
	char *env = envinfo_json(&paths, NULL); /* every runner adapter there is */

	if (!env)
		return EXIT_INTERNAL;
	envinfo_print(env, stdout);
	free(env);
	/* printed either way: "data" says where it looked */
	return datadir_missing() < 0 ? EXIT_USAGE : 0;
}

/* The run's fingerprint gains "timeout_s": {runner: seconds}, each
 * runner's per-scenario timeout (the default scaled by its adapter's
 * timeout_scale, or --timeout), so a result's time budget is on record,
 * and "jobs": how many pairs ran at once at most. */
static char *with_timeouts(char *env, const struct runner_set *rs, unsigned timeout,
			   unsigned jobs)
{
	cJSON *o = env ? cJSON_Parse(env) : NULL, *t = cJSON_CreateObject();
	char *out = NULL;

	if (o && t) {
		for (size_t i = 0; i < rs->n; i++)
			cJSON_AddNumberToObject(t, rs->v[i].name, (double)timeout * rs->v[i].scale);
		cJSON_AddItemToObject(o, "timeout_s", t);
		t = NULL;
		cJSON_AddNumberToObject(o, "jobs", jobs);
		out = cJSON_PrintUnformatted(o);
	}
	cJSON_Delete(t);
	cJSON_Delete(o);
	if (!out)
		return env;
	free(env);
	return out;
}

/* What one `run` does, as parsed from its options. */
struct run_opts {
	struct runner_set runners; /* each with its timeout scale (1 with --timeout) */
	const char *filter;
	unsigned long long seed, repeat, timeout;
	unsigned jobs;
};

/* The run's runner list (comma-separated) into list, and its fingerprint:
 * every named runner's version and per-scenario timeout (malloc'd, or NULL). */
static char *run_fingerprint(const struct run_opts *o, char *list, size_t len)
{
	runner_names(&o->runners, list, len);
	return with_timeouts(envinfo_json(&paths, &o->runners), &o->runners, (unsigned)o->timeout,
			     o->jobs);
}

/* --jobs N > 1: the same pairs through jobs.h. */
static void run_jobs(struct session *ss, const struct run_opts *o)
{
	struct jobs_plan p = {.paths = &paths, .runners = &o->runners,
			      .timeout = (unsigned)o->timeout, .seed = o->seed,
			      .repeat = o->repeat, .jobs = o->jobs};

	jobs_run(ss, &p);
}

/* Runs every (repeat, scenario, runner) and records each result in ss;
 * stops at an interrupt (scen_interrupt_install) with the pair it was
 * running unrecorded.  --jobs N > 1: run_jobs. */
static void run_pairs(struct session *ss, const struct run_opts *o)
{
	const struct scen_list *l = &ss->scenarios;
	struct tally *t = &ss->tally;
	bool tty = isatty(2);

	if (o->jobs > 1) {
		run_jobs(ss, o);
		return;
	}

	t->total = (unsigned)(l->n * o->runners.n * o->repeat);
	for (unsigned long long k = 0; k < o->repeat; k++)
		for (size_t i = 0; i < l->n; i++)
			for (size_t j = 0; j < o->runners.n; j++) {
				const struct runner *r = &o->runners.v[j];
				char *json = NULL;
				uint64_t s = o->seed + k;

				int rc;

				if (scen_interrupted())
					return;
				runlog_progress(t, l->v[i].id, tty);
				rc = scen_run_pair(&paths, &l->v[i], r->spec, s,
						   (unsigned)o->timeout * r->scale, &json);
				if (rc == -EINTR)
					return;
				if (rc < 0)
					json = strdup("{\"verdict\":\"error\",\"reason\":\"cannot start the scenario process\"}");
				session_record(ss, &l->v[i], r->name, s, json, tty, stdout,
					       NULL, 0);
				free(json);
			}
}

/* The runners of a run, in the order given: each --runner (a comma list)
 * and --adapter (one file) argument in args, kinds 'r' or 'A'; ref when
 * none.  0, or the usage error's exit status. */
static int run_runners(struct run_opts *o, char **args, const char *kinds, size_t n,
		       bool timeout_given)
{
	char err[2048];
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = kinds[i] == 'A' ? runner_add(&paths, &o->runners, args[i], err, sizeof(err))
				     : runner_add_list(&paths, &o->runners, args[i], err, sizeof(err));
	if (rc == 0 && n == 0)
		rc = runner_add(&paths, &o->runners, "ref", err, sizeof(err));
	if (rc < 0)
		return usage_error(err, NULL);
	for (size_t j = 0; timeout_given && j < o->runners.n; j++)
		o->runners.v[j].scale = 1;
	return 0;
}

/* Parses run's options into o; 0, or the usage error's exit status. */
static int run_parse(int argc, char **argv, struct run_opts *o, const char **out,
		     unsigned *wait_s)
{
	static const struct option opts[] = {
		{"runner", required_argument, NULL, 'r'}, {"filter", required_argument, NULL, 'f'},
		{"out", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 's'},
		{"repeat", required_argument, NULL, 'n'}, {"timeout", required_argument, NULL, 't'},
		{"db-wait", required_argument, NULL, 'w'}, {"adapter", required_argument, NULL, 'A'},
		{"jobs", required_argument, NULL, 'j'},
		{0},
	};
	bool timeout_given = false;
	char *end, *rargs[RUNNER_MAX], rkinds[RUNNER_MAX];
	size_t nr = 0;
	int c;

	while ((c = getopt_long(argc, argv, "+r:f:o:s:n:t:j:", opts, NULL)) != -1) {
		switch (c) {
		case 'r': case 'A':
			if (nr == RUNNER_MAX)
				return usage_error("too many --runner and --adapter options", NULL);
			rargs[nr] = optarg;
			rkinds[nr++] = (char)c;
			break;
		case 'f': o->filter = optarg; break;
		case 'o': *out = optarg; break;
		case 's': case 'n': case 't': case 'w': case 'j': {
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' ||
			    ((c == 'n' || c == 't') && (v == 0 || v > 100000)) ||
			    (c == 'w' && v > STORE_WAIT_MAX_S) ||
			    (c == 'j' && (v == 0 || v > JOBS_MAX)))
				return usage_error(c == 'j' ? "--jobs takes 1 to 64, not" : "bad number:",
						   optarg);
			if (c == 's') o->seed = v;
			else if (c == 'j') o->jobs = (unsigned)v;
			else if (c == 'n') o->repeat = v;
			else if (c == 'w') *wait_s = (unsigned)v;
			else o->timeout = v, timeout_given = true;
			break;
		}
		default: return usage_error("run: bad option", NULL);
		}
	}
	if (optind != argc)
		return usage_error("run: unexpected argument", argv[optind]);
	return run_runners(o, rargs, rkinds, nr, timeout_given);
}

/* An interrupted run: the run row stays unfinished (as after SIGKILL),
 * every result printed is in the database; exit 128 + the signal. */
static int run_interrupted(struct session *ss, unsigned jobs)
{
	const struct tally *t = &ss->tally;
	int sig = scen_interrupted();

	runlog_impact_summary(&ss->tally, stdout);
	fflush(stdout);
	fprintf(stderr, "sandproof: interrupted by %s: stopped the running scenario%s and removed "
		"what %s started; %u results recorded in %s, the run is not marked finished\n",
		prims_signal_name(sig), jobs > 1 ? "s" : "", jobs > 1 ? "they" : "it", t->pass + t->fail + t->skip + t->unsupported +
		t->inconclusive + t->error - t->lost, ss->dbpath);
	session_close(ss);
	return session_exit_status(ss, 128 + sig);
}

/* A run with its options parsed: the session from the catalogue to the
 * summary; the exit status. */
static int run_session(struct run_opts *o, const char *out, unsigned wait_s)
{
	char list[1024];
	struct session ss;
	const struct tally *t = &ss.tally;
	int rc;

	session_init(&ss, "sandproof");
	if ((rc = session_load(&ss, &paths, o->filter)))
		return rc;
	if (ss.scenarios.n == 0) {
		session_close(&ss);
		return usage_error("--filter matches no scenario:", o->filter ? o->filter : "(none)");
	}
	if ((rc = session_open(&ss, out, wait_s)) ||
	    (rc = session_begin(&ss, run_fingerprint(o, list, sizeof(list)), list, o->filter,
				o->seed))) {
		session_close(&ss);
		return rc;
	}
	if ((rc = scen_interrupt_install()) < 0) {
		fprintf(stderr, "sandproof: cannot handle interrupts: %s\n", strerror(-rc));
		session_close(&ss);
		return SESSION_EXIT_INTERNAL;
	}
	run_pairs(&ss, o);
	if (scen_interrupted())
		return run_interrupted(&ss, o->jobs);
	rc = session_finish(&ss, (t->fail || t->error || t->inconclusive) ? EXIT_FAILED : 0);
	runlog_impact_summary(&ss.tally, stdout);
	printf("%u passed, %u failed, %u skipped, %u unsupported, %u inconclusive, %u errors (%s)\n",
	       t->pass, t->fail, t->skip, t->unsupported, t->inconclusive, t->error, ss.dbpath);
	fflush(stdout);
	return session_exit_status(&ss, rc);
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = {.seed = 1, .repeat = 1, .timeout = 120, .jobs = 1};
	const char *out = "sandproof-out";
	unsigned wait_s = STORE_WAIT_MS / 1000;
	int rc = run_parse(argc, argv, &o, &out, &wait_s);

	if (rc == 0)
		rc = run_session(&o, out, wait_s);
	runner_set_free(&o.runners);
	return rc;
}

int main(int argc, char **argv)
{
	prims_self_exe_init(argc > 0 ? argv[0] : NULL);
	/* Lua, adapters, scenarios, ref and probe: relative to our own
	 * executable, or from the environment (datadir.h) */
	datadir_init(prims_self_exe(), &paths);
	if (argc < 2)
		return usage_error("no command given", NULL);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sandproof %s\n", SANDPROOF_VERSION);
		return 0;
	}
	/* Internal (child.h): before anything of a command's own. */
	if (!strcmp(argv[1], "__scenario"))
		return scen_child_main(argc, argv);
	if (!strcmp(argv[1], "__pair"))
		return jobs_pair_main(argc, argv);
	if (!strcmp(argv[1], "__spawn"))
		return argc == 2 ? child_spawn_main() : usage_error("__spawn: unexpected argument", argv[2]);
	/* Everything a scenario starts stays our descendant, so nothing can
	 * escape the tree kill after a scenario's timeout. */
	proc_init();
	if ((!strcmp(argv[1], "run") || !strcmp(argv[1], "smoke") ||
	     !strcmp(argv[1], "explore") || !strcmp(argv[1], "list")) && datadir_missing() < 0)
		return EXIT_USAGE;
	if (!strcmp(argv[1], "run") || !strcmp(argv[1], "smoke") ||
	    !strcmp(argv[1], "explore")) {
		/* both run scenarios: the probe must be visible in the sandbox */
		if (probe_stage() < 0)
			fprintf(stderr, "sandproof: warning: cannot stage the probe outside /tmp\n");
		/* a harness killed with SIGKILL left its scenarios' temp dirs */
		scen_sweep_stale();
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "baseline"))
		return baseline_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "smoke"))
		return smoke_main(&paths, argc - 1, argv + 1);
	if (!strcmp(argv[1], "explore"))
		return explore_main(&paths, argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "env")) {
		if (argc != 2)
			return usage_error("env: unexpected argument", argv[2]);
		return cmd_env();
	}
	return usage_error("unknown command", argv[1]);
}
