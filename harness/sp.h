/* sp.h - pieces of the `sp` Lua module, one file per group. */
#ifndef SANDPROOF_SP_H
#define SANDPROOF_SP_H

#include <stddef.h>

#include <lua.h>

/* The conventions of every sp.* function (docs/SCENARIOS.md, "the sp
 * module"): misuse raises - a wrong type, a missing argument, an unknown
 * option key (named: `sp.spawn: unknown option "timout_ms"`); an expected
 * failure (a file that does not exist, a lab that cannot be made, malformed
 * JSON) returns nil, "what: message", "ENAME". */

/* Return nil, "what: strerror(err)", prims_errno_name(err). */
int sp_fail(lua_State *L, int err, const char *what);
/* Return nil, "what: msg", prims_errno_name(err): an expected failure whose message
 * is not strerror's. */
int sp_fail_msg(lua_State *L, int err, const char *what, const char *msg);

/* Raise `fn: unknown option "KEY"` for a key of the options table at idx
 * that is not in known (NULL-terminated), `fn: option keys are strings` for
 * a key that is not a string. */
void sp_opts_check(lua_State *L, int idx, const char *fn, const char *const *known);
/* Option key of the table at idx: a string (def when absent; its bytes stay
 * valid while the table is alive, len may be NULL), an integer, a boolean.
 * Any other type raises `fn: option "key" must be a string` (...). */
const char *sp_opt_string(lua_State *L, int idx, const char *fn, const char *key,
			  const char *def, size_t *len);
lua_Integer sp_opt_integer(lua_State *L, int idx, const char *fn, const char *key,
			   lua_Integer def);
int sp_opt_boolean(lua_State *L, int idx, const char *fn, const char *key, int def);

/* A fresh directory PREFIXxxxxxx (mode 0755) in out, claimed by this
 * process: it holds an exclusive flock(2) on it until it exits (the
 * descriptor is O_CLOEXEC and never closed, but by sp.rmtree of a directory
 * sp.mkdtemp made: see sp_mkdtemp_claimed_fd).  A run sweeps the
 * sandproof-<pid>-* directories nobody holds and whose pid is gone
 * (scen_sweep_stale): the temp directories of a harness killed with
 * SIGKILL.  out is the canonical path (realpath: macOS spells /tmp
 * /private/tmp, the only spelling a policy matches).  0 or -errno. */
int sp_mkdtemp_claimed(const char *prefix, char *out, size_t outlen);
/* The same, *claim (when not NULL) set to the claim's descriptor, which the
 * caller may close once it no longer needs the directory kept from the
 * sweep (sp.rmtree does, for what sp.mkdtemp made). */
int sp_mkdtemp_claimed_fd(const char *prefix, char *out, size_t outlen, int *claim);

void sp_util_register(lua_State *L);  /* sp_util.c */
void sp_proc_register(lua_State *L);  /* sp_proc.c: spawn, hold, fault, swap, census */
void sp_lab_register(lua_State *L);   /* sp_lab.c: network lab */
void sp_cfvol_register(lua_State *L); /* sp_cfvol.c: case-insensitive volume */
void sp_coproc_register(lua_State *L); /* sp_coproc.c: sp.coproc (POSIX only) */

#endif
