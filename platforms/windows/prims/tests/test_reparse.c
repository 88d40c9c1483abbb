/* test_reparse.c - reparse.h: golden bytes (checked by hand against the
 * REPARSE_DATA_BUFFER layout, each field commented), decoding of buffers
 * laid out other ways, every refusal, and properties over generated paths:
 * encode -> decode round trips, every truncation and corrupted field
 * refused with -EINVAL, random mutations decoded safely or refused. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reparse.h"
#include "t.h"
#include "utf8.h"

/* Junction to C:\x.  Substitute "\??\C:\x" (8 units, 16 bytes) at 0, its
 * NUL at 16, print "C:\x" (4 units, 8 bytes) at 18, its NUL at 26:
 * PathBuffer 28 bytes, ReparseDataLength 8 + 28 = 36 (0x24), total 44. */
static const uint8_t golden_jct[] = {
	0x03, 0x00, 0x00, 0xa0,  /* IO_REPARSE_TAG_MOUNT_POINT */
	0x24, 0x00, 0x00, 0x00,  /* ReparseDataLength 36, Reserved 0 */
	0x00, 0x00, 0x10, 0x00,  /* SubstituteNameOffset 0, Length 16 */
	0x12, 0x00, 0x08, 0x00,  /* PrintNameOffset 18, Length 8 */
	'\\', 0, '?', 0, '?', 0, '\\', 0, 'C', 0, ':', 0, '\\', 0, 'x', 0,
	0x00, 0x00,
	'C', 0, ':', 0, '\\', 0, 'x', 0,
	0x00, 0x00,
};

/* Junction to D:\é😀 (U+00E9, U+1F600 = D83D DE00).  Substitute
 * "\??\D:\é😀" 10 units (20 bytes) at 0, NUL at 20; print 6 units (12
 * bytes) at 22, NUL at 34: PathBuffer 36, ReparseDataLength 44 (0x2c). */
static const uint8_t golden_jct_utf[] = {
	0x03, 0x00, 0x00, 0xa0, 0x2c, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x14, 0x00, 0x16, 0x00, 0x0c, 0x00,
	'\\', 0, '?', 0, '?', 0, '\\', 0, 'D', 0, ':', 0, '\\', 0,
	0xe9, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0x00,
	'D', 0, ':', 0, '\\', 0, 0xe9, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0x00,
};

/* Relative symlink "..\a": substitute and print both "..\a" (8 bytes),
 * at 0 and 10; Flags SYMLINK_FLAG_RELATIVE; PathBuffer 20, ReparseDataLength
 * 12 + 20 = 32 (0x20), total 40. */
static const uint8_t golden_rel[] = {
	0x0c, 0x00, 0x00, 0xa0,  /* IO_REPARSE_TAG_SYMLINK */
	0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x08, 0x00,
	0x01, 0x00, 0x00, 0x00,  /* Flags: relative */
	'.', 0, '.', 0, '\\', 0, 'a', 0, 0x00, 0x00,
	'.', 0, '.', 0, '\\', 0, 'a', 0, 0x00, 0x00,
};

/* A junction laid out the other way round, print name first, and no NULs
 * (allowed: the lengths say where names end).  Print "C:\y" at 0 (8
 * bytes), substitute "\??\C:\y" at 8 (16 bytes): ReparseDataLength 32. */
static const uint8_t swapped_jct[] = {
	0x03, 0x00, 0x00, 0xa0, 0x20, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x10, 0x00, 0x00, 0x00, 0x08, 0x00,
	'C', 0, ':', 0, '\\', 0, 'y', 0,
	'\\', 0, '?', 0, '?', 0, '\\', 0, 'C', 0, ':', 0, '\\', 0, 'y', 0,
};

static uint8_t buf[REPARSE_MAX_SIZE + 64];

static int check_bytes(const char *what, const uint8_t *want, size_t want_n, int rc, size_t n)
{
	int same = rc == 0 && n == want_n && memcmp(buf, want, n) == 0;

	if (!same && rc == 0)
		for (size_t i = 0; i < n && i < want_n; i++)
			if (buf[i] != want[i]) {
				printf("# %s: byte %zu is %02x, want %02x\n", what, i, buf[i], want[i]);
				break;
			}
	return t_ok(same, "%s: golden bytes (rc %d, %zu bytes, want %zu)", what, rc, n, want_n);
}

