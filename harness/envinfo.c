/* envinfo.c - see envinfo.h. */
#include "envinfo.h"

#include <dirent.h>
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

/* Each runner's version, asked of its adapter (harness/runners/<name>.lua,
 * version(paths)); "not installed" when available() says no.  runners: a
 * comma list, or NULL for every adapter there is. */
static void runner_versions(const struct scen_paths *p, const char *runners, cJSON *out)
{
	lua_State *L = p->harness ? host_new(p->harness) : NULL;
	char list[512], path[4096], *save = NULL;
	DIR *d;
	struct dirent *de;

	if (!L)
		return;
	list[0] = '\0';
	if (runners) {
		snprintf(list, sizeof(list), "%s", runners);
	} else if ((snprintf(path, sizeof(path), "%s/runners", p->harness), d = opendir(path))) {
		while ((de = readdir(d))) {
			size_t n = strlen(de->d_name);

			if (n > 4 && strcmp(de->d_name + n - 4, ".lua") == 0)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.*s",
					 list[0] ? "," : "", (int)(n - 4), de->d_name);
		}
		closedir(d);
	}
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const char *v = "unknown";

		lua_settop(L, 0);
		lua_getglobal(L, "require");
		lua_pushstring(L, name);
		if (host_pcall(L, 1, 1) == LUA_OK && lua_istable(L, -1)) {
			int ad = lua_gettop(L);

			scen_push_paths(L, p);
			int paths = lua_gettop(L);

			lua_getfield(L, ad, "available");
			lua_pushvalue(L, paths);
			if (lua_isfunction(L, -2) && host_pcall(L, 1, 1) == LUA_OK && !lua_toboolean(L, -1)) {
				v = "not installed";
			} else {
				lua_settop(L, paths);
				lua_getfield(L, ad, "version");
				lua_pushvalue(L, paths);
				if (lua_isfunction(L, -2) && host_pcall(L, 1, 1) == LUA_OK && lua_isstring(L, -1))
					v = lua_tostring(L, -1);
			}
		}
		cJSON_AddStringToObject(out, name, v);
	}
	lua_close(L);
}

char *envinfo_json(const struct scen_paths *p, const char *runners)
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
