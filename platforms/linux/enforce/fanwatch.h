/* fanwatch.h - the change report's event source on Linux (platform.h,
 * platform_watch_*): fanotify with directory file handles and names, so a
 * run's report costs what changed, not the size of its write roots.
 *
 * Start (before the launch): one fanotify group reporting the parent
 * directory's file handle and the entry's name, the object's own handle,
 * and renames as one event (FAN_REPORT_DFID_NAME_TARGET, FAN_RENAME).
 *   - privileged (CAP_SYS_ADMIN of the initial user namespace): a
 *     filesystem mark on each write root's file system and an unlimited
 *     queue; events of directories outside the roots are dropped as they
 *     are read (their handle opened, its path compared);
 *   - unprivileged: an inode mark on every directory under the roots, and
 *     their listing as it was (names, inode numbers, directories'
 *     attributes; no file is examined): an inode mark sees no event of a
 *     file's own (a rename's replaced object, a link count), so what was
 *     there comes from the listing, what changed from the events.
 * Nothing of the group reaches the command (close-on-exec, and the
 * sandbox's pid 1 closes every descriptor); the group opens no file
 * (handles are reported, never descriptors), so a watch gives no one
 * any access.
 *
 * During the run the supervisor drains the queue (platform_watch_service).
 * Each event names a slot (a directory and a name) and an object: it
 * arrived there (created, renamed in), departed (deleted, renamed out) or
 * was touched (written, attributes changed, closed after writing).  A slot
 * keeps its first event, which says what was there at the start (an
 * arrival: nothing; else that object), and whether anything arrived;
 * objects keep what happened to them.  fanotify merges the still unread
 * events of one object at one name from one process into one; such an
 * event is read in the only order one object allows: arrive, touch,
 * depart.  A rename over an existing name is followed, from the same
 * process, by a link-count change of the object it replaced (an event with
 * no name, privileged only): that object departed the slot first.
 *
 * Finish (after the release): from each write root, the tree as it was at
 * the start (unprivileged: the listing; privileged: a slot's first item
 * says what was there: an arrival, nothing; a departure or touch, that
 * object; a slot without items, what is there now) is compared with the tree as it is, path by path, descending only
 * where items or the directories holding them lie, and wholly below a
 * directory that appeared, disappeared or was replaced.  "Modified" is as
 * the walk's: another object, or the same one written, re-attributed,
 * renamed away and back, its link count changed, or (mapped writes, which
 * raise no event) closed after being opened for writing with a change
 * time after the start; for a directory, another mode or owner
 * (privileged, which has no listing: any change of its attributes, see
 * CONTRACT.md OUT-8).  The other names of an object whose link count
 * changed or which was written are found by inode number: in the listing
 * (unprivileged), or by a walk of directory entries when the link count
 * says the descent did not meet them all (privileged; hard links only).
 *
 * What the events cannot tell (the queue overflowed, a bound was reached,
 * a directory could not be found again) makes the result incomplete: what
 * was emitted is certain, the rest unknown. */
#ifndef SANDPROOF_FANWATCH_H
#define SANDPROOF_FANWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sandproof/platform.h"

#define FW_NONE UINT32_MAX
#define FW_SLOTS_MAX 131072u        /* names events touched: the walk's bound */
#define FW_OBJS_MAX 163840u         /* distinct handles */
#define FW_ARENA_MAX (6u << 20)     /* handle and name bytes */
#define FW_DIRS_MAX 65536u          /* directories marked (unprivileged), or with events */
#define FW_T0_MAX 131072u           /* start listing entries (unprivileged), the walk's */
#define FW_ROOTS_MAX 64u
#define FW_FILTER_AFTER 4096u       /* privileged: objects or names kept before
				       directories are judged (fw_inside) */

/* object flags */
#define FW_TOUCHED 0x01u    /* written or attributes changed (by name or fd) */
#define FW_LINKS 0x02u      /* link count changed (an event with no name) */
#define FW_CLOSEW 0x04u     /* closed after being opened for writing */
#define FW_DIRATTR 0x08u    /* a directory's own attributes changed */
#define FW_MOVED 0x10u      /* renamed */
#define FW_ISDIR 0x20u      /* seen as a directory */
#define FW_T0DIR 0x40u      /* a directory of the start listing (unprivileged) */

enum fw_kind { FW_ARRIVE, FW_TOUCH, FW_DEPART };

struct fw_obj {
	uint32_t fid_off;           /* in the arena: fsid, handle type, handle */
	uint8_t fid_len, flags, inside; /* inside (privileged): 0 unknown, 1 in, 2 out */
	uint32_t hnext;             /* hash chain */
	uint32_t dir;               /* a directory's entry in dirs[], or FW_NONE */
	uint32_t met, nlink;        /* finish: names met now, its link count then */
	uint64_t ino;
};

