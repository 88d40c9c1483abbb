/* filter.c - see filter.h. */
#include "filter.h"
#include "kfacts.h"
#include "timings.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>

/* Newer than Debian 12's headers and libseccomp 2.5.4: denied by number. */
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif

/* The socket family rules below lean on this ordering. */
_Static_assert(AF_UNIX < AF_INET && AF_INET < AF_INET6 &&
	       AF_INET6 < AF_NETLINK, "address family order");

struct denied {
	const char *name;
	int nr; /* used when libseccomp does not know the name; -1: none */
};

/* Denied whatever the arguments (EPERM, or reported through notification). */
static const struct denied filter_denied[] = {
	/* Reading or writing another process's memory or state. */
	{"ptrace", -1},
	{"process_vm_readv", -1},
	{"process_vm_writev", -1},
	/* Same family: madvise on another process's address space. */
	{"process_madvise", -1},
	/* ptrace-gated comparison of other processes' kernel objects; leaks
	 * kernel pointer ordering. */
	{"kcmp", -1},
	/* Copies a descriptor out of another process (e.g. the runner's
	 * notification listener, which would let the command approve its own
	 * denied calls). */
	{"pidfd_getfd", -1},
	/* io_uring opens sockets and files without socket()/open(), past
	 * every rule here, and is a large kernel attack surface. */
	{"io_uring_setup", -1},
	{"io_uring_enter", -1},
	{"io_uring_register", -1},
	/* Replacing the kernel or loading code into it. */
	{"kexec_load", -1},
	{"kexec_file_load", -1},
	{"init_module", -1},
	{"finit_module", -1},
	{"delete_module", -1},
	/* In-kernel programs and performance counters: attack surface and
	 * side channels. */
	{"bpf", -1},
	{"perf_event_open", -1},
	/* Kernel keyrings are not namespaced: a shared secret store. */
	{"add_key", -1},
	{"request_key", -1},
	{"keyctl", -1},
	/* Lets an exploit stall the kernel mid-copy to win races. */
	{"userfaultfd", -1},
	/* The mount family: mounts must not be undone or rearranged from
	 * inside (umount a read-only bind, remount rw, move a tree). */
	{"mount", -1},
	{"umount2", -1},
	{"pivot_root", -1},
	{"move_mount", -1},
	{"open_tree", -1},
	{"open_tree_attr", __NR_open_tree_attr},
	{"fsopen", -1},
	{"fsmount", -1},
	{"fsconfig", -1},
	{"fspick", -1},
	{"mount_setattr", -1},
	/* Joining another namespace through an inherited nsfs fd or pidfd
	 * would step out of the sandbox's namespaces. */
	{"setns", -1},
	/* Opens any file of a mount by handle, past every path-based rule
	 * (mount layout, Landlock): the classic container escape.  Needs
	 * CAP_DAC_READ_SEARCH; denied in case a capability survived. */
	{"open_by_handle_at", -1},
	/* x86 LDT editing: a history of kernel bugs, needed only by 16-bit
	 * code and Wine. */
	{"modify_ldt", -1},
	/* Obsolete a.out library loader; no modern use. */
	{"uselib", -1},
	/* Raw I/O port access (CAP_SYS_RAWIO). */
	{"iopl", -1},
	{"ioperm", -1},
	/* Host-wide state guarded only by capabilities; denied in case a
	 * capability survived the drop. */
	{"swapon", -1},
	{"swapoff", -1},
	{"reboot", -1},
	{"acct", -1},
	{"settimeofday", -1},
	{"clock_settime", -1},
};

#ifdef FILTER_GEN
/* The builder: compiled only into filter_gen, which runs it at build time
 * for every policy shape and writes the programs into filter_bpf.h; the
 * runner loads those (filter_install below) and compiles nothing. */
static int resolve(const struct denied *d)
{
	int nr = seccomp_syscall_resolve_name(d->name);

	if (nr == __NR_SCMP_ERROR)
		nr = d->nr;
	return nr == __NR_SCMP_ERROR ? -1 : nr;
}

static int rule(scmp_filter_ctx ctx, uint32_t act, int nr, unsigned n,
		const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, act, nr, n, cmp);
}

/* socket() and socketpair() (domain in arg 0, protocol in arg 2): refuse
 * every family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK with protocol
 * NETLINK_ROUTE, so packet, vsock, bluetooth, alg, other netlink and any
 * family added later fail, and creating one cannot autoload its module.
 * libseccomp can only add deny rules under an ALLOW default, so the allowed
 * set is the complement of: each value below AF_NETLINK that is not allowed,
 * everything above AF_NETLINK, and AF_NETLINK with any other protocol.
 * Comparisons are on all 64 bits while the kernel reads an int: a value with
 * high bits set is above AF_NETLINK (denied even when its low half is an
 * allowed family), and a protocol with any bit set is not NETLINK_ROUTE. */
