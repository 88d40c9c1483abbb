/* reparse.c - reparse.h: REPARSE_DATA_BUFFER bytes, portable C.
 * Security: the decoder reads buffers a file system returned, which anyone
 * who can write a reparse point chose; every read is bounded by the
 * checked ReparseDataLength, itself bounded by n. */
#include "reparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

#define MP_FIXED 8u  /* mount point: four u16 before PathBuffer */
#define SL_FIXED 12u /* symlink: four u16 and the u32 Flags */

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffffu);
	put16(p + 2, v >> 16);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | get16(p + 2) << 16;
}

/* UTF-16 units s needs, or -EINVAL when s is not valid UTF-8. */
static long utf16_units(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	long units = 0;
	uint32_t cp;

	for (size_t i = 0; i < n;) {
		size_t l = utf8_len(p + i, n - i, &cp);

		if (l == 0)
			return -EINVAL;
		units += cp >= 0x10000 ? 2 : 1;
		i += l;
	}
	return units;
}

/* Write s (valid UTF-8) as UTF-16LE at out, then a NUL unit; returns the
 * bytes written for s alone. */
static size_t utf16_put(const char *s, uint8_t *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	uint32_t cp;

	for (size_t i = 0; i < n;) {
		i += utf8_len(p + i, n - i, &cp);
		if (cp >= 0x10000) {
			cp -= 0x10000;
			put16(out + o, 0xd800u | cp >> 10);
			put16(out + o + 2, 0xdc00u | (cp & 0x3ffu));
			o += 4;
		} else {
			put16(out + o, cp);
			o += 2;
		}
	}
	put16(out + o, 0);
	return o;
}

static bool name_char_ok(unsigned char c)
{
	return c >= 0x20 && !strchr("<>:\"|?*/", c);
}

/* The names of s (separated by single '\'): each non-empty, of allowed
 * characters; "." and ".." refused unless dots_ok. */
static bool names_ok(const char *s, bool dots_ok)
{
	const char *p = s;

	for (;;) {
		size_t l = strcspn(p, "\\");

		if (l == 0)
			return false;
		for (size_t i = 0; i < l; i++)
			if (!name_char_ok((unsigned char)p[i]))
				return false;
		if (!dots_ok && ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.')))
			return false;
		if (!p[l])
			return true;
		p += l + 1;
	}
}

static bool dos_abs_ok(const char *t)
{
	bool letter = (t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z');

	if (!letter || t[1] != ':' || t[2] != '\\')
		return false;
	return t[3] == '\0' || names_ok(t + 3, false);
}

static bool relative_ok(const char *t)
{
	if (!t[0] || t[0] == '\\' || (t[0] && t[1] == ':'))
		return false;
	return names_ok(t, true);
}

/* Lay out header, name fields and PathBuffer: sub then NUL, print then
 * NUL.  fixed is MP_FIXED or SL_FIXED. */
static int encode(uint32_t tag, uint32_t flags, const char *sub_pfx, const char *name,
		  uint8_t *buf, size_t cap, size_t *len)
{
	long nu = utf16_units(name);
	size_t fixed = tag == REPARSE_TAG_SYMLINK ? SL_FIXED : MP_FIXED, pfx = strlen(sub_pfx);
	size_t sub_b, print_b, total;

	if (nu < 0)
		return -EINVAL;
	sub_b = (pfx + (size_t)nu) * 2;
	print_b = (size_t)nu * 2;
	total = REPARSE_HEADER_SIZE + fixed + sub_b + 2 + print_b + 2;
	*len = total;
	if (total > REPARSE_MAX_SIZE)
		return -ENAMETOOLONG;
	if (!buf || cap < total)
		return -ENOSPC;
	memset(buf, 0, total);
	put32(buf, tag);
	put16(buf + 4, (uint32_t)(total - REPARSE_HEADER_SIZE));
	put16(buf + 8, 0);
	put16(buf + 10, (uint32_t)sub_b);
	put16(buf + 12, (uint32_t)(sub_b + 2));
	put16(buf + 14, (uint32_t)print_b);
	if (tag == REPARSE_TAG_SYMLINK)
		put32(buf + 16, flags);
	uint8_t *pb = buf + REPARSE_HEADER_SIZE + fixed;
	for (size_t i = 0; i < pfx; i++)
		put16(pb + 2 * i, (unsigned char)sub_pfx[i]);
	utf16_put(name, pb + 2 * pfx);
	utf16_put(name, pb + sub_b + 2);
	return 0;
}

int reparse_encode_junction(const char *target, uint8_t *buf, size_t cap, size_t *len)
{
	size_t dummy;

	if (!len)
		len = &dummy;
	*len = 0;
	if (!target || !dos_abs_ok(target))
		return -EINVAL;
	return encode(REPARSE_TAG_MOUNT_POINT, 0, "\\??\\", target, buf, cap, len);
}

int reparse_encode_symlink(const char *target, bool relative, uint8_t *buf, size_t cap,
			   size_t *len)
{
	size_t dummy;

	if (!len)
		len = &dummy;
	*len = 0;
	if (!target || !(relative ? relative_ok(target) : dos_abs_ok(target)))
		return -EINVAL;
	return encode(REPARSE_TAG_SYMLINK, relative ? REPARSE_SYMLINK_RELATIVE : 0,
		      relative ? "" : "\\??\\", target, buf, cap, len);
}

int reparse_tag(const uint8_t *buf, size_t n, uint32_t *tag)
{
	if (!buf || !tag || n < REPARSE_HEADER_SIZE)
		return -EINVAL;
	*tag = get32(buf);
	return 0;
}

/* The UTF-16LE name of `bytes` bytes at p (bounds already checked) as a
 * new UTF-8 string, or NULL with *err set. */
static char *name_utf8(const uint8_t *p, size_t bytes, int *err)
{
	char *out = malloc(bytes / 2 * 3 + 1), *o = out;

	if (!out) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < bytes; i += 2) {
		uint32_t u = get16(p + i), cp = u;

		if (u == 0 || (u >= 0xdc00 && u <= 0xdfff))
			goto bad;
		if (u >= 0xd800 && u <= 0xdbff) {
			uint32_t lo = i + 4 <= bytes ? get16(p + i + 2) : 0;

			if (lo < 0xdc00 || lo > 0xdfff)
				goto bad;
			cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			i += 2;
		}
		if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xc0 | cp >> 6);
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xe0 | cp >> 12);
			*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*o++ = (char)(0xf0 | cp >> 18);
			*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
			*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	*o = '\0';
	return out;
bad:
	free(out);
	*err = -EINVAL;
	return NULL;
}

