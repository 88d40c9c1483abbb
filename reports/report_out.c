/* report_out.c - what every renderer writes through: atomic output files
 * and escaping (report.h).
 *
 * Evidence is attacker-controlled text: a scenario records what the command
 * under test printed.  Everything from the database reaches markup only
 * through report_esc(), so no evidence can open a tag, close an attribute or
 * make the XML unparsable (invalid UTF-8, control characters). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "utf8.h"

int report_out_open(struct report_out *o, const char *path, char *err, size_t errlen)
{
	char *copy, *copy2, *dir;
	int fd;

	memset(o, 0, sizeof *o);
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	copy = strdup(path);
	copy2 = strdup(path);
	if (!o->path || !copy || !copy2) {
		free(copy);
		free(copy2);
		free(o->path);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	dir = dirname(copy);
	if (asprintf(&o->tmp, "%s/.%s.tmp-XXXXXX", dir, basename(copy2)) < 0) {
		o->tmp = NULL;
		free(copy);
		free(copy2);
		free(o->path);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	free(copy);
	free(copy2);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot create a file beside it: %s", path, strerror(e));
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return -e;
	}
	/* mkstemp makes 0600; a report is for reading, like any new file */
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int report_out_close(struct report_out *o, int commit, char *err, size_t errlen)
{
	int r = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		r = -(errno ? errno : EIO);
	if (o->f == stdout) {
		o->f = NULL;
		if (r)
			snprintf(err, errlen, "stdout: %s", strerror(-r));
		return r;
	}
	if (fclose(o->f) != 0 && r == 0)
		r = -(errno ? errno : EIO);
	o->f = NULL;
	if (r == 0 && commit && rename(o->tmp, o->path) != 0)
		r = -errno;
	if (r)
		snprintf(err, errlen, "%s: %s", o->path, strerror(-r));
	if (r || !commit)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return r;
}

/* Decodes one UTF-8 sequence at p (n bytes left, n >= 1) into *cp; returns
 * its length.  Invalid, overlong, surrogate or out-of-range sequences give
 * U+FFFD and length 1. */
static size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len = utf8_len(p, n, cp);

	if (len)
		return len;
	*cp = 0xFFFD;
	return 1;
}

size_t report_esc(FILE *f, const char *s, size_t max, int attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0;

	if (max == 0 || max > n)
		max = n;
	while (i < max) {
		uint32_t cp;
		size_t len = utf8_next(p + i, n - i, &cp);

		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\t': case '\n': case '\r':
			if (attr)
				fprintf(f, "&#%u;", (unsigned)cp);
			else
				fputc((int)cp, f);
			break;
		case 0xFFFD:
			fputs("\xEF\xBF\xBD", f);
			break;
		default:
			if (cp < 0x20 || cp == 0x7F || cp == 0xFFFE || cp == 0xFFFF)
				break;
			fwrite(p + i, 1, len, f);
		}
		i += len;
	}
	return n - i;
}

void report_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0;

	fputc('"', f);
	while (i < n) {
		uint32_t cp;
		size_t len = utf8_next(p + i, n - i, &cp);

		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp < 0x20 || cp == 0x7F)
			fprintf(f, "\\u%04x", (unsigned)cp);
		else if (cp == 0xFFFD)
			fputs("\xEF\xBF\xBD", f);
		else
			fwrite(p + i, 1, len, f);
		i += len;
	}
	fputc('"', f);
}

const char *report_col_label(const struct report_set *s, size_t col, char *buf, size_t n)
{
	const struct report_col *c = &s->cols[col];

	if (s->multi_os)
		snprintf(buf, n, "%s/%s", c->os, c->runner);
	else
		snprintf(buf, n, "%s", c->runner);
	return buf;
}

void report_getopt_reset(void)
{
#ifdef __GLIBC__
	optind = 0;                  /* glibc: 0 also resets its internal state */
#else
	optind = 1;
#endif
}

const char *report_power(const struct report_res *r, char *buf, size_t n)
{
	char min[48] = "";

	if (r->min_windows >= 0)
		snprintf(min, sizeof min, " (minimum %lld)", (long long)r->min_windows);
	snprintf(buf, n, "%lld windows hit in %lld attempts%s, seed %lld",
		 (long long)(r->windows_hit > 0 ? r->windows_hit : 0), (long long)r->attempts,
		 min, (long long)r->seed);
	return buf;
}

int report_render_db(const char *db, int with_evidence, const char *out,
		     int (*render)(const struct report_set *, FILE *), const char *who)
{
	struct report_set s;
	struct report_out o;
	char err[1024] = "";
	int r;

	r = report_load(db, with_evidence, &s, err, sizeof err);
	if (r) {
		fprintf(stderr, "sandproof: %s: %s\n", who, err[0] ? err : strerror(-r));
		report_free(&s);
		return r == -ENOMEM ? REPORT_EXIT_INTERNAL : REPORT_EXIT_USAGE;
	}
	if (report_out_open(&o, out, err, sizeof err) != 0) {
		fprintf(stderr, "sandproof: %s: %s\n", who, err);
		report_free(&s);
		return REPORT_EXIT_USAGE;
	}
	r = render(&s, o.f);
	r = report_out_close(&o, r == 0, err, sizeof err) ?: r;
	report_free(&s);
	if (r) {
		fprintf(stderr, "sandproof: %s: %s\n", who, err[0] ? err : strerror(-r));
		return REPORT_EXIT_INTERNAL;
	}
	return 0;
}
