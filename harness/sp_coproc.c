/* sp_coproc.c - sp.coproc: a program the caller talks to while it runs
 * (a session server, `sandproof-ref serve`; the unconfined control's
 * session).  POSIX only.
 *
 *   local c = sp.coproc { argv = {...}, env = {"K=V", ...}, cwd = "..." }
 *   c:send(bytes)                 -> true | nil, msg, errno
 *   c:read(timeout_ms, max)       -> bytes ("" at the timeout) | nil, "eof"
 *   c:read_line(timeout_ms)       -> line (without "\n") | nil, "timeout"|"eof"
 *   c:close_stdin()
 *   c:signal(name)                -> true | false (already reaped)
 *   c:wait(timeout_ms)            -> { code = n } | { signal = n } | nil, "timeout"
 *   c:pid(), c:rss_kib()          -> its resident size now, from /proc
 *
 * The program runs in a session of its own (no controlling terminal); its
 * stdin is a pipe from the harness, so a harness that dies leaves it at
 * EOF (a session server then stops its sessions and exits, SESS).  It is our
 * child, signalled by pid only until it is reaped (the pid cannot be reused
 * before), never after.  Collected unwaited (__gc), it gets SIGKILL and is
 * reaped.  stdout is read into a buffer bounded by 64 MiB (past it,
 * read_line fails "overflow": a misbehaving program cannot exhaust the
 * harness); stderr is the harness's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "fdpipe.h"
#include "sp.h"

#define COPROC_MT "sp.coproc"
#define COPROC_BUF_MAX (64u << 20)
#define COPROC_ARGS 256

struct coproc {
	pid_t pid;       /* 0 once reaped */
	int in, out;     /* our ends; -1 closed */
	int status;
	char *buf;       /* stdout read, not yet returned */
	size_t len, cap;
	bool eof;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int list_of(lua_State *L, const char *field, const char **v)
{
	int n = 0;

	if (lua_getfield(L, 1, field) == LUA_TNIL) {
		lua_pop(L, 1);
		return -1;
	}
	luaL_checktype(L, -1, LUA_TTABLE);
	for (int i = 1; i < COPROC_ARGS; i++, n++) {
		if (lua_rawgeti(L, -1, i) == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		v[n] = luaL_checkstring(L, -1);
		lua_pop(L, 1); /* the table holds the string */
	}
	v[n] = NULL;
	lua_pop(L, 1);
	return n;
}

static void child(int in[2], int out[2], const char **argv, const char **envp,
		  const char *cwd)
{
	if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
		_exit(127);
	setsid();
	if (cwd && chdir(cwd) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	if (envp)
		execve(argv[0], (char *const *)argv, (char *const *)envp);
	else
		execv(argv[0], (char *const *)argv);
	_exit(127);
}

static int l_coproc(lua_State *L)
{
	static const char *const keys[] = {"argv", "env", "cwd", NULL};
	const char *argv[COPROC_ARGS], *envp[COPROC_ARGS], *cwd;
	int in[2], out[2], has_env, rc;
	struct coproc *c;

	luaL_checktype(L, 1, LUA_TTABLE);
	sp_opts_check(L, 1, "sp.coproc", keys);
	if (list_of(L, "argv", argv) <= 0)
		return luaL_error(L, "sp.coproc: argv must be a non-empty list");
	has_env = list_of(L, "env", envp) >= 0;
	cwd = sp_opt_string(L, 1, "sp.coproc", "cwd", NULL, NULL);
	c = lua_newuserdatauv(L, sizeof(*c), 0);
	memset(c, 0, sizeof(*c));
	c->in = c->out = -1;
	luaL_setmetatable(L, COPROC_MT);
	if ((rc = fdpipe_open(in, O_CLOEXEC)) < 0)
		return sp_fail(L, -rc, "coproc: pipe");
	if ((rc = fdpipe_open(out, O_CLOEXEC)) < 0) {
		close(in[0]);
		close(in[1]);
		return sp_fail(L, -rc, "coproc: pipe");
	}
	c->pid = fork();
	if (c->pid == 0)
		child(in, out, argv, has_env ? envp : NULL, cwd);
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	if (c->pid < 0) {
		c->pid = 0;
		return sp_fail(L, errno, "coproc: fork");
	}
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	return 1;
}

/* Read what is there, waiting at most until deadline for the first byte
 * (or for a newline when line is set).  0, or -ETIMEDOUT, -EPIPE (EOF). */
static int fill(struct coproc *c, int64_t deadline, bool line)
{
	for (;;) {
		struct pollfd pf = {.fd = c->out, .events = POLLIN};
		int64_t left = deadline - mono_ms();
		ssize_t n;

		if (c->len > 0 && (!line || memchr(c->buf, '\n', c->len)))
			return 0;
		if (c->eof)
			return -EPIPE;
		if (c->len >= COPROC_BUF_MAX)
			return -ENOBUFS;
		if (left < 0)
			return -ETIMEDOUT;
		if (poll(&pf, 1, (int)(left > 60000 ? 60000 : left)) < 0 && errno != EINTR)
			return -errno;
		if (c->cap - c->len < 65536) {
			size_t cap = c->cap ? c->cap * 2 : 131072;
			char *b = realloc(c->buf, cap);

			if (!b)
				return -ENOMEM;
			c->buf = b;
			c->cap = cap;
		}
		n = read(c->out, c->buf + c->len, 65536);
		if (n > 0)
			c->len += (size_t)n;
		else if (n == 0)
			c->eof = true;
	}
}

static void consume(lua_State *L, struct coproc *c, size_t n, size_t skip)
{
	lua_pushlstring(L, c->buf ? c->buf : "", n);
	if (c->buf)
		memmove(c->buf, c->buf + n + skip, c->len - n - skip);
	c->len -= n + skip;
}

static int m_read_line(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);
	int rc = fill(c, mono_ms() + luaL_optinteger(L, 2, 30000), true);
	char *nl;

	if (rc < 0) {
		lua_pushnil(L);
		lua_pushstring(L, rc == -ETIMEDOUT ? "timeout" : rc == -EPIPE ? "eof"
			       : rc == -ENOBUFS ? "overflow" : strerror(-rc));
		return 2;
	}
	nl = memchr(c->buf, '\n', c->len);
	consume(L, c, (size_t)(nl - c->buf), 1);
	return 1;
}

static int m_read(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);
	int rc = fill(c, mono_ms() + luaL_optinteger(L, 2, 0), false);
	size_t max = (size_t)luaL_optinteger(L, 3, (lua_Integer)COPROC_BUF_MAX);

	if (rc == -EPIPE && c->len == 0) {
		lua_pushnil(L);
		lua_pushstring(L, "eof");
		return 2;
	}
	consume(L, c, c->len < max ? c->len : max, 0);
	return 1;
}

