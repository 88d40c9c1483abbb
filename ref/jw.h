/* jw.h - a minimal streaming JSON writer.
 *
 * Writes straight to a FILE* so that emitting a megabyte of captured output
 * never needs a second, escaped copy of it in memory.  Strings are written
 * binary-safe: bytes that are not valid UTF-8 become U+FFFD, control
 * characters are escaped.  Captured output that must stay lossless uses
 * jw_text_len() to choose between a JSON string and jw_base64().  Callers
 * place commas; jw tracks nothing. */
#ifndef SANDPROOF_JW_H
#define SANDPROOF_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jw {
	FILE *f;
	int need_comma[32];
	int depth;
};

void jw_init(struct jw *w, FILE *f);
void jw_obj_open(struct jw *w, const char *key);   /* key NULL in arrays/top */
void jw_obj_close(struct jw *w);
void jw_arr_open(struct jw *w, const char *key);
void jw_arr_close(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *s);
void jw_strn(struct jw *w, const char *key, const char *s, size_t n);
void jw_int(struct jw *w, const char *key, int64_t v);
void jw_uint(struct jw *w, const char *key, uint64_t v);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
/* A string value whose body the caller writes to w->f itself (base64). */
void jw_raw_open(struct jw *w, const char *key);
void jw_raw_close(struct jw *w);

/* Escape s[0..n) as the body of a JSON string (no quotes) into f. */
void jw_escape(FILE *f, const char *s, size_t n);

/* The size jw_escape() gives s[0..n) when s is valid UTF-8; SIZE_MAX when
 * it is not (jw_escape would then replace bytes: the text is not lossless). */
size_t jw_text_len(const char *s, size_t n);

/* n, less the bytes of a multi-byte UTF-8 sequence that s[0..n) ends in
 * the middle of (a character cut by truncation): at most 3 bytes go. */
size_t jw_utf8_complete(const char *s, size_t n);

/* Standard base64 (RFC 4648, padded) of s[0..n), no quotes, into f:
 * exactly 4 * ceil(n / 3) bytes. */
void jw_base64(FILE *f, const char *s, size_t n);
#define JW_BASE64_LEN(n) (4 * (((n) + 2) / 3))

#endif
