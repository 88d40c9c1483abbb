/* explore_jobs.c - `sandproof explore --jobs N`: the driver in N worker
 * processes, their summaries merged (see explore_int.h). */
#include "explore_int.h"

#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "sandproof/prims.h"

struct explore_worker {
	pid_t pid;
	int fd;      /* read end of the pipe its summary comes through */
	char *buf;   /* the summary so far (NUL-terminated), malloc'd */
	size_t len;
	int status;  /* waitpid's */
};

/* In the worker process: drives programs w, w + jobs, ... and writes the
 * summary to fd; never returns.  Its stdout is line-buffered so that the
 * lines of several workers never interleave within a line. */
static void worker_run(const struct scen_paths *p, const struct explore_opts *o, int w, int fd)
{
	struct explore_opts wo = *o;
	char *json;
	size_t off = 0, n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	wo.worker = w;
	json = explore_drive(p, &wo, false);
	fflush(stdout);
	if (!json)
		_exit(3);
	n = strlen(json);
	while (off < n) {
		ssize_t k = write(fd, json + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(3);
		off += (size_t)k;
	}
	_exit(0);
}

/* Passes an interrupt the parent saw on to every worker, once. */
static void forward_interrupt(struct explore_worker *ws, int n, bool *done)
{
	int sig = prims_interrupted();

	if (!sig || *done)
		return;
	*done = true;
	for (int i = 0; i < n; i++)
		if (ws[i].pid > 0)
			kill(ws[i].pid, sig); /* our own unreaped child */
}

/* Reads worker w's summary to EOF, then reaps it and sweeps its temp
 * directories.  0, or -errno. */
static int worker_collect(struct explore_worker *ws, int n, int w, bool *fwd)
{
	struct explore_worker *x = &ws[w];
	char chunk[65536];
	int rc = 0;

	for (;;) {
		ssize_t k = read(x->fd, chunk, sizeof(chunk));

		if (k < 0 && errno == EINTR) {
			forward_interrupt(ws, n, fwd);
			continue;
		}
		if (k <= 0) {
			rc = k < 0 ? -errno : 0;
			break;
		}
		char *b = realloc(x->buf, x->len + (size_t)k + 1);

		if (!b) {
			rc = -ENOMEM;
			break;
		}
		x->buf = b;
		memcpy(x->buf + x->len, chunk, (size_t)k);
		x->len += (size_t)k;
		x->buf[x->len] = '\0';
	}
	close(x->fd);
	while (waitpid(x->pid, &x->status, 0) < 0 && errno == EINTR)
		forward_interrupt(ws, n, fwd);
	scen_sweep_pid(x->pid);
	return rc;
}

/* Starts the workers; -errno when one could not be (those started are
 * then left to be collected, told to stop by SIGTERM). */
static int workers_start(const struct scen_paths *p, const struct explore_opts *o,
			 struct explore_worker *ws, int n)
{
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < n; i++) {
		int fds[2];

		if (pipe(fds) < 0)
			return -errno;
		ws[i].pid = fork();
		if (ws[i].pid < 0) {
			int e = errno;

			close(fds[0]);
			close(fds[1]);
			return -e;
		}
		if (ws[i].pid == 0) {
			close(fds[0]);
			for (int j = 0; j < i; j++)
				close(ws[j].fd);
			worker_run(p, o, i + 1, fds[1]);
		}
		close(fds[1]);
		ws[i].fd = fds[0];
	}
	return 0;
}

/* The workers' summaries merged by the driver (merge_json), problem (or
 * NULL) said as why the run stopped; malloc'd JSON, or NULL. */
static char *workers_merge(const struct scen_paths *p, struct explore_worker *ws, int n,
			   const char *problem)
{
	lua_State *L = host_new(p->harness);
	char *json = NULL;
	int k = 0;

	if (!L)
		return NULL;
	lua_getglobal(L, "require");
	lua_pushstring(L, "sandproof.explore.driver");
	if (host_pcall(L, 1, 1) == LUA_OK) {
		lua_getfield(L, -1, "merge_json");
		lua_createtable(L, n, 0);
		for (int i = 0; i < n; i++)
			if (ws[i].buf) {
				lua_pushstring(L, ws[i].buf);
				lua_rawseti(L, -2, ++k);
			}
		if (problem)
			lua_pushstring(L, problem);
		else
			lua_pushnil(L);
		if (host_pcall(L, 2, 1) == LUA_OK && lua_isstring(L, -1))
			json = strdup(lua_tostring(L, -1));
	}
	if (!json)
		fprintf(stderr, "sandproof explore: internal error: merging the workers' summaries: %s\n",
			lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
	lua_close(L);
	return json;
}

char *explore_jobs_drive(const struct scen_paths *p, const struct explore_opts *o)
{
	struct explore_worker ws[16] = {0};
	int n = (int)o->jobs, started = 0, rc;
	char problem[256] = "";
	bool fwd = false;
	char *json;

	for (int i = 0; i < n; i++)
		ws[i].pid = -1;
	rc = workers_start(p, o, ws, n);
	for (int i = 0; i < n && ws[i].pid > 0; i++)
		started++;
	if (rc < 0) {
		snprintf(problem, sizeof(problem), "could not start worker %d of %d: %s",
			 started + 1, n, strerror(-rc));
		for (int i = 0; i < started; i++)
			kill(ws[i].pid, SIGTERM);
	}
	for (int i = 0; i < started; i++) {
		int e = worker_collect(ws, started, i, &fwd);
		bool ok = WIFEXITED(ws[i].status) && WEXITSTATUS(ws[i].status) == 0;

		if ((e < 0 || !ok || !ws[i].buf) && !*problem)
			snprintf(problem, sizeof(problem), "worker %d of %d ended without a summary "
				 "(%s %d)", i + 1, n, WIFSIGNALED(ws[i].status) ? "signal" : "exit",
				 WIFSIGNALED(ws[i].status) ? WTERMSIG(ws[i].status)
							   : WEXITSTATUS(ws[i].status));
	}
	json = workers_merge(p, ws, started, *problem ? problem : NULL);
	for (int i = 0; i < n; i++)
		free(ws[i].buf);
	return json;
}
