/* utf8.h - the project's one UTF-8 rule.
 *
 * A leaf module of portable C with no dependency, which every layer may use
 * (docs/ARCHITECTURE.md): the request validator, the outcome writer, the
 * in-sandbox probe and the reports all decide "is this UTF-8?" here, so
 * what the runner refuses, what it escapes and what a report shows can
 * never disagree about a byte. */
#ifndef SANDPROOF_UTF8_H
#define SANDPROOF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* How long a sequence starting with this byte is (1..4), or 0 when it can
 * start none (a continuation byte, 0xc0, 0xc1, 0xf5..0xff). */
size_t utf8_seq_len(unsigned char lead);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when s[0..n) does
 * not start with one (n >= 1).  Overlong forms, surrogates and values past
 * U+10FFFF are invalid.  When cp is not NULL it receives the code point of
 * a valid sequence. */
size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp);

#endif
