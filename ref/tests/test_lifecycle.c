/* test_lifecycle.c - process lifecycle of the runner core (PROC-1..PROC-6):
 * exit codes and signals, timeout and cancel killing the whole tree
 * (daemonized grandchildren included, verified by pid), exec failures told
 * apart exactly, stdin and environment as requested. */
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include <dirent.h>

#include "refrun.h"
#include "t.h"

static char *ref;
static char tmp[64];
static char marker[32]; /* a unique sleep argument: finds the daemon on the host */

static int run(const char *req, struct refrun *r, void (*cb)(pid_t, void *), void *arg)
{
	char *argv[] = {ref, "run", "--request", "-", NULL};

	return refrun(argv, req, r, cb, arg);
}

static int alive(pid_t pid);

static pid_t read_pid(const char *file)
{
	char path[128];
	FILE *f;
	int pid = -1;

	snprintf(path, sizeof(path), "%s/%s", tmp, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

/* The host pid of the live (non-zombie) process running `sleep MARKER`,
 * or -1.  The daemon's own idea of its pid is a pid-namespace number, so the
 * host-side oracle finds it by its unique argument instead. */
static pid_t find_daemon(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = -1;

	while (d && (de = readdir(d))) {
		char path[64], buf[256];
		ssize_t n;
		int fd, pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 6 && strcmp(buf, "sleep") == 0 && strcmp(buf + 6, marker) == 0 &&
		    alive(pid))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

static void new_marker(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(marker, sizeof(marker), "600.%ld%d", (long)ts.tv_nsec, (int)getpid());
}

/* Alive and not a zombie: the runner must have killed AND reaped it. */
static int alive(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	char st = 0;

	if (kill(pid, 0) < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')))
		sscanf(rp + 1, " %c", &st);
	fclose(f);
	return st != 0 && st != 'Z';
}

static void exit_codes(void)
{
	struct refrun r;

	run(REQ_PLAIN("[\"true\"]", ""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "success") == 0 &&
		     strcmp(oc_str(r.outcome, "state"), "completed") == 0 &&
		     oc_num(r.outcome, "exit.code") == 0,
	     "true: completed/success, code 0");
	refrun_free(&r);
	run(REQ_PLAIN("[\"sh\",\"-c\",\"exit 7\"]", ""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "application_failure") == 0 &&
		     oc_num(r.outcome, "exit.code") == 7,
	     "exit 7: application_failure, code 7");
	refrun_free(&r);
	run(REQ_PLAIN("[\"sh\",\"-c\",\"kill -USR1 $$\"]", ""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "application_failure") == 0 &&
		     oc_num(r.outcome, "exit.signal") == SIGUSR1 &&
		     cJSON_IsNull(oc_get(r.outcome, "exit.code")) &&
		     strcmp(oc_str(r.outcome, "exit.signal_name"), "SIGUSR1") == 0,
	     "killed by SIGUSR1: signal 10 reported, code null");
	refrun_free(&r);
}

static void daemon_req(char *buf, size_t n, const char *tail, const char *extra)
{
	/* setsid + double fork: the grandchild leaves the session and process
	 * group of the command and is orphaned. */
	snprintf(buf, n,
		 "{\"version\":1,\"command\":[\"sh\",\"-c\",\"setsid sh -c 'sleep %s & echo $! > %s/daemon' & wait; "
		 "while [ ! -s %s/daemon ]; do sleep 0.01; done; echo ready > %s/ready; %s\"],"
		 "\"env\":{\"PATH\":\"/usr/bin:/bin\"},\"profile\":{\"filesystem\":{\"kind\":\"unrestricted\"},"
		 "\"network\":{\"mode\":\"allow\"}}%s}",
		 marker, tmp, tmp, tmp, tail, extra);
}

static void reset_files(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/daemon", tmp);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ready", tmp);
	unlink(path);
}

/* The oracle itself must be able to see a live daemon, or "gone" proves
 * nothing: start one here, find it, end it (by pid). */
static void oracle_sees_daemons(void)
{
	pid_t pid, found;
	struct timespec ts = {0, 20 * 1000 * 1000};

	new_marker();
	pid = fork();
	if (pid == 0) {
		execlp("sleep", "sleep", marker, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100 && (found = find_daemon()) != pid; i++)
		nanosleep(&ts, NULL);
	t_ok(found == pid, "oracle: a live 'sleep %s' is found by its marker (%d)", marker, (int)found);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void timeout_kills_tree(void)
{
	char req[1024];
	struct refrun r;
	pid_t d;

	reset_files();
	new_marker();
	daemon_req(req, sizeof(req), "sleep 600", ",\"timeout_ms\":1500");
	run(req, &r, NULL, NULL);
	d = read_pid("daemon");
	t_ok(strcmp(oc_str(r.outcome, "kind"), "timed_out") == 0 &&
		     strcmp(oc_str(r.outcome, "state"), "cancelled") == 0,
	     "timeout: cancelled/timed_out (%s)", oc_str(r.outcome, "kind"));
	t_ok(d > 0 && find_daemon() < 0,
	     "timeout: the setsid double-forked grandchild (sandbox pid %d) is gone", (int)d);
	refrun_free(&r);

	reset_files();
	new_marker();
	daemon_req(req, sizeof(req), "exit 0", "");
	run(req, &r, NULL, NULL);
	d = read_pid("daemon");
	t_ok(strcmp(oc_str(r.outcome, "kind"), "success") == 0,
	     "command exits leaving a daemon: success (%s)", oc_str(r.outcome, "kind"));
	t_ok(d > 0 && find_daemon() < 0,
	     "the daemon (sandbox pid %d) left behind was killed at the run's end", (int)d);
	refrun_free(&r);
}

static void send_term_when_ready(pid_t runner, void *arg)
{
	char path[128];
	struct timespec ts = {0, 10 * 1000 * 1000};

	(void)arg;
	snprintf(path, sizeof(path), "%s/ready", tmp);
	for (int i = 0; i < 1000 && access(path, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
	kill(runner, SIGTERM);
}

static void cancel_kills_tree(void)
{
	char req[1024];
	struct refrun r;
	pid_t d;

	reset_files();
	new_marker();
	daemon_req(req, sizeof(req), "sleep 600", "");
	run(req, &r, send_term_when_ready, NULL);
	d = read_pid("daemon");
	t_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 &&
		     strcmp(oc_str(r.outcome, "kind"), "cancelled") == 0 &&
		     strcmp(oc_str(r.outcome, "cancel_signal"), "SIGTERM") == 0,
	     "SIGTERM to the runner: outcome cancelled by SIGTERM (%s)", oc_str(r.outcome, "kind"));
	t_ok(d > 0 && find_daemon() < 0,
	     "cancel: the daemonized grandchild (sandbox pid %d) is gone", (int)d);
	refrun_free(&r);
}

static void exec_failures(void)
{
	char req[1024], path[128];
	struct refrun r;
	FILE *f;

	run(REQ_PLAIN("[\"no-such-command-sandproof\"]", ""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "executable_not_found") == 0 &&
		     strcmp(oc_str(r.outcome, "exec_error"), "ENOENT") == 0 &&
		     strcmp(oc_str(r.outcome, "state"), "failed") == 0,
	     "missing command: failed/executable_not_found ENOENT");
	refrun_free(&r);

	snprintf(path, sizeof(path), "%s/noexec.sh", tmp);
	f = fopen(path, "w");
	fputs("#!/bin/sh\necho ran\n", f);
	fclose(f);
	chmod(path, 0644);
	snprintf(req, sizeof(req), REQ_PLAIN("[\"%s\"]", ""), path);
	run(req, &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "application_failure") == 0 &&
		     strcmp(oc_str(r.outcome, "exec_error"), "EACCES") == 0 &&
		     strstr(oc_str(r.outcome, "stdout"), "ran") == NULL,
	     "file without execute permission: exec_error EACCES, not run (%s)",
	     oc_str(r.outcome, "exec_error"));
	refrun_free(&r);

	snprintf(req, sizeof(req), REQ_PLAIN("[\"%s\"]", ""), tmp);
	run(req, &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "exec_error"), "EACCES") == 0,
	     "a directory: exec_error EACCES (%s)", oc_str(r.outcome, "exec_error"));
	refrun_free(&r);

	snprintf(path, sizeof(path), "%s/garbage", tmp);
	f = fopen(path, "w");
	fputs("\x7f" "ELF\x01 not really\n", f);
	fclose(f);
	chmod(path, 0755);
	snprintf(req, sizeof(req), REQ_PLAIN("[\"%s\"]", ""), path);
	run(req, &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "exec_error"), "ENOEXEC") == 0,
	     "not an executable format: exec_error ENOEXEC (%s)", oc_str(r.outcome, "exec_error"));
	refrun_free(&r);

	/* A command that itself exits 127 is not "not found". */
	run(REQ_PLAIN("[\"sh\",\"-c\",\"exit 127\"]", ""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "application_failure") == 0 &&
		     oc_get(r.outcome, "exec_error") == NULL,
	     "exit 127 from the command is an application failure, not exec failure");
	refrun_free(&r);
}

static void stdin_env_cwd(void)
{
	struct refrun r;
	char req[512];

	run(REQ_PLAIN("[\"cat\"]", ",\"stdin\":\"hello\\nworld\""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "stdout"), "hello\nworld") == 0, "stdin passed through");
	refrun_free(&r);
	run(REQ_PLAIN("[\"cat\"]", ""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "success") == 0 &&
		     strcmp(oc_str(r.outcome, "stdout"), "") == 0,
	     "no stdin: empty, cat ends");
	refrun_free(&r);
	run("{\"version\":1,\"command\":[\"/usr/bin/env\"],\"env\":{\"A\":\"1\",\"B\":\"x y\"},"
	    "\"profile\":{\"filesystem\":{\"kind\":\"unrestricted\"},\"network\":{\"mode\":\"allow\"}}}",
	    &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "stdout"),
		    "A=1\nB=x y\nSANDPROOF_SANDBOXED=1\nSANDPROOF_NETWORK=allow\n") == 0,
	     "environment exactly as requested plus the two markers");
	refrun_free(&r);
	snprintf(req, sizeof(req), REQ_PLAIN("[\"pwd\"]", ",\"cwd\":\"%s\""), tmp);
	run(req, &r, NULL, NULL);
	t_ok(strncmp(oc_str(r.outcome, "stdout"), tmp, strlen(tmp)) == 0, "cwd as requested");
	refrun_free(&r);
	run(REQ_PLAIN("[\"pwd\"]", ",\"cwd\":\"/no/such/dir\""), &r, NULL, NULL);
	t_ok(strcmp(oc_str(r.outcome, "kind"), "sandbox_setup_failure") == 0 &&
		     strcmp(oc_str(r.outcome, "setup_error.step"), "chdir") == 0 &&
		     strcmp(oc_str(r.outcome, "setup_error.errno"), "ENOENT") == 0,
	     "missing cwd: setup failure at chdir, ENOENT");
	refrun_free(&r);
	run(REQ_PLAIN("[\"sh\",\"-c\",\"ls -l /proc/self/fd | wc -l\"]", ""), &r, NULL, NULL);
	/* total line + fds 0,1,2 + the one ls opened for the listing */
	t_ok(atoi(oc_str(r.outcome, "stdout")) == 5,
	     "only fds 0-2 are inherited (%s lines)", oc_str(r.outcome, "stdout"));
	refrun_free(&r);
	run(REQ_PLAIN("[\"sh\",\"-c\",\"ps -o sid= -o pgid= -p $$\"]", ""), &r, NULL, NULL);
	{
		int sid = 0, pgid = 0;

		sscanf(oc_str(r.outcome, "stdout"), "%d %d", &sid, &pgid);
		t_ok(sid > 0 && sid == pgid && sid != getsid(0),
		     "command leads its own session and process group (sid %d)", sid);
	}
	refrun_free(&r);
}

