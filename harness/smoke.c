/* smoke.c - see smoke.h.
 *
 * Checks this host's prerequisites through `sandproof-ref doctor` (a black
 * box, like every runner), then runs a small fixed set of the most telling
 * scenarios against every runner found on the machine and prints, per
 * runner, one human line per property.  Everything is recorded in the
 * database like any run.  Budget: well under 15 seconds. */
#include "smoke.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandproof/proc.h"
#include "sandproof/store.h"
#include "envinfo.h"
#include "runlog.h"
#include "runner.h"
#include "session.h"

/* A property holds when its scenario passes.  Its line says what the
 * scenario observed, in words where this table has them (an outcome, or a
 * prefix ending in ':'), else the outcome itself; "NO" only for an escape
 * that was seen (docs/CONTRACT.md, "Impact classes"). */
struct said {
	const char *outcome, *words;
};

static const struct property {
	const char *name;
	const char *scenario;
	struct said said[4];
} props[] = {
	{"confines writes", "fs.outside_sibling", {
		{"escaped", "a write outside the workspace landed"},
		{"control_failed", "a write in the workspace failed, so nothing was tested"}}},
	{"network deny", "net.deny.host_loopback", {
		{"reached", "a host loopback listener was reached"},
		{"control_failed", "no private loopback for the control"}}},
	{"protected metadata", "meta.absent_agents_create", {
		{"created", ".agents was created on the host"},
		{"not_stopped", ".agents was blocked but the run went on without a denial"},
		{"unreported", ".agents was blocked but no denial was given"},
		{"control_failed", "a write in the workspace failed, so nothing was tested"}}},
	{"git hooks read-only", "meta.hooks_readonly", {
		{"written", "a hook was planted"},
		{"control_failed", "a write in the workspace failed, so nothing was tested"}}},
	{"no privileges", "priv.no_capabilities", {
		{"held:", "capabilities remain"},
		{"control_failed", "the capability sets could not be read"}}},
	{"fails closed", "setup.fail_closed_unshare", {
		{"unconfined", "the command ran without its namespaces"},
		{"not_exercised", "it ran the command, confined, although unshare and clone3 failed"},
		{"control_failed", "a plain run failed, so nothing was tested"}}},
};
#define N_PROPS (sizeof(props) / sizeof(props[0]))

/* Runners to try: ref always, then the peers whose adapters exist. */
static const char *const candidates[] = {"ref", "bwrap", "firejail", "codex", "srt", NULL};

/* `sandproof-ref doctor`, through the seam: its report passed on to our
 * stdout and stderr.  Its exit status, 1 when it did not exit, or -errno
 * when it could not be started. */
static int doctor(const struct scen_paths *p)
{
	char *argv[] = {(char *)p->ref, "doctor", NULL};
	struct proc_opts o;
	struct proc_result r;
	int rc;

	proc_opts_init(&o);
	o.argv = argv;
	o.timeout_ms = 60000;
	rc = proc_run(&o, &r);
	if (rc == 0) {
		fwrite(r.out, 1, r.out_len, stdout);
		fflush(stdout);
		fwrite(r.err, 1, r.err_len, stderr);
		rc = r.setup_err ? -r.setup_err : r.exited ? r.exit_code : 1;
	}
	proc_result_free(&r);
	return rc;
}

/* What a failing result of class impact is called on a smoke line. */
static const char *impact_label(const char *impact)
{
	static const char *const label[][2] = {
		{"escape", "NO"}, {"exposure", "exposed"}, {"hardening", "not hardened"},
		{"reporting", "not reported"}, {"fidelity", "altered"}, {"residue", "left residue"},
	};

	for (size_t i = 0; i < sizeof(label) / sizeof(label[0]); i++)
		if (!strcmp(impact, label[i][0]))
			return label[i][1];
	return "failed (no class)";
}

/* The words the property has for outcome, or NULL. */
static const char *said_for(const struct property *p, const char *outcome)
{
	for (size_t i = 0; i < 4 && p->said[i].outcome; i++) {
		size_t n = strlen(p->said[i].outcome);

		if (!strcmp(outcome, p->said[i].outcome) ||
		    (p->said[i].outcome[n - 1] == ':' && !strncmp(outcome, p->said[i].outcome, n)))
			return p->said[i].words;
	}
	return NULL;
}

