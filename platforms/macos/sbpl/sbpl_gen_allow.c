/* sbpl_gen_allow.c - what everyday commands need, and nothing more
 * (issue 33, section 2; platforms/macos/README.md, "Everyday commands").
 *
 * Each allowance says what needs it and the clause it stays within; what
 * the peers grant but this profile refuses, because it would widen what
 * the contract forbids, is named in the README with its reason:
 *   (allow sysctl-read) unfiltered   other processes' arguments and
 *                                    environment (KERN_PROCARGS2): PROC-9
 *   (allow mach-host*)               it covers setting the host's special
 *                                    and exception ports: PRIV
 *   ioctl on any terminal as root    XNU lets root's TIOCSTI reach a
 *                                    terminal it holds open: PRIV-4
 *   the preferences daemon when a    cfprefsd would read for the command
 *   deny_read covers preferences,    what the file rules hide: FS-3, FS-1
 *   or reads are restricted          (its read roots)
 *   sysctl-write, iokit, launch      nothing everyday needs them
 *   services, the pasteboard */
#include <stdio.h>
#include <string.h>

#include "sbpl_gen_int.h"

/* sysctl-read, by name: what libc (uname, sysconf, malloc), the shells,
 * git (online_cpus), Python (os.cpu_count, platform) and Node (os.cpus,
 * os.totalmem, os.uptime, os.loadavg, os.release) read.  Everything else
 * is left to (deny default). */
static const char *const sysctl_names[] = {
	"hw.activecpu", "hw.byteorder", "hw.cachelinesize", "hw.cachelinesize_compat",
	"hw.cacheconfig", "hw.cpufamily", "hw.cpufrequency", "hw.cpufrequency_compat",
	"hw.cpufrequency_max", "hw.cpusubtype", "hw.cputype", "hw.busfrequency_compat",
	"hw.l1dcachesize", "hw.l1dcachesize_compat", "hw.l1icachesize",
	"hw.l1icachesize_compat", "hw.l2cachesize", "hw.l2cachesize_compat", "hw.l3cachesize",
	"hw.l3cachesize_compat", "hw.logicalcpu", "hw.logicalcpu_max", "hw.machine",
	"hw.memsize", "hw.model", "hw.ncpu", "hw.nperflevels", "hw.packages", "hw.pagesize",
	"hw.pagesize_compat", "hw.physicalcpu", "hw.physicalcpu_max", "hw.tbfrequency_compat",
	"hw.vectorunit", "kern.argmax", "kern.boottime", "kern.hostname", "kern.maxfiles",
	"kern.maxfilesperproc", "kern.maxproc", "kern.ngroups", "kern.osproductversion",
	"kern.osproductversioncompat", "kern.osrelease", "kern.ostype", "kern.osvariant_status",
	"kern.osversion", "kern.secure_kernel", "kern.tcsm_available", "kern.tcsm_enable",
	"kern.usrstack64", "kern.version", "security.mac.lockdown_mode_state",
	"sysctl.proc_cputype", "sysctl.proc_native", "sysctl.proc_translated", "vm.loadavg",
	NULL,
};

/* CPU features and performance levels, the CPU's brand, the routing
 * table's interface list (getifaddrs). */
static const char *const sysctl_prefixes[] = {
	"hw.optional.", "hw.perflevel", "machdep.cpu.", "net.routetable.", NULL,
};

/* Never, whatever an allowance above might match later: other processes'
 * arguments and environment, and their process table entries (ps), which
 * process-info* already keeps to this sandbox (PROC-9: its processes are
 * its own).  A process's own entry goes with them: kern.proc.pid.<self>. */
static const char *const sysctl_denied_names[] = {"kern.procargs", "kern.procargs2", NULL};
static const char *const sysctl_denied_prefixes[] = {"kern.proc.", "kern.procargs", NULL};

/* Preferences through cfprefsd (CFPreferences, NSUserDefaults): read-only. */
static const char *const mach_prefs[] = {
	"com.apple.cfprefsd.daemon", "com.apple.cfprefsd.agent", NULL,
};

