/* namecase.c - how a volume matches names: the probe, the comparison and
 * the spellings (contract in namecase.h). */
#include "namecase.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* ---- the comparison ------------------------------------------------------ */

/* The next unit of name s under fold, as one byte: an ASCII letter in
 * lower case (NC_ASCII), a modelled non-ASCII letter as the ASCII one it
 * folds with, else the byte itself.  Advances *s. */
static unsigned char nc_unit(const char **s, unsigned fold)
{
	const unsigned char *p = (const unsigned char *)*s;

	if ((fold & NC_DOTTED_I) && p[0] == 0xC4 && (p[1] == 0xB0 || p[1] == 0xB1)) {
		*s += 2;
		return 'i';
	}
	if ((fold & NC_LONG_S) && p[0] == 0xC5 && p[1] == 0xBF) {
		*s += 2;
		return 's';
	}
	if ((fold & NC_KELVIN) && p[0] == 0xE2 && p[1] == 0x84 && p[2] == 0xAA) {
		*s += 3;
		return 'k';
	}
	*s += 1;
	if (fold & (NC_ASCII | NC_DOTTED_I | NC_LONG_S | NC_KELVIN))
		return (unsigned char)(p[0] >= 'A' && p[0] <= 'Z' ? p[0] + 32 : p[0]);
	return p[0];
}

/* The length of name without trailing dots and spaces (NC_TRAILING). */
static size_t nc_len(const char *name, unsigned fold)
{
	size_t n = strlen(name);

	if (fold & NC_TRAILING)
		while (n && (name[n - 1] == '.' || name[n - 1] == ' '))
			n--;
	return n;
}

bool namecase_equal(unsigned fold, const char *a, const char *b)
{
	const char *ea = a + nc_len(a, fold), *eb = b + nc_len(b, fold);

	if (!fold)
		return strcmp(a, b) == 0;
	while (a < ea && b < eb)
		if (nc_unit(&a, fold) != nc_unit(&b, fold))
			return false;
	return a >= ea && b >= eb;
}

/* ---- the spellings ------------------------------------------------------- */

int namecase_spellings(const char *comp, size_t max,
		       int (*fn)(void *ctx, const char *spelling), void *ctx)
{
	char buf[256];
	size_t pos[64], n = 0, len = strlen(comp);
	uint64_t count;
	int rc;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++)
		if ((comp[i] | 0x20) >= 'a' && (comp[i] | 0x20) <= 'z') {
			if (n == sizeof(pos) / sizeof(pos[0]))
				return -E2BIG;
			pos[n++] = i;
		}
	if (n >= 63 || (count = (uint64_t)1 << n) > max)
		return -E2BIG;
	/* Spelling k: letter j in upper case when bit j of k differs from
	 * comp's own case, so k = 0 is comp itself. */
	for (uint64_t k = 0; k < count; k++) {
		memcpy(buf, comp, len + 1);
		for (size_t j = 0; j < n; j++)
			if (k >> j & 1)
				buf[pos[j]] ^= 0x20;
		if ((rc = fn(ctx, buf)) != 0)
			return rc;
	}
	return 0;
}

/* ---- the decision -------------------------------------------------------- */

