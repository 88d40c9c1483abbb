/* platform.c - the runner seam (sandproof/platform.h) of macOS: Seatbelt
 * through sandbox-exec.  Parse, plan, apply:
 *
 *   prepare: the request's policy paths are canonical on this host
 *            (canon.c), the per-run private temp directory exists, the
 *            profile is generated (sbpl_generate) and linted (sbpl_lint),
 *            the limits Seatbelt cannot enforce are planned as rlimits or
 *            refused, the command is resolved; any refusal is a typed setup
 *            failure and nothing runs (SETUP-1);
 *   launch:  launch.c (a preflight of the profile, then sandbox-exec);
 *   report:  exactly what was applied (backend "seatbelt", or
 *            "seatbelt-sim" in the posix-sim where nothing is confined).
 *
 * No namespace, no seccomp: those enforcement facts stay false. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "namefold.h"
#include "names.h"
#include "seatbelt.h"

int platform_supervisor_init(void)
{
	/* No child subreaper on macOS: the command's tree is its process
	 * group (platform_kill_tree), as on every POSIX system. */
	return 0;
}

/* LIM-2 on a system without cgroups or a private tmpfs: a stated limit
 * that cannot be enforced is refused, a default that cannot is left out
 * (reported null).  open_files and cpu_seconds are rlimits, set in the
 * child before sandbox-exec (which keeps them for the command). */
static int limits_plan(const struct request *req, struct plan *p, struct setup_error *err)
{
	static const char *const why[LIMIT_COUNT] = {
		[LIMIT_PIDS] = "no per-sandbox process bound here (RLIMIT_NPROC counts every "
			       "process of the user, not the sandbox's)",
		[LIMIT_MEMORY] = "no memory bound here (no cgroups; RLIMIT_AS is not memory)",
		[LIMIT_TMP] = "no private tmpfs here: the temp directory is a host directory",
		[LIMIT_SHM] = "no private tmpfs here for shared memory",
	};
	struct rlimit own;

	for (int i = LIMIT_PIDS; i <= LIMIT_SHM; i++)
		if (req->limits.value[i]) {
			char step[32];

			snprintf(step, sizeof(step), "limits:%s", limit_names[i]);
			return seatbelt_fail(err, step, NULL, EOPNOTSUPP, why[i]);
		}
	for (int i = LIMIT_OPEN_FILES; i <= LIMIT_CPU; i++) {
		int res = i == LIMIT_OPEN_FILES ? RLIMIT_NOFILE : RLIMIT_CPU;
		unsigned long long v = limit_wanted(&req->limits, i);

		if (!v)
			continue;
		/* Above the runner's own hard limit: lowered to it, a stricter
		 * bound, reported as such (LIM-2). */
		if (getrlimit(res, &own) == 0 && own.rlim_max != RLIM_INFINITY &&
		    v > (unsigned long long)own.rlim_max)
			v = own.rlim_max;
#ifdef __APPLE__
		/* macOS refuses a descriptor bound above OPEN_MAX. */
		if (res == RLIMIT_NOFILE && v > OPEN_MAX)
			v = OPEN_MAX;
#endif
		p->rl[p->n_rl++] = (struct rlim_plan){res, (enum limit_id)i, v};
		p->enf.limits[i].value = v;
		p->enf.limits[i].via = "rlimit";
	}
	return 0;
}

static int env_add(struct strv *env, const char *key, const char *value)
{
	char *kv;
	int rc;

	if (asprintf(&kv, "%s=%s", key, value) < 0)
		return -ENOMEM;
	rc = strv_push(env, kv);
	free(kv);
	return rc;
}

static bool is_var(const char *kv, const char *name)
{
	size_t n = strlen(name);

	return strncmp(kv, name, n) == 0 && kv[n] == '=';
}

/* The request's environment, the temp variables naming the private temp
 * directory (RT-3), and the two markers (as on Linux). */
static int env_build(const struct request *req, struct plan *p)
{
	static const char *const tmpvars[] = {"TMPDIR", "TMP", "TEMP"};
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < req->env.n; i++) {
		const char *kv = req->env.v[i];
		bool skip = is_var(kv, "SANDPROOF_SANDBOXED") || is_var(kv, "SANDPROOF_NETWORK");

		for (size_t k = 0; p->tmpdir && k < 3; k++)
			skip = skip || is_var(kv, tmpvars[k]);
		if (!skip)
			rc = strv_push(&p->envp, kv);
	}
	for (size_t k = 0; rc == 0 && p->tmpdir && k < 3; k++)
		rc = env_add(&p->envp, tmpvars[k], p->tmpdir);
	if (rc == 0)
		rc = strv_push(&p->envp, "SANDPROOF_SANDBOXED=1");
	if (rc == 0)
		rc = strv_push(&p->envp, req->network == NET_DENY ? "SANDPROOF_NETWORK=deny"
								   : "SANDPROOF_NETWORK=allow");
	return rc;
}

/* SP_SANDBOX_EXEC -p TEXT [-D NAME=VALUE]... -- EXE ARGS... */
static int argv_build(struct plan *p)
{
	const struct request *req = p->req;
	int rc = strv_push(&p->argv, SP_SANDBOX_EXEC);

	if (rc == 0)
		rc = strv_push(&p->argv, "-p");
	if (rc == 0)
		rc = strv_push(&p->argv, p->prof.text);
	for (size_t i = 0; rc == 0 && i < p->prof.n_params; i++) {
		rc = strv_push(&p->argv, "-D");
		if (rc == 0)
			rc = env_add(&p->argv, p->prof.params[i].name, p->prof.params[i].value);
	}
	if (rc == 0)
		rc = strv_push(&p->argv, "--");
	/* Without a resolved command the argv still serves the preflight
	 * (launch reports the exec failure, nothing else is started). */
	if (rc == 0)
		rc = strv_push(&p->argv, p->exe ? p->exe : req->command.v[0]);
	for (size_t i = 1; rc == 0 && i < req->command.n; i++)
		rc = strv_push(&p->argv, req->command.v[i]);
	return rc;
}

