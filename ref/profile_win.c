/* profile_win.c - the Windows plan as one JSON object (profile_win.h):
 * every fact the text form prints, the token's reference listing included. */
#include "profile_win.h"

#include <errno.h>

#include "jw.h"

/* A bit set as its value and the names of its bits (lowest first). */
static void json_bits(struct jw *w, const char *key, const char *names_key, uint32_t v,
		      enum winplan_bits kind)
{
	char hex[32];

	jw_uint(w, key, v);
	jw_arr_open(w, names_key);
	for (unsigned i = 0; i < 32; i++) {
		uint32_t bit = (uint32_t)1 << i;
		const char *name = winplan_bit_name(kind, bit);

		if (!(v & bit))
			continue;
		snprintf(hex, sizeof(hex), "0x%x", (unsigned)bit);
		jw_str(w, NULL, name ? name : hex);
	}
	jw_arr_close(w);
}

static void json_sids(struct jw *w, const enum winplan_sid *sids, size_t n)
{
	jw_arr_open(w, "sids");
	for (size_t i = 0; i < n; i++)
		jw_str(w, NULL, winplan_sid_name(sids[i]));
	jw_arr_close(w);
}

static void json_ace(struct jw *w, const struct winplan_ace *a)
{
	jw_obj_open(w, NULL);
	jw_str(w, "path", a->path);
	json_sids(w, a->sids, a->n_sids);
	jw_str(w, "effect", a->effect == WINPLAN_DENY ? "deny" : "allow");
	json_bits(w, "mask", "mask_names", a->mask, WINPLAN_BITS_MASK);
	json_bits(w, "inherit", "inherit_names", a->inherit, WINPLAN_BITS_INHERIT);
	jw_str(w, "absent", winplan_absent_name(a->absent));
	jw_str(w, "clause", a->clause);
	jw_str(w, "why", a->why);
	jw_obj_close(w);
}

/* The token the recipe makes of the reference base token. */
static void json_listing(struct jw *w, const struct winplan_token *t)
{
	struct winplan_listing ref, out;

	winplan_token_reference(t->base, &ref);
	winplan_token_apply(t, &ref, &out);
	jw_obj_open(w, "reference");
	jw_str(w, "of", out.what);
	jw_str(w, "user", out.user);
	jw_arr_open(w, "groups");
	for (size_t i = 0; i < out.n_groups; i++) {
		jw_obj_open(w, NULL);
		jw_str(w, "sid", out.groups[i].sid);
		jw_str(w, "name", out.groups[i].name);
		jw_str(w, "state", (out.groups[i].attrs & WINPLAN_GROUP_DENY_ONLY) ? "deny-only"
				   : (out.groups[i].attrs & WINPLAN_GROUP_ENABLED) ? "enabled"
										   : "disabled");
		jw_obj_close(w);
	}
	jw_arr_close(w);
	jw_arr_open(w, "privileges");
	for (size_t i = 0; i < out.n_privileges; i++)
		jw_str(w, NULL, out.privileges[i]);
	jw_arr_close(w);
	jw_str(w, "integrity", winplan_integrity_name(out.integrity));
	jw_obj_close(w);
}

static void json_token(struct jw *w, const struct winplan_token *t)
{
	jw_obj_open(w, "token");
	jw_str(w, "base", winplan_base_name(t->base));
	if (t->base == WINPLAN_BASE_ACCOUNT)
		jw_str(w, "account", WINPLAN_ACCOUNT);
	json_bits(w, "flags", "flag_names", t->flags, WINPLAN_BITS_TOKEN);
	jw_arr_open(w, "restricting");
	for (size_t i = 0; i < t->n_restricting; i++)
		jw_str(w, NULL, winplan_sid_name(t->restricting[i]));
	jw_arr_close(w);
	jw_arr_open(w, "keep_enabled");
	for (size_t i = 0; i < t->n_keep_enabled; i++)
		jw_str(w, NULL, t->keep_enabled[i]);
	jw_arr_close(w);
	jw_str(w, "keep_privilege", t->keep_privilege);
	jw_str(w, "integrity", winplan_integrity_name(t->integrity));
	json_listing(w, t);
	jw_obj_close(w);
}

static void json_filters(struct jw *w, const struct winplan *p)
{
	jw_arr_open(w, "filters");
	for (size_t i = 0; i < p->n_filters; i++) {
		jw_obj_open(w, NULL);
		jw_str(w, "layer", p->filters[i].layer);
		jw_str(w, "action", p->filters[i].action);
		json_sids(w, p->filters[i].sids, p->filters[i].n_sids);
		jw_str(w, "clause", p->filters[i].clause);
		jw_str(w, "why", p->filters[i].why);
		jw_obj_close(w);
	}
	jw_arr_close(w);
}

int profile_win_json(const struct winplan *p, FILE *f)
{
	struct jw w;

	jw_init(&w, f);
	jw_obj_open(&w, NULL);
	json_token(&w, &p->token);
	jw_arr_open(&w, "aces");
	for (size_t i = 0; i < p->n_aces; i++)
		json_ace(&w, &p->aces[i]);
	jw_arr_close(&w);
	jw_str(&w, "network", p->network_denied ? "deny" : "allow");
	if (p->job_max_processes)
		jw_uint(&w, "job_max_processes", p->job_max_processes);
	json_bits(&w, "job_ui", "job_ui_names", p->job_ui, WINPLAN_BITS_JOB_UI);
	jw_bool(&w, "job_die_on_unhandled_exception", p->job_die_on_exception);
	json_filters(&w, p);
	jw_arr_open(&w, "canaries");
	if (p->canaries & WINPLAN_CANARY_NETWORK)
		jw_str(&w, NULL, "network");
	if (p->canaries & WINPLAN_CANARY_OUTSIDE)
		jw_str(&w, NULL, "outside");
	jw_arr_close(&w);
	jw_obj_close(&w);
	fputc('\n', f);
	return fflush(f) != 0 || ferror(f) ? -EIO : 0;
}
