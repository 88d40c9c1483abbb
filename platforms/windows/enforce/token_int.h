/* token_int.h - what token.c and token_rule.c share (not an interface). */
#ifndef SANDPROOF_TOKEN_INT_H
#define SANDPROOF_TOKEN_INT_H

#include <windows.h>

#include "winplan.h"

struct wenf_error;

/* TokenGroups of h, newly allocated (free()), or NULL. */
TOKEN_GROUPS *token_groups(HANDLE h);
/* CreateRestrictedToken from base with t's flags, the restricting SIDs rs
 * (t->n_restricting of them), every group t does not keep deny-only and
 * every privilege but t's kept one deleted.  0 and *nt, or -errno. */
int token_derive(const struct winplan_token *t, HANDLE base, SID_AND_ATTRIBUTES *rs,
		 HANDLE *nt, struct wenf_error *e);

#endif
