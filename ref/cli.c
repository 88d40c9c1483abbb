/* cli.c - the sandproof-ref command line.  The only place in ref/ that
 * prints diagnostics or picks an exit status; everything below it returns
 * -errno. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "caps_cli.h"
#include "exec_cli.h"
#include "outcome.h"
#include "profile_cli.h"
#include "sandproof/platform.h"
#include "sandproof/request.h"
#include "run.h"
#include "serve.h"
#include "runtime.h"

#define EXIT_USAGE 2
#define EXIT_INTERNAL 1

extern char **environ;

static const char usage_text[] =
"usage: sandproof-ref run --request FILE|- [--outcome FILE] [--request-timeout S]\n"
"       sandproof-ref exec [OPTIONS] -- COMMAND [ARG...]\n"
"       sandproof-ref gc [--parent DIR] [--max-age S] [--max-roots N] [--dry-run] [--json]\n"
"       sandproof-ref doctor\n"
"       sandproof-ref serve [--max-sessions N] [--retain-ms MS] [--output-bytes N]\n"
"       sandproof-ref profile --os macos --request FILE|- [--temp-dir DIR]\n"
"                     [--message-tag TAG]\n"
"       sandproof-ref profile --os windows --request FILE|- [--temp-dir DIR]\n"
"                     [--format text|json]\n"
"       sandproof-ref --help | --version | --sandproof-capabilities\n"
"\n"
"run   reads one JSON request (docs/CONTRACT.md) and writes one JSON outcome\n"
"      to stdout or --outcome FILE.  The request must be complete (its stream\n"
"      closed) within --request-timeout seconds (default 60).  Exit: 0 outcome\n"
"      written (whatever the command did), 2 bad request or usage (nothing\n"
"      ran), 1 internal error.\n"
"\n"
"gc    evicts runtime roots: older than --max-age, then least recently used\n"
"      down to --max-roots; roots in use are skipped.\n"
"\n"
"profile  prints the Seatbelt profile (SBPL) the macOS backend would enforce\n"
"      for the request, then its parameters as ';; -D NAME=VALUE' lines (the\n"
"      output is itself a valid profile file).  --temp-dir names the run's\n"
"      private temp directory (a runtime root gives one at run time; without\n"
"      it, allow_temp is refused), --message-tag the tag of every deny.  On\n"
"      any OS; reads nothing but the request.  --os windows judges the\n"
"      request's paths as Windows paths (C:\\dir) and prints the plan the\n"
"      Windows backend applies: token recipe, ACEs, WFP filters (--format\n"
"      json: the same as one JSON object).  Exit: 0\n"
"      printed, 2 usage, bad request, --os other than macos or windows, or a\n"
"      request the profile cannot express (the message names the field), 1\n"
"      internal error.\n"
"\n"
"serve  retained interactive sessions: JSON lines on stdin, one response line\n"
"      each on stdout (ops start, continue, list, stop, stop_all; docs/CONTRACT.md,\n"
"      SESS).  Every session runs its request as `run` does.  Linux only.\n"
"\n"
"doctor  checks what this host supports (namespaces, mount API, openat2,\n"
"      seccomp, Landlock); exit 0 when the contract can be enforced here, 1 not.\n"
"\n"
"--sandproof-capabilities  prints what a harness may ask of this runner (the\n"
"      capability object, docs/RUNNERS.md): `sandproof run --runner\n"
"      contract:PATH` reads it.\n"
"\n"
"exec  builds the same request from flags and runs COMMAND:\n"
"  --write DIR        writable root (repeatable)\n"
"  --read DIR         readable root (repeatable; default /)\n"
"  --deny-read P      hide P (repeatable)\n"
"  --deny-write P     keep P read-only (repeatable)\n"
"  --protect NAME     protected metadata name under each write root, added to\n"
"                     .git/hooks .git/config .agents .zero (repeatable)\n"
"  --network MODE     deny (default) or allow\n"
"  --unrestricted     do not restrict the filesystem at all\n"
"  --no-temp          no writable /tmp\n"
"  --block-unix-sockets\n"
"  --timeout SECONDS  kill the command's tree after SECONDS (default 600, 0: none)\n"
"  --output-limit N   bytes kept per stream with --json (default 1048576)\n"
"  --cwd DIR          working directory (default: the current one)\n"
"  --limit KEY=N      a resource limit, profile.limits.KEY (repeatable): pids,\n"
"                     memory_bytes, tmp_bytes, shm_bytes, open_files, cpu_seconds;\n"
"                     refused (125) when this host cannot enforce it\n"
"  --json             capture output and print the JSON outcome instead\n"
"  --timings          print where the launch spent its time on stderr (Linux;\n"
"                     SANDPROOF_REF_TIMINGS=1 does the same for run)\n"
"  The command gets this process's environment and stdin.  Without --json its\n"
"  output passes straight through and the exit status is:\n"
"    the command's own status   it ran to its end (128+N: killed by signal N)\n"
"    124  timed out             125  refused: sandbox setup failed or denied\n"
"    126  not executable        127  not found\n"
"    128+N cancelled by signal N sent to the runner\n"
"    2    usage or request error (nothing ran)\n";

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sandproof-ref: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'sandproof-ref --help'.\n");
	return EXIT_USAGE;
}

/* How long `run` waits for its whole request: a writer that never closes
 * the stream (a pipe left open) would otherwise hold the runner forever. */
