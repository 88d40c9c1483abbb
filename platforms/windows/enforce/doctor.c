/* doctor.c - `sandproof-ref doctor` on Windows (SETUP-4): what this host can
 * enforce, each line an observation made just now, never an assumption.
 * Exit 0 only when the whole contract can be enforced here: a restricted
 * token can be made, a job object created, the journal directory is usable
 * and holds nothing a replay cannot restore, the runner is elevated and the
 * filtering engine opens (network deny needs WFP), and this is not Wine
 * (whose tokens, ACL checks and WFP are stubs: nothing there is a Windows
 * result). */
#include <errno.h>
#include <stdlib.h>

#include "winseam.h"

#include <sddl.h> /* after windows.h */

/* A token made with the plan's recipe (runner base) and verified. */
static bool doctor_token(FILE *out)
{
	struct winplan_token t;
	struct wenf_error e = {0};
	struct wenf_sids s = {0};
	HANDLE tok = NULL;
	bool ok;

	winplan_token_recipe(&t, true, false);
	ok = token_capability_sid("C:\\sandproof-doctor", &s.cap, &e) == 0 &&
	     token_logon_sid(&s.logon, &e) == 0 &&
	     token_restricted_create(&t, NULL, &s, &tok, &e) == 0;
	fprintf(out, "restricted token: %s%s%s\n",
		ok ? "created and verified (administrative groups deny-only, no privilege but "
		     "SeChangeNotifyPrivilege, medium)" : "FAILED",
		ok ? "" : ": ", ok ? "" : e.detail);
	if (tok)
		CloseHandle(tok);
	LocalFree(s.cap);
	LocalFree(s.logon);
	return ok;
}

/* The sandbox account network deny runs as: present or not (never created
 * here; the first elevated network-denied run creates it). */
static void doctor_account(FILE *out)
{
	PSID sid = NULL;
	char *str = NULL;

	if (account_sid(WINPLAN_ACCOUNT, &sid, NULL) == 0 && ConvertSidToStringSidA(sid, &str))
		fprintf(out, "sandbox account %s: present (%s)\n", WINPLAN_ACCOUNT, str);
	else
		fprintf(out, "sandbox account %s: absent (the first elevated network-denied run "
			"creates it)\n", WINPLAN_ACCOUNT);
	LocalFree(str);
	LocalFree(sid);
}

static bool doctor_job(FILE *out)
{
	struct wenf_error e = {0};
	HANDLE job = NULL;
	bool ok = job_create(16, WINPLAN_JOB_UI_ALL, true, &job, &e) == 0 &&
		  job_verify(job, 16, WINPLAN_JOB_UI_ALL, true, &e) == 0;

	fprintf(out, "job object (kill on close, process bound, UI restrictions, die on crash): %s%s%s\n",
		ok ? "created" : "FAILED", ok ? "" : ": ", ok ? "" : e.detail);
	if (job)
		CloseHandle(job);
	return ok;
}

static bool doctor_journal(FILE *out)
{
	struct wenf_error e = {0};
	char *dir = NULL;
	int n = acl_journal_dir(&dir, &e);

	if (n == 0)
		n = acl_journal_replay(dir, &e);
	if (n < 0)
		fprintf(out, "ACL journal: FAILED: %s: %s\n", e.step, e.detail);
	else
		fprintf(out, "ACL journal: %s (%d left by a crashed run, restored now)\n", dir, n);
	free(dir);
	return n >= 0;
}

static bool doctor_network(FILE *out)
{
	struct wenf_error e = {0};
	bool elevated = token_is_elevated(), ok = false;

	fprintf(out, "elevated: %s\n", elevated ? "yes" : "no");
	if (!elevated) {
		fprintf(out, "network deny (WFP): unavailable, not elevated: runs that deny the "
			"network are refused (step network, EPERM)\n");
		return false;
	}
	ok = wfp_reachable(&e) == 0;
	fprintf(out, "network deny (WFP): %s%s\n", ok ? "filtering engine opened" : "FAILED: ",
		ok ? "" : e.detail);
	return ok;
}

int platform_doctor(FILE *out)
{
	bool wine = wenf_under_wine(), ok;

	fprintf(out, "backend: %s\n", WINSEAM_BACKEND);
	if (wine)
		fprintf(out, "host: Wine: tokens, ACL checks and WFP are stubs here; nothing "
			"below is a Windows result\n");
	ok = doctor_token(out);
	ok = doctor_job(out) && ok;
	ok = doctor_journal(out) && ok;
	ok = doctor_network(out) && ok;
	doctor_account(out);
	fprintf(out, "not yet enforced by this backend: memory, tmp, shm, open-file and CPU "
		"limits (refused when stated)\n");
	fprintf(out, "contract enforceable here: %s\n", ok && !wine ? "yes" : "NO");
	return ok && !wine ? 0 : 1;
}
