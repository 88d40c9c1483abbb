/* names_table.c - the errno and signal names of the windows build
 * (names.h): the errno values mingw-w64's CRT defines (its own and its
 * POSIX supplement; EAGAIN and EWOULDBLOCK differ there, so both are
 * listed) and the signals: the CRT's, then those the compat layer adds
 * for POSIX code (wincompat.h: never raised by Windows itself). */
#include "names.h"

#include <errno.h>
#include <signal.h>

#define E(x) {x, #x}
const struct names_entry names_errs[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR),
	E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(EFBIG),
	E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(EDOM), E(ERANGE),
	E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS), E(ENOTEMPTY),
	E(EILSEQ),
	/* the CRT's POSIX supplement */
	E(EADDRINUSE), E(EADDRNOTAVAIL), E(EAFNOSUPPORT), E(EALREADY), E(EBADMSG),
	E(ECANCELED), E(ECONNABORTED), E(ECONNREFUSED), E(ECONNRESET),
	E(EDESTADDRREQ), E(EHOSTUNREACH), E(EIDRM), E(EINPROGRESS), E(EISCONN),
	E(ELOOP), E(EMSGSIZE), E(ENETDOWN), E(ENETRESET), E(ENETUNREACH),
	E(ENOBUFS), E(ENODATA), E(ENOLINK), E(ENOMSG), E(ENOPROTOOPT), E(ENOSR),
	E(ENOSTR), E(ENOTCONN), E(ENOTRECOVERABLE), E(ENOTSOCK), E(ENOTSUP),
	E(EOPNOTSUPP), E(EOVERFLOW), E(EOWNERDEAD), E(EPROTO), E(EPROTONOSUPPORT),
	E(EPROTOTYPE), E(ETIME), E(ETIMEDOUT), E(ETXTBSY), E(EWOULDBLOCK),
	/* the compat layer's (wincompat.h) */
	E(ESTALE), E(EDQUOT), E(EMULTIHOP),
};

const struct names_entry names_sigs[] = {
	/* the CRT's */
	E(SIGINT), E(SIGILL), E(SIGFPE), E(SIGSEGV), E(SIGTERM), E(SIGBREAK), E(SIGABRT),
	/* the compat layer's (POSIX numbers) */
	E(SIGHUP), E(SIGQUIT), E(SIGKILL), E(SIGPIPE), E(SIGALRM), E(SIGCHLD),
};
#undef E

const size_t names_nerrs = sizeof(names_errs) / sizeof(names_errs[0]);
const size_t names_nsigs = sizeof(names_sigs) / sizeof(names_sigs[0]);
