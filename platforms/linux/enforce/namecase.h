/* namecase.h - how the volume holding a directory matches names (META-6).
 *
 * A protected name is a name as the volume matches it: on a volume that
 * folds case (exFAT, vfat, an ext4/f2fs/tmpfs directory with the casefold
 * flag, a FUSE file system whose daemon folds), .GIT/HOOKS is .git/hooks.
 * The runner decides how each directory it looks names up in matches them,
 * once, at setup (before the command and before the changes baseline), and
 * acts on it: the create monitor compares names as the volume does
 * (namecase_equal), and where every spelling is an object of its own in
 * the kernel (FUSE: the kernel's dentry cache compares bytes, the daemon
 * folds) the mounts and watches are repeated on every spelling
 * (namecase_spellings), since a bind mount or an inotify watch holds one
 * kernel object.
 *
 * The decision (namecase_probe), per directory:
 *   - ext4, f2fs, tmpfs: byte for byte unless the directory has the casefold
 *     flag (FS_IOC_GETFLAGS); then, or when the flag cannot be read, probed;
 *   - btrfs, overlayfs, squashfs, erofs: byte for byte (none folds names);
 *   - anything else (FUSE, XFS, which has an ASCII-ci format, vfat, NFS,
 *     9p, ...): probed.
 * The probe creates a fresh file (O_EXCL, mode 0) in the directory, looks
 * it up under spellings that fold in the families below, and removes it;
 * a spelling found means the volume folds that family.  A directory that
 * cannot be probed (read-only, no permission) cannot be decided: the run is
 * refused (fail closed).  The families modelled are ASCII case, the
 * non-ASCII letters that case-map to ASCII ones (dotless and dotted i, long
 * s, Kelvin sign) and trailing dots and spaces (Windows' and vfat's); a
 * volume folding fullwidth letters (compatibility normalisation) folds
 * something not modelled and is refused.  An equivalence outside every
 * probed family (a FUSE daemon is arbitrary code) is not seen: a limit. */
#ifndef SANDPROOF_NAMECASE_H
#define SANDPROOF_NAMECASE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum {
	NC_ASCII = 1u << 0,     /* a..z and A..Z */
	NC_DOTTED_I = 1u << 1,  /* U+0131 dotless i and U+0130 dotted I as i */
	NC_LONG_S = 1u << 2,    /* U+017F long s as s */
	NC_KELVIN = 1u << 3,    /* U+212A Kelvin sign as k */
	NC_TRAILING = 1u << 4,  /* trailing dots and spaces ignored */
	NC_OTHER = 1u << 5,     /* fullwidth letters: not modelled */
};

struct namecase {
	unsigned fold;  /* the families the volume folds; 0: byte for byte */
	bool separate;  /* each spelling is its own kernel object (FUSE, or a
			 * spelling found with another inode number) */
};

/* The decisions of one run, by directory (by volume where the decision is
 * the volume's), so a volume is probed once. */
#define NAMECASE_CACHE 32
struct namecase_cache {
	struct {
		dev_t dev;
		ino_t ino; /* 0: the whole volume */
		struct namecase nc;
	} v[NAMECASE_CACHE];
	size_t n;
	bool folded; /* some directory decided folds names */
};

/* How the volume of the directory dfd (O_PATH is fine) matches names; path
 * names it in err.  0, or -errno with err saying why it cannot be decided
 * (the caller refuses the run). */
int namecase_probe(struct namecase_cache *c, int dfd, const char *path,
		   struct namecase *out, char *err, size_t errlen);

/* For a mount on dir/comp, which exists (mounts_alias.c): whether dir is
 * a FUSE volume that folds comp, found by looking up comp's own variants in
 * each family (comp with every ASCII letter's case flipped, with a
 * trailing dot or space, its first i, s, k or letter as the non-ASCII or
 * fullwidth one) - nothing is created.  Elsewhere out->fold is 0: a kernel
 * file system that folds names folds them in its dentry cache, where a
 * mount on one spelling holds them all.  0 or -errno with err. */
int namecase_probe_name(struct namecase_cache *c, int dfd, const char *dir,
			const char *comp, struct namecase *out, char *err, size_t errlen);

/* Whether the volume nc describes can be enforced on for the name
 * component comp (no '/'), and if not, err says why (-EOPNOTSUPP): a
 * folding family not modelled, a non-ASCII name on a folding volume
 * (which names equal it is not known), or, where spellings are separate
 * objects, a family whose spellings cannot be listed (all but ASCII). */
int namecase_check(const struct namecase *nc, const char *dir, const char *comp,
		   char *err, size_t errlen);

/* Whether names a and b (components, no '/') are one name under fold. */
bool namecase_equal(unsigned fold, const char *a, const char *b);

/* Every spelling of the ASCII name component comp under NC_ASCII, comp
 * itself first, to fn(ctx, spelling) until fn returns non-zero (which is
 * returned).  -E2BIG (nothing called) when there are more than max. */
int namecase_spellings(const char *comp, size_t max,
		       int (*fn)(void *ctx, const char *spelling), void *ctx);

#endif
