/* landlock.c - Landlock write confinement (see landlock.h for the policy).
 *
 * Debian 12's uapi header stops at ABI 2-era definitions, so the rights,
 * scopes and the ruleset attribute of newer ABIs are defined here, and the
 * three syscalls are called through syscall(2). */
#include "landlock.h"
#include "kfacts.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* The ruleset attribute as of ABI 6.  The installed header's struct has
 * only the first member; the kernel takes the size we pass and requires
 * every byte it does not know to be zero, so the full struct with unused
 * members zeroed is accepted by every ABI. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4; never set (landlock.h) */
	uint64_t scoped;             /* ABI 6 */
};

/* Rights every ABI knows that create, change or remove a name or content. */
#define LL_FS_WRITE_V1                                                        \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |      \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |      \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |          \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |        \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* The rights that may be granted on a non-directory (the kernel refuses
 * directory-only rights in a rule on a file). */
#define LL_FS_FILE_WRITE                                                      \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |        \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int ll_sys_create_ruleset(const struct ll_ruleset_attr *attr,
				 size_t size, uint32_t flags)
{
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static int ll_sys_add_rule(int ruleset_fd, const void *attr)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset_fd,
			    LANDLOCK_RULE_PATH_BENEATH, attr, 0U);
}

static int ll_sys_restrict_self(int ruleset_fd)
{
	return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, 0U);
}

int ll_abi(void)
{
	int v = kfacts_landlock_abi();

	return v > 0 ? v : 0;
}

int ll_probe(void)
{
	return kfacts_landlock_abi();
}

static uint64_t ll_handled_fs(int abi)
{
	uint64_t h = LL_FS_WRITE_V1;

	if (abi >= LL_ABI_REFER)
		h |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= LL_ABI_TRUNCATE)
		h |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= LL_ABI_IOCTL_DEV)
		h |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return h;
}

/* Grant allowed on each fd; 0 or -errno at the first fd that fails.
 * files_only: refuse a directory, because file rights in a rule on a
 * directory apply to every file beneath it, which would widen a grant
 * meant for one device node into a whole tree. */
static int ll_add_rules(int ruleset_fd, const int *fds, size_t n,
			uint64_t allowed, bool files_only)
{
	for (size_t i = 0; i < n; i++) {
		struct landlock_path_beneath_attr pb;
		struct stat st;

		if (files_only) {
			if (fstat(fds[i], &st) != 0)
				return -errno;
			if (S_ISDIR(st.st_mode))
				return -EINVAL;
		}
		memset(&pb, 0, sizeof(pb));
		pb.allowed_access = allowed;
		pb.parent_fd = fds[i];
		if (ll_sys_add_rule(ruleset_fd, &pb) != 0)
			return -errno;
	}
	return 0;
}

int ll_restrict_abi(const struct ll_policy *p, int abi)
{
	struct ll_ruleset_attr attr;
	int kabi, rfd, r;

	kabi = ll_abi();
	if (kabi == 0)
		return -EOPNOTSUPP;
	if (kabi > LL_ABI_KNOWN)
		kabi = LL_ABI_KNOWN;
	if (p == NULL || abi < 1 || abi > kabi)
		return -EINVAL;
	if ((p->n_write_dirs && p->write_dirs == NULL) ||
	    (p->n_write_files && p->write_files == NULL))
		return -EINVAL;
	/* A scope the ABI lacks is refused rather than dropped: the caller
	 * asked for an isolation it would otherwise believe it has. */
	if ((p->scope_signals || p->scope_abstract_unix) && abi < LL_ABI_SCOPES)
		return -EINVAL;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = ll_handled_fs(abi);
	if (p->scope_signals)
		attr.scoped |= LANDLOCK_SCOPE_SIGNAL;
	if (p->scope_abstract_unix)
		attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;

	rfd = ll_sys_create_ruleset(&attr, sizeof(attr), 0);
	if (rfd < 0)
		return -errno;

	r = ll_add_rules(rfd, p->write_dirs, p->n_write_dirs,
			 attr.handled_access_fs, false);
	if (r == 0)
		r = ll_add_rules(rfd, p->write_files, p->n_write_files,
				 attr.handled_access_fs & LL_FS_FILE_WRITE, true);
	/* The ruleset is complete before it is enforced: restrict_self is the
	 * only step that changes the thread, and it is all-or-nothing, so an
	 * error anywhere above leaves the thread untouched. */
	if (r == 0 && ll_sys_restrict_self(rfd) != 0)
		r = -errno;
	close(rfd);
	return r == 0 ? abi : r;
}

int ll_restrict(const struct ll_policy *p)
{
	int abi = ll_abi();

	if (abi == 0)
		return -EOPNOTSUPP;
	if (abi > LL_ABI_KNOWN)
		abi = LL_ABI_KNOWN;
	return ll_restrict_abi(p, abi);
}
