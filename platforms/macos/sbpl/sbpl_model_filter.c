/* sbpl_model_filter.c - filters of the SBPL subset: parsing and freeing
 * (sbpl_model.h lists the subset; MODEL.md gives each its source). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_model_int.h"

int sbpl_model_fail(struct sbpl_pctx *c, size_t pos, const char *fmt, ...)
{
	char where[96], what[SBPL_ERR_MAX - 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	sbpl_read_where(c->text, pos, where, sizeof(where));
	snprintf(c->err, SBPL_ERR_MAX, "%s: %s", where, what);
	return -EINVAL;
}

/* Absolute, no empty, "." or ".." component, no trailing '/' but "/". */
bool sbpl_model_path_canonical(const char *p)
{
	const char *s;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (s = p; *s; s++) {
		if (*s != '/')
			continue;
		if (s[1] == '/' || !s[1])
			return false;
		if (s[1] == '.' && (s[2] == '/' || !s[2]))
			return false;
		if (s[1] == '.' && s[2] == '.' && (s[3] == '/' || !s[3]))
			return false;
	}
	return true;
}

static int str_eval(struct sbpl_pctx *c, const struct sbpl_node *n, char **out);

/* (param "NAME"): its value from the -D parameters; missing is refused
 * (sandbox-exec would evaluate the profile with no value there). */
static int str_param(struct sbpl_pctx *c, const struct sbpl_node *n, char **out)
{
	size_t k;

	if (n->n_kids != 2 || n->kids[1].kind != SBPL_NODE_STRING)
		return sbpl_model_fail(c, n->pos, "param takes one string");
	for (k = 0; k < c->n_params; k++)
		if (!strcmp(c->params[k].name, n->kids[1].text))
			return (*out = strdup(c->params[k].value)) ? 0 : -ENOMEM;
	return sbpl_model_fail(c, n->pos, "no parameter \"%s\"", n->kids[1].text);
}

static int str_append(struct sbpl_pctx *c, const struct sbpl_node *n, char **out)
{
	size_t k, len = 0;
	char *acc = strdup(""), *part, *grown;
	int rc;

	for (k = 1; acc && k < n->n_kids; k++) {
		if ((rc = str_eval(c, &n->kids[k], &part)) < 0) {
			free(acc);
			return rc;
		}
		grown = realloc(acc, len + strlen(part) + 1);
		if (grown) {
			memcpy(grown + len, part, strlen(part) + 1);
			len += strlen(part);
		} else {
			free(acc);
		}
		acc = grown;
		free(part);
	}
	*out = acc;
	return acc ? 0 : -ENOMEM;
}

/* A string expression: "...", (param "N"), (string-append S...).  A
 * literal over SBPL_LITERAL_MAX bytes is refused: Seatbelt refuses the
 * whole profile for it (MODEL.md). */
static int str_eval(struct sbpl_pctx *c, const struct sbpl_node *n, char **out)
{
	const char *head;

	if (n->kind == SBPL_NODE_STRING) {
		if (strlen(n->text) > SBPL_LITERAL_MAX)
			return sbpl_model_fail(c, n->pos, "string literal over %d bytes",
					       SBPL_LITERAL_MAX);
		return (*out = strdup(n->text)) ? 0 : -ENOMEM;
	}
	head = n->kind == SBPL_NODE_LIST && n->n_kids && n->kids[0].kind == SBPL_NODE_SYMBOL
		       ? n->kids[0].text : NULL;
	if (head && !strcmp(head, "param"))
		return str_param(c, n, out);
	if (head && !strcmp(head, "string-append"))
		return str_append(c, n, out);
	return sbpl_model_fail(c, n->pos, "expected a string, (param ...) or (string-append ...)");
}

/* The one argument of a (NAME S) filter, as a string (a #"..." regex
 * literal too when regex_ok). */
