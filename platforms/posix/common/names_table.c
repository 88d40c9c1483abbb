/* names_table.c - the errno and signal names POSIX.1 defines (names.h),
 * nothing more: what every POSIX system can name (macOS uses this table
 * too: it names nothing the contract needs beyond them yet).  A port copies this
 * file and adds its own (an alias after the name it shares a value with,
 * so the value keeps one name).  Names marked obsolescent in POSIX
 * (STREAMS, SIGPOLL) are listed only where the system still has them. */
#include "names.h"

#include <errno.h>
#include <signal.h>

#define E(x) {x, #x}
const struct names_entry names_errs[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR),
	E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY),
	E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(EDOM),
	E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS),
	E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ENOLINK), E(EPROTO),
	E(EMULTIHOP), E(EBADMSG), E(EOVERFLOW), E(EILSEQ), E(ENOTSOCK),
	E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT),
	E(EPROTONOSUPPORT), E(EOPNOTSUPP), E(EAFNOSUPPORT), E(EADDRINUSE),
	E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ENETRESET),
	E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN),
	E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTUNREACH), E(EALREADY),
	E(EINPROGRESS), E(ESTALE), E(EDQUOT), E(ECANCELED), E(EOWNERDEAD),
	E(ENOTRECOVERABLE),
#ifdef ENODATA
	E(ENODATA),
#endif
#ifdef ENOSR
	E(ENOSR),
#endif
#ifdef ENOSTR
	E(ENOSTR),
#endif
#ifdef ETIME
	E(ETIME),
#endif
	/* aliases: the same value as an entry above on some systems */
	E(ENOTSUP), E(EWOULDBLOCK),
};

const struct names_entry names_sigs[] = {
	E(SIGHUP), E(SIGINT), E(SIGQUIT), E(SIGILL), E(SIGTRAP), E(SIGABRT),
	E(SIGBUS), E(SIGFPE), E(SIGKILL), E(SIGUSR1), E(SIGSEGV), E(SIGUSR2),
	E(SIGPIPE), E(SIGALRM), E(SIGTERM), E(SIGCHLD), E(SIGCONT), E(SIGSTOP),
	E(SIGTSTP), E(SIGTTIN), E(SIGTTOU), E(SIGURG), E(SIGXCPU), E(SIGXFSZ),
	E(SIGVTALRM), E(SIGPROF), E(SIGSYS),
#ifdef SIGWINCH
	E(SIGWINCH),
#endif
#ifdef SIGPOLL
	E(SIGPOLL),
#endif
};
#undef E

const size_t names_nerrs = sizeof(names_errs) / sizeof(names_errs[0]);
const size_t names_nsigs = sizeof(names_sigs) / sizeof(names_sigs[0]);
