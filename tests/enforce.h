/* enforce.h - shared helpers of the enforcement tests (test_enforce,
 * test_net, test_setup).  They drive a runner as a black box, like
 * refrun.h: a request is built with cJSON, fed to `RUNNER run --request -`,
 * and the outcome and the probe's JSON lines come back parsed.  What a test
 * believes about enforcement comes from the host afterwards (enf_lexists,
 * enf_content_is), never from the command's exit status.
 *
 * Areas: every test works in an "area", a mkdtemp directory (mode 0755, so
 * an unprivileged runner can use it) holding
 *   ws/            the workspace, the write root of most requests,
 *   ws/.sp-probe   a copy of sandproof-probe (the sandbox's /tmp is private,
 *                  so a probe in a build tree under /tmp would be invisible),
 *   outside/       a sibling the command must never write, with a file
 *                  "keep" whose content "keep" must survive every run.
 * enf_area_free() removes the whole area without following a symlink.
 *
 * Everything here is static and header-only, for test programs. */
#ifndef SANDPROOF_ENFORCE_H
#define SANDPROOF_ENFORCE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "refrun.h"

#define ENF_MAX_OPS 64

struct enf_area {
	char top[256];
	char ws[512];
	char out[512];
	char probe[768];
};

/* ---- host side ----------------------------------------------------------- */

__attribute__((unused, format(printf, 3, 4)))
static char *enf_path(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return buf;
}

/* lstat: a dangling symlink exists too. */
__attribute__((unused))
static bool enf_lexists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

__attribute__((unused))
static bool enf_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Writes text to path (created 0644, truncated).  0 or -errno. */
__attribute__((unused))
static int enf_put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t n = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != (ssize_t)n) {
		int e = errno ? errno : EIO;

		close(fd);
		return -e;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* The whole content of a regular file (never through a symlink), or NULL.
 * The caller frees it. */
__attribute__((unused))
static char *enf_slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	for (;;) {
		ssize_t r;

		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
		r = read(fd, buf + len, cap - len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

__attribute__((unused))
static bool enf_content_is(const char *path, const char *text)
{
	char *s = enf_slurp(path);
	bool eq = s && strcmp(s, text) == 0;

	free(s);
	return eq;
}

/* Names in a directory other than "." and ".." (-1 if it cannot be read). */
__attribute__((unused))
static int enf_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Removes everything beneath the directory dfd, then nothing else.
 * Never follows a symlink: entries are opened O_NOFOLLOW relative to their
 * parent's descriptor, and a link is unlinked as a link. */
static int enf_rm_in(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		/* a directory (perhaps one the command made unwritable) */
		fchmodat(dirfd(d), de->d_name, 0700, 0);
		sub = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			rc |= enf_rm_in(sub);
		if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0)
			rc = -errno;
	}
	closedir(d);
	return rc;
}

__attribute__((unused))
static int enf_rmtree(const char *path)
{
	int fd;

	if (unlink(path) == 0)
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	enf_rm_in(fd);
	return rmdir(path) < 0 ? -errno : 0;
}

static int enf_copy(const char *src, const char *dst, mode_t mode)
{
	int in, out, rc = 0;
	char buf[65536];
	ssize_t r;

	if (!src)
		return -EINVAL;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r) {
			rc = -EIO;
			break;
		}
	if (r < 0)
		rc = -errno;
	close(in);
	if (close(out) < 0 && rc == 0)
		rc = -errno;
	fchmodat(AT_FDCWD, dst, mode, 0);
	return rc;
}

/* A new area under base ("/tmp", "/var/tmp").  probe may be NULL (no copy).
 * 0 or -errno; on failure nothing is left behind. */
