/* db_util.c - helpers shared by the storage files: errors, statements, columns. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int dbi_fail(db_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}

int dbi_sql_fail(db *d, db_error *err, const char *what)
{
	int rc = sqlite3_extended_errcode(d->conn);
	int code = DB_E_IO;

	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		code = DB_E_CONFLICT;
	else if ((rc & 0xff) == SQLITE_BUSY)
		code = DB_E_BUSY;
	return dbi_fail(err, code, "%s: %s", what, sqlite3_errmsg(d->conn));
}

int dbi_exec(db *d, const char *sql, db_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(d->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = dbi_fail(err, DB_E_IO, "%s", msg ? msg : "sqlite error");
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

int dbi_prepare(db *d, const char *sql, sqlite3_stmt **st, db_error *err)
{
	struct dbi_cached *free_slot = NULL;

	for (int i = 0; i < DBI_CACHE_SLOTS; i++) {
		struct dbi_cached *c = &d->cache[i];
		if (!c->st) {
			if (!free_slot)
				free_slot = c;
		} else if (!c->lent && strcmp(c->sql, sql) == 0) {
			c->lent = 1;
			*st = c->st;
			return 0;
		}
	}
	if (sqlite3_prepare_v3(d->conn, sql, -1, free_slot ? SQLITE_PREPARE_PERSISTENT : 0, st,
			       NULL) != SQLITE_OK)
		return dbi_sql_fail(d, err, "prepare");
	/* Keyed by SQLite's own copy of the text, which lives as long as the statement. */
	if (free_slot) {
		free_slot->sql = sqlite3_sql(*st);
		free_slot->st = *st;
		free_slot->lent = 1;
	}
	return 0;
}

void dbi_finish(db *d, sqlite3_stmt *st)
{
	for (int i = 0; i < DBI_CACHE_SLOTS; i++) {
		if (d->cache[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			d->cache[i].lent = 0;
			return;
		}
	}
	sqlite3_finalize(st);
}

void dbi_cache_clear(db *d)
{
	for (int i = 0; i < DBI_CACHE_SLOTS; i++) {
		sqlite3_finalize(d->cache[i].st);
		d->cache[i].st = NULL;
		d->cache[i].sql = NULL;
		d->cache[i].lent = 0;
	}
}

/* Copy a text column, or NULL for SQL NULL. */
char *dbi_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

void dbi_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Run a prepared statement that returns no rows, then finish it. */
int dbi_step_done(db *d, sqlite3_stmt *st, db_error *err, const char *what)
{
	int r = 0;

	if (sqlite3_step(st) != SQLITE_DONE)
		r = dbi_sql_fail(d, err, what);
	dbi_finish(d, st);
	return r;
}
