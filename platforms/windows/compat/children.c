/* children.c - waitpid over a registry of child processes, kill, and the
 * signal calls.
 *
 * wincompat_child_add(pid, handle): the Windows launch registers each
 * process it created; the registry keeps its own duplicate of the handle
 * (the caller keeps and closes its own).  waitpid(-1 or pid, &st, WNOHANG
 * or 0) reaps a registered child that has ended and removes it (its
 * handle closed); ECHILD when no registered child matches.  The status is
 * encoded for <sys/wait.h>'s macros: a process ended by kill() here is
 * WIFSIGNALED with that signal; an exit code that is an NTSTATUS crash
 * (access violation SIGSEGV, illegal instruction SIGILL, a divide or
 * floating point fault SIGFPE) is WIFSIGNALED too; any other exit code
 * is WIFEXITED with its low 8 bits (as POSIX keeps them).
 *
 * kill(pid, sig): a registered child only (ESRCH otherwise, never another
 * process of the machine); sig 0 checks it is alive; any other signal
 * terminates it (TerminateProcess, exit code 128 + sig): Windows has no
 * signals to deliver to another process, and every signal the runner
 * sends a child (SIGKILL, SIGTERM) means "end it".  A job object is the
 * tree kill; this kills one process.
 *
 * sigaction/signal: SIGINT, SIGTERM, SIGBREAK, SIGABRT, SIGFPE, SIGILL,
 * SIGSEGV go to the CRT's signal() (SIGINT: Ctrl-C, from another thread);
 * the signals Windows never raises (SIGHUP, SIGQUIT, SIGPIPE, SIGALRM)
 * only record the handler: a no-op, safe because nothing can raise them -
 * a write to a broken pipe fails with EPIPE, which is what SIG_IGN gives.
 * SIGCHLD's handler is called by poll() (poll.c) when a registered child
 * has ended: delivered at that one safe point, never asynchronously. */
#include "wincompat_int.h"
#include "children.h"

#define WC_MAXCHILD 64
static struct wc_child {
	int pid;
	HANDLE h;
	int killsig; /* the signal kill() ended it with, 0 none */
	int told;    /* SIGCHLD delivered for its end */
} wc_children[WC_MAXCHILD];
static void (*wc_handlers[32])(int);

int wincompat_child_add(int pid, void *process_handle)
{
	HANDLE d;

	for (int i = 0; i < WC_MAXCHILD; i++) {
		if (wc_children[i].h)
			continue;
		if (!DuplicateHandle(GetCurrentProcess(), process_handle, GetCurrentProcess(), &d,
				     0, FALSE, DUPLICATE_SAME_ACCESS)) {
			errno = wc_errno_win(GetLastError());
			return -1;
		}
		wc_children[i] = (struct wc_child){.pid = pid, .h = d};
		return 0;
	}
	errno = EAGAIN;
	return -1;
}

static int wc_status(const struct wc_child *c, DWORD code)
{
	if (c->killsig)
		return c->killsig;
	switch (code) {
	case 0xC0000005UL: return SIGSEGV;
	case 0xC000001DUL: case 0xC0000096UL: return SIGILL;
	case 0xC0000094UL: case 0xC000008EUL: case 0xC0000090UL: case 0xC0000091UL:
		return SIGFPE;
	default: return (int)((code & 0xff) << 8);
	}
}

pid_t wincompat_waitpid(pid_t pid, int *status, int options)
{
	HANDLE hs[WC_MAXCHILD];
	int idx[WC_MAXCHILD], n = 0;

	for (int i = 0; i < WC_MAXCHILD; i++)
		if (wc_children[i].h && (pid == -1 || wc_children[i].pid == pid))
			idx[n] = i, hs[n++] = wc_children[i].h;
	if (n == 0) {
		errno = ECHILD;
		return -1;
	}
	DWORD w = WaitForMultipleObjects((DWORD)n, hs, FALSE,
					 (options & WNOHANG) ? 0 : INFINITE);
	if (w == WAIT_TIMEOUT)
		return 0;
	if (w >= WAIT_OBJECT_0 + (DWORD)n) {
		errno = wc_errno_win(GetLastError());
		return -1;
	}
	struct wc_child *c = &wc_children[idx[w - WAIT_OBJECT_0]];
	DWORD code = 0;
	GetExitCodeProcess(c->h, &code);
	if (status)
		*status = wc_status(c, code);
	pid_t r = c->pid;
	CloseHandle(c->h);
	memset(c, 0, sizeof(*c));
	return r;
}

int wincompat_kill(pid_t pid, int sig)
{
	for (int i = 0; i < WC_MAXCHILD; i++) {
		struct wc_child *c = &wc_children[i];
		if (!c->h || c->pid != pid)
			continue;
		if (sig == 0)
			return 0;
		if (WaitForSingleObject(c->h, 0) == WAIT_OBJECT_0)
			return 0; /* ended, not reaped: kill(2) succeeds on a zombie */
		if (!TerminateProcess(c->h, 128u + (unsigned)sig)) {
			errno = wc_errno_win(GetLastError());
			return -1;
		}
		c->killsig = sig;
		return 0;
	}
	errno = ESRCH;
	return -1;
}

void wc_children_notify(void)
{
	void (*h)(int) = wc_handlers[SIGCHLD];

	for (int i = 0; i < WC_MAXCHILD; i++) {
		struct wc_child *c = &wc_children[i];
		if (!c->h || c->told || WaitForSingleObject(c->h, 0) != WAIT_OBJECT_0)
			continue;
		c->told = 1;
		if (h != SIG_DFL && h != SIG_IGN && h)
			h(SIGCHLD);
	}
}

static int wc_crt_signal(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGBREAK || sig == SIGABRT ||
	       sig == SIGFPE || sig == SIGILL || sig == SIGSEGV;
}

void (*wincompat_signal(int sig, void (*handler)(int)))(int)
{
	if (sig <= 0 || sig >= 32 || sig == SIGKILL) {
		errno = EINVAL;
		return SIG_ERR;
	}
	void (*old)(int) = wc_handlers[sig];
	if (wc_crt_signal(sig)) {
		old = (signal)(sig, handler); /* the CRT's, not this macro */
		if (old == SIG_ERR)
			return SIG_ERR;
	}
	wc_handlers[sig] = handler;
	return old;
}

int wincompat_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct sigaction prev = {.sa_handler = (sig > 0 && sig < 32) ? wc_handlers[sig] : NULL};

	if (sa && wincompat_signal(sig, sa->sa_handler) == SIG_ERR)
		return -1;
	if (!sa && (sig <= 0 || sig >= 32)) {
		errno = EINVAL;
		return -1;
	}
	if (old)
		*old = prev;
	return 0;
}

int wincompat_sigemptyset(sigset_t *set)
{
	*set = 0;
	return 0;
}

int wincompat_sigaddset(sigset_t *set, int sig)
{
	if (sig <= 0 || sig >= 32) {
		errno = EINVAL;
		return -1;
	}
	*set |= 1u << sig;
	return 0;
}

/* Windows has no signal mask: nothing is ever blocked, so the old mask is
 * empty, unblocking is a no-op and setting an empty mask too.  Blocking
 * anything cannot be done: -1 ENOSYS, never a pretended block. */
int wincompat_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (old)
		*old = 0;
	if (!set || how == SIG_UNBLOCK || (how == SIG_SETMASK && *set == 0) ||
	    (how == SIG_BLOCK && *set == 0))
		return 0;
	errno = ENOSYS;
	return -1;
}
