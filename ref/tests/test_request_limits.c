/* test_request_limits.c - profile.limits parsing (REQ-1, REQ-2, REQ-6,
 * LIM-1): unknown, duplicate, mistyped and out-of-range limits are refused
 * with their field path; valid ones parse to exactly what they state, and
 * what a request leaves out stays unstated (the default is the platform's
 * to apply and report). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/request.h"
#include "t.h"

#define L(x) "{\"version\":1,\"command\":[\"true\"],\"profile\":{\"limits\":" x "}}"

static const struct bad {
	const char *json, *path, *why;
} bad[] = {
	{L("[]"), "profile.limits", "must be an object"},
	{L("4"), "profile.limits", "must be an object"},
	{L("{\"pid\":4}"), "profile.limits.pid", "unknown field"},
	{L("{\"memory\":4}"), "profile.limits.memory", "unknown field"},
	{L("{\"pids\":4,\"pids\":5}"), "profile.limits.pids", "duplicate key"},
	{L("{\"pids\":\"4\"}"), "profile.limits.pids", "must be a number"},
	{L("{\"pids\":null}"), "profile.limits.pids", "must be a number"},
	{L("{\"pids\":-1}"), "profile.limits.pids", "non-negative integer"},
	{L("{\"pids\":1.5}"), "profile.limits.pids", "must be an integer"},
	{L("{\"pids\":0}"), "profile.limits.pids", "at least 1"},
	{L("{\"pids\":4194305}"), "profile.limits.pids", "at most 4194304"},
	{L("{\"memory_bytes\":1000}"), "profile.limits.memory_bytes", "at least 1048576"},
	{L("{\"tmp_bytes\":0}"), "profile.limits.tmp_bytes", "at least 4096"},
	{L("{\"shm_bytes\":1e300}"), "profile.limits.shm_bytes", "must be an integer"},
	{L("{\"shm_bytes\":1000000000000000000000}"), "profile.limits.shm_bytes", "at most"},
	{L("{\"open_files\":1048577}"), "profile.limits.open_files", "at most 1048576"},
	{L("{\"cpu_seconds\":0}"), "profile.limits.cpu_seconds", "at least 1"},
	{L("{\"cpu_seconds\":604801}"), "profile.limits.cpu_seconds", "at most 604800"},
};

static void check_bad(void)
{
	char err[REQUEST_ERR_MAX];
	struct request req;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad *b = &bad[i];
		size_t pl = strlen(b->path);
		int rc = request_parse(b->json, strlen(b->json), &req, err);

		t_ok(rc == -EINVAL && strncmp(err, b->path, pl) == 0 && err[pl] == ':' &&
			     strstr(err, b->why) != NULL,
		     "refused %s: got \"%s\"", b->path, rc ? err : "(accepted)");
		if (rc == 0)
			request_free(&req);
	}
}

static void check_good(void)
{
	static const char all[] = L("{\"pids\":64,\"memory_bytes\":67108864,\"tmp_bytes\":4096,"
				    "\"shm_bytes\":8192,\"open_files\":1,\"cpu_seconds\":604800}");
	static const char none[] = L("{}");
	static const char absent[] = "{\"version\":1,\"command\":[\"true\"]}";
	static const uint64_t want[LIMIT_COUNT] = {64, 67108864, 4096, 8192, 1, 604800};
	char err[REQUEST_ERR_MAX];
	struct request r;
	int rc = request_parse(all, sizeof(all) - 1, &r, err);
	bool same = rc == 0;

	for (int i = 0; same && i < LIMIT_COUNT; i++)
		same = r.limits.value[i] == want[i];
	t_ok(same, "every limit parses to what it states: %s", rc ? err : "ok");
	if (rc == 0)
		request_free(&r);
	for (int k = 0; k < 2; k++) {
		const char *j = k ? absent : none;

		rc = request_parse(j, strlen(j), &r, err);
		same = rc == 0;
		for (int i = 0; same && i < LIMIT_COUNT; i++)
			same = r.limits.value[i] == 0 &&
			       limit_wanted(&r.limits, (enum limit_id)i) == limit_defaults[i];
		t_ok(same, "%s: nothing stated, the defaults wanted", k ? "no limits" : "limits {}");
		if (rc == 0)
			request_free(&r);
	}
	t_ok(limit_defaults[LIMIT_MEMORY] == 0 && limit_defaults[LIMIT_CPU] == 0 &&
		     limit_defaults[LIMIT_PIDS] == 4096 && limit_defaults[LIMIT_OPEN_FILES] == 8192 &&
		     limit_defaults[LIMIT_TMP] == 1024ull * 1024 * 1024 &&
		     limit_defaults[LIMIT_SHM] == 256ull * 1024 * 1024,
	     "the defaults are the documented ones");
}

int main(void)
{
	check_bad();
	check_good();
	return t_done();
}