static void fail_closed(void)
{
	char req[1024], path[128];
	struct refrun r;

	/* The default profile is restricted with no write root: a write to a
	 * host directory must not land, whatever the command's exit says. */
	snprintf(path, sizeof(path), "%s/must-not-exist", tmp);
	snprintf(req, sizeof(req),
		 "{\"version\":1,\"command\":[\"touch\",\"%s\"],\"env\":{\"PATH\":\"/usr/bin:/bin\"}}",
		 path);
	run(req, &r, NULL, NULL);
	t_ok(access(path, F_OK) != 0, "default profile: the write did not land on the host (%s)",
	     oc_str(r.outcome, "kind"));
	t_ok(strcmp(oc_str(r.outcome, "kind"), "sandbox_setup_failure") == 0 ||
		     cJSON_IsTrue(oc_get(r.outcome, "enforcement.mount_ns")),
	     "it was refused or confined by a mount namespace");
	refrun_free(&r);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_lifecycle SANDPROOF_REF\n");
		return 2;
	}
	ref = argv[1];
	snprintf(tmp, sizeof(tmp), "/tmp/sp-lifecycle-XXXXXX");
	if (!mkdtemp(tmp))
		return 2;
	chmod(tmp, 0755);
	exit_codes();
	oracle_sees_daemons();
	timeout_kills_tree();
	cancel_kills_tree();
	exec_failures();
	stdin_env_cwd();
	fail_closed();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tmp);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmp);
	}
	return t_done();
}
