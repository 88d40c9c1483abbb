/* sp_proc.c - the `sp` module's process primitives: spawn (with lab, hold
 * and fault), spawn_bg, swap, swapper, census.  C owns the processes, the
 * descriptors and the timing; Lua composes them. */
#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "host.h"
#include "sandproof/census.h"
#include "sandproof/lab.h"
#include "sandproof/prims.h"
#include "sp.h"
#include "sandproof/proc.h"
#include "sandproof/swap.h"

#define SP_MAX_ARGS 4096
#define SWAPPER_MT "sp.swapper"
#define BG_MT "sp.bg"

/* opts[field], a list of strings -> NULL-terminated vector in *v (strings
 * owned by Lua: valid while opts is on the stack).  Returns the count, or
 * -1 when the field is absent; anything but a list of at most max - 1
 * strings raises, naming fn and the field. */
static int strlist(lua_State *L, int idx, const char *fn, const char *field, const char **v,
		   int max)
{
	int n = 0;

	idx = lua_absindex(L, idx);
	if (lua_getfield(L, idx, field) == LUA_TNIL) {
		lua_pop(L, 1);
		return -1;
	}
	if (!lua_istable(L, -1))
		luaL_error(L, "%s: option \"%s\" must be a list of strings (got %s)", fn, field,
			   luaL_typename(L, -1));
	for (int i = 1;; i++) {
		int t = lua_rawgeti(L, -1, i);

		if (t == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		if (t != LUA_TSTRING)
			luaL_error(L, "%s: %s[%d] must be a string (got %s)", fn, field, i,
				   luaL_typename(L, -1));
		if (n >= max - 1)
			luaL_error(L, "%s: %s has more than %d entries", fn, field, max - 1);
		v[n++] = lua_tostring(L, -1);
		lua_pop(L, 1);
	}
	if (lua_rawlen(L, -1) != (size_t)n)
		luaL_error(L, "%s: option \"%s\" must be a list of strings (it has holes)", fn, field);
	v[n] = NULL;
	/* the table stays referenced from opts, which stays on the stack */
	lua_pop(L, 1);
	return n;
}

/* The hold action: a Lua function (fn_ref, in the registry) run from C
 * while the held call waits.  Its error - whatever it raised, through
 * host_pcall - is kept in the registry (err_ref) for l_spawn to raise once
 * the run is over: never a global a scenario could read or clobber. */
struct hold_ctx {
	lua_State *L;
	int fn_ref;
	int err_ref;
};

static int hold_action(void *ctx, int k, const char *syscall, pid_t pid)
{
	struct hold_ctx *h = ctx;

	if (h->err_ref != LUA_NOREF)
		return -1; /* one error is enough: no action after it */
	lua_rawgeti(h->L, LUA_REGISTRYINDEX, h->fn_ref);
	lua_pushinteger(h->L, k);
	lua_pushstring(h->L, syscall);
	lua_pushinteger(h->L, pid);
	/* The runner under test is stopped in that syscall while this runs. */
	if (host_pcall(h->L, 3, 0) != LUA_OK) {
		h->err_ref = luaL_ref(h->L, LUA_REGISTRYINDEX); /* pops the error */
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
	lua_pushboolean(L, r->signalled);
	lua_setfield(L, -2, "signalled");
	if (r->hold_note[0]) {
		lua_pushstring(L, r->hold_note);
		lua_setfield(L, -2, "hold_note");
	}
	if (r->setup_err) {
		lua_pushfstring(L, "%s: %s", r->setup_step, prims_errno_name(r->setup_err));
		lua_setfield(L, -2, "setup_error");
	}
}

/* Push opts[key] (opts: argument 1); true when it is a table, false when
 * nil; anything else raises. */
static bool opt_table(lua_State *L, const char *fn, const char *key)
{
	int t = lua_getfield(L, 1, key);

	if (t != LUA_TNIL && t != LUA_TTABLE)
		luaL_error(L, "%s: option \"%s\" must be a table (got %s)", fn, key,
			   luaL_typename(L, -1));
	return t == LUA_TTABLE;
}

static const char *const spawn_keys[] = {
	"argv", "env", "cwd", "stdin", "timeout_ms", "private_mounts", "kill_leftovers",
	"lab", "fault", "hold", "signal", NULL,
};
/* sp.spawn_bg's: sp.spawn's and delay_ms */
static const char *const spawn_bg_keys[] = {
	"argv", "env", "cwd", "stdin", "timeout_ms", "private_mounts", "kill_leftovers",
	"lab", "fault", "hold", "delay_ms", NULL,
};
/* the longest delay sp.spawn_bg takes: ten minutes */
#define SP_BG_DELAY_MAX 600000
static const char *const fault_keys[] = {"syscall", "errno", "nth", "once", "arg1", NULL};
static const char *const hold_keys[] = {"syscalls", "path", "at", "comm", "action", NULL};
static const char *const signal_keys[] = {"name", "after_ms", "when", NULL};

/* opts.signal (at idx, a table) into o; misuse raises. */
static void spawn_signal(lua_State *L, int idx, struct proc_opts *o)
{
	const char *name;
	lua_Integer after;

	sp_opts_check(L, idx, "sp.spawn: signal", signal_keys);
	name = sp_opt_string(L, idx, "sp.spawn: signal", "name", NULL, NULL);
	if (!name)
		luaL_error(L, "sp.spawn: signal needs a name (\"SIGTERM\")");
	o->signal_no = prims_signal_value(name);
	if (o->signal_no <= 0)
		luaL_error(L, "sp.spawn: unknown signal name %s", name);
	after = sp_opt_integer(L, idx, "sp.spawn: signal", "after_ms", 0);
	if (after < 0 || after > SP_BG_DELAY_MAX)
		luaL_error(L, "sp.spawn: signal.after_ms must be 0 to %d", SP_BG_DELAY_MAX);
	o->signal_after_ms = (int)after;
	o->signal_when = sp_opt_string(L, idx, "sp.spawn: signal", "when", NULL, NULL);
	if (o->signal_when && !*o->signal_when)
		luaL_error(L, "sp.spawn: signal.when must be a path");
}

/* opts.fault (at idx, a table) into o; misuse raises. */
static void spawn_fault(lua_State *L, int idx, struct proc_opts *o)
{
	const char *name;

	sp_opts_check(L, idx, "sp.spawn: fault", fault_keys);
	o->fault_syscall = sp_opt_string(L, idx, "sp.spawn: fault", "syscall", NULL, NULL);
	name = sp_opt_string(L, idx, "sp.spawn: fault", "errno", NULL, NULL);
	if (!o->fault_syscall || !name)
		luaL_error(L, "sp.spawn: fault needs syscall and errno");
	o->fault_errno = prims_errno_value(name);
	if (o->fault_errno < 0)
		luaL_error(L, "sp.spawn: unknown errno name %s", name);
	o->fault_nth = (unsigned)sp_opt_integer(L, idx, "sp.spawn: fault", "nth", 1);
	lua_getfield(L, idx, "arg1");
	o->fault_arg1_set = !lua_isnil(L, -1);
	lua_pop(L, 1);
	o->fault_arg1 = (uint64_t)sp_opt_integer(L, idx, "sp.spawn: fault", "arg1", 0);
	o->fault_once = sp_opt_boolean(L, idx, "sp.spawn: fault", "once", 0);
}

/* opts.hold (at idx, a table) into o and h; misuse raises. */
static void spawn_hold(lua_State *L, int idx, struct proc_opts *o, const char **hold,
		       struct hold_ctx *h)
{
	sp_opts_check(L, idx, "sp.spawn: hold", hold_keys);
	/* hold.path: Windows's hold (the opens of a path); syscalls: Linux's */
	o->hold_path = sp_opt_string(L, idx, "sp.spawn: hold", "path", NULL, NULL);
	if (o->hold_path) {
		if (lua_getfield(L, idx, "syscalls") != LUA_TNIL)
			luaL_error(L, "sp.spawn: hold takes syscalls or path, not both");
		lua_pop(L, 1);
	} else if (strlist(L, idx, "sp.spawn: hold", "syscalls", hold, PROC_MAX_HOLD + 1) <= 0) {
		luaL_error(L, "sp.spawn: hold.syscalls (or hold.path) must be a non-empty list");
	} else {
		o->hold_syscalls = hold;
	}
	o->hold_at = (int)sp_opt_integer(L, idx, "sp.spawn: hold", "at", 0);
	o->hold_comm = sp_opt_string(L, idx, "sp.spawn: hold", "comm", NULL, NULL);
	if (o->hold_comm && (!*o->hold_comm || strlen(o->hold_comm) > 15))
		luaL_error(L, "sp.spawn: hold.comm must be 1 to 15 bytes (a /proc/PID/comm)");
	lua_getfield(L, idx, "action");
	if (lua_isfunction(L, -1)) {
		h->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
		o->hold_action = hold_action;
		o->hold_ctx = h;
	} else if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
	} else {
		luaL_error(L, "sp.spawn: option \"action\" must be a function (got %s)",
			   luaL_typename(L, -1));
	}
}

/* opts (argument 1) into o: every key checked (against keys), every type
 * too; errors name fn. */
static void spawn_opts(lua_State *L, const char *fn, const char *const *keys, struct proc_opts *o,
		       const char **argv, const char **envp, const char **hold, struct hold_ctx *h)
{

	luaL_checktype(L, 1, LUA_TTABLE);
	sp_opts_check(L, 1, fn, keys);
	proc_opts_init(o);
	if (strlist(L, 1, fn, "argv", argv, SP_MAX_ARGS) <= 0)
		luaL_error(L, "%s: argv must be a non-empty list", fn);
	o->argv = (char *const *)argv;
	if (strlist(L, 1, fn, "env", envp, SP_MAX_ARGS) >= 0)
		o->envp = (char *const *)envp;
	/* the strings stay alive: opts (argument 1) holds them */
	o->cwd = sp_opt_string(L, 1, fn, "cwd", NULL, NULL);
	o->stdin_data = sp_opt_string(L, 1, fn, "stdin", NULL, &o->stdin_len);
	o->timeout_ms = (int)sp_opt_integer(L, 1, fn, "timeout_ms", PROC_TIMEOUT_MS);
	o->private_mounts = sp_opt_boolean(L, 1, fn, "private_mounts", 0);
	o->kill_leftovers = sp_opt_boolean(L, 1, fn, "kill_leftovers", 1);

	if (lua_getfield(L, 1, "lab") != LUA_TNIL) {
		struct lab **lp = luaL_testudata(L, -1, "sp.lab");

		if (!lp)
			luaL_error(L, "%s: option \"lab\" must be a lab (sp.lab)", fn);
		if (!*lp)
			luaL_error(L, "%s: the lab was destroyed", fn);
		o->userns_fd = (*lp)->userns_fd;
		o->netns_fd = (*lp)->netns_fd;
	}
	lua_pop(L, 1);
	if (opt_table(L, fn, "fault"))
		spawn_fault(L, lua_gettop(L), o);
	lua_pop(L, 1);
	if (opt_table(L, fn, "hold"))
		spawn_hold(L, lua_gettop(L), o, hold, h);
	lua_pop(L, 1);
	if (opt_table(L, fn, "signal"))
		spawn_signal(L, lua_gettop(L), o);
	lua_pop(L, 1);
}

/* sp.spawn{argv, env (array "K=V"), cwd, stdin, timeout_ms, lab,
 * private_mounts, kill_leftovers, fault = {syscall, errno, nth, once, arg1},
 * hold = {syscalls, at, comm, action}, signal = {name, after_ms, when}}
 * -> result | nil, msg, errno.
 * The hold action's error is raised here, once the run is over. */
static int l_spawn(lua_State *L)
{
	const char *argv[SP_MAX_ARGS], *envp[SP_MAX_ARGS], *hold[PROC_MAX_HOLD + 1];
	struct proc_opts o;
	struct proc_result r;
	struct hold_ctx hc = {L, LUA_NOREF, LUA_NOREF};
	int rc;

	spawn_opts(L, "sp.spawn", spawn_keys, &o, argv, envp, hold, &hc);
	rc = proc_run(&o, &r);
	if (hc.fn_ref != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, hc.fn_ref);
	if (rc < 0 || hc.err_ref != LUA_NOREF) {
		proc_result_free(&r); /* its contract: in both cases */
		if (hc.err_ref == LUA_NOREF)
			return sp_fail(L, -rc, "spawn");
		lua_rawgeti(L, LUA_REGISTRYINDEX, hc.err_ref);
		luaL_unref(L, LUA_REGISTRYINDEX, hc.err_ref);
		return lua_error(L); /* the hold action's own error */
	}
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

/* ---- background spawn: `sandproof __spawn` (child.h), started through
 * the seam without waiting, runs the blocking sp.spawn and hands back
 * "key=value" lines and the stdout bytes (small, no parser needed).
 *
 * Why a process of its own and not a thread running proc_run: a run's
 * leftover count and tree kill cover every descendant of the process that
 * started it that is not of an earlier run (proc.h), so two runs in one
 * process would count, and kill, each other's processes; the hold and
 * fault filter needs its parent answering at every moment, which a
 * blocked Lua state cannot; and proc.h is for single-threaded callers.
 * As a process, the background run is a subtree of its own, as the forked
 * copy of the Lua state it replaces was, and it runs where fork does not
 * exist. */

/* The options proc_start is given must outlive the run (proc.h): they
 * live in the userdata with the handle. */
struct bg {
	struct proc_handle *h; /* NULL once waited for or collected */
	struct proc_opts o;
	char *argv[3];
	char *blob;            /* sp.spawn's options, __spawn's stdin */
	char **env;
	int keep[2];
};

static void bg_release(struct bg *b, struct proc_result *r)
{
	proc_end(b->h, r);
	b->h = NULL;
	free(b->blob);
	b->blob = NULL;
	child_env_free(b->env);
	b->env = NULL;
}

/* Start __spawn for o on a bg (on the stack, as userdata, already); it
 * starts o's program delay_ms after it starts itself.  0 or -errno. */
static int bg_start(struct bg *b, const struct proc_opts *in, int delay_ms)
{
	const char *self = prims_self_exe();
	int inner = in->timeout_ms > 0 ? in->timeout_ms : PROC_TIMEOUT_MS, nkeep = 0, rc;
	struct proc_opts *o = &b->o;
	size_t len;

	if (!self)
		return -ENOEXEC;
	if ((rc = child_spawn_encode(in, delay_ms, &b->blob, &len)) < 0)
		return rc;
	if (!(b->env = child_env()))
		return -ENOMEM;
	if (in->userns_fd >= 0)
		b->keep[nkeep++] = in->userns_fd;
	if (in->netns_fd >= 0)
		b->keep[nkeep++] = in->netns_fd;
	b->argv[0] = (char *)self;
	b->argv[1] = "__spawn";
	b->argv[2] = NULL;
	proc_opts_init(o);
	o->argv = b->argv;
	o->envp = b->env;
	o->stdin_data = b->blob;
	o->stdin_len = len;
	o->inherit_stderr = true;
	o->keep_fds = b->keep;
	o->n_keep_fds = nkeep;
	o->out_limit = PROC_OUT_LIMIT + 128; /* the program's stdout and our lines */
	o->kill_leftovers = true;
	/* a backstop: __spawn ends its program at the program's own timeout,
	 * counted from the program's start, after the delay */
	inner += delay_ms;
	o->timeout_ms = inner < INT_MAX - 60000 ? inner + 60000 : INT_MAX;
	return proc_start(o, &b->h);
}

/* sp.spawn_bg(opts) -> bg | nil, msg, errno: sp.spawn in a process of its
 * own; bg:wait() -> {code, signal, stdout}.  opts are checked here, in the
 * caller (misuse raises before anything starts); a hold action would run
 * in the other process, out of the caller's reach: refused.
 * opts.delay_ms (0..SP_BG_DELAY_MAX, default 0): the program starts that
 * long after sp.spawn_bg returns (the background process sleeps first, so
 * no shell's `sleep` is needed: the same on every OS); its timeout_ms
 * counts from its start. */
static int l_spawn_bg(lua_State *L)
{
	const char *argv[SP_MAX_ARGS], *envp[SP_MAX_ARGS], *hold[PROC_MAX_HOLD + 1];
	struct proc_opts o;
	struct hold_ctx hc = {L, LUA_NOREF, LUA_NOREF};
	struct bg *b;
	lua_Integer delay;
	int rc;

	spawn_opts(L, "sp.spawn_bg", spawn_bg_keys, &o, argv, envp, hold, &hc);
	delay = sp_opt_integer(L, 1, "sp.spawn_bg", "delay_ms", 0);
	if (delay < 0 || delay > SP_BG_DELAY_MAX) {
		if (hc.fn_ref != LUA_NOREF)
			luaL_unref(L, LUA_REGISTRYINDEX, hc.fn_ref);
		return luaL_error(L, "sp.spawn_bg: delay_ms must be 0 to %d (got %I)",
				  SP_BG_DELAY_MAX, delay);
	}
	if (hc.fn_ref != LUA_NOREF) {
		luaL_unref(L, LUA_REGISTRYINDEX, hc.fn_ref);
		return luaL_error(L, "sp.spawn_bg: a hold action cannot run in the background");
	}
	if (o.hold_path) /* the background child's options carry no path hold */
		return luaL_error(L, "sp.spawn_bg: a hold of a path cannot run in the background");
	b = lua_newuserdatauv(L, sizeof(*b), 0);
	memset(b, 0, sizeof(*b));
	luaL_setmetatable(L, BG_MT);
	if ((rc = bg_start(b, &o, (int)delay)) < 0) {
		free(b->blob);
		b->blob = NULL;
		child_env_free(b->env);
		b->env = NULL;
		return sp_fail(L, -rc, "spawn_bg");
	}
	return 1;
}

static int bg_wait(lua_State *L)
{
	struct bg *b = luaL_checkudata(L, 1, BG_MT);
	struct proc_result r;
	int code = -1, sig = 0;
	size_t outlen = 0;
	const char *nl;

	if (!b->h)
		return luaL_error(L, "sp.bg: already waited for");
	proc_wait(b->h, -1);
	bg_release(b, &r);
	sscanf(r.out, "code=%d\nsignal=%d\nstdout=%zu\n", &code, &sig, &outlen);
	lua_createtable(L, 0, 3);
	if (code >= 0) {
		lua_pushinteger(L, code);
		lua_setfield(L, -2, "code");
	}
	if (sig) {
		lua_pushinteger(L, sig);
		lua_setfield(L, -2, "signal");
	}
	nl = r.out;
	for (int i = 0; i < 3 && nl; i++) {
		nl = strchr(nl, '\n');
		if (nl)
			nl++;
	}
	lua_pushlstring(L, nl ? nl : "", nl ? r.out_len - (size_t)(nl - r.out) : 0);
	lua_setfield(L, -2, "stdout");
	proc_result_free(&r);
	return 1;
}

/* Collected unwaited: the background run and everything it started are
 * killed (proc_kill: the __spawn process, its program and their tree). */
static int bg_gc(lua_State *L)
{
	struct bg *b = luaL_checkudata(L, 1, BG_MT);
	struct proc_result r;

	if (b->h) {
		proc_kill(b->h);
		bg_release(b, &r);
		proc_result_free(&r);
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

/* sp.junction(link, target) -> true | nil, msg, errno: a new junction
 * (Windows only; EOPNOTSUPP elsewhere and under Wine). */
static int l_junction(lua_State *L)
{
	int rc = swap_junction(luaL_checkstring(L, 1), luaL_checkstring(L, 2));

	if (rc < 0)
		return sp_fail(L, -rc, "junction");
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
	static const char *const keys[] = {"marker", "mounts", "locks", "temp", NULL};

	luaL_checktype(L, 1, LUA_TTABLE);
	sp_opts_check(L, 1, "sp.census", keys);
	o.marker = sp_opt_string(L, 1, "sp.census", "marker", NULL, NULL);
	o.lock_dir = sp_opt_string(L, 1, "sp.census", "locks", NULL, NULL);
	if (strlist(L, 1, "sp.census", "mounts", mounts, 32) >= 0)
		o.mount_prefixes = mounts;
	if (strlist(L, 1, "sp.census", "temp", temps, 32) >= 0)
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
	{"swapper", l_swapper}, {"census", l_census}, {"junction", l_junction}, {NULL, NULL},
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
