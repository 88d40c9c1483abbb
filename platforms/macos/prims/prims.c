/* prims.c - prims.h on the macOS platform layer.
 *
 * The harness says "unsupported on <os>: <reason>" with the reasons below
 * (on macOS: "unsupported on macos: no syscall interposition").
 *
 * The OS tag results are recorded under is "macos" only in a build for
 * macOS (__APPLE__); the same layer built anywhere else is the posix-sim
 * (its sandbox-exec confines nothing), recorded as "posix-sim" so that
 * nothing it records can count as a macOS result.
 *
 * What macOS lacks, with its reason: holds and faults (no system-call
 * interposition), private mounts, network labs (no network namespaces:
 * network scenarios on macOS use the host's own loopback and interface
 * addresses, traffic never leaving the machine - see README.md).  The
 * posix-sim also lacks what only the native calls give: the atomic swap
 * (renamex_np) and the process table (libproc).  The names:
 * common/prims_common.c. */
#include "sandproof/prims.h"
#include "prims_common.h"

#include <string.h>

#ifdef __APPLE__
#define PRIMS_OS "macos"
#define PRIMS_NATIVE_ONLY(why) NULL
/* /tmp and /var are symlinks into /private: Seatbelt matches, and the
 * profile generator accepts, only these spellings. */
#define PRIMS_TEMP_HIDDEN "/private/tmp"
#define PRIMS_TEMP_VISIBLE "/private/var/tmp"
#else
#define PRIMS_OS "posix-sim"
#define PRIMS_NATIVE_ONLY(why) why " (a native call: macOS only)"
/* The sim runs on Linux, where /tmp is canonical but the generator
 * refuses it by its macOS spelling; /dev/shm (world-writable, sticky,
 * on every Linux CI machine) is a spelling both accept. */
#define PRIMS_TEMP_HIDDEN "/dev/shm"
#define PRIMS_TEMP_VISIBLE "/dev/shm"
#endif

const char *prims_os_name(void)
{
	return PRIMS_OS;
}

const char *prims_lacks(const char *primitive)
{
	static const struct prims_lack lacks[] = {
		{"hold", "no syscall interposition"},
		{"fault", "no syscall interposition"},
		{"swap", PRIMS_NATIVE_ONLY("no atomic exchange without renamex_np(RENAME_SWAP)")},
		{"swapper", PRIMS_NATIVE_ONLY("no atomic exchange without renamex_np(RENAME_SWAP)")},
		{"lab", "no network namespaces (no isolated lab; "
			"network scenarios use the host's own loopback and interface addresses)"},
		{"census", "the census reads the process table only "
			   "(no mount or lock table), not a full residue census"},
		{"private_mounts", "no private mount namespace"},
		{"casefold_volume", "no case-insensitive volume to make here (cfvol.h)"},
	};

	return prims_lacks_find(lacks, sizeof(lacks) / sizeof(lacks[0]), primitive);
}

void prims_host_facts(prims_fact_fn emit, void *ctx)
{
	emit(ctx, "seatbelt", PRIMS_OS, PRIMS_FACT_TEXT);
}

const char *prims_temp_root(int visible)
{
	return visible ? PRIMS_TEMP_VISIBLE : PRIMS_TEMP_HIDDEN;
}
