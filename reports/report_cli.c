/* report_cli.c - `sandproof report DB [--format F] [-o FILE]` (report.h). */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "report.h"

static const char report_usage[] =
"usage: sandproof report DB [--format html|junit|markdown|tap] [-o FILE]\n"
"Renders the results database DB (its latest run per OS and runner) as one\n"
"self-contained HTML page (default), JUnit XML, Markdown for a CI step\n"
"summary, or TAP; to stdout, or to FILE (replaced only once complete).\n"
"Exit 0 rendered, 2 usage or unreadable DB, 3 write error.\n";

static const struct {
	const char *name;
	int (*render)(const struct report_set *, FILE *);
} formats[] = {
	{"html", report_html}, {"junit", report_junit}, {"markdown", report_markdown},
	{"md", report_markdown}, {"tap", report_tap},
};

int report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'}, {0},
	};
	int (*render)(const struct report_set *, FILE *) = report_html;
	const char *out = NULL;
	int c;

	report_getopt_reset();
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		case 'o':
			out = optarg;
			break;
		case 'f':
			render = NULL;
			for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
				if (!strcmp(optarg, formats[i].name))
					render = formats[i].render;
			if (render)
				break;
			fprintf(stderr, "sandproof: report: unknown format %s\n", optarg);
			/* fall through */
		default:
			fputs(report_usage, stderr);
			return REPORT_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fputs(report_usage, stderr);
		return REPORT_EXIT_USAGE;
	}
	return report_render_db(argv[optind], 1, out, render, "report");
}
