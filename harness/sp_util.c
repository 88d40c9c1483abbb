/* sp_util.c - the `sp` module's plain helpers: JSON, files, time, host;
 * and the conventions every sp.* function follows (sp.h): misuse raises
 * (luaL_check*, an unknown option key); an expected failure returns nil,
 * "what: message", errno name. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <lauxlib.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __APPLE__
#include <sys/random.h> /* getentropy: unistd.h elsewhere */
#endif
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sandproof/prims.h"
#include "sandproof/store.h"
#include "sandproof/tmpdir.h"
#include "sp.h"

int sp_fail(lua_State *L, int err, const char *what)
{
	lua_pushnil(L);
	lua_pushfstring(L, "%s: %s", what, strerror(err));
	lua_pushstring(L, prims_errno_name(err));
	return 3;
}

int sp_fail_msg(lua_State *L, int err, const char *what, const char *msg)
{
	lua_pushnil(L);
	lua_pushfstring(L, "%s: %s", what, msg);
	lua_pushstring(L, prims_errno_name(err));
	return 3;
}

/* ---- options tables --------------------------------------------------------- */

void sp_opts_check(lua_State *L, int idx, const char *fn, const char *const *known)
{
	idx = lua_absindex(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		const char *k;
		size_t i;

		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			luaL_error(L, "%s: option keys are strings (got a %s key)", fn,
				   luaL_typename(L, -1));
		k = lua_tostring(L, -1);
		for (i = 0; known[i] && strcmp(known[i], k) != 0; i++)
			;
		if (!known[i])
			luaL_error(L, "%s: unknown option \"%s\"", fn, k);
	}
}

/* Push opts[key]; raise unless it is nil or of type `type`. */
static int opt_get(lua_State *L, int idx, const char *fn, const char *key, int type,
		   const char *tname)
{
	int t = lua_getfield(L, idx, key);

	if (t != LUA_TNIL && t != type)
		luaL_error(L, "%s: option \"%s\" must be %s (got %s)", fn, key, tname,
			   luaL_typename(L, -1));
	return t != LUA_TNIL;
}

const char *sp_opt_string(lua_State *L, int idx, const char *fn, const char *key,
			  const char *def, size_t *len)
{
	const char *s = def;

	if (len)
		*len = def ? strlen(def) : 0;
	if (opt_get(L, idx, fn, key, LUA_TSTRING, "a string"))
		s = lua_tolstring(L, -1, len); /* the table keeps it alive */
	lua_pop(L, 1);
	return s;
}

lua_Integer sp_opt_integer(lua_State *L, int idx, const char *fn, const char *key,
			   lua_Integer def)
{
	lua_Integer v = def;

	if (opt_get(L, idx, fn, key, LUA_TNUMBER, "an integer")) {
		int isint;

		v = lua_tointegerx(L, -1, &isint);
		if (!isint)
			luaL_error(L, "%s: option \"%s\" must be an integer (got %s)", fn, key,
				   lua_tostring(L, -1));
	}
	lua_pop(L, 1);
	return v;
}

int sp_opt_boolean(lua_State *L, int idx, const char *fn, const char *key, int def)
{
	int v = def;

	if (opt_get(L, idx, fn, key, LUA_TBOOLEAN, "a boolean"))
		v = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return v;
}

/* ---- JSON ----------------------------------------------------------------- */

static void push_json(lua_State *L, const cJSON *j, int depth)
{
	luaL_checkstack(L, 4, "json nesting");
	if (depth > 200)
		luaL_error(L, "json: nested too deeply");
	if (cJSON_IsNull(j)) {
		lua_pushlightuserdata(L, NULL); /* sp.null */
	} else if (cJSON_IsBool(j)) {
		lua_pushboolean(L, cJSON_IsTrue(j));
	} else if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;

		if (d == (double)(lua_Integer)d && d < 9.0e15 && d > -9.0e15)
			lua_pushinteger(L, (lua_Integer)d);
		else
			lua_pushnumber(L, d);
	} else if (cJSON_IsString(j)) {
		lua_pushstring(L, j->valuestring);
	} else if (cJSON_IsArray(j)) {
		lua_Integer i = 1;

		lua_newtable(L);
		for (const cJSON *e = j->child; e; e = e->next) {
			push_json(L, e, depth + 1);
			lua_rawseti(L, -2, i++);
		}
	} else {
		lua_newtable(L);
		for (const cJSON *e = j->child; e; e = e->next) {
			push_json(L, e, depth + 1);
			lua_setfield(L, -2, e->string);
		}
	}
}

