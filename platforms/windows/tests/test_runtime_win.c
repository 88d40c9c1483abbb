/* test_runtime_win.c - runtime roots in the windows build (the core's
 * runtime.c over platforms/windows/enforce/rtwin.c and the compat layer),
 * without fork: drive-path canonicalisation and its refusals, acquire and
 * the layout with '\' paths, the parent's protected owner-only DACL read
 * back through a handle and the refusal of a parent others may write, the
 * stamp and its re-provisioning, the lease (a second handle in this process
 * holds it: LockFileEx conflicts between handles, so gc skips the root),
 * eviction by age and count, and gc replaying a crashed run's DACL journal.
 *
 * Under Wine (ctest -L portable in the cross-build) this is plumbing: what
 * Wine cannot show -- junctions, ACL enforcement for other SIDs -- is
 * listed in platforms/windows/enforce/README.md and skipped here, never
 * counted as passed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include "runtime.h"
#include "sandproof/platform.h"
#include "t.h"

static char base[PATH_MAX]; /* canonical scratch directory, '\' separated */

static const char *P(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, PATH_MAX, "%s\\%s", base, rel);
	return b;
}

static bool is_dir(const char *p)
{
	DWORD a = GetFileAttributesA(p);
	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

static bool exists(const char *p)
{
	return GetFileAttributesA(p) != INVALID_FILE_ATTRIBUTES;
}

static void test_canonicalize(void)
{
	char out[PATH_MAX], low[PATH_MAX], exp[PATH_MAX];

	t_ok(runtime_canonicalize(base, out, sizeof(out)) == 0 && !strcmp(out, base),
	     "canonical: the scratch directory is its own canonical form (%s)", base);
	snprintf(low, sizeof(low), "%s", base);
	low[0] = (char)(low[0] - 'A' + 'a');
	for (char *q = low; *q; q++)
		if (*q == '\\')
			*q = '/';
	t_ok(runtime_canonicalize(low, out, sizeof(out)) == 0 && !strcmp(out, base),
	     "canonical: a lower-case drive and '/' separators name the same path");
	snprintf(low, sizeof(low), "%s\\x\\\\.\\y\\", base);
	snprintf(exp, sizeof(exp), "%s\\x\\y", base);
	t_ok(runtime_canonicalize(low, out, sizeof(out)) == 0 && !strcmp(out, exp),
	     "canonical: missing components appended as written, cleaned");
	CreateDirectoryA(P("Mixed"), NULL);
	snprintf(low, sizeof(low), "%s\\MIXED\\sub", base);
	snprintf(exp, sizeof(exp), "%s\\Mixed\\sub", base);
	t_ok(runtime_canonicalize(low, out, sizeof(out)) == 0 && !strcmp(out, exp),
	     "canonical: an existing component takes its on-disk case (GetFinalPathNameByHandleW)");
	static const char *const refused[] = {"\\\\server\\share\\x", "C:x", "\\x",
					       "\\\\?\\C:\\x", "%s\\a\\..\\b", "%s\\f:stream",
					       "%s\\PROGRA~1", "%s\\trail.", "%s\\NUL"};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(low, sizeof(low), refused[i], base);
		t_ok(runtime_canonicalize(low, out, sizeof(out)) == -EINVAL,
		     "canonical: refused (EINVAL): %s", refused[i]);
	}
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)) && chdir(base) == 0) {
		snprintf(exp, sizeof(exp), "%s\\rel\\x", base);
		t_ok(runtime_canonicalize("rel/x", out, sizeof(out)) == 0 && !strcmp(out, exp),
		     "canonical: a relative path is taken from the working directory");
		(void)chdir(cwd);
	} else {
		t_ok(0, "chdir to the scratch directory");
	}
}

/* The runner's user SID, string form (LocalFree). */
static char *user_sid(void)
{
	BYTE buf[512];
	DWORD n;
	HANDLE tok;
	char *s = NULL;
	if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) {
		if (GetTokenInformation(tok, TokenUser, buf, sizeof(buf), &n))
			ConvertSidToStringSidA(((TOKEN_USER *)buf)->User.Sid, &s);
		CloseHandle(tok);
	}
	return s;
}

/* The DACL of path read back: *aces_ok when it is exactly the user and
 * SYSTEM with full control, inherited (in any order); *prot when it is
 * protected.  Printed as SDDL when not as planned. */
