/* scen.c - see scen.h. */
#include "scen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "host.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"
#include "sandproof/tmpdir.h"

static int cmp_scen(const void *a, const void *b)
{
	return strcmp(((const struct scen *)a)->id, ((const struct scen *)b)->id);
}

static char *field(lua_State *L, const char *k)
{
	lua_getfield(L, -1, k);
	const char *s = lua_tostring(L, -1);
	char *r = strdup(s ? s : "");

	lua_pop(L, 1);
	return r;
}

static int load_one(lua_State *L, const char *file, struct scen *s, char *err,
		    size_t errlen)
{
	lua_getglobal(L, "require");
	lua_pushstring(L, "sandproof.engine");
	if (host_pcall(L, 1, 1) != LUA_OK) {
		snprintf(err, errlen, "harness: %s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -EINVAL;
	}
	lua_getfield(L, -1, "load");
	lua_pushstring(L, file);
	if (host_pcall(L, 1, 2) != LUA_OK || lua_isnil(L, -2)) {
		snprintf(err, errlen, "%s", lua_tostring(L, -1));
		lua_pop(L, 3);
		return -EINVAL;
	}
	lua_pop(L, 1);
	/* engine.describe(sc) */
	lua_getfield(L, -2, "describe");
	lua_insert(L, -2);
	if (host_pcall(L, 1, 1) != LUA_OK) {
		snprintf(err, errlen, "%s", lua_tostring(L, -1));
		lua_pop(L, 2);
		return -EINVAL;
	}
	s->file = strdup(file);
	s->id = field(L, "id");
	s->area = field(L, "area");
	s->clauses = field(L, "clauses");
	s->claim = field(L, "claim");
	s->impact = field(L, "impact");
	lua_getfield(L, -1, "exclusive");
	s->exclusive = lua_isstring(L, -1) ? strdup(lua_tostring(L, -1)) : NULL;
	lua_pop(L, 1);
	/* expect as JSON */
	lua_getglobal(L, "require");
	lua_pushstring(L, "sp");
	host_pcall(L, 1, 1);
	lua_getfield(L, -1, "json_encode");
	lua_getfield(L, -3, "expect");
	host_pcall(L, 1, 1);
	s->expect_json = strdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "{}");
	lua_pop(L, 4);
	return 0;
}

int scen_load_all(const struct scen_paths *p, const char *glob,
		  struct scen_list *out, char *err, size_t errlen)
{
	lua_State *L = host_new(p->harness);
	DIR *top = opendir(p->scenarios);
	struct dirent *area;
	size_t cap = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!L || !top) {
		snprintf(err, errlen, "cannot open scenarios directory %s: %s",
			 p->scenarios, strerror(errno));
		if (L)
			lua_close(L);
		return -ENOENT;
	}
	while (rc == 0 && (area = readdir(top))) {
		char dir[4096];
		DIR *d;
		struct dirent *f;

		if (area->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", p->scenarios, area->d_name);
		if (!(d = opendir(dir)))
			continue;
		while (rc == 0 && (f = readdir(d))) {
			char file[8192];
			size_t n = strlen(f->d_name);
			struct scen s = {0};

			if (n < 5 || strcmp(f->d_name + n - 4, ".lua") != 0)
				continue;
			snprintf(file, sizeof(file), "%s/%s", dir, f->d_name);
			rc = load_one(L, file, &s, err, errlen);
			if (rc < 0)
				break;
			if (glob && fnmatch(glob, s.id, 0) != 0) {
				free(s.file); free(s.id); free(s.area); free(s.clauses);
				free(s.claim); free(s.expect_json); free(s.impact); free(s.exclusive);
				continue;
			}
			if (out->n == cap) {
				cap = cap ? cap * 2 : 64;
				out->v = realloc(out->v, cap * sizeof(*out->v));
			}
			out->v[out->n++] = s;
		}
		closedir(d);
	}
	closedir(top);
	lua_close(L);
	if (rc < 0) {
		scen_list_free(out);
		return rc;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_scen);
	for (size_t i = 1; i < out->n; i++)
		if (strcmp(out->v[i].id, out->v[i - 1].id) == 0) {
			snprintf(err, errlen, "duplicate scenario id %s in %s and %s",
				 out->v[i].id, out->v[i - 1].file, out->v[i].file);
			scen_list_free(out);
			return -EINVAL;
		}
	return 0;
}

