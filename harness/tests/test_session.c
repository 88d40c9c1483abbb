/* test_session.c - the session module (harness/session.h) on its own, as
 * `run` and `smoke` drive it: --out checks, the <os>.sqlite it opens, the run
 * and scenario rows, results counted and recorded, a refused result counted
 * lost and turned into exit 3 with its message, the run's end on record.
 * Every effect is read back from the file through the store, and every
 * message from the stderr the session wrote. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandproof/prims.h"
#include "sandproof/store.h"
#include "session.h"
#include "t.h"

static char tmp[64] = "/tmp/sandproof-session.XXXXXX";
static char errfile[128];
static int saved_stderr = -1;

static const struct scen_paths paths = {
	.harness = SANDPROOF_SOURCE_DIR "/harness",
	.scenarios = SANDPROOF_SOURCE_DIR "/scenarios",
	.ref = "/nonexistent/sandproof-ref",
	.probe = "/nonexistent/sandproof-probe",
};

/* stderr into errfile (truncated) until stderr_read. */
static void stderr_capture(void)
{
	int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Restores stderr; what was written since stderr_capture, in buf. */
static const char *stderr_read(char *buf, size_t len)
{
	FILE *f;
	size_t n = 0;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	f = fopen(errfile, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void test_open_refusals(void)
{
	struct session ss;
	char path[256], long_out[PATH_MAX + 16], msg[PATH_MAX + 256];
	int rc;

	snprintf(path, sizeof(path), "%s/file", tmp);
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	session_init(&ss, "who");
	stderr_capture();
	rc = session_open(&ss, path, 0);
	stderr_read(msg, sizeof(msg));
	t_ok(rc == SESSION_EXIT_USAGE && strstr(msg, "who: --out ") &&
	     strstr(msg, "/file: not a directory") && !ss.db,
	     "--out a file: exit 2, named (rc %d, %s)", rc, msg);
	session_close(&ss);

	/* tmp/./././...: a directory that exists, its name PATH_MAX - 8 long,
	 * so DIR/<os>.sqlite does not fit */
	snprintf(long_out, sizeof(long_out), "%s/", tmp);
	while (strlen(long_out) < PATH_MAX - 8)
		strcat(long_out, long_out[strlen(long_out) - 1] == '.' ? "/" : ".");
	session_init(&ss, "who");
	stderr_capture();
	rc = session_open(&ss, long_out, 0);
	stderr_read(msg, sizeof(msg));
	t_ok(rc == SESSION_EXIT_USAGE && strstr(msg, strerror(ENAMETOOLONG)) && !ss.db,
	     "an out path that leaves no room for <os>.sqlite: exit 2 (rc %d, %s)", rc, msg + (strlen(msg) > 60 ? strlen(msg) - 60 : 0));
	session_close(&ss);
}

static int run_found(const struct store_run_row *row, void *ctx)
{
	(void)ctx;
	return row->finished_at && !strcmp(row->run.runners, "r1,r2") &&
	       !strcmp(row->run.filter, "meta.*") && row->run.seed == 7 ? 1 : 0;
}

static int result_count(const struct store_result_row *row, void *ctx)
{
	(void)row;
	++*(int *)ctx;
	return 0;
}

/* A full session: load, open, begin, two results (one refused), finish. */
static void test_session_lifecycle(void)
{
	struct session ss;
	struct store *db = NULL;
	char out[128], want[256], msg[2048], err[512];
	const char *pass = "{\"verdict\":\"pass\",\"expected\":\"pass\",\"observed\":\"x\"}";
	struct scen bogus = {.id = (char *)"no.such_scenario"};
	int rc, rec_ok, rec_lost, n = 0;

	snprintf(out, sizeof(out), "%s/out", tmp);
	session_init(&ss, "who");
	rc = session_load(&ss, &paths, "meta.*");
	t_ok(rc == 0 && ss.scenarios.n > 0, "session_load: %zu meta scenarios", ss.scenarios.n);
	if (rc || !ss.scenarios.n)
		return;
	rc = session_open(&ss, out, 1);
	snprintf(want, sizeof(want), "%s/%s.sqlite", out, prims_os_name());
	t_ok(rc == 0 && ss.db && !strcmp(ss.dbpath, want) && access(want, R_OK) == 0,
	     "session_open creates %s (rc %d, dbpath %s)", want, rc, ss.dbpath);
	if (rc)
		return;
	rc = session_begin(&ss, strdup("{\"kernel\":\"k\"}"), "r1,r2", "meta.*", 7);
	t_ok(rc == 0 && ss.run_id > 0, "session_begin records the run (id %lld)",
	     (long long)ss.run_id);
	stderr_capture();
	rec_ok = session_record(&ss, &ss.scenarios.v[0], "r1", 7, pass, false, NULL, NULL, 0);
	rec_lost = session_record(&ss, &bogus, "r1", 7, pass, false, NULL, NULL, 0);
	stderr_read(msg, sizeof(msg));
	t_ok(rec_ok == 0 && rec_lost == -EIO && ss.tally.pass == 2 && ss.tally.lost == 1,
	     "a result for a scenario the store lacks is refused and counted lost (%d %d, pass %u lost %u)",
	     rec_ok, rec_lost, ss.tally.pass, ss.tally.lost);
	rc = session_finish(&ss, 0);
	t_ok(rc == 0 && !ss.db && ss.scenarios.n == 0, "session_finish keeps rc 0, releases the store");
	stderr_capture();
	rc = session_exit_status(&ss, 1);
	snprintf(want, sizeof(want), "1 result could not be recorded in %s/%s.sqlite", out,
		 prims_os_name());
	stderr_read(msg, sizeof(msg));
	t_ok(rc == SESSION_EXIT_INTERNAL && strstr(msg, want),
	     "a lost result: exit 3, said (rc %d, %s)", rc, msg);
	session_close(&ss); /* idempotent after finish */

	snprintf(want, sizeof(want), "%s/%s.sqlite", out, prims_os_name());
	if (store_open_readonly(want, &db, err, sizeof(err)) < 0) {
		t_ok(0, "reopen %s: %s", want, err);
		return;
	}
	t_ok(store_read_runs(db, run_found, NULL) == 1,
	     "the run is on record with its columns and its end");
	store_read_results(db, ss.run_id, result_count, &n);
	t_ok(n == 1, "exactly the one accepted result is on record (%d)", n);
	store_close(db);
}

/* No result lost: the command's status passes through. */
static void test_exit_status_clean(void)
{
	struct session ss;

	session_init(&ss, "who");
	t_ok(session_exit_status(&ss, 0) == 0 && session_exit_status(&ss, 1) == 1,
	     "no result lost: session_exit_status returns the command's status");
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(errfile, sizeof(errfile), "%s/stderr", tmp);
	test_open_refusals();
	test_session_lifecycle();
	test_exit_status_clean();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	return t_done();
}