static bool dacl_read(const char *path, bool *aces_ok, bool *prot)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL dacl = NULL;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev;
	char *user = user_sid();
	int seen_user = 0, seen_sys = 0;

	*aces_ok = *prot = false;
	if (!user || GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
					   NULL, &dacl, NULL, &sd) != ERROR_SUCCESS) {
		LocalFree(user);
		return false;
	}
	*prot = GetSecurityDescriptorControl(sd, &ctl, &rev) && (ctl & SE_DACL_PROTECTED);
	for (DWORD i = 0; dacl && i < dacl->AceCount; i++) {
		ACCESS_ALLOWED_ACE *a;
		char *s = NULL;
		if (!GetAce(dacl, i, (void **)&a) || a->Header.AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    a->Mask != FILE_ALL_ACCESS || (a->Header.AceFlags & 0x3) != 0x3 ||
		    !ConvertSidToStringSidA(&a->SidStart, &s))
			continue;
		seen_user += !strcmp(s, user);
		seen_sys += !strcmp(s, "S-1-5-18");
		LocalFree(s);
	}
	*aces_ok = dacl && dacl->AceCount == 2 && seen_user == 1 && seen_sys == 1;
	if (!*aces_ok || !*prot) { /* say what was there */
		char *str = NULL;
		if (ConvertSecurityDescriptorToStringSecurityDescriptorA(
			    sd, SDDL_REVISION_1, DACL_SECURITY_INFORMATION, &str, NULL)) {
			printf("# %s: %s (user %s)\n", path, str, user);
			LocalFree(str);
		}
	}
	LocalFree(user);
	LocalFree(sd);
	return true;
}

static bool under_wine(void)
{
	return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL;
}

/* A directory whose DACL lets Everyone add files (the user keeps full
 * control, so the test can remove it). */
static bool make_open_dir(const char *path)
{
	EXPLICIT_ACCESS_A ea[2] = {0};
	PACL acl = NULL;
	char user[] = "CURRENT_USER", every[] = "EVERYONE";
	BOOL ok;

	if (!CreateDirectoryA(path, NULL))
		return false;
	BuildExplicitAccessWithNameA(&ea[0], user, FILE_ALL_ACCESS, SET_ACCESS,
				     SUB_CONTAINERS_AND_OBJECTS_INHERIT);
	BuildExplicitAccessWithNameA(&ea[1], every, FILE_ADD_FILE | FILE_GENERIC_READ, SET_ACCESS,
				     NO_INHERITANCE);
	if (SetEntriesInAclA(2, ea, NULL, &acl) != ERROR_SUCCESS)
		return false;
	ok = SetNamedSecurityInfoA((char *)path, SE_FILE_OBJECT,
				   DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
				   NULL, NULL, acl, NULL) == ERROR_SUCCESS;
	LocalFree(acl);
	return ok;
}

