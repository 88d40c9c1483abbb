/* probe_args.c - argument parsers shared by validation and execution.
 *
 * Each parser is run twice on the same text: once while the whole command
 * line is validated (before any operation runs) and once by the operation
 * itself, so the two can never disagree. */
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimal only (no octal surprises, no trailing junk, no empty string). */
int probe_parse_ll(const char *s, long long min, long long max,
		   long long *out)
{
	char *end;
	long long v;

	if (!s || !*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int probe_parse_sockproto(const char *s, int *type)
{
	if (strcmp(s, "tcp") == 0)
		*type = SOCK_STREAM;
	else if (strcmp(s, "udp") == 0)
		*type = SOCK_DGRAM;
	else
		return -EINVAL;
	return 0;
}

/* Numeric IPv4 or IPv6 literals only: name resolution would need NSS. */
int probe_parse_sockaddr(const char *addr, const char *port,
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

/* Formats a validation message; always returns -1 for `return check_msg()`. */
int probe_check_msg(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -1;
}
