/* ftw.h - the windows build's nftw (compat/harness_fs.c): physical walks
 * only (FTW_PHYS is required, EINVAL without it: a reparse point is
 * reported FTW_SL and never descended), FTW_DEPTH honoured; a path with a
 * ".." component is refused (EINVAL).  A directory's entries are read in
 * full before the callback sees them, so the callback may remove them. */
#ifndef SANDPROOF_COMPAT_FTW_H
#define SANDPROOF_COMPAT_FTW_H
#include "wincompat.h"
#define FTW_F 0
#define FTW_D 1
#define FTW_DNR 2
#define FTW_NS 3
#define FTW_SL 4
#define FTW_DP 5
#define FTW_PHYS 1
#define FTW_DEPTH 8
struct FTW {
	int base;
	int level;
};
int wincompat_nftw(const char *path,
		   int (*fn)(const char *, const struct stat *, int, struct FTW *),
		   int nopenfd, int flags);
#define nftw wincompat_nftw
#endif
