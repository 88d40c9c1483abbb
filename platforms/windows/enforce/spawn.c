/* spawn.c - the command's process: command line, environment, handles.
 *
 * Contract (spawn_start): the process is created suspended, under the
 * restricted token, with an explicit environment block (exactly the
 * request's variables: nothing of the runner's own leaks in) and with
 * PROC_THREAD_ATTRIBUTE_HANDLE_LIST naming exactly its three stdio handles,
 * so no other inheritable handle of the runner (a journal, a lease, the job)
 * reaches it.  The stdio handles are inheritable only for the duration of
 * the call (their flags are put back).  The process is assigned to the job
 * before its first instruction runs and resumed only then; one that cannot
 * be assigned is terminated, never resumed.  The runner is single-threaded
 * around this call: no other CreateProcess can see the handles inheritable.
 *
 * The command line (spawn_cmdline) is the one place an argument becomes
 * text another parser splits again, so it follows the documented rules of
 * CommandLineToArgvW / the MSVC runtime exactly: an argument without space,
 * tab, newline, vertical tab or '"' (and not empty) is written as it is;
 * any other is written in quotes, each '"' preceded by a backslash, and the
 * backslashes before a '"' or before the closing quote doubled.  Then no
 * argument can end early or inject another.  argv[0] is parsed by other
 * rules (quotes toggle, backslashes are literal): it is quoted when it holds
 * whitespace and refused (EINVAL) when it holds '"' or is empty, since no
 * spelling of it would come back intact. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "winenf.h"

#define CMDLINE_MAX 32767 /* CreateProcess's documented bound, NUL included */

static bool needs_quotes(const wchar_t *a)
{
	return !a[0] || wcspbrk(a, L" \t\n\v\"") != NULL;
}

/* Append one quoted (or bare) argument at *o; returns the new end. */
static wchar_t *arg_put(wchar_t *o, const wchar_t *a)
{
	if (!needs_quotes(a))
		return wcscpy(o, a) + wcslen(a);
	*o++ = L'"';
	for (;;) {
		size_t bs = 0;

		while (*a == L'\\') {
			a++;
			bs++;
		}
		if (!*a) {
			for (size_t i = 0; i < 2 * bs; i++)
				*o++ = L'\\'; /* before the closing quote */
			break;
		}
		if (*a == L'"') {
			for (size_t i = 0; i < 2 * bs + 1; i++)
				*o++ = L'\\';
		} else {
			for (size_t i = 0; i < bs; i++)
				*o++ = L'\\';
		}
		*o++ = *a++;
	}
	*o++ = L'"';
	return o;
}

int spawn_cmdline(const char *const *argv, size_t n, wchar_t **out)
{
	wchar_t **w = calloc(n ? n : 1, sizeof(*w)), *buf = NULL, *o;
	size_t need = 1;
	int rc = 0;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	if (!n)
		rc = -EINVAL;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		w[i] = wenf_wide(argv[i]);
		if (!w[i])
			rc = -EINVAL;
		else if (i == 0 && (!w[0][0] || wcschr(w[0], L'"')))
			rc = -EINVAL;
		else
			need += 3 + 2 * wcslen(w[i]); /* worst case: every char escaped */
	}
	if (rc == 0 && need > 8 * (size_t)CMDLINE_MAX)
		rc = -E2BIG;
	if (rc == 0 && !(buf = malloc(need * sizeof(*buf))))
		rc = -ENOMEM;
	if (rc == 0) {
		o = buf;
		if (needs_quotes(w[0]))
			o += swprintf(o, need, L"\"%ls\"", w[0]);
		else
			o = wcscpy(o, w[0]) + wcslen(w[0]);
		for (size_t i = 1; i < n; i++) {
			*o++ = L' ';
			o = arg_put(o, w[i]);
		}
		*o = L'\0';
		if ((size_t)(o - buf) >= CMDLINE_MAX)
			rc = -E2BIG;
	}
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

