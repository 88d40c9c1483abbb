/* test_proc_win.c - proc.h and tmpdir.h on windows (under Wine in the
 * cross-build: label wine, plumbing only).  The program re-runs itself as
 * the child of each check (argv[1] a mode), and judges by effects on the
 * host: a grandchild's pid that no longer names a live process after the
 * tree kill, the bytes that came back, a directory left where it was.
 *
 *   echo        stdin to stdout, "err" on stderr, exit 7
 *   args        each argument on a line of its own
 *   tree N      starts a grandchild (mode "sleep"), prints its pid, then
 *               sleeps (N = 1) or exits 0 (N = 0)
 *   sleep       sleeps 60 s
 *   open PATH   opens PATH for reading (a file), then writes PATH.ran
 *   mark PATH   sleeps 300 ms, writes PATH, starts a grandchild (mode
 *               "sleep"), prints its pid, then sleeps 60 s
 *   lock PATH   takes a shared flock on PATH (created) as ref takes a
 *               lease (compat/flock.c: LockFileEx), writes PATH.locked,
 *               then sleeps 60 s */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "sandproof/census.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"
#include "sandproof/swap.h"
#include "sandproof/tmpdir.h"
#include "t.h"

static char self[4096];

static int child_tree(int stay, const char *mark)
{
	wchar_t w[4096], line[4200];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;

	if (mark) {
		FILE *f;

		Sleep(300);
		if (!(f = fopen(mark, "wb")))
			return 3;
		fclose(f);
	}
	GetModuleFileNameW(NULL, w, 4096);
	swprintf(line, 4200, L"\"%ls\" sleep", w);
	if (!CreateProcessW(w, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return 3;
	printf("%lu\n", (unsigned long)pi.dwProcessId);
	fflush(stdout);
	if (stay)
		Sleep(60000);
	return 0;
}

static int child_main(int argc, char **argv)
{
	char buf[4096];
	size_t n;

	if (!strcmp(argv[1], "echo")) {
		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			fwrite(buf, 1, n, stdout);
		fputs("err", stderr);
		return 7;
	}
	if (!strcmp(argv[1], "args")) {
		for (int i = 2; i < argc; i++)
			printf("%s\n", argv[i]);
		return 0;
	}
	if (!strcmp(argv[1], "tree"))
		return child_tree(argc > 2 && !strcmp(argv[2], "1"), NULL);
	if (!strcmp(argv[1], "mark") && argc > 2)
		return child_tree(1, argv[2]);
	if (!strcmp(argv[1], "open") && argc > 2) {
		FILE *f = fopen(argv[2], "rb");

		snprintf(buf, sizeof(buf), "%s.ran", argv[2]);
		if (f)
			fclose(f);
		if (!(f = fopen(buf, "wb")))
			return 3;
		fclose(f);
		return 0;
	}
	if (!strcmp(argv[1], "lock") && argc > 2) {
		int fd = open(argv[2], O_RDWR | O_CREAT, 0600);
		FILE *f;

		snprintf(buf, sizeof(buf), "%s.locked", argv[2]);
		if (fd < 0 || flock(fd, LOCK_SH) < 0 || !(f = fopen(buf, "wb")))
			return 3;
		fclose(f);
	}
	Sleep(60000); /* "sleep", and "lock" holding it */
	return 0;
}

static void run(struct proc_opts *o, struct proc_result *r, char **argv)
{
	o->argv = argv;
	memset(r, 0, sizeof(*r));
	t_ok(proc_run(o, r) == 0, "proc_run %s %s: 0", argv[1], argv[2] ? argv[2] : "");
}

static void check_io(void)
{
	struct proc_opts o;
	struct proc_result r;
	char *argv[] = {self, "echo", NULL};
	char *args[] = {self, "args", "a b", "", "q\"uote", "back\\\\", "tail\\\\\"x", NULL};

	proc_opts_init(&o);
	o.stdin_data = "fed\nbytes";
	o.stdin_len = 9;
	run(&o, &r, argv);
	t_ok(r.exited && r.exit_code == 7, "echo: exited with 7 (got %d/%d)", r.exited, r.exit_code);
	t_ok(r.out_len == 9 && !memcmp(r.out, "fed\nbytes", 9), "echo: stdin came back on stdout");
	t_ok(r.err_len == 3 && !strcmp(r.err, "err"), "echo: stderr captured apart");
	t_ok(r.pid > 0 && !r.timed_out && !r.term_signal, "echo: a pid, no timeout, no signal");
	proc_result_free(&r);
	proc_opts_init(&o);
	run(&o, &r, args);
	t_ok(r.out && !strcmp(r.out, "a b\n\nq\"uote\nback\\\\\ntail\\\\\"x\n"),
	     "args: every argument arrives as given (spaces, empty, quotes, backslashes)");
	proc_result_free(&r);
}

static void check_tree(void)
{
	struct proc_opts o;
	struct proc_result r;
	char *stay[] = {self, "tree", "1", NULL}, *leave[] = {self, "tree", "0", NULL};
	long g;

	proc_opts_init(&o);
	o.timeout_ms = 1500;
	run(&o, &r, stay);
	g = r.out ? strtol(r.out, NULL, 10) : 0;
	t_ok(r.timed_out && !r.exited && r.term_signal == SIGKILL,
	     "timeout: timed_out, killed (SIGKILL)");
	t_ok(g > 0 && proc_pid_exists(g) == 0, "timeout: the grandchild %ld was killed with the tree", g);
	t_ok(r.killed >= 2, "timeout: killed counts the program and the grandchild (%d)", r.killed);
	proc_result_free(&r);
	proc_opts_init(&o);
	o.kill_leftovers = true;
	run(&o, &r, leave);
	g = r.out ? strtol(r.out, NULL, 10) : 0;
	t_ok(r.exited && r.exit_code == 0 && r.leftovers == 1,
	     "leftovers: the program exited, its grandchild counted (%d)", r.leftovers);
	t_ok(g > 0 && proc_pid_exists(g) == 0, "kill_leftovers: the grandchild %ld is gone", g);
	proc_result_free(&r);
}

static void check_refusals(void)
{
	struct proc_opts o;
	struct proc_result r;
	char *argv[] = {self, "echo", NULL}, *none[] = {"no-such-program-sandproof", NULL};
	const char *held[] = {"openat", NULL};

	proc_opts_init(&o);
	o.argv = argv;
	o.hold_syscalls = held;
	t_ok(proc_run(&o, &r) == -EOPNOTSUPP, "a hold filter is refused (EOPNOTSUPP)");
	proc_result_free(&r);
	proc_opts_init(&o);
	o.argv = argv;
	o.private_mounts = true;
	t_ok(proc_run(&o, &r) == -EOPNOTSUPP, "private mounts are refused (EOPNOTSUPP)");
	proc_result_free(&r);
	proc_opts_init(&o);
	run(&o, &r, none);
	t_ok(r.setup_err == ENOENT && r.exit_code == 127 && !strcmp(r.setup_step, "exec"),
	     "no such program: setup_err ENOENT at exec, 127");
	proc_result_free(&r);
}

/* The signal option: SIGKILL is TerminateProcess of the program alone,
 * once the path exists and after_ms more; anything else is refused. */
static void check_signal(void)
{
	struct proc_opts o;
	struct proc_result r;
	char mark[4200];
	char *argv[] = {self, "mark", mark, NULL}, *echo[] = {self, "echo", NULL};
	long g;

	snprintf(mark, sizeof(mark), "%s.mark", self);
	remove(mark);
	proc_opts_init(&o);
	o.signal_no = SIGKILL;
	o.signal_when = mark;
	o.signal_after_ms = 100;
	o.timeout_ms = 20000;
	run(&o, &r, argv);
	g = r.out ? strtol(r.out, NULL, 10) : 0;
	t_ok(r.signalled && r.term_signal == SIGKILL && !r.timed_out && r.duration_ms >= 400 &&
	     access(mark, F_OK) == 0,
	     "signal: SIGKILL once the path exists, not before (signalled %d signal %d, %lu ms)",
	     r.signalled, r.term_signal, (unsigned long)r.duration_ms);
	t_ok(r.leftovers == 1 && g > 0 && proc_pid_exists(g) == 0,
	     "signal: the program alone; its grandchild %ld a leftover (%d), gone with the job", g,
	     r.leftovers);
	proc_result_free(&r);
	remove(mark);
	proc_opts_init(&o);
	o.signal_no = SIGKILL;
	o.signal_after_ms = 5000;
	run(&o, &r, echo);
	t_ok(r.exited && r.exit_code == 7 && !r.signalled, "signal: a program that ended is not signalled");
	proc_result_free(&r);
	proc_opts_init(&o);
	o.argv = echo;
	o.signal_no = SIGTERM;
	t_ok(proc_run(&o, &r) == -EOPNOTSUPP && r.pid == 0, "signal: SIGTERM is refused (EOPNOTSUPP), nothing runs");
	proc_result_free(&r);
	proc_opts_init(&o);
	o.argv = echo;
	o.signal_when = mark;
	t_ok(proc_run(&o, &r) == -EINVAL, "signal: when without a signal is refused (EINVAL)");
	proc_result_free(&r);
}

static int hold_seen_k;

static int hold_note_k(void *ctx, int k, const char *path, pid_t pid)
{
	(void)ctx;
	(void)path;
	(void)pid;
	hold_seen_k = k;
	return 0;
}

/* The hold of a path (an oplock): under Wine refused before anything
 * runs (ERROR_NOT_SUPPORTED), and prims_lacks says so; natively the
 * child's open of the file is held at open 1 while the action runs. */
static void check_hold(void)
{
	struct proc_opts o;
	struct proc_result r;
	char file[4200], ran[4300];
	char *argv[] = {self, "open", file, NULL};
	const char *held[] = {"openat", NULL};
	bool wine = !strcmp(prims_os_name(), "wine");
	int rc;

	snprintf(file, sizeof(file), "%s/sandproof-test-proc-win-held", prims_temp_root(0));
	snprintf(ran, sizeof(ran), "%s.ran", file);
	remove(ran);
	fclose(fopen(file, "wb"));
	proc_opts_init(&o);
	o.argv = argv;
	o.hold_path = file;
	o.hold_syscalls = held;
	t_ok(proc_run(&o, &r) == -EINVAL, "hold: a path and syscalls together are refused (EINVAL)");
	proc_result_free(&r);
	o.hold_syscalls = NULL;
	o.hold_at = 1;
	o.hold_action = hold_note_k;
	rc = proc_run(&o, &r);
	if (wine) {
		t_ok(rc == -EOPNOTSUPP && r.pid == 0 && access(ran, F_OK) != 0,
		     "hold under Wine: EOPNOTSUPP, nothing started (rc %d)", rc);
		t_ok(prims_lacks("hold") && strstr(prims_lacks("hold"), "Wine") &&
		     prims_lacks("swap") && strstr(prims_lacks("swap"), "Wine"),
		     "prims_lacks hold/swap under Wine: %s / %s", prims_lacks("hold"), prims_lacks("swap"));
		snprintf(ran, sizeof(ran), "%s.j", file);
		t_ok(swap_junction(ran, "C:\\") == -EOPNOTSUPP && access(ran, F_OK) != 0,
		     "swap_junction under Wine: EOPNOTSUPP, nothing left");
	} else {
		t_ok(rc == 0 && r.hold_hit && hold_seen_k == 1 && r.hold_calls >= 1 &&
		     access(ran, F_OK) == 0,
		     "hold natively: open 1 held, the action ran, the child went on (%s)", r.hold_note);
		t_ok(!prims_lacks("hold") && !prims_lacks("swap"), "prims_lacks: hold and swap here");
	}
	proc_result_free(&r);
	remove(ran);
	remove(file);
}

/* The junction swapper: under Wine refused (prims_lacks names Wine, and a
 * plain directory is no junction: EINVAL, untouched); natively a junction
 * flipped between two directories until stopped, then back at its first
 * target (read through it from the host). */
static void check_swapper(void)
{
	char j[4200], a[4200], b[4200], f[4300];
	struct swapper *s = NULL;
	uint64_t n = 0;
	bool wine = !strcmp(prims_os_name(), "wine");
	FILE *fp;
	int rc;

	t_ok(swap_start(NULL, "C:\\", &s) == -EINVAL && !s && swap_stop(NULL, &n) == -EINVAL && n == 0,
	     "swapper: NULL refused");
	snprintf(a, sizeof(a), "%s/sandproof-test-swapper-a", prims_temp_root(0));
	snprintf(b, sizeof(b), "%s/sandproof-test-swapper-b", prims_temp_root(0));
	snprintf(j, sizeof(j), "%s/sandproof-test-swapper-j", prims_temp_root(0));
	mkdir(a, 0700);
	mkdir(b, 0700);
	snprintf(f, sizeof(f), "%s/f", a);
	if ((fp = fopen(f, "wb")))
		fclose(fp);
	if (wine) {
		t_ok(prims_lacks("swapper") && strstr(prims_lacks("swapper"), "Wine"),
		     "prims_lacks swapper under Wine: %s", prims_lacks("swapper"));
		rc = swap_start(a, b, &s);
		t_ok(rc == -EINVAL && !s && access(f, F_OK) == 0,
		     "swapper under Wine over a plain directory: EINVAL, untouched (rc %d)", rc);
	} else {
		t_ok(!prims_lacks("swapper"), "prims_lacks: swapper here");
		rc = swap_junction(j, a);
		if (rc == 0)
			rc = swap_start(j, b, &s);
		if (rc == 0) {
			Sleep(100);
			rc = swap_stop(s, &n);
		}
		snprintf(f, sizeof(f), "%s/f", j);
		t_ok(rc == 0 && n >= 1 && access(f, F_OK) == 0,
		     "swapper natively: %llu flips, the junction back at its first target (rc %d)",
		     (unsigned long long)n, rc);
		rmdir(j); /* the junction, as a link */
	}
	snprintf(f, sizeof(f), "%s/f", a);
	remove(f);
	rmdir(a);
	rmdir(b);
}

/* The census (Toolhelp): a child of this test whose command line holds a
 * marker is found as a descendant and as marked while it lives, and
 * neither once killed; mounts are refused.  Under Wine this is
 * Wine's Toolhelp and NtQueryInformationProcess, never a Windows result. */
static size_t census_count(const struct census *c, enum census_kind k, const char *needle)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].kind == k && (!needle || strstr(c->items[i].text, needle)))
			n++;
	return n;
}

