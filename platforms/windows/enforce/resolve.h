/* resolve.h - the command's executable on the request's own PATH (resolve.c).
 * Apart from winseam.h so the smoke links it without the runner seam. */
#ifndef SANDPROOF_WIN_RESOLVE_H
#define SANDPROOF_WIN_RESOLVE_H

#include <wchar.h>

#include "sandproof/request.h"

/* Resolve argv0 on the request environment's PATH (and ".exe"/".com" when it
 * names no extension); a name with a separator is taken as is (relative to
 * the request's cwd).  0 and *out (UTF-16, free()), -ENOENT, -ENOEXEC for a
 * batch file, -ENOMEM. */
int winseam_resolve(const struct request *req, wchar_t **out);

#endif
