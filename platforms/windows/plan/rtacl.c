/* rtacl.c - the runtime parent's DACL as data (rtacl.h). */
#include "rtacl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "S-1-" then digits and dashes only: a string SID's shape. */
static bool rtacl_sid_shaped(const char *s)
{
	if (strncmp(s, "S-1-", 4) || !s[4])
		return false;
	for (const char *p = s + 4; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p == '-' && p[1] && p[1] != '-')))
			return false;
	return true;
}

int rtacl_parent_plan(const char *user_sid, struct rtacl_ace out[RTACL_PLAN_N])
{
	if (!user_sid || !rtacl_sid_shaped(user_sid) || strlen(user_sid) >= RTACL_SID_MAX)
		return -EINVAL;
	memset(out, 0, RTACL_PLAN_N * sizeof(*out));
	for (size_t i = 0; i < RTACL_PLAN_N; i++) {
		out[i].type = RTACL_ALLOW;
		out[i].flags = RTACL_INHERIT;
		out[i].mask = RTACL_FULL;
	}
	snprintf(out[0].sid, sizeof(out[0].sid), "%s", user_sid);
	snprintf(out[1].sid, sizeof(out[1].sid), "%s", RTACL_SID_SYSTEM);
	return 0;
}

static bool rtacl_trusted(const char *sid, const char *user_sid)
{
	return !strcmp(sid, user_sid) || !strcmp(sid, RTACL_SID_SYSTEM) ||
	       !strcmp(sid, RTACL_SID_ADMINS) || !strcmp(sid, RTACL_SID_CREATOR_OWNER) ||
	       !strcmp(sid, RTACL_SID_OWNER_RIGHTS);
}

int rtacl_parent_check(const char *owner_sid, const char *user_sid, bool has_dacl,
		       const struct rtacl_ace *aces, size_t n, const char **why,
		       const char **who)
{
	*who = NULL;
	if (!user_sid || !rtacl_sid_shaped(user_sid)) {
		*why = "the runner's user SID is unknown";
		return -EPERM;
	}
	/* The owner may always rewrite the DACL: only the caller itself.  Not
	 * SYSTEM or Administrators (trusted in ACEs, but a parent they own was
	 * not made by this user), never OWNER RIGHTS or CREATOR OWNER (they
	 * stand for an owner, they are none). */
	if (!owner_sid || strcmp(owner_sid, user_sid)) {
		*why = "owned by another principal than the runner's user (the owner may always rewrite the DACL)";
		*who = owner_sid;
		return -EPERM;
	}
	if (!has_dacl) {
		*why = "no DACL (a NULL DACL lets everyone write)";
		return -EPERM;
	}
	for (size_t i = 0; i < n; i++) {
		if (aces[i].type == RTACL_DENY)
			continue;
		if (aces[i].type != RTACL_ALLOW) {
			*why = "an ACE of a type other than allow or deny (not understood)";
			*who = aces[i].sid;
			return -EPERM;
		}
		if ((aces[i].mask & RTACL_WRITE_MASK) && !rtacl_trusted(aces[i].sid, user_sid)) {
			*why = "another principal may create, rename or delete entries in it";
			*who = aces[i].sid;
			return -EPERM;
		}
	}
	return 0;
}
