/* test_capture.c - bounded capture (PROC-7): a command printing 200 MiB on
 * each stream leaves exactly the limit per stream in the outcome, the true
 * byte counts, truncated=true, and a runner whose peak RSS stays small. */
#include <stdio.h>

#include "refrun.h"
#include "t.h"

#define MIB (1024 * 1024)
#define RSS_LIMIT_KIB (16 * 1024)

static size_t all_bytes_are(const char *s, char c)
{
	size_t n = 0;

	while (s[n] == c)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	char *rargv[] = {argv[1], "run", "--request", "-", NULL};
	struct refrun r;
	const cJSON *o;

	if (argc != 2) {
		fprintf(stderr, "usage: test_capture SANDPROOF_REF\n");
		return 2;
	}
	/* 200 MiB per stream, written concurrently by two writers. */
	refrun(rargv, REQ_PLAIN("[\"sh\",\"-c\",\"tr '\\\\0' a </dev/zero | head -c 209715200 & "
				"tr '\\\\0' b </dev/zero | head -c 209715200 >&2; wait\"]", ""),
	       &r, NULL, NULL);
	o = r.outcome;
	t_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && o != NULL,
	     "runner wrote an outcome (status %d, stderr %.200s)", r.status, r.err);
	t_ok(strcmp(oc_str(o, "kind"), "success") == 0, "kind success (%s)", oc_str(o, "kind"));
	t_ok(oc_num(o, "stdout_bytes") == 200.0 * MIB, "stdout_bytes is the true count (%.0f)",
	     oc_num(o, "stdout_bytes"));
	t_ok(oc_num(o, "stderr_bytes") == 200.0 * MIB, "stderr_bytes is the true count (%.0f)",
	     oc_num(o, "stderr_bytes"));
	t_ok(cJSON_IsTrue(oc_get(o, "truncated")), "truncated is true");
	t_ok(strlen(oc_str(o, "stdout")) == MIB && all_bytes_are(oc_str(o, "stdout"), 'a') == MIB,
	     "exactly 1 MiB of stdout kept (%zu)", strlen(oc_str(o, "stdout")));
	t_ok(strlen(oc_str(o, "stderr")) == MIB && all_bytes_are(oc_str(o, "stderr"), 'b') == MIB,
	     "exactly 1 MiB of stderr kept (%zu)", strlen(oc_str(o, "stderr")));
#if defined(SANDPROOF_SANITIZED)
	t_skipped("peak RSS not meaningful under sanitizers (%ld KiB)", r.ru.ru_maxrss);
#else
	t_ok(r.ru.ru_maxrss < RSS_LIMIT_KIB, "runner peak RSS %ld KiB < %d KiB",
	     r.ru.ru_maxrss, RSS_LIMIT_KIB);
#endif
	refrun_free(&r);

	/* Binary safety: invalid UTF-8 and control bytes become valid JSON. */
	refrun(rargv, REQ_PLAIN("[\"sh\",\"-c\",\"printf 'x\\\\377\\\\001y\\\\303\\\\251'\"]", ""),
	       &r, NULL, NULL);
	o = r.outcome;
	t_ok(o && strcmp(oc_str(o, "stdout"), "x\xef\xbf\xbd\x01y\xc3\xa9") == 0,
	     "invalid byte replaced by U+FFFD, control escaped, valid UTF-8 kept (%s)",
	     r.out);
	t_ok(oc_num(o, "stdout_bytes") == 6 && !cJSON_IsTrue(oc_get(o, "truncated")),
	     "true byte count 6, not truncated");
	refrun_free(&r);

	/* A custom limit is honoured exactly. */
	refrun(rargv, REQ_PLAIN("[\"sh\",\"-c\",\"echo 0123456789\"]", ",\"output_limit_bytes\":4"),
	       &r, NULL, NULL);
	o = r.outcome;
	t_ok(o && strcmp(oc_str(o, "stdout"), "0123") == 0 && oc_num(o, "stdout_bytes") == 11 &&
		     cJSON_IsTrue(oc_get(o, "truncated")),
	     "output_limit_bytes=4 keeps 4 bytes of 11 (%s)", oc_str(o, "stdout"));
	refrun_free(&r);
	return t_done();
}
