/* explore.c - see explore.h. */
#include "explore.h"

#include <errno.h>
#include <getopt.h>
#include <lauxlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "envinfo.h"
#include "explore_int.h"
#include "host.h"
#include "runlog.h"
#include "session.h"
#include "sandproof/prims.h"
#include "sandproof/store.h"


static int explore_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "sandproof explore: %s%s%s\nTry 'sandproof --help'.\n", msg,
		arg ? " " : "", arg ? arg : "");
	return SESSION_EXIT_USAGE;
}

/* A plain decimal in [lo, hi] into *v; false when it is not one. */
static bool parse_num(const char *s, unsigned long long lo, unsigned long long hi,
		      unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && *end == '\0' && end != s && s[0] != '-' && *v >= lo && *v <= hi;
}

static int explore_parse(const struct scen_paths *p, int argc, char **argv,
			 struct explore_opts *o)
{
	static const struct option opts[] = {
		{"runner", required_argument, NULL, 'r'}, {"budget", required_argument, NULL, 'b'},
		{"time", required_argument, NULL, 't'}, {"seed", required_argument, NULL, 's'},
		{"out", required_argument, NULL, 'o'}, {"max-ops", required_argument, NULL, 'm'},
		{"no-shrink", no_argument, NULL, 'n'}, {"batch", required_argument, NULL, 'B'},
		{"jobs", required_argument, NULL, 'j'}, {0},
	};
	bool budget = false, time = false;
	int c;

	while ((c = getopt_long(argc, argv, "+r:b:t:s:o:m:nB:j:", opts, NULL)) != -1) {
		switch (c) {
		case 'r': o->runner = optarg; break;
		case 'o': o->out = optarg; break;
		case 'n': o->no_shrink = true; break;
		case 'b': case 't': case 's': case 'm': case 'B': case 'j': {
			unsigned long long *v = c == 'b' ? &o->budget : c == 't' ? &o->time_s
						: c == 's' ? &o->seed : c == 'm' ? &o->max_ops
						: c == 'B' ? &o->batch : &o->jobs;
			unsigned long long lo = c == 's' ? 0 : 1;
			unsigned long long hi = c == 'b' ? 10000000ULL : c == 't' ? 604800ULL
						: c == 's' ? (1ULL << 53) : c == 'j' ? 16 : 64;

			if (!parse_num(optarg, lo, hi, v))
				return explore_usage("bad number:", optarg);
			budget |= c == 'b';
			time |= c == 't';
			break;
		}
		default: return explore_usage("bad option", NULL);
		}
	}
	if (optind != argc)
		return explore_usage("unexpected argument", argv[optind]);
	if (!o->runner)
		return explore_usage("--runner is required", NULL);
	{
		char err[2048];

		if (runner_add(p, &o->runners, o->runner, err, sizeof(err)) < 0)
			return explore_usage(err, NULL);
		o->runner = o->runners.v[0].spec; /* what its processes load */
		o->runner_name = o->runners.v[0].name;
	}
#ifdef _WIN32
	if (o->jobs > 1)
		return explore_usage("--jobs above 1 needs fork(), which this platform lacks:", "--jobs");
#endif
	if (!budget && !time)
		o->budget = 100;
	return 0;
}

