/* tmpdir.h - claimed temp directories: the one step of the harness's
 * claim (sp_mkdtemp_claimed) that an OS answers differently.
 *
 * The harness makes and locks a directory under a name its sweep ignores,
 * then gives it its final name with tmpdir_rename_new; a name that exists
 * is never replaced, so no sweep ever sees a claimed directory unlocked
 * and no other process's directory is ever taken over. */
#ifndef SANDPROOF_TMPDIR_H
#define SANDPROOF_TMPDIR_H

/* Rename the directory from to the name to, which must not exist.
 * 0, -EEXIST when to exists (nothing changed), or -errno. */
int tmpdir_rename_new(const char *from, const char *to);

#endif
