/* wprobe_names_table.c - the errno and signal names of the Windows probe's
 * C runtime (names.h; mingw-w64's values, which are not Linux's).  The
 * probe's own failures name their errno through winerr.h; this table
 * serves what the shared probe code reports by errno value (EOPNOTSUPP of
 * an unsupported operation, EIO).  Aliases follow the name whose value
 * they share, so a value keeps one name. */
#include "names.h"

#include <errno.h>
#include <signal.h>

#define E(x) {x, #x}
const struct names_entry names_errs[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR),
	E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(EFBIG),
	E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(EDOM),
	E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS),
	E(ENOTEMPTY), E(EILSEQ), E(EADDRINUSE), E(EADDRNOTAVAIL),
	E(EAFNOSUPPORT), E(EALREADY), E(EBADMSG), E(ECANCELED),
	E(ECONNABORTED), E(ECONNREFUSED), E(ECONNRESET), E(EDESTADDRREQ),
	E(EHOSTUNREACH), E(EIDRM), E(EINPROGRESS), E(EISCONN), E(ELOOP),
	E(EMSGSIZE), E(ENETDOWN), E(ENETRESET), E(ENETUNREACH), E(ENOBUFS),
	E(ENODATA), E(ENOLINK), E(ENOMSG), E(ENOPROTOOPT), E(ENOSR),
	E(ENOSTR), E(ENOTCONN), E(ENOTRECOVERABLE), E(ENOTSOCK), E(ENOTSUP),
	E(EOPNOTSUPP), E(EOVERFLOW), E(EOWNERDEAD), E(EPROTO),
	E(EPROTONOSUPPORT), E(EPROTOTYPE), E(ETIME), E(ETIMEDOUT),
	E(ETXTBSY), E(EWOULDBLOCK),
};
const size_t names_nerrs = sizeof(names_errs) / sizeof(names_errs[0]);

const struct names_entry names_sigs[] = {
	E(SIGINT), E(SIGILL), E(SIGFPE), E(SIGSEGV), E(SIGTERM), E(SIGBREAK),
	E(SIGABRT),
};
const size_t names_nsigs = sizeof(names_sigs) / sizeof(names_sigs[0]);
