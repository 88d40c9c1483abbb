/* namefold.c - keys of names and their inverse (namefold.h).
 *
 * The key of a string: decode; decompose every code point (table, or
 * Hangul's algorithm); canonical ordering (a stable sort of each run of
 * marks by combining class); with NAMEFOLD_CASE, fold every code point
 * (table: NFD of its full case folding), order again, and only then fold
 * U+0345 (a mark of class 240 whose folding, U+03B9, is a starter: it
 * folds where NFD's ordering put it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "namefold.h"

#define REC 6 /* cp, n, up to NAMEFOLD_UNIT_MAX code points */

/* Hangul syllables (The Unicode Standard, 3.12). */
#define H_SBASE 0xAC00u
#define H_LBASE 0x1100u
#define H_VBASE 0x1161u
#define H_TBASE 0x11A7u
#define H_LCOUNT 19u
#define H_VCOUNT 21u
#define H_TCOUNT 28u
#define H_NCOUNT (H_VCOUNT * H_TCOUNT)
#define H_SCOUNT (H_LCOUNT * H_NCOUNT)

#define YPOGEGRAMMENI 0x345u
#define SMALL_IOTA 0x3B9u
#define DOTLESS_I 0x131u

size_t namefold_utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t v, min;
	size_t n;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if ((u[0] & 0xE0) == 0xC0) {
		n = 2, v = u[0] & 0x1F, min = 0x80;
	} else if ((u[0] & 0xF0) == 0xE0) {
		n = 3, v = u[0] & 0x0F, min = 0x800;
	} else if ((u[0] & 0xF8) == 0xF0) {
		n = 4, v = u[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80) /* a NUL ends it here too */
			return 0;
		v = v << 6 | (u[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

size_t namefold_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp >= 0xD800 && cp <= 0xDFFF)
		return 0;
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	if (cp > 0x10FFFF)
		return 0;
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

unsigned namefold_ccc(uint32_t cp)
{
	size_t lo = 0, hi = namefold_ccc_ranges_len / 3;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const uint32_t *r = &namefold_ccc_ranges[mid * 3];

		if (cp < r[0])
			hi = mid;
		else if (cp > r[1])
			lo = mid + 1;
		else
			return r[2];
	}
	return 0;
}

/* The record of cp in a fixed-width table, or NULL. */
static const uint32_t *rec_find(const uint32_t *t, size_t len, uint32_t cp)
{
	size_t lo = 0, hi = len / REC;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cp < t[mid * REC])
			hi = mid;
		else if (cp > t[mid * REC])
			lo = mid + 1;
		else
			return &t[mid * REC];
	}
	return NULL;
}

/* The canonical decomposition of cp: its length, 1..4. */
static size_t decompose(uint32_t cp, uint32_t out[NAMEFOLD_UNIT_MAX])
{
	const uint32_t *r;

	if (cp >= H_SBASE && cp < H_SBASE + H_SCOUNT) {
		uint32_t s = cp - H_SBASE, t = s % H_TCOUNT;

		out[0] = H_LBASE + s / H_NCOUNT;
		out[1] = H_VBASE + (s % H_NCOUNT) / H_TCOUNT;
		if (!t)
			return 2;
		out[2] = H_TBASE + t;
		return 3;
	}
	if ((r = rec_find(namefold_nfd, namefold_nfd_len, cp))) {
		memcpy(out, r + 2, r[1] * sizeof(*out));
		return r[1];
	}
	out[0] = cp;
	return 1;
}

/* The folding of cp (in NFD form): its length, 1..4; U+0345 is its own
 * until the end (namefold_key). */
static size_t fold(uint32_t cp, uint32_t out[NAMEFOLD_UNIT_MAX])
{
	const uint32_t *r = rec_find(namefold_cf, namefold_cf_len, cp);

	if (r) {
		memcpy(out, r + 2, r[1] * sizeof(*out));
		return r[1];
	}
	out[0] = cp == DOTLESS_I ? 'i' : cp;
	return 1;
}

