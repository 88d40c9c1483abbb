/* sess.h - one retained interactive session of `sandproof-ref serve`
 * (SESS-*, CONTRACT.md).
 *
 * A session is a worker process, `sandproof-ref __session-worker`, that runs
 * the request through run_execute exactly as `run` does (the same
 * enforcement, never weaker), with the command's stdin, stdout and stderr
 * on a pipe pair or a pseudo-terminal the server holds, and writes its
 * outcome (OUT-*, with `changes`) into a memory file the server reads after
 * the worker ended.  The server knows the worker by a pidfd taken while it
 * was an unreaped child, so a signal never reaches a reused pid (SESS-6).
 *
 * Memory: the output ring holds at most `ring_cap` bytes (the newest; the
 * rest is counted in `dropped`), pending input at most SESS_INPUT_MAX, the
 * outcome at most SESS_OUTCOME_MAX: a session costs at most their sum
 * whatever its command writes.  Linux only (pidfd, memfd). */
#ifndef SANDPROOF_SESS_H
#define SANDPROOF_SESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SESS_INPUT_MAX (1024 * 1024)
#define SESS_OUTCOME_MAX (2 * 1024 * 1024)
/* After the worker ended, output still in flight is read for this long. */
#define SESS_DRAIN_MS 2000
/* A stopped worker that has not ended after this long is SIGKILLed (its
 * sandbox dies with it, PROC-10). */
#define SESS_KILL_MS 5000

struct sess_ring {
	char *buf;
	size_t cap, start, len;
	uint64_t dropped;    /* bytes overwritten since the last take */
	uint64_t total;      /* every byte read */
};

struct sess {
	uint64_t id;
	bool tty;
	pid_t pid;           /* the worker; only for waitpid, never signalled */
	int pidfd;           /* its identity: every signal goes through it */
	int out_fd;          /* pipe read end or pty master; -1 at EOF */
	int in_fd;           /* pipe write end or pty master dup; -1 once closed */
	int outcome_fd;      /* memfd the worker writes its outcome into */
	struct sess_ring ring;
	char *pend;          /* input not yet written */
	size_t pend_len, pend_off;
	bool close_after;    /* close stdin once pend is written (pipes) */
	bool tty_partial;    /* tty: the input so far ends inside a line */
	bool reaped;         /* the worker's status was collected */
	bool exited;         /* reaped and output drained: final */
	bool interrupted;    /* sticky: every later response says so */
	bool busy;           /* a call on this session is being answered */
	char *outcome;       /* the outcome line, without its newline */
	size_t outcome_len;
	int64_t started_ms, touched_ms, exited_ms, drain_deadline, kill_deadline;
};

/* Start a worker for the request text (already validated by the caller).
 * 0, or -errno with *why naming the step; nothing left running. */
int sess_start(struct sess *s, uint64_t id, const char *req, size_t len,
	       bool tty, size_t ring_cap, int64_t now, const char **why);
/* Read output (ring), write pending input, reap the worker.  revents for
 * out_fd, in_fd and pidfd come from the server's poll. */
void sess_service(struct sess *s, short out_ev, short in_ev, short pid_ev, int64_t now);
/* Queue input; eof: end of input after it (pipes: stdin closed, later
 * input refused; a terminal: its VEOF character, sess.c says how, and the
 * terminal stays open).  0, or -EPIPE (stdin closed or the session exited),
 * -ENOBUFS (more than SESS_INPUT_MAX bytes would be pending, the backlog the
 * command has not read yet included), -ENOTTY (eof on a terminal whose VEOF
 * is disabled), -ENOMEM: then nothing was queued. */
int sess_input(struct sess *s, const char *data, size_t len, bool eof);
/* The input queued and not yet written to the command. */
size_t sess_pending(const struct sess *s);
/* Terminate the whole tree: SIGTERM to the worker through its pidfd (it
 * cancels the run, PROC-4), SIGKILL past SESS_KILL_MS.  Marks interrupted.
 * A worker already reaped is never signalled. */
void sess_interrupt(struct sess *s, int64_t now);
/* sess_ring.c: n bytes into the ring, the oldest dropped past its capacity
 * (a ring without a buffer counts them only). */
void sess_ring_put(struct sess_ring *r, const char *p, size_t n);
/* The ring's bytes in order into dst (cap bytes), emptied; *dropped gets
 * the bytes lost since the last take. */
size_t sess_take(struct sess *s, char *dst, uint64_t *dropped);
/* The next time this session needs the loop to wake up, or -1. */
int64_t sess_deadline(const struct sess *s);
void sess_free(struct sess *s);

#endif