void scen_list_free(struct scen_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].file); free(l->v[i].id); free(l->v[i].area);
		free(l->v[i].clauses); free(l->v[i].claim); free(l->v[i].expect_json);
		free(l->v[i].impact);
		free(l->v[i].exclusive);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void scen_push_paths(lua_State *L, const struct scen_paths *p)
{
	lua_createtable(L, 0, 3);
	lua_pushstring(L, p->ref);
	lua_setfield(L, -2, "ref");
	lua_pushstring(L, p->probe);
	lua_setfield(L, -2, "probe");
	lua_pushstring(L, p->harness);
	lua_setfield(L, -2, "harness");
}

char *scen_error_json(const char *reason_in)
{
	char reason[512], *out;

	snprintf(reason, sizeof(reason), "%s", reason_in);
	for (char *c = reason; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
			*c = ' ';
	if (asprintf(&out, "{\"verdict\":\"error\",\"reason\":\"%s\"}", reason) < 0)
		return NULL;
	return out;
}

/* The pair, run in this process: engine.run_one's result as JSON on fd.
 * Returns the exit status: 0, or 3..6 (no Lua state, a Lua failure
 * reported as an error result, the result not written). */
static int child_run(const struct scen_paths *p, const char *file, const char *runner,
		     uint64_t seed, int fd)
{
	lua_State *L = host_new(p->harness);
	const char *out;
	size_t len;

	if (!L)
		return 3;
	lua_getglobal(L, "require");
	lua_pushstring(L, "sandproof.engine");
	if (host_pcall(L, 1, 1) != LUA_OK)
		goto fail;
	lua_getfield(L, -1, "run_one");
	lua_pushstring(L, file);
	lua_pushstring(L, runner);
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, (lua_Integer)seed);
	lua_setfield(L, -2, "seed");
	scen_push_paths(L, p);
	lua_setfield(L, -2, "paths");
	if (host_pcall(L, 3, 1) != LUA_OK)
		goto fail;
	lua_getglobal(L, "require");
	lua_pushstring(L, "sp");
	host_pcall(L, 1, 1);
	lua_getfield(L, -1, "json_encode");
	lua_pushvalue(L, -3);
	if (host_pcall(L, 1, 1) != LUA_OK)
		goto fail;
	out = lua_tolstring(L, -1, &len);
	return write(fd, out, len) == (ssize_t)len ? 0 : 4;
fail:
	out = lua_tolstring(L, -1, &len);
	{
		char *j = scen_error_json(out ? out : "harness: Lua failure");

		if (j && write(fd, j, strlen(j)) < 0)
			return 6;
	}
	return 5;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP || flag == FTW_D || flag == FTW_DNR) {
		chmod(path, 0700);
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	}
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* A scenario process that died (timeout, crash) before its context's
 * finish() leaves its temp directories: they carry its pid, remove them
 * (never following a symlink). */

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* chmod on the way up */
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool pid_gone(const char *digits)
{
	long pid = strtol(digits, NULL, 10);

	return pid > 0 && pid < (1L << 22) + 1 && proc_pid_exists(pid) == 0;
}

int scen_sweep_stale(void)
{
	int removed = 0;

	for (int i = 0; i < 2; i++) {
		char pattern[PATH_MAX];
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/sandproof-[0-9]*-*", prims_temp_root(i));
		if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {
			struct stat st;
			int fd = open(g.gl_pathv[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd < 0)
				continue;
			/* Ours, its named process gone (a harness predating the
			 * claim makes none), and nobody's claim (the pid may be
			 * of another pid namespace, or reused). */
			if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
			    pid_gone(g.gl_pathv[k] + strlen(prims_temp_root(i)) + strlen("/sandproof-")) &&
			    tmpdir_lock(fd, 1) == 0) {
				rm_tree(g.gl_pathv[k]);
				removed++;
			}
			close(fd);
		}
		globfree(&g);
	}
	return removed;
}

static void temp_sweep(pid_t pid)
{

	for (int i = 0; i < 2; i++) {
		char pattern[PATH_MAX];
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/sandproof-%d-*", prims_temp_root(i), (int)pid);
		if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			rm_tree(g.gl_pathv[k]);
		globfree(&g);
	}
}

void scen_sweep_pid(pid_t pid)
{
	temp_sweep(pid);
}

int scen_interrupt_install(void)
{
	return prims_interrupt_install();
}

int scen_interrupted(void)
{
	return prims_interrupted();
}

/* `sandproof __scenario FILE RUNNER SEED REF PROBE HARNESS` (child.h):
 * the scenario process.  Started by scen_run_pair through the seam, it is
 * already in a session of its own (no terminal for anything a scenario
 * starts), with default signal dispositions (the harness's interrupt
 * handler does not survive exec) and, where the OS has it, dies with the
 * harness; it makes itself a subreaper so the orphans of what it starts
 * stay its descendants, within the harness's tree kill.  The result goes
 * to the stdout it was given; its own stdout becomes its stderr, so a
 * scenario's print cannot corrupt the result. */
