/* protect.h - protected metadata under write roots (META-*).
 *
 * Every write root carries protected_names (".git/hooks", ".git/config",
 * ".agents", ".zero", ...), relative names the sandboxed command must not
 * create, replace or redirect.  Two halves:
 *
 *  1. protect_plan(): one race-safe look at the host, per write root.  Each
 *     name is walked component by component from the root with
 *     openat(O_PATH|O_NOFOLLOW) and no component is ever followed as a
 *     symlink.  The result says what the mount code must do:
 *       ro     existing protected paths: bind read-only (is_dir says how);
 *       pin    existing directories between the root and a protected path
 *              (the root excluded, ro paths excluded): bind each onto
 *              itself, so it is a mount point the command cannot rename or
 *              remove (`mv .git x && mkdir .git` fails with EBUSY);
 *       watch  names that do not fully exist: (existing parent directory,
 *              missing component, remaining suffix).  A component that is
 *              a regular file (or any non-directory) where a directory is
 *              needed is a watch on its parent too: it can be replaced by a
 *              directory during the run.
 *     Every entry carries an O_PATH descriptor of the object the walk
 *     checked, owned by the plan, so the mount code can bind through the
 *     descriptor (open_tree(fd, "", AT_EMPTY_PATH|OPEN_TREE_CLONE)) and no
 *     later lookup by name can be raced.  A component that is a symlink is
 *     refused (-ELOOP): following it would let the workspace choose which
 *     host object is protected; the caller refuses the request.
 *
 *  2. the monitor: runs in the supervising runner, on the host, while the
 *     command runs.  It keeps inotify watches (IN_CREATE | IN_MOVED_TO) on
 *     each watch parent and decides BY THE NAME in each event, never by
 *     looking the object up, so a create-then-unlink is still a violation.
 *     When the created name is an ancestor of a protected path (".git"
 *     while ".git/hooks" is protected and ".git" was absent) the monitor
 *     adds a watch on the new directory first and then scans it for the
 *     next component (watch-then-scan, recursively), so a name created
 *     after the watch gives an event and one created before is found by the
 *     scan.  Creating only an ancestor is not a violation.  A symlink
 *     appearing at an ancestor position IS one: through it the host path of
 *     the protected name would resolve wherever the command chose.
 *
 * Limits, stated so nobody relies on more:
 *   - A deeper protected name created AND removed inside a freshly created
 *     ancestor before the monitor has added its watch on that ancestor
 *     (the window between the ancestor's create and the service call that
 *     handles it) is not observed: inotify watches direct children only.
 *     Nothing of it remains on the host, so the host-side oracle holds;
 *     only the typed denial is missing.
 *   - A watched directory created during the run keeps the path it had
 *     when it was watched.  If the command renames it away and creates a
 *     protected name inside, the create is reported under the old path:
 *     a false positive by construction (fail closed), never a miss.
 *   - An IN_Q_OVERFLOW (events lost) is reported as PROTECT_EV_OVERFLOW, a
 *     violation of unknown path, and the monitor rescans every watch.
 *   - A watch parent from the plan that is moved, deleted or unmounted on
 *     the host, or a watch that cannot be added (ENOSPC: the user's inotify
 *     watch limit), is reported as PROTECT_EV_LOST: monitoring is no longer
 *     complete, so the run must stop (fail closed).
 *   - Adding a watch goes through /proc/self/fd/N (the descriptor the walk
 *     checked, not the name), so /proc must be mounted in the runner.
 *
 * Names are matched as the volume matches them (META-6, namecase.h): each
 * watch entry carries how its parent's volume matches names, decided by
 * protect_plan_nc() before anything runs; the monitor compares a created
 * name with the protected one under that folding (.AGENTS is .agents on
 * exFAT) and reports and descends under the protected paths' spelling;
 * where each spelling is an object of its own in the kernel (FUSE) a
 * directory made during the run is watched under every spelling (a watch
 * holds one inode), and the removal waits until the command is gone
 * (protect_monitor_cleanup_running).  Existing protected paths and pins
 * are the mounts' (mounts_alias.c covers their other spellings).
 *
 * Cleanup policy: protect_monitor_cleanup() removes every protected name
 * that exists now but was absent at plan time (the watch entries), with a
 * descriptor-relative walk that never follows a symlink, and reports each
 * removal.  Ancestors created during the run to hold a protected name are
 * LEFT in place (".git" made by `git init` keeps its objects and refs, only
 * ".git/hooks" and ".git/config" go): the contract protects the names, and
 * an ancestor may hold work the policy allowed.  A symlink found at an
 * ancestor position is removed (the link itself, never its target): it
 * redirects the protected path.  Cleanup rescans by name, so a name whose
 * event was lost is still found.
 *
 * Threading: a monitor is used by one thread at a time.  Everything returns
 * 0 (or a count) / -errno and never exits. */
