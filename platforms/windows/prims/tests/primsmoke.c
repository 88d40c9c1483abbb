/* primsmoke.c - the Wine smoke of the junction and oplock primitives (TAP),
 * run by ci/wine-smoke.sh: `primsmoke.exe <work dir, Windows form>`.
 *
 * Under Wine 8 junctions and oplocks do not exist: each primitive must
 * report exactly that as -EOPNOTSUPP with the Win32 error
 * ERROR_NOT_SUPPORTED, never success, and leave nothing behind (no
 * directory made, none removed, no action run).  What does run under
 * Wine, the renames of winjct_swap and their undo, is checked on the
 * objects themselves.  The rest is printed as "# not verifiable under
 * Wine: ..." and never counted as ok (prims/README.md lists it). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "junction.h"
#include "oplock.h"

#define SMOKE_TESTS 9

static int n_test, n_fail;
static char work[MAX_PATH];

static void tap(bool ok, const char *name)
{
	n_test++;
	n_fail += !ok;
	printf("%sok %d - %s\n", ok ? "" : "not ", n_test, name);
	fflush(stdout);
}

static char *at(const char *name)
{
	static char buf[4][MAX_PATH * 2];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s\\%s", work, name);
	return buf[i];
}

static bool exists(const char *path)
{
	return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

static bool is_dir(const char *path)
{
	DWORD a = GetFileAttributesA(path);

	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

static void make_file(const char *path)
{
	HANDLE h = CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);

	if (h != INVALID_HANDLE_VALUE)
		CloseHandle(h);
}

/* rc and the Win32 error of a call that Wine cannot do. */
static bool unsupported(const char *what, int rc)
{
	unsigned long e = winjct_last_error();

	printf("# %s: rc %d, Win32 error %lu\n", what, rc, e);
	return rc == -EOPNOTSUPP && e == ERROR_NOT_SUPPORTED;
}

static void test_create(void)
{
	int rc = winjct_create(at("j1"), at("real"));

	tap(unsupported("winjct_create", rc) && !exists(at("j1")),
	    "junction create: -EOPNOTSUPP (ERROR_NOT_SUPPORTED), no directory left behind");
	rc = winjct_create(at("j2"), "C:\\a\\..\\b");
	tap(rc == -EINVAL && !exists(at("j2")), "junction create with a bad target: -EINVAL, "
	    "nothing made");
}

/* rc and the Win32 error of a call given a plain directory. */
static bool not_reparse(const char *what, int rc)
{
	unsigned long e = winjct_last_error();

	printf("# %s: rc %d, Win32 error %lu\n", what, rc, e);
	return rc == -EINVAL && e == ERROR_NOT_A_REPARSE_POINT;
}

/* read / retarget / unmount / delete of a plain directory.  Wine answers
 * FSCTL_GET_REPARSE_POINT as Windows does (ERROR_NOT_A_REPARSE_POINT),
 * so each is refused at the check, before anything is changed; the
 * directory and its file must stay. */
static void test_on_plain_dir(void)
{
	struct reparse_link l;
	int r = winjct_read(at("real"), &l);
	bool ok = not_reparse("winjct_read", r) && !l.substitute;

	ok = not_reparse("winjct_retarget", winjct_retarget(at("real"), "C:\\x")) && ok;
	ok = not_reparse("winjct_unmount", winjct_unmount(at("real"))) && ok;
	ok = not_reparse("winjct_delete", winjct_delete(at("real"))) && ok;
	tap(ok, "junction read, retarget, unmount, delete of a plain directory: each -EINVAL "
	    "(ERROR_NOT_A_REPARSE_POINT), refused at the check");
	tap(is_dir(at("real")) && exists(at("real\\file.txt")),
	    "the plain directory they were given is untouched (still there, its file too)");
}

static void test_swap(void)
{
	CreateDirectoryA(at("sa"), NULL);
	CreateDirectoryA(at("sb"), NULL);
	make_file(at("sa\\mark_a"));
	make_file(at("sb\\mark_b"));
	int rc = winjct_swap(at("sa"), at("sb"));

	tap(rc == 0 && exists(at("sa\\mark_b")) && exists(at("sb\\mark_a")) &&
	    !exists(at("sa.sp-swap")), "swap of two directories: exchanged, no aside name left");
	rc = winjct_swap(at("sa"), at("nothing"));
	tap(rc == -ENOENT && exists(at("sa\\mark_b")) && !exists(at("sa.sp-swap")),
	    "swap with a missing second name: -ENOENT, the first rename undone");
	CreateDirectoryA(at("sa.sp-swap"), NULL);
	rc = winjct_swap(at("sa"), at("sb"));
	tap(rc == -EEXIST && exists(at("sa\\mark_b")) && exists(at("sb\\mark_a")),
	    "swap with the aside name taken: -EEXIST, nothing moved");
	RemoveDirectoryA(at("sa.sp-swap"));
}

static int ran;

static int action(void *ctx, int k, const char *path)
{
	(void)ctx;
	(void)k;
	(void)path;
	ran++;
	return 0;
}

static void test_oplock(const char *name, const char *what)
{
	struct winoplock *o = NULL;
	struct winhold h = {0};
	char line[300];
	int rc = winoplock_new(at(name), 0, NULL, &o);
	enum winhold_outcome out = rc == 0 ? winoplock_hold(o, &h, 1, action, NULL, 2000)
					   : WINHOLD_RUNNING;

	if (rc == 0) {
		winhold_describe(&h, line, sizeof(line));
		printf("# %s: %s\n", what, line);
	}
	tap(out == WINHOLD_ERROR && unsupported(what, h.err) && ran == 0 && !h.held && h.opens == 0,
	    what);
	winoplock_free(o);
}

static void not_verifiable(void)
{
	static const char *const what[] = {
		"a junction made, read back, followed by an open, retargeted in one FSCTL, "
		"unmounted and deleted (FSCTL_SET_REPARSE_POINT fails with ERROR_NOT_SUPPORTED; "
		"FSCTL_GET_REPARSE_POINT answers a plain directory as Windows does)",
		"FSCTL_REQUEST_OPLOCK: refused with ERROR_NOT_SUPPORTED (and the OVERLAPPED left "
		"at STATUS_PENDING, never completed: the code never waits on a refused request)",
		"winjct_delete removing the link only, never the target's content",
		"an oplock granted, broken by another process's open, that open waiting until "
		"the release (the hold's window), and the count of opens over re-arms",
		"swapping a junction for a directory while an open waits on the oplock",
	};

	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		printf("# not verifiable under Wine: %s\n", what[i]);
}

int main(int argc, char **argv)
{
	if (argc != 2 || strlen(argv[1]) >= sizeof(work)) {
		fprintf(stderr, "usage: primsmoke WORKDIR\n");
		return 2;
	}
	snprintf(work, sizeof(work), "%s", argv[1]);
	CreateDirectoryA(at("real"), NULL);
	make_file(at("real\\file.txt"));
	test_create();
	test_on_plain_dir();
	test_swap();
	test_oplock("real", "oplock hold on a directory: error -EOPNOTSUPP (ERROR_NOT_SUPPORTED), "
		    "no action, nothing held");
	test_oplock("real\\file.txt", "oplock hold on a file: error -EOPNOTSUPP "
		    "(ERROR_NOT_SUPPORTED), no action, nothing held");
	not_verifiable();
	printf("1..%d\n", n_test);
	return n_fail || n_test != SMOKE_TESTS ? 1 : 0;
}