static int add_family_rules(scmp_filter_ctx ctx, uint32_t deny, int nr,
			    bool block_unix)
{
	struct scmp_arg_cmp c[2];
	int rc;

	for (int f = 0; f < AF_NETLINK; f++) {
		if (f == AF_INET || f == AF_INET6 || (f == AF_UNIX && !block_unix))
			continue;
		c[0] = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)f);
		if ((rc = rule(ctx, deny, nr, 1, c)))
			return rc;
	}
	c[0] = SCMP_A0(SCMP_CMP_GT, AF_NETLINK);
	if ((rc = rule(ctx, deny, nr, 1, c)))
		return rc;
	c[0] = SCMP_A0(SCMP_CMP_EQ, AF_NETLINK);
	c[1] = SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE);
	return rule(ctx, deny, nr, 2, c);
}

static int add_rules(scmp_filter_ctx ctx, const struct filter_opts *o,
		     uint32_t deny)
{
	struct scmp_arg_cmp c[1];
	int rc;

	for (size_t i = 0; i < sizeof(filter_denied) / sizeof(filter_denied[0]); i++) {
		int nr = resolve(&filter_denied[i]);

		if (nr < 0)
			return -ENOSYS; /* a rule we cannot express: fail closed */
		if ((rc = rule(ctx, deny, nr, 0, NULL)))
			return rc;
	}

	/* New user namespaces give the command every capability over fresh
	 * namespaces and open the kernel surface those guard (mounting
	 * filesystems, netfilter, ...).  Masked compare: any other flags may
	 * ride along. */
	c[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
	if ((rc = rule(ctx, deny, SCMP_SYS(unshare), 1, c)) ||
	    (rc = rule(ctx, deny, SCMP_SYS(clone), 1, c)))
		return rc;
	/* clone3 passes its flags inside a struct behind a pointer, which
	 * seccomp cannot read, so CLONE_NEWUSER cannot be told apart there.
	 * Answer ENOSYS (not EPERM, and not reported: it is no denial): libc
	 * then falls back to clone(), whose flags are in a register and meet
	 * the rule above.  Threads and fork keep working. */
	if ((rc = rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL)))
		return rc;

	/* TIOCSTI pushes input into a terminal (typed commands run by the
	 * caller's shell); TIOCLINUX can paste the console selection.  The
	 * kernel reads the request as 32 bits, so compare only the low 32:
	 * high bits set cannot dodge the rule. */
	c[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
	if ((rc = rule(ctx, deny, SCMP_SYS(ioctl), 1, c)))
		return rc;
	c[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);
	if ((rc = rule(ctx, deny, SCMP_SYS(ioctl), 1, c)))
		return rc;

	if ((rc = add_family_rules(ctx, deny, SCMP_SYS(socket), o->block_unix_sockets)))
		return rc;
	return add_family_rules(ctx, deny, SCMP_SYS(socketpair), o->block_unix_sockets);
}

/* Build one filter (for one shape: deny by notification or EPERM, AF_UNIX
 * blocked or not) into a libseccomp context, or NULL. */
static scmp_filter_ctx build(const struct filter_opts *o)
{
	uint32_t deny = o->notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		return NULL;
	/* Only the native ABI is in the filter: any other one (ia32 through
	 * int 0x80; x32, whose numbers carry 0x40000000 and which libseccomp
	 * rejects in a native x86_64 filter) takes the bad-arch action and
	 * the whole process dies, so no rule can be dodged by renumbering. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (!rc)
		rc = add_rules(ctx, o, deny);
	if (rc) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* filter_gen: print filter_bpf.h, the program of every shape as
 * struct sock_filter arrays, indexed by FILTER_SHAPE(). */
int main(void)
{
	FILE *tmp;

	/* Notification is an API level 5 action; the kernel that runs the
	 * programs is asked at run time (kfacts), not the build host's. */
	if (seccomp_api_set(5) != 0)
		return 1;
	printf("/* filter_bpf.h - generated at build time by filter_gen from filter.c; do not edit. */\n");
	for (int shape = 0; shape < 4; shape++) {
		struct filter_opts o = {.notify = shape & 2, .block_unix_sockets = shape & 1};
		scmp_filter_ctx ctx = build(&o);
		struct sock_filter f;
		size_t n = 0;

		if (!ctx || !(tmp = tmpfile()) || seccomp_export_bpf(ctx, fileno(tmp)) != 0) {
			fprintf(stderr, "filter_gen: cannot build shape %d\n", shape);
			return 1;
		}
		seccomp_release(ctx);
		rewind(tmp);
		printf("static const struct sock_filter filter_bpf_%d[] = {\n", shape);
		for (; fread(&f, sizeof(f), 1, tmp) == 1; n++)
			printf("\t{0x%04x, %u, %u, 0x%08x},\n", f.code, f.jt, f.jf, f.k);
		printf("};\n");
		fclose(tmp);
		if (n == 0 || n > BPF_MAXINSNS)
			return 1;
	}
	printf("static const struct sock_fprog filter_bpf[4] = {\n");
	for (int shape = 0; shape < 4; shape++)
		printf("\t{sizeof(filter_bpf_%d) / sizeof(filter_bpf_%d[0]), (struct sock_filter *)filter_bpf_%d},\n",
		       shape, shape, shape);
	printf("};\n");
	return ferror(stdout) ? 1 : 0;
}

#else /* the runner */

#include "filter_bpf.h"

/* Index into filter_bpf[] of the program for a shape. */
#define FILTER_SHAPE(notify, block_unix) (((notify) ? 2 : 0) | ((block_unix) ? 1 : 0))

/* Load one precompiled filter.  With notify, *notify_fd is the listener,
 * close-on-exec.  The kernel itself refuses a second listener in a filter
 * chain (EBUSY), and loads nothing then. */
static int load(const struct filter_opts *o, bool notify, int *notify_fd)
{
	const struct sock_fprog *prog =
		&filter_bpf[FILTER_SHAPE(notify, o->block_unix_sockets)];
	long fd;

	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, prog);
	if (fd < 0)
		return -errno; /* nothing loaded */
	if (notify) {
		/* The command must never inherit the listener (the kernel
		 * makes it O_CLOEXEC; said again in case it ever does not). */
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) {
			int e = errno;

			close((int)fd);
			return -e; /* loaded: the caller still fails closed */
		}
		*notify_fd = (int)fd;
	}
	return 0;
}

