/* sp_lua.c - luaopen_sp: the `sp` module as one table, assembled from the
 * groups in sp_util.c, sp_proc.c, sp_lab.c, sp_cfvol.c and sp_coproc.c. */
#include <lauxlib.h>

#include "host.h"
#include "sp.h"

int luaopen_sp(lua_State *L)
{
	lua_newtable(L);
	sp_util_register(L);
	sp_proc_register(L);
	sp_lab_register(L);
	sp_cfvol_register(L);
#ifndef _WIN32
	sp_coproc_register(L);
#endif
	return 1;
}
