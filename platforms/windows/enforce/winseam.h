/* winseam.h - what platform.c and doctor.c share: the plan and the launch of
 * the Windows runner seam (sandproof/platform.h). */
#ifndef SANDPROOF_WINSEAM_H
#define SANDPROOF_WINSEAM_H

#include "sandproof/platform.h"
#include "resolve.h"
#include "winenf.h"

#define WINSEAM_BACKEND "windows-token"
/* The exit code TerminateJobObject gives every process of a killed tree:
 * 137, the shell's spelling of "killed by SIGKILL". */
#define WINSEAM_KILL_CODE 137u

struct plan {
	const struct request *req;   /* the core's; outlives the plan */
	struct winplan wp;           /* winplan_build()'s */
	bool wp_built;
	struct wenf_sids sids;       /* cap and the runner's logon SID LocalFree()d;
					account set at launch */
	char *journal_dir;
	wchar_t *app;                /* the resolved command, or NULL (exe_errno) */
	int exe_errno;
	wchar_t *cmdline, *env, *cwd;
	DWORD max_procs;             /* 0: no job process bound */
	struct enforcement enf;
};

struct launch {
	struct plan *plan;
	HANDLE base;                 /* the sandbox account's logon, or NULL: the runner */
	struct wenf_sids run;        /* the SIDs of this run (logon: the base token's) */
	PSID account, base_logon;    /* LocalFree()d */
	struct wdesk desk;           /* the run's window station and desktop */
	HANDLE token, job;
	struct acl_journal j;
	HANDLE ws_lock;              /* the workspace lock, or INVALID_HANDLE_VALUE */
	struct wfp_session wfp;
	PROCESS_INFORMATION pi;
	pid_t pid;                   /* -1: nothing started */
};

/* Copy a backend error into the seam's.  Returns -err. */
int winseam_fail(struct setup_error *out, const struct wenf_error *e);

/* launch.c: the workspace lock, the ACEs (journalled first), the sandbox
 * account when the plan's base is one, the WFP filters; then the token,
 * the desktop, the job, the canaries and the process (suspended, assigned,
 * resumed); and the undo of all of it, every part that was made.  0 or
 * -errno with *e filled. */
int winseam_launch_apply(struct launch *l, struct wenf_error *e);
int winseam_launch_start(struct launch *l, const struct launch_stdio *io, struct wenf_error *e);
int winseam_launch_undo(struct launch *l, struct wenf_error *e);


/* The compat layer's (platforms/windows/compat): registers a started child so
 * the core's waitpid() reaps it; it duplicates the handle. */
int wincompat_child_add(int pid, void *process_handle);

#endif
