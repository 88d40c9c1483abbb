/* canary.c - before the command, a canary under the run's very profile
 * tries what the profile must refuse; the run is refused when anything got
 * through (DESIGN.md, "Verifying what we cannot run", line 3).
 *
 * The Seatbelt profile is built and modelled where no Seatbelt runs; a
 * macOS version that reads it otherwise must cost a refusal, never an
 * unconfined run reported as confined.  So, after the preflight, the
 * runner starts sandbox-exec with the run's profile and parameters, its
 * environment and working directory, and /bin/bash running a fixed script
 * (arguments, never text spliced into it) that, in this order:
 *   1. prints a sentinel (the canary ran under the profile);
 *   2. creates a fresh file in the first write root: the positive control
 *      (the profile allows it, so an attempt that fails elsewhere failed
 *      for the profile, not for a broken canary);
 *   3. connects to a listener the runner holds on 127.0.0.1 (network deny
 *      only; /dev/tcp, which the runner first sees working unsandboxed);
 *   4. creates the first absent component of a protected name (META-3),
 *      and on a case-insensitive volume its other-case spelling too;
 *   5. creates a file in a directory the runner made outside every
 *      writable area (FS-1; a restricted filesystem only).
 * Then the runner looks on the host, never at what the canary says: the
 * sentinel was printed, the control file exists; no connection is queued
 * on the listener, no protected name and no outside file exists.  Anything
 * else is a setup failure (step "canary") naming what got through or what
 * did not run, and whatever the canary made is removed.  A check that
 * cannot be made (no absent protected name, no place outside) is left out
 * of enforcement.seatbelt.canary, which lists the ones made. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "namefold.h"
#include "policy_path.h"
#include "seatbelt.h"

#define CANARY_BASH "/bin/bash"
#define CANARY_MS 10000
#define CANARY_SENTINEL "sandproof-canary-ran"

/* $1 control file, $2 port, $3 $4 protected spellings, $5 outside file;
 * an empty argument is a check not made.  Every attempt's failure is
 * expected and silent; only the host's view counts. */
static const char canary_script[] =
	"echo " CANARY_SENTINEL "\n"
	"[ -n \"$1\" ] && : > \"$1\"\n"
	"[ -n \"$2\" ] && { exec 3<>/dev/tcp/127.0.0.1/\"$2\"; } 2>/dev/null\n"
	"[ -n \"$3\" ] && : > \"$3\" 2>/dev/null\n"
	"[ -n \"$4\" ] && : > \"$4\" 2>/dev/null\n"
	"[ -n \"$5\" ] && : > \"$5\" 2>/dev/null\n"
	"exit 0\n";

struct canary {
	int lfd;                  /* the loopback listener, -1: none */
	char port[8];
	char control[PATH_MAX];   /* "": none */
	char prot[PATH_MAX], prot_case[PATH_MAX];
	char outside_dir[PATH_MAX], outside[PATH_MAX];
	char got[256];            /* what got through, for the setup error */
};

/* Add what to the list of what got through (cut at its end, "..."). */
static void got(struct canary *c, const char *what)
{
	size_t n = strlen(c->got);

	if (snprintf(c->got + n, sizeof(c->got) - n, "%s%s", n ? "; " : "", what) >=
	    (int)(sizeof(c->got) - n))
		memcpy(c->got + sizeof(c->got) - 4, "...", 4);
}

/* A listener on 127.0.0.1, port chosen by the kernel, non-blocking. */
static int listen_loopback(struct canary *c)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	c->lfd = fd;
	snprintf(c->port, sizeof(c->port), "%u", (unsigned)ntohs(a.sin_port));
	return 0;
}

