/* oplock.c - oplock.h: FSCTL_REQUEST_OPLOCK, overlapped, as winhold's ops.
 * Contract: o->h is open exactly while an oplock is requested or held; the
 * OVERLAPPED it was requested with stays alive until the request has
 * completed (reaped before the handle is closed). */
#include "oplock.h"
#include "junction.h"
#include "winprim_int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

struct winoplock {
	char *path;
	wchar_t *wpath;
	DWORD share;
	HANDLE process;       /* not owned */
	HANDLE stop;          /* manual-reset event */
	HANDLE h;             /* the holder's handle, or INVALID_HANDLE_VALUE */
	bool pending;         /* a request on h is out (granted, not completed) */
	OVERLAPPED ov;        /* ov.hEvent owned */
	REQUEST_OPLOCK_INPUT_BUFFER in;
	REQUEST_OPLOCK_OUTPUT_BUFFER out;
};

int winoplock_new(const char *path, unsigned long share, void *process, struct winoplock **out)
{
	struct winoplock *o;

	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	if (!(o = calloc(1, sizeof(*o))))
		return -ENOMEM;
	o->h = INVALID_HANDLE_VALUE;
	o->share = (DWORD)share;
	o->process = process;
	o->path = strdup(path);
	o->wpath = winprim_wide(path);
	o->stop = CreateEventW(NULL, TRUE, FALSE, NULL);
	o->ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!o->path || !o->wpath || !o->stop || !o->ov.hEvent) {
		int rc = o->path && !o->wpath ? -EINVAL : -ENOMEM;

		winoplock_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

void winoplock_stop(struct winoplock *o)
{
	if (o)
		SetEvent(o->stop);
}

/* Close the holder's handle, cancelling and reaping a pending request
 * first (its OVERLAPPED must outlive it).  Only a request that went
 * pending is reaped: one refused at once completes nothing (Wine leaves
 * such an OVERLAPPED at STATUS_PENDING forever: waiting on it hangs). */
static int close_holder(struct winoplock *o)
{
	DWORD n;

	if (o->h == INVALID_HANDLE_VALUE)
		return 0;
	if (o->pending) {
		CancelIoEx(o->h, &o->ov);
		GetOverlappedResult(o->h, &o->ov, &n, TRUE);
		o->pending = false;
	}
	BOOL ok = CloseHandle(o->h);
	o->h = INVALID_HANDLE_VALUE;
	return ok ? 0 : winprim_fail(GetLastError());
}

void winoplock_free(struct winoplock *o)
{
	if (!o)
		return;
	close_holder(o);
	if (o->stop)
		CloseHandle(o->stop);
	if (o->ov.hEvent)
		CloseHandle(o->ov.hEvent);
	free(o->path);
	free(o->wpath);
	free(o);
}

static int op_arm(void *v)
{
	struct winoplock *o = v;
	DWORD err;

	if (o->h != INVALID_HANDLE_VALUE)
		return -EBUSY; /* winhold never arms twice: a bug if seen */
	o->h = CreateFileW(o->wpath, GENERIC_READ, o->share, NULL, OPEN_EXISTING,
			   FILE_FLAG_OVERLAPPED | FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (o->h == INVALID_HANDLE_VALUE)
		return winprim_fail(GetLastError());
	memset(&o->in, 0, sizeof(o->in));
	o->in.StructureVersion = REQUEST_OPLOCK_CURRENT_VERSION;
	o->in.StructureLength = sizeof(o->in);
	o->in.RequestedOplockLevel = OPLOCK_LEVEL_CACHE_READ | OPLOCK_LEVEL_CACHE_HANDLE;
	o->in.Flags = REQUEST_OPLOCK_INPUT_FLAG_REQUEST;
	memset(&o->out, 0, sizeof(o->out));
	o->out.StructureVersion = REQUEST_OPLOCK_CURRENT_VERSION;
	o->out.StructureLength = sizeof(o->out);
	ResetEvent(o->ov.hEvent);
	/* Granted is FALSE with ERROR_IO_PENDING; anything else is not granted
	 * (TRUE included: the request completed at once). */
	if (!DeviceIoControl(o->h, FSCTL_REQUEST_OPLOCK, &o->in, sizeof(o->in), &o->out,
			     sizeof(o->out), NULL, &o->ov) &&
	    (err = GetLastError()) == ERROR_IO_PENDING) {
		o->pending = true;
		return 0;
	}
	err = GetLastError();
	close_holder(o);
	return winprim_fail(err == ERROR_SUCCESS ? ERROR_OPLOCK_NOT_GRANTED : err);
}

static int op_wait(void *v, int timeout_ms)
{
	struct winoplock *o = v;
	HANDLE evs[3] = {o->ov.hEvent, o->stop, o->process};
	DWORD n, w = WaitForMultipleObjects(o->process ? 3 : 2, evs, FALSE, (DWORD)timeout_ms);

	if (w == WAIT_OBJECT_0) {
		o->pending = false; /* completed: the break (or a failure) */
		return GetOverlappedResult(o->h, &o->ov, &n, FALSE) ? WINHOLD_EV_BROKEN
								     : winprim_fail(GetLastError());
	}
	if (w == WAIT_OBJECT_0 + 1 || w == WAIT_OBJECT_0 + 2)
		return WINHOLD_EV_STOP;
	if (w == WAIT_TIMEOUT)
		return WINHOLD_EV_TIMEOUT;
	return winprim_fail(GetLastError());
}

static int op_release(void *v)
{
	return close_holder(v);
}

const struct winhold_ops winoplock_ops = {op_arm, op_wait, op_release};

enum winhold_outcome winoplock_hold(struct winoplock *o, struct winhold *h, int hold_at,
				    winhold_action_fn action, void *ctx, int timeout_ms)
{
	if (!h)
		return WINHOLD_ERROR;
	if (!o || timeout_ms <= 0 || winhold_init(h, hold_at, o->path, action, ctx) < 0) {
		memset(h, 0, sizeof(*h));
		h->outcome = WINHOLD_ERROR;
		h->state = WINHOLD_DONE;
		h->err = -EINVAL;
		return WINHOLD_ERROR;
	}
	return winhold_drive(h, &winoplock_ops, o, timeout_ms);
}