/* One name: offset and length (bytes) at field f, inside a PathBuffer of
 * pb_len bytes at pb. */
static char *name_at(const uint8_t *f, const uint8_t *pb, size_t pb_len, int *err)
{
	size_t off = get16(f), len = get16(f + 2);

	if ((off | len) & 1 || off > pb_len || len > pb_len - off) {
		*err = -EINVAL;
		return NULL;
	}
	return name_utf8(pb + off, len, err);
}

int reparse_decode(const uint8_t *buf, size_t n, struct reparse_link *out)
{
	uint32_t tag;
	size_t data_len, fixed;
	int err = 0;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (reparse_tag(buf, n, &tag) < 0)
		return -EINVAL;
	if (tag != REPARSE_TAG_MOUNT_POINT && tag != REPARSE_TAG_SYMLINK)
		return -EINVAL;
	fixed = tag == REPARSE_TAG_SYMLINK ? SL_FIXED : MP_FIXED;
	data_len = get16(buf + 4);
	if (get16(buf + 6) != 0 || data_len > n - REPARSE_HEADER_SIZE || data_len < fixed)
		return -EINVAL;
	const uint8_t *f = buf + REPARSE_HEADER_SIZE, *pb = f + fixed;
	size_t pb_len = data_len - fixed;

	out->tag = tag;
	out->flags = tag == REPARSE_TAG_SYMLINK ? get32(f + 8) : 0;
	out->substitute = name_at(f, pb, pb_len, &err);
	if (out->substitute)
		out->print = name_at(f + 4, pb, pb_len, &err);
	if (out->print && !out->substitute[0])
		err = -EINVAL; /* a link to nothing: corrupt */
	if (err) {
		reparse_link_free(out);
		return err;
	}
	return 0;
}

void reparse_link_free(struct reparse_link *l)
{
	if (!l)
		return;
	free(l->substitute);
	free(l->print);
	memset(l, 0, sizeof(*l));
}

const char *reparse_nt_to_dos(const char *sub)
{
	if (!sub || strncmp(sub, "\\??\\", 4) != 0)
		return NULL;
	sub += 4;
	return dos_abs_ok(sub) ? sub : NULL;
}
