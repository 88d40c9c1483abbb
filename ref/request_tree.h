/* request_tree.h - a request given as a cJSON tree rather than text.
 *
 * `sandproof-ref exec` builds, from its flags, the tree a JSON request of the
 * same meaning would parse to, and validates it here: the same schema, the
 * same path rules, the same messages (naming the JSON field), so a flag can
 * never mean more, or less, than its field (one validator for both forms).
 * Only the text-level checks of request_parse() (jscan.h: UTF-8, escapes,
 * NUL) are skipped, as a tree built from C strings has no text. */
#ifndef SANDPROOF_REQUEST_TREE_H
#define SANDPROOF_REQUEST_TREE_H

#include <cjson/cJSON.h>

#include "sandproof/request.h"

/* As request_parse_with(), for a tree the caller owns and frees. */
int request_parse_tree(const cJSON *root,
		       const struct request_path_rules *rules, struct request *req,
		       char err[REQUEST_ERR_MAX]);

#endif
