/* winerr.h - the Win32 and Winsock errors the Windows probe can meet, as
 * portable data: each code's name and the nearest errno name a Linux probe
 * would print, and the one classification rule (Chromium's sandbox tests):
 * a failure is a denial ONLY when the error is ERROR_ACCESS_DENIED (5), or
 * its Winsock spelling WSAEACCES (10013, which is how a WFP block or an
 * exclusive-address refusal reaches a socket call).
 *
 * Portable C with no Windows header: the codes are the documented numbers,
 * so Linux ctest can check the table (tests/test_winerr.c) and the probe
 * can compile it for Windows. */
#ifndef SANDPROOF_WINERR_H
#define SANDPROOF_WINERR_H

#include <stdbool.h>
#include <stddef.h>

#define WINERR_ACCESS_DENIED 5UL /* ERROR_ACCESS_DENIED */
#define WINERR_WSAEACCES 10013UL /* WSAEACCES */

struct winerr_info {
	unsigned long code;
	const char *name;       /* "ERROR_SHARING_VIOLATION", "WSAECONNREFUSED" */
	const char *errno_name; /* the nearest Linux errno name ("EBUSY") */
};

extern const struct winerr_info winerr_table[];
extern const size_t winerr_count;

/* The entry of code, or NULL when the table has none. */
const struct winerr_info *winerr_find(unsigned long code);

/* True only for ERROR_ACCESS_DENIED and WSAEACCES.  Everything else -
 * a sharing violation, a missing privilege, a path that is not there, a
 * reparse point that cannot be followed - is not evidence of a policy. */
bool winerr_is_denied(unsigned long code);

/* The nearest errno name; never a policy name (EACCES, EPERM, EROFS) unless
 * winerr_is_denied(code), so a scenario reading errno cannot mistake a
 * non-denial for a denial.  "EIO" for a code the table does not have. */
const char *winerr_errno_name(unsigned long code);

/* The code's name, or "WIN32_<n>" written into buf for an unknown code. */
const char *winerr_name(unsigned long code, char *buf, size_t len);

/* True for the errno names the contract reads as a policy refusal. */
bool winerr_errno_is_policy(const char *errno_name);

#endif
