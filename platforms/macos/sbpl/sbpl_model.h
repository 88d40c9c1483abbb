/* sbpl_model.h - a model of Seatbelt that decides what a profile allows.
 *
 * Portable C, compiled and tested on every OS.  It reads the SBPL subset
 * that sbpl_generate() emits and answers "would Seatbelt allow this
 * operation on this path / address / name?" the way the sources in
 * platforms/macos/sbpl/MODEL.md document Seatbelt deciding it.  It never
 * guesses: a form, filter, operation or parameter it does not know is a
 * parse error naming its position, and a query it cannot answer is
 * -EINVAL, never a default.
 *
 * The subset:
 *   (version 1)
 *   (allow|deny OP... FILTER... [(with message "...")|(with report)|(with no-report)])
 *     OP: a name of the operation table (sbpl_model_ops.c), or `default`
 *     several filters in one rule: any of them (require-any)
 *   FILTER: (literal S) (subpath S) (prefix S) (regex S)
 *           (require-all F...) (require-any F...) (require-not F)
 *           (target self|same-sandbox)
 *           (local|remote ip|ip4|ip6|tcp|tcp4|tcp6|udp|udp4|udp6 "HOST:PORT")
 *             HOST `*` or `localhost`, PORT `*` or a number
 *           (local|remote unix-socket [(path-literal S)|(subpath S)|(path-regex S)])
 *           (global-name S) (global-name-prefix S) (socket-domain AF_NAME)
 *           (sysctl-name S) (sysctl-name-prefix S) (extension S)
 *           (ipc-posix-name S) (ipc-posix-name-prefix S) (ipc-posix-name-regex S)
 *           (path S) (vnode-type T) (iokit-registry-entry-class S)
 *           (iokit-user-client-class S) (local-name S) (socket-protocol N)
 *   modifiers: (with message "..."), (with report), (with no-report),
 *           (with no-sandbox) (the peers' /bin/ps exception; never ours)
 *   S: "string", #"regex", (param "NAME"), (string-append S...)
 *
 * Ownership: a model is freed with sbpl_model_free(); it copies what it
 * keeps of the text and the parameters. */
#ifndef SANDPROOF_SBPL_MODEL_H
#define SANDPROOF_SBPL_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "sbpl.h"

struct sbpl_model;

/* How rules naming different levels of one operation's family combine
 * (MODEL.md, "precedence"). */
enum sbpl_order {
	/* The documented reading: rules naming the operation itself are
	 * consulted first, last match wins among them; only when none matches
	 * are the rules of its parent (file-write*, then file*, ...) consulted
	 * the same way, down to default.  So a specific deny is not undone by
	 * a later wildcard allow, nor a specific allow by a later wildcard
	 * deny. */
	SBPL_ORDER_SPECIFIC_FIRST = 0,
	/* Plain last match over every rule naming the operation or one of its
	 * parents, whatever level it names. */
	SBPL_ORDER_FLAT,
};

enum sbpl_proto { SBPL_PROTO_NONE = 0, SBPL_PROTO_TCP, SBPL_PROTO_UDP };

enum sbpl_target {
	SBPL_TARGET_NONE = 0,     /* the operation has no target process */
	SBPL_TARGET_SELF,         /* the process itself */
	SBPL_TARGET_SAME_SANDBOX, /* another process of the same sandbox */
	SBPL_TARGET_OTHER,        /* a process outside the sandbox */
};

/* One end of a socket operation. */
struct sbpl_addr {
	const char *ip;        /* numeric ("127.0.0.1", "::1"); NULL: none */
	int port;              /* 0..65535, or -1 when ip is NULL */
	bool unbound;          /* the local end of a socket never bound */
	const char *unix_path; /* an AF_UNIX endpoint (canonical path) */
};

