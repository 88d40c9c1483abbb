/* proc.c - proc.h on windows: the plain launch, without fork.
 *
 * Each run is one program started by CreateProcessW, suspended, in a job
 * object of its own created before it (proc_job.c: kill on close, no
 * breakaway), assigned to the job, then resumed: nothing it starts can run
 * outside the job, and the tree dies with the job's last handle (the
 * harness dying mid-run included, so proc_die_with_parent and proc_init
 * hold by construction).  The program inherits exactly its three pipe
 * ends (PROC_THREAD_ATTRIBUTE_HANDLE_LIST), or the caller's stderr with
 * inherit_stderr; it shares the caller's console (a console of its own
 * would add a conhost.exe to the job, counted as a leftover) in a process
 * group of its own (CREATE_NEW_PROCESS_GROUP: Ctrl-C is disabled in it, so
 * the harness's Ctrl-C is the harness's to handle; Ctrl-Break still
 * reaches it - the nearest Windows has to the session setsid makes).
 * The program is named by its process handle, never by its pid; the
 * timeout and every kill terminate the job, the whole tree.
 *
 * proc_result on Windows: exit_code is the full 32-bit exit code; an
 * NTSTATUS crash code is reported as the signal POSIX would give
 * (SIGSEGV, SIGILL, SIGFPE; STATUS_CONTROL_C_EXIT as SIGINT); a run the
 * launcher killed has term_signal SIGKILL.  leftovers is the job's active
 * process count once the program ended; cpu_ms is the job's (the whole
 * tree); maxrss_kib is the program's own peak working set (its
 * descendants' are not summed).
 *
 * The signal of the options is SIGKILL alone: TerminateProcess of the
 * program (its exit code 128 + SIGKILL, reported as that signal), never
 * of its job, so what the program's own job or clean-up leaves alive is
 * counted as leftovers like any other.  Windows has no way to deliver
 * SIGTERM, SIGINT or SIGHUP to one process: any other signal is refused.
 *
 * The hold names a path (o->hold_path, proc_hold.c: an oplock, its
 * breaks counted, the action run on the caller's thread in proc_wait
 * while the runner's open waits); hold_syscalls is refused.
 *
 * Refused with -EOPNOTSUPP before anything starts (prims_lacks says why):
 * a hold of syscalls, fault filters, user and network namespaces, private mounts,
 * keep_fds (a descriptor's number does not survive into a Windows
 * process), a signal other than SIGKILL. */
#include "prims_common.h"
#include "proc_int.h"

#include <psapi.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pbuf {
	char *p;
	size_t len, limit;
	bool truncated;
};

struct proc_handle {
	const struct proc_opts *o;
	HANDLE job, process, out, err, feeder; /* out/err: our read ends */
	const void *in_data;
	size_t in_len;
	HANDLE in;                             /* the feeder's write end */
	struct pbuf bo, be;
	struct proc_result r;
	uint64_t t0, exit_at;
	bool exited, over, killed;
	struct proc_sigtimer sig;
	struct wproc_hold *hold;               /* o->hold_path's, or NULL */
};

int proc_init(void)
{
	return 0; /* the job holds every descendant, orphans included */
}

int proc_die_with_parent(void)
{
	return 0; /* the job this process runs in dies with its starter's handle */
}

int proc_kill_descendants(int wait_ms)
{
	return wproc_live_kill_all(wait_ms < 0 ? 0 : (DWORD)wait_ms);
}

int proc_pid_exists(long pid)
{
	HANDLE h;
	DWORD e;

	if (pid <= 0)
		return -EINVAL;
	h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
	if (!h) {
		e = GetLastError();
		return e == ERROR_INVALID_PARAMETER ? 0 : e == ERROR_ACCESS_DENIED ? 1 : -EIO;
	}
	e = WaitForSingleObject(h, 0);
	CloseHandle(h);
	return e == WAIT_OBJECT_0 ? 0 : 1; /* signalled: it has ended */
}

static uint64_t now_ms(void)
{
	return GetTickCount64();
}

/* ---- output */

static void pbuf_add(struct pbuf *b, const char *data, size_t n)
{
	size_t room = b->limit - b->len;

	if (n > room) {
		b->truncated = true;
		n = room;
	}
	if (!n)
		return;
	char *p = realloc(b->p, b->len + n + 1);

	if (!p) {
		b->truncated = true;
		return;
	}
	memcpy(p + b->len, data, n);
	b->len += n;
	p[b->len] = 0;
	b->p = p;
}

