/* proc_int.h - what the windows proc.h files share (private). */
#ifndef SANDPROOF_WIN_PROC_INT_H
#define SANDPROOF_WIN_PROC_INT_H

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdbool.h>
#include <stdint.h>

#include "sandproof/proc.h"

/* ---- proc_cmdline.c: argv, environment and program as CreateProcessW
 * wants them.  Each returns a malloc'd string, or NULL with *err an errno
 * value (EINVAL: an argument Windows cannot carry; ENOENT: no program). */
wchar_t *wproc_wide(const char *s, int *err);
/* The command line the CRT's parser splits back into argv exactly. */
wchar_t *wproc_cmdline(char *const *argv, int *err);
/* "k=v\0...\0\0" of envp (NULL envp: NULL, the caller's environment). */
wchar_t *wproc_envblock(char *const *envp, int *err);
/* The program argv[0] names: a path (with '/', '\' or ':'), tried as it
 * is then with ".exe"; else the first dir\name or dir\name.exe of envp's
 * PATH (the caller's when envp has none), as execvp searches. */
wchar_t *wproc_program(const char *name, char *const *envp, int *err);

/* ---- proc_launch.c: one program started suspended, assigned to job, then
 * resumed.  What it gets: stdin the read end of a pipe whose write end is
 * *in (sized to hold stdin_len, so feeding it rarely blocks), stdout and
 * stderr pipes whose read ends are *out and *err (*err NULL with
 * inherit_stderr: the caller's stderr), and nothing else.  0 and the
 * process handle in *process, or an errno value with *step naming where
 * it failed ("exec": no such program; nothing is left running). */
struct wproc_ends {
	HANDLE process, in, out, err;
	DWORD pid;
};
int wproc_launch(const struct proc_opts *o, HANDLE job, struct wproc_ends *e,
		 const char **step);

/* ---- proc_job.c: the job object of one run, and the runs still open. */
/* A job that kills every process in it when its last handle closes; every
 * process started in it, and all their descendants, stay in it (no
 * breakaway).  NULL with *err on failure. */
HANDLE wproc_job_new(int *err);
/* Processes alive in the job now (0 when it cannot be told). */
int wproc_job_active(HANDLE job);
/* Terminates every process in the job and waits (up to wait_ms) for the
 * program to end; the number of processes that were alive. */
int wproc_job_kill(HANDLE job, HANDLE program, DWORD wait_ms);
/* CPU time (user + kernel) of every process the job held, in ms. */
uint64_t wproc_job_cpu_ms(HANDLE job);
/* The open runs' jobs (proc_kill_descendants ends them). */
void wproc_live_add(HANDLE job);
void wproc_live_remove(HANDLE job);
int wproc_live_kill_all(DWORD wait_ms);

/* ---- proc_hold.c: the hold of o->hold_path (an oplock, in a thread).
 * wproc_hold_start: the first oplock granted before the run starts, 0
 * and *out, or -errno (nothing left running).  wproc_hold_serve runs the
 * action on the caller's thread when the hold asks (its event
 * wproc_hold_want); wproc_hold_end stops and joins the hold, fills
 * hold_calls, hold_hit, action_rc and hold_note, frees it: 0, or the
 * hold's -errno. */
struct wproc_hold;
int wproc_hold_start(const struct proc_opts *o, struct wproc_hold **out);
HANDLE wproc_hold_want(struct wproc_hold *w);
void wproc_hold_serve(struct wproc_hold *w);
int wproc_hold_end(struct wproc_hold *w, struct proc_result *r);

#endif
