/* test_wincompat.c - the POSIX compat layer of the windows build
 * (platforms/windows/compat/), run under Wine by ctest in the cross-build
 * (plumbing only: Wine is never Windows) and natively on Windows.
 *
 * Checks, each on the host's own file system and processes:
 *   openat_relative  a name is opened relative to the directory HANDLE: the
 *                    directory renamed away, openat(dfd, "f") still finds
 *                    its file and the old path does not (no concatenation);
 *                    mkdirat, fstatat, renameat, unlinkat relative too
 *   nofollow         O_NOFOLLOW on a reparse point is ELOOP, where this host
 *                    can make one (CreateSymbolicLinkW); Wine cannot: said,
 *                    and only the no-false-refusal half is checked there
 *   flock            shared + shared, exclusive|NB against shared is
 *                    EWOULDBLOCK, exclusive after unlock, shared|NB against
 *                    exclusive is EWOULDBLOCK
 *   waitpid          a registered child's exit code; WNOHANG on a running
 *                    one is 0; kill() then waitpid is WIFSIGNALED SIGKILL;
 *                    an unregistered pid is ECHILD / ESRCH
 *   poll             a pipe with data (POLLIN), empty (timeout: 0), its
 *                    writer closed (POLLHUP)
 *   fcntl            FD_CLOEXEC set and cleared through handle inheritance
 * Exit 0 when all hold, 1 otherwise (each failure named). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <poll.h>
#include <sys/file.h>
#include <sys/wait.h>

static int failures;

#define CHECK(c, ...)                                                          \
	do {                                                                   \
		if (!(c)) {                                                    \
			failures++;                                            \
			printf("FAIL %s:%d: %s: ", __func__, __LINE__, #c);    \
			printf(__VA_ARGS__);                                   \
			printf(" (errno %d)\n", errno);                        \
		}                                                              \
	} while (0)

static char area[MAX_PATH];

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", area, name);
}

static int under_wine(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}

/* The relative calls, the directory in place. */
static void relative_calls(int dfd)
{
	struct stat st, s1, s2;
	int fd = openat(dfd, "f", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	CHECK(fd >= 0 && write(fd, "abc", 3) == 3, "create f relative");
	close(fd);
	CHECK(openat(dfd, "f", O_WRONLY | O_CREAT | O_EXCL, 0600) < 0 && errno == EEXIST,
	      "O_EXCL on an existing name");
	CHECK(mkdirat(dfd, "sub", 0700) == 0, "mkdirat relative");
	CHECK(fstatat(dfd, "sub", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode),
	      "fstatat relative dir");
	fd = openat(dfd, "f", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	CHECK(fd >= 0 && fstat(fd, &s1) == 0 && fstatat(dfd, "f", &s2, AT_SYMLINK_NOFOLLOW) == 0 &&
	      s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev && S_ISREG(s1.st_mode) &&
	      s1.st_size == 3, "fstat and fstatat agree on dev/ino/size");
	close(fd);
	CHECK(renameat(dfd, "f", dfd, "sub/g") == 0, "renameat relative");
	CHECK(fstatat(dfd, "sub/g", &st, 0) == 0 && fstatat(dfd, "f", &st, 0) < 0 &&
	      errno == ENOENT, "renamed relative");
	CHECK(unlinkat(dfd, "sub", AT_REMOVEDIR) < 0 && errno == ENOTEMPTY, "rmdir non-empty");
	CHECK(unlinkat(dfd, "sub", 0) < 0 && errno == EISDIR, "unlink of a directory");
	CHECK(renameat(dfd, "sub/g", dfd, "f") == 0, "renameat back");
	CHECK(unlinkat(dfd, "sub", AT_REMOVEDIR) == 0, "unlinkat dir");
	CHECK(openat(dfd, "../x", O_RDONLY) < 0 && errno == EINVAL, ".. refused");
}

static void test_openat_relative(void)
{
	char a[MAX_PATH], b[MAX_PATH], af[MAX_PATH], bs[MAX_PATH], buf[8] = {0};
	struct stat st;

	path_in(a, sizeof(a), "A");
	path_in(b, sizeof(b), "B");
	path_in(af, sizeof(af), "A/f");
	path_in(bs, sizeof(bs), "B/made");
	CHECK(mkdir(a, 0700) == 0, "mkdir %s", a);
	int dfd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0, "open dir %s", a);
	relative_calls(dfd);
	/* the directory moves: the handle still names it, the old path does not */
	CHECK(rename(a, b) == 0, "rename %s -> %s", a, b);
	CHECK(open(af, O_RDONLY) < 0 && errno == ENOENT, "old path %s gone", af);
	int fd = openat(dfd, "f", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 3 && memcmp(buf, "abc", 3) == 0,
	      "openat(dfd, f) after the rename reads the file");
	CHECK(mkdirat(dfd, "made", 0700) == 0 && stat(bs, &st) == 0 && S_ISDIR(st.st_mode),
	      "mkdirat after the rename creates in the moved directory");
	if (under_wine()) {
		/* measured: Wine answers EBADF to a handle query and a rename
		 * relative to a directory renamed while open */
		printf("note: openat_relative: under Wine, fstat and renameat relative to a "
		       "directory renamed while open are NOT checked\n");
	} else {
		CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 3, "fstat after the rename");
		CHECK(renameat(dfd, "f", dfd, "f2") == 0, "renameat after the rename");
	}
	close(fd);
	close(dfd);
	char p[MAX_PATH];
	path_in(p, sizeof(p), "B/f");
	unlink(p);
	path_in(p, sizeof(p), "B/f2");
	unlink(p);
	rmdir(bs);
	CHECK(rmdir(b) == 0, "rmdir %s", b);
}

