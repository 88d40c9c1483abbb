/* doctor.c - what this host supports, for `sandproof-ref doctor`
 * (SETUP-4), on the macOS platform layer.
 *
 * Checked by doing it: sandbox-exec must exist, be executable, and apply
 * a deny-default profile (the same preflight every run makes).  The OS
 * version is reported, not trusted.  Nothing here depends on SIP.  In the
 * posix-sim the verdict is always "cannot": its sandbox-exec confines
 * nothing, so no contract is enforced, whatever the plumbing shows. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif

#include "seatbelt.h"

#define ROW "%-36s "

/* The preflight of a minimal deny-default profile. */
static int try_profile(char *why, size_t len)
{
	struct request req;
	struct plan p;
	struct setup_error err;
	int rc;

	memset(&req, 0, sizeof(req));
	memset(&p, 0, sizeof(p));
	req.cwd = (char *)"/";
	p.req = &req;
	rc = strv_push(&p.argv, SP_SANDBOX_EXEC);
	if (rc == 0)
		rc = strv_push(&p.argv, "-p");
	if (rc == 0)
		rc = strv_push(&p.argv, "(version 1)(deny default)");
	if (rc == 0)
		rc = strv_push(&p.argv, "--");
	if (rc == 0)
		rc = strv_push(&p.argv, "/nonexistent");
	if (rc == 0)
		rc = strv_push(&p.envp, "PATH=/usr/bin:/bin");
	if (rc == 0)
		rc = seatbelt_preflight(&p, &err);
	else
		snprintf(err.detail, sizeof(err.detail), "out of memory");
	if (rc < 0)
		snprintf(why, len, "%s: %s", err.step, err.detail);
	strv_free(&p.argv);
	strv_free(&p.envp);
	return rc;
}

static void os_version(FILE *out)
{
	struct utsname u;

	if (uname(&u) == 0)
		fprintf(out, ROW "%s %s %s\n", "system", u.sysname, u.release, u.machine);
#ifdef __APPLE__
	{
		char v[64];
		size_t n = sizeof(v);

		if (sysctlbyname("kern.osproductversion", v, &n, NULL, 0) == 0)
			fprintf(out, ROW "%.*s\n", "macOS version", (int)n, v);
		else
			fprintf(out, ROW "unknown (%s)\n", "macOS version", strerror(errno));
	}
#endif
}

/* POSIX paths (request_posix_path_rules). */
const struct request_path_rules *platform_path_rules(void)
{
	return NULL;
}

int platform_doctor(FILE *out)
{
	char why[400] = "";
	bool exe = access(SP_SANDBOX_EXEC, X_OK) == 0;
	int applied;

	os_version(out);
	fprintf(out, ROW "%u\n", "uid", (unsigned)getuid());
	fprintf(out, ROW "macos (%s)\n", "platform layer", SEATBELT_BACKEND);
	fprintf(out, ROW "%s (%s)\n", "sandbox-exec", exe ? "executable" : "MISSING",
		SP_SANDBOX_EXEC);
	applied = exe ? try_profile(why, sizeof(why)) : -ENOENT;
	fprintf(out, ROW "%s%s%s\n", "deny-default profile applied", applied == 0 ? "yes" : "no",
		applied == 0 ? "" : " - ", applied == 0 ? "" : why);
	fprintf(out, ROW "%s\n", "denials", access("/usr/bin/log", X_OK) == 0 ?
		"from the unified log after each run (best effort)" :
		"unavailable (no /usr/bin/log)");
#ifdef __APPLE__
	if (exe && applied == 0) {
		fprintf(out, "verdict: the contract can be enforced on this host (Seatbelt)\n");
		return 0;
	}
	fprintf(out, "verdict: the contract CANNOT be enforced on this host\n");
	return 1;
#else
	fprintf(out, ROW "a SIMULATION: %s runs commands unconfined\n", "posix-sim",
		SP_SANDBOX_EXEC);
	fprintf(out, "verdict: the contract CANNOT be enforced on this host "
		"(posix-sim: a simulation enforces nothing)\n");
	return 1;
#endif
}
