/* test_runtime_runs.c - runtime roots (RT) through the real runner.
 *
 * usage: test_runtime_runs SANDPROOF_REF [seconds]   (stress duration, default 8)
 *
 * Drives `sandproof-ref run` and `sandproof-ref gc` as black boxes:
 *  1. stress: concurrent runs on a few workspaces against evictors with
 *     max_age 0 / max_roots 1; every run must succeed using its TMPDIR and
 *     XDG_CACHE_HOME across a sleep (so no leased root vanished under it),
 *     symlinks planted in the parent leave their victim intact, nothing
 *     outside the parent changes, and the root count converges to the bound;
 *  2. stamp: first run re-provisions, an intact root takes the fast path, a
 *     root removed and recreated (same mode and new inode; another mode and,
 *     as root, another owner; tmp/ swapped for a symlink) re-provisions;
 *  3. from inside: the root, its stamp and its lease are read-only, tmp/
 *     cache/ data/ are writable, the runtime environment is set (both with
 *     /tmp served from tmp/ and with a write root beneath /tmp);
 *  4. a group/world-writable or foreign parent is refused before anything ran.
 * Everything lives under one mkdtemp directory in /var/tmp, removed at the end. */
#include <dirent.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "refrun.h"
#include "t.h"

#ifdef __APPLE__
#define st_mtim st_mtimespec /* macOS spells the POSIX 2008 field so */
#endif

#define N_WS 3
#define N_LOOPS 6
#define N_EVICTORS 2
#define FAIL_MAX 512

static char *ref;
static char base[PATH_MAX], parent[PATH_MAX], victim[PATH_MAX], ws[N_WS][PATH_MAX];
static char hosttmp[PATH_MAX]; /* a write root beneath /tmp (part 3) */

/* ------------------------------------------------------------- helpers */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 2, 3)))
static char *pjoin(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, PATH_MAX, fmt, ap);
	va_end(ap);
	return dst;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* Whole small file into buf ("" when unreadable). */
static const char *read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	for (ssize_t r; n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0;)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	return buf;
}

