/* serve_msg.c - the members of one request line of `sandproof-ref serve`
 * (SESS-1), read from the line's own text: no tree is built.
 *
 * The line was judged by jscan (RFC 8259, no NUL, valid UTF-8, paired
 * surrogates) before any byte is read here, so the walk below trusts the
 * grammar.  What one line may cost is then the line itself plus a fixed
 * table (SESS-3): a 6 MiB line of `[0,0,...]` is a walk, never millions of
 * nodes.  Keys are decoded and compared whole, byte for byte, with the
 * eight names the protocol has; any other key, a name the op does not
 * take, and a repeated name are refused by name, in document order. */
#include <string.h>

#include "jw.h"
#include "serve_int.h"

static const char *const key_names[SK_COUNT] = {
	"op", "request", "tty", "yield_ms", "session", "input", "eof", "interrupt",
};

#define K(k) (1u << (k))
static const struct {
	const char *op;
	unsigned keys;
} ops[] = {
	{"start", K(SK_OP) | K(SK_REQUEST) | K(SK_TTY) | K(SK_YIELD)},
	{"continue", K(SK_OP) | K(SK_SESSION) | K(SK_INPUT) | K(SK_EOF) | K(SK_INTERRUPT) | K(SK_YIELD)},
	{"stop", K(SK_OP) | K(SK_SESSION)},
	{"stop_all", K(SK_OP)},
	{"list", K(SK_OP)},
};

static size_t skip_ws(const char *t, size_t len, size_t i)
{
	while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* t[i] is '"': the index past the closing quote. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len && t[i] != '"'; i++)
		if (t[i] == '\\')
			i++;
	return i + 1;
}

static size_t skip_value(const char *t, size_t len, size_t i)
{
	size_t depth = 0;

	if (t[i] == '"')
		return skip_string(t, len, i);
	if (t[i] != '{' && t[i] != '[') {
		while (i < len && !strchr(",}] \t\r\n", t[i]))
			i++;
		return i;
	}
	for (; i < len; i++) {
		if (t[i] == '"')
			i = skip_string(t, len, i) - 1;
		else if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
	}
	return i;
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned c = (unsigned char)p[i];

		v = v << 4 | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v;
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The body s[0..n) of a valid JSON string, decoded: its full length is
 * returned, at most cap bytes are written to out (NULL: none). */
static size_t str_decode(const char *s, size_t n, char *out, size_t cap)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		char tmp[4];
		size_t k = 1;

		if (s[i] != '\\') {
			tmp[0] = s[i++];
		} else if (s[i + 1] != 'u') {
			tmp[0] = esc_out[strchr(esc_in, s[i + 1]) - esc_in];
			i += 2;
		} else {
			unsigned cp = hex4(s + i + 2);

			i += 6;
			if (cp >= 0xd800 && cp <= 0xdbff) { /* jscan: a pair */
				cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(s + i + 2) - 0xdc00);
				i += 6;
			}
			k = utf8_put(tmp, cp);
		}
		for (size_t j = 0; j < k; j++, o++)
			if (out && o < cap)
				out[o] = tmp[j];
	}
	return o;
}

/* The decoded key at t[ks..ke) (inside its quotes), cut to fit the error
 * message at a character boundary: jw escapes its control bytes. */
static void key_label(const char *t, size_t ks, size_t ke, char *out, size_t cap)
{
	size_t n = str_decode(t + ks, ke - ks, out, cap - 1);

	n = jw_utf8_complete(out, n < cap - 1 ? n : cap - 1);
	out[n] = '\0';
}

static int key_index(const char *t, size_t ks, size_t ke)
{
	char k[16];
	size_t n = str_decode(t + ks, ke - ks, k, sizeof(k));

	for (int i = 0; i < SK_COUNT && n < sizeof(k); i++)
		if (strlen(key_names[i]) == n && memcmp(key_names[i], k, n) == 0)
			return i;
	return -1;
}

/* Walk the members of the object at the start of the line; for each, its
 * key's span (inside the quotes) and its value's span.  *i is the walk's
 * position (0 to begin).  false once past the last member. */
