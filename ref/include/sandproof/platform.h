/* platform.h - the one seam between the runner core and an OS adapter.
 *
 * The core (ref/) validates a request and supervises a run; an adapter
 * (platforms/<os>/) turns the validated request into one enforceable plan
 * and carries it out.  The adapter never calls into the core: it only sees
 * the types declared in request.h and here.
 *
 * Contract every adapter keeps (docs/CONTRACT.md, SETUP-1): when any part of
 * the requested enforcement cannot be applied, platform_prepare() or
 * platform_launch() reports a setup error and the command never runs.  No
 * path runs a command with less enforcement than it was asked for. */
#ifndef SANDPROOF_PLATFORM_H
#define SANDPROOF_PLATFORM_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "sandproof/request.h"

/* Which enforcement step failed, and why.  step is a short stable token
 * ("unshare", "mount:/home/u/proj", "seccomp", ...); err a positive errno. */
struct setup_error {
	char step[96];
	int err;
	char detail[256];
};

/* One resource limit as applied (LIM-*), in the request's unit. */
struct limit_applied {
	uint64_t value;  /* 0: not applied */
	const char *via; /* "cgroup-v2", "cgroup-v1", "rlimit", "tmpfs" */
};

/* What was really applied; reported verbatim in the outcome. */
struct enforcement {
	const char *backend;
	bool user_ns, mount_ns, pid_ns, net_ns, ipc_ns;
	bool seccomp, seccomp_notify, no_new_privs, caps_dropped;
	int landlock_abi; /* 0: Landlock not used */
	/* How the volumes of the write roots' policy paths match names, as
	 * the runner decided and acted on (META-6): "exact" (byte for byte),
	 * "case-insensitive" (at least one folds: a name it considers equal
	 * to a protected name is that name); on macOS also
	 * "normalization-insensitive" (NFC and NFD spellings are one name);
	 * NULL when the backend decides nothing of it (outcome: null). */
	const char *name_matching;
	/* Denials were read from the OS's own log after the run (macOS: the
	 * unified log); with seccomp_notify what "denials_reported" says. */
	bool denials_logged;
	struct limit_applied limits[LIMIT_COUNT];
	/* The Windows backend ("windows-token"): what it applied to this run;
	 * applied is false on every other backend, and the outcome then leaves
	 * the object out. */
	struct {
		bool applied;
		bool restricted_token, write_restricted, job_object;
		const char *integrity;       /* "medium" */
		char capability_sid[96];     /* "S-1-5-21-..." */
		unsigned acl_entries;        /* ACEs set on objects (skipped absent ones not) */
		unsigned wfp_filters;        /* block filters added */
	} windows;
	/* The Seatbelt backend ("seatbelt", "seatbelt-sim"): the canary's
	 * checks that were made before the command and that nothing got
	 * through ("loopback_connect", "protected_create", ...).  applied false
	 * on every other backend, and the outcome then leaves the object out. */
	struct {
		bool applied;
		const char *canary[6];
		size_t n_canary;
	} seatbelt;
};

/* What the limits were seen to do in one launch (LIM-7): for each limit
 * enforced through a kernel counter, its count (pids: forks refused at the
 * bound; memory: processes the kernel killed for it); and the limit whose
 * enforcement killed the command's own process, if one did.  Observed,
 * never inferred from output. */
struct limit_report {
	bool counted[LIMIT_COUNT];
	uint64_t events[LIMIT_COUNT];
	int killed_by; /* enum limit_id, or -1 */
};

/* A typed fact the runner observed, never a guess from output text. */
#define DENIAL_MAX 256
struct denial {
	char kind[24];   /* "syscall", "protected_create" */
	char what[256];  /* syscall name or host path */
};
struct denials {
	struct denial v[DENIAL_MAX];
	size_t n;
	size_t dropped; /* observed but not stored: the list is bounded */
};
static inline void denials_add(struct denials *d, const char *kind,
			       const char *what)
{
	if (d->n >= DENIAL_MAX) {
		d->dropped++;
		return;
	}
	snprintf(d->v[d->n].kind, sizeof(d->v[d->n].kind), "%s", kind);
	snprintf(d->v[d->n].what, sizeof(d->v[d->n].what), "%s", what);
	d->n++;
}

struct launch_stdio {
	int in, out, err; /* become the command's 0, 1, 2 */
};

enum launch_result {
	LAUNCH_RUNNING = 0,    /* the command was exec'd */
	LAUNCH_SETUP_FAILED,   /* enforcement could not be applied; nothing ran */
	LAUNCH_EXEC_FAILED,    /* enforcement applied, execve failed (exec_errno) */
};

struct launch_status {
	enum launch_result result;
	struct setup_error setup;
	int exec_errno;
};

struct plan;
struct launch;

/* Once per runner process, before any launch (e.g. become a child
 * subreaper so no descendant can outlive supervision).  0 or -errno. */
int platform_supervisor_init(void);

/* Validated request -> launch plan.  0, or -errno with *err filled. */
int platform_prepare(const struct request *req, struct plan **out,
		     struct setup_error *err);
void platform_plan_free(struct plan *plan);

/* Carry the plan out.  Returns 0 and a launch handle whenever a process was
 * started (even if setup then failed: st says how far it got), or -errno with
 * st->setup filled when nothing could be started.  The handle's pid must be
 * reaped by the caller; platform_release() ends the handle. */
int platform_launch(struct plan *plan, const struct launch_stdio *io,
		    struct launch **out, struct launch_status *st);

