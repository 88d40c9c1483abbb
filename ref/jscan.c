/* jscan.c - see jscan.h.  A recursive-descent validator of RFC 8259 JSON
 * that tracks the path (object keys and array indices) so an error names the
 * field.  It decides acceptance alone: it never relies on cJSON having seen
 * the text first, so every byte cJSON would read differently is refused
 * here. */
#include "jscan.h"

#include "utf8.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct frame {
	int is_array;
	long index;
	char key[64];
};

struct scan {
	const unsigned char *p, *end, *base;
	struct frame st[JSCAN_DEPTH];
	int depth;
	struct jscan_strings *strs;
	unsigned flags;
	char *err;
	size_t errlen;
};

void jscan_strings_free(struct jscan_strings *strs)
{
	free(strs->len);
	memset(strs, 0, sizeof(*strs));
}

static void path_format(const struct scan *s, char *out, size_t outlen)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < s->depth && used < outlen; i++) {
		const struct frame *f = &s->st[i];
		int n;

		if (f->is_array)
			n = snprintf(out + used, outlen - used, "[%ld]", f->index);
		else if (f->key[0] == '\0')
			continue;
		else
			n = snprintf(out + used, outlen - used, "%s%s",
				     used ? "." : "", f->key);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (out[0] == '\0')
		snprintf(out, outlen, "request");
}

static int fail(struct scan *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct scan *s, const char *fmt, ...)
{
	char path[256], why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	path_format(s, path, sizeof(path));
	snprintf(s->err, s->errlen, "%s: %s (byte %ld)", path, why,
		 (long)(s->p - s->base));
	return -EINVAL;
}

/* What stands at s->p, for a message: a printable character is quoted, any
 * other byte given in hex (a control byte is the usual culprit). */
static int fail_unexpected(struct scan *s, const char *wanted)
{
	unsigned c;

	if (s->p >= s->end)
		return fail(s, "unexpected end of input (expected %s)", wanted);
	c = *s->p;
	if (c > 0x20 && c < 0x7f)
		return fail(s, "unexpected character '%c' (expected %s)", (int)c, wanted);
	return fail(s, "unexpected byte 0x%02x (expected %s; only space, tab, LF and CR "
		    "separate JSON tokens)", c, wanted);
}

/* JSON whitespace is exactly these four bytes (RFC 8259, section 2). */
static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
				 *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int hex4(const unsigned char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned c = p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* A \uXXXX escape at s->p (on the backslash), a surrogate pair included.
 * Adds the decoded UTF-8 length to *n. */
static int scan_uescape(struct scan *s, size_t *n)
{
	unsigned hi, lo;

	if (s->end - s->p < 6 || hex4(s->p + 2, &hi) < 0)
		return fail(s, "invalid \\u escape (four hex digits needed)");
	if (hi == 0)
		return fail(s, "NUL character (\\u0000) not allowed");
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return fail(s, "unpaired UTF-16 surrogate \\u%04x", hi);
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (s->end - s->p < 12 || s->p[6] != '\\' || s->p[7] != 'u' ||
		    hex4(s->p + 8, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
			return fail(s, "unpaired UTF-16 surrogate \\u%04x", hi);
		s->p += 12;
		*n += 4;
		return 0;
	}
	s->p += 6;
	*n += hi < 0x80 ? 1 : hi < 0x800 ? 2 : 3;
	return 0;
}

static int scan_escape(struct scan *s, size_t *n)
{
	if (s->end - s->p < 2)
		return fail(s, "unterminated string");
	switch (s->p[1]) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		s->p += 2;
		*n += 1;
		return 0;
	case 'u':
		return scan_uescape(s, n);
	default:
		if (s->p[1] > 0x20 && s->p[1] < 0x7f)
			return fail(s, "invalid escape '\\%c'", s->p[1]);
		return fail(s, "invalid escape (byte 0x%02x after '\\')", s->p[1]);
	}
}

static int record_len(struct scan *s, size_t n)
{
	struct jscan_strings *v = s->strs;

	if (!v)
		return 0;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		size_t *nl = realloc(v->len, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		v->len = nl;
		v->cap = cap;
	}
	v->len[v->n++] = n;
	return 0;
}

/* A string at s->p (on its opening quote).  When key is non-NULL the
 * string's leading run of printable ASCII is stored there (enough to name
 * a field, a prefix of what the text says, and safe on a terminal). */
static int scan_string(struct scan *s, char *key, size_t keylen)
{
	size_t k = 0, n = 0;
	int rc, verbatim = 1; /* the key prefix stops at its first escape or unprintable byte */

	s->p++;
	while (s->p < s->end) {
		unsigned char c = *s->p;
		size_t u;

		if (c == '"') {
			s->p++;
			if (key)
				key[k] = '\0';
			return record_len(s, n);
		}
		if (c == '\\') {
			verbatim = 0;
			rc = scan_escape(s, &n);
			if (rc)
				return rc;
			continue;
		}
		if (c == '\0')
			return fail(s, "NUL byte not allowed");
		if (c < 0x20)
			return fail(s, "control byte 0x%02x in a string (it must be escaped)", c);
		u = utf8_len(s->p, (size_t)(s->end - s->p), NULL);
		if (u == 0)
			return fail(s, "invalid UTF-8");
		verbatim &= c >= 0x20 && c < 0x7f;
		if (key && verbatim && k + 1 < keylen)
			key[k++] = (char)c;
		s->p += u;
		n += u;
	}
	return fail(s, "unterminated string");
}

static int digits(struct scan *s)
{
	const unsigned char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > start ? 0 : -1;
}

/* number = [ "-" ] ( "0" / 1-9 *DIGIT ) [ "." 1*DIGIT ] [ ("e"/"E") ["+"/"-"] 1*DIGIT ] */
static int scan_number(struct scan *s)
{
	const unsigned char *start = s->p, *whole;

	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0') {
		s->p++;
		if (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
			s->p = start;
			return fail(s, "malformed number (a leading zero)");
		}
	} else if (digits(s) < 0) {
		goto bad;
	}
	whole = s->p;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (digits(s) < 0)
			goto bad;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s) < 0)
			goto bad;
	}
	/* cJSON reads at most 63 characters of a number; a longer one would be
	 * read differently (or not at all), so it is refused here. */
	if (s->p - start > JSCAN_NUMBER_MAX) {
		s->p = start;
		return fail(s, "number longer than %d characters", JSCAN_NUMBER_MAX);
	}
	if ((s->flags & JSCAN_INTEGERS) && s->p != whole) {
		s->p = start;
		return fail(s, "must be an integer (written without a fraction or an exponent)");
	}
	return 0;
