/* mounts_order.c - the two rules that keep a read-only path read-only
 * inside a write root (FS-2), whatever else is mounted around it.
 *
 * Ancestors are pinned: every existing directory between the deepest write
 * root holding a read-only path and the path itself is bound onto itself
 * (MOP_PIN), because a read-only bind only holds its own place.  Without
 * the pins, `mv ws/d ws/b && mkdir ws/d && echo x > ws/d/f` carries the
 * bind of ws/d/f away inside its renamed parent and creates a new ws/d/f on
 * the host (found by `sandproof explore`).  A mount point cannot be renamed
 * or removed, so each `mv` of an ancestor fails with EBUSY (META-2 pins the
 * ancestors of protected names the same way).
 *
 * Order: pins and write roots first, then read-only binds, then covers,
 * each group shallowest first.  A pin or a write root is a fresh clone of
 * the host's directory: mounted after a read-only bind beneath it, it would
 * cover that bind and make its path writable again (a deny_write path
 * inside .git was, under the pin META-2 puts on .git).  Read-only binds
 * after every writable mount means read-only wins where policies nest; the
 * covers come last so a deny_read path stays hidden under any bind.
 * Aliases (META-6) come after everything: each clones the tree built at
 * its path onto the path's other spellings, so it must be complete, deeper
 * aliases included - deepest first. */
#include "mounts.h"
#include "policy_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The deepest write root that holds path, or NULL. */
static const char *root_of(const struct request *req, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < req->n_write_roots; i++) {
		const char *r = req->write_roots[i].root;

		if (policy_beneath(r, path) && (!best || strlen(r) > strlen(best)))
			best = r;
	}
	return best;
}

static bool has_op(const struct mplan *p, enum mop_kind kind, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == kind && strcmp(p->ops[i].path, path) == 0)
			return true;
	return false;
}

int mplan_pin_ancestors(struct mplan *p, const struct request *req, const char *path)
{
	const char *root = root_of(req, path);
	size_t start, len = strlen(path);
	char *buf;
	int rc = 0;

	if (!root || strcmp(root, path) == 0)
		return 0;
	start = strcmp(root, "/") == 0 ? 0 : strlen(root);
	buf = strdup(path);
	if (!buf)
		return -ENOMEM;
	for (size_t i = start + 1; rc == 0 && i < len; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		/* The path itself was resolved without symlinks just before,
		 * so each ancestor is a directory; mplan_apply() resolves it
		 * again and refuses one that changed type (ESTALE). */
		if (!has_op(p, MOP_PIN, buf))
			rc = mplan_add(p, MOP_PIN, buf, true);
		buf[i] = '/';
	}
	free(buf);
	return rc;
}

static int op_rank(enum mop_kind k)
{
	return k == MOP_WRITE || k == MOP_PIN ? 0 : k == MOP_RO ? 1 : k == MOP_HIDE ? 2 : 3;
}

static size_t depth_of(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

static bool goes_before(const struct mop *a, const struct mop *b)
{
	int ra = op_rank(a->kind), rb = op_rank(b->kind);

	if (ra != rb)
		return ra < rb;
	/* An alias clones the tree built at its path, with every mount
	 * beneath it, the deeper aliases among them: deepest first. */
	return ra == 3 ? depth_of(a->path) > depth_of(b->path)
		       : depth_of(a->path) < depth_of(b->path);
}

void mplan_order(struct mplan *p)
{
	/* Stable insertion sort: plans hold tens of operations, and equal
	 * ranks keep the order they were planned in. */
	for (size_t i = 1; i < p->n; i++) {
		struct mop m = p->ops[i];
		size_t j = i;

		for (; j > 0 && goes_before(&m, &p->ops[j - 1]); j--)
			p->ops[j] = p->ops[j - 1];
		p->ops[j] = m;
	}
}
