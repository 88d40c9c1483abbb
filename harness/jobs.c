/* jobs.c - see jobs.h. */
#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "sp.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"

#define JOBS_SLICE_MS 10 /* how long the harness waits on one keeper at a time */

/* One pair of the round, by index (scenario * runners + runner). */
struct jpair {
	bool exclusive;
	bool ended;  /* its keeper is gone: recorded, or no result to record */
	char *line;  /* its printed line, once recorded; NULL otherwise */
};

/* One keeper: its launch (proc.h: the options must outlive the run). */
struct slot {
	struct proc_handle *h; /* NULL: free */
	size_t pair;
	struct proc_opts o;
	char *argv[10];
	char seed[24], timeout[24];
	char **env;
};

struct sched {
	struct session *ss;
	const struct jobs_plan *p;
	uint64_t seed;          /* this round's */
	struct jpair *v;
	size_t n, printed;      /* pairs; lines printed up to here */
	size_t *order, next;    /* the launch order; the next to launch */
	struct slot *slots;     /* p->jobs */
	unsigned running;
	bool alone;             /* an exclusive pair runs */
	bool stopping;          /* interrupted: nothing more starts */
	bool unclean;           /* a keeper was killed or died: sweep after */
	int stop_signal;        /* SIGTERM; SIGKILL where that alone is delivered */
	char stop_dir[PATH_MAX], stop_file[PATH_MAX + 8]; /* "": no stop file */
	bool tty;
};

/* The stop file: the launcher sends stop_signal to every keeper once it
 * exists (proc.h signal_when), so one file stops them all.  In a claimed
 * temp directory of ours (a SIGKILLed harness's is swept by the next run). */
static void stop_prepare(struct sched *S)
{
	char prefix[PATH_MAX];

	S->stop_file[0] = '\0';
	snprintf(prefix, sizeof(prefix), "%s/sandproof-%d-jobs-", prims_temp_root(0),
		 (int)getpid());
	if (sp_mkdtemp_claimed(prefix, S->stop_dir, sizeof(S->stop_dir)) < 0) {
		S->stop_dir[0] = '\0';
		fprintf(stderr, "sandproof: warning: no stop file for the keepers: an interrupt "
			"will kill them with their pairs' trees\n");
		return;
	}
	snprintf(S->stop_file, sizeof(S->stop_file), "%s/stop", S->stop_dir);
}

static void stop_remove(struct sched *S)
{
	if (!S->stop_dir[0])
		return;
	unlink(S->stop_file);
	rmdir(S->stop_dir);
}

static void slot_free(struct slot *sl)
{
	child_env_free(sl->env);
	sl->env = NULL;
	sl->h = NULL;
}

/* Starts the keeper of pair k in sl.  0 or -errno. */
static int slot_start(struct sched *S, struct slot *sl, size_t k)
{
	const struct jobs_plan *p = S->p;
	const struct scen *s = &S->ss->scenarios.v[k / p->runners->n];
	const struct runner *r = &p->runners->v[k % p->runners->n];
	unsigned t = p->timeout * r->scale;
	int rc;

	if (!prims_self_exe())
		return -ENOEXEC;
	snprintf(sl->seed, sizeof(sl->seed), "%llu", (unsigned long long)S->seed);
	snprintf(sl->timeout, sizeof(sl->timeout), "%u", t);
	memcpy(sl->argv, (char *[]){(char *)prims_self_exe(), "__pair", s->file, r->spec,
				    sl->seed, sl->timeout, (char *)p->paths->ref,
				    (char *)p->paths->probe, (char *)p->paths->harness, NULL},
	       sizeof(sl->argv));
	if (!(sl->env = child_env()))
		return -ENOMEM;
	proc_opts_init(&sl->o);
	sl->o.argv = sl->argv;
	sl->o.envp = sl->env;
	sl->o.out_limit = SCEN_RESULT_LIMIT;
	sl->o.inherit_stderr = true;
	sl->o.tree_only = true;
	sl->o.timeout_ms = t < (INT_MAX / 1000) - JOBS_MARGIN_S ? (int)(t + JOBS_MARGIN_S) * 1000
								 : INT_MAX;
	if (S->stop_file[0]) {
		sl->o.signal_no = S->stop_signal;
		sl->o.signal_when = S->stop_file;
	}
	rc = proc_start(&sl->o, &sl->h);
	if (rc == -EOPNOTSUPP && S->stop_signal != SIGKILL && S->stop_file[0]) {
		S->stop_signal = sl->o.signal_no = SIGKILL; /* the OS delivers no other */
		rc = proc_start(&sl->o, &sl->h);
	}
	sl->pair = k;
	if (rc < 0)
		slot_free(sl);
	return rc;
}

/* The keeper's end as the pair's result JSON (malloc'd), or NULL: nothing
 * to record (the keeper stopped at an interrupt before its pair ended). */
