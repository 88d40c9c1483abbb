/* record_ref.c - sp_record_ref: sandproof-ref with its requests recorded.
 *
 * Set as SANDPROOF_REF while the catalogue runs (ctest test_catalogue), it
 * records the request of every `run --request -` into
 * $SANDPROOF_RECORD_DIR/req-<pid>-<n>.json and then execs the real runner
 * ($SANDPROOF_RECORD_REF) with the same arguments and exactly the same
 * bytes on stdin, keeping its pid (the harness signals and counts that
 * pid).  Any other invocation (doctor, gc, --version) is exec'd untouched.
 * test_sbpl_contract reads the recording.
 *
 * Why C and not `cat > file; exec ref < file`: the catalogue's fault sweep
 * and hold sweeps count and fail the runner's syscalls across its whole
 * process tree (clone, ioctl, openat2, ...).  A shell forks for cat (clone),
 * so the sweep's clone faults would hit the recorder instead of the runner.
 * This program makes none of the swept calls: read, memfd_create, write,
 * openat, lseek, dup2, execve.  Recording is best-effort (a full disk loses
 * a recording, never the run): the stdin the runner gets is the memfd,
 * never the file.  Linux only (memfd); test code, built with the catalogue. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* stdin to EOF into a fresh memfd; -1 on failure. */
static int slurp(void)
{
	char buf[65536];
	int fd = memfd_create("sp-request", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t r = read(0, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r > 0 && write_all(fd, buf, (size_t)r) < 0)) {
			close(fd);
			return -1;
		}
		if (r == 0)
			return fd;
	}
}

/* The memfd's bytes into DIR/req-PID-N.json (O_EXCL: never overwrite). */
static void record(int mfd, const char *dir)
{
	char path[4096], buf[65536];
	int fd = -1;
	ssize_t r;

	for (int n = 0; fd < 0 && n < 100; n++) {
		snprintf(path, sizeof(path), "%s/req-%ld-%d.json", dir, (long)getpid(), n);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return;
	}
	if (fd < 0 || lseek(mfd, 0, SEEK_SET) != 0)
		goto out;
	while ((r = read(mfd, buf, sizeof(buf))) > 0)
		if (write_all(fd, buf, (size_t)r) < 0)
			break;
out:
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	const char *real = getenv("SANDPROOF_RECORD_REF");
	const char *dir = getenv("SANDPROOF_RECORD_DIR");
	int mfd;

	if (!real || !dir) {
		fprintf(stderr, "sp_record_ref: SANDPROOF_RECORD_REF and SANDPROOF_RECORD_DIR must be set\n");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[1], "run") && !strcmp(argv[2], "--request") &&
	    !strcmp(argv[3], "-")) {
		if ((mfd = slurp()) < 0 || lseek(mfd, 0, SEEK_SET) != 0 || dup2(mfd, 0) < 0) {
			fprintf(stderr, "sp_record_ref: cannot keep the request: %s\n", strerror(errno));
			return 2;
		}
		record(mfd, dir);
		if (lseek(0, 0, SEEK_SET) != 0)
			return 2;
		close(mfd);
	}
	argv[0] = (char *)real;
	execv(real, argv);
	fprintf(stderr, "sp_record_ref: exec %s: %s\n", real, strerror(errno));
	return 127;
}