static int l_json_decode(lua_State *L)
{
	size_t len;
	const char *s = luaL_checklstring(L, 1, &len);
	cJSON *j = cJSON_ParseWithLength(s, len);

	if (!j)
		return sp_fail_msg(L, EINVAL, "json_decode", "malformed input");
	push_json(L, j, 0);
	cJSON_Delete(j);
	return 1;
}

static cJSON *to_json(lua_State *L, int idx, int depth)
{
	idx = lua_absindex(L, idx);
	if (depth > 200)
		luaL_error(L, "json: nested too deeply");
	switch (lua_type(L, idx)) {
	case LUA_TNIL: return cJSON_CreateNull();
	case LUA_TLIGHTUSERDATA: return cJSON_CreateNull();
	case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(L, idx));
	case LUA_TNUMBER: return cJSON_CreateNumber(lua_tonumber(L, idx));
	case LUA_TSTRING: return cJSON_CreateString(lua_tostring(L, idx));
	case LUA_TTABLE: {
		cJSON *out;

		lua_rawgeti(L, idx, 1);
		bool array = !lua_isnil(L, -1) ||
			(luaL_getmetafield(L, idx, "__jsonarray") != LUA_TNIL && (lua_pop(L, 1), 1));
		lua_pop(L, 1);
		if (array) {
			lua_Integer n = (lua_Integer)lua_rawlen(L, idx);

			out = cJSON_CreateArray();
			for (lua_Integer i = 1; i <= n; i++) {
				lua_rawgeti(L, idx, i);
				cJSON_AddItemToArray(out, to_json(L, -1, depth + 1));
				lua_pop(L, 1);
			}
			return out;
		}
		out = cJSON_CreateObject();
		lua_pushnil(L);
		while (lua_next(L, idx)) {
			if (lua_type(L, -2) == LUA_TSTRING)
				cJSON_AddItemToObject(out, lua_tostring(L, -2),
						      to_json(L, -1, depth + 1));
			lua_pop(L, 1);
		}
		return out;
	}
	default:
		return cJSON_CreateString(luaL_tolstring(L, idx, NULL));
	}
}

static int l_json_encode(lua_State *L)
{
	cJSON *j;
	char *s;

	luaL_checkany(L, 1);
	j = to_json(L, 1, 0);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!s)
		return luaL_error(L, "json: out of memory");
	lua_pushstring(L, s);
	free(s);
	return 1;
}

/* ---- files ---------------------------------------------------------------- */

/* Six random characters of [A-Za-z0-9] into out (not NUL-terminated). */
static int random_suffix(char *out)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];

	if (getentropy(r, sizeof(r)) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(r); i++)
		out[i] = set[r[i] % (sizeof(set) - 1)];
	return 0;
}

/* The canonical spelling of the directory just made, in place: a policy
 * matches canonical paths (macOS: /tmp is /private/tmp, and Seatbelt and
 * the generator refuse the /tmp spelling), so scenarios get that one.  Left
 * as made if it cannot be resolved or does not fit. */
static void canonical_in_place(char *path, size_t len)
{
	char *r = realpath(path, NULL);

	if (r && strlen(r) < len)
		memcpy(path, r, strlen(r) + 1);
	free(r);
}

/* See sp.h.  The directory is made and locked under a name the sweep
 * ignores, then renamed into place (tmpdir_rename_new), so no sweep ever
 * sees it unlocked while its owner lives.  out is its canonical path. */
int sp_mkdtemp_claimed(const char *prefix, char *out, size_t outlen)
{
	return sp_mkdtemp_claimed_fd(prefix, out, outlen, NULL);
}

int sp_mkdtemp_claimed_fd(const char *prefix, char *out, size_t outlen, int *claim)
{
	const char *slash = strrchr(prefix, '/');
	char stage[4096];
	int fd, e = 0;

	if (!slash || strlen(prefix) + 7 > outlen)
		return -EINVAL;
	snprintf(stage, sizeof(stage), "%.*s/.sandproof-new-XXXXXX", (int)(slash - prefix), prefix);
	if (!mkdtemp(stage))
		return -errno;
	fd = open(stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (e = tmpdir_lock(fd, 0)) < 0 || fchmod(fd, 0755) < 0) {
		if (fd >= 0 && e < 0)
			errno = -e;
		goto fail;
	}
	for (int tries = 0; tries < 100; tries++) {
		snprintf(out, outlen, "%sXXXXXX", prefix);
		if (random_suffix(out + strlen(out) - 6) < 0)
			goto fail;
		e = tmpdir_rename_new(fd, stage, out);
		if (e == 0) {
			canonical_in_place(out, outlen);
			if (claim)
				*claim = fd;
			return 0; /* fd stays open: the claim */
		}
		if (e != -EEXIST) {
			errno = -e;
			goto fail;
		}
	}
	errno = EEXIST;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	rmdir(stage);
	return -e;
}

