/* netinet/in.h - the windows build: only the protocol numbers the harness
 * names (see sys/socket.h: the lab is refused on Windows). */
#ifndef SANDPROOF_COMPAT_NETINET_IN_H
#define SANDPROOF_COMPAT_NETINET_IN_H
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#endif
