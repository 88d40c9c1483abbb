/* exec_cli.c - `sandproof-ref exec [OPTIONS] -- COMMAND [ARG...]`: flags to
 * a request.
 *
 * The flags are turned into the cJSON tree of the JSON request that means
 * the same, and that tree goes through the one validator every request
 * goes through (request_tree.h).  So `--cwd /usr/../etc` is refused exactly
 * as `"cwd":"/usr/../etc"` is, and no flag can widen what its field allows.
 * What is exec's own: relative policy paths are taken from the current
 * directory, durations are seconds (rounded up to whole milliseconds, never
 * down to "no timeout"), and the command gets this process's environment
 * (the first of duplicate names, as getenv() reads it) and stdin. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "exec_cli.h"
#include "request_tree.h"
#include "sandproof/platform.h"

extern char **environ;

#define EXEC_MAX_SECONDS 604800u /* timeout_ms allows 7 days */

/* What the flags said, before it becomes a tree. */
struct exec_flags {
	cJSON *writes, *reads, *deny_read, *deny_write, *protect, *limits;
	const char *cwd, *network;
	bool unrestricted, no_temp, block_unix, json;
	uint64_t timeout_ms, output_limit;
};

static int flag_error(const char *flag, const char *arg, const char *why)
{
	fprintf(stderr, "sandproof-ref: %s %s: %s\nTry 'sandproof-ref --help'.\n", flag, arg, why);
	return -EINVAL;
}

/* Seconds as a plain decimal ("30", "0.5"; no sign, exponent, hex or
 * "inf"), to milliseconds rounded up: a positive duration never becomes 0,
 * which would mean "no timeout". */
static int parse_seconds(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 100;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > EXEC_MAX_SECONDS)
			return -ERANGE;
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale)
				frac += (uint64_t)(*p - '0') * scale;
			else if (*p != '0')
				frac++; /* a digit past the millisecond rounds up */
			scale /= 10;
		}
		if (frac > 1000)
			frac = 1000;
	}
	if (*p)
		return -EINVAL;
	*ms = whole * 1000 + frac;
	return *ms > (uint64_t)EXEC_MAX_SECONDS * 1000 ? -ERANGE : 0;
}

/* A count as a plain decimal (no sign, space or suffix). */
static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

/* A policy path: relative ones are taken from the current directory; the
 * validator then refuses what the JSON field would refuse. */
static int push_path(cJSON *arr, const char *arg)
{
	char cwd[PATH_MAX], *p = NULL;
	cJSON *s;

	if (arg[0] != '/' && arg[0] != '\0') {
		if (!getcwd(cwd, sizeof(cwd)) || asprintf(&p, "%s/%s", cwd, arg) < 0)
			return -errno;
	}
	s = cJSON_CreateString(p ? p : arg);
	free(p);
	if (!s || !cJSON_AddItemToArray(arr, s))
		return -ENOMEM;
	return 0;
}

static int push_string(cJSON *arr, const char *v)
{
	cJSON *s = cJSON_CreateString(v);

	return s && cJSON_AddItemToArray(arr, s) ? 0 : -ENOMEM;
}

/* --limit KEY=N: profile.limits.KEY = N, N a plain decimal.  The key is
 * the validator's to judge (an unknown one is refused naming it). */
static int push_limit(cJSON *limits, const char *arg)
{
	const char *eq = strchr(arg, '=');
	uint64_t v;
	char *key;
	int rc = 0;

	if (!eq || eq == arg || parse_count(eq + 1, UINT64_MAX / 2, &v) < 0 ||
	    v > (1ull << 53))
		return flag_error("--limit", arg, "must be KEY=N, N a plain decimal "
				  "(keys: docs/CONTRACT.md, LIM-1)");
	key = strndup(arg, (size_t)(eq - arg));
	if (!key)
		return -ENOMEM;
	cJSON_DeleteItemFromObjectCaseSensitive(limits, key); /* the last one wins */
	if (!cJSON_AddNumberToObject(limits, key, (double)v))
		rc = -ENOMEM;
	free(key);
	return rc;
}

enum { O_WRITE = 256, O_READ, O_DENY_READ, O_DENY_WRITE, O_PROTECT, O_NETWORK,
       O_UNRESTRICTED, O_NO_TEMP, O_BLOCK_UNIX, O_TIMEOUT, O_OUTPUT_LIMIT,
       O_CWD, O_JSON, O_LIMIT, O_TIMINGS, O_HELP };