static int flt_arg(struct sbpl_pctx *c, const struct sbpl_node *n, bool regex_ok, char **out)
{
	if (n->n_kids != 2)
		return sbpl_model_fail(c, n->pos, "%s takes one argument", n->kids[0].text);
	if (n->kids[1].kind == SBPL_NODE_REGEX) {
		if (!regex_ok)
			return sbpl_model_fail(c, n->kids[1].pos, "a regex literal where a string is expected");
		return (*out = strdup(n->kids[1].text)) ? 0 : -ENOMEM;
	}
	return str_eval(c, &n->kids[1], out);
}

/* literal, subpath, prefix, regex (and the unix-socket spellings
 * path-literal, path-regex, which read the same). */
static int flt_path(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f,
		    enum sbpl_flt_kind kind)
{
	int rc = flt_arg(c, n, kind == SBPL_FLT_REGEX, &f->str);

	f->kind = kind;
	if (rc < 0)
		return rc;
	if (kind == SBPL_FLT_REGEX) {
		if (regcomp(&f->re, f->str, REG_EXTENDED | REG_NOSUB))
			return sbpl_model_fail(c, n->kids[1].pos, "regex does not compile (POSIX ERE)");
		f->has_re = true;
		return 0;
	}
	/* A spelling with `//`, `/./` or a trailing `/` is kept as written: it
	 * matches nothing, as no canonical query path contains it. */
	if (f->str[0] != '/')
		return sbpl_model_fail(c, n->kids[1].pos, "%s needs an absolute path", n->kids[0].text);
	return 0;
}

/* require-all, require-any (at least one), require-not (exactly one). */
static int flt_logic(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f,
		     enum sbpl_flt_kind kind)
{
	size_t k;
	int rc;

	f->kind = kind;
	if (n->n_kids < 2 || (kind == SBPL_FLT_NOT && n->n_kids != 2))
		return sbpl_model_fail(c, n->pos, "%s: wrong number of filters", n->kids[0].text);
	if (!(f->kids = calloc(n->n_kids - 1, sizeof(*f->kids))))
		return -ENOMEM;
	for (k = 1; k < n->n_kids; k++) {
		f->n_kids++;
		if ((rc = sbpl_model_flt_parse(c, &n->kids[k], &f->kids[k - 1])) < 0)
			return rc;
	}
	return 0;
}

static int flt_target(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f)
{
	const char *t = n->n_kids == 2 && n->kids[1].kind == SBPL_NODE_SYMBOL ? n->kids[1].text : "";

	f->kind = SBPL_FLT_TARGET;
	if (!strcmp(t, "self"))
		f->target = SBPL_TARGET_SELF;
	else if (!strcmp(t, "same-sandbox"))
		f->target = SBPL_TARGET_SAME_SANDBOX;
	else
		return sbpl_model_fail(c, n->pos, "target: only self and same-sandbox are modelled");
	return 0;
}

/* (socket-domain AF_NAME): by name only (numbers differ between OSes). */
static int flt_domain(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f)
{
	f->kind = SBPL_FLT_SOCKET_DOMAIN;
	if (n->n_kids != 2 || n->kids[1].kind != SBPL_NODE_SYMBOL || strncmp(n->kids[1].text, "AF_", 3))
		return sbpl_model_fail(c, n->pos, "socket-domain takes one AF_ name");
	return (f->str = strdup(n->kids[1].text)) ? 0 : -ENOMEM;
}

/* A filter over a name (not a path): its string; a regex one compiled. */
static int flt_name(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f,
		    enum sbpl_flt_kind kind)
{
	int rc = flt_arg(c, n, kind == SBPL_FLT_IPC_REGEX, &f->str);

	f->kind = kind;
	if (rc < 0 || kind != SBPL_FLT_IPC_REGEX)
		return rc;
	if (regcomp(&f->re, f->str, REG_EXTENDED | REG_NOSUB))
		return sbpl_model_fail(c, n->kids[1].pos, "regex does not compile (POSIX ERE)");
	f->has_re = true;
	return 0;
}

