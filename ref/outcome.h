/* outcome.h - the outcome contract (CONTRACT.md, OUT-*).
 *
 * One outcome per run, whatever happened: the kind says what happened, the
 * state groups kinds, and every field is a fact the runner observed. */
#ifndef SANDPROOF_OUTCOME_H
#define SANDPROOF_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "changes.h"
#include "jw.h"
#include "sandproof/platform.h"

/* The outcome line is at most 2 * (JW_BASE64_LEN(L) + 2) + OUTCOME_FIXED_MAX
 * bytes, L = output_limit_bytes (OUT-7): each stream's value is at most
 * base64 of what was kept (outcome.c), and everything else is made of
 * fixed-size fields and bounded lists (test_capture checks the maximum). */
#define OUTCOME_FIXED_MAX (640 * 1024)

enum outcome_kind {
	OK_SUCCESS,
	OK_APPLICATION_FAILURE,
	OK_TIMED_OUT,
	OK_CANCELLED,
	OK_ENFORCEMENT_DENIED,
	OK_SANDBOX_SETUP_FAILURE,
	OK_EXECUTABLE_NOT_FOUND,
	OK_LIMIT_EXCEEDED,
};

#define OUTCOME_RUNTIME_MAX 32
struct outcome_runtime {
	bool present;
	char root[4096];
	bool reprovisioned;
	char reprovision_reason[128];
	char evicted[OUTCOME_RUNTIME_MAX][64];
	size_t n_evicted;
	char skipped[OUTCOME_RUNTIME_MAX][168]; /* "name: reason" */
	size_t n_skipped;
};

struct outcome {
	enum outcome_kind kind;
	bool has_status;  /* the command's process was reaped */
	int exit_code;    /* valid when has_status && !signal */
	int signal;       /* 0 unless the command died of a signal */
	struct capture out, err;
	bool captured;    /* out/err hold the streams (else passed through) */
	struct denials denials;
	struct enforcement enf;
	struct setup_error setup;  /* kind == OK_SANDBOX_SETUP_FAILURE */
	int exec_errno;            /* execve failed with this */
	int cancel_signal;         /* kind == OK_CANCELLED */
	struct limit_report limits; /* killed_by: kind == OK_LIMIT_EXCEEDED */
	uint64_t duration_ms;
	struct outcome_runtime runtime;
	struct changes changes;     /* OUT-8: present once a baseline was taken */
};

const char *outcome_kind_name(enum outcome_kind k);
const char *outcome_state_name(enum outcome_kind k);
/* Write the outcome as one JSON line.  0 or -errno (write error). */
int outcome_write(const struct outcome *o, FILE *f);
/* The exit status of `sandproof-ref exec` for this outcome (README table). */
int outcome_exit_status(const struct outcome *o);

#endif
