/* probe_res.c - resource operations of the probe: what the sandbox's limits
 * (LIM-*) must stop.  Each is bounded by its own argument, so that with no
 * sandbox at all (the none runner) it still ends: a fork bomb of at most N
 * children, an allocation of at most BYTES, and so on. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef SANDPROOF_PROBE_LINUX
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#define PROBE_FORK_MAX 100000
#define PROBE_OPEN_MAX 1000000

static int probe_check_count(char **a, long long max, const char *what, char *msg,
			     size_t len)
{
	long long v;

	if (probe_parse_ll(a[0], 1, max, &v) < 0)
		return probe_check_msg(msg, len, "%s must be 1..%lld, not \"%s\"", what, max, a[0]);
	return 0;
}

static int probe_check_forkn(char **a, int n, char *msg, size_t len)
{
	(void)n;
	return probe_check_count(a, PROBE_FORK_MAX, "N", msg, len);
}

/* The children do nothing, hold none of the probe's output, and die with
 * it (PR_SET_PDEATHSIG, re-checked against a parent that died first). */
static void probe_op_forkn(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long want = 0, k = 0;
	pid_t self = getpid();

	(void)ctx, (void)n;
	probe_parse_ll(a[0], 1, PROBE_FORK_MAX, &want);
	for (; k < want; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			probe_res_fail(res, errno, "fork");
			break;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

#ifdef SANDPROOF_PROBE_LINUX
			prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
			if (getppid() != self)
				_exit(0);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			for (;;)
				pause();
		}
	}
	probe_field_int(res, "forked", k);
}

static int probe_check_bytes(char **a, int n, char *msg, size_t len)
{
	long long v;

	if (probe_parse_ll(a[n - 1], 1, 1LL << 40, &v) < 0)
		return probe_check_msg(msg, len, "BYTES must be 1..2^40, not \"%s\"", a[n - 1]);
	return 0;
}

/* Really resident: every page is written. */
static void probe_op_alloc(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long want = 0, done = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	(void)ctx, (void)n;
	probe_parse_ll(a[0], 1, 1LL << 40, &want);
	p = mmap(NULL, (size_t)want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		probe_res_fail(res, errno, "mmap");
	} else {
		for (; done < want; done += page)
			p[done] = 1;
		munmap(p, (size_t)want);
	}
	probe_field_int(res, "bytes", done > want ? want : done);
}

/* Writes BYTES into PATH (created, truncated) until done or an error. */
static void probe_op_fill(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	static char chunk[65536];
	long long want = 0, done = 0;
	int fd = open(a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	(void)ctx, (void)n;
	probe_parse_ll(a[1], 1, 1LL << 40, &want);
	memset(chunk, 'x', sizeof(chunk));
	if (fd < 0) {
		probe_res_fail(res, errno, "open");
	} else {
		while (done < want) {
			size_t len = want - done > (long long)sizeof(chunk) ? sizeof(chunk)
									    : (size_t)(want - done);
			ssize_t w = write(fd, chunk, len);

			if (w <= 0) {
				probe_res_fail(res, w < 0 ? errno : EIO, "write");
				break;
			}
			done += w;
		}
		if (close(fd) < 0 && !res->err)
			probe_res_fail(res, errno, "close");
	}
	probe_field_int(res, "written", done);
}

static int probe_check_openn(char **a, int n, char *msg, size_t len)
{
	(void)n;
	return probe_check_count(a, PROBE_OPEN_MAX, "N", msg, len);
}

/* Opens /dev/null N times, or until an error; then closes them all. */
static void probe_op_openn(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long want = 0, k = 0;
	int *fds;

	(void)ctx, (void)n;
	probe_parse_ll(a[0], 1, PROBE_OPEN_MAX, &want);
	fds = malloc((size_t)want * sizeof(*fds));
	if (!fds) {
		probe_res_fail(res, ENOMEM, "malloc");
		want = 0;
	}
	for (; k < want; k++) {
		fds[k] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fds[k] < 0) {
			probe_res_fail(res, errno, "open");
			break;
		}
	}
	for (long long i = 0; i < k; i++)
		close(fds[i]);
	free(fds);
	probe_field_int(res, "opened", k);
}

static int probe_check_spin(char **a, int n, char *msg, size_t len)
{
	(void)n;
	return probe_check_count(a, 3600000, "MS", msg, len);
}

static long long probe_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Burns MS milliseconds of CPU time; gives up (ETIMEDOUT) after ten times
 * that, plus 10 s, of wall time on a machine too busy to give it. */
static void probe_op_spin(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long want = 0, t0 = probe_ms(CLOCK_MONOTONIC);
	volatile unsigned long x = 0;

	(void)ctx, (void)n;
	probe_parse_ll(a[0], 1, 3600000, &want);
	while (probe_ms(CLOCK_PROCESS_CPUTIME_ID) < want) {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		if (probe_ms(CLOCK_MONOTONIC) - t0 > want * 10 + 10000) {
			probe_res_fail(res, ETIMEDOUT, NULL);
			break;
		}
	}
	probe_field_int(res, "cpu_ms", probe_ms(CLOCK_PROCESS_CPUTIME_ID));
}

const struct probe_op probe_res_ops[] = {
	{"forkn", 1, 2, "N [TAG]", probe_check_forkn, probe_op_forkn},
	{"alloc", 1, 1, "BYTES", probe_check_bytes, probe_op_alloc},
	{"fill", 2, 2, "PATH BYTES", probe_check_bytes, probe_op_fill},
	{"openn", 1, 1, "N", probe_check_openn, probe_op_openn},
	{"spin", 1, 1, "MS", probe_check_spin, probe_op_spin},
	{NULL, 0, 0, NULL, NULL, NULL},
};
