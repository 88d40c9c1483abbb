/* lab_child.c - the lab's child processes (keeper, listeners): tethered
 * to the creating thread, holding one descriptor, killed through pidfds
 * (lab_int.h). */
#include "lab_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int lab_child_open_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Kill and reap a child of ours.  The pidfd names exactly that process even
 * if it was already reaped elsewhere; without one (-1) the pid is safe to
 * use only because an unreaped child's pid cannot be reused. */
void lab_child_kill(pid_t pid, int pidfd)
{
	if (pid <= 0)
		return;
	if (pidfd >= 0)
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	else
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (pidfd >= 0)
		close(pidfd);
}

/* Child side, right after fork: die with the creating thread.  The parent
 * may already have died before prctl took effect, so compare getppid with
 * the pid it had before fork: a reparented child exits now. */
int lab_child_tether(pid_t parent)
{
	sigset_t all;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return -1;
	return 0;
}

/* Child side: keep only fd (moved to 3) and /dev/null on 0-2, so a lab
 * process never holds the write end of some pipe whose EOF the harness
 * waits for.  Returns 3, or -1. */
int lab_child_keep_one_fd(int fd)
{
	int nul;

	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			return -1;
		close(fd);
	}
	if (close_range(4, ~0U, 0) < 0)
		return -1;
	nul = open("/dev/null", O_RDWR);
	if (nul < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		dup2(nul, i);
	if (nul > 3)
		close(nul);
	return 3;
}

int lab_child_wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n;

	while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}
