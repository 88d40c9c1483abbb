/* wprobe_main.c - sandproof-probe.exe's main: the arguments as UTF-8 (from
 * the wide command line, so any path Windows can name reaches the ops
 * intact), stdout and stderr in binary mode (a JSON line ends in "\n",
 * never "\r\n"), the operation tables, and the Win32 failure report. */
#include "wprobe.h"

#include "winerr.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>

/* The classification compares numbers: they must be the SDK's. */
_Static_assert(ERROR_ACCESS_DENIED == WINERR_ACCESS_DENIED, "ERROR_ACCESS_DENIED");
_Static_assert(WSAEACCES == WINERR_WSAEACCES, "WSAEACCES");

static const struct probe_op *const wprobe_tables[] = {
	wprobe_fs_ops, wprobe_meta_ops, wprobe_net_ops, wprobe_proc_ops, wprobe_ui_ops,
	wprobe_unsupported_ops,
};

wchar_t *wprobe_wide(const char *utf8, DWORD *code)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0) {
		*code = GetLastError();
		return NULL;
	}
	w = malloc((size_t)n * sizeof(*w));
	if (!w) {
		*code = ERROR_NOT_ENOUGH_MEMORY;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n);
	return w;
}

char *wprobe_utf8(const wchar_t *w, int wlen, size_t *len)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, wlen, NULL, 0, NULL, NULL);
	char *s;

	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	if (n > 0)
		WideCharToMultiByte(CP_UTF8, 0, w, wlen, s, n, NULL, NULL);
	s[n] = '\0';
	if (wlen < 0 && n > 0)
		n--; /* the converted NUL */
	if (len)
		*len = (size_t)n;
	return s;
}

void wprobe_fail(struct probe_res *res, DWORD code, const char *step)
{
	static char name[32];

	probe_res_fail(res, EIO, step);
	res->err_name = winerr_errno_name(code);
	probe_field_cstr(res, "win32_error", winerr_name(code, name, sizeof(name)));
	probe_field_int(res, "win32_code", (long long)code);
	probe_field_bool(res, "denied", winerr_is_denied(code));
}

void wprobe_fail_errno(struct probe_res *res, const char *errno_name, const char *step)
{
	probe_res_fail(res, EIO, step);
	res->err_name = errno_name;
	probe_field_bool(res, "denied", false);
}

/* No listen_echo servers on Windows: nothing to reap. */
void probe_reap_echo(struct probe_ctx *ctx)
{
	ctx->n_echo = 0;
}

/* No error dialog may block a probe running unattended in a sandbox. */
void probe_os_begin(void)
{
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
	wprobe_net_begin();
}

int wmain(int argc, wchar_t **wargv);
int wmain(int argc, wchar_t **wargv)
{
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));

	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	if (!argv) {
		fprintf(stderr, "sandproof-probe: out of memory\n");
		return 2;
	}
	for (int i = 0; i < argc; i++) {
		argv[i] = wprobe_utf8(wargv[i], -1, NULL);
		if (!argv[i]) {
			fprintf(stderr, "sandproof-probe: out of memory\n");
			return 2;
		}
	}
	return probe_cli_main(argc, argv, wprobe_tables,
			      sizeof(wprobe_tables) / sizeof(wprobe_tables[0]));
}
