/* job.c - the job object the command and all its descendants run in.
 *
 * Contract: the command is created suspended, assigned to the job, and
 * only then resumed (spawn.c), so it cannot start a process outside the
 * job.  Breakaway is not allowed (no JOB_OBJECT_LIMIT_BREAKAWAY_OK or
 * SILENT_BREAKAWAY_OK), so no descendant can leave it either.  The tree
 * kill, the timeout and cancel are TerminateJobObject: every process of
 * the job, daemonised or not, and never a process outside it.  With
 * JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE the job's processes die when its last
 * handle closes: a runner that crashes takes the command with it.
 *
 * The plan's UI restrictions (JOBOBJECT_BASIC_UI_RESTRICTIONS, issue 32 §3,
 * PRIV-5): no handle to a window or other USER object of a process outside
 * the job, no clipboard read or write, no SystemParametersInfo, display
 * settings, global atoms, desktop switching or creation, no ExitWindows;
 * and JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION: a crash ends the process
 * instead of waiting for an error dialog nobody will answer.  job_verify
 * reads each back (QueryInformationJobObject); the backend refuses a job that
 * does not hold what was set (step "job"). */
#include <errno.h>

#include "winenf.h"

int job_create(DWORD max_procs, DWORD ui, bool die_on_exception, HANDLE *out,
	       struct wenf_error *e)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
	JOBOBJECT_BASIC_UI_RESTRICTIONS r = {ui};
	HANDLE job = CreateJobObjectW(NULL, NULL);
	DWORD err = 0;

	*out = NULL;
	if (!job)
		return wenf_fail(e, "job", NULL, wenf_errno(GetLastError()),
				 "CreateJobObjectW: error %lu", GetLastError());
	li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
		(die_on_exception ? JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION : 0) |
		(max_procs ? JOB_OBJECT_LIMIT_ACTIVE_PROCESS : 0);
	li.BasicLimitInformation.ActiveProcessLimit = max_procs;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li)) ||
	    (ui && !SetInformationJobObject(job, JobObjectBasicUIRestrictions, &r, sizeof(r))))
		err = GetLastError();
	if (err) {
		CloseHandle(job);
		return wenf_fail(e, "job", NULL, wenf_errno(err),
				 "SetInformationJobObject (limits 0x%lx, UI 0x%lx): error %lu",
				 (unsigned long)li.BasicLimitInformation.LimitFlags,
				 (unsigned long)ui, err);
	}
	*out = job;
	return 0;
}

int job_verify(HANDLE job, DWORD max_procs, DWORD ui, bool die_on_exception,
	       struct wenf_error *e)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
	JOBOBJECT_BASIC_UI_RESTRICTIONS r = {0};
	DWORD want = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
		     (die_on_exception ? JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION : 0) |
		     (max_procs ? JOB_OBJECT_LIMIT_ACTIVE_PROCESS : 0);

	if (!QueryInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li),
				       NULL) ||
	    (li.BasicLimitInformation.LimitFlags & want) != want ||
	    (max_procs && li.BasicLimitInformation.ActiveProcessLimit != max_procs))
		return wenf_fail(e, "job", NULL, EIO, "the job's limits read back (0x%lx) are not "
				 "those set (0x%lx): refused", (unsigned long)li.BasicLimitInformation.LimitFlags,
				 (unsigned long)want);
	if (ui && (!QueryInformationJobObject(job, JobObjectBasicUIRestrictions, &r, sizeof(r), NULL) ||
		   (r.UIRestrictionsClass & ui) != ui))
		return wenf_fail(e, "job", NULL, EIO, "the job's UI restrictions read back (0x%lx) "
				 "are not those set (0x%lx): refused", (unsigned long)r.UIRestrictionsClass,
				 (unsigned long)ui);
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