/* The claims of the directories sp.mkdtemp made, by path, so that
 * sp.rmtree of one releases its descriptor: a process that makes a context
 * per program (sandproof explore) would otherwise hold two descriptors per
 * program until it hits its open-file limit.  A claim that does not fit
 * stays held until exit, as before.  Releasing the lock before the removal
 * is safe: the stale sweep also requires the owner's pid to be gone. */
#define SP_CLAIMS 64
static struct sp_claim {
	char *path;
	int fd;
} sp_claims[SP_CLAIMS];

static void claim_keep(const char *path, int fd)
{
	for (int i = 0; i < SP_CLAIMS; i++)
		if (!sp_claims[i].path) {
			if ((sp_claims[i].path = strdup(path)))
				sp_claims[i].fd = fd;
			return;
		}
}

static void claim_release(const char *path)
{
	for (int i = 0; i < SP_CLAIMS; i++)
		if (sp_claims[i].path && !strcmp(sp_claims[i].path, path)) {
			close(sp_claims[i].fd);
			free(sp_claims[i].path);
			sp_claims[i].path = NULL;
		}
}

/* sp.mkdtemp(prefix) -> path: sp_mkdtemp_claimed for scenarios. */
static int l_mkdtemp(lua_State *L)
{
	const char *prefix = luaL_optstring(L, 1, "/tmp/sandproof-");
	char buf[4096];
	int rc, fd = -1;

	if (!strchr(prefix, '/') || strlen(prefix) + 7 > sizeof(buf))
		return luaL_error(L, "sp.mkdtemp: prefix must be an absolute path prefix");
	rc = sp_mkdtemp_claimed_fd(prefix, buf, sizeof(buf), &fd);
	if (rc < 0)
		return sp_fail(L, -rc, "mkdtemp");
	claim_keep(buf, fd);
	lua_pushstring(L, buf);
	return 1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP || flag == FTW_D) {
		chmod(path, 0700);
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	}
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int chmod_dirs(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	if (flag == FTW_D || (flag == FTW_DNR && S_ISDIR(st->st_mode)))
		chmod(path, 0700); /* a test may leave mode-000 folders */
	return 0;
}

/* p lies under one of sp.temp_roots: an absolute path where a root is not
 * spelled from '/' (Windows: "C:/Users/..."). */
static bool under_temp_root(const char *p)
{
	for (int i = 0; i < 2; i++) {
		const char *r = prims_temp_root(i);
		size_t n = strlen(r);

		if (n && strncmp(p, r, n) == 0 && p[n] == '/')
			return true;
	}
	return false;
}

/* Remove a tree the harness made.  Never follows a symlink (FTW_PHYS) and
 * refuses anything that is not one of our temp directories: the `none`
 * runner really performs every attack, and a confused scenario must not be
 * able to point this at a real directory. */
