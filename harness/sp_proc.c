/* sp_proc.c - the `sp` module's process primitives: spawn (with lab, hold
 * and fault), spawn_bg, swap, swapper, census.  C owns the processes, the
 * descriptors and the timing; Lua composes them. */
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandproof/census.h"
#include "sandproof/prims.h"
#include "sandproof/lab.h"
#include "sp.h"
#include "sandproof/proc.h"
#include "sandproof/swap.h"

#define SP_MAX_ARGS 4096
#define SWAPPER_MT "sp.swapper"
#define BG_MT "sp.bg"

/* Lua string list (array) -> NULL-terminated vector in *v (strings owned
 * by Lua: valid while the table is on the stack). */
static int strlist(lua_State *L, int idx, const char *field, const char **v, int max)
{
	int n = 0;

	lua_getfield(L, idx, field);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return -1;
	}
	luaL_argexpected(L, lua_istable(L, -1), idx, "table with a list");
	for (int i = 1;; i++) {
		lua_rawgeti(L, -1, i);
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			break;
		}
		if (n >= max - 1)
			luaL_error(L, "sp.spawn: %s has more than %d entries", field, max - 1);
		v[n++] = luaL_checkstring(L, -1);
		lua_pop(L, 1);
	}
	v[n] = NULL;
	/* the table stays referenced from opts, which stays on the stack */
	lua_pop(L, 1);
	return n;
}

/* errno names for faults ("EPERM") */

struct hold_ctx {
	lua_State *L;
	int fn_ref;
};

static int hold_action(void *ctx, int k, const char *syscall, pid_t pid)
{
	struct hold_ctx *h = ctx;
	int rc;

	lua_rawgeti(h->L, LUA_REGISTRYINDEX, h->fn_ref);
	lua_pushinteger(h->L, k);
	lua_pushstring(h->L, syscall);
	lua_pushinteger(h->L, pid);
	/* The runner under test is stopped in that syscall while this runs. */
	rc = lua_pcall(h->L, 3, 0, 0);
	if (rc != LUA_OK) {
		lua_setglobal(h->L, "__sp_hold_error");
		return -1;
	}
	return 0;
}

static void push_result(lua_State *L, const struct proc_result *r)
{
	lua_createtable(L, 0, 16);
	if (r->exited) {
		lua_pushinteger(L, r->exit_code);
		lua_setfield(L, -2, "code");
	}
	if (r->term_signal) {
		lua_pushinteger(L, r->term_signal);
		lua_setfield(L, -2, "signal");
	}
	lua_pushboolean(L, r->timed_out);
	lua_setfield(L, -2, "timed_out");
	lua_pushlstring(L, r->out ? r->out : "", r->out_len);
	lua_setfield(L, -2, "stdout");
	lua_pushlstring(L, r->err ? r->err : "", r->err_len);
	lua_setfield(L, -2, "stderr");
	lua_pushinteger(L, (lua_Integer)r->duration_ms);
	lua_setfield(L, -2, "duration_ms");
	lua_pushinteger(L, (lua_Integer)r->maxrss_kib);
	lua_setfield(L, -2, "maxrss_kib");
	lua_pushinteger(L, (lua_Integer)r->cpu_ms);
	lua_setfield(L, -2, "cpu_ms");
	lua_pushinteger(L, (lua_Integer)r->hold_calls);
	lua_setfield(L, -2, "hold_total");
	lua_pushboolean(L, r->hold_hit);
	lua_setfield(L, -2, "hold_hit");
	lua_pushinteger(L, r->leftovers);
	lua_setfield(L, -2, "leftovers");
	lua_pushinteger(L, r->killed);
	lua_setfield(L, -2, "killed");
	if (r->setup_err) {
		lua_pushfstring(L, "%s: %s", r->setup_step, prims_errno_name(r->setup_err));
		lua_setfield(L, -2, "setup_error");
	}
}

/* sp.spawn{argv, env (array "K=V"), cwd, stdin, timeout_ms, lab,
 * private_mounts, private_net, fault = {syscall, errno, nth, once, arg1},
 * hold = {syscalls, at, action}} -> result | nil, msg, errno */