bad:
	s->p = start;
	return fail(s, "malformed number");
}

static int scan_literal(struct scan *s)
{
	static const char *const lits[] = {"true", "false", "null"};

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);

		if ((size_t)(s->end - s->p) >= n && memcmp(s->p, lits[i], n) == 0) {
			s->p += n;
			return 0;
		}
	}
	return fail_unexpected(s, "a value");
}

static int scan_value(struct scan *s);

static int scan_member(struct scan *s, struct frame *f)
{
	char key[sizeof(f->key)];
	int rc;

	f->key[0] = '\0'; /* an error before the key is read names the object */
	skip_ws(s);
	if (s->p >= s->end || *s->p != '"')
		return fail_unexpected(s, "a key");
	rc = scan_string(s, key, sizeof(key));
	if (rc)
		return rc;
	memcpy(f->key, key, sizeof(key));
	skip_ws(s);
	if (s->p >= s->end || *s->p != ':')
		return fail_unexpected(s, "':'");
	s->p++;
	return scan_value(s);
}

static int scan_container(struct scan *s, int is_array)
{
	char close = is_array ? ']' : '}';
	struct frame *f;
	int rc;

	if (s->depth >= JSCAN_DEPTH)
		return fail(s, "nested deeper than %d levels", JSCAN_DEPTH);
	f = &s->st[s->depth++];
	*f = (struct frame){.is_array = is_array};
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		s->depth--;
		return 0;
	}
	for (;;) {
		rc = is_array ? scan_value(s) : scan_member(s, f);
		if (rc)
			return rc;
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			f->index++;
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			s->depth--;
			return 0;
		}
		return fail_unexpected(s, is_array ? "',' or ']'" : "',' or '}'");
	}
}

static int scan_value(struct scan *s)
{
	skip_ws(s);
	if (s->p >= s->end)
		return fail_unexpected(s, "a value");
	switch (*s->p) {
	case '{':
		return scan_container(s, 0);
	case '[':
		return scan_container(s, 1);
	case '"':
		return scan_string(s, NULL, 0);
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return scan_number(s);
	default:
		return scan_literal(s);
	}
}

int jscan_check(const char *text, size_t len, struct jscan_strings *strs,
		char *err, size_t errlen)
{
	return jscan_check_flags(text, len, 0, strs, err, errlen);
}

int jscan_check_flags(const char *text, size_t len, unsigned flags,
		      struct jscan_strings *strs, char *err, size_t errlen)
{
	struct scan s = {
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.base = (const unsigned char *)text,
		.strs = strs,
		.flags = flags,
		.err = err,
		.errlen = errlen,
	};
	int rc;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		return fail(&s, "starts with a UTF-8 byte order mark (send the JSON without one)");
	rc = scan_value(&s);
	if (rc)
		return rc;
	skip_ws(&s);
	if (s.p != s.end)
		return fail_unexpected(&s, "the end of the request: trailing bytes after the value");
	return 0;
}
