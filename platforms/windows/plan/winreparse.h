/* winreparse.h - which reparse points the Windows backend accepts on a path
 * of its plan, by their tag (issue 32 §5; README.md, "Reparse points").
 * Portable C; the tag values are the documented ones ([MS-FSCC] 2.1.2.1
 * "Reparse Tags"; winnt.h IO_REPARSE_TAG_*).
 *
 * The rule: a name-surrogate tag (the bit 0x20000000: the object stands for
 * another name, IsReparseTagNameSurrogate) is refused, junctions and
 * symbolic links first among them; so is every tag this file does not name.
 * Accepted: the cloud-file placeholders (IO_REPARSE_TAG_CLOUD and
 * CLOUD_1..CLOUD_F, what OneDrive puts on a synced folder and its files):
 * not surrogates, the object at the path is the one the DACL is set on, and
 * the backend opens it with FILE_FLAG_OPEN_REPARSE_POINT, so nothing is
 * followed.  A refusal names the tag. */
#ifndef SANDPROOF_WINREPARSE_H
#define SANDPROOF_WINREPARSE_H

#include <stdbool.h>
#include <stdint.h>

#define WINREPARSE_MOUNT_POINT 0xA0000003u   /* a junction */
#define WINREPARSE_SYMLINK 0xA000000Cu
#define WINREPARSE_CLOUD 0x9000001Au          /* CLOUD_1..F: 0x9000101A..0x9000F01A */
#define WINREPARSE_NAME_SURROGATE 0x20000000u

enum winreparse_class {
	WINREPARSE_JUNCTION = 0,    /* refused */
	WINREPARSE_SYMLINK_CLASS,   /* refused */
	WINREPARSE_SURROGATE,       /* any other name surrogate: refused */
	WINREPARSE_CLOUD_CLASS,     /* accepted */
	WINREPARSE_UNKNOWN,         /* refused */
};

enum winreparse_class winreparse_classify(uint32_t tag);
/* Whether the backend accepts a reparse point with tag on a plan path. */
bool winreparse_accepted(uint32_t tag);
/* The tag's documented name ("IO_REPARSE_TAG_MOUNT_POINT"), or NULL. */
const char *winreparse_tag_name(uint32_t tag);
/* A sentence for a refusal or an acceptance: "IO_REPARSE_TAG_MOUNT_POINT
 * (0xa0000003, a junction)"; out holds at least 96 bytes. */
void winreparse_describe(uint32_t tag, char *out, unsigned long n);

#endif
