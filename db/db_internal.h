/* db_internal.h - what the storage files share and nothing outside db/ may use. */
#ifndef ROOKERY_DB_INTERNAL_H
#define ROOKERY_DB_INTERNAL_H

#include "db.h"

#include <sqlite3.h>

/*
 * Statements are prepared once per connection and kept: parsing the SQL of every query of
 * every request cost as much as running them. A cached statement is lent to one caller at a
 * time (dbi_prepare ... dbi_finish); a second borrower of the same SQL gets a statement of its own.
 */
#define DBI_CACHE_SLOTS 64

struct dbi_cached {
	const char *sql;        /* the statement's text (SQLite's copy), compared by content */
	sqlite3_stmt *st;
	int lent;
};

struct db {
	sqlite3 *conn;
	struct dbi_cached cache[DBI_CACHE_SLOTS];
	int group;              /* in a group's transaction (db_group_begin) */
	int in_change;          /* in a group: a change's savepoint is open */
	sqlite3_int64 *changed; /* rowids of the games written since db_changed_games (db_changes.c) */
	size_t nchanged, changed_cap;
	db_committing_fn committing; /* told before a COMMIT that keeps noted games (db_watch_changes) */
	void *committing_ctx;
};

/* Fill err and return code. */
int dbi_fail(db_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fill err from the connection's last error, mapping constraint and busy errors. */
int dbi_sql_fail(db *d, db_error *err, const char *what);
int dbi_exec(db *d, const char *sql, db_error *err);
/* A ready statement for sql, from the cache when possible; give it back with dbi_finish. */
int dbi_prepare(db *d, const char *sql, sqlite3_stmt **st, db_error *err);
/* Done with a statement of dbi_prepare: reset and unbound for the next user, or finalized. */
void dbi_finish(db *d, sqlite3_stmt *st);
/* Finalize every cached statement (before closing the connection). */
void dbi_cache_clear(db *d);
/* Step a statement that returns no rows, then finish it. */
int dbi_step_done(db *d, sqlite3_stmt *st, db_error *err, const char *what);
/* A copy of a text column, or NULL for SQL NULL. */
char *dbi_col_text(sqlite3_stmt *st, int i);
/* Bind a string, or SQL NULL for a NULL pointer. */
void dbi_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Register the SQL functions of db_mail.c (rookery_outbox_kept) on the connection; SQLite's code. */
int dbi_mail_functions(db *d);

#endif
