/* glob.h - the windows build's glob (compat/harness_fs.c): wildcards in the
 * last path component only (the directory part is taken literally), names
 * starting with '.' only for a pattern starting with '.', listed through
 * the directory's handle (compat dir.c); GLOB_NOSORT honoured, otherwise
 * sorted.  0, GLOB_NOMATCH, GLOB_NOSPACE, or GLOB_ABORTED (errno set: a
 * wildcard in the directory part is EINVAL). */
#ifndef SANDPROOF_COMPAT_GLOB_H
#define SANDPROOF_COMPAT_GLOB_H
#include <stddef.h>
#define GLOB_NOSORT 0x04
#define GLOB_NOSPACE 1
#define GLOB_ABORTED 2
#define GLOB_NOMATCH 3
typedef struct {
	size_t gl_pathc;
	char **gl_pathv;
	size_t gl_offs;
} glob_t;
int wincompat_glob(const char *pattern, int flags, int (*errfunc)(const char *, int),
		   glob_t *g);
void wincompat_globfree(glob_t *g);
#define glob wincompat_glob
#define globfree wincompat_globfree
#endif
