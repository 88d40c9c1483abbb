/* probe.c - sandproof-probe's POSIX main: its operation tables and its
 * process hooks; the command line itself is probe_args.c's, shared with
 * the Windows probe (platforms/windows/probe/wprobe_main.c).
 *
 *   sandproof-probe OP [ARGS...] [-- OP [ARGS...]]...
 *
 * Exit status: 0 when every operation ran (whatever its "ok"), 2 for a
 * usage error, detected before anything runs or is printed on stdout; the
 * exit and signal operations end the probe their own way. */
#include "probe.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct probe_op *const probe_tables[] = {
	probe_fs_ops, probe_open_ops, probe_mount_ops, probe_net_ops, probe_priv_ops, probe_proc_ops,
	probe_res_ops, probe_darwin_ops,
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

/* A closed reader must turn into EPIPE on the write that notices it, not
 * kill the probe before it reports the operations still to come (flood to
 * stderr with stderr closed, for one). */
void probe_os_begin(void)
{
	signal(SIGPIPE, SIG_IGN);
}

int main(int argc, char **argv)
{
	return probe_cli_main(argc, argv, probe_tables,
			      sizeof(probe_tables) / sizeof(probe_tables[0]));
}
