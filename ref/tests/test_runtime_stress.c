/* test_runtime_stress.c - concurrent runs against aggressive evictors.
 *
 * usage: test_runtime_stress [seconds]   (default 20)
 *
 * Forked "runs" acquire roots for a handful of workspaces, check their TMPDIR
 * is there and writable, plant a symlink out of it, sleep a little, check the
 * root is still the one they leased, and release; forked evictors meanwhile
 * call runtime_gc() with max_age_s = 0 and max_roots = 1 in a loop.  Counted
 * invariants: no run found its TMPDIR missing or unwritable, no leased root
 * was removed or replaced, a symlink planted in the parent (and in roots)
 * pointing at a victim folder leaves it intact, and the root count converges
 * to the bound once runs stop.  Everything lives under one mkdtemp directory
 * that is removed at the end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"
#include "t.h"

#define N_WS 5
#define N_RUNNERS 6
#define N_EVICTORS 2

struct shared {
	long runs, evictions, run_evictions, gc_calls;
	long acquire_fail, tmp_fail, leased_removed, gc_fail;
	int first_errno;
};

static struct shared *sh;
static char base[PATH_MAX], parent[PATH_MAX], ws[N_WS][PATH_MAX];

static void pf(char *dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, PATH_MAX, fmt, ap);
	va_end(ap);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bump(long *counter, int err)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
	if (err)
		__atomic_compare_exchange_n(&sh->first_errno, &(int){0}, err, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* TMPDIR exists and a file can be created and removed in it. */
static int tmp_usable(const char *tmpdir, unsigned n)
{
	char path[PATH_MAX];
	struct stat s;
	if (stat(tmpdir, &s) < 0 || !S_ISDIR(s.st_mode))
		return -ENOENT;
	pf(path, "%s/probe.%ld.%u", tmpdir, (long)getpid(), n);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int w = (int)write(fd, "x", 1);
	close(fd);
	if (w != 1 || unlink(path) < 0)
		return -EIO;
	return 0;
}

static const char *env_of(const struct runtime_root *r, const char *key)
{
	for (size_t i = 0; i < r->n_env; i++)
		if (!strcmp(r->env[i].key, key))
			return r->env[i].value;
	return NULL;
}

static void runner(double deadline, unsigned seed)
{
	struct runtime_config c = {.parent = parent, .max_age_s = 3600, .max_roots = 2};
	char link[PATH_MAX];
	unsigned n = 0;
	while (now_s() < deadline) {
		struct runtime_root r;
		struct runtime_report rep;
		struct stat a, b;
		int rc = runtime_acquire(&c, ws[rand_r(&seed) % N_WS], &r, &rep);
		if (rc < 0) {
			bump(&sh->acquire_fail, -rc);
			continue;
		}
		for (size_t i = 0; i < rep.n_evicted; i++)
			if (strcmp(rep.evicted[i].reason, "tombstone"))
				bump(&sh->run_evictions, 0);
		const char *tmpdir = env_of(&r, "TMPDIR");
		if (!tmpdir || (rc = tmp_usable(tmpdir, n++)) < 0)
			bump(&sh->tmp_fail, rc ? -rc : EINVAL);
		/* a symlink out of the root for the evictors to (not) follow */
		pf(link, "%s/escape.%ld.%u", r.tmp, (long)getpid(), n);
		if (symlink(base, link) < 0)
			bump(&sh->tmp_fail, errno);
		usleep((useconds_t)(rand_r(&seed) % 3000));
		/* the leased root must still be at its name, still linked */
		if (fstat(r.root_fd, &a) < 0 || a.st_nlink == 0 || stat(r.root, &b) < 0 ||
		    a.st_dev != b.st_dev || a.st_ino != b.st_ino || !tmpdir || tmp_usable(tmpdir, n++) < 0)
			bump(&sh->leased_removed, 0);
		runtime_release(&r);
		bump(&sh->runs, 0);
	}
}

static void evictor(double deadline, unsigned seed)
{
	struct runtime_config c = {.parent = parent, .max_age_s = 0, .max_roots = 1};
	while (now_s() < deadline) {
		struct runtime_report rep;
		int rc = runtime_gc(&c, NULL, false, &rep);
		if (rc < 0)
			bump(&sh->gc_fail, -rc);
		for (size_t i = 0; i < rep.n_evicted; i++)
			if (strcmp(rep.evicted[i].reason, "tombstone"))
				bump(&sh->evictions, 0);
		bump(&sh->gc_calls, 0);
		usleep((useconds_t)(rand_r(&seed) % 1000));
	}
}

static int count_entries(const char *dir, bool roots, const char *substr)
{
	char path[PATH_MAX];
	struct stat s;
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		pf(path, "%s/%s", dir, e->d_name);
		if (roots && runtime_name_is_root(e->d_name) && lstat(path, &s) == 0 && S_ISDIR(s.st_mode))
			n++;
		if (substr && strstr(e->d_name, substr))
			n++;
	}
	closedir(d);
	return n;
}

