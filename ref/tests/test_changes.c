/* test_changes.c - the change report (OUT-8): created, modified and
 * deleted paths under the write roots between a baseline and a second
 * walk; symlinks listed, never followed; nothing outside the roots; the
 * list, depth and walk bounds with `truncated` and `dropped`. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	char root[512], rel[4096] = "w/deep";
	struct request req = one_root(root);
	struct changes c;

	dir(rel);
	for (int i = 0; i < CHANGES_DEPTH_MAX + 2; i++) {
		strcat(rel, "/d");
		dir(rel);
	}
	t_ok(changes_baseline(&c, &req) == 0, "baseline of a tree deeper than %d",
	     CHANGES_DEPTH_MAX);
	put("w/late", "new, but the baseline is incomplete");
	put("w/mod", "modified again, certain");
	t_ok(changes_compare(&c, &req) == 0, "compared");
	t_ok(c.truncated && c.deleted == 0 && c.created == 0,
	     "depth bound: truncated, no creation or deletion claimed (%llu created)",
	     (unsigned long long)c.created);
	t_ok(c.modified == 1 && listed(&c, CHANGE_MODIFIED, "w/mod") == 1,
	     "a modification is still reported");
	changes_free(&c);
}

int main(void)
{
	char cmd[128];

	snprintf(tmp, sizeof(tmp), "/tmp/sandproof-changes-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	test_basic();
	test_root_symlink();
	test_list_bound();
	test_depth_bound();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	return t_done();
}
