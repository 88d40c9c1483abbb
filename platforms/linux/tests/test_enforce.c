/* test_enforce.c - integration tests of the Linux enforcement of
 * sandproof-ref (issue 3): FS, META, SWAP, PRIV and PROC in the namespaces.
 *
 *   test_enforce SANDPROOF_REF SANDPROOF_PROBE
 *
 * The runner is driven as a black box (JSON request in, outcome out).  Every
 * verdict comes from a host-side oracle - the host file system or process
 * table after the run - and every denial is paired with a permitted
 * neighbour that succeeded in the same run (the write beside it in the
 * workspace), so a run that did nothing cannot pass.  Host paths outside the
 * test's own areas (/etc/sp-x-TAG, /usr/sp-x-TAG) carry a unique tag, are
 * only ever checked for absence, and are removed if a broken runner let
 * them appear. */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "enforce.h"
#include "t.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define POLICY_ERRNOS "EROFS|EACCES|EPERM"

static const char *ref, *probe;
static struct enf_area A;     /* /tmp: workspace, sibling "outside" */
static struct enf_area V;     /* /var/tmp: an outside the sandbox can see */
static bool have_v;

/* Host paths outside every area that a failing test could have created. */
static char stray[16][PATH_MAX];
static int n_stray;

__attribute__((format(printf, 1, 2)))
static const char *stray_path(const char *fmt, ...)
{
	char *p = stray[n_stray < 16 ? n_stray++ : 15];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, PATH_MAX, fmt, ap);
	va_end(ap);
	return p;
}

static void stray_cleanup(void)
{
	for (int i = 0; i < n_stray; i++)
		if (enf_lexists(stray[i])) {
			fprintf(stderr, "# removing %s (a write escaped)\n", stray[i]);
			if (enf_is_dir(stray[i]))
				rmdir(stray[i]);
			else
				unlink(stray[i]);
		}
}

/* A fresh workspace for each test group: nothing one group leaves can
 * decide another's verdict. */
static void area_reset(void)
{
	enf_area_free(&A);
	if (enf_area_new(&A, "/tmp", probe) < 0) {
		fprintf(stderr, "cannot create an area under /tmp\n");
		exit(2);
	}
}

/* The usual request: the workspace is the only write root, cwd in it,
 * command = the probe with ops to be appended. */
static cJSON *probe_req(cJSON **wr, const char *network)
{
	cJSON *req = enf_req_new(A.ws, network);
	cJSON *root = enf_write_root(req, A.ws);

	if (wr)
		*wr = root;
	enf_arg(enf_cmd(req), "%s", A.probe);
	return req;
}

/* "dir/name" in one of 16 rotating buffers: valid for the next 15 calls,
 * enough for one request or one check. */
