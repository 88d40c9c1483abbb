/* changes.c - see changes.h: the report, and which mechanism fills it. */
#include "changes.h"
#include "changes_check.h"
#include "changes_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/platform.h"

static const char changes_op_char[] = {'c', 'm', 'd'};

/* One change into the report: counted, listed while the bounds allow. */
static void report_add_path(struct changes *c, enum changes_op op, const char *path)
{
	size_t len = strlen(path);
	char *p;

	if (op == CHANGE_CREATED)
		c->created++;
	else if (op == CHANGE_MODIFIED)
		c->modified++;
	else
		c->deleted++;
	if (c->n_items >= CHANGES_LIST_MAX || c->items_bytes + len > CHANGES_LIST_BYTES ||
	    !(p = strdup(path))) {
		c->dropped++;
		return;
	}
	c->items[c->n_items++] = (struct changes_item){.op = op, .path = p};
	c->items_bytes += len;
}

void changes_report_add(struct changes *c, enum changes_op op, const char *root,
			const char *rel)
{
	size_t len = strlen(root) + 1 + strlen(rel);
	char *p = malloc(len + 1);

	if (!p) {
		c->dropped++;
		return;
	}
	/* root "/" is written "/x", never "//x" */
	snprintf(p, len + 1, "%s/%s", strcmp(root, "/") ? root : "", rel);
	if (c->check)
		changes_set_add(c->check_walk, changes_op_char[op], p);
	report_add_path(c, op, p);
	free(p);
}

/* The event source's change (platform.h). */
static void event_add(void *ctx, enum platform_change op, const char *path)
{
	struct changes *c = ctx;
	enum changes_op o = op == PLATFORM_CREATED ? CHANGE_CREATED :
			    op == PLATFORM_MODIFIED ? CHANGE_MODIFIED : CHANGE_DELETED;

	if (c->check)
		changes_set_add(c->check_events, changes_op_char[o], path);
	else
		report_add_path(c, o, path);
}

/* Which mechanism: the event source unless SANDPROOF_REF_CHANGES=walk or
 * the platform cannot watch these roots (then why into c->fallback); both
 * with SANDPROOF_REF_CHANGES=check. */
static int changes_choose(struct changes *c, const struct request *req)
{
	const char *mode = getenv("SANDPROOF_REF_CHANGES");
	char why[160] = "";
	int rc;

	if (mode && !strcmp(mode, "walk")) {
		snprintf(c->fallback, sizeof(c->fallback), "forced by SANDPROOF_REF_CHANGES=walk");
		return 0;
	}
	c->check = mode && !strcmp(mode, "check");
	if (c->check && (!(c->check_walk = changes_set_new()) ||
			 !(c->check_events = changes_set_new())))
		return -ENOMEM;
	rc = platform_watch_start(req, &c->watch, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		c->watch = NULL;
		snprintf(c->fallback, sizeof(c->fallback), "%s", why);
	} else if (c->check) {
		snprintf(c->fallback, sizeof(c->fallback),
			 "checked against the events (SANDPROOF_REF_CHANGES=check)");
	}
	return 0;
}

int changes_baseline(struct changes *c, const struct request *req)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (req->fs_kind != FS_RESTRICTED)
		return 0;
	c->present = true;
	if ((rc = changes_choose(c, req)) < 0)
		return rc;
	if (c->watch && !c->check)
		return 0;
	c->walked = true;
	return changes_walk_baseline(c, req);
}

int changes_pollfd(const struct changes *c)
{
	return c->watch ? platform_watch_pollfd(c->watch) : -1;
}

void changes_service(struct changes *c)
{
	if (c->watch)
		platform_watch_service(c->watch);
}

/* The event source's report (into the check's set when checking); its
 * note when incomplete. */
static void changes_events(struct changes *c, char *note, size_t len)
{
	char why[160] = "";
	int rc = platform_watch_finish(c->watch, event_add, c, why, sizeof(why));

	platform_watch_free(c->watch);
	c->watch = NULL;
	if (rc == 0 && why[0] && !c->check)
		snprintf(c->fallback, sizeof(c->fallback), "%s", why); /* how, complete */
	if (rc == 0)
		return;
	snprintf(note, len, "events %s: %s", rc > 0 ? "incomplete" : "failed",
		 rc < 0 && !why[0] ? strerror(-rc) : why);
	if (c->check)
		return;
	/* what was reported is certain; the rest unknown */
	c->truncated = true;
	snprintf(c->fallback, sizeof(c->fallback), "%s", note);
}

int changes_compare(struct changes *c, const struct request *req)
{
	char note[200] = "";
	int rc = 0;

	if (!c->present)
		return 0;
	if (c->watch)
		changes_events(c, note, sizeof(note));
	if (c->walked)
		rc = changes_walk_compare(c, req);
	if (c->check) {
		changes_check_log(c->check_walk, c->check_events, note[0] ? note : NULL);
		changes_set_free(c->check_walk);
		changes_set_free(c->check_events);
		c->check_walk = c->check_events = NULL;
	}
	return rc;
}

/* One entry's path, lossless (OUT-8): a JSON string when the bytes are
 * UTF-8, else base64 of the bytes; "path_encoding" says which. */
static void write_path(struct jw *w, const char *path)
{
	size_t n = strlen(path);

	if (jw_text_len(path, n) != SIZE_MAX) {
		jw_strn(w, "path", path, n);
		jw_str(w, "path_encoding", "utf-8");
		return;
	}
	jw_raw_open(w, "path");
	jw_base64(w->f, path, n);
	jw_raw_close(w);
	jw_str(w, "path_encoding", "base64");
}

void changes_write(const struct changes *c, struct jw *w)
{
	static const char *const ops[] = {"created", "modified", "deleted"};

	if (!c->present) {
		jw_null(w, "changes");
		return;
	}
	jw_obj_open(w, "changes");
	jw_arr_open(w, "entries");
	for (size_t i = 0; i < c->n_items; i++) {
		jw_obj_open(w, NULL);
		jw_str(w, "op", ops[c->items[i].op]);
		write_path(w, c->items[i].path);
		jw_obj_close(w);
	}
	jw_arr_close(w);
	jw_uint(w, "created", c->created);
	jw_uint(w, "modified", c->modified);
	jw_uint(w, "deleted", c->deleted);
	jw_uint(w, "dropped", c->dropped);
	jw_bool(w, "truncated", c->truncated);
	jw_str(w, "mechanism", c->walked ? "walk" : "events");
	if (c->fallback[0])
		jw_str(w, "fallback", c->fallback);
	else
		jw_null(w, "fallback");
	jw_obj_close(w);
}

void changes_free(struct changes *c)
{
	platform_watch_free(c->watch);
	changes_set_free(c->check_walk);
	changes_set_free(c->check_events);
	for (size_t i = 0; i < c->n_items; i++)
		free(c->items[i].path);
	free(c->v);
	free(c->paths);
	memset(c, 0, sizeof(*c));
}
