/* prims.c - the Linux answers of prims.h (the names: common/prims_common.c). */
#include "sandproof/prims.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kfacts.h"

static char self_exe[PATH_MAX];

/* /proc/self/exe names the executable whatever argv[0] says. */
void prims_self_exe_init(const char *argv0)
{
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	(void)argv0;
	self_exe[n > 0 ? n : 0] = '\0';
}

const char *prims_self_exe(void)
{
	return self_exe[0] == '/' ? self_exe : NULL;
}

const char *prims_os_name(void)
{
	return "linux";
}

const char *prims_lacks(const char *primitive)
{
	static const char *const have[] = {
		"swap", "swapper", "lab", "census", "private_mounts",
		"casefold_volume", /* root and the tools: checked by cfvol_make */
	};

	for (size_t i = 0; i < sizeof(have) / sizeof(have[0]); i++)
		if (strcmp(primitive, have[i]) == 0)
			return NULL;
	if (strcmp(primitive, "hold") == 0 || strcmp(primitive, "fault") == 0)
		return kfacts_seccomp_notify_offered() || strcmp(primitive, "fault") == 0
			? NULL : "no seccomp user notification in this kernel";
	return "no such primitive";
}

static void fact_file(prims_fact_fn emit, void *ctx, const char *key, const char *path)
{
	char buf[128] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	emit(ctx, key, buf, PRIMS_FACT_TEXT);
}

void prims_host_facts(prims_fact_fn emit, void *ctx)
{
	char num[16];
	int abi = kfacts_landlock_abi();

	fact_file(emit, ctx, "max_user_namespaces", "/proc/sys/user/max_user_namespaces");
	fact_file(emit, ctx, "unprivileged_userns_clone", "/proc/sys/kernel/unprivileged_userns_clone");
	fact_file(emit, ctx, "apparmor_restrict_unprivileged_userns",
		  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	snprintf(num, sizeof(num), "%d", abi > 0 ? abi : 0);
	emit(ctx, "landlock_abi", num, PRIMS_FACT_NUMBER);
	emit(ctx, "seccomp_notify", kfacts_seccomp_notify_usable() ? "true" : "false",
	     PRIMS_FACT_BOOL);
}

const char *prims_temp_root(int visible)
{
	return visible ? "/var/tmp" : "/tmp";
}
