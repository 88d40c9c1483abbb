/* test_rtacl.c - the runtime parent's DACL as data (rtacl.h): the plan a
 * created parent gets, and the check of an existing one, case by case
 * (each refusal names its reason and the SID at fault). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rtacl.h"
#include "t.h"

#define USER "S-1-5-21-1-2-3-1001"
#define OTHER "S-1-5-21-1-2-3-1002"
#define EVERYONE "S-1-1-0"
#define USERS "S-1-5-32-545"

static struct rtacl_ace ace(unsigned type, unsigned flags, uint32_t mask, const char *sid)
{
	struct rtacl_ace a = {.type = type, .flags = flags, .mask = mask};
	strcpy(a.sid, sid);
	return a;
}

static void test_plan(void)
{
	struct rtacl_ace p[RTACL_PLAN_N];
	const char *why, *who;

	t_ok(rtacl_parent_plan(USER, p) == 0, "plan: made for a user SID");
	t_ok(p[0].type == RTACL_ALLOW && !strcmp(p[0].sid, USER) && p[0].mask == RTACL_FULL &&
	     p[0].flags == RTACL_INHERIT, "plan: the user, full control, inherited below");
	t_ok(p[1].type == RTACL_ALLOW && !strcmp(p[1].sid, RTACL_SID_SYSTEM) &&
	     p[1].mask == RTACL_FULL && p[1].flags == RTACL_INHERIT,
	     "plan: SYSTEM, full control, inherited below");
	t_ok(rtacl_parent_check(USER, USER, true, p, RTACL_PLAN_N, &why, &who) == 0,
	     "plan: passes its own check");
	t_ok(rtacl_parent_check(USER, OTHER, true, p, RTACL_PLAN_N, &why, &who) == -EPERM &&
	     who && !strcmp(who, USER), "plan: made for one user, refused for another");
	t_ok(rtacl_parent_plan("not-a-sid", p) == -EINVAL && rtacl_parent_plan("S-1-", p) == -EINVAL &&
	     rtacl_parent_plan("S-1-5--1", p) == -EINVAL && rtacl_parent_plan(NULL, p) == -EINVAL,
	     "plan: a malformed user SID is refused");
}

static void test_check(void)
{
	const char *why = NULL, *who = NULL;
	/* what %LOCALAPPDATA% gives a folder made in it */
	struct rtacl_ace profile[] = {
		ace(RTACL_ALLOW, RTACL_INHERIT | 0x10, RTACL_FULL, RTACL_SID_SYSTEM),
		ace(RTACL_ALLOW, RTACL_INHERIT | 0x10, RTACL_FULL, RTACL_SID_ADMINS),
		ace(RTACL_ALLOW, RTACL_INHERIT | 0x10, RTACL_FULL, USER),
	};
	t_ok(rtacl_parent_check(USER, USER, true, profile, 3, &why, &who) == 0,
	     "check: a profile folder (user, SYSTEM, Administrators) is accepted");
	/* the owner is the caller's SID and no other: every other SID, the
	 * ones trusted in ACEs included, is refused and named */
	static const struct { const char *sid, *what; } owners[] = {
		{OTHER, "another user"}, {RTACL_SID_ADMINS, "Administrators"},
		{RTACL_SID_SYSTEM, "SYSTEM"}, {RTACL_SID_OWNER_RIGHTS, "OWNER RIGHTS (S-1-3-4)"},
		{RTACL_SID_CREATOR_OWNER, "CREATOR OWNER (S-1-3-0)"}, {EVERYONE, "Everyone"},
		{USERS, "Users"}, {USER "0", "the user's SID with a digit more"},
		{"S-1-5-21-1-2-3", "the user's domain"},
	};
	for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++)
		t_ok(rtacl_parent_check(owners[i].sid, USER, true, profile, 3, &why, &who) == -EPERM &&
		     who && !strcmp(who, owners[i].sid) && strstr(why, "owned by"),
		     "check: owned by %s is refused, naming it", owners[i].what);
	t_ok(rtacl_parent_check(NULL, USER, true, profile, 3, &why, &who) == -EPERM,
	     "check: no owner is refused");
	t_ok(rtacl_parent_check(USER, USER, false, NULL, 0, &why, &who) == -EPERM &&
	     strstr(why, "NULL DACL"), "check: a NULL DACL is refused");
	t_ok(rtacl_parent_check(USER, USER, true, NULL, 0, &why, &who) == 0,
	     "check: an empty DACL (nobody but the owner's implicit rights) is accepted");

	static const struct { uint32_t mask; const char *what; } writes[] = {
		{0x2, "FILE_ADD_FILE"}, {0x4, "FILE_ADD_SUBDIRECTORY"}, {0x40, "FILE_DELETE_CHILD"},
		{0x10000, "DELETE"}, {0x40000, "WRITE_DAC"}, {0x80000, "WRITE_OWNER"},
		{0x10000000, "GENERIC_ALL"}, {0x40000000, "GENERIC_WRITE"}, {RTACL_FULL, "FILE_ALL_ACCESS"},
	};
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		struct rtacl_ace v[] = {profile[2], ace(RTACL_ALLOW, 0, writes[i].mask, USERS)};
		t_ok(rtacl_parent_check(USER, USER, true, v, 2, &why, &who) == -EPERM &&
		     !strcmp(who, USERS), "check: %s for Users is refused", writes[i].what);
	}
	struct rtacl_ace io[] = {profile[2], ace(RTACL_ALLOW, 0x08 | RTACL_INHERIT, 0x2, EVERYONE)};
	t_ok(rtacl_parent_check(USER, USER, true, io, 2, &why, &who) == -EPERM && !strcmp(who, EVERYONE),
	     "check: an inherit-only write ACE for Everyone is refused (it reaches the roots)");
	struct rtacl_ace ro[] = {profile[2], ace(RTACL_ALLOW, RTACL_INHERIT, 0x001200A9, EVERYONE)};
	t_ok(rtacl_parent_check(USER, USER, true, ro, 2, &why, &who) == 0,
	     "check: read and execute for Everyone is accepted");
	struct rtacl_ace dn[] = {profile[2], ace(RTACL_DENY, 0, RTACL_FULL, EVERYONE)};
	t_ok(rtacl_parent_check(USER, USER, true, dn, 2, &why, &who) == 0,
	     "check: a deny ACE for another SID is accepted");
	struct rtacl_ace obj[] = {profile[2], ace(5, 0, 0x1, OTHER)};
	t_ok(rtacl_parent_check(USER, USER, true, obj, 2, &why, &who) == -EPERM &&
	     strstr(why, "type"), "check: an object ACE (type 5) is not understood: refused");
	struct rtacl_ace co[] = {profile[2], ace(RTACL_ALLOW, 0x08 | RTACL_INHERIT, RTACL_FULL,
						 RTACL_SID_CREATOR_OWNER)};
	t_ok(rtacl_parent_check(USER, USER, true, co, 2, &why, &who) == 0,
	     "check: CREATOR OWNER (the owner of what is created below) is accepted");
	t_ok(rtacl_parent_check(USER, "bogus", true, profile, 3, &why, &who) == -EPERM,
	     "check: an unknown runner SID refuses");
}

int main(void)
{
	test_plan();
	test_check();
	return t_done();
}
