/* sp.h - pieces of the `sp` Lua module, one file per group. */
#ifndef SANDPROOF_SP_H
#define SANDPROOF_SP_H

#include <stddef.h>

#include <lua.h>

/* Return nil, "what: strerror", "ENAME" (the expected-failure convention). */
int sp_fail(lua_State *L, int err, const char *what);

/* A fresh directory PREFIXxxxxxx (mode 0755) in out, claimed by this
 * process: it holds an exclusive flock(2) on it until it exits (the
 * descriptor is O_CLOEXEC and deliberately never closed).  A run sweeps the
 * sandproof-<pid>-* directories nobody holds and whose pid is gone
 * (scen_sweep_stale): the temp directories of a harness killed with
 * SIGKILL.  0 or -errno. */
int sp_mkdtemp_claimed(const char *prefix, char *out, size_t outlen);

void sp_util_register(lua_State *L);  /* sp_util.c */
void sp_proc_register(lua_State *L);  /* sp_proc.c: spawn, hold, fault, swap, census */
void sp_lab_register(lua_State *L);   /* sp_lab.c: network lab */

#endif
