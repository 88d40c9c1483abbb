/* reparse.h - NTFS reparse buffers as bytes: the mount point (junction) and
 * the symbolic link forms of REPARSE_DATA_BUFFER, encoded and decoded in
 * portable C (no windows.h), so they are built and golden-tested on every
 * OS; the Windows primitives (junction.h) hand these bytes to
 * FSCTL_SET_REPARSE_POINT and read FSCTL_GET_REPARSE_POINT's through them.
 *
 * The layout (little-endian throughout, offsets in bytes):
 *
 *   0  u32 ReparseTag          REPARSE_TAG_MOUNT_POINT or REPARSE_TAG_SYMLINK
 *   4  u16 ReparseDataLength   bytes after this 8-byte header
 *   6  u16 Reserved            0
 *   8  u16 SubstituteNameOffset  \  relative to PathBuffer,
 *  10  u16 SubstituteNameLength   | lengths without the
 *  12  u16 PrintNameOffset        | terminating NUL
 *  14  u16 PrintNameLength       /
 *  16  u32 Flags               symlink only (REPARSE_SYMLINK_RELATIVE)
 *  16 (mount point) / 20 (symlink): PathBuffer, UTF-16LE
 *
 * The encoders write what NTFS and the Windows tools write: the substitute
 * name first at offset 0, then its NUL, then the print name and its NUL
 * (each counted in ReparseDataLength, neither in its name's length).
 *
 * The decoder trusts nothing: every length and offset is checked against
 * the buffer before a byte of a name is read (a hostile buffer read back
 * from a file system is refused, never read past); names must be even
 * lengths of valid UTF-16 without an embedded NUL.  It is fuzzed
 * (tests/fuzz/fuzz_reparse.c). */
#ifndef SANDPROOF_REPARSE_H
#define SANDPROOF_REPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPARSE_TAG_MOUNT_POINT 0xA0000003u /* IO_REPARSE_TAG_MOUNT_POINT */
#define REPARSE_TAG_SYMLINK 0xA000000Cu     /* IO_REPARSE_TAG_SYMLINK */
#define REPARSE_SYMLINK_RELATIVE 0x1u       /* SYMLINK_FLAG_RELATIVE */
#define REPARSE_HEADER_SIZE 8u              /* REPARSE_DATA_BUFFER_HEADER_SIZE */
#define REPARSE_MAX_SIZE (16u * 1024)       /* MAXIMUM_REPARSE_DATA_BUFFER_SIZE */

/* A decoded link; both names UTF-8, owned (reparse_link_free). */
struct reparse_link {
	uint32_t tag;     /* REPARSE_TAG_MOUNT_POINT or REPARSE_TAG_SYMLINK */
	uint32_t flags;   /* symlink: its Flags; mount point: 0 */
	char *substitute; /* what the I/O manager follows: "\??\C:\x" */
	char *print;      /* what a listing shows: "C:\x" (may be "") */
};

/* Encode a junction to target, an absolute DOS path "X:\a\b" (UTF-8):
 * "X:\" then names separated by single '\', no "." or "..", no trailing
 * '\' but the root's, no '/', no control character and none of <>:"|?*
 * in a name.  Substitute name "\??\" + target, print name target.  *len
 * receives the whole buffer's size (header included: what
 * FSCTL_SET_REPARSE_POINT is given).  0, -EINVAL (NULL, a target breaking
 * a rule above, invalid UTF-8), -ENAMETOOLONG (over REPARSE_MAX_SIZE),
 * -ENOSPC (cap too small; *len then says how much is needed). */
int reparse_encode_junction(const char *target, uint8_t *buf, size_t cap, size_t *len);

/* Encode a symbolic link.  Absolute (relative false): target follows the
 * junction rules, substitute "\??\" + target, print target, Flags 0.
 * Relative: target is names separated by '\' ("..\x" allowed), neither
 * empty nor starting with '\' nor a drive; substitute and print both
 * target, Flags REPARSE_SYMLINK_RELATIVE.  Errors as above. */
int reparse_encode_symlink(const char *target, bool relative, uint8_t *buf, size_t cap,
			   size_t *len);

/* The tag of a buffer of n bytes (n >= REPARSE_HEADER_SIZE): 0 or -EINVAL. */
int reparse_tag(const uint8_t *buf, size_t n, uint32_t *tag);

/* Decode a mount point or symbolic link buffer of n bytes (what
 * FSCTL_GET_REPARSE_POINT returned; bytes past the header's
 * ReparseDataLength are ignored).  0 and *out (free it), or -EINVAL: NULL,
 * another tag, a header or a name that does not fit in ReparseDataLength
 * or ReparseDataLength in n, odd offsets or lengths, Reserved not 0, an
 * embedded NUL, an unpaired surrogate; -ENOMEM.  On error *out is zeroed. */
int reparse_decode(const uint8_t *buf, size_t n, struct reparse_link *out);

void reparse_link_free(struct reparse_link *l);

/* The DOS path a substitute name "\??\X:\..." names ("X:\..."), a pointer
 * into sub; NULL for any other form (a volume GUID, a relative name). */
const char *reparse_nt_to_dos(const char *sub);

#endif
