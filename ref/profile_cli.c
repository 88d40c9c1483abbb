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

#include "jw.h"
#include "namefold.h"
#include "profile_cli.h"
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

/* A bit set as its value and the names of its bits (lowest first). */
static void json_bits(struct jw *w, const char *key, const char *names_key, uint32_t v,
		      enum winplan_bits kind)
{
	char hex[32];

	jw_uint(w, key, v);
	jw_arr_open(w, names_key);
	for (unsigned i = 0; i < 32; i++) {
		uint32_t bit = (uint32_t)1 << i;
		const char *name = winplan_bit_name(kind, bit);

		if (!(v & bit))
			continue;
		snprintf(hex, sizeof(hex), "0x%x", (unsigned)bit);
		jw_str(w, NULL, name ? name : hex);
	}
	jw_arr_close(w);
}

static void json_ace(struct jw *w, const struct winplan_ace *a)
{
	jw_obj_open(w, NULL);
	jw_str(w, "path", a->path);
	jw_str(w, "sid", winplan_sid_name(a->sid));
	jw_str(w, "effect", a->effect == WINPLAN_DENY ? "deny" : "allow");
	json_bits(w, "mask", "mask_names", a->mask, WINPLAN_BITS_MASK);
	json_bits(w, "inherit", "inherit_names", a->inherit, WINPLAN_BITS_INHERIT);
	jw_str(w, "absent", winplan_absent_name(a->absent));
	jw_str(w, "clause", a->clause);
	jw_str(w, "why", a->why);
	jw_obj_close(w);
}

/* The plan as one JSON object and a newline: the facts of the text form. */
static int print_plan_json(const struct winplan *p)
{
	struct jw w;

	jw_init(&w, stdout);
	jw_obj_open(&w, NULL);
	jw_obj_open(&w, "token");
	json_bits(&w, "flags", "flag_names", p->token.flags, WINPLAN_BITS_TOKEN);
	jw_arr_open(&w, "restricting");
	for (size_t i = 0; i < p->token.n_restricting; i++)
		jw_str(&w, NULL, winplan_sid_name(p->token.restricting[i]));
	jw_arr_close(&w);
	jw_obj_close(&w);
	jw_arr_open(&w, "aces");
	for (size_t i = 0; i < p->n_aces; i++)
		json_ace(&w, &p->aces[i]);
	jw_arr_close(&w);
	jw_str(&w, "network", p->network_denied ? "deny" : "allow");
	if (p->job_max_processes)
		jw_uint(&w, "job_max_processes", p->job_max_processes);
	jw_arr_open(&w, "filters");
	for (size_t i = 0; i < p->n_filters; i++) {
		jw_obj_open(&w, NULL);
		jw_str(&w, "layer", p->filters[i].layer);
		jw_str(&w, "action", p->filters[i].action);
		jw_str(&w, "sid", winplan_sid_name(p->filters[i].sid));
		jw_str(&w, "clause", p->filters[i].clause);
		jw_str(&w, "why", p->filters[i].why);
		jw_obj_close(&w);
	}
	jw_arr_close(&w);
	jw_obj_close(&w);
	fputc('\n', stdout);
	return fflush(stdout) != 0 || ferror(stdout) ? -EIO : 0;
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
	rc = (json ? print_plan_json(&plan) : winplan_print_text(&plan, stdout))
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
