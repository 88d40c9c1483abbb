/* sp_cfvol.c - the `sp` module's case-insensitive volume
 * (t:casefold_workspace): a userdata "sp.cfvol" owning one, ended by
 * :close() or, failing that, when it is collected. */
#include <lauxlib.h>
#include <stdint.h>

#include "sandproof/cfvol.h"
#include "sp.h"

#define CFVOL_MT "sp.cfvol"

/* sp.casefold_volume{dir, image [, bytes]} -> vol | nil, "casefold_volume: why", "ENAME" */
static int l_casefold_volume(lua_State *L)
{
	static const char *const keys[] = {"dir", "image", "bytes", NULL};
	const char *fn = "sp.casefold_volume";
	struct cfvol_opts o = {0};
	struct cfvol **u;
	lua_Integer bytes;
	char err[512];
	int rc;

	luaL_checktype(L, 1, LUA_TTABLE);
	sp_opts_check(L, 1, fn, keys);
	o.dir = sp_opt_string(L, 1, fn, "dir", NULL, NULL);
	o.image = sp_opt_string(L, 1, fn, "image", NULL, NULL);
	bytes = sp_opt_integer(L, 1, fn, "bytes", 0);
	if (!o.dir || !o.image)
		return luaL_error(L, "%s: dir and image are required", fn);
	if (bytes < 0 || (bytes > 0 && bytes < (1 << 20)))
		return luaL_error(L, "%s: bytes must be at least 1 MiB", fn);
	o.bytes = (uint64_t)bytes;
	u = lua_newuserdatauv(L, sizeof(*u), 0);
	*u = NULL;
	luaL_setmetatable(L, CFVOL_MT);
	rc = cfvol_make(&o, u, err, sizeof(err));
	if (rc < 0)
		return sp_fail_msg(L, -rc, "casefold_volume", err);
	return 1;
}

/* vol:device() -> "/dev/loopN" */
static int cfvol_l_device(lua_State *L)
{
	struct cfvol **u = luaL_checkudata(L, 1, CFVOL_MT);

	if (!*u)
		return luaL_error(L, "the volume was closed");
	lua_pushstring(L, cfvol_device(*u));
	return 1;
}

/* vol:close() -> true | nil, "casefold_volume close: why", "ENAME"; a
 * second close is a no-op (true). */
static int cfvol_l_close(lua_State *L)
{
	struct cfvol **u = luaL_checkudata(L, 1, CFVOL_MT);
	char err[512];
	int rc = 0;

	if (*u)
		rc = cfvol_end(*u, err, sizeof(err));
	*u = NULL;
	if (rc < 0)
		return sp_fail_msg(L, -rc, "casefold_volume close", err);
	lua_pushboolean(L, 1);
	return 1;
}

static int cfvol_l_gc(lua_State *L)
{
	struct cfvol **u = luaL_checkudata(L, 1, CFVOL_MT);

	if (*u)
		cfvol_end(*u, NULL, 0);
	*u = NULL;
	return 0;
}

static const luaL_Reg cfvol_meths[] = {
	{"device", cfvol_l_device}, {"close", cfvol_l_close}, {NULL, NULL},
};

void sp_cfvol_register(lua_State *L)
{
	luaL_newmetatable(L, CFVOL_MT);
	luaL_newlib(L, cfvol_meths);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, cfvol_l_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_casefold_volume);
	lua_setfield(L, -2, "casefold_volume");
}
