/* test_setup.c - SETUP-1 fail closed, by fault injection: sandproof-ref is
 * started under sp_fault, which makes one enforcement step's system call
 * fail, and the outcome must be sandbox_setup_failure naming that step,
 * with the command never run.
 *
 *   test_setup SANDPROOF_REF SP_FAULT
 *
 * The command of every run is `touch MARKER` in the workspace: the host-side
 * oracle is whether MARKER exists afterwards.  Positive controls in the same
 * program: under a fault that touches no setup step (acct) the same request
 * succeeds and leaves the marker, and an ioctl fault on a request other
 * than SIOCSIFFLAGS, or SIOCSIFFLAGS under network=allow (no loopback to
 * bring up), does not stop the run - so each refusal below is caused by the
 * injected fault, not by sp_fault or the request. */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "enforce.h"
#include "t.h"

static const char *ref, *fault;
static struct enf_area A;
static int serial;

struct fault_case {
	const char *syscalls;  /* sp_fault's comma-separated list */
	const char *err;
	const char *arg1;      /* NULL: any arguments */
	const char *network;
	const char *step;      /* expected prefix of setup_error.step; NULL: must succeed */
	const char *why;
};

static const struct fault_case cases[] = {
	{"acct", "EPERM", NULL, "deny", NULL, "control: a syscall no setup step uses"},
	{"ioctl", "EPERM", "0x5401", "deny", NULL, "control: ioctl fault on TCGETS only"},
	{"ioctl", "EPERM", "0x8914", "allow", NULL,
	 "control: SIOCSIFFLAGS fault with network=allow (no loopback to bring up)"},
	{"clone3,clone", "EPERM", NULL, "deny", "clone", "namespaces cannot be created"},
	{"mount_setattr", "EPERM", NULL, "deny", "mount", "mount attributes cannot be set"},
	{"open_tree", "EPERM", NULL, "deny", "mount", "trees cannot be cloned"},
	{"move_mount", "EPERM", NULL, "deny", "mount", "trees cannot be attached"},
	{"pivot_root", "EPERM", NULL, "deny", "pivot_root", "the root cannot be switched"},
	{"capset", "EPERM", NULL, "deny", "capabilities", "capabilities cannot be dropped"},
	{"seccomp", "EPERM", NULL, "deny", "seccomp", "the filter cannot be loaded"},
	{"landlock_create_ruleset", "EPERM", NULL, "deny", "landlock",
	 "Landlock probe/ruleset fails (not ENOSYS: not 'unavailable')"},
	{"landlock_restrict_self", "EPERM", NULL, "deny", "landlock",
	 "the Landlock ruleset cannot be enforced"},
	{"ioctl", "EPERM", "0x8914", "deny", "loopback",
	 "SIOCSIFFLAGS: the private loopback cannot be brought up"},
};

static void run_case(const struct fault_case *c)
{
	char marker[PATH_MAX];
	char *argv[12];
	int n = 0;
	cJSON *req = enf_req_new(A.ws, c->network);
	char *text;
	struct refrun r;
	const char *kind, *step, *err;
	bool ran;

	snprintf(marker, sizeof(marker), "%s/marker-%d", A.ws, serial++);
	enf_write_root(req, A.ws);
	enf_arg(enf_cmd(req), "touch");
	enf_arg(enf_cmd(req), "%s", marker);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	argv[n++] = (char *)fault;
	argv[n++] = (char *)c->syscalls;
	argv[n++] = (char *)c->err;
	if (c->arg1)
		argv[n++] = (char *)c->arg1;
	argv[n++] = "--";
	argv[n++] = (char *)ref;
	argv[n++] = "run";
	argv[n++] = "--request";
	argv[n++] = "-";
	argv[n] = NULL;
	refrun(argv, text, &r, NULL, NULL);
	free(text);
	kind = oc_str(r.outcome, "kind");
	step = oc_str(r.outcome, "setup_error.step");
	err = oc_str(r.outcome, "setup_error.errno");
	ran = enf_lexists(marker);
	if (!c->step) {
		t_ok(strcmp(kind, "success") == 0 && ran,
		     "SETUP-3 %s %s%s%s (%s): the command ran (%s)", c->syscalls, c->err,
		     c->arg1 ? " " : "", c->arg1 ? c->arg1 : "", c->why, kind);
	} else {
		/* seccomp: libseccomp may retry through prctl(PR_SET_SECCOMP)
		 * and report that call's errno, so only the step is fixed. */
		bool err_ok = strcmp(err, c->err) == 0 || strcmp(c->step, "seccomp") == 0;

		t_ok(strcmp(kind, "sandbox_setup_failure") == 0 &&
			     strcmp(oc_str(r.outcome, "state"), "failed") == 0 &&
			     strncmp(step, c->step, strlen(c->step)) == 0 && err_ok && !ran,
		     "SETUP-3 %s %s%s%s (%s): %s, step %s, errno %s, command %s", c->syscalls, c->err,
		     c->arg1 ? " " : "", c->arg1 ? c->arg1 : "", c->why, kind, step, err,
		     ran ? "RAN" : "did not run");
	}
	if (!r.outcome)
		fprintf(stderr, "# no outcome; runner stderr: %s\n", r.err);
	refrun_free(&r);
	unlink(marker);
}

/* A kernel without Landlock (ENOSYS) is not a failure: the mount layer
 * still enforces, and the outcome must say Landlock was not used (OUT-4). */
static void landlock_absent(void)
{
	char marker[PATH_MAX], escape[PATH_MAX], *text;
	char *argv[] = {(char *)fault, "landlock_create_ruleset,landlock_restrict_self", "ENOSYS",
			"--", (char *)ref, "run", "--request", "-", NULL};
	cJSON *req = enf_req_new(A.ws, "deny");
	struct refrun r;

	snprintf(marker, sizeof(marker), "%s/marker-nolandlock", A.ws);
	snprintf(escape, sizeof(escape), "/usr/%s", enf_tag());
	enf_write_root(req, A.ws);
	enf_arg(enf_cmd(req), "sh");
	enf_arg(enf_cmd(req), "-c");
	enf_arg(enf_cmd(req), "touch %s; touch %s", marker, escape);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	refrun(argv, text, &r, NULL, NULL);
	free(text);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "application_failure") == 0 &&
		     enf_lexists(marker) && !enf_lexists(escape) &&
		     oc_num(r.outcome, "enforcement.landlock_abi") == 0,
	     "FS-6 Landlock ENOSYS: runs on the mount layer alone (workspace write lands, a write "
	     "to /usr does not), landlock_abi reported as %g (%s)",
	     oc_num(r.outcome, "enforcement.landlock_abi"), oc_str(r.outcome, "kind"));
	refrun_free(&r);
	unlink(marker);
	if (enf_lexists(escape))
		unlink(escape); /* a broken runner let it through: do not leave it */
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_setup SANDPROOF_REF SP_FAULT\n");
		return 2;
	}
	ref = argv[1];
	fault = argv[2];
	if (enf_area_new(&A, "/tmp", NULL) < 0) {
		fprintf(stderr, "cannot create an area under /tmp\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	landlock_absent();
	enf_area_free(&A);
	return t_done();
}
