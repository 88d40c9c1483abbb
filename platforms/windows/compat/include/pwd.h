/* pwd.h - the windows build's getpwuid (compat/harness_proc.c): Windows
 * has no uid (wincompat.h: every uid is 0); getpwuid(0) names the user
 * this process runs as (GetUserNameW), any other uid is NULL. */
#ifndef SANDPROOF_COMPAT_PWD_H
#define SANDPROOF_COMPAT_PWD_H
#include "wincompat.h"
struct passwd {
	char *pw_name;
	uid_t pw_uid;
	gid_t pw_gid;
	char *pw_dir;
	char *pw_shell;
};
struct passwd *wincompat_getpwuid(uid_t uid);
#define getpwuid wincompat_getpwuid
#endif
