/* test_lab.c - the network lab (lab.h).
 *
 * A lab is made (as the calling user; as root also inside a user namespace
 * and, in a child that drops to uid 65534, unprivileged), listeners are
 * started in it, and forked clients that lab_enter() it connect to each
 * one: the oracle is the listener's own hit count, read host-side.  From
 * the host namespace nothing is ever sent: reachability there is judged
 * from the host's routing table and interfaces only.  Every packet of this
 * test goes to loopback or TEST-NET inside namespaces the test created.
 * lab_destroy must leave no process and no socket file. */
#include "sandproof/lab.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"

#define CLIENT_MISMATCH 126
#define CLIENT_ENTER 125

enum where { HOST, LAB, FAR };
enum opkind { OP_TCP, OP_UDP, OP_UNIX, OP_BIND, OP_ROUTE, OP_LISTENING };

struct op {
	enum opkind kind;
	const char *addr;       /* OP_TCP/UDP/BIND/ROUTE */
	uint16_t port;
	const char *path;       /* OP_UNIX: filesystem path, or */
	const char *abstract;   /*   abstract name */
};

/* ---- client side (runs in a forked child) ------------------------------ */

static int sock_timeouts(int s)
{
	struct timeval tv = {3, 0};

	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -1;
	return 0;
}

/* Connect, send a line, expect it echoed.  0, an errno, or CLIENT_MISMATCH. */
static int client_echo(int s, const struct sockaddr *sa, socklen_t len)
{
	static const char msg[] = "ping from inside the lab";
	char buf[64] = {0};
	ssize_t n;

	if (sock_timeouts(s) < 0 || connect(s, sa, len) < 0)
		return errno;
	if (send(s, msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t)sizeof(msg))
		return errno ? errno : CLIENT_MISMATCH;
	n = recv(s, buf, sizeof(buf), 0);
	if (n < 0)
		return errno;
	return n == (ssize_t)sizeof(msg) && !memcmp(buf, msg, sizeof(msg)) ? 0 : CLIENT_MISMATCH;
}

static int sin_of(const char *addr, uint16_t port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return inet_pton(AF_INET, addr, &sin->sin_addr) == 1 ? 0 : -1;
}

/* 1 when the current network namespace has a route to addr other than a
 * default route, from /proc/net/route (which shows the reader's netns);
 * dev (if non-NULL, 32 bytes) receives the interface of the last match. */
static int has_route(const char *addr, char *dev)
{
	FILE *f = fopen("/proc/net/route", "r");
	char line[256], ifn[32];
	unsigned dst, gw, flags, mask, refcnt, use, metric;
	struct in_addr a;
	int found = 0;

	if (!f || inet_pton(AF_INET, addr, &a) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %x %x %x %u %u %u %x", ifn, &dst, &gw, &flags,
			   &refcnt, &use, &metric, &mask) == 8 &&
		    mask != 0 && (a.s_addr & mask) == dst) {
			found = 1;
			if (dev)
				memcpy(dev, ifn, sizeof(ifn));
		}
	fclose(f);
	return found;
}

/* 1 when the current network namespace has a TCP socket listening on
 * addr:port, from /proc/net/tcp (per network namespace, no packet sent). */
static int has_listener(const char *addr, uint16_t port)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	char line[512];
	unsigned la, lp, ra, rp, state;
	struct in_addr a;
	int found = 0;

	if (!f || inet_pton(AF_INET, addr, &a) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %*d: %x:%x %x:%x %x", &la, &lp, &ra, &rp, &state) == 5 &&
		    la == a.s_addr && lp == port && state == 0x0a /* TCP_LISTEN */)
			found = 1;
	fclose(f);
	return found;
}

