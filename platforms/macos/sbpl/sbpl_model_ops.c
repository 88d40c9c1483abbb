/* sbpl_model_ops.c - the Seatbelt operations the model knows, and their
 * hierarchy (MODEL.md, "operations").
 *
 * Each operation names its parent: the wildcard whose rules apply to it
 * when its own do not decide (file-write-unlink -> file-write* -> file* ->
 * default).  An operation missing here is refused at parse time and in a
 * query: the model never guesses what an unknown name covers. */
#include <string.h>

#include "sbpl_model_int.h"

struct op {
	const char *name;
	const char *parent; /* NULL: default itself */
};

static const struct op ops[] = {
	{"default", NULL},
	{"file*", "default"},
	{"file-read*", "file*"},
	{"file-read-data", "file-read*"},
	{"file-read-metadata", "file-read*"},
	{"file-read-xattr", "file-read*"},
	{"file-write*", "file*"},
	{"file-write-data", "file-write*"},
	{"file-write-create", "file-write*"},
	{"file-write-unlink", "file-write*"},
	{"file-write-mode", "file-write*"},
	{"file-write-owner", "file-write*"},
	{"file-write-xattr", "file-write*"},
	{"file-write-flags", "file-write*"},
	{"file-write-times", "file-write*"},
	{"file-write-setugid", "file-write*"},
	{"file-ioctl", "file*"},
	/* No source read gives these three a parent: each gets the wider
	 * one, whose allowances profiles write (a hard link and a clone make
	 * a file; an executable mapping reads one), so the model can only
	 * see more allowed than Seatbelt does, never less. */
	{"file-link", "file-write*"},
	{"file-clone", "file-write*"},
	{"file-map-executable", "file-read*"},
	{"network*", "default"},
	{"network-outbound", "network*"},
	{"network-inbound", "network*"},
	{"network-bind", "network*"},
	{"mach*", "default"},
	{"mach-lookup", "mach*"},
	{"mach-register", "mach*"},
	{"mach-priv*", "mach*"},
	{"mach-priv-task-port", "mach-priv*"},
	/* setting the host's special and exception ports (root's): the
	 * operations under mach-host* (peers that grant it: issue 33) */
	{"mach-host*", "mach*"},
	{"mach-host-special-port-set", "mach-host*"},
	{"mach-host-exception-port-set", "mach-host*"},
	{"process*", "default"},
	{"process-exec*", "process*"},
	{"process-exec", "process-exec*"},
	{"process-fork", "process*"},
	{"process-info*", "default"},
	{"process-info-pidinfo", "process-info*"},
	{"process-info-pidfdinfo", "process-info*"},
	{"process-info-listpids", "process-info*"},
	{"process-info-setcontrol", "process-info*"},
	{"process-info-dirtycontrol", "process-info*"},
	{"process-info-rusage", "process-info*"},
	{"process-info-codesignature", "process-info*"},
	{"signal", "default"},
	{"distributed-notification-post", "default"},
	{"sysctl*", "default"},
	{"sysctl-read", "sysctl*"},
	{"sysctl-write", "sysctl*"},
	{"ipc*", "default"},
	{"ipc-posix*", "ipc*"},
	{"ipc-posix-shm*", "ipc-posix*"},
	{"ipc-posix-shm-read*", "ipc-posix-shm*"},
	{"ipc-posix-shm-read-data", "ipc-posix-shm-read*"},
	{"ipc-posix-shm-read-metadata", "ipc-posix-shm-read*"},
	{"ipc-posix-shm-write-data", "ipc-posix-shm*"},
	{"ipc-posix-shm-write-create", "ipc-posix-shm*"},
	{"ipc-posix-shm-write-unlink", "ipc-posix-shm*"},
	{"ipc-posix-sem", "ipc-posix*"},
	{"ipc-sysv*", "ipc*"},
	{"iokit*", "default"},
	{"iokit-open", "iokit*"},
	{"iokit-get-properties", "iokit*"},
	{"pseudo-tty", "default"},
	{"system*", "default"},
	{"system-socket", "system*"},
	{"user-preference*", "default"},
	{"user-preference-read", "user-preference*"},
	{"user-preference-write", "user-preference*"},
};

#define N_OPS (sizeof(ops) / sizeof(ops[0]))

/* Names the peers write for a wildcard above (sandbox-runtime's
 * (allow ipc-posix-shm)): read as that wildcard. */
static const struct op aliases[] = {
	{"ipc-posix-shm", "ipc-posix-shm*"},
};

int sbpl_model_op_find(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
		if (!strcmp(aliases[k].name, name))
			name = aliases[k].parent;

	for (k = 0; k < N_OPS; k++)
		if (!strcmp(ops[k].name, name))
			return (int)k;
	return -1;
}

/* The parent of op, or -1 for default. */
int sbpl_model_op_parent(int op)
{
	if (op < 0 || (size_t)op >= N_OPS || !ops[op].parent)
		return -1;
	return sbpl_model_op_find(ops[op].parent);
}