static int l_spawn(lua_State *L)
{
	const char *argv[SP_MAX_ARGS], *envp[SP_MAX_ARGS], *hold[PROC_MAX_HOLD + 1];
	struct proc_opts o;
	struct proc_result r;
	struct hold_ctx hc = {L, LUA_NOREF};
	size_t inlen = 0;
	int rc;

	luaL_checktype(L, 1, LUA_TTABLE);
	proc_opts_init(&o);
	if (strlist(L, 1, "argv", argv, SP_MAX_ARGS) <= 0)
		return luaL_error(L, "sp.spawn: argv must be a non-empty list");
	o.argv = (char *const *)argv;
	if (strlist(L, 1, "env", envp, SP_MAX_ARGS) >= 0)
		o.envp = (char *const *)envp;
	lua_getfield(L, 1, "cwd");
	o.cwd = lua_tostring(L, -1);
	lua_getfield(L, 1, "stdin");
	o.stdin_data = lua_tolstring(L, -1, &inlen);
	o.stdin_len = inlen;
	lua_getfield(L, 1, "timeout_ms");
	o.timeout_ms = (int)luaL_optinteger(L, -1, PROC_TIMEOUT_MS);
	lua_getfield(L, 1, "private_mounts");
	o.private_mounts = lua_toboolean(L, -1);
	lua_getfield(L, 1, "kill_leftovers");
	o.kill_leftovers = lua_isnil(L, -1) ? true : lua_toboolean(L, -1);
	lua_pop(L, 5); /* the strings stay alive: opts (argument 1) holds them */

	lua_getfield(L, 1, "lab");
	if (!lua_isnil(L, -1)) {
		struct lab **lp = luaL_checkudata(L, -1, "sp.lab");

		if (!*lp)
			return luaL_error(L, "sp.spawn: the lab was destroyed");
		o.userns_fd = (*lp)->userns_fd;
		o.netns_fd = (*lp)->netns_fd;
	}
	lua_pop(L, 1);

	lua_getfield(L, 1, "fault");
	if (!lua_isnil(L, -1)) {
		luaL_checktype(L, -1, LUA_TTABLE);
		lua_getfield(L, -1, "syscall");
		o.fault_syscall = luaL_checkstring(L, -1);
		lua_getfield(L, -2, "errno");
		o.fault_errno = prims_errno_value(luaL_checkstring(L, -1));
		if (o.fault_errno < 0)
			return luaL_error(L, "sp.spawn: unknown errno name %s", lua_tostring(L, -1));
		lua_getfield(L, -3, "nth");
		o.fault_nth = (unsigned)luaL_optinteger(L, -1, 1);
		lua_getfield(L, -4, "arg1");
		o.fault_arg1_set = !lua_isnil(L, -1);
		o.fault_arg1 = (uint64_t)luaL_optinteger(L, -1, 0);
		lua_getfield(L, -5, "once");
		o.fault_once = lua_toboolean(L, -1);
		lua_pop(L, 5);
	}
	lua_pop(L, 1);

	lua_getfield(L, 1, "hold");
	if (!lua_isnil(L, -1)) {
		int idx = lua_gettop(L);

		if (strlist(L, idx, "syscalls", hold, PROC_MAX_HOLD + 1) <= 0)
			return luaL_error(L, "sp.spawn: hold.syscalls must be a non-empty list");
		o.hold_syscalls = hold;
		lua_getfield(L, idx, "at");
		o.hold_at = (int)luaL_optinteger(L, -1, 0);
		lua_pop(L, 1);
		lua_getfield(L, idx, "comm");
		o.hold_comm = luaL_optstring(L, -1, NULL); /* opts (argument 1) keeps it alive */
		lua_pop(L, 1);
		if (o.hold_comm && (!*o.hold_comm || strlen(o.hold_comm) > 15))
			return luaL_error(L, "sp.spawn: hold.comm must be 1 to 15 bytes (a /proc/PID/comm)");
		lua_getfield(L, idx, "action");
		if (lua_isfunction(L, -1)) {
			hc.fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
			o.hold_action = hold_action;
			o.hold_ctx = &hc;
		} else {
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);

	rc = proc_run(&o, &r);
	if (hc.fn_ref != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, hc.fn_ref);
	if (rc < 0)
		return sp_fail(L, -rc, "spawn");
	lua_getglobal(L, "__sp_hold_error");
	if (!lua_isnil(L, -1)) {
		lua_pushnil(L);
		lua_setglobal(L, "__sp_hold_error");
		proc_result_free(&r);
		return lua_error(L); /* the hold action's own error */
	}
	lua_pop(L, 1);
	push_result(L, &r);
	if (o.fault_syscall && (o.fault_once || o.fault_nth >= 2)) {
		/* counted only when the parent answers each call (notification);
		 * a plain errno rule fails every call without being told */
		lua_pushinteger(L, (lua_Integer)r.fault_calls);
		lua_setfield(L, -2, "fault_calls");
		lua_pushinteger(L, (lua_Integer)r.fault_failed);
		lua_setfield(L, -2, "fault_failed");
	}
	proc_result_free(&r);
	return 1;
}

/* ---- background spawn: a child process runs sp.spawn, result comes back
 * through a pipe as JSON-free "key=value" lines (small, no parser needed) */

struct bg {
	pid_t pid;
	int fd;
};

static int l_spawn_bg(lua_State *L)
{
	struct bg *b;
	int p[2];
	pid_t pid;

	luaL_checktype(L, 1, LUA_TTABLE);
	if (pipe2(p, O_CLOEXEC) < 0)
		return sp_fail(L, errno, "pipe");
	pid = fork();
	if (pid < 0)
		return sp_fail(L, errno, "fork");
	if (pid == 0) {
		close(p[0]);
		lua_pushcfunction(L, l_spawn);
		lua_pushvalue(L, 1);
		if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
			lua_getfield(L, -1, "code");
			dprintf(p[1], "code=%d\n", (int)luaL_optinteger(L, -1, -1));
			lua_getfield(L, -2, "signal");
			dprintf(p[1], "signal=%d\n", (int)luaL_optinteger(L, -1, 0));
			lua_getfield(L, -3, "stdout");
			size_t n;
			const char *s = lua_tolstring(L, -1, &n);

			dprintf(p[1], "stdout=%zu\n", n);
			if (write(p[1], s, n) < 0)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	b = lua_newuserdatauv(L, sizeof(*b), 0);
	b->pid = pid;
	b->fd = p[0];
	luaL_setmetatable(L, BG_MT);
	return 1;
}

static int bg_wait(lua_State *L)
{
	struct bg *b = luaL_checkudata(L, 1, BG_MT);
	luaL_Buffer buf;
	char chunk[4096];
	ssize_t n;
	int code = -1, sig = 0;
	size_t outlen = 0;
	const char *all, *nl;

	if (b->pid <= 0)
		return luaL_error(L, "sp.bg: already waited for");
	luaL_buffinit(L, &buf);
	while ((n = read(b->fd, chunk, sizeof(chunk))) > 0)
		luaL_addlstring(&buf, chunk, (size_t)n);
	luaL_pushresult(&buf);
	close(b->fd);
	waitpid(b->pid, NULL, 0);
	b->pid = -1;
	all = lua_tostring(L, -1);
	sscanf(all, "code=%d\nsignal=%d\nstdout=%zu\n", &code, &sig, &outlen);
	lua_createtable(L, 0, 3);
	if (code >= 0) {
		lua_pushinteger(L, code);
		lua_setfield(L, -2, "code");
	}
	if (sig) {
		lua_pushinteger(L, sig);
		lua_setfield(L, -2, "signal");
	}
	nl = all;
	for (int i = 0; i < 3 && nl; i++) {
		nl = strchr(nl, '\n');
		if (nl)
			nl++;
	}
	lua_pushstring(L, nl ? nl : "");
	lua_setfield(L, -2, "stdout");
	return 1;
}

static int bg_gc(lua_State *L)
{
	struct bg *b = luaL_checkudata(L, 1, BG_MT);

	if (b->pid > 0) {
		close(b->fd);
		kill(b->pid, SIGKILL); /* ours: forked above, not yet reaped */
		waitpid(b->pid, NULL, 0);
		b->pid = -1;
	}
	return 0;
}

/* ---- swaps ---------------------------------------------------------------- */

static int l_swap(lua_State *L)
{
	int rc = swap_exchange(luaL_checkstring(L, 1), luaL_checkstring(L, 2));

	if (rc < 0)
		return sp_fail(L, -rc, "swap");
	lua_pushboolean(L, 1);
	return 1;
}

static int l_swapper(lua_State *L)
{
	struct swapper **u = lua_newuserdatauv(L, sizeof(*u), 0);
	int rc;

	*u = NULL;
	luaL_setmetatable(L, SWAPPER_MT);
	rc = swap_start(luaL_checkstring(L, 1), luaL_checkstring(L, 2), u);
	if (rc < 0)
		return sp_fail(L, -rc, "swapper");
	return 1;
}

static int swapper_stop(lua_State *L)
{
	struct swapper **u = luaL_checkudata(L, 1, SWAPPER_MT);
	uint64_t n = 0;
	int rc;

	if (!*u)
		return luaL_error(L, "swapper already stopped");
	rc = swap_stop(*u, &n);
	*u = NULL;
	if (rc < 0)
		return sp_fail(L, -rc, "swapper stop");
	lua_pushinteger(L, (lua_Integer)n);
	return 1;
}

static int swapper_gc(lua_State *L)
{
	struct swapper **u = luaL_checkudata(L, 1, SWAPPER_MT);
	uint64_t n;

	if (*u)
		swap_stop(*u, &n);
	*u = NULL;
	return 0;
}

/* ---- census ----------------------------------------------------------------- */

/* sp.census{marker=, mounts={prefix...}, locks=dir, temp={dir...}} ->
 * {processes={text...}, mounts={...}, locks={...}, files={...}, marked={...}} */
static int l_census(lua_State *L)
{
	const char *mounts[32], *temps[32];
	struct census_opts o = {0};
	struct census c;
	int rc;
	static const char *const names[] = {"processes", "marked", "mounts", "locks", "files"};

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "marker");
	o.marker = lua_tostring(L, -1);
	lua_getfield(L, 1, "locks");
	o.lock_dir = lua_tostring(L, -1);
	lua_pop(L, 2);
	if (strlist(L, 1, "mounts", mounts, 32) >= 0)
		o.mount_prefixes = mounts;
	if (strlist(L, 1, "temp", temps, 32) >= 0)
		o.temp_dirs = temps;
	rc = census_take(&o, &c);
	if (rc < 0) {
		census_free(&c);
		return sp_fail(L, -rc, "census");
	}
	lua_createtable(L, 0, 5);
	for (int k = 0; k < 5; k++) {
		lua_Integer i = 1;

		lua_newtable(L);
		for (size_t j = 0; j < c.n; j++)
			if ((int)c.items[j].kind == k) {
				lua_pushstring(L, c.items[j].text);
				lua_rawseti(L, -2, i++);
			}
		lua_setfield(L, -2, names[k]);
	}
	/* the marker is what scenarios ask about: expose it as processes too */
	lua_getfield(L, -1, "marked");
	lua_setfield(L, -2, "processes");
	census_free(&c);
	return 1;
}

static const luaL_Reg proc_fns[] = {
	{"spawn", l_spawn}, {"spawn_bg", l_spawn_bg}, {"swap", l_swap},
	{"swapper", l_swapper}, {"census", l_census}, {NULL, NULL},
};

static const luaL_Reg swapper_meths[] = {{"stop", swapper_stop}, {NULL, NULL}};
static const luaL_Reg bg_meths[] = {{"wait", bg_wait}, {NULL, NULL}};

void sp_proc_register(lua_State *L)
{
	luaL_newmetatable(L, SWAPPER_MT);
	luaL_newlib(L, swapper_meths);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, swapper_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	luaL_newmetatable(L, BG_MT);
	luaL_newlib(L, bg_meths);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, bg_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	luaL_setfuncs(L, proc_fns, 0);
}