/* Best effort: what cannot go is left for the final check to report. */
static int rm_one(const char *p, const struct stat *s, int flag, struct FTW *f)
{
	(void)s;
	(void)f;
	if (flag == FTW_DP)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

/* rm -rf that never follows a symlink (FTW_PHYS) nor crosses a mount. */
static void rm_tree(const char *p)
{
	nftw(p, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static bool is_root_name(const char *n)
{
	size_t i;

	for (i = 0; n[i]; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return false;
	return i == 16;
}

/* Directories with a root's name shape in dir (symlinks are not roots). */
static int count_roots(const char *dir, int *tombs)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];
	struct stat s;
	int n = 0;

	if (tombs)
		*tombs = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (is_root_name(e->d_name) && lstat(pjoin(p, "%s/%s", dir, e->d_name), &s) == 0 &&
		    S_ISDIR(s.st_mode))
			n++;
		if (tombs && strstr(e->d_name, ".tomb.") &&
		    lstat(pjoin(p, "%s/%s", dir, e->d_name), &s) == 0 && !S_ISLNK(s.st_mode))
			(*tombs)++;
	}
	closedir(d);
	return n;
}

/* ---------------------------------------------------- host snapshots */

/* A listing of everything under base except the runtime parents: path,
 * type, mode, owner, size, mtime, inode and (for links) target.  Compared
 * before and after the stress, it is the oracle for "nothing outside the
 * parent changed", victims included. */
static char *snap_buf;
static size_t snap_len, snap_cap;

static int snap_one(const char *p, const struct stat *s, int flag, struct FTW *f)
{
	char line[PATH_MAX * 2 + 160], target[PATH_MAX] = "";
	const char *leaf = p + f->base;
	int n;

	(void)flag;
	/* runtime parents change by design */
	if (f->level == 1 && (strcmp(leaf, "p") == 0 || strncmp(leaf, "p.", 2) == 0))
		return FTW_SKIP_SUBTREE;
	if (S_ISLNK(s->st_mode)) {
		ssize_t k = readlink(p, target, sizeof(target) - 1);

		target[k > 0 ? k : 0] = '\0';
	}
	n = snprintf(line, sizeof(line), "%s %o %u %lld %lld.%09ld %llu %s\n", p,
		     (unsigned)s->st_mode, (unsigned)s->st_uid, (long long)s->st_size,
		     (long long)s->st_mtim.tv_sec, s->st_mtim.tv_nsec,
		     (unsigned long long)s->st_ino, target);
	if (snap_len + (size_t)n + 1 > snap_cap) {
		snap_cap = (snap_cap + (size_t)n + 1) * 2;
		snap_buf = realloc(snap_buf, snap_cap);
	}
	memcpy(snap_buf + snap_len, line, (size_t)n + 1);
	snap_len += (size_t)n;
	return FTW_CONTINUE;
}

static char *snapshot(void)
{
	snap_buf = NULL;
	snap_len = snap_cap = 0;
	nftw(base, snap_one, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	return snap_buf ? snap_buf : strdup("");
}

/* The victim: a folder of ours outside every parent, with content. */
static bool victim_intact(const char *dir)
{
	char p[PATH_MAX], buf[64];

	return strcmp(read_file(pjoin(p, "%s/secret", dir), buf, sizeof(buf)), "precious\n") == 0 &&
	       strcmp(read_file(pjoin(p, "%s/sub/inner", dir), buf, sizeof(buf)), "inner\n") == 0;
}

static int make_victim(const char *dir)
{
	char p[PATH_MAX];

	if (mkdir(dir, 0755) < 0 || mkdir(pjoin(p, "%s/sub", dir), 0755) < 0)
		return -errno;
	if (write_file(pjoin(p, "%s/secret", dir), "precious\n") < 0 ||
	    write_file(pjoin(p, "%s/sub/inner", dir), "inner\n") < 0)
		return -EIO;
	return 0;
}

/* ------------------------------------------------------------ requests */

/* A restricted request: workspace ws writable, optional extra write root,
 * the given runtime profile, command ["sh","-c",script], env PATH plus
 * extra_env pairs ("K","V",...,NULL).  Returned string is malloc'd. */
static char *make_req(const char *script, const char *wsdir, const char *extra_root,
		      const char *rt_parent, double max_age, double max_roots,
		      const char *const *extra_env)
{
	cJSON *o = cJSON_CreateObject(), *cmd, *env, *prof, *fs, *wr, *w, *rt, *net;
	char *s;

	cJSON_AddNumberToObject(o, "version", 1);
	cmd = cJSON_AddArrayToObject(o, "command");
	cJSON_AddItemToArray(cmd, cJSON_CreateString("sh"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString(script));
	cJSON_AddStringToObject(o, "cwd", wsdir);
	env = cJSON_AddObjectToObject(o, "env");
	cJSON_AddStringToObject(env, "PATH", "/usr/bin:/bin");
	for (size_t i = 0; extra_env && extra_env[i]; i += 2)
		cJSON_AddStringToObject(env, extra_env[i], extra_env[i + 1]);
	cJSON_AddNumberToObject(o, "timeout_ms", 30000);
	prof = cJSON_AddObjectToObject(o, "profile");
	fs = cJSON_AddObjectToObject(prof, "filesystem");
	cJSON_AddStringToObject(fs, "kind", "restricted");
	cJSON_AddItemToObject(fs, "read_roots", cJSON_CreateStringArray((const char *[]){"/"}, 1));
	wr = cJSON_AddArrayToObject(fs, "write_roots");
	w = cJSON_CreateObject();
	cJSON_AddStringToObject(w, "root", wsdir);
	cJSON_AddItemToArray(wr, w);
	if (extra_root) {
		w = cJSON_CreateObject();
		cJSON_AddStringToObject(w, "root", extra_root);
		cJSON_AddItemToArray(wr, w);
	}
	cJSON_AddBoolToObject(fs, "allow_temp", 1);
	net = cJSON_AddObjectToObject(prof, "network");
	cJSON_AddStringToObject(net, "mode", "deny");
	rt = cJSON_AddObjectToObject(prof, "runtime");
	cJSON_AddStringToObject(rt, "parent", rt_parent);
	cJSON_AddNumberToObject(rt, "max_age_s", max_age);
	cJSON_AddNumberToObject(rt, "max_roots", max_roots);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static int run_req(const char *req, struct refrun *r)
{
	char *argv[] = {ref, "run", "--request", "-", NULL};

	return refrun(argv, req, r, NULL, NULL);
}

static bool is_kind(const struct refrun *r, const char *kind)
{
	return r->outcome && strcmp(oc_str(r->outcome, "kind"), kind) == 0;
}

static bool reprovisioned(const struct refrun *r)
{
	return cJSON_IsTrue(oc_get(r->outcome, "runtime.reprovisioned"));
}

static const char *diag(const struct refrun *r, char *buf, size_t len)
{
	snprintf(buf, len, "kind %s, reason %s, stdout [%.200s], stderr [%.200s], setup %s/%s",
		 oc_str(r->outcome, "kind"), oc_str(r->outcome, "runtime.reprovision_reason"),
		 oc_str(r->outcome, "stdout"), oc_str(r->outcome, "stderr"),
		 oc_str(r->outcome, "setup_error.step"), oc_str(r->outcome, "setup_error.detail"));
	for (char *c = buf; *c; c++) /* one line per check */
		if (*c == '\n')
			*c = '|';
	return buf;
}

/* ------------------------------------------------------------ 1. stress */

struct shared {
	long runs, run_ok, run_bad, run_bad_setup;
	long run_evicted_roots, run_evicted_tombs, run_skipped_in_use;
	long gc_calls, gc_ok, gc_evicted_roots, gc_evicted_tombs, gc_skipped_in_use, gc_skipped_link;
	int first_fail_set;
	char first_fail[FAIL_MAX];
};

static struct shared *sh;

static void add(long *c, long n)
{
	__atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

static void note_fail(const char *what)
{
	int z = 0;

	if (__atomic_compare_exchange_n(&sh->first_fail_set, &z, 1, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		snprintf(sh->first_fail, sizeof(sh->first_fail), "%s", what);
}

static void count_evicted(const cJSON *arr, bool gc, long *roots, long *tombs)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr) {
		const char *name = gc ? oc_str(e, "name") : cJSON_IsString(e) ? e->valuestring : "";

		if (strstr(name, ".tomb."))
			add(tombs, 1);
		else
			add(roots, 1);
	}
}

static void count_skipped(const cJSON *arr, bool gc)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr) {
		const char *why = gc ? oc_str(e, "reason") : cJSON_IsString(e) ? e->valuestring : "";

		if (strstr(why, "in use"))
			add(gc ? &sh->gc_skipped_in_use : &sh->run_skipped_in_use, 1);
		else if (gc && strstr(why, "symlink"))
			add(&sh->gc_skipped_link, 1);
	}
}

/* One run loop: the command writes a file named uniquely for this run in
 * TMPDIR and in XDG_CACHE_HOME, sleeps so evictors get a window while the
 * root is leased, then reads both back and removes them. */
static void run_loop(int id, double deadline)
{
	char script[1024], want[64], d[1024];
	const char *tag = "sprt";
	unsigned seed = (unsigned)getpid() * 2654435761u + (unsigned)id;

	for (long i = 0; now_s() < deadline; i++) {
		struct refrun r;
		char *req;
		bool ok;

		snprintf(script, sizeof(script),
			 "n=%s.%d.%d.%ld; test -d \"$TMPDIR\" && test -d \"$XDG_CACHE_HOME\" && "
			 "echo x$n > \"$TMPDIR/f.$n\" && echo y$n > \"$XDG_CACHE_HOME/g.$n\" && "
			 "sleep 0.05 && cat \"$TMPDIR/f.$n\" \"$XDG_CACHE_HOME/g.$n\" && "
			 "rm \"$TMPDIR/f.$n\" \"$XDG_CACHE_HOME/g.$n\"",
			 tag, (int)getppid(), id, i);
		snprintf(want, sizeof(want), "x%s.%d.%d.%ld\ny%s.%d.%d.%ld\n", tag, (int)getppid(),
			 id, i, tag, (int)getppid(), id, i);
		/* random workspaces: now and then one is idle, and its root
		 * can be evicted by a run or a gc */
		req = make_req(script, ws[rand_r(&seed) % N_WS], NULL, parent, 0, 1, NULL);
		run_req(req, &r);
		free(req);
		ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && is_kind(&r, "success") &&
		     strcmp(oc_str(r.outcome, "stdout"), want) == 0;
		add(&sh->runs, 1);
		add(ok ? &sh->run_ok : &sh->run_bad, 1);
		if (!ok && is_kind(&r, "sandbox_setup_failure"))
			add(&sh->run_bad_setup, 1);
		if (!ok)
			note_fail(diag(&r, d, sizeof(d)));
		count_evicted(oc_get(r.outcome, "runtime.evicted"), false, &sh->run_evicted_roots,
			      &sh->run_evicted_tombs);
		count_skipped(oc_get(r.outcome, "runtime.skipped"), false);
		refrun_free(&r);
	}
}

static int gc_once(const char *p, const char *max_age, const char *max_roots, struct refrun *r)
{
	char *argv[] = {ref, "gc", "--parent", (char *)p, "--max-age", (char *)max_age,
			"--max-roots", (char *)max_roots, "--json", NULL};

	return refrun(argv, NULL, r, NULL, NULL);
}

static void evict_loop(double deadline)
{
	char d[FAIL_MAX];

	while (now_s() < deadline) {
		struct refrun r;

		gc_once(parent, "0", "1", &r);
		add(&sh->gc_calls, 1);
		if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 &&
		    cJSON_IsTrue(oc_get(r.outcome, "ok"))) {
			add(&sh->gc_ok, 1);
		} else {
			snprintf(d, sizeof(d), "gc: status %d out [%.200s] err [%.200s]", r.status,
				 r.out, r.err);
			note_fail(d);
		}
		count_evicted(oc_get(r.outcome, "evicted"), true, &sh->gc_evicted_roots,
			      &sh->gc_evicted_tombs);
		count_skipped(oc_get(r.outcome, "skipped"), true);
		refrun_free(&r);
	}
}

static void stress(double secs)
{
	pid_t pids[N_LOOPS + N_EVICTORS];
	char p[PATH_MAX], link1[PATH_MAX], link2[PATH_MAX], link3[PATH_MAX], *before, *after;
	double t0, deadline;
	int bad_exit = 0, n, tombs;
	struct refrun r;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		t_ok(0, "stress: mmap: %s", strerror(errno));
		return;
	}
	memset(sh, 0, sizeof(*sh));
	/* Symlinks in the parent pointing at the victim: a root-shaped name,
	 * a tombstone-shaped name, and a stamp-shaped name pointing at a file. */
	symlink(victim, pjoin(link1, "%s/deadbeefdeadbeef", parent));
	symlink(victim, pjoin(link2, "%s/deadbeefdeadbeef.tomb.1.1.1", parent));
	symlink(pjoin(p, "%s/secret", victim), pjoin(link3, "%s/abcabcabcabcabca.stamp", parent));
	before = snapshot();

	t0 = now_s();
	deadline = t0 + secs;
	for (int i = 0; i < N_LOOPS + N_EVICTORS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (i < N_LOOPS)
				run_loop(i, deadline);
			else
				evict_loop(deadline);
			_exit(0);
		}
	}
	for (int i = 0; i < N_LOOPS + N_EVICTORS; i++) {
		int st;

		if (pids[i] < 0 || waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			bad_exit++;
	}
	double elapsed = now_s() - t0;

	t_ok(bad_exit == 0, "stress: all %d loops ran to the end", N_LOOPS + N_EVICTORS);
	t_ok(sh->runs > 0 && sh->run_bad == 0,
	     "stress: every run succeeded with its TMPDIR and XDG_CACHE_HOME usable across the "
	     "sleep (%ld runs, %ld bad: %ld refused at setup, %ld failed in the command)%s%s",
	     sh->runs, sh->run_bad, sh->run_bad_setup, sh->run_bad - sh->run_bad_setup,
	     sh->first_fail_set ? "; first: " : "", sh->first_fail);
	t_ok(sh->gc_calls > 0 && sh->gc_ok == sh->gc_calls, "stress: every gc succeeded (%ld/%ld)",
	     sh->gc_ok, sh->gc_calls);
	long ev_roots = sh->run_evicted_roots + sh->gc_evicted_roots;
	long ev_all = ev_roots + sh->run_evicted_tombs + sh->gc_evicted_tombs;
	long in_use = sh->run_skipped_in_use + sh->gc_skipped_in_use;

	printf("# stress %.1fs: %ld runs, %ld gc calls; %ld evictions (%ld roots: %ld by runs, "
	       "%ld by gc; %ld tombstones); %ld skipped as in use (%ld by runs, %ld by gc)\n",
	       elapsed, sh->runs, sh->gc_calls, ev_all, ev_roots, sh->run_evicted_roots,
	       sh->gc_evicted_roots, sh->run_evicted_tombs + sh->gc_evicted_tombs, in_use,
	       sh->run_skipped_in_use, sh->gc_skipped_in_use);
	/* power: roots were really evicted between runs, and evictors really
	 * met roots under a live lease */
	t_ok(ev_roots > 0 && in_use > 0,
	     "stress had power: %ld roots evicted, %ld in-use skips", ev_roots, in_use);
	t_ok(sh->gc_skipped_link > 0, "gc saw the planted symlinks and skipped them (%ld)",
	     sh->gc_skipped_link);

	t_ok(victim_intact(victim), "the victim behind the planted symlinks is intact");
	after = snapshot();
	t_ok(strcmp(before, after) == 0,
	     "nothing outside the parent changed (workspaces and victim included)");
	if (strcmp(before, after) != 0)
		printf("# before:\n%s# after:\n%s", before, after);
	free(before);
	free(after);
	{
		/* the commands' files went to the root's tmp/, never the host's /tmp */
		DIR *d = opendir("/tmp");
		struct dirent *e;
		char pre[64];
		int leaked = 0;

		snprintf(pre, sizeof(pre), "f.sprt.%d.", (int)getpid());
		while (d && (e = readdir(d)))
			leaked += strncmp(e->d_name, pre, strlen(pre)) == 0;
		if (d)
			closedir(d);
		t_ok(d && leaked == 0, "no command file landed in the host's /tmp (%d)", leaked);
	}

	/* Once runs stop, one gc with the LRU bound converges. A large age
	 * keeps the age rule out, so it is max_roots that bounds the count. */
	gc_once(parent, "100000", "1", &r);
	n = count_roots(parent, &tombs);
	t_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && n >= 0 && n <= 1 && tombs == 0,
	     "after the runs, gc --max-roots 1 leaves %d root(s) (<= 1) and %d tombstone(s)", n,
	     tombs);
	refrun_free(&r);
	gc_once(parent, "0", "1", &r);
	n = count_roots(parent, &tombs);
	t_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && n == 0 && tombs == 0,
	     "gc --max-age 0 then evicts the last root too (%d left)", n);
	refrun_free(&r);
	{
		struct stat s;

		t_ok(lstat(link1, &s) == 0 && S_ISLNK(s.st_mode) && victim_intact(victim),
		     "the root-shaped symlink is still a symlink, victim still intact");
	}
	munmap(sh, sizeof(*sh));
}

