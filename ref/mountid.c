/* mountid.c - see mountid.h. */
#include "mountid.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#ifdef SANDPROOF_HAVE_STATX_MNT_ID
static int mountid_statx(int dfd, const char *name, int flags, uint64_t *id)
{
	struct statx x;

	if (statx(dfd, name, flags | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &x) < 0)
		return -errno;
	if (!(x.stx_mask & STATX_MNT_ID))
		return -ENOTSUP; /* a kernel before 5.8: no proof of the same mount */
	*id = x.stx_mnt_id;
	return 0;
}

int mountid_at(int dfd, const char *name, uint64_t *id)
{
	return mountid_statx(dfd, name, 0, id);
}

int mountid_fd(int fd, uint64_t *id)
{
	return mountid_statx(fd, "", AT_EMPTY_PATH, id);
}
#else
int mountid_at(int dfd, const char *name, uint64_t *id)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	*id = (uint64_t)st.st_dev;
	return 0;
}

int mountid_fd(int fd, uint64_t *id)
{
	struct stat st;

	/* AT_FDCWD (runtime_remove_tree's dfd) is the working directory, which
	 * fstat does not take: EBADF left every tree removal undone here */
	if ((fd == AT_FDCWD ? stat(".", &st) : fstat(fd, &st)) < 0)
		return -errno;
	*id = (uint64_t)st.st_dev;
	return 0;
}
#endif
