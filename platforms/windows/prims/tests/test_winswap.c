/* test_winswap.c - winswap.h over a fake junction: the targets refused,
 * the probe there and back, the loop's count and alternation, a failure
 * stopping it, the restore, an op breaking its contract, then every
 * combination of a stop after s retargets and a failure at retarget f.
 *
 * The fake is the junction: it keeps the target the link names and
 * changes it only on a retarget that succeeds, so the checks read the
 * "host" (the fake), never only what winswap says of itself. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "winswap.h"

#define ORIG "C:\\ws\\real"
#define OTHER "C:\\outside"

struct fake {
	char names[64]; /* the target the link names now */
	int calls, fail_at, fail_err, stop_after;
	int ret_positive; /* answer this (> 0) instead of 0 */
	bool alternated;  /* every retarget asked for the other target */
};

static int fake_retarget(void *ctx, const char *target)
{
	struct fake *f = ctx;

	f->calls++;
	if (strcmp(target, f->names) == 0)
		f->alternated = false;
	if (f->calls == f->fail_at)
		return f->fail_err;
	snprintf(f->names, sizeof(f->names), "%s", target);
	return f->ret_positive;
}

static bool fake_stopping(void *ctx)
{
	struct fake *f = ctx;

	return f->calls >= f->stop_after;
}

static const struct winswap_ops ops = {fake_retarget, fake_stopping};

static void fake_init(struct fake *f, int stop_after, int fail_at)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->names, sizeof(f->names), "%s", ORIG);
	f->stop_after = stop_after;
	f->fail_at = fail_at;
	f->fail_err = -EACCES;
	f->alternated = true;
}

static void check_init(void)
{
	struct winswap s;

	t_ok(winswap_init(NULL, ORIG, OTHER) == -EINVAL, "init: NULL swapper refused");
	t_ok(winswap_init(&s, NULL, OTHER) == -EINVAL, "init: NULL target refused");
	t_ok(winswap_init(&s, ORIG, ORIG) == -EINVAL, "init: equal targets refused (no race)");
	t_ok(winswap_init(&s, "C:/ws/real", OTHER) == -EINVAL, "init: '/' separators refused (the encoder's rule)");
	t_ok(winswap_init(&s, ORIG, "outside") == -EINVAL, "init: a relative target refused");
	t_ok(winswap_init(&s, ORIG, "C:\\a\\..\\b") == -EINVAL, "init: '..' refused");
	t_ok(winswap_init(&s, ORIG, OTHER) == 0 && s.at == 0 && s.exchanges == 0 && s.err == 0,
	     "init: two valid targets, the link at the original");
	winswap_free(&s);
	winswap_free(&s); /* twice: harmless */
}

static void check_probe(void)
{
	struct winswap s;
	struct fake f;

	fake_init(&f, 1000, 0);
	winswap_init(&s, ORIG, OTHER);
	t_ok(winswap_probe(&s, &ops, &f) == 0 && f.calls == 2 && strcmp(f.names, ORIG) == 0 &&
		     s.at == 0 && s.exchanges == 0,
	     "probe: there and back, not counted, the link at the original");
	winswap_free(&s);

	fake_init(&f, 1000, 1);
	winswap_init(&s, ORIG, OTHER);
	t_ok(winswap_probe(&s, &ops, &f) == -EACCES && s.at == 0 && strcmp(f.names, ORIG) == 0,
	     "probe: a first step refused is the error, nothing changed");
	winswap_free(&s);

	fake_init(&f, 1000, 2);
	winswap_init(&s, ORIG, OTHER);
	t_ok(winswap_probe(&s, &ops, &f) == -EACCES && s.at == 1 && strcmp(f.names, OTHER) == 0,
	     "probe: the way back refused: at says the link is at the other target");
	f.fail_at = 0;
	t_ok(winswap_restore(&s, &ops, &f) == 0 && strcmp(f.names, ORIG) == 0 && s.at == 0,
	     "restore after a half probe: the link back at the original");
	winswap_free(&s);
}

static void check_loop(void)
{
	struct winswap s;
	struct fake f;

	fake_init(&f, 7, 0);
	winswap_init(&s, ORIG, OTHER);
	t_ok(winswap_loop(&s, &ops, &f) == 0 && s.exchanges == 7 && f.calls == 7 && f.alternated,
	     "loop: 7 retargets until stopped, each to the other target, 7 counted");
	t_ok(s.at == 1 && strcmp(f.names, OTHER) == 0, "loop: an odd count leaves the link at the other target");
	t_ok(winswap_restore(&s, &ops, &f) == 0 && strcmp(f.names, ORIG) == 0 && f.calls == 8,
	     "restore: one retarget back to the original");
	t_ok(winswap_restore(&s, &ops, &f) == 0 && f.calls == 8, "restore at the original: nothing done");
	winswap_free(&s);

	fake_init(&f, 1000, 4);
	winswap_init(&s, ORIG, OTHER);
	t_ok(winswap_loop(&s, &ops, &f) == -EACCES && s.err == -EACCES && s.exchanges == 3 && f.calls == 4,
	     "loop: the 4th retarget fails: the loop stops there, 3 counted, the error kept");
	f.fail_at = 0;
	t_ok(winswap_restore(&s, &ops, &f) == 0 && strcmp(f.names, ORIG) == 0, "restore after a failure");
	winswap_free(&s);

	fake_init(&f, 1000, 2);
	winswap_init(&s, ORIG, OTHER);
	winswap_loop(&s, &ops, &f);
	f.fail_at = 3;
	f.fail_err = -EBUSY;
	t_ok(winswap_restore(&s, &ops, &f) == -EBUSY && s.at == 1, "restore refused: its error, at unchanged");
	winswap_free(&s);

	fake_init(&f, 5, 0);
	f.ret_positive = 1;
	winswap_init(&s, ORIG, OTHER);
	t_ok(winswap_loop(&s, &ops, &f) == -EIO && s.exchanges == 0,
	     "an op answering > 0 (not 0 or -errno) stops the loop with EIO");
	winswap_free(&s);

	t_ok(winswap_loop(&s, &ops, &f) == -EINVAL && winswap_restore(&s, &ops, &f) == -EINVAL &&
		     winswap_probe(&s, &ops, &f) == -EINVAL,
	     "a freed swapper is refused");
}

/* Every stop point s and failure point f: the count is the successful
 * retargets, s->at is where the fake's link is, and a restore that is
 * allowed to work leaves the link at the original. */
static void check_all(void)
{
	int bad = 0, runs = 0;

	for (int stop = 0; stop <= 24; stop++) {
		for (int fail = 0; fail <= 24; fail++) {
			struct winswap s;
			struct fake f;
			int rc;

			fake_init(&f, stop, fail);
			winswap_init(&s, ORIG, OTHER);
			rc = winswap_loop(&s, &ops, &f);
			bool failed = fail >= 1 && fail <= stop;
			uint64_t want = failed ? (uint64_t)fail - 1 : (uint64_t)stop;

			if (rc != (failed ? -EACCES : 0) || s.exchanges != want ||
			    strcmp(f.names, s.target[s.at]) != 0 || !f.alternated)
				bad++;
			f.fail_at = 0;
			if (winswap_restore(&s, &ops, &f) != 0 || strcmp(f.names, ORIG) != 0 || s.at != 0)
				bad++;
			winswap_free(&s);
			runs++;
		}
	}
	t_ok(bad == 0, "every stop point and failure point (%d runs): count, position, restore (%d bad)",
	     runs, bad);
}

int main(void)
{
	check_init();
	check_probe();
	check_loop();
	check_all();
	return t_done();
}
