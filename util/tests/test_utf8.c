/* test_utf8.c - the one UTF-8 rule: every boundary of RFC 3629. */
#include <string.h>

#include "t.h"
#include "utf8.h"

static const struct {
	const char *bytes;
	size_t len;        /* what utf8_len must return */
	uint32_t cp;       /* and the code point when valid */
} cases[] = {
	{"a", 1, 'a'}, {"\x7f", 1, 0x7f},
	{"\xc2\x80", 2, 0x80}, {"\xdf\xbf", 2, 0x7ff},
	{"\xe0\xa0\x80", 3, 0x800}, {"\xed\x9f\xbf", 3, 0xd7ff}, {"\xee\x80\x80", 3, 0xe000},
	{"\xef\xbf\xbf", 3, 0xffff},
	{"\xf0\x90\x80\x80", 4, 0x10000}, {"\xf4\x8f\xbf\xbf", 4, 0x10ffff},
	{"\x80", 0, 0}, {"\xbf", 0, 0},                       /* lone continuation */
	{"\xc0\xaf", 0, 0}, {"\xc1\xbf", 0, 0},               /* overlong 2 */
	{"\xe0\x9f\xbf", 0, 0}, {"\xf0\x8f\xbf\xbf", 0, 0},   /* overlong 3, 4 */
	{"\xed\xa0\x80", 0, 0}, {"\xed\xbf\xbf", 0, 0},       /* surrogates */
	{"\xf4\x90\x80\x80", 0, 0}, {"\xf5\x80\x80\x80", 0, 0}, {"\xff", 0, 0}, /* past U+10FFFF */
	{"\xc2", 0, 0}, {"\xe0\xa0", 0, 0}, {"\xf0\x90\x80", 0, 0},           /* cut short */
	{"\xc2\x41", 0, 0}, {"\xe0\xa0\x41", 0, 0},                           /* bad continuation */
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const unsigned char *b = (const unsigned char *)cases[i].bytes;
		uint32_t cp = 0xdead;
		size_t n = utf8_len(b, strlen(cases[i].bytes), &cp);

		t_ok(n == cases[i].len && (n == 0 || cp == cases[i].cp),
		     "case %zu: length %zu (want %zu), code point %#x", i, n, cases[i].len,
		     (unsigned)cp);
	}
	t_ok(utf8_seq_len(0x41) == 1 && utf8_seq_len(0xc2) == 2 && utf8_seq_len(0xe0) == 3 &&
		     utf8_seq_len(0xf4) == 4 && utf8_seq_len(0x80) == 0 && utf8_seq_len(0xc1) == 0 &&
		     utf8_seq_len(0xf5) == 0, "lead byte lengths");
	return t_done();
}
