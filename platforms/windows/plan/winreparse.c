/* winreparse.c - the reparse tag rule (winreparse.h). */
#include "winreparse.h"

#include <stdio.h>

/* Tags with their documented names ([MS-FSCC] 2.1.2.1). */
static const struct {
	uint32_t tag;
	const char *name;
	const char *what;
} tags[] = {
	{0xA0000003u, "IO_REPARSE_TAG_MOUNT_POINT", "a junction"},
	{0xA000000Cu, "IO_REPARSE_TAG_SYMLINK", "a symbolic link"},
	{0x9000001Au, "IO_REPARSE_TAG_CLOUD", "a cloud-file placeholder"},
	{0x80000013u, "IO_REPARSE_TAG_DEDUP", "a deduplicated file"},
	{0x80000017u, "IO_REPARSE_TAG_WOF", "a compressed (WOF) file"},
	{0x8000001Bu, "IO_REPARSE_TAG_APPEXECLINK", "an app execution alias"},
	{0x80000023u, "IO_REPARSE_TAG_AF_UNIX", "a Unix socket"},
	{0xA0000019u, "IO_REPARSE_TAG_GLOBAL_REPARSE", "a global reparse point"},
	{0x8000000Au, "IO_REPARSE_TAG_DFS", "a DFS link"},
	{0x80000012u, "IO_REPARSE_TAG_DFSR", "a DFS-R file"},
	{0x80000014u, "IO_REPARSE_TAG_NFS", "an NFS special file"},
	{0x9000001Cu, "IO_REPARSE_TAG_PROJFS", "a projected file system placeholder"},
	{0xA000001Du, "IO_REPARSE_TAG_LX_SYMLINK", "a WSL symbolic link"},
};

static bool cloud(uint32_t tag)
{
	return (tag & 0xFFFF0FFFu) == WINREPARSE_CLOUD;
}

enum winreparse_class winreparse_classify(uint32_t tag)
{
	if (tag == WINREPARSE_MOUNT_POINT)
		return WINREPARSE_JUNCTION;
	if (tag == WINREPARSE_SYMLINK)
		return WINREPARSE_SYMLINK_CLASS;
	if (tag & WINREPARSE_NAME_SURROGATE)
		return WINREPARSE_SURROGATE;
	if (cloud(tag))
		return WINREPARSE_CLOUD_CLASS;
	return WINREPARSE_UNKNOWN;
}

bool winreparse_accepted(uint32_t tag)
{
	return winreparse_classify(tag) == WINREPARSE_CLOUD_CLASS;
}

const char *winreparse_tag_name(uint32_t tag)
{
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (tags[i].tag == tag)
			return tags[i].name;
	return cloud(tag) ? "IO_REPARSE_TAG_CLOUD_N" : NULL;
}

void winreparse_describe(uint32_t tag, char *out, unsigned long n)
{
	const char *what = cloud(tag) ? "a cloud-file placeholder" : NULL;

	for (size_t i = 0; !what && i < sizeof(tags) / sizeof(tags[0]); i++)
		if (tags[i].tag == tag)
			what = tags[i].what;
	if (!what)
		what = (tag & WINREPARSE_NAME_SURROGATE) ? "a name surrogate this backend does not know"
							  : "a tag this backend does not know";
	snprintf(out, n, "%s (0x%08x, %s)", winreparse_tag_name(tag) ? winreparse_tag_name(tag)
								     : "an unnamed tag",
		 (unsigned)tag, what);
}