static int l_rmtree(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);

	if (!strstr(p, "/sandproof-") || strstr(p, "/../") || (p[0] != '/' && !under_temp_root(p)))
		return luaL_error(L, "rmtree: refusing %s (not a sandproof temp dir)", p);
	claim_release(p);
	nftw(p, chmod_dirs, 32, FTW_PHYS);
	if (nftw(p, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return sp_fail(L, errno, p);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_write(lua_State *L)
{
	size_t n;
	const char *p = luaL_checkstring(L, 1), *data = luaL_checklstring(L, 2, &n);
	int mode = (int)luaL_optinteger(L, 3, 0644);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);

	if (fd < 0)
		return sp_fail(L, errno, p);
	if (write(fd, data, n) != (ssize_t)n) {
		int e = errno;

		close(fd);
		return sp_fail(L, e, p);
	}
	close(fd);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_read(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	luaL_Buffer b;
	char buf[8192];
	ssize_t n;

	if (fd < 0)
		return sp_fail(L, errno, p);
	luaL_buffinit(L, &b);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		luaL_addlstring(&b, buf, (size_t)n);
	close(fd);
	luaL_pushresult(&b);
	return 1;
}

static int l_mkdir(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);

	if (mkdir(p, (mode_t)luaL_optinteger(L, 2, 0755)) < 0)
		return sp_fail(L, errno, p);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_symlink(lua_State *L)
{
	const char *t = luaL_checkstring(L, 1), *p = luaL_checkstring(L, 2);

	if (symlink(t, p) < 0)
		return sp_fail(L, errno, p);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_rename(lua_State *L)
{
	const char *a = luaL_checkstring(L, 1), *b = luaL_checkstring(L, 2);

	if (rename(a, b) < 0)
		return sp_fail(L, errno, a);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_unlink(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);

	if (unlink(p) < 0)
		return sp_fail(L, errno, p);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_chmod(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);

	if (chmod(p, (mode_t)luaL_checkinteger(L, 2)) < 0)
		return sp_fail(L, errno, p);
	lua_pushboolean(L, 1);
	return 1;
}

static int l_lstat(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);
	struct stat st;

	if (lstat(p, &st) < 0)
		return sp_fail(L, errno, p);
	lua_createtable(L, 0, 9);
	lua_pushstring(L, S_ISDIR(st.st_mode) ? "dir" : S_ISLNK(st.st_mode) ? "link" :
			  S_ISREG(st.st_mode) ? "file" : "other");
	lua_setfield(L, -2, "type");
	lua_pushinteger(L, st.st_mode & 07777);
	lua_setfield(L, -2, "mode");
	lua_pushinteger(L, st.st_uid);
	lua_setfield(L, -2, "uid");
	lua_pushinteger(L, (lua_Integer)st.st_ino);
	lua_setfield(L, -2, "ino");
	lua_pushinteger(L, (lua_Integer)st.st_dev);
	lua_setfield(L, -2, "dev");
	lua_pushinteger(L, (lua_Integer)st.st_size);
	lua_setfield(L, -2, "size");
	lua_pushinteger(L, (lua_Integer)st.st_nlink);
	lua_setfield(L, -2, "nlink");
	lua_pushinteger(L, (lua_Integer)st.st_mtime); /* POSIX; st_mtim is not macOS */
	lua_setfield(L, -2, "mtime");
	return 1;
}

static int l_exists(lua_State *L)
{
	struct stat st;

	lua_pushboolean(L, lstat(luaL_checkstring(L, 1), &st) == 0);
	return 1;
}

/* sp.realpath(path): the canonical absolute path (every symlink, `.` and
 * `..` resolved), or nil, "path: message", errno name. */
static int l_realpath(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);
	char *r = realpath(p, NULL);

	if (!r)
		return sp_fail(L, errno, p);
	lua_pushstring(L, r);
	free(r);
	return 1;
}

/* sp.readlink(path): the text of the symbolic link at path, or nil,
 * "path: message", errno name. */
static int l_readlink(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);
	char buf[4096];
	ssize_t n = readlink(p, buf, sizeof(buf));

	if (n < 0)
		return sp_fail(L, errno, p);
	if ((size_t)n == sizeof(buf))
		return sp_fail(L, ENAMETOOLONG, p);
	lua_pushlstring(L, buf, (size_t)n);
	return 1;
}

/* sp.executable(path): true when path (symlinks followed) is a regular
 * file this process may execute, else nil, "path: message", errno name.
 * On Windows execution is the extension's matter: a regular file is
 * enough there. */
static int l_executable(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);
	struct stat st;

	if (stat(p, &st) < 0)
		return sp_fail(L, errno, p);
	if (!S_ISREG(st.st_mode))
		return sp_fail_msg(L, EACCES, p, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
#ifndef _WIN32
	if (access(p, X_OK) < 0)
		return sp_fail(L, errno, p);
#endif
	lua_pushboolean(L, 1);
	return 1;
}

static int l_listdir(lua_State *L)
{
	const char *p = luaL_checkstring(L, 1);
	DIR *d = opendir(p);
	struct dirent *de;
	lua_Integer i = 1;

	if (!d)
		return sp_fail(L, errno, p);
	lua_newtable(L);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			lua_pushstring(L, de->d_name);
			lua_rawseti(L, -2, i++);
		}
	closedir(d);
	return 1;
}

/* ---- time and host -------------------------------------------------------- */

static int l_now_ms(lua_State *L)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	lua_pushnumber(L, (lua_Number)ts.tv_sec * 1000.0 + (lua_Number)ts.tv_nsec / 1e6);
	return 1;
}

static int l_sleep_ms(lua_State *L)
{
	lua_Number ms = luaL_checknumber(L, 1);
	struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (lua_Number)(time_t)(ms / 1000) * 1000) * 1e6)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

