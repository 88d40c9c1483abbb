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
#include <sys/wait.h>
#include <unistd.h>

#include "sandproof/store.h"
#include "envinfo.h"
#include "runlog.h"
#include "session.h"

/* A property holds when its scenario passes. */
static const struct property {
	const char *name;
	const char *scenario;
	const char *broken; /* what a failure means, in words */
} props[] = {
	{"confines writes", "fs.outside_sibling", "a write outside the workspace landed"},
	{"network deny", "net.deny.host_loopback", "a host loopback listener was reached"},
	{"protected metadata", "meta.absent_agents_create", ".agents can be created"},
	{"git hooks read-only", "meta.hooks_readonly", "a hook can be planted"},
	{"no privileges", "priv.no_capabilities", "capabilities remain"},
	{"fails closed", "setup.fail_closed_unshare", "runs without its namespaces"},
};
#define N_PROPS (sizeof(props) / sizeof(props[0]))

/* Runners to try: ref always, then the peers whose adapters exist. */
static const char *const candidates[] = {"ref", "bwrap", "firejail", "codex", "srt", NULL};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *c = list; c && *c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
		if (strncmp(c, name, n) == 0 && (c[n] == ',' || c[n] == '\0'))
			return true;
	return false;
}

/* The r-th name of a comma list (static storage), NULL past the end. */
static const char *extra_runner(const char *list, size_t r)
{
	static char buf[64];
	const char *c = list;

	for (size_t i = 0; i < r && c; i++)
		c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
	if (!c || !*c)
		return NULL;
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(c, ","), c);
	return buf;
}

static int doctor(const struct scen_paths *p)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(p->ref, p->ref, "doctor", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Runs the properties against one runner and prints its line.  Returns 1
 * when a property of a subject (ref, or any runner named with --runner)
 * fails, else 0. */
static int smoke_runner(const struct scen_paths *p, struct session *ss, const char *runner,
			bool subject)
{
	const struct scen_list *all = &ss->scenarios;
	char line[2048] = "";
	int failed = 0;

	for (size_t k = 0; k < N_PROPS; k++) {
		const struct scen *s = NULL;
		char *json = NULL, obs[512] = "";
		bool ok, na;

		for (size_t i = 0; i < all->n; i++)
			if (strcmp(all->v[i].id, props[k].scenario) == 0)
				s = &all->v[i];
		if (!s)
			continue;
		if (scen_run_pair(p, s, runner, 1, 30, &json) < 0)
			json = strdup("{\"verdict\":\"error\",\"reason\":\"cannot start\"}");
		session_record(ss, s, runner, 1, json, false, NULL, obs, sizeof(obs));
		free(json);
		ok = strncmp(obs, "pass|", 5) == 0;
		na = !strncmp(obs, "skip|", 5) || !strncmp(obs, "unsupported|", 12);
		if (!ok && !na && subject)
			failed = 1;
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s: %s", line[0] ? "; " : "",
			 props[k].name, ok ? "yes" : na ? "n/a" : "NO");
		if (!ok && !na)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " - %s", props[k].broken);
	}
	printf("%s: %s\n", runner, line);
	fflush(stdout);
	return failed;
}

/* Parses smoke's options; 0, or 2 after printing the usage error. */
static int smoke_parse(const struct scen_paths *p, int argc, char **argv, const char **out,
		       const char **only, unsigned *wait_s)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
					     {"runner", required_argument, NULL, 'r'},
					     {"db-wait", required_argument, NULL, 'w'}, {0}};
	unsigned long v = 0;
	char *end = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "+o:r:", opts, NULL)) != -1) {
		if (c == 'w') {
			errno = 0;
			v = strtoul(optarg, &end, 10);
		}
		if (c == 'o') {
			*out = optarg;
		} else if (c == 'r') {
			*only = optarg;
		} else if (c == 'w' && !errno && !*end && end != optarg && optarg[0] != '-' &&
			   v <= STORE_WAIT_MAX_S) {
			*wait_s = (unsigned)v;
		} else {
			fprintf(stderr, "sandproof smoke: bad option or number\n"
				"usage: sandproof smoke [--out DIR] [--runner NAME[,NAME...]] [--db-wait S]\n");
			return SESSION_EXIT_USAGE;
		}
	}
	if (*only) {
		char copy[256], *save = NULL;

		snprintf(copy, sizeof(copy), "%s", *only);
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!scen_runner_known(p, tok)) {
				fprintf(stderr, "sandproof smoke: unknown runner: %s\n", tok);
				return SESSION_EXIT_USAGE;
			}
	}
	return 0;
}

/* Runs the properties against every runner to try: those named with
 * --runner (only, a comma list; each a subject), else ref (the subject) and
 * the peers whose adapters exist.  Returns 1 when a subject failed. */
static int smoke_try_runners(const struct scen_paths *p, struct session *ss, const char *only)
{
	int failed = 0;

	for (size_t r = 0; (only ? extra_runner(only, r) : candidates[r]); r++) {
		const char *runner = only ? extra_runner(only, r) : candidates[r];

		if (!scen_runner_known(p, runner))
			continue;
		if (only && !in_list(only, runner))
			continue;
		failed |= smoke_runner(p, ss, runner, only || !strcmp(runner, "ref"));
	}
	return failed;
}

int smoke_main(const struct scen_paths *p, int argc, char **argv)
{
	const char *out = "sandproof-out", *only = NULL;
	unsigned wait_s = STORE_WAIT_MS / 1000;
	struct session ss;
	int rc;

	rc = smoke_parse(p, argc, argv, &out, &only, &wait_s);
	if (rc)
		return rc;
	printf("== host prerequisites (sandproof-ref doctor)\n");
	fflush(stdout);
	if (doctor(p) != 0) {
		printf("\nverdict: this host cannot enforce the contract (see above)\n");
		return SESSION_EXIT_INTERNAL;
	}
	session_init(&ss, "sandproof smoke");
	if ((rc = session_load(&ss, p, NULL)) || (rc = session_open(&ss, out, wait_s)) ||
	    (rc = session_begin(&ss, envinfo_json(p, "ref"), "smoke", "smoke", 1))) {
		session_close(&ss);
		return rc;
	}
	printf("\n== properties\n");
	rc = session_finish(&ss, smoke_try_runners(p, &ss, only) ? SESSION_EXIT_FAILED : 0);
	if (!ss.tally.lost)
		printf("\nrecorded in %s\n", ss.dbpath);
	fflush(stdout);
	return session_exit_status(&ss, rc);
}
