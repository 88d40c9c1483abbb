/* landlock.h - Landlock write confinement for the reference runner (FS-*).
 *
 * Landlock is the second, unprivileged layer under the mount layer: the
 * mount namespace already makes everything but the write roots read-only,
 * and Landlock refuses the same writes again from inside the kernel's path
 * checks, so a mount mistake (or a mount later made writable by something
 * that escaped seccomp) still cannot write outside the policy.
 *
 * What is handled, and why
 *   Landlock denies every access right a ruleset "handles" unless a rule
 *   grants it beneath some directory (or on some file).  This module handles
 *   exactly the write-type rights, so reads, directory listing and execution
 *   stay unrestricted: what may be read is the mount layer's job (deny_read
 *   paths are hidden there), and handling READ_* here would only duplicate it
 *   with a second, harder to audit list.
 *     WRITE_FILE              open for writing (O_WRONLY/O_RDWR/O_APPEND)
 *     REMOVE_DIR, REMOVE_FILE unlink, rmdir, and the source side of rename
 *     MAKE_REG, MAKE_DIR,     every way to create a name: open(O_CREAT),
 *     MAKE_SYM, MAKE_FIFO,    mkdir, symlink, mkfifo, bind() of a unix
 *     MAKE_SOCK, MAKE_CHAR,   socket path, mknod; also the destination side
 *     MAKE_BLOCK              of rename and link
 *     REFER (ABI 2)           rename/link of a file into another directory;
 *                             without it a hard link could give a file a
 *                             second name under a write root
 *     TRUNCATE (ABI 3)        truncate(2), ftruncate(2), open(O_TRUNC):
 *                             before ABI 3 truncation is not a write right
 *                             and a read-only file could be emptied
 *     IOCTL_DEV (ABI 5)       ioctl on device files opened after the
 *                             restriction (e.g. terminal ioctls)
 *   Beneath each write_dirs entry every handled right is granted.  On each
 *   write_files entry (e.g. /dev/null, /dev/tty) the file-level subset is
 *   granted: WRITE_FILE, TRUNCATE (for a regular file: open(O_TRUNC) and
 *   truncate(2); Landlock does not check it on device nodes) and IOCTL_DEV
 *   (terminal ioctls on /dev/tty).
 *   Network rights (ABI 4) are not handled: network=deny is enforced by a
 *   network namespace, and handling them would also cut the sandbox-private
 *   loopback the contract promises.
 *
 * Scopes (ABI 6)
 *   scope_signals: the restricted thread, and everything it starts, cannot
 *   signal a process outside its Landlock domain (kill() gets EPERM);
 *   processes it started itself can still be signalled.
 *   scope_abstract_unix: it cannot connect/send to an abstract unix socket
 *   bound outside its domain (EPERM); sockets bound inside still work.
 *
 * ABI adaptation
 *   ll_restrict() asks the kernel for its ABI and handles only the rights
 *   that ABI knows (a ruleset naming an unknown right is refused by the
 *   kernel), so one binary works from ABI 1 up.  It never handles more than
 *   LL_ABI_KNOWN: on a newer kernel the rights this code knows are applied
 *   and LL_ABI_KNOWN is what is reported.  Consequences on old kernels:
 *     ABI 1: REFER cannot be granted, so a rename or link into another
 *            directory fails with EXDEV even inside a write root (a same-
 *            directory rename still works; tools fall back to copy).
 *     ABI < 3: truncation of an existing file outside the write roots is
 *            not refused by Landlock (only by the read-only mounts).
 *     ABI < 5: device ioctls are not restricted by Landlock.
 *     ABI < 6: scopes do not exist; asking for one is an error (below),
 *            never a silent weakening.
 *
 * Thread and lifetime contract
 *   A Landlock domain is inherited across fork() and execve() and can never
 *   be removed.  It applies to the calling thread only: call ll_restrict()
 *   in the single-threaded post-fork child, after prctl(PR_SET_NO_NEW_PRIVS)
 *   (without it an unprivileged caller gets -EPERM), and after the mount
 *   layer is in place (Landlock rules name the inodes the fds refer to).
 */
#ifndef SANDPROOF_LANDLOCK_H
#define SANDPROOF_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The newest ABI whose rights and scopes this module knows. */
#define LL_ABI_KNOWN 7
#define LL_ABI_REFER 2
#define LL_ABI_TRUNCATE 3
#define LL_ABI_IOCTL_DEV 5
#define LL_ABI_SCOPES 6

/* Ownership: the caller owns every fd; ll_restrict() neither closes nor
 * keeps them.  Each fd should be opened with O_PATH (no read or write
 * access is needed to name an inode); opening them by a race-safe walk is
 * the caller's job, Landlock only sees the inode an fd already refers to. */
struct ll_policy {
	const int *write_dirs;    /* directories: all handled rights beneath */
	size_t n_write_dirs;
	const int *write_files;   /* non-directories: file-level write rights */
	size_t n_write_files;
	bool scope_signals;       /* LANDLOCK_SCOPE_SIGNAL (ABI >= 6) */
	bool scope_abstract_unix; /* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */
};

/* The running kernel's Landlock ABI version, 0 when the kernel lacks
 * Landlock (ENOSYS) or it is disabled at boot (EOPNOTSUPP).  Not clamped. */
int ll_abi(void);

/* Restrict the calling thread to p, using the rights of
 * min(ll_abi(), LL_ABI_KNOWN).
 * Returns that ABI (> 0) on success, or:
 *   -EOPNOTSUPP  Landlock is unavailable; nothing was changed (the caller
 *                decides whether running without it is acceptable);
 *   -EINVAL      p asks for a scope the ABI lacks, or names an fd of the
 *                wrong kind (a file in write_dirs, a directory in
 *                write_files: file rights on a directory would reach
 *                every file beneath it);
 *   -EBADF       an fd is not open;
 *   -EPERM       no_new_privs is not set and the caller lacks CAP_SYS_ADMIN;
 *   other -errno from the kernel.
 * Every failing step returns an error.  Only the last step restricts the
 * thread, so on any error the thread is exactly as unrestricted as before;
 * on success it is fully restricted.  No fd is leaked either way. */
int ll_restrict(const struct ll_policy *p);

/* Like ll_abi(), but tells "the kernel has no Landlock" (0: ENOSYS, or
 * EOPNOTSUPP when it is built in but disabled) apart from a probe that
 * failed for any other reason (-errno), which a fail-closed caller must
 * treat as a setup failure rather than as "unavailable". */
int ll_probe(void);

/* As ll_restrict(), but with the rights of the given ABI, which must be
 * 1..min(ll_abi(), LL_ABI_KNOWN) (else -EINVAL, or -EOPNOTSUPP when the
 * kernel has no Landlock).  For tests of the ABI adaptation and for
 * callers that pin an ABI; returns abi on success. */
int ll_restrict_abi(const struct ll_policy *p, int abi);

#endif
