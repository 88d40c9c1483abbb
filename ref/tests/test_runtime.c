/* test_runtime.c - runtime roots: sha256, derivation, stamp, lease, eviction.
 * Prints one line per check and "N passed, N failed"; exits 1 on a failure.
 * Everything is made under one mkdtemp directory, removed at the end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"
#include "t.h"
#include "sha256.h"

static char base[PATH_MAX];   /* canonical scratch directory */

/* snprintf into a PATH_MAX buffer; the scratch paths are short. */
static void pf(char *dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, PATH_MAX, fmt, ap);
	va_end(ap);
}

static const char *P(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int k;
	char *b = buf[k++ % 8];
	pf(b, "%s/%s", base, rel);
	return b;
}

/* Like P() but never reused: for pointers that must stay valid (configs). */
static const char *K(const char *rel)
{
	static char pool[32][PATH_MAX];
	static int k;
	char *b = pool[k++ % 32];
	pf(b, "%s/%s", base, rel);
	return b;
}

static void mkdirs(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, mode);
			*p = '/';
		}
	}
	mkdir(tmp, mode);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool exists(const char *path)
{
	struct stat s;
	return lstat(path, &s) == 0;
}

static bool is_dir(const char *path)
{
	struct stat s;
	return lstat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

static bool file_has(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

static void rm_tree(const char *path)
{
	runtime_remove_tree(AT_FDCWD, path);
}

/* Rewrite the last_use line of parent/name.stamp (the format is runtime.h's). */
static int set_last_use(const char *parent, const char *name, long long sec)
{
	char path[PATH_MAX], buf[4096], out[4096];
	pf(path, "%s/%s.stamp", parent, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *l = strstr(buf, "\nlast_use ");
	if (!l)
		return -1;
	char *e = strchr(l + 1, '\n');
	*l = '\0';
	pf(out, "%s\nlast_use %lld.000000000%s", buf, sec, e ? e : "\n");
	put(path, out);
	return 0;
}

static bool rep_has(const struct runtime_report_entry *v, size_t n, const char *name,
		    const char *reason)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name) && (!reason || strstr(v[i].reason, reason)))
			return true;
	return false;
}

static bool rep_any_prefix(const struct runtime_report_entry *v, size_t n, const char *prefix)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(v[i].name, prefix, strlen(prefix)))
			return true;
	return false;
}

static const char *env_of(const struct runtime_root *r, const char *key)
{
	for (size_t i = 0; i < r->n_env; i++)
		if (!strcmp(r->env[i].key, key))
			return r->env[i].value;
	return NULL;
}

/* Acquire and release at once; returns the root name through name. */
static int touch_ws(const struct runtime_config *c, const char *ws, char name[17],
		    struct runtime_report *rep)
{
	struct runtime_root r;
	int rc = runtime_acquire(c, ws, &r, rep);
	if (rc == 0) {
		snprintf(name, 17, "%s", r.name);
		runtime_release(&r);
	}
	return rc;
}

static void test_sha256(void)
{
	uint8_t d[32];
	char hex[65];
	sha256_digest("", 0, d);
	sha256_hex(d, hex);
	t_ok(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
	      "sha256 of the empty string");
	sha256_digest("abc", 3, d);
	sha256_hex(d, hex);
	t_ok(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	      "sha256 of \"abc\"");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_digest(m, strlen(m), d);
	sha256_hex(d, hex);
	t_ok(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
	      "sha256 of the 448-bit message (two-block padding)");
	struct sha256_ctx c;
	char chunk[997];
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&c);
	for (size_t left = 1000000; left;) {
		size_t k = left < sizeof(chunk) ? left : sizeof(chunk);
		sha256_update(&c, chunk, k);
		left -= k;
	}
	sha256_final(&c, d);
	sha256_hex(d, hex);
	t_ok(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	      "sha256 of a million 'a' fed in odd chunks");
}