static void test_golden(void)
{
	struct reparse_link l;
	size_t n = 0;
	int rc;

	rc = reparse_encode_junction("C:\\x", buf, sizeof(buf), &n);
	check_bytes("junction C:\\x", golden_jct, sizeof(golden_jct), rc, n);
	rc = reparse_encode_junction("D:\\\xc3\xa9\xf0\x9f\x98\x80", buf, sizeof(buf), &n);
	check_bytes("junction D:\\e-acute U+1F600", golden_jct_utf, sizeof(golden_jct_utf), rc, n);
	rc = reparse_encode_symlink("..\\a", true, buf, sizeof(buf), &n);
	check_bytes("relative symlink ..\\a", golden_rel, sizeof(golden_rel), rc, n);

	rc = reparse_decode(golden_jct, sizeof(golden_jct), &l);
	t_ok(rc == 0 && l.tag == REPARSE_TAG_MOUNT_POINT && l.flags == 0 &&
	     strcmp(l.substitute, "\\??\\C:\\x") == 0 && strcmp(l.print, "C:\\x") == 0 &&
	     strcmp(reparse_nt_to_dos(l.substitute), "C:\\x") == 0,
	     "decode golden junction: tag, substitute, print, DOS form (rc %d)", rc);
	reparse_link_free(&l);
	rc = reparse_decode(golden_jct_utf, sizeof(golden_jct_utf), &l);
	t_ok(rc == 0 && strcmp(l.print, "D:\\\xc3\xa9\xf0\x9f\x98\x80") == 0,
	     "decode golden junction with a surrogate pair back to UTF-8 (rc %d)", rc);
	reparse_link_free(&l);
	rc = reparse_decode(golden_rel, sizeof(golden_rel), &l);
	t_ok(rc == 0 && l.tag == REPARSE_TAG_SYMLINK && l.flags == REPARSE_SYMLINK_RELATIVE &&
	     strcmp(l.substitute, "..\\a") == 0 && strcmp(l.print, "..\\a") == 0 &&
	     !reparse_nt_to_dos(l.substitute),
	     "decode golden relative symlink: flag, names, no DOS form (rc %d)", rc);
	reparse_link_free(&l);
	rc = reparse_decode(swapped_jct, sizeof(swapped_jct), &l);
	t_ok(rc == 0 && strcmp(l.substitute, "\\??\\C:\\y") == 0 && strcmp(l.print, "C:\\y") == 0,
	     "decode a junction with the print name first and no NULs: offsets followed (rc %d)",
	     rc);
	reparse_link_free(&l);
}

static void test_absolute_symlink(void)
{
	struct reparse_link l;
	size_t n = 0;
	int rc = reparse_encode_symlink("E:\\t\\u", false, buf, sizeof(buf), &n);

	/* 12 fixed + ("\??\E:\t\u" 10 units + NUL + "E:\t\u" 6 units + NUL) * 2 */
	t_ok(rc == 0 && n == 8 + 12 + (10 + 1 + 6 + 1) * 2 && buf[0] == 0x0c && buf[3] == 0xa0 &&
	     buf[16] == 0 && buf[17] == 0 && buf[18] == 0 && buf[19] == 0,
	     "absolute symlink: size, tag, Flags 0 (rc %d, %zu bytes)", rc, n);
	rc = reparse_decode(buf, n, &l);
	t_ok(rc == 0 && l.flags == 0 && strcmp(reparse_nt_to_dos(l.substitute), "E:\\t\\u") == 0,
	     "absolute symlink round trip (rc %d)", rc);
	reparse_link_free(&l);
}

