/* sqlite_db.h - what the SQLite backend's files share: its connection and its statement. */
#ifndef ROOKERY_SQLITE_DB_H
#define ROOKERY_SQLITE_DB_H

#include "db_internal.h"

#include <sqlite3.h>

/*
 * Statements are prepared once per connection and kept: parsing the SQL of every query of
 * every request cost as much as running them. A cached statement is lent to one caller at a
 * time (dbi_prepare ... dbi_finish); a second borrower of the same SQL gets a statement of its own.
 */
#define SQLITE_CACHE_SLOTS 64

struct sqlite_stmt {
	struct dbi_stmt base;
	sqlite3_stmt *st;
	const char *sql;        /* in the cache: the statement's text (SQLite's copy), compared by content */
	int lent;               /* in the cache: lent to a caller */
	int cached;             /* one of the cache's slots, else allocated for one use */
};

struct sqlite_db {
	struct db base;
	sqlite3 *conn;
	struct sqlite_stmt cache[SQLITE_CACHE_SLOTS];
	sqlite3_int64 *changed; /* rowids of the games written since db_changed_games (sqlite_changes.c) */
	size_t nchanged, changed_cap;
	db_committing_fn committing; /* told inside a COMMIT that keeps noted games (db_watch_changes) */
	void *committing_ctx;
};

static inline struct sqlite_db *sqlite_of(db *d)
{
	return (struct sqlite_db *)d;
}

/* sqlite_stmt.c: the statement API, with the cache. */
int sqlite_prepare(db *d, const char *sql, dbi_stmt **st, db_error *err);
void sqlite_finish(db *d, dbi_stmt *st);
/* Finalize every cached statement (before closing the connection). */
void sqlite_cache_clear(struct sqlite_db *s);
int sqlite_step(dbi_stmt *st);
void sqlite_reset(dbi_stmt *st);
void sqlite_bind_int64(dbi_stmt *st, int i, long long v);
void sqlite_bind_text(dbi_stmt *st, int i, const char *s);
void sqlite_bind_blob(dbi_stmt *st, int i, const void *p, size_t n);
void sqlite_bind_null(dbi_stmt *st, int i);
long long sqlite_col_int64(dbi_stmt *st, int i);
double sqlite_col_double(dbi_stmt *st, int i);
const char *sqlite_col_text(dbi_stmt *st, int i);
const void *sqlite_col_blob(dbi_stmt *st, int i);
size_t sqlite_col_bytes(dbi_stmt *st, int i);
int sqlite_col_is_null(dbi_stmt *st, int i);

/* sqlite_backup.c: db_backup, SQLite's online copy. */
int sqlite_backup(db *d, const char *dest, db_error *err);

/* sqlite_changes.c: db_watch_changes and db_changed_games, through the update hook. */
void sqlite_watch_changes(db *d, db_committing_fn committing, void *ctx);
int sqlite_changed_games(db *d, db_changed_fn fn, void *ctx, db_error *err);

#endif
