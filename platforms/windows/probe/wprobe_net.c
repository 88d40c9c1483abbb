/* wprobe_net.c - the probe's network operations through Winsock: connect,
 * connect_from and bind, with the POSIX probe's arguments, bounds and
 * fields.  Addresses are numeric literals only; which addresses are safe
 * to touch is the caller's business (a Windows runner's scenario, or the
 * Wine smoke's own 127.0.0.1 listener). */
#include "wprobe.h"

#include <winsock2.h>
#include <ws2tcpip.h>

#include <errno.h>
#include <string.h>

#define WPROBE_TCP_TIMEOUT_MS 2000
#define WPROBE_UDP_TIMEOUT_MS 500

static DWORD wprobe_wsa_err = WSANOTINITIALISED;

void wprobe_net_begin(void)
{
	WSADATA wsa;
	int rc = WSAStartup(MAKEWORD(2, 2), &wsa);

	wprobe_wsa_err = rc ? (DWORD)rc : 0;
}

static int wprobe_parse_proto(const char *s, int *type)
{
	*type = 0;
	if (strcmp(s, "tcp") == 0)
		*type = SOCK_STREAM;
	else if (strcmp(s, "udp") == 0)
		*type = SOCK_DGRAM;
	else
		return -EINVAL;
	return 0;
}

static int wprobe_parse_addr(const char *addr, const char *port,
			     struct sockaddr_storage *ss, int *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	long long p;

	memset(ss, 0, sizeof(*ss));
	*len = 0;
	if (probe_parse_ll(port, 0, 65535, &p) < 0)
		return -EINVAL;
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((u_short)p);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((u_short)p);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

/* The same messages as the POSIX probe's validation. */
static int wprobe_check_inet(char **a, int n, char *msg, size_t len)
{
	struct sockaddr_storage ss;
	int sl, type;

	(void)n;
	if (wprobe_parse_proto(a[0], &type) < 0)
		return probe_check_msg(msg, len, "protocol must be tcp or udp, not \"%s\"", a[0]);
	if (wprobe_parse_addr(a[1], a[2], &ss, &sl) < 0)
		return probe_check_msg(msg, len, "\"%s\" \"%s\" is not a numeric address and port 0-65535",
				       a[1], a[2]);
	return 0;
}

static int wprobe_check_from(char **a, int n, char *msg, size_t len)
{
	struct sockaddr_storage src, dst;
	int sl;

	if (wprobe_check_inet((char *[]){a[0], a[2], a[3]}, n - 1, msg, len) < 0)
		return -1;
	if (wprobe_parse_addr(a[1], "0", &src, &sl) < 0)
		return probe_check_msg(msg, len, "\"%s\" is not a numeric address", a[1]);
	wprobe_parse_addr(a[2], a[3], &dst, &sl);
	if (src.ss_family != dst.ss_family)
		return probe_check_msg(msg, len, "\"%s\" and \"%s\" are not of one family", a[1], a[2]);
	return 0;
}

/* Waits for s to become writable (write) or readable; true when it did,
 * else res failed: step with ETIMEDOUT, or "poll" with select's error. */
static bool wprobe_await(SOCKET s, bool write, int ms, const char *step, struct probe_res *res)
{
	fd_set rw, ex;
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
	int rc;

	FD_ZERO(&rw);
	FD_ZERO(&ex);
	FD_SET(s, &rw);
	FD_SET(s, &ex);
	rc = select(0, write ? NULL : &rw, write ? &rw : NULL, &ex, &tv);
	if (rc > 0)
		return true;
	if (rc == 0)
		wprobe_fail_errno(res, "ETIMEDOUT", step);
	else
		wprobe_fail(res, (DWORD)WSAGetLastError(), "poll");
	return false;
}

/* TCP: a non-blocking connect bounded by WPROBE_TCP_TIMEOUT_MS. */
static void wprobe_connect_tcp(SOCKET s, const struct sockaddr_storage *ss, int sl,
			       struct probe_res *res)
{
	int err = 0, el = sizeof(err);

	if (connect(s, (const struct sockaddr *)ss, sl) == 0)
		return;
	if (WSAGetLastError() != WSAEWOULDBLOCK) {
		wprobe_fail(res, (DWORD)WSAGetLastError(), "connect");
		return;
	}
	if (!wprobe_await(s, true, WPROBE_TCP_TIMEOUT_MS, "connect", res))
		return;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&err, &el) != 0)
		err = WSAGetLastError();
	if (err)
		wprobe_fail(res, (DWORD)err, "connect");
}

