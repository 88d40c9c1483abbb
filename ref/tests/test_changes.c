/* test_changes.c - the change report (OUT-8): created, modified and
 * deleted paths under the write roots between a baseline and a second
 * walk; symlinks listed, never followed; nothing outside the roots; the
 * list, depth and walk bounds with `truncated` and `dropped`; names that
 * are not UTF-8 reported losslessly (base64, said so); a directory's mode
 * and owner compared. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "changes.h"
#include "t.h"

static char tmp[64];

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	mkdir(p, 0755);
}

/* How often the report lists op on tmp/rel. */
static int listed(const struct changes *c, enum changes_op op, const char *rel)
{
	char p[512];
	int n = 0;

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	for (size_t i = 0; i < c->n_items; i++)
		if (c->items[i].op == op && strcmp(c->items[i].path, p) == 0)
			n++;
	return n;
}

static int listed_prefix(const struct changes *c, const char *prefix)
{
	int n = 0;

	for (size_t i = 0; i < c->n_items; i++)
		if (strncmp(c->items[i].path, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

/* A request with one write root, tmp/w. */
static struct request one_root(char *root_path)
{
	static struct write_root wr;
	struct request req;

	memset(&req, 0, sizeof(req));
	memset(&wr, 0, sizeof(wr));
	snprintf(root_path, 512, "%s/w", tmp);
	wr.root = root_path;
	req.fs_kind = FS_RESTRICTED;
	req.write_roots = &wr;
	req.n_write_roots = 1;
	return req;
}

static void test_basic(void)
{
	char root[512], outside[512], p[512];
	struct request req = one_root(root);
	struct changes c;

	dir("w");
	dir("w/sub");
	dir("out");
	put("w/keep", "a");
	put("w/mod", "b");
	put("w/del", "c");
	put("w/sub/deep", "d");
	put("out/secret", "s");
	snprintf(outside, sizeof(outside), "%s/out", tmp);
	snprintf(p, sizeof(p), "%s/w/link", tmp);
	t_ok(symlink(outside, p) == 0, "a symlink in the root to a directory outside");
	t_ok(changes_baseline(&c, &req) == 0, "baseline taken");
	put("w/new", "x");
	put("w/mod", "bigger");
	snprintf(p, sizeof(p), "%s/w/del", tmp);
	unlink(p);
	dir("w/d2");
	put("w/d2/f", "y");
	put("out/secret2", "outside");       /* outside the root, through the link's target */
	put("out/secret", "changed outside");
	t_ok(changes_compare(&c, &req) == 0, "compared");
	t_ok(listed(&c, CHANGE_CREATED, "w/new") == 1, "created file listed");
	t_ok(listed(&c, CHANGE_CREATED, "w/d2") == 1 && listed(&c, CHANGE_CREATED, "w/d2/f") == 1,
	     "created directory and its file listed");
	t_ok(listed(&c, CHANGE_MODIFIED, "w/mod") == 1, "modified file listed");
	t_ok(listed(&c, CHANGE_DELETED, "w/del") == 1, "deleted file listed");
	t_ok(listed_prefix(&c, outside) == 0, "nothing outside the root listed (%zu items)", c.n_items);
	t_ok(c.n_items == 5 && c.created == 3 && c.modified == 1 && c.deleted == 1,
	     "exactly those: %zu items, %llu created, %llu modified, %llu deleted", c.n_items,
	     (unsigned long long)c.created, (unsigned long long)c.modified,
	     (unsigned long long)c.deleted);
	t_ok(!c.truncated && c.dropped == 0, "complete, nothing dropped");
	changes_free(&c);
}

/* The root itself a symlink: refused (never followed), reported truncated. */
static void test_root_symlink(void)
{
	char root[512], target[512];
	struct request req = one_root(root);
	struct changes c;

	snprintf(root, sizeof(root), "%s/wlink", tmp);
	snprintf(target, sizeof(target), "%s/out", tmp);
	symlink(target, root);
	t_ok(changes_baseline(&c, &req) == 0, "baseline of a symlinked root");
	put("out/third", "3");
	t_ok(changes_compare(&c, &req) == 0 && c.truncated && c.n_items == 0,
	     "a root that is a symlink is not walked: truncated, nothing listed");
	changes_free(&c);
}

static void test_list_bound(void)
{
	char root[512], name[64];
	struct request req = one_root(root);
	struct changes c;
	unsigned n = CHANGES_LIST_MAX + 44;

	t_ok(changes_baseline(&c, &req) == 0, "baseline before %u creations", n);
	dir("w/many");
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "w/many/f%u", i);
		put(name, "");
	}
	t_ok(changes_compare(&c, &req) == 0, "compared");
	t_ok(c.created == n + 1 && c.n_items == CHANGES_LIST_MAX &&
	     c.dropped == n + 1 - CHANGES_LIST_MAX && !c.truncated,
	     "%llu created counted, %zu listed, %llu dropped", (unsigned long long)c.created,
	     c.n_items, (unsigned long long)c.dropped);
	changes_free(&c);
}

static void test_depth_bound(void)
{
	char root[512], rel[4096] = "w/deep", deep[4200];
	struct request req = one_root(root);
	struct changes c;
	int rc;

	dir(rel);
	for (int i = 0; i < CHANGES_DEPTH_MAX + 2; i++) {
		strcat(rel, "/d");
		dir(rel);
	}
	rc = changes_baseline(&c, &req);
	t_ok(rc == 0, "baseline of a tree deeper than %d (%s)", CHANGES_DEPTH_MAX,
	     c.walked ? "walk" : "events");
	put("w/late", "new, but the baseline is incomplete");
	put("w/mod", "modified again, certain");
	t_ok(changes_compare(&c, &req) == 0, "compared");
	if (c.walked) {
		t_ok(c.truncated && c.deleted == 0 && c.created == 0,
		     "depth bound: truncated, no creation or deletion claimed (%llu created)",
		     (unsigned long long)c.created);
	} else {
		/* the events saw every change, and none lies past the bound */
		t_ok(!c.truncated && c.created == 1 && listed(&c, CHANGE_CREATED, "w/late") == 1,
		     "events: the creation reported, complete (the deep tree holds no change)");
	}
	t_ok(c.modified == 1 && listed(&c, CHANGE_MODIFIED, "w/mod") == 1,
	     "a modification is still reported");
	changes_free(&c);
	if (!t_ok(changes_baseline(&c, &req) == 0, "baseline again"))
		return;
	snprintf(deep, sizeof(deep), "%s/f", rel);
	put(deep, "a change below the bound");
	rc = changes_compare(&c, &req);
	t_ok(rc == 0 && c.truncated && c.n_items == 0,
	     "a change %d levels down: truncated, nothing claimed (%s)", CHANGES_DEPTH_MAX + 3,
	     c.walked ? "walk" : "events");
	changes_free(&c);
}

/* The report as the outcome writes it, parsed back: caller frees. */
static cJSON *report_json(const struct changes *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;
	cJSON *j;

	if (!f)
		return NULL;
	jw_init(&w, f);
	jw_obj_open(&w, NULL);
	changes_write(c, &w);
	jw_obj_close(&w);
	fclose(f);
	j = cJSON_Parse(buf);
	free(buf);
	return j;
}

/* RFC 4648 base64 of s, written here rather than by the code under test. */
static void b64(const unsigned char *s, size_t n, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);

		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? a[v & 63] : '=';
	}
	out[o] = '\0';
}