/* The one process whose wait status is the command's wait status. */
pid_t platform_pid(const struct launch *l);

/* The command's wait status, given the raw wait status of platform_pid()
 * (which may be a supervising process of the adapter's). */
int platform_status(struct launch *l, int raw_status);

/* Kill everything the launch started, daemonized descendants included.
 * Never signals a process that is not a descendant of this runner. */
int platform_kill_tree(struct launch *l);

/* Extra descriptors the supervisor must poll for this launch (seccomp
 * notifications, protected-create monitor).  Returns how many were written
 * into fds (at most max). */
int platform_pollfds(struct launch *l, struct pollfd *fds, int max);

/* Service the descriptors returned above after poll().  Records denials.
 * Returns 1 when the run must be stopped for an enforcement denial, else 0. */
int platform_service(struct launch *l, const struct pollfd *fds, int n,
		     struct denials *d);

void platform_enforcement(const struct plan *plan, struct enforcement *e);

/* After the command's process was reaped (platform_status() has seen its
 * status), before platform_release(): what the limits did (LIM-7). */
void platform_limits_observe(struct launch *l, struct limit_report *r);

/* This OS's symbolic names, the form the contract uses (OUT-6): "EACCES",
 * "SIGKILL"; a value without a name as "ERRNO_<n>" / "SIG<n>".  Never NULL;
 * valid until the next call in the same thread. */
const char *platform_errno_name(int err);
const char *platform_signal_name(int sig);

/* How this OS spells a policy path: the rules request parsing judges paths
 * by (sandproof/request.h).  NULL: POSIX (request_posix_path_rules).  Every
 * request `run` and `exec` read is parsed with them, so a path this OS
 * would resolve to another name is refused before anything is planned. */
const struct request_path_rules *platform_path_rules(void);

/* Runtime roots (RT-*) on this OS.  NULL: POSIX, the core's own walk
 * (runtime.c: '/' paths, symlinks resolved, ownership and mode bits).
 * An OS whose paths, links or permissions are not POSIX's gives all of
 * these; each returns 0 or -errno. */
struct platform_runtime_ops {
	char sep;                      /* separator of canonical paths */
	bool fold_case;                /* names compare ASCII-case-insensitively */
	/* Absolute, cleaned, links resolved through the longest existing
	 * ancestor, the rest appended lexically (runtime.h). */
	int (*canonicalize)(const char *path, char *out, size_t outlen);
	/* Open the canonical parent (created when missing and create) so that
	 * no link or reparse point is followed below its root and only the
	 * caller may create, rename or delete entries in it: -EPERM
	 * otherwise.  *out_fd a directory descriptor for the *at calls. */
	int (*open_parent)(const char *canonical, bool create, int *out_fd);
	/* The private fallback parent (RT-1) into buf. */
	int (*fallback_parent)(char *buf, size_t len);
};
const struct platform_runtime_ops *platform_runtime_ops(void);

/* What a crashed run left on the host that `gc` restores (Windows: the
 * DACL journals).  what: NULL when this OS has nothing of the kind. */
struct platform_replay {
	const char *what;              /* "ACL journals" */
	char where[512];               /* where they were looked for */
	int replayed;                  /* how many were restored */
	int err;                       /* positive errno of a failure, or 0 */
	char detail[256];              /* the failure, named */
};
/* Restore what crashed runs left (never a live run's); dry_run: change
 * nothing, only fill r->what.  0 (r says what was done) or -errno
 * (r->err, r->detail). */
int platform_replay_crashed(bool dry_run, struct platform_replay *r);

/* `sandproof-ref doctor`: print what this host supports; 0 when the whole
 * contract can be enforced here, 1 when it cannot. */
int platform_doctor(FILE *out);

/* The change report's event source (OUT-8): the OS watches the write
 * roots from before the launch, so the report costs what changed, not the
 * size of the workspace.  An OS without one (or a host that refuses it)
 * returns -ENOTSUP (or another -errno) from start with why filled: the
 * core then walks the roots before and after instead.
 *
 * start: called before the launch, after the plan; *out owns everything.
 * pollfd: a descriptor to poll during the run (-1: none); service drains
 *   it when readable, so a long run's events never pile up in the kernel.
 * finish: called after platform_release() (what the runner undid is not
 *   the command's); emits every created, modified and deleted path under
 *   the write roots, each once, absolute, through emit.  0: complete; 1:
 *   incomplete (events were lost or a bound was reached: why says which;
 *   what was emitted is certain); -errno: nothing can be said.
 * free: releases everything (start's descriptors and marks). */
enum platform_change { PLATFORM_CREATED, PLATFORM_MODIFIED, PLATFORM_DELETED };
struct platform_watch;
typedef void platform_change_fn(void *ctx, enum platform_change op, const char *path);
int platform_watch_start(const struct request *req, struct platform_watch **out,
			 char *why, size_t whylen);
int platform_watch_pollfd(const struct platform_watch *w);
void platform_watch_service(struct platform_watch *w);
int platform_watch_finish(struct platform_watch *w, platform_change_fn *emit, void *ctx,
			  char *why, size_t whylen);
void platform_watch_free(struct platform_watch *w);

/* After the command's process was reaped: undo host-side effects (remove a
 * protected name the command created, ...) and free the handle.  Returns 1
 * when that found a policy violation (the outcome becomes
 * enforcement_denied), else 0. */
int platform_release(struct launch *l, struct denials *d);

#endif
