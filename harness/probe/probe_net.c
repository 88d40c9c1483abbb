/* probe_net.c - network operations of the probe.
 *
 * Addresses are numeric literals (no NSS).  Which addresses are safe to
 * touch is the caller's business: the harness runs these operations only
 * inside a network lab it created, or on macOS, which has none, against the
 * host's own loopback and interface addresses (traffic stays on the host). */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* macOS has neither flag: there the probe's sockets are opened without
 * close-on-exec (it execs nothing that could inherit them) and the one
 * non-blocking socket gets O_NONBLOCK through fcntl below. */
#ifndef SOCK_CLOEXEC
#define SOCK_CLOEXEC 0
#endif
#ifndef SOCK_NONBLOCK
#define SOCK_NONBLOCK 0
#endif
#ifdef SANDPROOF_PROBE_LINUX
#include <linux/io_uring.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#ifdef SANDPROOF_PROBE_LINUX
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#endif

#define PROBE_TCP_TIMEOUT_MS 2000
#define PROBE_UDP_TIMEOUT_MS 500
#define PROBE_ECHO_IDLE_MS 10000 /* an echo server nobody calls exits */

/* Argument parsers (see probe_args.c): 0 or -EINVAL, never printing. */
static int probe_parse_sockproto(const char *s, int *type)
{
	*type = 0; /* written on every path: validation already refused bad text */
	if (strcmp(s, "tcp") == 0)
		*type = SOCK_STREAM;
	else if (strcmp(s, "udp") == 0)
		*type = SOCK_DGRAM;
	else
		return -EINVAL;
	return 0;
}

/* Numeric IPv4 or IPv6 literals only: name resolution would need NSS. */
static int probe_parse_sockaddr(const char *addr, const char *port,
				struct sockaddr_storage *ss, socklen_t *len)
{
	long long p;

	if (probe_parse_ll(port, 0, 65535, &p) < 0)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)p);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

static long long probe_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* poll(2) for one fd, restarted on EINTR with the time left.  Returns the
 * revents, 0 on timeout, -errno on error. */