/* Reads what the pipe holds now, never blocking; closes it at EOF. */
static void drain(HANDLE *pipe, struct pbuf *b)
{
	char buf[65536];
	DWORD avail, got;

	while (*pipe) {
		if (!PeekNamedPipe(*pipe, NULL, 0, NULL, &avail, NULL)) {
			CloseHandle(*pipe); /* the writers are gone: EOF */
			*pipe = NULL;
			return;
		}
		if (!avail)
			return;
		if (!ReadFile(*pipe, buf, avail < sizeof(buf) ? avail : sizeof(buf), &got, NULL) ||
		    !got)
			return;
		pbuf_add(b, buf, got);
	}
}

/* ---- how the program ended */

static int crash_signal(DWORD code)
{
	switch (code) {
	case 0xC0000005: case 0xC00000FD: return SIGSEGV; /* access violation, stack */
	case 0xC000001D: case 0xC0000096: return SIGILL;  /* illegal/privileged insn */
	case 0xC000008E: case 0xC0000094: case 0xC0000095: return SIGFPE;
	case 0xC000013A: return SIGINT;                   /* STATUS_CONTROL_C_EXIT */
	default: return 0;
	}
}

static void record_end(struct proc_handle *h)
{
	DWORD code = 0;
	PROCESS_MEMORY_COUNTERS pm = {.cb = sizeof(pm)};

	h->exited = true;
	h->exit_at = now_ms();
	h->r.duration_ms = h->exit_at - h->t0;
	if (K32GetProcessMemoryInfo(h->process, &pm, sizeof(pm)))
		h->r.maxrss_kib = (long)(pm.PeakWorkingSetSize / 1024);
	GetExitCodeProcess(h->process, &code);
	if (h->killed || h->r.timed_out ||
	    (h->r.signalled && code == 128 + (DWORD)h->o->signal_no)) {
		h->r.term_signal = SIGKILL;
	} else if (crash_signal(code)) {
		h->r.term_signal = crash_signal(code);
	} else {
		h->r.exited = true;
		h->r.exit_code = (int)code;
	}
}

/* The tree through the job; the program by its handle as well, should it
 * somehow be outside the job, so "killed" is never said of a live one. */
static void kill_run(struct proc_handle *h)
{
	h->r.killed += wproc_job_kill(h->job, h->process, 5000);
	if (WaitForSingleObject(h->process, 0) != WAIT_OBJECT_0) {
		TerminateProcess(h->process, 128 + 9);
		WaitForSingleObject(h->process, 5000);
	}
}

/* ---- stdin: a thread writes it and closes the pipe, so a program that
 * never reads cannot block the caller (proc_wait's timeout still runs). */
static DWORD WINAPI feed(void *arg)
{
	struct proc_handle *h = arg;
	const char *p = h->in_data;
	size_t left = h->in_len;
	DWORD put;

	while (left && WriteFile(h->in, p, left > 65536 ? 65536 : (DWORD)left, &put, NULL)) {
		p += put;
		left -= put;
	}
	CloseHandle(h->in); /* EOF for the program (or it closed its end) */
	h->in = NULL;
	return 0;
}

static int refused(const struct proc_opts *o)
{
	if (!o || !o->argv || !o->argv[0] || (o->stdin_len && !o->stdin_data) ||
	    o->n_keep_fds < 0 || o->n_keep_fds > PROC_MAX_KEEP)
		return -EINVAL;
	if (o->hold_path && (!*o->hold_path || o->hold_syscalls || o->hold_at < 0))
		return -EINVAL;
	if (proc_signal_check(o) < 0)
		return -EINVAL;
	if (o->hold_syscalls || o->fault_syscall || o->fault_more_syscalls ||
	    o->userns_fd >= 0 || o->netns_fd >= 0 || o->private_mounts || o->n_keep_fds ||
	    (o->signal_no && o->signal_no != SIGKILL))
		return -EOPNOTSUPP;
	return 0;
}

static void setup_failed(struct proc_handle *h, int err, const char *step)
{
	h->r.setup_err = err;
	h->r.exit_code = 127;
	snprintf(h->r.setup_step, sizeof(h->r.setup_step), "%s", step);
	h->over = true;
}

int proc_start(const struct proc_opts *o, struct proc_handle **out)
{
	struct proc_handle *h;
	struct wproc_ends e;
	const char *step = "job";
	int err = 0, rc = refused(o);

	*out = NULL;
	if (rc < 0)
		return rc;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	if (o->hold_path && (rc = wproc_hold_start(o, &h->hold)) < 0) {
		free(h);
		return rc; /* the hold asked for is not there: nothing runs */
	}
	h->o = o;
	h->bo.limit = h->be.limit = o->out_limit ? o->out_limit : PROC_OUT_LIMIT;
	h->t0 = now_ms();
	proc_sigtimer_start(&h->sig, o, h->t0);
	*out = h;
	if (!(h->job = wproc_job_new(&err)) || (err = wproc_launch(o, h->job, &e, &step))) {
		setup_failed(h, err, step);
		return 0;
	}
	wproc_live_add(h->job);
	h->process = e.process;
	h->out = e.out;
	h->err = e.err;
	h->in = e.in;
	h->r.pid = (pid_t)e.pid;
	h->in_data = o->stdin_data;
	h->in_len = o->stdin_len;
	if (!(h->feeder = CreateThread(NULL, 0, feed, h, 0, NULL)))
		feed(h);
	else {
		/* stdin written (or refused), or the program ended, or the timeout */
		HANDLE w[2] = {h->feeder, h->process};
		int t = o->timeout_ms > 0 ? o->timeout_ms : PROC_TIMEOUT_MS;

		WaitForMultipleObjects(2, w, FALSE, (DWORD)t);
	}
	return 0;
}

