/* proc_hold.c - proc.h's hold on Windows: o->hold_path held by an oplock
 * (oplock.h, winhold.h) in a thread of its own while the run goes on.
 *
 * The hold thread drives winhold's machine over the oplock; the first
 * oplock is granted before the runner is started (wproc_hold_start waits
 * for it), so the runner's first open of the path is seen.  At the
 * hold_at-th break the thread does not run the action itself: the caller's
 * action may be Lua, which runs on the caller's thread only.  The thread
 * signals `want` and waits on `done`; proc_wait (the caller's thread) runs
 * the action while the runner's open waits, then answers.  When the run
 * is over wproc_hold_end stops the hold (winoplock_stop), answers a request
 * still pending without running the action, and joins the thread.
 *
 * hold_calls is the breaks observed (a lower bound of the opens: see
 * winhold.h); hold_hit is true only when open hold_at broke the oplock and
 * the action ran while it waited. */
#include "proc_int.h"

#include "oplock.h"
#include "junction.h"
#include "sandproof/prims.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct wproc_hold {
	const struct proc_opts *o;
	struct winoplock *op;
	struct winhold st;
	HANDLE thread, armed, want, done;
	int timeout_ms;
	int k, rc;         /* the request: open k; the action's answer */
	bool first_armed;  /* set by the hold thread before `armed` */
	int arm_rc;
	bool ending, ran;  /* the caller's thread only */
};

static int hold_arm(void *p)
{
	struct wproc_hold *w = p;
	int rc = winoplock_ops.arm(w->op);

	if (!w->first_armed) {
		w->first_armed = true;
		w->arm_rc = rc;
		SetEvent(w->armed);
	}
	return rc;
}

static int hold_wait(void *p, int timeout_ms)
{
	return winoplock_ops.wait(((struct wproc_hold *)p)->op, timeout_ms);
}

static int hold_release(void *p)
{
	return winoplock_ops.release(((struct wproc_hold *)p)->op);
}

static const struct winhold_ops hold_ops = {hold_arm, hold_wait, hold_release};

/* The action as the hold thread sees it: handed to the caller's thread. */
static int hold_bridge(void *ctx, int k, const char *path)
{
	struct wproc_hold *w = ctx;

	(void)path;
	w->k = k;
	SetEvent(w->want);
	WaitForSingleObject(w->done, INFINITE);
	return w->rc;
}

static DWORD WINAPI hold_thread(void *arg)
{
	struct wproc_hold *w = arg;

	if (winhold_init(&w->st, w->o->hold_at, w->o->hold_path, hold_bridge, w) == 0)
		winhold_drive(&w->st, &hold_ops, w, w->timeout_ms);
	SetEvent(w->armed); /* never armed: the start stops waiting */
	return 0;
}

static void hold_free(struct wproc_hold *w)
{
	if (w->thread)
		CloseHandle(w->thread);
	if (w->armed)
		CloseHandle(w->armed);
	if (w->want)
		CloseHandle(w->want);
	if (w->done)
		CloseHandle(w->done);
	if (w->op)
		winoplock_free(w->op);
	free(w);
}

HANDLE wproc_hold_want(struct wproc_hold *w)
{
	return w->want;
}

void wproc_hold_serve(struct wproc_hold *w)
{
	if (WaitForSingleObject(w->want, 0) != WAIT_OBJECT_0)
		return;
	w->rc = -ECANCELED;
	if (!w->ending && w->o->hold_action) {
		/* the runner's open of hold_path waits while this runs */
		w->rc = w->o->hold_action(w->o->hold_ctx, w->k, w->o->hold_path, 0);
		w->ran = true;
	} else if (!w->ending) {
		w->rc = 0;
		w->ran = true;
	}
	SetEvent(w->done);
}

/* Ends the hold thread: stop, answer what is pending, join. */
static void hold_join(struct wproc_hold *w)
{
	w->ending = true;
	winoplock_stop(w->op);
	for (;;) {
		HANDLE hs[2] = {w->thread, w->want};
		DWORD e = WaitForMultipleObjects(2, hs, FALSE, INFINITE);

		if (e == WAIT_OBJECT_0 + 1)
			wproc_hold_serve(w);
		else
			break;
	}
}

int wproc_hold_start(const struct proc_opts *o, struct wproc_hold **out)
{
	struct wproc_hold *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->o = o;
	w->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : PROC_TIMEOUT_MS;
	if ((rc = winoplock_new(o->hold_path, 0, NULL, &w->op)) < 0) {
		hold_free(w);
		return rc;
	}
	w->armed = CreateEventW(NULL, TRUE, FALSE, NULL);
	w->want = CreateEventW(NULL, FALSE, FALSE, NULL);
	w->done = CreateEventW(NULL, FALSE, FALSE, NULL);
	if (!w->armed || !w->want || !w->done ||
	    !(w->thread = CreateThread(NULL, 0, hold_thread, w, 0, NULL))) {
		hold_free(w);
		return -ENOMEM;
	}
	WaitForSingleObject(w->armed, INFINITE); /* set on every path of the thread */
	if (!w->first_armed || w->arm_rc < 0) {
		rc = w->first_armed ? w->arm_rc : (w->st.err ? w->st.err : -EINVAL);
		hold_join(w);
		hold_free(w);
		return rc; /* nothing started: no run without the hold asked for */
	}
	*out = w;
	return 0;
}

int wproc_hold_end(struct wproc_hold *w, struct proc_result *r)
{
	const struct winhold *st = &w->st;
	int rc = 0;

	hold_join(w);
	r->hold_calls = st->opens;
	r->hold_hit = st->outcome == WINHOLD_HIT && w->ran;
	r->action_rc = st->action_rc;
	if (st->outcome == WINHOLD_ERROR) {
		snprintf(r->hold_note, sizeof(r->hold_note),
			 "hold error: %s (Win32 error %lu) after %llu opens of %s",
			 prims_errno_name(-st->err), winjct_last_error(),
			 (unsigned long long)st->opens, st->path);
		rc = st->err;
	} else {
		winhold_describe(st, r->hold_note, sizeof(r->hold_note));
	}
	hold_free(w);
	return rc;
}