static int probe_wait_fd(int fd, short events, int timeout_ms)
{
	long long end = probe_now_ms() + timeout_ms;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = events};
		long long left = end - probe_now_ms();
		int rc;

		if (left < 0)
			left = 0;
		rc = poll(&p, 1, (int)left);
		if (rc > 0)
			return p.revents ? p.revents : POLLERR;
		if (rc == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

static int probe_check_inet(char **a, int n, char *msg, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int type;

	(void)n;
	if (probe_parse_sockproto(a[0], &type) < 0)
		return probe_check_msg(msg, len, "protocol must be tcp or udp, not \"%s\"", a[0]);
	if (probe_parse_sockaddr(a[1], a[2], &ss, &sl) < 0)
		return probe_check_msg(msg, len, "\"%s\" \"%s\" is not a numeric address and port 0-65535",
				       a[1], a[2]);
	return 0;
}

static void probe_field_port(struct probe_res *res, int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (ss.ss_family == AF_INET)
		probe_field_int(res, "port", ntohs(((struct sockaddr_in *)&ss)->sin_port));
	else if (ss.ss_family == AF_INET6)
		probe_field_int(res, "port", ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
}

/* Wait for events on fd; false (res failed: step with ETIMEDOUT after ms,
 * or "poll" with its error) when they did not come. */
static bool probe_await(int fd, short events, int ms, const char *step, struct probe_res *res)
{
	int rc = probe_wait_fd(fd, events, ms);

	if (rc > 0)
		return true;
	probe_res_fail(res, rc == 0 ? ETIMEDOUT : -rc, rc == 0 ? step : "poll");
	return false;
}

/* TCP: a non-blocking connect bounded by PROBE_TCP_TIMEOUT_MS, so a dropped
 * SYN reads ETIMEDOUT instead of hanging for the kernel's minutes. */
static void probe_connect_tcp(int fd, const struct sockaddr_storage *ss,
			      socklen_t sl, struct probe_res *res)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (connect(fd, (const struct sockaddr *)ss, sl) == 0)
		return;
	if (errno != EINPROGRESS) {
		probe_res_fail(res, errno, "connect");
		return;
	}
	if (!probe_await(fd, POLLOUT, PROBE_TCP_TIMEOUT_MS, "connect", res))
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		err = errno;
	if (err)
		probe_res_fail(res, err, "connect");
}

/* UDP: reachability means an answer.  A datagram sent into the void looks
 * the same as one delivered, so ok needs a reply within
 * PROBE_UDP_TIMEOUT_MS; an ICMP port-unreachable surfaces as ECONNREFUSED
 * on the receive. */
static void probe_connect_udp(int fd, const struct sockaddr_storage *ss,
			      socklen_t sl, struct probe_res *res)
{
	char byte = 'p', reply[512];
	ssize_t r;

	if (connect(fd, (const struct sockaddr *)ss, sl) < 0) {
		probe_res_fail(res, errno, "connect");
		return;
	}
	if (send(fd, &byte, 1, 0) < 0) {
		probe_res_fail(res, errno, "send");
		return;
	}
	if (!probe_await(fd, POLLIN, PROBE_UDP_TIMEOUT_MS, "recv", res))
		return;
	r = recv(fd, reply, sizeof(reply), MSG_DONTWAIT);
	if (r < 0) {
		probe_res_fail(res, errno, "recv");
		return;
	}
	probe_field_int(res, "reply_bytes", (long long)r);
}

static void probe_op_connect(struct probe_ctx *ctx, char **a, int n,
			     struct probe_res *res)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int type, fd;

	(void)ctx, (void)n;
	probe_parse_sockproto(a[0], &type);
	probe_parse_sockaddr(a[1], a[2], &ss, &sl);
	fd = socket(ss.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		probe_res_fail(res, errno, "socket");
		return;
	}
	if (!SOCK_NONBLOCK && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		probe_res_fail(res, errno, "fcntl");
		close(fd);
		return;
	}
	if (type == SOCK_STREAM)
		probe_connect_tcp(fd, &ss, sl, res);
	else
		probe_connect_udp(fd, &ss, sl, res);
	close(fd);
}

static int probe_check_from(char **a, int n, char *msg, size_t len)
{
	struct sockaddr_storage src, dst;
	socklen_t sl;

	if (probe_check_inet((char *[]){a[0], a[2], a[3]}, n - 1, msg, len) < 0)
		return -1;
	if (probe_parse_sockaddr(a[1], "0", &src, &sl) < 0)
		return probe_check_msg(msg, len, "\"%s\" is not a numeric address", a[1]);
	probe_parse_sockaddr(a[2], a[3], &dst, &sl);
	if (src.ss_family != dst.ss_family)
		return probe_check_msg(msg, len, "\"%s\" and \"%s\" are not of one family", a[1], a[2]);
	return 0;
}

/* connect from a socket first bound to SRC (port 0): a sandbox that
 * matches a connection by its local endpoint (Seatbelt's "localhost"
 * filter) may judge a bound socket unlike an unbound one. */
static void probe_op_connect_from(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	struct sockaddr_storage src, dst;
	socklen_t srcl, dstl;
	int type, fd;

	(void)ctx, (void)n;
	probe_parse_sockproto(a[0], &type);
	probe_parse_sockaddr(a[1], "0", &src, &srcl);
	probe_parse_sockaddr(a[2], a[3], &dst, &dstl);
	fd = socket(dst.ss_family, type, 0);
	if (fd < 0) {
		probe_res_fail(res, errno, "socket");
		return;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (bind(fd, (struct sockaddr *)&src, srcl) < 0)
		probe_res_fail(res, errno, "bind");
	else if (type == SOCK_STREAM)
		probe_connect_tcp(fd, &dst, dstl, res);
	else
		probe_connect_udp(fd, &dst, dstl, res);
	close(fd);
}

static void probe_op_bind(struct probe_ctx *ctx, char **a, int n,
			  struct probe_res *res)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int type, fd;

	(void)ctx, (void)n;
	probe_parse_sockproto(a[0], &type);
	probe_parse_sockaddr(a[1], a[2], &ss, &sl);
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		probe_res_fail(res, errno, "socket");
		return;
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0)
		probe_res_fail(res, errno, "bind");
	else
		probe_field_port(res, fd);
	close(fd);
}

