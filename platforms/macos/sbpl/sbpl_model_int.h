/* sbpl_model_int.h - the model's parsed form, shared by its files only.
 *
 * A profile is a list of rules in text order; each names operations (by
 * index in the operation table, sbpl_model_ops.c) and one filter.  Rule
 * order is kept: precedence is decided at query time (sbpl_model_decide.c). */
#ifndef SANDPROOF_SBPL_MODEL_INT_H
#define SANDPROOF_SBPL_MODEL_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "sbpl_model.h"
#include "sbpl_read.h"

enum sbpl_flt_kind {
	SBPL_FLT_TRUE,      /* a rule without filter: every query */
	SBPL_FLT_LITERAL,   /* path equal to str */
	SBPL_FLT_SUBPATH,   /* str itself or beneath it at a '/' */
	SBPL_FLT_PREFIX,    /* path starting with str, byte for byte */
	SBPL_FLT_REGEX,     /* POSIX ERE re over the path */
	SBPL_FLT_ALL,
	SBPL_FLT_ANY,
	SBPL_FLT_NOT,
	SBPL_FLT_TARGET,
	SBPL_FLT_IP,        /* (local|remote ip... "host:port") */
	SBPL_FLT_UNIX,      /* (local|remote unix-socket F): F over the socket path */
	SBPL_FLT_GNAME,
	SBPL_FLT_GNAME_PREFIX,
	SBPL_FLT_SOCKET_DOMAIN, /* (socket-domain AF_...) of system-socket */
	SBPL_FLT_SYSCTL,        /* (sysctl-name S): the sysctl's name equal to str */
	SBPL_FLT_SYSCTL_PREFIX, /* (sysctl-name-prefix S) */
	SBPL_FLT_IPC,           /* (ipc-posix-name S): the POSIX IPC object's name */
	SBPL_FLT_IPC_PREFIX,    /* (ipc-posix-name-prefix S) */
	SBPL_FLT_IPC_REGEX,     /* (ipc-posix-name-regex S) */
	SBPL_FLT_EXTENSION,     /* (extension S): the process holds extension str */
	SBPL_FLT_VNODE,         /* (vnode-type TYPE): the file's type */
	SBPL_FLT_IOKIT,         /* (iokit-registry-entry-class S), (iokit-user-client-class S) */
	SBPL_FLT_LOCAL_NAME,    /* (local-name S): a mach service in the process's own namespace */
	SBPL_FLT_SOCKET_PROTO,  /* (socket-protocol N) of system-socket */
};

#define SBPL_PROTO_BIT(p) (1u << (p))
#define SBPL_FAM_4 1u
#define SBPL_FAM_6 2u

struct sbpl_flt {
	enum sbpl_flt_kind kind;
	char *str;
	regex_t re;
	bool has_re;
	struct sbpl_flt *kids; /* ALL, ANY, NOT (1), UNIX (0: any path, or 1) */
	size_t n_kids;
	bool remote;           /* IP, UNIX: the remote end, else the local */
	unsigned protos;       /* IP: SBPL_PROTO_BIT(tcp/udp) */
	unsigned fams;         /* IP: SBPL_FAM_4 | SBPL_FAM_6 */
	bool host_any;         /* IP: `*`, else `localhost` */
	int port;              /* IP: -1 for `*` */
	enum sbpl_target target;
};

struct sbpl_rule {
	bool allow;
	int *ops;
	size_t n_ops;
	struct sbpl_flt flt;
	size_t pos;
};

struct sbpl_model {
	struct sbpl_rule *rules;
	size_t n_rules;
};

/* The parse context: the text (for positions), the parameters, err. */
struct sbpl_pctx {
	const char *text;
	const struct sbpl_param *params;
	size_t n_params;
	char *err;
};

/* operation table (sbpl_model_ops.c) */
#define SBPL_OP_DEFAULT 0
int sbpl_model_op_find(const char *name);
int sbpl_model_op_parent(int op);

/* filters (sbpl_model_filter.c) */
int sbpl_model_fail(struct sbpl_pctx *c, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sbpl_model_flt_parse(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f);
void sbpl_model_flt_free(struct sbpl_flt *f);
bool sbpl_model_path_canonical(const char *p);

/* network filters (sbpl_model_net.c) */
int sbpl_model_net_parse(struct sbpl_pctx *c, const struct sbpl_node *n, struct sbpl_flt *f);
bool sbpl_model_net_match(const struct sbpl_flt *f, const struct sbpl_query *q);
int sbpl_model_net_check(const struct sbpl_query *q);

/* matching (sbpl_model_match.c): na is the value of a filter that does
 * not apply to the query; sbpl_model_flt_match reads it false */
bool sbpl_model_flt_eval(const struct sbpl_flt *f, const struct sbpl_query *q, bool na);
bool sbpl_model_flt_match(const struct sbpl_flt *f, const struct sbpl_query *q);

/* one spelling, both readings (sbpl_model_decide.c) */
int sbpl_model_decide_spelling(const struct sbpl_model *m, const struct sbpl_query *q,
			       long *rule_pos);

#endif
