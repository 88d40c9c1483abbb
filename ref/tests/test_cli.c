/* test_cli.c - the sandproof-ref command line: exec's documented exit
 * statuses, usage and request errors (exit 2, message naming the problem,
 * nothing run), --outcome, --help and --version. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "refrun.h"
#include "t.h"

static char *ref;
static char tmp[64];

#define PLAIN "--unrestricted", "--network", "allow"

static int status_of(struct refrun *r)
{
	return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
}

static void expect_status(char *const argv[], const char *input, int want,
			  const char *err_has, const char *what)
{
	struct refrun r;

	refrun(argv, input, &r, NULL, NULL);
	t_ok(status_of(&r) == want && (!err_has || strstr(r.err, err_has)),
	     "%s: exit %d (got %d, stderr: %.160s)", what, want, status_of(&r), r.err);
	refrun_free(&r);
}

static void exec_statuses(void)
{
	char marker[128];

	expect_status((char *[]){ref, "exec", PLAIN, "--", "true", NULL}, NULL, 0, NULL, "exec true");
	expect_status((char *[]){ref, "exec", PLAIN, "--", "sh", "-c", "exit 42", NULL}, NULL, 42,
		      NULL, "exec passes the exit code");
	expect_status((char *[]){ref, "exec", PLAIN, "--", "sh", "-c", "kill -KILL $$", NULL}, NULL,
		      137, NULL, "killed by SIGKILL: 128+9");
	expect_status((char *[]){ref, "exec", PLAIN, "--timeout", "0.3", "--", "sleep", "30", NULL},
		      NULL, 124, NULL, "timeout");
	expect_status((char *[]){ref, "exec", PLAIN, "--", "no-such-cmd-sandproof", NULL}, NULL, 127,
		      NULL, "not found");
	expect_status((char *[]){ref, "exec", PLAIN, "--", "/etc/hostname", NULL}, NULL, 126, NULL,
		      "not executable");
	snprintf(marker, sizeof(marker), "%s/ran", tmp);
	expect_status((char *[]){ref, "exec", "--cwd", "/", "--", "touch", marker, NULL}, NULL, 1,
		      "touch", "default policy: a write outside any write root fails");
	t_ok(access(marker, F_OK) != 0, "and nothing landed on the host");
}

static void usage_errors(void)
{
	char marker[128], req[256];

	expect_status((char *[]){ref, NULL}, NULL, 2, "no command given", "no subcommand");
	expect_status((char *[]){ref, "frobnicate", NULL}, NULL, 2, "unknown command 'frobnicate'",
		      "unknown subcommand");
	expect_status((char *[]){ref, "exec", PLAIN, NULL}, NULL, 2, "no command given", "exec without a command");
	expect_status((char *[]){ref, "exec", "--network", "maybe", "--", "true", NULL}, NULL, 2,
		      "(from --network)", "bad --network");
	expect_status((char *[]){ref, "exec", "--timeout", "soon", "--", "true", NULL}, NULL, 2,
		      "--timeout soon", "bad --timeout");
	expect_status((char *[]){ref, "exec", "--write", "/a/../b", "--", "true", NULL}, NULL, 2,
		      "\"..\"", "bad --write");
	expect_status((char *[]){ref, "exec", "--bogus", "--", "true", NULL}, NULL, 2, "bogus", "unknown flag");
	expect_status((char *[]){ref, "run", NULL}, NULL, 2, "--request", "run without --request");
	expect_status((char *[]){ref, "run", "--request", "/no/such/request.json", NULL}, NULL, 2,
		      "/no/such/request.json", "missing request file");
	snprintf(marker, sizeof(marker), "%s/ran2", tmp);
	snprintf(req, sizeof(req),
		 "{\"version\":1,\"command\":[\"touch\",\"%s\"],\"profile\":{\"filesystem\":{\"kind\":\"unrestricted\",\"bogus\":1}}}",
		 marker);
	expect_status((char *[]){ref, "run", "--request", "-", NULL}, req, 2,
		      "profile.filesystem.bogus: unknown field", "unknown field in request");
	t_ok(access(marker, F_OK) != 0, "refused request ran nothing");
	expect_status((char *[]){ref, "run", "--request", "-", "--outcome", "/no/such/dir/o.json", NULL},
		      REQ_PLAIN("[\"true\"]", ""), 2, "/no/such/dir/o.json", "unwritable --outcome");
}

/* exec's flags go through the request validator: each refused the way its
 * JSON field is, with exit 2 and the field named; nothing widened. */
