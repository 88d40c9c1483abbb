/* pathexec.c - the one PATH search (rules in pathexec.h). */
#include "pathexec.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* envp's first PATH, or the default. */
static const char *pathexec_path(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			return envp[i] + 5;
	return PATHEXEC_DEFAULT;
}

/* Does err say only that the candidate is not there? */
static bool pathexec_absent(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ESTALE || err == ENODEV ||
	       err == ETIMEDOUT;
}

int pathexec_execve(char *const argv[], char *const envp[])
{
	static char *const empty[] = {NULL};
	const char *name = argv[0], *p;
	size_t nlen = strlen(name);
	char full[PATH_MAX];
	bool refused = false;

	if (!envp)
		envp = empty;
	if (nlen == 0)
		return ENOENT;
	if (strchr(name, '/')) {
		execve(name, argv, envp);
		return errno;
	}
	for (p = pathexec_path(envp);; p++) {
		const char *end = strchrnul(p, ':');
		size_t dlen = (size_t)(end - p);
		const char *dir = dlen ? p : ".";

		if (dlen == 0)
			dlen = 1;
		if (dlen + 1 + nlen < sizeof(full)) {
			memcpy(full, dir, dlen);
			full[dlen] = '/';
			memcpy(full + dlen + 1, name, nlen + 1);
			execve(full, argv, envp);
			if (errno == EACCES)
				refused = true;
			else if (!pathexec_absent(errno))
				return errno;
		}
		if (!*end)
			break;
		p = end;
	}
	return refused ? EACCES : ENOENT;
}
