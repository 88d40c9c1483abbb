/* wm.h - a model of Windows' documented access checks, written from
 * Microsoft's documentation apart from the plan it judges (README.md here:
 * every rule with its source).  Portable C, no windows.h; it never includes
 * the plan's headers and never reuses its matching: SIDs are compared as
 * strings, paths as the model's own tree, and every rule is the document's.
 *
 * Prefix wm_.  What it models:
 *   - tokens: user and groups with their attributes (enabled, deny-only,
 *     logon id, owner), privileges, integrity level and mandatory policy,
 *     restricting SIDs and the WRITE_RESTRICTED flag, an AppContainer
 *     package SID (for WFP's ALE_PACKAGE_ID only);
 *   - CreateRestrictedToken (flags, SIDs to disable, privileges deleted,
 *     restricting SIDs);
 *   - AccessCheck: privileges, mandatory integrity (no-write-up), the
 *     owner's implicit rights and OWNER RIGHTS, the DACL walk (deny before
 *     allow only by order, inherit-only ACEs skipped, NULL and empty DACL),
 *     the restricted token's second pass;
 *   - WFP: ALE_USER_ID (an access check for FWP_ACTRL_MATCH_FILTER),
 *     ALE_PACKAGE_ID (a SID), conditions and filter arbitration;
 *   - a file tree: creation with inheritance, the propagation of inheritable
 *     ACEs, junctions, and the file operations a command may try (wm_fs.h).
 *
 * Where the documents leave a point open, the model does not guess: the
 * point is a parameter (struct wm_reading) and a safety property must hold
 * under every reading (README.md, "Open points"). */
#ifndef SANDPROOF_WM_H
#define SANDPROOF_WM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WM_SID_MAX 80
#define WM_GROUPS_MAX 24
#define WM_RSIDS_MAX 8
#define WM_PRIVS_MAX 24
#define WM_ACES_MAX 32

/* Standard and generic rights (winnt.h values, "Access Mask Format"). */
#define WM_DELETE 0x00010000u
#define WM_READ_CONTROL 0x00020000u
#define WM_WRITE_DAC 0x00040000u
#define WM_WRITE_OWNER 0x00080000u
#define WM_SYNCHRONIZE 0x00100000u
#define WM_ACCESS_SYSTEM_SECURITY 0x01000000u
#define WM_MAXIMUM_ALLOWED 0x02000000u
#define WM_GENERIC_ALL 0x10000000u
#define WM_GENERIC_EXECUTE 0x20000000u
#define WM_GENERIC_WRITE 0x40000000u
#define WM_GENERIC_READ 0x80000000u

/* File and directory rights ("File Security and Access Rights"). */
#define WM_FILE_READ_DATA 0x0001u      /* FILE_LIST_DIRECTORY */
#define WM_FILE_WRITE_DATA 0x0002u     /* FILE_ADD_FILE */
#define WM_FILE_APPEND_DATA 0x0004u    /* FILE_ADD_SUBDIRECTORY */
#define WM_FILE_READ_EA 0x0008u
#define WM_FILE_WRITE_EA 0x0010u
#define WM_FILE_EXECUTE 0x0020u        /* FILE_TRAVERSE */
#define WM_FILE_DELETE_CHILD 0x0040u
#define WM_FILE_READ_ATTRIBUTES 0x0080u
#define WM_FILE_WRITE_ATTRIBUTES 0x0100u

/* Group attributes ("SID Attributes in an Access Token", TOKEN_GROUPS). */
#define WM_SE_GROUP_MANDATORY 0x00000001u
#define WM_SE_GROUP_ENABLED_BY_DEFAULT 0x00000002u
#define WM_SE_GROUP_ENABLED 0x00000004u
#define WM_SE_GROUP_OWNER 0x00000008u
#define WM_SE_GROUP_USE_FOR_DENY_ONLY 0x00000010u
#define WM_SE_GROUP_INTEGRITY 0x00000020u
#define WM_SE_GROUP_INTEGRITY_ENABLED 0x00000040u
#define WM_SE_GROUP_LOGON_ID 0xC0000000u

/* ACE types and flags (ACE_HEADER). */
#define WM_ACE_ALLOW 0u
#define WM_ACE_DENY 1u
#define WM_OI 0x01u         /* OBJECT_INHERIT_ACE */
#define WM_CI 0x02u         /* CONTAINER_INHERIT_ACE */
#define WM_NP 0x04u         /* NO_PROPAGATE_INHERIT_ACE */
#define WM_IO 0x08u         /* INHERIT_ONLY_ACE */
#define WM_INHERITED 0x10u  /* INHERITED_ACE */