struct flt_name {
	const char *name;
	enum sbpl_flt_kind kind;
};

static const struct flt_name path_names[] = {
	{"literal", SBPL_FLT_LITERAL}, {"path-literal", SBPL_FLT_LITERAL},
	{"subpath", SBPL_FLT_SUBPATH}, {"prefix", SBPL_FLT_PREFIX},
	{"regex", SBPL_FLT_REGEX},     {"path-regex", SBPL_FLT_REGEX},
	{"global-name", SBPL_FLT_GNAME}, {"global-name-prefix", SBPL_FLT_GNAME_PREFIX},
	{"sysctl-name", SBPL_FLT_SYSCTL}, {"sysctl-name-prefix", SBPL_FLT_SYSCTL_PREFIX},
	{"ipc-posix-name", SBPL_FLT_IPC}, {"ipc-posix-name-prefix", SBPL_FLT_IPC_PREFIX},
	{"ipc-posix-name-regex", SBPL_FLT_IPC_REGEX}, {"extension", SBPL_FLT_EXTENSION},
	{"path", SBPL_FLT_LITERAL}, {"iokit-registry-entry-class", SBPL_FLT_IOKIT},
	{"iokit-user-client-class", SBPL_FLT_IOKIT}, {"local-name", SBPL_FLT_LOCAL_NAME},
};

int sbpl_model_flt_parse(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f)
{
	const char *h;
	size_t k;

	memset(f, 0, sizeof(*f));
	if (n->kind != SBPL_NODE_LIST || !n->n_kids || n->kids[0].kind != SBPL_NODE_SYMBOL)
		return sbpl_model_fail(c, n->pos, "expected a filter");
	h = n->kids[0].text;
	for (k = 0; k < sizeof(path_names) / sizeof(path_names[0]); k++)
		if (!strcmp(h, path_names[k].name)) {
			if (path_names[k].kind >= SBPL_FLT_SYSCTL || path_names[k].kind == SBPL_FLT_GNAME ||
			    path_names[k].kind == SBPL_FLT_GNAME_PREFIX)
				return flt_name(c, n, f, path_names[k].kind);
			return flt_path(c, n, f, path_names[k].kind);
		}
	if (!strcmp(h, "require-all"))
		return flt_logic(c, n, f, SBPL_FLT_ALL);
	if (!strcmp(h, "require-any"))
		return flt_logic(c, n, f, SBPL_FLT_ANY);
	if (!strcmp(h, "require-not"))
		return flt_logic(c, n, f, SBPL_FLT_NOT);
	if (!strcmp(h, "target"))
		return flt_target(c, n, f);
	if (!strcmp(h, "socket-domain"))
		return flt_domain(c, n, f);
	if (!strcmp(h, "vnode-type") || !strcmp(h, "socket-protocol")) {
		bool vn = h[0] == 'v';

		f->kind = vn ? SBPL_FLT_VNODE : SBPL_FLT_SOCKET_PROTO;
		if (n->n_kids != 2 || n->kids[1].kind != (vn ? SBPL_NODE_SYMBOL : SBPL_NODE_INT))
			return sbpl_model_fail(c, n->pos, "%s takes one %s", h, vn ? "type" : "number");
		if (!vn) {
			f->port = (int)n->kids[1].num;
			return 0;
		}
		return (f->str = strdup(n->kids[1].text)) ? 0 : -ENOMEM;
	}
	if (!strcmp(h, "local") || !strcmp(h, "remote"))
		return sbpl_model_net_parse(c, n, f);
	return sbpl_model_fail(c, n->pos, "unknown filter %s", h);
}

void sbpl_model_flt_free(struct sbpl_flt *f)
{
	size_t k;

	for (k = 0; k < f->n_kids; k++)
		sbpl_model_flt_free(&f->kids[k]);
	free(f->kids);
	free(f->str);
	if (f->has_re)
		regfree(&f->re);
	memset(f, 0, sizeof(*f));
}
