/* sp_fault.c - a tiny fault injector for SETUP tests.
 *
 *   sp_fault SYSCALL[,SYSCALL...] ERRNO [ARG1] -- CMD [ARG...]
 *
 * Installs a seccomp filter (default: allow) under which each named system
 * call fails with ERRNO (a name such as EPERM, or a number), then sets
 * no_new_privs and execs CMD, which inherits the filter together with every
 * process it starts.  With ARG1 the rule matches only when the call's
 * second argument equals ARG1 compared as 32 bits (ioctl requests: the
 * kernel reads them as an unsigned int, so the high half is ignored here
 * too).  A syscall is a name libseccomp knows or a number.
 *
 * Exit status: 2 usage error, 1 the filter could not be installed or CMD
 * could not be executed (nothing ran under a partial filter); otherwise
 * CMD's own. */
#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define E(x) {#x, x}
static const struct {
	const char *name;
	int v;
} sp_fault_errnos[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(E2BIG), E(EBADF),
	E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
	E(EXDEV), E(ENODEV), E(ENOTDIR), E(EINVAL), E(ENFILE), E(EMFILE),
	E(ENOTTY), E(ENOSPC), E(EROFS), E(ENOSYS), E(ELOOP), E(EOPNOTSUPP),
	E(EAFNOSUPPORT), E(ENETDOWN), E(EUSERS),
};
#undef E

static int sp_fault_usage(const char *msg)
{
	fprintf(stderr, "sp_fault: %s\n"
			"usage: sp_fault SYSCALL[,SYSCALL...] ERRNO [ARG1] -- CMD [ARG...]\n",
		msg);
	return 2;
}

/* Decimal, or hex with 0x; -1 on junk or out of [0, max]. */
static long long sp_fault_number(const char *s, long long max)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < 0 || v > max)
		return -1;
	return v;
}

static int sp_fault_errno(const char *s)
{
	for (size_t i = 0; i < sizeof(sp_fault_errnos) / sizeof(sp_fault_errnos[0]); i++)
		if (strcmp(sp_fault_errnos[i].name, s) == 0)
			return sp_fault_errnos[i].v;
	return (int)sp_fault_number(s, 4095);
}

static int sp_fault_syscall(const char *s)
{
	int nr = seccomp_syscall_resolve_name(s);

	if (nr != __NR_SCMP_ERROR)
		return nr;
	return (int)sp_fault_number(s, 1023);
}

/* Adds one rule per name in the comma-separated list.  0 or -errno. */
static int sp_fault_rules(scmp_filter_ctx ctx, char *list, int err,
			  bool have_arg, uint32_t arg1)
{
	char *save = NULL;

	for (char *name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		int nr = sp_fault_syscall(name), rc;

		if (nr < 0) {
			fprintf(stderr, "sp_fault: unknown syscall \"%s\"\n", name);
			return -EINVAL;
		}
		if (have_arg)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)err), nr, 1,
					      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, arg1));
		else
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)err), nr, 0);
		if (rc < 0) {
			fprintf(stderr, "sp_fault: rule for %s: %s\n", name, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	long long arg1 = 0;
	bool have_arg = false;
	int err, dash = 0, rc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dash = i;
			break;
		}
	if (dash != 3 && dash != 4)
		return sp_fault_usage("expected SYSCALL ERRNO [ARG1] --");
	if (dash + 1 >= argc)
		return sp_fault_usage("no command");
	err = sp_fault_errno(argv[2]);
	if (err <= 0)
		return sp_fault_usage("ERRNO must be a known name or 1..4095");
	if (dash == 4) {
		arg1 = sp_fault_number(argv[3], 0xffffffffLL);
		if (arg1 < 0)
			return sp_fault_usage("ARG1 must be a 32-bit number");
		have_arg = true;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return sp_fault_usage("seccomp_init failed");
	rc = sp_fault_rules(ctx, argv[1], err, have_arg, (uint32_t)arg1);
	/* no_new_privs first: it is what lets an unprivileged caller load a
	 * filter, and it must hold for CMD whatever libseccomp defaults to. */
	if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		rc = -errno;
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		fprintf(stderr, "sp_fault: cannot install the filter: %s\n", strerror(-rc));
		return 1;
	}
	execvp(argv[dash + 1], &argv[dash + 1]);
	fprintf(stderr, "sp_fault: %s: %s\n", argv[dash + 1], strerror(errno));
	return 1;
}