/* ------------------------------------------------------------- 2. stamp */

/* Relative paths of every directory below a root, parents first. */
static char layout[32][64];
static int n_layout;
static size_t layout_prefix;

static int layout_one(const char *p, const struct stat *s, int flag, struct FTW *f)
{
	(void)s;
	if (flag == FTW_D && f->level > 0 && n_layout < 32)
		snprintf(layout[n_layout++], sizeof(layout[0]), "%s", p + layout_prefix + 1);
	return 0;
}

/* Replace the root by a fresh tree of the same shape: new inodes, with
 * mode (and owner, when uid >= 0) of the caller's choosing on the root. */
static int recreate_root(const char *root, mode_t mode, int uid)
{
	char p[PATH_MAX], old[PATH_MAX];

	layout_prefix = strlen(root);
	n_layout = 0;
	nftw(root, layout_one, 16, FTW_PHYS);
	/* the old tree stays until the new one exists, so no inode of it can
	 * be reused: every object of the new tree has a new identity */
	if (rename(root, pjoin(old, "%s.old", root)) < 0)
		return -errno;
	if (mkdir(root, 0700) < 0)
		return -errno;
	for (int i = 0; i < n_layout; i++)
		if (mkdir(pjoin(p, "%s/%s", root, layout[i]), 0700) < 0)
			return -errno;
	rm_tree(old);
	if (chmod(root, mode) < 0)
		return -errno;
	if (uid >= 0 && chown(root, (uid_t)uid, (gid_t)uid) < 0)
		return -errno;
	return n_layout;
}

