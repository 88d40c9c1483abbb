/* sbpl_int.h - what the generator's files share (private to sp_sbpl).
 *
 * sbpl_text.c: a growing text buffer with a sticky error, SBPL string
 * quoting, and the lint.  sbpl_path.c: the canonical-spelling and length
 * checks every policy path passes before it reaches a profile. */
#ifndef SANDPROOF_SBPL_INT_H
#define SANDPROOF_SBPL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "namefold.h"
#include "sbpl.h"

/* A NUL-terminated text that grows; err is the first failure (-ENOMEM),
 * after which every append is a no-op, so emitters need not check each
 * call: the caller checks err once at the end. */
struct sbpl_buf {
	char *s;
	size_t len;
	size_t cap;
	int err;
};

void sbpl_buf_add(struct sbpl_buf *b, const char *s);
void sbpl_buf_addf(struct sbpl_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s as an SBPL string literal: in double quotes, '"' and '\\' escaped.
 * (Control bytes never get here: sbpl_path_check refuses them.) */
void sbpl_buf_quoted(struct sbpl_buf *b, const char *s);
void sbpl_buf_free(struct sbpl_buf *b);

/* Write a message into err (SBPL_ERR_MAX bytes) and return rc. */
int sbpl_fail(char *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A path as Seatbelt will match it.  0, or with err naming field:
 *   -EINVAL  not absolute; a "//", "/./", "..", "." or trailing "/"
 *            spelling; /tmp, /var or /etc (any case) or beneath them
 *            (macOS symlinks to /private/...); a control byte;
 *   -ENAMETOOLONG  longer than SBPL_LITERAL_MAX bytes (it lands in the
 *            profile as a string). */
int sbpl_path_check(const char *path, const char *field, char *err);

/* Every spelling ix's folding (NULL: none, bytes as they are) calls the
 * same as path, and its spelling across a firmlink, as one regex
 * (sbpl_fold.c): "^...$", or "^...(/.*)?$" with subpath (the path and
 * everything beneath it, as the subpath filter).  Appended to out; 0 or
 * -ENOMEM / -EPROTO. */
int sbpl_fold_regex(const struct namefold_index *ix, const char *path, bool subpath,
		    struct sbpl_buf *out);

/* path is reached through a firmlink too (/Users/x and
 * /System/Volumes/Data/Users/x are one file). */
bool sbpl_path_firmlinked(const char *path);

/* Whether p is root or lies beneath it (by whole components). */
bool sbpl_path_beneath(const char *root, const char *p);

#endif
