/* store_int.h - what the store's own files share (never included outside
 * reports/store: its include directory is private to sp_store).  The sqlite
 * handle and its prepared statements live here, so no other module can
 * reach the database except through sandproof/store.h. */
#ifndef SANDPROOF_STORE_INT_H
#define SANDPROOF_STORE_INT_H

#include <sqlite3.h>
#include <stdint.h>

#include "sandproof/store.h"

/* Prepared once per handle; the transaction statements come first because
 * creating a new database's schema needs them before the tables exist. */
enum {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_TX_N,
	ST_RUN_BEGIN = ST_TX_N,
	ST_RUN_FINISH,
	ST_SCENARIO_PUT,
	ST_RESULT_ADD,
	ST_EVIDENCE_ADD,
	ST_N
};

struct store {
	sqlite3 *h;
	int readonly;
	int in_tx;               /* between store_tx_begin() and store_tx_end() */
	unsigned wait_ms;        /* how long a write waits for another's lock */
	sqlite3_stmt *st[ST_N];  /* NULL on a read-only handle */
	char err[512];           /* the last failure, for store_get_error() */
};

/* Records a message in db->err and returns r (a -errno). */
__attribute__((format(printf, 3, 4)))
int store_fail(struct store *db, int r, const char *fmt, ...);
/* The failure of a sqlite call: "<what>: <sqlite's message>", with the
 * -errno it maps to; a lock held past our bound says how long we waited. */
int store_sqlfail(struct store *db, int rc, const char *what);

/* Bind a named parameter: text (NULL: SQL NULL; borrowed until store_step()
 * clears the bindings), a number, an optional number (negative: NULL). */
int store_bind_text(struct store *db, sqlite3_stmt *st, const char *name, const char *v);
int store_bind_int(struct store *db, sqlite3_stmt *st, const char *name, int64_t v);
int store_bind_opt(struct store *db, sqlite3_stmt *st, const char *name, int64_t v);
/* Runs a write statement to completion, then resets it and clears its
 * bindings. */
int store_step(struct store *db, sqlite3_stmt *st, const char *what);

/* The transaction of one write call: store_tx_end() commits when r is 0,
 * else rolls back, and is the only function that commits. */
int store_tx_begin(struct store *db);
int store_tx_end(struct store *db, int r);
/* 0, or -EBADF (with a message) on a read-only handle. */
int store_writable(struct store *db);

#endif
