/* sbpl_path.c - a policy path as Seatbelt matches it.
 *
 * Seatbelt compares a rule's path with the canonical path of the vnode an
 * operation touches: resolved, symlink-free, spelled with single '/'.  A
 * rule on a path spelled any other way silently matches nothing, so a
 * deny on "/tmp/x" (really /private/tmp/x) or "/a//b" protects nothing.
 * These checks refuse every spelling that can be seen to be non-canonical
 * without touching the filesystem; whether a path passes through a symlink
 * on the host is the backend's check (sbpl.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sbpl_int.h"

/* macOS's own top-level symlinks into /private. */
static const char *const private_links[] = {"/tmp", "/var", "/etc", NULL};

bool sbpl_path_beneath(const char *root, const char *p)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return p[0] == '/';
	return strncmp(root, p, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

/* The first 64 bytes of p, for a message about a path too long to show. */
static void path_head(char out[80], const char *p)
{
	snprintf(out, 80, "%.64s%s", p, strlen(p) > 64 ? "..." : "");
}

/* A "", ".", ".." component, or a trailing '/' (but for "/" itself). */
static const char *bad_component(const char *path)
{
	const char *p = path;

	if (strcmp(path, "/") == 0)
		return NULL;
	while (*p == '/') {
		const char *seg = ++p;
		size_t n;

		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0)
			return *p ? "\"//\"" : "a trailing \"/\"";
		if (n == 1 && seg[0] == '.')
			return "a \".\" component";
		if (n == 2 && seg[0] == '.' && seg[1] == '.')
			return "a \"..\" component";
	}
	return NULL;
}

/* The canonical spelling of a path whose only fault is "//", "/./" or a
 * trailing '/' into out (at least strlen(path) + 2 bytes). */
static void clean_spelling(const char *path, char *out)
{
	const char *r = path;
	char *w = out;

	while (*r) {
		const char *seg;
		size_t n;

		while (*r == '/')
			r++;
		seg = r;
		while (*r && *r != '/')
			r++;
		n = (size_t)(r - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		*w++ = '/';
		memcpy(w, seg, n);
		w += n;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
}

static int check_private_link(const char *path, const char *field, char *err)
{
	for (size_t i = 0; private_links[i]; i++) {
		size_t n = strlen(private_links[i]);

		/* Any case: the default APFS volume is case-insensitive, so
		 * /TMP is the same symlink. */
		if (strncasecmp(path, private_links[i], n) == 0 &&
		    (path[n] == '/' || path[n] == '\0'))
			return sbpl_fail(err, -EINVAL,
					 "%s: %s: not canonical on macos (%s is /private%s; "
					 "spell it /private%s%s)", field, path,
					 private_links[i], private_links[i],
					 private_links[i], path + n);
	}
	return 0;
}

int sbpl_path_check(const char *path, const char *field, char *err)
{
	size_t len = strlen(path);
	char head[80];
	const char *bad;

	/* First: every message below quotes the path. */
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return sbpl_fail(err, -EINVAL,
					 "%s: control byte 0x%02x in the path: refused (the "
					 "profile must be readable as text)", field,
					 (unsigned)(unsigned char)*p);
	if (len > SBPL_LITERAL_MAX) {
		path_head(head, path);
		return sbpl_fail(err, -ENAMETOOLONG,
				 "%s: %s: %zu bytes, longer than the %d bytes of a Seatbelt "
				 "string literal", field, head, len, SBPL_LITERAL_MAX);
	}
	if (path[0] != '/')
		return sbpl_fail(err, -EINVAL, "%s: %s: must be an absolute path", field, path);
	bad = bad_component(path);
	if (bad && strstr(bad, ".."))
		return sbpl_fail(err, -EINVAL,
				 "%s: %s: not canonical (%s; resolve it on the host): Seatbelt "
				 "matches canonical paths only", field, path, bad);
	if (bad) {
		char clean[SBPL_LITERAL_MAX + 2];

		clean_spelling(path, clean);
		return sbpl_fail(err, -EINVAL,
				 "%s: %s: not canonical (%s; spell it %s): Seatbelt matches "
				 "canonical paths only, so a rule on this spelling would match "
				 "nothing", field, path, bad, clean);
	}
	return check_private_link(path, field, err);
}
