/* fanwatch.c - the change watch's start, events and end (fanwatch.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "fanwatch.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200 /* linux/fcntl.h: a handle to compare, never to open */
#endif

#define FW_MASK (FAN_CREATE | FAN_DELETE | FAN_RENAME | FAN_MODIFY | FAN_ATTRIB | \
		 FAN_CLOSE_WRITE | FAN_ONDIR)

int fw_fid_at(int dfd, const char *name, const void *fsid, unsigned char *fid)
{
	struct {
		struct file_handle h;
		unsigned char bytes[128];
	} fh;
	int mnt;

	fh.h.handle_bytes = sizeof(fh.bytes);
	if (name_to_handle_at(dfd, name, &fh.h, &mnt, AT_HANDLE_FID |
			      (name[0] ? 0 : AT_EMPTY_PATH)) < 0)
		return -errno;
	memcpy(fid, fsid, 8);
	memcpy(fid + 8, &fh.h.handle_type, 4);
	memcpy(fid + 12, fh.h.f_handle, fh.h.handle_bytes);
	return (int)(12 + fh.h.handle_bytes);
}

/* ------------------------------------------------------------ the events */

/* An event's handle in the tables' form (fsid, type, handle bytes) into
 * fid; its length, or 0 when too long. */
static uint32_t fw_event_fid(const struct fanotify_event_info_fid *f, unsigned char *fid)
{
	const struct file_handle *h = (const void *)f->handle;

	if (h->handle_bytes > 128)
		return 0;
	memcpy(fid, &f->fsid, 8);
	memcpy(fid + 8, &h->handle_type, 4);
	memcpy(fid + 12, h->f_handle, h->handle_bytes);
	return 12 + h->handle_bytes;
}

/* An event's handle as an interned object, added when add. */
static uint32_t fw_event_obj_(struct platform_watch *w, const struct fanotify_event_info_fid *f,
			      bool add)
{
	unsigned char fid[FW_FID_MAX];
	uint32_t len = fw_event_fid(f, fid);

	return len ? fw_obj_get(w, fid, len, add) : FW_NONE;
}

static uint32_t fw_event_obj(struct platform_watch *w, const struct fanotify_event_info_fid *f)
{
	return fw_event_obj_(w, f, true);
}

static const char *fw_event_name(const struct fanotify_event_info_fid *f)
{
	const struct file_handle *h = (const void *)f->handle;

	return (const char *)h->f_handle + h->handle_bytes;
}

/* Privileged: is the directory obj (dfid) under a write root?  Its handle
 * opened through the root's mount, its path compared; a handle that no
 * longer opens (a directory since deleted) counts as inside.  Asked only
 * once FW_FILTER_AFTER objects or names are kept (w->filtering: a
 * filesystem mark sees the whole host's file system): until then every
 * event is kept and finish looks only where the roots lead, so a short run
 * makes no path lookup of its own while its command runs.  Early, not when
 * the tables are nearly full: a directory of another process's tree is
 * judged while it still exists; judged only after that tree was deleted (a
 * workspace removed beside a run of 100 000 files: seen under run --jobs),
 * it counted as inside and its deletions filled the bounds, so the report
 * came back truncated. */
static bool fw_inside(struct platform_watch *w, uint32_t obj)
{
	struct fw_obj *o = &w->objs[obj];
	struct {
		struct file_handle h;
		unsigned char bytes[128];
	} fh;
	char link[64], path[4096];
	ssize_t n;
	int fd = -1;

	if (!w->privileged || o->inside)
		return o->inside != 2;
	if (!w->filtering && w->n_slots < FW_FILTER_AFTER && w->n_objs < FW_FILTER_AFTER)
		return true; /* kept, not judged */
	w->filtering = true;
	o->inside = 1;
	fh.h.handle_bytes = o->fid_len - 12;
	memcpy(&fh.h.handle_type, w->arena + o->fid_off + 8, 4);
	memcpy(fh.h.f_handle, w->arena + o->fid_off + 12, fh.h.handle_bytes);
	for (size_t i = 0; i < w->n_roots && fd < 0; i++)
		fd = open_by_handle_at(w->roots[i].fd, &fh.h, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1)
		return true;
	path[n] = '\0';
	o = &w->objs[obj];
	o->inside = 2;
	for (size_t i = 0; i < w->n_roots; i++) {
		size_t l = strlen(w->roots[i].path);

		if (!strncmp(path, w->roots[i].path, l) && (path[l] == '/' || path[l] == '\0' ||
							   !strcmp(w->roots[i].path, "/")))
			o->inside = 1;
	}
	return o->inside == 1;
}

