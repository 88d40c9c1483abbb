/* test_winhold.c - winhold.h over a fake oplock: every transition (the hit,
 * counting, the action failing, the break never coming, the run stopping
 * first, arm / re-arm / wait / release failures, a second break, a break
 * before the grant, events after the end), then an exhaustive property
 * check over every script of up to 6 waits.
 *
 * The fake keeps the oplock's own rules and counts every violation: no
 * request while one is held, no wait or release without one, and the
 * action must run while the broken oplock is still held (the open waits). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "winhold.h"

#define FAIL -EIO /* a wait that fails, in a script */

struct fake {
	const int *script; /* what each wait answers; past the end: TIMEOUT */
	int n, pos;
	int arm_fail_at, arm_err;         /* the nth request (1-based) fails */
	int release_fail_at, release_err; /* the nth release fails */
	int arms, releases, waits, breaks;
	bool held;
	int violations;
	int action_calls, action_k, action_ret;
	bool held_in_action;
	const char *action_path;
};

static int fake_arm(void *o)
{
	struct fake *f = o;

	f->arms++;
	if (f->held)
		f->violations++;
	if (f->arms == f->arm_fail_at)
		return f->arm_err;
	f->held = true;
	return 0;
}

static int fake_wait(void *o, int timeout_ms)
{
	struct fake *f = o;
	int ev = f->pos < f->n ? f->script[f->pos++] : WINHOLD_EV_TIMEOUT;

	f->waits++;
	if (!f->held || timeout_ms <= 0)
		f->violations++;
	if (ev == WINHOLD_EV_BROKEN)
		f->breaks++;
	return ev;
}

static int fake_release(void *o)
{
	struct fake *f = o;

	f->releases++;
	if (!f->held)
		f->violations++;
	if (f->releases == f->release_fail_at)
		return f->release_err;
	f->held = false;
	return 0;
}

static const struct winhold_ops fake_ops = {fake_arm, fake_wait, fake_release};

static int action(void *ctx, int k, const char *path)
{
	struct fake *f = ctx;

	f->action_calls++;
	f->action_k = k;
	f->held_in_action = f->held;
	f->action_path = path;
	return f->action_ret;
}

static enum winhold_outcome run(struct winhold *h, struct fake *f, int hold_at,
				const int *script, int n)
{
	f->script = script;
	f->n = n;
	if (winhold_init(h, hold_at, "C:\\w\\f", action, f) != 0)
		return WINHOLD_RUNNING;
	return winhold_drive(h, &fake_ops, f, 100);
}

#define B WINHOLD_EV_BROKEN
#define T WINHOLD_EV_TIMEOUT
#define S WINHOLD_EV_STOP

static void test_hit(void)
{
	static const int script[] = {B, B, B, B};
	struct fake f = {0};
	struct winhold h;
	char line[200];
	enum winhold_outcome o = run(&h, &f, 3, script, 4);

	winhold_describe(&h, line, sizeof(line));
	t_ok(o == WINHOLD_HIT && h.hit && h.opens == 3 && f.action_calls == 1 && f.action_k == 3 &&
	     f.held_in_action && strcmp(f.action_path, "C:\\w\\f") == 0 && f.arms == 3 &&
	     f.releases == 3 && !f.held && !h.held && f.violations == 0 && h.err == 0,
	     "hold at 3: the third break runs the action once while the open waits, then "
	     "released; nothing more armed (%s)", line);
	t_ok(strcmp(line, "window reached at open 3 of C:\\w\\f; action rc 0") == 0,
	     "its description says what was observed");
}

static void test_count(void)
{
	static const int script[] = {B, B, B, B, S};
	struct fake f = {0};
	struct winhold h;
	char line[200];
	enum winhold_outcome o = run(&h, &f, 0, script, 5);

	winhold_describe(&h, line, sizeof(line));
	t_ok(o == WINHOLD_COUNTED && h.opens == 4 && f.action_calls == 0 && !h.hit &&
	     f.arms == 5 && f.releases == 5 && !f.held && f.violations == 0,
	     "hold at 0 counts: 4 breaks, each released and re-armed, stopped; no action (%s)",
	     line);
}

