/* runner.c - see runner.h. */
#include "runner.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* sandproof.runners.resolve(arg, paths) in a fresh state: *r filled, or
 * -EINVAL with its message in err. */
static int resolve(const struct scen_paths *p, const char *arg, struct runner *r, char *err,
		   size_t errlen)
{
	lua_State *L = host_new(p->harness);
	int rc = -EINVAL;

	if (!L)
		return -ENOMEM;
	lua_getglobal(L, "require");
	lua_pushstring(L, "sandproof.runners");
	if (host_pcall(L, 1, 1) != LUA_OK) {
		snprintf(err, errlen, "harness: %s", lua_tostring(L, -1));
		goto out;
	}
	lua_getfield(L, -1, "resolve");
	lua_pushstring(L, arg);
	scen_push_paths(L, p);
	if (host_pcall(L, 2, 2) != LUA_OK) {
		snprintf(err, errlen, "runner '%s': %s", arg, lua_tostring(L, -1));
		goto out;
	}
	if (!lua_istable(L, -2)) {
		snprintf(err, errlen, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "runner refused");
		goto out;
	}
	lua_getfield(L, -2, "name");
	lua_getfield(L, -3, "spec");
	lua_getfield(L, -4, "timeout_scale");
	r->name = strdup(lua_tostring(L, -3) ? lua_tostring(L, -3) : "");
	r->spec = strdup(lua_tostring(L, -2) ? lua_tostring(L, -2) : "");
	r->scale = (unsigned)lua_tointeger(L, -1);
	rc = r->name && r->spec ? 0 : -ENOMEM;
	if (rc) {
		free(r->name);
		free(r->spec);
	}
out:
	lua_close(L);
	return rc;
}

int runner_add(const struct scen_paths *p, struct runner_set *s, const char *arg, char *err,
	       size_t errlen)
{
	struct runner r = {0};
	int rc;

	if (s->n == RUNNER_MAX) {
		snprintf(err, errlen, "more than %d runners", RUNNER_MAX);
		return -E2BIG;
	}
	if ((rc = resolve(p, arg, &r, err, errlen)) < 0)
		return rc;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, r.name)) {
			snprintf(err, errlen, "runner '%s' named twice ('%s' and '%s'); give one another "
				 "name: NAME=contract:PATH or NAME=FILE.lua", r.name, s->v[i].spec, arg);
			free(r.name);
			free(r.spec);
			return -EINVAL;
		}
	if (r.scale < 1 || r.scale > 100)
		r.scale = 1;
	s->v[s->n++] = r;
	return 0;
}

int runner_add_list(const struct scen_paths *p, struct runner_set *s, const char *list,
		    char *err, size_t errlen)
{
	const char *c = list;

	for (;;) {
		size_t n = strcspn(c, ",");
		char *one = malloc(n + 1);
		int rc;

		if (!one)
			return -ENOMEM;
		memcpy(one, c, n);
		one[n] = '\0';
		rc = n ? runner_add(p, s, one, err, errlen)
		       : (snprintf(err, errlen, "an empty runner in '%s'", list), -EINVAL);
		free(one);
		if (rc < 0)
			return rc;
		if (!c[n])
			return 0;
		c += n + 1;
	}
}

void runner_names(const struct runner_set *s, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", s->v[i].name);
}

void runner_set_free(struct runner_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].spec);
	}
	s->n = 0;
}
