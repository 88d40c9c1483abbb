/* winpath.c - Windows policy paths: cleaning, refusals by name, comparison
 * (winpath.h; the reasons are in README.md, "Paths"). */
#include "winpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_sep(char c)
{
	return c == '\\' || c == '/';
}

static char fold(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int refuse(const char **why, const char *what)
{
	*why = what;
	return -EINVAL;
}

bool winpath_is_absolute(const char *s)
{
	return is_letter(s[0]) && s[1] == ':' && is_sep(s[2]);
}

/* n bytes of s equal word, ASCII case folded. */
static bool name_is(const char *s, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n && word[i]; i++)
		if (fold(s[i]) != word[i])
			return false;
	return i == n && word[i] == '\0';
}

/* The DOS device names Win32 maps to a device in every directory, with or
 * without an extension ("nul.txt" is NUL). */
static bool is_dos_device(const char *s, size_t n)
{
	static const char *const plain[] = {"con", "prn", "aux", "nul", "conin$", "conout$", NULL};
	const char *dot = memchr(s, '.', n);
	size_t base = dot ? (size_t)(dot - s) : n;

	while (base > 0 && s[base - 1] == ' ')
		base--;  /* "NUL .txt" is NUL too */
	for (size_t i = 0; plain[i]; i++)
		if (name_is(s, base, plain[i]))
			return true;
	return base == 4 && (name_is(s, 3, "com") || name_is(s, 3, "lpt")) &&
	       s[3] >= '1' && s[3] <= '9';
}

int winpath_check_name(const char *s, size_t n, const char **why)
{
	if (n == 0)
		return refuse(why, "an empty name is not allowed");
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return refuse(why, "\".\" and \"..\" components are not allowed");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ':')
			return refuse(why, "a ':' in a name (after the drive) names an alternate data stream; not allowed");
		if (c < 0x20 || strchr("<>\"|?*", c))
			return refuse(why, "a character Windows does not allow in a name (control, < > \" | ? *)");
		if (c == '~' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
			return refuse(why, "a name that looks like an 8.3 short name ('~' then a digit) "
				      "may be another file's alias; spell the long name");
	}
	if (s[n - 1] == '.' || s[n - 1] == ' ')
		return refuse(why, "a name ending in '.' or ' ' (Windows strips it, so it names "
			      "another file); not allowed");
	if (is_dos_device(s, n))
		return refuse(why, "a DOS device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, "
			      "CONIN$, CONOUT$, with or without extension); not allowed");
	return 0;
}

static int check_prefix(const char *p, const char **why)
{
	if (is_sep(p[0]) && is_sep(p[1])) {
		if ((p[2] == '?' || p[2] == '.') && (is_sep(p[3]) || p[3] == '\0'))
			return refuse(why, "a device or verbatim path (\\\\?\\, \\\\.\\) is not allowed");
		return refuse(why, "a UNC path (\\\\server\\share) is not allowed");
	}
	if (is_sep(p[0]) && p[1] == '?' && p[2] == '?' && is_sep(p[3]))
		return refuse(why, "an NT object path (\\??\\) is not allowed");
	if (is_letter(p[0]) && p[1] == ':' && !is_sep(p[2]))
		return refuse(why, "a drive-relative path (C:name) is not allowed");
	if (!winpath_is_absolute(p))
		return refuse(why, "must be an absolute Windows path (a drive letter, ':', '\\')");
	return 0;
}

int winpath_clean(char *path, const char **why)
{
	char *r = path + 2, *w = path + 2;
	int rc = check_prefix(path, why);

	if (rc)
		return rc;
	if (strlen(path) > WINPATH_MAX)
		return refuse(why, "longer than the Windows long-path limit");
	path[0] = (char)(path[0] >= 'a' ? path[0] - 'a' + 'A' : path[0]);
	while (*r) {
		while (is_sep(*r))
			r++;
		if (!*r)
			break;
		char *seg = r;
		while (*r && !is_sep(*r))
			r++;
		size_t n = (size_t)(r - seg);
		if (n == 1 && seg[0] == '.')
			continue;
		rc = winpath_check_name(seg, n, why);
		if (rc)
			return rc;
		*w++ = '\\';
		memmove(w, seg, n);
		w += n;
	}
	if (w == path + 2)
		*w++ = '\\';
	*w = '\0';
	return 0;
}

int winpath_check_relname(const char *s, const char **why)
{
	if (s[0] == '\0')
		return refuse(why, "must not be empty");
	if (is_sep(s[0]) || (is_letter(s[0]) && s[1] == ':'))
		return refuse(why, "must be relative to the write root");
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "/\\");
		int rc = winpath_check_name(p, n, why);

		if (rc)
			return rc;
		p += n;
		if (*p && !*++p)
			return refuse(why, "must not end with a separator");
	}
	return 0;
}

int winpath_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = is_sep(*a) ? '\\' : fold(*a), y = is_sep(*b) ? '\\' : fold(*b);

		if (x != y || !x)
			return (unsigned char)x - (unsigned char)y;
	}
}

bool winpath_equal(const char *a, const char *b)
{
	return winpath_cmp(a, b) == 0;
}

bool winpath_beneath(const char *root, const char *p)
{
	size_t n = strlen(root);

	for (size_t i = 0; i < n; i++)
		if (!p[i] || (is_sep(root[i]) ? !is_sep(p[i]) : fold(root[i]) != fold(p[i])))
			return false;
	/* "C:\" ends in its separator; any other clean root does not. */
	return is_sep(root[n - 1]) || p[n] == '\0' || is_sep(p[n]);
}

int winpath_join(const char *root, const char *rel, char **out)
{
	size_t a = strlen(root), b = strlen(rel);
	bool sep = a > 0 && !is_sep(root[a - 1]);
	char *s = malloc(a + sep + b + 1);

	if (!s)
		return -ENOMEM;
	memcpy(s, root, a);
	if (sep)
		s[a++] = '\\';
	for (size_t i = 0; i <= b; i++)
		s[a + i] = is_sep(rel[i]) ? '\\' : rel[i];
	*out = s;
	return 0;
}

static bool rules_absolute(const char *s)
{
	/* Everything that is not POSIX-absolute reaches winpath_clean, which
	 * names the refused spelling (UNC, \\?\, drive-relative, ...). */
	return s[0] != '\0';
}

const struct request_path_rules winpath_request_rules = {
	.absolute_what = "an absolute Windows path",
	.absolute = rules_absolute,
	.clean = winpath_clean,
	.beneath = winpath_beneath,
	.check_relname = winpath_check_relname,
	.default_read_root = NULL,  /* reads are not confined by roots (README.md) */
	.quote_refused = true,
};
