/* scen.h - scenario discovery and the per-pair child process.
 *
 * The harness parent never runs scenario code itself: each (scenario,
 * runner) pair runs in a process of its own - the harness's executable
 * re-run as `sandproof __scenario` (no fork of the harness, so the model
 * holds where there is no fork) - with its own Lua state, which hands
 * back one JSON result line.  A crash, a hang past the timeout or a stray
 * process of a scenario is then the child's problem, turned into verdict
 * `error` by the parent, and the run goes on. */
#ifndef SANDPROOF_SCEN_H
#define SANDPROOF_SCEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct scen {
	char *file;
	char *id, *area, *clauses, *claim, *expect_json;
	char *impact; /* its impact table as text (sandproof.impact.text), or NULL */
	char *exclusive; /* why it needs the machine to itself (run --jobs), or NULL */
};

struct scen_list {
	struct scen *v;
	size_t n;
};

struct scen_paths {
	const char *harness;   /* harness/ (lua/, runners/) */
	const char *scenarios; /* scenarios/ */
	const char *ref;       /* sandproof-ref */
	const char *probe;     /* sandproof-probe */
};

/* Load every scenarios/<area>/<name>.lua whose id matches glob (NULL: all),
 * sorted by id.  A file that does not load, or lacks id/claim/expect, is an
 * error naming file:line and the Lua message: -EINVAL with err filled. */
int scen_load_all(const struct scen_paths *p, const char *glob,
		  struct scen_list *out, char *err, size_t errlen);
void scen_list_free(struct scen_list *l);

struct lua_State;

/* Push the paths table adapters and scenarios see ({ref, probe, harness}). */
void scen_push_paths(struct lua_State *L, const struct scen_paths *p);

/* Run one pair in a scenario process (`sandproof __scenario`, child.h,
 * started through the primitives seam); *json receives the result (malloc'd JSON object
 * with verdict, observed, expected, reason, attempts, windows_hit,
 * min_power, duration_ms, evidence[]), or a synthesized error result when
 * the child crashed or passed timeout_s.  0, -ENOMEM, -errno of the
 * launch (-ENOEXEC: our own executable is unknown, prims_self_exe), or
 * -EINTR after an interrupt (scen_interrupt_install).  runner is a
 * canonical spec (runner.h), which the scenario process loads again
 * (sandproof.runners.load). */
int scen_run_pair(const struct scen_paths *p, const struct scen *s,
		  const char *runner, uint64_t seed, unsigned timeout_s, char **json);

#define SCEN_RESULT_LIMIT (64u << 20) /* bytes of one pair's JSON result */

/* The result of a pair that produced none: {"verdict":"error","reason":
 * reason} (quotes, backslashes and control characters in reason blanked).
 * malloc'd, NULL on ENOMEM. */
char *scen_error_json(const char *reason);

/* `run`'s interrupt (SIGINT, SIGTERM, SIGHUP): scen_interrupt_install()
 * makes them set a flag instead of killing the harness (0 or -errno);
 * scen_interrupted() is the signal seen, or 0.  A pair running when it
 * comes is ended as on a timeout (its process and everything it started
 * killed, its temp directories removed) and scen_run_pair returns -EINTR
 * with no result. */
int scen_interrupt_install(void);
/* Removes the temp directories (sandproof-<pid>-* in both temp roots) a
 * harness process pid made, once it has ended. */
void scen_sweep_pid(pid_t pid);

/* `sandproof __scenario ...` (child.h), given main's argc and argv;
 * returns the exit status (2: not started by a harness, bad arguments). */
int scen_child_main(int argc, char **argv);
int scen_interrupted(void);

/* Remove the scenario temp directories (both prims_temp_root()s,
 * sandproof-<pid>-*) of ours that no live process claims: sp.mkdtemp holds
 * an flock on each for its owner's life, so one we can lock, whose named
 * pid does not exist either, is left over from a harness killed with
 * SIGKILL.  Never follows a symlink.  Returns how many were removed. */
int scen_sweep_stale(void);

#endif
