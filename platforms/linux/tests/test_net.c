/* test_net.c - NET clauses of sandproof-ref, inside a network lab the test
 * creates itself.
 *
 *   test_net SANDPROOF_REF SANDPROOF_PROBE
 *
 * The lab: a child process unshares a network namespace (inside a new user
 * namespace with an identity uid/gid map when not root), brings lo up and
 * makes a veth pair with both ends inside (192.0.2.1/24 and 192.0.2.2/24,
 * TEST-NET-1), starts listeners - TCP and UDP on 127.0.0.1 and 192.0.2.1, a
 * unix socket on a path the sandbox can see and an abstract unix socket -
 * and runs sandproof-ref there, so the lab plays the host.  The lab has no
 * route anywhere else and the probe is only ever pointed at loopback and
 * 192.0.2.0/24, so no packet can leave it.
 *
 * Host-side oracle: the listeners count what reached them (shared memory);
 * a denied run must leave every count unchanged, a permitted one (the
 * positive control, network=allow) must raise it.  In the same deny run
 * the sandbox's own loopback must work (listen_echo + connect). */
#include <arpa/inet.h>
#include <limits.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "enforce.h"
#include "t.h"

/* Listener slots (index into lab.fd, lab.hits). */
enum { L_TCP_LO, L_TCP_NET, L_UDP_LO, L_UDP_NET, L_UNIX, L_ABS, L_N };
static const char *const lname[L_N] = {"tcp 127.0.0.1", "tcp 192.0.2.1", "udp 127.0.0.1",
				       "udp 192.0.2.1", "unix path", "unix abstract"};

struct lab {
	int fd[L_N];
	char port[L_N][8];
	char sock_path[PATH_MAX];
	char abs_name[64];
	volatile long *hits; /* shared with the server process */
	pid_t server;
};

static const char *ref, *probe, *ip_cmd;
static struct enf_area A, V;
static bool have_v;

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -errno;
	close(fd);
	return rc;
}

/* Enter the lab's namespaces.  Not root: a new user namespace mapping only
 * our own uid and gid to themselves, so the runner started here sees the
 * same unprivileged identity as outside (it must not believe it is root). */
static int lab_enter(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (uid == 0)
		return unshare(CLONE_NEWNET) < 0 ? -errno : 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return -errno;
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	if (write_text("/proc/self/setgroups", "deny") < 0 ||
	    write_text("/proc/self/uid_map", map) < 0)
		return -errno;
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
	return write_text("/proc/self/gid_map", map);
}

/* Runs `ip ARGS...` in the lab.  Not root: our uid is not 0 in the lab's
 * user namespace, so execve would drop the capabilities we hold there;
 * CAP_NET_ADMIN is carried over as an ambient capability of this child
 * only (the runner started later gets none). */
static int ip(const char *a1, ...)
{
	const char *argv[16] = {ip_cmd, a1};
	int n = 2, st;
	va_list ap;
	pid_t pid;

	va_start(ap, a1);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (getuid() != 0) {
			struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
			struct __user_cap_data_struct d[2];

			if (syscall(SYS_capget, &h, d) < 0)
				_exit(126);
			d[CAP_TO_INDEX(CAP_NET_ADMIN)].inheritable |= CAP_TO_MASK(CAP_NET_ADMIN);
			if (syscall(SYS_capset, &h, d) < 0 ||
			    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) < 0)
				_exit(126);
		}
		execv(ip_cmd, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "# ip %s ... failed (status %d)\n", a1, st);
		return -EIO;
	}
	return 0;
}

static int lab_links(void)
{
	if (ip("link", "set", "lo", "up", NULL) < 0 ||
	    ip("link", "add", "sp-lab0", "type", "veth", "peer", "name", "sp-lab1", NULL) < 0 ||
	    ip("addr", "add", "192.0.2.1/24", "dev", "sp-lab0", NULL) < 0 ||
	    ip("addr", "add", "192.0.2.2/24", "dev", "sp-lab1", NULL) < 0 ||
	    ip("link", "set", "sp-lab0", "up", NULL) < 0 ||
	    ip("link", "set", "sp-lab1", "up", NULL) < 0)
		return -EIO;
	return 0;
}

static int inet_listener(int type, const char *addr, char port[8])
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	inet_pton(AF_INET, addr, &sin.sin_addr);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 16) < 0) ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	snprintf(port, 8, "%u", ntohs(sin.sin_port));
	return fd;
}