/* A rename into slot by pid: remembered until the same process's next
 * event, which says whether it replaced something. */
static void fw_recent_push(struct platform_watch *w, int32_t pid, uint32_t slot, bool first)
{
	w->recent[w->n_recent++ % 32] = (struct fw_rename){pid, slot, first};
}

static void fw_recent_forget(struct platform_watch *w, int32_t pid)
{
	for (unsigned i = 0; i < 32; i++)
		if (w->recent[i].pid == pid)
			w->recent[i].pid = 0;
}

/* A link-count change with no name right after pid's rename into a slot:
 * the object the rename replaced.  When that arrival was the slot's first
 * event, the replaced object is what was there at the start. */
static void fw_replaced(struct platform_watch *w, int32_t pid, uint32_t obj)
{
	for (unsigned k = 0; k < 32; k++) {
		struct fw_rename *r = &w->recent[(w->n_recent + 31 - k) % 32];
		struct fw_slot *s;

		if (r->pid != pid || r->pid == 0)
			continue;
		s = &w->slots[r->slot];
		if (r->first && s->first != obj) {
			s->first = obj;
			s->first_kind = FW_DEPART;
		}
		break;
	}
	fw_recent_forget(w, pid);
}

static void fw_rename(struct platform_watch *w, const struct fanotify_event_metadata *m,
		      const struct fanotify_event_info_fid *from,
		      const struct fanotify_event_info_fid *to,
		      const struct fanotify_event_info_fid *fid)
{
	uint32_t d1 = fw_event_obj(w, from), d2 = fw_event_obj(w, to), s1, s2, obj;
	bool first;

	if (d1 == FW_NONE || d2 == FW_NONE)
		return;
	if (!fw_inside(w, d1) && !fw_inside(w, d2))
		return;
	if ((obj = fw_event_obj(w, fid)) == FW_NONE)
		return;
	s1 = fw_slot_get(w, d1, fw_event_name(from), true);
	s2 = fw_slot_get(w, d2, fw_event_name(to), true);
	if (s1 == FW_NONE || s2 == FW_NONE)
		return;
	w->objs[obj].flags |= FW_MOVED | (m->mask & FAN_ONDIR ? FW_ISDIR : 0);
	fw_slot_event(w, s1, obj, FW_DEPART);
	first = w->slots[s2].first == FW_NONE;
	fw_slot_event(w, s2, obj, FW_ARRIVE);
	fw_recent_push(w, m->pid, s2, first);
}

/* Privileged: are events of other directories than the roots' dropped
 * (or about to be: fw_inside)? */
static bool fw_filtering(const struct platform_watch *w)
{
	return w->privileged && (w->filtering || w->n_slots >= FW_FILTER_AFTER ||
				 w->n_objs >= FW_FILTER_AFTER);
}

static bool fw_rename_pending(const struct platform_watch *w, int32_t pid)
{
	for (unsigned i = 0; i < 32; i++)
		if (w->recent[i].pid == pid && pid != 0)
			return true;
	return false;
}

/* An event with no name: a link count changed (link, unlink of one of
 * several names, or the object a rename replaced).  Once filtering, an
 * object not yet known waits in the limbo for the named event of the same
 * process (struct fw_limbo), unless it follows that process's rename into
 * a root (then it is the object the rename replaced). */
static void fw_nameless(struct platform_watch *w, const struct fanotify_event_metadata *m,
			const struct fanotify_event_info_fid *fid)
{
	bool add = !fw_filtering(w) || fw_rename_pending(w, m->pid);
	uint32_t obj = fw_event_obj_(w, fid, add);

	if (obj == FW_NONE && !add) {
		struct fw_limbo *l = &w->limbo[w->n_limbo++ % FW_LIMBO];

		l->len = (uint8_t)fw_event_fid(fid, l->fid);
		l->pid = l->len ? m->pid : 0;
		return;
	}
	if (obj == FW_NONE)
		return;
	w->objs[obj].flags |= FW_LINKS | (m->mask & FAN_MODIFY ? FW_TOUCHED : 0);
	if (m->mask & FAN_ATTRIB)
		fw_replaced(w, m->pid, obj);
}

/* The named event of obj by pid, its directory inside a root: a link-count
 * event of the same object held in the limbo is applied now. */
