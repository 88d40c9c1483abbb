/* prims.h - the primitives seam: what the harness asks of an OS beyond its
 * process, race, lab and census primitives (proc.h, swap.h, lab.h,
 * census.h, tmpdir.h): the OS's name, its errno and signal names, the facts
 * a run's fingerprint records, and why a primitive is missing.
 *
 * A primitive an OS lacks is never a crash or a silent pass: its functions
 * return -EOPNOTSUPP and prims_lacks() names the reason, which the harness
 * turns into the verdict "unsupported on <os>: <reason>". */
#ifndef SANDPROOF_PRIMS_H
#define SANDPROOF_PRIMS_H

/* The running program's own executable, for re-running it (the harness
 * starts each scenario process as `sandproof __scenario ...`, never by
 * fork alone, so the same model runs where there is no fork).
 * prims_self_exe_init(argv0) is called once, first, in main: where the OS
 * cannot name the executable (posix) argv[0] is resolved then, as a path
 * or through PATH, before anything changes the working directory.
 * prims_self_exe() is an absolute path, or NULL when it is not known. */
void prims_self_exe_init(const char *argv0);
const char *prims_self_exe(void);

/* "linux", "posix", ...: the OS tag results are recorded under. */
const char *prims_os_name(void);

/* This OS's names (the platform's one table): "EACCES", "ERRNO_<n>" for a
 * value without a name; "SIGKILL", "SIG<n>".  Never NULL; valid until the
 * next call in the same thread. */
const char *prims_errno_name(int err);
const char *prims_signal_name(int sig);
/* The value of an errno name, or -1. */
int prims_errno_value(const char *name);
/* The number of a signal name ("SIGTERM"; "TERM" too), or -1. */
int prims_signal_value(const char *name);

/* The primitives a scenario may ask for, by name: "hold", "fault", "swap",
 * "swapper", "lab", "census", "private_mounts", "casefold_volume" (cfvol.h;
 * on Linux whether this host can make one is known only when it is made:
 * root, /dev/fuse, the exFAT tools).  NULL when this OS has it,
 * else the reason it has not ("no seccomp user notification in this
 * kernel").  Unknown names come back with a reason too. */
const char *prims_lacks(const char *primitive);

/* Where the harness makes scenario temp directories (sp.temp_roots),
 * spelled canonically, as a policy names them: visible 0, the one a
 * sandbox may hide (Linux replaces /tmp with the sandbox's own); 1, one
 * that stays in the sandbox's read-only view of the host (/var/tmp). */
const char *prims_temp_root(int visible);

/* The run's fingerprint facts of this host, beyond what every POSIX system
 * tells (uname, user): each as a key and its value, given as text and to be
 * recorded as the kind says.  Linux: the sysctls that gate user namespaces,
 * the Landlock ABI, seccomp user notification. */
enum prims_fact_kind { PRIMS_FACT_TEXT, PRIMS_FACT_NUMBER, PRIMS_FACT_BOOL };
typedef void (*prims_fact_fn)(void *ctx, const char *key, const char *value,
			      enum prims_fact_kind kind);
void prims_host_facts(prims_fact_fn emit, void *ctx);

/* The interrupt of the harness (Ctrl-C, a termination request):
 * prims_interrupt_install() makes SIGINT, SIGTERM and SIGHUP (POSIX) or
 * the console's Ctrl-C, Ctrl-Break, close, logoff and shutdown events
 * (Windows) only record that they came, 0 or -errno; prims_interrupted()
 * is the signal number recorded (Windows: SIGINT for Ctrl-C, SIGBREAK for
 * Ctrl-Break, SIGTERM for the others), 0 when none came.  The caller polls
 * it between slices of its waiting; nothing is interrupted mid-call. */
int prims_interrupt_install(void);
int prims_interrupted(void);

#endif
