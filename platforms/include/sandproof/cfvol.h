/* cfvol.h - a case-insensitive volume for a scenario's workspace (the
 * primitives seam; t:casefold_workspace, docs/SCENARIOS.md).
 *
 * cfvol_make() makes a file system that matches names case-insensitively
 * and keeps their case, and mounts it on an existing empty directory, for
 * the calling process and everything it starts afterwards.
 *   Linux: exFAT (mkfs.exfat, Debian exfatprogs) on a sparse image file,
 *   attached to a free loop device with autoclear, mounted through FUSE
 *   (mount.exfat-fuse, Debian exfat-fuse): a kernel need have no in-kernel
 *   exFAT, vfat or casefold.  It needs root (a loop device, a block-device
 *   FUSE mount).  Every other OS: -EOPNOTSUPP.
 *
 * Lifetime, and the reason for it: the mount is made in a mount namespace
 * of the calling process's own (unshared, propagation private), so nothing
 * of it reaches the host's mount table; the FUSE daemon runs in the
 * foreground as the caller's child under PR_SET_PDEATHSIG, and is left a
 * namespace of its own without the volume (a block-device FUSE file system
 * whose last mount its own daemon's exit drops waits for that daemon:
 * unkillable, the loop device kept).  So once the caller and its
 * descendants are gone - killed at a scenario's timeout, or with the
 * harness, included - the daemon is gone, the kernel drops the mount, the
 * file system lets the loop device go, and the loop device, attached with
 * autoclear, detaches itself.  cfvol_end() does the same in order and
 * checks it happened: the mount gone and the loop device no longer bound
 * to the image.  The caller must be single-threaded (it moves to new mount
 * namespaces; they are its own and its children's from then on).
 *
 * Errors (-errno, err says what): -EPERM not root; -ENOENT a tool or
 * /dev/fuse, /dev/loop-control missing; -EOPNOTSUPP no such volume on this
 * OS, or the volume made does not match names case-insensitively; others
 * from the steps (err names the step). */
#ifndef SANDPROOF_CFVOL_H
#define SANDPROOF_CFVOL_H

#include <stddef.h>
#include <stdint.h>

struct cfvol_opts {
	const char *dir;   /* the mount point: an existing empty directory */
	const char *image; /* the image file to create (must not exist) */
	uint64_t bytes;    /* its size; 0: 64 MiB */
};

struct cfvol;

int cfvol_make(const struct cfvol_opts *o, struct cfvol **out, char *err, size_t errlen);

/* The block device the volume lives on ("/dev/loop3"); "" elsewhere. */
const char *cfvol_device(const struct cfvol *v);

/* Unmount, wait (bounded) for the loop device to let the image go, free v.
 * 0, or -errno with err saying what is left (-ETIMEDOUT: the loop device
 * still bound to the image after the wait; -EBUSY: the mount could only be
 * detached lazily).  v is freed in every case. */
int cfvol_end(struct cfvol *v, char *err, size_t errlen);

#endif
