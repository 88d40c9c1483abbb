/* sha256.h - SHA-256 (FIPS 180-4), written from the standard.
 *
 * Used to derive runtime root names and plan digests; not a general crypto
 * library (no constant-time guarantees are needed or given: every input is
 * a path or a plan text the caller already knows). */
#ifndef SANDPROOF_SHA256_H
#define SANDPROOF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

struct sha256_ctx {
	uint32_t h[8];
	uint64_t len;        /* message bytes so far */
	uint8_t buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t n);
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);

/* One-shot digest of data[0..n). */
void sha256_digest(const void *data, size_t n, uint8_t out[SHA256_DIGEST_LEN]);

/* Lowercase hex of a digest into hex (SHA256_HEX_LEN + 1 bytes, NUL-terminated). */
void sha256_hex(const uint8_t d[SHA256_DIGEST_LEN], char hex[SHA256_HEX_LEN + 1]);

#endif
