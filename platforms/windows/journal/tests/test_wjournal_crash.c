/* test_wjournal_crash.c - the ACL journal's crash safety (issue 32 §4) on a
 * Linux model of the Windows operations: real directories and files in a
 * temporary tree, each object's "DACL" an extended attribute
 * (user.sp_dacl), identity the device and inode, the journal a real file
 * written and fsync'ed.  A stand-in for NTFS, never a Windows result: it
 * proves the engine's order (intent before mkdir, prior DACL before the
 * change, torn last line skipped), which the Windows backend runs unchanged.
 *
 * For every step k of applying a plan's entries (each append, mkdir, DACL
 * change), a child process applies them and is killed with SIGKILL at step
 * k, once before the step and, for an append, once with half the line
 * written; the parent then replays the journal and compares the tree and
 * every object's DACL with the state before.  Then the same for every step
 * of a replay (killed, replayed again).  Plus: a corrupt line that is not
 * the last refuses the replay; an earlier runner's v1 line is read.
 *
 * Inheritance is modelled as what each object inherits (user.sp_inh, its
 * parent's DACL and inheritance), recomputed below a directory by the walk
 * the Windows backend makes after a change and after its undo (propagate.c;
 * each child written is a step a crash may interrupt); the walk never
 * follows a symbolic link (a junction's stand-in), and ws/planted -> outside
 * is there to show the DACLs outside stay as they were. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "t.h"
#include "wjournal.h"

#define XATTR "user.sp_dacl"
/* What an object inherits: its parent's DACL and what the parent inherits
 * ("<" between), as the walk below a directory recomputes it. */
#define XATTR_INH "user.sp_inh"

/* ---- the model's operations ---------------------------------------------------- */

enum crash { NONE = 0, BEFORE, TORN };

struct model {
	int jfd;              /* the journal */
	int step, at;         /* steps done; the step to be killed at (0: never) */
	enum crash how;
};

static void maybe_die(struct model *m, const char *line, size_t len)
{
	if (++m->step != m->at || m->how == NONE)
		return;
	if (m->how == TORN && line && len > 1)
		(void)!write(m->jfd, line, len / 2);
	raise(SIGKILL);
}

static int m_open(void *ctx, const char *path, struct wj_obj *o)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	o->vol = (uint64_t)st.st_dev;
	o->idx = (uint64_t)st.st_ino;
	o->dir = S_ISDIR(st.st_mode);
	o->h = strdup(path);
	return o->h ? 0 : -ENOMEM;
}

static void m_close(void *ctx, struct wj_obj *o)
{
	(void)ctx;
	free(o->h);
	o->h = NULL;
}

static int m_get(void *ctx, const struct wj_obj *o, char **sddl)
{
	char buf[4096];
	ssize_t n = lgetxattr(o->h, XATTR, buf, sizeof(buf) - 1);

	(void)ctx;
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*sddl = strdup(buf);
	return *sddl ? 0 : -ENOMEM;
}

static int m_set(void *ctx, const struct wj_obj *o, const char *sddl)
{
	maybe_die(ctx, NULL, 0);
	return lsetxattr(o->h, XATTR, sddl, strlen(sddl), 0) < 0 ? -errno : 0;
}

/* What a child of dir inherits (into out): dir's DACL "<" dir's own. */
static void inh_of(const char *dir, char *out, size_t n)
{
	char d[1024] = "", i[2048] = "";
	ssize_t a = lgetxattr(dir, XATTR, d, sizeof(d) - 1), b = lgetxattr(dir, XATTR_INH, i, sizeof(i) - 1);

	d[a > 0 ? a : 0] = '\0';
	i[b > 0 ? b : 0] = '\0';
	snprintf(out, n, "%s<%s", d, i);
}

/* A new directory inherits from its parent, as NTFS gives it the parent's
 * inheritable ACEs; its own DACL has no explicit ACE. */
static int m_mkdir(void *ctx, const char *path)
{
	static const char none[] = "D:";
	char parent[512], inh[4096];
	char *slash;

	maybe_die(ctx, NULL, 0);
	snprintf(parent, sizeof(parent), "%s", path);
	if ((slash = strrchr(parent, '/')))
		*slash = '\0';
	inh_of(parent, inh, sizeof(inh));
	if (mkdir(path, 0755) < 0)
		return -errno;
	if (lsetxattr(path, XATTR, none, strlen(none), 0) < 0 ||
	    lsetxattr(path, XATTR_INH, inh, strlen(inh), 0) < 0)
		return -errno;
	return 0;
}

