/* db_internal.h - what the storage files share and nothing outside db/ may use. */
#ifndef ROOKERY_DB_INTERNAL_H
#define ROOKERY_DB_INTERNAL_H

#include "db.h"

#include <sqlite3.h>

struct db {
	sqlite3 *conn;
};

/* Fill err and return code. */
int dbi_fail(db_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fill err from the connection's last error, mapping constraint and busy errors. */
int dbi_sql_fail(db *d, db_error *err, const char *what);
int dbi_exec(db *d, const char *sql, db_error *err);
int dbi_prepare(db *d, const char *sql, sqlite3_stmt **st, db_error *err);
/* Step a statement that returns no rows, then finalize it. */
int dbi_step_done(db *d, sqlite3_stmt *st, db_error *err, const char *what);
/* A copy of a text column, or NULL for SQL NULL. */
char *dbi_col_text(sqlite3_stmt *st, int i);
/* Bind a string, or SQL NULL for a NULL pointer. */
void dbi_bind_text(sqlite3_stmt *st, int i, const char *s);

#endif