int filter_install(const struct filter_opts *o, int *notify_fd)
{
	int rc;

	if (!o || !notify_fd)
		return -EINVAL;
	*notify_fd = -1;
	if (o->notify && kfacts_seccomp_notify_offered()) {
		rc = load(o, true, notify_fd);
		if (rc == 0)
			return 0;
		/* Not loaded (EBUSY: a filter already in force here has a
		 * listener).  The EPERM filter enforces exactly the same set,
		 * only unreported; *notify_fd == -1 tells the caller. */
		*notify_fd = -1;
	}
	return load(o, false, notify_fd);
}

/* Name of a syscall number; numbers libseccomp 2.5.4 does not know come
 * from the rule table. */
static void syscall_name(uint32_t arch, int nr, char *name, size_t len)
{
	char *s;

	for (size_t i = 0; i < sizeof(filter_denied) / sizeof(filter_denied[0]); i++) {
		if (filter_denied[i].nr == nr && arch == seccomp_arch_native()) {
			snprintf(name, len, "%s", filter_denied[i].name);
			return;
		}
	}
	s = seccomp_syscall_resolve_num_arch(arch, nr);
	if (s)
		snprintf(name, len, "%s", s);
	else
		snprintf(name, len, "syscall_%d", nr);
	free(s);
}

#define NOTIF_BUF 1024

int filter_notify_service(int fd, char *name, size_t namelen)
{
	static struct seccomp_notif_sizes sz;
	union {
		struct seccomp_notif n;
		unsigned char b[NOTIF_BUF];
	} req;
	union {
		struct seccomp_notif_resp r;
		unsigned char b[NOTIF_BUF];
	} resp;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char nm[64];
	uint64_t id;
	int r;

	if (fd < 0 || !name || namelen == 0)
		return -EINVAL;
	name[0] = '\0';
	/* The kernel writes its own struct sizes, which may exceed our
	 * headers' (man seccomp_unotify): size the buffers from it. */
	if (sz.seccomp_notif == 0 &&
	    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return -errno;
	if (sz.seccomp_notif > NOTIF_BUF || sz.seccomp_notif_resp > NOTIF_BUF)
		return -EOVERFLOW;

	/* RECV sleeps until a notification arrives, so first make sure one
	 * is pending now: a caller woken by a notification that vanished
	 * since (target killed) must not hang here. */
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (p.revents & POLLNVAL)
		return -EBADF;
	if (!(p.revents & POLLIN))
		return 0;

	memset(req.b, 0, sizeof(req.b)); /* RECV refuses a dirty buffer */
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
		/* ENOENT: the target died or was interrupted after poll.
		 * EINTR: we slept, so another reader took it. */
		if (errno == ENOENT || errno == EAGAIN || errno == EINTR)
			return 0;
		return -errno;
	}
	id = req.n.id;
	syscall_name(req.n.data.arch, req.n.data.nr, nm, sizeof(nm));

	/* The answer is built only from the notification itself (number and
	 * arch), never from the target's memory, so nothing can change under
	 * us; still confirm the id before answering, as seccomp_unotify(2)
	 * prescribes: a target that died in between is no denial to record. */
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
		return errno == ENOENT ? 0 : -errno;

	/* Always an error answer, never SECCOMP_USER_NOTIF_FLAG_CONTINUE:
	 * the call is refused, not performed on the target's behalf. */
	memset(resp.b, 0, sizeof(resp.b));
	resp.r.id = id;
	resp.r.error = -EPERM;
	resp.r.val = 0;
	resp.r.flags = 0;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		return errno == ENOENT ? 0 : -errno;
	snprintf(name, namelen, "%s", nm);
	return 1;
}

#endif /* FILTER_GEN */
