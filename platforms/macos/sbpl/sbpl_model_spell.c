/* sbpl_model_spell.c - the spellings an operation may reach Seatbelt in
 * (MODEL.md, "a volume that folds names" and "firmlinks"), and the
 * decision over them: the caller chooses its spelling, so the operation
 * is allowed when it is allowed in any of them.
 *
 *   folding   on a volume that folds names (query.fs_fold), the caller's
 *             spelling, and the stored spelling of what exists;
 *   firmlinks since macOS 10.15 the system volume's directories listed in
 *             /usr/share/firmlinks lead into the data volume, which is
 *             also reached at /System/Volumes/Data: /Users/x and
 *             /System/Volumes/Data/Users/x are one file, and no source
 *             read says which spelling Seatbelt is handed.  The list is
 *             /usr/share/firmlinks of macOS 10.15.1 (quoted at
 *             superuser.com/questions/1490834) and of Monterey
 *             (wiki.burkey.co, tech:macos:firmlinks): the same entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "namefold.h"
#include "sbpl_model_int.h"

#define DATA_VOLUME "/System/Volumes/Data"

static const char *const firmlinks[] = {
	"/AppleInternal", "/Applications", "/Library", "/System/Library/Caches",
	"/System/Library/Assets", "/System/Library/PreinstalledAssets", "/System/Library/AssetsV2",
	"/System/Library/PreinstalledAssetsV2",
	"/System/Library/CoreServices/CoreTypes.bundle/Contents/Library", "/System/Library/Speech",
	"/Users", "/Volumes", "/cores", "/opt", "/private", "/usr/local", "/usr/libexec/cups",
	"/usr/share/snmp", NULL,
};

static bool under(const char *root, const char *p)
{
	size_t n = strlen(root);

	return !strncmp(root, p, n) && (!p[n] || p[n] == '/');
}

/* The other spelling of p across a firmlink, malloc'd, or NULL. */
static char *firmlink_spelling(const char *p)
{
	size_t dn = strlen(DATA_VOLUME);
	char *out;

	if (under(DATA_VOLUME, p)) {
		for (size_t i = 0; firmlinks[i]; i++)
			if (under(firmlinks[i], p + dn))
				return strdup(p + dn);
		return NULL;
	}
	for (size_t i = 0; firmlinks[i]; i++)
		if (under(firmlinks[i], p)) {
			if ((out = malloc(dn + strlen(p) + 1)))
				strcat(strcpy(out, DATA_VOLUME), p);
			return out;
		}
	return NULL;
}

/* The stored spelling of q->path on a folding file system: the longest
 * fs_names entry that is, compared folded, a prefix of path at a '/'
 * boundary, with the rest of path after it.  NULL when none is (or the
 * stored spelling is path itself); else malloc'd. */
static char *stored_spelling(const struct sbpl_query *q)
{
	const char *best = NULL;
	size_t best_len = 0, cut = 0;
	char *out;

	for (size_t i = 0; i < q->n_fs_names; i++) {
		for (size_t k = 1;; k++) {
			char *prefix;

			if (q->path[k] != '/' && q->path[k] != '\0')
				continue;
			if (!(prefix = strndup(q->path, k)))
				return NULL;
			if (strlen(q->fs_names[i]) > best_len &&
			    namefold_same(prefix, q->fs_names[i], q->fs_fold)) {
				best = q->fs_names[i];
				best_len = strlen(best);
				cut = k;
			}
			free(prefix);
			if (!q->path[k])
				break;
		}
	}
	if (!best || !(out = malloc(best_len + strlen(q->path + cut) + 1)))
		return NULL;
	strcpy(out, best);
	strcat(out, q->path + cut);
	if (!strcmp(out, q->path)) {
		free(out);
		return NULL;
	}
	return out;
}

int sbpl_model_decide_why(const struct sbpl_model *m, const struct sbpl_query *q, long *rule_pos)
{
	struct sbpl_query alt = *q;
	char *sp[4] = {NULL, NULL, NULL, NULL};
	long pos;
	int rc = sbpl_model_decide_spelling(m, q, rule_pos), k;

	if (rc != 0 || !q->path || q->as_spelled)
		return rc;
	/* 1: stored (folding); 2, 3: across a firmlink, of 0 and of 1 */
	if (q->fs_fold)
		sp[1] = stored_spelling(q);
	sp[2] = firmlink_spelling(q->path);
	if (sp[1])
		sp[3] = firmlink_spelling(sp[1]);
	for (k = 1; k < 4 && rc == 0; k++) {
		if (!sp[k])
			continue;
		alt.path = sp[k];
		if (sbpl_model_decide_spelling(m, &alt, &pos) == 1) {
			rc = 1;
			*rule_pos = pos;
		}
	}
	for (k = 1; k < 4; k++)
		free(sp[k]);
	return rc;
}

/* op on path, the rest of the query as base. */
static int on(const struct sbpl_model *m, const struct sbpl_query *base, const char *op,
	      const char *path)
{
	struct sbpl_query q = *base;

	q.op = op;
	q.path = path;
	return sbpl_model_decide(m, &q);
}

/* a && b over decisions: an error is the answer, else 1 when both are. */
static int both(int a, int b)
{
	return a < 0 ? a : b < 0 ? b : a && b;
}

static int either(int a, int b)
{
	return a < 0 ? a : b < 0 ? b : a || b;
}

int sbpl_model_decide_move(const struct sbpl_model *m, const struct sbpl_query *base,
			   enum sbpl_move kind, const char *from, const char *to)
{
	switch (kind) {
	case SBPL_MOVE_RENAME:
		return both(on(m, base, "file-write-unlink", from), on(m, base, "file-write-create", to));
	case SBPL_MOVE_EXCHANGE:
		return either(both(both(on(m, base, "file-write-unlink", from),
					on(m, base, "file-write-create", from)),
				   both(on(m, base, "file-write-unlink", to),
					on(m, base, "file-write-create", to))),
			      both(on(m, base, "file-write-data", from),
				   on(m, base, "file-write-data", to)));
	case SBPL_MOVE_LINK:
		return both(on(m, base, "file-write-create", to),
			    either(on(m, base, "file-link", from), on(m, base, "file-link", to)));
	case SBPL_MOVE_CLONE:
		return both(on(m, base, "file-write-create", to),
			    either(on(m, base, "file-clone", from), on(m, base, "file-clone", to)));
	}
	return -EINVAL;
}
