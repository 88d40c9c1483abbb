/* wm_fs.h - a file tree for the access-check model (wm.h): directories,
 * files and junctions, each with a security descriptor, created and
 * re-secured by the documented inheritance rules, and the file operations a
 * command may try, each reduced to the access checks Windows documents for
 * it.  Counts every DACL it rewrites (the cost of propagation, §5).
 *
 * Rules and their sources (README.md):
 *   - a new object gets its parent's inheritable ACEs ("ACE Inheritance
 *     Rules"): OBJECT_INHERIT reaches files as an effective ACE and
 *     directories as inherit-only, CONTAINER_INHERIT directories as an
 *     effective, still inheritable ACE, NO_PROPAGATE stops after one
 *     generation; CREATOR OWNER on an effective copy becomes the owner;
 *     explicit ACEs come before inherited ones ("Order of ACEs in a DACL");
 *   - SetSecurityInfo and SetNamedSecurityInfo "impose the current
 *     inheritance model on the ACLs of all objects in the hierarchy below
 *     the target object" ("Automatic Propagation of Inheritable ACEs");
 *     whether that walk enters a junction is not documented: both are
 *     modelled (WM_PROP_FOLLOW, WM_PROP_NOFOLLOW).  A low-level set
 *     (SetFileSecurity: "security applied to a directory is not inherited
 *     by its children") changes one object (WM_PROP_NONE);
 *   - delete: DELETE on the object, or FILE_DELETE_CHILD on its parent
 *     (KB 238018); create: FILE_ADD_FILE or FILE_ADD_SUBDIRECTORY on the
 *     directory; rename: a delete of the source and a create in the target
 *     directory.
 * A path is "C:\a\b"; names compare ASCII-case-insensitively (NTFS's
 * default); a junction in the middle of a path is followed, as the object
 * manager follows a name-surrogate reparse point. */
#ifndef SANDPROOF_WM_FS_H
#define SANDPROOF_WM_FS_H

#include "wm.h"

#define WM_NAME_MAX 64
#define WM_PATH_MAX 512

enum wm_kind { WM_DIR = 0, WM_FILE, WM_JUNCTION };
enum wm_propagate { WM_PROP_NONE = 0, WM_PROP_NOFOLLOW, WM_PROP_FOLLOW };

struct wm_node {
	char name[WM_NAME_MAX];
	enum wm_kind kind;
	int parent;                  /* 0: a drive; -1: node 0 */
	struct wm_sd sd;
	char target[WM_PATH_MAX];    /* a junction's target path */
	bool gone;
};

struct wm_fs {
	struct wm_node *v;
	size_t n, cap;
	unsigned long dacl_writes;   /* DACLs rewritten, by set and by propagation */
};

/* A tree holding the drive "C:" with root_sd.  0 or -ENOMEM.  Node 0 holds
 * the drives and is no object. */
int wm_fs_init(struct wm_fs *fs, const struct wm_sd *root_sd);
/* The drive "X:", added with sd when absent.  Its node or -ENOMEM. */
int wm_fs_drive(struct wm_fs *fs, const char *name, const struct wm_sd *sd);
void wm_fs_free(struct wm_fs *fs);

/* The node a path names, or -1.  follow_last: a junction as the last
 * component is followed too (as an open without FILE_FLAG_OPEN_REPARSE_POINT). */
int wm_fs_resolve(const struct wm_fs *fs, const char *path, bool follow_last);
/* The child of dir named name (not following), or -1. */
int wm_fs_child(const struct wm_fs *fs, int dir, const char *name);
/* The node's path ("C:\a\b") into buf. */
void wm_fs_path(const struct wm_fs *fs, int node, char buf[WM_PATH_MAX]);
/* Whether node is dir or below it (by the tree, not following junctions). */
bool wm_fs_beneath(const struct wm_fs *fs, int dir, int node);

/* Create name in dir, owned by owner_sid, its DACL inherited from dir (or,
 * when dir passes nothing on, dflt: the creator's default DACL).  target:
 * a junction's target path.  The node's index, or -EEXIST, -ENOENT,
 * -ENOMEM, -EINVAL. */
int wm_fs_create(struct wm_fs *fs, int dir, const char *name, enum wm_kind kind,
		 const char *owner_sid, const struct wm_sd *dflt, const char *target);

/* The ACEs a child of kind inherits from a parent's DACL (ACE inheritance
 * rules), appended to out[*n] (capacity WM_ACES_MAX). */
void wm_fs_inherited(const struct wm_sd *parent, bool child_is_dir, const char *owner,
		     struct wm_ace *out, size_t *n);

/* Make node's explicit ACEs aces[0..n) (its inherited ones kept unless
 * protect), then propagate below it as mode says.  0 or -EINVAL. */
int wm_fs_set(struct wm_fs *fs, int node, const struct wm_ace *aces, size_t n, bool protect,
	      enum wm_propagate mode);
/* node's explicit (non-inherited) ACEs, into out (capacity WM_ACES_MAX). */
size_t wm_fs_explicit(const struct wm_fs *fs, int node, struct wm_ace *out);

/* What t may do to node (access checks with the file mapping). */
bool wm_fs_can(const struct wm_fs *fs, int node, uint32_t desired, const struct wm_token *t,
	       struct wm_reading r);
bool wm_fs_can_delete(const struct wm_fs *fs, int node, const struct wm_token *t,
		      struct wm_reading r);
bool wm_fs_can_add(const struct wm_fs *fs, int dir, enum wm_kind kind,
		   const struct wm_token *t, struct wm_reading r);

#endif
