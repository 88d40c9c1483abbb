/* proc_job.c - the job object of one run (proc_int.h): kill on close, so
 * the tree dies with the last handle (the harness's own end included: a
 * harness that dies mid-run leaves nothing), terminated as one for a
 * timeout or a kill; and the list of runs still open, for
 * proc_kill_descendants.  A job names its processes by membership, never
 * by pid: a pid reused after a process ended is never killed. */
#include "proc_int.h"

#include <errno.h>
#include <stdlib.h>

HANDLE wproc_job_new(int *err)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (!job) {
		*err = EAGAIN;
		return NULL;
	}
	/* no JOB_OBJECT_LIMIT_BREAKAWAY_OK: nothing started leaves the job */
	li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li))) {
		CloseHandle(job);
		*err = EPERM;
		return NULL;
	}
	return job;
}

static bool job_accounting(HANDLE job, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION *ai)
{
	return QueryInformationJobObject(job, JobObjectBasicAccountingInformation, ai,
					 sizeof(*ai), NULL);
}

int wproc_job_active(HANDLE job)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION ai;

	return job_accounting(job, &ai) ? (int)ai.ActiveProcesses : 0;
}

uint64_t wproc_job_cpu_ms(HANDLE job)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION ai;

	if (!job_accounting(job, &ai))
		return 0;
	return (uint64_t)(ai.TotalUserTime.QuadPart + ai.TotalKernelTime.QuadPart) / 10000;
}

int wproc_job_kill(HANDLE job, HANDLE program, DWORD wait_ms)
{
	int n = wproc_job_active(job);

	TerminateJobObject(job, 128 + 9); /* "killed": 128 + SIGKILL, as a shell says */
	if (program)
		WaitForSingleObject(program, wait_ms);
	/* the others end asynchronously: wait until the job is empty */
	for (DWORD waited = 0; wproc_job_active(job) > 0 && waited < wait_ms; waited += 5)
		Sleep(5);
	return n;
}

/* ---- the open runs (single-threaded callers: proc.h) */
static HANDLE *live;
static size_t n_live, cap_live;

void wproc_live_add(HANDLE job)
{
	if (n_live == cap_live) {
		size_t cap = cap_live ? cap_live * 2 : 8;
		HANDLE *v = realloc(live, cap * sizeof(*v));

		if (!v)
			return; /* still killed on close at proc_end */
		live = v;
		cap_live = cap;
	}
	live[n_live++] = job;
}

void wproc_live_remove(HANDLE job)
{
	for (size_t i = 0; i < n_live; i++)
		if (live[i] == job) {
			live[i] = live[--n_live];
			return;
		}
}

int wproc_live_kill_all(DWORD wait_ms)
{
	int n = 0;

	for (size_t i = 0; i < n_live; i++)
		n += wproc_job_kill(live[i], NULL, wait_ms);
	return n;
}
