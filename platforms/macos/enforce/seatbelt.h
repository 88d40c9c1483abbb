/* seatbelt.h - what the files of the macOS runner backend share
 * (platforms/macos/README.md, "The backend").
 *
 * One plan per run: the request (owned by the core, outlives the plan),
 * the profile sbpl_generate() made for it, the per-run private temp
 * directory, the resolved command and the argv and environment
 * sandbox-exec is started with.  Native calls (the unified log, OS facts)
 * are `#ifdef __APPLE__`; elsewhere this is the posix-sim, whose
 * sandbox-exec (SP_SANDBOX_EXEC, fixed at build time) confines nothing. */
#ifndef SANDPROOF_SEATBELT_H
#define SANDPROOF_SEATBELT_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "sandproof/platform.h"
#include "sbpl.h"
#include "unilog.h"

#ifndef SP_SANDBOX_EXEC
#error "SP_SANDBOX_EXEC: the build fixes the launcher's path (CMakeLists.txt)"
#endif

/* SEATBELT_TMP_FALLBACK: the runner's temp directory when TMPDIR is not
 * set; resolved before use (macOS: /private/tmp).  The sim runs on Linux,
 * where /tmp is canonical but refused by the generator's macOS spelling
 * rule, so it uses /dev/shm, as its harness does (prims_temp_root). */
#ifdef __APPLE__
#define SEATBELT_BACKEND "seatbelt"
#define SEATBELT_TMP_FALLBACK "/tmp"
#else
#define SEATBELT_BACKEND "seatbelt-sim" /* never "seatbelt": nothing confined */
#define SEATBELT_TMP_FALLBACK "/dev/shm"
#endif

/* sandbox-exec's own exit status when execvp of the command failed: the
 * profile was applied by then (the preflight relies on it). */
#define SEATBELT_EXIT_EXEC 71

struct rlim_plan {
	int resource;    /* RLIMIT_* */
	enum limit_id id;
	unsigned long long value;
};

struct plan {
	const struct request *req; /* the core's; outlives the plan */
	struct sbpl_profile prof;  /* sbpl_generate()'s */
	char *tmpdir;              /* the command's temp dir (owned string), or NULL */
	bool tmpdir_borrowed;      /* it is the runtime root's tmp/: never removed */
	char *exe;                 /* the command, resolved (execvp's rules), or NULL */
	int exe_errno;             /* why exe is NULL: ENOENT, EACCES, ... */
	struct strv argv;          /* sandbox-exec -p TEXT -D K=V... -- exe args... */
	struct strv envp;          /* the command's (and sandbox-exec's) environment */
	struct rlim_plan rl[2];
	size_t n_rl;
	char tag[64];              /* the profile's message tag */
	time_t started;            /* when the command was launched (the log's window) */
	unsigned name_fold;        /* namefold.h flags the profile was made for (volume.c) */
	bool case_insensitive;     /* a volume of the policy paths folds case */
	bool terminal_ioctl;       /* the profile allows ioctls on terminals (not root) */
	struct enforcement enf;
};

struct launch {
	struct plan *plan;
	pid_t pid;   /* sandbox-exec, then (same process) the command */
	pid_t pgid;  /* its own process group (a new session) */
};

/* Fill e: step "<step>:<path>" (or "<step>"), err, detail.  Returns -err. */
int seatbelt_fail(struct setup_error *e, const char *step, const char *path, int err,
		  const char *detail);

/* Every policy path of req is canonical on this host: realpath() gives
 * it back unchanged (no symlink in it; /tmp spelled /private/tmp on
 * macOS).  An absent path is allowed where the contract allows it
 * (deny_read, deny_write outside the write roots, protected names); its
 * longest existing ancestor must be canonical then.  0 or -errno with err
 * (step "<field>:<path>", ELOOP for a symlink, ENOENT for a missing one). */
int canon_check_request(const struct request *req, struct setup_error *err);

/* A fresh private directory (0700) in parent, canonical.  0, *out owned. */
int canon_tmpdir_make(const char *parent, char **out, struct setup_error *err);

/* Remove the tree at path descriptor-relative, never following a symlink
 * (a link planted in it is removed, not followed).  Best effort. */
void canon_tree_remove(const char *path);

/* The command's path by execvp's rules on its own environment's PATH.
 * 0 and *out (owned), or -ENOENT / -EACCES / -ENOMEM. */
int canon_resolve_command(const struct request *req, char **out);

/* Start sandbox-exec once with the run's profile and a command that
 * cannot exist: it must get as far as its execvp (exit 71, "sandbox-exec:
 * execvp() of '...' failed"), which proves the profile compiled and was
 * applied.  0, or -errno with err: sandbox-exec missing or not
 * executable, refusing the profile (its first line as detail), hanging. */
int seatbelt_preflight(const struct plan *p, struct setup_error *err);

/* How the volumes under req's policy paths compare names: *fold the
 * namefold.h flags for sbpl_opts.name_fold, *insensitive whether one
 * folds case (volume.c).  0. */
int volume_name_fold(const struct request *req, unsigned *fold, bool *insensitive);

/* Start argv (sandbox-exec first) as the command would be started (the
 * plan's environment, working directory, rlimits, a session of its own),
 * stdin and stderr on /dev/null, stdout read into out (NUL-terminated, at
 * most cap - 1 bytes) until EOF or ms; killed at the deadline
 * (*timed_out).  0 with *status once it ran, or -errno with err when it
 * could not be started. */
int seatbelt_run_captured(const struct plan *p, char **argv, int ms, char *out, size_t cap,
			  int *status, bool *timed_out, struct setup_error *err);

/* The canary (canary.c): before the command, what the profile must refuse
 * is tried under it; 0 when nothing got through (the checks made are
 * recorded in p->enf.seatbelt), else -errno with err, step "canary". */
int seatbelt_canary(struct plan *p, struct setup_error *err);

#endif