static void stamp_tests(const char *wsdir, const char *p2)
{
	char *req, root[PATH_MAX] = "", p[PATH_MAX], buf[256], d[1024], v2[PATH_MAX];
	const char *script = "echo s > \"$TMPDIR/s\" && cat \"$TMPDIR/s\" && rm \"$TMPDIR/s\"";
	struct refrun r;
	struct stat a, b;
	int n;

	req = make_req(script, wsdir, NULL, p2, 3153600000.0, 64, NULL);
	run_req(req, &r);
	t_ok(is_kind(&r, "success") && reprovisioned(&r) &&
		     oc_get(r.outcome, "runtime.reprovision_reason") &&
		     *oc_str(r.outcome, "runtime.reprovision_reason"),
	     "stamp: first run re-provisions (reason \"%s\")",
	     oc_str(r.outcome, "runtime.reprovision_reason"));
	snprintf(root, sizeof(root), "%s", oc_str(r.outcome, "runtime.root"));
	t_ok(strncmp(root, p2, strlen(p2)) == 0 && root[strlen(p2)] == '/' &&
		     is_root_name(root + strlen(p2) + 1) && lstat(root, &a) == 0 &&
		     S_ISDIR(a.st_mode) && (a.st_mode & 07777) == 0700 && a.st_uid == geteuid(),
	     "stamp: root %s is <parent>/<16 hex>, a 0700 directory of ours", root);
	refrun_free(&r);

	run_req(req, &r);
	t_ok(is_kind(&r, "success") && !reprovisioned(&r) &&
		     oc_get(r.outcome, "runtime.reprovision_reason") == NULL &&
		     strcmp(oc_str(r.outcome, "runtime.root"), root) == 0 &&
		     strcmp(oc_str(r.outcome, "stdout"), "s\n") == 0,
	     "stamp: second run on the intact root takes the fast path (%s)", diag(&r, d, sizeof(d)));
	refrun_free(&r);

	/* Same shape, same modes, same owner: only the inodes differ.  A
	 * stamp that attested to names or modes alone would be fooled. */
	lstat(root, &a);
	n = recreate_root(root, 0700, -1);
	lstat(root, &b);
	run_req(req, &r);
	t_ok(n > 0 && a.st_ino != b.st_ino && (b.st_mode & 07777) == 0700 && b.st_uid == geteuid() &&
		     is_kind(&r, "success") && reprovisioned(&r) &&
		     strcmp(oc_str(r.outcome, "stdout"), "s\n") == 0,
	     "stamp: root recreated with identical shape, modes and owner (%d dirs, new "
	     "inodes) re-provisions (\"%s\")", n, oc_str(r.outcome, "runtime.reprovision_reason"));
	refrun_free(&r);

	/* Another mode and, as root, another owner. */
	n = recreate_root(root, 0755, geteuid() == 0 ? 65534 : -1);
	lstat(root, &a);
	run_req(req, &r);
	lstat(root, &b);
	t_ok(n > 0 && (a.st_mode & 07777) == 0755 &&
		     (geteuid() != 0 || a.st_uid == 65534) && is_kind(&r, "success") &&
		     reprovisioned(&r) && strcmp(oc_str(r.outcome, "stdout"), "s\n") == 0,
	     "stamp: root recreated with mode 0755%s re-provisions and the run writes its "
	     "TMPDIR (\"%s\")",
	     geteuid() == 0 ? " owned by 65534" : "", oc_str(r.outcome, "runtime.reprovision_reason"));
	t_ok((b.st_mode & 07777) == 0700 && b.st_uid == geteuid(),
	     "stamp: after re-provisioning the root is 0700 and ours again (%o, uid %u)",
	     (unsigned)(b.st_mode & 07777), (unsigned)b.st_uid);
	refrun_free(&r);

	run_req(req, &r);
	t_ok(is_kind(&r, "success") && !reprovisioned(&r),
	     "stamp: the re-provisioned root takes the fast path again");
	refrun_free(&r);

	/* tmp/ swapped for a symlink to a victim: never served as /tmp. */
	pjoin(v2, "%s/victim2", base);
	make_victim(v2);
	rm_tree(pjoin(p, "%s/tmp", root));
	symlink(v2, p);
	run_req(req, &r);
	t_ok(is_kind(&r, "success") && reprovisioned(&r) && lstat(p, &a) == 0 &&
		     S_ISDIR(a.st_mode) && victim_intact(v2) &&
		     access(pjoin(buf, "%s/s", v2), F_OK) != 0,
	     "stamp: tmp/ swapped for a symlink re-provisions (\"%s\"); the victim is intact",
	     oc_str(r.outcome, "runtime.reprovision_reason"));
	refrun_free(&r);
	free(req);
}

