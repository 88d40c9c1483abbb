/* platform.c - the runner seam (sandproof/platform.h) of the posix
 * bring-up platform: an OS with no enforcement backend yet.
 *
 * It fails closed (SETUP-1): platform_prepare refuses every request with
 * the typed setup failure step "unsupported", errno EOPNOTSUPP, detail
 * "unsupported on posix: <what>", so `sandproof-ref run` and `exec` write a
 * sandbox_setup_failure outcome and never start the command; no launch
 * handle ever exists.  `doctor` says the contract cannot be enforced.
 *
 * A port starts here: it replaces platform_prepare and platform_launch
 * with its own enforcement, one requested part after another, and keeps
 * refusing (step "unsupported") whatever it cannot yet enforce. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "names.h"
#include "sandproof/platform.h"

#define POSIX_WHAT "no enforcement backend (filesystem confinement, network deny, " \
		   "process isolation, resource limits)"

static void unsupported(struct setup_error *err)
{
	memset(err, 0, sizeof(*err));
	snprintf(err->step, sizeof(err->step), "unsupported");
	err->err = EOPNOTSUPP;
	snprintf(err->detail, sizeof(err->detail), "unsupported on posix: %s", POSIX_WHAT);
}

int platform_supervisor_init(void)
{
	return 0; /* nothing is ever launched: nothing to supervise */
}

int platform_prepare(const struct request *req, struct plan **out,
		     struct setup_error *err)
{
	(void)req;
	*out = NULL;
	unsupported(err);
	return -EOPNOTSUPP;
}

void platform_plan_free(struct plan *plan)
{
	free(plan); /* always NULL: prepare never makes one */
}

int platform_launch(struct plan *plan, const struct launch_stdio *io,
		    struct launch **out, struct launch_status *st)
{
	(void)plan;
	(void)io;
	*out = NULL;
	memset(st, 0, sizeof(*st));
	st->result = LAUNCH_SETUP_FAILED;
	unsupported(&st->setup);
	return -EOPNOTSUPP;
}

/* No launch handle exists on this platform; these keep the seam's
 * contract for a NULL one. */
pid_t platform_pid(const struct launch *l)
{
	(void)l;
	return -1;
}

int platform_status(struct launch *l, int raw_status)
{
	(void)l;
	return raw_status;
}

int platform_kill_tree(struct launch *l)
{
	(void)l;
	return 0;
}

int platform_pollfds(struct launch *l, struct pollfd *fds, int max)
{
	(void)l;
	(void)fds;
	(void)max;
	return 0;
}

int platform_service(struct launch *l, const struct pollfd *fds, int n,
		     struct denials *d)
{
	(void)l;
	(void)fds;
	(void)n;
	(void)d;
	return 0;
}

void platform_enforcement(const struct plan *plan, struct enforcement *e)
{
	(void)plan;
	memset(e, 0, sizeof(*e));
	e->backend = "none";
}

void platform_limits_observe(struct launch *l, struct limit_report *r)
{
	(void)l;
	memset(r, 0, sizeof(*r));
	r->killed_by = -1;
}

int platform_release(struct launch *l, struct denials *d)
{
	(void)l;
	(void)d;
	return 0;
}

const char *platform_errno_name(int err)
{
	return names_errno(err);
}

const char *platform_signal_name(int sig)
{
	return names_signal(sig, NULL);
}

/* POSIX paths (request_posix_path_rules). */
const struct request_path_rules *platform_path_rules(void)
{
	return NULL;
}

int platform_doctor(FILE *out)
{
	struct utsname u;

	if (uname(&u) == 0)
		fprintf(out, "%-36s %s %s %s\n", "system", u.sysname, u.release, u.machine);
	fprintf(out, "%-36s %u\n", "uid", (unsigned)getuid());
	fprintf(out, "%-36s posix (bring-up: nothing enforced)\n", "platform layer");
	fprintf(out, "%-36s no (unsupported on posix: %s)\n", "enforcement", POSIX_WHAT);
	fprintf(out, "verdict: the contract CANNOT be enforced on this host\n");
	return 1;
}
