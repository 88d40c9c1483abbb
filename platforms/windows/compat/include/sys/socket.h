/* sys/socket.h - the windows build: only the constants the harness names
 * (Winsock's values) to pass to the lab primitives, which Windows refuses
 * (no network lab: prims_lacks("lab")).  No socket call is offered. */
#ifndef SANDPROOF_COMPAT_SYS_SOCKET_H
#define SANDPROOF_COMPAT_SYS_SOCKET_H
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 23
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_SEQPACKET 5
#endif