/* The walk below dir: every child's inheritance recomputed, one step each;
 * a symbolic link neither written nor followed. */
static int walk_below(struct model *m, const char *dir)
{
	char inh[4096], p[512];
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	int rc = 0;

	if (!d)
		return -errno;
	inh_of(dir, inh, sizeof(inh));
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &st) < 0 || S_ISLNK(st.st_mode))
			continue;
		if (m)
			maybe_die(m, NULL, 0);
		if (lsetxattr(p, XATTR_INH, inh, strlen(inh), 0) < 0)
			rc = -errno;
		else if (S_ISDIR(st.st_mode))
			rc = walk_below(m, p);
	}
	closedir(d);
	return rc;
}

static int m_rmdir(void *ctx, const struct wj_obj *o, const char *path)
{
	(void)o;
	maybe_die(ctx, NULL, 0);
	return rmdir(path) < 0 ? -errno : 0;
}

static int m_append(void *ctx, const char *line, size_t len)
{
	struct model *m = ctx;

	maybe_die(m, line, len);
	if (write(m->jfd, line, len) != (ssize_t)len || fsync(m->jfd) < 0)
		return -EIO;
	return 0;
}

static int m_propagate(void *ctx, const struct wj_obj *o)
{
	return o->dir ? walk_below(ctx, o->h) : 0;
}

static struct wj_ops ops_of(struct model *m)
{
	return (struct wj_ops){.ctx = m, .open_path = m_open, .close_obj = m_close, .get_dacl = m_get,
			       .set_dacl = m_set, .make_dir = m_mkdir, .rmdir_empty = m_rmdir,
			       .append = m_append, .propagate = m_propagate};
}

/* ---- the world and the plan ------------------------------------------------------ */

static char root[256];

static void put(const char *rel, bool dir, const char *dacl)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (dir)
		mkdir(p, 0755);
	else
		close(open(p, O_CREAT | O_WRONLY, 0644));
	lsetxattr(p, XATTR, dacl, strlen(dacl), 0);
}

/* The workspace: a write root with a file, .git present or not, a
 * read-only subpath with a file; its protected names absent; a symbolic
 * link planted to a directory outside (the walk must leave it); what each
 * object inherits made consistent, as NTFS keeps it. */
