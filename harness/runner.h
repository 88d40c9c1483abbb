/* runner.h - the runners a command names (`--runner`, `--adapter`),
 * resolved once in the harness's process through sandproof.runners (Lua):
 * built-in adapters, adapter files (given, or found on
 * SANDPROOF_RUNNER_PATH) and programs that speak the contract
 * (`contract:PATH`).  Every problem is found here, before anything runs,
 * and named in err; a scenario process is handed the canonical spec and
 * loads the same adapter again without searching (docs/RUNNERS.md,
 * "Naming a runner"). */
#ifndef SANDPROOF_RUNNER_H
#define SANDPROOF_RUNNER_H

#include <stddef.h>

#include "scen.h"

#define RUNNER_MAX 16

struct runner {
	char *name;     /* as results are recorded: [a-z0-9][a-z0-9_-]{0,31} */
	char *spec;     /* canonical: NAME, NAME=adapter:/ABS, NAME=contract:/ABS */
	unsigned scale; /* the adapter's timeout_scale, 1..100 */
};

struct runner_set {
	struct runner v[RUNNER_MAX];
	size_t n;
};

/* Resolve arg (one runner) and add it to s.  0; -EINVAL with err naming
 * what is wrong (a bad or unknown name, a file missing or not executable,
 * an adapter or capability object that does not pass its checks, a name
 * given twice); -E2BIG past RUNNER_MAX; -ENOMEM. */
int runner_add(const struct scen_paths *p, struct runner_set *s, const char *arg, char *err,
	       size_t errlen);

/* runner_add for each element of a comma-separated list (an empty element
 * is an error: a runner's path cannot hold a comma). */
int runner_add_list(const struct scen_paths *p, struct runner_set *s, const char *list,
		    char *err, size_t errlen);

/* The names, comma-separated, into buf (truncated to len). */
void runner_names(const struct runner_set *s, char *buf, size_t len);

void runner_set_free(struct runner_set *s);

#endif
