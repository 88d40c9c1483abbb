/* sbpl_variants.h - other spellings of a guarded path, for the contract
 * check on a volume that folds names (test_sbpl_contract --fold).
 *
 * variants_of() gives spellings of path that the volume takes to be path
 * itself (each checked with namefold_same, never assumed): the whole path
 * and its last component in upper and in lower case, each letter of the
 * last component in the other case, and every spelling of one position of
 * the last component's key by another code point with the same key
 * (U+212A for k, U+00DF for ss, U+FB01 for fi, U+00E9 for e + U+0301, a
 * Hangul syllable for its jamo...), with the rest spelled as the key.  At
 * most VARIANTS_MAX, the first ones in that order. */
#ifndef SANDPROOF_SBPL_VARIANTS_H
#define SANDPROOF_SBPL_VARIANTS_H

#include <stddef.h>

#include "namefold.h"

#define VARIANTS_MAX 48

struct variants {
	char *v[VARIANTS_MAX];
	size_t n;
	size_t dropped; /* found past VARIANTS_MAX */
};

/* 0, or -ENOMEM; out filled (free with variants_free). */
int variants_of(const struct namefold_index *ix, const char *path, struct variants *out);
void variants_free(struct variants *v);

#endif
