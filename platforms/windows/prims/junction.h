/* junction.h - NTFS junctions (mount points) for the harness's Windows race
 * primitives: windows build only (mingw), over reparse.h's bytes.  Paths
 * are UTF-8 DOS paths; targets follow reparse_encode_junction's rules.
 *
 * Every function returns 0 or -errno; the Win32 error behind the last
 * failure is winjct_last_error() (one value per process: the harness is
 * single-threaded where it calls these).  What a file system lacks is
 * -EOPNOTSUPP: ERROR_NOT_SUPPORTED (Wine 8: every reparse FSCTL) and
 * ERROR_INVALID_FUNCTION (a file system without reparse points, FAT). */
#ifndef SANDPROOF_JUNCTION_H
#define SANDPROOF_JUNCTION_H

#include "reparse.h"

/* Make path a new empty directory that is a junction to target.  path
 * must not exist (-EEXIST).  On failure the directory made here is
 * removed (only when still empty: nothing else is ever deleted). */
int winjct_create(const char *path, const char *target);

/* Read the reparse point of path itself (never followed): a mount point
 * or a symbolic link, decoded (reparse_link_free it).  -EINVAL when path
 * is not a reparse point, or another kind, or its buffer does not decode. */
int winjct_read(const char *path, struct reparse_link *out);

/* Point the junction at path to target in one FSCTL_SET_REPARSE_POINT:
 * NTFS replaces a reparse point's data when the tag is the same, so an
 * open through path sees the old target or the new one, never neither.
 * -EINVAL when path is not a junction (checked through the same handle). */
int winjct_retarget(const char *path, const char *target);

/* Remove the mount point of the junction at path (FSCTL_DELETE_REPARSE_POINT),
 * leaving an empty plain directory.  -EINVAL when path is not a junction. */
int winjct_unmount(const char *path);

/* Delete the junction at path (the link, never the target's content): the
 * handle that checked it is a junction is the one marked for deletion, so
 * a directory swapped in after the check is never the one removed.
 * -EINVAL when path is not a junction. */
int winjct_delete(const char *path);

/* Exchange the names a and b (same directory or volume): a -> aside, b ->
 * a, aside -> b, with MoveFileExW (never replacing).  Windows has no
 * atomic exchange: between the first two renames a is absent, between the
 * last two b is absent; an open in that window fails with "not found",
 * never reaches a third object.  The aside name is a + ".sp-swap" and
 * must not exist.  On a failed step the steps done are undone (-errno of
 * the failed step; -ESTALE when an undo failed too, names left as they
 * are). */
int winjct_swap(const char *a, const char *b);

/* The Win32 error of the last failure of a winjct_ or winoplock_ call. */
unsigned long winjct_last_error(void);

#endif
