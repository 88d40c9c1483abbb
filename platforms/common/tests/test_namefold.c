/* test_namefold.c - "the same name" (namefold.h).
 *
 *   test_namefold            the checks below, by hand, each from a source
 *   test_namefold --keys F   the oracle's helper: reads UTF-8 lines on stdin,
 *                            prints each one's key under flags F (norm or
 *                            case) as hex code points, one line each ("!"
 *                            for a line that is not UTF-8);
 *                            test_namefold_oracle.py compares them with
 *                            Python's unicodedata.
 *   test_namefold --version  the Unicode version of the tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namefold.h"
#include "t.h"

#define N NAMEFOLD_NORM
#define C NAMEFOLD_CASE

static void same(const char *a, const char *b, unsigned flags, int want, const char *why)
{
	t_ok(namefold_same(a, b, flags) == want, "%s %s %s under %s (%s)", a,
	     want ? "is" : "is not", b, flags == C ? "case" : flags == N ? "norm" : "bytes", why);
}

static void check_same(void)
{
	same(".agents", ".AGENTS", C, 1, "APFS case-insensitive");
	same(".agents", ".AGENTS", N, 0, "case-sensitive APFS keeps case");
	same("/Users/Dev/WS/.git/HOOKS", "/users/dev/ws/.git/hooks", C, 1, "a whole path");
	same("\xc3\xa9", "e\xcc\x81", N, 1, "NFC and NFD of e-acute");
	same("\xc3\x89", "e\xcc\x81", C, 1, "E-acute folds to e-acute");
	same("\xc3\x89", "e\xcc\x81", N, 0, "E-acute keeps case");
	same("stra\xc3\x9f" "e", "STRASSE", C, 1, "full folding: sharp s is ss");
	same(".\xc3\x9f" "h", ".ssh", C, 1, "full folding reaches .ssh");
	same("\xe1\xba\x9e", "ss", C, 1, "capital sharp s is ss");
	same("\xc3\x9f", "ss", N, 0, "no folding without case");
	same(".git/hoo\xe2\x84\xaas", ".git/hooks", C, 1, "KELVIN SIGN is k");
	same(".git/hoo\xe2\x84\xaas", ".git/hooKs", N, 1, "KELVIN SIGN decomposes to K");
	same(".git/hoo\xe2\x84\xaas", ".git/hooks", N, 0, "...not to k");
	same(".git/con\xef\xac\x81g", ".git/config", C, 1, "the fi ligature folds to fi");
	same(".agent\xc5\xbf", ".agents", C, 1, "LONG S folds to s");
	same("\xc4\xb1", "I", C, 1, "DOTLESS I is i: the widening for exFAT and NTFS");
	same("\xc4\xb0", "i\xcc\x87", C, 1, "I with dot above folds to i + dot");
	same("\xc3\x85", "\xe2\x84\xab", N, 1, "ANGSTROM SIGN is A-ring");
	same("a\xcc\xa3\xcc\x81", "a\xcc\x81\xcc\xa3", N, 1, "marks in either order (canonical ordering)");
	same("\xe1\xbe\xb3", "\xce\xb1\xce\xb9", C, 1, "alpha with ypogegrammeni folds to alpha iota");
	same("\xed\x95\x9c", "\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab", N, 1, "a Hangul syllable and its jamo");
	same("a\xff", "a\xff", C, 1, "not UTF-8: equal bytes");
	same("a\xff", "A\xff", C, 0, "not UTF-8: compared as bytes");
	same("abc", "ABC", 0, 0, "no flags: bytes");
}

static void check_units(struct namefold_index *ci, struct namefold_index *ni)
{
	uint32_t out[16], k[] = {'k'}, ss[] = {'s', 's'}, ea[] = {'e', 0x301}, EA[] = {'E', 0x301};
	uint32_t jamo[] = {0x1112, 0x1161, 0x11AB}, fi[] = {'f', 'i'};
	size_t n;

	n = namefold_units(ci, k, 1, out, 16);
	t_ok(n == 3 && out[0] == 'K' && out[1] == 'k' && out[2] == 0x212A,
	     "case: the spellings of k are K, k, KELVIN SIGN (%zu)", n);
	n = namefold_units(ci, ss, 2, out, 16);
	t_ok(n == 2 && out[0] == 0xDF && out[1] == 0x1E9E, "case: ss is also one sharp s (%zu)", n);
	n = namefold_units(ci, fi, 2, out, 16);
	t_ok(n == 1 && out[0] == 0xFB01, "case: fi is also the ligature (%zu)", n);
	n = namefold_units(ci, ea, 2, out, 16);
	t_ok(n == 2 && out[0] == 0xC9 && out[1] == 0xE9, "case: e + acute is also E-acute, e-acute (%zu)", n);
	n = namefold_units(ni, ea, 2, out, 16);
	t_ok(n == 1 && out[0] == 0xE9, "norm: e + acute is also e-acute only (%zu)", n);
	n = namefold_units(ni, EA, 2, out, 16);
	t_ok(n == 1 && out[0] == 0xC9, "norm: E + acute is also E-acute only (%zu)", n);
	n = namefold_units(ni, k, 1, out, 16);
	t_ok(n == 1 && out[0] == 'k', "norm: k is only k (%zu)", n);
	n = namefold_units(ni, jamo, 3, out, 16);
	t_ok(n == 1 && out[0] == 0xD55C, "norm: three jamo are also one syllable (%zu)", n);
	n = namefold_units(ci, k, 1, out, 1);
	t_ok(n == 3, "the count is the total even when out is short (%zu)", n);
}

static void check_codec(void)
{
	uint32_t cp = 0;
	char b[4];

	t_ok(namefold_utf8_decode("\xc0\xaf", &cp) == 0, "an overlong '/' is not UTF-8");
	t_ok(namefold_utf8_decode("\xed\xa0\x80", &cp) == 0, "a surrogate is not UTF-8");
	t_ok(namefold_utf8_decode("\xf4\x90\x80\x80", &cp) == 0, "past U+10FFFF is not UTF-8");
	t_ok(namefold_utf8_decode("\xe2\x84", &cp) == 0, "a truncated sequence is not UTF-8");
	t_ok(namefold_utf8_decode("\xf0\x9f\x98\x80", &cp) == 4 && cp == 0x1F600, "a 4-byte one is");
	t_ok(namefold_utf8_encode(0x212A, b) == 3 && !memcmp(b, "\xe2\x84\xaa", 3), "encode U+212A");
	t_ok(namefold_ccc(0x301) == 230 && namefold_ccc(0x323) == 220 && namefold_ccc('a') == 0,
	     "combining classes: acute 230, dot below 220, a 0");
}

/* The longest key of any code point is NAMEFOLD_UNIT_MAX. */
static void check_unit_max(void)
{
	uint32_t k[NAMEFOLD_UNIT_MAX], kb[8];
	size_t worst = 0, n;
	char s[5] = {0};

	for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
		size_t len = namefold_utf8_encode(cp, s);

		if (!len)
			continue;
		s[len] = '\0';
		if (namefold_key(s, C, kb, 8, &n) == 0 && n > worst)
			worst = n;
	}
	t_ok(worst == NAMEFOLD_UNIT_MAX, "no code point's key is longer than %d (%zu)",
	     NAMEFOLD_UNIT_MAX, worst);
	t_ok(namefold_cp_key(0x1F82, C, k) == 4, "U+1F82's key is four long");
}

static int print_keys(const char *mode)
{
	unsigned flags = !strcmp(mode, "case") ? C : !strcmp(mode, "norm") ? N : 0;
	char line[4096];
	uint32_t key[4 * sizeof(line)];
	size_t n;

	if (!flags)
		return 2;
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (namefold_key(line, flags, key, sizeof(key) / sizeof(key[0]), &n) < 0) {
			puts("!");
			continue;
		}
		for (size_t i = 0; i < n; i++)
			printf(i ? " %X" : "%X", (unsigned)key[i]);
		putchar('\n');
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct namefold_index *ci, *ni;

	if (argc == 3 && !strcmp(argv[1], "--keys"))
		return print_keys(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		puts(namefold_unicode_version);
		return 0;
	}
	if (namefold_index_new(C, &ci) < 0 || namefold_index_new(N, &ni) < 0)
		return 1;
	check_codec();
	check_same();
	check_units(ci, ni);
	check_unit_max();
	namefold_index_free(ci);
	namefold_index_free(ni);
	return t_done();
}