/* One property's result, as runlog recorded it: strings borrowed. */
struct property_obs {
	const char *scenario, *verdict, *impact, *observed, *reason;
};

/* The words of a property's result on the smoke line, into buf: "yes",
 * "n/a - why", "<label> - what was seen" for a fail (label by its class:
 * "NO" for an escape only), "not proven - why", "error - why". */
static int smoke_property_line(const struct property_obs *o, char *buf, size_t len)
{
	const struct property *p = NULL;
	const char *words, *v = o->verdict;
	char seen[320];
	int why = (int)strcspn(o->reason, "\n");   /* a traceback: its first line */

	for (size_t k = 0; k < N_PROPS; k++)
		if (!strcmp(props[k].scenario, o->scenario))
			p = &props[k];
	if (!p)
		return -ENOENT;
	words = said_for(p, o->observed);
	snprintf(seen, sizeof(seen), "observed %s", o->observed);
	if (!strcmp(v, "pass"))
		return snprintf(buf, len, "%s: yes", p->name) < 0 ? -EIO : 0;
	if (!strcmp(v, "skip") || !strcmp(v, "unsupported"))
		snprintf(buf, len, "%s: n/a - %.*s", p->name, why, o->reason);
	else if (!strcmp(v, "fail"))
		snprintf(buf, len, "%s: %s - %s", p->name, impact_label(o->impact), words ? words : seen);
	else if (!strcmp(v, "inconclusive"))
		snprintf(buf, len, "%s: not proven - %.*s", p->name, words ? (int)strlen(words) : why,
			 words ? words : o->reason);
	else
		snprintf(buf, len, "%s: error - %.*s", p->name, why, o->reason);
	return 0;
}

/* Splits runlog's "verdict|impact|observed|reason" in place into o. */
static void obs_split(char *s, const char *scenario, struct property_obs *o)
{
	char *f[4] = {s, "-", "-", ""};

	for (int i = 1; i < 4 && f[i - 1]; i++) {
		char *bar = strchr(f[i - 1], '|');

		if (!bar)
			break;
		*bar = '\0';
		f[i] = bar + 1;
	}
	*o = (struct property_obs){scenario, f[0], f[1], f[2], f[3]};
}

/* Runs the properties against one runner and prints its line.  Returns 1
 * when a property of a subject (ref, or any runner named with --runner)
 * fails, else 0. */
static int smoke_runner(const struct scen_paths *p, struct session *ss,
			const struct runner *runner, bool subject)
{
	const struct scen_list *all = &ss->scenarios;
	char line[4096] = "";
	int failed = 0;

	for (size_t k = 0; k < N_PROPS; k++) {
		const struct scen *s = NULL;
		char *json = NULL, obs[1024] = "", said[1024];
		struct property_obs o;

		for (size_t i = 0; i < all->n; i++)
			if (strcmp(all->v[i].id, props[k].scenario) == 0)
				s = &all->v[i];
		if (!s)
			continue;
		if (scen_run_pair(p, s, runner->spec, 1, 30, &json) < 0)
			json = strdup("{\"verdict\":\"error\",\"reason\":\"cannot start\"}");
		session_record(ss, s, runner->name, 1, json, false, NULL, obs, sizeof(obs));
		free(json);
		obs_split(obs, s->id, &o);
		if (subject && strcmp(o.verdict, "pass") && strcmp(o.verdict, "skip") &&
		    strcmp(o.verdict, "unsupported"))
			failed = 1;
		smoke_property_line(&o, said, sizeof(said));
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", line[0] ? "; " : "",
			 said);
	}
	printf("%s: %s\n", runner->name, line);
	fflush(stdout);
	return failed;
}

/* Parses smoke's options; 0, or 2 after printing the usage error.  The
 * runners named with --runner (a comma list, repeatable) are resolved into
 * rs; none named leaves rs empty. */
