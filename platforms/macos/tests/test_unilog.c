/* test_unilog.c LINES_FILE - unilog_parse against golden log lines.
 *
 * LINES_FILE (platforms/macos/tests/unilog/lines.txt) holds cases, each
 * with its source: a tag, the ndjson lines `log show` would print, and the
 * denials wanted ("OPERATION TARGET", in order).  Every case must give
 * exactly its wanted denials; fewer than MIN_CASES cases, or a case with
 * no source, fails (a file the reader misreads must not pass). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "unilog.h"

#define MIN_CASES 9
#define MAX_WANT 8

struct tcase {
	char name[128], tag[128];
	char in[8192];
	char want[MAX_WANT][512];
	size_t n_want, n_source;
};

static void run_case(const struct tcase *c)
{
	struct denials d;
	char *text = strdup(c->in);
	int same;

	memset(&d, 0, sizeof(d));
	if (!text)
		abort();
	unilog_parse(text, strcmp(c->tag, "-") ? c->tag : NULL, &d);
	free(text);
	same = d.n == c->n_want && c->n_source > 0;
	for (size_t i = 0; same && i < d.n; i++)
		same = !strcmp(d.v[i].kind, "seatbelt") && !strcmp(d.v[i].what, c->want[i]);
	t_ok(same, "%s: %zu denial(s) as wanted (%zu wanted, %zu sources)", c->name, d.n,
	     c->n_want, c->n_source);
	for (size_t i = 0; !same && i < d.n; i++)
		printf("#   got %s \"%s\"\n", d.v[i].kind, d.v[i].what);
}

static void add_line(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(dst);

	snprintf(dst + n, cap - n, "%s\n", s);
}

/* A field copied whole, or the case refused (a field cut short would test
 * something else). */
static void copy(char *dst, size_t cap, const char *s, int *bad)
{
	if (strlen(s) >= cap)
		*bad = 1;
	else
		memcpy(dst, s, strlen(s) + 1);
}

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
	struct tcase c;
	char line[8192];
	int cases = 0, open = 0, bad = 0;

	if (!f) {
		fprintf(stderr, "usage: test_unilog LINES_FILE\n");
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "case: ", 6)) {
			memset(&c, 0, sizeof(c));
			copy(c.name, sizeof(c.name), line + 6, &bad);
			open = 1;
		} else if (open && !strncmp(line, "source: ", 8)) {
			c.n_source++;
		} else if (open && !strncmp(line, "tag: ", 5)) {
			copy(c.tag, sizeof(c.tag), line + 5, &bad);
		} else if (open && !strncmp(line, "in: ", 4)) {
			add_line(c.in, sizeof(c.in), line + 4);
		} else if (open && !strncmp(line, "want: ", 6) && c.n_want < MAX_WANT) {
			copy(c.want[c.n_want++], sizeof(c.want[0]), line + 6, &bad);
		} else if (open && line[0] == '\0') {
			run_case(&c);
			cases++;
			open = 0;
		}
	}
	if (open) {
		run_case(&c);
		cases++;
	}
	fclose(f);
	t_ok(cases >= MIN_CASES, "at least %d cases read (%d)", MIN_CASES, cases);
	t_ok(!bad, "no field longer than this reader keeps");
	return t_done();
}