static void test_encode_refusals(void)
{
	static const char *const bad[] = {
		"", "C:", "C:x", "c", "C:\\a\\", "C:\\a\\\\b", "C:\\a\\..\\b", "C:\\.", "C:\\..",
		"C:/a", "C:\\a/b", "\\\\srv\\share", "\\??\\C:\\a", "1:\\a", "C:\\a:b",
		"C:\\a*", "C:\\a?", "C:\\a<", "C:\\a|b", "C:\\a\"", "C:\\a\x01", "C:\\a\tb",
		"C:\\\xff", "C:\\\xc3", "C:\\\xed\xa0\x80", "C:\\\xc0\xaf",
	};
	static const char *const bad_rel[] = {"", "\\a", "C:a", "C:\\a", "a\\\\b", "a\\", "a/b"};
	size_t n = 1;
	int fails = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int a = reparse_encode_junction(bad[i], buf, sizeof(buf), &n);
		int b = reparse_encode_symlink(bad[i], false, buf, sizeof(buf), &n);

		if (a != -EINVAL || b != -EINVAL) {
			printf("# accepted or misjudged: \"%s\": %d %d\n", bad[i], a, b);
			fails++;
		}
	}
	for (size_t i = 0; i < sizeof(bad_rel) / sizeof(bad_rel[0]); i++)
		if (reparse_encode_symlink(bad_rel[i], true, buf, sizeof(buf), &n) != -EINVAL) {
			printf("# relative accepted: \"%s\"\n", bad_rel[i]);
			fails++;
		}
	t_ok(fails == 0, "bad targets refused with -EINVAL (%zu absolute, %zu relative)",
	     sizeof(bad) / sizeof(bad[0]), sizeof(bad_rel) / sizeof(bad_rel[0]));
	t_ok(reparse_encode_junction(NULL, buf, sizeof(buf), &n) == -EINVAL &&
	     reparse_decode(NULL, 8, NULL) == -EINVAL, "NULL refused");
	t_ok(reparse_encode_junction("C:\\", buf, sizeof(buf), &n) == 0 && n == 8 + 8 + (7 + 1 + 3 + 1) * 2 &&
	     reparse_encode_symlink("a\\..\\b", true, buf, sizeof(buf), &n) == 0,
	     "the drive root and a relative \"..\" accepted");

	int rc = reparse_encode_junction("C:\\x", buf, 43, &n);
	t_ok(rc == -ENOSPC && n == 44, "a buffer one byte short: -ENOSPC, the size needed said "
	     "(rc %d, %zu)", rc, n);

	/* 8190 names of one char: substitute 4 + 3 + 16379 units > 16 KiB. */
	static char longp[3 + 2 * 8190];
	memcpy(longp, "C:\\", 3);
	for (size_t i = 0; i < 8190; i++)
		memcpy(longp + 3 + 2 * i, "a\\", 2);
	longp[sizeof(longp) - 1] = '\0'; /* the last '\' */
	rc = reparse_encode_junction(longp, buf, sizeof(buf), &n);
	t_ok(rc == -ENAMETOOLONG && n > REPARSE_MAX_SIZE,
	     "a target over 16 KiB of buffer: -ENAMETOOLONG (rc %d, %zu)", rc, n);
}

/* Every field of a valid buffer broken in turn, every truncation. */
static void test_decode_refusals(void)
{
	struct reparse_link l;
	uint8_t b[sizeof(golden_jct)];
	int fails = 0;
	static const struct { size_t at; uint8_t v; const char *what; } breaks[] = {
		{0, 0x04, "another tag"},
		{6, 0x01, "Reserved not 0"},
		{4, 0x25, "ReparseDataLength past n"},
		{4, 0x07, "ReparseDataLength under the fixed part"},
		{8, 0x01, "odd substitute offset"},
		{10, 0x11, "odd substitute length"},
		{12, 0x13, "odd print offset"},
		{14, 0x09, "odd print length"},
		{10, 0x1e, "substitute past PathBuffer"},
		{13, 0xff, "print offset far past"},
		{14, 0x0a, "print length over its NUL (embedded NUL)"},
		{10, 0x12, "substitute length over its NUL"},
		{10, 0x00, "empty substitute"},
		{17, 0xd8, "a high surrogate followed by no low one"},
		{9, 0x00, "(control: offset 0 rewritten as 0 is fine)"},
	};

	for (size_t i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		int want = breaks[i].what[0] == '(' ? 0 : -EINVAL, rc;

		memcpy(b, golden_jct, sizeof(b));
		b[breaks[i].at] = breaks[i].v;
		rc = reparse_decode(b, sizeof(b), &l);
		if (rc != want || (rc < 0 && (l.substitute || l.print))) {
			printf("# %s: rc %d, want %d\n", breaks[i].what, rc, want);
			fails++;
		}
		reparse_link_free(&l);
	}
	t_ok(fails == 0, "%zu corrupted fields refused with -EINVAL, nothing returned",
	     sizeof(breaks) / sizeof(breaks[0]) - 1);

	memcpy(b, golden_jct, sizeof(b));
	b[16] = 0x00; /* low surrogate first: '\' -> U+DC00 */
	b[17] = 0xdc;
	t_ok(reparse_decode(b, sizeof(b), &l) == -EINVAL, "a lone low surrogate refused");
	memcpy(b, golden_rel, sizeof(golden_rel));
	b[4] = 0x0b; /* a symlink's ReparseDataLength under its 12 fixed bytes */
	t_ok(reparse_decode(b, sizeof(golden_rel), &l) == -EINVAL,
	     "a symlink without room for its Flags refused");

	fails = 0;
	for (size_t n = 0; n < sizeof(golden_jct); n++)
		if (reparse_decode(golden_jct, n, &l) != -EINVAL) {
			printf("# truncated to %zu accepted\n", n);
			fails++;
		}
	for (size_t n = 0; n < sizeof(golden_rel); n++)
		fails += reparse_decode(golden_rel, n, &l) != -EINVAL;
	t_ok(fails == 0, "every truncation of both golden buffers refused with -EINVAL");
}

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

