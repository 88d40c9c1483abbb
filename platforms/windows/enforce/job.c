/* job.c - the job object the command and all its descendants run in.
 *
 * Contract: the command is created suspended, assigned to the job, and
 * only then resumed (spawn.c), so it cannot start a process outside the
 * job.  Breakaway is not allowed (no JOB_OBJECT_LIMIT_BREAKAWAY_OK or
 * SILENT_BREAKAWAY_OK), so no descendant can leave it either.  The tree
 * kill, the timeout and cancel are TerminateJobObject: every process of
 * the job, daemonised or not, and never a process outside it.  With
 * JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE the job's processes die when its last
 * handle closes: a runner that crashes takes the command with it. */
#include <errno.h>

#include "winenf.h"

int job_create(DWORD max_procs, HANDLE *out, struct wenf_error *e)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
	HANDLE job = CreateJobObjectW(NULL, NULL);

	*out = NULL;
	if (!job)
		return wenf_fail(e, "job", NULL, wenf_errno(GetLastError()),
				 "CreateJobObjectW: error %lu", GetLastError());
	li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (max_procs) {
		li.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
		li.BasicLimitInformation.ActiveProcessLimit = max_procs;
	}
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li))) {
		DWORD err = GetLastError();

		CloseHandle(job);
		return wenf_fail(e, "job", NULL, wenf_errno(err),
				 "SetInformationJobObject (kill on close%s): error %lu",
				 max_procs ? ", active processes" : "", err);
	}
	*out = job;
	return 0;
}

int job_kill(HANDLE job, UINT code)
{
	return TerminateJobObject(job, code) ? 0 : -wenf_errno(GetLastError());
}

int job_active(HANDLE job, DWORD *n)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION ai = {0};

	*n = 0;
	if (!QueryInformationJobObject(job, JobObjectBasicAccountingInformation, &ai,
				       sizeof(ai), NULL))
		return -wenf_errno(GetLastError());
	*n = ai.ActiveProcesses;
	return 0;
}