/* UDP: ok needs a reply within WPROBE_UDP_TIMEOUT_MS.  Windows reports an
 * ICMP port-unreachable as WSAECONNRESET on the receive: the errno is then
 * ECONNREFUSED, as Linux says it, and win32_error keeps WSAECONNRESET. */
static void wprobe_connect_udp(SOCKET s, const struct sockaddr_storage *ss, int sl,
			       struct probe_res *res)
{
	char byte = 'p', reply[512];
	int r;

	if (connect(s, (const struct sockaddr *)ss, sl) != 0) {
		wprobe_fail(res, (DWORD)WSAGetLastError(), "connect");
		return;
	}
	if (send(s, &byte, 1, 0) < 0) {
		wprobe_fail(res, (DWORD)WSAGetLastError(), "send");
		return;
	}
	if (!wprobe_await(s, false, WPROBE_UDP_TIMEOUT_MS, "recv", res))
		return;
	r = recv(s, reply, sizeof(reply), 0);
	if (r < 0) {
		DWORD code = (DWORD)WSAGetLastError();

		wprobe_fail(res, code, "recv");
		if (code == WSAECONNRESET)
			res->err_name = "ECONNREFUSED";
		return;
	}
	probe_field_int(res, "reply_bytes", (long long)r);
}

/* A non-blocking socket of ss's family, bound to src when given; the
 * failure is reported and INVALID_SOCKET returned. */
static SOCKET wprobe_socket(int family, int type, const struct sockaddr_storage *src, int srcl,
			    struct probe_res *res)
{
	u_long nb = 1;
	SOCKET s;

	if (wprobe_wsa_err) {
		wprobe_fail(res, wprobe_wsa_err, "socket");
		return INVALID_SOCKET;
	}
	s = socket(family, type, 0);
	if (s == INVALID_SOCKET) {
		wprobe_fail(res, (DWORD)WSAGetLastError(), "socket");
		return INVALID_SOCKET;
	}
	if (ioctlsocket(s, FIONBIO, &nb) != 0 ||
	    (src && bind(s, (const struct sockaddr *)src, srcl) != 0)) {
		wprobe_fail(res, (DWORD)WSAGetLastError(), src ? "bind" : "ioctl");
		closesocket(s);
		return INVALID_SOCKET;
	}
	return s;
}

static void wprobe_connect(const char *proto, const char *src, const char *addr,
			   const char *port, struct probe_res *res)
{
	struct sockaddr_storage ss, from;
	int sl, froml = 0, type;
	SOCKET s;

	wprobe_parse_proto(proto, &type);
	wprobe_parse_addr(addr, port, &ss, &sl);
	if (src)
		wprobe_parse_addr(src, "0", &from, &froml);
	s = wprobe_socket(ss.ss_family, type, src ? &from : NULL, froml, res);
	if (s == INVALID_SOCKET)
		return;
	if (type == SOCK_STREAM)
		wprobe_connect_tcp(s, &ss, sl, res);
	else
		wprobe_connect_udp(s, &ss, sl, res);
	closesocket(s);
}

static void wprobe_op_connect(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_connect(a[0], NULL, a[1], a[2], res);
}

static void wprobe_op_connect_from(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)n;
	wprobe_connect(a[0], a[1], a[2], a[3], res);
}

static void wprobe_op_bind(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	struct sockaddr_storage ss;
	int sl, type;
	SOCKET s;

	(void)ctx, (void)n;
	wprobe_parse_proto(a[0], &type);
	wprobe_parse_addr(a[1], a[2], &ss, &sl);
	s = wprobe_socket(ss.ss_family, type, &ss, sl, res);
	if (s == INVALID_SOCKET)
		return;
	sl = sizeof(ss);
	if (getsockname(s, (struct sockaddr *)&ss, &sl) == 0)
		probe_field_int(res, "port", ntohs(ss.ss_family == AF_INET
						   ? ((struct sockaddr_in *)&ss)->sin_port
						   : ((struct sockaddr_in6 *)&ss)->sin6_port));
	closesocket(s);
}

const struct probe_op wprobe_net_ops[] = {
	{"connect", 3, 3, "tcp|udp ADDR PORT", wprobe_check_inet, wprobe_op_connect},
	{"connect_from", 4, 4, "tcp|udp SRC ADDR PORT", wprobe_check_from, wprobe_op_connect_from},
	{"bind", 3, 3, "tcp|udp ADDR PORT", wprobe_check_inet, wprobe_op_bind},
	{NULL, 0, 0, NULL, NULL, NULL},
};