/* ------------------------------------------------------ 3. from inside */

/* Each probe prints "NAME ok" or "NAME fail: <first line of stderr>".  A
 * refusal only counts when it names a policy error: ENOENT would mean the
 * probe aimed at nothing. */
static const char *probe_result(const char *out, const char *name, char *why, size_t wl)
{
	char key[64];
	const char *hit;

	why[0] = '\0';
	snprintf(key, sizeof(key), "\n%s ", name);
	hit = strstr(out, key);
	if (!hit)
		return "missing";
	hit += strlen(key);
	if (strncmp(hit, "ok\n", 3) == 0)
		return "ok";
	if (strncmp(hit, "fail: ", 6) != 0)
		return "?";
	snprintf(why, wl, "%.*s", (int)strcspn(hit + 6, "\n"), hit + 6);
	return strstr(why, "Read-only file system") || strstr(why, "Permission denied") ||
			       strstr(why, "Operation not permitted") ?
		       "fail" : "fail for another reason";
}

static const char *env_value(const char *out, const char *key, char *buf, size_t len)
{
	char k[64];
	const char *hit;
	size_t n;

	snprintf(k, sizeof(k), "\nENV %s=", key);
	hit = strstr(out, k);
	if (!hit)
		return "(unset)";
	hit += strlen(k);
	n = strcspn(hit, "\n");
	snprintf(buf, len, "%.*s", (int)n, hit);
	return buf;
}