static char *P(const char *dir, const char *name)
{
	static char buf[16][PATH_MAX];
	static int k;
	char *p = buf[k++ % 16];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static bool ran(const struct enf_run *e, const char *what)
{
	if (e->sentinel)
		return true;
	t_ok(0, "%s: the probe ran (sentinel seen; outcome %s; %s)", what,
	     enf_kind(e), enf_setup_str(e));
	return false;
}

/* ---- FS ------------------------------------------------------------------ */

static void fs_confinement(void)
{
	const char *tag = enf_tag();
	const char *etc = stray_path("/etc/%s", tag), *usr = stray_path("/usr/%s", tag);
	const char *root = stray_path("/%s", tag), *usrd = stray_path("/usr/%s.d", tag);
	cJSON *req;
	struct enf_run e;

	area_reset();
	req = probe_req(NULL, "deny");
	enf_op(req, 3, "write", P(A.ws, "inside"), "in");          /* 0 control */
	enf_op(req, 3, "write", P(A.out, "f"), "escape");          /* 1 sibling in /tmp */
	enf_op(req, 3, "write", etc, "escape");                    /* 2 */
	enf_op(req, 3, "write", usr, "escape");                    /* 3 */
	enf_op(req, 3, "write", root, "escape");                   /* 4 */
	enf_op(req, 2, "mkdir", usrd);                             /* 5 */
	if (have_v)
		enf_op(req, 3, "write", P(V.out, "f"), "escape");  /* 6 visible sibling */
	enf_run(ref, req, &e);
	if (ran(&e, "FS confinement")) {
		t_ok(enf_ok(&e, 0) == 1 && enf_content_is(P(A.ws, "inside"), "in"),
		     "FS-1: control: a write inside the write root lands on the host");
		t_ok(enf_ok(&e, 1) == 0 && !enf_lexists(P(A.out, "f")) && enf_outside_intact(&A),
		     "FS-1: a write to a sibling of the workspace fails (%s) and nothing appears on the host",
		     enf_errno(&e, 1));
		t_ok(enf_failed_with(&e, 2, POLICY_ERRNOS) && !enf_lexists(etc),
		     "FS-1: a write to /etc fails (%s) and %s does not exist on the host",
		     enf_errno(&e, 2), etc);
		t_ok(enf_failed_with(&e, 3, POLICY_ERRNOS) && !enf_lexists(usr) &&
			     enf_failed_with(&e, 5, POLICY_ERRNOS) && !enf_lexists(usrd),
		     "FS-1: a write and a mkdir in /usr fail (%s, %s), nothing on the host",
		     enf_errno(&e, 3), enf_errno(&e, 5));
		t_ok(enf_failed_with(&e, 4, POLICY_ERRNOS) && !enf_lexists(root),
		     "FS-1: a write to / fails (%s), nothing on the host", enf_errno(&e, 4));
		if (have_v)
			t_ok(enf_failed_with(&e, 6, "EROFS|EACCES") && !enf_lexists(P(V.out, "f")) &&
				     enf_outside_intact(&V),
			     "FS-1: a write to a visible sibling (%s) fails with %s, nothing on the host",
			     V.out, enf_errno(&e, 6));
		else
			t_skipped("/var/tmp unusable: no visible outside directory");
	}
	enf_run_free(&e);
}

static void fs_readonly_paths(void)
{
	cJSON *req, *wr;
	struct enf_run e;

	area_reset();
	mkdir(P(A.ws, "ro"), 0755);
	enf_put(P(P(A.ws, "ro"), "f"), "orig");
	enf_put(P(A.ws, "dw"), "orig");
	req = probe_req(&wr, "deny");
	enf_push(wr, "read_only_subpaths", P(A.ws, "ro"));
	enf_push(enf_req_at(req, "profile.filesystem"), "deny_write", P(A.ws, "dw"));
	enf_op(req, 3, "write", P(A.ws, "ok"), "x");                   /* 0 control */
	enf_op(req, 3, "write", P(P(A.ws, "ro"), "f"), "evil");        /* 1 */
	enf_op(req, 3, "write", P(P(A.ws, "ro"), "new"), "evil");      /* 2 */
	enf_op(req, 2, "unlink", P(P(A.ws, "ro"), "f"));               /* 3 */
	enf_op(req, 3, "write", P(A.ws, "dw"), "evil");                /* 4 */
	enf_op(req, 3, "append", P(A.ws, "dw"), "evil");               /* 5 */
	enf_op(req, 3, "rename", P(A.ws, "dw"), P(A.ws, "dw-moved"));  /* 6 */
	enf_op(req, 3, "rename", P(A.ws, "ro"), P(A.ws, "ro-moved"));  /* 7 */
	enf_run(ref, req, &e);
	if (ran(&e, "FS read-only paths")) {
		t_ok(enf_ok(&e, 0) == 1 && enf_content_is(P(A.ws, "ok"), "x"),
		     "FS-2: control: the sibling write beside the read-only paths lands");
		t_ok(enf_failed_with(&e, 1, POLICY_ERRNOS) && enf_failed_with(&e, 2, POLICY_ERRNOS) &&
			     enf_ok(&e, 3) == 0 && enf_ok(&e, 7) == 0 &&
			     enf_content_is(P(P(A.ws, "ro"), "f"), "orig") &&
			     !enf_lexists(P(P(A.ws, "ro"), "new")) && !enf_lexists(P(A.ws, "ro-moved")),
		     "FS-2: read_only_subpath: overwrite %s, create %s, unlink %s, rename %s; host unchanged",
		     enf_errno(&e, 1), enf_errno(&e, 2), enf_errno(&e, 3), enf_errno(&e, 7));
		t_ok(enf_failed_with(&e, 4, POLICY_ERRNOS) && enf_failed_with(&e, 5, POLICY_ERRNOS) &&
			     enf_ok(&e, 6) == 0 && enf_content_is(P(A.ws, "dw"), "orig") &&
			     !enf_lexists(P(A.ws, "dw-moved")),
		     "FS-2: deny_write: write %s, append %s, rename %s; host content unchanged",
		     enf_errno(&e, 4), enf_errno(&e, 5), enf_errno(&e, 6));
	}
	enf_run_free(&e);
}

static void fs_deny_read(void)
{
	char secret[96], dsecret[96], pub[96];
	const char *tag = enf_tag();
	cJSON *req, *fs;
	struct enf_run e;

	area_reset();
	snprintf(secret, sizeof(secret), "SECRET-FILE-%s", tag);
	snprintf(dsecret, sizeof(dsecret), "SECRET-DIR-%s", tag);
	snprintf(pub, sizeof(pub), "PUBLIC-%s", tag);
	enf_put(P(A.ws, "secret.txt"), secret);
	mkdir(P(A.ws, "sdir"), 0755);
	enf_put(P(P(A.ws, "sdir"), "key"), dsecret);
	enf_put(P(A.ws, "public.txt"), pub);
	req = probe_req(NULL, "deny");
	fs = enf_req_at(req, "profile.filesystem");
	enf_push(fs, "deny_read", P(A.ws, "secret.txt"));
	enf_push(fs, "deny_read", P(A.ws, "sdir"));
	enf_op(req, 2, "read", P(A.ws, "public.txt"));             /* 0 control */
	enf_op(req, 2, "read", P(A.ws, "secret.txt"));             /* 1 */
	enf_op(req, 2, "read", P(P(A.ws, "sdir"), "key"));         /* 2 */
	enf_op(req, 3, "write", P(A.ws, "secret.txt"), "evil");    /* 3 */
	enf_op(req, 3, "write", P(P(A.ws, "sdir"), "key"), "x");   /* 4 */
	enf_run(ref, req, &e);
	if (ran(&e, "FS deny_read")) {
		t_ok(enf_ok(&e, 0) == 1 && strcmp(enf_field(&e, 0, "data"), pub) == 0,
		     "FS-3: control: a readable neighbour of the hidden paths reads back its content");
		t_ok((enf_failed_with(&e, 1, "EACCES|EPERM") ||
		      (enf_ok(&e, 1) == 1 && enf_num(&e, 1, "bytes") == 0)) &&
			     !strstr(e.r.out, "SECRET-FILE-"),
		     "FS-3: deny_read file: read gives %s (%g bytes), its content is nowhere in the outcome",
		     enf_errno(&e, 1), enf_num(&e, 1, "bytes"));
		t_ok(enf_ok(&e, 2) == 0 && !strstr(e.r.out, "SECRET-DIR-"),
		     "FS-3: deny_read dir: a file in it cannot be read (%s), content not in the outcome",
		     enf_errno(&e, 2));
		t_ok(enf_ok(&e, 3) == 0 && enf_ok(&e, 4) == 0 &&
			     enf_content_is(P(A.ws, "secret.txt"), secret) &&
			     enf_content_is(P(P(A.ws, "sdir"), "key"), dsecret) &&
			     enf_count_entries(P(A.ws, "sdir")) == 1,
		     "FS-3: hidden paths are not writable either (%s, %s); host content unchanged",
		     enf_errno(&e, 3), enf_errno(&e, 4));
	}
	enf_run_free(&e);
}

static void fs_tmp(void)
{
	const char *tag = enf_tag();
	const char *htmp = stray_path("/tmp/%s", tag);
	char inner[PATH_MAX];
	cJSON *req;
	struct enf_run e;

	area_reset();
	/* With allow_temp the sandbox has a writable /tmp of its own: even a
	 * path that names the host's sibling directory lands there. */
	snprintf(inner, sizeof(inner), "%s/private", A.out);
	req = probe_req(NULL, "deny");
	enf_op(req, 3, "write", htmp, "tmp");          /* 0 */
	enf_op(req, 2, "read", htmp);                  /* 1 */
	enf_op(req, 2, "mkdir", A.out);                /* 2 */
	enf_op(req, 3, "write", inner, "x");           /* 3 */
	enf_run(ref, req, &e);
	if (ran(&e, "FS allow_temp")) {
		t_ok(enf_ok(&e, 0) == 1 && strcmp(enf_field(&e, 1, "data"), "tmp") == 0,
		     "FS-4: allow_temp: /tmp is writable in the sandbox (control)");
		t_ok(!enf_lexists(htmp) && !enf_lexists(inner) && enf_outside_intact(&A),
		     "FS-4: allow_temp: the host /tmp never receives the file (%s; %s: %s)",
		     enf_errno(&e, 0), inner, enf_errno(&e, 3));
	}
	enf_run_free(&e);

	req = probe_req(NULL, "deny");
	enf_fs_bool(req, "allow_temp", false);
	enf_op(req, 3, "write", P(A.ws, "ok"), "x");   /* 0 control */
	enf_op(req, 3, "write", htmp, "tmp");          /* 1 */
	enf_run(ref, req, &e);
	if (ran(&e, "FS no temp")) {
		t_ok(enf_ok(&e, 0) == 1 && enf_content_is(P(A.ws, "ok"), "x") &&
			     enf_failed_with(&e, 1, POLICY_ERRNOS) && !enf_lexists(htmp),
		     "FS-4: without allow_temp /tmp is not writable (%s) while the workspace is",
		     enf_errno(&e, 1));
	}
	enf_run_free(&e);
}

static void fs_dev(void)
{
	static const char *const allowed[] = {
		"null", "zero", "full", "random", "urandom", "tty", "pts", "shm",
		"ptmx", "fd", "stdin", "stdout", "stderr", NULL};
	static const char *const host_only[] = {
		"/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/kmsg", "/dev/mem",
		"/dev/loop0", "/dev/console", "/dev/kvm", "/dev/fuse", "/dev/tty0",
		"/dev/net", "/dev/mqueue", "/dev/hugepages", "/dev/cpu", NULL};
	char extra[512] = "", seen[512] = "";
	int on_host = 0, absent = 0, n = 0;
	const char *devp = stray_path("/dev/%s", enf_tag());
	cJSON *req;
	struct enf_run e;

	area_reset();
	req = probe_req(NULL, "deny");
	enf_op(req, 3, "write", "/dev/null", "x");        /* 0 control */
	enf_op(req, 2, "stat", "/dev/urandom");           /* 1 */
	enf_op(req, 3, "write", devp, "x");               /* 2 */
	for (int i = 0; host_only[i]; i++, n++) {
		enf_op(req, 2, "stat", host_only[i]);     /* 3.. */
		on_host += enf_lexists(host_only[i]);
	}
	enf_run(ref, req, &e);
	if (ran(&e, "FS /dev")) {
		t_ok(enf_ok(&e, 0) == 1 && strcmp(enf_field(&e, 1, "type"), "chr") == 0,
		     "FS-5: /dev/null is writable and /dev/urandom is a device node");
		for (int i = 0; i < n; i++) {
			absent += enf_failed_with(&e, 3 + i, "ENOENT");
			if (!enf_failed_with(&e, 3 + i, "ENOENT"))
				snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), " %s",
					 host_only[i]);
		}
		if (on_host == 0)
			t_skipped("none of the %d probed host-only /dev nodes exists on this host", n);
		else
			t_ok(absent == n,
			     "FS-5: none of %d host-only nodes is in the sandbox's /dev (%d exist on the "
			     "host)%s", n, on_host, seen);
		t_ok(enf_failed_with(&e, 2, POLICY_ERRNOS) && !enf_lexists(devp),
		     "FS-5: /dev takes no new node (%s)", enf_errno(&e, 2));
	}
	enf_run_free(&e);

	/* The whole listing, against the minimal set. */
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, A.ws);
	enf_arg(enf_cmd(req), "ls");
	enf_arg(enf_cmd(req), "-A");
	enf_arg(enf_cmd(req), "/dev");
	enf_run(ref, req, &e);
	{
		char *list = strdup(oc_str(e.r.outcome, "stdout")), *save = NULL;
		int names = 0;

		for (char *w = strtok_r(list, "\n", &save); w; w = strtok_r(NULL, "\n", &save)) {
			bool ok = false;

			names++;
			for (int i = 0; allowed[i]; i++)
				ok |= strcmp(allowed[i], w) == 0;
			if (!ok)
				snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " %s", w);
		}
		free(list);
		t_ok(enf_kind_is(&e, "success") && names >= 5 && extra[0] == '\0',
		     "FS-5: /dev lists only the minimal nodes (%d names; unexpected:%s)", names,
		     extra[0] ? extra : " none");
	}
	enf_run_free(&e);
}