/* Canonical ordering: each run of marks stably sorted by class. */
static void reorder(uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t c = v[i];
		unsigned k = namefold_ccc(c);
		size_t j = i;

		if (!k)
			continue;
		while (j > 0 && namefold_ccc(v[j - 1]) > k) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = c;
	}
}

/* Append v[0..k) to out (at most cap), counting in *n. */
static void push(uint32_t *out, size_t cap, size_t *n, const uint32_t *v, size_t k)
{
	for (size_t i = 0; i < k; i++, (*n)++)
		if (*n < cap)
			out[*n] = v[i];
}

/* The case folding of a key in NFD form, in place (at most cap). */
static int fold_all(uint32_t *v, size_t cap, size_t *n)
{
	uint32_t *src = malloc((*n ? *n : 1) * sizeof(*src)), f[NAMEFOLD_UNIT_MAX];
	size_t m = *n;

	if (!src)
		return -ENOMEM;
	memcpy(src, v, m * sizeof(*src));
	*n = 0;
	/* Each folding is in NFD form already (the table holds NFD of it);
	 * only the order of the marks around it may change. */
	for (size_t i = 0; i < m; i++)
		push(v, cap, n, f, fold(src[i], f));
	free(src);
	if (*n > cap)
		return -ENOSPC;
	reorder(v, *n);
	for (size_t i = 0; i < *n; i++)
		if (v[i] == YPOGEGRAMMENI)
			v[i] = SMALL_IOTA;
	return 0;
}

int namefold_key(const char *s, unsigned flags, uint32_t *out, size_t cap, size_t *n)
{
	bool norm = flags & (NAMEFOLD_NORM | NAMEFOLD_CASE);
	uint32_t cp, d[NAMEFOLD_UNIT_MAX];
	size_t len;

	*n = 0;
	for (; *s; s += len) {
		if (!(len = namefold_utf8_decode(s, &cp)))
			return -EILSEQ;
		d[0] = cp;
		push(out, cap, n, d, norm ? decompose(cp, d) : 1);
	}
	if (*n > cap)
		return -ENOSPC;
	if (!norm)
		return 0;
	reorder(out, *n);
	return (flags & NAMEFOLD_CASE) ? fold_all(out, cap, n) : 0;
}

size_t namefold_cp_key(uint32_t cp, unsigned flags, uint32_t out[NAMEFOLD_UNIT_MAX])
{
	char s[5] = {0};
	size_t n = 0, len = namefold_utf8_encode(cp, s);

	if (!len || namefold_key(s, flags, out, NAMEFOLD_UNIT_MAX, &n) < 0) {
		out[0] = cp;
		return 1;
	}
	return n;
}