static void inside_tests(const char *wsdir, const char *p2)
{
	static const char *const envx[] = {"TMPDIR", "/nonexistent", "XDG_CACHE_HOME", "/nonexistent",
					   NULL};
	static const struct { const char *name, *want; } probes[] = {
		{"root_create", "fail"}, {"root_mkdir", "fail"}, {"root_chmod", "fail"},
		{"root_rename_tmp", "fail"}, {"stamp_append", "fail"}, {"stamp_trunc", "fail"},
		{"stamp_rm", "fail"}, {"stamp_replace", "fail"}, {"lease_append", "fail"},
		{"lease_rm", "fail"}, {"parent_create", "fail"},
		{"tmpdir_w", "ok"}, {"tmp_host_w", "ok"}, {"cache_w", "ok"}, {"data_w", "ok"},
		{"cargo_w", "ok"}, {"npm_w", "ok"},
	};
	char *req, root[PATH_MAX], name[32], script[16384], p[PATH_MAX], q[PATH_MAX], buf[16384], d[1024];
	char e2[PATH_MAX];
	const char *out;
	struct refrun r;
	struct stat s;
	bool all = true;

	/* the root's name, from a plain run */
	req = make_req("true", wsdir, NULL, p2, 3153600000.0, 64, NULL);
	run_req(req, &r);
	snprintf(root, sizeof(root), "%s", oc_str(r.outcome, "runtime.root"));
	refrun_free(&r);
	free(req);
	snprintf(name, sizeof(name), "%s", root + strlen(p2) + 1);

	snprintf(script, sizeof(script),
		 "R='%s'; P='%s'; N='%s'; export R P N\n"
		 "t() { if e=$(sh -c \"$2\" 2>&1 >/dev/null); then echo \"$1 ok\"; "
		 "else echo \"$1 fail: $(echo \"$e\" | head -n 1)\"; fi; }\n"
		 "echo begin\n"
		 "t root_create 'echo evil > \"$R/evil\"'\n"
		 "t root_mkdir 'mkdir \"$R/evildir\"'\n"
		 "t root_chmod 'chmod 0777 \"$R\"'\n"
		 "t root_rename_tmp 'mv \"$R/tmp\" \"$R/tmp.evil\"'\n"
		 "t stamp_append 'echo evil >> \"$P/$N.stamp\"'\n"
		 "t stamp_trunc ': > \"$P/$N.stamp\"'\n"
		 "t stamp_rm 'rm -f \"$P/$N.stamp\"'\n"
		 "t stamp_replace 'echo evil > \"$TMPDIR/x\" && mv \"$TMPDIR/x\" \"$P/$N.stamp\"'\n"
		 "t lease_append 'echo evil >> \"$P/$N.lease\"'\n"
		 "t lease_rm 'rm -f \"$P/$N.lease\"'\n"
		 "t parent_create 'echo evil > \"$P/evil\"'\n"
		 "t tmpdir_w 'echo good > \"$TMPDIR/good\" && test \"$(cat \"$TMPDIR/good\")\" = good'\n"
		 "t tmp_host_w 'echo good > \"$R/tmp/good2\"'\n"
		 "t cache_w 'echo good > \"$XDG_CACHE_HOME/good\"'\n"
		 "t data_w 'echo good > \"$R/data/good\"'\n"
		 "t cargo_w 'echo good > \"$CARGO_HOME/good\"'\n"
		 "t npm_w 'echo good > \"$npm_config_cache/good\"'\n"
		 "for k in TMPDIR TMP TEMP XDG_CACHE_HOME npm_config_cache PIP_CACHE_DIR GOCACHE "
		 "GOMODCACHE YARN_CACHE_FOLDER CARGO_HOME; do eval \"echo ENV $k=\\${$k-(unset)}\"; done\n",
		 root, p2, name);
	req = make_req(script, wsdir, NULL, p2, 3153600000.0, 64, envx);
	run_req(req, &r);
	free(req);
	snprintf(buf, sizeof(buf), "\n%s", oc_str(r.outcome, "stdout"));
	out = buf;
	t_ok(is_kind(&r, "success") && strstr(out, "\nbegin\n"),
	     "inside: the probe script ran (%s)", diag(&r, d, sizeof(d)));
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		char why[256];
		const char *got = probe_result(out, probes[i].name, why, sizeof(why));

		if (strcmp(got, probes[i].want) != 0) {
			all = false;
			t_ok(0, "inside: %s expected %s, got %s (%s)", probes[i].name, probes[i].want,
			     got, why);
		}
	}
	t_ok(all, "inside: every write to the root, its stamp, its lease and the parent was "
		  "refused (EROFS/EACCES/EPERM); tmp/ cache/ data/ and tool caches took theirs");
	/* host-side oracle: the run itself restamped at acquire (last_use),
	 * before the command ran; nothing may have changed it since */
	read_file(pjoin(p, "%s/%s.stamp", p2, name), q, sizeof(q));
	t_ok(strstr(q, "evil") == NULL && strncmp(q, "sandproof-runtime-stamp 1\n", 26) == 0 &&
		     lstat(pjoin(p, "%s/%s.stamp", p2, name), &s) == 0 && S_ISREG(s.st_mode),
	     "host: the stamp is intact (a regular file, no injected text)");
	t_ok(lstat(pjoin(p, "%s/%s.lease", p2, name), &s) == 0 && S_ISREG(s.st_mode) &&
		     s.st_size == 0,
	     "host: the lease is intact (regular, empty)");
	{
		static const char *const evil[] = {"evil", "evildir", "tmp.evil"};
		bool clean = lstat(root, &s) == 0 && (s.st_mode & 07777) == 0700 &&
			     access(pjoin(p, "%s/evil", p2), F_OK) != 0;

		for (size_t i = 0; i < sizeof(evil) / sizeof(evil[0]); i++)
			clean = clean && access(pjoin(p, "%s/%s", root, evil[i]), F_OK) != 0;
		t_ok(clean, "host: nothing landed in the root or the parent, root still 0700");
	}
	{
		char c1[16], c2[16], c3[16], c4[16], c5[16], c6[16];

		t_ok(!strcmp(read_file(pjoin(p, "%s/tmp/good", root), c1, sizeof(c1)), "good\n") &&
			     !strcmp(read_file(pjoin(p, "%s/tmp/good2", root), c2, sizeof(c2)), "good\n") &&
			     !strcmp(read_file(pjoin(p, "%s/cache/good", root), c3, sizeof(c3)), "good\n") &&
			     !strcmp(read_file(pjoin(p, "%s/data/good", root), c4, sizeof(c4)), "good\n") &&
			     !strcmp(read_file(pjoin(p, "%s/data/cargo/good", root), c5, sizeof(c5)), "good\n") &&
			     !strcmp(read_file(pjoin(p, "%s/cache/npm/good", root), c6, sizeof(c6)), "good\n"),
		     "host: the positive-control files are in tmp/ cache/ data/ of the root");
	}
	{
		static const struct { const char *key, *rel; } want[] = {
			{"XDG_CACHE_HOME", "cache"}, {"npm_config_cache", "cache/npm"},
			{"PIP_CACHE_DIR", "cache/pip"}, {"GOCACHE", "cache/go-build"},
			{"GOMODCACHE", "cache/go-mod"}, {"YARN_CACHE_FOLDER", "cache/yarn"},
			{"CARGO_HOME", "data/cargo"},
		};
		char v[PATH_MAX], w[PATH_MAX];
		bool env_ok = true;

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			pjoin(w, "%s/%s", root, want[i].rel);
			if (strcmp(env_value(out, want[i].key, v, sizeof(v)), w) != 0) {
				env_ok = false;
				printf("# %s=%s, want %s\n", want[i].key, v, w);
			}
		}
		t_ok(env_ok, "inside: XDG_CACHE_HOME and the tool caches point into the root "
			     "(the request's XDG_CACHE_HOME overridden)");
		t_ok(!strcmp(env_value(out, "TMPDIR", v, sizeof(v)), "/tmp") &&
			     !strcmp(env_value(out, "TMP", w, sizeof(w)), "/tmp") &&
			     !strcmp(env_value(out, "TEMP", w, sizeof(w)), "/tmp"),
		     "inside: no write root beneath /tmp: TMPDIR=TMP=TEMP=/tmp, served from tmp/ "
		     "(TMPDIR=%s, the request's /nonexistent overridden)", v);
	}
	refrun_free(&r);

	/* A write root beneath /tmp: /tmp stays a private tmpfs and TMPDIR is
	 * the host path of tmp/. */
	snprintf(script, sizeof(script),
		 "echo \"TMPDIR=$TMPDIR\"; echo a > \"$TMPDIR/v\" && echo b > /tmp/w.%d && "
		 "echo c > '%s/c' && echo wrote",
		 (int)getpid(), hosttmp);
	req = make_req(script, wsdir, hosttmp, p2, 3153600000.0, 64, NULL);
	run_req(req, &r);
	free(req);
	{
		char want_out[PATH_MAX + 64], c1[16], c2[16];

		snprintf(want_out, sizeof(want_out), "TMPDIR=%s/tmp\nwrote\n", root);
		t_ok(is_kind(&r, "success") && strcmp(oc_str(r.outcome, "stdout"), want_out) == 0,
		     "inside, write root beneath /tmp: TMPDIR is the host path of tmp/ (%s)",
		     diag(&r, d, sizeof(d)));
		pjoin(q, "/tmp/w.%d", (int)getpid());
		t_ok(!strcmp(read_file(pjoin(p, "%s/tmp/v", root), c1, sizeof(c1)), "a\n") &&
			     !strcmp(read_file(pjoin(e2, "%s/c", hosttmp), c2, sizeof(c2)), "c\n") &&
			     access(q, F_OK) != 0 &&
			     access(pjoin(e2, "%s/tmp/w.%d", root, (int)getpid()), F_OK) != 0,
		     "host: $TMPDIR/v in tmp/, the write root got its file, /tmp/w.* landed "
		     "nowhere (private /tmp)");
		unlink(q);
	}
	refrun_free(&r);
}