static void test_nofollow(void)
{
	char d[MAX_PATH], l[MAX_PATH];
	wchar_t wd[MAX_PATH], wl[MAX_PATH];
	struct stat st;

	path_in(d, sizeof(d), "target");
	path_in(l, sizeof(l), "link");
	CHECK(mkdir(d, 0700) == 0, "mkdir %s", d);
	int pfd = open(area, O_RDONLY | O_DIRECTORY);
	/* no false refusal: a plain directory opens with O_NOFOLLOW */
	int fd = openat(pfd, "target", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	CHECK(fd >= 0, "O_NOFOLLOW on a plain directory");
	close(fd);
	MultiByteToWideChar(CP_UTF8, 0, d, -1, wd, MAX_PATH);
	MultiByteToWideChar(CP_UTF8, 0, l, -1, wl, MAX_PATH);
	BOOL made = CreateSymbolicLinkW(wl, wd, SYMBOLIC_LINK_FLAG_DIRECTORY |
					SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
	DWORD attrs = made ? GetFileAttributesW(wl) : INVALID_FILE_ATTRIBUTES;
	if (attrs == INVALID_FILE_ATTRIBUTES || !(attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {
		printf("note: nofollow: this host made no reparse point it reports as one "
		       "(CreateSymbolicLinkW %s, error %lu; Wine cannot): the ELOOP half is NOT "
		       "checked here\n", made ? "succeeded" : "failed", GetLastError());
		if (made)
			RemoveDirectoryW(wl);
	} else {
		fd = openat(pfd, "link", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		CHECK(fd < 0 && errno == ELOOP, "O_NOFOLLOW on a reparse point is ELOOP");
		CHECK(fstatat(pfd, "link", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode),
		      "fstatat NOFOLLOW says S_IFLNK");
		CHECK(unlinkat(pfd, "link", 0) == 0, "unlink removes the link");
		CHECK(fstatat(pfd, "target", &st, 0) == 0, "the target survives");
	}
	close(pfd);
	rmdir(d);
}

static void test_flock(void)
{
	char f[MAX_PATH];

	path_in(f, sizeof(f), "lease");
	int a = open(f, O_RDWR | O_CREAT, 0600), b = open(f, O_RDWR);
	CHECK(a >= 0 && b >= 0, "open %s twice", f);
	CHECK(flock(a, LOCK_SH) == 0 && flock(b, LOCK_SH | LOCK_NB) == 0, "shared + shared");
	CHECK(flock(b, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	      "exclusive|NB against a shared holder");
	CHECK(flock(a, LOCK_UN) == 0, "unlock");
	CHECK(flock(b, LOCK_EX | LOCK_NB) == 0, "exclusive once alone");
	CHECK(flock(a, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	      "shared|NB against an exclusive holder");
	CHECK(flock(b, LOCK_UN) == 0 && flock(a, LOCK_EX | LOCK_NB) == 0, "exclusive after unlock");
	close(a);
	close(b);
	unlink(f);
}

static HANDLE spawn_self(const char *arg, DWORD *pid)
{
	wchar_t self[MAX_PATH], cmd[2 * MAX_PATH];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;

	GetModuleFileNameW(NULL, self, MAX_PATH);
	swprintf(cmd, 2 * MAX_PATH, L"\"%ls\" %hs", self, arg);
	if (!CreateProcessW(self, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return NULL;
	CloseHandle(pi.hThread);
	*pid = pi.dwProcessId;
	return pi.hProcess;
}

static void test_waitpid(void)
{
	DWORD pid, pid2;
	int st = -1;
	HANDLE h = spawn_self("exit7", &pid);

	CHECK(h != NULL, "CreateProcess");
	if (!h)
		return;
	CHECK(wincompat_child_add((int)pid, h) == 0, "register");
	CloseHandle(h); /* the registry holds its own duplicate */
	CHECK(waitpid((pid_t)pid, &st, 0) == (pid_t)pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "exit code 7, status %#x", st);
	CHECK(waitpid((pid_t)pid, &st, WNOHANG) < 0 && errno == ECHILD, "reaped once");
	h = spawn_self("sleep", &pid2);
	CHECK(h && wincompat_child_add((int)pid2, h) == 0, "register sleeper");
	if (h)
		CloseHandle(h);
	CHECK(waitpid(-1, &st, WNOHANG) == 0, "WNOHANG on a running child");
	CHECK(kill((pid_t)pid2, 0) == 0, "kill 0 on a live child");
	CHECK(kill((pid_t)pid2, SIGKILL) == 0, "kill SIGKILL");
	CHECK(waitpid(-1, &st, 0) == (pid_t)pid2, "waitpid(-1) the killed child");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "signalled SIGKILL, status %#x", st);
	CHECK(kill((pid_t)pid2, SIGKILL) < 0 && errno == ESRCH, "unregistered: ESRCH");
}

static void test_poll(void)
{
	int p[2];
	char c;

	CHECK(pipe(p) == 0, "pipe");
	struct pollfd pf = {.fd = p[0], .events = POLLIN};
	CHECK(poll(&pf, 1, 30) == 0 && pf.revents == 0, "empty pipe: timeout");
	CHECK(write(p[1], "x", 1) == 1, "write");
	CHECK(poll(&pf, 1, 1000) == 1 && (pf.revents & POLLIN), "data: POLLIN %#x", pf.revents);
	CHECK(read(p[0], &c, 1) == 1 && c == 'x', "read");
	close(p[1]);
	CHECK(poll(&pf, 1, 1000) == 1 && (pf.revents & POLLHUP), "writer closed: POLLHUP %#x",
	      pf.revents);
	CHECK(read(p[0], &c, 1) == 0, "EOF");
	close(p[0]);
	pf.fd = 4000;
	CHECK(poll(&pf, 1, 0) == 1 && pf.revents == POLLNVAL, "bad fd: POLLNVAL");
}

static void test_fcntl(void)
{
	int p[2];

	CHECK(pipe(p) == 0, "pipe");
	CHECK(fcntl(p[0], F_GETFD) == FD_CLOEXEC, "pipe ends are not inherited");
	CHECK(fcntl(p[0], F_SETFD, 0) == 0 && fcntl(p[0], F_GETFD) == 0, "cleared");
	CHECK(fcntl(p[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(p[0], F_GETFD) == FD_CLOEXEC, "set");
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exit7") == 0)
		return 7;
	if (argc > 1 && strcmp(argv[1], "sleep") == 0) {
		Sleep(60000);
		return 0;
	}
	char tmp[MAX_PATH];
	DWORD n = GetTempPathA(sizeof(tmp), tmp);
	CHECK(n > 0 && n < sizeof(tmp), "GetTempPath");
	snprintf(area, sizeof(area), "%ssp-wincompat-%lu-%llu", tmp, GetCurrentProcessId(),
		 (unsigned long long)GetTickCount64());
	for (char *q = area; *q; q++)
		if (*q == '\\')
			*q = '/';
	CHECK(mkdir(area, 0700) == 0, "mkdir %s", area);
	test_openat_relative();
	test_nofollow();
	test_flock();
	test_waitpid();
	test_poll();
	test_fcntl();
	if (rmdir(area) != 0)
		printf("FAIL: %s left behind (errno %d)\n", area, errno), failures++;
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