/* The length of kv's name: up to the first '=' after its first character
 * (names like "=C:" keep their leading '='). */
static size_t env_name_len(const wchar_t *kv)
{
	const wchar_t *eq = kv[0] ? wcschr(kv + 1, L'=') : NULL;

	return eq ? (size_t)(eq - kv) : 0;
}

/* Case-insensitive ordinal order of the names, as Windows sorts a block. */
static int env_cmp(const void *a, const void *b)
{
	const wchar_t *x = *(const wchar_t *const *)a, *y = *(const wchar_t *const *)b;
	int r = CompareStringOrdinal(x, (int)env_name_len(x), y, (int)env_name_len(y), TRUE);

	return r == CSTR_LESS_THAN ? -1 : r == CSTR_GREATER_THAN ? 1 : 0;
}

/* The entries as UTF-16, sorted; -EINVAL for an entry without a name or two
 * entries naming one variable (Windows names are case-insensitive: which of
 * "Path" and "PATH" the command would see is not the request's to leave open). */
static int env_sorted(const char *const *env, size_t n, wchar_t ***out)
{
	wchar_t **v = calloc(n ? n : 1, sizeof(*v));
	int rc = v ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		v[i] = wenf_wide(env[i]);
		if (!v[i] || !env_name_len(v[i]))
			rc = -EINVAL;
	}
	if (rc == 0)
		qsort(v, n, sizeof(*v), env_cmp);
	for (size_t i = 1; rc == 0 && i < n; i++)
		if (env_cmp(&v[i - 1], &v[i]) == 0)
			rc = -EINVAL;
	if (rc < 0 && v) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		v = NULL;
	}
	*out = v;
	return rc;
}

int spawn_envblock(const char *const *env, size_t n, wchar_t **out)
{
	wchar_t **v, *blk, *o;
	size_t len = 2;
	int rc = env_sorted(env, n, &v);

	*out = NULL;
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		len += wcslen(v[i]) + 1;
	blk = malloc(len * sizeof(*blk));
	o = blk;
	for (size_t i = 0; i < n; i++) {
		if (blk)
			o = wcscpy(o, v[i]) + wcslen(v[i]) + 1;
		free(v[i]);
	}
	free(v);
	if (!blk)
		return -ENOMEM;
	*o++ = L'\0';
	if (n == 0)
		*o = L'\0'; /* an empty block is two NULs */
	*out = blk;
	return 0;
}

/* The stdio handles, deduplicated (the list refuses duplicates), each made
 * inheritable; their prior flags in old[]. */
