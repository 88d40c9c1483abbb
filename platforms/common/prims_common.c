/* prims_common.c - the parts of the primitives seam every OS answers the
 * same way: proc.h's option defaults and result release, prims.h's
 * names, read from the OS's one table (names.h), and the OS-neutral
 * halves of prims_lacks, of a swapper and of proc.h's signal option
 * (prims_common.h). */
#include "names.h"
#include "prims_common.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void proc_opts_init(struct proc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->userns_fd = -1;
	o->netns_fd = -1;
}

void proc_result_free(struct proc_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int proc_signal_check(const struct proc_opts *o)
{
	if (o->signal_no < 0 || o->signal_after_ms < 0 ||
	    (o->signal_when && (!*o->signal_when || !o->signal_no)))
		return -EINVAL;
	return 0;
}

void proc_sigtimer_start(struct proc_sigtimer *t, const struct proc_opts *o, uint64_t now)
{
	t->state = !o->signal_no ? 0 : o->signal_when ? 1 : 2;
	t->at = now + (uint64_t)o->signal_after_ms;
}

int proc_sigtimer_due(struct proc_sigtimer *t, const struct proc_opts *o, uint64_t now)
{
	struct stat st;

	if (t->state == 1) {
		/* Follows links, as "the path exists" means to a shell's -e. */
		if (stat(o->signal_when, &st) < 0)
			return PROC_SIGNAL_POLL_MS;
		t->state = 2;
		t->at = now + (uint64_t)o->signal_after_ms;
	}
	if (t->state != 2)
		return -1;
	return now >= t->at ? 0 : (int)(t->at - now);
}

const char *prims_errno_name(int err)
{
	return names_errno(err);
}

const char *prims_signal_name(int sig)
{
	return names_signal(sig, NULL);
}

int prims_errno_value(const char *name)
{
	return names_errno_value(name);
}

int prims_signal_value(const char *name)
{
	return names_signal_value(name);
}

const char *prims_lacks_find(const struct prims_lack *t, size_t n, const char *primitive)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(primitive, t[i].name) == 0)
			return t[i].why;
	return "no such primitive";
}

int swap_pair_prepare(const char *a, const char *b, struct stat *sa, struct stat *sb,
		      swap_xchg_fn xchg)
{
	int r;

	if (lstat(a, sa) < 0 || lstat(b, sb) < 0)
		return -errno;
	r = xchg(a, b);
	if (r == 0 && (r = xchg(a, b)) < 0)
		return r == -ENOENT ? -ESTALE : r;
	return r;
}

static bool same_entry(const struct stat *x, const struct stat *y)
{
	return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
}

int swap_pair_restore(const char *a, const char *b, const struct stat *sa,
		      const struct stat *sb, int loop_err, swap_xchg_fn xchg)
{
	struct stat now;
	int r = 0;

	/* By identity, not by parity: a loop killed between an exchange and
	 * its count would make parity lie. */
	if (lstat(a, &now) < 0) {
		r = -errno;
	} else if (same_entry(&now, sb)) {
		r = xchg(a, b);
		if (r == 0 && lstat(a, &now) == 0 && !same_entry(&now, sa))
			r = -ESTALE;
	} else if (!same_entry(&now, sa)) {
		r = -ESTALE;
	}
	if (r == 0 && loop_err)
		r = -loop_err;
	return r;
}