/* The command's temp directory (RT-3, FS-4 as Seatbelt can).  With a
 * runtime root, its tmp/ itself (req->temp_dir, one of the effective
 * request's write roots): TMPDIR, TMP and TEMP name it at its host path,
 * and it stays the root's after the run (RT-3).  Without one, with
 * allow_temp, a private per-run directory in the runner's own temp
 * directory (TMPDIR, else SEATBELT_TMP_FALLBACK, resolved: /private/tmp on
 * macOS), removed after the run; else none.  Seatbelt cannot give the
 * command a /tmp of its own: these name the only temp location the
 * profile makes writable. */
static int tmpdir_plan(const struct request *req, struct plan *p, struct setup_error *err)
{
	const char *host = getenv("TMPDIR");
	char real[PATH_MAX];

	if (req->temp_dir) {
		if (!realpath(req->temp_dir, real))
			return seatbelt_fail(err, "private_tmp", req->temp_dir, errno,
					     "cannot resolve the runtime root's tmp/");
		if (strcmp(real, req->temp_dir) != 0)
			return seatbelt_fail(err, "private_tmp", req->temp_dir, ELOOP,
					     "the runtime root's tmp/ is not canonical here");
		p->tmpdir_borrowed = true;
		return (p->tmpdir = strdup(real)) ? 0
			: seatbelt_fail(err, "private_tmp", NULL, ENOMEM, NULL);
	}
	if (!req->allow_temp || req->fs_kind != FS_RESTRICTED)
		return 0;
	if (!host || host[0] != '/')
		host = SEATBELT_TMP_FALLBACK;
	if (!realpath(host, real))
		return seatbelt_fail(err, "private_tmp", host, errno,
				     "cannot resolve the runner's temp directory");
	return canon_tmpdir_make(real, &p->tmpdir, err);
}

/* The profile: generated for the effective request and its volumes (how
 * they compare names, volume.c), then linted. */
static int profile_make(struct plan *p, struct setup_error *err)
{
	struct sbpl_opts o = {.temp_dir = p->tmpdir, .message_tag = p->tag};
	char msg[SBPL_ERR_MAX] = "";
	int rc;

	volume_name_fold(p->req, &p->name_fold, &p->case_insensitive);
	o.name_fold = p->name_fold;
	/* Root's TIOCSTI reaches a terminal it holds outside its session
	 * (PRIV-4): only a runner that is not root gets terminal ioctls. */
	o.terminal_ioctl = p->terminal_ioctl = geteuid() != 0;
	p->enf.name_matching = p->name_fold & NAMEFOLD_CASE ? "case-insensitive"
							    : "normalization-insensitive";
	rc = sbpl_generate(p->req, &o, &p->prof, msg);

	if (rc < 0)
		return seatbelt_fail(err, "profile", NULL, -rc, msg);
	rc = sbpl_lint(p->prof.text, msg);
	if (rc < 0)
		return seatbelt_fail(err, "profile_lint", NULL, -rc, msg);
	return 0;
}

static void enforcement_init(struct plan *p)
{
	memset(&p->enf, 0, sizeof(p->enf));
	p->enf.backend = SEATBELT_BACKEND;
	p->enf.seatbelt.applied = true;
	/* denials_reported: only once the unified log was read (release). */
}

int platform_prepare(const struct request *req, struct plan **out, struct setup_error *err)
{
	struct plan *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return seatbelt_fail(err, "plan", NULL, ENOMEM, NULL);
	p->req = req;
	enforcement_init(p);
	snprintf(p->tag, sizeof(p->tag), "sandproof-%ld-%ld", (long)getpid(), (long)time(NULL));
	rc = canon_check_request(req, err);
	if (rc == 0)
		rc = limits_plan(req, p, err);
	if (rc == 0)
		rc = tmpdir_plan(req, p, err);
	if (rc == 0)
		rc = profile_make(p, err);
	if (rc == 0) {
		int e = canon_resolve_command(req, &p->exe);

		/* Not found or not executable: an exec failure (OUT-2), reported
		 * by launch; the profile stays applicable. */
		p->exe_errno = e < 0 ? -e : 0;
		if (e == -ENOMEM)
			rc = seatbelt_fail(err, "plan", NULL, ENOMEM, NULL);
	}
	if (rc == 0 && (env_build(req, p) < 0 || argv_build(p) < 0))
		rc = seatbelt_fail(err, "plan", NULL, ENOMEM, NULL);
	if (rc < 0) {
		platform_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void platform_plan_free(struct plan *plan)
{
	if (!plan)
		return;
	if (plan->tmpdir && !plan->tmpdir_borrowed)
		canon_tree_remove(plan->tmpdir);
	free(plan->tmpdir);
	free(plan->exe);
	sbpl_profile_free(&plan->prof);
	strv_free(&plan->argv);
	strv_free(&plan->envp);
	free(plan);
}

void platform_enforcement(const struct plan *plan, struct enforcement *e)
{
	*e = plan->enf;
}

const char *platform_errno_name(int err)
{
	return names_errno(err);
}

const char *platform_signal_name(int sig)
{
	return names_signal(sig, NULL);
}