/* Integrity levels (RIDs of S-1-16-x) and label policies. */
#define WM_IL_UNTRUSTED 0x0000u
#define WM_IL_LOW 0x1000u
#define WM_IL_MEDIUM 0x2000u
#define WM_IL_HIGH 0x3000u
#define WM_IL_SYSTEM 0x4000u
#define WM_NO_WRITE_UP 0x1u
#define WM_NO_READ_UP 0x2u
#define WM_NO_EXECUTE_UP 0x4u

/* Well-known SIDs ("Well-known SIDs"). */
#define WM_EVERYONE "S-1-1-0"
#define WM_LOCAL "S-1-2-0"
#define WM_CONSOLE_LOGON "S-1-2-1"
#define WM_CREATOR_OWNER "S-1-3-0"
#define WM_OWNER_RIGHTS "S-1-3-4"
#define WM_BATCH "S-1-5-3"
#define WM_INTERACTIVE "S-1-5-4"
#define WM_SERVICE "S-1-5-6"
#define WM_AUTHENTICATED_USERS "S-1-5-11"
#define WM_THIS_ORGANIZATION "S-1-5-15"
#define WM_LOCAL_ACCOUNT "S-1-5-113"
#define WM_LOCAL_ACCOUNT_ADMIN "S-1-5-114"
#define WM_SYSTEM "S-1-5-18"
#define WM_ADMINISTRATORS "S-1-5-32-544"
#define WM_USERS "S-1-5-32-545"
#define WM_POWER_USERS "S-1-5-32-547"
#define WM_BACKUP_OPERATORS "S-1-5-32-551"
#define WM_ALL_APP_PACKAGES "S-1-15-2-1"

struct wm_sid_attr {
	char sid[WM_SID_MAX];
	uint32_t attrs;
};

/* An access token.  privileges[] lists what the token holds, enabled or
 * not: a process may enable a privilege it holds (AdjustTokenPrivileges),
 * so for what a command can do, held is what counts. */
struct wm_token {
	struct wm_sid_attr user;         /* attrs: 0, or USE_FOR_DENY_ONLY */
	struct wm_sid_attr groups[WM_GROUPS_MAX];
	size_t n_groups;
	char restricting[WM_RSIDS_MAX][WM_SID_MAX];
	size_t n_restricting;
	bool write_restricted;
	uint32_t integrity;              /* WM_IL_* */
	bool no_write_up;                /* TOKEN_MANDATORY_POLICY_NO_WRITE_UP */
	char privileges[WM_PRIVS_MAX][40];
	size_t n_privileges;
	char package[WM_SID_MAX];        /* AppContainer package SID, "" none */
};

struct wm_ace {
	unsigned type;                   /* WM_ACE_ALLOW, WM_ACE_DENY */
	unsigned flags;                  /* WM_OI | WM_CI | WM_NP | WM_IO | WM_INHERITED */
	uint32_t mask;
	char sid[WM_SID_MAX];
};

/* A security descriptor: owner, DACL (has_dacl false: a NULL DACL), the
 * DACL's protected flag, the mandatory label (has_label false: none, which
 * the system treats as medium with no-write-up). */
struct wm_sd {
	char owner[WM_SID_MAX];
	bool has_dacl;
	bool protected_dacl;
	struct wm_ace dacl[WM_ACES_MAX];
	size_t n_dacl;
	bool has_label;
	uint32_t label_il;
	uint32_t label_policy;
};

/* An object type's generic mapping (GENERIC_MAPPING). */
struct wm_mapping {
	uint32_t read, write, execute, all;
};
extern const struct wm_mapping wm_file_mapping;    /* FILE_GENERIC_* */

/* The points the documents leave open (README.md, "Open points").
 *   write_set: which rights a WRITE_RESTRICTED token checks against its
 *     restricting SIDs ("considered only when evaluating write access").
 *     WM_WRITE_GENERIC: only what GENERIC_WRITE maps to (FILE_GENERIC_WRITE:
 *     DELETE, WRITE_DAC, WRITE_OWNER and FILE_DELETE_CHILD are not in it);
 *     WM_WRITE_BROAD: every right that is neither read nor execute.  The same
 *     set is what mandatory integrity's no-write-up removes.
 *   match_is_write: whether WFP's check for FWP_ACTRL_MATCH_FILTER is a
 *     write for a write-restricted token (the filter engine's generic
 *     mapping is not documented). */