/* A directory with slots or a start listing. */
struct fw_dir {
	uint32_t slots;             /* first slot (finish) */
	/* unprivileged, a start directory: where it was (parent FW_NONE: a
	 * root, t0ent its number), its listing, its attributes */
	uint32_t parent, t0ent;
	uint32_t t0_first, t0_count;
	uint32_t mode, uid, gid;
	uint8_t sorted;
};

/* unprivileged: one entry of a start directory's listing */
struct fw_t0ent {
	uint32_t name_off;
	uint32_t child;             /* a directory's own object, else FW_NONE */
	uint8_t dtype, seen;        /* seen: the descent looked at it */
	uint64_t ino;
};

struct fw_slot {
	uint32_t dir, name_off;     /* dir: an object; name NUL-terminated in the arena */
	uint32_t first;             /* the object of the first event */
	uint8_t first_kind, arrived;
	uint32_t hnext, dnext;      /* hash chain; next slot of the same dir */
};

struct fw_root {
	const char *path;           /* the request's (clean, absolute) */
	int fd;                     /* opened from "/" with O_NOFOLLOW */
	uint64_t mnt;               /* its mount id */
	unsigned char fsid[8];      /* its file system's, as events give it */
	uint32_t obj;               /* its handle */
};

#define FW_FID_MAX (8 + 4 + 128)   /* an object's fsid, handle type and bytes */
#define FW_LIMBO 8u

/* Privileged, once filtering: a link-count event (no name) of an object not
 * known yet.  The kernel sends it just before the named event of the same
 * link or unlink by the same process, which says whether the directory is
 * inside a root; held here until then, never interned (a filesystem mark
 * sees every unlink on the host's file system: interned, another process
 * deleting a tree filled the tables). */
struct fw_limbo {
	int32_t pid;                /* 0: free */
	uint8_t len;
	unsigned char fid[FW_FID_MAX];
};

struct fw_rename {                  /* recent renames, for overwrites */
	int32_t pid;
	uint32_t slot;
	bool first;                 /* its arrival was the slot's first event */
};

struct platform_watch {
	int fd;                     /* the fanotify group */
	bool privileged;
	bool drain_at_end;          /* SANDPROOF_REF_CHANGES_DRAIN=end (tests) */
	bool filtering;             /* privileged: events of directories outside
	                             * the roots dropped as read (tables filling) */
	struct timespec start;      /* before the marks: "changed since" */
	struct fw_root roots[FW_ROOTS_MAX];
	size_t n_roots;
	/* tables */
	struct fw_obj *objs;
	uint32_t n_objs, cap_objs;
	struct fw_dir *dirs;
	uint32_t n_dirs, cap_dirs;
	struct fw_slot *slots;
	uint32_t n_slots, cap_slots;
	struct fw_t0ent *t0;
	uint32_t n_t0, cap_t0;
	uint32_t *ohash, *shash;    /* FW_HASH buckets each */
	char *arena;
	uint32_t arena_len, arena_cap;
	struct fw_rename recent[32];
	unsigned n_recent;
	struct fw_limbo limbo[FW_LIMBO];
	unsigned n_limbo;
	/* what makes the result incomplete (first reason kept) */
	bool lost;
	char lost_why[160];
	char rescanned[224];        /* events lost, then the listing compared: how */
	char buf[65536] __attribute__((aligned(8)));
};

/* fanwatch_tab.c: the tables.  Each returns an index or FW_NONE when a
 * bound is reached (w->lost set). */
int fw_tab_init(struct platform_watch *w);
void fw_tab_free(struct platform_watch *w);
void fw_lose(struct platform_watch *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint32_t fw_obj_get(struct platform_watch *w, const void *fid, uint32_t len, bool add);
uint32_t fw_name_add(struct platform_watch *w, const char *name);
uint32_t fw_slot_get(struct platform_watch *w, uint32_t dir, const char *name, bool add);
/* One event at a slot: the first one kept, arrivals remembered. */
void fw_slot_event(struct platform_watch *w, uint32_t slot, uint32_t obj, enum fw_kind kind);
/* The directory entry of obj, made when missing (FW_NONE: bound). */
uint32_t fw_dir_of(struct platform_watch *w, uint32_t obj);
uint32_t fw_t0_add(struct platform_watch *w, const char *name, uint64_t ino, uint8_t dtype);
static inline const char *fw_name(const struct platform_watch *w, uint32_t off)
{
	return w->arena + off;
}

/* fanwatch.c: the events read so far into the tables (service, finish). */
void fw_drain(struct platform_watch *w);
/* The handle of name in dfd (name "" : dfd itself) in fanotify's form, into
 * fid (FW_FID_MAX bytes); its length, or -errno. */
int fw_fid_at(int dfd, const char *name, const void *fsid, unsigned char *fid);

/* fanwatch_diff.c: finish's comparison. */
int fw_diff(struct platform_watch *w, platform_change_fn *emit, void *ctx);

#endif
