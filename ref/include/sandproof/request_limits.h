/* request_limits.h - profile.limits: the resource bounds of a run
 * (docs/CONTRACT.md, LIM-*).
 *
 * A limit the request states is explicit: the run is refused when it cannot
 * be enforced (SETUP-1).  A limit it leaves out gets its documented default,
 * applied where the host can and reported either way (enforcement.limits).
 * This header is part of the seam: the platform reads these types. */
#ifndef SANDPROOF_REQUEST_LIMITS_H
#define SANDPROOF_REQUEST_LIMITS_H

#include <stddef.h>
#include <stdint.h>

enum limit_id {
	LIMIT_PIDS,       /* tasks (processes and threads) of the command's tree */
	LIMIT_MEMORY,     /* bytes of memory charged to the sandbox */
	LIMIT_TMP,        /* bytes of the private /tmp (a tmpfs) */
	LIMIT_SHM,        /* bytes of the private /dev/shm (a tmpfs) */
	LIMIT_OPEN_FILES, /* open descriptors per process */
	LIMIT_CPU,        /* seconds of CPU time per process */
	LIMIT_COUNT
};

struct request_limits {
	uint64_t value[LIMIT_COUNT]; /* as the request states it; 0: not stated */
};

/* The request keys, also the names outcomes use ("limit": "memory_bytes"). */
extern const char *const limit_names[LIMIT_COUNT];
/* The documented defaults; 0: none (the limit is not applied unless asked). */
extern const uint64_t limit_defaults[LIMIT_COUNT];

/* The value a run should get: the request's, else the default (0: none). */
static inline uint64_t limit_wanted(const struct request_limits *l, enum limit_id id)
{
	return l->value[id] ? l->value[id] : limit_defaults[id];
}

struct cJSON;

/* Parse profile.limits (an object) into *out.  0, or -EINVAL with err
 * holding "profile.limits.<key>: <reason>" (REQ-1, REQ-2, REQ-6). */
int request_limits_parse(const struct cJSON *limits, struct request_limits *out,
			 char *err, size_t errlen);

#endif
