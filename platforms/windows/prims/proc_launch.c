/* proc_launch.c - CreateProcessW with an explicit handle list, suspended,
 * into the run's job, resumed (proc_int.h). */
#include "proc_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A pipe whose child end is inheritable (it is passed only through the
 * handle list) and whose parent end is not. */
static int pipe_pair(HANDLE *child, HANDLE *parent, bool child_reads, DWORD size)
{
	HANDLE r, w;

	if (!CreatePipe(&r, &w, NULL, size))
		return EMFILE;
	*child = child_reads ? r : w;
	*parent = child_reads ? w : r;
	if (!SetHandleInformation(*child, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)) {
		CloseHandle(r);
		CloseHandle(w);
		return EIO;
	}
	return 0;
}

/* The caller's stderr as an inheritable duplicate, or NUL when it has none. */
static HANDLE stderr_dup(void)
{
	HANDLE e = GetStdHandle(STD_ERROR_HANDLE), d = NULL;

	if (e && e != INVALID_HANDLE_VALUE &&
	    DuplicateHandle(GetCurrentProcess(), e, GetCurrentProcess(), &d, 0, TRUE,
			    DUPLICATE_SAME_ACCESS))
		return d;
	SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
	d = CreateFileW(L"NUL", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
			OPEN_EXISTING, 0, NULL);
	return d == INVALID_HANDLE_VALUE ? NULL : d;
}

struct launch {
	wchar_t *program, *cmdline, *env, *cwd;
	HANDLE child[3];
	LPPROC_THREAD_ATTRIBUTE_LIST attrs;
};

static void launch_free(struct launch *l)
{
	free(l->program);
	free(l->cmdline);
	free(l->env);
	free(l->cwd);
	for (int i = 0; i < 3; i++)
		if (l->child[i])
			CloseHandle(l->child[i]);
	if (l->attrs) {
		DeleteProcThreadAttributeList(l->attrs);
		free(l->attrs);
	}
}

/* The attribute list naming exactly the three child ends. */
static int handle_list(struct launch *l)
{
	SIZE_T size = 0;

	InitializeProcThreadAttributeList(NULL, 1, 0, &size);
	if (!(l->attrs = malloc(size)))
		return ENOMEM;
	if (!InitializeProcThreadAttributeList(l->attrs, 1, 0, &size)) {
		free(l->attrs);
		l->attrs = NULL;
		return EINVAL;
	}
	if (!UpdateProcThreadAttribute(l->attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, l->child,
				       sizeof(l->child), NULL, NULL))
		return EINVAL;
	return 0;
}

static int launch_prepare(const struct proc_opts *o, struct launch *l, struct wproc_ends *e,
			  const char **step)
{
	int err = 0;
	DWORD in_size = o->stdin_len + 4096 > 0x7fffffff ? 0x7fffffff : (DWORD)o->stdin_len + 4096;

	*step = "exec";
	if (!(l->program = wproc_program(o->argv[0], o->envp, &err)))
		return err;
	*step = "argv";
	if (!(l->cmdline = wproc_cmdline(o->argv, &err)))
		return err;
	*step = "environment";
	if (o->envp && !(l->env = wproc_envblock(o->envp, &err)))
		return err;
	*step = "chdir";
	if (o->cwd && !(l->cwd = wproc_wide(o->cwd, &err)))
		return err;
	*step = "pipe";
	if ((err = pipe_pair(&l->child[0], &e->in, true, in_size)) ||
	    (err = pipe_pair(&l->child[1], &e->out, false, 0)))
		return err;
	if (o->inherit_stderr) {
		if (!(l->child[2] = stderr_dup()))
			return EIO;
	} else if ((err = pipe_pair(&l->child[2], &e->err, false, 0))) {
		return err;
	}
	*step = "handle list";
	return handle_list(l);
}

/* Suspended -> assigned to the job -> resumed; on any failure the process
 * is terminated before it ran a single instruction of its own. */
static int launch_start(struct launch *l, HANDLE job, struct wproc_ends *e, const char **step)
{
	STARTUPINFOEXW si = {0};
	PROCESS_INFORMATION pi;

	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = l->child[0];
	si.StartupInfo.hStdOutput = l->child[1];
	si.StartupInfo.hStdError = l->child[2];
	si.lpAttributeList = l->attrs;
	*step = "exec";
	if (!CreateProcessW(l->program, l->cmdline, NULL, NULL, TRUE,
			    CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT |
			    CREATE_NEW_PROCESS_GROUP,
			    l->env, l->cwd, &si.StartupInfo, &pi)) {
		DWORD w = GetLastError();

		return w == ERROR_FILE_NOT_FOUND || w == ERROR_PATH_NOT_FOUND ? ENOENT :
		       w == ERROR_DIRECTORY ? ENOTDIR : w == ERROR_ACCESS_DENIED ? EACCES :
		       w == ERROR_BAD_EXE_FORMAT ? ENOEXEC : EIO;
	}
	*step = "job";
	if (!AssignProcessToJobObject(job, pi.hProcess) || ResumeThread(pi.hThread) == (DWORD)-1) {
		TerminateProcess(pi.hProcess, 127);
		WaitForSingleObject(pi.hProcess, 5000);
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
		return EPERM;
	}
	CloseHandle(pi.hThread);
	e->process = pi.hProcess;
	e->pid = pi.dwProcessId;
	return 0;
}

int wproc_launch(const struct proc_opts *o, HANDLE job, struct wproc_ends *e,
		 const char **step)
{
	struct launch l = {0};
	int err;

	memset(e, 0, sizeof(*e));
	err = launch_prepare(o, &l, e, step);
	if (!err)
		err = launch_start(&l, job, e, step);
	launch_free(&l); /* the child ends: the program holds its own now */
	if (err) {
		if (e->in)
			CloseHandle(e->in);
		if (e->out)
			CloseHandle(e->out);
		if (e->err)
			CloseHandle(e->err);
		memset(e, 0, sizeof(*e));
	}
	return err;
}
