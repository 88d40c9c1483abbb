/* winplan.h - the Windows enforcement plan as data (portable, every OS).
 *
 * The Windows backend (platforms/windows/enforce) never decides policy: it
 * applies a struct winplan built from a parsed request by winplan_build()
 * (platforms/windows/plan), which compiles and is golden-tested on every OS.
 * `sandproof-ref profile --os windows` prints the same plan.
 *
 * Access masks and inheritance flags carry the Win32 values (winnt.h), so the
 * plan means the same bits on Linux, where windows.h does not exist.
 * Ownership: everything hangs off the plan and is released by winplan_free(). */
#ifndef SANDPROOF_WINPLAN_H
#define SANDPROOF_WINPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Access rights (winnt.h values). */
#define WINPLAN_FILE_READ_DATA 0x0001u        /* FILE_LIST_DIRECTORY on a directory */
#define WINPLAN_FILE_WRITE_DATA 0x0002u       /* FILE_ADD_FILE */
#define WINPLAN_FILE_APPEND_DATA 0x0004u      /* FILE_ADD_SUBDIRECTORY */
#define WINPLAN_FILE_READ_EA 0x0008u
#define WINPLAN_FILE_WRITE_EA 0x0010u
#define WINPLAN_FILE_EXECUTE 0x0020u          /* FILE_TRAVERSE */
#define WINPLAN_FILE_DELETE_CHILD 0x0040u
#define WINPLAN_FILE_READ_ATTRIBUTES 0x0080u
#define WINPLAN_FILE_WRITE_ATTRIBUTES 0x0100u
#define WINPLAN_DELETE 0x00010000u
#define WINPLAN_READ_CONTROL 0x00020000u
#define WINPLAN_WRITE_DAC 0x00040000u
#define WINPLAN_WRITE_OWNER 0x00080000u
#define WINPLAN_SYNCHRONIZE 0x00100000u

/* ACE inheritance flags (winnt.h values). */
#define WINPLAN_OBJECT_INHERIT 0x1u
#define WINPLAN_CONTAINER_INHERIT 0x2u
#define WINPLAN_NO_PROPAGATE 0x4u
#define WINPLAN_INHERIT_ONLY 0x8u

/* A job's UI restrictions (winnt.h JOB_OBJECT_UILIMIT_* values): no handle
 * of a window or other USER object outside the job, no clipboard read or
 * write, no system parameters, display settings, global atoms, desktop
 * switch or creation, no ExitWindows. */
#define WINPLAN_JOB_UI_HANDLES 0x01u
#define WINPLAN_JOB_UI_READCLIPBOARD 0x02u
#define WINPLAN_JOB_UI_WRITECLIPBOARD 0x04u
#define WINPLAN_JOB_UI_SYSTEMPARAMETERS 0x08u
#define WINPLAN_JOB_UI_DISPLAYSETTINGS 0x10u
#define WINPLAN_JOB_UI_GLOBALATOMS 0x20u
#define WINPLAN_JOB_UI_DESKTOP 0x40u
#define WINPLAN_JOB_UI_EXITWINDOWS 0x80u
#define WINPLAN_JOB_UI_ALL 0xFFu

/* Restricted-token flags (winnt.h values for CreateRestrictedToken). */
#define WINPLAN_DISABLE_MAX_PRIVILEGE 0x1u
#define WINPLAN_SANDBOX_INERT 0x2u
#define WINPLAN_LUA_TOKEN 0x4u
#define WINPLAN_WRITE_RESTRICTED 0x8u

#define WINPLAN_ERR_MAX 512

/* Whom an ACE or a filter names.  The capability SID is per workspace
 * (derived by the backend, printed symbolically by the profile); the logon
 * SID is the session's; everyone is S-1-1-0; the account is the sandbox
 * account's user SID (token base "account", below). */
enum winplan_sid {
	WINPLAN_SID_CAPABILITY = 0, WINPLAN_SID_LOGON, WINPLAN_SID_EVERYONE, WINPLAN_SID_ACCOUNT
};
#define WINPLAN_SIDS_MAX 2
enum winplan_effect { WINPLAN_ALLOW = 0, WINPLAN_DENY };
/* What the backend does when the path does not exist at apply time:
 *   REFUSE      the run is refused (sandbox setup failure);
 *   SKIP        the ACE is not applied (a deny_write path outside every
 *               writable area, as on Linux);
 *   CREATE_DIR  an empty placeholder directory is created (handles that
 *               refuse reparse points, journaled), the ACE applied; after
 *               the run each placeholder the backend created is removed,
 *               innermost first, if it is still an empty directory.  The
 *               plan lists an ancestor before the paths beneath it.
 * (README.md, "Absent protected names", says why.) */
enum winplan_absent { WINPLAN_ABSENT_REFUSE = 0, WINPLAN_ABSENT_SKIP, WINPLAN_ABSENT_CREATE_DIR };