char *explore_drive(const struct scen_paths *p, const struct explore_opts *o,
		    bool check_only)
{
	lua_State *L = host_new(p->harness);
	char *json = NULL;

	if (!L)
		return NULL;
	lua_getglobal(L, "require");
	lua_pushstring(L, "sandproof.explore.driver");
	if (host_pcall(L, 1, 1) == LUA_OK) {
		lua_getfield(L, -1, "main_json");
		lua_createtable(L, 0, 8);
		lua_pushstring(L, o->runner); lua_setfield(L, -2, "runner");
		lua_pushstring(L, o->out); lua_setfield(L, -2, "out");
		lua_pushinteger(L, (lua_Integer)o->seed); lua_setfield(L, -2, "seed");
		lua_pushinteger(L, (lua_Integer)o->budget); lua_setfield(L, -2, "budget");
		lua_pushinteger(L, (lua_Integer)o->time_s); lua_setfield(L, -2, "time_s");
		lua_pushinteger(L, (lua_Integer)o->max_ops); lua_setfield(L, -2, "max_ops");
		lua_pushinteger(L, (lua_Integer)o->batch); lua_setfield(L, -2, "batch");
		lua_pushinteger(L, o->worker ? o->worker : 1); lua_setfield(L, -2, "worker");
		lua_pushinteger(L, (lua_Integer)o->jobs); lua_setfield(L, -2, "workers");
		lua_pushboolean(L, o->no_shrink); lua_setfield(L, -2, "no_shrink");
		lua_pushboolean(L, check_only); lua_setfield(L, -2, "check_only");
		scen_push_paths(L, p); lua_setfield(L, -2, "paths");
		if (host_pcall(L, 1, 1) == LUA_OK && lua_isstring(L, -1))
			json = strdup(lua_tostring(L, -1));
	}
	if (!json)
		fprintf(stderr, "sandproof explore: internal error: %s\n",
			lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
	lua_close(L);
	return json;
}

static const char *jtext(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* 0 when the driver accepts the runner (its adapter loads, it is
 * available here), else the exit status after saying why. */
static int explore_usable(const struct scen_paths *p, const struct explore_opts *o)
{
	char *json = explore_drive(p, o, true);
	cJSON *c = json ? cJSON_Parse(json) : NULL;
	int rc = 0;

	free(json);
	if (!c)
		return SESSION_EXIT_INTERNAL;
	if (*jtext(c, "usage_error")) {
		fprintf(stderr, "sandproof explore: %s\n", jtext(c, "usage_error"));
		rc = SESSION_EXIT_USAGE;
	}
	cJSON_Delete(c);
	return rc;
}

/* Each violation as a fail of its emitted scenario (fs.found_<id>), the
 * program and its shrunk form as evidence.  Quietly: the driver printed
 * each violation as it found it, and the summary lists each distinct
 * finding once with its count (runlog_findings_summary), never the same id
 * once per violating program. */
static void explore_record(struct session *ss, const struct explore_opts *o, const cJSON *sum)
{
	const cJSON *v, *vs = cJSON_GetObjectItemCaseSensitive(sum, "violations");

	cJSON_ArrayForEach(v, vs) {
		const char *id = jtext(v, "scenario_id");
		struct scen sc = {.file = (char *)jtext(v, "scenario"), .id = (char *)id,
				  .area = "fs", .clauses = "FS-1,FS-2,FS-3,FS-4,META-1,META-3,NET-1",
				  .claim = "a generated program found by sandproof explore",
				  .expect_json = "{\"linux\":[\"confined\"]}"};
		struct store_scenario row = {sc.id, sc.area, sc.clauses, sc.claim, sc.file,
					     sc.expect_json};
		char *json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(v, "result"));

		if (!*id || !json) {
			free(json);
			continue;
		}
		if (store_put_scenario(ss->db, &row) < 0)
			fprintf(stderr, "sandproof explore: %s: %s\n", id, store_get_error(ss->db));
		session_record(ss, &sc, o->runner_name, o->seed, json, false, NULL, NULL, 0);
		free(json);
	}
}

/* The run row, after the exploration: its fingerprint holds the explore
 * summary (programs, rate, coverage) under "explore". */
static int explore_begin(struct session *ss, const struct scen_paths *p,
			 const struct explore_opts *o, const cJSON *sum)
{
	char *env = envinfo_json(p, &o->runners), *out = NULL;
	cJSON *e = env ? cJSON_Parse(env) : NULL;
	cJSON *s = cJSON_Duplicate(sum, true);

	if (e && s) {
		cJSON_DeleteItemFromObjectCaseSensitive(s, "violations");
		cJSON_AddItemToObject(e, "explore", s);
		s = NULL;
		out = cJSON_PrintUnformatted(e);
	}
	cJSON_Delete(s);
	cJSON_Delete(e);
	free(env);
	return session_begin(ss, out, o->runner_name, "explore", o->seed);
}

static void explore_summary(const cJSON *s, const char *db)
{
	double ms = jnum(s, "elapsed_ms"), n = jnum(s, "programs");

	printf("explore %s: %.0f programs in %.1f s (%.1f programs/s), %.0f violations, "
	       "%.0f confined, %.0f untested, %.0f errors; %.0f launches (%.0f programs cut short "
	       "by a stop, %.0f started again); coverage: op pairs "
	       "%.0f/%.0f, name pairs %.0f/%.0f; shrinking %.1f s (%s)\n",
	       jtext(s, "runner"), n, ms / 1000, ms > 0 ? n * 1000 / ms : 0,
	       (double)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "violations")),
	       jnum(s, "confined"), jnum(s, "untested"), jnum(s, "errors"), jnum(s, "launches"),
	       jnum(s, "cut"), jnum(s, "requeued"),
	       jnum(s, "op_pairs"),
	       jnum(s, "op_pairs_total"), jnum(s, "name_pairs"), jnum(s, "name_pairs_total"),
	       jnum(s, "shrink_ms") / 1000, db);
	if (jnum(s, "held") > 0)
		printf("holds: %.0f programs held at a random path call of the run, %.0f reached it "
		       "(the workspace exchanged with a symlink to the hidden outside), %.0f of them "
		       "refused or stopped by the runner before its control write (failed closed, no "
		       "violation)\n",
		       jnum(s, "held"), jnum(s, "exchanged"), jnum(s, "failed_closed"));
	if (jnum(s, "batch_failed") > 0)
		printf("%.0f launches of several programs failed, their programs then run alone "
		       "(first: %s)\n", jnum(s, "batch_failed"), jtext(s, "batch_error"));
	if (*jtext(s, "first_error"))
		printf("first error: %s\n", jtext(s, "first_error"));
	if (*jtext(s, "stopped"))
		fprintf(stderr, "sandproof explore: %s\n", jtext(s, "stopped"));
	fflush(stdout);
}

