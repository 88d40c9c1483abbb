/* canon.c - host paths for the Seatbelt backend: canonical policy paths,
 * the private temp directory, the command's path.
 *
 * Seatbelt matches the canonical spelling of a path only (/tmp is
 * /private/tmp, /var is /private/var on macOS; a symlink in the path is
 * resolved before matching), so a rule written for a non-canonical path
 * protects nothing.  Every policy path must therefore be canonical on
 * this host when the run starts, as on Linux, where a policy path that is
 * or passes through a symlink is refused (META-5, SWAP-1).  This is a
 * check at setup, by name: unlike Linux's pinned descriptors it cannot
 * stop a host process that swaps a component later (platforms/macos/
 * README.md says what that leaves open). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_path.h"
#include "seatbelt.h"

#define CANON_MAX_DEPTH 64

int seatbelt_fail(struct setup_error *e, const char *step, const char *path, int err,
		  const char *detail)
{
	snprintf(e->step, sizeof(e->step), "%s%s%s", step, path ? ":" : "", path ? path : "");
	e->err = err;
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	return -err;
}

/* The longest existing ancestor of an absent path must be canonical, and
 * the path itself must not be a dangling symlink. */
static int check_absent(const char *what, const char *path, struct setup_error *err)
{
	char anc[PATH_MAX], real[PATH_MAX];
	struct stat st;
	char *slash;

	if (lstat(path, &st) == 0)
		return seatbelt_fail(err, what, path, ELOOP,
				     "policy path is a dangling symlink; refusing to follow it");
	snprintf(anc, sizeof(anc), "%s", path);
	while ((slash = strrchr(anc, '/')) != NULL) {
		if (slash == anc)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (lstat(anc, &st) < 0)
			continue;
		if (!realpath(anc, real))
			return seatbelt_fail(err, what, path, errno,
					     "cannot resolve the policy path's ancestor");
		if (strcmp(real, anc) != 0)
			return seatbelt_fail(err, what, path, ELOOP,
					     "policy path passes through a symlink; refusing to follow it");
		return 0;
	}
	return 0;
}

/* 1: exists and canonical; 0: absent (ancestors canonical); -errno. */
static int check_one(const char *what, const char *path, struct setup_error *err)
{
	char real[PATH_MAX];

	if (!realpath(path, real)) {
		int e = errno;

		if (e == ENOENT || e == ENOTDIR) {
			int rc = check_absent(what, path, err);

			return rc < 0 ? rc : 0;
		}
		return seatbelt_fail(err, what, path, e, "cannot resolve policy path");
	}
	if (strcmp(real, path) != 0) {
		char d[sizeof(err->detail)];

		snprintf(d, sizeof(d), "policy path is not canonical on this host (it is %.150s): "
			 "it is or passes through a symlink", real);
		return seatbelt_fail(err, what, path, ELOOP, d);
	}
	return 1;
}

/* must: an absent path is refused (it could be created, or there is
 * nothing to confine to); else absent is allowed. */
static int check_list(const char *what, const struct strv *v, const struct request *req,
		      bool must, struct setup_error *err)
{
	for (size_t i = 0; i < v->n; i++) {
		int rc = check_one(what, v->v[i], err);

		if (rc < 0)
			return rc;
		if (rc == 0 && (must || (req && policy_in_write_root(req, v->v[i]))))
			return seatbelt_fail(err, what, v->v[i], ENOENT,
					     must ? "must exist" :
					     "must exist: it lies in a write root and could be created");
	}
	return 0;
}

/* Protected names: absent is the usual case (META-3 on macOS is the
 * profile's deny, present or absent); what exists on the way must be
 * canonical (META-5). */