static void check_census(void)
{
	char cmd[4400], marker[64], pidtext[32];
	wchar_t wcmd[4400];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	const char *mounts[] = {"C:/", NULL};
	struct census_opts o = {0};
	struct census c;
	int rc;

	t_ok(!prims_lacks("census"), "prims_lacks: census here");
	snprintf(marker, sizeof(marker), "sp-census-marker-%lu", (unsigned long)GetCurrentProcessId());
	snprintf(cmd, sizeof(cmd), "\"%s\" sleep %s", self, marker);
	MultiByteToWideChar(CP_UTF8, 0, cmd, -1, wcmd, 4400);
	if (!CreateProcessW(NULL, wcmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
		t_ok(0, "census: the marked child could not start (%lu)", GetLastError());
		return;
	}
	snprintf(pidtext, sizeof(pidtext), "pid %lu ", (unsigned long)pi.dwProcessId);
	o.marker = marker;
	Sleep(200); /* its command line readable */
	rc = census_take(&o, &c);
	t_ok(rc == 0 && census_count(&c, CENSUS_MARKED, pidtext) == 1 &&
		     census_count(&c, CENSUS_PROC, pidtext) == 1,
	     "census: the live child found by its marker and as a descendant (rc %d, %zu items)", rc, c.n);
	for (size_t i = 0; i < c.n && getenv("SP_CENSUS_DEBUG"); i++)
		printf("# %s %s\n", census_kind_name(c.items[i].kind), c.items[i].text);
	census_free(&c);
	TerminateProcess(pi.hProcess, 9);
	WaitForSingleObject(pi.hProcess, 10000);
	CloseHandle(pi.hProcess);
	CloseHandle(pi.hThread);
	t_ok(census_take(&o, &c) == 0 && census_count(&c, CENSUS_MARKED, pidtext) == 0 &&
		     census_count(&c, CENSUS_PROC, pidtext) == 0,
	     "census: the killed child found by neither");
	census_free(&c);
	o.mount_prefixes = mounts;
	t_ok(census_take(&o, &c) == -EOPNOTSUPP && c.n == 0, "census of mounts: EOPNOTSUPP (no mount table)");
	census_free(&c);
}

/* The census of locks (contention, census_win.c): a lease a child holds
 * shared, as ref does, is found; a free file beside it is not, and is
 * free again after the census asked (its probe lock released); once the
 * child is killed its lease is free.  Under Wine this is Wine's
 * LockFileEx, never a Windows result. */
static void check_census_locks(void)
{
	char dir[4200], held[4300], freef[4300], mark[4400], cmd[8800];
	wchar_t wcmd[8800];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	struct census_opts o = {0};
	struct census c;
	int rc, fd;

	snprintf(dir, sizeof(dir), "%s/sandproof-test-census-locks", prims_temp_root(0));
	snprintf(held, sizeof(held), "%s/a.lease", dir);
	snprintf(freef, sizeof(freef), "%s/b.lease", dir);
	snprintf(mark, sizeof(mark), "%s.locked", held);
	remove(held), remove(freef), remove(mark), rmdir(dir);
	fd = mkdir(dir, 0700) == 0 ? open(freef, O_RDWR | O_CREAT, 0600) : -1;
	t_ok(fd >= 0, "census locks: a directory and a free lease made");
	if (fd < 0)
		return;
	snprintf(cmd, sizeof(cmd), "\"%s\" lock \"%s\"", self, held);
	MultiByteToWideChar(CP_UTF8, 0, cmd, -1, wcmd, 8800);
	if (!CreateProcessW(NULL, wcmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
		t_ok(0, "census locks: the holding child could not start (%lu)", GetLastError());
		close(fd);
		return;
	}
	for (int i = 0; i < 500 && access(mark, F_OK) != 0; i++)
		Sleep(10);
	o.lock_dir = dir;
	rc = census_take(&o, &c);
	t_ok(rc == 0 && census_count(&c, CENSUS_LOCK, "a.lease") == 1 &&
		     census_count(&c, CENSUS_LOCK, "b.lease") == 0,
	     "census locks: the child's lease held, the free one not (rc %d, %zu items)", rc, c.n);
	census_free(&c);
	t_ok(flock(fd, LOCK_EX | LOCK_NB) == 0 && flock(fd, LOCK_UN) == 0,
	     "census locks: the free lease free after the census (its probe lock released)");
	TerminateProcess(pi.hProcess, 9);
	WaitForSingleObject(pi.hProcess, 10000);
	CloseHandle(pi.hProcess);
	CloseHandle(pi.hThread);
	rc = census_take(&o, &c);
	t_ok(rc == 0 && census_count(&c, CENSUS_LOCK, NULL) == 0,
	     "census locks: none once the child is killed (rc %d, %zu items)", rc, c.n);
	census_free(&c);
	close(fd);
	remove(held), remove(freef), remove(mark), rmdir(dir);
}

static void check_tmpdir(void)
{
	char a[4200], b[4200], c[4200];
	int fd, fd2;

	snprintf(a, sizeof(a), "%s/sandproof-test-proc-win-a", prims_temp_root(0));
	snprintf(b, sizeof(b), "%s/sandproof-test-proc-win-b", prims_temp_root(0));
	snprintf(c, sizeof(c), "%s/sandproof-test-proc-win-c", prims_temp_root(0));
	rmdir(a), rmdir(b), rmdir(c);
	t_ok(mkdir(a, 0700) == 0 && mkdir(c, 0700) == 0, "tmpdir: made two directories");
	fd = open(a, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	fd2 = open(a, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	t_ok(fd >= 0 && tmpdir_lock(fd, 1) == 0, "tmpdir_lock: claimed");
	t_ok(fd2 >= 0 && tmpdir_lock(fd2, 1) == -EWOULDBLOCK, "tmpdir_lock: a second claim is refused");
	t_ok(tmpdir_rename_new(fd, a, c) == -EEXIST, "tmpdir_rename_new: an existing name is kept");
	t_ok(tmpdir_rename_new(fd, a, b) == 0, "tmpdir_rename_new: renamed through the claim");
	close(fd);
	close(fd2);
	t_ok(access(b, F_OK) == 0 && access(a, F_OK) != 0, "tmpdir: the directory is at its new name");
	rmdir(b), rmdir(c);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return child_main(argc, argv);
	prims_self_exe_init(argv[0]);
	snprintf(self, sizeof(self), "%s", prims_self_exe() ? prims_self_exe() : "");
	check_io();
	check_tree();
	check_refusals();
	check_signal();
	check_hold();
	check_swapper();
	check_census();
	check_census_locks();
	check_tmpdir();
	t_ok(proc_pid_exists((long)GetCurrentProcessId()) == 1, "proc_pid_exists: this process exists");
	return t_done();
}