static int take_flag(struct exec_flags *f, int c, const char *arg)
{
	int rc;

	switch (c) {
	case O_WRITE: return push_path(f->writes, arg);
	case O_READ: return push_path(f->reads, arg);
	case O_DENY_READ: return push_path(f->deny_read, arg);
	case O_DENY_WRITE: return push_path(f->deny_write, arg);
	case O_PROTECT: return push_string(f->protect, arg);
	case O_LIMIT: return push_limit(f->limits, arg);
	case O_NETWORK: f->network = arg; return 0;
	case O_UNRESTRICTED: f->unrestricted = true; return 0;
	case O_NO_TEMP: f->no_temp = true; return 0;
	case O_BLOCK_UNIX: f->block_unix = true; return 0;
	case O_CWD: f->cwd = arg; return 0;
	case O_JSON: f->json = true; return 0;
	/* Read by the Linux adapter (platforms/linux/enforce/timings.h);
	 * never passed to the command, whose environment is the request's. */
	case O_TIMINGS: return setenv("SANDPROOF_REF_TIMINGS", "1", 1) ? -ENOMEM : 0;
	case O_TIMEOUT:
		rc = parse_seconds(arg, &f->timeout_ms);
		if (rc)
			return flag_error("--timeout", arg, "must be seconds as a plain decimal, "
					  "0 (no timeout) to 604800");
		return 0;
	case O_OUTPUT_LIMIT:
		rc = parse_count(arg, 1ull << 30, &f->output_limit);
		if (rc)
			return flag_error("--output-limit", arg, "must be bytes as a plain decimal, "
					  "0 to 1073741824");
		return 0;
	default:
		return -EINVAL;
	}
}

/* This process's environment as the request's env object. */
static int add_environ(cJSON *root)
{
	cJSON *env = cJSON_AddObjectToObject(root, "env");

	if (!env)
		return -ENOMEM;
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;
		int rc = 0;

		if (!eq)
			continue; /* not a variable: execve would pass it, getenv never finds it */
		name = strndup(*e, (size_t)(eq - *e));
		if (!name)
			return -ENOMEM;
		if (!cJSON_GetObjectItemCaseSensitive(env, name) &&
		    !cJSON_AddStringToObject(env, name, eq + 1))
			rc = -ENOMEM;
		free(name);
		if (rc)
			return rc;
	}
	return 0;
}

/* One write root per --write, each with the default protected names and
 * every --protect. */
static int add_write_roots(cJSON *fs, const struct exec_flags *f)
{
	cJSON *wrs = cJSON_AddArrayToObject(fs, "write_roots"), *w;

	if (!wrs)
		return -ENOMEM;
	cJSON_ArrayForEach(w, f->writes) {
		cJSON *o = cJSON_CreateObject(), *names, *p;

		if (!o || !cJSON_AddItemToArray(wrs, o) ||
		    !cJSON_AddStringToObject(o, "root", w->valuestring) ||
		    !(names = cJSON_AddArrayToObject(o, "protected_metadata_names")))
			return -ENOMEM;
		for (size_t k = 0; request_default_protected[k]; k++)
			if (push_string(names, request_default_protected[k]))
				return -ENOMEM;
		cJSON_ArrayForEach(p, f->protect)
			if (push_string(names, p->valuestring))
				return -ENOMEM;
	}
	return 0;
}

static int add_profile(cJSON *root, const struct exec_flags *f)
{
	cJSON *prof = cJSON_AddObjectToObject(root, "profile"), *fs, *net;

	if (!prof || !(fs = cJSON_AddObjectToObject(prof, "filesystem")) ||
	    !(net = cJSON_AddObjectToObject(prof, "network")))
		return -ENOMEM;
	if (!cJSON_AddStringToObject(fs, "kind", f->unrestricted ? "unrestricted" : "restricted") ||
	    !cJSON_AddBoolToObject(fs, "allow_temp", !f->no_temp) ||
	    !cJSON_AddStringToObject(net, "mode", f->network ? f->network : "deny") ||
	    !cJSON_AddBoolToObject(prof, "block_unix_sockets", f->block_unix))
		return -ENOMEM;
	if (cJSON_GetArraySize(f->reads) &&
	    !cJSON_AddItemReferenceToObject(fs, "read_roots", f->reads))
		return -ENOMEM;
	if (!cJSON_AddItemReferenceToObject(fs, "deny_read", f->deny_read) ||
	    !cJSON_AddItemReferenceToObject(fs, "deny_write", f->deny_write))
		return -ENOMEM;
	if (f->limits->child && !cJSON_AddItemReferenceToObject(prof, "limits", f->limits))
		return -ENOMEM;
	return add_write_roots(fs, f);
}

