/* request.h - the versioned request contract (docs/CONTRACT.md, REQ-*).
 *
 * A request is parsed once, strictly, into this plain structure; nothing
 * downstream sees JSON.  Every string is NUL-free and every path absolute
 * and lexically clean (no "." or ".." components, no repeated '/').
 * Ownership: everything hangs off the request and is released by
 * request_free(). */
#ifndef SANDPROOF_REQUEST_H
#define SANDPROOF_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REQUEST_VERSION 1
#define REQUEST_MAX_BYTES (1024 * 1024)
#define REQUEST_DEFAULT_OUTPUT_LIMIT (1024 * 1024)
#define REQUEST_DEFAULT_TIMEOUT_MS 600000u
#define REQUEST_ERR_MAX 512

enum fs_kind { FS_RESTRICTED = 0, FS_UNRESTRICTED };
enum net_mode { NET_DENY = 0, NET_ALLOW };

#include "sandproof/request_limits.h"
#include "sandproof/strv.h"

struct write_root {
	char *root;
	struct strv read_only_subpaths; /* absolute, each beneath root */
	struct strv protected_names;    /* relative names, e.g. ".git/hooks" */
};

struct request {
	int version;
	struct strv command;  /* argv, n >= 1 */
	char *cwd;            /* absolute */
	struct strv env;      /* "KEY=VALUE", exactly what the command gets */
	char *stdin_data;     /* may hold no NUL: it came from a JSON string */
	size_t stdin_len;
	uint64_t timeout_ms;  /* 0: no timeout */
	uint64_t output_limit_bytes;

	enum fs_kind fs_kind;
	struct strv read_roots;
	bool read_roots_stated; /* read_roots was in the request, not defaulted */
	bool include_platform_roots;
	struct write_root *write_roots;
	size_t n_write_roots;
	struct strv deny_read;
	struct strv deny_write;
	bool allow_temp;

	enum net_mode network;
	bool block_unix_sockets;

	/* Set by the run path, never by JSON: a host directory the platform
	 * serves as the sandbox's /tmp (the runtime root's tmp/). */
	const char *temp_dir;

	struct request_limits limits; /* profile.limits (request_limits.h) */

	bool has_runtime;
	char *runtime_parent;  /* absolute after "~/" expansion */
	uint64_t runtime_max_age_s;
	uint64_t runtime_max_roots;
};

/* The protected metadata names a write root gets when the request names none. */
extern const char *const request_default_protected[];

/* Parse and validate a JSON request of len bytes.  On success returns 0 and
 * fills *req.  On failure returns -EINVAL (-ENOMEM; -EPROTO when the strict
 * validator and cJSON read the text differently, which is a bug of this
 * runner, still refused) and writes into err a message that starts with the
 * field path, e.g.
 *   "profile.filesystem.write_roots[0].rooot: unknown field"
 * and *req holds nothing that needs freeing.  Every path,
 * profile.runtime.parent included, must be absolute: a leading '~' is
 * refused, never expanded. */
int request_parse(const char *json, size_t len,
		  struct request *req, char err[REQUEST_ERR_MAX]);

/* Fill *req with the defaults of an empty profile (restricted filesystem,
 * network deny, default limits).  Used by the exec CLI before its flags. */
void request_init(struct request *req);

/* How the parser judges the request's paths.  The runner's own rules are
 * POSIX (request_posix_path_rules, what request_parse uses); a parser for
 * another OS's paths (platforms/windows/plan/winpath.h) passes its own, so
 * the core never includes platform code.  Every function is pure. */
struct request_path_rules {
	const char *absolute_what;           /* "an absolute path": in messages */
	bool (*absolute)(const char *s);     /* before cleaning */
	/* Clean in place (never longer); 0, or -EINVAL with *why a static
	 * sentence naming what is refused. */
	int (*clean)(char *path, const char **why);
	/* p is root or beneath it (both clean). */
	bool (*beneath)(const char *root, const char *p);
	/* A protected metadata name, relative to its write root. */
	int (*check_relname)(const char *name, const char **why);
	const char *default_read_root;       /* when read_roots is absent; NULL: none */
	bool quote_refused;                  /* append (got "...") to a clean refusal */
};

extern const struct request_path_rules request_posix_path_rules;

/* As request_parse, judging paths by rules (NULL: POSIX). */
int request_parse_with(const char *json, size_t len,
		       const struct request_path_rules *rules, struct request *req,
		       char err[REQUEST_ERR_MAX]);

/* Lexically clean an absolute path in place: collapse "//" and "/./", drop a
 * trailing '/'.  Returns 0, or -EINVAL for a relative path or a ".."
 * component (policy paths are never resolved by name, so ".." would be an
 * ambiguity, not a convenience). */
int request_clean_path(char *path);

void request_free(struct request *req);

#endif
