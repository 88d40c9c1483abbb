/* wprobe_proc.c - the probe's process operations on Windows: identity,
 * sleeping, environment, working directory, a child process, a daemon,
 * ending the probe. */
#include "wprobe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define WPROBE_SPAWN_WAIT_MS 30000 /* a child still running then is killed */
#define WPROBE_SPAWN_MAX_ARGS 64

/* No uid or gid on Windows: pid only. */
static void wprobe_op_getpid(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	(void)ctx, (void)a, (void)n;
	probe_field_int(res, "pid", (long long)GetCurrentProcessId());
}

static int wprobe_check_sleep(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (probe_parse_ll(a[0], 0, 86400000, &v) < 0)
		return probe_check_msg(msg, len, "MS must be 0..86400000, not \"%s\"", a[0]);
	return 0;
}

static void wprobe_op_sleep(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long ms = 0;

	(void)ctx, (void)n, (void)res;
	probe_parse_ll(a[0], 0, 86400000, &ms);
	Sleep((DWORD)ms);
}

/* value null when unset, as the POSIX probe's getenv. */
static void wprobe_op_env(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	DWORD code = 0, len;
	wchar_t *name = wprobe_wide(a[0], &code), *val;
	char *v;
	size_t vlen = 0;

	(void)ctx, (void)n;
	if (!name) {
		wprobe_fail(res, code, "name");
		return;
	}
	len = GetEnvironmentVariableW(name, NULL, 0);
	if (len == 0) {
		code = GetLastError();
		free(name);
		if (code == ERROR_ENVVAR_NOT_FOUND)
			probe_field_null(res, "value");
		else if (code == ERROR_SUCCESS) /* set to the empty string */
			probe_field_str(res, "value", "", 0);
		else
			wprobe_fail(res, code, "getenv");
		return;
	}
	val = malloc((size_t)len * sizeof(*val));
	if (!val || GetEnvironmentVariableW(name, val, len) >= len ||
	    !(v = wprobe_utf8(val, -1, &vlen))) {
		wprobe_fail(res, val ? GetLastError() : ERROR_NOT_ENOUGH_MEMORY, "getenv");
		free(val);
		free(name);
		return;
	}
	probe_field_str(res, "value", v, vlen > PROBE_DATA_MAX ? PROBE_DATA_MAX : vlen);
	probe_field_bool(res, "truncated", vlen > PROBE_DATA_MAX);
	free(v);
	free(val);
	free(name);
}

static void wprobe_op_cwd(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	DWORD len = GetCurrentDirectoryW(0, NULL);
	wchar_t *w = len ? malloc((size_t)len * sizeof(*w)) : NULL;
	char *path;

	(void)ctx, (void)a, (void)n;
	if (!w || GetCurrentDirectoryW(len, w) >= len || !(path = wprobe_utf8(w, -1, NULL))) {
		wprobe_fail(res, len ? GetLastError() : ERROR_NOT_ENOUGH_MEMORY, NULL);
		free(w);
		return;
	}
	probe_field_cstr(res, "path", path);
	free(path);
	free(w);
}

/* Appends arg to the command line at *p, quoted by the rules of the
 * Microsoft C runtime's argv parser (backslashes are literal unless they
 * precede a quote), so the child's argv[i] is exactly arg. */
static wchar_t *wprobe_quote_arg(wchar_t *p, const wchar_t *arg)
{
	bool quote = !*arg || wcspbrk(arg, L" \t\n\v\"") != NULL;

	if (!quote)
		return wcscpy(p, arg) + wcslen(arg);
	*p++ = L'"';
	for (const wchar_t *s = arg;; s++) {
		size_t bs = 0;

		while (*s == L'\\')
			s++, bs++;
		if (!*s || *s == L'"') {
			/* before a quote or the closing quote: doubled */
			for (size_t k = 0; k < 2 * bs; k++)
				*p++ = L'\\';
			if (!*s)
				break;
			*p++ = L'\\';
			*p++ = L'"';
		} else {
			for (size_t k = 0; k < bs; k++)
				*p++ = L'\\';
			*p++ = *s;
		}
	}
	*p++ = L'"';
	*p = 0;
	return p;
}

