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