/* The echo server's body, in the forked child.  It serves one peer (one
 * TCP connection or one datagram) and exits; it gives up after
 * PROBE_ECHO_IDLE_MS without traffic so it can never outlive its purpose. */
static void probe_echo_serve(int lfd, int type)
{
	char buf[4096];

	if (probe_wait_fd(lfd, POLLIN, PROBE_ECHO_IDLE_MS) <= 0)
		_exit(1);
	if (type == SOCK_DGRAM) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		ssize_t r = recvfrom(lfd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&peer, &pl);

		if (r >= 0)
			sendto(lfd, buf, (size_t)r, 0, (struct sockaddr *)&peer, pl);
		_exit(0);
	}
#ifdef SANDPROOF_PROBE_LINUX
	int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
#else
	int cfd = accept(lfd, NULL, NULL);

	if (cfd >= 0)
		fcntl(cfd, F_SETFD, FD_CLOEXEC);
#endif

	close(lfd);
	if (cfd < 0)
		_exit(1);
	while (probe_wait_fd(cfd, POLLIN, PROBE_ECHO_IDLE_MS) > 0) {
		ssize_t r = read(cfd, buf, sizeof(buf));

		if (r <= 0 || probe_write_all(cfd, buf, (size_t)r) < 0)
			break;
	}
	_exit(0);
}

/* Binds and listens here, in the probe, before forking: when this operation
 * reports ok the socket already accepts, so a later connect in the same
 * probe cannot race the server's start.  The server is killed and reaped
 * when the probe ends; PR_SET_PDEATHSIG covers a probe that is killed. */
static void probe_op_listen_echo(struct probe_ctx *ctx, char **a, int n,
				 struct probe_res *res)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int type, fd, one = 1;
	pid_t parent = getpid(), pid;

	(void)n;
	if (ctx->n_echo >= PROBE_ECHO_MAX) {
		probe_res_fail(res, EMFILE, "limit");
		return;
	}
	probe_parse_sockproto(a[0], &type);
	probe_parse_sockaddr(a[1], a[2], &ss, &sl);
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		probe_res_fail(res, errno, "socket");
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		probe_res_fail(res, errno, "bind");
		close(fd);
		return;
	}
	if (type == SOCK_STREAM && listen(fd, 4) < 0) {
		probe_res_fail(res, errno, "listen");
		close(fd);
		return;
	}
	probe_field_port(res, fd);
	pid = fork();
	if (pid < 0) {
		probe_res_fail(res, errno, "fork");
		close(fd);
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* The death signal is armed after fork: if the probe died in
		 * between, getppid() already differs and we leave now. */
#ifdef SANDPROOF_PROBE_LINUX
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		if (getppid() != parent)
			_exit(1);
		/* Off the probe's stdout and stderr, so the server never holds
		 * a runner's capture pipe open. */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		probe_echo_serve(fd, type);
	}
	close(fd);
	ctx->echo[ctx->n_echo++] = pid;
	probe_field_int(res, "server_pid", (long long)pid);
}

static int probe_unix_addr(const char *name, bool abstract,
			   struct sockaddr_un *sun, socklen_t *sl)
{
	size_t len = strlen(name), off = abstract ? 1 : 0;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (len + off >= sizeof(sun->sun_path) + (abstract ? 1 : 0))
		return -ENAMETOOLONG;
	memcpy(sun->sun_path + off, name, len);
	*sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + len +
			  (abstract ? 0 : 1));
	return 0;
}