/* The quoted command line of a[0..n) (free()), or NULL with *code. */
static wchar_t *wprobe_cmdline(char **a, int n, DWORD *code)
{
	wchar_t *line = NULL, *p;
	size_t cap = 1;
	wchar_t *w[WPROBE_SPAWN_MAX_ARGS];
	int k;

	for (k = 0; k < n; k++) {
		if (!(w[k] = wprobe_wide(a[k], code)))
			goto out;
		cap += 2 * wcslen(w[k]) + 3; /* worst case: every char escaped, quotes, space */
	}
	line = malloc(cap * sizeof(*line));
	if (!line) {
		*code = ERROR_NOT_ENOUGH_MEMORY;
		goto out;
	}
	p = line;
	*p = 0;
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = L' ';
		p = wprobe_quote_arg(p, w[i]);
	}
out:
	while (k-- > 0)
		free(w[k]);
	return line;
}

/* spawn PROG [ARG...]: CreateProcessW (PROG found by its search rules),
 * with stdin, stdout and stderr on NUL so the child cannot write into the
 * probe's JSON channel; waits for its exit code, up to
 * WPROBE_SPAWN_WAIT_MS, after which the child is terminated and the line
 * says ETIMEDOUT at step "wait". */
static void wprobe_op_spawn(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
	STARTUPINFOW si = {.cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES};
	PROCESS_INFORMATION pi;
	DWORD code = 0, exit_code = 0;
	wchar_t *line = wprobe_cmdline(a, n, &code);
	HANDLE nul;

	(void)ctx;
	if (!line) {
		wprobe_fail(res, code, "path");
		return;
	}
	nul = CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
			  &sa, OPEN_EXISTING, 0, NULL);
	if (nul == INVALID_HANDLE_VALUE) {
		wprobe_fail(res, GetLastError(), "nul");
		free(line);
		return;
	}
	si.hStdInput = si.hStdOutput = si.hStdError = nul;
	if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi)) {
		wprobe_fail(res, GetLastError(), "create");
		CloseHandle(nul);
		free(line);
		return;
	}
	CloseHandle(nul);
	free(line);
	CloseHandle(pi.hThread);
	probe_field_int(res, "pid", (long long)pi.dwProcessId);
	if (WaitForSingleObject(pi.hProcess, WPROBE_SPAWN_WAIT_MS) != WAIT_OBJECT_0) {
		/* our own child, by handle: it cannot be another process */
		TerminateProcess(pi.hProcess, 1);
		WaitForSingleObject(pi.hProcess, INFINITE);
		wprobe_fail_errno(res, "ETIMEDOUT", "wait");
	} else if (!GetExitCodeProcess(pi.hProcess, &exit_code)) {
		wprobe_fail(res, GetLastError(), "wait");
	} else {
		probe_field_int(res, "exit_code", (long long)exit_code);
	}
	CloseHandle(pi.hProcess);
}

/* PIDFILE holds pid and a newline: 0 or a Win32 error. */
static DWORD wprobe_pidfile_write(const char *path, DWORD pid)
{
	DWORD code = 0, put;
	wchar_t *w = wprobe_wide(path, &code);
	char line[32];
	int len = snprintf(line, sizeof(line), "%lu\n", (unsigned long)pid);
	HANDLE f;

	if (!w)
		return code;
	f = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (f == INVALID_HANDLE_VALUE)
		return GetLastError();
	if (!WriteFile(f, line, (DWORD)len, &put, NULL) || put != (DWORD)len)
		code = GetLastError() ? GetLastError() : ERROR_WRITE_FAULT;
	if (!CloseHandle(f) && !code)
		code = GetLastError();
	return code;
}