static void fw_limbo_take(struct platform_watch *w, int32_t pid, uint32_t obj)
{
	const struct fw_obj *o = &w->objs[obj];

	for (unsigned i = 0; i < FW_LIMBO; i++) {
		struct fw_limbo *l = &w->limbo[i];

		if (l->pid == pid && l->len == o->fid_len &&
		    !memcmp(l->fid, w->arena + o->fid_off, l->len)) {
			w->objs[obj].flags |= FW_LINKS;
			l->pid = 0;
		}
	}
}

/* An event naming an entry of a directory (or the directory itself, ".");
 * a merged one expanded in the order one object allows. */
static void fw_named(struct platform_watch *w, const struct fanotify_event_metadata *m,
		     const struct fanotify_event_info_fid *dfid,
		     const struct fanotify_event_info_fid *fid)
{
	const char *name = fw_event_name(dfid);
	uint32_t dir = fw_event_obj(w, dfid), s, obj;
	uint64_t k = m->mask;

	if (dir == FW_NONE || !fw_inside(w, dir))
		return;
	obj = fid ? fw_event_obj(w, fid) : FW_NONE;
	if (!strcmp(name, ".") || !name[0]) {
		if (k & FAN_ATTRIB)
			w->objs[dir].flags |= FW_DIRATTR | FW_ISDIR;
		return;
	}
	if (obj == FW_NONE) {
		fw_lose(w, "an event without the object's handle (%s)", name);
		return;
	}
	fw_limbo_take(w, m->pid, obj);
	if ((s = fw_slot_get(w, dir, name, true)) == FW_NONE)
		return;
	w->objs[obj].flags |= (k & FAN_ONDIR ? FW_ISDIR : 0) |
			      (k & (FAN_MODIFY | FAN_ATTRIB) ? FW_TOUCHED : 0) |
			      (k & FAN_CLOSE_WRITE ? FW_CLOSEW : 0);
	if (k & FAN_CREATE)
		fw_slot_event(w, s, obj, FW_ARRIVE);
	if (k & (FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE))
		fw_slot_event(w, s, obj, FW_TOUCH);
	if (k & FAN_DELETE)
		fw_slot_event(w, s, obj, FW_DEPART);
}

/* One event: m its header (copied: events are aligned to 4 bytes only, the
 * header holds a 64-bit mask), ev its bytes in the buffer. */
static void fw_event(struct platform_watch *w, const struct fanotify_event_metadata *m,
		     const char *ev)
{
	const struct fanotify_event_info_fid *dfid = NULL, *from = NULL, *to = NULL, *fid = NULL;

	if (m->mask & FAN_Q_OVERFLOW) {
		fw_lose(w, "the event queue overflowed: changes after it were not seen");
		return;
	}
	for (const char *p = ev + m->metadata_len; p + sizeof(struct fanotify_event_info_header) <=
	     ev + m->event_len;) {
		const struct fanotify_event_info_header *h = (const void *)p;

		if (h->len < sizeof(*h))
			break;
		if (h->info_type == FAN_EVENT_INFO_TYPE_DFID_NAME || h->info_type == FAN_EVENT_INFO_TYPE_DFID)
			dfid = (const void *)p;
		else if (h->info_type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME)
			from = (const void *)p;
		else if (h->info_type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME)
			to = (const void *)p;
		else if (h->info_type == FAN_EVENT_INFO_TYPE_FID)
			fid = (const void *)p;
		p += h->len;
	}
	/* the object is interned only once its directory is known inside a
	 * root (a filesystem mark sees the whole host's file system) */
	if ((m->mask & FAN_RENAME) && from && to && fid) {
		fw_rename(w, m, from, to, fid);
		return;
	}
	if (!dfid && fid) {
		fw_nameless(w, m, fid);
		return;
	}
	fw_recent_forget(w, m->pid);
	if (dfid)
		fw_named(w, m, dfid, fid);
}

void fw_drain(struct platform_watch *w)
{
	for (;;) {
		ssize_t n = read(w->fd, w->buf, sizeof(w->buf));

		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				fw_lose(w, "reading the event queue: %s", strerror(errno));
			if (n < 0 && errno == EINTR)
				continue;
			return;
		}
		for (long off = 0; off + (long)FAN_EVENT_METADATA_LEN <= n;) {
			struct fanotify_event_metadata m;

			memcpy(&m, w->buf + off, sizeof(m));
			if (m.event_len < FAN_EVENT_METADATA_LEN || off + (long)m.event_len > n)
				break;
			if (m.vers != FANOTIFY_METADATA_VERSION) {
				fw_lose(w, "fanotify metadata version %u", m.vers);
				return;
			}
			fw_event(w, &m, w->buf + off);
			off += m.event_len;
		}
	}
}
