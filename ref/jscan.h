/* jscan.h - raw-text checks cJSON does not make.
 *
 * cJSON accepts a "\u0000" escape and silently truncates the string there,
 * and it does not validate UTF-8.  A request whose path or argument could be
 * cut short by a NUL is refused before it is interpreted, with the JSON path
 * of the offending string, so the error names the field like every other. */
#ifndef SANDPROOF_JSCAN_H
#define SANDPROOF_JSCAN_H

#include <stddef.h>

/* Scan well-formed JSON text (it must already have parsed).  Returns 0, or
 * -EINVAL with err holding "<path>: <reason>" for a raw NUL byte, invalid
 * UTF-8, or a \u0000 escape inside a string. */
int jscan_check(const char *text, size_t len, char *err, size_t errlen);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if s[0..n) does not
 * start with one.  Overlong forms, surrogates and values past U+10FFFF are
 * invalid. */
size_t jscan_utf8_len(const unsigned char *s, size_t n);

#endif
