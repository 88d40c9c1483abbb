/* lab.c - see lab.h.  Three parts: a minimal rtnetlink client (the keeper
 * builds the lab with it), the keeper and its handshake with lab_create,
 * and the listeners. */
#include "sandproof/lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAB_DEFAULT_TIMEOUT_MS 10000

/* ---- rtnetlink ---------------------------------------------------------- */

struct nlbuf {
	size_t len;
	int err;                 /* -ENOBUFS once an attribute did not fit */
	char b[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
};

static struct nlmsghdr *nl_hdr(struct nlbuf *m)
{
	return (struct nlmsghdr *)m->b;
}

static void nl_begin(struct nlbuf *m, int type, int flags, const void *fam, size_t flen)
{
	memset(m, 0, sizeof(*m));
	nl_hdr(m)->nlmsg_type = type;
	nl_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	memcpy(m->b + NLMSG_HDRLEN, fam, flen);
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(flen);
}

/* Append raw bytes (an attribute header, payload or a nested family
 * header) at the aligned end of the message. */
static void *nl_raw(struct nlbuf *m, const void *data, size_t len)
{
	void *at = m->b + m->len;

	if (m->len + RTA_ALIGN(len) > sizeof(m->b)) {
		m->err = -ENOBUFS;
		return NULL;
	}
	if (data)
		memcpy(at, data, len);
	m->len += RTA_ALIGN(len);
	return at;
}

static struct rtattr *nl_put(struct nlbuf *m, int type, const void *data, size_t len)
{
	struct rtattr *a = nl_raw(m, NULL, RTA_LENGTH(len));

