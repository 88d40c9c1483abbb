/* datadir.c - see datadir.h.  Portable: stat and getenv only; the
 * executable's path comes from the primitives seam (prims_self_exe). */
#include "datadir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Set by the build (cmake/install.cmake): where the installed data and
 * probe are, relative to the installed bin directory. */
#ifndef DATADIR_REL_DATA
#error "DATADIR_REL_DATA (cmake/install.cmake) is not defined"
#endif
#ifndef DATADIR_REL_PROBE
#error "DATADIR_REL_PROBE (cmake/install.cmake) is not defined"
#endif

static struct datadir the;

static const char *const env_names[DATADIR_N] = {
	"SANDPROOF_HARNESS_DIR", "SANDPROOF_SCENARIOS", "SANDPROOF_REF", "SANDPROOF_PROBE",
};
static const char *const keys[DATADIR_N] = {"harness", "scenarios", "ref", "probe"};

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir + "/" + rel into out, each ".." of rel removing a component of dir
 * (lexically: dir is the executable's directory, which the OS gave
 * without symlinks), so that `env` shows /usr/share/sandproof, not
 * /usr/bin/../share/sandproof.  rel is relative, '/'-separated. */
static void path_join(char *out, size_t len, const char *dir, const char *rel)
{
	snprintf(out, len, "%s", dir);
	while (*rel) {
		size_t n = strcspn(rel, "/");
		size_t have = strlen(out);

		if (n == 2 && !strncmp(rel, "..", 2)) {
			char *slash = strrchr(out, '/');

			if (slash && strcmp(slash, "/..") != 0)
				*(slash == out ? slash + 1 : slash) = '\0';
			else if (have + 3 < len)
				strcat(out, "/..");
		} else if (n && !(n == 1 && rel[0] == '.') && have + n + 1 < len) {
			snprintf(out + have, len - have, "%s%.*s",
				 have && out[have - 1] == '/' ? "" : "/", (int)n, rel);
		}
		rel += n;
		rel += *rel == '/';
	}
}

/* The build tree: the marker the build wrote is next to the executable. */
static int layout_build(const char *dir)
{
	char marker[PATH_MAX + 64];

	snprintf(marker, sizeof(marker), "%s/%s", dir, DATADIR_BUILD_MARKER);
	if (!is_file(marker))
		return 0;
	snprintf(the.root, sizeof(the.root), "%s", SANDPROOF_SOURCE_DIR);
	snprintf(the.buf[DATADIR_HARNESS], sizeof(the.buf[0]), "%s/harness", the.root);
	snprintf(the.buf[DATADIR_SCENARIOS], sizeof(the.buf[0]), "%s/scenarios", the.root);
	snprintf(the.buf[DATADIR_PROBE], sizeof(the.buf[0]), "%s/sandproof-probe" SP_EXE_SUFFIX,
		 dir);
	return 1;
}

/* An installed prefix: its data dir holds lua/ (cmake --install's layout). */
static int layout_installed(const char *dir)
{
	char lua[PATH_MAX + 8], probe_dir[PATH_MAX];

	path_join(the.root, sizeof(the.root), dir, DATADIR_REL_DATA);
	snprintf(lua, sizeof(lua), "%s/lua", the.root);
	if (!is_dir(lua)) {
		the.root[0] = '\0';
		return 0;
	}
	snprintf(the.buf[DATADIR_HARNESS], sizeof(the.buf[0]), "%s", the.root);
	snprintf(the.buf[DATADIR_SCENARIOS], sizeof(the.buf[0]), "%s/scenarios", the.root);
	path_join(probe_dir, sizeof(probe_dir), dir, DATADIR_REL_PROBE);
	snprintf(the.buf[DATADIR_PROBE], sizeof(the.buf[0]), "%s/sandproof-probe" SP_EXE_SUFFIX,
		 probe_dir);
	return 1;
}

