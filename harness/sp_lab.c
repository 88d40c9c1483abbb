/* sp_lab.c - the `sp` module's network lab (t:lab()): a userdata "sp.lab"
 * owning a lab; sp.spawn{lab = l} starts a program inside it. */
#include <errno.h>
#include <lauxlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "sandproof/lab.h"
#include "sp.h"

#define LAB_MT "sp.lab"

static struct lab *check(lua_State *L)
{
	struct lab **u = luaL_checkudata(L, 1, LAB_MT);

	if (!*u)
		luaL_error(L, "the lab was destroyed");
	return *u;
}

/* sp.lab{routed = bool} -> lab | nil, msg, errno */
static int l_lab(lua_State *L)
{
	struct lab_opts o = {0};
	struct lab **u;
	char err[256];
	int rc;

	if (lua_istable(L, 1)) {
		lua_getfield(L, 1, "routed");
		o.routed = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	u = lua_newuserdatauv(L, sizeof(*u), 0);
	*u = NULL;
	luaL_setmetatable(L, LAB_MT);
	rc = lab_create(&o, u, err, sizeof(err));
	if (rc < 0) {
		lua_pushnil(L);
		lua_pushstring(L, err);
		lua_pushinteger(L, -rc);
		return 3;
	}
	return 1;
}

/* lab:listen("tcp"|"udp", addr [, port]) -> port, id */
static int lab_l_listen(lua_State *L)
{
	struct lab *l = check(L);
	const char *proto = luaL_checkstring(L, 2), *addr = luaL_checkstring(L, 3);
	uint16_t port = (uint16_t)luaL_optinteger(L, 4, 0), got = 0;
	int id;

	if (strcmp(proto, "tcp") && strcmp(proto, "udp"))
		return luaL_argerror(L, 2, "tcp or udp");
	id = lab_listen(l, strcmp(proto, "tcp") == 0 ? IPPROTO_TCP : IPPROTO_UDP, addr,
			port, &got);
	if (id < 0)
		return sp_fail(L, -id, "lab listen");
	lua_pushinteger(L, got);
	lua_pushinteger(L, id);
	return 2;
}

/* lab:listen_unix{path = p | abstract = name, dgram = bool} -> id */
static int lab_l_listen_unix(lua_State *L)
{
	struct lab *l = check(L);
	const char *path, *abs;
	int dgram, id;

	luaL_checktype(L, 2, LUA_TTABLE);
	lua_getfield(L, 2, "path");
	lua_getfield(L, 2, "abstract");
	lua_getfield(L, 2, "dgram");
	path = lua_tostring(L, -3);
	abs = lua_tostring(L, -2);
	dgram = lua_toboolean(L, -1);
	id = lab_listen_unix(l, path, abs, dgram ? SOCK_DGRAM : SOCK_STREAM);
	lua_pop(L, 3);
	if (id < 0)
		return sp_fail(L, -id, "lab listen_unix");
	lua_pushinteger(L, id);
	return 1;
}

/* lab:hits(id [, wait_min, timeout_ms]) -> n */
static int lab_l_hits(lua_State *L)
{
	struct lab *l = check(L);
	int id = (int)luaL_checkinteger(L, 2);
	long n;

	if (lua_isnoneornil(L, 3))
		n = lab_hits(l, id);
	else
		n = lab_hits_wait(l, id, (unsigned long)luaL_checkinteger(L, 3),
				  (int)luaL_optinteger(L, 4, 500));
	if (n < 0)
		return sp_fail(L, (int)-n, "lab hits");
	lua_pushinteger(L, n);
	return 1;
}

static int lab_l_destroy(lua_State *L)
{
	struct lab **u = luaL_checkudata(L, 1, LAB_MT);

	if (*u)
		lab_destroy(*u);
	*u = NULL;
	return 0;
}

static const luaL_Reg lab_meths[] = {
	{"listen", lab_l_listen}, {"listen_unix", lab_l_listen_unix},
	{"hits", lab_l_hits}, {"destroy", lab_l_destroy}, {NULL, NULL},
};

void sp_lab_register(lua_State *L)
{
	luaL_newmetatable(L, LAB_MT);
	luaL_newlib(L, lab_meths);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, lab_l_destroy);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_lab);
	lua_setfield(L, -2, "lab");
}
