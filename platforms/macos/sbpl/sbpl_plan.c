/* sbpl_plan.c - a request as the parameters and rule lists of a profile.
 *
 * Every policy path is checked (sbpl_path_check) and becomes one -D
 * parameter with a name that says where it came from (WRITE_ROOT_0,
 * WRITE_ROOT_0_PROTECTED_1, DENY_READ_2, ANCESTOR_3...), so the profile
 * text holds no request string at all and reads the same for every
 * workspace.  The generator is pure: nothing here touches the filesystem. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_gen_int.h"

#define FIELD_MAX 160

static int ilist_push(struct sbpl_ilist *l, size_t i)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		size_t *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = i;
	return 0;
}

/* A checked path as a new parameter, its index appended to list. */
int sbpl_plan_param(struct sbpl_plan *pl, struct sbpl_ilist *list, const char *name,
		      const char *value, const char *field, char *err)
{
	struct sbpl_param *p;
	int rc = sbpl_path_check(value, field, err);

	if (rc)
		return rc;
	if (pl->n_params == pl->cap_params) {
		size_t cap = pl->cap_params ? pl->cap_params * 2 : 16;
		struct sbpl_param *np = realloc(pl->params, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		pl->params = np;
		pl->cap_params = cap;
	}
	p = &pl->params[pl->n_params];
	p->name = strdup(name);
	p->value = strdup(value);
	if (!p->name || !p->value) {
		free(p->name);
		free(p->value);
		return -ENOMEM;
	}
	return ilist_push(list, pl->n_params++);
}

/* Read roots: "/" among them means everything is readable. */
static int plan_reads(struct sbpl_plan *pl, char *err)
{
	const struct request *req = pl->req;
	char name[32], field[FIELD_MAX];
	int rc = 0;

	pl->read_all = req->fs_kind == FS_UNRESTRICTED;
	for (size_t i = 0; i < req->read_roots.n; i++)
		if (strcmp(req->read_roots.v[i], "/") == 0)
			pl->read_all = true;
	if (pl->read_all)
		return 0;
	pl->platform_roots = req->include_platform_roots;
	for (size_t i = 0; rc == 0 && i < req->read_roots.n; i++) {
		snprintf(name, sizeof(name), "READ_ROOT_%zu", i);
		snprintf(field, sizeof(field), "profile.filesystem.read_roots[%zu]", i);
		rc = sbpl_plan_param(pl, &pl->reads, name, req->read_roots.v[i], field, err);
	}
	return rc;
}

/* One write root: itself, its read-only subpaths, its protected names
 * (the parser already gave it the defaults when the request named none;
 * an explicit [] means none). */
static int plan_write_root(struct sbpl_plan *pl, size_t i, char *err)
{
	const struct write_root *wr = &pl->req->write_roots[i];
	const char *sep = strcmp(wr->root, "/") == 0 ? "" : "/";
	char name[64], field[FIELD_MAX];
	int rc;

	snprintf(name, sizeof(name), "WRITE_ROOT_%zu", i);
	snprintf(field, sizeof(field), "profile.filesystem.write_roots[%zu].root", i);
	rc = sbpl_plan_param(pl, &pl->writes, name, wr->root, field, err);
	for (size_t k = 0; rc == 0 && k < wr->read_only_subpaths.n; k++) {
		snprintf(name, sizeof(name), "WRITE_ROOT_%zu_RO_%zu", i, k);
		snprintf(field, sizeof(field),
			 "profile.filesystem.write_roots[%zu].read_only_subpaths[%zu]", i, k);
		rc = sbpl_plan_param(pl, &pl->write_denies, name, wr->read_only_subpaths.v[k],
				field, err);
	}
	for (size_t k = 0; rc == 0 && k < wr->protected_names.n; k++) {
		size_t n = strlen(wr->root) + strlen(wr->protected_names.v[k]) + 2;
		char *path = malloc(n);

		if (!path)
			return -ENOMEM;
		snprintf(path, n, "%s%s%s", wr->root, sep, wr->protected_names.v[k]);
		snprintf(name, sizeof(name), "WRITE_ROOT_%zu_PROTECTED_%zu", i, k);
		snprintf(field, sizeof(field),
			 "profile.filesystem.write_roots[%zu].protected_metadata_names[%zu]",
			 i, k);
		rc = sbpl_plan_param(pl, &pl->write_denies, name, path, field, err);
		free(path);
	}
	return rc;
}

static int plan_writes(struct sbpl_plan *pl, const struct sbpl_opts *opts, char *err)
{
	const struct request *req = pl->req;
	int rc = 0;

	pl->write_all = req->fs_kind == FS_UNRESTRICTED;
	for (size_t i = 0; rc == 0 && i < req->n_write_roots; i++)
		rc = plan_write_root(pl, i, err);
	if (rc)
		return rc;
	/* Unrestricted: everything is writable, the host's /tmp too (as on
	 * Linux), and a temp directory needs no rule of its own. */
	if (pl->write_all)
		return 0;
	if (req->allow_temp && opts->temp_dir)
		return sbpl_plan_param(pl, &pl->writes, "TEMP_DIR", opts->temp_dir,
				  "temp_dir (the run's private temp directory)", err);
	if (req->allow_temp)
		return sbpl_fail(err, -EOPNOTSUPP,
				 "profile.filesystem.allow_temp: Seatbelt cannot give the "
				 "command a private /tmp, and no private temp directory was "
				 "given (a runtime root provides one: profile.runtime); set "
				 "allow_temp false or give a runtime root");
	return 0;
}

static int plan_denies(struct sbpl_plan *pl, char *err)
{
	const struct request *req = pl->req;
	char name[32], field[FIELD_MAX];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < req->deny_write.n; i++) {
		snprintf(name, sizeof(name), "DENY_WRITE_%zu", i);
		snprintf(field, sizeof(field), "profile.filesystem.deny_write[%zu]", i);
		rc = sbpl_plan_param(pl, &pl->write_denies, name, req->deny_write.v[i], field, err);
	}
	for (size_t i = 0; rc == 0 && i < req->deny_read.n; i++) {
		snprintf(name, sizeof(name), "DENY_READ_%zu", i);
		snprintf(field, sizeof(field), "profile.filesystem.deny_read[%zu]", i);
		rc = sbpl_plan_param(pl, &pl->read_denies, name, req->deny_read.v[i], field, err);
	}
	return rc;
}