/* --------------------------------------------------------- 4. bad input */

static void bad_parent_tests(void)
{
	char wsb[PATH_MAX], pb[PATH_MAX], marker[PATH_MAX], *req, d[1024];
	struct refrun r;
	static const mode_t modes[] = {0770, 0707, 0777, 0720, 0702};

	pjoin(wsb, "%s/ws_bad", base);
	pjoin(pb, "%s/p.bad", base);
	pjoin(marker, "%s/ran", wsb);
	mkdir(wsb, 0755);
	mkdir(pb, 0700);
	req = make_req("echo ran > ran", wsb, NULL, pb, 3600, 8, NULL);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int n;

		chmod(pb, modes[i]);
		run_req(req, &r);
		n = count_roots(pb, NULL);
		t_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 &&
			     is_kind(&r, "sandbox_setup_failure") &&
			     strcmp(oc_str(r.outcome, "state"), "failed") == 0 &&
			     strcmp(oc_str(r.outcome, "setup_error.step"), "runtime") == 0 &&
			     access(marker, F_OK) != 0 && n == 0,
		     "bad input: parent mode %04o refused at step runtime, nothing ran, no root "
		     "(%s)", (unsigned)modes[i], diag(&r, d, sizeof(d)));
		refrun_free(&r);
	}
	if (geteuid() == 0) {
		chmod(pb, 0700);
		chown(pb, 65534, 65534);
		run_req(req, &r);
		t_ok(is_kind(&r, "sandbox_setup_failure") &&
			     strcmp(oc_str(r.outcome, "setup_error.step"), "runtime") == 0 &&
			     access(marker, F_OK) != 0 && count_roots(pb, NULL) == 0,
		     "bad input: a 0700 parent owned by 65534 is refused, nothing ran");
		refrun_free(&r);
		chown(pb, 0, 0);
	} else {
		/* a root-owned 0755 directory we cannot write: refused as
		 * not ours (nothing would be created there by us anyway) */
		char *req2 = make_req("echo ran > ran", wsb, NULL, "/var", 3600, 8, NULL);

		run_req(req2, &r);
		t_ok(is_kind(&r, "sandbox_setup_failure") &&
			     strcmp(oc_str(r.outcome, "setup_error.step"), "runtime") == 0 &&
			     access(marker, F_OK) != 0,
		     "bad input: a parent owned by root (/var) is refused, nothing ran");
		refrun_free(&r);
		free(req2);
	}
	/* positive control: the same request with a private parent runs, so
	 * the marker oracle above could see a run */
	chmod(pb, 0700);
	run_req(req, &r);
	t_ok(is_kind(&r, "success") && access(marker, F_OK) == 0 && count_roots(pb, NULL) == 1,
	     "bad input control: the same request with the parent at 0700 runs (%s)",
	     oc_str(r.outcome, "kind"));
	refrun_free(&r);
	free(req);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	double secs = 8, t0 = now_s();
	char p[PATH_MAX], p2[PATH_MAX], ws_s[PATH_MAX];

	if (argc < 2 || argc > 3 || (argc == 3 && ((secs = strtod(argv[2], NULL)) <= 0 ||
						    secs > 3600))) {
		fprintf(stderr, "usage: test_runtime_runs SANDPROOF_REF [seconds]   (default 8)\n");
		return 2;
	}
	ref = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(022);
	/* /var/tmp, not /tmp: with no write root beneath /tmp the runner
	 * serves the root's tmp/ as /tmp, the configuration under stress */
	snprintf(base, sizeof(base), "/var/tmp/sp-rtruns.XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp /var/tmp");
		return 2;
	}
	chmod(base, 0755);
	snprintf(hosttmp, sizeof(hosttmp), "/tmp/sp-rtruns.XXXXXX");
	if (!mkdtemp(hosttmp)) {
		perror("mkdtemp /tmp");
		rm_tree(base);
		return 2;
	}
	chmod(hosttmp, 0755);
	pjoin(parent, "%s/p", base);
	pjoin(victim, "%s/victim", base);
	mkdir(parent, 0700);
	make_victim(victim);
	write_file(pjoin(p, "%s/sentinel", base), "outside\n");
	for (int i = 0; i < N_WS; i++) {
		mkdir(pjoin(ws[i], "%s/ws%d", base, i), 0755);
		write_file(pjoin(p, "%s/file", ws[i]), "ws\n");
	}

	stress(secs);
	pjoin(p2, "%s/p.stamp", base);
	pjoin(ws_s, "%s/ws_stamp", base);
	mkdir(p2, 0700);
	mkdir(ws_s, 0755);
	stamp_tests(ws_s, p2);
	inside_tests(ws_s, p2);
	bad_parent_tests();

	rm_tree(base);
	rm_tree(hosttmp);
	printf("# total %.1fs (uid %u)\n", now_s() - t0, (unsigned)geteuid());
	return t_done();
}