static char *keeper_result(struct sched *S, struct proc_result *r)
{
	char why[160];

	if (r->exited && r->exit_code == 0 && r->out_len > 0 && !r->out_truncated) {
		char *json = r->out;

		r->out = NULL;
		return json;
	}
	S->unclean = S->unclean || !r->exited || r->exit_code != 0;
	if (S->stopping && ((r->exited && r->exit_code > 128) || r->term_signal))
		return NULL;
	if (r->timed_out)
		snprintf(why, sizeof(why), "the pair's keeper process passed its bound (the "
			 "scenario's timeout and %d s)", JOBS_MARGIN_S);
	else if (r->term_signal)
		snprintf(why, sizeof(why), "the pair's keeper process died (%s) without a result",
			 prims_signal_name(r->term_signal));
	else
		snprintf(why, sizeof(why), "the pair's keeper process exited %d without a result",
			 r->exit_code);
	return scen_error_json(why);
}

/* Records the result of pair k (json NULL: none) and marks it ended. */
static void pair_end(struct sched *S, size_t k, const char *json)
{
	const struct jobs_plan *p = S->p;

	struct tally *t = &S->ss->tally;
	size_t fails = t->n_fails;

	if (json)
		session_record_deferred(S->ss, &S->ss->scenarios.v[k / p->runners->n],
					p->runners->v[k % p->runners->n].name, S->seed, json,
					&S->v[k].line);
	/* the summary's order is the pairs', as under --jobs 1 */
	if (t->n_fails > fails)
		t->fails[fails].order = (S->seed - p->seed) * S->n + k;
	S->v[k].ended = true;
}

/* Prints the lines of the ended pairs that follow the last printed one,
 * in the pairs' order; with all, every ended pair's whatever comes before
 * (an interrupted round: the pairs never run have no line). */
static void lines_flush(struct sched *S, bool all)
{
	while (S->printed < S->n && (S->v[S->printed].ended || all)) {
		char *l = S->v[S->printed].line;

		if (l) {
			if (S->tty)
				fprintf(stderr, "\r\033[K");
			fputs(l, stdout);
			fflush(stdout);
			free(l);
			S->v[S->printed].line = NULL;
		}
		S->printed++;
	}
}

/* The keeper in sl is over: its result recorded, its slot freed. */
static void slot_finish(struct sched *S, struct slot *sl)
{
	struct proc_result r;
	char *json;

	proc_end(sl->h, &r);
	json = keeper_result(S, &r);
	pair_end(S, sl->pair, json);
	if (S->v[sl->pair].exclusive)
		S->alone = false;
	free(json);
	proc_result_free(&r);
	slot_free(sl);
	S->running--;
	lines_flush(S, false);
}

/* Advances every keeper: the first running one for up to wait_ms, the
 * others without waiting; finishes those that are over. */
static void slots_advance(struct sched *S, int wait_ms)
{
	for (unsigned i = 0; i < S->p->jobs; i++) {
		struct slot *sl = &S->slots[i];

		if (!sl->h)
			continue;
		if (proc_wait(sl->h, wait_ms))
			slot_finish(S, sl);
		wait_ms = 0;
	}
}

/* Starts keepers while there is room: an exclusive pair only when nothing
 * runs, and nothing beside it. */
static void launch_some(struct sched *S)
{
	while (!S->stopping && S->next < S->n && S->running < S->p->jobs && !S->alone) {
		size_t k = S->order[S->next];
		struct slot *sl = S->slots;
		int rc;

		if (S->v[k].exclusive && S->running > 0)
			return;
		while (sl->h)
			sl++;
		S->next++;
		runlog_progress(&S->ss->tally, S->ss->scenarios.v[k / S->p->runners->n].id, S->tty);
		if ((rc = slot_start(S, sl, k)) < 0) {
			char *json = scen_error_json("cannot start the scenario process");

			pair_end(S, k, json);
			free(json);
			lines_flush(S, false);
			continue;
		}
		S->running++;
		S->alone = S->v[k].exclusive;
	}
}

/* At an interrupt: every keeper told to stop (the stop file), waited for
 * up to JOBS_STOP_MS, then the rest killed with their trees. */