static int unix_listener(const char *name, bool abstract)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t len = strlen(name), off = abstract ? 1 : 0;
	socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + len +
				   (abstract ? 0 : 1));
	int fd;

	if (len + off + 1 > sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path + off, name, len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, sl) < 0 || listen(fd, 16) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* The lab's servers, one process: counts every connection or datagram per
 * listener; answers datagrams (the probe's UDP connect needs a reply). */
static _Noreturn void serve(struct lab *lab)
{
	struct pollfd p[L_N];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int i = 0; i < L_N; i++)
		p[i] = (struct pollfd){.fd = lab->fd[i], .events = POLLIN};
	for (;;) {
		if (poll(p, L_N, -1) < 0)
			continue;
		for (int i = 0; i < L_N; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			if (i == L_UDP_LO || i == L_UDP_NET) {
				struct sockaddr_storage peer;
				socklen_t pl = sizeof(peer);
				char buf[512];
				ssize_t r = recvfrom(p[i].fd, buf, sizeof(buf), 0,
						     (struct sockaddr *)&peer, &pl);

				if (r >= 0) {
					lab->hits[i]++;
					sendto(p[i].fd, buf, (size_t)r, 0, (struct sockaddr *)&peer, pl);
				}
			} else {
				int c = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);

				if (c >= 0) {
					lab->hits[i]++;
					close(c);
				}
			}
		}
	}
}

static int lab_listen(struct lab *lab)
{
	static const struct {
		int type;
		const char *addr;
	} inet[4] = {{SOCK_STREAM, "127.0.0.1"}, {SOCK_STREAM, "192.0.2.1"},
		     {SOCK_DGRAM, "127.0.0.1"}, {SOCK_DGRAM, "192.0.2.1"}};

	lab->hits = mmap(NULL, sizeof(long) * L_N, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lab->hits == MAP_FAILED)
		return -errno;
	for (int i = 0; i < 4; i++)
		if ((lab->fd[i] = inet_listener(inet[i].type, inet[i].addr, lab->port[i])) < 0)
			return lab->fd[i];
	snprintf(lab->sock_path, sizeof(lab->sock_path), "%s/lab.sock", have_v ? V.out : A.ws);
	snprintf(lab->abs_name, sizeof(lab->abs_name), "sp-lab-%d", (int)getpid());
	if ((lab->fd[L_UNIX] = unix_listener(lab->sock_path, false)) < 0)
		return lab->fd[L_UNIX];
	if ((lab->fd[L_ABS] = unix_listener(lab->abs_name, true)) < 0)
		return lab->fd[L_ABS];
	lab->server = fork();
	if (lab->server < 0)
		return -errno;
	if (lab->server == 0)
		serve(lab);
	return 0;
}

static void lab_close(struct lab *lab)
{
	if (lab->server > 0) {
		kill(lab->server, SIGKILL);
		waitpid(lab->server, NULL, 0);
	}
	for (int i = 0; i < L_N; i++)
		if (lab->fd[i] >= 0)
			close(lab->fd[i]);
	unlink(lab->sock_path);
}

/* ---- requests ---------------------------------------------------------------- */

static cJSON *probe_req(const char *network)
{
	cJSON *req = enf_req_new(A.ws, network);

	enf_write_root(req, A.ws);
	enf_arg(enf_cmd(req), "%s", A.probe);
	return req;
}

static void snapshot(const struct lab *lab, long out[L_N])
{
	for (int i = 0; i < L_N; i++)
		out[i] = lab->hits[i];
}

/* Listeners whose count changed since before[], for messages; "" if none. */
static const char *reached(const struct lab *lab, const long before[L_N])
{
	static char buf[256];

	buf[0] = '\0';
	for (int i = 0; i < L_N; i++)
		if (lab->hits[i] != before[i])
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? ", " : "", lname[i]);
	return buf;
}

/* The server counts asynchronously: give it up to ms to catch up with
 * the run that just ended (wanted: every listener in mask advanced). */
static void settle(const struct lab *lab, const long before[L_N], unsigned mask, int ms)
{
	struct timespec ts = {0, 5 * 1000 * 1000};

	for (int waited = 0; waited < ms; waited += 5) {
		bool done = true;

		for (int i = 0; i < L_N; i++)
			if ((mask & (1u << i)) && lab->hits[i] == before[i])
				done = false;
		if (done && mask)
			return;
		nanosleep(&ts, NULL);
	}
}

static bool ran(const struct enf_run *e, const char *what)
{
	if (e->sentinel)
		return true;
	t_ok(0, "%s: the probe ran (sentinel seen; outcome %s; %s)", what, enf_kind(e),
	     enf_setup_str(e));
	return false;
}