static size_t handles_lend(const struct spawn_req *r, HANDLE v[3], DWORD old[3])
{
	HANDLE all[3] = {r->in, r->out, r->err};
	size_t n = 0;

	for (size_t i = 0; i < 3; i++) {
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup = dup || v[k] == all[i];
		if (dup || !all[i] || all[i] == INVALID_HANDLE_VALUE)
			continue;
		if (!GetHandleInformation(all[i], &old[n]))
			old[n] = 0;
		SetHandleInformation(all[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
		v[n++] = all[i];
	}
	return n;
}

static void handles_return(HANDLE v[3], const DWORD old[3], size_t n)
{
	for (size_t i = 0; i < n; i++)
		SetHandleInformation(v[i], HANDLE_FLAG_INHERIT, old[i] & HANDLE_FLAG_INHERIT);
}

int spawn_assign_resume(HANDLE job, PROCESS_INFORMATION *pi, struct wenf_error *e)
{
	DWORD err = 0;
	const char *what = NULL;

	if (job && !AssignProcessToJobObject(job, pi->hProcess)) {
		err = GetLastError();
		what = "AssignProcessToJobObject";
	} else if (ResumeThread(pi->hThread) == (DWORD)-1) {
		err = GetLastError();
		what = "ResumeThread";
	}
	if (!what)
		return 0;
	TerminateProcess(pi->hProcess, 1);
	WaitForSingleObject(pi->hProcess, INFINITE);
	CloseHandle(pi->hThread);
	CloseHandle(pi->hProcess);
	memset(pi, 0, sizeof(*pi));
	return wenf_fail(e, "job", NULL, wenf_errno(err), "%s: error %lu; the process was "
			 "terminated before it ran", what, err);
}

/* Another user's token: the secondary logon service creates the process
 * (CreateProcessWithTokenW).  It takes a plain STARTUPINFO, no attribute
 * list: it passes the new process the three standard handles, made
 * inheritable for the call, and inherits it no other. */
static BOOL create_with_token(const struct spawn_req *r, DWORD flags, PROCESS_INFORMATION *pi)
{
	STARTUPINFOW si;
	HANDLE list[3];
	DWORD old[3];
	size_t n;
	BOOL ok;
	DWORD err;

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = r->in;
	si.hStdOutput = r->out;
	si.hStdError = r->err;
	si.lpDesktop = (LPWSTR)r->desktop;
	n = handles_lend(r, list, old);
	ok = CreateProcessWithTokenW(r->token, 0, r->app, r->cmdline, flags, (LPVOID)r->env,
				     r->cwd, &si, pi);
	err = GetLastError();
	handles_return(list, old, n);
	SetLastError(err);
	return ok;
}

int spawn_create_suspended(const struct spawn_req *r, PROCESS_INFORMATION *pi,
			   struct wenf_error *e)
{
	STARTUPINFOEXW si;
	SIZE_T sz = 0;
	HANDLE list[3];
	DWORD old[3], flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT |
			      EXTENDED_STARTUPINFO_PRESENT;
	size_t n;
	BOOL ok;
	DWORD err = 0;

	memset(pi, 0, sizeof(*pi));
	if (r->other_user) {
		if (create_with_token(r, CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT, pi))
			return 0;
		err = GetLastError();
		return wenf_fail(e, "spawn", NULL, wenf_errno(err),
				 "CreateProcessWithTokenW: error %lu", err);
	}
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = r->in;
	si.StartupInfo.hStdOutput = r->out;
	si.StartupInfo.hStdError = r->err;
	si.StartupInfo.lpDesktop = (LPWSTR)r->desktop;
	InitializeProcThreadAttributeList(NULL, 1, 0, &sz);
	si.lpAttributeList = malloc(sz);
	if (!si.lpAttributeList || !InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0, &sz)) {
		free(si.lpAttributeList);
		return wenf_fail(e, "spawn", NULL, ENOMEM, "proc thread attribute list");
	}
	n = handles_lend(r, list, old);
	ok = UpdateProcThreadAttribute(si.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
				       list, n * sizeof(HANDLE), NULL, NULL);
	if (ok && r->token)
		ok = CreateProcessAsUserW(r->token, r->app, r->cmdline, NULL, NULL, TRUE, flags,
					  (LPVOID)r->env, r->cwd, &si.StartupInfo, pi);
	else if (ok)
		ok = CreateProcessW(r->app, r->cmdline, NULL, NULL, TRUE, flags, (LPVOID)r->env,
				    r->cwd, &si.StartupInfo, pi);
	if (!ok)
		err = GetLastError();
	handles_return(list, old, n);
	DeleteProcThreadAttributeList(si.lpAttributeList);
	free(si.lpAttributeList);
	if (!ok)
		return wenf_fail(e, "spawn", NULL, wenf_errno(err), "CreateProcess%sW: error %lu",
				 r->token ? "AsUser" : "", err);
	return 0;
}

int spawn_start(const struct spawn_req *r, PROCESS_INFORMATION *pi, struct wenf_error *e)
{
	int rc = spawn_create_suspended(r, pi, e);

	return rc < 0 ? rc : spawn_assign_resume(r->job, pi, e);
}
