/* refrun.h - drive a runner binary as a black box from a test: feed a
 * request on stdin, collect the outcome from stdout, and return the wait
 * status and resource usage of the runner process itself. */
#ifndef SANDPROOF_REFRUN_H
#define SANDPROOF_REFRUN_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

struct refrun {
	int status;          /* wait status of the runner */
	struct rusage ru;    /* its usage (ru_maxrss in KiB) */
	char *out;           /* everything it wrote to stdout */
	size_t out_len;
	char *err;           /* and to stderr (first 64 KiB) */
	cJSON *outcome;      /* parsed stdout when it was JSON */
	pid_t pid;
};

/* Start argv with `input` on its stdin; if on_start is given it is called
 * with the runner's pid once all input was written (e.g. to signal it). */
__attribute__((unused))
static int refrun(char *const argv[], const char *input, struct refrun *r,
		  void (*on_start)(pid_t pid, void *arg), void *arg)
{
	int in[2], out[2], err[2];
	size_t cap = 1 << 16, ecap = 1 << 16, elen = 0, off = 0, ilen;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	r->pid = pid;
	close(in[0]);
	close(out[1]);
	close(err[1]);
	signal(SIGPIPE, SIG_IGN);
	ilen = input ? strlen(input) : 0;
	if (ilen == 0) {
		close(in[1]);
		in[1] = -1;
		if (on_start)
			on_start(pid, arg);
	}
	r->out = malloc(cap + 1);
	r->err = malloc(ecap + 1);
	while (out[0] >= 0 || err[0] >= 0) {
		struct pollfd pf[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0},
				       {in[1], POLLOUT, 0}};

		if (poll(pf, 3, -1) < 0 && errno != EINTR)
			break;
		if (pf[2].revents) {
			ssize_t n = write(in[1], input + off, ilen - off);

			if (n > 0)
				off += (size_t)n;
			if (n < 0 || off == ilen) {
				close(in[1]);
				in[1] = -1;
				/* the whole request is in: the run can start */
				if (on_start)
					on_start(pid, arg);
			}
		}
		if (pf[0].revents) {
			if (r->out_len == cap)
				r->out = realloc(r->out, (cap *= 2) + 1);
			ssize_t n = read(out[0], r->out + r->out_len, cap - r->out_len);

			if (n <= 0) {
				close(out[0]);
				out[0] = -1;
			} else {
				r->out_len += (size_t)n;
			}
		}
		if (pf[1].revents) {
			char buf[4096];
			ssize_t n = read(err[0], buf, sizeof(buf));

			if (n <= 0) {
				close(err[0]);
				err[0] = -1;
			} else if (elen + (size_t)n <= ecap) {
				memcpy(r->err + elen, buf, (size_t)n);
				elen += (size_t)n;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	r->out[r->out_len] = '\0';
	r->err[elen] = '\0';
	while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
		;
	r->outcome = cJSON_Parse(r->out);
	return 0;
}

__attribute__((unused))
static void refrun_free(struct refrun *r)
{
	free(r->out);
	free(r->err);
	cJSON_Delete(r->outcome);
	memset(r, 0, sizeof(*r));
}

/* Outcome field helpers: "kind", "exit.code"... NULL/-1 when absent. */
__attribute__((unused))
static const cJSON *oc_get(const cJSON *o, const char *path)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
		o = cJSON_GetObjectItemCaseSensitive(o, tok);
	return o;
}

__attribute__((unused))
static const char *oc_str(const cJSON *o, const char *path)
{
	const cJSON *v = oc_get(o, path);

	return cJSON_IsString(v) ? v->valuestring : "(none)";
}

__attribute__((unused))
static double oc_num(const cJSON *o, const char *path)
{
	const cJSON *v = oc_get(o, path);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* A captured stream of an outcome ("stdout" or "stderr"), decoded from its
 * "<name>_encoding" (utf-8 or base64): malloc'd, NUL-terminated, *len its
 * size; NULL when the field is missing or does not decode. */
__attribute__((unused))
static char *oc_stream(const cJSON *o, const char *name, size_t *len)
{
	char key[64];
	const char *enc, *s;
	unsigned char *out;
	size_t n, k = 0;
	uint32_t acc = 0;
	int bits = 0;

	snprintf(key, sizeof(key), "%s_encoding", name);
	enc = oc_str(o, key);
	s = oc_str(o, name);
	if (!cJSON_IsString(oc_get(o, name)))
		return NULL;
	n = strlen(s);
	out = malloc(n + 1);
	if (!out)
		return NULL;
	if (strcmp(enc, "utf-8") == 0) {
		memcpy(out, s, n + 1);
		*len = n;
		return (char *)out;
	}
	if (strcmp(enc, "base64") != 0 || n % 4) {
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const char *p = strchr(tab, s[i]);

		if (!p || !*p) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (uint32_t)(p - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	out[k] = 0;
	*len = k;
	return (char *)out;
}

/* A request for the plain adapter: no filesystem or network confinement. */
#define REQ_PLAIN(cmd_json, extra)                                               \
	"{\"version\":1,\"command\":" cmd_json ","                              \
	"\"env\":{\"PATH\":\"/usr/bin:/bin\"},"                                 \
	"\"profile\":{\"filesystem\":{\"kind\":\"unrestricted\"},"              \
	"\"network\":{\"mode\":\"allow\"}}" extra "}"

#endif
