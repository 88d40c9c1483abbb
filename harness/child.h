/* child.h - the harness's internal subcommands: how the harness re-runs
 * its own executable (prims_self_exe) instead of forking a copy of itself,
 * so the same process model runs where there is no fork.
 *
 *   sandproof __scenario FILE RUNNER SEED REF PROBE HARNESS
 *       one (scenario, runner) pair (scen.c, scen_child_main);
 *   sandproof __spawn
 *       one sp.spawn in the background (sp.spawn_bg): its options on stdin
 *       (child_spawn_encode), its result on stdout (child_spawn_main);
 *   sandproof __pair FILE RUNNER SEED TIMEOUT_S REF PROBE HARNESS
 *       run --jobs N's keeper of one pair (jobs.h, jobs_pair_main): it runs
 *       the pair's __scenario as --jobs 1 does, its result on stdout.
 *
 * Neither is in --help.  Each runs only when started by a harness: the
 * environment names the harness's pid (CHILD_MARKER=<pid>) and that pid
 * must be our parent's; by hand it is refused (exit 2) with a message
 * saying so.  The marker is removed from the environment once checked, so
 * nothing the scenario starts inherits it. */
#ifndef SANDPROOF_CHILD_H
#define SANDPROOF_CHILD_H

#include <stddef.h>

#include "sandproof/proc.h"

#define CHILD_MARKER "SANDPROOF_HARNESS_PID"

/* The caller's environment plus the marker naming the caller: for the
 * envp of an internal subcommand.  malloc'd (child_env_free), NULL on
 * ENOMEM. */
char **child_env(void);
void child_env_free(char **env);

/* In an internal subcommand, first: 0 when a harness started it (and the
 * marker is gone from the environment), else -1 after printing why. */
int child_check(const char *subcommand);

/* o (checked by sp.spawn_bg) and the delay before its start (ms, >= 0)
 * as the bytes `__spawn` reads on its stdin: malloc'd into *blob.  0 or
 * -ENOMEM.  A hold action is not encodable (sp.spawn_bg refuses it
 * first). */
int child_spawn_encode(const struct proc_opts *o, int delay_ms, char **blob, size_t *len);

/* `sandproof __spawn`: read the options, sleep the delay they name, run
 * them with proc_run as a child subreaper, print "code=C\nsignal=S\nstdout=N\n" then the N bytes of the
 * program's stdout (code -1 when it did not exit; nothing when the launch
 * itself failed).  Returns the exit status. */
int child_spawn_main(void);

#endif
