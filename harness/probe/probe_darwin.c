/* probe_darwin.c - operations only macOS has: a launchd service lookup
 * (mach-lookup, what Seatbelt filters by service name) and extended
 * attributes (file-write-xattr, apart from file-write-data in Seatbelt).
 * They are compiled only on macOS (__APPLE__); elsewhere each keeps its
 * name and arguments and answers the typed "unsupported" of
 * probe_op_unsupported, like the Linux-only operations do off Linux. */
#include "probe.h"

#include <errno.h>
#include <string.h>

#ifdef __APPLE__
#include <mach/mach.h>
#include <servers/bootstrap.h>
#include <sys/xattr.h>

/* bootstrap_look_up's refusals as errno names: a service the sandbox may
 * not look up is BOOTSTRAP_NOT_PRIVILEGED (EPERM), one that does not
 * exist BOOTSTRAP_UNKNOWN_SERVICE (ENOENT); anything else is EIO with the
 * kern_return_t in "kr". */
static int probe_kr_errno(kern_return_t kr)
{
	if (kr == BOOTSTRAP_NOT_PRIVILEGED)
		return EPERM;
	if (kr == BOOTSTRAP_UNKNOWN_SERVICE)
		return ENOENT;
	return EIO;
}

static void probe_op_mach_lookup(struct probe_ctx *ctx, char **a, int n,
				 struct probe_res *res)
{
	mach_port_t port = MACH_PORT_NULL;
	kern_return_t kr;

	(void)ctx, (void)n;
	kr = bootstrap_look_up(bootstrap_port, a[0], &port);
	if (kr != KERN_SUCCESS) {
		probe_res_fail(res, probe_kr_errno(kr), "bootstrap_look_up");
		probe_field_int(res, "kr", kr);
		return;
	}
	mach_port_deallocate(mach_task_self(), port);
}

/* Extended attributes, never following a final symlink (XATTR_NOFOLLOW):
 * the attribute of the path itself. */
static void probe_op_xattr_set(struct probe_ctx *ctx, char **a, int n,
			       struct probe_res *res)
{
	(void)ctx, (void)n;
	if (setxattr(a[0], a[1], a[2], strlen(a[2]), 0, XATTR_NOFOLLOW) < 0)
		probe_res_fail(res, errno, "setxattr");
}

static void probe_op_xattr_get(struct probe_ctx *ctx, char **a, int n,
			       struct probe_res *res)
{
	char buf[PROBE_DATA_MAX];
	ssize_t r;

	(void)ctx, (void)n;
	r = getxattr(a[0], a[1], buf, sizeof(buf), 0, XATTR_NOFOLLOW);
	if (r < 0) {
		probe_res_fail(res, errno, "getxattr");
		return;
	}
	probe_field_str(res, "value", buf, (size_t)r);
}

static void probe_op_xattr_remove(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	(void)ctx, (void)n;
	if (removexattr(a[0], a[1], XATTR_NOFOLLOW) < 0)
		probe_res_fail(res, errno, "removexattr");
}

#define PROBE_APPLE_OP(fn) fn
#else
#define PROBE_APPLE_OP(fn) probe_op_unsupported
#endif

static int probe_check_name(char **a, int n, char *msg, size_t len)
{
	(void)n;
	if (a[0][0] == '\0')
		return probe_check_msg(msg, len, "the name must not be empty");
	return 0;
}

const struct probe_op probe_darwin_ops[] = {
	{"mach_lookup", 1, 1, "SERVICE", probe_check_name, PROBE_APPLE_OP(probe_op_mach_lookup)},
	{"xattr_set", 3, 3, "PATH NAME VALUE", NULL, PROBE_APPLE_OP(probe_op_xattr_set)},
	{"xattr_get", 2, 2, "PATH NAME", NULL, PROBE_APPLE_OP(probe_op_xattr_get)},
	{"xattr_remove", 2, 2, "PATH NAME", NULL, PROBE_APPLE_OP(probe_op_xattr_remove)},
	{NULL, 0, 0, NULL, NULL, NULL},
};