/* A request whose command would leave marker on the host if it ran. */
static cJSON *touch_req(const char *marker, cJSON **wr)
{
	cJSON *req = enf_req_new(A.ws, "deny");

	*wr = enf_write_root(req, A.ws);
	enf_arg(enf_cmd(req), "touch");
	enf_arg(enf_cmd(req), "%s", marker);
	return req;
}

static void fs_symlink_policy(void)
{
	char marker[PATH_MAX];
	cJSON *req, *wr;
	struct enf_run e;

	area_reset();
	enf_put(P(A.ws, "real-secret"), "s");
	mkdir(P(A.ws, "ro"), 0755);
	symlink(P(A.ws, "real-secret"), P(A.ws, "secret-link"));
	symlink("ro", P(A.ws, "ro-link"));
	symlink(".", P(A.top, "alias"));
	snprintf(marker, sizeof(marker), "%s/marker", A.ws);

	/* control: the same request without a symlink runs and leaves the marker */
	req = touch_req(marker, &wr);
	enf_push(enf_req_at(req, "profile.filesystem"), "deny_read", P(A.ws, "real-secret"));
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "success") && enf_lexists(marker),
	     "SWAP-1: control: a policy path that is no symlink is accepted, the command runs (%s)",
	     enf_kind(&e));
	enf_run_free(&e);
	unlink(marker);

	req = touch_req(marker, &wr);
	enf_push(enf_req_at(req, "profile.filesystem"), "deny_read", P(A.ws, "secret-link"));
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && !enf_lexists(marker),
	     "SWAP-1: a deny_read path that is a symlink is refused, nothing ran (%s)", enf_setup_str(&e));
	enf_run_free(&e);
	unlink(marker);

	req = touch_req(marker, &wr);
	enf_push(wr, "read_only_subpaths", P(A.ws, "ro-link"));
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && !enf_lexists(marker),
	     "SWAP-1: a read_only_subpath that is a symlink is refused, nothing ran (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);
	unlink(marker);

	req = touch_req(marker, &wr);
	enf_push(enf_req_at(req, "profile.filesystem"), "deny_write",
		 P(P(A.top, "alias"), "ws"));
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && !enf_lexists(marker),
	     "SWAP-1: a deny_write path through a symlinked ancestor is refused, nothing ran (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);
	unlink(marker);
}

