/* userns.h - the one writer of a new user namespace's id maps, for the
 * sandbox's pid 1 (enforce/platform.c), the network lab's keeper
 * (prims/lab_keeper.c) and the launcher's private mounts
 * (prims/proc_child.c).
 *
 * Every map is an identity: an id inside is the same number outside, so
 * files keep the owners they show on the host.  Which ids:
 *   USERNS_MAP_OWN   the caller's own effective uid and gid, and nothing
 *                    else; setgroups is denied first, as the kernel
 *                    requires of a writer without CAP_SETGID (and so
 *                    nobody inside can drop a supplementary group that a
 *                    deny rule on the host relies on);
 *   USERNS_MAP_ALL   every id range that exists in the caller's own user
 *                    namespace (read from /proc/self/uid_map and gid_map),
 *                    so ownership inside looks as it does outside; needs
 *                    CAP_SETUID and CAP_SETGID there (root), setgroups is
 *                    left as it is;
 *   USERNS_MAP_AUTO  ALL when the caller's effective uid is 0, else OWN.
 * A map that cannot be written fails closed: -errno and the name of the
 * file, never a namespace with a partial map.
 *
 * No allocation anywhere (read, write, snprintf of numbers): a child may
 * plan and write its own maps between fork and execve. */
#ifndef SANDPROOF_USERNS_H
#define SANDPROOF_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

#define USERNS_MAP_MAX 1024 /* bytes of one map's text */

enum userns_map { USERNS_MAP_OWN, USERNS_MAP_ALL, USERNS_MAP_AUTO };

/* The text of both maps, planned in the caller's user namespace. */
struct userns_maps {
	char uid[USERNS_MAP_MAX];
	char gid[USERNS_MAP_MAX];
	bool deny_setgroups;
};

/* Plan the maps of mode as seen from the calling process now: call it
 * before the caller itself unshares a user namespace (its ids are then
 * still its own).  0, or -errno (-E2BIG: more ranges than fit) with
 * *failed (may be NULL) set to the map that could not be planned,
 * "uid_map" or "gid_map"; *failed may be set on success too. */
int userns_maps_plan(enum userns_map mode, struct userns_maps *m, const char **failed);

/* Write m to the maps of pid (0: the calling process, through
 * /proc/self): setgroups first when m says so, then uid_map, gid_map.
 * 0, or -errno with *failed (may be NULL) set to "setgroups", "uid_map"
 * or "gid_map". */
int userns_maps_write(pid_t pid, const struct userns_maps *m, const char **failed);

/* Plan and write, for a caller that writes another process's maps. */
int userns_write_maps(pid_t pid, enum userns_map mode, const char **failed);

#endif
