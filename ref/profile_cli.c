/* profile_cli.c - `sandproof-ref profile --os macos --request FILE|-`.
 *
 * Validates the request with the parser `run` uses, generates the Seatbelt
 * profile the macOS backend would hand to sandbox-exec, lints it, and
 * prints the SBPL text followed by its parameters, one ";; -D NAME=VALUE"
 * line each: the output is itself a valid profile file, and a user reads
 * exactly what would be enforced.  Reads nothing but the request. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "profile_cli.h"
#include "sbpl.h"

#define PROFILE_READ_TIMEOUT_S 60

static int profile_usage(const char *what)
{
	fprintf(stderr, "sandproof-ref: profile: %s\nTry 'sandproof-ref --help'.\n", what);
	return 2;
}

static int profile_print(const struct sbpl_profile *p)
{
	char err[SBPL_ERR_MAX];

	if (sbpl_lint(p->text, err) != 0) {
		fprintf(stderr, "sandproof-ref: profile: the lint refuses the profile: %s\n", err);
		return 1;
	}
	fputs(p->text, stdout);
	printf(";; parameters (sandbox-exec -D NAME=VALUE)\n");
	for (size_t i = 0; i < p->n_params; i++)
		printf(";; -D %s=%s\n", p->params[i].name, p->params[i].value);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sandproof-ref: profile: cannot write the profile: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

int profile_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"os", required_argument, NULL, 'o'},
		{"request", required_argument, NULL, 'r'},
		{"temp-dir", required_argument, NULL, 't'},
		{"message-tag", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *os = NULL, *reqpath = NULL;
	struct sbpl_opts so = {0};
	struct sbpl_profile prof;
	struct request req;
	char err[SBPL_ERR_MAX];
	int c, rc;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'o': os = optarg; break;
		case 'r': reqpath = optarg; break;
		case 't': so.temp_dir = optarg; break;
		case 'm': so.message_tag = optarg; break;
		case 'h':
			puts("usage: sandproof-ref profile --os macos --request FILE|- "
			     "[--temp-dir DIR] [--message-tag TAG]\n(sandproof-ref --help "
			     "says more)");
			return 0;
		default: return profile_usage("bad option");
		}
	}
	if (!os || !reqpath)
		return profile_usage("--os macos and --request FILE|- are required");
	if (optind != argc)
		return profile_usage("unexpected argument");
	if (strcmp(os, "macos") != 0) {
		fprintf(stderr, "sandproof-ref: profile: --os %s: unsupported os (only macos "
			"has a profile)\n", os);
		return 2;
	}
	rc = cli_read_request(reqpath, PROFILE_READ_TIMEOUT_S, &req);
	if (rc)
		return rc;
	rc = sbpl_generate(&req, &so, &prof, err);
	request_free(&req);
	if (rc < 0) {
		fprintf(stderr, "sandproof-ref: profile: refused: %s\n", err);
		return rc == -ENOMEM || rc == -EPROTO ? 1 : 2;
	}
	rc = profile_print(&prof);
	sbpl_profile_free(&prof);
	return rc;
}