/* Requests the runner cannot enforce as written are refused, not run. */
static void fs_refusals(void)
{
	char marker[PATH_MAX];
	cJSON *req, *wr;
	struct enf_run e;

	area_reset();
	snprintf(marker, sizeof(marker), "%s/marker", A.ws);

	/* an absent read-only subpath inside a write root could be created */
	req = touch_req(marker, &wr);
	enf_push(wr, "read_only_subpaths", P(A.ws, "absent"));
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && !enf_lexists(marker) &&
		     !enf_lexists(P(A.ws, "absent")),
	     "FS-2: an absent read_only_subpath inside the write root is refused, nothing ran (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);

	req = touch_req(marker, &wr);
	cJSON_AddItemToObject(enf_req_at(req, "profile.filesystem"), "read_roots",
			      cJSON_CreateStringArray((const char *[]){"/usr"}, 1));
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && !enf_lexists(marker) &&
		     strcmp(oc_str(e.r.outcome, "setup_error.errno"), "EOPNOTSUPP") == 0,
	     "FS-1: read_roots other than [\"/\"] are refused with EOPNOTSUPP, nothing ran (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);

	/* META-5: a protected path through a symlink: .git -> outside/gitdir */
	mkdir(P(A.out, "gitdir"), 0755);
	mkdir(P(P(A.out, "gitdir"), "hooks"), 0755);
	symlink(P(A.out, "gitdir"), P(A.ws, ".git"));
	req = touch_req(marker, &wr);
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && !enf_lexists(marker) &&
		     enf_count_entries(P(P(A.out, "gitdir"), "hooks")) == 0,
	     "META-5: a protected path through a symlink (.git -> outside) is refused (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);
}

/* ---- META ------------------------------------------------------------------ */

static void git_fixture(void)
{
	mkdir(P(A.ws, ".git"), 0755);
	mkdir(P(A.ws, ".git/hooks"), 0755);
	enf_put(P(A.ws, ".git/hooks/pre-commit"), "orig-hook");
	chmod(P(A.ws, ".git/hooks/pre-commit"), 0755);
	enf_put(P(A.ws, ".git/config"), "orig-config");
	enf_put(P(A.ws, ".git/HEAD"), "ref: refs/heads/main");
}

static bool git_intact(void)
{
	return enf_is_dir(P(A.ws, ".git")) && enf_is_dir(P(A.ws, ".git/hooks")) &&
	       enf_content_is(P(A.ws, ".git/hooks/pre-commit"), "orig-hook") &&
	       enf_content_is(P(A.ws, ".git/config"), "orig-config") &&
	       enf_count_entries(P(A.ws, ".git/hooks")) == 1;
}

static void meta_git_readonly(void)
{
	cJSON *req;
	struct enf_run e;

	area_reset();
	git_fixture();
	req = probe_req(NULL, "deny");
	enf_op(req, 3, "write", P(A.ws, ".git/HEAD"), "ref: refs/heads/x");           /* 0 control */
	enf_op(req, 3, "write", P(A.ws, ".git/hooks/pre-commit"), "evil");            /* 1 */
	enf_op(req, 3, "write", P(A.ws, ".git/hooks/post-checkout"), "evil");         /* 2 */
	enf_op(req, 3, "write", P(A.ws, ".git/config"), "evil");                      /* 3 */
	enf_op(req, 2, "unlink", P(A.ws, ".git/config"));                             /* 4 */
	enf_op(req, 3, "rename", P(A.ws, ".git/hooks"), P(A.ws, ".git/hooks-old"));   /* 5 */
	enf_op(req, 3, "rename", P(A.ws, ".git"), P(A.ws, "x"));                      /* 6 */
	enf_run(ref, req, &e);
	if (ran(&e, "META git")) {
		t_ok(enf_ok(&e, 0) == 1 && enf_content_is(P(A.ws, ".git/HEAD"), "ref: refs/heads/x"),
		     "META-1: control: .git/HEAD (not protected) is writable");
		t_ok(enf_failed_with(&e, 1, POLICY_ERRNOS) && enf_failed_with(&e, 2, POLICY_ERRNOS),
		     "META-1: writes into .git/hooks fail (%s, %s)", enf_errno(&e, 1), enf_errno(&e, 2));
		t_ok(enf_failed_with(&e, 3, POLICY_ERRNOS) && enf_ok(&e, 4) == 0,
		     "META-1: .git/config cannot be written or removed (%s, %s)", enf_errno(&e, 3),
		     enf_errno(&e, 4));
		t_ok(enf_ok(&e, 5) == 0 && enf_ok(&e, 6) == 0,
		     "META-2: .git/hooks and .git cannot be renamed away (%s, %s)", enf_errno(&e, 5),
		     enf_errno(&e, 6));
		t_ok(git_intact() && !enf_lexists(P(A.ws, "x")) &&
			     !enf_lexists(P(A.ws, ".git/hooks-old")),
		     "META-1: host .git/hooks and .git/config unchanged, nothing renamed");
	}
	enf_run_free(&e);
}

static void meta_git_rename_ancestor(void)
{
	cJSON *req;
	struct enf_run e;

	area_reset();
	git_fixture();
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, A.ws);
	enf_arg(enf_cmd(req), "sh");
	enf_arg(enf_cmd(req), "-c");
	enf_arg(enf_cmd(req), "echo ctl > ctl; mv .git x && mkdir .git && touch .git/hooks/pre-commit; "
			      "mv .git/hooks h2 && mkdir .git/hooks && echo evil > .git/hooks/pre-commit; "
			      "echo evil > .git/hooks/pre-commit; echo done");
	enf_run(ref, req, &e);
	t_ok(enf_content_is(P(A.ws, "ctl"), "ctl\n") && strstr(oc_str(e.r.outcome, "stdout"), "done"),
	     "META-2: control: the shell ran to its end and its workspace write landed (%s)",
	     enf_kind(&e));
	/* (mv .git/hooks h2 falls back to copy-and-remove across the mount:
	 * a copy in h2 is allowed, the removal is not.) */
	t_ok(git_intact() && !enf_lexists(P(A.ws, "x")),
	     "META-2: mv .git x && mkdir .git && touch .git/hooks/pre-commit: host .git intact");
	enf_run_free(&e);
}

/* One run that creates a protected name; the run must be stopped and
 * reported, the name absent on the host afterwards.  Returns nothing; the
 * checks are printed with `what`. */
static void meta_create(const char *what, const char *name, int nops, const char *const *ops)
{
	char path[PATH_MAX];
	cJSON *req;
	struct enf_run e;

	snprintf(path, sizeof(path), "%s/%s", A.ws, name);
	req = probe_req(NULL, "deny");
	enf_op(req, 3, "write", P(A.ws, "ok"), "x"); /* 0 control, before the create */
	for (int i = 0; i < nops; i += 3)
		if (ops[i + 2])
			enf_op(req, 3, ops[i], ops[i + 1], ops[i + 2]);
		else
			enf_op(req, 2, ops[i], ops[i + 1]);
	enf_run(ref, req, &e);
	if (ran(&e, what)) {
		t_ok(enf_ok(&e, 0) == 1 && enf_content_is(P(A.ws, "ok"), "x"),
		     "META-3: %s: control: the write before it landed", what);
		t_ok(enf_kind_is(&e, "enforcement_denied") &&
			     strcmp(oc_str(e.r.outcome, "state"), "denied") == 0 &&
			     enf_has_denial(&e, "protected_create", "path", path),
		     "META-3: %s: enforcement_denied with protected_create %s (%s; denials %s)", what,
		     path, enf_kind(&e), enf_denials_str(&e));
		t_ok(!enf_lexists(path), "META-3: %s: %s is absent on the host afterwards", what, path);
	}
	enf_run_free(&e);
}

