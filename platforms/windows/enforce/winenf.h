/* winenf.h - what the pieces of the Windows runner backend share
 * (platforms/windows/enforce/README.md).
 *
 * Each piece is a small file with one prefix: token_ (the restricted token),
 * acl_ (ACEs applied through reparse-refusing handles), acl_journal_ (the
 * crash-safe record of prior DACLs), job_ (the job object), spawn_ (the
 * process), wfp_ (the network filters).  None of them includes the runner
 * seam (sandproof/platform.h): they report failures as struct wenf_error,
 * which platform.c copies into the seam's struct setup_error, so the Wine
 * smoke (platforms/windows/tests/winsmoke.c) links them without the POSIX
 * compat layer the seam needs.
 *
 * Every function returns 0 or -errno (EPERM, EACCES, ELOOP, ENOENT, ENOMEM,
 * EIO, ...), and fills *e (when e is not NULL) with the step that failed, the
 * same errno and a detail naming the Win32 call and its error code.  Strings
 * are UTF-8 at this API and UTF-16 (wchar_t) only at the Win32 calls. */
#ifndef SANDPROOF_WINENF_H
#define SANDPROOF_WINENF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <windows.h>

#include "winplan.h"
#include "wjournal.h"

/* The same shape as the seam's struct setup_error (platform.h). */
struct wenf_error {
	char step[96];
	int err;       /* positive errno */
	char detail[256];
};

/* Fill e (may be NULL) with step (+ ":" path when path is not NULL), err and a
 * printf-style detail.  Returns -err. */
