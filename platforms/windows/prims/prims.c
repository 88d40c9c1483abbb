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

/* The final path of w (every reparse point resolved), "X:/..." in UTF-8,
 * malloc'd; NULL on failure. */
static char *realpath_utf8(const wchar_t *w)
{
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	wchar_t f[4096];
	DWORD n;
	char *out;

	if (h == INVALID_HANDLE_VALUE)
		return NULL;
	n = GetFinalPathNameByHandleW(h, f, 4096, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= 4096 || wcsncmp(f, L"\\\\?\\", 4) != 0 || !(out = malloc(4096 * 3)))
		return NULL;
	if (!WideCharToMultiByte(CP_UTF8, 0, f + 4, -1, out, 4096 * 3, NULL, NULL)) {
		free(out);
		return NULL;
	}
	for (char *c = out; *c; c++)
		if (*c == '\\')
			*c = '/';
	return out;
}

const char *prims_os_name(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	return nt && GetProcAddress(nt, "wine_get_version") ? "wine" : "windows";
}

/* Windows has the census (processes by Toolhelp, files: census_win.c),
 * the hold (an oplock on a path: proc.h's hold_path), the swap and the
 * swapper (junctions: swap.c); Wine has none of the last three - every
 * reparse and oplock FSCTL is ERROR_NOT_SUPPORTED there (measured on Wine
 * 8), so under Wine they are refused with that reason, never tried and
 * never a pass. */
const char *prims_lacks(const char *primitive)
{
	static const struct prims_lack lacks[] = {
		{"fault", "no way to make a system call of the runner fail"},
		{"lab", "no isolated network lab (no network namespaces)"},
		{"private_mounts", "no private mount namespace"},
		{"casefold_volume", "no case-insensitive volume to make here (cfvol.h; NTFS names fold already)"},
		{"hold", NULL},
		{"swap", NULL},
		{"swapper", NULL},
		{"census", NULL},
	};
	static const struct prims_lack wine[] = {
		{"hold", "Wine answers FSCTL_REQUEST_OPLOCK with ERROR_NOT_SUPPORTED: no oplock hold"},
		{"swap", "Wine answers the reparse-point FSCTLs with ERROR_NOT_SUPPORTED: no junctions"},
		{"swapper", "Wine answers the reparse-point FSCTLs with ERROR_NOT_SUPPORTED: no junction to flip"},
	};
	if (strcmp(prims_os_name(), "wine") == 0)
		for (size_t i = 0; i < sizeof(wine) / sizeof(wine[0]); i++)
			if (strcmp(primitive, wine[i].name) == 0)
				return wine[i].why;
	return prims_lacks_find(lacks, sizeof(lacks) / sizeof(lacks[0]), primitive);
}

void prims_host_facts(prims_fact_fn emit, void *ctx)
{
	(void)emit;
	(void)ctx;
}

/* The canonical spelling of this user's temp directory (GetTempPathW, then
 * its final path with '/' separators: "C:/Users/x/AppData/Local/Temp"), the
 * same for both roots: a Windows sandbox replaces no directory, so nothing
 * is hidden; "" when it cannot be resolved (every temp dir then fails). */
const char *prims_temp_root(int visible)
{
	static char root[4096];
	wchar_t w[MAX_PATH + 1];

	(void)visible;
	if (!root[0] && GetTempPathW(MAX_PATH + 1, w)) {
		char *r = realpath_utf8(w);

		if (r && strlen(r) < sizeof(root))
			strcpy(root, r);
		free(r);
	}
	return root;
}