static void meta_absent(void)
{
	area_reset();
	{
		const char *ops[] = {"mkdir", P(A.ws, ".agents"), NULL,
				     "write", P(A.ws, ".agents/evil"), "x"};

		meta_create("create .agents", ".agents", 6, ops);
	}
	area_reset();
	{
		const char *ops[] = {"write", P(A.ws, ".zero"), "x"};

		meta_create("create .zero", ".zero", 3, ops);
	}
	area_reset();
	mkdir(P(A.ws, ".git"), 0755);
	{
		const char *ops[] = {"mkdir", P(A.ws, ".git/hooks"), NULL,
				     "write", P(A.ws, ".git/hooks/pre-commit"), "evil"};

		meta_create("create absent .git/hooks", ".git/hooks", 6, ops);
	}
	area_reset();
	{
		/* git init from nothing: the ancestor may stay, the name may not */
		const char *ops[] = {"mkdir", P(A.ws, ".git"), NULL,
				     "mkdir", P(A.ws, ".git/hooks"), NULL,
				     "write", P(A.ws, ".git/hooks/pre-commit"), "evil"};

		meta_create("create .git then .git/hooks", ".git/hooks", 9, ops);
	}
	area_reset();
	{
		/* IN_MOVED_TO: made elsewhere, renamed into place */
		const char *ops[] = {"mkdir", P(A.ws, "stage"), NULL,
				     "write", P(A.ws, "stage/evil"), "x",
				     "rename", P(A.ws, "stage"), P(A.ws, ".agents")};

		meta_create("rename a dir into .agents", ".agents", 9, ops);
	}
	area_reset();
	{
		const char *ops[] = {"mkdir", P(A.ws, ".agents"), NULL,
				     "rmdir", P(A.ws, ".agents"), NULL};

		meta_create("transient create-then-remove .agents", ".agents", 6, ops);
	}
	area_reset();
	{
		const char *ops[] = {"symlink", A.out, P(A.ws, ".agents"),
				     "write", P(A.ws, ".agents/evil"), "x"};

		meta_create(".agents as a symlink to a sibling dir", ".agents", 6, ops);
		t_ok(enf_outside_intact(&A),
		     "META-3: .agents symlink: the outside dir and its content are intact");
	}
	if (have_v) {
		area_reset();
		{
			const char *ops[] = {"symlink", V.out, P(A.ws, ".zero"),
					     "write", P(A.ws, ".zero/evil"), "x"};

			meta_create(".zero as a symlink to a visible outside dir", ".zero", 6, ops);
			t_ok(enf_outside_intact(&V),
			     "META-3: .zero symlink: %s and its content are intact", V.out);
		}
	}
}

/* ---- SWAP ------------------------------------------------------------------ */

static void swap_symlink_root(void)
{
	char link[PATH_MAX], marker[PATH_MAX];
	cJSON *req;
	struct enf_run e;

	area_reset();
	snprintf(link, sizeof(link), "%s/wslink", A.top);
	symlink(A.out, link);
	enf_path(marker, sizeof(marker), "%s/marker", link);
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, link);
	enf_arg(enf_cmd(req), "touch");
	enf_arg(enf_cmd(req), "%s", marker);
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && enf_outside_intact(&A),
	     "SWAP-1: a write root that is a symlink to an outside dir is refused, outside intact (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);

	/* The same through a symlinked ancestor: TOP/alias -> outside, and
	 * the write root TOP/alias/dest resolves to TOP/outside/dest. */
	snprintf(link, sizeof(link), "%s/alias", A.top);
	symlink("outside", link);
	mkdir(P(A.out, "dest"), 0755);
	snprintf(marker, sizeof(marker), "%s/alias/dest", A.top);
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, marker);
	enf_arg(enf_cmd(req), "touch");
	enf_arg(enf_cmd(req), "%s/x", marker);
	enf_run(ref, req, &e);
	t_ok(enf_kind_is(&e, "sandbox_setup_failure") && enf_count_entries(P(A.out, "dest")) == 0,
	     "SWAP-1: a write root whose ancestor is a symlink to an outside dir is refused (%s)",
	     enf_setup_str(&e));
	enf_run_free(&e);
	rmdir(P(A.out, "dest"));
}

/* The swapper: exchanges the workspace with a symlink to the outside dir
 * in bursts until killed: an even number of exchanges as fast as it can
 * (the names end where they began), then a pause of up to ~2 ms with the
 * workspace in place.  The bursts race every step of a run's setup; the
 * pauses let some runs set up at all, so the race power check below does
 * not depend on how fast this machine happens to be.  *count says how
 * many exchanges it made. */
static pid_t swapper_start(const char *a, const char *b, volatile long *count)
{
	pid_t pid = fork();
	unsigned seed = (unsigned)getpid();

	if (pid == 0) {
		for (;;) {
			int burst = 2 * (1 + (int)(rand_r(&seed) % 200));

			while (burst > 0)
				if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
					    RENAME_EXCHANGE) == 0) {
					(*count)++;
					burst--;
				}
			usleep(rand_r(&seed) % 2000);
		}
	}
	return pid;
}

