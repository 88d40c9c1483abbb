/* fnmatch.h - the windows build's fnmatch (compat/harness_fs.c): '*', '?',
 * bracket expressions ('!' or '^' negates, ranges) and '\' quoting; flags
 * must be 0 (no FNM_PATHNAME, FNM_PERIOD: what the harness uses). */
#ifndef SANDPROOF_COMPAT_FNMATCH_H
#define SANDPROOF_COMPAT_FNMATCH_H
#define FNM_NOMATCH 1
int wincompat_fnmatch(const char *pattern, const char *string, int flags);
#define fnmatch wincompat_fnmatch
#endif