static void test_not_reached(void)
{
	static const int timeout[] = {B, T}, stop[] = {B, B, S};
	struct fake f = {0}, g = {0};
	struct winhold h;
	char line[200];
	enum winhold_outcome o = run(&h, &f, 2, timeout, 2);

	winhold_describe(&h, line, sizeof(line));
	t_ok(o == WINHOLD_NOT_REACHED && h.opens == 1 && f.action_calls == 0 && !f.held &&
	     f.releases == f.arms && f.violations == 0 &&
	     strcmp(line, "window not reached: 1 opens of C:\\w\\f observed, hold at 2") == 0,
	     "the break never coming: window not reached, oplock released, no action (%s)", line);
	o = run(&h, &g, 5, stop, 3);
	t_ok(o == WINHOLD_NOT_REACHED && h.opens == 2 && g.action_calls == 0 && !g.held &&
	     g.violations == 0, "the run stopping before open 5: window not reached, released");
}

static void test_action_fails(void)
{
	static const int script[] = {B};
	struct fake f = {.action_ret = -EXDEV};
	struct winhold h;
	char line[200], want[40];
	enum winhold_outcome o = run(&h, &f, 1, script, 1);

	winhold_describe(&h, line, sizeof(line));
	snprintf(want, sizeof(want), "action rc %d", -EXDEV);
	t_ok(o == WINHOLD_HIT && h.action_rc == -EXDEV && f.action_calls == 1 && !f.held &&
	     f.releases == 1 && f.violations == 0 && strstr(line, want),
	     "the action failing: its rc reported, the oplock still released (%s)", line);
}

static void test_failures(void)
{
	static const int one[] = {B}, wait_fails[] = {B, FAIL};
	struct fake f = {.arm_fail_at = 1, .arm_err = -EOPNOTSUPP};
	struct fake g = {.arm_fail_at = 2, .arm_err = -EACCES};
	struct fake w = {0};
	struct fake r = {.release_fail_at = 1, .release_err = -EBADF};
	struct winhold h;
	char line[200];

	t_ok(run(&h, &f, 1, one, 1) == WINHOLD_ERROR && h.err == -EOPNOTSUPP && f.arms == 1 &&
	     f.releases == 0 && f.waits == 0 && !f.held && f.violations == 0,
	     "the oplock refused (Wine: ERROR_NOT_SUPPORTED): error -EOPNOTSUPP, nothing waited");
	t_ok(run(&h, &g, 3, one, 1) == WINHOLD_ERROR && h.err == -EACCES && h.opens == 1 &&
	     g.action_calls == 0 && g.releases == 1 && !g.held && g.violations == 0,
	     "a re-arm refused after open 1: error, no action");
	t_ok(run(&h, &w, 3, wait_fails, 2) == WINHOLD_ERROR && h.err == -EIO && h.opens == 1 &&
	     w.releases == 2 && !w.held && w.violations == 0,
	     "the wait failing: error, the armed oplock released first");
	winhold_describe(&h, line, sizeof(line));
	t_ok(strncmp(line, "hold error: ", 12) == 0, "an error is described as one (%s)", line);
	t_ok(run(&h, &r, 1, one, 1) == WINHOLD_ERROR && h.err == -EBADF && h.hit && h.held &&
	     r.action_calls == 1 && r.violations == 0,
	     "the release failing after the hit: error, held reported true");
}

