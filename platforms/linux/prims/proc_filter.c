/* proc_filter.c - the launcher's fault and hold filter (contract in
 * sandproof/proc.h): compiled to BPF in the parent before fork, answered
 * by the parent while the program runs.  Default allow; a foreign ABI is
 * allowed too: this filter observes and injects faults, it is not a
 * confinement boundary. */
#include "proc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/seccomp.h>

static int proc_resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* Negative numbers are libseccomp pseudo-syscalls: not on x86_64. */
	return nr == __NR_SCMP_ERROR || nr < 0 ? -EINVAL : nr;
}

/* Is nr one of the syscalls o faults? */
static bool proc_filter_faults(const struct proc_opts *o, int nr)
{
	if (!o->fault_syscall)
		return false;
	if (proc_resolve(o->fault_syscall) == nr)
		return true;
	for (size_t i = 0; o->fault_more_syscalls && o->fault_more_syscalls[i]; i++)
		if (proc_resolve(o->fault_more_syscalls[i]) == nr)
			return true;
	return false;
}

/* The plain FAULT rule for the syscall name: every call fails (with
 * arg1: only calls whose second argument matches).  0 or -errno. */
static int proc_filter_add_errno(scmp_filter_ctx ctx, const struct proc_opts *o,
				 const char *name)
{
	uint32_t act = SCMP_ACT_ERRNO((uint32_t)o->fault_errno);
	int nr = proc_resolve(name), r;

	if (nr < 0)
		return -EINVAL;
	if (o->fault_arg1_set)
		/* compared as 32 bits, as the kernel reads an int */
		r = seccomp_rule_add(ctx, act, nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
							      (uint32_t)o->fault_arg1));
	else
		r = seccomp_rule_add(ctx, act, nr, 0);
	return r == -EEXIST ? 0 : r; /* EEXIST: listed twice */
}

/* Add the FAULT rules of o to ctx.  nth <= 1 without once is a plain
 * errno rule per faulted syscall; otherwise one syscall is notified and
 * the parent answers (proc_filter_answer).  0 or -errno. */
static int proc_filter_add_fault(scmp_filter_ctx ctx, const struct proc_opts *o,
				 struct proc_filter *f)
{
	const char *const *more = o->fault_more_syscalls;
	int nr = proc_resolve(o->fault_syscall), r;

	if (nr < 0 || o->fault_errno < 1 || o->fault_errno > 4095)
		return -EINVAL;
	if (o->fault_nth <= 1 && !o->fault_once) {
		r = proc_filter_add_errno(ctx, o, o->fault_syscall);
		for (size_t i = 0; r == 0 && more && more[i]; i++)
			r = proc_filter_add_errno(ctx, o, more[i]);
		return r;
	}
	/* Counted faults see every call of one syscall: no argument filter,
	 * no second syscall. */
	if (o->fault_arg1_set || (more && more[0]))
		return -EINVAL;
	r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	f->fault_nr = nr;
	f->notify = true;
	return r;
}

/* Add a notification rule per HOLD syscall of o (none of them may be
 * faulted too).  0 or -errno. */
static int proc_filter_add_holds(scmp_filter_ctx ctx, const struct proc_opts *o,
				 struct proc_filter *f)
{
	for (size_t i = 0; o->hold_syscalls && o->hold_syscalls[i]; i++) {
		int nr = proc_resolve(o->hold_syscalls[i]), r;

		if (nr < 0 || proc_filter_faults(o, nr) || f->nhold == PROC_MAX_HOLD)
			return -EINVAL;
		f->hold_nr[f->nhold++] = nr;
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
		if (r < 0 && r != -EEXIST) /* EEXIST: listed twice */
			return r;
		f->notify = true;
	}
	return 0;
}

/* Export ctx as BPF into f->prog (malloc'd).  0 or -errno. */
static int proc_filter_export(scmp_filter_ctx ctx, struct proc_filter *f)
{
	int fd = memfd_create("proc-bpf", MFD_CLOEXEC), r;
	off_t size;

	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		goto out;
	size = lseek(fd, 0, SEEK_END);
	r = -EIO;
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		goto out;
	f->prog.filter = malloc((size_t)size);
	if (!f->prog.filter) {
		r = -ENOMEM;
		goto out;
	}
	if (pread(fd, f->prog.filter, (size_t)size, 0) != size)
		goto out;
	f->prog.len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	r = 0;
out:
	close(fd);
	return r;
}

int proc_filter_build(const struct proc_opts *o, struct proc_filter *f)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r = 0;

	memset(f, 0, sizeof(*f));
	f->fault_nr = -1;
	if (!ctx)
		return -ENOMEM;
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW) < 0)
		r = -EINVAL;
	if (r == 0 && o->fault_syscall)
		r = proc_filter_add_fault(ctx, o, f);
	if (r == 0)
		r = proc_filter_add_holds(ctx, o, f);
	if (r == 0)
		r = proc_filter_export(ctx, f);
	if (r == -EOPNOTSUPP)
		r = -ENOSYS; /* libseccomp: no user notification here */
	seccomp_release(ctx);
	return r;
}

/* Does the caller's comm equal want?  The caller is stopped in the
 * notified syscall, so its comm is the one it made the call with (a
 * process that cannot be read - gone meanwhile - does not count). */
static bool proc_comm_is(pid_t pid, const char *want)
{
	char path[32], comm[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, want) == 0;
}

/* Answer one pending notification.  Every call is answered: a held one
 * after the action ran, a faulted one with the error, anything else
 * continued.  Security of CONTINUE: the call then runs with arguments the
 * program may have changed meanwhile - exactly the race a hold replays,
 * never a permission we grant. */
int proc_filter_answer(int lfd, const struct proc_opts *o,
		       const struct proc_filter *f, struct proc_result *r)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (req.data.nr == f->fault_nr) {
		uint64_t nth = o->fault_nth ? o->fault_nth : 1;

		if (++r->fault_calls == nth || (r->fault_calls > nth && !o->fault_once)) {
			resp.flags = 0;
			resp.error = -o->fault_errno;
			r->fault_failed++;
		}
	} else {
		for (size_t i = 0; i < f->nhold; i++) {
			if (req.data.nr != f->hold_nr[i])
				continue;
			if (o->hold_comm && !proc_comm_is((pid_t)req.pid, o->hold_comm))
				break;
			r->hold_calls++;
			if (o->hold_at > 0 && r->hold_calls == (uint64_t)o->hold_at) {
				char *name = seccomp_syscall_resolve_num_arch(
					SCMP_ARCH_NATIVE, req.data.nr);

				r->hold_hit = true;
				r->hold_pid = (pid_t)req.pid;
				if (o->hold_action)
					r->action_rc = o->hold_action(o->hold_ctx, o->hold_at,
								      name ? name : "?",
								      (pid_t)req.pid);
				free(name);
			}
			break;
		}
	}
	/* ENOENT: the caller died or was killed meanwhile. */
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