#ifndef SANDPROOF_PROTECT_H
#define SANDPROOF_PROTECT_H

#include <stdbool.h>
#include <stddef.h>

#include "namecase.h"
#include "sandproof/request.h"

#define PROTECT_ERR_MAX 512
#define PROTECT_PATH_MAX 4096
/* Directories created during a run that the monitor will watch at most;
 * past it the monitor reports PROTECT_EV_LOST (fail closed), so a command
 * creating and renaming ancestors in a loop cannot grow the runner. */
#define PROTECT_MAX_DYNAMIC 4096

/* An existing object the walk checked.  fd: O_PATH|O_NOFOLLOW|O_CLOEXEC on
 * exactly that object, owned by the plan (closed by protect_plan_free). */
struct protect_path {
	char *path;  /* absolute host path */
	int fd;
	bool is_dir; /* false: a regular file or other non-directory */
};

/* A protected path that does not fully exist.  target ==
 * dir + "/" + name [+ "/" + suffix]. */
struct protect_watch {
	char *dir;    /* absolute path of the existing parent directory */
	int dir_fd;   /* O_PATH|O_DIRECTORY of dir, owned by the plan */
	char *name;   /* the missing (or non-directory) component */
	char *suffix; /* the components after name, "" when name is the last */
	char *target; /* the whole protected path, absolute */
	struct namecase nc; /* how dir's volume matches names (META-6) */
};

struct protect_plan {
	char *root;
	struct protect_path *ro;  /* in the order of the names */
	size_t n_ro;
	struct protect_path *pin; /* is_dir always true; parents before children */
	size_t n_pin;
	struct protect_watch *watch;
	size_t n_watch;
	char err[PROTECT_ERR_MAX]; /* set when protect_plan() fails */
};

/* Plan the protected names of one write root.  root: absolute, clean (no
 * "." or ".." components, no "//").  names: relative, clean, non-empty.
 * Returns 0 and fills *out, or on failure -errno with out->err naming the
 * path, and *out holds nothing that needs freeing:
 *   -EINVAL  a bad root or name (absolute name, "..", empty component);
 *   -ELOOP   a component of the root or of a name is a symlink;
 *   -ENOTDIR the root is not a directory;
 *   other -errno from the walk (EACCES, ENOMEM, EMFILE, ...). */
int protect_plan(const char *root, const struct strv *names,
		 struct protect_plan *out);
/* The same, deciding how each watch parent's volume matches names through
 * nc (namecase.h; the decisions of the run, shared with the mounts): a
 * volume whose matching cannot be decided, or enforced for a name, makes it
 * fail with -EOPNOTSUPP (or the probe's -errno), err saying why.
 * protect_plan() is this with a cache of its own. */
int protect_plan_nc(const char *root, const struct strv *names,
		    struct namecase_cache *nc, struct protect_plan *out);
void protect_plan_free(struct protect_plan *p);

