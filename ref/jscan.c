/* jscan.c - see jscan.h.  A single pass over text that cJSON has already
 * accepted, tracking the path (object keys and array indices) so an error can
 * name the field.  Being a second reader of the same bytes, it assumes they
 * are well-formed JSON and stops with an error at anything it does not
 * expect rather than guessing. */
#include "jscan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define JSCAN_DEPTH 64

struct frame {
	int is_array;
	long index;
	char key[64];
};

struct scan {
	const unsigned char *p, *end, *base;
	struct frame st[JSCAN_DEPTH];
	int depth;
	char *err;
	size_t errlen;
};

size_t jscan_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
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

static int fail(struct scan *s, const char *why)
{
	char path[256];

	path_format(s, path, sizeof(path));
	snprintf(s->err, s->errlen, "%s: %s (byte %ld)", path, why,
		 (long)(s->p - s->base));
	return -EINVAL;
}

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
				 *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* Scan a string at s->p (on its opening quote).  When key is non-NULL the
 * decoded prefix (ASCII only; enough to name a field) is stored there. */
static int scan_string(struct scan *s, char *key, size_t keylen)
{
	size_t k = 0;

	s->p++;
	while (s->p < s->end) {
		unsigned char c = *s->p;

		if (c == '"') {
			s->p++;
			if (key)
				key[k] = '\0';
			return 0;
		}
		if (c == '\\') {
			if (s->end - s->p >= 6 && s->p[1] == 'u' &&
			    memcmp(s->p + 2, "0000", 4) == 0)
				return fail(s, "NUL character (\\u0000) not allowed");
			s->p += (s->end - s->p >= 2 && s->p[1] == 'u') ? 6 : 2;
			continue;
		}
		if (c == '\0')
			return fail(s, "NUL byte not allowed");
		size_t n = jscan_utf8_len(s->p, (size_t)(s->end - s->p));
		if (n == 0)
			return fail(s, "invalid UTF-8");
		if (key && k + 1 < keylen && n == 1)
			key[k++] = (char)c;
		s->p += n;
	}
	return fail(s, "unterminated string");
}

static int scan_value(struct scan *s);

static int scan_container(struct scan *s, int is_array)
{
	struct frame *f;
	int rc;

	if (s->depth >= JSCAN_DEPTH)
		return fail(s, "nested too deeply");
	f = &s->st[s->depth++];
	f->is_array = is_array;
	f->index = 0;
	f->key[0] = '\0';
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == (is_array ? ']' : '}')) {
		s->p++;
		s->depth--;
		return 0;
	}
	for (;;) {
		skip_ws(s);
		if (!is_array) {
			if (s->p >= s->end || *s->p != '"')
				return fail(s, "expected a key");
			rc = scan_string(s, f->key, sizeof(f->key));
			if (rc)
				return rc;
			skip_ws(s);
			if (s->p >= s->end || *s->p != ':')
				return fail(s, "expected ':'");
			s->p++;
		}
		rc = scan_value(s);
		if (rc)
			return rc;
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			f->index++;
			continue;
		}
		if (s->p < s->end && *s->p == (is_array ? ']' : '}')) {
			s->p++;
			s->depth--;
			return 0;
		}
		return fail(s, "expected ',' or end of container");
	}
}

static int scan_value(struct scan *s)
{
	skip_ws(s);
	if (s->p >= s->end)
		return fail(s, "unexpected end of input");
	switch (*s->p) {
	case '{':
		return scan_container(s, 0);
	case '[':
		return scan_container(s, 1);
	case '"':
		return scan_string(s, NULL, 0);
	default:
		/* numbers, true, false, null: cJSON validated them */
		while (s->p < s->end && *s->p != ',' && *s->p != ']' &&
		       *s->p != '}' && *s->p != ' ' && *s->p != '\n' &&
		       *s->p != '\t' && *s->p != '\r') {
			if (*s->p == '\0')
				return fail(s, "NUL byte not allowed");
			s->p++;
		}
		return 0;
	}
}

int jscan_check(const char *text, size_t len, char *err, size_t errlen)
{
	struct scan s = {
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.base = (const unsigned char *)text,
		.err = err,
		.errlen = errlen,
	};
	int rc = scan_value(&s);

	if (rc)
		return rc;
	skip_ws(&s);
	if (s.p != s.end)
		return fail(&s, "malformed JSON: trailing bytes after the value");
	return 0;
}
