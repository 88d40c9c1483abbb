/* sbpl_fold.c - every spelling of a path as one regex, for a volume that
 * folds names (sbpl_int.h, sbpl_fold_regex).
 *
 * Seatbelt compares a rule's path with the path it is handed, byte for
 * byte; on a case-insensitive (and on every normalization-insensitive)
 * volume the same file has many spellings, and which one Seatbelt is
 * handed is the caller's (a create names what does not exist yet).  So a
 * deny that must hold whatever the spelling is written as a regex that
 * matches every spelling namefold.h calls the same, component by component:
 *
 *   key    each component's key (namefold_key);
 *   edges  from position i to j of the key, every code point whose own
 *          key is key[i..j) (namefold_units: for 'k' the letters k, K and
 *          U+212A KELVIN SIGN; for "ss" also U+00DF and U+1E9E; for
 *          "e" + U+0301 also U+00E9 and U+00C9);
 *   windows  the key cut where no edge spans; each window's paths from its
 *          start to its end, as alternatives.
 * A component the edges cannot describe exactly is written as [^/]+, wider
 * than every spelling (a deny only ever widens): one whose key has a run
 * of marks of different classes (their order is free, and a precomposed
 * letter may stand for a mark that is not next to it in the key), one
 * with more than WINDOW_PATHS paths in a window, one that is not UTF-8.
 *
 * Firmlinks: since macOS 10.15 the directories /usr/share/firmlinks lists
 * (/Users, /Applications, /private, /usr/local...) are also reached under
 * /System/Volumes/Data, and no source read says which spelling Seatbelt is
 * handed; a path under one gets both: ^(/System/Volumes/Data)?/Users/...
 * (the list: /usr/share/firmlinks of macOS 10.15.1, quoted at
 * superuser.com/questions/1490834; the same in Monterey).
 *
 * The regex is the portable core every engine reads alike: ^ $ . [ ] ( )
 * | ? * and backslash escapes of metacharacters; never a multibyte
 * character inside brackets (an engine reading bytes would take it apart):
 * an alternative that is not one ASCII byte is a ( | ) group. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_int.h"

#define KEY_CAP 4096
#define UNITS_MAX 64
#define WINDOW_PATHS 64

struct edge {
	size_t to;
	uint32_t units[UNITS_MAX];
	size_t n;
};

/* The key of one component and the edges out of each position. */
struct comp {
	uint32_t key[KEY_CAP];
	size_t n;
	struct edge *edges[KEY_CAP]; /* per position: NAMEFOLD_UNIT_MAX slots */
	size_t n_edges[KEY_CAP];
};

static void put_ascii(struct sbpl_buf *b, char c)
{
	char s[3] = {'\\', c, '\0'};

	sbpl_buf_add(b, strchr(".[]()*+?{}|^$\\", c) ? s : s + 1);
}

static void put_cp(struct sbpl_buf *b, uint32_t cp)
{
	char s[5] = {0};
	size_t n = namefold_utf8_encode(cp, s);

	if (n == 1)
		put_ascii(b, s[0]);
	else
		sbpl_buf_add(b, s);
}

static bool is_alnum(uint32_t cp)
{
	return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
}

/* One edge: a letter, [aA] for ASCII letters, else (u1|u2|...). */
static void put_edge(struct sbpl_buf *b, const struct edge *e)
{
	bool bracket = e->n > 1;

	for (size_t i = 0; i < e->n; i++)
		bracket = bracket && is_alnum(e->units[i]);
	if (e->n == 1) {
		put_cp(b, e->units[0]);
		return;
	}
	sbpl_buf_add(b, bracket ? "[" : "(");
	for (size_t i = 0; i < e->n; i++) {
		if (i && !bracket)
			sbpl_buf_add(b, "|");
		put_cp(b, e->units[i]);
	}
	sbpl_buf_add(b, bracket ? "]" : ")");
}

/* A run of two marks or more of different classes: their order is free. */
static bool marks_reorder(const struct comp *c)
{
	for (size_t i = 1; i < c->n; i++) {
		unsigned a = namefold_ccc(c->key[i - 1]), k = namefold_ccc(c->key[i]);

		if (a && k && a != k)
			return true;
	}
	return false;
}

static void comp_free(struct comp *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->edges[i]);
}

/* The edges of every position: 0, or -ENOMEM / -E2BIG (too many units). */
static int comp_edges(struct comp *c, const struct namefold_index *ix)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!(c->edges[i] = calloc(NAMEFOLD_UNIT_MAX, sizeof(struct edge))))
			return -ENOMEM;
		for (size_t len = 1; len <= NAMEFOLD_UNIT_MAX && i + len <= c->n; len++) {
			struct edge *e = &c->edges[i][c->n_edges[i]];

			e->n = namefold_units(ix, &c->key[i], len, e->units, UNITS_MAX);
			if (e->n > UNITS_MAX)
				return -E2BIG;
			if (e->n) {
				e->to = i + len;
				c->n_edges[i]++;
			}
		}
		/* A key's code point is its own key: never without an edge. */
		if (!c->n_edges[i] || c->edges[i][0].to != i + 1)
			return -EPROTO;
	}
	return 0;
}

/* The paths from i to end through edges, each as text appended to b,
 * separated by '|'; *count paths so far.  -E2BIG past WINDOW_PATHS. */