static bool member_next(const struct line *l, size_t *i, size_t *ks, size_t *ke,
			size_t *vs, size_t *ve)
{
	const char *t = l->text;
	size_t p = *i ? *i : skip_ws(t, l->len, 0) + 1;

	p = skip_ws(t, l->len, p);
	if (p >= l->len || t[p] != '"')
		return false; /* '}' */
	*ks = p + 1;
	p = skip_string(t, l->len, p);
	*ke = p - 1;
	p = skip_ws(t, l->len, skip_ws(t, l->len, p) + 1); /* past ':' */
	*vs = p;
	*ve = p = skip_value(t, l->len, p);
	p = skip_ws(t, l->len, p);
	*i = p < l->len && t[p] == ',' ? p + 1 : l->len;
	return true;
}

/* The op, from the first member named "op": 0, or -1 with err set. */
static int find_op(struct line *l, char *err, size_t errlen)
{
	size_t i = 0, ks, ke, vs, ve;

	while (member_next(l, &i, &ks, &ke, &vs, &ve)) {
		if (key_index(l->text, ks, ke) != SK_OP)
			continue;
		if (l->text[vs] != '"')
			break;
		key_label(l->text, vs + 1, ve - 1, l->op, sizeof(l->op));
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			if (str_decode(l->text + vs + 1, ve - vs - 2, NULL, 0) == strlen(ops[k].op) &&
			    strcmp(l->op, ops[k].op) == 0) {
				l->allowed = ops[k].keys;
				return 0;
			}
		snprintf(err, errlen, "op: unknown operation \"%s\" (start, continue, list, "
			 "stop, stop_all)", l->op);
		return -1;
	}
	snprintf(err, errlen, "op: missing or not a string");
	return -1;
}

int serve_msg_parse(struct line *l, const char *text, size_t len, char *err, size_t errlen)
{
	size_t i = 0, ks, ke, vs, ve;

	memset(l, 0, sizeof(*l));
	l->text = text;
	l->len = len;
	if (text[skip_ws(text, len, 0)] != '{') {
		snprintf(err, errlen, "line: not a JSON object");
		return -1;
	}
	if (find_op(l, err, errlen) < 0)
		return -1;
	while (member_next(l, &i, &ks, &ke, &vs, &ve)) {
		int k = key_index(text, ks, ke);
		char key[65];

		if (k >= 0 && (l->allowed & K(k)) && !l->has[k]) {
			l->has[k] = true;
			l->off[k] = vs;
			l->vlen[k] = ve - vs;
			continue;
		}
		key_label(text, ks, ke, key, sizeof(key));
		snprintf(err, errlen, "%s.%s: %s", l->op, key[0] ? key : "\"\"",
			 k >= 0 && l->has[k] ? "duplicate field" : "unknown field");
		return -1;
	}
	return 0;
}

int serve_msg_uint(const struct line *l, enum serve_key k, uint64_t *v)
{
	const char *p = l->text + l->off[k];
	uint64_t n = 0;

	if (!l->has[k])
		return 0;
	/* JSON integer syntax only: no sign, fraction or exponent (SESS-1) */
	if (p[0] < '0' || p[0] > '9' || (p[0] == '0' && l->vlen[k] > 1))
		return -1;
	for (size_t i = 0; i < l->vlen[k]; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (d > 9)
			return -1;
		n = n > (UINT64_MAX - d) / 10 ? UINT64_MAX : n * 10 + d; /* saturates */
	}
	*v = n;
	return 1;
}

int serve_msg_bool(const struct line *l, enum serve_key k, bool *v)
{
	const char *p = l->text + l->off[k];

	if (!l->has[k])
		return 0;
	if (l->vlen[k] == 4 && memcmp(p, "true", 4) == 0)
		*v = true;
	else if (l->vlen[k] == 5 && memcmp(p, "false", 5) == 0)
		*v = false;
	else
		return -1;
	return 1;
}

int serve_msg_str(const struct line *l, enum serve_key k, char *out, size_t cap, size_t *n)
{
	const char *p = l->text + l->off[k];

	if (!l->has[k])
		return 0;
	if (p[0] != '"')
		return -1;
	*n = str_decode(p + 1, l->vlen[k] - 2, out, cap);
	return 1;
}
