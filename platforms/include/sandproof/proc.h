/* proc.h - the harness's process launcher: capture, timeout, tree kill,
 * and the race and fault filters (hold, hold_count, fault).
 *
 * proc_run() starts one program and waits for it:
 *   - a new session (setsid: no controlling terminal, so terminal injection
 *     from the program cannot reach a real terminal), stdin a pipe fed with
 *     the given bytes then closed, stdout and stderr captured into buffers
 *     bounded by out_limit each (the rest is read and dropped, never left to
 *     block the program);
 *   - optionally joined to a user and a network namespace (fds to setns
 *     into), and/or in a private mount namespace with propagation private
 *     (mounts made by the program never reach the caller's mount table, file
 *     writes land on the real file system); when the caller lacks
 *     CAP_SYS_ADMIN this is done inside a new user namespace with an
 *     identity map (same uid and gid, setgroups denied);
 *   - optionally under one seccomp filter (default allow, loaded in the
 *     child after no_new_privs, right before execve, inherited by the whole
 *     tree) for:
 *       FAULT  one syscall fails with an errno, from its nth call on (all
 *              processes of the tree count, in arrival order), or with
 *              fault_once only at its nth call (single shot: a step that
 *              retries, or that another layer masks, is then seen as such).
 *              nth <= 1 without once is a plain SECCOMP_RET_ERRNO rule,
 *              and then more syscalls may fail alike (fault_more_syscalls);
 *              otherwise user notification: the parent continues every
 *              call but the faulted ones, which it answers with the error;
 *       HOLD   user notification for a list of syscalls: the parent counts
 *              every notification (tree-wide, arrival order) and at the k-th
 *              calls action(ctx, k, name, pid) while that call is blocked,
 *              then lets it continue; every other call continues at once.
 *              hold_at = 0 only counts (hold_count).  With hold_comm set,
 *              only calls of processes whose /proc/PID/comm equals it count
 *              (the others continue at once): "the command's first sleep"
 *              rather than the runner's own.
 *     A program that installs its own seccomp filter composes with this
 *     one: the kernel runs both, the stricter action wins (its own ERRNO
 *     or KILL beats our notification), and a second listener in the same
 *     chain is refused by the kernel with EBUSY (filter.c then falls back
 *     to errno mode).  The program's own execve is a call like any other:
 *     it is counted when "execve" is held or faulted.
 *
 * Processes: at the timeout the whole tree the run started is killed with
 * SIGKILL: the session's process group, and every descendant of the caller
 * that descends from the program or from an orphan re-parented to the
 * caller during the run.  Orphans re-parent to the caller only if it is a
 * child subreaper: call proc_init() once, first.  When the program exits
 * by itself, processes it left behind are NOT killed (so a census can see
 * them) unless kill_leftovers is set; proc_kill_descendants() ends them.
 * Kills go through pidfds opened and verified against the process's start
 * time, never by name, never to a process that is not a descendant.
 *
 * Several runs at once (proc_start, the harness's `run --jobs`): without
 * tree_only a run's kills and its leftover count take in every descendant
 * of the caller that existed not before it, so the caller's other runs
 * started since - and their programs, which it may also reap - count as
 * its own.  With tree_only the timeout kill, proc_kill and the leftovers
 * only ever touch the program and the processes below it while it lives
 * (Linux: those whose top ancestor below the caller is the program; POSIX:
 * its process group; Windows: its job, as always), never another child of
 * the caller: an orphan the program leaves re-parents to the caller (a
 * subreaper) as nobody's run, and is the caller's to end
 * (proc_kill_descendants) once no run is going.  So on Linux leftovers is
 * 0 once the program is reaped, and kill_leftovers ends nothing more.
 *
 * Single-threaded callers only: fork, PR_SET_PDEATHSIG and the subreaper
 * attribute are per thread or per process.  Ownership of all results passes
 * to the caller (proc_result_free). */
#ifndef SANDPROOF_PROC_H
#define SANDPROOF_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_OUT_LIMIT (4u << 20)  /* default bound of stdout/stderr */
#define PROC_TIMEOUT_MS 30000      /* default timeout */
#define PROC_DRAIN_MS 200          /* default wait for EOF after exit */
#define PROC_MAX_HOLD 64           /* syscalls in one hold list */
#define PROC_MAX_KEEP 8            /* descriptors in one keep_fds list */

/* The hold action.  Runs in the caller while call number k (1-based) of a
 * held syscall, made by pid (in the caller's pid namespace; 0 if not
 * visible there), is blocked.  Its return value is reported as action_rc;
 * the call continues whatever it returns. */
