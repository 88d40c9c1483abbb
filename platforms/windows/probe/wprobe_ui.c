/* wprobe_ui.c - the user-interface operations (Windows only; issue 32 §3):
 * what a command could do to the user's session through USER objects.
 *
 *   clipboard_read           OpenClipboard, GetClipboardData(CF_UNICODETEXT)
 *                            (step open or get); ok with "data" (the text,
 *                            cut at 4096 bytes) or "empty": true;
 *   clipboard_write TEXT     OpenClipboard, EmptyClipboard, SetClipboardData
 *                            (steps open, empty, set);
 *   sendinput                SendInput of one key-up of VK_SHIFT (harmless
 *                            if it lands); "inserted" the count.  SendInput
 *                            gives no error when UIPI blocks it, so 0
 *                            inserted is a failure at step send with the
 *                            thread's last error, which may be 0.
 * A job with JOB_OBJECT_UILIMIT_READCLIPBOARD/WRITECLIPBOARD refuses the
 * clipboard calls with ERROR_ACCESS_DENIED; a desktop that is not the input
 * desktop refuses SendInput (access denied). */
#include "wprobe.h"

#include <string.h>

static void wprobe_op_clipboard_read(struct probe_ctx *ctx, char **a, int n,
				     struct probe_res *res)
{
	HANDLE h;
	const wchar_t *w;
	char *u;
	size_t len = 0;

	(void)ctx, (void)a, (void)n;
	if (!OpenClipboard(NULL)) {
		wprobe_fail(res, GetLastError(), "open");
		return;
	}
	h = GetClipboardData(CF_UNICODETEXT);
	if (!h) {
		DWORD err = GetLastError();

		CloseClipboard();
		if (err == ERROR_SUCCESS) /* no text on it */
			probe_field_bool(res, "empty", true);
		else
			wprobe_fail(res, err, "get");
		return;
	}
	w = GlobalLock(h);
	u = w ? wprobe_utf8(w, -1, &len) : NULL;
	if (u) {
		if (len > 4096)
			u[4096] = '\0';
		probe_field_cstr(res, "data", u);
		free(u);
	}
	if (w)
		GlobalUnlock(h);
	CloseClipboard();
}

static void wprobe_op_clipboard_write(struct probe_ctx *ctx, char **a, int n,
				      struct probe_res *res)
{
	DWORD code = 0;
	wchar_t *w = wprobe_wide(a[0], &code);
	size_t bytes = w ? (wcslen(w) + 1) * sizeof(wchar_t) : 0;
	HGLOBAL g = w ? GlobalAlloc(GMEM_MOVEABLE, bytes) : NULL;
	void *p = g ? GlobalLock(g) : NULL;

	(void)ctx, (void)n;
	if (!p) {
		wprobe_fail(res, w ? GetLastError() : code, "alloc");
		if (g)
			GlobalFree(g);
		free(w);
		return;
	}
	memcpy(p, w, bytes);
	GlobalUnlock(g);
	free(w);
	if (!OpenClipboard(NULL)) {
		wprobe_fail(res, GetLastError(), "open");
		GlobalFree(g);
		return;
	}
	if (!EmptyClipboard())
		wprobe_fail(res, GetLastError(), "empty");
	else if (!SetClipboardData(CF_UNICODETEXT, g))
		wprobe_fail(res, GetLastError(), "set");
	else
		g = NULL; /* the clipboard owns it now */
	CloseClipboard();
	if (g)
		GlobalFree(g);
}

static void wprobe_op_sendinput(struct probe_ctx *ctx, char **a, int n, struct probe_res *res)
{
	INPUT in;
	UINT got;

	(void)ctx, (void)a, (void)n;
	memset(&in, 0, sizeof(in));
	in.type = INPUT_KEYBOARD;
	in.ki.wVk = VK_SHIFT;
	in.ki.dwFlags = KEYEVENTF_KEYUP;
	SetLastError(ERROR_SUCCESS);
	got = SendInput(1, &in, sizeof(in));
	probe_field_int(res, "inserted", (long long)got);
	if (got != 1)
		wprobe_fail(res, GetLastError(), "send");
}

const struct probe_op wprobe_ui_ops[] = {
	{"clipboard_read", 0, 0, "", NULL, wprobe_op_clipboard_read},
	{"clipboard_write", 1, 1, "TEXT", NULL, wprobe_op_clipboard_write},
	{"sendinput", 0, 0, "", NULL, wprobe_op_sendinput},
	{NULL, 0, 0, NULL, NULL, NULL},
};
