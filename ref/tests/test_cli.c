/* test_cli.c - the sandproof-ref command line: exec's documented exit
 * statuses, usage and request errors (exit 2, message naming the problem,
 * nothing run), --outcome, --help and --version. */
#include <stdio.h>
#include <sys/stat.h>

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
		      "--network maybe", "bad --network");
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
	outcome_file_and_info();
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	return t_done();
}
