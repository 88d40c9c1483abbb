/* winhold.h - the oplock hold, Windows's form of proc.h's HOLD: portable C,
 * a state machine driven by events, so every transition is unit-tested on
 * every OS with a fake oplock (tests/test_winhold.c); oplock.h drives it
 * with FSCTL_REQUEST_OPLOCK on Windows.
 *
 * What a hold is there: an oplock granted on a path the runner will open
 * breaks when the runner opens it, and that open waits until the holder
 * releases (closes its handle).  Each break counts one open, as the Linux
 * hold counts held syscalls: at the hold_at-th the action runs (the
 * scenario's junction swap) while that open waits, then the oplock is
 * released and the hold is over.  Before it, each break is released at
 * once and a new oplock requested (re-armed) for the next open.
 * hold_at = 0 only counts: every break is released and re-armed until the
 * run stops.
 *
 * What "open" means here (said wherever a count is shown): an open that
 * breaks the oplock.  Opens asking only for attributes or synchronisation
 * break none and are not counted; an open made while a break is being
 * released and the oplock re-armed is not seen (the count is of breaks
 * observed, a lower bound of the opens made).
 *
 *   IDLE --start--> ARMING --armed--> ARMED --broken(open k)--> ...
 *     k <  hold_at or hold_at 0:  RELEASING --released--> ARMING (re-arm)
 *     k == hold_at:  action runs, RELEASING --released--> DONE (HIT)
 *   ARMED --timeout/stop--> RELEASING --released--> DONE (NOT_REACHED,
 *     or COUNTED when hold_at is 0)
 *   any failure (arm, wait, release) or an event the state does not
 *     expect (a second break, a break before the grant: -EPROTO) -->
 *     RELEASING first when an oplock is held, then DONE (ERROR, err set).
 *
 * No path ends with an oplock held but a failed release (held stays true
 * then, and the caller must close the handle: oplock.h does). */
#ifndef SANDPROOF_WINHOLD_H
#define SANDPROOF_WINHOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs while open k of path waits on the broken oplock; its return value
 * is reported as action_rc (the open continues whatever it returns). */
typedef int (*winhold_action_fn)(void *ctx, int k, const char *path);

enum winhold_state {
	WINHOLD_IDLE,
	WINHOLD_ARMING,    /* an oplock request is out */
	WINHOLD_ARMED,     /* granted: waiting for a break */
	WINHOLD_RELEASING, /* broken (or given up): the release is out */
	WINHOLD_DONE,
};

enum winhold_outcome {
	WINHOLD_RUNNING,
	WINHOLD_HIT,         /* open hold_at broke it, the action ran, released */
	WINHOLD_COUNTED,     /* hold_at 0: opens counted until stop or timeout */
	WINHOLD_NOT_REACHED, /* stop or timeout before open hold_at: the window
				was not reached (never a pass) */
	WINHOLD_ERROR,       /* err says why */
};

enum winhold_event {
	WINHOLD_EV_ARMED,         /* the oplock was granted */
	WINHOLD_EV_ARM_FAILED,    /* not granted: rc is -errno */
	WINHOLD_EV_BROKEN,        /* the oplock broke: an open waits */
	WINHOLD_EV_TIMEOUT,       /* no break within the wait */
	WINHOLD_EV_STOP,          /* the run ended */
	WINHOLD_EV_WAIT_FAILED,   /* the wait itself failed: rc is -errno */
	WINHOLD_EV_RELEASED,      /* the oplock is released */
	WINHOLD_EV_RELEASE_FAILED /* rc is -errno */
};

enum winhold_cmd {
	WINHOLD_DO_ARM,     /* request an oplock, report ARMED or ARM_FAILED */
	WINHOLD_DO_WAIT,    /* wait for BROKEN, TIMEOUT, STOP or WAIT_FAILED */
	WINHOLD_DO_RELEASE, /* release it, report RELEASED or RELEASE_FAILED */
	WINHOLD_DO_NOTHING, /* done: read the outcome */
};

struct winhold {
	/* set by winhold_init, read only after */
	int hold_at;
	winhold_action_fn action; /* may be NULL (nothing runs at the hit) */
	void *ctx;
	const char *path;         /* for the action and the description; not owned */
	/* the run */
	enum winhold_state state;
	enum winhold_outcome outcome;
	enum winhold_outcome after_release; /* what a RELEASED leads to */
	uint64_t opens;  /* breaks observed */
	bool held;       /* an oplock granted and not yet released */
	bool hit;        /* the action ran */
	int action_rc;
	int err;         /* ERROR: the first -errno (-EPROTO: an unexpected event) */
};

/* hold_at >= 0 (0: count only).  -EINVAL for a negative hold_at or NULL
 * h or path. */
int winhold_init(struct winhold *h, int hold_at, const char *path, winhold_action_fn action,
		 void *ctx);

/* Start: the first command (WINHOLD_DO_ARM). */
enum winhold_cmd winhold_start(struct winhold *h);

/* Feed one event (rc: its -errno for the *_FAILED events, else 0): the
 * next command.  At the hit the action runs inside this call. */
enum winhold_cmd winhold_step(struct winhold *h, enum winhold_event ev, int rc);

/* The operations a driver needs, on whatever oplock ctx is. */
struct winhold_ops {
	int (*arm)(void *o);                  /* 0 granted, or -errno */
	int (*wait)(void *o, int timeout_ms); /* WINHOLD_EV_BROKEN, _TIMEOUT,
						 _STOP, or -errno */
	int (*release)(void *o);              /* 0, or -errno */
};

/* Run the machine to DONE over ops: timeout_ms bounds each wait for the
 * next break (> 0).  Returns the outcome; h says the rest. */
enum winhold_outcome winhold_drive(struct winhold *h, const struct winhold_ops *ops, void *o,
				   int timeout_ms);

/* One line a user reads, saying what was observed: "window reached at
 * open 3 of C:\x; action rc 0", "window not reached: 2 opens of C:\x
 * observed, hold at 3", "2 opens of C:\x observed", "hold error: errno 130
 * after 0 opens of C:\x" (the number only: the caller names it with
 * prims_errno_name, the one errno table of the OS). */
void winhold_describe(const struct winhold *h, char *buf, size_t cap);

#endif