static void swap_during_run(void)
{
	char swap[PATH_MAX];
	volatile long *count = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long long t0 = enf_now_ms();
	int runs = 0, completed = 0, refused = 0, other = 0, landed = 0, escaped = 0;
	pid_t sw;

	area_reset();
	snprintf(swap, sizeof(swap), "%s/swap", A.top);
	symlink(A.out, swap);
	*count = 0;
	sw = swapper_start(A.ws, swap, count);
	/* ~1.5 s of runs (up to 8 s until one completes), each writing 100
	 * files by absolute and relative path while the host keeps
	 * exchanging the workspace's name. */
	while (runs < 200 && (enf_now_ms() - t0 < 1500 ||
			      (completed == 0 && enf_now_ms() - t0 < 8000))) {
		cJSON *req = enf_req_new(A.ws, "deny");
		cJSON *wr = enf_write_root(req, A.ws);
		struct enf_run e;

		/* no monitor: this is about the mounts, not about metadata */
		cJSON_AddArrayToObject(wr, "protected_metadata_names");
		enf_arg(enf_cmd(req), "sh");
		enf_arg(enf_cmd(req), "-c");
		enf_arg(enf_cmd(req), "i=0; while [ $i -lt 50 ]; do echo x > %s/a%d.$i; "
				      "echo y > r%d.$i; i=$((i+1)); done; true", A.ws, runs, runs);
		enf_run(ref, req, &e);
		runs++;
		if (enf_kind_is(&e, "success"))
			completed++;
		else if (enf_kind_is(&e, "sandbox_setup_failure"))
			refused++;
		else
			other++;
		enf_run_free(&e);
	}
	kill(sw, SIGKILL);
	waitpid(sw, NULL, 0);
	/* Put the names back: the workspace is the directory of the two. */
	if (!enf_is_dir(A.ws))
		syscall(SYS_renameat2, AT_FDCWD, A.ws, AT_FDCWD, swap, RENAME_EXCHANGE);
	landed = enf_count_entries(A.ws) - 1; /* minus .sp-probe */
	escaped = enf_count_entries(A.out) - 1;
	printf("# swap race: %d runs (%d completed, %d refused, %d other), %ld swaps, "
	       "%d files landed in the workspace, %lld ms\n",
	       runs, completed, refused, other, *count, landed, enf_now_ms() - t0);
	t_ok(escaped == 0 && enf_outside_intact(&A),
	     "SWAP-3: with the workspace swapped for a symlink during %d runs, no write landed outside "
	     "(%d entries there besides keep)", runs, escaped);
	t_ok(completed > 0 && landed > 0 && *count > 100 && other == 0,
	     "SWAP-3: race power: %d runs completed, %d files landed in the workspace, %ld swaps, "
	     "%d unexpected outcomes", completed, landed, *count, other);
	munmap((void *)count, sizeof(long));
}

static void swap_links_inside(void)
{
	const char *tag = enf_tag();
	const char *etc = stray_path("/etc/%s", tag);
	char victim[PATH_MAX];
	cJSON *req;
	struct enf_run e;

	area_reset();
	snprintf(victim, sizeof(victim), "%s/victim", have_v ? V.out : A.out);
	enf_put(victim, "orig");
	req = probe_req(NULL, "deny");
	enf_op(req, 3, "write", P(A.ws, "ok"), "x");                 /* 0 control */
	enf_op(req, 3, "symlink", A.out, P(A.ws, "l1"));             /* 1 */
	enf_op(req, 3, "write", P(A.ws, "l1/f"), "evil");            /* 2 */
	enf_op(req, 3, "symlink", "../outside", P(A.ws, "l2"));      /* 3 */
	enf_op(req, 3, "write", P(A.ws, "l2/g"), "evil");            /* 4 */
	enf_op(req, 3, "symlink", victim, P(A.ws, "l3"));            /* 5 */
	enf_op(req, 3, "write", P(A.ws, "l3"), "evil");              /* 6 */
	enf_op(req, 3, "link", victim, P(A.ws, "h1"));               /* 7 */
	enf_op(req, 3, "append", P(A.ws, "h1"), "evil");             /* 8 */
	enf_op(req, 3, "symlink", etc, P(A.ws, "l4"));               /* 9 */
	enf_op(req, 3, "write", P(A.ws, "l4"), "evil");              /* 10 */
	enf_run(ref, req, &e);
	if (ran(&e, "SWAP links")) {
		t_ok(enf_ok(&e, 0) == 1 && enf_ok(&e, 1) == 1 && enf_ok(&e, 3) == 1 &&
			     enf_content_is(P(A.ws, "ok"), "x"),
		     "FS-1: control: the workspace write and the symlink creations succeeded");
		t_ok(enf_ok(&e, 2) == 0 && enf_ok(&e, 4) == 0 && !enf_lexists(P(A.out, "f")) &&
			     !enf_lexists(P(A.out, "g")),
		     "FS-1: writes through symlinks to the sibling dir fail (%s, %s), nothing lands there",
		     enf_errno(&e, 2), enf_errno(&e, 4));
		t_ok(enf_ok(&e, 6) == 0 && enf_ok(&e, 7) == 0 && enf_content_is(victim, "orig"),
		     "FS-1: symlink write to %s fails (%s), hard link fails (%s); content unchanged",
		     victim, enf_errno(&e, 6), enf_errno(&e, 7));
		t_ok(enf_ok(&e, 10) == 0 && !enf_lexists(etc),
		     "FS-1: a write through a symlink to /etc fails (%s), nothing on the host",
		     enf_errno(&e, 10));
	}
	enf_run_free(&e);
	unlink(victim);
}

/* ---- PRIV ------------------------------------------------------------------ */

