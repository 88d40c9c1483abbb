/* probe.c - sandproof-probe command line: validate every operation, print
 * the sentinel, run the operations in order, one JSON line each.
 *
 *   sandproof-probe OP [ARGS...] [-- OP [ARGS...]]...
 *
 * Exit status: 0 when every operation ran (whatever its "ok"), 2 for a
 * usage error, detected before anything runs or is printed on stdout; the
 * exit and signal operations end the probe their own way. */
#include "probe.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct probe_op *const probe_tables[] = {
	probe_fs_ops, probe_mount_ops, probe_net_ops, probe_priv_ops, probe_proc_ops, probe_res_ops,
	probe_darwin_ops,
};

static const struct probe_op *probe_find(const char *name)
{
	for (size_t t = 0; t < sizeof(probe_tables) / sizeof(probe_tables[0]); t++)
		for (const struct probe_op *op = probe_tables[t]; op->name; op++)
			if (strcmp(op->name, name) == 0)
				return op;
	return NULL;
}

static void probe_usage_ops(void)
{
	fprintf(stderr, "usage: sandproof-probe OP [ARGS...] [-- OP [ARGS...]]...\n"
			"operations:\n");
	for (size_t t = 0; t < sizeof(probe_tables) / sizeof(probe_tables[0]); t++)
		for (const struct probe_op *op = probe_tables[t]; op->name; op++)
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

void probe_reap_echo(struct probe_ctx *ctx)
{
	for (int k = 0; k < ctx->n_echo; k++) {
		/* The pid is our own unreaped child, so it cannot have been
		 * recycled for another process yet: killing it is safe. */
		kill(ctx->echo[k], SIGKILL);
		while (waitpid(ctx->echo[k], NULL, 0) < 0 && errno == EINTR)
			;
	}
	ctx->n_echo = 0;
}

int main(int argc, char **argv)
{
	static struct probe_res res;
	struct probe_ctx ctx = {0};
	struct probe_call *calls;
	int ncalls = 0;
	char msg[256];

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		probe_usage_ops();
		return 0;
	}
	if (argc < 2)
		return probe_usage_error(0, NULL, "no operation given");
	calls = calloc((size_t)argc, sizeof(*calls));
	if (!calls)
		return probe_usage_error(0, NULL, "out of memory");

	/* Validate the whole list first: a typo in the last operation must
	 * not leave the first ones half-performed. */
	for (int a = 1; a <= argc; a++) {
		int start = a;

		while (a < argc && strcmp(argv[a], "--") != 0)
			a++;
		if (a == start) {
			free(calls);
			return probe_usage_error(ncalls, NULL,
						 "empty operation (stray \"--\")");
		}
		struct probe_call *c = &calls[ncalls];

		c->op = probe_find(argv[start]);
		c->args = &argv[start + 1];
		c->n = a - start - 1;
		if (!c->op) {
			snprintf(msg, sizeof(msg), "unknown operation \"%s\"",
				 argv[start]);
			free(calls);
			return probe_usage_error(ncalls, argv[start], msg);
		}
		if (c->n < c->op->min_args || c->n > c->op->max_args) {
			snprintf(msg, sizeof(msg),
				 "wrong number of arguments (%d); usage: %s %s",
				 c->n, c->op->name, c->op->usage);
			free(calls);
			return probe_usage_error(ncalls, argv[start], msg);
		}
		if (c->op->check && c->op->check(c->args, c->n, msg, sizeof(msg)) < 0) {
			free(calls);
			return probe_usage_error(ncalls, argv[start], msg);
		}
		ncalls++;
	}

	/* A closed reader must turn into EPIPE on the write that notices it,
	 * not kill the probe before it reports the operations still to come
	 * (flood to stderr with stderr closed, for one). */
	signal(SIGPIPE, SIG_IGN);
	probe_emit_sentinel();
	for (int k = 0; k < ncalls; k++) {
		memset(&res, 0, sizeof(res));
		ctx.index = k;
		calls[k].op->run(&ctx, calls[k].args, calls[k].n, &res);
		if (!res.emitted)
			probe_emit(k, calls[k].op->name, &res);
	}
	probe_reap_echo(&ctx);
	free(calls);
	return 0;
}
