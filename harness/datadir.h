/* datadir.h - where `sandproof` finds what it reads at run time, relative
 * to its own executable (prims_self_exe: /proc/self/exe on Linux,
 * _NSGetExecutablePath on macOS, GetModuleFileNameW on Windows), never
 * from a path fixed when it was built:
 *
 *   harness    its Lua libraries and runner adapters (lua/, runners/)
 *   scenarios  the catalogue (<area>/<name>.lua)
 *   ref        the reference runner, sandproof-ref
 *   probe      the in-sandbox probe, sandproof-probe
 *
 * Each is taken, first to last, from
 *   1. the environment: SANDPROOF_HARNESS_DIR, SANDPROOF_SCENARIOS,
 *      SANDPROOF_REF, SANDPROOF_PROBE (one by one);
 *   2. the build tree, when the executable sits in the build directory it
 *      was built in (the file DATADIR_BUILD_MARKER, which the build writes
 *      there, is next to it): the source tree's harness/ and scenarios/,
 *      the programs next to the executable;
 *   3. an installed prefix, when the executable sits in a prefix's bin
 *      directory (DATADIR_REL_DATA/lua exists next to it, the layout
 *      `cmake --install` makes): DATADIR_REL_DATA, scenarios under it,
 *      sandproof-ref next to it, the probe in DATADIR_REL_PROBE;
 *   4. none: NULL, and the commands that need it refuse to start, saying
 *      so (datadir_missing).
 * An installed copy never reads the build tree: the build tree is chosen
 * only where the marker is, which `cmake --install` does not copy. */
#ifndef SANDPROOF_DATADIR_H
#define SANDPROOF_DATADIR_H

#include <limits.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "scen.h"

#define DATADIR_BUILD_MARKER "sandproof-build-tree"

enum datadir_from { DATADIR_NONE, DATADIR_ENV, DATADIR_BUILD, DATADIR_INSTALLED };

enum { DATADIR_HARNESS, DATADIR_SCENARIOS, DATADIR_REF, DATADIR_PROBE, DATADIR_N };

struct datadir {
	const char *path[DATADIR_N];	    /* the choice, or NULL */
	enum datadir_from from[DATADIR_N];  /* why */
	enum datadir_from layout;	    /* where the executable sits */
	char exe[PATH_MAX];		    /* the executable, "" when unknown */
	char root[PATH_MAX];		    /* the source tree, or the installed data dir */
	char buf[DATADIR_N][PATH_MAX + 64]; /* the paths not from the environment */
};

/* Once, in main, after prims_self_exe_init: resolves the four paths of
 * this process from its executable (self_exe, NULL when unknown) and the
 * environment, into p.  Never fails: what it cannot find is NULL. */
void datadir_init(const char *self_exe, struct scen_paths *p);

/* What datadir_init found (all NONE before it ran). */
const struct datadir *datadir_get(void);

/* For a command that loads scenarios or adapters: 0, or -ENOENT after
 * saying on stderr which path is missing, where it looked and how to set
 * it. */
int datadir_missing(void);

/* {"executable", "layout", "root", "harness": {"path", "from"}, ...}, what
 * `sandproof env` prints (and every run records) as "data"; NULL when out
 * of memory. */
cJSON *datadir_json(void);

/* The revision an installed copy was built from (the file "revision" the
 * build wrote into its data dir) into buf: 0, or -ENOENT when this is not
 * an installed copy or the file is unreadable (buf is ""). */
int datadir_installed_revision(char *buf, size_t len);

#endif