#define REQUEST_READ_TIMEOUT_S 60

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is readable or the deadline passes: 0, -ETIMEDOUT, -errno. */
static int wait_readable(int fd, int64_t deadline)
{
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - mono_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* Read all of fd, refusing more than max bytes or a stream still open at
 * the deadline. */
static int read_all(int fd, size_t max, int64_t deadline, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = cap > max ? NULL : realloc(buf, cap * 2 + 1);

			rc = cap > max ? -EFBIG : -ENOMEM;
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
			rc = 0;
		}
		rc = wait_readable(fd, deadline);
		if (rc < 0)
			break;
		r = read(fd, buf + n, cap - n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : 0;
			break;
		}
		n += (size_t)r;
	}
	if (rc == 0 && n > max)
		rc = -EFBIG;
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static int finish(struct request *req, const struct run_io *io, FILE *of,
		  int passthrough_status)
{
	struct outcome o;
	int status;

	if (!req->cwd) {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd))) {
			fprintf(stderr, "sandproof-ref: cannot read the working directory: %s\n",
				strerror(errno));
			return EXIT_INTERNAL;
		}
		req->cwd = strdup(cwd);
		if (!req->cwd)
			return EXIT_INTERNAL;
	}
	run_execute(req, io, &o);
	status = passthrough_status ? outcome_exit_status(&o) : 0;
	if (o.kind == OK_SANDBOX_SETUP_FAILURE && io->passthrough)
		fprintf(stderr, "sandproof-ref: refused: %s: %s%s%s\n", o.setup.step,
			strerror(o.setup.err), o.setup.detail[0] ? ": " : "",
			o.setup.detail);
	if (of && outcome_write(&o, of) < 0) {
		fprintf(stderr, "sandproof-ref: cannot write the outcome: %s\n",
			strerror(errno));
		status = EXIT_INTERNAL;
	}
	outcome_free(&o);
	request_free(req);
	return status;
}

/* Reads the request at reqpath ("-": standard input) within wait_s seconds
 * and parses it into req (the caller frees it).  0, or EXIT_USAGE after
 * saying why on stderr (nothing ran, req untouched).  `profile` reads its
 * request the same way (profile_cli.h). */
