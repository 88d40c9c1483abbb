/* spawn.c - see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

_Noreturn void spawn_fail(int fd, int kind, const char *step, int err,
			  const char *detail)
{
	struct spawn_msg m = {.kind = kind, .err = err};

	snprintf(m.step, sizeof(m.step), "%s", step);
	snprintf(m.detail, sizeof(m.detail), "%s", detail ? detail : "");
	/* One write below PIPE_BUF is atomic: the parent reads all or none. */
	if (write(fd, &m, sizeof(m)) < 0) {
		/* nobody to tell; the exit status still says failure */
	}
	_exit(127);
}

void spawn_reset_signals(void)
{
	sigset_t all;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
}

int spawn_read_report(int fd, struct launch_status *st)
{
	struct spawn_msg m;
	ssize_t n;

	do
		n = read(fd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0) {
		st->result = LAUNCH_RUNNING;
		return 0;
	}
	if ((size_t)n != sizeof(m))
		return -EPROTO;
	if (m.kind == SPAWN_MSG_EXEC) {
		st->result = LAUNCH_EXEC_FAILED;
		st->exec_errno = m.err;
		return 0;
	}
	st->result = LAUNCH_SETUP_FAILED;
	st->setup.err = m.err;
	snprintf(st->setup.step, sizeof(st->setup.step), "%s", m.step);
	snprintf(st->setup.detail, sizeof(st->setup.detail), "%s", m.detail);
	return 0;
}
