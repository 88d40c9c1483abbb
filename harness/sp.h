/* sp.h - pieces of the `sp` Lua module, one file per group. */
#ifndef SANDPROOF_SP_H
#define SANDPROOF_SP_H

#include <lua.h>

/* Return nil, "what: strerror", "ENAME" (the expected-failure convention). */
int sp_fail(lua_State *L, int err, const char *what);

void sp_util_register(lua_State *L);  /* sp_util.c */
void sp_proc_register(lua_State *L);  /* sp_proc.c: spawn, hold, fault, swap, census */
void sp_lab_register(lua_State *L);   /* sp_lab.c: network lab */

#endif
