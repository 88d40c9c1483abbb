/* probe.h - sandproof-probe: the in-sandbox probe (see README.md).
 *
 * The probe is an attacker with a reporting channel: it runs inside the
 * sandbox under test, performs the operations listed on its command line and
 * prints one JSON line per operation.  It depends on libc only (it is linked
 * statically when libc.a exists, so it never uses NSS or getaddrinfo) and
 * writes with write(2) only: no stdio buffer exists that a fork could
 * duplicate or a kill could lose.
 *
 * Module layout: probe.c (the POSIX main: its operation tables and its
 * process hooks), probe_args.c (the portable command line: validation,
 * dispatch, and the argument parsers shared by validation and execution),
 * probe_out.c (JSON lines, errno names), probe_fs.c, probe_mount.c,
 * probe_net.c, probe_priv.c, probe_proc.c, probe_res.c, probe_darwin.c (the
 * operations, one table each).  probe_args.c and probe_out.c are portable
 * C: the Windows probe (platforms/windows/probe/) compiles them with its own
 * main, tables and hooks. */
#ifndef SANDPROOF_PROBE_H
#define SANDPROOF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROBE_VERSION 1
#define PROBE_DATA_MAX 4096      /* bytes of file data / env value reported */
#define PROBE_EXTRA_MAX 49152    /* op-specific fields of one line */
#define PROBE_ECHO_MAX 16        /* listen_echo servers per probe */

/* The result of one operation.  err is 0 when the operation succeeded, else
 * the positive errno of the step that failed; step names that step for
 * operations made of several syscalls ("socket", "connect", ...).  extra
 * holds op-specific fields, each starting with a comma. */
struct probe_res {
	int err;
	const char *err_name; /* when set, printed as "errno" instead of the
			       * name of err: a platform whose failures are
			       * not errno values (Windows) names the nearest */
	const char *step;
	char extra[PROBE_EXTRA_MAX];
	size_t len;
	bool overflow; /* a field did not fit and was left out whole */
	bool emitted;  /* the operation printed its line itself */
};

/* State shared by the operations of one probe run. */
struct probe_ctx {
	pid_t echo[PROBE_ECHO_MAX]; /* listen_echo servers, killed at exit */
	int n_echo;
	int index;                  /* index of the running operation */
	int ncalls;                 /* operations on the command line */
	int next;                   /* set by an operation: the index to go on
				     * at (group's parent skips its ops) */
	int group_end;              /* in a group's child: the index it stops
				     * before (0: not in a group) */
};

/* check validates arguments before any operation runs: it returns 0, or -1
 * after writing a message into msg.  run performs the operation; it never
 * exits (except the exit and signal operations) and reports through res. */
typedef int (*probe_check_fn)(char **args, int n, char *msg, size_t msglen);
typedef void (*probe_run_fn)(struct probe_ctx *ctx, char **args, int n,
			     struct probe_res *res);

struct probe_op {
	const char *name;
	int min_args, max_args;
	const char *usage; /* argument synopsis for error messages */
	probe_check_fn check; /* NULL: any arguments accepted */
	probe_run_fn run;
};

/* An operation only the linux platform's probe has (SANDPROOF_PROBE_LINUX,
 * set by the build): elsewhere its table entry keeps its name and
 * arguments and runs probe_op_unsupported, a typed answer - ok false,
 * errno EOPNOTSUPP, step "unsupported_op", "unsupported": true - never a
 * usage error and never a guess. */
#ifdef SANDPROOF_PROBE_LINUX
#define PROBE_LINUX_OP(fn) fn
#else
#define PROBE_LINUX_OP(fn) probe_op_unsupported
#endif
void probe_op_unsupported(struct probe_ctx *ctx, char **args, int n,
			  struct probe_res *res);

/* Operation tables, each terminated by an entry with name NULL. */
extern const struct probe_op probe_fs_ops[];
extern const struct probe_op probe_mount_ops[];
extern const struct probe_op probe_net_ops[];
extern const struct probe_op probe_open_ops[];
extern const struct probe_op probe_priv_ops[];
extern const struct probe_op probe_proc_ops[];
extern const struct probe_op probe_res_ops[];
extern const struct probe_op probe_darwin_ops[]; /* macOS only: elsewhere unsupported */

/* probe_proc.c (POSIX) */
int probe_signal_number(const char *name); /* -1 when unknown */

/* probe_out.c */
void probe_res_fail(struct probe_res *res, int err, const char *step);
void probe_field_str(struct probe_res *res, const char *key, const char *s,
		     size_t n);
void probe_field_cstr(struct probe_res *res, const char *key, const char *s);
void probe_field_int(struct probe_res *res, const char *key, long long v);
void probe_field_bool(struct probe_res *res, const char *key, bool v);
void probe_field_null(struct probe_res *res, const char *key);
void probe_field_errno(struct probe_res *res, const char *key, int err);
int probe_write_all(int fd, const void *buf, size_t n); /* 0 / -errno */
void probe_emit(int i, const char *op, const struct probe_res *res);
void probe_emit_sentinel(void);

/* probe_args.c: parsers return 0 or -EINVAL and never print. */
int probe_parse_ll(const char *s, long long min, long long max,
		   long long *out);
int probe_check_msg(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* probe_args.c: the index a `group` of n operations at ctx->index ends
 * before (the end of the list or of an enclosing group at the most). */
int probe_group_end(const struct probe_ctx *ctx, long long n);

/* probe_args.c: the whole command line (see probe.c): validates every
 * operation against the tables, calls probe_os_begin, prints the sentinel,
 * runs the operations in order and returns the exit status (0, or 2 for a
 * usage error detected before anything ran or was printed on stdout). */
int probe_cli_main(int argc, char **argv, const struct probe_op *const *tables,
		   size_t ntables);

/* Each OS's main file (probe.c; platforms/windows/probe/wprobe_main.c):
 * probe_os_begin runs once after validation, before the sentinel;
 * probe_reap_echo forgets and reaps every listen_echo server (used by exit
 * and at the end). */
void probe_os_begin(void);
void probe_reap_echo(struct probe_ctx *ctx);

#endif
