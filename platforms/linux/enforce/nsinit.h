/* nsinit.h - the sandbox's side of a Linux launch.
 *
 * The runner clones one process into new user, mount, pid, ipc (and for
 * network deny, network) namespaces.  That process is pid 1 of the sandbox:
 * it waits for its uid/gid maps, brings loopback up, builds the filesystem
 * view, then forks the command and stays as a reaper that forwards signals
 * and, when the command ends, kills everything else in the namespace and
 * hands the command's wait status to the runner.  The command's process
 * applies the per-process confinement last, in this order: no_new_privs,
 * Landlock, capability drop, seccomp, execve. */
#ifndef SANDPROOF_NSINIT_H
#define SANDPROOF_NSINIT_H

#include <stdbool.h>
#include <stdint.h>

#include "limits_plan.h"
#include "mounts.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"

struct nsinit {
	const struct request *req;
	const struct mplan *mounts;
	char **envp;           /* the request's env plus the SANDPROOF_* markers */
	bool net_deny;
	int landlock_abi;      /* 0: Landlock not applied */
	bool seccomp_notify;   /* ask for user notification (typed denials) */
	const struct limits_plan *limits; /* rlimits set last before execve */
	int sync_fd;           /* read end: one byte once the maps are written */
	int report_fd;         /* spawn report, close-on-exec */
	int sock_fd;           /* sends the seccomp listener to the runner */
	int status_fd;         /* pid 1 writes the command's wait status here */
	struct launch_stdio io;
};

/* What pid 1 writes to status_fd once the command ended: its wait status
 * and its own CPU time (for LIM-6; UINT64_MAX when unknown). */
struct nsinit_status {
	int status;
	uint64_t cpu_ms;
};

_Noreturn void nsinit_run(const struct nsinit *a);

#endif
