/* unilog.c - the run's Seatbelt denials from the macOS unified log.
 *
 * Every deny of the profile carries (with message TAG); after the run,
 * `/usr/bin/log show --style ndjson --start <launch time> --predicate
 * 'eventMessage CONTAINS "TAG"'` lists the kernel's "Sandbox: cmd(pid)
 * deny(1) OPERATION TARGET" lines that name it, and each becomes a typed
 * denial {"kind":"seatbelt","path":"OPERATION TARGET"}, as the log wrote
 * it.  Best effort and bounded (LOG_WAIT_MS, LOG_MAX bytes): when the log
 * cannot be read (no `log`, not permitted, too slow) the run's outcome
 * says denials_reported false - never a denial guessed from the command's
 * output.  A native macOS run is what verifies the line format; the
 * posix-sim has no log and always answers "unavailable". */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "seatbelt.h"

#ifdef __APPLE__
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOG_PATH "/usr/bin/log"
#define LOG_WAIT_MS 15000
#define LOG_MAX (1 << 20)

static int read_all(int fd, pid_t pid, char *buf, size_t cap, size_t *len)
{
	int waited = 0;

	*len = 0;
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int r = poll(&pf, 1, 100);
		ssize_t n;

		if (r == 0 && (waited += 100) >= LOG_WAIT_MS) {
			kill(pid, SIGKILL);
			return -ETIMEDOUT;
		}
		if (r <= 0)
			continue;
		n = read(fd, buf + *len, cap - 1 - *len);
		if (n <= 0 || (*len += (size_t)n) >= cap - 1)
			break;
	}
	buf[*len] = '\0';
	return 0;
}

int unilog_denials(const char *tag, time_t since, struct denials *d)
{
	char start[32], pred[128], *buf;
	int out[2], status = 0, rc;
	size_t len = 0;
	struct tm tm;
	pid_t pid;

	strftime(start, sizeof(start), "%Y-%m-%d %H:%M:%S", localtime_r(&since, &tm));
	snprintf(pred, sizeof(pred), "eventMessage CONTAINS \"%s\"", tag);
	buf = malloc(LOG_MAX);
	if (!buf || pipe(out) < 0) {
		free(buf);
		return -ENOMEM;
	}
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, 0);
		dup2(out[1], 1);
		dup2(nul, 2);
		execl(LOG_PATH, "log", "show", "--style", "ndjson", "--start", start,
		      "--predicate", pred, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	rc = pid < 0 ? -errno : read_all(out[0], pid, buf, LOG_MAX, &len);
	close(out[0]);
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
		rc = -EPERM; /* log refused (or failed): denials unavailable */
	if (rc == 0)
		unilog_parse(buf, tag, d);
	free(buf);
	return rc;
}
#else
int unilog_denials(const char *tag, time_t since, struct denials *d)
{
	(void)tag;
	(void)since;
	(void)d;
	return -EOPNOTSUPP; /* the posix-sim has no unified log */
}
#endif
