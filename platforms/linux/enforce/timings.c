/* timings.c - see timings.h. */
#include "timings.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TM_MAX 96

struct tm_entry {
	uint64_t ns;
	const char *label; /* same address in every process: fork copies */
	int pid;           /* 0 runner, 1 pid 1, 2 command */
};

struct tm_table {
	atomic_uint n;
	atomic_uint dropped;
	struct tm_entry e[TM_MAX];
};

static struct tm_table *tm; /* NULL: timings off */
static int tm_runner_pid;

void tm_init(void)
{
	const char *v = getenv("SANDPROOF_REF_TIMINGS");
	void *p;

	if (tm || !v || strcmp(v, "1") != 0)
		return;
	p = mmap(NULL, sizeof(*tm), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return; /* timings are a diagnostic: off, never a failure */
	tm = p;
	tm_runner_pid = getpid();
}

void tm_mark(const char *label)
{
	struct timespec ts;
	unsigned i;
	int pid;

	if (!tm)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	i = atomic_fetch_add(&tm->n, 1);
	if (i >= TM_MAX) {
		atomic_fetch_add(&tm->dropped, 1);
		return;
	}
	pid = getpid();
	tm->e[i] = (struct tm_entry){
		.ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
		.label = label,
		.pid = pid == tm_runner_pid ? 0 : pid == 1 ? 1 : 2,
	};
}

static int tm_cmp(const void *a, const void *b)
{
	const struct tm_entry *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

void tm_report(FILE *out)
{
	static const char *const who[] = {"runner", "pid 1", "command"};
	unsigned n;
	uint64_t first, prev;

	if (!tm)
		return;
	n = atomic_load(&tm->n);
	if (n > TM_MAX)
		n = TM_MAX;
	qsort(tm->e, n, sizeof(tm->e[0]), tm_cmp);
	first = prev = n ? tm->e[0].ns : 0;
	fprintf(out, "sandproof-ref: timings: origin %llu ns CLOCK_MONOTONIC\n",
		(unsigned long long)first);
	for (unsigned i = 0; i < n; i++) {
		const struct tm_entry *e = &tm->e[i];

		fprintf(out, "sandproof-ref: timings: %8.3f ms  +%7.3f ms  %-7s %s\n",
			(double)(e->ns - first) / 1e6, (double)(e->ns - prev) / 1e6,
			who[e->pid], e->label);
		prev = e->ns;
	}
	if (atomic_load(&tm->dropped))
		fprintf(out, "sandproof-ref: timings: %u marks dropped (table full)\n",
			atomic_load(&tm->dropped));
	atomic_store(&tm->n, 0);
	atomic_store(&tm->dropped, 0);
}
