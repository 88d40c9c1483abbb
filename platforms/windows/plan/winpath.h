/* winpath.h - Windows policy paths, judged on any OS (portable, no windows.h).
 *
 * A policy path on Windows must name exactly one object, the one NTFS would
 * open, with no second reading.  So only plain drive paths are accepted
 * ("C:\dir\sub"; '/' is accepted as a separator and written '\'; the drive
 * letter is upper-cased), and every spelling NTFS or the Win32 layer would
 * turn into another name is refused by name: relative and drive-relative
 * paths, "..", the \\?\ and \\.\ device/verbatim prefixes, UNC shares,
 * alternate data streams (any ':' after the drive), names ending in '.' or
 * ' ' (Win32 strips them), DOS device names (CON, NUL, COM1, ... with or
 * without an extension) and names that look like 8.3 short names ('~' then
 * a digit).  README.md says why for each.
 *
 * Comparison folds ASCII letters only: a byte >= 0x80 matches only itself.
 * NTFS folds case with its upcase table (most of Unicode), so two spellings
 * that differ only in the case of a non-ASCII letter are one file on NTFS
 * and two paths here: every check built on these helpers then errs towards
 * refusing (a subpath "not beneath" its root) or towards a deny ACE on a
 * name NTFS resolves case-insensitively anyway, never towards an allow. */
#ifndef SANDPROOF_WINPATH_H
#define SANDPROOF_WINPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "sandproof/request.h"

/* Longest accepted policy path, in bytes (the Win32 long-path limit in
 * UTF-16 units is 32767; the request parser's own bound is lower). */
#define WINPATH_MAX 32767

/* True when s starts with a drive letter, ':' and a separator. */
bool winpath_is_absolute(const char *s);

/* Clean an absolute Windows path in place: upper-case drive letter, '\'
 * separators, repeated separators and "." components dropped, no trailing
 * separator (except "C:\").  0, or -EINVAL with *why a static sentence
 * naming the refused spelling.  The result never grows. */
int winpath_clean(char *path, const char **why);

/* One name (a path component) as accepted by winpath_clean: 0 or -EINVAL. */
int winpath_check_name(const char *name, size_t n, const char **why);

/* A protected metadata name: relative, components separated by '/' or '\',
 * each a plain name as above.  0 or -EINVAL with *why. */
int winpath_check_relname(const char *name, const char **why);

/* ASCII-case-insensitive comparison of clean paths or names ('/' and '\'
 * compare equal, so a relative name may be compared in either spelling). */
int winpath_cmp(const char *a, const char *b);
bool winpath_equal(const char *a, const char *b);
/* True when p is root or lies beneath it (both clean). */
bool winpath_beneath(const char *root, const char *p);

/* root + '\' + rel ('/' in rel written '\'), malloc'd into *out.
 * 0 or -ENOMEM. */
int winpath_join(const char *root, const char *rel, char **out);

/* The request parser's rules for Windows paths (request.h). */
extern const struct request_path_rules winpath_request_rules;

#endif