static bool victim_intact(void)
{
	char path[PATH_MAX], buf[16] = "";
	pf(path, "%s/victim/keep", base);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, "precious");
}

int main(int argc, char **argv)
{
	char tmpl[PATH_MAX], path[PATH_MAX];
	const char *t = getenv("TMPDIR");
	double secs = 20;
	pid_t pids[N_RUNNERS + N_EVICTORS];
	int bad_exit = 0;

	if (argc > 2 || (argc == 2 && ((secs = strtod(argv[1], NULL)) <= 0 || secs > 3600))) {
		fprintf(stderr, "usage: %s [seconds]   (default 20)\n", argv[0]);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pf(tmpl, "%s/rt-stress.XXXXXX", t && *t ? t : "/tmp");
	if (sh == MAP_FAILED || !mkdtemp(tmpl) || runtime_canonicalize(tmpl, base, sizeof(base)) < 0) {
		perror("setup");
		return 1;
	}
	pf(parent, "%s/parent", base);
	mkdir(parent, 0700);
	for (int i = 0; i < N_WS; i++) {
		pf(ws[i], "%s/ws%d", base, i);
		mkdir(ws[i], 0755);
	}
	pf(path, "%s/victim", base);
	mkdir(path, 0755);
	pf(path, "%s/victim/keep", base);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("precious", f);
		fclose(f);
	}
	/* symlinks planted in the parent with a root's and a tombstone's name */
	pf(tmpl, "%s/victim", base);
	pf(path, "%s/0123456789abcdef", parent);
	symlink(tmpl, path);
	pf(path, "%s/0123456789abcdef.tomb.1.1.1", parent);
	symlink(tmpl, path);

	double deadline = now_s() + secs;
	for (int i = 0; i < N_RUNNERS + N_EVICTORS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (i < N_RUNNERS)
				runner(deadline, (unsigned)getpid() * 2654435761u);
			else
				evictor(deadline, (unsigned)getpid());
			_exit(0);
		}
		if (pids[i] < 0) {
			perror("fork");
			deadline = 0;
		}
	}
	for (int i = 0; i < N_RUNNERS + N_EVICTORS; i++) {
		int st;
		if (pids[i] > 0 && (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)))
			bad_exit++;
	}

	printf("# runs %ld, evictions %ld by evictors (%ld gc calls) + %ld by runs\n", sh->runs,
	       sh->evictions, sh->gc_calls, sh->run_evictions);
	t_ok(bad_exit == 0, "every run and evictor process exited cleanly");
	t_ok(sh->runs > 0 && sh->acquire_fail == 0, "%ld runs, %ld failed acquires (first errno %d)",
	      sh->runs, sh->acquire_fail, sh->first_errno);
	t_ok(sh->evictions > 0, "evictors evicted while runs were going (%ld)", sh->evictions);
	t_ok(sh->tmp_fail == 0, "no run found its TMPDIR missing or unwritable (%ld)", sh->tmp_fail);
	t_ok(sh->leased_removed == 0, "no leased root was removed or replaced (%ld)", sh->leased_removed);
	t_ok(sh->gc_fail == 0, "no gc call failed (%ld)", sh->gc_fail);
	t_ok(victim_intact(), "the victim folder behind the planted symlinks is intact");
	pf(path, "%s/0123456789abcdef", parent);
	struct stat s;
	bool l1 = lstat(path, &s) == 0 && S_ISLNK(s.st_mode);
	pf(path, "%s/0123456789abcdef.tomb.1.1.1", parent);
	t_ok(l1 && lstat(path, &s) == 0 && S_ISLNK(s.st_mode), "the planted symlinks were skipped, not removed");

	/* once runs stop, one gc with the evictors' bound converges */
	struct runtime_config lru = {.parent = parent, .max_age_s = UINT64_MAX, .max_roots = 1};
	struct runtime_report rep;
	int before = count_entries(parent, true, NULL);
	int rc = runtime_gc(&lru, NULL, false, &rep);
	int after = count_entries(parent, true, NULL);
	t_ok(rc == 0 && after == (before > 0 ? 1 : 0),
	      "root count converges to max_roots=1 (%d -> %d)", before, after);
	struct runtime_config all = {.parent = parent, .max_age_s = 0, .max_roots = 1};
	usleep(10000);
	rc = runtime_gc(&all, NULL, false, &rep);
	t_ok(rc == 0 && count_entries(parent, true, NULL) == 0 &&
	      count_entries(parent, false, ".tomb.") == 1 && count_entries(parent, false, ".lease") == 0 &&
	      count_entries(parent, false, ".stamp") == 0,
	      "with max_age_s=0 nothing is left: no root, tombstone, lease or stamp");
	t_ok(victim_intact(), "the victim folder is still intact at the end");

	runtime_remove_tree(AT_FDCWD, base);
	t_ok(access(base, F_OK) < 0 && errno == ENOENT, "scratch directory removed");
	munmap(sh, sizeof(*sh));
	return t_done();
}