static void exec_validation(void)
{
	char ws[128], marker[160];
	struct refrun r;

	snprintf(ws, sizeof(ws), "%s/ws", tmp);
	mkdir(ws, 0755);
	expect_status((char *[]){ref, "exec", "--cwd", "/usr/../etc", "--", "true", NULL}, NULL, 2,
		      "cwd: \"..\" components are not allowed (from --cwd)", "--cwd with ..");
	expect_status((char *[]){ref, "exec", "--cwd", "rel", "--", "true", NULL}, NULL, 2,
		      "cwd: must be an absolute path", "relative --cwd");
	expect_status((char *[]){ref, "exec", "--write", ws, "--protect", "a//b", "--", "true", NULL},
		      NULL, 2, "plain relative name (no empty", "--protect a//b is usage, not setup");
	snprintf(marker, sizeof(marker), "%s/ok", ws);
	/* --cwd: the test's own directory may be under /tmp, which the sandbox replaces */
	expect_status((char *[]){ref, "exec", "--write", ws, "--cwd", ws, "--protect", "foo..bar", "--",
				 "touch", marker, NULL}, NULL, 0, NULL, "--protect foo..bar is a plain name");
	t_ok(access(marker, F_OK) == 0, "and the command ran under it");
	expect_status((char *[]){ref, "exec", "--network", "none", "--", "true", NULL}, NULL, 2,
		      "profile.network.mode: must be \"deny\" or \"allow\" (from --network)",
		      "--network names its field");
	expect_status((char *[]){ref, "exec", PLAIN, "--limit", "bogus=3", "--", "true", NULL}, NULL, 2,
		      "profile.limits.bogus: unknown field (from --limit)", "--limit names its field");
	expect_status((char *[]){ref, "exec", PLAIN, "--limit", "pids=0x10", "--", "true", NULL}, NULL, 2,
		      "--limit pids=0x10", "--limit value in hex");
	expect_status((char *[]){ref, "exec", PLAIN, "--limit", "=3", "--", "true", NULL}, NULL, 2,
		      "--limit =3", "--limit without a key");
	static const char *const bad_timeouts[] = {"0x10", "1e3", "-1", "inf", "nan", " 5", "5s",
						   "1.", ".5", "604801"};
	for (size_t i = 0; i < sizeof(bad_timeouts) / sizeof(bad_timeouts[0]); i++)
		expect_status((char *[]){ref, "exec", PLAIN, "--timeout", (char *)bad_timeouts[i], "--",
					 "true", NULL}, NULL, 2, "--timeout", "--timeout refused");
	expect_status((char *[]){ref, "exec", PLAIN, "--timeout", "0.0004", "--", "sleep", "30", NULL},
		      NULL, 124, NULL, "--timeout 0.0004 rounds up to 1 ms, never to no timeout");
	expect_status((char *[]){ref, "exec", PLAIN, "--output-limit", "+5", "--", "true", NULL}, NULL, 2,
		      "--output-limit", "--output-limit with a sign");
	expect_status((char *[]){ref, "exec", PLAIN, "--output-limit", "0x10", "--", "true", NULL}, NULL,
		      2, "--output-limit", "--output-limit in hex");
	expect_status((char *[]){ref, "gc", "--parent", "relative/dir", "--dry-run", NULL}, NULL, 2,
		      "--parent must be an absolute path", "gc --parent relative");
	expect_status((char *[]){ref, "gc", "--parent", "/tmp/../x", "--dry-run", NULL}, NULL, 2,
		      "--parent must be an absolute path", "gc --parent with ..");
	refrun((char *[]){ref, "exec", "--json", PLAIN, "--", "/etc/hostname", NULL}, NULL, &r, NULL, NULL);
	t_ok(cJSON_IsString(oc_get(r.outcome, "exec_error")) &&
		     cJSON_IsNull(oc_get(r.outcome, "exit.code")) &&
		     cJSON_IsNull(oc_get(r.outcome, "exit.signal")),
	     "an exec failure has no exit status: the command never ran (OUT-3): %.200s", r.out);
	refrun_free(&r);
}

/* `run` reading a request from a pipe its writer never closes gives up at
 * --request-timeout with exit 2; nothing runs. */