static void test_acquire(void)
{
	struct runtime_config c = {.parent = P("rt"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_root r, r2;
	struct runtime_report rep;
	char exp[PATH_MAX], name[RUNTIME_NAME_LEN + 1];

	CreateDirectoryA(P("ws"), NULL);
	int rc = runtime_acquire(&c, P("ws"), &r, &rep);
	t_ok(rc == 0, "acquire: a root for a workspace (rc %d)", rc);
	if (rc < 0)
		return;
	runtime_derive_name(P("ws"), name);
	snprintf(exp, sizeof(exp), "%s\\rt\\%s", base, name);
	t_ok(!strcmp(r.root, exp) && !strcmp(r.name, name),
	     "acquire: the root is <parent>\\<sha256 name of the canonical workspace>");
	snprintf(exp, sizeof(exp), "%s\\rt\\%s\\tmp", base, name);
	t_ok(!strcmp(r.tmp, exp) && is_dir(r.tmp) && is_dir(r.cache) && is_dir(r.data),
	     "acquire: tmp, cache and data made, named with '\\'");
	snprintf(exp, sizeof(exp), "%s\\cache\\npm", r.root);
	t_ok(is_dir(exp), "acquire: the layout below cache");
	t_ok(r.n_env > 0 && !strcmp(r.env[0].key, "TMPDIR") && !strcmp(r.env[0].value, r.tmp),
	     "acquire: TMPDIR names the root's tmp");
	bool aces_ok, prot;
	t_ok(dacl_read(P("rt"), &aces_ok, &prot) && aces_ok,
	     "acquire: the parent it made grants the user and SYSTEM only, full, inherited");
	if (under_wine())
		t_skipped("the parent's DACL is protected: Wine keeps no protected flag (it "
			  "rebuilds a DACL from the Unix mode); native run only");
	else
		t_ok(prot, "acquire: the parent's DACL is protected (nothing inherited from above)");
	rc = runtime_acquire(&c, P("ws"), &r2, &rep);
	t_ok(rc == 0 && !rep.reprovisioned,
	     "acquire: a second run on the same workspace shares the lease, stamp verified");
	if (rc == 0)
		runtime_release(&r2);
	runtime_release(&r);

	/* the stamp: garbage makes the next run re-provision, saying why */
	snprintf(exp, sizeof(exp), "%s\\rt\\%s.stamp", base, name);
	FILE *f = fopen(exp, "wb");
	if (f) {
		fputs("forged\n", f);
		fclose(f);
	}
	rc = runtime_acquire(&c, P("ws"), &r, &rep);
	t_ok(f && rc == 0 && rep.reprovisioned && !strcmp(rep.reprovision_reason, "stamp unreadable"),
	     "stamp: a forged stamp re-provisions (%s)", rep.reprovision_reason);
	if (rc == 0)
		runtime_release(&r);

	struct runtime_config o = c;
	o.parent = P("open");
	t_ok(make_open_dir(P("open")), "setup: a directory Everyone may add files to");
	rc = runtime_acquire(&o, P("ws"), &r, &rep);
	t_ok(rc == -EPERM, "acquire: a parent others may write is refused with EPERM (rc %d)", rc);
	if (rc == 0)
		runtime_release(&r);
}

static bool rep_has(const struct runtime_report_entry *v, size_t n, const char *name,
		    const char *reason)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name) && !strcmp(v[i].reason, reason))
			return true;
	return false;
}

/* Acquire and release: a root last used now.  Its name into name. */
static int touch(const struct runtime_config *c, const char *ws, char *name)
{
	struct runtime_root r;
	struct runtime_report rep;
	CreateDirectoryA(ws, NULL);
	int rc = runtime_acquire(c, ws, &r, &rep);
	if (rc == 0) {
		snprintf(name, RUNTIME_NAME_LEN + 1, "%s", r.name);
		runtime_release(&r);
	}
	return rc;
}

static void test_lease_and_evict(void)
{
	struct runtime_config c = {.parent = P("rt2"), .max_age_s = UINT64_MAX,
				   .max_roots = UINT64_MAX};
	struct runtime_config z = c;
	struct runtime_report rep;
	char a[RUNTIME_NAME_LEN + 1], b[RUNTIME_NAME_LEN + 1], d[RUNTIME_NAME_LEN + 1];
	char lease[PATH_MAX], root[PATH_MAX];

	z.max_roots = 0;
	t_ok(touch(&c, P("wsA"), a) == 0, "lease: root A made");
	snprintf(lease, sizeof(lease), "%s\\rt2\\%s.lease", base, a);
	snprintf(root, sizeof(root), "%s\\rt2\\%s", base, a);
	/* another holder: a handle of its own, as another run's would be */
	int fd = open(lease, O_RDWR | O_CLOEXEC);
	t_ok(fd >= 0 && flock(fd, LOCK_SH) == 0, "lease: a second handle holds it shared");
	int rc = runtime_gc(&z, NULL, false, &rep);
	t_ok(rc == 0 && is_dir(root) && rep_has(rep.skipped, rep.n_skipped, a, "in use"),
	     "evict: a root whose lease another handle holds is skipped (in use) and intact");
	if (fd >= 0)
		close(fd);
	rc = runtime_gc(&z, NULL, false, &rep);
	t_ok(rc == 0 && !exists(root) && !exists(lease) &&
	     rep_has(rep.evicted, rep.n_evicted, a, "lru"),
	     "evict: once it is dropped the root, its stamp and its lease are gone");

	t_ok(touch(&c, P("wsB"), b) == 0, "age: root B made");
	Sleep(30);
	z.max_age_s = 0;
	z.max_roots = UINT64_MAX;
	rc = runtime_gc(&z, NULL, true, &rep);
	snprintf(root, sizeof(root), "%s\\rt2\\%s", base, b);
	t_ok(rc == 0 && is_dir(root) && rep_has(rep.evicted, rep.n_evicted, b, "age"),
	     "age: a dry run reports it and keeps it");
	rc = runtime_gc(&z, NULL, false, &rep);
	t_ok(rc == 0 && !exists(root) && rep_has(rep.evicted, rep.n_evicted, b, "age"),
	     "age: a root unused for longer than max_age_s is evicted");

	t_ok(touch(&c, P("wsC"), b) == 0 && touch(&c, P("wsD"), d) == 0, "lru: roots C, D made");
	z.max_age_s = UINT64_MAX;
	z.max_roots = 1;
	rc = runtime_gc(&z, NULL, false, &rep);
	snprintf(root, sizeof(root), "%s\\rt2\\%s", base, d);
	t_ok(rc == 0 && rep_has(rep.evicted, rep.n_evicted, b, "lru") && is_dir(root) &&
	     rep.evicted_total == 1, "lru: the least recently used goes, the newer stays");
	struct runtime_root cur;
	z.max_roots = 0;
	rc = runtime_acquire(&z, P("wsD"), &cur, &rep);
	t_ok(rc == 0 && is_dir(root), "evict: a run never evicts its own root");
	if (rc == 0)
		runtime_release(&cur);
}

