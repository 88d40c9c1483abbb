/* outcome.c - see outcome.h. */
#include "outcome.h"

#include <errno.h>

#include "jw.h"
#include "sandproof/request.h"

const char *outcome_kind_name(enum outcome_kind k)
{
	switch (k) {
	case OK_SUCCESS: return "success";
	case OK_APPLICATION_FAILURE: return "application_failure";
	case OK_TIMED_OUT: return "timed_out";
	case OK_CANCELLED: return "cancelled";
	case OK_ENFORCEMENT_DENIED: return "enforcement_denied";
	case OK_SANDBOX_SETUP_FAILURE: return "sandbox_setup_failure";
	case OK_EXECUTABLE_NOT_FOUND: return "executable_not_found";
	case OK_LIMIT_EXCEEDED: return "limit_exceeded";
	}
	return "sandbox_setup_failure";
}

/* completed: the command ran to its own end; failed: it never ran (setup or
 * exec); denied: the runner stopped it for a policy violation; cancelled:
 * stopped by a bound of the request (its timeout, a resource limit) or by
 * the caller. */
const char *outcome_state_name(enum outcome_kind k)
{
	switch (k) {
	case OK_SUCCESS:
	case OK_APPLICATION_FAILURE: return "completed";
	case OK_ENFORCEMENT_DENIED: return "denied";
	case OK_TIMED_OUT:
	case OK_LIMIT_EXCEEDED:
	case OK_CANCELLED: return "cancelled";
	default: return "failed";
	}
}

/* OUT-4 on Windows: the token, the ACEs and filters that were put in place. */
static void write_enforcement_windows(struct jw *w, const struct enforcement *e)
{
	jw_obj_open(w, "windows");
	jw_bool(w, "restricted_token", e->windows.restricted_token);
	jw_bool(w, "write_restricted", e->windows.write_restricted);
	jw_bool(w, "job_object", e->windows.job_object);
	jw_str(w, "integrity", e->windows.integrity ? e->windows.integrity : "unknown");
	jw_str(w, "capability_sid", e->windows.capability_sid);
	jw_uint(w, "acl_entries", e->windows.acl_entries);
	jw_uint(w, "wfp_filters", e->windows.wfp_filters);
	jw_obj_close(w);
}

/* OUT-4 on macOS: what the canary checked. */
static void write_enforcement_seatbelt(struct jw *w, const struct enforcement *e)
{
	jw_obj_open(w, "seatbelt");
	jw_arr_open(w, "canary");
	for (size_t i = 0; i < e->seatbelt.n_canary; i++)
		jw_str(w, NULL, e->seatbelt.canary[i]);
	jw_arr_close(w);
	jw_obj_close(w);
}

static void write_enforcement(struct jw *w, const struct enforcement *e)
{
	jw_obj_open(w, "enforcement");
	jw_str(w, "backend", e->backend ? e->backend : "none");
	jw_bool(w, "user_ns", e->user_ns);
	jw_bool(w, "mount_ns", e->mount_ns);
	jw_bool(w, "pid_ns", e->pid_ns);
	jw_bool(w, "net_ns", e->net_ns);
	jw_bool(w, "ipc_ns", e->ipc_ns);
	jw_bool(w, "seccomp", e->seccomp);
	jw_bool(w, "denials_reported", e->seccomp_notify || e->denials_logged);
	jw_bool(w, "no_new_privs", e->no_new_privs);
	jw_bool(w, "caps_dropped", e->caps_dropped);
	jw_int(w, "landlock_abi", e->landlock_abi);
	if (e->name_matching)
		jw_str(w, "name_matching", e->name_matching);
	else
		jw_null(w, "name_matching");
	if (e->windows.applied)
		write_enforcement_windows(w, e);
	if (e->seatbelt.applied)
		write_enforcement_seatbelt(w, e);
	jw_obj_open(w, "limits");
	for (int i = 0; i < LIMIT_COUNT; i++) {
		if (!e->limits[i].value) {
			jw_null(w, limit_names[i]);
			continue;
		}
		jw_obj_open(w, limit_names[i]);
		jw_uint(w, "value", e->limits[i].value);
		jw_str(w, "via", e->limits[i].via);
		jw_obj_close(w);
	}
	jw_obj_close(w);
	jw_obj_close(w);
}

/* The kernel counters of the limits enforced through one (LIM-7). */
static void write_limit_events(struct jw *w, const struct limit_report *r)
{
	jw_obj_open(w, "limit_events");
	for (int i = 0; i < LIMIT_COUNT; i++)
		if (r->counted[i])
			jw_uint(w, limit_names[i], r->events[i]);
	jw_obj_close(w);
}

