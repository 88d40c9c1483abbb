/* wjournal.h - the crash-safe record of the DACLs a Windows run changes and
 * the placeholders it makes (issue 32 §4), portable C: the Windows backend
 * (platforms/windows/enforce/acl.c, acl_journal.c) gives it Win32
 * operations, the crash-injection test a model of them over real files and
 * extended attributes on Linux (tests/test_wjournal_crash.c).
 *
 * The contract, what makes it crash-safe:
 *   - nothing changes on disk before the line that undoes it is whole in the
 *     journal and flushed (the ops' append writes and flushes, or fails):
 *       "v2 mkdir PATH"          before a placeholder directory is created:
 *                                the intent, so a crash right after the
 *                                mkdir leaves a directory the journal names;
 *       "v2 dacl VOL IDX C SDDL PATH"
 *                                the object's identity, whether the run
 *                                created it, its DACL before the change;
 *       "v2 daclw ..."           the same, for a directory whose change is
 *                                propagated to what is below it (the
 *                                ops' own walk, which never follows a
 *                                reparse point): its undo propagates too;
 *   - replay walks the journal backwards: a dacl line sets the prior DACL
 *     back on the same object (identity checked; another object at the path
 *     is refused, the journal kept) and removes a directory the run created
 *     when it is empty; a mkdir line removes the directory at PATH if there
 *     is one and it is empty (it may be the run's, made just before a
 *     crash);
 *   - a torn last line (no newline: the append never finished, so the
 *     change after it never happened) is skipped; any other line that does
 *     not parse refuses the replay (-EINVAL), restoring nothing, and the
 *     journal is kept for a human.
 * Fields are separated by tabs (a path holds none; SDDL holds none).  The
 * "v1" lines of earlier runners (v1 VOL IDX C SDDL PATH) are read as dacl
 * lines. */
#ifndef SANDPROOF_WJOURNAL_H
#define SANDPROOF_WJOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An opened object: its identity (volume, file index; a device and inode
 * in the model), whether it is a directory, and the ops' own handle. */
struct wj_obj {
	uint64_t vol, idx;
	bool dir;
	void *h;
};

/* What the engine asks of a file system.  Each returns 0 or -errno. */
struct wj_ops {
	void *ctx;
	/* Open path as itself, never through a reparse point or link (-ELOOP);
	 * -ENOENT when absent. */
	int (*open_path)(void *ctx, const char *path, struct wj_obj *o);
	void (*close_obj)(void *ctx, struct wj_obj *o);
	/* The object's DACL as SDDL (malloc'd) / set it from SDDL. */
	int (*get_dacl)(void *ctx, const struct wj_obj *o, char **sddl);
	int (*set_dacl)(void *ctx, const struct wj_obj *o, const char *sddl);
	/* Create an empty directory (-EEXIST when the name exists). */
	int (*make_dir)(void *ctx, const char *path);
	/* Remove the directory o (opened from path) if it is empty; -ENOTEMPTY
	 * keeps it. */
	int (*rmdir_empty)(void *ctx, const struct wj_obj *o, const char *path);
	/* Append len bytes to the journal and flush them to disk, or fail. */
	int (*append)(void *ctx, const char *line, size_t len);
	/* Re-apply o's inheritable ACEs to everything below it, never through
	 * a reparse point (after a daclw undo); NULL: nothing to do. */
	int (*propagate)(void *ctx, const struct wj_obj *o);
};

/* What an entry does when its path is absent (the plan's rule). */
enum wj_absent { WJ_ABSENT_REFUSE = 0, WJ_ABSENT_SKIP, WJ_ABSENT_CREATE_DIR };

/* The change made to an object once its prior DACL is journalled. */
typedef int (*wj_change_fn)(void *arg, const struct wj_obj *o);

/* Journal, then change, one object: path opened (absent: refused -ENOENT,
 * skipped, or the mkdir intent journalled, the directory created, opened),
 * its prior DACL journalled ("daclw" when walk and the object is a
 * directory: change propagates below it), then change(arg, o).  *applied
 * is set when change ran.  On a failure before the dacl line a directory
 * this call created is removed. */
int wj_apply(const struct wj_ops *ops, const char *path, enum wj_absent absent, bool walk,
	     wj_change_fn change, void *arg, bool *applied);

/* What a replay did. */
struct wj_report {
	size_t restored;     /* DACLs set back */
	size_t removed;      /* directories removed */
	size_t torn;         /* a torn last line skipped (0 or 1) */
	const char *why;     /* static: the first failure, or NULL */
};

/* Replay the journal text[0..len) (modified in place).  0 when every entry
 * was undone (or had nothing left to undo); the first -errno otherwise,
 * every entry still attempted, *rep->why saying what.  A malformed line but
 * a torn last one: -EINVAL before anything is undone. */
int wj_replay(const struct wj_ops *ops, char *text, size_t len, struct wj_report *rep);

#endif