static int smoke_parse(const struct scen_paths *p, int argc, char **argv, const char **out,
		       struct runner_set *rs, unsigned *wait_s)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
					     {"runner", required_argument, NULL, 'r'},
					     {"db-wait", required_argument, NULL, 'w'}, {0}};
	unsigned long v = 0;
	char *end = NULL, err[2048];
	int c;

	while ((c = getopt_long(argc, argv, "+o:r:", opts, NULL)) != -1) {
		if (c == 'w') {
			errno = 0;
			v = strtoul(optarg, &end, 10);
		}
		if (c == 'o') {
			*out = optarg;
		} else if (c == 'r') {
			if (runner_add_list(p, rs, optarg, err, sizeof(err)) < 0) {
				fprintf(stderr, "sandproof smoke: %s\n", err);
				return SESSION_EXIT_USAGE;
			}
		} else if (c == 'w' && !errno && !*end && end != optarg && optarg[0] != '-' &&
			   v <= STORE_WAIT_MAX_S) {
			*wait_s = (unsigned)v;
		} else {
			fprintf(stderr, "sandproof smoke: bad option or number\n"
				"usage: sandproof smoke [--out DIR] [--runner RUNNER[,RUNNER...]] [--db-wait S]\n");
			return SESSION_EXIT_USAGE;
		}
	}
	return 0;
}

/* Runs the properties against every runner to try: those named with
 * --runner (each a subject), else ref (the subject) and the peers whose
 * adapters exist.  Returns 1 when a subject failed. */
static int smoke_try_runners(const struct scen_paths *p, struct session *ss,
			     struct runner_set *rs)
{
	bool named = rs->n > 0;
	char err[2048];
	int failed = 0;

	for (size_t r = 0; !named && candidates[r]; r++)
		runner_add(p, rs, candidates[r], err, sizeof(err)); /* one missing: not tried */
	for (size_t r = 0; r < rs->n; r++)
		failed |= smoke_runner(p, ss, &rs->v[r], named || !strcmp(rs->v[r].name, "ref"));
	return failed;
}

/* The smoke with its runners resolved (rs: those named, or empty); the
 * exit status. */
static int smoke_session(const struct scen_paths *p, const char *out, struct runner_set *rs,
			 unsigned wait_s)
{
	struct runner_set ref = {0};
	struct session ss;
	char err[2048];
	int rc;

	printf("== host prerequisites (sandproof-ref doctor)\n");
	fflush(stdout);
	if (doctor(p) != 0) {
		printf("\nverdict: this host cannot enforce the contract (see above)\n");
		return SESSION_EXIT_INTERNAL;
	}
	session_init(&ss, "sandproof smoke");
	/* the fingerprint names the runners asked for, else ref's alone (the
	 * peers' version commands would cost more than the smoke itself) */
	if (rs->n == 0)
		runner_add(p, &ref, "ref", err, sizeof(err));
	rc = session_load(&ss, p, NULL);
	if (!rc)
		rc = session_open(&ss, out, wait_s);
	if (!rc)
		rc = session_begin(&ss, envinfo_json(p, rs->n ? rs : &ref), "smoke", "smoke", 1);
	runner_set_free(&ref);
	if (rc) {
		session_close(&ss);
		return rc;
	}
	printf("\n== properties\n");
	rc = session_finish(&ss, smoke_try_runners(p, &ss, rs) ? SESSION_EXIT_FAILED : 0);
	runlog_impact_summary(&ss.tally, NULL);
	if (!ss.tally.lost)
		printf("\nrecorded in %s\n", ss.dbpath);
	fflush(stdout);
	return session_exit_status(&ss, rc);
}

int smoke_main(const struct scen_paths *p, int argc, char **argv)
{
	const char *out = "sandproof-out";
	unsigned wait_s = STORE_WAIT_MS / 1000;
	struct runner_set rs = {0};
	int rc = smoke_parse(p, argc, argv, &out, &rs, &wait_s);

	if (rc == 0)
		rc = smoke_session(p, out, &rs, wait_s);
	runner_set_free(&rs);
	return rc;
}