static void net_deny(struct lab *lab)
{
	long before[L_N];
	cJSON *req = probe_req("deny");
	struct enf_run e;

	snapshot(lab, before);
	enf_op(req, 4, "listen_echo", "tcp", "127.0.0.1", "47000");               /* 0 */
	enf_op(req, 4, "connect", "tcp", "127.0.0.1", "47000");                   /* 1 */
	enf_op(req, 4, "listen_echo", "udp", "127.0.0.1", "47001");               /* 2 */
	enf_op(req, 4, "connect", "udp", "127.0.0.1", "47001");                   /* 3 */
	enf_op(req, 4, "connect", "tcp", "127.0.0.1", lab->port[L_TCP_LO]);       /* 4 */
	enf_op(req, 4, "connect", "tcp", "192.0.2.1", lab->port[L_TCP_NET]);      /* 5 */
	enf_op(req, 4, "connect", "udp", "127.0.0.1", lab->port[L_UDP_LO]);       /* 6 */
	enf_op(req, 4, "connect", "udp", "192.0.2.1", lab->port[L_UDP_NET]);      /* 7 */
	enf_op(req, 4, "connect", "tcp", "192.0.2.2", lab->port[L_TCP_NET]);      /* 8 */
	enf_op(req, 2, "abstract_unix_connect", lab->abs_name);                   /* 9 */
	enf_op(req, 2, "socket", "raw");                                          /* 10 */
	enf_run(ref, req, &e);
	settle(lab, before, 0, 50);
	if (ran(&e, "NET deny")) {
		t_ok(cJSON_IsTrue(oc_get(e.r.outcome, "enforcement.net_ns")),
		     "NET-1: network=deny runs in its own network namespace (enforcement.net_ns)");
		t_ok(enf_ok(&e, 0) == 1 && enf_ok(&e, 1) == 1 && enf_ok(&e, 2) == 1 &&
			     enf_ok(&e, 3) == 1,
		     "NET-2: control: the sandbox's private loopback works (tcp %s, udp %s)",
		     enf_errno(&e, 1), enf_errno(&e, 3));
		t_ok(enf_failed_with(&e, 4, "ECONNREFUSED") && enf_failed_with(&e, 6, "ECONNREFUSED"),
		     "NET-1: the lab's 127.0.0.1 listeners are unreachable: tcp %s, udp %s "
		     "(the sandbox's own loopback answers)", enf_errno(&e, 4), enf_errno(&e, 6));
		t_ok(enf_failed_with(&e, 5, "ENETUNREACH") && enf_failed_with(&e, 7, "ENETUNREACH") &&
			     enf_failed_with(&e, 8, "ENETUNREACH"),
		     "NET-1: the lab's interface addresses are unreachable: tcp %s, udp %s, peer %s",
		     enf_errno(&e, 5), enf_errno(&e, 7), enf_errno(&e, 8));
		t_ok(enf_failed_with(&e, 9, "ECONNREFUSED|EPERM"),
		     "NET-4: an abstract unix socket bound in the lab is unreachable (%s)",
		     enf_errno(&e, 9));
		t_ok(enf_failed_with(&e, 10, "EPERM"), "NET-5: raw sockets fail (%s)", enf_errno(&e, 10));
		t_ok(reached(lab, before)[0] == '\0',
		     "NET-1: host-side: no lab listener saw a connection or datagram (reached: %s)",
		     reached(lab, before)[0] ? reached(lab, before) : "none");
	}
	enf_run_free(&e);
}

static void net_allow(struct lab *lab)
{
	long before[L_N];
	cJSON *req = probe_req("allow");
	struct enf_run e;
	bool all = true;

	snapshot(lab, before);
	enf_op(req, 4, "connect", "tcp", "127.0.0.1", lab->port[L_TCP_LO]);       /* 0 */
	enf_op(req, 4, "connect", "tcp", "192.0.2.1", lab->port[L_TCP_NET]);      /* 1 */
	enf_op(req, 4, "connect", "udp", "127.0.0.1", lab->port[L_UDP_LO]);       /* 2 */
	enf_op(req, 4, "connect", "udp", "192.0.2.1", lab->port[L_UDP_NET]);      /* 3 */
	enf_op(req, 2, "unix_connect", lab->sock_path);                           /* 4 */
	enf_op(req, 2, "abstract_unix_connect", lab->abs_name);                   /* 5 */
	enf_run(ref, req, &e);
	settle(lab, before, (1u << L_N) - 1, 1000);
	if (ran(&e, "NET allow")) {
		for (int i = 0; i < L_N; i++)
			all &= enf_ok(&e, i) == 1 && lab->hits[i] > before[i];
		t_ok(all,
		     "NET-3: control: network=allow reaches every lab listener (tcp %s/%s, udp %s/%s, "
		     "unix %s, abstract %s; host saw: %s)",
		     enf_errno(&e, 0), enf_errno(&e, 1), enf_errno(&e, 2), enf_errno(&e, 3),
		     enf_errno(&e, 4), enf_errno(&e, 5), reached(lab, before));
	}
	enf_run_free(&e);
}

