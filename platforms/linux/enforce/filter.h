/* filter.h - the command's seccomp filter (docs/CONTRACT.md, PRIV and NET).
 *
 * One seccomp filter, loaded into the command's own process right before
 * execve (after no_new_privs): default ALLOW, a list of escape and kernel
 * attack-surface syscalls denied (EPERM, or reported through seccomp user
 * notification so the runner can record each denial by name), and every
 * foreign ABI (ia32 through int 0x80, x32 through nr | 0x40000000) killed.
 * filter.c lists each rule with the reason it is there.  libseccomp compiles
 * those rules at build time (filter_gen, filter.c built with FILTER_GEN)
 * into one program per shape (notify or EPERM, AF_UNIX blocked or not) in
 * filter_bpf.h; at run time the chosen program is loaded with seccomp(2)
 * and nothing is compiled.  libseccomp is still used at run time to name a
 * denied syscall's number. */
#ifndef SANDPROOF_FILTER_H
#define SANDPROOF_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct filter_opts {
	bool block_unix_sockets; /* also deny socket/socketpair(AF_UNIX) */
	bool notify;             /* report denials through user notification */
};

/* Load the filter of o's shape into the calling process (which has already
 * set no_new_privs; the process should be single-threaded: no TSYNC).
 *
 * Returns 0 when the filter is in force.  *notify_fd is then the listener
 * (>= 0, O_CLOEXEC) when o->notify was honoured, else -1: notification is
 * used only when the kernel supports it and no filter already in force in
 * this process has a listener (the kernel allows one per filter chain); in
 * every other case the same calls are denied with EPERM, only unreported.
 *
 * Ownership of the listener passes to the caller, who must hand it to the
 * supervisor and close it before execve.  Security: a command holding its
 * own listener could answer its notifications with "continue" and run the
 * denied call.  Until the supervisor answers, a denied call blocks; if every
 * copy of the listener is closed, denied calls fail with ENOSYS instead.
 * sendmsg, close and execve are never filtered.
 *
 * Returns -errno on failure: the caller fails closed (SETUP); no filter was
 * loaded then.  (A notify filter whose listener cannot be marked
 * close-on-exec has it closed, and the EPERM filter is loaded over it: the
 * same calls denied, unreported, *notify_fd -1.) */
int filter_install(const struct filter_opts *o, int *notify_fd);

/* Whether notification is offered and usable here: kfacts.h
 * (kfacts_seccomp_notify_offered, kfacts_seccomp_notify_usable).
 * filter_install() falls back to EPERM by itself whatever they said. */

/* Read one pending notification from listener fd, answer it with EPERM and
 * write the denied syscall's name ("ptrace") into name (NUL-terminated,
 * truncated to namelen).  Never blocks: it polls fd without waiting first,
 * so it must be the only reader of fd.
 * Returns 1 when a call was denied and named, 0 when nothing was pending or
 * the target went away before the answer (name is then ""), -errno on error
 * (-EINVAL for bad arguments). */
int filter_notify_service(int fd, char *name, size_t namelen);

#endif