static int m_send(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);
	size_t len, off = 0;
	const char *s = luaL_checklstring(L, 2, &len);
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	int err = 0;

	/* A program that stopped reading is EPIPE here, never our death. */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	while (off < len && c->in >= 0 && !err) {
		ssize_t n = write(c->in, s + off, len - off);

		if (n < 0 && errno != EINTR)
			err = errno;
		else if (n > 0)
			off += (size_t)n;
	}
	sigaction(SIGPIPE, &old, NULL);
	if (err)
		return sp_fail(L, err, "coproc: send");
	if (c->in < 0)
		return sp_fail(L, EPIPE, "coproc: send");
	lua_pushboolean(L, 1);
	return 1;
}

static int m_close_stdin(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);

	if (c->in >= 0)
		close(c->in);
	c->in = -1;
	return 0;
}

static int m_signal(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);
	const char *name = luaL_checkstring(L, 2);
	int sig = strcmp(name, "SIGKILL") == 0 ? SIGKILL : strcmp(name, "SIGINT") == 0 ? SIGINT
		: strcmp(name, "SIGTERM") == 0 ? SIGTERM : 0;

	if (!sig)
		return luaL_error(L, "coproc:signal: SIGTERM, SIGINT or SIGKILL (got %s)", name);
	/* Unreaped, the pid is still ours alone. */
	lua_pushboolean(L, c->pid > 0 && kill(c->pid, sig) == 0);
	return 1;
}

static int m_wait(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);
	int64_t deadline = mono_ms() + luaL_optinteger(L, 2, 30000);

	while (c->pid > 0) {
		pid_t p = waitpid(c->pid, &c->status, WNOHANG);

		if (p == c->pid) {
			c->pid = 0;
			break;
		}
		if (mono_ms() >= deadline) {
			lua_pushnil(L);
			lua_pushstring(L, "timeout");
			return 2;
		}
		usleep(10000);
	}
	lua_createtable(L, 0, 1);
	lua_pushinteger(L, WIFSIGNALED(c->status) ? WTERMSIG(c->status) : WEXITSTATUS(c->status));
	lua_setfield(L, -2, WIFSIGNALED(c->status) ? "signal" : "code");
	return 1;
}

static int m_pid(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);

	lua_pushinteger(L, c->pid);
	return 1;
}

/* VmRSS of the program now (KiB), or nil once reaped. */
static int m_rss_kib(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);
	char path[64], line[256];
	FILE *f;
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->pid);
	f = c->pid > 0 ? fopen(path, "re") : NULL;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	if (kib < 0)
		return 0;
	lua_pushinteger(L, kib);
	return 1;
}

static int m_gc(lua_State *L)
{
	struct coproc *c = luaL_checkudata(L, 1, COPROC_MT);

	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	c->in = c->out = -1;
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
	free(c->buf);
	c->buf = NULL;
	return 0;
}

static const luaL_Reg coproc_meths[] = {
	{"send", m_send}, {"read", m_read}, {"read_line", m_read_line},
	{"close_stdin", m_close_stdin}, {"signal", m_signal}, {"wait", m_wait},
	{"pid", m_pid}, {"rss_kib", m_rss_kib}, {NULL, NULL},
};

void sp_coproc_register(lua_State *L)
{
	luaL_newmetatable(L, COPROC_MT);
	lua_newtable(L);
	luaL_setfuncs(L, coproc_meths, 0);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, m_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_coproc);
	lua_setfield(L, -2, "coproc");
}
