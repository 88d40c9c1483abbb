/* fuzz_request.c - the differential request fuzzer (libFuzzer entry point).
 *
 * Feeds arbitrary bytes to request_parse() and checks what must hold of
 * every answer, not just that nothing crashed:
 *   accepted: the text itself holds no byte below 0x20 but the four JSON
 *     whitespace bytes and no "\u0000" escape (checked lexically here,
 *     independently of both parsers: in accepted JSON a backslash only
 *     occurs inside a string); every string of the request is valid UTF-8 (its bytes, up to
 *     the NUL that ends it, are all there is: the parser's own decoded-length
 *     cross-check guarantees none was cut), every path is absolute and
 *     already clean (request_clean_path leaves it unchanged), read-only
 *     subpaths lie beneath their root at a separator, protected names are
 *     plain relative names;
 *   refused: the message starts with a field path ("request", a field of
 *     the schema, a key the text holds, or the unknown field named) followed
 *     by ": ", holds no control byte (request text is escaped in messages,
 *     never echoed to a terminal raw);
 *   never: -EPROTO, the strict validator and cJSON disagreeing (the
 *     differential part: jscan accepting text that cJSON reads otherwise is
 *     the bug class of issue 12).
 * A violated property aborts, which libFuzzer and the replay driver report
 * with the input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "utf8.h"
#include "sandproof/request.h"

static void require(int cond, const char *what, const char *detail)
{
	if (cond)
		return;
	fprintf(stderr, "fuzz_request: property violated: %s: %s\n", what, detail);
	abort();
}

static void check_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t u = utf8_len(p + i, n - i, NULL);

		require(u > 0, "accepted string holds invalid UTF-8", s);
		i += u;
	}
}

static void check_path(const char *p)
{
	char *copy = strdup(p);

	require(copy != NULL, "out of memory", p);
	check_utf8(p);
	require(p[0] == '/', "accepted path is not absolute", p);
	require(request_clean_path(copy) == 0 && strcmp(copy, p) == 0,
		"accepted path is not clean", p);
	free(copy);
}

static void check_strv(const struct strv *sv, int paths)
{
	for (size_t i = 0; i < sv->n; i++) {
		if (paths)
			check_path(sv->v[i]);
		else
			check_utf8(sv->v[i]);
	}
}

static void check_write_root(const struct write_root *w)
{
	size_t n = strlen(w->root);

	check_path(w->root);
	check_strv(&w->read_only_subpaths, 1);
	for (size_t i = 0; i < w->read_only_subpaths.n; i++) {
		const char *s = w->read_only_subpaths.v[i];

		require(strcmp(w->root, "/") == 0 ||
				(strncmp(s, w->root, n) == 0 && (s[n] == '/' || s[n] == '\0')),
			"read-only subpath outside its root", s);
	}
	for (size_t i = 0; i < w->protected_names.n; i++) {
		const char *s = w->protected_names.v[i];
		char *copy;

		check_utf8(s);
		require(s[0] && s[0] != '/', "protected name not relative", s);
		require(asprintf(&copy, "/%s", s) >= 0, "out of memory", s);
		require(request_clean_path(copy) == 0 && strcmp(copy + 1, s) == 0,
			"protected name not a plain relative name", s);
		free(copy);
	}
}

static void check_accepted(const struct request *r)
{
	require(r->command.n >= 1 && r->command.v[0][0], "empty command", "");
	check_strv(&r->command, 0);
	check_strv(&r->env, 0);
	for (size_t i = 0; i < r->env.n; i++)
		require(r->env.v[i][0] != '=' && strchr(r->env.v[i], '='),
			"env entry without a name", r->env.v[i]);
	if (r->cwd)
		check_path(r->cwd);
	if (r->stdin_data) {
		require(strlen(r->stdin_data) == r->stdin_len, "stdin length", "");
		check_utf8(r->stdin_data);
	}
	check_strv(&r->read_roots, 1);
	check_strv(&r->deny_read, 1);
	check_strv(&r->deny_write, 1);
	for (size_t i = 0; i < r->n_write_roots; i++)
		check_write_root(&r->write_roots[i]);
	if (r->runtime_parent)
		check_path(r->runtime_parent);
}

/* Whether the text holds a key that starts with the n bytes at name. */
static int text_has_key(const unsigned char *d, size_t size, const char *name, size_t n)
{
	for (size_t i = 0; i + n < size; i++)
		if (d[i] == '"' && memcmp(d + i + 1, name, n) == 0)
			return 1;
	return 0;
}

static void check_refused(const char *err, const unsigned char *d, size_t size)
{
	static const char *const fields[] = {
		"request", "version", "command", "cwd", "env", "stdin", "timeout_ms",
		"output_limit_bytes", "profile", NULL,
	};
	size_t n = strcspn(err, ".[:");
	int known = err[0] == '['; /* an element of a top-level array */

	require(err[n] != '\0' && strstr(err, ": ") != NULL, "refusal without a field path", err);
	for (size_t i = 0; fields[i]; i++)
		known |= strlen(fields[i]) == n && strncmp(err, fields[i], n) == 0;
	require(known || text_has_key(d, size, err, n) || strstr(err, ": unknown field"),
		"refusal names no field of the text", err);
	for (const char *p = err; *p; p++)
		require((unsigned char)*p >= 0x20 && *p != 0x7f,
			"refusal carries a control byte from the request", err);
}

static void check_text(const unsigned char *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		require(d[i] >= 0x20 || d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r',
			"accepted text holds a control byte", "");
		if (d[i] != '\\' || i + 1 >= n)
			continue;
		require(!(d[i + 1] == 'u' && n - i >= 6 && memcmp(d + i + 2, "0000", 4) == 0),
			"accepted text holds a \\u0000 escape", "");
		i++; /* the escaped character */
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char err[REQUEST_ERR_MAX];
	struct request req;

	int rc = request_parse((const char *)data, size, &req, err);

	require(rc != -EPROTO, "the two JSON parsers disagree", err);
	if (rc == 0) {
		check_text(data, size);
		check_accepted(&req);
		request_free(&req);
	} else {
		check_refused(err, data, size);
	}
	return 0;
}
