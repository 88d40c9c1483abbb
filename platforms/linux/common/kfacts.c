/* kfacts.c - see kfacts.h. */
#include "kfacts.h"

#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

/* libseccomp 2.5.4 API level that can emit SCMP_ACT_NOTIFY. */
#define KFACTS_API_NOTIFY 5

int kfacts_landlock_abi(void)
{
	int v = (int)syscall(__NR_landlock_create_ruleset, NULL, (size_t)0,
			     LANDLOCK_CREATE_RULESET_VERSION);

	if (v > 0)
		return v;
	if (errno == ENOSYS || errno == EOPNOTSUPP)
		return 0;
	return -errno;
}

int kfacts_seccomp_notify_offered(void)
{
	uint32_t act = SECCOMP_RET_USER_NOTIF;
	struct seccomp_notif_sizes sz;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0)
		return 0;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return 0;
	return seccomp_api_get() >= KFACTS_API_NOTIFY;
}

int kfacts_seccomp_notify_usable(void)
{
	static int cached = -1;
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = 1, .filter = &allow};
	int status;
	pid_t pid;

	if (cached >= 0)
		return cached;
	if (!kfacts_seccomp_notify_offered())
		return cached = 0;
	/* A listener cannot be created when one already exists in the chain
	 * (e.g. the harness holds this runner under its own notify filter);
	 * only trying tells, and a filter cannot be removed, so try in a
	 * child that only makes raw syscalls and exits. */
	pid = fork();
	if (pid < 0)
		return 0; /* not cached: a later call may probe again */
	if (pid == 0) {
		long fd;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(1);
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		_exit(fd >= 0 ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 0;
	}
	return cached = (WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
