/* winhold.c - winhold.h: the oplock hold's state machine and its driver.
 * Contract kept here: an oplock once granted is always released before
 * DONE (a failed release is reported, held left true); the action runs at
 * most once, only on the hold_at-th break, only while that open waits. */
#include "winhold.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int winhold_init(struct winhold *h, int hold_at, const char *path, winhold_action_fn action,
		 void *ctx)
{
	if (!h || !path || hold_at < 0)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->hold_at = hold_at;
	h->path = path;
	h->action = action;
	h->ctx = ctx;
	h->state = WINHOLD_IDLE;
	h->outcome = WINHOLD_RUNNING;
	return 0;
}

static enum winhold_cmd finish(struct winhold *h, enum winhold_outcome o)
{
	h->state = WINHOLD_DONE;
	h->outcome = o;
	return WINHOLD_DO_NOTHING;
}

/* Give up with err: release what is held first, else end now. The first
 * error is the one reported. */
static enum winhold_cmd fail(struct winhold *h, int err)
{
	if (!h->err)
		h->err = err < 0 ? err : -EPROTO;
	h->after_release = WINHOLD_ERROR;
	if (h->held) {
		h->state = WINHOLD_RELEASING;
		return WINHOLD_DO_RELEASE;
	}
	return finish(h, WINHOLD_ERROR);
}

enum winhold_cmd winhold_start(struct winhold *h)
{
	if (h->state == WINHOLD_DONE)
		return WINHOLD_DO_NOTHING;
	if (h->state != WINHOLD_IDLE)
		return fail(h, -EPROTO); /* started twice */
	h->state = WINHOLD_ARMING;
	return WINHOLD_DO_ARM;
}

static enum winhold_cmd release_then(struct winhold *h, enum winhold_outcome o)
{
	h->after_release = o;
	h->state = WINHOLD_RELEASING;
	return WINHOLD_DO_RELEASE;
}

/* A break: one more open, waiting on the oplock until it is released. */
static enum winhold_cmd on_broken(struct winhold *h)
{
	h->opens++;
	if (h->hold_at > 0 && h->opens == (uint64_t)h->hold_at) {
		h->hit = true;
		h->action_rc = h->action ? h->action(h->ctx, h->hold_at, h->path) : 0;
		return release_then(h, WINHOLD_HIT);
	}
	return release_then(h, WINHOLD_RUNNING); /* RUNNING: re-arm after */
}

static enum winhold_cmd on_released(struct winhold *h)
{
	h->held = false;
	if (h->after_release != WINHOLD_RUNNING)
		return finish(h, h->after_release);
	h->state = WINHOLD_ARMING;
	return WINHOLD_DO_ARM;
}

enum winhold_cmd winhold_step(struct winhold *h, enum winhold_event ev, int rc)
{
	switch (h->state) {
	case WINHOLD_ARMING:
		if (ev == WINHOLD_EV_ARMED) {
			h->held = true;
			h->state = WINHOLD_ARMED;
			return WINHOLD_DO_WAIT;
		}
		return fail(h, ev == WINHOLD_EV_ARM_FAILED ? rc : -EPROTO);
	case WINHOLD_ARMED:
		if (ev == WINHOLD_EV_BROKEN)
			return on_broken(h);
		if (ev == WINHOLD_EV_TIMEOUT || ev == WINHOLD_EV_STOP)
			return release_then(h, h->hold_at ? WINHOLD_NOT_REACHED : WINHOLD_COUNTED);
		return fail(h, ev == WINHOLD_EV_WAIT_FAILED ? rc : -EPROTO);
	case WINHOLD_RELEASING:
		if (ev == WINHOLD_EV_RELEASED)
			return on_released(h);
		if (ev == WINHOLD_EV_RELEASE_FAILED) {
			if (!h->err)
				h->err = rc < 0 ? rc : -EPROTO;
			return finish(h, WINHOLD_ERROR); /* held stays true */
		}
		/* A second break, a stop or a timeout while the release is
		 * out: an error, and the release still awaited. */
		if (!h->err)
			h->err = -EPROTO;
		h->after_release = WINHOLD_ERROR;
		return WINHOLD_DO_RELEASE;
	case WINHOLD_IDLE: /* an event before the start */
		h->err = -EPROTO;
		return finish(h, WINHOLD_ERROR);
	case WINHOLD_DONE:
	default:
		return WINHOLD_DO_NOTHING; /* events after the end change nothing */
	}
}

enum winhold_outcome winhold_drive(struct winhold *h, const struct winhold_ops *ops, void *o,
				   int timeout_ms)
{
	enum winhold_cmd cmd = winhold_start(h);
	int rc;

	while (cmd != WINHOLD_DO_NOTHING) {
		switch (cmd) {
		case WINHOLD_DO_ARM:
			rc = ops->arm(o);
			cmd = winhold_step(h, rc == 0 ? WINHOLD_EV_ARMED : WINHOLD_EV_ARM_FAILED, rc);
			break;
		case WINHOLD_DO_WAIT:
			rc = ops->wait(o, timeout_ms);
			cmd = rc < 0 ? winhold_step(h, WINHOLD_EV_WAIT_FAILED, rc)
				     : winhold_step(h, (enum winhold_event)rc, 0);
			break;
		case WINHOLD_DO_RELEASE:
			rc = ops->release(o);
			cmd = winhold_step(h, rc == 0 ? WINHOLD_EV_RELEASED
						      : WINHOLD_EV_RELEASE_FAILED, rc);
			break;
		default:
			cmd = WINHOLD_DO_NOTHING;
		}
	}
	return h->outcome;
}

void winhold_describe(const struct winhold *h, char *buf, size_t cap)
{
	unsigned long long n = (unsigned long long)h->opens;

	switch (h->outcome) {
	case WINHOLD_HIT:
		snprintf(buf, cap, "window reached at open %d of %s; action rc %d", h->hold_at,
			 h->path, h->action_rc);
		break;
	case WINHOLD_NOT_REACHED:
		snprintf(buf, cap, "window not reached: %llu opens of %s observed, hold at %d", n,
			 h->path, h->hold_at);
		break;
	case WINHOLD_COUNTED:
		snprintf(buf, cap, "%llu opens of %s observed", n, h->path);
		break;
	case WINHOLD_ERROR:
		snprintf(buf, cap, "hold error: errno %d after %llu opens of %s%s%s", -h->err, n,
			 h->path, h->hit ? ", action ran" : "", h->held ? ", oplock still held" : "");
		break;
	default:
		snprintf(buf, cap, "hold running: %llu opens of %s observed", n, h->path);
	}
}