struct sbpl_query {
	const char *op;          /* "file-write-create", "network-outbound", ... */
	const char *path;        /* file operations: canonical absolute path */
	const char *global_name; /* mach-lookup */
	enum sbpl_proto proto;   /* IP socket operations */
	struct sbpl_addr local, remote;
	enum sbpl_target target; /* signal, process-info* */
	const char *socket_domain; /* system-socket: "AF_UNIX", "AF_INET"... */
	const char *sysctl_name;   /* sysctl-read, sysctl-write: "kern.procargs2" */
	const char *vnode_type;    /* file operations: "CHARACTER-DEVICE", "REGULAR-FILE"... */
	const char *iokit_class;   /* iokit-open: the registry entry or user client class */
	const char *local_name;    /* mach-lookup of a name in the process's own namespace */
	int socket_protocol;       /* system-socket: the protocol, 0: none asked */
	const char *ipc_name;      /* ipc-posix-*: the object's name */
	/* The sandbox extensions the process holds (a pty opened in the
	 * sandbox carries "com.apple.sandbox.pty" for its terminal). */
	const char *const *extensions;
	size_t n_extensions;
	/* The host's own interface addresses (numeric), which a `localhost`
	 * host filter matches too (MODEL.md, "the localhost quirk"). */
	const char *const *ifaddrs;
	size_t n_ifaddrs;
	enum sbpl_order order;
	/* The file system under path (MODEL.md, "a volume that folds
	 * names"): 0, names are bytes; else namefold.h's flags, and fs_names
	 * the paths that exist, spelled as stored.  On such a volume the
	 * operation on path is handed to Seatbelt in the caller's spelling or
	 * in the stored spelling of what it names (the longest existing
	 * prefix of path, compared folded, spelled as stored), and the model
	 * allows it when either is allowed: the caller chooses. */
	unsigned fs_fold;
	const char *const *fs_names;
	size_t n_fs_names;
	/* Only path as spelled: no stored spelling, none across a firmlink
	 * (what a native test that used this spelling observed). */
	bool as_spelled;
};

/* Parse text, with (param "NAME") taken from params.  0 and *out, or
 * -EINVAL with err "line L col C (byte B): what" (an unknown form,
 * operation, filter, a missing parameter, no (version 1), no default rule)
 * / -ENOMEM. */
int sbpl_model_parse(const char *text, const struct sbpl_param *params, size_t n_params,
		     struct sbpl_model **out, char err[SBPL_ERR_MAX]);
void sbpl_model_free(struct sbpl_model *m);

/* 1 allow, 0 deny, -EINVAL for a query the model cannot answer (an
 * unknown operation, a non-canonical or relative path, a non-numeric ip). */
int sbpl_model_decide(const struct sbpl_model *m, const struct sbpl_query *q);

/* sbpl_model_decide(), and in *rule_pos the byte offset in the text of the
 * rule that decided (for messages), -1 when nothing decided. */
int sbpl_model_decide_why(const struct sbpl_model *m, const struct sbpl_query *q,
			  long *rule_pos);

/* An operation on two paths (from -> to).  Which path each of its checks
 * is made against is documented nowhere read (MODEL.md, "two paths"), so
 * every plausible reading is decided and the operation is allowed when
 * one allows it (an error is returned as is):
 *   RENAME    file-write-unlink of from and file-write-create of to
 *             (rename(2), renamex_np without flags);
 *   EXCHANGE  as a rename each way, or as file-write-data of both
 *             (renamex_np RENAME_SWAP, exchangedata);
 *   LINK      file-write-create of to, and file-link of from or of to
 *             (link(2): the new name to, the existing from);
 *   CLONE     file-write-create of to, and file-clone of from or of to
 *             (clonefile(2)).
 * One path each, so sbpl_model_decide: mknod(2)/mkfifo(3) are
 * file-write-create of the node; binding a unix socket is network-bind
 * with local.unix_path (whether a file-write-create of its node is also
 * checked is not known: the wider reading, bind alone, is the model's). */
enum sbpl_move { SBPL_MOVE_RENAME, SBPL_MOVE_EXCHANGE, SBPL_MOVE_LINK, SBPL_MOVE_CLONE };
int sbpl_model_decide_move(const struct sbpl_model *m, const struct sbpl_query *base,
			   enum sbpl_move kind, const char *from, const char *to);

#endif
