/* test_winerr.c - the Windows probe's classification, on any OS (TAP):
 * a failure is a denial only for ERROR_ACCESS_DENIED (and its Winsock
 * spelling WSAEACCES); every other Win32 error keeps its own name and a
 * nearest errno that is never a policy name. */
#include "winerr.h"

#include <stdio.h>
#include <string.h>

static int t_n, t_fail;

static void t_ok(int cond, const char *what, unsigned long code)
{
	t_n++;
	if (!cond)
		t_fail++;
	printf("%s %d - %s (%lu)\n", cond ? "ok" : "not ok", t_n, what, code);
}

/* One named case: the name, the nearest errno, whether it is a denial. */
static void t_case(unsigned long code, const char *name, const char *errname, int denied)
{
	char buf[32], what[160];

	snprintf(what, sizeof(what), "%s is %s, %s", name, errname,
		 denied ? "denied" : "not denied");
	t_ok(strcmp(winerr_name(code, buf, sizeof(buf)), name) == 0 &&
	     strcmp(winerr_errno_name(code), errname) == 0 &&
	     winerr_is_denied(code) == (denied != 0), what, code);
}

/* The table: no code twice, no name twice, every name a Win32 or Winsock
 * spelling, and the errno policy names only on the denied codes. */
static void t_table(void)
{
	int dup = 0, bad_name = 0, mislabel = 0;

	for (size_t i = 0; i < winerr_count; i++) {
		const struct winerr_info *e = &winerr_table[i];

		for (size_t j = i + 1; j < winerr_count; j++)
			if (e->code == winerr_table[j].code ||
			    strcmp(e->name, winerr_table[j].name) == 0)
				dup++;
		if (strncmp(e->name, "ERROR_", 6) != 0 && strncmp(e->name, "WSA", 3) != 0)
			bad_name++;
		if (winerr_errno_is_policy(e->errno_name) != winerr_is_denied(e->code))
			mislabel++;
	}
	t_ok(dup == 0, "no code or name appears twice in the table", (unsigned long)dup);
	t_ok(bad_name == 0, "every name is ERROR_* or WSA*", (unsigned long)bad_name);
	t_ok(mislabel == 0, "table: a policy errno name exactly on the denied codes",
	     (unsigned long)mislabel);
}

/* Every code up to 70000, known or not: denied only for 5 and 10013, and
 * a policy errno name exactly when denied. */
static void t_sweep(void)
{
	unsigned long denied = 0, mislabel = 0;

	for (unsigned long c = 0; c < 70000; c++) {
		bool d = winerr_is_denied(c);

		if (d && c != 5 && c != 10013)
			denied++;
		if (winerr_errno_is_policy(winerr_errno_name(c)) != d)
			mislabel++;
	}
	t_ok(denied == 0, "sweep: no code but 5 and 10013 is a denial", denied);
	t_ok(mislabel == 0, "sweep: errno is a policy name exactly when denied", mislabel);
}

int main(void)
{
	t_case(5, "ERROR_ACCESS_DENIED", "EACCES", 1);
	t_case(10013, "WSAEACCES", "EACCES", 1);
	t_case(32, "ERROR_SHARING_VIOLATION", "EBUSY", 0);
	t_case(33, "ERROR_LOCK_VIOLATION", "EBUSY", 0);
	t_case(2, "ERROR_FILE_NOT_FOUND", "ENOENT", 0);
	t_case(3, "ERROR_PATH_NOT_FOUND", "ENOENT", 0);
	t_case(80, "ERROR_FILE_EXISTS", "EEXIST", 0);
	t_case(183, "ERROR_ALREADY_EXISTS", "EEXIST", 0);
	t_case(145, "ERROR_DIR_NOT_EMPTY", "ENOTEMPTY", 0);
	t_case(1314, "ERROR_PRIVILEGE_NOT_HELD", "ENOTSUP", 0);
	t_case(740, "ERROR_ELEVATION_REQUIRED", "ENOTSUP", 0);
	t_case(19, "ERROR_WRITE_PROTECT", "EIO", 0);
	t_case(1920, "ERROR_CANT_ACCESS_FILE", "EIO", 0);
	t_case(1921, "ERROR_CANT_RESOLVE_FILENAME", "ELOOP", 0);
	t_case(50, "ERROR_NOT_SUPPORTED", "EOPNOTSUPP", 0);
	t_case(10061, "WSAECONNREFUSED", "ECONNREFUSED", 0);
	t_case(10060, "WSAETIMEDOUT", "ETIMEDOUT", 0);
	t_case(10051, "WSAENETUNREACH", "ENETUNREACH", 0);
	t_case(10054, "WSAECONNRESET", "ECONNRESET", 0);
	t_case(99999, "WIN32_99999", "EIO", 0);
	t_case(0, "WIN32_0", "EIO", 0);
	t_table();
	t_sweep();
	printf("1..%d\n", t_n);
	if (t_fail)
		printf("# %d of %d failed\n", t_fail, t_n);
	return t_fail ? 1 : 0;
}
