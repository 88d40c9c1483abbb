/* serve_slots.c - the session table of `sandproof-ref serve` (SESS-6):
 * lookup, retention, the pruning order and the slot accounting.
 *
 * The table has cap = 2 * max_sessions slots.  At most max_sessions hold
 * live sessions; a running session pruned to make room keeps its slot until
 * its worker is reaped (at most SESS_KILL_MS + SESS_DRAIN_MS after the
 * prune), so the other max_sessions slots are for those.  serve_room grants
 * a start only when, after any pruning, fewer than max_sessions are live
 * and a slot is free; when every spare slot still holds a pruned session
 * the start is refused, and nothing is stopped for it.  serve_add checks
 * the bound again, so no order of calls can write past the table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"

int serve_init(struct server *sv, const struct serve_opts *opts, FILE *out, size_t line_max)
{
	memset(sv, 0, sizeof(*sv));
	sv->opts = *opts;
	sv->out = out;
	sv->next_id = 1;
	sv->sig_rfd = sv->sig_wfd = -1;
	sv->cap = 2 * opts->max_sessions;
	sv->line_max = line_max;
	sv->v = calloc(sv->cap, sizeof(*sv->v));
	sv->line = malloc(sv->line_max + 1); /* untouched pages: resident as filled */
	sv->scratch = malloc(opts->output_bytes);
	if (!sv->v || !sv->line || !sv->scratch) {
		serve_free(sv);
		return -ENOMEM;
	}
	return 0;
}

void serve_free(struct server *sv)
{
	while (sv->n)
		serve_forget(sv, sv->n - 1);
	free(sv->v);
	free(sv->line);
	free(sv->scratch);
	sv->v = NULL;
	sv->line = sv->scratch = NULL;
}

struct sess *serve_find(struct server *sv, uint64_t id)
{
	for (size_t i = 0; i < sv->n; i++)
		if (sv->v[i]->s.id == id && !sv->v[i]->pruned)
			return &sv->v[i]->s;
	return NULL;
}

void serve_forget(struct server *sv, size_t i)
{
	sess_free(&sv->v[i]->s);
	free(sv->v[i]);
	sv->v[i] = sv->v[--sv->n];
	sv->v[sv->n] = NULL;
}

size_t serve_count(const struct server *sv, bool running_only)
{
	size_t n = 0;

	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i]->pruned && (!running_only || !sv->v[i]->s.exited))
			n++;
	return n;
}

/* The session a start at the limit gives way (SESS-6): the finished one
 * touched least recently, else the running one touched least recently;
 * never the one a call is answering.  Its index, or -1. */
static long victim_of(const struct server *sv)
{
	long vi = -1;

	for (size_t i = 0; i < sv->n; i++) {
		const struct sess *s = &sv->v[i]->s, *v = vi < 0 ? NULL : &sv->v[vi]->s;

		if (sv->v[i]->pruned || s->busy)
			continue;
		if (!v || (s->exited && !v->exited) ||
		    (s->exited == v->exited && s->touched_ms < v->touched_ms))
			vi = (long)i;
	}
	return vi;
}

bool serve_room(struct server *sv, char *why, size_t len)
{
	size_t running = serve_count(sv, true);

	if (serve_count(sv, false) >= sv->opts.max_sessions) {
		long vi = victim_of(sv);
		struct slot *v = vi < 0 ? NULL : sv->v[vi];

		if (!v || (!v->s.exited && running <= SERVE_RUNNING_FLOOR)) {
			snprintf(why, len, "session limit (%zu) reached and none may be pruned "
				 "(%zu running, floor %d)", sv->opts.max_sessions, running,
				 SERVE_RUNNING_FLOOR);
			return false;
		}
		if (v->s.exited) {
			serve_forget(sv, (size_t)vi);
		} else if (sv->n < sv->cap) {
			v->pruned = true; /* reaped by the loop, then freed (serve_expire) */
			sess_interrupt(&v->s, serve_now());
			free(v->s.ring.buf);
			v->s.ring = (struct sess_ring){.buf = NULL};
		}
	}
	if (sv->n >= sv->cap || serve_count(sv, false) >= sv->opts.max_sessions) {
		snprintf(why, len, "session limit (%zu) reached and %zu sessions stopped to make "
			 "room are still ending (at most %d ms each); nothing was stopped for this "
			 "start", sv->opts.max_sessions, sv->n - serve_count(sv, false),
			 SESS_KILL_MS + SESS_DRAIN_MS);
		return false;
	}
	return true;
}

int serve_add(struct server *sv, struct slot *sl)
{
	if (sv->n >= sv->cap || serve_count(sv, false) >= sv->opts.max_sessions)
		return -ENOSPC;
	sv->v[sv->n++] = sl;
	return 0;
}

void serve_expire(struct server *sv, int64_t now)
{
	for (size_t i = 0; i < sv->n;) {
		const struct slot *sl = sv->v[i];

		if (!sl->s.busy && sl->s.exited &&
		    (sl->pruned || now - sl->s.exited_ms >= sv->opts.retain_ms)) {
			serve_forget(sv, i);
			continue;
		}
		i++;
	}
}

int64_t serve_next_wake(const struct server *sv, int64_t now)
{
	int64_t t = sv->call.active ? sv->call.deadline : -1;

	for (size_t i = 0; i < sv->n; i++) {
		const struct sess *s = &sv->v[i]->s;
		int64_t d = sess_deadline(s);

		if (s->exited && !s->busy)
			d = sv->v[i]->pruned ? now : s->exited_ms + sv->opts.retain_ms;
		if (d >= 0 && (t < 0 || d < t))
			t = d;
	}
	return t;
}
