/* sbpl_plan_everyday.c - the part of the plan everyday commands need
 * (sbpl_gen_allow.c writes it):
 *   metas  with restricted reads, every proper ancestor of every readable
 *          root (read roots, write roots, TEMP_DIR) gets metadata access
 *          (META_i parameters), as sandbox-runtime gives: resolving
 *          /Users/dev/proj looks up /Users and /Users/dev first;
 *   prefs  the preferences daemon, when it cannot read for the command
 *          what the file rules hide: reads unrestricted, and no deny_read
 *          at, above or beneath a directory cfprefsd reads;
 *   terminal_ioctl  as the options say (sbpl.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sbpl_gen_int.h"

/* Where cfprefsd reads preferences, by component ("*": any one). */
static const char *const pref_dirs[][9] = {
	{"Library", "Preferences"},
	{"Library", "Managed Preferences"},
	{"Users", "*", "Library", "Preferences"},
	{"Users", "*", "Library", "Containers", "*", "Data", "Library", "Preferences"},
	{"Users", "*", "Library", "Group Containers", "*", "Library", "Preferences"},
	{"private", "var", "root", "Library", "Preferences"},
	{"private", "var", "preferences"},
};

/* p (canonical) is at, above or beneath one of pref_dirs: its components
 * and the pattern's agree as far as the shorter goes (any case: the
 * volume may fold it). */
static bool covers_prefs(const char *p)
{
	if (!strcmp(p, "/"))
		return true;
	for (size_t k = 0; k < sizeof(pref_dirs) / sizeof(pref_dirs[0]); k++) {
		const char *s = p;
		bool agree = true;

		for (size_t i = 0; agree && pref_dirs[k][i] && *s; i++) {
			const char *seg = ++s, *pat = pref_dirs[k][i];
			size_t n;

			while (*s && *s != '/')
				s++;
			n = (size_t)(s - seg);
			agree = !strcmp(pat, "*") || (strlen(pat) == n && !strncasecmp(seg, pat, n));
		}
		if (agree)
			return true;
	}
	return false;
}

/* Every proper ancestor of path but "/" and "/private" (the profile's own
 * literals), once, as a META_i parameter. */
static int add_ancestors(struct sbpl_plan *pl, const char *path, char *err)
{
	char a[SBPL_LITERAL_MAX + 1], name[32];
	char *slash;
	int rc = 0;

	snprintf(a, sizeof(a), "%s", path);
	while (rc == 0 && (slash = strrchr(a, '/')) && slash != a) {
		bool seen = false;

		*slash = '\0';
		if (!strcmp(a, "/private"))
			continue;
		for (size_t i = 0; i < pl->metas.n && !seen; i++)
			seen = !strcmp(pl->params[pl->metas.v[i]].value, a);
		if (seen)
			continue;
		snprintf(name, sizeof(name), "META_%zu", pl->metas.n);
		rc = sbpl_plan_param(pl, &pl->metas, name, a, "an ancestor of a readable root", err);
	}
	return rc;
}

int sbpl_plan_everyday(struct sbpl_plan *pl, const struct sbpl_opts *opts, char *err)
{
	const struct sbpl_ilist *roots[] = {&pl->reads, &pl->writes};
	int rc = 0;

	pl->terminal_ioctl = opts->terminal_ioctl;
	pl->prefs = pl->read_all;
	for (size_t i = 0; pl->prefs && i < pl->req->deny_read.n; i++)
		pl->prefs = !covers_prefs(pl->req->deny_read.v[i]);
	if (pl->read_all)
		return 0;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; rc == 0 && i < roots[l]->n; i++)
			rc = add_ancestors(pl, pl->params[roots[l]->v[i]].value, err);
	return rc;
}