int cli_read_request(const char *reqpath, long wait_s,
		     const struct request_path_rules *rules, struct request *req)
{
	char err[REQUEST_ERR_MAX], *text = NULL;
	size_t len = 0;
	int fd, rc;

	/* Non-blocking: a FIFO with no writer yet must not hold open() past the
	 * deadline.  (Standard input is the caller's description; its flags are
	 * left alone: poll() alone keeps the reads from blocking.) */
	fd = strcmp(reqpath, "-") == 0 ? 0 : open(reqpath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "sandproof-ref: request: cannot open %s: %s\n",
			reqpath, strerror(errno));
		return EXIT_USAGE;
	}
	rc = read_all(fd, REQUEST_MAX_BYTES, mono_ms() + wait_s * 1000, &text, &len);
	if (fd != 0)
		close(fd);
	if (rc == -EFBIG) {
		fprintf(stderr, "sandproof-ref: request: larger than %d bytes\n",
			REQUEST_MAX_BYTES);
		return EXIT_USAGE;
	}
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "sandproof-ref: request: %s still open after %ld s; the writer "
			"must close it after the request (nothing ran)\n",
			strcmp(reqpath, "-") == 0 ? "standard input" : reqpath, wait_s);
		return EXIT_USAGE;
	}
	if (rc < 0) {
		fprintf(stderr, "sandproof-ref: request: cannot read %s: %s\n",
			reqpath, strerror(-rc));
		return EXIT_USAGE;
	}
	rc = request_parse_with(text, len, rules, req, err);
	free(text);
	if (rc < 0) {
		fprintf(stderr, "sandproof-ref: %s\n", err);
		return EXIT_USAGE;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"request", required_argument, NULL, 'r'},
		{"outcome", required_argument, NULL, 'o'},
		{"request-timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *reqpath = NULL, *outpath = NULL;
	char *end;
	struct request req;
	struct run_io io = {.passthrough = false};
	FILE *of = stdout;
	int c, rc, status;
	long wait_s = REQUEST_READ_TIMEOUT_S;

	while ((c = getopt_long(argc, argv, "+r:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': reqpath = optarg; break;
		case 'o': outpath = optarg; break;
		case 't':
			errno = 0;
			wait_s = optarg[0] >= '0' && optarg[0] <= '9' ? strtol(optarg, &end, 10) : -1;
			if (wait_s < 1 || wait_s > 86400 || errno || *end)
				return usage_error("run: --request-timeout %s: must be whole seconds, "
						   "1 to 86400", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("%s", "run: bad option");
		}
	}
	if (!reqpath)
		return usage_error("%s", "run: --request FILE|- is required");
	if (optind != argc)
		return usage_error("run: unexpected argument '%s'", argv[optind]);
	rc = cli_read_request(reqpath, wait_s, platform_path_rules(), &req);
	if (rc)
		return rc;
	if (outpath) {
		/* Created before the run so an unwritable path fails before
		 * anything runs. */
		of = fopen(outpath, "we");
		if (!of) {
			fprintf(stderr, "sandproof-ref: --outcome %s: %s\n", outpath,
				strerror(errno));
			request_free(&req);
			return EXIT_USAGE;
		}
	}
	status = finish(&req, &io, of, 0);
	if (of != stdout && fclose(of) != 0)
		status = EXIT_INTERNAL;
	return status;
}

/* `serve`'s worker (sess.h): the request on fd 3, the outcome to fd 4,
 * the command on our 0, 1, 2 as `exec` passes them through. */
static int cmd_session_worker(void)
{
	struct request req;
	struct run_io io = {.passthrough = true, .stdin_inherit = true};
	FILE *of;
	int rc;

	fcntl(4, F_SETFD, FD_CLOEXEC);
	of = fdopen(4, "w");
	if (!of)
		return EXIT_INTERNAL;
	rc = cli_read_request("/dev/fd/3", REQUEST_READ_TIMEOUT_S, platform_path_rules(), &req);
	close(3);
	if (rc == 0)
		rc = finish(&req, &io, of, 0);
	fclose(of);
	return rc;
}

static int cmd_exec(int argc, char **argv)
{
	struct request req;
	struct run_io io;
	int rc = exec_build(argc, argv, &req, &io);

	if (rc == EXEC_HELP) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (rc)
		return rc == EXEC_INTERNAL ? EXIT_INTERNAL : EXIT_USAGE;
	return finish(&req, &io, io.passthrough ? NULL : stdout, 1);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("%s", "no command given");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("sandproof-ref %s (contract version %d)\n", SANDPROOF_VERSION,
		       REQUEST_VERSION);
		return 0;
	}
	/* the capability object (docs/RUNNERS.md): `--runner contract:PATH` */
	if (strcmp(argv[1], "--sandproof-capabilities") == 0 && argc == 2)
		return caps_print(stdout);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "exec") == 0)
		return cmd_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "serve") == 0)
		return serve_cli(argc - 1, argv + 1);
	if (strcmp(argv[1], "__session-worker") == 0 && argc == 2)
		return cmd_session_worker();
	if (strcmp(argv[1], "profile") == 0)
		return profile_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "gc") == 0)
		return gc_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "doctor") == 0) {
		if (argc != 2)
			return usage_error("doctor: unexpected argument '%s'", argv[2]);
		return platform_doctor(stdout);
	}
	return usage_error("unknown command '%s'", argv[1]);
}