/* How many entries of j are op on exactly want (the bytes), in encoding. */
static int json_listed(const cJSON *j, const char *op, const char *want, const char *encoding)
{
	const cJSON *e;
	char enc[1024];
	int n = 0;

	if (strcmp(encoding, "base64") == 0)
		b64((const unsigned char *)want, strlen(want), enc);
	else
		snprintf(enc, sizeof(enc), "%s", want);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "changes"), "entries")) {
		const cJSON *o = cJSON_GetObjectItem(e, "op"), *p = cJSON_GetObjectItem(e, "path"),
			    *pe = cJSON_GetObjectItem(e, "path_encoding");

		n += cJSON_IsString(o) && cJSON_IsString(p) && cJSON_IsString(pe) &&
		     !strcmp(o->valuestring, op) && !strcmp(p->valuestring, enc) &&
		     !strcmp(pe->valuestring, encoding);
	}
	return n;
}

/* Names that are not UTF-8 are reported losslessly: `bad\xff`, `bad\xfe`
 * and a real `bad` U+FFFD are three distinct entries, the first two in
 * base64 (of the whole absolute path), the third a UTF-8 string. */
static void test_names_lossless(void)
{
	static const char *const names[] = {"w/bad\xff", "w/bad\xfe", "w/bad\xef\xbf\xbd"};
	static const char *const enc[] = {"base64", "base64", "utf-8"};
	char root[512], p[512];
	struct request req = one_root(root);
	struct changes c;
	cJSON *j;

	t_ok(changes_baseline(&c, &req) == 0, "baseline before three look-alike names");
	for (size_t i = 0; i < 3; i++)
		put(names[i], "x");
	put("w/mod", "modified, with a plain name");
	t_ok(changes_compare(&c, &req) == 0, "compared");
	j = report_json(&c);
	if (!t_ok(j != NULL, "the report is JSON"))
		goto out;
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[i]);
		t_ok(json_listed(j, "created", p, enc[i]) == 1,
		     "name %zu created, listed once, as %s of its exact bytes", i, enc[i]);
	}
	snprintf(p, sizeof(p), "%s/w/mod", tmp);
	t_ok(json_listed(j, "modified", p, "utf-8") == 1, "a UTF-8 name stays a JSON string");
	t_ok(c.created == 3 && c.n_items == 4, "three distinct creations (%llu), four entries (%zu)",
	     (unsigned long long)c.created, c.n_items);
	cJSON_Delete(j);
