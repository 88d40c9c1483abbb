/* proc_cmdline.c - argv, environment and program name for CreateProcessW
 * (proc_int.h).  The command line follows the rules the CRT (and
 * CommandLineToArgvW) use to split it, so the program sees argv as given:
 * an argument with a space, tab, newline or quote, or an empty one, is
 * quoted; backslashes are doubled only before a quote. */
#include "proc_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

wchar_t *wproc_wide(const char *s, int *err)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(wchar_t)) : NULL;

	if (!w || !MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n)) {
		*err = n > 0 ? ENOMEM : EILSEQ;
		free(w);
		return NULL;
	}
	return w;
}

/* Appends arg, quoted when it must be, at out (NULL: only counts). */
static size_t quote_arg(const wchar_t *a, wchar_t *out)
{
	size_t n = 0;
	bool q = !*a || wcspbrk(a, L" \t\n\v\"");

#define PUT(c) do { if (out) out[n] = (c); n++; } while (0)
	if (q)
		PUT(L'"');
	for (const wchar_t *c = a;; c++) {
		size_t bs = 0;

		while (*c == L'\\')
			bs++, c++;
		if (!*c || *c == L'"') {
			/* doubled before a quote (ours at the end, or the argument's) */
			size_t k = q || *c ? 2 * bs + (*c ? 1 : 0) : bs;

			while (k--)
				PUT(L'\\');
			if (!*c)
				break;
		} else {
			while (bs--)
				PUT(L'\\');
		}
		PUT(*c);
	}
	if (q)
		PUT(L'"');
#undef PUT
	return n;
}

wchar_t *wproc_cmdline(char *const *argv, int *err)
{
	size_t n = 1, k = 0;
	wchar_t *line, **w;
	int argc = 0;

	while (argv[argc])
		argc++;
	if (!argc || strchr(argv[0], '"')) {
		*err = EINVAL; /* the CRT reads argv[0] without escapes */
		return NULL;
	}
	if (!(w = calloc((size_t)argc, sizeof(*w)))) {
		*err = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < argc; i++) {
		if (!(w[i] = wproc_wide(argv[i], err)))
			goto fail;
		n += quote_arg(w[i], NULL) + 1;
	}
	if (!(line = malloc(n * sizeof(wchar_t)))) {
		*err = ENOMEM;
		goto fail;
	}
	for (int i = 0; i < argc; i++) {
		if (i)
			line[k++] = L' ';
		k += quote_arg(w[i], line + k);
	}
	line[k] = 0;
	for (int i = 0; i < argc; i++)
		free(w[i]);
	free(w);
	return line;
fail:
	for (int i = 0; i < argc; i++)
		free(w[i]);
	free(w);
	return NULL;
}

wchar_t *wproc_envblock(char *const *envp, int *err)
{
	size_t n = 1, k = 0;
	wchar_t *block;

	if (!envp)
		return NULL;
	for (size_t i = 0; envp[i]; i++) {
		int m = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, envp[i], -1, NULL, 0);

		if (m <= 1 || !strchr(envp[i], '=')) {
			*err = EINVAL;
			return NULL;
		}
		n += (size_t)m;
	}
	if (!(block = malloc(n * sizeof(wchar_t)))) {
		*err = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; envp[i]; i++)
		k += (size_t)MultiByteToWideChar(CP_UTF8, 0, envp[i], -1, block + k, (int)(n - k));
	block[k] = 0;
	return block;
}

static bool is_file(const wchar_t *p)
{
	DWORD a = GetFileAttributesW(p);

	return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

/* path, or path.exe, when one is a file: a malloc'd copy, else NULL. */
static wchar_t *try_path(const wchar_t *path)
{
	size_t n = wcslen(path);
	wchar_t *w = malloc((n + 5) * sizeof(wchar_t));

	if (!w)
		return NULL;
	wcscpy(w, path);
	if (is_file(w))
		return w;
	wcscpy(w + n, L".exe");
	if (is_file(w))
		return w;
	free(w);
	return NULL;
}

static const char *env_path(char *const *envp)
{
	if (!envp)
		return getenv("PATH");
	for (size_t i = 0; envp[i]; i++)
		if (!_strnicmp(envp[i], "PATH=", 5))
			return envp[i] + 5;
	return NULL;
}

wchar_t *wproc_program(const char *name, char *const *envp, int *err)
{
	const char *path = env_path(envp);
	wchar_t *w, *found = NULL;

	if (!*name) {
		*err = ENOENT;
		return NULL;
	}
	if (strpbrk(name, "/\\:")) {
		if (!(w = wproc_wide(name, err)))
			return NULL;
		found = try_path(w);
		free(w);
		if (!found)
			*err = ENOENT;
		return found;
	}
	for (const char *p = path ? path : ""; !found && *p;) {
		size_t len = strcspn(p, ";");
		char *cand = malloc(len + strlen(name) + 2);

		if (!cand) {
			*err = ENOMEM;
			return NULL;
		}
		if (len)
			sprintf(cand, "%.*s\\%s", (int)len, p, name);
		else
			strcpy(cand, name); /* an empty element: the working directory */
		if ((w = wproc_wide(cand, err))) {
			found = try_path(w);
			free(w);
		}
		free(cand);
		p += len + (p[len] == ';');
	}
	if (!found)
		*err = ENOENT;
	return found;
}
