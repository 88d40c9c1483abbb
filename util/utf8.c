/* utf8.c - see utf8.h. */
#include "utf8.h"

size_t utf8_seq_len(unsigned char lead)
{
	if (lead < 0x80)
		return 1;
	if (lead >= 0xc2 && lead <= 0xdf)
		return 2;
	if (lead >= 0xe0 && lead <= 0xef)
		return 3;
	if (lead >= 0xf0 && lead <= 0xf4)
		return 4;
	return 0;
}

size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len = utf8_seq_len(s[0]);
	uint32_t c = s[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);

	if (len <= 1) {
		if (len == 1 && cp)
			*cp = s[0];
		return len;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (cp)
		*cp = c;
	return len;
}