enum protect_ev_kind {
	PROTECT_EV_CREATE = 1, /* a protected name appeared at path */
	PROTECT_EV_OVERFLOW,   /* the inotify queue overflowed; path is "" */
	PROTECT_EV_LOST,       /* a watch on path is lost or could not be set */
	PROTECT_EV_REMOVED,    /* cleanup removed path */
	PROTECT_EV_RESIDUE,    /* cleanup could not remove path (err) */
};

struct protect_event {
	enum protect_ev_kind kind;
	int err; /* positive errno for LOST / RESIDUE, else 0 */
	char path[PROTECT_PATH_MAX];
};

struct protect_mon;

/* Start monitoring the watch entries of n plans.  Call it after
 * protect_plan() and BEFORE the command can run.  The monitor copies what
 * it needs (it dups the descriptors): the plans may be freed afterwards.
 * It adds every watch, then scans: an ancestor that appeared since the
 * plan is watched and descended; a protected name that now exists fully
 * makes it fail with -ESTALE (the plan no longer describes the host:
 * re-plan, so the name is bound read-only instead).  Other -errno:
 * inotify_init1 or inotify_add_watch failures (ENOSPC, EMFILE, ENOENT when
 * /proc is missing).  A plan without watch entries is fine: the fd then
 * never becomes readable. */
int protect_monitor_start(const struct protect_plan *plans, size_t n,
			  struct protect_mon **out);

/* The inotify descriptor, non-blocking, for poll(POLLIN). */
int protect_monitor_fd(struct protect_mon *m);

/* Read and handle the queued events (bounded work per call: poll again
 * while the fd is readable).  Stores up to max violation events (CREATE,
 * OVERFLOW, LOST) in ev and returns how many violations it saw, which can
 * exceed max (the rest are counted, not stored); 0 when none; -errno when
 * reading fails.  A path is reported once until the next cleanup, however
 * many events and scans see it.  Any return > 0 means: stop the command. */
int protect_monitor_service(struct protect_mon *m, struct protect_event *ev,
			    size_t max);

/* Remove every protected name that exists now and was absent at plan time
 * (policy in the header comment).  Meant for after the command is gone; it
 * may also be called earlier (e.g. right at a violation, to shorten the
 * time a name stays visible) and again later.  It does not read the event
 * queue: call protect_monitor_service() once more first to collect events
 * still queued.  Stores up to max REMOVED / RESIDUE events and returns how
 * many there were (can exceed max); a RESIDUE means something could not be
 * removed and is still on the host.  Forgets the reported-path set. */
int protect_monitor_cleanup(struct protect_mon *m, struct protect_event *ev,
			    size_t max);

/* The same while the command may still run (right at a violation, to keep
 * the time a name stays on the host short), leaving out the entries on a
 * volume whose spellings are separate kernel objects (FUSE, namecase.h):
 * there a file removed under one spelling while the command holds it open
 * under another reaches the daemon as the removal of an open file its
 * open-file tracking (by path) does not know of, which exfat-fuse answers
 * by aborting - the volume gone.  Those wait for protect_monitor_cleanup()
 * once the command is gone (a block-device FUSE volume's RELEASE is
 * synchronous, so nothing is open then). */
int protect_monitor_cleanup_running(struct protect_mon *m, struct protect_event *ev,
				    size_t max);

/* End the monitor.  Every inotify mark is removed first (inotify_rm_watch,
 * synchronous: when this returns no watch of the run is on any inode), then
 * the now empty group is handed to the kernel to destroy, through an
 * io_uring ring whose teardown runs in a kernel worker: destroying a group
 * waits for the fsnotify mark reaper and an SRCU grace period, 5-25 ms when
 * the CPUs are busy, and that wait is no longer the runner's.  Where
 * io_uring cannot be used the group is closed here and the wait is ours.
 * Numbers and the options weighed: bench/RESULTS.md, "The inotify
 * teardown". */
void protect_monitor_free(struct protect_mon *m);

#endif
