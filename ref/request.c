/* request.c - strict parsing of the request contract (CONTRACT.md, REQ-*).
 *
 * Parse, then validate every field against a fixed schema, then build the
 * plain struct request.  Anything unknown, duplicated, mistyped or
 * ambiguous is refused with the JSON path of the field: a sandbox request
 * that is silently half-understood is a sandbox that enforces less than the
 * caller believes. */
#include "sandproof/request.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jscan.h"
#include "request_tree.h"

const char *const request_default_protected[] = {
	".git/hooks", ".git/config", ".agents", ".zero", NULL,
};

struct pctx {
	char *err;
	const struct request_path_rules *rules;
};

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, REQUEST_ERR_MAX, "%s: ", path);

	va_start(ap, fmt);
	if (n >= 0 && n < REQUEST_ERR_MAX)
		vsnprintf(c->err + n, REQUEST_ERR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void request_init(struct request *req)
{
	memset(req, 0, sizeof(*req));
	req->version = REQUEST_VERSION;
	req->timeout_ms = REQUEST_DEFAULT_TIMEOUT_MS;
	req->output_limit_bytes = REQUEST_DEFAULT_OUTPUT_LIMIT;
	req->fs_kind = FS_RESTRICTED;
	req->include_platform_roots = true;
	req->allow_temp = true;
	req->network = NET_DENY;
}

void request_free(struct request *req)
{
	strv_free(&req->command);
	free(req->cwd);
	strv_free(&req->env);
	free(req->stdin_data);
	strv_free(&req->read_roots);
	for (size_t i = 0; i < req->n_write_roots; i++) {
		free(req->write_roots[i].root);
		strv_free(&req->write_roots[i].read_only_subpaths);
		strv_free(&req->write_roots[i].protected_names);
	}
	free(req->write_roots);
	strv_free(&req->deny_read);
	strv_free(&req->deny_write);
	free(req->runtime_parent);
	memset(req, 0, sizeof(*req));
}

int request_clean_path(char *path)
{
	char *r = path, *w = path;

	if (path[0] != '/')
		return -EINVAL;
	while (*r) {
		while (*r == '/')
			r++;
		if (!*r)
			break;
		char *seg = r;
		while (*r && *r != '/')
			r++;
		size_t n = (size_t)(r - seg);
		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.')
			return -EINVAL;
		*w++ = '/';
		memmove(w, seg, n);
		w += n;
	}
	if (w == path)
		*w++ = '/';
	*w = '\0';
	return 0;
}

static bool posix_absolute(const char *s)
{
	return s[0] == '/';
}

static int posix_clean(char *path, const char **why)
{
	if (path[0] != '/') {
		*why = "must be an absolute path";
		return -EINVAL;
	}
	if (request_clean_path(path) < 0) {
		*why = "\"..\" components are not allowed";
		return -EINVAL;
	}
	return 0;
}

static bool posix_beneath(const char *root, const char *p)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(root, p, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

static int posix_check_relname(const char *s, const char **why)
{
	if (s[0] == '\0') {
		*why = "must not be empty";
		return -EINVAL;
	}
	if (s[0] == '/') {
		*why = "must be relative to the write root";
		return -EINVAL;
	}
	for (const char *p = s; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			*why = "must be a plain relative name (no empty, \".\" or \"..\" components)";
			return -EINVAL;
		}
		p += n + (e ? 1 : 0);
		if (e && !*p) {
			*why = "must not end with '/'";
			return -EINVAL;
		}
	}
	return 0;
}

const struct request_path_rules request_posix_path_rules = {
	.absolute_what = "an absolute path",
	.absolute = posix_absolute,
	.clean = posix_clean,
	.beneath = posix_beneath,
	.check_relname = posix_check_relname,
	.default_read_root = "/",
	.quote_refused = false,
};

/* A key or value from the request as it may appear in a message: control
 * bytes, DEL, '"' and '\\' escaped as in JSON, so a message never carries
 * a terminal escape sequence or a line break the request smuggled in;
 * at most max input bytes are shown. */
static void label(char *out, size_t n, const char *s, size_t max)
{
	size_t w = 0;

	for (size_t i = 0; s[i] && i < max && w + 7 < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			w += (size_t)snprintf(out + w, n - w, "\\u%04x", c);
		else if (c == '"' || c == '\\')
			w += (size_t)snprintf(out + w, n - w, "\\%c", c);
		else
			out[w++] = (char)c;
	}
	out[w] = '\0';
}

/* Object with only the allowed keys, each at most once. */
static int check_object(struct pctx *c, const cJSON *o, const char *path,
			const char *const allowed[])
{
	const cJSON *a, *b;
	char sub[256], key[128];

	if (!cJSON_IsObject(o))
		return perr(c, path, "must be an object");
	for (a = o->child; a; a = a->next) {
		int known = 0;

		label(key, sizeof(key), a->string, 64);
		snprintf(sub, sizeof(sub), "%s%s%s", path[0] ? path : "",
			 path[0] ? "." : "", key);
		for (size_t i = 0; allowed[i]; i++)
			known |= strcmp(allowed[i], a->string) == 0;
		if (!known)
			return perr(c, sub, "unknown field");
		for (b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0)
				return perr(c, sub, "duplicate key");
	}
	return 0;
}

static void join(char *out, size_t n, const char *path, const char *key)
{
	snprintf(out, n, "%s%s%s", path, path[0] ? "." : "", key);
}

static int get_bool(struct pctx *c, const cJSON *o, const char *path,
		    const char *key, bool *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char sub[256];

	if (!v)
		return 0;
	join(sub, sizeof(sub), path, key);
	if (!cJSON_IsBool(v))
		return perr(c, sub, "must be true or false");
	*out = cJSON_IsTrue(v);
	return 0;
}

static int get_uint(struct pctx *c, const cJSON *o, const char *path,
		    const char *key, uint64_t max, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char sub[256];
	double d;

	if (!v)
		return 0;
	join(sub, sizeof(sub), path, key);
	if (!cJSON_IsNumber(v))
		return perr(c, sub, "must be a number");
	d = v->valuedouble;
	if (!(d >= 0) || d != floor(d))
		return perr(c, sub, "must be a non-negative integer");
	if (d > (double)max)
		return perr(c, sub, "must be at most %llu",
			    (unsigned long long)max);
	*out = (uint64_t)d;
	return 0;
}

static int check_string(struct pctx *c, const cJSON *v, const char *path)
{
	if (!cJSON_IsString(v) || !v->valuestring)
		return perr(c, path, "must be a string");
	return 0;
}

/* An absolute, lexically clean path.  A leading '~' is not absolute and is
 * never expanded (profile.runtime.parent included): the request says
 * exactly where, whatever the runner's environment. */
static int make_path(struct pctx *c, const cJSON *v, const char *path, char **out)
{
	const struct request_path_rules *r = c->rules;
	const char *s, *why = "refused";
	char *p, got[160];
	int rc = check_string(c, v, path);

	if (rc)
		return rc;
	s = v->valuestring;
	if (s[0] == '\0')
		return perr(c, path, "must not be empty");
	label(got, sizeof(got), s, 64);
	if (!r->absolute(s))
		return perr(c, path, "must be %s (got \"%s\")%s", r->absolute_what, got,
			    s[0] == '~' ? ": '~' is never expanded" : "");
	p = strdup(s);
	if (!p)
		return -ENOMEM;
	if (strlen(p) >= PATH_MAX) {
		free(p);
		return perr(c, path, "longer than %d bytes", PATH_MAX - 1);
	}
	if (r->clean(p, &why) < 0) {
		free(p);
		if (r->quote_refused)
			return perr(c, path, "%s (got \"%s\")", why, got);
		return perr(c, path, "%s", why);
	}
	*out = p;
	return 0;
}

static int get_path(struct pctx *c, const cJSON *o, const char *path,
		    const char *key, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char sub[256];

	if (!v)
		return 0;
	join(sub, sizeof(sub), path, key);
	free(*out);
	*out = NULL;
	return make_path(c, v, sub, out);
}

enum strv_kind { SV_ANY, SV_PATHS, SV_RELNAMES };

static int check_relname(struct pctx *c, const char *s, const char *path)
{
	const char *why = "refused";

	if (c->rules->check_relname(s, &why) < 0)
		return perr(c, path, "%s", why);
	return 0;
}

static int get_strv(struct pctx *c, const cJSON *o, const char *path,
		    const char *key, enum strv_kind kind, bool nonempty,
		    struct strv *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const cJSON *e;
	char sub[256], el[288];
	long i = 0;
	int rc;

	if (!v)
		return 0;
	join(sub, sizeof(sub), path, key);
	if (!cJSON_IsArray(v))
		return perr(c, sub, "must be an array");
	strv_free(out);
	for (e = v->child; e; e = e->next, i++) {
		snprintf(el, sizeof(el), "%s[%ld]", sub, i);
		if (kind == SV_PATHS) {
			char *p = NULL;

			rc = make_path(c, e, el, &p);
			if (rc)
				return rc;
			rc = strv_push(out, p);
			free(p);
		} else {
			rc = check_string(c, e, el);
			if (rc)
				return rc;
			if (kind == SV_RELNAMES) {
				rc = check_relname(c, e->valuestring, el);
				if (rc)
					return rc;
			}
			rc = strv_push(out, e->valuestring);
		}
		if (rc)
			return rc;
	}
	if (nonempty && out->n == 0)
		return perr(c, sub, "must not be empty");
	return 0;
}

static int parse_write_root(struct pctx *c, const cJSON *v, const char *path,
			    struct write_root *wr)
{
	static const char *const keys[] = {
		"root", "read_only_subpaths", "protected_metadata_names", NULL,
	};
	char sub[320];
	int rc = check_object(c, v, path, keys);

	if (rc)
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(v, "root"))
		return perr(c, path, "missing field \"root\"");
	rc = get_path(c, v, path, "root", &wr->root);
	if (!rc)
		rc = get_strv(c, v, path, "read_only_subpaths", SV_PATHS, false,
			      &wr->read_only_subpaths);
	if (rc)
		return rc;
	for (size_t i = 0; i < wr->read_only_subpaths.n; i++) {
		if (!c->rules->beneath(wr->root, wr->read_only_subpaths.v[i])) {
			char root[160];

			snprintf(sub, sizeof(sub), "%s.read_only_subpaths[%zu]",
				 path, i);
			label(root, sizeof(root), wr->root, 64);
			return perr(c, sub, "must be beneath the write root \"%s\"", root);
		}
	}
	if (cJSON_GetObjectItemCaseSensitive(v, "protected_metadata_names"))
		return get_strv(c, v, path, "protected_metadata_names",
				SV_RELNAMES, false, &wr->protected_names);
	for (size_t i = 0; request_default_protected[i]; i++) {
		rc = strv_push(&wr->protected_names, request_default_protected[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_filesystem(struct pctx *c, const cJSON *fs, struct request *r)
{
	static const char *const keys[] = {
		"kind", "read_roots", "include_platform_roots", "write_roots",
		"deny_read", "deny_write", "allow_temp", NULL,
	};
	const char *path = "profile.filesystem";
	const cJSON *kind, *wrs, *e;
	char sub[256];
	long i = 0;
	int rc = check_object(c, fs, path, keys);

	if (rc)
		return rc;
	kind = cJSON_GetObjectItemCaseSensitive(fs, "kind");
	if (kind) {
		rc = check_string(c, kind, "profile.filesystem.kind");
		if (rc)
			return rc;
		if (strcmp(kind->valuestring, "restricted") == 0)
			r->fs_kind = FS_RESTRICTED;
		else if (strcmp(kind->valuestring, "unrestricted") == 0)
			r->fs_kind = FS_UNRESTRICTED;
		else
			return perr(c, "profile.filesystem.kind",
				    "must be \"restricted\" or \"unrestricted\"");
	}
	r->read_roots_stated = cJSON_GetObjectItemCaseSensitive(fs, "read_roots") != NULL;
	rc = get_strv(c, fs, path, "read_roots", SV_PATHS, false, &r->read_roots);
	if (!rc)
		rc = get_bool(c, fs, path, "include_platform_roots",
			      &r->include_platform_roots);
	if (!rc)
		rc = get_strv(c, fs, path, "deny_read", SV_PATHS, false, &r->deny_read);
	if (!rc)
		rc = get_strv(c, fs, path, "deny_write", SV_PATHS, false, &r->deny_write);
	if (!rc)
		rc = get_bool(c, fs, path, "allow_temp", &r->allow_temp);
	if (rc)
		return rc;
	wrs = cJSON_GetObjectItemCaseSensitive(fs, "write_roots");
	if (!wrs)
		return 0;
	if (!cJSON_IsArray(wrs))
		return perr(c, "profile.filesystem.write_roots", "must be an array");
	r->n_write_roots = (size_t)cJSON_GetArraySize(wrs);
	r->write_roots = calloc(r->n_write_roots ? r->n_write_roots : 1,
				sizeof(*r->write_roots));
	if (!r->write_roots)
		return -ENOMEM;
	for (e = wrs->child; e; e = e->next, i++) {
		snprintf(sub, sizeof(sub), "profile.filesystem.write_roots[%ld]", i);
		rc = parse_write_root(c, e, sub, &r->write_roots[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_profile(struct pctx *c, const cJSON *p, struct request *r)
{
	static const char *const keys[] = {
		"filesystem", "network", "block_unix_sockets", "runtime", "limits", NULL,
	};
	static const char *const net_keys[] = {"mode", NULL};
	static const char *const rt_keys[] = {"parent", "max_age_s", "max_roots", NULL};
	const cJSON *fs, *net, *rt, *mode;
	int rc = check_object(c, p, "profile", keys);

	if (rc)
		return rc;
	fs = cJSON_GetObjectItemCaseSensitive(p, "filesystem");
	if (fs && (rc = parse_filesystem(c, fs, r)))
		return rc;
	net = cJSON_GetObjectItemCaseSensitive(p, "network");
	if (net) {
		rc = check_object(c, net, "profile.network", net_keys);
		if (rc)
			return rc;
		mode = cJSON_GetObjectItemCaseSensitive(net, "mode");
		if (!mode)
			return perr(c, "profile.network", "missing field \"mode\"");
		rc = check_string(c, mode, "profile.network.mode");
		if (rc)
			return rc;
		if (strcmp(mode->valuestring, "deny") == 0)
			r->network = NET_DENY;
		else if (strcmp(mode->valuestring, "allow") == 0)
			r->network = NET_ALLOW;
		else
			return perr(c, "profile.network.mode",
				    "must be \"deny\" or \"allow\"");
	}
	rc = get_bool(c, p, "profile", "block_unix_sockets", &r->block_unix_sockets);
	if (rc)
		return rc;
	if (cJSON_GetObjectItemCaseSensitive(p, "limits") &&
	    (rc = request_limits_parse(cJSON_GetObjectItemCaseSensitive(p, "limits"),
				       &r->limits, c->err, REQUEST_ERR_MAX)))
		return rc;
	rt = cJSON_GetObjectItemCaseSensitive(p, "runtime");
	if (!rt)
		return 0;
	rc = check_object(c, rt, "profile.runtime", rt_keys);
	if (rc)
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(rt, "parent"))
		return perr(c, "profile.runtime", "missing field \"parent\"");
	r->has_runtime = true;
	r->runtime_max_age_s = 30ull * 24 * 3600;
	r->runtime_max_roots = 64;
	rc = get_path(c, rt, "profile.runtime", "parent", &r->runtime_parent);
	if (!rc)
		rc = get_uint(c, rt, "profile.runtime", "max_age_s",
			      100ull * 365 * 24 * 3600, &r->runtime_max_age_s);
	if (!rc)
		rc = get_uint(c, rt, "profile.runtime", "max_roots", 1u << 20,
			      &r->runtime_max_roots);
	return rc;
}

struct env_key {
	const cJSON *m;
	size_t pos;
};

static int cmp_env_key(const void *pa, const void *pb)
{
	const struct env_key *a = pa, *b = pb;
	int d = strcmp(a->m->string, b->m->string);

	return d ? d : (a->pos > b->pos) - (a->pos < b->pos);
}

/* The first member of env (in document order) that a later member repeats,
 * in *dup (NULL: none).  Sorted, not pairwise: env is the one object whose
 * keys are the caller's, and a 1 MiB request holds ~100 000 of them, which
 * a pairwise check took seconds over (a runner that stalls on its input).
 * 0, or -ENOMEM. */
static int env_first_duplicate(const cJSON *env, const cJSON **dup)
{
	size_t n = 0, i = 0, best = SIZE_MAX;
	struct env_key *v;

	*dup = NULL;
	for (const cJSON *e = env->child; e; e = e->next)
		n++;
	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const cJSON *e = env->child; e; e = e->next, i++)
		v[i] = (struct env_key){.m = e, .pos = i};
	qsort(v, n, sizeof(*v), cmp_env_key);
	/* equal keys sort by position: a run's first is its earliest */
	for (i = 0; i + 1 < n; i++)
		if (strcmp(v[i].m->string, v[i + 1].m->string) == 0 && v[i].pos < best) {
			best = v[i].pos;
			*dup = v[i].m;
		}
	free(v);
	return 0;
}

static int parse_env(struct pctx *c, const cJSON *env, struct request *r)
{
	const cJSON *e, *dup;
	char sub[256], key[128], *kv;
	int rc;

	if (!cJSON_IsObject(env))
		return perr(c, "env", "must be an object of strings");
	if ((rc = env_first_duplicate(env, &dup)))
		return rc;
	for (e = env->child; e; e = e->next) {
		label(key, sizeof(key), e->string, 64);
		snprintf(sub, sizeof(sub), "env.%s", key);
		if (e->string[0] == '\0' || strchr(e->string, '='))
			return perr(c, sub, "variable name must be non-empty and contain no '='");
		if (e == dup)
			return perr(c, sub, "duplicate key");
		rc = check_string(c, e, sub);
		if (rc)
			return rc;
		if (asprintf(&kv, "%s=%s", e->string, e->valuestring) < 0)
			return -ENOMEM;
		rc = strv_push(&r->env, kv);
		free(kv);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_root(struct pctx *c, const cJSON *root, struct request *r)
{
	static const char *const keys[] = {
		"version", "command", "cwd", "env", "stdin", "timeout_ms",
		"output_limit_bytes", "profile", NULL,
	};
	const cJSON *v;
	uint64_t version = 0;
	int rc;

	if (!cJSON_IsObject(root))
		return perr(c, "request", "must be a JSON object");
	rc = check_object(c, root, "", keys);
	if (rc)
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(root, "version"))
		return perr(c, "version", "missing (this runner speaks version %d)",
			    REQUEST_VERSION);
	rc = get_uint(c, root, "", "version", 1000000, &version);
	if (rc)
		return rc;
	if (version != REQUEST_VERSION)
		return perr(c, "version", "unsupported version %llu (this runner speaks %d)",
			    (unsigned long long)version, REQUEST_VERSION);
	if (!cJSON_GetObjectItemCaseSensitive(root, "command"))
		return perr(c, "command", "missing");
	rc = get_strv(c, root, "", "command", SV_ANY, true, &r->command);
	if (rc)
		return rc;
	if (r->command.v[0][0] == '\0')
		return perr(c, "command[0]", "must not be empty");
	rc = get_path(c, root, "", "cwd", &r->cwd);
	if (rc)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "env");
	if (v && (rc = parse_env(c, v, r)))
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "stdin");
	if (v) {
		rc = check_string(c, v, "stdin");
		if (rc)
			return rc;
		r->stdin_len = strlen(v->valuestring);
		r->stdin_data = strdup(v->valuestring);
		if (!r->stdin_data)
			return -ENOMEM;
	}
	rc = get_uint(c, root, "", "timeout_ms", 7ull * 24 * 3600 * 1000,
		      &r->timeout_ms);
	if (!rc)
		rc = get_uint(c, root, "", "output_limit_bytes", 1ull << 30,
			      &r->output_limit_bytes);
	if (rc)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "profile");
	if (v && (rc = parse_profile(c, v, r)))
		return rc;
	if (r->fs_kind == FS_RESTRICTED && !r->read_roots_stated &&
	    c->rules->default_read_root)
		rc = strv_push(&r->read_roots, c->rules->default_read_root);
	return rc;
}

/* Compare the decoded length jscan recorded for every string, in document
 * order, with the string cJSON built.  They differ only if the two parsers
 * disagree about a value (cJSON cutting a string at a decoded NUL, say); a
 * request read two ways is refused, never half-trusted. */
struct lencheck {
	const struct jscan_strings *strs;
	size_t i;
};

static int lens_match(struct lencheck *lc, const char *s)
{
	if (lc->i >= lc->strs->n || strlen(s) != lc->strs->len[lc->i])
		return 0;
	lc->i++;
	return 1;
}

static int tree_matches(struct lencheck *lc, const cJSON *v)
{
	if (cJSON_IsString(v))
		return v->valuestring && lens_match(lc, v->valuestring);
	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return 1;
	for (const cJSON *e = v->child; e; e = e->next) {
		if (cJSON_IsObject(v) && !(e->string && lens_match(lc, e->string)))
			return 0;
		if (!tree_matches(lc, e))
			return 0;
	}
	return 1;
}

/* The text is judged by jscan alone (jscan.h says why); cJSON only builds
 * the tree of text jscan accepted. */
static int parse_text(struct pctx *c, const char *json, size_t len, cJSON **root)
{
	struct jscan_strings strs = {0};
	struct lencheck lc = {.strs = &strs};
	/* Every number of a request is an integer field (REQ-5). */
	int rc = jscan_check_flags(json, len, JSCAN_INTEGERS, &strs, c->err, REQUEST_ERR_MAX);

	if (rc) {
		jscan_strings_free(&strs);
		return rc;
	}
	*root = cJSON_ParseWithLengthOpts(json, len, NULL, 0);
	if (!*root) {
		const char *ep = cJSON_GetErrorPtr();

		perr(c, "request", "the JSON tree builder refused text the validator "
		     "accepted (near byte %ld); refused",
		     ep && ep >= json && ep <= json + len ? (long)(ep - json) : -1L);
		rc = -EPROTO;
	} else if (!tree_matches(&lc, *root) || lc.i != strs.n) {
		cJSON_Delete(*root);
		*root = NULL;
		perr(c, "request", "the JSON parsers disagree about a string; refused");
		rc = -EPROTO;
	}
	jscan_strings_free(&strs);
	return rc;
}

static int parse_finish(int rc, struct request *req, char *err)
{
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, REQUEST_ERR_MAX, "request: out of memory");
		request_free(req);
		return rc == -ENOMEM || rc == -EPROTO ? rc : -EINVAL;
	}
	return 0;
}

int request_parse_tree(const cJSON *root,
		       const struct request_path_rules *rules, struct request *req,
		       char err[REQUEST_ERR_MAX])
{
	struct pctx c = {.err = err, .rules = rules ? rules : &request_posix_path_rules};

	request_init(req);
	err[0] = '\0';
	return parse_finish(parse_root(&c, root, req), req, err);
}

int request_parse(const char *json, size_t len,
		  struct request *req, char err[REQUEST_ERR_MAX])
{
	return request_parse_with(json, len, NULL, req, err);
}

int request_parse_with(const char *json, size_t len,
		       const struct request_path_rules *rules, struct request *req,
		       char err[REQUEST_ERR_MAX])
{
	struct pctx c = {.err = err, .rules = rules ? rules : &request_posix_path_rules};
	cJSON *root = NULL;
	int rc;

	request_init(req);
	err[0] = '\0';
	if (len > REQUEST_MAX_BYTES)
		return perr(&c, "request", "larger than %d bytes", REQUEST_MAX_BYTES);
	rc = parse_text(&c, json, len, &root);
	if (!rc)
		rc = parse_root(&c, root, req);
	cJSON_Delete(root);
	return parse_finish(rc, req, err);
}
