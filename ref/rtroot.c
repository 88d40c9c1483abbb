/* rtroot.c - see rtroot.h.
 *
 * The workspace a runtime root belongs to is the first write root (the
 * request's cwd when it has none).  The effective request is the caller's
 * plus: the root's tmp/, cache/ and data/ folders as extra write roots (the
 * root itself, its stamp and its lease stay read-only: they are not write
 * roots and the mount layer makes everything else read-only), the root's
 * environment (TMPDIR, XDG_CACHE_HOME, tool caches) overriding the
 * caller's, and temp_dir naming the folder the platform serves as /tmp.
 * The lease is held from before the root is touched until release(),
 * which the run calls only after the sandbox is gone. */
#include "rtroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static struct {
	bool active;
	struct runtime_root root;
	struct request eff;
	struct strv env;
	struct write_root *wr;
} g;

static int fail(struct setup_error *err, int e, const char *detail)
{
	snprintf(err->step, sizeof(err->step), "runtime");
	err->err = e;
	snprintf(err->detail, sizeof(err->detail), "%s", detail);
	return -e;
}

static bool env_overridden(const struct runtime_root *r, const char *kv)
{
	for (size_t i = 0; i < r->n_env; i++) {
		size_t n = strlen(r->env[i].key);

		if (strncmp(kv, r->env[i].key, n) == 0 && kv[n] == '=')
			return true;
	}
	return false;
}

static int build_effective(const struct request *req)
{
	const char *dirs[3] = {g.root.tmp, g.root.cache, g.root.data};
	size_t n = req->n_write_roots;
	int rc = 0;

	g.eff = *req; /* shallow: only what is replaced below is owned here */
	for (size_t i = 0; rc == 0 && i < req->env.n; i++)
		if (!env_overridden(&g.root, req->env.v[i]))
			rc = strv_push(&g.env, req->env.v[i]);
	for (size_t i = 0; rc == 0 && i < g.root.n_env; i++) {
		char *kv;

		if (asprintf(&kv, "%s=%s", g.root.env[i].key, g.root.env[i].value) < 0)
			return -ENOMEM;
		rc = strv_push(&g.env, kv);
		free(kv);
	}
	if (rc < 0)
		return rc;
	g.wr = calloc(n + 3, sizeof(*g.wr));
	if (!g.wr)
		return -ENOMEM;
	memcpy(g.wr, req->write_roots, n * sizeof(*g.wr));
	for (size_t i = 0; i < 3; i++)
		g.wr[n + i].root = (char *)dirs[i]; /* no protected names: ours */
	g.eff.env = g.env;
	g.eff.write_roots = g.wr;
	g.eff.n_write_roots = n + 3;
	g.eff.temp_dir = g.root.tmp;
	return 0;
}

static void report(struct outcome_runtime *rt, const struct runtime_report *rep)
{
	rt->present = true;
	snprintf(rt->root, sizeof(rt->root), "%s", g.root.root);
	rt->reprovisioned = rep->reprovisioned;
	snprintf(rt->reprovision_reason, sizeof(rt->reprovision_reason), "%s",
		 rep->reprovision_reason);
	for (size_t i = 0; i < rep->n_evicted && i < OUTCOME_RUNTIME_MAX; i++)
		snprintf(rt->evicted[rt->n_evicted++], sizeof(rt->evicted[0]), "%s",
			 rep->evicted[i].name);
	for (size_t i = 0; i < rep->n_skipped && i < OUTCOME_RUNTIME_MAX; i++)
		snprintf(rt->skipped[rt->n_skipped++], sizeof(rt->skipped[0]), "%.63s: %.95s",
			 rep->skipped[i].name, rep->skipped[i].reason);
}

int rtroot_acquire(const struct request *req, struct outcome_runtime *rt,
			 struct setup_error *err)
{
	struct runtime_config c = {
		.parent = req->runtime_parent,
		.max_age_s = req->runtime_max_age_s,
		.max_roots = req->runtime_max_roots,
	};
	struct runtime_report rep;
	const char *ws;
	int rc;

	if (!req->has_runtime)
		return 0;
	ws = req->n_write_roots ? req->write_roots[0].root : req->cwd;
	if (!ws)
		return fail(err, EINVAL, "no workspace: neither a write root nor cwd");
	memset(&rep, 0, sizeof(rep));
	runtime_root_init(&g.root);
	rc = runtime_acquire(&c, ws, &g.root, &rep);
	if (rc < 0)
		return fail(err, -rc, rc == -EPERM ?
			    "the runtime parent is not ours or others may write it "
			    "(POSIX: group/world-writable; Windows: its owner or DACL)" :
			    "cannot acquire the runtime root");
	g.active = true;
	report(rt, &rep);
	rc = build_effective(req);
	if (rc < 0) {
		rtroot_release();
		return fail(err, -rc, "cannot build the effective request");
	}
	return 0;
}

const struct request *rtroot_request(const struct request *req)
{
	return g.active ? &g.eff : req;
}

void rtroot_release(void)
{
	if (!g.active)
		return;
	runtime_release(&g.root);
	strv_free(&g.env);
	free(g.wr);
	memset(&g, 0, sizeof(g));
}