/* The ancestors are deduplicated through a hash set: a request of a
 * mebibyte may name hundreds of thousands of them, and a linear search
 * made that quadratic (a minute for half a mebibyte). */
static size_t path_hash(const char *s)
{
	uint64_t h = 14695981039346656037u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)h;
}

/* The slot of path in the set: its own, or the empty one it would take. */
static size_t *anc_slot(const struct sbpl_plan *pl, const char *path)
{
	size_t mask = pl->anc_set_cap - 1, i = path_hash(path) & mask;

	while (pl->anc_set[i] && strcmp(pl->params[pl->anc_set[i] - 1].value, path) != 0)
		i = (i + 1) & mask;
	return &pl->anc_set[i];
}

/* Room for one more ancestor at a load of at most one half. */
static int anc_reserve(struct sbpl_plan *pl)
{
	size_t cap = pl->anc_set_cap ? pl->anc_set_cap * 2 : 64;
	size_t *old = pl->anc_set, old_cap = pl->anc_set_cap;

	if (2 * (pl->ancestors.n + 1) <= pl->anc_set_cap)
		return 0;
	pl->anc_set = calloc(cap, sizeof(*pl->anc_set));
	if (!pl->anc_set) {
		pl->anc_set = old;
		return -ENOMEM;
	}
	pl->anc_set_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			*anc_slot(pl, pl->params[old[i] - 1].value) = old[i];
	free(old);
	return 0;
}

/* Every proper ancestor of path from its parent up to and including area
 * (a writable subpath that holds it) as a move-blocking literal: renaming
 * or removing any of them would carry path out from under its deny. */
static int plan_ancestors_of(struct sbpl_plan *pl, const char *path, const char *area,
			     const char *of, char *err)
{
	char *a = strdup(path), field[FIELD_MAX], name[32];
	int rc = 0;

	if (!a)
		return -ENOMEM;
	/* path lies strictly beneath area, so the walk ends at area. */
	while (rc == 0 && strcmp(a, area) != 0 && strcmp(a, "/") != 0) {
		char *slash = strrchr(a, '/');

		slash[slash == a ? 1 : 0] = '\0'; /* the parent: "/a" -> "/" */
		rc = anc_reserve(pl);
		if (rc || *anc_slot(pl, a))
			continue;
		snprintf(name, sizeof(name), "ANCESTOR_%zu", pl->ancestors.n);
		snprintf(field, sizeof(field), "an ancestor of %s", of);
		rc = sbpl_plan_param(pl, &pl->ancestors, name, a, field, err);
		if (rc == 0)
			*anc_slot(pl, a) = pl->n_params; /* the new parameter's index + 1 */
	}
	free(a);
	return rc;
}

/* For every denied path in every writable area that holds it. */
static int plan_ancestors(struct sbpl_plan *pl, char *err)
{
	const struct sbpl_ilist *lists[] = {&pl->write_denies, &pl->read_denies};
	int rc = 0;

	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; rc == 0 && i < lists[l]->n; i++) {
			const struct sbpl_param *p = &pl->params[lists[l]->v[i]];

			if (pl->write_all) {
				rc = plan_ancestors_of(pl, p->value, "/", p->name, err);
				continue;
			}
			for (size_t w = 0; rc == 0 && w < pl->writes.n; w++) {
				const char *area = pl->params[pl->writes.v[w]].value;

				if (sbpl_path_beneath(area, p->value))
					rc = plan_ancestors_of(pl, p->value, area, p->name, err);
			}
		}
	}
	return rc;
}