static void world(bool git)
{
	char p[512];

	put("outside", true, "D:(A;OICI;FA;;;USER)(outside)");
	put("outside/s", false, "D:(A;;FA;;;USER)(outside)");
	put("ws", true, "D:(A;OICI;FA;;;USER)");
	put("ws/f.txt", false, "D:(A;;FA;;;USER)");
	put("ws/ro", true, "D:(A;OICI;FA;;;USER)");
	put("ws/ro/g.txt", false, "D:");
	if (git)
		put("ws/.git", true, "D:(A;OICI;FA;;;USER)S");
	snprintf(p, sizeof(p), "%s/ws/planted", root);
	if (symlink("../outside", p) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/ws", root);
	walk_below(NULL, p);
}

/* The entries as the Windows plan lists them for this workspace. */
static const struct { const char *rel; enum wj_absent absent; } plan[] = {
	{"ws", WJ_ABSENT_REFUSE},
	{"ws/.git", WJ_ABSENT_CREATE_DIR},
	{"ws/.git/hooks", WJ_ABSENT_CREATE_DIR},
	{"ws/.git/config", WJ_ABSENT_CREATE_DIR},
	{"ws/.agents", WJ_ABSENT_CREATE_DIR},
	{"ws/ro", WJ_ABSENT_REFUSE},
};
#define N_PLAN (sizeof(plan) / sizeof(plan[0]))

/* The change: an ACE for the capability SID added to the DACL. */
static int change(void *arg, const struct wj_obj *o)
{
	struct model *m = arg;
	char *d = NULL, buf[4096];
	int rc = m_get(m, o, &d);

	if (rc < 0)
		return rc;
	snprintf(buf, sizeof(buf), "%s(D;OICI;WD;;;CAP)", d);
	free(d);
	rc = m_set(m, o, buf);
	/* As the backend's merge_change: an inheritable ACE on a directory
	 * reaches what is below it through the walk. */
	return rc == 0 ? m_propagate(m, o) : rc;
}

static int apply_all(struct model *m)
{
	struct wj_ops ops = ops_of(m);

	for (size_t i = 0; i < N_PLAN; i++) {
		char p[512];
		bool applied;
		int rc;

		snprintf(p, sizeof(p), "%s/%s", root, plan[i].rel);
		rc = wj_apply(&ops, p, plan[i].absent, true, change, m, &applied);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- snapshots ------------------------------------------------------------------- */

/* Every path below root, its type, DACL and what it inherits, one line
 * each, sorted. */
static void snap_walk(const char *rel, char **out, size_t *len, size_t *cap)
{
	char p[512], line[8192], d[512] = "", inh[4096] = "";
	struct stat st;
	DIR *dir;
	struct dirent *e;
	ssize_t n;

	snprintf(p, sizeof(p), "%s%s%s", root, *rel ? "/" : "", rel);
	if (lstat(p, &st) < 0)
		return;
	n = lgetxattr(p, XATTR, d, sizeof(d) - 1);
	d[n > 0 ? n : 0] = '\0';
	n = lgetxattr(p, XATTR_INH, inh, sizeof(inh) - 1);
	inh[n > 0 ? n : 0] = '\0';
	snprintf(line, sizeof(line), "%s %c %s inherits %s\n", *rel ? rel : ".",
		 S_ISLNK(st.st_mode) ? 'l' : S_ISDIR(st.st_mode) ? 'd' : 'f', d, inh);
	while (*len + strlen(line) + 1 > *cap)
		*out = realloc(*out, *cap = *cap * 2 + 1024);
	strcpy(*out + *len, line);
	*len += strlen(line);
	if (!S_ISDIR(st.st_mode) || !(dir = opendir(p)))
		return;
	while ((e = readdir(dir))) {
		char sub[512];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "journal"))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		snap_walk(sub, out, len, cap);
	}
	closedir(dir);
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *snapshot(void)
{
	char *raw = NULL, *out, *lines[256];
	size_t len = 0, cap = 0, n = 0;

	snap_walk("", &raw, &len, &cap);
	for (char *p = strtok(raw, "\n"); p && n < 256; p = strtok(NULL, "\n"))
		lines[n++] = p;
	qsort(lines, n, sizeof(lines[0]), cmp_lines);
	out = calloc(1, len + 2);
	for (size_t i = 0; i < n; i++)
		strcat(strcat(out, lines[i]), "\n");
	free(raw);
	return out;
}

/* ---- the crash loop ------------------------------------------------------------- */

static char jpath[512];

static char *read_journal(size_t *len)
{
	FILE *f = fopen(jpath, "rb");
	char *buf = calloc(1, 65536);

	*len = f ? fread(buf, 1, 65535, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

/* A child applies the plan and is killed at step `at` (how); 1 when it
 * finished before that step (no crash happened). */
static int crashed_apply(int at, enum crash how)
{
	pid_t pid;
	int st;

	unlink(jpath);
	pid = fork();
	if (pid == 0) {
		struct model m = {.jfd = open(jpath, O_CREAT | O_WRONLY | O_APPEND, 0600), .at = at,
				  .how = how};

		_exit(apply_all(&m) == 0 ? 0 : 3);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : 0;
}

/* Replay the journal, killed at replay step `at` (0: never); 1 finished. */
static int crashed_replay(int at, struct wj_report *rep)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		struct model m = {.jfd = -1, .at = at, .how = at ? BEFORE : NONE};
		struct wj_ops ops = ops_of(&m);
		size_t len;
		char *t = read_journal(&len);
		struct wj_report r;

		_exit(wj_replay(&ops, t, len, &r) == 0 ? (r.torn ? 10 : 0) : 3);
	}
	waitpid(pid, &st, 0);
	rep->torn = WIFEXITED(st) && WEXITSTATUS(st) == 10;
	return WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 10);
}

static void reset(bool git)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/ws' '%s/outside'", root, root);
	if (system(cmd) != 0)
		abort();
	world(git);
}

/* Every step of apply killed (how), replayed, compared; the count of
 * crash points and of mismatches. */
static void sweep_apply(bool git, enum crash how, const char *what)
{
	int points = 0, bad = 0, torn = 0, done = 0;

	for (int at = 1; !done && at < 200; at++) {
		struct wj_report rep;
		char *before, *after;

		reset(git);
		before = snapshot();
		done = crashed_apply(at, how);
		if (!crashed_replay(0, &rep)) {
			bad++;
			printf("# %s, killed at step %d: the replay failed\n", what, at);
		}
		torn += (int)rep.torn;
		after = snapshot();
		if (strcmp(before, after)) {
			bad++;
			printf("# %s, killed at step %d: the tree differs\n# before:\n%s# after:\n%s", what,
			       at, before, after);
		}
		points += !done;
		free(before);
		free(after);
	}
	t_ok(points >= 10 && bad == 0 && (how != TORN || torn > 0),
	     "%s: killed at each of %d steps of apply (then once not killed), replayed: the tree "
	     "and every DACL as before (%d torn last lines skipped)", what, points, torn);
}

/* Every step of a replay killed, then replayed again from the same journal. */
static void sweep_replay(void)
{
	int points = 0, bad = 0, done = 0;

	for (int at = 1; !done && at < 200; at++) {
		struct wj_report rep;
		char *before, *after;

		reset(false);
		before = snapshot();
		crashed_apply(0, NONE);
		done = crashed_replay(at, &rep);
		if (!crashed_replay(0, &rep))
			bad++;
		after = snapshot();
		if (strcmp(before, after)) {
			bad++;
			printf("# replay killed at step %d: the tree differs\n%s---\n%s", at, before, after);
		}
		points += !done;
		free(before);
		free(after);
	}
	t_ok(points >= 5 && bad == 0, "a replay killed at each of its %d steps, replayed again: "
	     "the tree and every DACL as before", points);
}

/* A line that is not the last and does not parse: nothing replayed; an
 * earlier runner's v1 line is read. */
static void test_lines(void)
{
	struct model m = {.jfd = -1};
	struct wj_ops ops = ops_of(&m);
	struct wj_report rep;
	char p[512], text[2048];
	struct stat st;
	char *d = NULL;
	struct wj_obj o;

	reset(false);
	snprintf(p, sizeof(p), "%s/ws/f.txt", root);
	lstat(p, &st);
	snprintf(text, sizeof(text), "v2\tgarbage\n"
		 "v1\t%08llx\t%016llx\t0\tD:(v1-prior)\t%s\n",
		 (unsigned long long)st.st_dev & 0xffffffffull, (unsigned long long)st.st_ino, p);
	t_ok(wj_replay(&ops, text, strlen(text), &rep) == -EINVAL && rep.restored == 0,
	     "a malformed line before the last: -EINVAL, nothing replayed");
	if ((unsigned long long)st.st_dev > 0xffffffffull) {
		t_skipped("v1 line: this file system's device number does not fit v1's 8 hex digits");
		return;
	}
	snprintf(text, sizeof(text), "v1\t%08llx\t%016llx\t0\tD:(v1-prior)\t%s\n",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, p);
	m_open(&m, p, &o);
	t_ok(wj_replay(&ops, text, strlen(text), &rep) == 0 && rep.restored == 1 &&
	     m_get(&m, &o, &d) == 0 && !strcmp(d, "D:(v1-prior)"),
	     "an earlier runner's v1 line is replayed");
	m_close(&m, &o);
	free(d);
}

int main(void)
{
	char *tmp = getenv("TMPDIR");
	char cmd[600];

	snprintf(root, sizeof(root), "%s/sp-wjournal.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return 2;
	snprintf(jpath, sizeof(jpath), "%s/journal", root);
	if (lsetxattr(root, XATTR, "x", 1, 0) < 0) {
		/* 77: ctest's SKIP_RETURN_CODE, a skip, never a pass. */
		printf("# SKIP no user extended attributes on %s (%s)\n", root, strerror(errno));
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		return system(cmd) == 0 ? 77 : 2;
	} else {
		sweep_apply(false, BEFORE, "protected names absent, .git absent");
		sweep_apply(true, BEFORE, ".git present");
		sweep_apply(false, TORN, "an append torn in half");
		sweep_replay();
		test_lines();
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 2;
	return t_done();
}
