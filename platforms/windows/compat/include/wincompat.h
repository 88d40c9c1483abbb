/* wincompat.h - the POSIX calls the runner core (ref/), util/, the store,
 * the reports and the portable tests use, for the mingw-w64 build only
 * (platforms/windows/compat/README.md has the semantics of every call).
 *
 * Every translation unit of the windows build gets this header first
 * (-include wincompat.h, CMakeLists.txt): it pulls in the CRT's own
 * headers, then adds the constants, types and declarations mingw lacks and
 * routes the calls whose CRT form differs from POSIX (open, mkdir, rename,
 * fstat, lstat, stat, DIR) to wincompat_* functions.  Nothing outside
 * platforms/windows/ names Windows: the core stays POSIX code.
 *
 * Errors: like POSIX, -1 (or NULL) with errno set; never a Win32 error code. */
#ifndef SANDPROOF_WINCOMPAT_H
#define SANDPROOF_WINCOMPAT_H

#ifndef _WIN32
#error "wincompat.h is for the windows build only"
#endif

/* C99 printf (%zu, %lld) from the CRT's stdio, before stdio.h is seen */
#ifndef __USE_MINGW_ANSI_STDIO
#define __USE_MINGW_ANSI_STDIO 1
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The CRT's PATH_MAX is MAX_PATH (260); the core's request limits are
 * POSIX's (4096), the same on every OS.  NT relative opens have no such
 * bound; an absolute name past MAX_PATH may be refused by Win32 on a
 * Windows without long path support (ENAMETOOLONG or ENOENT). */
#undef PATH_MAX
#define PATH_MAX 4096

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* errno values POSIX has and the CRT lacks (numbers the CRT never uses) */
#define ESTALE 151
#define EDQUOT 152
#define EMULTIHOP 153

/* The CRT's dup() (io.h) is not provided to POSIX code: the name is free
 * for a file's own static function (reports/report_load.c has one). */
#define dup wincompat_crt_dup_not_provided

/* ---- open flags beyond the CRT's (bits the CRT never uses; stripped
 * before the CRT sees them).  O_CLOEXEC is the CRT's "not inherited". */
#define O_CLOEXEC _O_NOINHERIT
#define O_NONBLOCK 0x01000000
#define O_DIRECTORY 0x02000000
#define O_NOFOLLOW 0x04000000
#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200

/* ---- fcntl */
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1
int wincompat_fcntl(int fd, int cmd, ...);
#define fcntl(...) wincompat_fcntl(__VA_ARGS__)

/* ---- file types the CRT does not report */
#ifndef S_IFLNK
#define S_IFLNK 0120000
#endif
#ifndef S_ISLNK
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#endif
#ifndef S_IRWXG
#define S_IRWXG 0070
#define S_IRWXO 0007
#endif

/* ---- ids: Windows has no uid (compat/README.md: why 0 is safe here) */
typedef int uid_t;
typedef int gid_t;
uid_t wincompat_geteuid(void);
#define geteuid wincompat_geteuid
#define getuid wincompat_geteuid

/* ---- struct stat: the CRT's has a 16-bit st_ino and a 32-bit st_size;
 * this one carries the volume serial number and the 64-bit file index
 * (st_dev, st_ino: what the runtime roots compare to know a name still
 * leads to the file they locked).  "stat" names both the type and the
 * call, as in POSIX. */
struct wincompat_stat {
	uint64_t st_dev, st_ino, st_rdev;
	unsigned int st_mode, st_nlink;
	int st_uid, st_gid;
	int64_t st_size;
	time_t st_atime, st_mtime, st_ctime;
};
#define stat wincompat_stat

