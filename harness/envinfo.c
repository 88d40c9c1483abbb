/* envinfo.c - see envinfo.h. */
#include "envinfo.h"

#include <lauxlib.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "datadir.h"
#include "host.h"
#include "sandproof/prims.h"
#include "sandproof/proc.h"

/* A fact of the platform's (prims_host_facts) into the fingerprint. */
static void add_fact(void *ctx, const char *key, const char *value, enum prims_fact_kind kind)
{
	cJSON *o = ctx;

	if (kind == PRIMS_FACT_NUMBER)
		cJSON_AddNumberToObject(o, key, strtod(value, NULL));
	else if (kind == PRIMS_FACT_BOOL)
		cJSON_AddBoolToObject(o, key, strcmp(value, "true") == 0);
	else
		cJSON_AddStringToObject(o, key, value);
}

/* First line of a command's output, or "" (no shell involved; argv[0]
 * searched in PATH), through the seam. */
static void add_cmd(cJSON *o, const char *key, char *const argv[])
{
	struct proc_opts po;
	struct proc_result r;
	char buf[256] = "";

	proc_opts_init(&po);
	po.argv = argv;
	po.timeout_ms = 10000;
	if (proc_run(&po, &r) == 0 && !r.setup_err && r.out_len)
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	proc_result_free(&r);
	cJSON_AddStringToObject(o, key, buf);
}

/* Each runner's version, asked of its adapter (sandproof.runners.versions:
 * version(paths)); "not installed" when available() says no.  rs: the
 * run's runners, or NULL for every adapter there is (built-in and on
 * SANDPROOF_RUNNER_PATH). */
static void runner_versions(const struct scen_paths *p, const struct runner_set *rs, cJSON *out)
{
	lua_State *L = p->harness ? host_new(p->harness) : NULL;

	if (!L)
		return;
	lua_getglobal(L, "require");
	lua_pushstring(L, "sandproof.runners");
	if (host_pcall(L, 1, 1) != LUA_OK)
		goto out;
	lua_getfield(L, -1, "versions");
	if (rs) {
		lua_createtable(L, (int)rs->n, 0);
		for (size_t i = 0; i < rs->n; i++) {
			lua_pushstring(L, rs->v[i].spec);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
	} else {
		lua_pushnil(L);
	}
	scen_push_paths(L, p);
	if (host_pcall(L, 2, 1) != LUA_OK || !lua_istable(L, -1))
		goto out;
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TTABLE; i++) {
		lua_rawgeti(L, -1, 1);
		lua_rawgeti(L, -2, 2);
		if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING)
			cJSON_AddStringToObject(out, lua_tostring(L, -2), lua_tostring(L, -1));
		lua_pop(L, 3);
	}
out:
	lua_close(L);
}

char *envinfo_json(const struct scen_paths *p, const struct runner_set *runners)
{
	cJSON *o = cJSON_CreateObject(), *rv;
	struct utsname u;
	struct passwd *pw = getpwuid(getuid());
	char *out;

	uname(&u);
	cJSON_AddStringToObject(o, "os", prims_os_name());
	cJSON_AddStringToObject(o, "kernel", u.release);
	cJSON_AddStringToObject(o, "arch", u.machine);
	cJSON_AddStringToObject(o, "user", pw ? pw->pw_name : "?");
	cJSON_AddNumberToObject(o, "uid", getuid());
	prims_host_facts(add_fact, o);
	cJSON_AddStringToObject(o, "harness_version", SANDPROOF_VERSION);
	/* the revision of these programs: the build tree's HEAD, or what the
	 * installed copy was built from - an installed copy never asks the
	 * build tree */
	if (datadir_get()->layout == DATADIR_BUILD) {
		add_cmd(o, "git_revision", (char *[]){"git", "-C", SANDPROOF_SOURCE_DIR, "rev-parse",
						      "--short", "HEAD", NULL});
	} else {
		char rev[64];

		datadir_installed_revision(rev, sizeof(rev));
		cJSON_AddStringToObject(o, "git_revision", rev);
	}
	cJSON_AddItemToObject(o, "data", datadir_json());
	rv = cJSON_AddObjectToObject(o, "runners");
	runner_versions(p, runners, rv);
	out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return out;
}

struct store_run envinfo_run(const char *json)
{
	static char kernel[128], arch[64], user[64], git[64];
	struct store_run r = {0};
	cJSON *o = cJSON_Parse(json ? json : "{}");
	const cJSON *v;

#define COPY(buf, key)                                                       \
	v = cJSON_GetObjectItemCaseSensitive(o, key);                         \
	snprintf(buf, sizeof(buf), "%s", cJSON_IsString(v) ? v->valuestring : "")
	COPY(kernel, "kernel");
	COPY(arch, "arch");
	COPY(user, "user");
	COPY(git, "git_revision");
#undef COPY
	r.os = prims_os_name();
	r.kernel = kernel;
	r.arch = arch;
	r.user = user;
	r.uid = (int64_t)getuid();
	r.harness_version = SANDPROOF_VERSION;
	r.git_revision = git[0] ? git : NULL;
	r.env_json = json;
	cJSON_Delete(o);
	return r;
}

void envinfo_print(const char *json, FILE *out)
{
	cJSON *o = cJSON_Parse(json);
	char *s = o ? cJSON_Print(o) : NULL;

	fprintf(out, "%s\n", s ? s : json);
	free(s);
	cJSON_Delete(o);
}