static void write_runtime(struct jw *w, const struct outcome_runtime *r)
{
	if (!r->present) {
		jw_null(w, "runtime");
		return;
	}
	jw_obj_open(w, "runtime");
	jw_str(w, "root", r->root);
	jw_bool(w, "reprovisioned", r->reprovisioned);
	if (r->reprovisioned)
		jw_str(w, "reprovision_reason", r->reprovision_reason);
	jw_arr_open(w, "evicted");
	for (size_t i = 0; i < r->n_evicted; i++)
		jw_str(w, NULL, r->evicted[i]);
	jw_arr_close(w);
	jw_arr_open(w, "skipped");
	for (size_t i = 0; i < r->n_skipped; i++)
		jw_str(w, NULL, r->skipped[i]);
	jw_arr_close(w);
	jw_obj_close(w);
}

/* One captured stream, lossless and bounded (PROC-7, OUT-7): the kept
 * bytes as a JSON string when they are valid UTF-8 and escaping them costs
 * no more than base64 would, else as base64.  Either way the value is at
 * most JW_BASE64_LEN(kept) bytes between its quotes.  A stream cut inside
 * a UTF-8 character keeps the text form without the cut character's
 * first bytes (they went with the rest past the bound). */
static void write_stream(struct jw *w, const char *name, const char *enc,
			 const char *count, const struct capture *c, bool captured)
{
	const char *buf = c->buf ? c->buf : "";
	size_t n = c->len;

	if (!captured) {
		jw_null(w, name);
		jw_null(w, enc);
		jw_null(w, count);
		return;
	}
	if (capture_truncated(c))
		n = jw_utf8_complete(buf, n);
	if (jw_text_len(buf, n) <= JW_BASE64_LEN(c->len)) {
		jw_strn(w, name, buf, n);
		jw_str(w, enc, "utf-8");
	} else {
		jw_raw_open(w, name);
		jw_base64(w->f, buf, c->len);
		jw_raw_close(w);
		jw_str(w, enc, "base64");
	}
	jw_uint(w, count, c->total);
}

int outcome_write(const struct outcome *o, FILE *f)
{
	struct jw w;

	jw_init(&w, f);
	jw_obj_open(&w, NULL);
	jw_int(&w, "version", REQUEST_VERSION);
	jw_str(&w, "state", outcome_state_name(o->kind));
	jw_str(&w, "kind", outcome_kind_name(o->kind));
	jw_obj_open(&w, "exit");
	if (o->has_status && !o->signal)
		jw_int(&w, "code", o->exit_code);
	else
		jw_null(&w, "code");
	if (o->has_status && o->signal) {
		jw_int(&w, "signal", o->signal);
		jw_str(&w, "signal_name", platform_signal_name(o->signal));
	} else {
		jw_null(&w, "signal");
	}
	jw_obj_close(&w);
	write_stream(&w, "stdout", "stdout_encoding", "stdout_bytes", &o->out, o->captured);
	write_stream(&w, "stderr", "stderr_encoding", "stderr_bytes", &o->err, o->captured);
	jw_bool(&w, "truncated", o->captured && (capture_truncated(&o->out) ||
						 capture_truncated(&o->err)));
	jw_arr_open(&w, "denials");
	for (size_t i = 0; i < o->denials.n; i++) {
		const struct denial *d = &o->denials.v[i];

		jw_obj_open(&w, NULL);
		jw_str(&w, "kind", d->kind);
		jw_str(&w, d->kind[0] == 's' ? "name" : "path", d->what);
		jw_obj_close(&w);
	}
	jw_arr_close(&w);
	jw_uint(&w, "denials_dropped", o->denials.dropped);
	write_enforcement(&w, &o->enf);
	write_limit_events(&w, &o->limits);
	if (o->kind == OK_LIMIT_EXCEEDED)
		jw_str(&w, "limit", limit_names[o->limits.killed_by]);
	write_runtime(&w, &o->runtime);
	changes_write(&o->changes, &w);
	if (o->kind == OK_SANDBOX_SETUP_FAILURE) {
		jw_obj_open(&w, "setup_error");
		jw_str(&w, "step", o->setup.step);
		jw_str(&w, "errno", platform_errno_name(o->setup.err));
		jw_str(&w, "detail", o->setup.detail);
		jw_obj_close(&w);
	}
	if (o->exec_errno)
		jw_str(&w, "exec_error", platform_errno_name(o->exec_errno));
	if (o->kind == OK_CANCELLED)
		jw_str(&w, "cancel_signal", platform_signal_name(o->cancel_signal));
	jw_uint(&w, "duration_ms", o->duration_ms);
	jw_obj_close(&w);
	fputc('\n', f);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}

int outcome_exit_status(const struct outcome *o)
{
	switch (o->kind) {
	case OK_SUCCESS:
	case OK_APPLICATION_FAILURE:
	case OK_LIMIT_EXCEEDED:
		if (o->exec_errno)
			return 126;
		return o->signal ? 128 + o->signal : o->exit_code;
	case OK_TIMED_OUT: return 124;
	case OK_CANCELLED: return 128 + o->cancel_signal;
	case OK_EXECUTABLE_NOT_FOUND: return 127;
	case OK_ENFORCEMENT_DENIED:
	case OK_SANDBOX_SETUP_FAILURE: return 125;
	}
	return 125;
}