/* A random valid DOS path: a drive, 0..6 names from an alphabet with
 * multi-byte and astral characters, spaces and dots inside names. */
static void gen_path(char *p, size_t cap)
{
	static const char *const pieces[] = {"a", "Z", "0", "-", "_", " x", "a.b", "\xc3\xa9",
		"\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe4\xb8\xad", "~1", "$", "x y", "..."};
	size_t o = (size_t)snprintf(p, cap, "%c:\\", 'A' + (int)rnd(26));
	int names = (int)rnd(7);

	for (int i = 0; i < names; i++) {
		int k = 1 + (int)rnd(4);

		if (i)
			p[o++] = '\\';
		for (int j = 0; j < k; j++)
			o += (size_t)snprintf(p + o, cap - o, "%s", pieces[rnd(15)]);
	}
	p[o] = '\0';
}

static int round_trip_one(const char *path)
{
	struct reparse_link l;
	size_t n = 0, m = 0;
	char sub[1200];
	int ok;

	if (reparse_encode_junction(path, buf, sizeof(buf), &n) != 0 ||
	    reparse_decode(buf, n, &l) != 0)
		return 0;
	snprintf(sub, sizeof(sub), "\\??\\%s", path);
	ok = l.tag == REPARSE_TAG_MOUNT_POINT && strcmp(l.substitute, sub) == 0 &&
	     strcmp(l.print, path) == 0 && strcmp(reparse_nt_to_dos(l.substitute), path) == 0;
	reparse_link_free(&l);
	/* Truncated anywhere, or ReparseDataLength one more: refused. */
	m = rnd((uint32_t)n);
	ok = ok && reparse_decode(buf, m, &l) == -EINVAL;
	buf[4]++;
	ok = ok && reparse_decode(buf, n, &l) == -EINVAL;
	buf[4]--;
	/* Reading ReparseDataLength, not n: trailing bytes are ignored. */
	buf[n] = 0xee;
	ok = ok && reparse_decode(buf, n + 1, &l) == 0;
	reparse_link_free(&l);
	ok = ok && reparse_encode_symlink(path, false, buf, sizeof(buf), &n) == 0 &&
	     reparse_decode(buf, n, &l) == 0 && strcmp(l.print, path) == 0 && l.flags == 0;
	reparse_link_free(&l);
	return ok;
}

/* Random byte mutations of a valid buffer: either refused, or names that
 * are valid UTF-8 without NUL (run under ASan/UBSan for the bounds). */
static int mutate_one(void)
{
	struct reparse_link l;
	size_t n = 0;
	char path[600];
	int rc;

	gen_path(path, sizeof(path));
	if (reparse_encode_junction(path, buf, sizeof(buf), &n) != 0)
		return 0;
	for (int k = 1 + (int)rnd(3); k > 0; k--)
		buf[rnd((uint32_t)n)] = (uint8_t)rnd(256);
	rc = reparse_decode(buf, n, &l);
	if (rc == -EINVAL)
		return 1;
	if (rc != 0)
		return 0;
	int ok = 1;
	for (const char *s = l.substitute; ok && *s;) {
		size_t len = utf8_len((const unsigned char *)s, strlen(s), NULL);
		ok = len > 0;
		s += len;
	}
	for (const char *s = l.print; ok && *s;) {
		size_t len = utf8_len((const unsigned char *)s, strlen(s), NULL);
		ok = len > 0;
		s += len;
	}
	reparse_link_free(&l);
	return ok;
}

static void test_properties(void)
{
	char path[600];
	int fails = 0, mut_fails = 0;

	for (int i = 0; i < 3000; i++) {
		gen_path(path, sizeof(path));
		if (!round_trip_one(path)) {
			printf("# round trip failed: %s\n", path);
			fails++;
		}
	}
	t_ok(fails == 0, "3000 generated paths: encode -> decode round trip, truncations and a "
	     "longer ReparseDataLength refused (%d failed)", fails);
	for (int i = 0; i < 20000; i++)
		mut_fails += !mutate_one();
	t_ok(mut_fails == 0, "20000 mutated buffers: refused, or decoded to valid UTF-8 (%d not)",
	     mut_fails);
}

int main(void)
{
	test_golden();
	test_absolute_symlink();
	test_encode_refusals();
	test_decode_refusals();
	test_properties();
	return t_done();
}