__attribute__((unused))
static int enf_area_new(struct enf_area *a, const char *base, const char *probe)
{
	char keep[PATH_MAX];
	int rc = 0;

	memset(a, 0, sizeof(*a));
	snprintf(a->top, sizeof(a->top), "%s/sp-enf.XXXXXX", base);
	if (!mkdtemp(a->top))
		return -errno;
	snprintf(a->ws, sizeof(a->ws), "%s/ws", a->top);
	snprintf(a->out, sizeof(a->out), "%s/outside", a->top);
	snprintf(keep, sizeof(keep), "%s/keep", a->out);
	if (chmod(a->top, 0755) < 0 || mkdir(a->ws, 0755) < 0 || mkdir(a->out, 0755) < 0 ||
	    chmod(a->ws, 0755) < 0 || chmod(a->out, 0755) < 0)
		rc = -errno;
	if (rc == 0)
		rc = enf_put(keep, "keep");
	if (rc == 0 && probe) {
		snprintf(a->probe, sizeof(a->probe), "%s/.sp-probe", a->ws);
		rc = enf_copy(probe, a->probe, 0755);
	}
	if (rc < 0) {
		enf_rmtree(a->top);
		a->top[0] = '\0';
	}
	return rc;
}

__attribute__((unused))
static void enf_area_free(struct enf_area *a)
{
	if (a->top[0] && enf_rmtree(a->top) < 0)
		fprintf(stderr, "cannot remove %s\n", a->top);
	a->top[0] = '\0';
}

/* The outside dir holds exactly "keep", still reading "keep". */
__attribute__((unused))
static bool enf_outside_intact(const struct enf_area *a)
{
	char keep[PATH_MAX];

	snprintf(keep, sizeof(keep), "%s/keep", a->out);
	return enf_is_dir(a->out) && enf_count_entries(a->out) == 1 &&
	       enf_content_is(keep, "keep");
}

/* A name no other test run can share: for host paths outside any area
 * (/etc/sp-x-TAG) that must stay absent. */
__attribute__((unused))
static const char *enf_tag(void)
{
	static char tag[64];
	static unsigned n;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tag, sizeof(tag), "sp-x-%d-%ld-%u", (int)getpid(), (long)ts.tv_nsec, n++);
	return tag;
}

__attribute__((unused))
static long long enf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- requests -------------------------------------------------------------- */

/* A restricted request: cwd, PATH, network mode, allow_temp, no write root
 * yet, an empty command array (fill it with enf_arg).  Timeout 20 s so a
 * hung run cannot hang the test. */
__attribute__((unused))
static cJSON *enf_req_new(const char *cwd, const char *network)
{
	cJSON *r = cJSON_CreateObject(), *env, *prof, *fs, *net;

	cJSON_AddNumberToObject(r, "version", 1);
	cJSON_AddArrayToObject(r, "command");
	if (cwd)
		cJSON_AddStringToObject(r, "cwd", cwd);
	env = cJSON_AddObjectToObject(r, "env");
	cJSON_AddStringToObject(env, "PATH", "/usr/bin:/bin");
	cJSON_AddNumberToObject(r, "timeout_ms", 20000);
	prof = cJSON_AddObjectToObject(r, "profile");
	fs = cJSON_AddObjectToObject(prof, "filesystem");
	cJSON_AddStringToObject(fs, "kind", "restricted");
	cJSON_AddArrayToObject(fs, "write_roots");
	cJSON_AddBoolToObject(fs, "allow_temp", true);
	net = cJSON_AddObjectToObject(prof, "network");
	cJSON_AddStringToObject(net, "mode", network);
	return r;
}

/* Object at a dotted path ("profile.filesystem"), or NULL. */
__attribute__((unused))
static cJSON *enf_req_at(cJSON *req, const char *path)
{
	return (cJSON *)oc_get(req, path);
}

/* Appends a formatted string to an array. */
__attribute__((unused, format(printf, 2, 3)))
static void enf_arg(cJSON *arr, const char *fmt, ...)
{
	char buf[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(arr, cJSON_CreateString(buf));
}

__attribute__((unused))
static cJSON *enf_cmd(cJSON *req)
{
	return cJSON_GetObjectItemCaseSensitive(req, "command");
}

/* Appends one probe operation to the request's command: its words, each
 * an argument (not split at spaces), after a "--" separator when the
 * command already holds one. */
__attribute__((unused))
static void enf_op(cJSON *req, int nargs, ...)
{
	cJSON *cmd = enf_cmd(req);
	va_list ap;

	if (cJSON_GetArraySize(cmd) > 1)
		enf_arg(cmd, "--");
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++)
		enf_arg(cmd, "%s", va_arg(ap, const char *));
	va_end(ap);
}

