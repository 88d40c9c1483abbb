/* proc_int.h - what the parts of the process launcher share (contract in
 * sandproof/proc.h):
 *
 *   proc.c         the parent: proc_run's setup, its poll loop, the result
 *   proc_child.c   the child: from fork to execve, raw system calls only
 *   proc_filter.c  the fault and hold filter: compiled, then answered
 *   proc_kill.c    the descendants of the caller: listed, swept, killed
 *
 * Layout: the seccomp filter is built and compiled to BPF in the parent
 * (libseccomp allocates; the child must not), the child only makes raw
 * system calls from a fixed plan, and the parent runs one poll loop over
 * the child's pidfd, its three pipes and the notification listener.
 *
 * The listener changes hands without a system call in the child: the
 * filter creates it in the child, whose every later call may itself be
 * held or faulted (sendmsg, write, close...), so the child publishes the
 * fd number in shared memory and spins until the parent has copied it with
 * pidfd_getfd().  A held call made after that is answered normally. */
#ifndef SANDPROOF_PROC_INT_H
#define SANDPROOF_PROC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <linux/filter.h>

#include "sandproof/proc.h"

/* How long processes of a run may take to finish dying after it ended
 * before they count as leftovers. */
#define PROC_GRACE_MS 300
/* How long a kill sweep repeats until every process it signalled is gone. */
#define PROC_KILL_WAIT_MS 3000

static inline uint64_t proc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- proc_kill.c ---- */

/* A process named by its pid and its start time (pids are recycled). */
struct proc_known {
	pid_t pid;
	unsigned long long start;
};

/* Direct children of the caller now (the processes a run must not touch),
 * malloc'd into *out.  0 or -errno. */
int proc_children(struct proc_known **out, size_t *n);

/* One or more passes over the caller's descendants, restricted to those
 * whose top ancestor below the caller is not in pre (pre NULL: all) and,
 * when only_top is not 0, is only_top (tree_only: that program's tree and
 * nothing else of the caller's, its other runs' programs included), never
 * only_top itself (its caller ends it, and counts it).  Dead
 * children among them are reaped (a child's pid cannot be recycled before
 * we reap it, so waitpid by pid is exact); skip_pid, the program whose
 * status the caller wants, is never reaped here.  With kill, live ones get
 * SIGKILL and passes repeat until none is left or wait_ms passes; *killed
 * (may be NULL) counts distinct processes signalled (skip_pid, counted by
 * the caller, excepted).  Returns live ones left, or -errno. */
int proc_sweep(const struct proc_known *pre, size_t npre, pid_t only_top, pid_t skip_pid,
	       bool kill, int wait_ms, int *killed);

/* ---- proc_filter.c ---- */

/* The compiled filter and what the parent needs to answer it. */
struct proc_filter {
	struct sock_fprog prog; /* prog.filter malloc'd */
	bool notify;            /* has SECCOMP_RET_USER_NOTIF rules */
	int fault_nr;           /* -1: none, or the notified fault syscall */
	int hold_nr[PROC_MAX_HOLD];
	size_t nhold;
};

/* Compile the FAULT and HOLD rules of o into f (f->prog.filter the
 * caller's to free, also on failure).  0, -EINVAL for bad options, -ENOSYS
 * when libseccomp has no user notification, other -errno. */
int proc_filter_build(const struct proc_opts *o, struct proc_filter *f);

/* Receive and answer one pending notification on the listener lfd,
 * counting it into r and running the hold action when it is due.  0, or
 * -errno when the listener failed. */
int proc_filter_answer(int lfd, const struct proc_opts *o,
		       const struct proc_filter *f, struct proc_result *r);

/* ---- proc_child.c ---- */

/* Child -> parent, through a MAP_SHARED page (no system call needed). */
struct proc_shm {
	int listener; /* child's listener fd number, -1 until published */
	int taken;    /* set by the parent once it holds a copy */
	int err;      /* setup errno, 0 if the child reached the program */
	char step[32];
};

/* What the child does, fixed before fork. */
struct proc_plan {
	const struct proc_opts *o;
	const struct proc_filter *f; /* NULL: no filter */
	struct proc_shm *shm;
	pid_t parent;
	int fds[3];                  /* stdin read end, stdout/stderr write ends */
};

/* The child after fork: set up as p says and execve the program, or
 * report the failed step in p->shm and _exit(127). */
_Noreturn void proc_child(const struct proc_plan *p);

#endif