static void emit_sysctl_list(struct sbpl_gen *g, const char *const names[],
			     const char *const prefixes[])
{
	for (size_t i = 0; names[i]; i++) {
		sbpl_buf_add(&g->b, "\n  (sysctl-name ");
		sbpl_buf_quoted(&g->b, names[i]);
		sbpl_buf_add(&g->b, ")");
	}
	for (size_t i = 0; prefixes[i]; i++) {
		sbpl_buf_add(&g->b, "\n  (sysctl-name-prefix ");
		sbpl_buf_quoted(&g->b, prefixes[i]);
		sbpl_buf_add(&g->b, ")");
	}
}

static void emit_sysctls(struct sbpl_gen *g)
{
	sbpl_buf_add(&g->b,
		"\n;; sysctls: what libc, the shells, git, Python and Node read, by\n"
		";; name; nothing else (no other process's arguments, PROC-9)\n"
		"(allow sysctl-read");
	emit_sysctl_list(g, sysctl_names, sysctl_prefixes);
	sbpl_buf_add(&g->b, ")\n");
}

/* Preferences, only when reading them cannot reveal what the file rules
 * hide (sbpl_plan.c decides: plan->prefs). */
static void emit_prefs(struct sbpl_gen *g)
{
	if (!g->pl->prefs)
		return;
	sbpl_buf_add(&g->b,
		"\n;; preferences (CFPreferences) through cfprefsd, read-only: the\n"
		";; reads are unrestricted and no deny_read covers a Preferences\n"
		";; directory, so it reveals nothing the file rules hide\n"
		"(allow user-preference-read)\n"
		"(allow ipc-posix-shm-read* (ipc-posix-name-prefix \"apple.cfprefs.\"))\n"
		"(allow mach-lookup");
	sbpl_gen_names(g, mach_prefs);
}

/* POSIX semaphores and pseudo-terminals. */
static void emit_ipc_tty(struct sbpl_gen *g)
{
	sbpl_buf_add(&g->b,
		"\n;; POSIX semaphores: Python's multiprocessing (SemLock); named\n"
		";; semaphores are the host's, not a namespace's (README: exposure)\n"
		"(allow ipc-posix-sem)\n"
		"\n;; pseudo-terminals (openpty, script, a shell under a pty): /dev/ptmx,\n"
		";; and the data of a terminal made in this sandbox (the pty\n"
		";; extension), never of another terminal of the host\n"
		"(allow pseudo-tty)\n"
		"(allow file-read* file-write-data file-ioctl (literal \"/dev/ptmx\"))\n"
		"(allow file-read* file-write-data\n"
		"  (require-all (regex #\"^/dev/ttys[0-9]+$\") (extension \"com.apple.sandbox.pty\")))\n");
	if (g->pl->terminal_ioctl)
		sbpl_buf_add(&g->b,
			";; ioctls on a terminal (an inherited one: isatty, the window\n"
			";; size, raw mode); the runner is not root, so no TIOCSTI of\n"
			";; another session reaches it (PRIV-4)\n"
			"(allow file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n");
}

void sbpl_gen_everyday(struct sbpl_gen *g)
{
	emit_sysctls(g);
	emit_prefs(g);
	emit_ipc_tty(g);
}

void sbpl_gen_everyday_denies(struct sbpl_gen *g)
{
	sbpl_buf_add(&g->b,
		"\n;; never: other processes' arguments, environment and process\n"
		";; table entries (PROC-9), whatever an allowance matches\n"
		"(deny sysctl-read");
	emit_sysctl_list(g, sysctl_denied_names, sysctl_denied_prefixes);
	sbpl_gen_deny_end(g);
	/* A terminal's data is the sandbox's only when the sandbox made it:
	 * another terminal of the host (the user's shell) is neither read
	 * (its keystrokes) nor written, even when every file is readable; an
	 * inherited one is used through descriptors already open. */
	sbpl_buf_add(&g->b,
		"\n;; the host's other terminals: neither read nor written\n"
		"(deny file-read-data file-write-data\n"
		"  (require-all (regex #\"^/dev/ttys[0-9]+$\")\n"
		"    (require-not (extension \"com.apple.sandbox.pty\")))");
	sbpl_gen_deny_end(g);
}
