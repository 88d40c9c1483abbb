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

/* sp.lab([{routed = bool}]) -> lab | nil, "lab: message", "ENAME" */
static int l_lab(lua_State *L)
{
	static const char *const keys[] = {"routed", NULL};
	struct lab_opts o = {0};
	struct lab **u;
	char err[256];
	int rc;

	if (!lua_isnoneornil(L, 1)) {
		luaL_checktype(L, 1, LUA_TTABLE);
		sp_opts_check(L, 1, "sp.lab", keys);
		o.routed = sp_opt_boolean(L, 1, "sp.lab", "routed", 0);
	}
	u = lua_newuserdatauv(L, sizeof(*u), 0);
	*u = NULL;
	luaL_setmetatable(L, LAB_MT);
	rc = lab_create(&o, u, err, sizeof(err));
	if (rc < 0)
		return sp_fail_msg(L, -rc, "lab", err);
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
	static const char *const keys[] = {"path", "abstract", "dgram", NULL};
	const char *fn = "lab:listen_unix", *path, *abs;
	struct lab *l = check(L);
	int dgram, id;

	luaL_checktype(L, 2, LUA_TTABLE);
	sp_opts_check(L, 2, fn, keys);
	path = sp_opt_string(L, 2, fn, "path", NULL, NULL);
	abs = sp_opt_string(L, 2, fn, "abstract", NULL, NULL);
	dgram = sp_opt_boolean(L, 2, fn, "dgram", 0);
	if (!path == !abs)
		return luaL_error(L, "%s: give exactly one of path and abstract", fn);
	id = lab_listen_unix(l, path, abs, dgram ? SOCK_DGRAM : SOCK_STREAM);
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
