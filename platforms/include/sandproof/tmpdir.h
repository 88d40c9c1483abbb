/* tmpdir.h - claimed temp directories: the steps of the harness's claim
 * (sp_mkdtemp_claimed) and of its stale sweep that an OS answers
 * differently.
 *
 * The harness makes and locks a directory under a name its sweep ignores,
 * then gives it its final name with tmpdir_rename_new; a name that exists
 * is never replaced, so no sweep ever sees a claimed directory unlocked
 * and no other process's directory is ever taken over. */
#ifndef SANDPROOF_TMPDIR_H
#define SANDPROOF_TMPDIR_H

/* The claim: an exclusive lock on the directory open at fd, held until
 * fd is closed (POSIX: flock; Windows: the handle behind fd reopened
 * denying delete and rename to every other opener).  nonblock: -EWOULDBLOCK
 * at once when another holds it; else wait.  0 or -errno. */
int tmpdir_lock(int fd, int nonblock);

/* Rename the directory from, open and claimed at fd, to the name to,
 * which must not exist.  0, -EEXIST when to exists (nothing changed), or
 * -errno (Windows: -ELOOP when from is a reparse point, renamed through
 * the handle, so the object checked is the object renamed). */
int tmpdir_rename_new(int fd, const char *from, const char *to);

#endif
