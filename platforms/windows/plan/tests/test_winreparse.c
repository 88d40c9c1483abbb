/* test_winreparse.c - the reparse tag rule (winreparse.h), by table. */
#include <string.h>

#include "t.h"
#include "winreparse.h"

int main(void)
{
	static const struct {
		uint32_t tag;
		bool accepted;
		const char *name;
	} cases[] = {
		{0xA0000003u, false, "IO_REPARSE_TAG_MOUNT_POINT"},
		{0xA000000Cu, false, "IO_REPARSE_TAG_SYMLINK"},
		{0x9000001Au, true, "IO_REPARSE_TAG_CLOUD"},
		{0x9000101Au, true, "IO_REPARSE_TAG_CLOUD_N"},
		{0x9000F01Au, true, "IO_REPARSE_TAG_CLOUD_N"},
		{0x8000001Bu, false, "IO_REPARSE_TAG_APPEXECLINK"},
		{0x80000017u, false, "IO_REPARSE_TAG_WOF"},
		{0xA000001Du, false, "IO_REPARSE_TAG_LX_SYMLINK"},
		{0x2000ABCDu, false, NULL},     /* a third party's name surrogate */
		{0x0000ABCDu, false, NULL},     /* a third party's tag */
		{0xB000001Au, false, NULL},     /* cloud's bits with the surrogate bit */
	};
	char d[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *n = winreparse_tag_name(cases[i].tag);

		winreparse_describe(cases[i].tag, d, sizeof(d));
		t_ok(winreparse_accepted(cases[i].tag) == cases[i].accepted &&
		     (cases[i].name ? n && !strcmp(n, cases[i].name) : !n) && strstr(d, "0x"),
		     "0x%08x: %s, %s", (unsigned)cases[i].tag, cases[i].accepted ? "accepted" : "refused", d);
	}
	t_ok(winreparse_classify(0xA0000003u) == WINREPARSE_JUNCTION &&
	     winreparse_classify(0xA000000Cu) == WINREPARSE_SYMLINK_CLASS &&
	     winreparse_classify(0x2000ABCDu) == WINREPARSE_SURROGATE &&
	     winreparse_classify(0x0000ABCDu) == WINREPARSE_UNKNOWN,
	     "classes: junction, symbolic link, other surrogate, unknown");
	return t_done();
}
