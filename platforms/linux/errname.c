/* errname.c - see errname.h. */
#include "errname.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>

#define E(x) {x, #x}
static const struct {
	int v;
	const char *name;
} errs[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR),
	E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY),
	E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE),
	E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS),
	E(ENOTEMPTY), E(ELOOP), E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE),
	E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT), E(EOPNOTSUPP),
	E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN),
	E(ENETUNREACH), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS),
	E(EISCONN), E(ENOTCONN), E(ETIMEDOUT), E(ECONNREFUSED),
	E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS), E(ESTALE),
	E(EDQUOT), E(ECANCELED), E(EOVERFLOW),
};

static const struct {
	int v;
	const char *name;
} sigs[] = {
	E(SIGHUP), E(SIGINT), E(SIGQUIT), E(SIGILL), E(SIGTRAP), E(SIGABRT),
	E(SIGBUS), E(SIGFPE), E(SIGKILL), E(SIGUSR1), E(SIGSEGV), E(SIGUSR2),
	E(SIGPIPE), E(SIGALRM), E(SIGTERM), E(SIGCHLD), E(SIGCONT),
	E(SIGSTOP), E(SIGTSTP), E(SIGTTIN), E(SIGTTOU), E(SIGURG),
	E(SIGXCPU), E(SIGXFSZ), E(SIGVTALRM), E(SIGPROF), E(SIGWINCH),
	E(SIGSYS),
};
#undef E

const char *errname(int err)
{
	static char buf[24];

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].v == err)
			return errs[i].name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

const char *signame(int sig)
{
	static char buf[24];

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i].v == sig)
			return sigs[i].name;
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}