/* One entry of the ACL plan: the same access for each SID of sids[]. */
struct winplan_ace {
	char *path;                 /* absolute, normalised: "C:\\dir\\sub" */
	enum winplan_sid sids[WINPLAN_SIDS_MAX];
	size_t n_sids;
	enum winplan_effect effect;
	uint32_t mask;              /* WINPLAN_FILE_* | WINPLAN_DELETE ... */
	uint32_t inherit;           /* WINPLAN_*_INHERIT; on a file the backend drops them */
	enum winplan_absent absent;
	const char *clause;         /* static: the contract clause, e.g. "FS-2" */
	const char *why;            /* static: one line a user reads */
};

/* Whose token the command's is restricted from (README.md, "The token"):
 *   RUNNER   the runner's own token;
 *   ACCOUNT  a batch logon of the local sandbox account WINPLAN_ACCOUNT: the
 *            WFP filters match its user SID, which every access check
 *            sees enabled (network deny, §1 of issue 32). */
enum winplan_base { WINPLAN_BASE_RUNNER = 0, WINPLAN_BASE_ACCOUNT };
#define WINPLAN_ACCOUNT "sandproof-offline"

/* Integrity levels: the RIDs of S-1-16-x. */
#define WINPLAN_IL_LOW 0x1000u
#define WINPLAN_IL_MEDIUM 0x2000u

/* The token recipe.  Groups: every group of the base token is made
 * deny-only (CreateRestrictedToken's SidsToDisable) but those keep_enabled
 * names ("user", "logon", or a well-known SID string), as Chromium's
 * restricted tokens do; deny-only SIDs still meet deny ACEs.  Privileges:
 * every privilege is deleted (PrivilegesToDelete; not DISABLE_MAX_PRIVILEGE,
 * which the documents say only disables them) but keep_privilege.
 * Integrity: lowered to `integrity` when above, never raised. */
struct winplan_token {
	uint32_t flags;             /* WINPLAN_LUA_TOKEN | WINPLAN_WRITE_RESTRICTED */
	enum winplan_base base;
	enum winplan_sid restricting[4];
	size_t n_restricting;
	const char *const *keep_enabled;    /* static */
	size_t n_keep_enabled;
	const char *keep_privilege;         /* static: "SeChangeNotifyPrivilege" */
	uint32_t integrity;                 /* WINPLAN_IL_MEDIUM */
};

/* One WFP filter as data: the backend adds it (elevated) in a dynamic
 * session.  Its one condition is FWPM_CONDITION_ALE_USER_ID with a
 * security descriptor granting FWP_ACTRL_MATCH_FILTER to every SID of
 * sids[]: a process matches when its token is granted that right. */
struct winplan_filter {
	const char *layer;          /* static: e.g. "FWPM_LAYER_ALE_AUTH_CONNECT_V4" */
	const char *action;         /* static: "block" */
	enum winplan_sid sids[WINPLAN_SIDS_MAX];
	size_t n_sids;
	const char *why;            /* static */
	const char *clause;         /* static: the contract clause, "NET-1" */
};

/* The runtime self-checks the backend makes before the command starts,
 * under the very token and job; anything getting through refuses the run
 * (README.md, "Canaries"). */
#define WINPLAN_CANARY_NETWORK 0x1u  /* a loopback TCP connect and a UDP datagram */
#define WINPLAN_CANARY_OUTSIDE 0x2u  /* DELETE, WRITE_DAC, WRITE_DATA on a file outside */

struct winplan {
	struct winplan_ace *aces;
	size_t n_aces;
	struct winplan_token token;
	struct winplan_filter *filters;
	size_t n_filters;
	bool network_denied;        /* filters must be in place or the run is refused */
	uint32_t canaries;          /* WINPLAN_CANARY_* */
	uint64_t job_max_processes; /* the job's active-process limit (LIM-2, pids); 0: none */
	uint32_t job_ui;            /* WINPLAN_JOB_UI_*: JOBOBJECT_BASIC_UI_RESTRICTIONS */
	bool job_die_on_exception;  /* JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION */
};

/* A token as the profile lists it: groups with their attributes,
 * privileges, integrity (winplan_token.c). */
#define WINPLAN_GROUP_ENABLED 0x00000004u       /* SE_GROUP_ENABLED */
#define WINPLAN_GROUP_DENY_ONLY 0x00000010u     /* SE_GROUP_USE_FOR_DENY_ONLY */
#define WINPLAN_GROUP_LOGON_ID 0xC0000000u      /* SE_GROUP_LOGON_ID */
#define WINPLAN_LISTING_MAX 24
struct winplan_tgroup {
	const char *sid;            /* static: a SID string or "<user>", "<logon>" */
	const char *name;           /* static: what it is */
	uint32_t attrs;
};
struct winplan_listing {
	const char *what;           /* static: whose token */
	const char *user;           /* static: the user SID as printed */
	bool user_deny_only;
	struct winplan_tgroup groups[WINPLAN_LISTING_MAX];
	size_t n_groups;
	const char *privileges[WINPLAN_LISTING_MAX];
	size_t n_privileges;
	uint32_t integrity;
};

