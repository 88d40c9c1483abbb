/* sp_fault.c - the fault injector of the SETUP tests, a command-line front
 * of the launcher's fault (proc_run, sandproof/proc.h): one implementation
 * for the harness's t:fault and for these tests.
 *
 *   sp_fault SYSCALL[,SYSCALL...] ERRNO [ARG1] -- CMD [ARG...]
 *
 * Runs CMD under a seccomp filter (default: allow) under which each named
 * system call fails with ERRNO (a name such as EPERM, or a number
 * 1..4095), no_new_privs set; every process CMD starts inherits it.  With
 * ARG1 the rule matches only when the call's second argument equals ARG1
 * compared as 32 bits (ioctl requests: the kernel reads them as an
 * unsigned int, so the high half is ignored here too).  A syscall is a
 * name libseccomp knows, or the number of one.
 *
 * How CMD runs is proc_run's launch: a child of sp_fault, in a session of
 * its own, searched in PATH as execvp does; its stdin is what sp_fault
 * read from its own stdin to the end; its stdout and stderr are captured
 * (SP_FAULT_OUT_MAX bytes each) and written to sp_fault's own once it has
 * ended; it dies with sp_fault (parent-death signal); no timeout.
 *
 * Exit status: 2 usage error; 1 an unknown syscall, the filter could not
 * be set up, CMD could not be executed (nothing ran under a partial
 * filter), or its output was cut at the bound; otherwise CMD's own, and
 * when CMD was killed by a signal, sp_fault kills itself with the same
 * signal. */
#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandproof/prims.h"
#include "sandproof/proc.h"

#define SP_FAULT_OUT_MAX (256u << 20)
#define SP_FAULT_MAX_SYSCALLS 64

static int sp_fault_usage(const char *msg)
{
	fprintf(stderr, "sp_fault: %s\n"
			"usage: sp_fault SYSCALL[,SYSCALL...] ERRNO [ARG1] -- CMD [ARG...]\n",
		msg);
	return 2;
}

/* Decimal, or hex with 0x; -1 on junk or out of [0, max]. */
static long long sp_fault_number(const char *s, long long max)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < 0 || v > max)
		return -1;
	return v;
}

/* An errno name of this OS's one table, or a number; -1 when neither. */
static int sp_fault_errno(const char *s)
{
	int v = prims_errno_value(s);

	return v > 0 ? v : (int)sp_fault_number(s, 4095);
}

/* The comma-separated list as syscall names, in place into names[]
 * (NULL-terminated); a number becomes its name, malloc'd into owned[]
 * (NULL-terminated too).  0, 1 for an unknown syscall or 2 for a usage
 * error, after saying so. */
static int sp_fault_syscalls(char *list, char *names[SP_FAULT_MAX_SYSCALLS + 1],
			     char *owned[SP_FAULT_MAX_SYSCALLS + 1])
{
	char *save = NULL;
	size_t n = 0, k = 0;

	for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		long long nr = sp_fault_number(s, INT_MAX);
		char *name = s;

		if (n == SP_FAULT_MAX_SYSCALLS)
			return sp_fault_usage("too many syscalls");
		if (nr >= 0 && (name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
									(int)nr)))
			owned[k++] = name;
		if (!name || seccomp_syscall_resolve_name(name) < 0) {
			owned[k] = NULL;
			fprintf(stderr, "sp_fault: unknown syscall \"%s\"\n", s);
			return 1;
		}
		names[n++] = name;
	}
	names[n] = NULL;
	owned[k] = NULL;
	return n ? 0 : sp_fault_usage("no syscall");
}

/* All of stdin, malloc'd (NULL with *len 0 when there is none). */
static char *sp_fault_stdin(size_t *len)
{
	size_t cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;

	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		n = read(0, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	return buf;
}

static void sp_fault_write(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Pass CMD's result on as sp_fault's own (exit status in the header). */
static int sp_fault_finish(const struct proc_result *r, const char *cmd)
{
	sp_fault_write(1, r->out, r->out_len);
	sp_fault_write(2, r->err, r->err_len);
	if (r->setup_err) {
		fprintf(stderr, "sp_fault: %s: %s\n",
			strcmp(r->setup_step, "exec") == 0 ? cmd : r->setup_step,
			strerror(r->setup_err));
		return 1;
	}
	if (r->out_truncated || r->err_truncated) {
		fprintf(stderr, "sp_fault: %s: output past %u bytes was dropped\n", cmd,
			SP_FAULT_OUT_MAX);
		return 1;
	}
	if (r->exited)
		return r->exit_code;
	if (r->term_signal > 0) {
		sigset_t one;

		signal(r->term_signal, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, r->term_signal);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(r->term_signal);
	}
	return 128 + r->term_signal;
}

/* Parse the command line into o (names and owned: as sp_fault_syscalls
 * says).  0, or the exit status of a usage error. */
static int sp_fault_parse(int argc, char **argv, struct proc_opts *o,
			  char *names[SP_FAULT_MAX_SYSCALLS + 1],
			  char *owned[SP_FAULT_MAX_SYSCALLS + 1])
{
	long long arg1 = 0;
	int dash = 0, rc;

	owned[0] = NULL;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dash = i;
			break;
		}
	if (dash != 3 && dash != 4)
		return sp_fault_usage("expected SYSCALL ERRNO [ARG1] --");
	if (dash + 1 >= argc)
		return sp_fault_usage("no command");
	if ((rc = sp_fault_syscalls(argv[1], names, owned)) != 0)
		return rc;
	proc_opts_init(o);
	o->fault_errno = sp_fault_errno(argv[2]);
	if (o->fault_errno <= 0)
		return sp_fault_usage("ERRNO must be a known name or 1..4095");
	if (dash == 4 && (arg1 = sp_fault_number(argv[3], 0xffffffffLL)) < 0)
		return sp_fault_usage("ARG1 must be a 32-bit number");
	o->argv = &argv[dash + 1];
	o->fault_syscall = names[0];
	o->fault_more_syscalls = (const char *const *)&names[1];
	o->fault_arg1_set = dash == 4;
	o->fault_arg1 = (uint64_t)arg1;
	o->timeout_ms = INT_MAX; /* none, in effect: the caller bounds the run */
	o->out_limit = SP_FAULT_OUT_MAX;
	return 0;
}

int main(int argc, char **argv)
{
	char *names[SP_FAULT_MAX_SYSCALLS + 1], *owned[SP_FAULT_MAX_SYSCALLS + 1];
	struct proc_opts o;
	struct proc_result r;
	int rc = sp_fault_parse(argc, argv, &o, names, owned);

	if (rc == 0) {
		o.stdin_data = sp_fault_stdin(&o.stdin_len);
		rc = proc_run(&o, &r);
		if (rc < 0)
			fprintf(stderr, "sp_fault: cannot install the filter: %s\n",
				strerror(-rc));
		rc = rc < 0 ? 1 : sp_fault_finish(&r, o.argv[0]);
		proc_result_free(&r);
		free((void *)o.stdin_data);
	}
	for (size_t i = 0; owned[i]; i++)
		free(owned[i]);
	return rc;
}
