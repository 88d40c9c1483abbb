/* swap.c - swap.h on windows: a swap is junction.h's winjct_swap (three
 * renames, the windows in which one name is absent documented there and
 * in swap.h), a junction is winjct_create or, over an existing one,
 * winjct_retarget.  The swapper is winswap.h's loop over winjct_retarget
 * in a thread of the harness: the junction a flips between its target
 * when the swapper starts and the directory b, each flip one
 * FSCTL_SET_REPARSE_POINT (the portable loop, its count and its restore
 * are tested on every OS: tests/test_winswap.c; only this thin part is
 * native). */
#include "sandproof/swap.h"

#include "junction.h"
#include "winswap.h"

#include <windows.h>

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int swap_exchange(const char *a, const char *b)
{
	if (!a || !b)
		return -EINVAL;
	return winjct_swap(a, b);
}

/* target with '\\' separators: the harness spells paths "C:/x/y", a
 * junction's target is "C:\\x\\y" (reparse.c's encoder rules). */
static int junction_target(const char *target, char *out, size_t cap)
{
	size_t n = strlen(target);

	if (n >= cap)
		return -ENAMETOOLONG;
	for (size_t i = 0; i <= n; i++)
		out[i] = target[i] == '/' ? '\\' : target[i];
	return 0;
}

int swap_junction(const char *link, const char *target)
{
	struct reparse_link old;
	char t[4096];
	int rc;

	if (!link || !target)
		return -EINVAL;
	if ((rc = junction_target(target, t, sizeof(t))) < 0)
		return rc;
	if (winjct_read(link, &old) == 0) {
		reparse_link_free(&old);
		return winjct_retarget(link, t); /* checks again: a junction */
	}
	return winjct_create(link, t); /* -EEXIST when link is anything else */
}

/* The swapper: a thread of the harness (no process: it dies with the
 * harness, as the Linux swapper does by PR_SET_PDEATHSIG) running
 * winswap_loop until `stop`. */
struct swapper {
	struct winswap s;
	char link[4096];
	volatile LONG stop;
	HANDLE thread;
};

static int swapper_retarget(void *ctx, const char *target)
{
	return winjct_retarget(((struct swapper *)ctx)->link, target);
}

static bool swapper_stopping(void *ctx)
{
	return InterlockedCompareExchange(&((struct swapper *)ctx)->stop, 0, 0) != 0;
}

static const struct winswap_ops swapper_ops = {swapper_retarget, swapper_stopping};

static DWORD WINAPI swapper_thread(void *arg)
{
	struct swapper *w = arg;

	winswap_loop(&w->s, &swapper_ops, w); /* its error is kept in s.err */
	return 0;
}

/* The target the junction at link names now, as a DOS path (out). */
static int link_target(const char *link, char *out, size_t cap)
{
	struct reparse_link l;
	const char *dos;
	int rc = winjct_read(link, &l);

	if (rc < 0)
		return rc;
	dos = l.tag == REPARSE_TAG_MOUNT_POINT ? reparse_nt_to_dos(l.substitute) : NULL;
	rc = !dos ? -EINVAL : strlen(dos) >= cap ? -ENAMETOOLONG : 0;
	if (rc == 0)
		strcpy(out, dos);
	reparse_link_free(&l);
	return rc;
}

/* a must be a junction (-EINVAL otherwise); b a directory it may name. */
int swap_start(const char *a, const char *b, struct swapper **out)
{
	struct swapper *w;
	char orig[4096], other[4096];
	int rc;

	*out = NULL;
	if (!a || !b || strlen(a) >= sizeof(w->link))
		return -EINVAL;
	if ((rc = link_target(a, orig, sizeof(orig))) < 0 ||
	    (rc = junction_target(b, other, sizeof(other))) < 0)
		return rc;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	strcpy(w->link, a);
	if ((rc = winswap_init(&w->s, orig, other)) < 0) {
		free(w);
		return rc;
	}
	if ((rc = winswap_probe(&w->s, &swapper_ops, w)) < 0 ||
	    !(w->thread = CreateThread(NULL, 0, swapper_thread, w, 0, NULL))) {
		int back = winswap_restore(&w->s, &swapper_ops, w);

		winswap_free(&w->s);
		free(w);
		return rc < 0 ? rc : back < 0 ? back : -ENOMEM;
	}
	*out = w;
	return 0;
}

int swap_pid(const struct swapper *s)
{
	(void)s; /* a thread of the harness: no process of its own */
	return -1;
}

int swap_stop(struct swapper *w, uint64_t *exchanges)
{
	int rc;

	if (exchanges)
		*exchanges = 0;
	if (!w)
		return -EINVAL;
	InterlockedExchange(&w->stop, 1);
	WaitForSingleObject(w->thread, INFINITE);
	CloseHandle(w->thread);
	if (exchanges)
		*exchanges = w->s.exchanges;
	rc = winswap_restore(&w->s, &swapper_ops, w);
	if (rc == 0)
		rc = w->s.err;
	winswap_free(&w->s);
	free(w);
	return rc;
}