/* Whether a connection reached the listener (and take it). */
static bool connection_queued(struct canary *c)
{
	int fd = accept(c->lfd, NULL, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Run argv (not sandboxed) with stdio on /dev/null, bounded: its exit
 * status, or -1 (did not start, or killed at the deadline). */
static int run_plain(char *const argv[])
{
	int status, waited = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if ((waited += 20) > CANARY_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		poll(NULL, 0, 20);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The loopback check: a listener, and bash's /dev/tcp seen reaching it
 * unsandboxed first (else the canary's connect would prove nothing). */
static int plan_loopback(struct canary *c, struct setup_error *err)
{
	char script[] = "exec 3<>/dev/tcp/127.0.0.1/\"$1\"";
	char *argv[] = {CANARY_BASH, "-c", script, "sandproof-canary-control", c->port, NULL};
	int rc = listen_loopback(c);

	if (rc < 0)
		return seatbelt_fail(err, "canary", NULL, -rc, "cannot listen on 127.0.0.1");
	if (run_plain(argv) != 0 || !connection_queued(c))
		return seatbelt_fail(err, "canary", NULL, EPROTO,
				     "the canary cannot connect to 127.0.0.1 even unsandboxed ("
				     CANARY_BASH "'s /dev/tcp): the loopback check would prove "
				     "nothing");
	return 0;
}

/* The first absent component of a protected name of any write root. */
static void plan_protected(struct canary *c, const struct plan *p)
{
	const struct request *req = p->req;
	struct stat st;

	for (size_t i = 0; i < req->n_write_roots && !c->prot[0]; i++) {
		const struct write_root *w = &req->write_roots[i];

		for (size_t k = 0; k < w->protected_names.n && !c->prot[0]; k++) {
			char path[PATH_MAX], *slash;
			const char *name = w->protected_names.v[k];

			bool top = !strcmp(w->root, "/");

			snprintf(path, sizeof(path), "%s%s%s", w->root, top ? "" : "/", name);
			/* from the root down: the first component that is absent
			 * (a component that is not a directory ends the name) */
			for (char *s = path + strlen(w->root) + !top; s; s = slash ? slash + 1 : NULL) {
				slash = strchr(s, '/');
				if (slash)
					*slash = '\0';
				if (lstat(path, &st) < 0) {
					if (errno == ENOENT)
						snprintf(c->prot, sizeof(c->prot), "%s", path);
					break;
				}
				if (slash)
					*slash = '/';
			}
		}
	}
	if (!c->prot[0] || !p->case_insensitive)
		return;
	/* the other case of the last component (ASCII letters only) */
	snprintf(c->prot_case, sizeof(c->prot_case), "%s", c->prot);
	for (char *s = strrchr(c->prot_case, '/') + 1; *s; s++)
		*s = (char)(islower((unsigned char)*s) ? toupper((unsigned char)*s)
						      : tolower((unsigned char)*s));
	if (!strcmp(c->prot_case, c->prot) || lstat(c->prot_case, &st) == 0)
		c->prot_case[0] = '\0';
}

/* A fresh directory outside every writable area, in the runner's own
 * temp directory (TMPDIR, resolved), when that lies outside them. */
static void plan_outside(struct canary *c, const struct plan *p)
{
	const char *host = getenv("TMPDIR");
	char real[PATH_MAX];

	if (p->req->fs_kind != FS_RESTRICTED)
		return;
	if (!host || host[0] != '/')
		host = SEATBELT_TMP_FALLBACK;
	if (!realpath(host, real) || policy_in_write_root(p->req, real) ||
	    (p->tmpdir && policy_beneath(p->tmpdir, real)) ||
	    snprintf(c->outside_dir, sizeof(c->outside_dir), "%s/sandproof-canary.XXXXXX", real) >=
		    (int)sizeof(c->outside_dir) ||
	    !mkdtemp(c->outside_dir)) {
		c->outside_dir[0] = '\0';
		return;
	}
	if (snprintf(c->outside, sizeof(c->outside), "%s/outside", c->outside_dir) >=
	    (int)sizeof(c->outside)) {
		rmdir(c->outside_dir);
		c->outside_dir[0] = c->outside[0] = '\0';
	}
}

/* The positive control: a fresh name in the first write root. */
static void plan_control(struct canary *c, const struct plan *p)
{
	if (p->req->n_write_roots)
		snprintf(c->control, sizeof(c->control), "%s%s.sandproof-canary-%ld",
			 p->req->write_roots[0].root,
			 strcmp(p->req->write_roots[0].root, "/") ? "/" : "", (long)getpid());
}

/* What the host shows after the canary: adds to c->got, removes what the
 * canary made.  The control file missing is not "got through" but a
 * canary that did not do its work: -1. */
static int judge(struct canary *c)
{
	struct stat st;
	char what[PATH_MAX + 64];
	int control_ok = 1;

	if (c->lfd >= 0 && connection_queued(c)) {
		snprintf(what, sizeof(what), "connected to 127.0.0.1:%s", c->port);
		got(c, what);
	}
	for (int i = 0; i < 3; i++) {
		const char *path = i == 0 ? c->prot : i == 1 ? c->prot_case : c->outside;

		if (!path[0] || lstat(path, &st) < 0)
			continue;
		snprintf(what, sizeof(what), "%s %s", i == 2 ? "wrote outside" : "created", path);
		got(c, what);
		if (S_ISREG(st.st_mode))
			unlink(path);
	}
	if (c->control[0]) {
		control_ok = lstat(c->control, &st) == 0;
		unlink(c->control);
	}
	return control_ok ? 0 : -1;
}

static void canary_free(struct canary *c)
{
	if (c->lfd >= 0)
		close(c->lfd);
	if (c->outside_dir[0]) {
		unlink(c->outside);
		rmdir(c->outside_dir);
	}
}

/* The checks made, for enforcement.seatbelt.canary. */
static void record(const struct canary *c, struct plan *p)
{
	size_t n = 0;

	if (c->lfd >= 0)
		p->enf.seatbelt.canary[n++] = "loopback_connect";
	if (c->prot[0])
		p->enf.seatbelt.canary[n++] = "protected_create";
	if (c->prot_case[0])
		p->enf.seatbelt.canary[n++] = "protected_create_other_case";
	if (c->outside[0])
		p->enf.seatbelt.canary[n++] = "write_outside";
	p->enf.seatbelt.n_canary = n;
}

/* The canary's argv: sandbox-exec's part of the run's argv up to "--",
 * then bash, the script and its arguments. */
static char **canary_argv(const struct plan *p, struct canary *c, char *script)
{
	size_t k = 0;
	char **argv;

	while (strcmp(p->argv.v[k], "--") != 0)
		k++;
	if (!(argv = calloc(k + 12, sizeof(*argv))))
		return NULL;
	memcpy(argv, p->argv.v, (k + 1) * sizeof(*argv));
	argv[k + 1] = CANARY_BASH;
	argv[k + 2] = "-c";
	argv[k + 3] = script;
	argv[k + 4] = "sandproof-canary";
	argv[k + 5] = c->control;
	argv[k + 6] = c->lfd >= 0 ? c->port : "";
	argv[k + 7] = c->prot;
	argv[k + 8] = c->prot_case;
	argv[k + 9] = c->outside;
	return argv;
}

static int canary_prepare(struct canary *c, struct plan *p, struct setup_error *err)
{
	memset(c, 0, sizeof(*c));
	c->lfd = -1;
	plan_control(c, p);
	plan_protected(c, p);
	plan_outside(c, p);
	return p->req->network == NET_DENY ? plan_loopback(c, err) : 0;
}

int seatbelt_canary(struct plan *p, struct setup_error *err)
{
	char script[sizeof(canary_script)], out[256] = "", detail[300];
	struct canary c;
	char **argv = NULL;
	int rc, status = 0, control;
	bool timed_out = false;

	memcpy(script, canary_script, sizeof(script));
	rc = canary_prepare(&c, p, err);
	if (rc == 0 && !(argv = canary_argv(p, &c, script)))
		rc = seatbelt_fail(err, "canary", NULL, ENOMEM, NULL);
	if (rc == 0)
		rc = seatbelt_run_captured(p, argv, CANARY_MS, out, sizeof(out), &status, &timed_out,
					   err);
	free(argv);
	/* Whatever happened, the host is looked at and the canary's traces
	 * removed before anything is decided. */
	control = rc == 0 ? judge(&c) : 0;
	snprintf(detail, sizeof(detail), "let through under the profile: %s", c.got);
	if (rc == 0 && c.got[0])
		rc = seatbelt_fail(err, "canary", NULL, EPROTO, detail);
	else if (rc == 0 && timed_out)
		rc = seatbelt_fail(err, "canary", NULL, ETIMEDOUT,
				   "the canary did not finish under the profile");
	else if (rc == 0 && (control < 0 || strncmp(out, CANARY_SENTINEL "\n",
						    sizeof(CANARY_SENTINEL)) != 0))
		rc = seatbelt_fail(err, "canary", NULL, EPROTO,
				   "the canary did not do its work under the profile (no "
				   "sentinel, or its allowed write in the write root did not "
				   "land): what it checks cannot be trusted");
	if (rc == 0)
		record(&c, p);
	canary_free(&c);
	return rc;
}
