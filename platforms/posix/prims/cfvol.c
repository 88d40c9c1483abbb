/* cfvol.c - cfvol.h where no case-insensitive volume can be made for a
 * scenario (the posix bring-up platform, macOS and Windows compile this
 * file): every call is refused, so t:casefold_workspace is unsupported
 * there with this reason. */
#include "sandproof/cfvol.h"
#include "sandproof/prims.h"

#include <errno.h>
#include <stdio.h>

int cfvol_make(const struct cfvol_opts *o, struct cfvol **out, char *err, size_t errlen)
{
	(void)o;
	*out = NULL;
	if (err && errlen)
		snprintf(err, errlen, "unsupported on %s: no exFAT-through-FUSE volume "
			 "primitive here", prims_os_name());
	return -EOPNOTSUPP;
}

const char *cfvol_device(const struct cfvol *v)
{
	(void)v;
	return "";
}

int cfvol_end(struct cfvol *v, char *err, size_t errlen)
{
	(void)v;
	(void)err;
	(void)errlen;
	return 0;
}
