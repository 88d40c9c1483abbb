/* mountid.h - which mount an object is on, to stop a walk or a delete at
 * every mount point below where it started (OUT-8's change walk, RT-6's
 * eviction).
 *
 * Where the build has them (SANDPROOF_HAVE_STATX_MNT_ID: Linux), the
 * kernel's mount id (statx STATX_MNT_ID): every mount has its own, a bind
 * mount of the same file system included, which a device number cannot
 * tell apart.  A kernel that gives no mount id is refused (-ENOTSUP), so a
 * caller treats the object as on another mount: never entered, never
 * deleted through.  Elsewhere, the device number (macOS and Windows have no
 * bind mounts; a Windows junction is a reparse point, never entered).
 *
 * Both return 0 with *id set, or -errno. */
#ifndef SANDPROOF_MOUNTID_H
#define SANDPROOF_MOUNTID_H

#include <stdint.h>

/* The mount of name in the directory dfd, not following a final symlink
 * (a mount point gives the mounted file system's mount). */
int mountid_at(int dfd, const char *name, uint64_t *id);
/* The mount of the object fd is open on. */
int mountid_fd(int fd, uint64_t *id);

#endif
