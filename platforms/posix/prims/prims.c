/* prims.c - prims.h on the posix bring-up platform.  Every primitive a
 * scenario may ask for by name is missing here, each with its reason, so
 * a scenario that needs one ends as "unsupported on posix: <reason>".
 * The names: common/prims_common.c. */
#include "sandproof/prims.h"
#include "prims_common.h"

#include <string.h>


const char *prims_os_name(void)
{
	return "posix";
}

const char *prims_lacks(const char *primitive)
{
	static const struct prims_lack lacks[] = {
		{"hold", "no way to hold a system call of the runner (no system-call filter)"},
		{"fault", "no way to make a system call of the runner fail (no system-call filter)"},
		{"swap", "no atomic exchange of two paths"},
		{"swapper", "no atomic exchange of two paths"},
		{"lab", "no isolated network lab (no network namespaces)"},
		{"census", "no process, mount or lock table to take a census of"},
		{"private_mounts", "no private mount namespace"},
		{"casefold_volume", "no case-insensitive volume to make here (cfvol.h)"},
	};

	return prims_lacks_find(lacks, sizeof(lacks) / sizeof(lacks[0]), primitive);
}

void prims_host_facts(prims_fact_fn emit, void *ctx)
{
	(void)emit; /* nothing beyond what every POSIX system tells */
	(void)ctx;
}

const char *prims_temp_root(int visible)
{
	return visible ? "/var/tmp" : "/tmp";
}