static void priv(void)
{
	static const char *const capsets[] = {"inh", "prm", "eff", "bnd", "amb"};
	char script[PATH_MAX * 2];
	bool caps_zero = true;
	cJSON *req;
	struct enf_run e;

	area_reset();
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, A.ws);
	/* A sibling to attack: a sleep started by the same shell. */
	snprintf(script, sizeof(script),
		 "sleep 30 & exec %s caps -- no_new_privs -- ptrace $! -- process_vm_readv $! "
		 "-- ptrace_parent -- tiocsti -- remount / -- umount / -- umount %s "
		 "-- unshare_user -- socket packet dgram -- socket vsock stream "
		 "-- socket netlink raw 9 -- socket inet stream -- socket netlink raw 0 "
		 "-- io_uring -- write %s/ok x",
		 A.probe, A.ws, A.ws);
	enf_arg(enf_cmd(req), "sh");
	enf_arg(enf_cmd(req), "-c");
	enf_arg(enf_cmd(req), "%s", script);
	enf_run(ref, req, &e);
	if (ran(&e, "PRIV")) {
		for (int i = 0; i < 5; i++)
			caps_zero &= strcmp(enf_field(&e, 0, capsets[i]), "0000000000000000") == 0;
		t_ok(enf_ok(&e, 16) == 1 && enf_content_is(P(A.ws, "ok"), "x") &&
			     enf_ok(&e, 13) == 1 && enf_ok(&e, 14) == 1 && enf_ok(&e, 0) == 1,
		     "NET-5: controls: inet socket (%s), route netlink (%s), workspace write (%s)",
		     enf_errno(&e, 13), enf_errno(&e, 14), enf_errno(&e, 16));
		t_ok(caps_zero, "PRIV-1: every capability set is empty (eff %s bnd %s amb %s)",
		     enf_field(&e, 0, "eff"), enf_field(&e, 0, "bnd"), enf_field(&e, 0, "amb"));
		t_ok(enf_num(&e, 1, "value") == 1, "PRIV-1: no_new_privs is 1");
		t_ok(enf_failed_with(&e, 2, "EPERM") && enf_failed_with(&e, 3, "EPERM") &&
			     enf_failed_with(&e, 4, "EPERM"),
		     "PRIV-2: ptrace of a sibling (%s), process_vm_readv (%s), ptrace of the parent (%s)",
		     enf_errno(&e, 2), enf_errno(&e, 3), enf_errno(&e, 4));
		t_ok(enf_ok(&e, 5) == 0, "PRIV-2: TIOCSTI fails (%s)", enf_errno(&e, 5));
		t_ok(enf_failed_with(&e, 6, "EPERM") && enf_failed_with(&e, 7, "EPERM") &&
			     enf_failed_with(&e, 8, "EPERM"),
		     "PRIV-2: remount / (%s), umount / (%s), umount of the write root (%s) fail",
		     enf_errno(&e, 6), enf_errno(&e, 7), enf_errno(&e, 8));
		t_ok(enf_failed_with(&e, 9, "EPERM"), "PRIV-2: unshare(CLONE_NEWUSER) fails (%s)",
		     enf_errno(&e, 9));
		t_ok(enf_failed_with(&e, 10, "EPERM") && enf_failed_with(&e, 11, "EPERM") &&
			     enf_failed_with(&e, 12, "EPERM"),
		     "NET-5: packet (%s), vsock (%s), netlink audit (%s) sockets fail",
		     enf_errno(&e, 10), enf_errno(&e, 11), enf_errno(&e, 12));
		t_ok(enf_ok(&e, 15) == 0, "NET-5: io_uring_setup fails (%s)", enf_errno(&e, 15));
		if (cJSON_IsTrue(oc_get(e.r.outcome, "enforcement.denials_reported")))
			t_ok(enf_has_denial(&e, "syscall", "name", "ptrace") &&
				     enf_has_denial(&e, "syscall", "name", "process_vm_readv") &&
				     enf_has_denial(&e, "syscall", "name", "mount") &&
				     enf_has_denial(&e, "syscall", "name", "umount2") &&
				     enf_has_denial(&e, "syscall", "name", "unshare") &&
				     /* packet, vsock, netlink audit: one each */
				     enf_count_denials(&e, "syscall", "name", "socket") >= 3 &&
				     enf_has_denial(&e, "syscall", "name", "io_uring_setup") &&
				     enf_has_denial(&e, "syscall", "name", "ioctl"),
			     "PRIV-3: denials name the refused syscalls (%s)", enf_denials_str(&e));
		else
			t_skipped("enforcement.denials_reported is false on this host");
	}
	enf_run_free(&e);
}

/* TIOCSTI on a real controlling terminal: script(1) gives the probe a pty
 * as its controlling tty, where the kernel itself would allow injection
 * (dev.tty.legacy_tiocsti), so only the sandbox can make it fail. */
static void priv_tiocsti_tty(void)
{
	char cmd[PATH_MAX];
	cJSON *req;
	struct enf_run e;

	if (access("/usr/bin/script", X_OK) != 0) {
		t_skipped("script(1) not installed: no controlling terminal for TIOCSTI");
		return;
	}
	area_reset();
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, A.ws);
	snprintf(cmd, sizeof(cmd), "%s tiocsti", A.probe);
	enf_arg(enf_cmd(req), "script");
	enf_arg(enf_cmd(req), "-qec");
	enf_arg(enf_cmd(req), "%s", cmd);
	enf_arg(enf_cmd(req), "/dev/null");
	enf_run(ref, req, &e);
	if (ran(&e, "PRIV tiocsti on a tty")) {
		char tty_err[32];

		snprintf(tty_err, sizeof(tty_err), "%s", enf_field(&e, 0, "tty_errno"));

		t_ok(strcmp(tty_err, "ENXIO") != 0 && strcmp(tty_err, "ENOENT") != 0,
		     "PRIV-4: control: the probe has a controlling terminal (/dev/tty: %s)", tty_err);
		t_ok(enf_failed_with(&e, 0, "EPERM") && strcmp(tty_err, "EPERM") == 0,
		     "PRIV-4: TIOCSTI into the controlling terminal fails (%s)", tty_err);
	}
	enf_run_free(&e);
}

/* ---- PROC ------------------------------------------------------------------ */

struct pid_file {
	const char *path;
};

/* Tells the command the runner's host pid, atomically (write + rename). */
static void write_runner_pid(pid_t pid, void *arg)
{
	const struct pid_file *pf = arg;
	char tmp[PATH_MAX], text[32];

	snprintf(tmp, sizeof(tmp), "%s.tmp", pf->path);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if (enf_put(tmp, text) == 0)
		rename(tmp, pf->path);
}

static void proc_namespace(void)
{
	char script[PATH_MAX * 2], pidfile[PATH_MAX];
	struct pid_file pf = {pidfile};
	cJSON *req;
	struct enf_run e;

	area_reset();
	snprintf(pidfile, sizeof(pidfile), "%s/runner.pid", A.ws);
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, A.ws);
	snprintf(script, sizeof(script),
		 "while [ ! -s runner.pid ]; do sleep 0.01; done; "
		 "exec %s getpid -- kill $$ 0 -- kill $(cat runner.pid) 0 -- kill %d 0 "
		 "-- env SANDPROOF_SANDBOXED -- env SANDPROOF_NETWORK",
		 A.probe, (int)getpid());
	enf_arg(enf_cmd(req), "sh");
	enf_arg(enf_cmd(req), "-c");
	enf_arg(enf_cmd(req), "%s", script);
	enf_run_cb(ref, req, &e, write_runner_pid, &pf);
	if (ran(&e, "PROC pid namespace")) {
		t_ok(enf_num(&e, 0, "pid") > 0 && enf_num(&e, 0, "pid") < 16 &&
			     enf_num(&e, 0, "ppid") == 1,
		     "PROC: the command is a child of pid 1 in its own pid namespace (pid %g, ppid %g)",
		     enf_num(&e, 0, "pid"), enf_num(&e, 0, "ppid"));
		t_ok(enf_ok(&e, 1) == 1 && enf_failed_with(&e, 2, "ESRCH") &&
			     enf_failed_with(&e, 3, "ESRCH"),
		     "PROC: host pids are invisible: kill(runner) %s, kill(test) %s; control kill(self) %s",
		     enf_errno(&e, 2), enf_errno(&e, 3), enf_errno(&e, 1));
		t_ok(strcmp(enf_field(&e, 4, "value"), "1") == 0 &&
			     strcmp(enf_field(&e, 5, "value"), "deny") == 0,
		     "PROC: SANDPROOF_SANDBOXED=%s SANDPROOF_NETWORK=%s", enf_field(&e, 4, "value"),
		     enf_field(&e, 5, "value"));
	}
	enf_run_free(&e);

	/* network allow, with the markers spoofed in the request */
	req = probe_req(NULL, "allow");
	cJSON_AddStringToObject(enf_req_at(req, "env"), "SANDPROOF_SANDBOXED", "0");
	cJSON_AddStringToObject(enf_req_at(req, "env"), "SANDPROOF_NETWORK", "deny");
	enf_op(req, 2, "env", "SANDPROOF_SANDBOXED");
	enf_op(req, 2, "env", "SANDPROOF_NETWORK");
	enf_run(ref, req, &e);
	if (ran(&e, "PROC markers"))
		t_ok(strcmp(enf_field(&e, 0, "value"), "1") == 0 &&
			     strcmp(enf_field(&e, 1, "value"), "allow") == 0,
		     "PROC: network=allow: SANDPROOF_SANDBOXED=%s SANDPROOF_NETWORK=%s (request said 0/deny)",
		     enf_field(&e, 0, "value"), enf_field(&e, 1, "value"));
	enf_run_free(&e);
}