/* Events the state does not expect, fed by hand. */
static void test_protocol(void)
{
	struct fake f = {0};
	struct winhold h;
	enum winhold_cmd c;

	winhold_init(&h, 1, "p", action, &f);
	c = winhold_start(&h);
	c = c == WINHOLD_DO_ARM ? winhold_step(&h, WINHOLD_EV_ARMED, 0) : c;
	c = c == WINHOLD_DO_WAIT ? winhold_step(&h, WINHOLD_EV_BROKEN, 0) : c;
	bool first = c == WINHOLD_DO_RELEASE && f.action_calls == 1;
	c = winhold_step(&h, WINHOLD_EV_BROKEN, 0); /* a second break */
	bool second = c == WINHOLD_DO_RELEASE && f.action_calls == 1 && h.err == -EPROTO;
	c = winhold_step(&h, WINHOLD_EV_RELEASED, 0);
	t_ok(first && second && c == WINHOLD_DO_NOTHING && h.outcome == WINHOLD_ERROR && !h.held &&
	     f.action_calls == 1,
	     "a second break: error -EPROTO, the action not run again, the release awaited");
	c = winhold_step(&h, WINHOLD_EV_BROKEN, 0);
	t_ok(c == WINHOLD_DO_NOTHING && h.outcome == WINHOLD_ERROR && f.action_calls == 1,
	     "an event after the end changes nothing");

	winhold_init(&h, 1, "p", action, &f);
	winhold_start(&h);
	c = winhold_step(&h, WINHOLD_EV_BROKEN, 0);
	t_ok(c == WINHOLD_DO_NOTHING && h.outcome == WINHOLD_ERROR && h.err == -EPROTO &&
	     !h.held && f.action_calls == 1, "a break before the grant: error, nothing to release");

	winhold_init(&h, 0, "p", NULL, NULL);
	winhold_start(&h);
	winhold_step(&h, WINHOLD_EV_ARMED, 0);
	c = winhold_start(&h);
	t_ok(c == WINHOLD_DO_RELEASE && h.err == -EPROTO, "a second start: error, release first");
	winhold_init(&h, 0, "p", NULL, NULL);
	c = winhold_step(&h, WINHOLD_EV_ARMED, 0);
	t_ok(c == WINHOLD_DO_NOTHING && h.outcome == WINHOLD_ERROR, "an event before the start");
	t_ok(winhold_init(&h, -1, "p", NULL, NULL) == -EINVAL &&
	     winhold_init(&h, 1, NULL, NULL, NULL) == -EINVAL && winhold_init(NULL, 1, "p", NULL,
	     NULL) == -EINVAL, "init refuses a negative hold_at, a NULL path or hold");
	static const int junk[] = {WINHOLD_EV_ARMED};
	struct fake j = {0};
	t_ok(run(&h, &j, 1, junk, 1) == WINHOLD_ERROR && h.err == -EPROTO && !j.held &&
	     j.violations == 0, "a wait answering a non-wait event: error, released");
}

/* Every invariant, over every script of up to 6 waits (break, timeout,
 * stop, failure), every hold_at 0..4 and each arm / release failing at
 * none or each of the first three. */
static int check_one(const int *script, int n, int hold_at, int arm_fail, int rel_fail)
{
	struct fake f = {.arm_fail_at = arm_fail, .arm_err = -EACCES,
			 .release_fail_at = rel_fail, .release_err = -EBADF};
	struct winhold h;
	enum winhold_outcome o = run(&h, &f, hold_at, script, n);
	bool rel_failed = rel_fail && f.releases >= rel_fail;

	return h.state == WINHOLD_DONE && o != WINHOLD_RUNNING && f.violations == 0 &&
	       f.action_calls <= 1 && (f.action_calls == 1) == h.hit &&
	       (!h.hit || (h.opens == (uint64_t)hold_at && f.held_in_action &&
			   f.action_k == hold_at)) &&
	       h.opens == (uint64_t)f.breaks && (o == WINHOLD_HIT) == (h.hit && !h.err) &&
	       (o != WINHOLD_NOT_REACHED || (hold_at > 0 && h.opens < (uint64_t)hold_at)) &&
	       (o != WINHOLD_COUNTED || hold_at == 0) && (o == WINHOLD_ERROR) == (h.err != 0) &&
	       (rel_failed ? h.held && f.held : !h.held && !f.held);
}

static void test_exhaustive(void)
{
	static const int evs[] = {B, T, S, FAIL};
	int script[6], runs = 0, fails = 0;

	for (int n = 0; n <= 6; n++) {
		int combos = 1;

		for (int i = 0; i < n; i++)
			combos *= 4;
		for (int c = 0; c < combos; c++) {
			for (int i = 0, v = c; i < n; i++, v /= 4)
				script[i] = evs[v % 4];
			for (int k = 0; k <= 4; k++)
				for (int a = 0; a <= 3; a++)
					for (int r = 0; r <= 3; r++) {
						runs++;
						if (!check_one(script, n, k, a, r) && fails++ < 5)
							printf("# invariant broken: n %d combo %d "
							       "hold_at %d arm_fail %d rel_fail %d\n",
							       n, c, k, a, r);
					}
		}
	}
	t_ok(fails == 0 && runs > 100000, "every invariant over %d generated runs (%d broken)",
	     runs, fails);
}

int main(void)
{
	test_hit();
	test_count();
	test_not_reached();
	test_action_fails();
	test_failures();
	test_protocol();
	test_exhaustive();
	return t_done();
}
