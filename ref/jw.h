/* jw.h - a minimal streaming JSON writer.
 *
 * Writes straight to a FILE* so that emitting a megabyte of captured output
 * never needs a second, escaped copy of it in memory.  Strings are written
 * binary-safe: bytes that are not valid UTF-8 become U+FFFD, control
 * characters are escaped.  Callers place commas; jw tracks nothing. */
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

/* Escape s[0..n) as the body of a JSON string (no quotes) into f. */
void jw_escape(FILE *f, const char *s, size_t n);

#endif
