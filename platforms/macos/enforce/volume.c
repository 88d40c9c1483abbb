/* volume.c - how the volumes under a request's policy paths compare names
 * (seatbelt.h, volume_name_fold).
 *
 * Seatbelt matches a rule's path byte for byte with the path it is
 * handed; on a volume that folds names the same file has other spellings
 * (platforms/macos/sbpl/sbpl_fold.c).  Decided per run, per volume:
 *   normalization  always on macOS: APFS (both variants) and HFS+ compare
 *                  names normalization-insensitively; elsewhere (the
 *                  posix-sim) too, as a stand-in (folding only widens a
 *                  deny);
 *   case           when any volume holding a write root, or the existing
 *                  part of a deny path, says it is case-insensitive:
 *                  pathconf(_PC_CASE_SENSITIVE) == 0 on macOS, and a
 *                  volume that cannot say is taken to be insensitive
 *                  (the wider deny); where pathconf has no such name (the
 *                  posix-sim on Linux), an empty file made in the write
 *                  root and looked up in the other case says it. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "namefold.h"
#include "seatbelt.h"

/* The longest existing ancestor of path (itself when it exists). */
static void existing_part(const char *path, char out[PATH_MAX])
{
	struct stat st;
	char *slash;

	snprintf(out, PATH_MAX, "%s", path);
	while (lstat(out, &st) < 0 && (slash = strrchr(out, '/')) != NULL)
		*(slash == out ? slash + 1 : slash) = '\0';
}

#ifdef _PC_CASE_SENSITIVE
static bool case_insensitive(const char *dir, bool writable)
{
	(void)writable;
	/* 1: sensitive; 0: insensitive; -1: cannot say, taken as insensitive */
	return pathconf(dir, _PC_CASE_SENSITIVE) != 1;
}
#else
/* No pathconf name for it: in a writable directory, a fresh empty file
 * (a random name) looked up in the other case; elsewhere, sensitive
 * (Linux's own file systems are). */
static bool case_insensitive(const char *dir, bool writable)
{
	char probe[PATH_MAX], other[PATH_MAX];
	struct stat a, b;
	bool folds = false;
	size_t base;
	int fd;

	if (!writable || snprintf(probe, sizeof(probe), "%s/.sandproof-case-XXXXXX", dir) >=
				 (int)sizeof(probe))
		return false;
	if ((fd = mkstemp(probe)) < 0)
		return false;
	close(fd);
	snprintf(other, sizeof(other), "%s", probe);
	base = strlen(dir) + 1;
	for (size_t i = base; other[i]; i++)
		other[i] = (char)(isupper((unsigned char)other[i]) ? tolower((unsigned char)other[i])
								  : toupper((unsigned char)other[i]));
	/* The other-case name exists only if the volume takes it to be the
	 * fresh one (FUSE file systems give each lookup its own inode number,
	 * so the numbers cannot be compared). */
	if (lstat(probe, &a) == 0 && lstat(other, &b) == 0)
		folds = a.st_dev == b.st_dev;
	unlink(probe);
	return folds;
}
#endif

int volume_name_fold(const struct request *req, unsigned *fold, bool *insensitive)
{
	const struct strv *lists[] = {&req->deny_read, &req->deny_write};
	char dir[PATH_MAX];

	*insensitive = false;
	for (size_t i = 0; i < req->n_write_roots && !*insensitive; i++)
		*insensitive = case_insensitive(req->write_roots[i].root, true);
	for (size_t l = 0; l < 2 && !*insensitive; l++)
		for (size_t i = 0; i < lists[l]->n && !*insensitive; i++) {
			existing_part(lists[l]->v[i], dir);
			*insensitive = case_insensitive(dir, false);
		}
	*fold = *insensitive ? NAMEFOLD_CASE : NAMEFOLD_NORM;
	return 0;
}