/* A regex parameter NAME_FOLD for the path parameter at index param: not
 * a path (no spelling check), but a string of the profile all the same:
 * no control byte (it has none: its path has none), at most a literal's
 * length. */
static int plan_fold_param(struct sbpl_plan *pl, const struct namefold_index *ix, size_t param,
			   bool subpath, struct sbpl_ilist *list, char *err)
{
	struct sbpl_buf re = {0};
	struct sbpl_param *p;
	char name[80];
	int rc = sbpl_fold_regex(ix, pl->params[param].value, subpath, &re);

	snprintf(name, sizeof(name), "%s_FOLD", pl->params[param].name);
	if (rc == 0 && re.len > SBPL_LITERAL_MAX)
		rc = sbpl_fail(err, -ENAMETOOLONG,
			       "%s (%.64s...): on a volume that folds names its pattern is %zu "
			       "bytes, longer than the %d bytes of a Seatbelt string (a shorter "
			       "path is needed there)",
			       pl->params[param].name, pl->params[param].value, re.len,
			       SBPL_LITERAL_MAX);
	if (rc == 0 && pl->n_params == pl->cap_params) {
		struct sbpl_param *np = realloc(pl->params, 2 * pl->cap_params * sizeof(*np));

		if (!np)
			rc = -ENOMEM;
		else
			pl->params = np, pl->cap_params *= 2;
	}
	if (rc == 0) {
		p = &pl->params[pl->n_params];
		p->name = strdup(name);
		p->value = re.s;
		re.s = NULL;
		if (!p->name) {
			free(p->value);
			rc = -ENOMEM;
		}
	}
	sbpl_buf_free(&re);
	return rc ? rc : ilist_push(list, pl->n_params++);
}

/* Every deny on a path, matched in every spelling a folding volume
 * accepts for it and across a firmlink: the write denies and deny_read as
 * subpaths, the ancestors as literals. */
static int plan_fold(struct sbpl_plan *pl, unsigned flags, char *err)
{
	const struct sbpl_ilist *from[] = {&pl->write_denies, &pl->read_denies, &pl->ancestors};
	struct sbpl_ilist *to[] = {&pl->write_denies_fold, &pl->read_denies_fold,
				   &pl->ancestors_fold};
	struct namefold_index *ix = NULL;
	int rc = 0;

	pl->fold = flags & (NAMEFOLD_NORM | NAMEFOLD_CASE);
	if (pl->fold && (rc = namefold_index_new(pl->fold, &ix)) < 0)
		return rc;
	/* a regex for every entry on a folding volume, else for the ones a
	 * firmlink also reaches (SIZE_MAX: none) */
	for (size_t l = 0; rc == 0 && l < 3; l++)
		for (size_t i = 0; rc == 0 && i < from[l]->n; i++) {
			if (!pl->fold && !sbpl_path_firmlinked(pl->params[from[l]->v[i]].value))
				rc = ilist_push(to[l], SIZE_MAX);
			else
				rc = plan_fold_param(pl, ix, from[l]->v[i], l < 2, to[l], err);
		}
	namefold_index_free(ix);
	return rc;
}

int sbpl_plan_build(struct sbpl_plan *pl, const struct request *req,
		    const struct sbpl_opts *opts, char *err)
{
	int rc;

	memset(pl, 0, sizeof(*pl));
	pl->req = req;
	if (opts->message_tag) {
		for (const char *p = opts->message_tag; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return sbpl_fail(err, -EINVAL, "message_tag: control byte 0x%02x",
						 (unsigned)(unsigned char)*p);
		if (strlen(opts->message_tag) > SBPL_LITERAL_MAX)
			return sbpl_fail(err, -ENAMETOOLONG, "message_tag: longer than %d bytes",
					 SBPL_LITERAL_MAX);
		pl->tag = opts->message_tag;
	}
	rc = plan_reads(pl, err);
	if (!rc)
		rc = plan_writes(pl, opts, err);
	if (!rc)
		rc = plan_denies(pl, err);
	if (!rc)
		rc = plan_ancestors(pl, err);
	if (!rc)
		rc = plan_fold(pl, opts->name_fold, err);
	if (!rc)
		rc = sbpl_plan_everyday(pl, opts, err);
	if (rc == -ENOMEM)
		sbpl_fail(err, rc, "out of memory");
	return rc;
}

void sbpl_plan_free(struct sbpl_plan *pl)
{
	for (size_t i = 0; i < pl->n_params; i++) {
		free(pl->params[i].name);
		free(pl->params[i].value);
	}
	free(pl->params);
	free(pl->reads.v);
	free(pl->writes.v);
	free(pl->write_denies.v);
	free(pl->read_denies.v);
	free(pl->ancestors.v);
	free(pl->write_denies_fold.v);
	free(pl->read_denies_fold.v);
	free(pl->ancestors_fold.v);
	free(pl->metas.v);
	free(pl->anc_set);
	memset(pl, 0, sizeof(*pl));
}
