/* test_sbpl_peers.c DIR - the peers' native facts as the model's oracle
 * (issue 33, section 4; DESIGN.md, "Verifying what we cannot run", 2).
 *
 * DIR (platforms/macos/tests/peers) holds the profiles Codex and
 * sandbox-runtime generate for their own macOS tests (NAME.sb, -D
 * parameters in NAME.params) and facts.txt: what those tests assert
 * natively about them, each with its source.  Every fact is asked of
 * sandproof's model (sbpl_model.h) under the specific-first reading of
 * precedence, which must reproduce it; under the flat reading too, unless
 * the fact is marked "flat: refuted" — then the model must disagree there
 * (the native fact is evidence against that reading, and the mark stays
 * honest).  Every profile must parse; fewer than MIN_FACTS facts fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_model.h"
#include "t.h"

#define MIN_FACTS 14
#define MAX_PARAMS 64
#define LINE 4096

struct fact {
	char name[128], profile[128], ask[2][LINE], op[128];
	int want, flat_refuted, n_source;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (s = calloc(1, (size_t)n + 1)) && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (f)
		fclose(f);
	return s;
}

/* NAME.params: NAME=VALUE lines ('#' comments). */
static size_t read_params(const char *path, struct sbpl_param *p)
{
	char *text = slurp(path), *save = NULL;
	size_t n = 0;

	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l && n < MAX_PARAMS;
	     l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '=');

		if (l[0] == '#' || !eq)
			continue;
		*eq = '\0';
		p[n].name = strdup(l);
		p[n].value = strdup(eq + 1);
		n++;
	}
	free(text);
	return n;
}

static struct sbpl_model *load(const char *dir, const char *name)
{
	char path[LINE], err[SBPL_ERR_MAX];
	struct sbpl_param params[MAX_PARAMS];
	struct sbpl_model *m = NULL;
	size_t n;
	char *text;

	snprintf(path, sizeof(path), "%s/%s.params", dir, name);
	n = read_params(path, params);
	snprintf(path, sizeof(path), "%s/%s.sb", dir, name);
	text = slurp(path);
	if (!text || sbpl_model_parse(text, params, n, &m, err) < 0)
		printf("# %s: %s\n", path, text ? err : "unreadable");
	free(text);
	for (size_t i = 0; i < n; i++) {
		free(params[i].name);
		free(params[i].value);
	}
	return m;
}

/* The fact's question under one reading: 1 allow, 0 deny, < 0 error. */
static int decide(const struct sbpl_model *m, const struct fact *f, enum sbpl_order order)
{
	/* the spelling the peer's test used, and only it */
	struct sbpl_query q = {.order = order, .target = SBPL_TARGET_NONE, .as_spelled = true};

	if (!strcmp(f->op, "rename"))
		return sbpl_model_decide_move(m, &q, SBPL_MOVE_RENAME, f->ask[0], f->ask[1]);
	if (!strcmp(f->op, "ipc")) {
		q.op = f->ask[0];
		q.ipc_name = f->ask[1];
	} else if (!strncmp(f->op, "sysctl-", 7)) {
		q.op = f->op;
		q.sysctl_name = f->ask[0];
	} else {
		q.op = f->op;
		q.path = f->ask[0];
	}
	return sbpl_model_decide(m, &q);
}

static void check(const char *dir, const struct fact *f)
{
	struct sbpl_model *m = load(dir, f->profile);
	int s = m ? decide(m, f, SBPL_ORDER_SPECIFIC_FIRST) : -1;
	int fl = m ? decide(m, f, SBPL_ORDER_FLAT) : -1;

	t_ok(m && f->n_source && s == f->want, "%s: the model says %s as %s's test asserts (%s %s%s%s)",
	     f->name, s == 1 ? "allow" : s == 0 ? "deny" : "nothing", f->profile, f->op, f->ask[0],
	     f->ask[1][0] ? " -> " : "", f->ask[1]);
	if (f->flat_refuted)
		t_ok(m && fl == !f->want, "%s: the flat reading disagrees, as marked: the native fact "
		     "refutes it", f->name);
	else
		t_ok(m && fl == f->want, "%s: the flat reading agrees too", f->name);
	sbpl_model_free(m);
}

/* "ask: OP A [B]" into f. */
static void parse_ask(struct fact *f, const char *s)
{
	char a[LINE] = "", b[LINE] = "", c[LINE] = "";
	int n = sscanf(s, "%127s %4095s %4095s", f->op, a, b);

	(void)c;
	if (n >= 2)
		snprintf(f->ask[0], LINE, "%s", a);
	if (n >= 3)
		snprintf(f->ask[1], LINE, "%s", b);
}

int main(int argc, char **argv)
{
	char path[LINE], line[LINE];
	struct fact f;
	int facts = 0, open = 0;
	FILE *in;

	if (argc != 2) {
		fprintf(stderr, "usage: test_sbpl_peers DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/facts.txt", argv[1]);
	if (!(in = fopen(path, "r"))) {
		t_ok(0, "%s: readable", path);
		return t_done();
	}
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "fact: ", 6)) {
			if (open)
				check(argv[1], &f), facts++;
			memset(&f, 0, sizeof(f));
			f.want = -1;
			snprintf(f.name, sizeof(f.name), "%.120s", line + 6);
			open = 1;
		} else if (open && !strncmp(line, "source: ", 8)) {
			f.n_source++;
		} else if (open && !strncmp(line, "profile: ", 9)) {
			snprintf(f.profile, sizeof(f.profile), "%.120s", line + 9);
		} else if (open && !strncmp(line, "ask: ", 5)) {
			parse_ask(&f, line + 5);
		} else if (open && !strncmp(line, "want: ", 6)) {
			f.want = !strcmp(line + 6, "allow") ? 1 : !strcmp(line + 6, "deny") ? 0 : -1;
		} else if (open && !strcmp(line, "flat: refuted")) {
			f.flat_refuted = 1;
		}
	}
	if (open)
		check(argv[1], &f), facts++;
	fclose(in);
	t_ok(facts >= MIN_FACTS, "at least %d facts asked (%d)", MIN_FACTS, facts);
	return t_done();
}