static int window_paths(const struct comp *c, size_t i, size_t end, struct sbpl_buf *b,
			struct sbpl_buf *prefix, size_t *count)
{
	if (i == end) {
		if ((*count)++)
			sbpl_buf_add(b, "|");
		sbpl_buf_add(b, prefix->s ? prefix->s : "");
		return *count > WINDOW_PATHS ? -E2BIG : 0;
	}
	for (size_t k = 0; k < c->n_edges[i]; k++) {
		const struct edge *e = &c->edges[i][k];
		size_t mark = prefix->len;
		int rc;

		if (e->to > end)
			continue;
		put_edge(prefix, e);
		rc = window_paths(c, e->to, end, b, prefix, count);
		prefix->len = mark;
		if (prefix->s)
			prefix->s[mark] = '\0';
		if (rc)
			return rc;
	}
	return 0;
}

/* The end of the window that starts at i: the first position past i no
 * edge spans. */
static size_t window_end(const struct comp *c, size_t i)
{
	size_t end = i + 1;

	for (size_t p = i; p < end && p < c->n; p++)
		for (size_t k = 0; k < c->n_edges[p]; k++)
			if (c->edges[p][k].to > end)
				end = c->edges[p][k].to;
	return end;
}

/* The regex of a component's key into b: 0, or -E2BIG when it is to be
 * written wide, -ENOMEM. */
static int comp_regex(struct comp *c, const struct namefold_index *ix, struct sbpl_buf *b)
{
	struct sbpl_buf alts = {0}, prefix = {0};
	int rc = marks_reorder(c) ? -E2BIG : comp_edges(c, ix);

	for (size_t i = 0, end; rc == 0 && i < c->n; i = end) {
		size_t count = 0;

		end = window_end(c, i);
		alts.len = 0;
		if (alts.s)
			alts.s[0] = '\0';
		rc = window_paths(c, i, end, &alts, &prefix, &count);
		if (rc == 0 && (alts.err || prefix.err))
			rc = -ENOMEM;
		if (rc == 0)
			sbpl_buf_addf(b, count > 1 ? "(%s)" : "%s", alts.s);
	}
	sbpl_buf_free(&alts);
	sbpl_buf_free(&prefix);
	return rc;
}

/* One component (NUL-terminated) into b. */
static int put_component(struct sbpl_buf *b, const char *name, const struct namefold_index *ix,
			 struct comp *c)
{
	size_t mark = b->len;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = namefold_key(name, namefold_index_flags(ix), c->key, KEY_CAP, &c->n);
	if (rc == 0)
		rc = comp_regex(c, ix, b);
	comp_free(c);
	if (rc == -E2BIG || rc == -EILSEQ || rc == -ENOSPC) {
		/* Wider than every spelling of it: a deny only ever widens. */
		b->len = mark;
		if (b->s)
			b->s[mark] = '\0';
		sbpl_buf_add(b, "[^/]+");
		return 0;
	}
	return rc;
}

#define DATA_VOLUME "/System/Volumes/Data"

static const char *const firmlinks[] = {
	"/AppleInternal", "/Applications", "/Library", "/System/Library/Caches",
	"/System/Library/Assets", "/System/Library/PreinstalledAssets", "/System/Library/AssetsV2",
	"/System/Library/PreinstalledAssetsV2",
	"/System/Library/CoreServices/CoreTypes.bundle/Contents/Library", "/System/Library/Speech",
	"/Users", "/Volumes", "/cores", "/opt", "/private", "/usr/local", "/usr/libexec/cups",
	"/usr/share/snmp", NULL,
};

static bool path_under(const char *root, const char *p)
{
	size_t n = strlen(root);

	return !strncmp(root, p, n) && (!p[n] || p[n] == '/');
}

/* The part of path a firmlink leads to (path itself, or path without
 * /System/Volumes/Data), or NULL when no firmlink does. */
static const char *firmlinked(const char *path)
{
	const char *rest = path_under(DATA_VOLUME, path) ? path + strlen(DATA_VOLUME) : path;

	for (size_t i = 0; firmlinks[i]; i++)
		if (path_under(firmlinks[i], rest))
			return rest;
	return NULL;
}

bool sbpl_path_firmlinked(const char *path)
{
	return firmlinked(path) != NULL;
}

/* A component as it is, metacharacters escaped (no folding). */
static void put_exact(struct sbpl_buf *b, const char *name)
{
	for (; *name; name++)
		if ((unsigned char)*name < 0x80)
			put_ascii(b, *name);
		else
			sbpl_buf_addf(b, "%c", *name);
}

int sbpl_fold_regex(const struct namefold_index *ix, const char *path, bool subpath,
		    struct sbpl_buf *out)
{
	const char *rest = firmlinked(path);
	struct comp *c = malloc(sizeof(*c));
	char *copy = strdup(rest ? rest : path), *save = NULL;
	int rc = 0;

	if (!c || !copy) {
		free(c);
		free(copy);
		return -ENOMEM;
	}
	sbpl_buf_add(out, rest ? "^(/System/Volumes/Data)?" : "^");
	for (char *name = strtok_r(copy, "/", &save); rc == 0 && name;
	     name = strtok_r(NULL, "/", &save)) {
		sbpl_buf_add(out, "/");
		if (ix)
			rc = put_component(out, name, ix, c);
		else
			put_exact(out, name);
	}
	if (rc == 0 && strcmp(path, "/") == 0)
		sbpl_buf_add(out, "/");
	if (rc == 0)
		sbpl_buf_add(out, subpath ? "(/.*)?$" : "$");
	free(c);
	free(copy);
	return rc ? rc : out->err;
}
