/* doctor.c - what this Linux host supports, for `sandproof-ref doctor`.
 *
 * Every capability is checked by doing it (in a throw-away child), not by
 * reading version numbers: a sysctl, an LSM policy or a seccomp filter of
 * a container runtime can each forbid what the kernel version promises. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "kfacts.h"
#include "landlock.h"
#include "limits_plan.h"
#include "sandproof/platform.h"

/* Run fn in a child; its exit code is 0 or a positive errno. */
static int in_child(int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(fn());
	if (waitpid(pid, &st, 0) < 0)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
}

/* The same call a launch makes: clone3 into every namespace at once (clone
 * where clone3 is unavailable), so the answer is about what a run needs. */
static int try_userns(void)
{
	uint64_t flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
			 CLONE_NEWIPC;
	struct clone_args ca = {.flags = flags, .exit_signal = SIGCHLD};
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));
	int st;

	if (pid < 0 && errno == ENOSYS)
		pid = syscall(SYS_clone, (unsigned long)(flags | SIGCHLD), NULL, NULL, NULL, NULL);
	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return waitpid((pid_t)pid, &st, 0) < 0 ? errno : 0;
}

/* In a child cloned the way a launch clones (clone3, new user and mount
 * namespaces): clone the root tree and make it read-only. */
static int try_mount_api(void)
{
	uint64_t flags = CLONE_NEWUSER | CLONE_NEWNS;
	struct clone_args ca = {.flags = flags, .exit_signal = SIGCHLD};
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));
	int st;

	if (pid < 0 && errno == ENOSYS)
		pid = syscall(SYS_clone, (unsigned long)(flags | SIGCHLD), NULL, NULL, NULL, NULL);
	if (pid < 0)
		return errno;
	if (pid == 0) {
		struct mount_attr a = {.attr_set = MOUNT_ATTR_RDONLY};
		int fd = open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | AT_RECURSIVE);

		if (fd < 0)
			_exit(errno);
		_exit(mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0
		      ? errno : 0);
	}
	if (waitpid((pid_t)pid, &st, 0) < 0)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
}

static int try_openat2(void)
{
	struct open_how how = {.flags = O_PATH, .resolve = RESOLVE_NO_SYMLINKS};

	return syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how)) < 0 ? errno : 0;
}

/* Seccomp filter mode is available when PR_GET_SECCOMP answers. */
static bool prctl_seccomp_ok(void)
{
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

static void sysctl_line(FILE *out, const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	fprintf(out, "  %-58s %s\n", path, buf);
}

static int line(FILE *out, const char *what, int err, bool required)
{
	fprintf(out, "%-36s %s%s%s%s\n", what, err ? "no" : "yes", err ? " (" : "",
		err ? strerror(err) : "", err ? ")" : "");
	return err && required;
}

/* POSIX paths (request_posix_path_rules). */
const struct request_path_rules *platform_path_rules(void)
{
	return NULL;
}

int platform_doctor(FILE *out)
{
	struct utsname u;
	int bad = 0, abi = ll_probe();

	if (uname(&u) == 0)
		fprintf(out, "%-36s %s %s %s\n", "kernel", u.sysname, u.release, u.machine);
	fprintf(out, "%-36s %u\n", "uid", (unsigned)getuid());
	bad |= line(out, "user/mount/pid/net/ipc namespaces", in_child(try_userns), true);
	sysctl_line(out, "/proc/sys/user/max_user_namespaces");
	sysctl_line(out, "/proc/sys/kernel/unprivileged_userns_clone");
	sysctl_line(out, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	bad |= line(out, "mount API (open_tree, setattr)", in_child(try_mount_api), true);
	bad |= line(out, "openat2 RESOLVE_NO_SYMLINKS", try_openat2(), true);
	bad |= line(out, "seccomp filters", prctl_seccomp_ok() ? 0 : EOPNOTSUPP, true);
	line(out, "seccomp user notification", kfacts_seccomp_notify_usable() == 1 ? 0 : EOPNOTSUPP,
	     false);
	if (abi > 0)
		fprintf(out, "%-36s yes (ABI %d, using up to %d)\n", "Landlock", abi,
			abi > LL_ABI_KNOWN ? LL_ABI_KNOWN : abi);
	else
		line(out, "Landlock", abi < 0 ? -abi : EOPNOTSUPP, false);
	limits_doctor(out);
	fprintf(out, "%s\n", bad ? "verdict: the contract CANNOT be enforced on this host"
				 : "verdict: the contract can be enforced on this host");
	return bad ? 1 : 0;
}
