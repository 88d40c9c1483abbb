/* cli.c - the sandproof-ref command line.  The only place in ref/ that
 * prints diagnostics or picks an exit status; everything below it returns
 * -errno. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outcome.h"
#include "platform.h"
#include "request.h"
#include "run.h"
#include "runtime.h"

#define EXIT_USAGE 2
#define EXIT_INTERNAL 1

extern char **environ;

static const char usage_text[] =
"usage: sandproof-ref run --request FILE|- [--outcome FILE]\n"
"       sandproof-ref exec [OPTIONS] -- COMMAND [ARG...]\n"
"       sandproof-ref gc [--parent DIR] [--max-age S] [--max-roots N] [--dry-run] [--json]\n"
"       sandproof-ref doctor\n"
"       sandproof-ref --help | --version\n"
"\n"
"run   reads one JSON request (docs/CONTRACT.md) and writes one JSON outcome\n"
"      to stdout or --outcome FILE.  Exit: 0 outcome written (whatever the\n"
"      command did), 2 bad request or usage (nothing ran), 1 internal error.\n"
"\n"
"gc    evicts runtime roots: older than --max-age, then least recently used\n"
"      down to --max-roots; roots in use are skipped.\n"
"\n"
"doctor  checks what this host supports (namespaces, mount API, openat2,\n"
"      seccomp, Landlock); exit 0 when the contract can be enforced here, 1 not.\n"
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
"  --json             capture output and print the JSON outcome instead\n"
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

/* Read all of fd, refusing more than max bytes. */
static int read_all(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
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

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"request", required_argument, NULL, 'r'},
		{"outcome", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *reqpath = NULL, *outpath = NULL;
	char err[REQUEST_ERR_MAX], *text = NULL;
	struct request req;
	struct run_io io = {.passthrough = false};
	size_t len = 0;
	FILE *of = stdout;
	int c, fd, rc, status;

	while ((c = getopt_long(argc, argv, "+r:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': reqpath = optarg; break;
		case 'o': outpath = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("%s", "run: bad option");
		}
	}
	if (!reqpath)
		return usage_error("%s", "run: --request FILE|- is required");
	if (optind != argc)
		return usage_error("run: unexpected argument '%s'", argv[optind]);
	fd = strcmp(reqpath, "-") == 0 ? 0 : open(reqpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "sandproof-ref: request: cannot open %s: %s\n",
			reqpath, strerror(errno));
		return EXIT_USAGE;
	}
	rc = read_all(fd, REQUEST_MAX_BYTES, &text, &len);
	if (fd != 0)
		close(fd);
	if (rc == -EFBIG) {
		fprintf(stderr, "sandproof-ref: request: larger than %d bytes\n",
			REQUEST_MAX_BYTES);
		return EXIT_USAGE;
	}
	if (rc < 0) {
		fprintf(stderr, "sandproof-ref: request: cannot read %s: %s\n",
			reqpath, strerror(-rc));
		return EXIT_USAGE;
	}
	rc = request_parse(text, len, getenv("HOME"), &req, err);
	free(text);
	if (rc < 0) {
		fprintf(stderr, "sandproof-ref: %s\n", err);
		return EXIT_USAGE;
	}
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

static int add_path(struct strv *sv, const char *opt, const char *arg)
{
	char *p;
	int rc;

	if (arg[0] != '/') {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)) || asprintf(&p, "%s/%s", cwd, arg) < 0)
			return -ENOMEM;
	} else if (!(p = strdup(arg))) {
		return -ENOMEM;
	}
	if (request_clean_path(p) < 0) {
		fprintf(stderr, "sandproof-ref: %s %s: \"..\" components are not allowed\n",
			opt, arg);
		free(p);
		return -EINVAL;
	}
	rc = strv_push(sv, p);
	free(p);
	return rc;
}

enum { O_WRITE = 256, O_READ, O_DENY_READ, O_DENY_WRITE, O_PROTECT, O_NETWORK,
       O_UNRESTRICTED, O_NO_TEMP, O_BLOCK_UNIX, O_TIMEOUT, O_OUTPUT_LIMIT,
       O_CWD, O_JSON, O_HELP };