static void test_canonicalize(void)
{
	char a[PATH_MAX], b[PATH_MAX], cwd[PATH_MAX];
	mkdirs(P("real/ws"), 0755);
	symlink(P("real"), P("link"));
	symlink("real/ws", P("link2"));
	symlink(P("real/later"), P("dangle"));

	int r1 = runtime_canonicalize(P("link/ws"), a, sizeof(a));
	int r2 = runtime_canonicalize(P("real/ws"), b, sizeof(b));
	t_ok(r1 == 0 && r2 == 0 && !strcmp(a, b) && !strcmp(a, P("real/ws")),
	      "symlinked ancestor canonicalizes to the real path (%s)", a);
	runtime_canonicalize(P("link/ws/missing/leaf"), a, sizeof(a));
	t_ok(!strcmp(a, P("real/ws/missing/leaf")),
	      "missing leaves are re-appended after the resolved ancestor (%s)", a);
	runtime_canonicalize(P("real//ws/./sub/../"), a, sizeof(a));
	t_ok(!strcmp(a, P("real/ws")), "trailing slash, '.', '..' and '//' are cleaned (%s)", a);
	runtime_canonicalize(P("link2/.."), a, sizeof(a));
	t_ok(!strcmp(a, P("real")), "'..' after a symlink applies to its target (%s)", a);
	runtime_canonicalize(P("dangle/x"), a, sizeof(a));
	t_ok(!strcmp(a, P("real/later/x")), "a dangling symlink is followed to its target (%s)", a);
	runtime_canonicalize("/../", a, sizeof(a));
	t_ok(!strcmp(a, "/"), "'/..' is '/'");
	if (getcwd(cwd, sizeof(cwd)) && chdir(P("link")) == 0) {
		runtime_canonicalize("ws/", a, sizeof(a));
		t_ok(!strcmp(a, P("real/ws")), "a relative path is taken from the cwd (%s)", a);
		if (chdir(cwd) != 0)
			perror("chdir");
	} else {
		t_ok(0, "chdir into the scratch directory");
	}
	t_ok(runtime_canonicalize("", a, sizeof(a)) == -EINVAL, "an empty path is refused");
	t_ok(runtime_canonicalize(P("real/ws"), a, 8) == -ENAMETOOLONG,
	      "a result longer than the buffer is refused");
	symlink(P("loop"), P("loop"));
	t_ok(runtime_canonicalize(P("loop/x"), a, sizeof(a)) == -ELOOP,
	      "a symlink loop is refused with ELOOP");
}

