/* lab_netlink.c - the lab's minimal rtnetlink client (lab_int.h): one
 * request at a time, each acknowledged, in a fixed 1 KiB message. */
#include "lab_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct lab_nl_msg {
	size_t len;
	int err;                 /* -ENOBUFS once an attribute did not fit */
	char b[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
};

static struct nlmsghdr *lab_nl_hdr(struct lab_nl_msg *m)
{
	return (struct nlmsghdr *)m->b;
}

static void lab_nl_begin(struct lab_nl_msg *m, int type, int flags, const void *fam, size_t flen)
{
	memset(m, 0, sizeof(*m));
	lab_nl_hdr(m)->nlmsg_type = type;
	lab_nl_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	memcpy(m->b + NLMSG_HDRLEN, fam, flen);
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(flen);
}

/* Append raw bytes (an attribute header, payload or a nested family
 * header) at the aligned end of the message. */
static void *lab_nl_raw(struct lab_nl_msg *m, const void *data, size_t len)
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

static struct rtattr *lab_nl_put(struct lab_nl_msg *m, int type, const void *data, size_t len)
{
	struct rtattr *a = lab_nl_raw(m, NULL, RTA_LENGTH(len));

	if (!a)
		return NULL;
	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	return a;
}

static void lab_nl_put_str(struct lab_nl_msg *m, int type, const char *s)
{
	lab_nl_put(m, type, s, strlen(s) + 1);
}

static struct rtattr *lab_nl_nest(struct lab_nl_msg *m, int type)
{
	return lab_nl_put(m, type, NULL, 0);
}

static void lab_nl_nest_end(struct lab_nl_msg *m, struct rtattr *a)
{
	if (a)
		a->rta_len = (unsigned short)(m->b + m->len - (char *)a);
}

int lab_nl_open(void)
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
static int lab_nl_talk(int fd, struct lab_nl_msg *m, int *ifindex)
{
	static unsigned seq;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char rb[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (m->err)
		return m->err;
	lab_nl_hdr(m)->nlmsg_len = (unsigned)m->len;
	lab_nl_hdr(m)->nlmsg_seq = ++seq;
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

static int lab_nl_find_link(int fd, const char *name)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct lab_nl_msg m;
	int idx = 0, rc;

	lab_nl_begin(&m, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	lab_nl_put_str(&m, IFLA_IFNAME, name);
	rc = lab_nl_talk(fd, &m, &idx);
	if (rc < 0)
		return rc;
	return idx > 0 ? idx : -ENODEV;
}

static int lab_nl_set_up(int fd, int idx)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = idx,
				.ifi_flags = IFF_UP, .ifi_change = IFF_UP};
	struct lab_nl_msg m;

	lab_nl_begin(&m, RTM_SETLINK, 0, &ifi, sizeof(ifi));
	return lab_nl_talk(fd, &m, NULL);
}

/* A veth pair name <-> peer, the peer moved into peer_netns (-1: stays). */
int lab_nl_add_veth(int fd, const char *name, const char *peer, int peer_netns)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct rtattr *info, *data, *pa;
	struct lab_nl_msg m;

	lab_nl_begin(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	lab_nl_put_str(&m, IFLA_IFNAME, name);
	info = lab_nl_nest(&m, IFLA_LINKINFO);
	lab_nl_put_str(&m, IFLA_INFO_KIND, "veth");
	data = lab_nl_nest(&m, IFLA_INFO_DATA);
	pa = lab_nl_nest(&m, VETH_INFO_PEER);
	lab_nl_raw(&m, &ifi, sizeof(ifi));   /* the peer's own ifinfomsg */
	lab_nl_put_str(&m, IFLA_IFNAME, peer);
	if (peer_netns >= 0)
		lab_nl_put(&m, IFLA_NET_NS_FD, &peer_netns, sizeof(peer_netns));
	lab_nl_nest_end(&m, pa);
	lab_nl_nest_end(&m, data);
	lab_nl_nest_end(&m, info);
	return lab_nl_talk(fd, &m, NULL);
}

static int lab_nl_add_addr(int fd, int idx, const char *addr, int prefix)
{
	struct ifaddrmsg ifa = {.ifa_family = AF_INET, .ifa_prefixlen = prefix,
				.ifa_scope = RT_SCOPE_UNIVERSE, .ifa_index = idx};
	struct in_addr a;
	struct lab_nl_msg m;

	if (inet_pton(AF_INET, addr, &a) != 1)
		return -EINVAL;
	lab_nl_begin(&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	lab_nl_put(&m, IFA_LOCAL, &a, sizeof(a));
	lab_nl_put(&m, IFA_ADDRESS, &a, sizeof(a));
	return lab_nl_talk(fd, &m, NULL);
}

int lab_nl_add_route(int fd, const char *dst, int len, const char *gw, int oif)
{
	struct rtmsg rt = {.rtm_family = AF_INET, .rtm_dst_len = len,
			   .rtm_table = RT_TABLE_MAIN, .rtm_protocol = RTPROT_STATIC,
			   .rtm_scope = RT_SCOPE_UNIVERSE, .rtm_type = RTN_UNICAST};
	struct in_addr d, g;
	struct lab_nl_msg m;

	if (inet_pton(AF_INET, dst, &d) != 1 || inet_pton(AF_INET, gw, &g) != 1)
		return -EINVAL;
	lab_nl_begin(&m, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rt, sizeof(rt));
	lab_nl_put(&m, RTA_DST, &d, sizeof(d));
	lab_nl_put(&m, RTA_GATEWAY, &g, sizeof(g));
	lab_nl_put(&m, RTA_OIF, &oif, sizeof(oif));
	return lab_nl_talk(fd, &m, NULL);
}

/* Bring an interface up, optionally with one IPv4 address. */
int lab_nl_bring_up(int fd, const char *name, const char *addr, int prefix)
{
	int idx = lab_nl_find_link(fd, name), rc;

	if (idx < 0)
		return idx;
	if (addr && (rc = lab_nl_add_addr(fd, idx, addr, prefix)) < 0)
		return rc;
	rc = lab_nl_set_up(fd, idx);
	return rc < 0 ? rc : idx;
}