/* Stream first; a datagram listener answers EPROTOTYPE, then we retry. */
static void probe_unix_connect(const char *name, bool abstract,
			       struct probe_res *res)
{
	static const int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET};
	static const char *const tnames[] = {"stream", "dgram", "seqpacket"};
	struct sockaddr_un sun;
	socklen_t sl;
	int rc = probe_unix_addr(name, abstract, &sun, &sl);

	if (rc < 0) {
		probe_res_fail(res, -rc, "address");
		return;
	}
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		int fd = socket(AF_UNIX, types[k] | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			probe_res_fail(res, errno, "socket");
			return;
		}
		rc = connect(fd, (struct sockaddr *)&sun, sl) < 0 ? errno : 0;
		close(fd);
		if (rc == 0) {
			probe_field_cstr(res, "type", tnames[k]);
			res->err = 0;
			return;
		}
		probe_res_fail(res, rc, "connect");
		if (rc != EPROTOTYPE)
			return;
	}
}

static void probe_op_unix_connect(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	(void)ctx, (void)n;
	probe_unix_connect(a[0], false, res);
}

static void probe_op_abstract_unix_connect(struct probe_ctx *ctx, char **a,
					   int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	probe_unix_connect(a[0], true, res);
}

struct probe_name {
	const char *name;
	int v;
};

static const struct probe_name probe_families[] = {
	{"unix", AF_UNIX}, {"inet", AF_INET}, {"inet6", AF_INET6},
#ifdef SANDPROOF_PROBE_LINUX
	{"packet", AF_PACKET}, {"vsock", AF_VSOCK}, {"netlink", AF_NETLINK},
	{"bluetooth", AF_BLUETOOTH},
#endif
	{"raw", AF_INET}, {NULL, 0},
};
static const struct probe_name probe_types[] = {
	{"stream", SOCK_STREAM}, {"dgram", SOCK_DGRAM}, {"raw", SOCK_RAW},
	{"seqpacket", SOCK_SEQPACKET}, {NULL, 0},
};
static const struct probe_name probe_protos[] = {
	{"tcp", IPPROTO_TCP}, {"udp", IPPROTO_UDP}, {"icmp", IPPROTO_ICMP},
	{"icmpv6", IPPROTO_ICMPV6}, {"raw", IPPROTO_RAW}, {NULL, 0},
};