int scen_child_main(int argc, char **argv)
{
	struct scen_paths p;
	unsigned long long seed;
	char *end;
	int fd, rc;

	if (child_check("__scenario") < 0)
		return 2;
	if (argc != 8 || (errno = 0, seed = strtoull(argv[4], &end, 10), errno || *end)) {
		fprintf(stderr, "sandproof: __scenario: bad arguments\n");
		return 2;
	}
	p = (struct scen_paths){.scenarios = NULL, .ref = argv[5], .probe = argv[6],
				.harness = argv[7]};
	fd = fcntl(1, F_DUPFD_CLOEXEC, 0); /* any number but 1: 1 is open */
	if (fd < 0 || dup2(2, 1) < 0)
		return 4;
	proc_die_with_parent(); /* best effort where the OS has them (proc.h) */
	proc_init();
	rc = child_run(&p, argv[2], argv[3], (uint64_t)seed, fd);
	/* The Lua state is not closed (its __gc would start ending what the
	 * scenario left, which is the harness's tree kill's job): _exit, as
	 * the forked child did, skips the exit-time work (LeakSanitizer's
	 * report of that state among it) after a flush of what was printed. */
	fflush(NULL);
	_exit(rc);
}

/* One pair's launch: the options proc_start was given must outlive the
 * run (proc.h), so they live in scen_run_pair's frame. */
struct pair {
	struct proc_opts o;
	char *argv[9];
	char num[32];
	char **env;  /* the child's environment, to free */
};

/* Start `sandproof __scenario` for the pair, through the seam.  0 or
 * -errno; *h on success. */
static int pair_start(const struct scen_paths *p, const struct scen *s, const char *runner,
		      uint64_t seed, unsigned timeout_s, struct pair *pr, struct proc_handle **h)
{
	const char *self = prims_self_exe();
	int rc;

	if (!self)
		return -ENOEXEC;
	snprintf(pr->num, sizeof(pr->num), "%llu", (unsigned long long)seed);
	memcpy(pr->argv, (char *[]){(char *)self, "__scenario", s->file, (char *)runner, pr->num,
				    (char *)p->ref, (char *)p->probe, (char *)p->harness, NULL},
	       sizeof(pr->argv));
	if (!(pr->env = child_env()))
		return -ENOMEM;
	proc_opts_init(&pr->o);
	pr->o.argv = pr->argv;
	pr->o.envp = pr->env;
	pr->o.out_limit = SCEN_RESULT_LIMIT;
	pr->o.inherit_stderr = true;
	pr->o.kill_leftovers = true;
	pr->o.timeout_ms = timeout_s < INT_MAX / 1000 ? (int)timeout_s * 1000 : INT_MAX;
	if ((rc = proc_start(&pr->o, h)) < 0) {
		child_env_free(pr->env);
		pr->env = NULL;
	}
	return rc;
}

int scen_run_pair(const struct scen_paths *p, const struct scen *s,
		  const char *runner, uint64_t seed, unsigned timeout_s, char **json)
{
	struct proc_handle *h;
	struct proc_result r;
	struct pair pr;
	int rc = pair_start(p, s, runner, seed, timeout_s, &pr, &h);
	bool interrupted = false;

	*json = NULL;
	if (rc < 0)
		return rc;
	/* slices: an interrupt between the check and the wait waits at most one */
	while (!proc_wait(h, 200))
		if ((interrupted = prims_interrupted() != 0))
			break;
	/* The scenario process is a subreaper: what it started is its
	 * descendant; the seam kills it and them (at the timeout, or now). */
	proc_kill(h);
	proc_end(h, &r);
	child_env_free(pr.env);
	proc_kill_descendants(2000);
	temp_sweep(r.pid);
	if (interrupted) {
		proc_result_free(&r);
		return -EINTR;
	}
	if (r.timed_out) {
		char why[96];

		snprintf(why, sizeof(why), "scenario timed out after %u s", timeout_s);
		*json = scen_error_json(why);
	} else if (r.out_len == 0 || r.out_truncated) {
		*json = scen_error_json(r.out_truncated ? "scenario result larger than the bound"
			: r.term_signal ? "scenario process died (signal) without a result"
					: "scenario process exited without a result");
	} else {
		*json = r.out;
		r.out = NULL;
	}
	proc_result_free(&r);
	return *json ? 0 : -ENOMEM;
}
