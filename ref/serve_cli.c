/* serve_cli.c - `sandproof-ref serve [--max-sessions N] [--retain-ms MS]
 * [--output-bytes N]`: the options of serve.h, checked, then serve_main. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

/* A plain decimal in [lo, hi]: 0 and *v, or -1. */
static int parse_num(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	unsigned long long n;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return -1;
	*v = n;
	return 0;
}

int serve_cli(int argc, char **argv)
{
	static const struct option opts[] = {
		{"max-sessions", required_argument, NULL, 'm'},
		{"retain-ms", required_argument, NULL, 'r'},
		{"output-bytes", required_argument, NULL, 'o'},
		{0},
	};
	struct serve_opts o = {SERVE_MAX_SESSIONS, SERVE_RETAIN_MS, SERVE_OUTPUT_BYTES};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		const char *what = c == 'm' ? "--max-sessions: 1 to 1024"
			: c == 'r' ? "--retain-ms: 0 to 86400000"
			: "--output-bytes: 4096 to 1073741824";

		if (c == '?' || parse_num(optarg, c == 'm' ? 1 : c == 'o' ? 4096 : 0,
					  c == 'm' ? 1024 : c == 'r' ? 86400000 : 1073741824,
					  &v) < 0) {
			fprintf(stderr, "sandproof-ref: serve: %s\nTry 'sandproof-ref --help'.\n",
				c == '?' ? "bad option" : what);
			return 2;
		}
		if (c == 'm')
			o.max_sessions = (size_t)v;
		else if (c == 'r')
			o.retain_ms = (int64_t)v;
		else
			o.output_bytes = (size_t)v;
	}
	if (optind != argc) {
		fprintf(stderr, "sandproof-ref: serve: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return serve_main(&o);
}
