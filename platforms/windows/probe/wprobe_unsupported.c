/* wprobe_unsupported.c - the POSIX probe's operations Windows has no
 * counterpart for (or the Windows probe does not implement yet): each
 * keeps its name and argument count and answers the typed "unsupported"
 * of probe_op_unsupported (ok false, errno EOPNOTSUPP, step
 * "unsupported_op", "unsupported": true), never a usage error.  Their
 * arguments are counted, not parsed. */
#include "wprobe.h"

/* group N (harness/probe/README.md): no fork here, so its N operations
 * are skipped, never run unisolated in the probe itself, and the group
 * gives the typed unsupported answer. */
static void wprobe_op_group(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long cnt = 1;

	probe_parse_ll(a[0], 1, 1000000, &cnt);
	ctx->next = probe_group_end(ctx, cnt);
	probe_op_unsupported(ctx, a, n, res);
}

#define U(name, lo, hi, usage) {name, lo, hi, usage, NULL, probe_op_unsupported}
const struct probe_op wprobe_unsupported_ops[] = {
	{"group", 1, 1, "N", NULL, wprobe_op_group},
	U("rename_exchange", 2, 2, "A B"),
	U("remount", 1, 1, "PATH"),
	U("umount", 1, 1, "PATH"),
	U("mountinfo", 1, 1, "PATH"),
	U("listen_count", 5, 5, "tcp|udp ADDR PORT MS READYFILE"),
	U("if_addrs", 0, 0, ""),
	U("listen_echo", 3, 3, "tcp|udp ADDR PORT"),
	U("unix_connect", 1, 1, "PATH"),
	U("abstract_unix_connect", 1, 1, "NAME"),
	U("socket", 1, 3, "FAMILY TYPE [PROTO] | raw [raw [PROTO]]"),
	U("socketpair", 1, 3, "FAMILY TYPE [PROTO]"),
	U("io_uring", 0, 0, ""),
	U("ptrace", 1, 1, "PID"),
	U("ptrace_parent", 0, 0, ""),
	U("process_vm_readv", 1, 1, "PID"),
	U("tiocsti", 0, 0, ""),
	U("tiocsti_pty", 0, 0, ""),
	U("open", 2, 2, "PATH FLAGS"),
	U("chmod", 2, 2, "PATH MODE"),
	U("tmpfile_link", 3, 3, "DIR NEW TEXT"),
	U("unshare_user", 0, 0, ""),
	U("clone_user", 1, 1, "clone|clone3"),
	U("foreign_abi", 1, 1, "x32|ia32"),
	U("setns", 1, 1, "PATH"),
	U("caps", 0, 0, ""),
	U("no_new_privs", 0, 0, ""),
	U("kill", 2, 2, "PID SIG"),
	U("flood", 1, 2, "BYTES [stdout|stderr]"),
	U("signal", 1, 1, "SIG"),
	U("forkn", 1, 2, "N [TAG]"),
	U("alloc", 1, 1, "BYTES"),
	U("fill", 2, 2, "PATH BYTES"),
	U("openn", 1, 1, "N"),
	U("spin", 1, 1, "MS"),
	U("mach_lookup", 1, 1, "SERVICE"),
	U("xattr_set", 3, 3, "PATH NAME VALUE"),
	U("xattr_get", 2, 2, "PATH NAME"),
	U("xattr_remove", 2, 2, "PATH NAME"),
	{NULL, 0, 0, NULL, NULL, NULL},
};
