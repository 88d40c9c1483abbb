/* wm_wfp.c - WFP conditions and arbitration as documented (wm.h).
 *
 * ALE_USER_ID: "When evaluating SECURITY_DESCRIPTOR conditions, the filter
 * engine checks for FWP_ACTRL_MATCH_FILTER access. If the DACL grants
 * access ... the condition evaluates to true. Likewise if it denies access,
 * the condition evaluates to false." ("Permitting and Blocking Applications
 * and Users").  The engine's generic mapping is not documented, so whether
 * that right is a write for a write-restricted token is a reading
 * (wm_reading.match_is_write).  ALE_PACKAGE_ID: the AppContainer package
 * SID (FWP_SID), compared as a SID. */
#include <string.h>

#include "wm.h"

/* The filter engine's right as the only right of an object type: a write
 * under one reading, a read under the other. */
static const struct wm_mapping match_as_write = {
	.read = 0, .write = WM_FWP_ACTRL_MATCH_FILTER, .execute = 0,
	.all = WM_FWP_ACTRL_MATCH_FILTER,
};
static const struct wm_mapping match_as_read = {
	.read = WM_FWP_ACTRL_MATCH_FILTER, .write = 0, .execute = 0,
	.all = WM_FWP_ACTRL_MATCH_FILTER,
};

bool wm_condition_holds(const struct wm_condition *c, const struct wm_token *t,
			struct wm_reading r)
{
	bool eq;

	if (c->field == WM_ALE_USER_ID) {
		const struct wm_mapping *m = r.match_is_write ? &match_as_write : &match_as_read;

		/* The right's place in the write set is the reading itself. */
		r.write_set = WM_WRITE_GENERIC;
		eq = wm_access(&c->sd, t, WM_FWP_ACTRL_MATCH_FILTER, m, r);
	} else {
		eq = t->package[0] && strcmp(t->package, c->sid) == 0;
	}
	return c->match == WM_MATCH_EQUAL ? eq : !eq;
}

/* FWPM_FILTER_CONDITION0 "expresses a filter condition that must be true
 * for the action to be taken": every condition must hold; a filter with no
 * condition matches all traffic. */
bool wm_filter_matches(const struct wm_filter *f, const struct wm_token *t,
		       struct wm_reading r)
{
	for (size_t i = 0; i < f->n_cond; i++)
		if (!wm_condition_holds(&f->cond[i], t, r))
			return false;
	return true;
}

/* One sublayer: its highest-weight matching filter; NULL when none. */
static const struct wm_filter *sublayer_decider(const struct wm_filter *f, size_t n,
						const char *layer, unsigned sub,
						const struct wm_token *t, struct wm_reading r)
{
	const struct wm_filter *best = NULL;

	for (size_t i = 0; i < n; i++) {
		if (f[i].sublayer != sub || strcmp(f[i].layer, layer) != 0)
			continue;
		if (!wm_filter_matches(&f[i], t, r))
			continue;
		if (!best || f[i].weight > best->weight)
			best = &f[i];
	}
	return best;
}

/* "Filter Arbitration": every sublayer is evaluated; within one the
 * highest-weight matching filter's action is returned; across sublayers
 * "Block" overrides "Permit" (the basic policy; no callout here sets a hard
 * permit or a veto). */
enum wm_action wm_arbitrate(const struct wm_filter *f, size_t n, const char *layer,
			    const struct wm_token *t, struct wm_reading r)
{
	for (size_t i = 0; i < n; i++) {
		const struct wm_filter *d;

		if (strcmp(f[i].layer, layer) != 0)
			continue;
		d = sublayer_decider(f, n, layer, f[i].sublayer, t, r);
		if (d && d->action == WM_BLOCK)
			return WM_BLOCK;
	}
	return WM_PERMIT;
}
