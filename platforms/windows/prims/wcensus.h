/* wcensus.h - census.h's residue census on Windows, its portable part:
 * built and unit-tested on every OS (tests/test_wcensus.c); census_win.c
 * (windows build only) fills the process table from a Toolhelp snapshot
 * and calls these.
 *
 * Processes: Windows does not reparent an orphan, and a pid is reused, so
 * a parent pid alone proves nothing.  A process descends from `self` when
 * every link of its chain up to self is a live process created no later
 * than its child (a parent pid whose process is gone, or younger than the
 * child, is a recycled or dead link: the chain ends there, not
 * descended).  That makes CENSUS_PROC a lower bound of what a run left
 * (a daemon whose parent exited is not found by it); the marker search
 * (CENSUS_MARKED: the marker in a command line) finds those.  A process's
 * identity (key) is its pid and creation time, so a reused pid is a new
 * item.
 *
 * Files: the temp directories walked with opendir/readdir/lstat (the
 * Windows compat layer reports a junction or symbolic link as a link, so
 * the walk never descends one), capped as census.h says.
 *
 * Locks: Windows has no lock table to read; the same walk asks of every
 * regular file whether another holder's lock conflicts (census_win.c's
 * question: an exclusive LockFileEx refused at once), so a lease still
 * held after a run is seen by contention, never by its holder's pid. */
#ifndef SANDPROOF_WCENSUS_H
#define SANDPROOF_WCENSUS_H

#include "sandproof/census.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wcensus_proc {
	uint32_t pid, ppid;
	uint64_t created; /* creation time (any monotonic unit); 0: unknown */
	char exe[64];     /* image name, UTF-8 (truncated) */
	char *cmdline;    /* UTF-8, or NULL when it could not be read */
};

/* Takes ownership of key and text (either NULL: -ENOMEM, both freed). */
int wcensus_push(struct census *c, enum census_kind kind, char *key, char *text);

/* Whether v[i] descends from the process self: from v[i] up its ppid
 * links, each parent found in v and created no later than its child, to a
 * process whose ppid is self (self's own entry, when v has one, created no
 * later than that child).  v in any order; a cycle ends the walk. */
bool wcensus_descends(const struct wcensus_proc *v, size_t n, size_t i, uint32_t self);

/* Add to c: CENSUS_PROC for every descendant of self, CENSUS_MARKED for
 * every process but self whose command line holds marker (NULL or "":
 * none).  0 or -ENOMEM. */
int wcensus_add_procs(struct census *c, const struct wcensus_proc *v, size_t n, uint32_t self,
		      const char *marker);

/* Add CENSUS_FILE items for everything under each of dirs (NULL-terminated;
 * a missing directory adds nothing).  0 or -errno. */
int wcensus_add_files(struct census *c, const char *const *dirs);

/* Add a CENSUS_LOCK item for every regular file under dir (links never
 * followed, so never asked about) for which held(path, arg) is 1: another
 * holder's lock conflicts with an exclusive one.  held returns 1, 0 (free),
 * -ENOENT (gone meanwhile: skipped) or another -errno, which ends the
 * census with it (a file that could not be asked is never called free).
 * A walk cut short by census.h's caps adds a "truncated" CENSUS_LOCK item
 * (not every file asked).  A missing dir adds nothing.  0 or -errno. */
int wcensus_add_locks(struct census *c, const char *dir, int (*held)(const char *path, void *arg),
		      void *arg);

/* census.h's census_diff, census_free and census_kind_name. */
int wcensus_diff(const struct census *before, const struct census *after, struct census *added);
void wcensus_free(struct census *c);
const char *wcensus_kind_name(enum census_kind k);

#endif
