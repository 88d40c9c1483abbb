/* session.c - see session.h. */
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envinfo.h"
#include "sandproof/prims.h"
#include "sandproof/store.h"

void session_init(struct session *s, const char *who)
{
	memset(s, 0, sizeof(*s));
	s->who = who;
}

int session_load(struct session *s, const struct scen_paths *p, const char *filter)
{
	char err[1024];

	if (scen_load_all(p, filter, &s->scenarios, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", s->who, err);
		return SESSION_EXIT_USAGE;
	}
	return 0;
}

/* Creates out when missing; NULL when it is a writable directory, else
 * why not (static text or strerror's). */
static const char *out_prepare(const char *out)
{
	struct stat st;

	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		return strerror(errno);
	if (stat(out, &st) < 0)
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "not a directory";
	if (access(out, W_OK | X_OK) < 0)
		return "not writable";
	return NULL;
}

int session_open(struct session *s, const char *out, unsigned wait_s)
{
	return session_open_suffixed(s, out, "", wait_s);
}

int session_open_suffixed(struct session *s, const char *out, const char *suffix,
			  unsigned wait_s)
{
	const char *why = out_prepare(out);
	char err[1024];

	if (!why && snprintf(s->dbpath, sizeof(s->dbpath), "%s/%s%s.sqlite", out,
			     prims_os_name(), suffix) >= (int)sizeof(s->dbpath))
		why = strerror(ENAMETOOLONG);
	if (why) {
		fprintf(stderr, "%s: --out %s: %s\n", s->who, out, why);
		return SESSION_EXIT_USAGE;
	}
	if (store_open_wait(s->dbpath, wait_s * 1000u, &s->db, err, sizeof(err)) < 0) {
		s->db = NULL;
		fprintf(stderr, "%s: %s\n", s->who, err);
		return SESSION_EXIT_USAGE;
	}
	return 0;
}

/* One row per loaded scenario; a refused one is said and skipped. */
static void scenarios_put(struct session *s)
{
	const struct scen_list *l = &s->scenarios;

	for (size_t i = 0; i < l->n; i++) {
		struct store_scenario sc = {l->v[i].id, l->v[i].area, l->v[i].clauses,
					    l->v[i].claim, l->v[i].file, l->v[i].expect_json};

		if (store_put_scenario(s->db, &sc) < 0)
			fprintf(stderr, "%s: %s: %s\n", s->who, l->v[i].id, store_get_error(s->db));
	}
}

int session_begin(struct session *s, char *env_json, const char *runners, const char *filter,
		  uint64_t seed)
{
	struct store_run run = envinfo_run(env_json);
	int64_t id;

	run.runners = runners;
	run.filter = filter;
	run.seed = (int64_t)seed;
	id = store_begin_run(s->db, &run);
	free(env_json);
	if (id < 0) {
		fprintf(stderr, "%s: cannot record the run: %s\n", s->who, store_get_error(s->db));
		return SESSION_EXIT_INTERNAL;
	}
	s->run_id = id;
	scenarios_put(s);
	return 0;
}

int session_record(struct session *s, const struct scen *sc, const char *runner, uint64_t seed,
		   const char *json, bool tty, FILE *echo, char *observed, size_t obslen)
{
	return runlog_record(s->db, s->run_id, sc, runner, seed, json, &s->tally, tty, echo,
			     observed, obslen);
}

int session_record_deferred(struct session *s, const struct scen *sc, const char *runner,
			    uint64_t seed, const char *json, char **line)
{
	return runlog_record_deferred(s->db, s->run_id, sc, runner, seed, json, &s->tally, line);
}

int session_finish(struct session *s, int rc)
{
	if (store_finish_run(s->db, s->run_id, NULL) < 0) {
		fprintf(stderr, "%s: cannot record the end of the run in %s: %s\n", s->who,
			s->dbpath, store_get_error(s->db));
		rc = SESSION_EXIT_INTERNAL;
	}
	session_close(s);
	return rc;
}

int session_exit_status(const struct session *s, int rc)
{
	return runlog_lost_report(&s->tally, s->dbpath) ? SESSION_EXIT_INTERNAL : rc;
}

void session_close(struct session *s)
{
	store_close(s->db);
	s->db = NULL;
	scen_list_free(&s->scenarios);
}
