/* policy_path.h - how every OS's enforcement relates two policy paths
 * (absolute and lexically clean, request.h).  Header-only: the enforce
 * side of each OS includes it (it sees the runner seam). */
#ifndef SANDPROOF_POLICY_PATH_H
#define SANDPROOF_POLICY_PATH_H

#include <stdbool.h>
#include <string.h>

#include "sandproof/request.h"

/* path is root or lies beneath it, by whole components ("/a/bc" is not
 * beneath "/a/b"). */
static inline bool policy_beneath(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(root, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* path lies in (or is) one of the request's write roots. */
static inline bool policy_in_write_root(const struct request *req, const char *path)
{
	for (size_t i = 0; i < req->n_write_roots; i++)
		if (policy_beneath(req->write_roots[i].root, path))
			return true;
	return false;
}

#endif
