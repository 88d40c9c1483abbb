/* rtacl.h - the runtime parent's DACL on Windows, as data (portable, no
 * windows.h): what the backend sets on a parent it creates, and how it
 * judges one that exists (RT-2 on Windows).
 *
 * Why: on Windows geteuid() and st_uid are 0 and the mode bits are
 * synthesised (platforms/windows/compat/README.md), so the core's POSIX
 * checks ("owned by me, not group/world-writable") hold vacuously.  The
 * guarantee they give -- no one else can plant, rename or delete the names
 * the runtime roots lock, stamp and evict -- comes from the parent's DACL.
 *
 * The plan (a parent the runner creates): a protected DACL (nothing
 * inherited from above) of two ACEs, full control for the runner's user
 * and for SYSTEM, both inherited by everything below (object and container
 * inherit), so the roots, stamps and leases get the same.  Not
 * Administrators: the user's own profile gives them access, but nothing
 * here needs it; SYSTEM runs the OS's own services (backup, indexer) on
 * the user's files, as in the user's profile directories.  The sandboxed
 * command's token is write-restricted to its capability SID, the logon SID
 * and Everyone (winplan.h), none of which is named, so it can write
 * nothing here (RT-3: only the tmp, cache and data folders get ACEs for
 * it, from the ACL plan).
 *
 * The check (any parent): a DACL must exist (a NULL DACL lets everyone
 * do everything); the owner (who may always rewrite the DACL) must be the
 * runner's user itself, no other SID (OWNER RIGHTS and CREATOR OWNER stand
 * for an owner and are none); every allow ACE that grants a right letting its holder create,
 * rename or delete an entry or change the DACL or owner must name a
 * trusted SID, whatever its inheritance flags (an inherit-only ACE
 * reaches the roots, stamps and leases created below); an ACE type other
 * than plain allow or deny is not understood and refused.  Trusted in an
 * ACE: the runner's user, SYSTEM and Administrators (both can take any
 * file whatever its DACL, as root can on POSIX), CREATOR OWNER and OWNER
 * RIGHTS (they stand for the owner of the object, itself required to be
 * the runner's user).  A parent the runner creates is given the user as
 * its owner explicitly (an elevated token's default owner is
 * Administrators). */
#ifndef SANDPROOF_RTACL_H
#define SANDPROOF_RTACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTACL_SID_SYSTEM "S-1-5-18"
#define RTACL_SID_ADMINS "S-1-5-32-544"
#define RTACL_SID_CREATOR_OWNER "S-1-3-0"
#define RTACL_SID_OWNER_RIGHTS "S-1-3-4"

/* ACE types and flags, with the values winnt.h gives them. */
#define RTACL_ALLOW 0u               /* ACCESS_ALLOWED_ACE_TYPE */
#define RTACL_DENY 1u                /* ACCESS_DENIED_ACE_TYPE */
#define RTACL_INHERIT 0x03u          /* OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE */
#define RTACL_FULL 0x001F01FFu       /* FILE_ALL_ACCESS */
/* Rights that let a holder plant, rename or delete entries, or take the
 * directory over: FILE_ADD_FILE, FILE_ADD_SUBDIRECTORY, FILE_DELETE_CHILD,
 * DELETE, WRITE_DAC, WRITE_OWNER, GENERIC_ALL, GENERIC_WRITE. */
#define RTACL_WRITE_MASK 0x500D0046u

#define RTACL_SID_MAX 192
#define RTACL_PLAN_N 2

struct rtacl_ace {
	unsigned type;            /* RTACL_ALLOW, RTACL_DENY, other: not understood */
	unsigned flags;           /* inheritance flags */
	uint32_t mask;
	char sid[RTACL_SID_MAX];  /* string form, "S-1-5-..." */
};

/* The protected DACL for a parent the runner creates.  user_sid: the
 * runner's user.  Fills out[RTACL_PLAN_N]; 0, or -EINVAL for a user SID
 * that is not a string SID or does not fit. */
int rtacl_parent_plan(const char *user_sid, struct rtacl_ace out[RTACL_PLAN_N]);

/* Judge an existing parent's owner and DACL (has_dacl false: a NULL DACL).
 * 0 when only trusted SIDs may write it, else -EPERM with *why a static
 * sentence naming what is wrong and *who the SID at fault (NULL when none). */
int rtacl_parent_check(const char *owner_sid, const char *user_sid, bool has_dacl,
		       const struct rtacl_ace *aces, size_t n, const char **why,
		       const char **who);

#endif