static cJSON *build_tree(const struct exec_flags *f, int argc, char **argv)
{
	cJSON *root = cJSON_CreateObject(), *cmd;

	if (!root || !cJSON_AddNumberToObject(root, "version", REQUEST_VERSION) ||
	    !(cmd = cJSON_AddArrayToObject(root, "command")))
		goto fail;
	for (int i = 0; i < argc; i++)
		if (push_string(cmd, argv[i]))
			goto fail;
	if ((f->cwd && !cJSON_AddStringToObject(root, "cwd", f->cwd)) ||
	    !cJSON_AddNumberToObject(root, "timeout_ms", (double)f->timeout_ms) ||
	    !cJSON_AddNumberToObject(root, "output_limit_bytes", (double)f->output_limit) ||
	    add_environ(root) || add_profile(root, f))
		goto fail;
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

/* Which flag a refused field came from, for the message. */
static const char *flag_of(const char *err)
{
	static const struct {
		const char *field, *flag;
	} map[] = {
		{"cwd", "--cwd"},
		{"timeout_ms", "--timeout"},
		{"output_limit_bytes", "--output-limit"},
		{"profile.filesystem.read_roots", "--read"},
		{"profile.filesystem.deny_read", "--deny-read"},
		{"profile.filesystem.deny_write", "--deny-write"},
		{"profile.network", "--network"},
		{"profile.limits", "--limit"},
		{"env", "the environment"},
		{"command", "the command"},
	};

	if (strncmp(err, "profile.filesystem.write_roots[", 31) == 0)
		return strstr(err, "].protected_metadata_names[") ? "--protect" : "--write";
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		size_t n = strlen(map[i].field);

		if (strncmp(err, map[i].field, n) == 0 && strchr(".[:", err[n]))
			return map[i].flag;
	}
	return NULL;
}

static void flags_free(struct exec_flags *f)
{
	cJSON *all[] = {f->writes, f->reads, f->deny_read, f->deny_write, f->protect, f->limits};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		cJSON_Delete(all[i]);
}

static int flags_parse(struct exec_flags *f, int argc, char **argv)
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
		{"timings", no_argument, NULL, O_TIMINGS},
		{"limit", required_argument, NULL, O_LIMIT},
		{"help", no_argument, NULL, O_HELP},
		{0},
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c == O_HELP)
			return 1;
		rc = take_flag(f, c, optarg); /* getopt itself named a bad option */
		if (rc)
			return rc;
	}
	if (optind >= argc) {
		fprintf(stderr, "sandproof-ref: exec: no command given (put it after --)\n");
		return -EINVAL;
	}
	return 0;
}

int exec_build(int argc, char **argv, struct request *req, struct run_io *io)
{
	struct exec_flags f = {
		.writes = cJSON_CreateArray(), .reads = cJSON_CreateArray(),
		.deny_read = cJSON_CreateArray(), .deny_write = cJSON_CreateArray(),
		.protect = cJSON_CreateArray(), .limits = cJSON_CreateObject(),
		.timeout_ms = REQUEST_DEFAULT_TIMEOUT_MS,
		.output_limit = REQUEST_DEFAULT_OUTPUT_LIMIT,
	};
	char err[REQUEST_ERR_MAX];
	cJSON *tree = NULL;
	int rc = -ENOMEM;

	if (f.writes && f.reads && f.deny_read && f.deny_write && f.protect && f.limits)
		rc = flags_parse(&f, argc, argv);
	if (rc == 0 && !(tree = build_tree(&f, argc - optind, argv + optind)))
		rc = -ENOMEM;
	if (rc == 0) {
		rc = request_parse_tree(tree, platform_path_rules(), req, err);
		if (rc == -EINVAL) {
			const char *flag = flag_of(err);

			fprintf(stderr, "sandproof-ref: exec: %s%s%s%s\nTry 'sandproof-ref --help'.\n",
				err, flag ? " (from " : "", flag ? flag : "", flag ? ")" : "");
		}
	}
	*io = (struct run_io){.passthrough = !f.json, .stdin_inherit = true,
			       .outcome_unread = !f.json};
	cJSON_Delete(tree);
	flags_free(&f);
	if (rc == 1)
		return EXEC_HELP;
	if (rc == -ENOMEM)
		return EXEC_INTERNAL;
	return rc ? EXEC_USAGE : 0;
}