int namecase_check(const struct namecase *nc, const char *dir, const char *comp,
		   char *err, size_t errlen)
{
	if (!nc->fold)
		return 0;
	if (nc->fold & NC_OTHER) {
		snprintf(err, errlen, "%s: the volume folds names beyond case (fullwidth letters "
			 "equal ASCII ones): which names equal a protected one cannot be decided", dir);
		return -EOPNOTSUPP;
	}
	for (const char *p = comp; *p; p++)
		if ((unsigned char)*p >= 0x80) {
			snprintf(err, errlen, "%s/%s: not ASCII, on a volume that folds names: which "
				 "names it considers equal cannot be decided", dir, comp);
			return -EOPNOTSUPP;
		}
	if (nc->separate && (nc->fold & ~(unsigned)NC_ASCII)) {
		snprintf(err, errlen, "%s: the volume folds names beyond ASCII case and gives each "
			 "spelling its own object in the kernel: every spelling of %s cannot be covered",
			 dir, comp);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The probe's name and the variants it is looked up as, each a family. */
struct nc_variant {
	unsigned family;
	const char *from, *to; /* first occurrence of from replaced by to */
	const char *suffix;    /* appended */
};

static const struct nc_variant nc_variants[] = {
	{NC_ASCII, "sandproof-kis", "SANDPROOF-KIS", ""},
	{NC_KELVIN, "kis", "\xE2\x84\xAAis", ""},
	{NC_DOTTED_I, "kis", "k\xC4\xB1s", ""},
	{NC_DOTTED_I, "kis", "k\xC4\xB0s", ""},
	{NC_LONG_S, "kis", "ki\xC5\xBF", ""},
	{NC_TRAILING, "", "", "."},
	{NC_TRAILING, "", "", " "},
	{NC_OTHER, "kis", "\xEF\xBD\x8Bis", ""},
};
#define NC_NVARIANTS (sizeof(nc_variants) / sizeof(nc_variants[0]))

static void nc_variant(const char *name, const struct nc_variant *v, char *out, size_t len)
{
	const char *at = v->from[0] ? strstr(name, v->from) : NULL;

	if (at)
		snprintf(out, len, "%.*s%s%s%s", (int)(at - name), name, v->to,
			 at + strlen(v->from), v->suffix);
	else
		snprintf(out, len, "%s%s", name, v->suffix);
}

/* Create a probe name none of whose variants exists yet (so finding one
 * later is the volume's folding, not a file of the workspace).  The fd of
 * the probe file and its name in out, or -errno. */
static int nc_probe_create(int dfd, char *out, size_t len)
{
	static unsigned long gen;
	char v[128];
	struct stat st;

	for (int tries = 0; tries < 64; tries++) {
		size_t i;
		int fd;

		snprintf(out, len, ".sandproof-kis-%ld-%lu", (long)getpid(), gen++);
		for (i = 0; i < NC_NVARIANTS; i++) {
			nc_variant(out, &nc_variants[i], v, sizeof(v));
			if (fstatat(dfd, v, &st, AT_SYMLINK_NOFOLLOW) == 0)
				break;
		}
		if (i < NC_NVARIANTS || fstatat(dfd, out, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		fd = openat(dfd, out, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Probe the directory dfd: which families its volume folds. */
static int nc_probe_dir(int dfd, bool fuse, struct namecase *nc)
{
	char name[96], v[128];
	struct stat a, b;
	int fd, rc = 0;

	fd = nc_probe_create(dfd, name, sizeof(name));
	if (fd < 0)
		return fd;
	if (fstat(fd, &a) < 0)
		rc = -errno;
	close(fd);
	for (size_t i = 0; rc == 0 && i < NC_NVARIANTS; i++) {
		nc_variant(name, &nc_variants[i], v, sizeof(v));
		if (fstatat(dfd, v, &b, AT_SYMLINK_NOFOLLOW) == 0) {
			nc->fold |= nc_variants[i].family;
			if (b.st_ino != a.st_ino || b.st_dev != a.st_dev)
				nc->separate = true;
		} else if (errno != ENOENT) {
			rc = -errno;
		}
	}
	/* FUSE: the daemon gives the inode numbers; the kernel object of each
	 * spelling is its own whatever they say. */
	if (fuse && nc->fold)
		nc->separate = true;
	if (unlinkat(dfd, name, 0) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* The casefold flag of the directory dfd: 1 set, 0 clear or not a flag
 * this file system has, -errno when it cannot be read. */
static int nc_casefold_flag(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0, rc;

	if (fd < 0)
		return -errno;
	rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	if (rc < 0)
		rc = errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP ? 0 : -errno;
	else
		rc = (flags & FS_CASEFOLD_FL) != 0;
	close(fd);
	return rc;
}

static struct namecase *nc_cached(struct namecase_cache *c, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].dev == dev && c->v[i].ino == ino)
			return &c->v[i].nc;
	return NULL;
}

int namecase_probe(struct namecase_cache *c, int dfd, const char *path,
		   struct namecase *out, char *err, size_t errlen)
{
	struct namecase nc = {0}, *hit;
	struct statfs sf;
	struct stat st;
	bool per_dir;
	int rc = 0;

	if (fstatfs(dfd, &sf) < 0 || fstat(dfd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	per_dir = sf.f_type == EXT4_SUPER_MAGIC || sf.f_type == F2FS_SUPER_MAGIC ||
		  sf.f_type == TMPFS_MAGIC;
	if ((hit = nc_cached(c, st.st_dev, per_dir ? st.st_ino : 0))) {
		*out = *hit;
		return 0;
	}
	if (sf.f_type == BTRFS_SUPER_MAGIC || sf.f_type == OVERLAYFS_SUPER_MAGIC ||
	    sf.f_type == SQUASHFS_MAGIC || sf.f_type == EROFS_SUPER_MAGIC_V1)
		rc = 0;
	else if (!per_dir || (rc = nc_casefold_flag(dfd)) != 0)
		rc = nc_probe_dir(dfd, sf.f_type == FUSE_SUPER_MAGIC, &nc);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot tell how the volume matches names (a probe "
			 "file could not be made and removed: %s)", path, strerror(-rc));
		return rc;
	}
	if (c->n < NAMECASE_CACHE) {
		c->v[c->n].dev = st.st_dev;
		c->v[c->n].ino = per_dir ? st.st_ino : 0;
		c->v[c->n++].nc = nc;
	}
	c->folded |= nc.fold != 0;
	*out = nc;
	return 0;
}

/* ---- an existing name's variants ----------------------------------------- */

/* comp with its first byte among from replaced by the UTF-8 to, into out;
 * false when comp has none. */
static bool nc_subst(const char *comp, const char *from, const char *to, char *out, size_t len)
{
	size_t at = strcspn(comp, from);

	if (!comp[at])
		return false;
	snprintf(out, len, "%.*s%s%s", (int)at, comp, to, comp + at + 1);
	return true;
}

/* The first ASCII letter of comp as its fullwidth form (U+FF21.., U+FF41..). */
static bool nc_fullwidth(const char *comp, char *out, size_t len)
{
	static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	size_t at = strcspn(comp, letters);
	char fw[4];
	unsigned cp;

	if (!comp[at])
		return false;
	cp = comp[at] <= 'Z' ? 0xFF21u + (unsigned)(comp[at] - 'A') : 0xFF41u + (unsigned)(comp[at] - 'a');
	fw[0] = (char)(0xE0 | (cp >> 12));
	fw[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	fw[2] = (char)(0x80 | (cp & 0x3F));
	fw[3] = '\0';
	snprintf(out, len, "%.*s%s%s", (int)at, comp, fw, comp + at + 1);
	return true;
}

/* Whether the variant v of comp (family fam) names something in dfd. */
static int nc_found(int dfd, const char *v, unsigned fam, struct namecase *nc)
{
	struct stat st;

	if (fstatat(dfd, v, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		nc->fold |= fam;
		return 0;
	}
	return errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG || errno == EILSEQ ||
	       errno == EINVAL ? 0 : -errno;
}

int namecase_probe_name(struct namecase_cache *c, int dfd, const char *dir,
			const char *comp, struct namecase *out, char *err, size_t errlen)
{
	char v[512];
	struct statfs sf;
	size_t n = strlen(comp);
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (fstatfs(dfd, &sf) < 0 || n + 8 > sizeof(v)) {
		rc = n + 8 > sizeof(v) ? -ENAMETOOLONG : -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	if (sf.f_type != FUSE_SUPER_MAGIC)
		return 0;
	memcpy(v, comp, n + 1);
	for (size_t i = 0; i < n; i++)
		if ((v[i] | 0x20) >= 'a' && (v[i] | 0x20) <= 'z')
			v[i] ^= 0x20;
	if (strcmp(v, comp) != 0)
		rc = nc_found(dfd, v, NC_ASCII, out);
	snprintf(v, sizeof(v), "%s.", comp);
	if (rc == 0)
		rc = nc_found(dfd, v, NC_TRAILING, out);
	snprintf(v, sizeof(v), "%s ", comp);
	if (rc == 0)
		rc = nc_found(dfd, v, NC_TRAILING, out);
	if (rc == 0 && nc_subst(comp, "iI", "\xC4\xB1", v, sizeof(v)))
		rc = nc_found(dfd, v, NC_DOTTED_I, out);
	if (rc == 0 && nc_subst(comp, "iI", "\xC4\xB0", v, sizeof(v)))
		rc = nc_found(dfd, v, NC_DOTTED_I, out);
	if (rc == 0 && nc_subst(comp, "sS", "\xC5\xBF", v, sizeof(v)))
		rc = nc_found(dfd, v, NC_LONG_S, out);
	if (rc == 0 && nc_subst(comp, "kK", "\xE2\x84\xAA", v, sizeof(v)))
		rc = nc_found(dfd, v, NC_KELVIN, out);
	if (rc == 0 && nc_fullwidth(comp, v, sizeof(v)))
		rc = nc_found(dfd, v, NC_OTHER, out);
	if (rc < 0) {
		snprintf(err, errlen, "%s/%s: cannot tell how the volume matches names: %s",
			 dir, comp, strerror(-rc));
		return rc;
	}
	out->separate = out->fold != 0;
	c->folded |= out->fold != 0;
	return 0;
}

