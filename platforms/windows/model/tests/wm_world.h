/* wm_world.h - the one place the plan and the model meet (test code): a
 * model machine built from a request (its paths created in the model's own
 * tree, by the model's own rules), the plan applied to it as the backend
 * applies it, and the command's token derived from the plan's recipe by the
 * model's CreateRestrictedToken.  Nothing here decides what is allowed:
 * the properties (test_winmodel_plan.c) derive that from the request. */
#ifndef SANDPROOF_WM_WORLD_H
#define SANDPROOF_WM_WORLD_H

#include "sandproof/request.h"
#include "winplan.h"
#include "wm.h"
#include "wm_fs.h"
#include "wm_ref.h"

/* The capability SID the model gives the plan's "capability". */
#define WORLD_CAP_SID "S-1-5-21-4000-4000-4000-4000"

struct world {
	struct wm_fs fs;
	const char *user;            /* the runner's user SID */
	int outside_file;            /* C:\outside\o.txt: the user's, outside */
	int profile_file;            /* C:\Users\u\doc.txt */
	int admin_only;              /* C:\adminonly\secret: Administrators and SYSTEM */
	int canary;                  /* a file the runner makes for the outside canary */
	char err[256];
};

/* The machine for req: the drive, a profile, an admin-only object, every
 * path of the request and the plan created (protected names present when
 * present is true), a file in each write root and in a subdirectory.  The
 * runner is base (its user SID owns what it creates).  0, or -1 with
 * w->err set. */
int world_build(struct world *w, const struct request *req, const struct winplan *p,
		const struct wm_token *base, bool present);
/* Apply every ACE of the plan as the backend does: absent paths by the
 * plan's rule, the ACE merged into the object's explicit ACEs (denies first,
 * as SetEntriesInAclW orders them), set with automatic propagation (mode).
 * 0, or -1 with w->err set (a refusal: the plan refused to run). */
int world_apply(struct world *w, const struct winplan *p, const struct wm_token *base,
		enum wm_propagate mode);
void world_free(struct world *w);

/* The model SID a plan SID names, for a runner whose token is base. */
const char *world_sid(enum winplan_sid s, const struct wm_token *base);

/* The command's token: the plan's recipe applied by the model's
 * CreateRestrictedToken to the runner's token (base "runner") or to the
 * sandbox account's (base "account").  false when the model cannot. */
bool world_command_token(const struct winplan *p, const struct wm_token *runner,
			 struct wm_token *out);

/* The plan's WFP filters as the model's, into f (capacity 16); the count. */
size_t world_filters(const struct winplan *p, const struct wm_token *base, struct wm_filter *f);

#endif
