/* profile_cli.c - `sandproof-ref profile --os macos|windows --request FILE|-`.
 *
 * Validates the request with the parser `run` uses and prints what the
 * backend of that OS would enforce, on any OS, reading nothing but the
 * request:
 *   macos    the Seatbelt profile sandbox-exec gets, linted, followed by its
 *            parameters, one ";; -D NAME=VALUE" line each: the output is
 *            itself a valid profile file; --name-fold says how the volume
 *            compares names (a run decides it per volume), and
 *            --terminal-ioctl gives ioctls on terminals (a run that is
 *            not root's);
 *   windows  the request's paths judged by the Windows rules (winpath.h),
 *            then the plan the Windows backend applies: token recipe, ACEs,
 *            WFP filters (winplan.h), as stable text or (--format json) one
 *            JSON object carrying the same facts. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "namefold.h"
#include "profile_cli.h"
#include "profile_win.h"
#include "sbpl.h"
#include "winpath.h"
#include "winplan.h"

#define PROFILE_READ_TIMEOUT_S 60

struct profile_args {
	const char *os, *reqpath, *temp_dir, *message_tag, *format, *name_fold;
	bool terminal_ioctl;
};

static int profile_usage(const char *what)
{
	fprintf(stderr, "sandproof-ref: profile: %s\nTry 'sandproof-ref --help'.\n", what);
	return 2;
}

static int profile_write_error(void)
{
	fprintf(stderr, "sandproof-ref: profile: cannot write the profile: %s\n", strerror(errno));
	return 1;
}

static int refused(int rc, const char *err)
{
	fprintf(stderr, "sandproof-ref: profile: refused: %s\n", err);
	return rc == -ENOMEM || rc == -EPROTO ? 1 : 2;
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
	if (fflush(stdout) != 0 || ferror(stdout))
		return profile_write_error();
	return 0;
}

/* --name-fold none|norm|case: how the volume compares names (sbpl.h). */
static int parse_name_fold(const char *s, unsigned *out)
{
	if (!s || strcmp(s, "none") == 0)
		*out = 0;
	else if (strcmp(s, "norm") == 0)
		*out = NAMEFOLD_NORM;
	else if (strcmp(s, "case") == 0)
		*out = NAMEFOLD_CASE;
	else
		return -1;
	return 0;
}

static int profile_macos(const struct profile_args *a)
{
	struct sbpl_opts so = {.temp_dir = a->temp_dir, .message_tag = a->message_tag};
	struct sbpl_profile prof;
	struct request req;
	char err[SBPL_ERR_MAX];
	int rc;

	if (a->format)
		return profile_usage("--format is for --os windows");
	if (parse_name_fold(a->name_fold, &so.name_fold) < 0)
		return profile_usage("--name-fold must be none, norm or case");
	so.terminal_ioctl = a->terminal_ioctl;
	rc = cli_read_request(a->reqpath, PROFILE_READ_TIMEOUT_S, NULL, &req);
	if (rc)
		return rc;
	rc = sbpl_generate(&req, &so, &prof, err);
	request_free(&req);
	if (rc < 0)
		return refused(rc, err);
	rc = profile_print(&prof);
	sbpl_profile_free(&prof);
	return rc;
}

static int profile_windows(const struct profile_args *a)
{
	struct winplan_opts wo = {.temp_dir = a->temp_dir};
	struct winplan plan;
	struct request req;
	char err[WINPLAN_ERR_MAX];
	int rc;

	bool json = a->format && strcmp(a->format, "json") == 0;

	if (a->message_tag)
		return profile_usage("--message-tag is for --os macos");
	if (a->name_fold || a->terminal_ioctl)
		return profile_usage("--name-fold and --terminal-ioctl are for --os macos");
	if (a->format && !json && strcmp(a->format, "text") != 0)
		return profile_usage("--format must be text or json");
	rc = cli_read_request(a->reqpath, PROFILE_READ_TIMEOUT_S, &winpath_request_rules, &req);
	if (rc)
		return rc;
	rc = winplan_build(&req, &wo, &plan, err);
	request_free(&req);
	if (rc < 0)
		return refused(rc, err);
	rc = (json ? profile_win_json(&plan, stdout) : winplan_print_text(&plan, stdout))
		     ? profile_write_error() : 0;
	winplan_free(&plan);
	return rc;
}

int profile_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"os", required_argument, NULL, 'o'},
		{"request", required_argument, NULL, 'r'},
		{"temp-dir", required_argument, NULL, 't'},
		{"message-tag", required_argument, NULL, 'm'},
		{"format", required_argument, NULL, 'f'},
		{"name-fold", required_argument, NULL, 'n'},
		{"terminal-ioctl", no_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct profile_args a = {0};
	int c;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a.os = optarg; break;
		case 'r': a.reqpath = optarg; break;
		case 't': a.temp_dir = optarg; break;
		case 'm': a.message_tag = optarg; break;
		case 'f': a.format = optarg; break;
		case 'n': a.name_fold = optarg; break;
		case 'i': a.terminal_ioctl = true; break;
		case 'h':
			puts("usage: sandproof-ref profile --os macos --request FILE|- "
			     "[--temp-dir DIR] [--message-tag TAG] [--name-fold none|norm|case]\n"
			     "       [--terminal-ioctl]\n"
			     "       sandproof-ref profile --os windows --request FILE|- "
			     "[--temp-dir DIR] [--format text|json]\n(sandproof-ref --help says more)");
			return 0;
		default: return profile_usage("bad option");
		}
	}
	if (!a.os || !a.reqpath)
		return profile_usage("--os macos|windows and --request FILE|- are required");
	if (optind != argc)
		return profile_usage("unexpected argument");
	if (strcmp(a.os, "macos") == 0)
		return profile_macos(&a);
	if (strcmp(a.os, "windows") == 0)
		return profile_windows(&a);
	fprintf(stderr, "sandproof-ref: profile: --os %s: unsupported os (macos and windows "
		"have a profile)\n", a.os);
	return 2;
}
