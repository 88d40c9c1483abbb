/* spawn.h - the child side of a launch: the report pipe (the command's
 * PATH search is common/pathexec.h).
 *
 * Between fork and execve the child reports through a close-on-exec pipe:
 * a successful execve closes it with no message (EOF), any failure sends
 * one spawn_msg first.  So the parent learns exactly whether the command
 * started, and a setup failure can never be mistaken for the command's own
 * exit status. */
#ifndef SANDPROOF_SPAWN_H
#define SANDPROOF_SPAWN_H

#include "sandproof/platform.h"

enum spawn_msg_kind { SPAWN_MSG_SETUP = 1, SPAWN_MSG_EXEC = 2 };

struct spawn_msg {
	int kind;
	int err;
	char step[96];
	char detail[256];
};

/* Child only: report and _exit(127).  Never returns. */
_Noreturn void spawn_fail(int fd, int kind, const char *step, int err,
			  const char *detail);

/* Child only: default dispositions for every signal, empty mask. */
void spawn_reset_signals(void);

/* Parent: read the report.  0 and *st->result = LAUNCH_RUNNING on EOF,
 * or the reported failure; -errno if the pipe itself failed. */
int spawn_read_report(int fd, struct launch_status *st);

#endif
