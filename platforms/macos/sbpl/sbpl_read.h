/* sbpl_read.h - the s-expression reader under the SBPL model.
 *
 * Reads the text of a Seatbelt profile into a tree of nodes: lists,
 * symbols, strings ("..." and the regex literal #"..."), integers and
 * booleans (#t, #f).  `;` starts a comment to the end of the line.  Every
 * node keeps the byte offset where it starts, so the model can name the
 * position of what it refuses.  Nothing is evaluated here.
 *
 * Portable C (any POSIX libc).  Ownership: a tree is freed with
 * sbpl_read_free(). */
#ifndef SANDPROOF_SBPL_READ_H
#define SANDPROOF_SBPL_READ_H

#include <stddef.h>

#include "sbpl.h"

enum sbpl_node_kind {
	SBPL_NODE_LIST,
	SBPL_NODE_SYMBOL,
	SBPL_NODE_STRING,
	SBPL_NODE_REGEX,  /* #"..." */
	SBPL_NODE_INT,
	SBPL_NODE_BOOL,
};

struct sbpl_node {
	enum sbpl_node_kind kind;
	size_t pos;               /* byte offset of its first character */
	char *text;               /* symbol, string (unescaped), regex source */
	long long num;            /* INT; BOOL: 1 for #t, 0 for #f */
	struct sbpl_node *kids;   /* LIST */
	size_t n_kids;
};

/* text -> the top-level forms, as one LIST node (pos 0).  0, or -EINVAL
 * with err "line L col C (byte B): what" / -ENOMEM.  Strings know the
 * escapes \\ \" \n \t only: any other is refused, never guessed. */
int sbpl_read_text(const char *text, struct sbpl_node *top, char err[SBPL_ERR_MAX]);
void sbpl_read_free(struct sbpl_node *n);

/* Where byte pos of text is, as "line L col C (byte B)" into buf. */
void sbpl_read_where(const char *text, size_t pos, char *buf, size_t len);

#endif