out:
	changes_free(&c);
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[i]);
		unlink(p);
	}
}

/* A directory is modified when its mode or its owner changes (its times
 * and size move with its entries, which are reported themselves). */
static void test_dir_mode_owner(void)
{
	char root[512], p[512];
	struct request req = one_root(root);
	struct changes c;

	dir("w/dm");
	dir("w/dm/inner");
	dir("w/downer");
	put("w/dm/inner/f", "x");
	t_ok(changes_baseline(&c, &req) == 0, "baseline before a chmod of a directory");
	snprintf(p, sizeof(p), "%s/w/dm", tmp);
	t_ok(chmod(p, 0700) == 0, "chmod 0700 a directory");
	snprintf(p, sizeof(p), "%s/w/dm/inner", tmp);
	t_ok(chmod(p, 0750) == 0, "chmod 0750 a directory below it");
	put("w/dm/new", "y");
	snprintf(p, sizeof(p), "%s/w/downer", tmp);
	if (geteuid() == 0)
		t_ok(chown(p, 1234, 1234) == 0, "chown a directory (root)");
	t_ok(changes_compare(&c, &req) == 0, "compared");
	t_ok(listed(&c, CHANGE_MODIFIED, "w/dm") == 1 && listed(&c, CHANGE_MODIFIED, "w/dm/inner") == 1,
	     "both re-moded directories reported modified");
	t_ok(listed(&c, CHANGE_CREATED, "w/dm/new") == 1, "the new file in one of them created");
	if (geteuid() == 0)
		t_ok(listed(&c, CHANGE_MODIFIED, "w/downer") == 1, "the directory given away reported modified");
	else
		t_skipped("chown of a directory to another owner needs root");
	t_ok(c.modified == (geteuid() == 0 ? 3u : 2u) && c.created == 1 && c.deleted == 0,
	     "nothing else: %llu modified, %llu created (a directory whose entries changed is not modified)",
	     (unsigned long long)c.modified, (unsigned long long)c.created);
	changes_free(&c);
}

/* Every test in a fresh directory: with the mechanism the platform gives
 * (Linux: the events), then with the walk forced. */
static void run_all(const char *mode)
{
	char cmd[128];

	if (mode)
		setenv("SANDPROOF_REF_CHANGES", mode, 1);
	else
		unsetenv("SANDPROOF_REF_CHANGES");
	printf("# mechanism: %s\n", mode ? mode : "the platform's");
	snprintf(tmp, sizeof(tmp), "/tmp/sandproof-changes-XXXXXX");
	if (!mkdtemp(tmp)) {
		t_ok(0, "mkdtemp");
		return;
	}
	test_basic();
	test_root_symlink();
	test_list_bound();
	test_names_lossless();
	test_dir_mode_owner();
	test_depth_bound();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
}

int main(void)
{
	run_all(NULL);
	run_all("walk");
	return t_done();
}
