/* lab_keeper.c - the lab's life: the keeper that builds and holds its
 * namespaces, its handshake with lab_create, entering the lab, and
 * lab_destroy (contract in sandproof/lab.h). */
#include "lab_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "userns.h"

#define LAB_DEFAULT_TIMEOUT_MS 10000

struct keeper_msg {
	int err;          /* 0 or an errno */
	int nfds;         /* namespace fds attached: net, [user], [far net] */
	char step[96];
};

struct keeper_args {
	bool userns, routed;
	pid_t parent;
	int ctl;
};

static int keeper_send(int ctl, const struct keeper_msg *km, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = {0};
	struct iovec iov = {(void *)km, sizeof(*km)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfds > 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	return sendmsg(ctl, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

#define KSTEP(expr, what)                                                  \
	do {                                                               \
		int rc_ = (expr);                                          \
		if (rc_ < 0) {                                             \
			km.err = -rc_;                                     \
			snprintf(km.step, sizeof(km.step), "%s", what);   \
			goto out;                                          \
		}                                                          \
	} while (0)

static int keeper_errno(int rc)
{
	return rc < 0 ? -errno : rc;
}

/* The far side: a network namespace held only by far_fd, with lo up and
 * 203.0.113.1/32 on it.  Returns a netlink socket bound to it. */
static int keeper_make_far(int *far_fd, struct keeper_msg *km_)
{
	struct keeper_msg km = {0};
	int nl = -1;

	KSTEP(keeper_errno(unshare(CLONE_NEWNET)), "unshare far network namespace");
	KSTEP(*far_fd = keeper_errno(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)),
	      "open far netns");
	KSTEP(nl = lab_nl_open(), "far netlink socket");
	KSTEP(lab_nl_bring_up(nl, "lo", "203.0.113.1", 32), "far lo 203.0.113.1/32");
	return nl;
out:
	*km_ = km;
	if (nl >= 0)
		close(nl);
	return -1;
}

static _Noreturn void keeper_main(const struct keeper_args *a)
{
	struct keeper_msg km = {0};
	int fds[3], nfds = 0, far_fd = -1, nl_far = -1, nl = -1, idx;
	int ctl;
	char c;

	if (lab_child_tether(a->parent) < 0 || (ctl = lab_child_keep_one_fd(a->ctl)) < 0)
		_exit(1);
	if (a->userns) {
		/* The caller writes our maps; until then we are nobody here. */
		KSTEP(keeper_errno(unshare(CLONE_NEWUSER)), "unshare user namespace");
		c = 'U';
		KSTEP(keeper_errno((int)send(ctl, &c, 1, MSG_NOSIGNAL)), "handshake");
		if (recv(ctl, &c, 1, 0) != 1 || c != 'M')
			_exit(1);
	}
	if (a->routed && (nl_far = keeper_make_far(&far_fd, &km)) < 0)
		goto out;
	KSTEP(keeper_errno(unshare(CLONE_NEWNET)), "unshare network namespace");
	KSTEP(nl = lab_nl_open(), "netlink socket");
	KSTEP(lab_nl_bring_up(nl, "lo", NULL, 0), "lo up");
	KSTEP(lab_nl_add_veth(nl, "lab0", "lab1", -1), "veth lab0/lab1");
	KSTEP(lab_nl_bring_up(nl, "lab0", "192.0.2.1", 24), "lab0 192.0.2.1/24");
	KSTEP(lab_nl_bring_up(nl, "lab1", "192.0.2.2", 24), "lab1 192.0.2.2/24");
	if (a->routed) {
		KSTEP(lab_nl_add_veth(nl, "far0", "far1", far_fd), "veth far0/far1");
		KSTEP(idx = lab_nl_bring_up(nl, "far0", "198.51.100.1", 24), "far0 198.51.100.1/24");
		KSTEP(lab_nl_bring_up(nl_far, "far1", "198.51.100.2", 24), "far1 198.51.100.2/24");
		KSTEP(lab_nl_add_route(nl, "203.0.113.0", 24, "198.51.100.2", idx),
		      "route 203.0.113.0/24 via 198.51.100.2");
	}
	KSTEP(fds[nfds++] = keeper_errno(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)),
	      "open netns");
	if (a->userns)
		KSTEP(fds[nfds++] = keeper_errno(open("/proc/thread-self/ns/user",
						   O_RDONLY | O_CLOEXEC)), "open userns");
	if (a->routed)
		fds[nfds++] = far_fd;
out:
	km.nfds = km.err ? 0 : nfds;
	if (keeper_send(ctl, &km, fds, km.nfds) < 0 || km.err)
		_exit(1);
	/* Hold the namespaces until lab_destroy closes the control socket or
	 * kills us, or the creating thread dies (PR_SET_PDEATHSIG). */
	for (;;) {
		ssize_t n = recv(ctl, &c, 1, 0);

		if (n == 0 || (n < 0 && errno != EINTR))
			_exit(0);
	}
}

/* Identity maps for the keeper's new user namespace (common/userns.h):
 * every id as root, else only our own, setgroups denied first (so nobody
 * in the lab can drop a supplementary group used as a deny rule).  The
 * keeper is our unreaped child, so its pid names it until we wait. */
static int keeper_write_maps(pid_t pid, char *err, size_t errlen)
{
	int rc = userns_write_maps(pid, USERNS_MAP_AUTO, NULL);

	if (rc < 0)
		snprintf(err, errlen, "write keeper id maps: %s", strerror(-rc));
	return rc;
}

/* Read the keeper's result and its namespace fds (close-on-exec here). */
static int keeper_read_result(struct lab *l, bool userns, char *err, size_t errlen)
{
	struct keeper_msg km = {0};
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = {&km, sizeof(km)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	int fds[3] = {-1, -1, -1}, nfds = 0, want, rc;
	ssize_t n;

	if ((rc = lab_child_wait_readable(l->ctl_fd, l->timeout_ms)) < 0) {
		snprintf(err, errlen, "waiting for the keeper: %s", strerror(-rc));
		return rc;
	}
	n = recvmsg(l->ctl_fd, &mh, MSG_CMSG_CLOEXEC);
	for (c = CMSG_FIRSTHDR(&mh); n > 0 && c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			nfds = nfds > 3 ? 3 : nfds;
			memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
		}
	want = 1 + userns + l->routed;
	if (n != (ssize_t)sizeof(km) || km.err || nfds != want) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		if (n != (ssize_t)sizeof(km)) {
			snprintf(err, errlen, "keeper died during setup");
			return -ECHILD;
		}
		if (km.err) {
			km.step[sizeof(km.step) - 1] = 0;
			snprintf(err, errlen, "keeper: %s: %s", km.step, strerror(km.err));
			return -km.err;
		}
		snprintf(err, errlen, "keeper sent %d namespace fds, expected %d", nfds, want);
		return -EPROTO;
	}
	l->netns_fd = fds[0];
	l->userns_fd = userns ? fds[1] : -1;
	l->far_netns_fd = l->routed ? fds[want - 1] : -1;
	return 0;
}

/* A lab with no process yet: every descriptor -1, the hit counters
 * mapped.  NULL with errno set on failure. */
static struct lab *keeper_lab_alloc(const struct lab_opts *o)
{
	struct lab *l = calloc(1, sizeof(*l));
	int e;

	if (!l)
		return NULL;
	l->keeper_pidfd = l->ctl_fd = l->userns_fd = l->netns_fd = l->far_netns_fd = -1;
	l->routed = o->routed;
	l->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : LAB_DEFAULT_TIMEOUT_MS;
	/* Listeners count into this page; it is shared with the listener
	 * children only by inheritance and disappears at their exec/exit. */
	l->hits = mmap(NULL, LAB_MAX_LISTENERS * sizeof(*l->hits), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->hits == MAP_FAILED) {
		e = errno;
		free(l);
		errno = e;
		return NULL;
	}
	return l;
}

/* Fork the keeper with its end of a control socket (ka->ctl is set here);
 * l gets the other end and a pidfd of the keeper.  0 or -errno (err says
 * which step). */
static int keeper_start(struct lab *l, struct keeper_args *ka, char *err, size_t errlen)
{
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = -errno;
		snprintf(err, errlen, "socketpair: %s", strerror(-rc));
		return rc;
	}
	ka->ctl = sv[1];
	l->keeper = fork();
	if (l->keeper < 0) {
		rc = -errno;
		close(sv[0]);
		close(sv[1]);
		snprintf(err, errlen, "fork keeper: %s", strerror(-rc));
		return rc;
	}
	if (l->keeper == 0)
		keeper_main(ka);
	close(sv[1]);
	l->ctl_fd = sv[0];
	l->keeper_pidfd = lab_child_open_pidfd(l->keeper);
	if (l->keeper_pidfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "pidfd_open keeper: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

/* The keeper unshared its user namespace: write its maps, then let it go
 * on.  The keeper sends one byte 'U' once it is in its user namespace, or
 * a whole keeper_msg if unshare failed (MSG_TRUNC tells which; that
 * message is then read by keeper_read_result).  0 or -errno. */
static int keeper_map_handshake(struct lab *l, char *err, size_t errlen)
{
	ssize_t n = 0;
	char c;
	int rc;

	if ((rc = lab_child_wait_readable(l->ctl_fd, l->timeout_ms)) == 0 &&
	    (n = recv(l->ctl_fd, &c, 1, MSG_PEEK | MSG_TRUNC)) <= 0)
		rc = -ECHILD;
	if (rc < 0) {
		snprintf(err, errlen, "waiting for the keeper: %s", strerror(-rc));
		return rc;
	}
	if (n != 1)
		return 0;
	recv(l->ctl_fd, &c, 1, 0);
	if ((rc = keeper_write_maps(l->keeper, err, errlen)) < 0)
		return rc;
	c = 'M';
	if (send(l->ctl_fd, &c, 1, MSG_NOSIGNAL) != 1) {
		snprintf(err, errlen, "keeper died during setup");
		return -ECHILD;
	}
	return 0;
}

int lab_create(const struct lab_opts *o, struct lab **out, char *err, size_t errlen)
{
	static const struct lab_opts defaults = {0};
	struct keeper_args ka = {0};
	char dummy[8];
	struct lab *l;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	o = o ? o : &defaults;
	l = keeper_lab_alloc(o);
	if (!l)
		return -errno;
	ka.routed = o->routed;
	ka.userns = o->userns == LAB_USERNS_ALWAYS ||
		    (o->userns == LAB_USERNS_AUTO && geteuid() != 0);
	ka.parent = getpid();
	rc = keeper_start(l, &ka, err, errlen);
	if (rc == 0 && ka.userns)
		rc = keeper_map_handshake(l, err, errlen);
	if (rc == 0)
		rc = keeper_read_result(l, ka.userns, err, errlen);
	if (rc < 0) {
		lab_destroy(l);
		return rc;
	}
	*out = l;
	return 0;
}

int lab_enter(const struct lab *l)
{
	if (!l || l->netns_fd < 0)
		return -EINVAL;
	if (l->userns_fd >= 0 && setns(l->userns_fd, CLONE_NEWUSER) < 0)
		return -errno;
	return setns(l->netns_fd, CLONE_NEWNET) < 0 ? -errno : 0;
}

int lab_enter_far(const struct lab *l)
{
	if (!l)
		return -EINVAL;
	if (l->far_netns_fd < 0)
		return -ENOENT;
	if (l->userns_fd >= 0 && setns(l->userns_fd, CLONE_NEWUSER) < 0)
		return -errno;
	return setns(l->far_netns_fd, CLONE_NEWNET) < 0 ? -errno : 0;
}

void lab_destroy(struct lab *l)
{
	if (!l)
		return;
	lab_listeners_stop(l);
	if (l->ctl_fd >= 0)
		close(l->ctl_fd);
	lab_child_kill(l->keeper, l->keeper_pidfd);
	if (l->netns_fd >= 0)
		close(l->netns_fd);
	if (l->userns_fd >= 0)
		close(l->userns_fd);
	if (l->far_netns_fd >= 0)
		close(l->far_netns_fd);
	if (l->hits && l->hits != MAP_FAILED)
		munmap(l->hits, LAB_MAX_LISTENERS * sizeof(*l->hits));
	free(l);
}