void datadir_init(const char *self_exe, struct scen_paths *p)
{
	char dir[PATH_MAX], *slash;

	memset(&the, 0, sizeof(the));
	snprintf(the.exe, sizeof(the.exe), "%s", self_exe ? self_exe : "");
	snprintf(dir, sizeof(dir), "%s", the.exe);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (slash && layout_build(dir))
		the.layout = DATADIR_BUILD;
	else if (slash && layout_installed(dir))
		the.layout = DATADIR_INSTALLED;
	if (the.layout != DATADIR_NONE)
		snprintf(the.buf[DATADIR_REF], sizeof(the.buf[0]), "%s/sandproof-ref" SP_EXE_SUFFIX,
			 dir);
	for (int i = 0; i < DATADIR_N; i++) {
		const char *env = getenv(env_names[i]);

		if (env && *env) {
			the.path[i] = env;
			the.from[i] = DATADIR_ENV;
		} else if (the.layout != DATADIR_NONE) {
			the.path[i] = the.buf[i];
			the.from[i] = the.layout;
		}
	}
	p->harness = the.path[DATADIR_HARNESS];
	p->scenarios = the.path[DATADIR_SCENARIOS];
	p->ref = the.path[DATADIR_REF];
	p->probe = the.path[DATADIR_PROBE];
}

const struct datadir *datadir_get(void)
{
	return &the;
}

static const char *layout_why(void)
{
	switch (the.layout) {
	case DATADIR_BUILD:
		return "the executable is in its build tree (" DATADIR_BUILD_MARKER
		       " is next to it): the source tree's harness/ and scenarios/";
	case DATADIR_INSTALLED:
		return "the executable is in an installed prefix's bin directory (its " DATADIR_REL_DATA
		       "/lua exists)";
	default:
		return the.exe[0] ? "the executable is neither in its build tree (no " DATADIR_BUILD_MARKER
				    " next to it) nor in an installed prefix's bin directory (no " DATADIR_REL_DATA
				    "/lua from it)"
				  : "the executable's own path is unknown";
	}
}

int datadir_missing(void)
{
	int missing = 0;

	for (int i = 0; i < DATADIR_N; i++)
		if (!the.path[i]) {
			fprintf(stderr, "sandproof: cannot find its %s: %s; set %s\n", keys[i],
				layout_why(), env_names[i]);
			missing = 1;
		}
	return missing ? -ENOENT : 0;
}

static const char *from_name(enum datadir_from f)
{
	return f == DATADIR_ENV ? "environment" : f == DATADIR_BUILD ? "build tree"
					      : f == DATADIR_INSTALLED ? "installed" : "not found";
}

cJSON *datadir_json(void)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "executable", the.exe);
	cJSON_AddStringToObject(o, "layout", the.layout == DATADIR_NONE ? "unknown"
								  : from_name(the.layout));
	cJSON_AddStringToObject(o, "why", layout_why());
	cJSON_AddStringToObject(o, "root", the.root);
	for (int i = 0; i < DATADIR_N; i++) {
		cJSON *e = cJSON_AddObjectToObject(o, keys[i]);
		char from[64];

		if (!e)
			break;
		snprintf(from, sizeof(from), the.from[i] == DATADIR_ENV ? "environment (%s)" : "%s",
			 the.from[i] == DATADIR_ENV ? env_names[i] : from_name(the.from[i]));
		if (the.path[i])
			cJSON_AddStringToObject(e, "path", the.path[i]);
		else
			cJSON_AddNullToObject(e, "path");
		cJSON_AddStringToObject(e, "from", from);
	}
	return o;
}

int datadir_installed_revision(char *buf, size_t len)
{
	char path[PATH_MAX + 16];
	FILE *f;

	buf[0] = '\0';
	if (the.layout != DATADIR_INSTALLED)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/revision", the.root);
	if (!(f = fopen(path, "r")))
		return -ENOENT;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}
