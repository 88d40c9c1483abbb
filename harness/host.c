/* host.c - see host.h. */
#include "host.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

/* Message handler: a table error value (the engine's structured verdicts:
 * t:skip, t:unsupported, t:error) passes through unchanged; any other
 * value becomes a string with a traceback. */
static int traceback(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (lua_istable(L, 1))
		return 1;
	if (!msg) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(error object is a %s value)",
					      luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

int host_pcall(lua_State *L, int nargs, int nresults)
{
	int base = lua_gettop(L) - nargs, rc;

	lua_pushcfunction(L, traceback);
	lua_insert(L, base);
	rc = lua_pcall(L, nargs, nresults, base);
	lua_remove(L, base);
	return rc;
}

lua_State *host_new(const char *harness_dir)
{
	lua_State *L = luaL_newstate();

	if (!L)
		return NULL;
	luaL_openlibs(L);
	luaL_requiref(L, "sp", luaopen_sp, 1); /* also the global `sp` */
	lua_pop(L, 1);
	lua_getglobal(L, "package");
	lua_pushfstring(L, "%s/lua/?.lua;%s/runners/?.lua", harness_dir, harness_dir);
	lua_setfield(L, -2, "path");
	lua_pushstring(L, "");
	lua_setfield(L, -2, "cpath"); /* no native modules from the environment */
	lua_pop(L, 1);
	return L;
}