/* A name from the table or a decimal number in [0, max]. */
static int probe_lookup(const struct probe_name *t, const char *s, int max,
			int *out)
{
	long long v;

	for (; t->name; t++)
		if (strcmp(t->name, s) == 0) {
			*out = t->v;
			return 0;
		}
	if (probe_parse_ll(s, 0, max, &v) < 0)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* "raw" is shorthand for inet + SOCK_RAW (default protocol icmp); every
 * other family needs TYPE. */
static int probe_socket_args(char **a, int n, int *fam, int *type, int *proto)
{
	bool raw = strcmp(a[0], "raw") == 0;

	*proto = 0;
	if (probe_lookup(probe_families, a[0], 255, fam) < 0)
		return -1;
	if (raw) {
		*type = SOCK_RAW;
		*proto = IPPROTO_ICMP;
		if (n >= 2 && strcmp(a[1], "raw") != 0)
			return -2;
	} else if (n < 2) {
		return -2;
	} else if (probe_lookup(probe_types, a[1], 15, type) < 0) {
		return -2;
	}
	if (n >= 3 && probe_lookup(probe_protos, a[2], 65535, proto) < 0)
		return -3;
	return 0;
}

static int probe_check_socket(char **a, int n, char *msg, size_t len)
{
	int fam, type, proto;

	switch (probe_socket_args(a, n, &fam, &type, &proto)) {
	case -1:
		return probe_check_msg(msg, len, "unknown family \"%s\" (unix, inet, inet6, packet, vsock, netlink, bluetooth, raw or a number)",
				       a[0]);
	case -2:
		return probe_check_msg(msg, len, "TYPE must be stream, dgram, raw, seqpacket or a number (only raw for family raw)");
	case -3:
		return probe_check_msg(msg, len, "unknown protocol \"%s\" (tcp, udp, icmp, icmpv6, raw or a number)",
				       a[2]);
	}
	return 0;
}

static void probe_op_socket(struct probe_ctx *ctx, char **a, int n,
			    struct probe_res *res)
{
	int fam, type, proto, fd;

	(void)ctx;
	probe_socket_args(a, n, &fam, &type, &proto);
	fd = socket(fam, type | SOCK_CLOEXEC, proto);
	if (fd < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	close(fd);
}

/* socketpair(2) with the same arguments as socket, then close both. */
static void probe_op_socketpair(struct probe_ctx *ctx, char **a, int n,
				struct probe_res *res)
{
	int fam, type, proto, sv[2];

	(void)ctx;
	probe_socket_args(a, n, &fam, &type, &proto);
	if (socketpair(fam, type | SOCK_CLOEXEC, proto, sv) < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	close(sv[0]);
	close(sv[1]);
}

/* io_uring is a second system-call surface that seccomp filters on
 * individual syscalls do not see; setup succeeding means it is open. */
#ifdef SANDPROOF_PROBE_LINUX
static void probe_op_io_uring(struct probe_ctx *ctx, char **a, int n,
			      struct probe_res *res)
{
	struct io_uring_params p;
	long fd;

	(void)ctx, (void)a, (void)n;
	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0) {
		probe_res_fail(res, errno, NULL);
		return;
	}
	close((int)fd);
}

#endif

/* ---- a listener on the host, for a platform without a lab -------------- */

static int probe_check_count(char **a, int n, char *msg, size_t len)
{
	long long ms;

	if (probe_check_inet(a, n, msg, len) < 0)
		return -1;
	if (probe_parse_ll(a[3], 1, 600000, &ms) < 0)
		return probe_check_msg(msg, len, "MS must be 1..600000, not \"%s\"", a[3]);
	if (a[4][0] == '\0')
		return probe_check_msg(msg, len, "READYFILE must be a path");
	return 0;
}

/* Tell the caller the bound port: READYFILE is written whole under a
 * temporary name, then renamed, so it is never read half-written. */
static int probe_ready_file(const char *path, int port)
{
	char tmp[4096], text[16];
	int fd, len = snprintf(text, sizeof(text), "%d\n", port);

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (probe_write_all(fd, text, (size_t)len) < 0 || close(fd) < 0 ||
	    rename(tmp, path) < 0)
		return -errno;
	return 0;
}

/* Count the peers that reach lfd for ms: each TCP connection is accepted
 * and closed, each datagram answered with itself. */
static long probe_count_peers(int lfd, int type, int ms)
{
	long long end = probe_now_ms() + ms;
	long count = 0;
	char buf[512];

	while (probe_now_ms() < end) {
		if (probe_wait_fd(lfd, POLLIN, (int)(end - probe_now_ms())) <= 0)
			continue;
		if (type == SOCK_DGRAM) {
			struct sockaddr_storage peer;
			socklen_t pl = sizeof(peer);
			ssize_t r = recvfrom(lfd, buf, sizeof(buf), 0, (struct sockaddr *)&peer, &pl);

			if (r >= 0) {
				count++;
				sendto(lfd, buf, (size_t)r, 0, (struct sockaddr *)&peer, pl);
			}
			continue;
		}
		int cfd = accept(lfd, NULL, NULL);

		if (cfd >= 0) {
			count++;
			close(cfd);
		}
	}
	return count;
}

/* A host-side oracle where no lab exists (macOS): bind ADDR PORT, write
 * the bound port to READYFILE, count the peers for MS ms, report them.
 * Run by the harness outside the sandbox; it never connects anywhere. */
static void probe_op_listen_count(struct probe_ctx *ctx, char **a, int n,
				  struct probe_res *res)
{
	struct sockaddr_storage ss;
	socklen_t sl, bl;
	long long ms;
	int type, fd, one = 1, rc;

	(void)ctx, (void)n;
	probe_parse_sockproto(a[0], &type);
	probe_parse_sockaddr(a[1], a[2], &ss, &sl);
	probe_parse_ll(a[3], 1, 600000, &ms);
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0) {
		probe_res_fail(res, errno, "socket");
		return;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		probe_res_fail(res, errno, "bind");
	} else if (type == SOCK_STREAM && listen(fd, 64) < 0) {
		probe_res_fail(res, errno, "listen");
	} else {
		bl = sizeof(ss);
		getsockname(fd, (struct sockaddr *)&ss, &bl);
		probe_field_port(res, fd);
		rc = probe_ready_file(a[4], ntohs(ss.ss_family == AF_INET ?
			((struct sockaddr_in *)&ss)->sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port));
		if (rc < 0)
			probe_res_fail(res, -rc, "ready");
		else
			probe_field_int(res, "accepted", probe_count_peers(fd, type, (int)ms));
	}
	close(fd);
}

/* Append addr to list (comma-separated) when there is room. */
static void probe_list_add(char *list, size_t size, const char *addr)
{
	size_t used = strlen(list);

	if (used + strlen(addr) + 2 <= size)
		snprintf(list + used, size - used, "%s%s", used ? "," : "", addr);
}

/* The addresses of this host's interfaces that are up and not loopback
 * (IPv6 link-local left out): what "the host's own interface address" is
 * for a scenario that listens on it (macOS, no lab). */
static void probe_op_if_addrs(struct probe_ctx *ctx, char **a, int n,
			      struct probe_res *res)
{
	struct ifaddrs *ifs, *i;
	char v4[2048] = "", v6[2048] = "", text[INET6_ADDRSTRLEN];

	(void)ctx, (void)a, (void)n;
	if (getifaddrs(&ifs) < 0) {
		probe_res_fail(res, errno, "getifaddrs");
		return;
	}
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, text, sizeof(text));
			probe_list_add(v4, sizeof(v4), text);
		} else if (i->ifa_addr->sa_family == AF_INET6 &&
			   !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr)) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, text, sizeof(text));
			probe_list_add(v6, sizeof(v6), text);
		}
	}
	freeifaddrs(ifs);
	probe_field_cstr(res, "inet", v4);
	probe_field_cstr(res, "inet6", v6);
}

