/* request_limits.c - see request_limits.h.  Kept apart from request.c: the
 * limits are one self-contained object of the profile, validated as
 * strictly as the rest (unknown and duplicate keys refused with their path). */
#include "sandproof/request_limits.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#define KIB 1024ull
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

const char *const limit_names[LIMIT_COUNT] = {
	"pids", "memory_bytes", "tmp_bytes", "shm_bytes", "open_files", "cpu_seconds",
};

/* Generous enough for builds and test suites (the catalogue and every test
 * run under them), small enough that a fork bomb, a /tmp filler or a
 * descriptor leak stops long before the host does.  Memory and CPU have no
 * default: a memory limit cannot be enforced without a cgroup, and the
 * timeout already bounds a busy loop. */
const uint64_t limit_defaults[LIMIT_COUNT] = {
	[LIMIT_PIDS] = 4096,
	[LIMIT_MEMORY] = 0,
	[LIMIT_TMP] = 1 * GIB,
	[LIMIT_SHM] = 256 * MIB,
	[LIMIT_OPEN_FILES] = 8192,
	[LIMIT_CPU] = 0,
};

static const uint64_t limit_min[LIMIT_COUNT] = {
	[LIMIT_PIDS] = 1, [LIMIT_MEMORY] = 1 * MIB, [LIMIT_TMP] = 4 * KIB,
	[LIMIT_SHM] = 4 * KIB, [LIMIT_OPEN_FILES] = 1, [LIMIT_CPU] = 1,
};

static const uint64_t limit_max[LIMIT_COUNT] = {
	[LIMIT_PIDS] = 4194304,              /* PID_MAX_LIMIT */
	[LIMIT_MEMORY] = 1ull << 50,
	[LIMIT_TMP] = 1ull << 50,
	[LIMIT_SHM] = 1ull << 50,
	[LIMIT_OPEN_FILES] = 1u << 20,       /* the kernel's default nr_open */
	[LIMIT_CPU] = 7ull * 24 * 3600,      /* the longest timeout */
};

static int lerr(char *err, size_t errlen, const char *key, const char *msg)
{
	snprintf(err, errlen, "profile.limits%s%s: %s", key ? "." : "", key ? key : "", msg);
	return -EINVAL;
}

static int limit_index(const char *key)
{
	for (int i = 0; i < LIMIT_COUNT; i++)
		if (strcmp(limit_names[i], key) == 0)
			return i;
	return -1;
}

static int check_value(const cJSON *v, int id, char *err, size_t errlen)
{
	char msg[64];
	double d = v->valuedouble;

	if (!cJSON_IsNumber(v))
		return lerr(err, errlen, v->string, "must be a number");
	if (!(d >= 0) || d != floor(d))
		return lerr(err, errlen, v->string, "must be a non-negative integer");
	if (d < (double)limit_min[id] || d > (double)limit_max[id]) {
		snprintf(msg, sizeof(msg), "must be at least %llu and at most %llu",
			 (unsigned long long)limit_min[id], (unsigned long long)limit_max[id]);
		return lerr(err, errlen, v->string, msg);
	}
	return 0;
}

int request_limits_parse(const struct cJSON *limits, struct request_limits *out,
			 char *err, size_t errlen)
{
	if (!cJSON_IsObject(limits))
		return lerr(err, errlen, NULL, "must be an object");
	for (const cJSON *a = limits->child; a; a = a->next) {
		int id = limit_index(a->string), rc;

		if (id < 0)
			return lerr(err, errlen, a->string, "unknown field");
		for (const cJSON *b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0)
				return lerr(err, errlen, a->string, "duplicate key");
		if ((rc = check_value(a, id, err, errlen)) < 0)
			return rc;
		out->value[id] = (uint64_t)a->valuedouble;
	}
	return 0;
}
