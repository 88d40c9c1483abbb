/* wm_ref.h - reference tokens: what the model assumes a runner's token and
 * the sandbox account's token hold (inputs, not rules).  Each is the set of
 * groups, privileges and integrity `whoami /all` shows for such a logon on
 * a default Windows 10/11 or Server 2022 install (README.md, "Inputs"); the
 * native CI leg prints the real ones (`whoami /groups /priv`). */
#ifndef SANDPROOF_WM_REF_H
#define SANDPROOF_WM_REF_H

#include "wm.h"

enum wm_ref {
	WM_REF_ADMIN_ELEVATED = 0, /* an administrator, UAC-elevated (high) */
	WM_REF_ADMIN_FILTERED,     /* the same user, not elevated (medium) */
	WM_REF_STANDARD_USER,      /* a user who is not an administrator */
	WM_REF_SERVICE_ADMIN,      /* an administrator's service logon (a CI runner) */
	WM_REF_SYSTEM,             /* LocalSystem */
	WM_REF_OTHER_USER,         /* another standard user of the machine */
	WM_REF_SANDBOX_ACCOUNT,    /* the sandbox account's batch logon */
	WM_REF_COUNT
};

/* The SIDs the reference tokens use. */
#define WM_REF_USER_SID "S-1-5-21-1111-2222-3333-1001"
#define WM_REF_OTHER_SID "S-1-5-21-1111-2222-3333-1002"
#define WM_REF_ACCOUNT_SID "S-1-5-21-1111-2222-3333-1100"
#define WM_REF_LOGON_SID "S-1-5-5-0-70001"
#define WM_REF_ACCOUNT_LOGON_SID "S-1-5-5-0-70002"

void wm_ref_token(enum wm_ref which, struct wm_token *out);
const char *wm_ref_name(enum wm_ref which);
/* The runner tokens a plan must hold against (every ref but the account). */
bool wm_ref_is_runner(enum wm_ref which);

#endif