static int check_protected(const struct write_root *wr, struct setup_error *err)
{
	char path[PATH_MAX];

	for (size_t k = 0; k < wr->protected_names.n; k++) {
		int rc;

		snprintf(path, sizeof(path), "%s/%s", strcmp(wr->root, "/") ? wr->root : "",
			 wr->protected_names.v[k]);
		rc = check_one("protected_metadata", path, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int canon_check_request(const struct request *req, struct setup_error *err)
{
	int rc;

	if (req->fs_kind != FS_RESTRICTED)
		return 0;
	rc = check_list("read_root", &req->read_roots, NULL, true, err);
	for (size_t i = 0; rc == 0 && i < req->n_write_roots; i++) {
		const struct write_root *wr = &req->write_roots[i];
		struct strv one = {.v = (char **)&wr->root, .n = 1};

		rc = check_list("write_root", &one, NULL, true, err);
		if (rc == 0)
			rc = check_list("read_only_subpath", &wr->read_only_subpaths, NULL, true, err);
		if (rc == 0)
			rc = check_protected(wr, err);
	}
	if (rc == 0)
		rc = check_list("deny_write", &req->deny_write, req, false, err);
	if (rc == 0)
		rc = check_list("deny_read", &req->deny_read, NULL, false, err);
	return rc;
}

int canon_tmpdir_make(const char *parent, char **out, struct setup_error *err)
{
	char *t;

	*out = NULL;
	if (asprintf(&t, "%s/sandproof-run.XXXXXX", parent) < 0)
		return seatbelt_fail(err, "private_tmp", NULL, ENOMEM, NULL);
	if (!mkdtemp(t)) {
		int e = errno;

		free(t);
		return seatbelt_fail(err, "private_tmp", parent, e,
				     "cannot create the per-run temp directory");
	}
	*out = t;
	return 0;
}

/* Empty the directory open at dfd (consumed), depth-bounded. */
static void tree_empty(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		int sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue; /* a file or a symlink (never followed) */
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && depth < CANON_MAX_DEPTH)
			tree_empty(sub, depth + 1);
		else if (sub >= 0)
			close(sub);
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void canon_tree_remove(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	tree_empty(fd, 0);
	rmdir(path);
}

static const char *env_get(const struct strv *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

/* dir/name, dir relative to the request's cwd (execvp runs in it). */
static char *cand_path(const struct request *req, const char *dir, size_t len,
		       const char *name)
{
	char *c;
	int rc;

	if (len && dir[0] == '/')
		rc = asprintf(&c, "%.*s/%s", (int)len, dir, name);
	else if (len)
		rc = asprintf(&c, "%s/%.*s/%s", req->cwd, (int)len, dir, name);
	else
		rc = asprintf(&c, "%s/%s", req->cwd, name);
	return rc < 0 ? NULL : c;
}

/* execvp's rules: a name with a '/' is used as is (from the working
 * directory); else each PATH entry in turn (an empty one is the working
 * directory); a match that is not executable is remembered (EACCES) and
 * the search goes on. */
int canon_resolve_command(const struct request *req, char **out)
{
	const char *name = req->command.v[0], *path = env_get(&req->env, "PATH");
	int found_eacces = 0;

	*out = NULL;
	if (strchr(name, '/')) {
		*out = name[0] == '/' ? strdup(name) : cand_path(req, "", 0, name);
		if (!*out)
			return -ENOMEM;
		if (access(*out, X_OK) < 0) {
			int e = errno;

			free(*out);
			*out = NULL;
			return -e;
		}
		return 0;
	}
	if (!path)
		path = "/usr/bin:/bin";
	for (;;) {
		size_t len = strcspn(path, ":");
		char *cand = cand_path(req, path, len, name);
		struct stat st;

		if (!cand)
			return -ENOMEM;
		if (access(cand, X_OK) == 0) {
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
				*out = cand;
				return 0;
			}
		} else if (errno == EACCES) {
			found_eacces = 1;
		}
		free(cand);
		if (!path[len])
			break;
		path += len + 1;
	}
	return found_eacces ? -EACCES : -ENOENT;
}