/* The reference token the profile lists the recipe against: an elevated
 * administrator for WINPLAN_BASE_RUNNER (the most a runner brings), the
 * sandbox account's batch logon for WINPLAN_BASE_ACCOUNT.  The backend
 * applies the same rule to the real token and checks the result. */
void winplan_token_reference(enum winplan_base base, struct winplan_listing *out);
/* t's recipe applied to in (groups deny-only but the kept, privileges
 * deleted but the kept one, integrity lowered). */
void winplan_token_apply(const struct winplan_token *t, const struct winplan_listing *in,
			 struct winplan_listing *out);
/* The recipe a plan carries: write-restricted (capability, logon,
 * Everyone) when restricted; the sandbox account as the base when account. */
void winplan_token_recipe(struct winplan_token *t, bool restricted, bool account);
/* Whether t keeps enabled a group sid with attrs (a logon SID has
 * WINPLAN_GROUP_LOGON_ID); integrity groups are not t's to change. */
bool winplan_token_keeps(const struct winplan_token *t, const char *sid, uint32_t attrs);

/* The masks the builder uses (README.md, "ACE kinds", says why each bit).
 * Allow on a write root: read, write, append, attributes, EAs, DELETE of
 * the object itself; never FILE_DELETE_CHILD (it would let the command
 * delete or rename a protected child whatever the child's own deny says),
 * never WRITE_DAC or WRITE_OWNER. */
#define WINPLAN_MASK_ALLOW_WRITE                                                  \
	(WINPLAN_FILE_READ_DATA | WINPLAN_FILE_WRITE_DATA | WINPLAN_FILE_APPEND_DATA | \
	 WINPLAN_FILE_READ_EA | WINPLAN_FILE_WRITE_EA | WINPLAN_FILE_EXECUTE |        \
	 WINPLAN_FILE_READ_ATTRIBUTES | WINPLAN_FILE_WRITE_ATTRIBUTES | WINPLAN_DELETE | \
	 WINPLAN_READ_CONTROL | WINPLAN_SYNCHRONIZE)
/* The allow on a writable area's own directory: the same but DELETE, so
 * the command can neither delete nor rename the root of its grant (it is
 * an ancestor of every protected name, META-2); what is below gets DELETE
 * from an inherit-only allow. */
#define WINPLAN_MASK_ALLOW_ROOT (WINPLAN_MASK_ALLOW_WRITE & ~WINPLAN_DELETE)
/* Deny on a read-only path: every write bit, delete of the object and of
 * its children, and the rights to rewrite the DACL or take ownership. */
#define WINPLAN_MASK_DENY_WRITE                                                      \
	(WINPLAN_FILE_WRITE_DATA | WINPLAN_FILE_APPEND_DATA | WINPLAN_FILE_WRITE_EA |     \
	 WINPLAN_FILE_WRITE_ATTRIBUTES | WINPLAN_FILE_DELETE_CHILD | WINPLAN_DELETE |     \
	 WINPLAN_WRITE_DAC | WINPLAN_WRITE_OWNER)
/* Deny on a directory between a write root and a protected path (META-2):
 * it may not be renamed or removed (its contents stay writable). */
#define WINPLAN_MASK_DENY_MOVE (WINPLAN_DELETE | WINPLAN_WRITE_DAC | WINPLAN_WRITE_OWNER)

/* What the plan is built for: the run's private temp directory, an
 * absolute Windows path the runtime root provides (NULL: none). */
struct winplan_opts {
	const char *temp_dir;
};

struct request;

/* Build the plan of a request whose paths were parsed with the Windows
 * rules (winpath_request_rules).  Pure: reads only req and o.  0, or
 * -EINVAL with err naming the field and why the plan cannot express it
 * (a refusal: the backend must not run the command), or -ENOMEM.  On
 * failure *out holds nothing to free. */
int winplan_build(const struct request *req, const struct winplan_opts *o,
		  struct winplan *out, char err[WINPLAN_ERR_MAX]);
void winplan_free(struct winplan *p);

/* Symbolic names, as the profile prints them. */
const char *winplan_sid_name(enum winplan_sid sid);
const char *winplan_absent_name(enum winplan_absent a);
const char *winplan_base_name(enum winplan_base b);
/* "low", "medium", "high", "system" for an integrity RID. */
const char *winplan_integrity_name(uint32_t il);

/* The name of one bit of an access mask, inheritance flags or token flags
 * ("WRITE_DATA", "OBJECT_INHERIT", "LUA_TOKEN"); NULL for a bit with no name. */
enum winplan_bits {
	WINPLAN_BITS_MASK = 0, WINPLAN_BITS_INHERIT, WINPLAN_BITS_TOKEN, WINPLAN_BITS_JOB_UI
};
const char *winplan_bit_name(enum winplan_bits kind, uint32_t bit);

/* The plan as the stable text `sandproof-ref profile --os windows` prints
 * (README.md, "The profile").  Returns 0, or -EIO when f reports an error. */
int winplan_print_text(const struct winplan *p, FILE *f);

#endif