typedef int (*proc_action_fn)(void *ctx, int k, const char *syscall, pid_t pid);

struct proc_opts {
	char *const *argv;        /* argv[0] a path, or a name searched in envp's
				     PATH (default /usr/local/bin:/usr/bin:/bin)
				     as execvp does: an empty element is the
				     working directory */
	char *const *envp;        /* NULL: the caller's environ */
	const char *cwd;          /* NULL: the caller's */
	const void *stdin_data;   /* may be NULL when stdin_len is 0 */
	size_t stdin_len;
	size_t out_limit;         /* 0: PROC_OUT_LIMIT */
	int timeout_ms;           /* <= 0: PROC_TIMEOUT_MS */
	int drain_ms;             /* <= 0: PROC_DRAIN_MS */
	bool kill_leftovers;      /* kill the tree when the program exits too */
	bool tree_only;           /* the run is the program's own tree: see
				     "Several runs at once" above */
	bool inherit_stderr;      /* the program's stderr is the caller's, not
				     captured (err stays empty) */
	const int *keep_fds;      /* descriptors (>= 3) the program inherits at
				     their numbers; every other one is closed */
	int n_keep_fds;           /* 0..PROC_MAX_KEEP */

	int userns_fd;            /* -1: none; joined first */
	int netns_fd;             /* -1: none; joined second */
	bool private_mounts;      /* new mount ns, "/" made MS_REC|MS_PRIVATE */

	const char *fault_syscall; /* NULL: no fault */
	int fault_errno;          /* 1..4095 */
	unsigned int fault_nth;   /* 0 or 1: every call; n: from the nth on */
	bool fault_arg1_set;      /* only calls whose second argument, as 32 bits, */
	uint64_t fault_arg1;      /* is fault_arg1 (fault_nth 0 or 1 only) */
	bool fault_once;          /* only the nth call (0 or 1: the first) fails */
	const char *const *fault_more_syscalls; /* NULL-terminated, NULL: none;
				     more syscalls failing like fault_syscall
				     (every call: fault_nth 0 or 1, not once) */

	const char *const *hold_syscalls; /* NULL-terminated; NULL: no hold */
	int hold_at;              /* k >= 1 runs action at the k-th; 0 counts */
	proc_action_fn hold_action; /* may be NULL (then nothing runs) */
	void *hold_ctx;
	const char *hold_comm;    /* NULL: every process counts; else only
				   * processes of this comm (<= 15 bytes) */
	const char *hold_path;    /* Windows: the hold names a path, not
				   * syscalls: opens of it that break an oplock
				   * are counted (hold_syscalls NULL); the
				   * action gets the path as its "syscall" and
				   * pid 0.  NULL elsewhere: the POSIX layers
				   * refuse it (-EOPNOTSUPP) */

	/* A signal to the program alone (by its pid, held so it cannot be a
	 * recycled one; never to its group or its descendants), sent once:
	 * signal_after_ms after it started, or, with signal_when, after that
	 * path first exists (looked for every PROC_SIGNAL_POLL_MS while the
	 * program lives, so a loaded machine cannot make the signal come
	 * before the scene is set) and then signal_after_ms more.  Never sent
	 * once the program ended.  The launcher sends it itself, never
	 * through a shell: a non-interactive shell's background job starts
	 * with SIGINT and SIGQUIT ignored, and would hide how the program
	 * takes them.  Windows sends
	 * SIGKILL only (TerminateProcess of the program); any other signal is
	 * refused (-EOPNOTSUPP) before anything starts.  Like the timeout, it
	 * is sent only while proc_run or proc_wait runs. */
	int signal_no;            /* 0: none */
	int signal_after_ms;      /* >= 0 */
	const char *signal_when;  /* NULL: counted from the start; needs signal_no */
};

#define PROC_SIGNAL_POLL_MS 20

/* Initialise opts: every fd -1, everything else zero/default. */
void proc_opts_init(struct proc_opts *o);

struct proc_result {
	/* how the program ended */
	bool exited;          /* exit_code valid */
	int exit_code;
	int term_signal;      /* signal that killed it, or 0 */
	bool timed_out;       /* killed at the timeout */
	int setup_err;        /* != 0: failed before or at execve (errno);
				 exit_code is then 127 */
	char setup_step[32];  /* "setns user", "mount private", "seccomp",
				 "exec", ... */
	uint64_t duration_ms; /* start to end of the program */
	pid_t pid;            /* the program's process id; 0 if none started */
	long maxrss_kib;      /* the kernel's peak resident size of the program
				 and of every descendant reaped below it */
	uint64_t cpu_ms;      /* their CPU time, user + system */