static void stop_all(struct sched *S)
{
	uint64_t waited = 0;
	int fd;

	S->stopping = true;
	if (S->stop_file[0] &&
	    (fd = open(S->stop_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	while (S->running > 0 && waited < JOBS_STOP_MS && S->stop_file[0]) {
		slots_advance(S, JOBS_SLICE_MS);
		waited += JOBS_SLICE_MS;
	}
	for (unsigned i = 0; i < S->p->jobs; i++)
		if (S->slots[i].h) {
			S->unclean = true;
			proc_kill(S->slots[i].h);
			slot_finish(S, &S->slots[i]);
		}
}

/* The launch order of a round: the exclusive pairs in the catalogue's
 * order, then the others with the areas interleaved - the first pair of
 * each area, then the second of each, and so on.  Long pairs cluster by
 * area (the hold sweeps of swap, the sessions of sess); interleaved, they
 * start spread over the round instead of all at its end, where the last
 * of them would run on while the other slots stand idle. */
static void order_fill(struct sched *S)
{
	const struct scen_list *l = &S->ss->scenarios;
	size_t o = 0, nr = S->p->runners->n;

	for (size_t k = 0; k < S->n; k++)
		if (S->v[k].exclusive)
			S->order[o++] = k;
	for (size_t rank = 0; o < S->n; rank++) {
		size_t in_area = 0;

		/* the catalogue is sorted by id, so an area's scenarios are adjacent */
		for (size_t i = 0; i < l->n; i++) {
			in_area = (i > 0 && !strcmp(l->v[i].area, l->v[i - 1].area)) ? in_area + 1 : 0;
			if (in_area != rank)
				continue;
			for (size_t j = 0; j < nr; j++)
				if (!S->v[i * nr + j].exclusive)
					S->order[o++] = i * nr + j;
		}
	}
}

/* One round (seed): every pair, or up to an interrupt.  0 or -ENOMEM. */
static int round_run(struct sched *S)
{
	const struct scen_list *l = &S->ss->scenarios;

	S->n = l->n * S->p->runners->n;
	S->printed = S->next = 0;
	S->v = calloc(S->n, sizeof(*S->v));
	S->order = calloc(S->n, sizeof(*S->order));
	if (!S->v || !S->order) {
		free(S->v);
		free(S->order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < S->n; k++)
		S->v[k].exclusive = l->v[k / S->p->runners->n].exclusive != NULL;
	order_fill(S);
	while (S->next < S->n || S->running > 0) {
		if (scen_interrupted()) {
			stop_all(S);
			break;
		}
		launch_some(S);
		slots_advance(S, JOBS_SLICE_MS);
	}
	lines_flush(S, true);
	free(S->v);
	free(S->order);
	return 0;
}

void jobs_run(struct session *ss, const struct jobs_plan *p)
{
	struct sched S = {.ss = ss, .p = p, .stop_signal = SIGTERM, .tty = isatty(2)};

	ss->tally.total = (unsigned)(ss->scenarios.n * p->runners->n * p->repeat);
	if (!(S.slots = calloc(p->jobs, sizeof(*S.slots)))) {
		fprintf(stderr, "sandproof: --jobs: out of memory\n");
		return;
	}
	stop_prepare(&S);
	for (unsigned long long k = 0; k < p->repeat && !scen_interrupted(); k++) {
		S.seed = p->seed + k;
		if (round_run(&S) < 0) {
			fprintf(stderr, "sandproof: --jobs: out of memory\n");
			break;
		}
	}
	/* What a killed keeper left: its pair's processes (re-parented to us)
	 * and temp directories (named by a scenario process that is gone). */
	if (S.unclean || S.stopping) {
		proc_kill_descendants(2000);
		scen_sweep_stale();
	}
	stop_remove(&S);
	free(S.slots);
}

int jobs_pair_main(int argc, char **argv)
{
	struct scen_paths paths;
	struct scen s = {0};
	unsigned long long seed, timeout;
	char *json = NULL, *e1, *e2;
	int fd, rc;
	size_t len;

	if (child_check("__pair") < 0)
		return 2;
	if (argc != 9 || (errno = 0, seed = strtoull(argv[4], &e1, 10), errno || *e1) ||
	    (timeout = strtoull(argv[5], &e2, 10), errno || *e2 || timeout == 0 ||
	     timeout > UINT_MAX)) {
		fprintf(stderr, "sandproof: __pair: bad arguments\n");
		return 2;
	}
	paths = (struct scen_paths){.ref = argv[6], .probe = argv[7], .harness = argv[8]};
	s.file = argv[2];
	/* the result alone on stdout: nothing the keeper does prints there */
	fd = fcntl(1, F_DUPFD_CLOEXEC, 0);
	if (fd < 0 || dup2(2, 1) < 0)
		return 4;
	proc_die_with_parent();
	proc_init();
	if (scen_interrupt_install() < 0)
		return 4;
	rc = scen_run_pair(&paths, &s, argv[3], seed, (unsigned)timeout, &json);
	if (rc == -EINTR)
		return 128 + scen_interrupted();
	if (rc < 0)
		json = strdup("{\"verdict\":\"error\",\"reason\":\"cannot start the scenario process\"}");
	if (!json)
		return 4;
	len = strlen(json);
	rc = write(fd, json, len) == (ssize_t)len ? 0 : 4;
	free(json);
	return rc;
}
