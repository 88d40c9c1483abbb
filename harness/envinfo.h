/* envinfo.h - the environment fingerprint recorded with every run:
 * kernel, arch, user, the sysctls that gate user namespaces, Landlock ABI,
 * seccomp notification support, git revision, runner versions, and where
 * the programs found their data ("data", datadir.h). */
#ifndef SANDPROOF_ENVINFO_H
#define SANDPROOF_ENVINFO_H

#include <stdio.h>

#include "sandproof/store.h"
#include "runner.h"
#include "scen.h"

/* A JSON object (malloc'd), or NULL on out of memory.  runners: those
 * whose versions are asked (`<binary> --version` for ref), NULL for every
 * adapter there is. */
char *envinfo_json(const struct scen_paths *p, const struct runner_set *runners);
/* A run row filled from the fingerprint; strings point into static
 * storage valid until the next call. */
struct store_run envinfo_run(const char *json);
void envinfo_print(const char *json, FILE *out);

#endif
