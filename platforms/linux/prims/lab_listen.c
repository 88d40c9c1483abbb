/* lab_listen.c - the lab's listeners: children that enter the lab (or
 * the far side), serve one socket each and count what they see in memory
 * shared with the caller (contract in sandproof/lab.h). */
#include "lab_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct listener_spec {
	int domain, type;
	bool far;
	struct sockaddr_storage sa;
	socklen_t salen;
	int dirfd;               /* AF_UNIX path: directory to bind in, else -1 */
	char base[108];          /* AF_UNIX path: name inside dirfd */
};

struct listener_report {
	int err;
	uint16_t port;
};

#define LISTENER_MAX_CONNS 32

/* Stream service: accept (one hit each), echo what arrives, close on EOF.
 * Everything is non-blocking so one idle client cannot stall the rest. */
static _Noreturn void listener_serve_stream(int s, unsigned long *hits)
{
	struct pollfd p[1 + LISTENER_MAX_CONNS];
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
				if (n < 1 + LISTENER_MAX_CONNS)
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
static _Noreturn void listener_serve_dgram(int s, unsigned long *hits)
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

static int listener_bind(const struct listener_spec *sp, const struct lab *l, uint16_t *port)
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

static _Noreturn void listener_main(const struct lab *l, const struct listener_spec *sp,
				    unsigned long *hits, pid_t parent, int wfd)
{
	struct listener_report rep = {0};
	int s;

	if (lab_child_tether(parent) < 0)
		_exit(1);
	s = listener_bind(sp, l, &rep.port);
	rep.err = s < 0 ? -s : 0;
	if (write(wfd, &rep, sizeof(rep)) != sizeof(rep) || s < 0)
		_exit(1);
	if ((s = lab_child_keep_one_fd(s)) < 0)
		_exit(1);
	if (sp->type == SOCK_DGRAM)
		listener_serve_dgram(s, hits);
	listener_serve_stream(s, hits);
}

static int listener_start(struct lab *l, struct listener_spec *sp, uint16_t *port_out)
{
	struct lab_listener *ls;
	struct listener_report rep = {0};
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
	ls->pidfd = lab_child_open_pidfd(ls->pid);
	rc = ls->pidfd < 0 ? -errno : lab_child_wait_readable(p[0], l->timeout_ms);
	if (rc == 0) {
		n = read(p[0], &rep, sizeof(rep));
		rc = n == (ssize_t)sizeof(rep) ? -rep.err : -ECHILD;
	}
	close(p[0]);
	if (rc < 0) {
		lab_child_kill(ls->pid, ls->pidfd);
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

static bool listener_addr_allowed(uint32_t a)
{
	return (a >> 24) == 127 || a == 0 || (a & 0xffffff00) == 0xc0000200 ||
	       (a & 0xffffff00) == 0xc6336400 || (a & 0xffffff00) == 0xcb007100;
}

int lab_listen(struct lab *l, int proto, const char *addr, uint16_t port, uint16_t *port_out)
{
	struct listener_spec sp = {.dirfd = -1};
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

		if (!listener_addr_allowed(a))
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
	struct listener_spec sp = {.domain = AF_UNIX, .type = type, .dirfd = -1};
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

void lab_listeners_stop(struct lab *l)
{
	for (int i = 0; i < l->n_listeners; i++) {
		lab_child_kill(l->ls[i].pid, l->ls[i].pidfd);
		listener_unlink(&l->ls[i]);
	}
}