int wenf_fail(struct wenf_error *e, const char *step, const char *path, int err,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A Win32 error code as the closest errno (ERROR_ACCESS_DENIED -> EACCES,
 * ERROR_FILE_NOT_FOUND -> ENOENT, ERROR_PRIVILEGE_NOT_HELD -> EPERM, ...);
 * EIO for what has no closer meaning. */
int wenf_errno(DWORD code);

/* UTF-8 -> newly allocated UTF-16 (free()), NULL on invalid UTF-8 or ENOMEM. */
wchar_t *wenf_wide(const char *s);
/* Running under Wine (ntdll exports wine_get_version): its restricted
 * tokens, ACL checks for other SIDs and WFP are stubs that report success,
 * so nothing may run there as if enforced (platform_prepare refuses). */
bool wenf_under_wine(void);
/* UTF-16 -> newly allocated UTF-8 (free()), NULL on failure. */
char *wenf_utf8(const wchar_t *w);

/* ---- token.c ---------------------------------------------------------- */

/* The per-workspace capability SID, S-1-5-21-a-b-c-d: a..d are the first
 * 16 bytes (four little-endian words) of SHA-256("sandproof-capability-v1" NUL
 * || UTF-16LE(upper-cased workspace path)).  Deterministic: the same
 * workspace gets the same SID in every run, so a journal replay and a doctor
 * see the SID a crashed run used.  *out is LocalFree()d by the caller. */
int token_capability_sid(const char *workspace, PSID *out, struct wenf_error *e);

/* The logon SID (SE_GROUP_LOGON_ID) of the current process token, or of
 * token h; *out is LocalFree()d by the caller. */
int token_logon_sid(PSID *out, struct wenf_error *e);
int token_logon_sid_of(HANDLE h, PSID *out, struct wenf_error *e);

/* The SIDs a plan names, resolved for one run (the caller's). */
struct wenf_sids {
	PSID cap;       /* the workspace's capability SID */
	PSID logon;     /* the logon SID of the token the command's derives from */
	PSID account;   /* the sandbox account's user SID, or NULL */
};

/* The SID a plan names: one of s's, or Everyone (S-1-1-0, static).  NULL
 * when s lacks it. */
PSID token_plan_sid(enum winplan_sid which, const struct wenf_sids *s);

/* The command's primary token, derived from base (NULL: the current
 * process token) by t's recipe: CreateRestrictedToken with t's flags and
 * restricting SIDs, every group deny-only but those t keeps, every
 * privilege deleted but t's kept one, integrity lowered to t's; then
 * token_verify.  *out CloseHandle()d by the caller. */
int token_restricted_create(const struct winplan_token *t, HANDLE base,
			    const struct wenf_sids *s, HANDLE *out, struct wenf_error *e);
/* Refuse (-EPERM, step "token:verify") a token with an enabled group t does
 * not keep, a privilege but t's kept one, or an integrity above t's. */
int token_verify(HANDLE tok, const struct winplan_token *t, struct wenf_error *e);

/* Whether the current process token is elevated (TokenElevation). */
bool token_is_elevated(void);

/* ---- acl_journal.c ---------------------------------------------------- */

struct acl_journal {
	HANDLE file;      /* held open with an exclusive LockFileEx lock */
	wchar_t *path;    /* the journal file */
	size_t entries;   /* appended so far */
};

/* The directory journals live in: %LOCALAPPDATA%\sandproof\acl-journal
 * (created).  Newly allocated UTF-8 in *out. */
int acl_journal_dir(char **out, struct wenf_error *e);

/* Create a fresh journal in dir (named by pid and a tick count), locked
 * exclusively for the whole run: a concurrent replay skips it. */
int acl_journal_open(struct acl_journal *j, const char *dir, struct wenf_error *e);

/* Append len bytes (one whole line of the journal engine, wjournal.h) at
 * the journal's end and flush them (WriteFile + FlushFileBuffers) before
 * returning: the change that follows is journalled even when the runner
 * dies right after it.  0 or -errno. */
int acl_journal_write(struct acl_journal *j, const char *line, size_t len);

/* The journal engine's operations as Win32 calls (acl_wj.c): ctx's journal
 * for appends (NULL: a replay, which appends nothing), ctx's error filled. */
struct acl_wj {
	struct acl_journal *j;
	struct wenf_error *e;
};
struct wj_ops acl_wj_ops(struct acl_wj *ctx);

/* Restore every entry of j in reverse order (wj_replay: the prior DACL set
 * back on the same object; a directory the runner created, or intended to,
 * removed when empty; a torn last line skipped), then close and delete the
 * journal.  Returns 0, or the first -errno (every entry is still attempted;
 * the journal is kept, for a later replay, on failure). */
int acl_journal_restore(struct acl_journal *j, struct wenf_error *e);

/* Restore the journal file at path (UTF-16) the same way: only when its
 * exclusive lock can be taken (a live run holds it) and only on the object
 * the entry names (same volume serial and file index, no reparse point). */
int acl_journal_restore_file(const wchar_t *path, struct wenf_error *e);

/* The workspace's lock (dir\ws-<capability SID>.lock), taken exclusively
 * and fail-immediately for the whole run: two runs on one workspace would
 * each journal the DACLs they found, and the first to finish would restore
 * away the other's ACEs while it still runs.  -EBUSY (step "acl_lock")
 * when another run holds it.  *out is closed by the caller (the lock goes
 * with the handle, and with a crashed process). */
int acl_journal_workspace_lock(const char *dir, PSID cap, HANDLE *out, struct wenf_error *e);

/* Replay every journal in dir that no live run holds (a crashed run's).
 * Returns the number replayed, or -errno; a journal that fails stays. */
int acl_journal_replay(const char *dir, struct wenf_error *e);

/* ---- acl.c ------------------------------------------------------------ */

/* Open path for READ_CONTROL|WRITE_DAC (plus access) with
 * FILE_FLAG_OPEN_REPARSE_POINT|FILE_FLAG_BACKUP_SEMANTICS and refuse the
 * handle (ELOOP, step "acl") when the object is a reparse point or the
 * handle's final path is not path (an ancestor junction or link redirected
 * the open).  0 and *out, *info; or -errno (ENOENT when absent). */
int acl_open_checked(const wchar_t *path, DWORD access, HANDLE *out,
		     BY_HANDLE_FILE_INFORMATION *info, struct wenf_error *e);

/* The checks acl_open_checked makes on an opened handle, as pure functions
 * (the smoke feeds them injected values): nonzero when refused. */
bool acl_attrs_refused(DWORD attrs);
/* A reparse point refused by its tag (winreparse.h); why describes the tag
 * (refused or not) when attrs hold FILE_ATTRIBUTE_REPARSE_POINT. */
bool acl_reparse_refused(DWORD attrs, DWORD tag, char *why, size_t n);
bool acl_final_path_differs(const wchar_t *want, const wchar_t *final);
/* The final path of an open handle (GetFinalPathNameByHandleW, normalised,
 * DOS volume name), malloc()ed, or NULL. */
wchar_t *acl_final_path(HANDLE h);

/* Apply one entry of the plan: open checked (honouring ace->absent),
 * journal the prior DACL, merge one ACE per SID of ace->sids (resolved in
 * s) with SetEntriesInAclW, SetSecurityInfo on the handle.  On a file the
 * inheritance flags are dropped and an inherit-only entry is skipped.
 * *applied is set when ACEs were applied (false: skipped). */
int acl_apply(const struct winplan_ace *ace, const struct wenf_sids *s, struct acl_journal *j,
	      bool *applied, struct wenf_error *e);

/* Re-apply the inheritable ACEs of the directory dir to everything below it
 * (propagate.c): children listed and opened through handles as themselves,
 * a reparse point re-secured but never descended, each child's DACL its
 * explicit ACEs plus what CreatePrivateObjectSecurityEx says it inherits,
 * set with SetKernelObjectSecurity; a child reachable by another name (a
 * file with several hard links, a directory whose final path is not its
 * listed one) left untouched.  *rewritten and *skipped (each may be NULL)
 * count the DACLs written and the children left.  0 or -errno (step
 * "acl:propagate"). */
int acl_propagate(HANDLE dir, unsigned long *rewritten, unsigned long *skipped,
		  struct wenf_error *e);

/* The DACL of an open handle as SDDL (LocalFree()d by the caller). */
int acl_sddl_of(HANDLE h, wchar_t **out, struct wenf_error *e);

/* Set the DACL in sddl on h alone (protected or not as the SDDL says;
 * SetKernelObjectSecurity: nothing propagates). */
int acl_sddl_set(HANDLE h, const wchar_t *sddl, struct wenf_error *e);

/* ---- job.c ------------------------------------------------------------ */

/* A job object that kills every process in it when its last handle closes
 * (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), and, when max_procs > 0, admits at
 * most max_procs active processes; with the UI restrictions ui
 * (JOB_OBJECT_UILIMIT_*, 0: none) and, when die_on_exception, a process that
 * crashes ends (JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION).  Breakaway is
 * not allowed. */
int job_create(DWORD max_procs, DWORD ui, bool die_on_exception, HANDLE *out,
	       struct wenf_error *e);
/* Read the job's limits and UI restrictions back: -EIO (step "job") when
 * they are not what job_create was asked for. */
int job_verify(HANDLE job, DWORD max_procs, DWORD ui, bool die_on_exception,
	       struct wenf_error *e);

/* Tree kill: every process of the job, descendants included. */
int job_kill(HANDLE job, UINT code);

/* How many processes of the job are alive (JobObjectBasicAccountingInformation). */
int job_active(HANDLE job, DWORD *n);

/* ---- spawn.c ---------------------------------------------------------- */

/* Quote argv into one command line that CommandLineToArgvW (and the MSVC
 * runtime) splits back into exactly argv; newly allocated UTF-16.  An
 * argument can never inject another: quotes and the backslashes before
 * them are escaped.  -EINVAL for an empty argv. */
int spawn_cmdline(const char *const *argv, size_t n, wchar_t **out);

/* An environment block of exactly the n "KEY=VALUE" strings, sorted by
 * name as Windows sorts one (case-insensitive ordinal), double-NUL
 * terminated, UTF-16.  -EINVAL for an entry without a name, or two entries
 * whose names differ only in case (one variable on Windows). */
int spawn_envblock(const char *const *env, size_t n, wchar_t **out);

struct spawn_req {
	HANDLE token;               /* NULL: the runner's own (smoke only) */
	bool other_user;            /* token is another user's: CreateProcessWithTokenW */
	const wchar_t *desktop;     /* "station\\desktop", or NULL: the runner's */
	HANDLE job;                 /* the process is assigned before it runs */
	const wchar_t *app;         /* resolved executable, or NULL (from cmdline) */
	wchar_t *cmdline;           /* CreateProcess may write into it */
	const wchar_t *env;         /* spawn_envblock's */
	const wchar_t *cwd;
	HANDLE in, out, err;        /* the three handles the child gets, nothing else */
};

/* CreateProcess(AsUser)W suspended with PROC_THREAD_ATTRIBUTE_HANDLE_LIST
 * naming exactly in/out/err (inheritable only for this call), assigned to
 * the job, then resumed.  A process that cannot be assigned is terminated
 * and never resumed.  *pi holds the process and thread handles.  With
 * other_user: CreateProcessWithTokenW (the secondary logon service starts
 * it, passing it the three standard handles and no other; the runner needs
 * SeImpersonatePrivilege, which an elevated administrator holds). */
int spawn_start(const struct spawn_req *r, PROCESS_INFORMATION *pi, struct wenf_error *e);

/* spawn_start's two halves (the smoke observes the process between them):
 * the process created suspended; then assigned to job (NULL: none) and
 * resumed, or terminated when either fails (pi zeroed then). */
int spawn_create_suspended(const struct spawn_req *r, PROCESS_INFORMATION *pi,
			   struct wenf_error *e);
int spawn_assign_resume(HANDLE job, PROCESS_INFORMATION *pi, struct wenf_error *e);

/* ---- wfp.c ------------------------------------------------------------ */

struct wfp_session {
	HANDLE engine;  /* FWPM_SESSION_FLAG_DYNAMIC: filters die with it */
	size_t added;
};

/* Open a dynamic session and add every filter of the plan, each matching
 * through FWPM_CONDITION_ALE_USER_ID a token granted FWP_ACTRL_MATCH_FILTER
 * by a descriptor naming the filter's SIDs (resolved in sids), in one
 * transaction.  Not elevated: -EPERM, step "network", nothing added. */
int wfp_apply(const struct winplan_filter *f, size_t n, const struct wenf_sids *sids,
	      struct wfp_session *s, struct wenf_error *e);

/* Close the session (its filters vanish). */
void wfp_close(struct wfp_session *s);

/* Whether the filtering engine can be opened at all (doctor). */
int wfp_reachable(struct wenf_error *e);

/* ---- account.c ---------------------------------------------------------- */

/* The local user name's SID (LocalFree()); -ENOENT when there is none. */
int account_sid(const char *name, PSID *out, struct wenf_error *e);
/* The sandbox account exists (created when absent), is not in
 * Administrators (else -EPERM), may log on as a batch job; its SID in *sid
 * (LocalFree()).  Elevated only. */
int account_ensure(const char *name, PSID *sid, struct wenf_error *e);
/* A batch logon of the account with a fresh password (set, used, wiped;
 * serialised by lock_dir\account.lock).  *token CloseHandle()d. */
int account_logon(const char *name, const char *lock_dir, HANDLE *token, struct wenf_error *e);

/* ---- desktop.c ---------------------------------------------------------- */

struct wdesk {
	HWINSTA ws;
	HDESK desk;
	wchar_t name[160];  /* "station\\desktop", for STARTUPINFO.lpDesktop */
};

/* A window station and desktop of the run's own, granting SYSTEM, the
 * runner's user and logon (the command token's logon SID) and no one else. */
int desktop_create(PSID logon, struct wdesk *d, struct wenf_error *e);
void desktop_close(struct wdesk *d);

/* ---- canary.c ----------------------------------------------------------- */

/* How a canary starts: exactly as the command will (its token, job, desktop). */
struct canary_spawn {
	HANDLE token;
	bool other_user;            /* CreateProcessWithTokenW, as the command */
	HANDLE job;
	const wchar_t *desktop;
	const wchar_t *exe;         /* canary_exe() */
};

/* sandproof-canary.exe next to this process's executable (free()). */
wchar_t *canary_exe(void);
/* A loopback TCP connect and UDP datagram from the canary: 0 when both are
 * refused; -EPERM (step "network:canary") when either gets through; any
 * other failure to run or read the canary also refuses (-errno). */
int canary_network(const struct canary_spawn *s, struct wenf_error *e);
/* A file the runner makes in dir opened by the canary for DELETE, WRITE_DAC
 * and WRITE_DATA: 0 when all three are refused; -EPERM (step "acl:canary")
 * when one is granted; the file is removed. */
int canary_outside(const struct canary_spawn *s, const char *dir, struct wenf_error *e);

#endif
