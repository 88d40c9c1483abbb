/* fuzz_reparse.c - the reparse-buffer decoder (platforms/windows/prims/
 * reparse.h) on any bytes, for ASan and UBSan: it reads buffers a file
 * system returns, which whoever wrote the reparse point chose.  Property:
 * a decoded buffer has one of the two tags and names of valid UTF-8
 * without NUL; a decoded junction whose substitute is "\??\" + its print
 * name, a valid DOS path, encodes back to a buffer that decodes the same. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "reparse.h"
#include "utf8.h"

static void check_utf8(const char *s)
{
	for (size_t n = strlen(s); n;) {
		size_t l = utf8_len((const unsigned char *)s, n, NULL);

		if (!l)
			abort();
		s += l;
		n -= l;
	}
}

static void check_reencode(const struct reparse_link *l)
{
	static uint8_t buf[REPARSE_MAX_SIZE];
	struct reparse_link again;
	const char *dos = reparse_nt_to_dos(l->substitute);
	size_t n;

	if (l->tag != REPARSE_TAG_MOUNT_POINT || !dos || strcmp(dos, l->print) != 0)
		return;
	if (reparse_encode_junction(l->print, buf, sizeof(buf), &n) != 0 ||
	    reparse_decode(buf, n, &again) != 0)
		abort();
	if (strcmp(again.substitute, l->substitute) != 0 || strcmp(again.print, l->print) != 0)
		abort();
	reparse_link_free(&again);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct reparse_link l;

	if (reparse_decode(data, size, &l) != 0)
		return 0;
	if (l.tag != REPARSE_TAG_MOUNT_POINT && l.tag != REPARSE_TAG_SYMLINK)
		abort();
	check_utf8(l.substitute);
	check_utf8(l.print);
	check_reencode(&l);
	reparse_link_free(&l);
	return 0;
}