/* An interrupted exploration: the programs run so far and their
 * violations are recorded, the run row is left unfinished (as `run`
 * leaves it); exit 128 + the signal. */
static int explore_interrupted(struct session *ss, const cJSON *sum)
{
	int sig = (int)jnum(sum, "interrupted");

	runlog_findings_summary(&ss->tally, stdout);
	explore_summary(sum, ss->dbpath);
	fprintf(stderr, "sandproof explore: interrupted by %s: stopped after the running launch; "
		"%.0f programs and %d violations recorded in %s, the run is not marked finished\n",
		prims_signal_name(sig), jnum(sum, "programs"),
		cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sum, "violations")), ss->dbpath);
	session_close(ss);
	return session_exit_status(ss, 128 + sig);
}

/* An exploration with its options parsed; the exit status. */
static int explore_run(const struct scen_paths *p, const struct explore_opts *o)
{
	struct session ss;
	cJSON *sum;
	char *json;
	int rc;

	/* the runner's adapter loads and it is available here: before
	 * anything is written */
	if ((rc = explore_usable(p, o)))
		return rc;
	session_init(&ss, "sandproof explore");
	if ((rc = session_open_suffixed(&ss, o->out, "-explore", STORE_WAIT_MS / 1000)))
		return rc;
	if ((rc = scen_interrupt_install()) < 0) {
		fprintf(stderr, "sandproof explore: cannot handle interrupts: %s\n", strerror(-rc));
		session_close(&ss);
		return SESSION_EXIT_INTERNAL;
	}
#ifdef _WIN32
	json = explore_drive(p, o, false);
#else
	json = o->jobs > 1 ? explore_jobs_drive(p, o) : explore_drive(p, o, false);
#endif
	sum = json ? cJSON_Parse(json) : NULL;
	free(json);
	if (!sum) {
		session_close(&ss);
		return SESSION_EXIT_INTERNAL;
	}
	if ((rc = explore_begin(&ss, p, o, sum))) {
		cJSON_Delete(sum);
		session_close(&ss);
		return rc;
	}
	explore_record(&ss, o, sum);
	if (jnum(sum, "interrupted") > 0) {
		int rc2 = explore_interrupted(&ss, sum);

		cJSON_Delete(sum);
		return rc2;
	}
	rc = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sum, "violations")) > 0
		? SESSION_EXIT_FAILED : 0;
	if (*jtext(sum, "stopped"))
		rc = SESSION_EXIT_INTERNAL;
	rc = session_finish(&ss, rc);
	runlog_findings_summary(&ss.tally, stdout); /* prints, frees the tally's fails */
	explore_summary(sum, ss.dbpath);
	cJSON_Delete(sum);
	return session_exit_status(&ss, rc);
}

int explore_main(const struct scen_paths *p, int argc, char **argv)
{
	struct explore_opts o = {.out = "sandproof-out", .seed = 1, .max_ops = 6, .batch = 8,
				  .jobs = 1};
	int rc = explore_parse(p, argc, argv, &o);

	if (rc == 0)
		rc = explore_run(p, &o);
	runner_set_free(&o.runners);
	return rc;
}