/* Adds a write root; returns its object (for read_only_subpaths and
 * protected_metadata_names). */
__attribute__((unused))
static cJSON *enf_write_root(cJSON *req, const char *root)
{
	cJSON *wr = cJSON_CreateObject();

	cJSON_AddStringToObject(wr, "root", root);
	cJSON_AddItemToArray(enf_req_at(req, "profile.filesystem.write_roots"), wr);
	return wr;
}

/* Appends path to the array obj[key], creating it. */
__attribute__((unused))
static void enf_push(cJSON *obj, const char *key, const char *path)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!arr)
		arr = cJSON_AddArrayToObject(obj, key);
	cJSON_AddItemToArray(arr, cJSON_CreateString(path));
}

__attribute__((unused))
static void enf_fs_bool(cJSON *req, const char *key, bool v)
{
	cJSON *fs = enf_req_at(req, "profile.filesystem");

	cJSON_DeleteItemFromObjectCaseSensitive(fs, key);
	cJSON_AddBoolToObject(fs, key, v);
}

/* ---- running --------------------------------------------------------------- */

struct enf_run {
	struct refrun r;
	bool sentinel;            /* the probe's sentinel was the first line */
	cJSON *op[ENF_MAX_OPS];   /* the probe's line for operation i */
	long long ms;             /* wall time of the runner, as seen here */
};

/* The probe's lines from the outcome's stdout.  Lines that are not JSON
 * (a shell's output before the probe) are skipped; the sentinel must come
 * before any operation line. */
static void enf_parse_probe(struct enf_run *e)
{
	const char *out = oc_str(e->r.outcome, "stdout");
	char *copy = strdup(out), *save = NULL;
	bool any_op = false;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *j = cJSON_Parse(line);
		const cJSON *i = j ? cJSON_GetObjectItemCaseSensitive(j, "i") : NULL;

		if (j && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "sentinel")) && !any_op)
			e->sentinel = true;
		if (cJSON_IsNumber(i) && i->valueint >= 0 && i->valueint < ENF_MAX_OPS &&
		    !e->op[i->valueint]) {
			e->op[i->valueint] = j;
			any_op = true;
			continue;
		}
		cJSON_Delete(j);
	}
	free(copy);
}

/* Runs req (consumed) through `ref run --request -`.  on_start as in
 * refrun().  Returns 0 when an outcome came back. */
__attribute__((unused))
static int enf_run_cb(const char *ref, cJSON *req, struct enf_run *e,
		      void (*on_start)(pid_t, void *), void *arg)
{
	char *argv[] = {(char *)ref, "run", "--request", "-", NULL};
	char *text = cJSON_PrintUnformatted(req);
	long long t0 = enf_now_ms();
	int rc;

	memset(e, 0, sizeof(*e));
	cJSON_Delete(req);
	rc = refrun(argv, text, &e->r, on_start, arg);
	free(text);
	e->ms = enf_now_ms() - t0;
	if (rc < 0 || !e->r.outcome) {
		if (rc < 0 || WIFEXITED(e->r.status))
			fprintf(stderr, "# runner gave no outcome; stderr: %s\n",
				e->r.err ? e->r.err : "");
		return -1;
	}
	enf_parse_probe(e);
	return 0;
}

__attribute__((unused))
static int enf_run(const char *ref, cJSON *req, struct enf_run *e)
{
	return enf_run_cb(ref, req, e, NULL, NULL);
}

__attribute__((unused))
static void enf_run_free(struct enf_run *e)
{
	for (int i = 0; i < ENF_MAX_OPS; i++)
		cJSON_Delete(e->op[i]);
	refrun_free(&e->r);
	memset(e, 0, sizeof(*e));
}

