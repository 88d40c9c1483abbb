/* names.c - see names.h. */
#include "names.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define E(x) {x, #x}
static const struct {
	int v;
	const char *name;
} errs[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG),
	E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI),
	E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC),
	E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR),
	E(ENONET), E(ENOPKG), E(EREMOTE), E(ENOLINK), E(EADV), E(ESRMNT),
	E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT), E(EBADMSG),
	E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC),
	E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ),
	E(ERESTART), E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ),
	E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT),
	E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT),
	E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH),
	E(ENETRESET), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN),
	E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
	E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY),
	E(EINPROGRESS), E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL),
	E(EISNAM), E(EREMOTEIO), E(EDQUOT), E(ENOMEDIUM), E(EMEDIUMTYPE),
	E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED), E(EKEYREVOKED),
	E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE), E(ERFKILL),
	E(EHWPOISON),
};

static const struct {
	int v;
	const char *name;
} sigs[] = {
	E(SIGHUP), E(SIGINT), E(SIGQUIT), E(SIGILL), E(SIGTRAP), E(SIGABRT),
	E(SIGBUS), E(SIGFPE), E(SIGKILL), E(SIGUSR1), E(SIGSEGV), E(SIGUSR2),
	E(SIGPIPE), E(SIGALRM), E(SIGTERM), E(SIGSTKFLT), E(SIGCHLD),
	E(SIGCONT), E(SIGSTOP), E(SIGTSTP), E(SIGTTIN), E(SIGTTOU), E(SIGURG),
	E(SIGXCPU), E(SIGXFSZ), E(SIGVTALRM), E(SIGPROF), E(SIGWINCH),
	E(SIGIO), E(SIGPWR), E(SIGSYS),
};
#undef E

const char *names_errno(int err)
{
	static _Thread_local char buf[24];

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].v == err)
			return errs[i].name;
	snprintf(buf, sizeof(buf), "ERRNO_%d", err);
	return buf;
}

int names_errno_value(const char *name)
{
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (strcmp(errs[i].name, name) == 0)
			return errs[i].v;
	return -1;
}

const char *names_signal(int sig, bool *known)
{
	static _Thread_local char buf[24];

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i].v == sig) {
			if (known)
				*known = true;
			return sigs[i].name;
		}
	if (known)
		*known = false;
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

int names_signal_value(const char *name)
{
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strcasecmp(sigs[i].name + 3, name) == 0)
			return sigs[i].v;
	return -1;
}