/* One step of the run: drain, notice the end, send the signal when due,
 * apply the timeout. */
static void step_run(struct proc_handle *h)
{
	int t = h->o->timeout_ms > 0 ? h->o->timeout_ms : PROC_TIMEOUT_MS;

	drain(&h->out, &h->bo);
	drain(&h->err, &h->be);
	if (h->exited)
		return;
	if (WaitForSingleObject(h->process, 0) == WAIT_OBJECT_0) {
		record_end(h);
	} else if (proc_sigtimer_due(&h->sig, h->o, now_ms()) == 0) {
		proc_sigtimer_sent(&h->sig);
		h->r.signalled = TerminateProcess(h->process, 128 + SIGKILL) != 0;
	} else if (now_ms() - h->t0 >= (uint64_t)t) {
		h->r.timed_out = true;
		kill_run(h);
		record_end(h);
	}
}

int proc_wait(struct proc_handle *h, int wait_ms)
{
	uint64_t until = wait_ms < 0 ? UINT64_MAX : now_ms() + (uint64_t)wait_ms;
	int drain_ms = h->o->drain_ms > 0 ? h->o->drain_ms : PROC_DRAIN_MS;

	while (!h->over) {
		step_run(h);
		if (h->exited && ((!h->out && !h->err) || now_ms() - h->exit_at >= (uint64_t)drain_ms)) {
			h->over = true;
			break;
		}
		if (now_ms() >= until)
			return 0;
		if (h->hold) {
			HANDLE w[2] = {wproc_hold_want(h->hold), h->process};

			WaitForMultipleObjects(h->exited ? 1 : 2, w, FALSE, 5);
			wproc_hold_serve(h->hold); /* the action, if asked now */
		} else if (h->exited) {
			Sleep(5);
		} else {
			WaitForSingleObject(h->process, 5); /* wakes at the end */
		}
	}
	return 1;
}

void proc_kill(struct proc_handle *h)
{
	if (!h || h->over)
		return;
	if (!h->exited) {
		h->killed = true;
		kill_run(h);
		record_end(h);
	}
	drain(&h->out, &h->bo);
	drain(&h->err, &h->be);
	h->over = true;
}

static void close_run(struct proc_handle *h)
{
	if (h->feeder) {
		WaitForSingleObject(h->feeder, 5000); /* the pipe broke with the kill */
		CloseHandle(h->feeder);
	}
	if (h->in)
		CloseHandle(h->in);
	if (h->out)
		CloseHandle(h->out);
	if (h->err)
		CloseHandle(h->err);
	if (h->process)
		CloseHandle(h->process);
	if (h->job) {
		wproc_live_remove(h->job);
		CloseHandle(h->job); /* kill on close: nothing of the run survives */
	}
}

int proc_end(struct proc_handle *h, struct proc_result *r)
{
	int hold_rc = 0;

	memset(r, 0, sizeof(*r));
	if (!h)
		return -EINVAL;
	if (!h->over)
		proc_kill(h);
	if (h->job && !h->killed && !h->r.timed_out) {
		h->r.leftovers = wproc_job_active(h->job);
		if (h->o->kill_leftovers && h->r.leftovers)
			h->r.killed += wproc_job_kill(h->job, NULL, 5000);
	}
	if (h->job)
		h->r.cpu_ms = wproc_job_cpu_ms(h->job);
	if (h->hold)
		hold_rc = wproc_hold_end(h->hold, &h->r);
	close_run(h);
	*r = h->r;
	r->out = h->bo.p ? h->bo.p : calloc(1, 1);
	r->err = h->be.p ? h->be.p : calloc(1, 1);
	r->out_len = h->bo.len;
	r->err_len = h->be.len;
	r->out_truncated = h->bo.truncated;
	r->err_truncated = h->be.truncated;
	free(h);
	return !r->out || !r->err ? -ENOMEM : hold_rc;
}

int proc_run(const struct proc_opts *o, struct proc_result *r)
{
	struct proc_handle *h;
	int rc = proc_start(o, &h);

	if (rc < 0) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	proc_wait(h, -1);
	return proc_end(h, r);
}
