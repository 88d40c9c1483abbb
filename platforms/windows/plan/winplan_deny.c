/* winplan_deny.c - the deny ACEs of the Windows plan (README.md, "ACE kinds").
 *
 * A deny ACE names the capability SID.  Under a write-restricted token a
 * write is granted only if the restricting SIDs are granted it too, and the
 * explicit deny on the object (or the nearer inherited one) is met before
 * the write root's inherited allow, so the deny holds beneath a write root
 * and also where Everyone or the logon SID would be granted the write. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandproof/request.h"
#include "winpath.h"
#include "winplan_int.h"

#define INHERIT_ALL (WINPLAN_OBJECT_INHERIT | WINPLAN_CONTAINER_INHERIT)

/* The outermost writable area (a write root or the temp dir) holding p, or
 * NULL: what the command could rename or delete p's ancestors through. */
static const char *outer_area(const struct request *req, const char *temp, const char *p)
{
	const char *best = NULL;

	for (size_t i = 0; i < req->n_write_roots; i++) {
		const char *r = req->write_roots[i].root;

		if (winpath_beneath(r, p) && (!best || strlen(r) < strlen(best)))
			best = r;
	}
	if (temp && winpath_beneath(temp, p) && (!best || strlen(temp) < strlen(best)))
		best = temp;
	return best;
}

/* Pin every directory strictly between area and p (META-2): the command
 * may not rename or remove one to carry p out from under its deny, or to
 * put a prepared tree in its place.  Those beneath own (the write root a
 * protected name belongs to) may be absent: a placeholder is made. */
static int pin_ancestors(struct wpb *b, const char *area, const char *p, const char *own)
{
	size_t n = strlen(area), start = area[n - 1] == '\\' ? n : n + 1;
	char *a = strdup(p);
	int rc = 0;

	if (!a)
		return -ENOMEM;
	for (size_t k = start; a[k] && !rc; k++) {
		if (a[k] != '\\')
			continue;
		a[k] = '\0';
		bool mine = own && winpath_beneath(own, a) && !winpath_equal(own, a);
		rc = wpb_add_ace(b, a, WINPLAN_DENY, WINPLAN_MASK_DENY_MOVE, 0,
				 mine ? WINPLAN_ABSENT_CREATE_DIR : WINPLAN_ABSENT_REFUSE, "META-2",
				 mine ? "between a write root and a protected path: not renamed or "
					"removed (a placeholder if absent, removed after the run)"
				      : "between a writable area and a denied path: not renamed or "
					"removed");
		a[k] = '\\';
	}
	free(a);
	return rc;
}

/* A read-only path (FS-2): inside a writable area it must exist (it could
 * be created) and its ancestors are pinned; outside, an absent one is
 * skipped, as on Linux. */
static int deny_path(struct wpb *b, const struct request *req, const char *temp,
		     const char *p, const char *why)
{
	const char *area = outer_area(req, temp, p);
	int rc = 0;

	if (area && !winpath_equal(area, p))
		rc = pin_ancestors(b, area, p, NULL);
	if (!rc)
		rc = wpb_add_ace(b, p, WINPLAN_DENY, WINPLAN_MASK_DENY_WRITE, INHERIT_ALL,
				 area ? WINPLAN_ABSENT_REFUSE : WINPLAN_ABSENT_SKIP, "FS-2", why);
	return rc;
}

/* A protected name (META-1, META-3): denied whether present or absent.  An
 * ACL cannot forbid creating one name in a directory, so an absent one is
 * made an empty placeholder directory that carries the deny for the run
 * (README.md, "Absent protected names"). */
static int deny_protected(struct wpb *b, const struct request *req, const char *temp,
			  const struct write_root *wr, const char *name)
{
	char *p;
	int rc = winpath_join(wr->root, name, &p);

	if (rc)
		return rc;
	rc = pin_ancestors(b, outer_area(req, temp, p), p, wr->root);
	if (!rc)
		rc = wpb_add_ace(b, p, WINPLAN_DENY, WINPLAN_MASK_DENY_WRITE, INHERIT_ALL,
				 WINPLAN_ABSENT_CREATE_DIR, "META-1,META-3",
				 "protected metadata: read-only if present; if absent a placeholder "
				 "directory carries the deny, so the name cannot be created, and is "
				 "removed after the run");
	free(p);
	return rc;
}

int wpb_add_denies(struct wpb *b, const struct request *req, const char *temp)
{
	int rc = 0;

	for (size_t i = 0; i < req->n_write_roots && !rc; i++) {
		const struct write_root *wr = &req->write_roots[i];

		for (size_t j = 0; j < wr->read_only_subpaths.n && !rc; j++)
			rc = deny_path(b, req, temp, wr->read_only_subpaths.v[j],
				       "a read-only subpath of a write root");
		for (size_t j = 0; j < wr->protected_names.n && !rc; j++)
			rc = deny_protected(b, req, temp, wr, wr->protected_names.v[j]);
	}
	for (size_t i = 0; i < req->deny_write.n && !rc; i++)
		rc = deny_path(b, req, temp, req->deny_write.v[i], "deny_write: read-only");
	return rc;
}