static void request_pipe_left_open(void)
{
	char marker[128], req[512], errbuf[512] = "";
	int in[2], err[2], st = 0;
	ssize_t n;
	pid_t pid;

	snprintf(marker, sizeof(marker), "%s/ran-open", tmp);
	snprintf(req, sizeof(req), REQ_PLAIN("[\"touch\",\"%s\"]", ""), marker);
	if (pipe(in) < 0 || pipe(err) < 0) {
		t_ok(0, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(err[1], 2);
		close(in[1]);
		execl(ref, ref, "run", "--request", "-", "--request-timeout", "1", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(err[1]);
	if (write(in[1], req, strlen(req)) < 0) /* the whole request, but no EOF */
		t_ok(0, "write: %s", strerror(errno));
	alarm(30); /* a hang fails the test instead of holding ctest */
	n = read(err[0], errbuf, sizeof(errbuf) - 1);
	errbuf[n > 0 ? n : 0] = '\0';
	waitpid(pid, &st, 0);
	alarm(0);
	close(in[1]);
	close(err[0]);
	t_ok(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(errbuf, "still open after 1 s"),
	     "a request stream left open: exit 2 at the deadline (got 0x%x: %s)", st, errbuf);
	t_ok(access(marker, F_OK) != 0, "and nothing ran");
	expect_status((char *[]){ref, "run", "--request", "-", "--request-timeout", "0", NULL}, NULL, 2,
		      "--request-timeout 0", "--request-timeout 0 refused");
}

static void outcome_file_and_info(void)
{
	char path[128];
	struct refrun r;
	struct stat st;

	snprintf(path, sizeof(path), "%s/outcome.json", tmp);
	refrun((char *[]){ref, "run", "--request", "-", "--outcome", path, NULL},
	       REQ_PLAIN("[\"sh\",\"-c\",\"exit 3\"]", ""), &r, NULL, NULL);
	t_ok(status_of(&r) == 0 && r.out_len == 0 && stat(path, &st) == 0 && st.st_size > 0,
	     "--outcome writes the file, nothing on stdout, exit 0 though the command failed");
	refrun_free(&r);
	refrun((char *[]){ref, "--help", NULL}, NULL, &r, NULL, NULL);
	t_ok(status_of(&r) == 0 && strstr(r.out, "124") && strstr(r.out, "127"),
	     "--help documents the exit statuses");
	refrun_free(&r);
	refrun((char *[]){ref, "--version", NULL}, NULL, &r, NULL, NULL);
	t_ok(status_of(&r) == 0 && strncmp(r.out, "sandproof-ref ", 14) == 0, "--version");
	refrun_free(&r);
	refrun((char *[]){ref, "exec", "--json", PLAIN, "--", "sh", "-c", "echo out; echo err >&2; exit 5", NULL},
	       NULL, &r, NULL, NULL);
	t_ok(status_of(&r) == 5 && strcmp(oc_str(r.outcome, "stdout"), "out\n") == 0 &&
		     strcmp(oc_str(r.outcome, "stderr"), "err\n") == 0,
	     "exec --json prints the outcome and keeps the exit status");
	refrun_free(&r);
}

/* exec skips the "changes" walk only when no outcome is written: with
 * --json a write in the workspace is still reported (OUT-8). */
static void exec_json_changes(void)
{
	char ws[128], script[256];
	struct refrun r;
	const cJSON *ch;

	snprintf(ws, sizeof(ws), "%s/ws-changes", tmp);
	snprintf(script, sizeof(script), "echo x > %s/new", ws);
	if (mkdir(ws, 0755) < 0)
		t_ok(0, "mkdir %s: %s", ws, strerror(errno));
	refrun((char *[]){ref, "exec", "--json", "--write", ws, "--cwd", ws, "--", "sh", "-c",
			  script, NULL}, NULL, &r, NULL, NULL);
	ch = r.outcome ? oc_get(r.outcome, "changes") : NULL;
	t_ok(status_of(&r) == 0 && ch && oc_num(ch, "created") == 1,
	     "exec --json reports the command's write in \"changes\" (stderr: %.160s)", r.err);
	refrun_free(&r);
}

int main(int argc, char **argv)
{
	char cmd[128];

	if (argc != 2) {
		fprintf(stderr, "usage: test_cli SANDPROOF_REF\n");
		return 2;
	}
	ref = argv[1];
	/* exec hands the command our environment: make its PATH known */
	setenv("PATH", "/usr/bin:/bin", 1);
	snprintf(tmp, sizeof(tmp), "/tmp/sp-cli-XXXXXX");
	if (!mkdtemp(tmp))
		return 2;
	exec_statuses();
	usage_errors();
	exec_validation();
	request_pipe_left_open();
	outcome_file_and_info();
	exec_json_changes();
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	return t_done();
}