static int cmd_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{"write", required_argument, NULL, O_WRITE},
		{"read", required_argument, NULL, O_READ},
		{"deny-read", required_argument, NULL, O_DENY_READ},
		{"deny-write", required_argument, NULL, O_DENY_WRITE},
		{"protect", required_argument, NULL, O_PROTECT},
		{"network", required_argument, NULL, O_NETWORK},
		{"unrestricted", no_argument, NULL, O_UNRESTRICTED},
		{"no-temp", no_argument, NULL, O_NO_TEMP},
		{"block-unix-sockets", no_argument, NULL, O_BLOCK_UNIX},
		{"timeout", required_argument, NULL, O_TIMEOUT},
		{"output-limit", required_argument, NULL, O_OUTPUT_LIMIT},
		{"cwd", required_argument, NULL, O_CWD},
		{"json", no_argument, NULL, O_JSON},
		{"help", no_argument, NULL, O_HELP},
		{0},
	};
	struct request req;
	struct strv writes = {0}, protect = {0};
	struct run_io io = {.passthrough = true, .stdin_inherit = true};
	char *end;
	int c, rc = 0;
	double secs;

	request_init(&req);
	while (rc == 0 && (c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case O_WRITE: rc = add_path(&writes, "--write", optarg); break;
		case O_READ: rc = add_path(&req.read_roots, "--read", optarg); break;
		case O_DENY_READ: rc = add_path(&req.deny_read, "--deny-read", optarg); break;
		case O_DENY_WRITE: rc = add_path(&req.deny_write, "--deny-write", optarg); break;
		case O_PROTECT:
			if (!optarg[0] || optarg[0] == '/' || strstr(optarg, "..")) {
				fprintf(stderr, "sandproof-ref: --protect %s: must be a plain relative name\n", optarg);
				rc = -EINVAL;
			} else {
				rc = strv_push(&protect, optarg);
			}
			break;
		case O_NETWORK:
			if (strcmp(optarg, "deny") == 0)
				req.network = NET_DENY;
			else if (strcmp(optarg, "allow") == 0)
				req.network = NET_ALLOW;
			else {
				fprintf(stderr, "sandproof-ref: --network %s: must be deny or allow\n", optarg);
				rc = -EINVAL;
			}
			break;
		case O_UNRESTRICTED: req.fs_kind = FS_UNRESTRICTED; break;
		case O_NO_TEMP: req.allow_temp = false; break;
		case O_BLOCK_UNIX: req.block_unix_sockets = true; break;
		case O_TIMEOUT:
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(secs >= 0) || secs > 604800) {
				fprintf(stderr, "sandproof-ref: --timeout %s: must be seconds between 0 and 604800\n", optarg);
				rc = -EINVAL;
			} else {
				req.timeout_ms = (uint64_t)llround(secs * 1000);
			}
			break;
		case O_OUTPUT_LIMIT:
			errno = 0;
			req.output_limit_bytes = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    req.output_limit_bytes > (1ull << 30)) {
				fprintf(stderr, "sandproof-ref: --output-limit %s: must be bytes between 0 and 1073741824\n", optarg);
				rc = -EINVAL;
			}
			break;
		case O_CWD:
			free(req.cwd);
			req.cwd = NULL;
			if (optarg[0] != '/') {
				fprintf(stderr, "sandproof-ref: --cwd %s: must be an absolute path\n", optarg);
				rc = -EINVAL;
			} else if (!(req.cwd = strdup(optarg))) {
				rc = -ENOMEM;
			}
			break;
		case O_JSON: io.passthrough = false; break;
		case O_HELP:
			fputs(usage_text, stdout);
			rc = 1;
			break;
		default: rc = -EINVAL; break;
		}
	}
	if (rc == 0 && optind >= argc) {
		fprintf(stderr, "sandproof-ref: exec: no command given (put it after --)\n");
		rc = -EINVAL;
	}
	for (int i = optind; rc == 0 && i < argc; i++)
		rc = strv_push(&req.command, argv[i]);
	for (char **e = environ; rc == 0 && *e; e++)
		rc = strv_push(&req.env, *e);
	if (rc == 0 && req.read_roots.n == 0)
		rc = strv_push(&req.read_roots, "/");
	if (rc == 0 && writes.n) {
		req.write_roots = calloc(writes.n, sizeof(*req.write_roots));
		if (!req.write_roots)
			rc = -ENOMEM;
		for (size_t i = 0; rc == 0 && i < writes.n; i++) {
			struct write_root *w = &req.write_roots[i];

			req.n_write_roots++;
			w->root = strdup(writes.v[i]);
			if (!w->root)
				rc = -ENOMEM;
			for (size_t k = 0; rc == 0 && request_default_protected[k]; k++)
				rc = strv_push(&w->protected_names, request_default_protected[k]);
			for (size_t k = 0; rc == 0 && k < protect.n; k++)
				rc = strv_push(&w->protected_names, protect.v[k]);
		}
	}
	strv_free(&writes);
	strv_free(&protect);
	if (rc != 0) {
		request_free(&req);
		if (rc == 1)
			return 0;
		if (rc == -EINVAL)
			fprintf(stderr, "Try 'sandproof-ref --help'.\n");
		return rc == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
	}
	if (io.passthrough)
		return finish(&req, &io, NULL, 1);
	return finish(&req, &io, stdout, 1);
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
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "exec") == 0)
		return cmd_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "gc") == 0)
		return gc_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "doctor") == 0) {
		if (argc != 2)
			return usage_error("doctor: unexpected argument '%s'", argv[2]);
		return platform_doctor(stdout);
	}
	return usage_error("unknown command '%s'", argv[1]);
}