__attribute__((unused))
static const char *enf_kind(const struct enf_run *e)
{
	return oc_str(e->r.outcome, "kind");
}

__attribute__((unused))
static bool enf_kind_is(const struct enf_run *e, const char *kind)
{
	return strcmp(enf_kind(e), kind) == 0;
}

/* 1: operation i ran and succeeded, 0: it ran and failed, -1: no line. */
__attribute__((unused))
static int enf_ok(const struct enf_run *e, int i)
{
	const cJSON *ok = e->op[i] ? cJSON_GetObjectItemCaseSensitive(e->op[i], "ok") : NULL;

	if (!cJSON_IsBool(ok))
		return -1;
	return cJSON_IsTrue(ok) ? 1 : 0;
}

/* The errno name of operation i, "ok" when it succeeded, "missing" when it
 * printed no line. */
__attribute__((unused))
static const char *enf_errno(const struct enf_run *e, int i)
{
	const cJSON *v;

	if (enf_ok(e, i) < 0)
		return "missing";
	if (enf_ok(e, i) == 1)
		return "ok";
	v = cJSON_GetObjectItemCaseSensitive(e->op[i], "errno");
	return cJSON_IsString(v) ? v->valuestring : "?";
}

/* Operation i failed with one of the names in the '|'-separated list. */
__attribute__((unused))
static bool enf_failed_with(const struct enf_run *e, int i, const char *names)
{
	const char *en = enf_errno(e, i);
	size_t n = strlen(en);

	if (enf_ok(e, i) != 0)
		return false;
	for (const char *p = names; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, en, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* A string field of operation i's line ("(none)" when absent). */
__attribute__((unused))
static const char *enf_field(const struct enf_run *e, int i, const char *key)
{
	const char *s = e->op[i] ? oc_str(e->op[i], key) : NULL;

	return s ? s : "(none)";
}

__attribute__((unused))
static double enf_num(const struct enf_run *e, int i, const char *key)
{
	return e->op[i] ? oc_num(e->op[i], key) : -1;
}

/* denials[] holds {kind, key: value}. */
__attribute__((unused))
static bool enf_has_denial(const struct enf_run *e, const char *kind,
			   const char *key, const char *value)
{
	const cJSON *d, *arr = oc_get(e->r.outcome, "denials");

	cJSON_ArrayForEach(d, arr) {
		if (strcmp(oc_str(d, "kind"), kind) == 0 &&
		    (!key || strcmp(oc_str(d, key), value) == 0))
			return true;
	}
	return false;
}

/* How many denials are {kind, key: value}. */
__attribute__((unused))
static int enf_count_denials(const struct enf_run *e, const char *kind,
			     const char *key, const char *value)
{
	const cJSON *d, *arr = oc_get(e->r.outcome, "denials");
	int n = 0;

	cJSON_ArrayForEach(d, arr)
		n += strcmp(oc_str(d, "kind"), kind) == 0 && strcmp(oc_str(d, key), value) == 0;
	return n;
}

/* "kind:name,kind:path,..." for messages. */
__attribute__((unused))
static const char *enf_denials_str(const struct enf_run *e)
{
	static char buf[1024];
	const cJSON *d, *arr = oc_get(e->r.outcome, "denials");
	size_t len = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(d, arr) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(d, "name");

		if (!w)
			w = cJSON_GetObjectItemCaseSensitive(d, "path");
		len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0,
					"%s%s:%s", len ? "," : "", oc_str(d, "kind"),
					cJSON_IsString(w) ? w->valuestring : "?");
		if (len >= sizeof(buf))
			break;
	}
	return buf;
}

/* "step/ERRNO" of a setup failure, for messages. */
__attribute__((unused))
static const char *enf_setup_str(const struct enf_run *e)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s %s/%s", enf_kind(e),
		 oc_str(e->r.outcome, "setup_error.step"),
		 oc_str(e->r.outcome, "setup_error.errno"));
	return buf;
}

#endif
