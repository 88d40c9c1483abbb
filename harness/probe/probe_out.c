/* probe_out.c - JSON lines for the probe (errno names: the platform's one
 * table, platforms/<os>/common/names.c, compiled in).  Portable C: the
 * Windows probe compiles it too (write(2) and getpid are its CRT's).
 *
 * Every line goes out in one write(2) call (looping only on a short write),
 * so a probe killed between operations leaves only complete lines, and a
 * forked helper never inherits half a line in a stdio buffer. */
#include "probe.h"

#include "names.h"
#include "utf8.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void probe_res_fail(struct probe_res *res, int err, const char *step)
{
	res->err = err ? err : EIO;
	res->step = step;
}

/* Appends one formatted field, or nothing at all when it does not fit, so
 * the line stays valid JSON whatever its size. */
static void probe_field_fmt(struct probe_res *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void probe_field_fmt(struct probe_res *res, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(res->extra) - res->len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(res->extra + res->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		res->extra[res->len] = '\0';
		res->overflow = true;
		return;
	}
	res->len += (size_t)n;
}


/* A string field; bytes that are not valid UTF-8 become U+FFFD and the
 * field "<key>_lossy":true follows, so a reader knows the text is not exact. */
void probe_field_str(struct probe_res *res, const char *key, const char *s,
		     size_t n)
{
	size_t start = res->len, room = sizeof(res->extra);
	char *o = res->extra;
	size_t w = res->len;
	bool lossy = false;
	int klen = snprintf(o + w, room - w, ",\"%s\":\"", key);

	if (klen < 0 || (size_t)klen >= room - w)
		goto overflow;
	w += (size_t)klen;
	for (size_t k = 0; k < n;) {
		const unsigned char *p = (const unsigned char *)s + k;
		size_t u = utf8_len(p, n - k, NULL);
		char esc[8];
		const char *put = esc;
		size_t plen;

		if (u == 0) {
			put = "\\ufffd";
			plen = 6;
			lossy = true;
			k++;
		} else if (u > 1) {
			put = (const char *)p;
			plen = u;
			k += u;
		} else {
			k++;
			if (*p == '"' || *p == '\\') {
				esc[0] = '\\';
				esc[1] = (char)*p;
				plen = 2;
			} else if (*p == '\n') {
				put = "\\n";
				plen = 2;
			} else if (*p == '\t') {
				put = "\\t";
				plen = 2;
			} else if (*p < 0x20 || *p == 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", *p);
				plen = 6;
			} else {
				esc[0] = (char)*p;
				plen = 1;
			}
		}
		if (plen + 2 >= room - w)
			goto overflow;
		memcpy(o + w, put, plen);
		w += plen;
	}
	o[w++] = '"';
	o[w] = '\0';
	res->len = w;
	if (lossy)
		probe_field_fmt(res, ",\"%s_lossy\":true", key);
	return;
overflow:
	res->len = start;
	o[start] = '\0';
	res->overflow = true;
}

void probe_field_cstr(struct probe_res *res, const char *key, const char *s)
{
	if (s)
		probe_field_str(res, key, s, strlen(s));
	else
		probe_field_null(res, key);
}

void probe_field_int(struct probe_res *res, const char *key, long long v)
{
	probe_field_fmt(res, ",\"%s\":%lld", key, v);
}

void probe_field_bool(struct probe_res *res, const char *key, bool v)
{
	probe_field_fmt(res, ",\"%s\":%s", key, v ? "true" : "false");
}

void probe_field_null(struct probe_res *res, const char *key)
{
	probe_field_fmt(res, ",\"%s\":null", key);
}

/* err 0 prints null, like the top-level "errno". */
void probe_field_errno(struct probe_res *res, const char *key, int err)
{
	if (err == 0)
		probe_field_null(res, key);
	else
		probe_field_fmt(res, ",\"%s\":\"%s\"", key,
				names_errno(err));
}

int probe_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Output errors are ignored: stdout is the only channel to report them on. */
void probe_emit(int i, const char *op, const struct probe_res *res)
{
	static char line[PROBE_EXTRA_MAX + 512];
	char errfield[48], stepfield[64];
	int n;

	if (res->err)
		snprintf(errfield, sizeof(errfield), "\"%s\"",
			 res->err_name ? res->err_name : names_errno(res->err));
	else
		snprintf(errfield, sizeof(errfield), "null");
	stepfield[0] = '\0';
	if (res->err && res->step)
		snprintf(stepfield, sizeof(stepfield), ",\"step\":\"%s\"",
			 res->step);
	n = snprintf(line, sizeof(line),
		     "{\"i\":%d,\"op\":\"%s\",\"ok\":%s,\"errno\":%s%s%s%s}\n",
		     i, op, res->err ? "false" : "true", errfield, stepfield,
		     res->extra, res->overflow ? ",\"overflow\":true" : "");
	if (n > 0 && (size_t)n < sizeof(line))
		(void)probe_write_all(STDOUT_FILENO, line, (size_t)n);
}

void probe_op_unsupported(struct probe_ctx *ctx, char **args, int n,
			  struct probe_res *res)
{
	(void)ctx, (void)args, (void)n;
	probe_res_fail(res, EOPNOTSUPP, "unsupported_op");
	probe_field_bool(res, "unsupported", true);
}

void probe_emit_sentinel(void)
{
	char line[96];
	int n = snprintf(line, sizeof(line),
			 "{\"sentinel\":\"sandproof-probe\",\"version\":%d,"
			 "\"pid\":%ld}\n",
			 PROBE_VERSION, (long)getpid());

	(void)probe_write_all(STDOUT_FILENO, line, (size_t)n);
}
