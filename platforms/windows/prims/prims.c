/* prims.c - prims.h on windows (copied from the posix bring-up platform):
 * every primitive a scenario may ask for by name is missing, each with its
 * reason ("unsupported on windows: <reason>" through prims_lacks), until
 * issue 14's junction swaps and oplock holds replace them.
 *
 * prims_os_name() is "wine" when ntdll is Wine's (it exports
 * wine_get_version), else "windows": what Wine runs is recorded under its
 * own tag, never as a Windows result (DESIGN.md, cross-platform honesty). */
#include "sandproof/prims.h"
#include "prims_common.h"

#include <stdlib.h>
#include <string.h>
#include <windows.h>

const char *prims_os_name(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	return nt && GetProcAddress(nt, "wine_get_version") ? "wine" : "windows";
}

const char *prims_lacks(const char *primitive)
{
	static const struct prims_lack lacks[] = {
		{"hold", "no way to hold a system call of the runner yet (oplock holds: issue 14)"},
		{"fault", "no way to make a system call of the runner fail"},
		{"swap", "no junction swap yet (issue 14)"},
		{"swapper", "no junction swapper yet (issue 14)"},
		{"lab", "no isolated network lab (no network namespaces)"},
		{"census", "no process, handle or lock census yet"},
		{"private_mounts", "no private mount namespace"},
	};

	return prims_lacks_find(lacks, sizeof(lacks) / sizeof(lacks[0]), primitive);
}

void prims_host_facts(prims_fact_fn emit, void *ctx)
{
	(void)emit;
	(void)ctx;
}

const char *prims_temp_root(int visible)
{
	(void)visible;
	const char *t = getenv("TEMP");
	return t && *t ? t : "C:/Windows/Temp";
}
