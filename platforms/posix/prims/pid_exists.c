/* pid_exists.c - proc_pid_exists on POSIX (every POSIX platform layer
 * compiles it): kill(pid, 0), which sends nothing.  ESRCH is the one answer that
 * means "no such process"; EPERM means it exists (another user's). */
#include "sandproof/proc.h"

#include <errno.h>
#include <signal.h>

int proc_pid_exists(long pid)
{
	if (pid <= 0 || (long)(pid_t)pid != pid)
		return -EINVAL;
	if (kill((pid_t)pid, 0) == 0)
		return 1;
	return errno == ESRCH ? 0 : errno == EPERM ? 1 : -errno;
}