/* ---- files and directories, relative to a directory descriptor */
int wincompat_open(const char *path, int flags, ...);
int wincompat_openat(int dirfd, const char *path, int flags, ...);
int wincompat_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int wincompat_fstat(int fd, struct stat *st);
int wincompat_mkdirat(int dirfd, const char *path, int mode);
int wincompat_unlinkat(int dirfd, const char *path, int flags);
int wincompat_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int wincompat_fchmodat(int dirfd, const char *path, int mode, int flags);
ssize_t wincompat_readlinkat(int dirfd, const char *path, char *buf, size_t len);
int wincompat_rename(const char *from, const char *to);
int wincompat_fchmod(int fd, int mode);
int wincompat_link(const char *from, const char *to);
int wincompat_mkstemp(char *templ);
#define open(...) wincompat_open(__VA_ARGS__)
#define openat(...) wincompat_openat(__VA_ARGS__)
#define fstatat wincompat_fstatat
#define mkdirat wincompat_mkdirat
#define unlinkat wincompat_unlinkat
#define renameat wincompat_renameat
#define fchmodat wincompat_fchmodat
#define readlinkat wincompat_readlinkat
#define readlink(p, b, n) wincompat_readlinkat(AT_FDCWD, p, b, n)
#define fstat(fd, st) wincompat_fstat(fd, st)
#define lstat(p, st) wincompat_fstatat(AT_FDCWD, p, st, AT_SYMLINK_NOFOLLOW)
int wincompat_stat(const char *path, struct wincompat_stat *st);
#define mkdir(p, m) wincompat_mkdirat(AT_FDCWD, p, m)
#define rename(a, b) wincompat_rename(a, b)
#define fchmod wincompat_fchmod
#define link(a, b) wincompat_link(a, b)
#define mkstemp wincompat_mkstemp

/* ---- directories read through a handle (fdopendir) */
struct wincompat_dir;
struct wincompat_dir *wincompat_opendir(const char *path);
struct wincompat_dir *wincompat_fdopendir(int fd);
struct dirent *wincompat_readdir(struct wincompat_dir *d);
int wincompat_closedir(struct wincompat_dir *d);
int wincompat_dirfd(struct wincompat_dir *d);
#define DIR struct wincompat_dir
#define opendir wincompat_opendir
#define fdopendir wincompat_fdopendir
#define readdir wincompat_readdir
#define closedir wincompat_closedir
#define dirfd(d) wincompat_dirfd(d)
void wincompat_rewinddir(struct wincompat_dir *d);
#define rewinddir wincompat_rewinddir
int wincompat_scandir(const char *path, struct dirent ***list,
		      int (*keep)(const struct dirent *),
		      int (*cmp)(const struct dirent **, const struct dirent **));
int wincompat_alphasort(const struct dirent **a, const struct dirent **b);
#define scandir wincompat_scandir
#define alphasort wincompat_alphasort

/* ---- advisory locks (LockFileEx) */
#define LOCK_SH 1
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
int wincompat_flock(int fd, int op);
#define flock(f, o) wincompat_flock(f, o)

/* ---- pipes, poll, processes, signals */
int wincompat_pipe(int fds[2]);
#define pipe(f) wincompat_pipe(f)

/* waitpid over the children registered with wincompat_child_add (the
 * Windows launch registers the process it created). */
int wincompat_child_add(int pid, void *process_handle);
#define WNOHANG 1
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0)
#define WTERMSIG(s) ((s) & 0x7f)
pid_t wincompat_waitpid(pid_t pid, int *status, int options);
#define waitpid wincompat_waitpid

/* Signals the CRT lacks (POSIX numbers); never raised by Windows itself. */
#define SIGHUP 1
#define SIGQUIT 3
#define SIGKILL 9
#define SIGPIPE 13
#define SIGALRM 14
#define SIGCHLD 17
#define SA_RESTART 0x10000000
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
typedef _sigset_t sigset_t;
struct sigaction {
	void (*sa_handler)(int);
	sigset_t sa_mask;
	int sa_flags;
};
int wincompat_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
int wincompat_sigemptyset(sigset_t *set);
int wincompat_sigaddset(sigset_t *set, int sig);
int wincompat_sigprocmask(int how, const sigset_t *set, sigset_t *old);
void (*wincompat_signal(int sig, void (*handler)(int)))(int);
int wincompat_kill(pid_t pid, int sig);
#define sigaction(s, a, o) wincompat_sigaction(s, a, o)
#define sigemptyset wincompat_sigemptyset
#define sigaddset wincompat_sigaddset
#define sigprocmask wincompat_sigprocmask
#define signal(s, h) wincompat_signal(s, h)
#define kill(p, s) wincompat_kill(p, s)

/* ---- anonymous memory */
#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 0x02
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_FAILED ((void *)-1)
void *wincompat_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int wincompat_munmap(void *addr, size_t len);
#define mmap wincompat_mmap
#define munmap wincompat_munmap

/* ---- the rest */
int wincompat_getentropy(void *buf, size_t len);
#define getentropy wincompat_getentropy
char *wincompat_strndup(const char *s, size_t n);
#define strndup wincompat_strndup
struct utsname {
	char sysname[64], nodename[256], release[64], version[64], machine[64];
};
int wincompat_uname(struct utsname *u);
#define uname(u) wincompat_uname(u)

#endif