	if (!a)
		return NULL;
	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	return a;
}

static void nl_put_str(struct nlbuf *m, int type, const char *s)
{
	nl_put(m, type, s, strlen(s) + 1);
}

static struct rtattr *nl_nest(struct nlbuf *m, int type)
{
	return nl_put(m, type, NULL, 0);
}

static void nl_nest_end(struct nlbuf *m, struct rtattr *a)
{
	if (a)
		a->rta_len = (unsigned short)(m->b + m->len - (char *)a);
}

static int nl_open(void)
{
	struct timeval tv = {5, 0};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* Send one request and read until its acknowledgement.  A netlink socket
 * acts on the namespace it was created in, whatever the caller's current
 * one.  *ifindex (if non-NULL) receives the index of an RTM_NEWLINK reply. */
static int nl_talk(int fd, struct nlbuf *m, int *ifindex)
{
	static unsigned seq;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char rb[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (m->err)
		return m->err;
	nl_hdr(m)->nlmsg_len = (unsigned)m->len;
	nl_hdr(m)->nlmsg_seq = ++seq;
	if (sendto(fd, m->b, m->len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, rb, sizeof(rb), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		for (h = (struct nlmsghdr *)rb; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (h->nlmsg_type == RTM_NEWLINK && ifindex)
				*ifindex = ((struct ifinfomsg *)NLMSG_DATA(h))->ifi_index;
		}
	}
}

static int nl_link_index(int fd, const char *name)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nlbuf m;
	int idx = 0, rc;

	nl_begin(&m, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	nl_put_str(&m, IFLA_IFNAME, name);
	rc = nl_talk(fd, &m, &idx);
	if (rc < 0)
		return rc;
	return idx > 0 ? idx : -ENODEV;
}

static int nl_link_up(int fd, int idx)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = idx,
				.ifi_flags = IFF_UP, .ifi_change = IFF_UP};
	struct nlbuf m;

	nl_begin(&m, RTM_SETLINK, 0, &ifi, sizeof(ifi));
	return nl_talk(fd, &m, NULL);
}

/* A veth pair name <-> peer, the peer moved into peer_netns (-1: stays). */
static int nl_veth_add(int fd, const char *name, const char *peer, int peer_netns)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct rtattr *info, *data, *pa;
	struct nlbuf m;

	nl_begin(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	nl_put_str(&m, IFLA_IFNAME, name);
	info = nl_nest(&m, IFLA_LINKINFO);
	nl_put_str(&m, IFLA_INFO_KIND, "veth");
	data = nl_nest(&m, IFLA_INFO_DATA);
	pa = nl_nest(&m, VETH_INFO_PEER);
	nl_raw(&m, &ifi, sizeof(ifi));   /* the peer's own ifinfomsg */
	nl_put_str(&m, IFLA_IFNAME, peer);
	if (peer_netns >= 0)
		nl_put(&m, IFLA_NET_NS_FD, &peer_netns, sizeof(peer_netns));
	nl_nest_end(&m, pa);
	nl_nest_end(&m, data);
	nl_nest_end(&m, info);
	return nl_talk(fd, &m, NULL);
}

static int nl_addr_add(int fd, int idx, const char *addr, int prefix)
{
	struct ifaddrmsg ifa = {.ifa_family = AF_INET, .ifa_prefixlen = prefix,
				.ifa_scope = RT_SCOPE_UNIVERSE, .ifa_index = idx};
	struct in_addr a;
	struct nlbuf m;

	if (inet_pton(AF_INET, addr, &a) != 1)
		return -EINVAL;
	nl_begin(&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	nl_put(&m, IFA_LOCAL, &a, sizeof(a));
	nl_put(&m, IFA_ADDRESS, &a, sizeof(a));
	return nl_talk(fd, &m, NULL);
}

static int nl_route_add(int fd, const char *dst, int len, const char *gw, int oif)
{
	struct rtmsg rt = {.rtm_family = AF_INET, .rtm_dst_len = len,
			   .rtm_table = RT_TABLE_MAIN, .rtm_protocol = RTPROT_STATIC,
			   .rtm_scope = RT_SCOPE_UNIVERSE, .rtm_type = RTN_UNICAST};
	struct in_addr d, g;
	struct nlbuf m;

	if (inet_pton(AF_INET, dst, &d) != 1 || inet_pton(AF_INET, gw, &g) != 1)
		return -EINVAL;
	nl_begin(&m, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rt, sizeof(rt));
	nl_put(&m, RTA_DST, &d, sizeof(d));
	nl_put(&m, RTA_GATEWAY, &g, sizeof(g));
	nl_put(&m, RTA_OIF, &oif, sizeof(oif));
	return nl_talk(fd, &m, NULL);
}

/* Bring an interface up, optionally with one IPv4 address. */
static int nl_iface(int fd, const char *name, const char *addr, int prefix)
{
	int idx = nl_link_index(fd, name), rc;

	if (idx < 0)
		return idx;
	if (addr && (rc = nl_addr_add(fd, idx, addr, prefix)) < 0)
		return rc;
	rc = nl_link_up(fd, idx);
	return rc < 0 ? rc : idx;
}

/* ---- process helpers ---------------------------------------------------- */

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Kill and reap a child of ours.  The pidfd names exactly that process even
 * if it was already reaped elsewhere; without one (-1) the pid is safe to
 * use only because an unreaped child's pid cannot be reused. */
static void child_kill(pid_t pid, int pidfd)
{
	if (pid <= 0)
		return;
	if (pidfd >= 0)
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	else
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (pidfd >= 0)
		close(pidfd);
}

/* Child side, right after fork: die with the creating thread.  The parent
 * may already have died before prctl took effect, so compare getppid with
 * the pid it had before fork: a reparented child exits now. */
static int child_tether(pid_t parent)
{
	sigset_t all;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return -1;
	return 0;
}

/* Child side: keep only fd (moved to 3) and /dev/null on 0-2, so a lab
 * process never holds the write end of some pipe whose EOF the harness
 * waits for.  Returns 3, or -1. */
static int child_keep_one_fd(int fd)
{
	int nul;

	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			return -1;
		close(fd);
	}
	if (close_range(4, ~0U, 0) < 0)
		return -1;
	nul = open("/dev/null", O_RDWR);
	if (nul < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		dup2(nul, i);
	if (nul > 3)
		close(nul);
	return 3;
}

static int poll_in(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n;

	while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

/* ---- the keeper ------------------------------------------------------- */

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

static int neg_errno(int rc)
{
	return rc < 0 ? -errno : rc;
}

/* The far side: a network namespace held only by far_fd, with lo up and
 * 203.0.113.1/32 on it.  Returns a netlink socket bound to it. */
static int keeper_far(int *far_fd, struct keeper_msg *km_)
{
	struct keeper_msg km = {0};
	int nl = -1;

	KSTEP(neg_errno(unshare(CLONE_NEWNET)), "unshare far network namespace");
	KSTEP(*far_fd = neg_errno(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)),
	      "open far netns");
	KSTEP(nl = nl_open(), "far netlink socket");
	KSTEP(nl_iface(nl, "lo", "203.0.113.1", 32), "far lo 203.0.113.1/32");
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

	if (child_tether(a->parent) < 0 || (ctl = child_keep_one_fd(a->ctl)) < 0)
		_exit(1);
	if (a->userns) {
		/* The caller writes our maps; until then we are nobody here. */
		KSTEP(neg_errno(unshare(CLONE_NEWUSER)), "unshare user namespace");
		c = 'U';
		KSTEP(neg_errno((int)send(ctl, &c, 1, MSG_NOSIGNAL)), "handshake");
		if (recv(ctl, &c, 1, 0) != 1 || c != 'M')
			_exit(1);
	}
	if (a->routed && (nl_far = keeper_far(&far_fd, &km)) < 0)
		goto out;
	KSTEP(neg_errno(unshare(CLONE_NEWNET)), "unshare network namespace");
	KSTEP(nl = nl_open(), "netlink socket");
	KSTEP(nl_iface(nl, "lo", NULL, 0), "lo up");
	KSTEP(nl_veth_add(nl, "lab0", "lab1", -1), "veth lab0/lab1");
	KSTEP(nl_iface(nl, "lab0", "192.0.2.1", 24), "lab0 192.0.2.1/24");
	KSTEP(nl_iface(nl, "lab1", "192.0.2.2", 24), "lab1 192.0.2.2/24");
	if (a->routed) {
		KSTEP(nl_veth_add(nl, "far0", "far1", far_fd), "veth far0/far1");
		KSTEP(idx = nl_iface(nl, "far0", "198.51.100.1", 24), "far0 198.51.100.1/24");
		KSTEP(nl_iface(nl_far, "far1", "198.51.100.2", 24), "far1 198.51.100.2/24");
		KSTEP(nl_route_add(nl, "203.0.113.0", 24, "198.51.100.2", idx),
		      "route 203.0.113.0/24 via 198.51.100.2");
	}
	KSTEP(fds[nfds++] = neg_errno(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)),
	      "open netns");
	if (a->userns)
		KSTEP(fds[nfds++] = neg_errno(open("/proc/thread-self/ns/user",
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

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	ssize_t len = (ssize_t)strlen(text), n;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != len)
		rc = n < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

/* Identity maps for the keeper's new user namespace.  Unprivileged, only
 * our own ids can be mapped and setgroups must be denied first (so nobody
 * in the lab can drop a supplementary group used as a deny rule).  The
 * keeper is our unreaped child, so its pid names it until we wait. */
static int keeper_map(pid_t pid, char *err, size_t errlen)
{
	char m[64];
	int rc;

	if (geteuid() == 0) {
		if ((rc = write_file(pid, "uid_map", "0 0 4294967295\n")) < 0 ||
		    (rc = write_file(pid, "gid_map", "0 0 4294967295\n")) < 0)
			goto fail;
		return 0;
	}
	if ((rc = write_file(pid, "setgroups", "deny")) < 0)
		goto fail;
	snprintf(m, sizeof(m), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	if ((rc = write_file(pid, "uid_map", m)) < 0)
		goto fail;
	snprintf(m, sizeof(m), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	if ((rc = write_file(pid, "gid_map", m)) < 0)
		goto fail;
	return 0;
fail:
	if (err)
		snprintf(err, errlen, "write keeper id maps: %s", strerror(-rc));
	return rc;
}

/* Read the keeper's result and its namespace fds (close-on-exec here). */
static int keeper_result(struct lab *l, bool userns, char *err, size_t errlen)
{
	struct keeper_msg km = {0};
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = {&km, sizeof(km)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	int fds[3] = {-1, -1, -1}, nfds = 0, want, rc;
	ssize_t n;

	if ((rc = poll_in(l->ctl_fd, l->timeout_ms)) < 0) {
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

int lab_create(const struct lab_opts *o, struct lab **out, char *err, size_t errlen)
{
	static const struct lab_opts defaults = {0};
	struct keeper_args ka = {0};
	int sv[2], rc;
	char dummy[8];
	struct lab *l;
	char c;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	o = o ? o : &defaults;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->keeper_pidfd = l->ctl_fd = l->userns_fd = l->netns_fd = l->far_netns_fd = -1;
	l->routed = o->routed;
	l->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : LAB_DEFAULT_TIMEOUT_MS;
	ka.routed = o->routed;
	ka.userns = o->userns == LAB_USERNS_ALWAYS ||
		    (o->userns == LAB_USERNS_AUTO && geteuid() != 0);
	ka.parent = getpid();
	/* Listeners count into this page; it is shared with the listener
	 * children only by inheritance and disappears at their exec/exit. */
	l->hits = mmap(NULL, LAB_MAX_LISTENERS * sizeof(*l->hits), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->hits == MAP_FAILED) {
		rc = -errno;
		free(l);
		return rc;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = -errno;
		snprintf(err, errlen, "socketpair: %s", strerror(-rc));
		goto fail;
	}
	ka.ctl = sv[1];
	l->keeper = fork();
	if (l->keeper < 0) {
		rc = -errno;
		close(sv[0]);
		close(sv[1]);
		snprintf(err, errlen, "fork keeper: %s", strerror(-rc));
		goto fail;
	}
	if (l->keeper == 0)
		keeper_main(&ka);
	close(sv[1]);
	l->ctl_fd = sv[0];
	l->keeper_pidfd = pidfd_open_(l->keeper);
	if (l->keeper_pidfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "pidfd_open keeper: %s", strerror(-rc));
		goto fail;
	}
	if (ka.userns) {
		ssize_t n = 0;

		/* The keeper sends one byte 'U' once it is in its user namespace,
		 * or a whole keeper_msg if unshare failed: MSG_TRUNC tells which. */
		if ((rc = poll_in(l->ctl_fd, l->timeout_ms)) == 0 &&
		    (n = recv(l->ctl_fd, &c, 1, MSG_PEEK | MSG_TRUNC)) <= 0)
			rc = -ECHILD;
		if (rc < 0) {
			snprintf(err, errlen, "waiting for the keeper: %s", strerror(-rc));
			goto fail;
		}
		if (n == 1) {
			recv(l->ctl_fd, &c, 1, 0);
			if ((rc = keeper_map(l->keeper, err, errlen)) < 0)
				goto fail;
			c = 'M';
			if (send(l->ctl_fd, &c, 1, MSG_NOSIGNAL) != 1) {
				rc = -ECHILD;
				snprintf(err, errlen, "keeper died during setup");
				goto fail;
			}
		}
	}
	if ((rc = keeper_result(l, ka.userns, err, errlen)) < 0)
		goto fail;
	*out = l;
	return 0;
fail:
	lab_destroy(l);
	return rc;
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

/* ---- listeners ---------------------------------------------------------- */

struct lst_spec {
	int domain, type;
	bool far;
	struct sockaddr_storage sa;
	socklen_t salen;
	int dirfd;               /* AF_UNIX path: directory to bind in, else -1 */
	char base[108];          /* AF_UNIX path: name inside dirfd */
};

struct lst_report {
	int err;
	uint16_t port;
};

#define LST_MAX_CONNS 32

/* Stream service: accept (one hit each), echo what arrives, close on EOF.
 * Everything is non-blocking so one idle client cannot stall the rest. */
static _Noreturn void serve_stream(int s, unsigned long *hits)
{
	struct pollfd p[1 + LST_MAX_CONNS];
	int n = 1;
	char buf[4096];

	p[0] = (struct pollfd){.fd = s, .events = POLLIN};
	for (;;) {
		if (poll(p, n, -1) < 0)
			continue;
		if (p[0].revents & POLLIN) {
			int c = accept4(s, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (c >= 0) {
				__atomic_add_fetch(hits, 1, __ATOMIC_SEQ_CST);
				if (n < 1 + LST_MAX_CONNS)
					p[n++] = (struct pollfd){.fd = c, .events = POLLIN};
				else
					close(c);
			}
		}
		for (int i = 1; i < n; i++) {
			ssize_t r;

			if (!p[i].revents)
				continue;
			r = recv(p[i].fd, buf, sizeof(buf), 0);
			if (r > 0 && send(p[i].fd, buf, r, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0)
				continue;
			if (r < 0 && errno == EAGAIN)
				continue;
			close(p[i].fd);
			p[i--] = p[--n];
		}
	}
}

/* Datagram service: one hit per datagram, echoed to a sender that has an
 * address.  The sender is inside the lab, so the echo stays there. */
static _Noreturn void serve_dgram(int s, unsigned long *hits)
{
	char buf[4096];

	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t r = recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);

		if (r < 0)
			continue;
		__atomic_add_fetch(hits, 1, __ATOMIC_SEQ_CST);
		if (flen > sizeof(sa_family_t))
			sendto(s, buf, r, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&from, flen);
	}
}

static int lst_bind(const struct lst_spec *sp, const struct lab *l, uint16_t *port)
{
	int one = 1, s;
	int rc = sp->far ? lab_enter_far(l) : lab_enter(l);

	if (rc < 0)
		return rc;
	/* The directory was pinned by the caller; binding relative to it means
	 * the socket lands there even if a path component was swapped since. */
	if (sp->dirfd >= 0 && fchdir(sp->dirfd) < 0)
		return -errno;
	s = socket(sp->domain, sp->type | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (sp->domain != AF_UNIX)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sp->dirfd >= 0) {
		struct sockaddr_un un = {.sun_family = AF_UNIX};

		memcpy(un.sun_path, sp->base, sizeof(un.sun_path));
		if (bind(s, (struct sockaddr *)&un, sizeof(un)) < 0)
			return -errno;
	} else if (bind(s, (const struct sockaddr *)&sp->sa, sp->salen) < 0) {
		return -errno;
	}
	if (sp->type != SOCK_DGRAM && listen(s, 64) < 0)
		return -errno;
	*port = 0;
	if (sp->domain == AF_INET || sp->domain == AF_INET6) {
		struct sockaddr_storage got;
		socklen_t gl = sizeof(got);

		if (getsockname(s, (struct sockaddr *)&got, &gl) < 0)
			return -errno;
		*port = ntohs(sp->domain == AF_INET ? ((struct sockaddr_in *)&got)->sin_port
						    : ((struct sockaddr_in6 *)&got)->sin6_port);
	}
	return s;
}

static _Noreturn void listener_main(const struct lab *l, const struct lst_spec *sp,
				    unsigned long *hits, pid_t parent, int wfd)
{
	struct lst_report rep = {0};
	int s;

	if (child_tether(parent) < 0)
		_exit(1);
	s = lst_bind(sp, l, &rep.port);
	rep.err = s < 0 ? -s : 0;
	if (write(wfd, &rep, sizeof(rep)) != sizeof(rep) || s < 0)
		_exit(1);
	if ((s = child_keep_one_fd(s)) < 0)
		_exit(1);
	if (sp->type == SOCK_DGRAM)
		serve_dgram(s, hits);
	serve_stream(s, hits);
}

static int listener_start(struct lab *l, struct lst_spec *sp, uint16_t *port_out)
{
	struct lab_listener *ls;
	struct lst_report rep = {0};
	int id, p[2], rc;
	pid_t parent = getpid();
	ssize_t n;

	if (l->n_listeners >= LAB_MAX_LISTENERS)
		return -ENOSPC;
	id = l->n_listeners;
	ls = &l->ls[id];
	memset(ls, 0, sizeof(*ls));
	ls->pidfd = ls->dirfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	__atomic_store_n(&l->hits[id], 0, __ATOMIC_SEQ_CST);
	ls->pid = fork();
	if (ls->pid < 0) {
		rc = -errno;
		close(p[0]);
		close(p[1]);
		return rc;
	}
	if (ls->pid == 0) {
		close(p[0]);
		listener_main(l, sp, &l->hits[id], parent, p[1]);
	}
	close(p[1]);
	ls->pidfd = pidfd_open_(ls->pid);
	rc = ls->pidfd < 0 ? -errno : poll_in(p[0], l->timeout_ms);
	if (rc == 0) {
		n = read(p[0], &rep, sizeof(rep));
		rc = n == (ssize_t)sizeof(rep) ? -rep.err : -ECHILD;
	}
	close(p[0]);
	if (rc < 0) {
		child_kill(ls->pid, ls->pidfd);
		return rc;
	}
	ls->domain = sp->domain;
	ls->type = sp->type;
	ls->far = sp->far;
	ls->port = rep.port;
	if (port_out)
		*port_out = rep.port;
	l->n_listeners++;
	return id;
}

static bool testnet4(uint32_t a)
{
	return (a >> 24) == 127 || a == 0 || (a & 0xffffff00) == 0xc0000200 ||
	       (a & 0xffffff00) == 0xc6336400 || (a & 0xffffff00) == 0xcb007100;
}

int lab_listen(struct lab *l, int proto, const char *addr, uint16_t port, uint16_t *port_out)
{
	struct lst_spec sp = {.dirfd = -1};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&sp.sa;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sp.sa;

	if (!l || !addr)
		return -EINVAL;
	if (proto == IPPROTO_TCP)
		sp.type = SOCK_STREAM;
	else if (proto == IPPROTO_UDP)
		sp.type = SOCK_DGRAM;
	else
		return -EPROTONOSUPPORT;
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		uint32_t a = ntohl(s4->sin_addr.s_addr);

		if (!testnet4(a))
			return -EINVAL;
		sp.domain = s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		sp.salen = sizeof(*s4);
		sp.far = l->routed && (a == 0xc6336402 || (a & 0xffffff00) == 0xcb007100);
	} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) &&
		    !IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr))
			return -EINVAL;
		sp.domain = s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		sp.salen = sizeof(*s6);
	} else {
		return -EINVAL;
	}
	return listener_start(l, &sp, port_out);
}

int lab_listen_unix(struct lab *l, const char *path, const char *abstract_name, int type)
{
	struct lst_spec sp = {.domain = AF_UNIX, .type = type, .dirfd = -1};
	struct sockaddr_un *un = (struct sockaddr_un *)&sp.sa;
	struct lab_listener *ls;
	const char *slash;
	char dir[sizeof(ls->path)];
	struct stat st;
	int id;

	if (!l || !path == !abstract_name ||
	    (type != SOCK_STREAM && type != SOCK_DGRAM && type != SOCK_SEQPACKET))
		return -EINVAL;
	if (abstract_name) {
		size_t n = strlen(abstract_name);

		if (n == 0 || n >= sizeof(un->sun_path))
			return -EINVAL;
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + 1, abstract_name, n);
		sp.salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
		return listener_start(l, &sp, NULL);
	}
	slash = strrchr(path, '/');
	if (strlen(path) >= sizeof(ls->path) || !slash || !slash[1])
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	snprintf(sp.base, sizeof(sp.base), "%s", slash + 1);
	sp.dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sp.dirfd < 0)
		return -errno;
	id = listener_start(l, &sp, NULL);
	if (id < 0) {
		close(sp.dirfd);
		return id;
	}
	ls = &l->ls[id];
	snprintf(ls->path, sizeof(ls->path), "%s", path);
	ls->dirfd = sp.dirfd;
	/* Remember which file the listener made, so lab_destroy removes that
	 * one and nothing that replaced it. */
	if (fstatat(sp.dirfd, sp.base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode)) {
		ls->dev = st.st_dev;
		ls->ino = st.st_ino;
	}
	return id;
}

long lab_hits(const struct lab *l, int id)
{
	if (!l || id < 0 || id >= l->n_listeners)
		return -EINVAL;
	return (long)__atomic_load_n(&l->hits[id], __ATOMIC_SEQ_CST);
}

long lab_hits_wait(const struct lab *l, int id, unsigned long min, int timeout_ms)
{
	struct timespec tick = {0, 5 * 1000 * 1000};
	long h;

	for (int waited = 0;; waited += 5) {
		h = lab_hits(l, id);
		if (h < 0 || (unsigned long)h >= min || waited >= timeout_ms)
			return h;
		nanosleep(&tick, NULL);
	}
}

/* Remove a listener's socket file if it is still the one it bound.  The
 * directory is the one pinned when the listener was made, and the name is
 * checked by identity without following it, so a path swapped since then
 * cannot make us unlink anything else. */
static void listener_unlink(struct lab_listener *ls)
{
	const char *base = strrchr(ls->path, '/');
	struct stat st;

	if (ls->dirfd < 0)
		return;
	if (base && ls->ino && fstatat(ls->dirfd, base + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode) && st.st_dev == ls->dev && st.st_ino == ls->ino)
		unlinkat(ls->dirfd, base + 1, 0);
	close(ls->dirfd);
	ls->dirfd = -1;
}

void lab_destroy(struct lab *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n_listeners; i++) {
		child_kill(l->ls[i].pid, l->ls[i].pidfd);
		listener_unlink(&l->ls[i]);
	}
	if (l->ctl_fd >= 0)
		close(l->ctl_fd);
	child_kill(l->keeper, l->keeper_pidfd);
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
