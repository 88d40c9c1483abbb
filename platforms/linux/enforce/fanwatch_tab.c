/* fanwatch_tab.c - the change watch's tables (fanwatch.h): handles,
 * names and slots interned in one arena.
 * Every table is bounded; reaching a bound loses the watch's completeness
 * (w->lost), never memory beyond the bound. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanwatch.h"

#define FW_HASH 32768u

/* FNV-1a: a key, not a boundary (keys are compared in full). */
static uint32_t fw_hash(const void *p, size_t n, uint32_t seed)
{
	const unsigned char *b = p;
	uint32_t h = 2166136261u ^ seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

void fw_lose(struct platform_watch *w, const char *fmt, ...)
{
	va_list ap;

	if (w->lost)
		return;
	w->lost = true;
	va_start(ap, fmt);
	vsnprintf(w->lost_why, sizeof(w->lost_why), fmt, ap);
	va_end(ap);
}

int fw_tab_init(struct platform_watch *w)
{
	w->ohash = malloc(FW_HASH * sizeof(*w->ohash));
	w->shash = malloc(FW_HASH * sizeof(*w->shash));
	if (!w->ohash || !w->shash)
		return -ENOMEM;
	memset(w->ohash, 0xff, FW_HASH * sizeof(*w->ohash));
	memset(w->shash, 0xff, FW_HASH * sizeof(*w->shash));
	return 0;
}

void fw_tab_free(struct platform_watch *w)
{
	free(w->objs);
	free(w->slots);
	free(w->dirs);
	free(w->t0);
	free(w->ohash);
	free(w->shash);
	free(w->arena);
}

/* Room for n more elements of size sz in *v (cap *cap, bound max). */
static bool fw_grow(void **v, uint32_t *cap, uint32_t n, uint32_t need, size_t sz, uint32_t max)
{
	uint32_t c = *cap ? *cap : 1024;
	void *p;

	if (need > max - n)
		return false;
	if (n + need <= *cap)
		return true;
	while (c < n + need)
		c = c > max / 2 ? max : c * 2;
	p = realloc(*v, (size_t)c * sz);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

static uint32_t fw_arena_put(struct platform_watch *w, const void *p, uint32_t len)
{
	uint32_t off = w->arena_len;

	if (!fw_grow((void **)&w->arena, &w->arena_cap, w->arena_len, len, 1, FW_ARENA_MAX)) {
		fw_lose(w, "the watch's bound of %u bytes of handles and names was reached",
			FW_ARENA_MAX);
		return FW_NONE;
	}
	memcpy(w->arena + off, p, len);
	w->arena_len += len;
	return off;
}

uint32_t fw_obj_get(struct platform_watch *w, const void *fid, uint32_t len, bool add)
{
	uint32_t b = fw_hash(fid, len, 0) % FW_HASH, i, off;

	for (i = w->ohash[b]; i != FW_NONE; i = w->objs[i].hnext)
		if (w->objs[i].fid_len == len && !memcmp(w->arena + w->objs[i].fid_off, fid, len))
			return i;
	if (!add || len > FW_FID_MAX)
		return FW_NONE;
	if (!fw_grow((void **)&w->objs, &w->cap_objs, w->n_objs, 1, sizeof(*w->objs), FW_OBJS_MAX)) {
		fw_lose(w, "the watch's bound of %u objects was reached", FW_OBJS_MAX);
		return FW_NONE;
	}
	if ((off = fw_arena_put(w, fid, len)) == FW_NONE)
		return FW_NONE;
	i = w->n_objs++;
	w->objs[i] = (struct fw_obj){.fid_off = off, .fid_len = (uint8_t)len, .hnext = w->ohash[b],
				     .dir = FW_NONE};
	w->ohash[b] = i;
	return i;
}

uint32_t fw_name_add(struct platform_watch *w, const char *name)
{
	return fw_arena_put(w, name, (uint32_t)strlen(name) + 1);
}

uint32_t fw_slot_get(struct platform_watch *w, uint32_t dir, const char *name, bool add)
{
	uint32_t b = fw_hash(name, strlen(name), dir) % FW_HASH, i, off;

	for (i = w->shash[b]; i != FW_NONE; i = w->slots[i].hnext)
		if (w->slots[i].dir == dir && !strcmp(w->arena + w->slots[i].name_off, name))
			return i;
	if (!add)
		return FW_NONE;
	if (!fw_grow((void **)&w->slots, &w->cap_slots, w->n_slots, 1, sizeof(*w->slots),
		     FW_SLOTS_MAX)) {
		fw_lose(w, "the watch's bound of %u names was reached", FW_SLOTS_MAX);
		return FW_NONE;
	}
	if ((off = fw_name_add(w, name)) == FW_NONE)
		return FW_NONE;
	i = w->n_slots++;
	w->slots[i] = (struct fw_slot){.dir = dir, .name_off = off, .first = FW_NONE,
				       .hnext = w->shash[b], .dnext = FW_NONE};
	w->shash[b] = i;
	return i;
}

void fw_slot_event(struct platform_watch *w, uint32_t slot, uint32_t obj, enum fw_kind kind)
{
	struct fw_slot *s = &w->slots[slot];

	if (s->first == FW_NONE) {
		s->first = obj;
		s->first_kind = (uint8_t)kind;
	}
	if (kind == FW_ARRIVE)
		s->arrived = 1;
}

uint32_t fw_dir_of(struct platform_watch *w, uint32_t obj)
{
	uint32_t i;

	if (w->objs[obj].dir != FW_NONE)
		return w->objs[obj].dir;
	if (!fw_grow((void **)&w->dirs, &w->cap_dirs, w->n_dirs, 1, sizeof(*w->dirs), FW_DIRS_MAX + 1)) {
		fw_lose(w, "the watch's bound of %u directories was reached", FW_DIRS_MAX);
		return FW_NONE;
	}
	i = w->n_dirs++;
	w->dirs[i] = (struct fw_dir){.slots = FW_NONE, .parent = FW_NONE, .t0ent = FW_NONE};
	w->objs[obj].dir = i;
	return i;
}

uint32_t fw_t0_add(struct platform_watch *w, const char *name, uint64_t ino, uint8_t dtype)
{
	uint32_t off, i;

	if (!fw_grow((void **)&w->t0, &w->cap_t0, w->n_t0, 1, sizeof(*w->t0), FW_T0_MAX)) {
		fw_lose(w, "the watch's bound of %u listed entries was reached", FW_T0_MAX);
		return FW_NONE;
	}
	if ((off = fw_name_add(w, name)) == FW_NONE)
		return FW_NONE;
	i = w->n_t0++;
	w->t0[i] = (struct fw_t0ent){.name_off = off, .child = FW_NONE, .dtype = dtype, .ino = ino};
	return i;
}