/* spawn_daemon PIDFILE: a process that outlives the probe, the Windows way
 * a daemon escapes its tree - the probe itself again, running "sleep" for a
 * day, detached (no console), in a process group of its own, asking to
 * break away from the probe's job (CREATE_BREAKAWAY_FROM_JOB; a job that
 * forbids it makes CreateProcess fail with ERROR_ACCESS_DENIED, and the
 * daemon is then started inside it: "breakaway" says which).  It inherits
 * no handle (the runner's capture pipes are not held open by it).  Its
 * command line names PIDFILE (as "env PIDFILE", an op that reads nothing
 * of it), so a census by a marker in that path finds it.  The probe writes
 * the daemon's pid to PIDFILE (a failure terminates the daemon, its own
 * child, by handle) and does not wait for it. */
static void wprobe_op_spawn_daemon(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	DWORD flags = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP, code = 0;
	char self[4 * MAX_PATH], *argv[6] = {self, "sleep", "86400000", "--", "env", a[0]};
	wchar_t wself[MAX_PATH], *line;
	bool breakaway = true;

	(void)ctx, (void)n;
	if (!GetModuleFileNameW(NULL, wself, MAX_PATH) ||
	    !WideCharToMultiByte(CP_UTF8, 0, wself, -1, self, sizeof(self), NULL, NULL)) {
		wprobe_fail(res, GetLastError(), "self");
		return;
	}
	if (!(line = wprobe_cmdline(argv, 6, &code))) {
		wprobe_fail(res, code, "path");
		return;
	}
	if (!CreateProcessW(wself, line, NULL, NULL, FALSE, flags | CREATE_BREAKAWAY_FROM_JOB, NULL,
			    NULL, &si, &pi)) {
		code = GetLastError();
		breakaway = false;
		if (code != ERROR_ACCESS_DENIED ||
		    !CreateProcessW(wself, line, NULL, NULL, FALSE, flags, NULL, NULL, &si, &pi)) {
			wprobe_fail(res, code == ERROR_ACCESS_DENIED ? GetLastError() : code, "create");
			free(line);
			return;
		}
	}
	free(line);
	CloseHandle(pi.hThread);
	if ((code = wprobe_pidfile_write(a[0], pi.dwProcessId)) != 0) {
		TerminateProcess(pi.hProcess, 1);
		CloseHandle(pi.hProcess);
		wprobe_fail(res, code, "pidfile");
		return;
	}
	CloseHandle(pi.hProcess);
	probe_field_int(res, "pid", (long long)pi.dwProcessId);
	probe_field_bool(res, "breakaway", breakaway);
}

static int wprobe_check_exit(char **a, int n, char *msg, size_t len)
{
	long long v;

	(void)n;
	if (probe_parse_ll(a[0], 0, 255, &v) < 0)
		return probe_check_msg(msg, len, "CODE must be 0..255, not \"%s\"", a[0]);
	return 0;
}

/* Prints its own line first: nothing runs after it. */
static void wprobe_op_exit(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	long long code = 0;

	(void)n;
	probe_parse_ll(a[0], 0, 255, &code);
	probe_field_int(res, "code", code);
	probe_emit(ctx->index, "exit", res);
	ExitProcess((UINT)code);
}

const struct probe_op wprobe_proc_ops[] = {
	{"getpid", 0, 0, "", NULL, wprobe_op_getpid},
	{"sleep", 1, 1, "MS", wprobe_check_sleep, wprobe_op_sleep},
	{"env", 1, 1, "NAME", NULL, wprobe_op_env},
	{"cwd", 0, 0, "", NULL, wprobe_op_cwd},
	{"spawn", 1, WPROBE_SPAWN_MAX_ARGS, "PROG [ARG...]", NULL, wprobe_op_spawn},
	{"spawn_daemon", 1, 1, "PIDFILE", NULL, wprobe_op_spawn_daemon},
	{"exit", 1, 1, "CODE", wprobe_check_exit, wprobe_op_exit},
	{NULL, 0, 0, NULL, NULL, NULL},
};