static void net_block_unix(struct lab *lab)
{
	long before[L_N];
	cJSON *req = probe_req("allow");
	struct enf_run e;

	cJSON_AddBoolToObject(enf_req_at(req, "profile"), "block_unix_sockets", true);
	snapshot(lab, before);
	enf_op(req, 4, "connect", "tcp", "127.0.0.1", lab->port[L_TCP_LO]);       /* 0 */
	enf_op(req, 2, "unix_connect", lab->sock_path);                           /* 1 */
	enf_op(req, 2, "abstract_unix_connect", lab->abs_name);                   /* 2 */
	enf_op(req, 3, "socket", "unix", "dgram");                                /* 3 */
	enf_run(ref, req, &e);
	settle(lab, before, 1u << L_TCP_LO, 1000);
	if (ran(&e, "NET block_unix_sockets")) {
		t_ok(enf_ok(&e, 0) == 1 && lab->hits[L_TCP_LO] > before[L_TCP_LO],
		     "NET-4: control: with block_unix_sockets the lab's tcp listener is still reached");
		t_ok(enf_failed_with(&e, 1, "EPERM") && enf_failed_with(&e, 2, "EPERM") &&
			     enf_failed_with(&e, 3, "EPERM"),
		     "NET-4: block_unix_sockets: unix_connect %s, abstract %s, socket(AF_UNIX) %s",
		     enf_errno(&e, 1), enf_errno(&e, 2), enf_errno(&e, 3));
		t_ok(lab->hits[L_UNIX] == before[L_UNIX] && lab->hits[L_ABS] == before[L_ABS],
		     "NET-4: host-side: the lab's unix listeners saw nothing");
	}
	enf_run_free(&e);
}

static void net_dns(struct lab *lab)
{
	long before[L_N];
	cJSON *req = probe_req("deny");
	struct enf_run e;

	snapshot(lab, before);
	enf_op(req, 4, "connect", "udp", "192.0.2.53", "53");    /* 0 */
	enf_op(req, 4, "connect", "tcp", "192.0.2.53", "53");    /* 1 */
	enf_run(ref, req, &e);
	settle(lab, before, 0, 20);
	if (ran(&e, "NET dns")) {
		t_ok(enf_failed_with(&e, 0, "ENETUNREACH") && enf_failed_with(&e, 1, "ENETUNREACH") &&
			     e.ms < 2000 && reached(lab, before)[0] == '\0',
		     "NET-1: DNS to an on-link lab address fails fast (udp %s, tcp %s): whole run %lld ms",
		     enf_errno(&e, 0), enf_errno(&e, 1), e.ms);
	}
	enf_run_free(&e);
}

static int lab_main(void)
{
	struct lab lab;
	int rc;

	memset(&lab, 0, sizeof(lab));
	for (int i = 0; i < L_N; i++)
		lab.fd[i] = -1;
	rc = lab_enter();
	if (rc < 0) {
		t_skipped("cannot create the lab's namespaces: %s", strerror(-rc));
		return t_done();
	}
	if (lab_links() < 0) {
		t_skipped("cannot configure the lab's links (veth unavailable?)");
		return t_done();
	}
	rc = lab_listen(&lab);
	if (rc < 0) {
		t_ok(0, "lab listeners: %s", strerror(-rc));
		lab_close(&lab);
		return t_done();
	}
	printf("# lab: tcp %s/%s udp %s/%s unix %s abstract @%s\n", lab.port[L_TCP_LO],
	       lab.port[L_TCP_NET], lab.port[L_UDP_LO], lab.port[L_UDP_NET], lab.sock_path,
	       lab.abs_name);
	fflush(stdout);
	net_deny(&lab);
	net_allow(&lab);
	net_block_unix(&lab);
	net_dns(&lab);
	lab_close(&lab);
	return t_done();
}

static const char *find_ip(void)
{
	static const char *const where[] = {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip", NULL};

	for (int i = 0; where[i]; i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

int main(int argc, char **argv)
{
	int st = 0, rc;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: test_net SANDPROOF_REF SANDPROOF_PROBE\n");
		return 2;
	}
	ref = argv[1];
	probe = argv[2];
	signal(SIGPIPE, SIG_IGN);
	ip_cmd = find_ip();
	if (!ip_cmd) {
		t_skipped("iproute2's ip is not installed: no lab");
		return t_done();
	}
	if (enf_area_new(&A, "/tmp", probe) < 0) {
		fprintf(stderr, "cannot create an area under /tmp\n");
		return 2;
	}
	have_v = enf_area_new(&V, "/var/tmp", NULL) == 0;
	fflush(stdout);
	/* The lab lives in a child: its namespaces end with it. */
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		rc = lab_main();
		fflush(stdout);
		_exit(rc);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	enf_area_free(&A);
	if (have_v)
		enf_area_free(&V);
	if (pid > 0 && WIFEXITED(st))
		return WEXITSTATUS(st);
	t_ok(0, "the lab process ended normally (status %d)", st);
	return t_done();
}
