/* host.h - the Lua host: one lua_State with the `sp` module, and the one
 * protected way to call into Lua. */
#ifndef SANDPROOF_HOST_H
#define SANDPROOF_HOST_H

#include <lua.h>

/* A fresh state with the standard libraries, the `sp` module preloaded and
 * package.path pointing at harness/lua and harness/runners under
 * `harness_dir`.  NULL on out of memory. */
lua_State *host_new(const char *harness_dir);

/* Call the function below nargs arguments on the stack, protected, with a
 * traceback handler.  Returns LUA_OK, or an error code with the error left
 * on the stack: a table raised as is (a structured verdict: t:skip,
 * t:unsupported, t:error), anything else as a string with its traceback.
 * Every call from C into Lua goes through here, the hold action too. */
int host_pcall(lua_State *L, int nargs, int nresults);

/* luaopen_sp: the `sp` module (sp_lua.c). */
int luaopen_sp(lua_State *L);

#endif
