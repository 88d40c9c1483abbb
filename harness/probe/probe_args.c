/* probe_args.c - the probe's command line, portable C (the POSIX probe and
 * the Windows probe share it): validation, dispatch, and the argument
 * parsers shared by validation and execution.
 *
 *   sandproof-probe OP [ARGS...] [-- OP [ARGS...]]...
 *
 * Each parser is run twice on the same text: once while the whole command
 * line is validated (before any operation runs) and once by the operation
 * itself, so the two can never disagree. */
#include "probe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimal only (no octal surprises, no trailing junk, no empty string). */
int probe_parse_ll(const char *s, long long min, long long max,
		   long long *out)
{
	char *end;
	long long v;

	if (!s || !*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Formats a validation message; always returns -1 for `return check_msg()`. */
int probe_check_msg(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct probe_op *probe_find(const struct probe_op *const *tables,
					 size_t ntables, const char *name)
{
	for (size_t t = 0; t < ntables; t++)
		for (const struct probe_op *op = tables[t]; op->name; op++)
			if (strcmp(op->name, name) == 0)
				return op;
	return NULL;
}

static void probe_usage_ops(const struct probe_op *const *tables, size_t ntables)
{
	fprintf(stderr, "usage: sandproof-probe OP [ARGS...] [-- OP [ARGS...]]...\n"
			"operations:\n");
	for (size_t t = 0; t < ntables; t++)
		for (const struct probe_op *op = tables[t]; op->name; op++)
			fprintf(stderr, "  %s %s\n", op->name, op->usage);
}

static int probe_usage_error(int index, const char *name, const char *msg)
{
	if (name)
		fprintf(stderr, "sandproof-probe: operation %d (%s): %s\n",
			index, name, msg);
	else
		fprintf(stderr, "sandproof-probe: %s\n", msg);
	fprintf(stderr, "run sandproof-probe --help for the list of operations\n");
	return 2;
}

/* One operation: its table entry and its argument words in argv. */
struct probe_call {
	const struct probe_op *op;
	char **args;
	int n;
};

/* Splits argv at "--" and validates every operation into calls; 0, or the
 * usage error's exit status (2) after its message. */
static int probe_validate(int argc, char **argv, const struct probe_op *const *tables,
			  size_t ntables, struct probe_call *calls, int *ncalls)
{
	char msg[256];

	for (int a = 1; a <= argc; a++) {
		int start = a;

		while (a < argc && strcmp(argv[a], "--") != 0)
			a++;
		if (a == start)
			return probe_usage_error(*ncalls, NULL,
						 "empty operation (stray \"--\")");
		struct probe_call *c = &calls[*ncalls];

		c->op = probe_find(tables, ntables, argv[start]);
		c->args = &argv[start + 1];
		c->n = a - start - 1;
		if (!c->op) {
			snprintf(msg, sizeof(msg), "unknown operation \"%s\"",
				 argv[start]);
			return probe_usage_error(*ncalls, argv[start], msg);
		}
		if (c->n < c->op->min_args || c->n > c->op->max_args) {
			snprintf(msg, sizeof(msg),
				 "wrong number of arguments (%d); usage: %s %s",
				 c->n, c->op->name, c->op->usage);
			return probe_usage_error(*ncalls, argv[start], msg);
		}
		if (c->op->check && c->op->check(c->args, c->n, msg, sizeof(msg)) < 0)
			return probe_usage_error(*ncalls, argv[start], msg);
		(*ncalls)++;
	}
	return 0;
}

int probe_group_end(const struct probe_ctx *ctx, long long n)
{
	long long last = ctx->group_end ? ctx->group_end : ctx->ncalls;

	return (int)(ctx->index + 1 + n < last ? ctx->index + 1 + n : last);
}

int probe_cli_main(int argc, char **argv, const struct probe_op *const *tables,
		   size_t ntables)
{
	static struct probe_res res;
	struct probe_ctx ctx = {0};
	struct probe_call *calls;
	int ncalls = 0, rc;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		probe_usage_ops(tables, ntables);
		return 0;
	}
	if (argc < 2)
		return probe_usage_error(0, NULL, "no operation given");
	calls = calloc((size_t)argc, sizeof(*calls));
	if (!calls)
		return probe_usage_error(0, NULL, "out of memory");

	/* Validate the whole list first: a typo in the last operation must
	 * not leave the first ones half-performed. */
	rc = probe_validate(argc, argv, tables, ntables, calls, &ncalls);
	if (rc) {
		free(calls);
		return rc;
	}
	probe_os_begin();
	probe_emit_sentinel();
	ctx.ncalls = ncalls;
	/* A group's child (group_end set) runs only its own operations, then
	 * leaves the loop and exits like the probe itself. */
	for (int k = 0; k < ncalls && (!ctx.group_end || k < ctx.group_end); k++) {
		memset(&res, 0, sizeof(res));
		ctx.index = k;
		ctx.next = 0;
		calls[k].op->run(&ctx, calls[k].args, calls[k].n, &res);
		if (!res.emitted)
			probe_emit(k, calls[k].op->name, &res);
		if (ctx.next > k + 1)
			k = ctx.next - 1;
	}
	probe_reap_echo(&ctx);
	free(calls);
	return 0;
}