/* RT-4 on Windows: an evictor unlinks a lease file another run still has
 * open (the compat unlinkat); the name must be free at once, else that
 * run's reopen of <name>.lease is refused while the old handle lingers. */
static void test_unlink_open(void)
{
	char f[PATH_MAX];
	snprintf(f, sizeof(f), "%s\\held.lease", base);
	int a = open(f, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	int dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_ok(a >= 0 && dfd >= 0 && unlinkat(dfd, "held.lease", 0) == 0,
	     "unlink: a file another handle holds open is unlinked");
	int b = open(f, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (under_wine())
		t_skipped("unlink: the name free at once while the old file is open: Wine keeps it "
			  "until the last handle closes (errno %d); native run only", b >= 0 ? 0 : errno);
	else
		t_ok(b >= 0, "unlink: its name is free at once (a new file made while the old is "
		     "open; errno %d)", b >= 0 ? 0 : errno);
	if (b >= 0)
		close(b);
	if (a >= 0)
		close(a);
	if (dfd >= 0)
		close(dfd);
	DeleteFileA(f);
}

/* A crashed run's journal in %LOCALAPPDATA%\sandproof\acl-journal. */
static bool make_journal(char *path, size_t len, const char *body)
{
	char dir[MAX_PATH];
	DWORD n = GetEnvironmentVariableA("LOCALAPPDATA", dir, MAX_PATH);
	if (n == 0 || n >= MAX_PATH - 40)
		return false;
	strcat(dir, "\\sandproof");
	CreateDirectoryA(dir, NULL);
	strcat(dir, "\\acl-journal");
	CreateDirectoryA(dir, NULL);
	snprintf(path, len, "%s\\run-4242-%lu.journal", dir, (unsigned long)GetTickCount());
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	fputs(body, f);
	return fclose(f) == 0;
}

static void test_gc_replay(void)
{
	struct platform_replay pr;
	char j[MAX_PATH];

	t_ok(make_journal(j, sizeof(j), ""), "replay: a crashed run's (empty) journal");
	t_ok(platform_replay_crashed(true, &pr) == 0 && pr.what && !strcmp(pr.what, "ACL journals") &&
	     exists(j), "replay: a dry run names what it would replay and changes nothing");
	t_ok(platform_replay_crashed(false, &pr) == 0 && pr.replayed >= 1 && !exists(j),
	     "replay: the journal is restored and deleted");
	char *argv[] = {"gc", "--parent", (char *)P("rt2"), NULL};
	t_ok(make_journal(j, sizeof(j), "") && gc_main(3, argv) == 0 && !exists(j),
	     "gc: replays a crashed run's journal, exit 0");
	t_ok(make_journal(j, sizeof(j), "v1\tnot a journal line\n") && gc_main(3, argv) == 1 &&
	     exists(j), "gc: a journal that cannot be replayed is kept, exit 1");
	DeleteFileA(j);
	char *dry[] = {"gc", "--dry-run", NULL};
	t_ok(_putenv_s("HOME", base) == 0 && gc_main(2, dry) == 0,
	     "gc: the default parent below a drive-path HOME is accepted");
	t_ok(_putenv_s("HOME", "relative\\home") == 0 && gc_main(2, dry) == 2,
	     "gc: a HOME that is no absolute drive path is a usage error (2)");
}

/* A junction (mount point) at link to the directory target: the link made
 * as an empty directory, then FSCTL_SET_REPARSE_POINT.  0 or the Win32
 * error (Wine: ERROR_NOT_SUPPORTED). */
static DWORD make_junction(const char *link, const char *target)
{
	struct {
		DWORD tag;
		WORD len, reserved, sub_off, sub_len, print_off, print_len;
		WCHAR path[MAX_PATH + 8];
	} rp = {.tag = IO_REPARSE_TAG_MOUNT_POINT};
	WCHAR wt[MAX_PATH];
	DWORD ret, e = 0;

	if (!MultiByteToWideChar(CP_UTF8, 0, target, -1, wt, MAX_PATH) || !CreateDirectoryA(link, NULL))
		return GetLastError();
	int n = swprintf(rp.path, MAX_PATH + 4, L"\\??\\%ls", wt);
	rp.sub_len = (WORD)(n * sizeof(WCHAR));
	rp.print_off = (WORD)(rp.sub_len + sizeof(WCHAR));
	rp.len = (WORD)(4 * sizeof(WORD) + rp.sub_len + 2 * sizeof(WCHAR));
	HANDLE h = CreateFileA(link, GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError();
	if (!DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, &rp, 8 + rp.len, NULL, 0, &ret, NULL))
		e = GetLastError();
	CloseHandle(h);
	return e;
}

/* RT-6: a junction inside a root is removed as a link by eviction, never
 * descended: what it points to survives. */
static void test_evict_junction(void)
{
	struct runtime_config c = {.parent = P("rt3"), .max_age_s = UINT64_MAX, .max_roots = 0};
	struct runtime_report rep;
	char name[RUNTIME_NAME_LEN + 1], link[PATH_MAX], keep[PATH_MAX], root[PATH_MAX];

	CreateDirectoryA(P("victim"), NULL);
	snprintf(keep, sizeof(keep), "%s\\keep.txt", P("victim"));
	FILE *f = fopen(keep, "wb");
	if (f)
		fclose(f);
	t_ok(f && touch(&c, P("wsJ"), name) == 0, "junction: a root and a victim directory made");
	snprintf(root, sizeof(root), "%s\\rt3\\%s", base, name);
	snprintf(link, sizeof(link), "%s\\cache\\j", root);
	DWORD e = make_junction(link, P("victim"));
	if (e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION) {
		t_skipped("a junction in a root is unlinked, never descended: no junction can be "
			  "made here (FSCTL_SET_REPARSE_POINT: error %lu; Wine); native run only", e);
		return;
	}
	t_ok(e == 0, "junction: made in the root's cache (error %lu)", e);
	int rc = runtime_gc(&c, NULL, false, &rep);
	t_ok(rc == 0 && !exists(root) && exists(keep) && is_dir(P("victim")),
	     "junction: the root is evicted, the junction's target and its file survive");
}

static void rm_tree(const char *path)
{
	char pat[PATH_MAX], sub[PATH_MAX];
	WIN32_FIND_DATAA fd;
	snprintf(pat, sizeof(pat), "%s\\*", path);
	HANDLE h = FindFirstFileA(pat, &fd);
	for (BOOL more = h != INVALID_HANDLE_VALUE; more; more = FindNextFileA(h, &fd)) {
		if (!strcmp(fd.cFileName, ".") || !strcmp(fd.cFileName, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s\\%s", path, fd.cFileName);
		if ((fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
		    !(fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
			rm_tree(sub);
		else
			DeleteFileA(sub);
	}
	if (h != INVALID_HANDLE_VALUE)
		FindClose(h);
	RemoveDirectoryA(path);
}

int main(void)
{
	char tmp[MAX_PATH], area[MAX_PATH];
	DWORD n = GetTempPathA(sizeof(tmp), tmp);
	if (n == 0 || n >= sizeof(tmp))
		return 1;
	snprintf(area, sizeof(area), "%ssp-rtwin-%lu-%llu", tmp, GetCurrentProcessId(),
		 (unsigned long long)GetTickCount64());
	if (!CreateDirectoryA(area, NULL) || runtime_canonicalize(area, base, sizeof(base)) < 0) {
		printf("not ok - scratch directory %s\n", area);
		return 1;
	}
	test_canonicalize();
	test_acquire();
	test_lease_and_evict();
	test_unlink_open();
	test_gc_replay();
	test_evict_junction();
	rm_tree(base);
	t_ok(!exists(base), "scratch directory removed");
	return t_done();
}