static int l_getuid(lua_State *L)
{
	lua_pushinteger(L, getuid());
	return 1;
}

/* sp.interrupted(): the signal that interrupted the harness (SIGINT,
 * SIGTERM, SIGHUP, once its handler is installed: explore), or 0. */
static int l_interrupted(lua_State *L)
{
	lua_pushinteger(L, prims_interrupted());
	return 1;
}

static int l_getpid(lua_State *L)
{
	lua_pushinteger(L, getpid());
	return 1;
}

static int l_uname(lua_State *L)
{
	struct utsname u;

	uname(&u);
	lua_createtable(L, 0, 3);
	lua_pushstring(L, u.sysname);
	lua_setfield(L, -2, "sysname");
	lua_pushstring(L, u.release);
	lua_setfield(L, -2, "release");
	lua_pushstring(L, u.machine);
	lua_setfield(L, -2, "machine");
	return 1;
}

/* sp.base64_decode(s) -> bytes | nil, msg, "EINVAL": the outcome's
 * "<stream>_encoding": "base64" form (padded, RFC 4648 alphabet). */
static int l_base64_decode(lua_State *L)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n, pad = 0;
	const char *s = luaL_checklstring(L, 1, &n);
	luaL_Buffer b;
	uint32_t acc = 0;
	int bits = 0;

	if (n % 4)
		return sp_fail_msg(L, EINVAL, "base64_decode", "length not a multiple of 4");
	while (pad < 2 && pad < n && s[n - 1 - pad] == '=')
		pad++;
	luaL_buffinit(L, &b);
	for (size_t i = 0; i < n - pad; i++) {
		const char *p = s[i] ? strchr(tab, s[i]) : NULL;

		if (!p)
			return sp_fail_msg(L, EINVAL, "base64_decode", "not in the alphabet");
		acc = (acc << 6) | (uint32_t)(p - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			luaL_addchar(&b, (char)(acc >> bits));
		}
	}
	luaL_pushresult(&b);
	return 1;
}

static int l_errname(lua_State *L)
{
	lua_pushstring(L, prims_errno_name((int)luaL_checkinteger(L, 1)));
	return 1;
}

/* sp.lacks(primitive) -> nil when this OS has it, else "unsupported on
 * <os>: <reason>" (prims_lacks): the reason a scenario that needs it gets
 * the verdict unsupported. */
static int l_lacks(lua_State *L)
{
	const char *why = prims_lacks(luaL_checkstring(L, 1));

	if (!why)
		return 0;
	lua_pushfstring(L, "unsupported on %s: %s", prims_os_name(), why);
	return 1;
}

static const luaL_Reg util_fns[] = {
	{"json_decode", l_json_decode}, {"json_encode", l_json_encode},
	{"mkdtemp", l_mkdtemp}, {"rmtree", l_rmtree}, {"write", l_write},
	{"read", l_read}, {"mkdir", l_mkdir}, {"symlink", l_symlink},
	{"rename", l_rename}, {"unlink", l_unlink}, {"chmod", l_chmod},
	{"lstat", l_lstat}, {"exists", l_exists}, {"listdir", l_listdir},
	{"realpath", l_realpath}, {"readlink", l_readlink}, {"executable", l_executable},
	{"now_ms", l_now_ms}, {"sleep_ms", l_sleep_ms}, {"getuid", l_getuid},
	{"getpid", l_getpid}, {"uname", l_uname}, {"errname", l_errname},
	{"interrupted", l_interrupted},
	{"base64_decode", l_base64_decode}, {"lacks", l_lacks}, {NULL, NULL},
};

void sp_util_register(lua_State *L)
{
	luaL_setfuncs(L, util_fns, 0);
	lua_pushlightuserdata(L, NULL);
	lua_setfield(L, -2, "null");
	lua_pushstring(L, prims_os_name());
	lua_setfield(L, -2, "os");
	lua_createtable(L, 2, 0); /* sp.temp_roots: {hidden, visible} */
	for (int i = 0; i < 2; i++) {
		lua_pushstring(L, prims_temp_root(i));
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "temp_roots");
	/* sp.impact_classes: the classes a fail may carry, in report order,
	 * from the store (sandproof.impact classes by this one list) */
	lua_createtable(L, STORE_N_IMPACTS, 0);
	for (int i = 0; i < STORE_N_IMPACTS; i++) {
		lua_pushstring(L, store_impacts[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "impact_classes");
}