static void test_derivation(void)
{
	struct runtime_config c = {.parent = K("rt1"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX, .fallback_parent = K("fb")};
	struct runtime_root r1, r2;
	struct runtime_report rep;
	uint8_t d[32];
	char hex[65];

	int a = runtime_acquire(&c, P("link/ws"), &r1, &rep);
	int b = a == 0 ? runtime_acquire(&c, P("real/ws/"), &r2, &rep) : -1;
	t_ok(a == 0 && b == 0 && !strcmp(r1.root, r2.root),
	      "a symlinked workspace path gets the same root as the real path");
	sha256_digest(P("real/ws"), strlen(P("real/ws")), d);
	sha256_hex(d, hex);
	hex[16] = '\0';
	t_ok(a == 0 && !strcmp(r1.name, hex) && !strncmp(r1.root, P("rt1/"), strlen(P("rt1/"))) &&
	      !strcmp(r1.root + strlen(P("rt1/")), hex),
	      "root is <parent>/<first 16 hex of sha256(canonical workspace)>");
	t_ok(a == 0 && !r1.private_root, "an outside parent is used as is");
	if (a == 0)
		runtime_release(&r1);
	if (b == 0)
		runtime_release(&r2);

	char name2[17];
	struct runtime_root r3;
	a = runtime_acquire(&c, P("real/ws/missing/deeper"), &r3, &rep);
	b = touch_ws(&c, P("link/ws/missing/deeper/"), name2, &rep);
	t_ok(a == 0 && b == 0 && !strcmp(r3.name, name2),
	      "a workspace with missing leaves derives the same root via a symlinked ancestor");
	if (a == 0)
		runtime_release(&r3);

	/* the parent inside the workspace, and the parent being the workspace */
	const char *parents[2] = {K("real/ws/.cache/rt"), K("real/ws")};
	for (int i = 0; i < 2; i++) {
		struct runtime_config ci = c;
		ci.parent = parents[i];
		a = runtime_acquire(&ci, P("link/ws"), &r3, &rep);
		size_t wl = strlen(P("real/ws"));
		t_ok(a == 0 && r3.private_root && !strncmp(r3.root, P("fb/"), strlen(P("fb/"))) &&
		      !(strncmp(r3.root, P("real/ws"), wl) == 0 && (r3.root[wl] == '/' || !r3.root[wl])),
		      "%s: a parent %s the workspace falls back to the private parent (%s)",
		      i ? "workspace-is-parent" : "workspace-contains-parent",
		      i ? "equal to" : "inside", a == 0 ? r3.root : strerror(-a));
		if (a == 0)
			runtime_release(&r3);
	}
	t_ok(!exists(P("real/ws/.cache")), "nothing was created inside the workspace");
	/* the fallback parent's own name is never resolved: a symlink planted
	 * there (it lives in world-writable /var/tmp by default) is refused */
	mkdirs(P("fbtarget"), 0700);
	symlink(P("fbtarget"), P("fblink"));
	struct runtime_config cs = c;
	cs.parent = K("real/ws/.cache/rt");
	cs.fallback_parent = K("fblink/");
	a = runtime_acquire(&cs, P("real/ws"), &r3, &rep);
	t_ok(a < 0 && !rmdir(P("fbtarget")), "a symlink at the fallback parent's name is refused (%d)", a);
	/* a workspace inside its own derived root: evicting the root would
	 * delete the workspace */
	char nm[17], wsroot[PATH_MAX];
	struct runtime_config cw = c;
	cw.parent = K("real/ws");
	runtime_derive_name(P("real/ws"), nm);
	pf(wsroot, "%s/%s", P("real/ws"), nm);
	a = runtime_acquire(&cw, P("real/ws"), &r3, &rep);
	t_ok(a == 0 && r3.private_root, "a root that would overlap the workspace is never used");
	if (a == 0)
		runtime_release(&r3);
	t_ok(!exists(wsroot), "and was not created");
}

static void test_layout_and_lease(void)
{
	struct runtime_config c = {.parent = K("rt2/deep/parent"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_root r;
	struct runtime_report rep;
	struct stat s;
	char path[PATH_MAX];

	mkdirs(P("wsL"), 0755);
	int a = runtime_acquire(&c, P("wsL"), &r, &rep);
	t_ok(a == 0, "acquire creates a missing parent (%s)", a ? strerror(-a) : "ok");
	if (a)
		return;
	t_ok(stat(P("rt2/deep/parent"), &s) == 0 && (s.st_mode & 07777) == 0700 &&
	      stat(P("rt2/deep"), &s) == 0 && (s.st_mode & 07777) == 0700,
	      "created parent components are 0700");
	t_ok(rep.reprovisioned && strstr(rep.reprovision_reason, "root missing"),
	      "first use provisions (%s)", rep.reprovision_reason);
	bool all = true;
	const char *subs[] = {"tmp", "cache", "data", "cache/npm", "cache/pip", "cache/go-build",
			      "cache/go-mod", "data/cargo"};
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		pf(path, "%s/%s", r.root, subs[i]);
		if (lstat(path, &s) || !S_ISDIR(s.st_mode) || (s.st_mode & 07777) != 0700)
			all = false;
	}
	t_ok(all, "layout tmp/ cache/ data/ and tool caches exist as private directories");
	t_ok(env_of(&r, "TMPDIR") && !strcmp(env_of(&r, "TMPDIR"), r.tmp) &&
	      env_of(&r, "XDG_CACHE_HOME") && !strcmp(env_of(&r, "XDG_CACHE_HOME"), r.cache) &&
	      env_of(&r, "npm_config_cache") && env_of(&r, "PIP_CACHE_DIR") &&
	      env_of(&r, "GOCACHE") && env_of(&r, "GOMODCACHE") && env_of(&r, "CARGO_HOME"),
	      "env pairs point into the root");
	bool inside = true;
	for (size_t i = 0; i < r.n_env; i++)
		if (strncmp(r.env[i].value, r.root, strlen(r.root)) || !is_dir(r.env[i].value))
			inside = false;
	t_ok(inside, "every env value is an existing folder under the root");
	pf(path, "%s/%s.lease", P("rt2/deep/parent"), r.name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	t_ok(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	      "the lease beside the root is held shared while acquired");
	pf(path, "%s/%s.stamp", P("rt2/deep/parent"), r.name);
	t_ok(exists(path) && !(strncmp(path, r.root, strlen(r.root)) == 0 && path[strlen(r.root)] == '/'),
	      "the stamp lives beside the root, not inside it");
	t_ok(fcntl(r.lease_fd, F_GETFD) & FD_CLOEXEC, "the lease descriptor is close-on-exec");
	runtime_release(&r);
	t_ok(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "release drops the lease");
	if (fd >= 0)
		close(fd);
	runtime_release(&r);
	t_ok(r.lease_fd == -1 && r.root_fd == -1, "release is idempotent");
}

static void test_stamp(void)
{
	struct runtime_config c = {.parent = K("rt3"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_report rep;
	char name[17], root[PATH_MAX], path[PATH_MAX];
	struct stat s;

	mkdirs(P("wsS"), 0755);
	mkdirs(P("victim"), 0755);
	put(P("victim/keep"), "precious");
	touch_ws(&c, P("wsS"), name, &rep);
	pf(root, "%s/%s", P("rt3"), name);
	int a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && !rep.reprovisioned, "an intact root takes the fast path");

	rm_tree(root);
	mkdir(root, 0755);
	chmod(root, 0755);
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && rep.reprovisioned && strstr(rep.reprovision_reason, "identity changed"),
	      "a root removed and recreated with another mode is re-provisioned (%s)",
	      rep.reprovision_reason);
	t_ok(stat(root, &s) == 0 && (s.st_mode & 07777) == 0700,
	      "re-provisioning restores mode 0700");
	pf(path, "%s/tmp", root);
	t_ok(is_dir(path), "re-provisioning recreates tmp/");
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && !rep.reprovisioned, "after re-provisioning the fast path is back");

	if (geteuid() == 0) {
		rm_tree(root);
		mkdir(root, 0700);
		int rc = chown(root, 65534, 65534);
		a = touch_ws(&c, P("wsS"), name, &rep);
		t_ok(rc == 0 && a == 0 && rep.reprovisioned && stat(root, &s) == 0 &&
		      s.st_uid == geteuid(),
		      "a root recreated with another owner is re-provisioned as ours (%s)",
		      rep.reprovision_reason);
		/* a recreated root with the right mode and owner: only the inode differs */
		rm_tree(root);
		mkdir(root, 0700);
		a = touch_ws(&c, P("wsS"), name, &rep);
		t_ok(a == 0 && rep.reprovisioned, "a root recreated identically (new inode) is re-provisioned");
	} else {
		t_skipped("chown to another owner needs root");
		t_skipped("chown to another owner needs root");
	}

	/* evicted and recreated by someone else with the full layout: every
	 * object looks right, only the identities differ from the stamp */
	char moved[PATH_MAX];
	pf(moved, "%s.moved", root);
	rename(root, moved);
	mkdir(root, 0700);
	const char *subs[] = {"tmp", "cache", "data", "cache/npm", "cache/pip", "cache/go-build",
			      "cache/go-mod", "cache/yarn", "data/cargo"};
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		pf(path, "%s/%s", root, subs[i]);
		mkdir(path, 0700);
	}
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && rep.reprovisioned && strstr(rep.reprovision_reason, "identity changed"),
	      "a root recreated with the full layout is not trusted on its stamp (%s)",
	      rep.reprovision_reason);
	rm_tree(moved);

	pf(path, "%s/tmp", root);
	rm_tree(path);
	symlink(P("victim"), path);
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && rep.reprovisioned && is_dir(path),
	      "tmp/ swapped for a symlink is re-provisioned as a directory (%s)", rep.reprovision_reason);
	t_ok(file_has(P("victim/keep"), "precious") && is_dir(P("victim")),
	      "the symlink's target is untouched");

	pf(path, "%s/cache/pip", root);
	chmod(path, 0777);
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && rep.reprovisioned && stat(path, &s) == 0 && (s.st_mode & 07777) == 0700,
	      "a subfolder whose mode changed is re-provisioned (%s)", rep.reprovision_reason);

	/* a plan change: edit the stamp's digest */
	pf(path, "%s/%s.stamp", P("rt3"), name);
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *pl = strstr(buf, "plan ");
	if (pl)
		pl[5] = pl[5] == '0' ? '1' : '0';
	put(path, buf);
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && rep.reprovisioned && strstr(rep.reprovision_reason, "plan"),
	      "a stamp for another plan is re-provisioned (%s)", rep.reprovision_reason);
	put(path, "garbage\n");
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && rep.reprovisioned, "an unreadable stamp is re-provisioned (%s)",
	      rep.reprovision_reason);
	a = touch_ws(&c, P("wsS"), name, &rep);
	t_ok(a == 0 && !rep.reprovisioned, "and then the fast path again");
}

