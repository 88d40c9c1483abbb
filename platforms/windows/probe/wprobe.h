/* wprobe.h - the Windows probe's internals (README.md).  The command line
 * and the JSON lines are the shared probe's (harness/probe/probe_args.c,
 * probe_out.c); this directory gives the operations as Win32 calls, the
 * main (UTF-8 argv, binary stdout) and the Win32 error reporting. */
#ifndef SANDPROOF_WPROBE_H
#define SANDPROOF_WPROBE_H

#include "probe.h"

#include <windows.h>

/* A UTF-8 string as a new UTF-16 one (free()), or NULL with the Win32 error
 * in *code (ERROR_NO_UNICODE_TRANSLATION, ERROR_NOT_ENOUGH_MEMORY). */
wchar_t *wprobe_wide(const char *utf8, DWORD *code);

/* A UTF-16 string of wlen units (-1: NUL-terminated) as new UTF-8 (free()),
 * its length in *len (may be NULL); NULL when out of memory. */
char *wprobe_utf8(const wchar_t *w, int wlen, size_t *len);

/* A failed step, by Chromium's rule: "errno" is the nearest errno name
 * (winerr.h; a policy name only for ERROR_ACCESS_DENIED and WSAEACCES),
 * and the line carries "win32_error" (the name), "win32_code" and
 * "denied" (true only for those two codes). */
void wprobe_fail(struct probe_res *res, DWORD code, const char *step);

/* A failure with no Win32 error behind it (a timeout the probe measured):
 * errno name only, "denied" false. */
void wprobe_fail_errno(struct probe_res *res, const char *errno_name, const char *step);

/* Operation tables, each ending with a NULL name. */
extern const struct probe_op wprobe_fs_ops[];
extern const struct probe_op wprobe_meta_ops[];
extern const struct probe_op wprobe_net_ops[];
extern const struct probe_op wprobe_proc_ops[];
extern const struct probe_op wprobe_ui_ops[];
extern const struct probe_op wprobe_unsupported_ops[];

/* wprobe_net.c: WSAStartup, once, before the sentinel. */
void wprobe_net_begin(void);

#endif
