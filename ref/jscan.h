/* jscan.h - the one definition of what request text is.
 *
 * A request is read by two parsers: this strict validator, which decides
 * whether the text is acceptable, and cJSON, which builds the tree the
 * request is taken from.  cJSON is lenient where a sandbox cannot be: it
 * treats every byte up to 0x20 as whitespace, decodes "\u0000" and then cuts
 * the string there (hiding whatever followed, a ".." included), and does not
 * validate UTF-8.  So jscan accepts exactly RFC 8259 JSON with no NUL
 * anywhere, valid UTF-8 only and paired surrogates only, and the caller
 * refuses what it refuses before cJSON sees a byte.  As a second line, jscan
 * records the decoded length of every string (keys included) in document
 * order; the caller compares them with the strings cJSON built, so the two
 * parsers cannot silently disagree about a value. */
#ifndef SANDPROOF_JSCAN_H
#define SANDPROOF_JSCAN_H

#include <stddef.h>

#define JSCAN_DEPTH 64 /* containers nested deeper are refused */
#define JSCAN_NUMBER_MAX 63 /* characters; longer numbers are refused */

/* Decoded byte lengths of the strings of one document, in document order
 * (an object's key before its value).  Owned by the caller: start it zeroed,
 * release it with jscan_strings_free(). */
struct jscan_strings {
	size_t *len;
	size_t n, cap;
};

/* Validate text[0..len) as one JSON value.  Returns 0, -EINVAL with err
 * holding "<path>: <reason> (byte N)" (path as in "command[0]" or
 * "profile.filesystem", "request" at the top), or -ENOMEM.  strs may be
 * NULL when the lengths are not wanted. */
int jscan_check(const char *text, size_t len, struct jscan_strings *strs,
		char *err, size_t errlen);

/* jscan_check with JSCAN_INTEGERS: every number must also be a JSON integer
 * (no fraction, no exponent), so a request whose numbers are all integer
 * fields never has `1.0`, `1e2` or an underflow like `1e-400` (which reads
 * as 0: "no timeout") taken as an integer. */
#define JSCAN_INTEGERS 0x1u
int jscan_check_flags(const char *text, size_t len, unsigned flags,
		      struct jscan_strings *strs, char *err, size_t errlen);

void jscan_strings_free(struct jscan_strings *strs);

#endif