enum wm_write_set { WM_WRITE_GENERIC = 0, WM_WRITE_BROAD };
struct wm_reading {
	enum wm_write_set write_set;
	bool match_is_write;
};
#define WM_N_READINGS 4
/* The i-th of the WM_N_READINGS combinations, and its name for messages. */
struct wm_reading wm_reading_nth(int i);
const char *wm_reading_name(struct wm_reading r);

/* ---- tokens (wm_token.c) ---------------------------------------------------- */

/* Add a group (the SID copied); false when full or too long. */
bool wm_token_add_group(struct wm_token *t, const char *sid, uint32_t attrs);
bool wm_token_add_privilege(struct wm_token *t, const char *name);
bool wm_token_has_privilege(const struct wm_token *t, const char *name);
/* The group entry for sid, or NULL. */
const struct wm_sid_attr *wm_token_group(const struct wm_token *t, const char *sid);
/* The logon SID (SE_GROUP_LOGON_ID), or NULL. */
const char *wm_token_logon_sid(const struct wm_token *t);

/* CreateRestrictedToken's documented flags. */
#define WM_DISABLE_MAX_PRIVILEGE 0x1u
#define WM_SANDBOX_INERT 0x2u
#define WM_LUA_TOKEN 0x4u
#define WM_WRITE_RESTRICTED 0x8u

/* CreateRestrictedToken: from base, the SIDs to disable made deny-only
 * (the user SID too, when named), privileges deleted (all but
 * SeChangeNotifyPrivilege with DISABLE_MAX_PRIVILEGE, else those named),
 * the restricting SIDs added (to those base has), WRITE_RESTRICTED
 * recorded.  false when a list overflows. */
bool wm_create_restricted(const struct wm_token *base, uint32_t flags,
			  const char *const *disable, size_t n_disable,
			  const char *const *delete_privs, size_t n_delete,
			  const char *const *restrict_sids, size_t n_restrict,
			  struct wm_token *out);

/* ---- AccessCheck (wm_access.c) ------------------------------------------------ */

/* Every right t may be granted on an object with sd (AccessCheck with
 * MAXIMUM_ALLOWED), generic rights mapped through m. */
uint32_t wm_access_max(const struct wm_sd *sd, const struct wm_token *t,
		       const struct wm_mapping *m, struct wm_reading r);
/* Whether every right of desired (generic rights mapped) is granted. */
bool wm_access(const struct wm_sd *sd, const struct wm_token *t, uint32_t desired,
	       const struct wm_mapping *m, struct wm_reading r);
/* The write set of r under m (see struct wm_reading). */
uint32_t wm_write_set(const struct wm_mapping *m, enum wm_write_set w);
/* Map GENERIC_* bits of mask through m. */
uint32_t wm_map_generic(uint32_t mask, const struct wm_mapping *m);

/* ---- WFP (wm_wfp.c) ---------------------------------------------------------- */

#define WM_FWP_ACTRL_MATCH_FILTER 0x1u
enum wm_field { WM_ALE_USER_ID = 0, WM_ALE_PACKAGE_ID };
enum wm_match { WM_MATCH_EQUAL = 0, WM_MATCH_NOT_EQUAL };
enum wm_action { WM_BLOCK = 0, WM_PERMIT };

struct wm_condition {
	enum wm_field field;
	enum wm_match match;
	struct wm_sd sd;            /* ALE_USER_ID: FWP_SECURITY_DESCRIPTOR_TYPE */
	char sid[WM_SID_MAX];       /* ALE_PACKAGE_ID: FWP_SID */
};

struct wm_filter {
	const char *layer;
	unsigned sublayer;          /* index; a higher weight is evaluated first */
	unsigned sublayer_weight;
	uint64_t weight;
	enum wm_action action;
	struct wm_condition cond[4];
	size_t n_cond;
};

/* Whether one condition holds for a process running under t. */
bool wm_condition_holds(const struct wm_condition *c, const struct wm_token *t,
			struct wm_reading r);
/* Whether every condition of f holds. */
bool wm_filter_matches(const struct wm_filter *f, const struct wm_token *t,
		       struct wm_reading r);
/* The arbitrated action at layer for traffic of t: each sublayer's
 * highest-weight matching filter decides; a block anywhere wins
 * ("Filter Arbitration"); no match at all: WM_PERMIT. */
enum wm_action wm_arbitrate(const struct wm_filter *f, size_t n, const char *layer,
			    const struct wm_token *t, struct wm_reading r);

#endif