/* Live (non-zombie) processes whose cmdline is `sleep MARKER`; with reap,
 * SIGKILL each (only after a failed check: a broken runner left them, and
 * the test started them, so it ends them). */
static int marker_procs(const char *marker, bool reap)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d))) {
		char path[64], buf[256], stat[512], *rp, st = 0;
		int fd, pid = atoi(de->d_name);
		ssize_t n;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 6)
			continue;
		buf[n] = '\0';
		if (strcmp(buf, "sleep") != 0 || strcmp(buf + 6, marker) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		if ((rp = strrchr(stat, ')')))
			sscanf(rp + 1, " %c", &st);
		if (st != 0 && st != 'Z') {
			found++;
			if (reap)
				kill(pid, SIGKILL);
		}
	}
	if (d)
		closedir(d);
	return found;
}

struct kill_ctx {
	const char *ready, *marker;
	int seen;           /* marker processes found before the kill */
	long long gone_ms;  /* after the kill; -1: still there after 2 s */
};

static void kill_runner_when_ready(pid_t runner, void *arg)
{
	struct kill_ctx *k = arg;
	struct timespec ts = {0, 10 * 1000 * 1000};
	long long t0;

	for (int i = 0; i < 1000 && !enf_lexists(k->ready); i++)
		nanosleep(&ts, NULL);
	for (int i = 0; i < 100 && (k->seen = marker_procs(k->marker, false)) < 2; i++)
		nanosleep(&ts, NULL);
	kill(runner, SIGKILL);
	t0 = enf_now_ms();
	k->gone_ms = -1;
	while (enf_now_ms() - t0 < 2000) {
		if (marker_procs(k->marker, false) == 0) {
			k->gone_ms = enf_now_ms() - t0;
			break;
		}
		nanosleep(&ts, NULL);
	}
}

static void proc_runner_killed(void)
{
	char marker[64], ready[PATH_MAX], script[512];
	struct kill_ctx k = {ready, marker, 0, -1};
	struct timespec ts;
	cJSON *req;
	struct enf_run e;

	area_reset();
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(marker, sizeof(marker), "600.%ld%d", (long)ts.tv_nsec, (int)getpid());
	snprintf(ready, sizeof(ready), "%s/ready", A.ws);
	req = enf_req_new(A.ws, "deny");
	enf_write_root(req, A.ws);
	/* One plain child and one setsid'd daemon, both `sleep MARKER`. */
	snprintf(script, sizeof(script),
		 "sleep %s & setsid sh -c 'sleep %s & wait' & sleep 0.05; echo > ready; wait",
		 marker, marker);
	enf_arg(enf_cmd(req), "sh");
	enf_arg(enf_cmd(req), "-c");
	enf_arg(enf_cmd(req), "%s", script);
	enf_run_cb(ref, req, &e, kill_runner_when_ready, &k);
	t_ok(WIFSIGNALED(e.r.status) && WTERMSIG(e.r.status) == SIGKILL && k.seen == 2,
	     "PROC: control: the host saw both `sleep %s` before the runner was SIGKILLed (%d)",
	     marker, k.seen);
	if (!t_ok(k.gone_ms >= 0 && marker_procs(marker, false) == 0,
		  "PROC: a SIGKILLed runner leaves nothing behind (gone after %lld ms)", k.gone_ms))
		marker_procs(marker, true);
	enf_run_free(&e);
}

static void proc_exit_status(void)
{
	cJSON *req;
	struct enf_run e;

	area_reset();
	req = probe_req(NULL, "deny");
	enf_op(req, 2, "exit", "7");
	enf_run(ref, req, &e);
	t_ok(e.sentinel && enf_kind_is(&e, "application_failure") &&
		     oc_num(e.r.outcome, "exit.code") == 7,
	     "PROC-1: exit 7 in the sandbox is reported as code 7 (%s)", enf_kind(&e));
	enf_run_free(&e);

	req = probe_req(NULL, "deny");
	enf_op(req, 2, "exit", "0");
	enf_run(ref, req, &e);
	t_ok(e.sentinel && enf_kind_is(&e, "success") && oc_num(e.r.outcome, "exit.code") == 0,
	     "PROC-1: exit 0 is success");
	enf_run_free(&e);

	req = probe_req(NULL, "deny");
	enf_op(req, 2, "signal", "TERM");
	enf_run(ref, req, &e);
	t_ok(e.sentinel && enf_kind_is(&e, "application_failure") &&
		     oc_num(e.r.outcome, "exit.signal") == SIGTERM &&
		     cJSON_IsNull(oc_get(e.r.outcome, "exit.code")),
	     "PROC-1: death by SIGTERM in the sandbox is reported as signal 15 (%s)",
	     oc_str(e.r.outcome, "exit.signal_name"));
	enf_run_free(&e);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_enforce SANDPROOF_REF SANDPROOF_PROBE\n");
		return 2;
	}
	ref = argv[1];
	probe = argv[2];
	signal(SIGPIPE, SIG_IGN);
	have_v = enf_area_new(&V, "/var/tmp", NULL) == 0;

	fs_confinement();
	fs_readonly_paths();
	fs_deny_read();
	fs_tmp();
	fs_dev();
	fs_symlink_policy();
	fs_refusals();
	meta_git_readonly();
	meta_git_rename_ancestor();
	meta_absent();
	swap_symlink_root();
	swap_links_inside();
	swap_during_run();
	priv();
	priv_tiocsti_tty();
	proc_namespace();
	proc_exit_status();
	proc_runner_killed();

	enf_area_free(&A);
	if (have_v)
		enf_area_free(&V);
	stray_cleanup();
	return t_done();
}
