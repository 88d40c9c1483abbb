/* jw.c - see jw.h. */
#include "jw.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "utf8.h"

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->need_comma[0] = 0;
}

void jw_escape(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned char c = *p;
		size_t len;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			p++;
		} else if (c == '\n') {
			fputs("\\n", f);
			p++;
		} else if (c == '\t') {
			fputs("\\t", f);
			p++;
		} else if (c == '\r') {
			fputs("\\r", f);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
		} else if ((len = utf8_len(p, (size_t)(end - p), NULL)) == 0) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for one bad byte */
			p++;
		} else {
			fwrite(p, 1, len, f);
			p += len;
		}
	}
}

size_t jw_text_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t out = 0, len;

	while (p < end) {
		unsigned char c = *p;

		if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			out += 2;
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			out += 6;
			p++;
		} else if ((len = utf8_len(p, (size_t)(end - p), NULL)) == 0) {
			return SIZE_MAX;
		} else {
			out += len;
			p += len;
		}
	}
	return out;
}

size_t jw_utf8_complete(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t lead = n, need;

	/* Back over at most three continuation bytes to the sequence's lead. */
	while (lead > 0 && n - lead < 3 && (p[lead - 1] & 0xc0) == 0x80)
		lead--;
	if (lead == 0)
		return n;
	lead--;
	need = utf8_seq_len(p[lead]);
	return need > 1 && n - lead < need ? lead : n;
}

void jw_base64(FILE *f, const char *s, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	char out[4096];
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (left > 2)
			v |= p[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = left > 1 ? tab[(v >> 6) & 63] : '=';
		out[o++] = left > 2 ? tab[v & 63] : '=';
		if (o == sizeof(out)) {
			fwrite(out, 1, o, f);
			o = 0;
		}
	}
	fwrite(out, 1, o, f);
}

static void key(struct jw *w, const char *k)
{
	if (w->need_comma[w->depth])
		fputc(',', w->f);
	w->need_comma[w->depth] = 1;
	if (k) {
		fputc('"', w->f);
		jw_escape(w->f, k, strlen(k));
		fputs("\":", w->f);
	}
}

static void open_(struct jw *w, const char *k, char c)
{
	key(w, k);
	fputc(c, w->f);
	if (w->depth < 31)
		w->depth++;
	w->need_comma[w->depth] = 0;
}

void jw_obj_open(struct jw *w, const char *k) { open_(w, k, '{'); }
void jw_arr_open(struct jw *w, const char *k) { open_(w, k, '['); }

void jw_obj_close(struct jw *w)
{
	fputc('}', w->f);
	if (w->depth > 0)
		w->depth--;
}

void jw_arr_close(struct jw *w)
{
	fputc(']', w->f);
	if (w->depth > 0)
		w->depth--;
}

void jw_strn(struct jw *w, const char *k, const char *s, size_t n)
{
	key(w, k);
	fputc('"', w->f);
	jw_escape(w->f, s, n);
	fputc('"', w->f);
}

void jw_str(struct jw *w, const char *k, const char *s)
{
	if (!s) {
		jw_null(w, k);
		return;
	}
	jw_strn(w, k, s, strlen(s));
}

void jw_int(struct jw *w, const char *k, int64_t v)
{
	key(w, k);
	fprintf(w->f, "%" PRId64, v);
}

void jw_uint(struct jw *w, const char *k, uint64_t v)
{
	key(w, k);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_bool(struct jw *w, const char *k, bool v)
{
	key(w, k);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *k)
{
	key(w, k);
	fputs("null", w->f);
}

void jw_raw_open(struct jw *w, const char *k)
{
	key(w, k);
	fputc('"', w->f);
}

void jw_raw_close(struct jw *w)
{
	fputc('"', w->f);
}
