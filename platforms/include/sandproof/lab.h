/* lab.h - the network lab of the harness (t:lab()).
 *
 * A lab is a network namespace that nothing connects to the host:
 *   - lo up (127.0.0.1, ::1);
 *   - a veth pair with both ends inside: "lab0" 192.0.2.1/24 and
 *     "lab1" 192.0.2.2/24 (TEST-NET-1), both up;
 *   - with lab_opts.routed, a second namespace, the "far side", joined by a
 *     second veth pair "far0" 198.51.100.1/24 (lab side) <-> "far1"
 *     198.51.100.2/24 (far side); the far side holds 203.0.113.1/32 on its
 *     loopback and the lab has a route 203.0.113.0/24 via 198.51.100.2, so
 *     203.0.113.1 is "a routed address" only the lab can reach.
 * When the caller is not root (or opts.userns says so) both namespaces are
 * owned by a new user namespace whose uid/gid maps are the identity: the
 * caller's own uid and gid when unprivileged, every id when root.
 *
 * The namespaces are held by a keeper: a process forked by lab_create that
 * lives in them, does nothing but wait, and dies with the thread that
 * created it (PR_SET_PDEATHSIG) or when lab_destroy kills it.  The far side
 * has no process at all: the keeper holds it by a file descriptor.
 *
 * Listeners are children of the caller that enter the lab (or the far side)
 * and serve one socket each: TCP and unix stream listeners accept, read and
 * echo until the peer closes; UDP listeners echo every datagram; unix
 * datagram listeners only receive.  Each counts what it saw (connections
 * accepted, datagrams received) in memory shared with the caller, so the
 * oracle is host-side: lab_hits() says whether the listener saw anything,
 * whatever the client under test reports.
 *
 * Safety: every address a listener may bind is loopback or TEST-NET
 * (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24); the lab has no route to
 * anything else, so nothing that runs inside it can send a packet off this
 * machine.
 *
 * Threads: lab_create and lab_listen fork; the keeper and each listener
 * die when the creating *thread* exits, so create a lab from a thread that
 * outlives it.  All functions return 0 (or a listener id / count) on
 * success and -errno on failure; none exits or aborts. */
#ifndef SANDPROOF_LAB_H
#define SANDPROOF_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LAB_MAX_LISTENERS 16

enum lab_userns {
	LAB_USERNS_AUTO = 0, /* a user namespace when geteuid() != 0 */
	LAB_USERNS_ALWAYS,   /* also as root (identity map of every id) */
	LAB_USERNS_NEVER,    /* never (fails with -EPERM when unprivileged) */
};

struct lab_opts {
	bool routed;            /* add the far side and 203.0.113.0/24 */
	enum lab_userns userns;
	int timeout_ms;         /* for each setup handshake; 0: 10000 */
};

struct lab_listener {
	pid_t pid;             /* the listener process, a child of the caller */
	int pidfd;             /* owned; used to kill it */
	int domain;            /* AF_INET, AF_INET6 or AF_UNIX */
	int type;              /* SOCK_STREAM or SOCK_DGRAM */
	bool far;              /* serves in the far side */
	uint16_t port;         /* bound port (AF_INET*) */
	char path[108];        /* filesystem unix socket to remove, "" if none */
	int dirfd;             /* its directory, pinned at lab_listen_unix, or -1 */
	dev_t dev;             /* identity of that socket file, so lab_destroy */
	ino_t ino;             /*   never removes a file that replaced it */
};

/* Read-only for callers; every descriptor is owned by the lab and is
 * close-on-exec. */
struct lab {
	pid_t keeper;          /* keeper process, a child of the caller */
	int keeper_pidfd;
	int ctl_fd;            /* keeper's control socket: EOF ends it */
	int userns_fd;         /* the lab's user namespace, -1 when none */
	int netns_fd;          /* the lab's network namespace */
	int far_netns_fd;      /* the far side's network namespace, -1 unless routed */
	bool routed;
	int timeout_ms;
	int n_listeners;
	struct lab_listener ls[LAB_MAX_LISTENERS];
	unsigned long *hits;   /* shared mapping, one counter per listener */
};

/* Build a lab.  *out is owned by the caller and freed by lab_destroy.  On
 * failure err (if non-NULL) names the step and nothing is left running.
 * -EOPNOTSUPP when the kernel has no veth; -EPERM (or -ENOSPC) when user
 * namespaces are unavailable to an unprivileged caller.  An unprivileged
 * caller must be dumpable (any process that exec'ed a plain binary is):
 * the caller writes the keeper's uid/gid maps through /proc. */
int lab_create(const struct lab_opts *o, struct lab **out, char *err, size_t errlen);

/* In a single-threaded process (a forked child, before exec): join the
 * lab's user namespace (if any) and network namespace, so whatever this
 * process execs next runs inside the lab.  After joining a user namespace
 * the process holds every capability in it; execve as a non-zero uid drops
 * them as usual.  lab_enter_far joins the far side instead (-ENOENT when
 * the lab is not routed); tests use it, runners under test never should. */
int lab_enter(const struct lab *l);
int lab_enter_far(const struct lab *l);

/* Start a listener on proto (IPPROTO_TCP or IPPROTO_UDP) at addr (numeric
 * IPv4 or IPv6) and port (0: any), serving inside the lab, or in the far
 * side when addr is one the far side holds (198.51.100.2, 203.0.113.0/24).
 * addr must be loopback, a wildcard or TEST-NET (-EINVAL otherwise).
 * Returns the listener id (>= 0) and the bound port in *port_out (may be
 * NULL), or -errno (the listener's own bind error, e.g. -EADDRNOTAVAIL). */
int lab_listen(struct lab *l, int proto, const char *addr, uint16_t port,
	       uint16_t *port_out);

/* Start a unix listener inside the lab, type SOCK_STREAM, SOCK_SEQPACKET
 * or SOCK_DGRAM, bound to exactly one of path (a filesystem socket with a
 * '/' in its name, bound by the listener in the directory as it was at
 * this call, and removed by lab_destroy) or abstract_name (without the
 * leading NUL; abstract sockets belong to the network namespace, so only
 * processes inside the lab reach it).  Returns the listener id or -errno. */
int lab_listen_unix(struct lab *l, const char *path, const char *abstract_name, int type);

/* How many connections (stream) or datagrams (dgram) listener id has seen
 * so far, or -EINVAL.  A stream connection counts when it is accepted,
 * which may be after the client's connect() returned: a client that does
 * not wait for the echo should be followed by lab_hits_wait. */
long lab_hits(const struct lab *l, int id);

/* Wait until listener id has seen at least min hits or timeout_ms passed;
 * returns the count then (so a result below min means "not seen"). */
long lab_hits_wait(const struct lab *l, int id, unsigned long min, int timeout_ms);

/* Kill every listener and the keeper through their pidfds, reap them,
 * remove filesystem sockets that are still the ones the listeners bound,
 * close every descriptor and free l.  NULL is a no-op. */
void lab_destroy(struct lab *l);

#endif