static int count_roots(const char *parent)
{
	char path[PATH_MAX];
	struct stat s;
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(parent);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		pf(path, "%s/%s", parent, e->d_name);
		if (runtime_name_is_root(e->d_name) && lstat(path, &s) == 0 && S_ISDIR(s.st_mode))
			n++;
	}
	closedir(d);
	return n;
}

/* Names in parent containing ".tomb." */
static int count_tombs(const char *parent)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(parent);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tomb."))
			n++;
	closedir(d);
	return n;
}

static void test_eviction(void)
{
	struct runtime_config c = {.parent = K("rt4"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_report rep;
	char A[17], B[17], C[17], D[17], E[17], F[17], path[PATH_MAX];
	const char *ws[6] = {"wsA", "wsB", "wsC", "wsD", "wsE", "wsF"};
	char *names[6] = {A, B, C, D, E, F};

	for (int i = 0; i < 6; i++)
		mkdirs(P(ws[i]), 0755);
	for (int i = 0; i < 3; i++)
		touch_ws(&c, P(ws[i]), names[i], &rep);
	set_last_use(P("rt4"), A, (long long)time(NULL) - 1000);

	struct runtime_config g = c;
	g.max_age_s = 100;
	int r = runtime_gc(&g, NULL, false, &rep);
	pf(path, "%s/%s", P("rt4"), A);
	t_ok(r == 0 && rep_has(rep.evicted, rep.n_evicted, A, "age") && !exists(path),
	      "a root unused for longer than max_age is evicted");
	pf(path, "%s/%s.lease", P("rt4"), A);
	bool lease_gone = !exists(path);
	pf(path, "%s/%s.stamp", P("rt4"), A);
	t_ok(lease_gone && !exists(path), "its lease and stamp are removed with it");
	t_ok(count_roots(P("rt4")) == 2 && rep.evicted_total == 1, "younger roots stay");
	t_ok(count_tombs(P("rt4")) == 0, "no tombstone is left behind");

	/* LRU: order of use B < C < D < E < F */
	for (int i = 3; i < 6; i++)
		touch_ws(&c, P(ws[i]), names[i], &rep);
	g = c;
	g.max_roots = 2;
	r = runtime_gc(&g, NULL, false, &rep);
	t_ok(r == 0 && rep.n_evicted == 3 && !strcmp(rep.evicted[0].name, B) &&
	      !strcmp(rep.evicted[1].name, C) && !strcmp(rep.evicted[2].name, D) &&
	      strstr(rep.evicted[0].reason, "lru"),
	      "count eviction takes the least recently used first, down to max_roots");
	t_ok(count_roots(P("rt4")) == 2, "max_roots roots remain");

	/* touching E makes F the older one */
	touch_ws(&c, P(ws[4]), E, &rep);
	g.max_roots = 1;
	r = runtime_gc(&g, NULL, true, &rep);
	t_ok(r == 0 && rep.dry_run && rep.n_evicted == 1 && !strcmp(rep.evicted[0].name, F) &&
	      count_roots(P("rt4")) == 2,
	      "dry run reports the LRU victim (use updates recency) and removes nothing");

	/* the current root is never evicted, even with max_roots = 0 */
	struct runtime_config z = c;
	z.max_roots = 0;
	z.max_age_s = 0;
	struct runtime_root cur;
	r = runtime_acquire(&z, P(ws[0]), &cur, &rep);
	t_ok(r == 0 && count_roots(P("rt4")) == 1 && is_dir(cur.root) &&
	      rep_has(rep.evicted, rep.n_evicted, E, NULL) && rep_has(rep.evicted, rep.n_evicted, F, NULL),
	      "acquire evicts other roots but never the current one");
	if (r == 0) {
		int g2 = runtime_gc(&z, NULL, false, &rep);
		t_ok(g2 == 0 && is_dir(cur.root) && rep_has(rep.skipped, rep.n_skipped, cur.name, "in use"),
		      "gc skips a root whose lease is held by this process");
		runtime_release(&cur);
		g2 = runtime_gc(&z, cur.root, false, &rep);
		t_ok(g2 == 0 && is_dir(cur.root), "gc spares the keep root");
	}

	/* a root leased by another process (a forked child holding LOCK_SH) */
	int go[2], done[2];
	if (pipe(go) || pipe(done)) {
		t_ok(0, "pipe");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct runtime_root cr;
		struct runtime_report crep;
		char b;
		close(go[0]);
		close(done[1]);
		int rc = runtime_acquire(&c, P(ws[1]), &cr, &crep);
		b = rc == 0 ? 'y' : 'n';
		if (write(go[1], &b, 1) != 1)
			_exit(3);
		if (read(done[0], &b, 1) < 0)
			_exit(3);
		if (rc == 0)
			runtime_release(&cr);
		_exit(0);
	}
	close(go[1]);
	close(done[0]);
	char ready = 0;
	if (read(go[0], &ready, 1) != 1)
		ready = 0;
	runtime_derive_name(P(ws[1]), B);
	pf(path, "%s/%s", P("rt4"), B);
	r = runtime_gc(&z, NULL, false, &rep);
	t_ok(ready == 'y' && r == 0 && is_dir(path) && rep_has(rep.skipped, rep.n_skipped, B, "in use"),
	      "a root leased by another process is skipped and intact");
	pf(path, "%s/%s/tmp", P("rt4"), B);
	t_ok(is_dir(path), "its tmp/ is still there");
	struct runtime_root other;
	r = runtime_acquire(&z, P(ws[2]), &other, &rep);
	t_ok(r == 0 && rep_has(rep.skipped, rep.n_skipped, B, "in use") && is_dir(path),
	      "another run's eviction skips it too, without failing that run");
	if (r == 0)
		runtime_release(&other);
	if (write(done[1], "x", 1) != 1)
		perror("write");
	int st;
	waitpid(pid, &st, 0);
	close(go[0]);
	close(done[1]);
	r = runtime_gc(&z, NULL, false, &rep);
	t_ok(r == 0 && count_roots(P("rt4")) == 0, "once the lease is dropped it is evicted");
}

static void test_hostile_entries(void)
{
	struct runtime_config c = {.parent = K("rt5"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_report rep;
	char name[17], path[PATH_MAX], tomb[PATH_MAX];

	mkdirs(P("victim2/sub"), 0755);
	put(P("victim2/sub/keep"), "precious");
	mkdirs(P("wsH"), 0755);
	touch_ws(&c, P("wsH"), name, &rep);
	/* inside the victim root: a symlink to the victim folder */
	pf(path, "%s/%s/tmp/escape", P("rt5"), name);
	symlink(P("victim2"), path);
	pf(path, "%s/%s/cache/abs", P("rt5"), name);
	symlink(P("victim2/sub/keep"), path);
	/* in the parent: root-shaped and tombstone-shaped symlinks to it */
	symlink(P("victim2"), P("rt5/0123456789abcdef"));
	symlink(P("victim2"), P("rt5/0123456789abcdef.tomb.1.1.1"));
	symlink(P("victim2/sub/keep"), P("rt5/0123456789abcdef.lease"));
	/* a leftover tombstone with a read-only directory and a symlink */
	pf(tomb, "%s/%s.tomb.99.1.1", P("rt5"), "fedcba9876543210");
	pf(path, "%s/a/b/c", tomb);
	mkdirs(path, 0755);
	pf(path, "%s/a/b/c/file", tomb);
	put(path, "x");
	pf(path, "%s/a/link", tomb);
	symlink(P("victim2"), path);
	pf(path, "%s/a/b", tomb);
	chmod(path, 0500);
	/* an orphan lease and stamp without a root */
	put(P("rt5/aaaaaaaaaaaaaaaa.lease"), "");
	put(P("rt5/aaaaaaaaaaaaaaaa.stamp"), "");
	if (geteuid() == 0) {
		mkdir(P("rt5/bbbbbbbbbbbbbbbb"), 0700);
		if (chown(P("rt5/bbbbbbbbbbbbbbbb"), 65534, 65534))
			perror("chown");
	}

	struct runtime_config z = c;
	z.max_roots = 0;
	int r = runtime_gc(&z, NULL, false, &rep);
	pf(path, "%s/%s", P("rt5"), name);
	t_ok(r == 0 && rep_has(rep.evicted, rep.n_evicted, name, NULL) && !exists(path),
	      "a root holding symlinks out is evicted");
	t_ok(file_has(P("victim2/sub/keep"), "precious") && is_dir(P("victim2/sub")),
	      "the symlinks' target folder is intact");
	t_ok(rep_has(rep.skipped, rep.n_skipped, "0123456789abcdef", "symlink") &&
	      exists(P("rt5/0123456789abcdef")),
	      "a root-shaped symlink in the parent is skipped and reported");
	t_ok(rep_has(rep.skipped, rep.n_skipped, "0123456789abcdef.tomb.1.1.1", "symlink") &&
	      exists(P("rt5/0123456789abcdef.tomb.1.1.1")),
	      "a tombstone-shaped symlink is skipped and reported");
	t_ok(!exists(tomb) && rep_any_prefix(rep.evicted, rep.n_evicted, "fedcba9876543210.tomb."),
	      "a leftover tombstone (read-only dirs, symlinks) is deleted");
	t_ok(!exists(P("rt5/aaaaaaaaaaaaaaaa.lease")) && !exists(P("rt5/aaaaaaaaaaaaaaaa.stamp")),
	      "an orphan lease and stamp are removed");
	t_ok(exists(P("rt5/0123456789abcdef.lease")),
	      "a planted symlink lease is left alone (never locked, never followed)");
	if (geteuid() == 0)
		t_ok(is_dir(P("rt5/bbbbbbbbbbbbbbbb")) &&
		      rep_has(rep.skipped, rep.n_skipped, "bbbbbbbbbbbbbbbb", "not owned"),
		      "a foreign-owned root-shaped directory is skipped and reported");
	else
		t_skipped("a foreign-owned entry needs root to make");

	/* unsafe parents are refused by acquire and gc */
	struct runtime_root rr;
	chmod(P("rt5"), 0770);
	r = runtime_acquire(&c, P("wsH"), &rr, &rep);
	int g = runtime_gc(&z, NULL, false, &rep);
	t_ok(r == -EPERM && g == -EPERM, "a group-writable parent is refused (acquire %d, gc %d)", r, g);
	chmod(P("rt5"), 0707);
	r = runtime_acquire(&c, P("wsH"), &rr, &rep);
	t_ok(r == -EPERM, "a world-writable parent is refused");
	chmod(P("rt5"), 0700);
	if (geteuid() == 0) {
		if (chown(P("rt5"), 65534, 65534))
			perror("chown");
		r = runtime_acquire(&c, P("wsH"), &rr, &rep);
		t_ok(r == -EPERM, "a foreign-owned parent is refused");
		if (chown(P("rt5"), 0, 0))
			perror("chown");
	} else {
		t_skipped("a foreign-owned parent needs root to make");
	}
	symlink(P("rt5"), P("rt5link"));
	struct runtime_config cl = c;
	cl.parent = K("rt5link");
	r = runtime_acquire(&cl, P("wsH"), &rr, &rep);
	t_ok(r == 0 && !strncmp(rr.root, P("rt5/"), strlen(P("rt5/"))),
	      "a symlinked parent path is used through its canonical form");
	if (r == 0)
		runtime_release(&rr);
	put(P("rt5file"), "");
	cl.parent = K("rt5file/sub");
	r = runtime_acquire(&cl, P("wsH"), &rr, &rep);
	t_ok(r < 0, "a parent below a regular file fails cleanly (%d)", r);
}

static int call_gc_main(int n, ...)
{
	char *argv[16];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	int o = dup(1), e = dup(2), nul = open("/dev/null", O_WRONLY);
	dup2(nul, 1);
	dup2(nul, 2);
	int rc = gc_main(n, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	close(nul);
	return rc;
}

static void test_gc_cli(void)
{
	char parent[PATH_MAX], name[17];
	struct runtime_config c = {.parent = K("rt6"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_report rep;
	pf(parent, "%s", P("rt6"));
	mkdirs(P("wsG"), 0755);
	touch_ws(&c, P("wsG"), name, &rep);
	t_ok(call_gc_main(2, "gc", "--bogus") == 2, "gc: an unknown option is a usage error (2)");
	t_ok(call_gc_main(3, "gc", "--max-age", "12x") == 2, "gc: a bad number is a usage error");
	t_ok(call_gc_main(3, "gc", "--max-roots", "-1") == 2, "gc: a negative count is a usage error");
	t_ok(call_gc_main(2, "gc", "--max-roots") == 2, "gc: a missing value is a usage error");
	t_ok(call_gc_main(6, "gc", "--parent", parent, "--max-roots", "0", "--dry-run") == 0 &&
	      count_roots(parent) == 1, "gc --dry-run succeeds and removes nothing");
	t_ok(call_gc_main(5, "gc", "--parent", parent, "--max-roots=0", "--json") == 0 &&
	      count_roots(parent) == 0, "gc --max-roots=0 --json evicts");
	chmod(parent, 0777);
	t_ok(call_gc_main(3, "gc", "--parent", parent) == 1, "gc on an unsafe parent fails with 1");
	chmod(parent, 0700);
	t_ok(call_gc_main(3, "gc", "--parent", P("does/not/exist")) == 0,
	      "gc on a missing parent has nothing to do");
}

int main(void)
{
	char tmpl[PATH_MAX];
	const char *t = getenv("TMPDIR");
	pf(tmpl, "%s/rt-test.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpl) || runtime_canonicalize(tmpl, base, sizeof(base)) < 0) {
		perror("mkdtemp");
		return 1;
	}
	umask(022);
	test_sha256();
	test_canonicalize();
	test_derivation();
	test_layout_and_lease();
	test_stamp();
	test_eviction();
	test_hostile_entries();
	test_gc_cli();
	rm_tree(base);
	t_ok(!exists(base), "scratch directory removed");
	return t_done();
}