static int op_run(const struct op *o)
{
	struct sockaddr_in sin;
	int s;

	switch (o->kind) {
	case OP_TCP:
	case OP_UDP:
		if (sin_of(o->addr, o->port, &sin) < 0)
			return EINVAL;
		s = socket(AF_INET, (o->kind == OP_TCP ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
		return s < 0 ? errno : client_echo(s, (struct sockaddr *)&sin, sizeof(sin));
	case OP_UNIX: {
		struct sockaddr_un un = {.sun_family = AF_UNIX};
		socklen_t len = sizeof(un);

		if (o->abstract) {
			size_t n = strlen(o->abstract);

			memcpy(un.sun_path + 1, o->abstract, n);
			len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
		} else {
			snprintf(un.sun_path, sizeof(un.sun_path), "%s", o->path);
		}
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		return s < 0 ? errno : client_echo(s, (struct sockaddr *)&un, len);
	}
	case OP_BIND:
		if (sin_of(o->addr, 0, &sin) < 0)
			return EINVAL;
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return errno;
		return bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0 ? errno : 0;
	case OP_ROUTE:
		return has_route(o->addr, NULL) == 1 ? 0 : ENETUNREACH;
	case OP_LISTENING:
		return has_listener(o->addr, o->port) == 1 ? 0 : ENOENT;
	}
	return EINVAL;
}

/* Run o in a child placed in where; its exit code (0, an errno, ...). */
static int run_in(const struct lab *l, enum where w, const struct op *o)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		alarm(15);
		if ((w == LAB && lab_enter(l) < 0) || (w == FAR && lab_enter_far(l) < 0))
			_exit(CLIENT_ENTER);
		_exit(op_run(o) & 0xff);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- checks -------------------------------------------------------------- */

/* Whether this process could make a user and network namespace at all,
 * asked independently of lab.c, so a lab_create failure is only excused
 * (skipped) when the host really forbids it. */
static bool userns_possible(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool pid_gone(pid_t pid, int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && kill(pid, 0) < 0 && errno == ESRCH;
}

static int fd_count(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static ino_t ns_ino(int fd, const char *self)
{
	struct stat st;

	if ((fd >= 0 ? fstat(fd, &st) : stat(self, &st)) < 0)
		return 0;
	return st.st_ino;
}

/* The host netns is judged without sending anything.  Note that the host
 * itself may use TEST-NET-1 (this machine's eth0 is 192.0.2.2/24 with its
 * gateway at 192.0.2.1), so "no route to 192.0.2.0/24" cannot be asked of
 * it: what must hold is that no host route leads into the lab and that the
 * lab's listening socket does not exist in the host's namespace. */
static void host_side_checks(const char *label, uint16_t p_net)
{
	static const char *const lab_ifs[] = {"lab0", "lab1", "far0", "far1"};
	char dev[32] = "";
	int lab_dev = 0;

	if (has_route("192.0.2.1", dev) == 1)
		for (size_t i = 0; i < sizeof(lab_ifs) / sizeof(*lab_ifs); i++)
			lab_dev |= !strcmp(dev, lab_ifs[i]);
	t_ok(!lab_dev, "%s: no host route to 192.0.2.0/24 through a lab interface (%s)", label,
	     dev[0] ? dev : "no route at all");
	t_ok(has_route("198.51.100.2", NULL) == 0,
	     "%s: host netns has no route to 198.51.100.0/24", label);
	t_ok(has_route("203.0.113.1", NULL) == 0,
	     "%s: host netns has no route to 203.0.113.0/24", label);
	t_ok(if_nametoindex("lab0") == 0 && if_nametoindex("lab1") == 0 &&
		     if_nametoindex("far0") == 0,
	     "%s: host netns has no lab0/lab1/far0 interface", label);
	t_ok(p_net && has_listener("192.0.2.1", p_net) == 0,
	     "%s: host netns has no socket listening on 192.0.2.1:%u", label, p_net);
}

/* Connect from inside the lab to listener id and expect exactly one more hit. */
static void expect_hit(const char *label, const struct lab *l, enum where w, int id,
		       const struct op *o, const char *what)
{
	long before = lab_hits(l, id);
	int rc = run_in(l, w, o);

	t_ok(rc == 0 && lab_hits_wait(l, id, before + 1, 2000) == before + 1,
	     "%s: %s from inside reaches the listener (client %d, hits %ld)", label, what, rc,
	     lab_hits(l, id));
}

static void scenario(const char *label, const struct lab_opts *o, const char *dir)
{
	char err[256], sockpath[108], abs_name[64];
	struct lab *l = NULL, *l2 = NULL;
	uint16_t p_tcp = 0, p_udp = 0, p_net = 0, p_udp2 = 0, p_far = 0;
	int id_tcp, id_udp, id_net, id_udp2, id_far, id_abs, id_path, rc;
	int pidfds[LAB_MAX_LISTENERS + 1], npid = 0;
	pid_t pids[LAB_MAX_LISTENERS + 1];
	struct op op;
	struct stat st;
	bool userns = o->userns == LAB_USERNS_ALWAYS || geteuid() != 0;
	int fds_before = fd_count();

	rc = lab_create(o, &l, err, sizeof(err));
	if (rc < 0 && userns && !userns_possible()) {
		t_skipped("%s: user namespaces unavailable: %s", label, err);
		return;
	}
	if (rc == -EOPNOTSUPP) {
		t_skipped("%s: no veth in this kernel: %s", label, err);
		return;
	}
	if (!t_ok(rc == 0 && l, "%s: lab_create (%s)", label, rc ? err : "ok"))
		return;
	t_ok(ns_ino(l->netns_fd, NULL) != ns_ino(-1, "/proc/self/ns/net"),
	     "%s: the lab has its own network namespace", label);
	t_ok(userns ? l->userns_fd >= 0 && ns_ino(l->userns_fd, NULL) !=
			      ns_ino(-1, "/proc/self/ns/user")
		    : l->userns_fd < 0,
	     "%s: user namespace %s", label, userns ? "made (unprivileged)" : "not made (root)");
	t_ok(o->routed == (l->far_netns_fd >= 0), "%s: far side present iff routed", label);

	id_tcp = lab_listen(l, IPPROTO_TCP, "127.0.0.1", 0, &p_tcp);
	id_udp = lab_listen(l, IPPROTO_UDP, "127.0.0.1", 0, &p_udp);
	id_net = lab_listen(l, IPPROTO_TCP, "192.0.2.1", 0, &p_net);
	id_udp2 = lab_listen(l, IPPROTO_UDP, "192.0.2.2", 0, &p_udp2);
	t_ok(id_tcp >= 0 && id_udp >= 0 && id_net >= 0 && id_udp2 >= 0 && p_tcp && p_udp &&
		     p_net && p_udp2,
	     "%s: listeners on 127.0.0.1 tcp/udp, 192.0.2.1 tcp, 192.0.2.2 udp (%d %d %d %d)",
	     label, id_tcp, id_udp, id_net, id_udp2);
	snprintf(abs_name, sizeof(abs_name), "sp-test-lab-%d-%s", (int)getpid(), label);
	snprintf(sockpath, sizeof(sockpath), "%s/lab.sock", dir);
	id_abs = lab_listen_unix(l, NULL, abs_name, SOCK_STREAM);
	id_path = lab_listen_unix(l, sockpath, NULL, SOCK_STREAM);
	t_ok(id_abs >= 0 && id_path >= 0 && lstat(sockpath, &st) == 0 && S_ISSOCK(st.st_mode),
	     "%s: unix listeners (abstract %d, path %d) and the socket file", label, id_abs,
	     id_path);
	t_ok(lab_listen(l, IPPROTO_TCP, "10.1.2.3", 0, NULL) == -EINVAL &&
		     lab_listen(l, IPPROTO_TCP, "::ffff:10.1.2.3", 0, NULL) == -EINVAL,
	     "%s: lab_listen refuses addresses that are not loopback or TEST-NET", label);

	if (id_tcp >= 0) {
		op = (struct op){.kind = OP_TCP, .addr = "127.0.0.1", .port = p_tcp};
		expect_hit(label, l, LAB, id_tcp, &op, "tcp 127.0.0.1");
	}
	if (id_udp >= 0) {
		op = (struct op){.kind = OP_UDP, .addr = "127.0.0.1", .port = p_udp};
		expect_hit(label, l, LAB, id_udp, &op, "udp 127.0.0.1");
	}
	if (id_net >= 0) {
		op = (struct op){.kind = OP_TCP, .addr = "192.0.2.1", .port = p_net};
		expect_hit(label, l, LAB, id_net, &op, "tcp 192.0.2.1");
	}
	if (id_udp2 >= 0) {
		op = (struct op){.kind = OP_UDP, .addr = "192.0.2.2", .port = p_udp2};
		expect_hit(label, l, LAB, id_udp2, &op, "udp 192.0.2.2");
	}
	if (id_path >= 0) {
		op = (struct op){.kind = OP_UNIX, .path = sockpath};
		expect_hit(label, l, LAB, id_path, &op, "unix path socket");
	}

	/* Routed: 203.0.113.1 is served in the far side; the lab reaches it
	 * only through its route, it is no address of the lab itself. */
	if (o->routed) {
		id_far = lab_listen(l, IPPROTO_TCP, "203.0.113.1", 0, &p_far);
		t_ok(id_far >= 0 && l->ls[id_far].far, "%s: listener on 203.0.113.1 in the far side",
		     label);
		if (id_far >= 0) {
			op = (struct op){.kind = OP_TCP, .addr = "203.0.113.1", .port = p_far};
			expect_hit(label, l, LAB, id_far, &op, "tcp 203.0.113.1 (routed)");
		}
		op = (struct op){.kind = OP_BIND, .addr = "203.0.113.1"};
		rc = run_in(l, LAB, &op);
		t_ok(rc == EADDRNOTAVAIL, "%s: 203.0.113.1 is not a local address of the lab (%d)",
		     label, rc);
		op = (struct op){.kind = OP_ROUTE, .addr = "203.0.113.1"};
		t_ok(run_in(l, LAB, &op) == 0, "%s: the lab routes 203.0.113.0/24", label);
		t_ok(run_in(l, FAR, &op) != 0 && run_in(l, HOST, &op) != 0,
		     "%s: neither the host nor the far side has a route to 203.0.113.0/24", label);
	}

	/* Host side: no packet is sent; the host simply has no way there.
	 * Controls: the same readers, inside the lab, do see the lab. */
	op = (struct op){.kind = OP_ROUTE, .addr = "198.51.100.2"};
	rc = run_in(l, LAB, &op);
	t_ok(o->routed ? rc == 0 : rc == ENETUNREACH,
	     "%s: control: inside, /proc/net/route %s 198.51.100.0/24", label,
	     o->routed ? "has" : "lacks");
	op = (struct op){.kind = OP_LISTENING, .addr = "192.0.2.1", .port = p_net};
	t_ok(run_in(l, LAB, &op) == 0,
	     "%s: control: inside, /proc/net/tcp shows the listener on 192.0.2.1:%u", label,
	     p_net);
	host_side_checks(label, p_net);

	/* Abstract unix sockets belong to the network namespace. */
	if (id_abs >= 0) {
		long before = lab_hits(l, id_abs);

		op = (struct op){.kind = OP_UNIX, .abstract = abs_name};
		rc = run_in(l, HOST, &op);
		t_ok(rc == ECONNREFUSED && lab_hits_wait(l, id_abs, before + 1, 200) == before,
		     "%s: abstract listener unreachable from the host netns (%d)", label, rc);
		rc = lab_create(&(struct lab_opts){.userns = o->userns}, &l2, err, sizeof(err));
		t_ok(rc == 0, "%s: second lab (%s)", label, rc ? err : "ok");
		if (rc == 0) {
			rc = run_in(l2, LAB, &op);
			t_ok(rc == ECONNREFUSED && lab_hits(l, id_abs) == before,
			     "%s: abstract listener unreachable from another lab (%d)", label, rc);
			op = (struct op){.kind = OP_TCP, .addr = "203.0.113.1", .port = 9};
			rc = run_in(l2, LAB, &op);
			t_ok(rc == ENETUNREACH, "%s: a lab without routed has no way to "
			     "203.0.113.1 (%d)", label, rc);
			lab_destroy(l2);
		}
		op = (struct op){.kind = OP_UNIX, .abstract = abs_name};
		expect_hit(label, l, LAB, id_abs, &op, "abstract unix");
	}

	/* Each listener saw exactly the one client meant for it. */
	rc = 1;
	for (int i = 0; i < l->n_listeners; i++)
		rc &= lab_hits(l, i) == 1;
	t_ok(rc, "%s: every listener counted exactly one hit", label);
	t_ok(lab_hits(l, l->n_listeners) == -EINVAL, "%s: lab_hits refuses an unknown id", label);

	/* lab_destroy: keeper and listeners gone, socket file removed. */
	pids[npid] = l->keeper;
	pidfds[npid++] = (int)syscall(SYS_pidfd_open, l->keeper, 0);
	for (int i = 0; i < l->n_listeners; i++) {
		pids[npid] = l->ls[i].pid;
		pidfds[npid++] = (int)syscall(SYS_pidfd_open, l->ls[i].pid, 0);
	}
	lab_destroy(l);
	rc = 1;
	for (int i = 0; i < npid; i++) {
		rc &= pidfds[i] >= 0 && pid_gone(pids[i], pidfds[i]);
		if (pidfds[i] >= 0)
			close(pidfds[i]);
	}
	t_ok(rc, "%s: lab_destroy leaves no keeper or listener (%d processes)", label, npid);
	t_ok(lstat(sockpath, &st) < 0 && errno == ENOENT, "%s: lab_destroy removed %s", label,
	     sockpath);
	t_ok(fd_count() == fds_before, "%s: no descriptor left open (%d before, %d after)", label,
	     fds_before, fd_count());
}

/* ---- as uid 65534, from root ------------------------------------------ */

static void scenario_as_nobody(const char *dir)
{
	int p[2], st, passed = -1, failed = -1;
	char line[512];
	pid_t pid;
	FILE *f;

	fflush(stdout);
	if (pipe(p) < 0 || (pid = fork()) < 0) {
		t_ok(0, "nobody: fork");
		return;
	}
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		t_n = t_pass = t_fail = t_skip = 0;
		/* After the id change we are not dumpable; a process that exec'ed
		 * as 65534 would be, and lab_create needs that to write maps. */
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0 ||
		    prctl(PR_SET_DUMPABLE, 1) < 0)
			_exit(2);
		scenario("nobody", &(struct lab_opts){.routed = true}, dir);
		_exit(t_done());
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "%d passed, %d failed", &passed, &failed);
		printf("#   %s", line);
	}
	if (f)
		fclose(f);
	waitpid(pid, &st, 0);
	if (passed == 0 && failed == 0)
		t_skipped("uid 65534: every check skipped");
	else
		t_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && failed == 0 && passed > 0,
		     "uid 65534: lab scenario (%d passed, %d failed)", passed, failed);
}

int main(void)
{
	char base[] = "/tmp/sp-test-lab-XXXXXX", sub[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	scenario("routed", &(struct lab_opts){.routed = true}, base);
	if (geteuid() == 0) {
		scenario("userns", &(struct lab_opts){.routed = true,
						      .userns = LAB_USERNS_ALWAYS}, base);
		snprintf(sub, sizeof(sub), "%s/nobody", base);
		if (mkdir(sub, 0700) == 0 && chown(sub, 65534, 65534) == 0 && chmod(base, 0755) == 0)
			scenario_as_nobody(sub);
		else
			t_ok(0, "nobody: scratch directory");
		rmdir(sub);
	}
	scenario("plain", &(struct lab_opts){0}, base);
	t_ok(rmdir(base) == 0, "scratch directory empty at the end");
	return t_done();
}