	/* captured output, NUL-terminated, owned */
	char *out, *err;
	size_t out_len, err_len;
	bool out_truncated, err_truncated;

	/* filters */
	uint64_t hold_calls;  /* notifications of held syscalls received */
	bool hold_hit;        /* the hold_at-th arrived and action ran */
	int action_rc;        /* action's return value */
	pid_t hold_pid;       /* the process whose call was held */
	uint64_t fault_calls; /* nth >= 2 or once: calls of the faulted syscall seen */
	uint64_t fault_failed;/* nth >= 2 or once: of these, answered with the error */
	char hold_note[192];  /* Windows (hold_path): the one line saying what
				 the hold observed; "" elsewhere */

	/* processes */
	int leftovers;        /* processes of the run alive once the program
				 ended (after a timeout kill, if any), counted
				 before kill_leftovers ends them */
	int killed;           /* processes the launcher killed */
	bool signalled;       /* signal_no was sent (to the program not yet
				 reaped: it may have been ending) */
};

/* 0 on success (the program ran or failed to start: see setup_err), or
 * -errno when the launch itself failed (-EINVAL: bad options, unknown
 * syscall name, a faulted syscall also held, more fault syscalls with a
 * counted fault, a negative signal_no or signal_after_ms, signal_when
 * empty or without signal_no; -ENOSYS: no user notification here).  *r must be proc_result_free()d in both cases. */
int proc_run(const struct proc_opts *o, struct proc_result *r);

void proc_result_free(struct proc_result *r);

/* The same launch without waiting, for a caller that must stay responsive
 * (the harness's scenario processes, sp.spawn_bg):
 *
 *   proc_start  starts the program as proc_run does and returns once its
 *               stdin_data is written in full (or the program closed its
 *               stdin, or ended) and a notification listener is taken:
 *               give stdin only to a program that reads it first;
 *   proc_wait   advances the run for up to wait_ms (< 0: to its end; 0:
 *               one pass, taking what is ready and waiting for nothing):
 *               captures output, answers the filter, kills the tree at the
 *               timeout.  1 when the run is over (the program ended and its
 *               output is drained, or it was killed), 0 when wait_ms passed;
 *   proc_kill   kills the run now as at the timeout (timed_out stays false)
 *               and reaps the program;
 *   proc_end    kills the run if it is not over, then counts and (with
 *               kill_leftovers) ends the leftovers as proc_run does, fills r
 *               and frees h.  Returns what proc_run would: 0, or the first
 *               -errno of the run itself.
 *
 * o, and everything it points to, must stay valid until proc_end: the run
 * reads it throughout.  Nothing answers a held call, drains a pipe, sends
 * the signal or watches the timeout between two proc_wait calls.
 * proc_run is proc_start, proc_wait(h, -1), proc_end.
 * proc_start: 0 and *h, or -errno (nothing started, *h NULL). */
struct proc_handle;
int proc_start(const struct proc_opts *o, struct proc_handle **h);
int proc_wait(struct proc_handle *h, int wait_ms);
void proc_kill(struct proc_handle *h);
int proc_end(struct proc_handle *h, struct proc_result *r);

/* Make the calling process a child subreaper, so orphans of anything it
 * starts re-parent to it instead of escaping to init.  0 or -errno
 * (-EOPNOTSUPP where the OS has no such attribute). */
int proc_init(void);

/* In a process just forked by the caller: be killed (SIGKILL) when the
 * thread that forked it dies, so a harness killed mid-run leaves nothing
 * behind.  0 or -errno (-EOPNOTSUPP where the OS cannot). */
int proc_die_with_parent(void);

/* Kill every descendant of the calling process (SIGKILL through verified
 * pidfds), reap those that are its children, repeat until none is left or
 * wait_ms passes.  Returns the number killed (>= 0), or -errno
 * (-EOPNOTSUPP where the OS has no process table to find them in).  This ends
 * swappers, labs and everything else the caller started: call it at the end
 * of a scenario. */
int proc_kill_descendants(int wait_ms);

/* Whether a process of this pid exists now (the stale temp-dir sweep asks
 * it of the pid a directory is named after; a pid is only a name, never an
 * identity: the sweep also takes the directory's lock).  1 it exists (or
 * exists and may not be signalled or opened), 0 no such process, -errno
 * when it cannot be told (never "gone" then). */
int proc_pid_exists(long pid);

#endif