/* The key of s for a comparison: 0, -EILSEQ, -ENOMEM; *out owned. */
static int key_alloc(const char *s, unsigned flags, uint32_t **out, size_t *n)
{
	/* A code point is one byte at least and its key four at most. */
	size_t cap = 4 * strlen(s) + 1;
	int rc;

	if (!(*out = malloc(cap * sizeof(**out))))
		return -ENOMEM;
	rc = namefold_key(s, flags, *out, cap, n);
	if (rc < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

bool namefold_same(const char *a, const char *b, unsigned flags)
{
	uint32_t *ka = NULL, *kb = NULL;
	size_t na, nb;
	bool same;

	if (!flags || key_alloc(a, flags, &ka, &na) < 0 || key_alloc(b, flags, &kb, &nb) < 0) {
		free(ka);
		return strcmp(a, b) == 0;
	}
	same = na == nb && memcmp(ka, kb, na * sizeof(*ka)) == 0;
	free(ka);
	free(kb);
	return same;
}

/* ---- the inverse ------------------------------------------------------ */

struct unit {
	uint32_t key[NAMEFOLD_UNIT_MAX];
	uint32_t n;
	uint32_t cp;
};

struct namefold_index {
	unsigned flags;
	struct unit *v;
	size_t n;
};

static int unit_cmp(const void *pa, const void *pb)
{
	const struct unit *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	return a->cp < b->cp ? -1 : a->cp > b->cp;
}

/* Add cp when its key is not itself. */
static void index_add(struct namefold_index *ix, uint32_t cp)
{
	struct unit u = {.cp = cp};

	u.n = (uint32_t)namefold_cp_key(cp, ix->flags, u.key);
	if (u.n == 1 && u.key[0] == cp)
		return;
	ix->v[ix->n++] = u;
}

int namefold_index_new(unsigned flags, struct namefold_index **out)
{
	size_t nd = namefold_nfd_len / REC, nc = namefold_cf_len / REC;
	struct namefold_index *ix = calloc(1, sizeof(*ix));

	*out = NULL;
	if (!ix || !(ix->v = calloc(nd + nc + 2, sizeof(*ix->v)))) {
		free(ix);
		return -ENOMEM;
	}
	ix->flags = flags;
	/* Only a code point that decomposes or folds has a key other than
	 * itself (Hangul syllables are found by their algorithm). */
	for (size_t i = 0; i < nd; i++)
		index_add(ix, namefold_nfd[i * REC]);
	if (flags & NAMEFOLD_CASE) {
		for (size_t i = 0; i < nc; i++)
			if (!rec_find(namefold_nfd, namefold_nfd_len, namefold_cf[i * REC]))
				index_add(ix, namefold_cf[i * REC]);
		index_add(ix, YPOGEGRAMMENI);
		index_add(ix, DOTLESS_I);
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), unit_cmp);
	*out = ix;
	return 0;
}

void namefold_index_free(struct namefold_index *ix)
{
	if (!ix)
		return;
	free(ix->v);
	free(ix);
}

unsigned namefold_index_flags(const struct namefold_index *ix)
{
	return ix->flags;
}

/* The Hangul syllable spelled by key (L V or L V T), or 0. */
static uint32_t hangul_of(const uint32_t *key, size_t len)
{
	uint32_t l, v, t = 0;

	if (len < 2 || len > 3)
		return 0;
	l = key[0] - H_LBASE, v = key[1] - H_VBASE;
	if (key[0] < H_LBASE || l >= H_LCOUNT || key[1] < H_VBASE || v >= H_VCOUNT)
		return 0;
	if (len == 3) {
		t = key[2] - H_TBASE;
		if (key[2] <= H_TBASE || t >= H_TCOUNT)
			return 0;
	}
	return H_SBASE + (l * H_VCOUNT + v) * H_TCOUNT + t;
}

static void add_sorted(uint32_t *out, size_t cap, size_t *n, uint32_t cp)
{
	size_t i = *n < cap ? *n : cap;

	if (*n < cap) {
		while (i > 0 && out[i - 1] > cp) {
			out[i] = out[i - 1];
			i--;
		}
		out[i] = cp;
	}
	(*n)++;
}

size_t namefold_units(const struct namefold_index *ix, const uint32_t *key, size_t len,
		      uint32_t *out, size_t cap)
{
	struct unit probe = {.n = (uint32_t)len, .cp = 0};
	size_t lo = 0, hi = ix->n, n = 0;
	uint32_t self[NAMEFOLD_UNIT_MAX], h;

	if (len < 1 || len > NAMEFOLD_UNIT_MAX)
		return 0;
	memcpy(probe.key, key, len * sizeof(*key));
	if (len == 1 && namefold_cp_key(key[0], ix->flags, self) == 1 && self[0] == key[0])
		add_sorted(out, cap, &n, key[0]);
	if ((ix->flags & (NAMEFOLD_NORM | NAMEFOLD_CASE)) && (h = hangul_of(key, len)))
		add_sorted(out, cap, &n, h);
	while (lo < hi) { /* the first unit not below the probe (cp 0) */
		size_t mid = (lo + hi) / 2;

		if (unit_cmp(&ix->v[mid], &probe) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && ix->v[lo].n == len &&
	       !memcmp(ix->v[lo].key, key, len * sizeof(*key)); lo++)
		add_sorted(out, cap, &n, ix->v[lo].cp);
	return n;
}