const struct probe_op probe_net_ops[] = {
	{"connect", 3, 3, "tcp|udp ADDR PORT", probe_check_inet, probe_op_connect},
	{"connect_from", 4, 4, "tcp|udp SRC ADDR PORT", probe_check_from, probe_op_connect_from},
	{"bind", 3, 3, "tcp|udp ADDR PORT", probe_check_inet, probe_op_bind},
	{"listen_count", 5, 5, "tcp|udp ADDR PORT MS READYFILE", probe_check_count, probe_op_listen_count},
	{"if_addrs", 0, 0, "", NULL, probe_op_if_addrs},
	{"listen_echo", 3, 3, "tcp|udp ADDR PORT", probe_check_inet, probe_op_listen_echo},
	{"unix_connect", 1, 1, "PATH", NULL, probe_op_unix_connect},
	{"abstract_unix_connect", 1, 1, "NAME", NULL, probe_op_abstract_unix_connect},
	{"socket", 1, 3, "FAMILY TYPE [PROTO] | raw [raw [PROTO]]", probe_check_socket, probe_op_socket},
	{"socketpair", 1, 3, "FAMILY TYPE [PROTO]", probe_check_socket, probe_op_socketpair},
	{"io_uring", 0, 0, "", NULL, PROBE_LINUX_OP(probe_op_io_uring)},
	{NULL, 0, 0, NULL, NULL, NULL},
};
