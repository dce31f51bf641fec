/* db_internal.h - what the storage files share and nothing outside db/ may use: the statement API over the backends. */
#ifndef ROOKERY_DB_INTERNAL_H
#define ROOKERY_DB_INTERNAL_H

#include "db.h"

#include <stddef.h>

/*
 * The query files of db/ speak SQL through this API only; a backend (db/sqlite/) implements it.
 * SQL is written with numbered placeholders ?1, ?2 ..., which a backend whose own syntax differs
 * rewrites, and with comments standing where only some backend needs words, which that backend
 * replaces: skip_locked after a SELECT that claims rows, overriding between an INSERT's columns
 * and its VALUES when it writes a column the database numbers (pg_stmt.c). A statement is lent
 * by dbi_prepare and given back with dbi_finish; column values it returns by pointer live until
 * the next dbi_step, dbi_reset or dbi_finish of the statement.
 */
typedef struct dbi_stmt dbi_stmt;
struct db_migration;

/* What dbi_step returns: a row to read, the end of the rows, or an error (see dbi_sql_fail). */
enum { DBI_ERROR = -1, DBI_DONE = 0, DBI_ROW = 1 };

/* How a connection is opened: the daemon's writer (creating the database) or a reader. */
enum { DBI_OPEN_WRITER, DBI_OPEN_READER };

/*
 * A backend: the functions behind the statement API and the connection's life. The statement's
 * first member points to its backend's table, so a statement finds its functions by itself.
 */
struct dbi_backend {
	const char *name;
	/* Open target (a path, for SQLite) with the daemon's settings; no migration, no schema check. */
	int (*open)(const char *target, int how, db **out, db_error *err);
	void (*close)(db *d);
	/* Run SQL without parameters or rows (several statements allowed); err may be NULL. */
	int (*exec)(db *d, const char *sql, db_error *err);
	int (*prepare)(db *d, const char *sql, dbi_stmt **st, db_error *err);
	void (*finish)(db *d, dbi_stmt *st);
	int (*step)(dbi_stmt *st);
	void (*reset)(dbi_stmt *st);
	void (*bind_int64)(dbi_stmt *st, int i, long long v);
	void (*bind_text)(dbi_stmt *st, int i, const char *s);
	void (*bind_blob)(dbi_stmt *st, int i, const void *p, size_t n);
	void (*bind_null)(dbi_stmt *st, int i);
	long long (*col_int64)(dbi_stmt *st, int i);
	double (*col_double)(dbi_stmt *st, int i);
	const char *(*col_text)(dbi_stmt *st, int i);
	const void *(*col_blob)(dbi_stmt *st, int i);
	size_t (*col_bytes)(dbi_stmt *st, int i);
	int (*col_is_null)(dbi_stmt *st, int i);
	/* Rows written by the last INSERT, UPDATE or DELETE of the connection. */
	long long (*changes)(db *d);
	/* Whether a transaction is open (an error may have ended it by itself). */
	int (*in_transaction)(db *d);
	/* Fill err from the connection's last error: a unique key's conflict, busy, or I/O. */
	int (*sql_fail)(db *d, db_error *err, const char *what);
	/* The statement that opens a transaction meant to write (taking the write lock at once). */
	const char *begin_write;
	/* The statement that opens a read: one snapshot for all its statements. */
	const char *begin_read;
	/*
	 * For a database several daemons share: the statement (?1 the game's id) that holds a game
	 * against every other transaction's changes until the end of the transaction; the pair that
	 * lets one daemon at a time migrate. NULL where one daemon holds the database.
	 */
	const char *lock_game;
	/* db_hold_try, db_hold and db_hold_end: statements of one row and column, ?1 the name. */
	const char *hold_try, *hold, *hold_end;
	int shared;
	/* The schema version stored in the database (-1 on error), and setting it inside a migration. */
	int (*schema_version)(db *d);
	int (*set_schema_version)(db *d, int v, db_error *err);
	/* Its migrations (migrations.h): the same names and number for every backend. */
	const struct db_migration *migrations;
	/* What db.h's db_backup, db_watch_changes and db_changed_games do for this backend. */
	int (*backup)(db *d, const char *dest, db_error *err);
	void (*watch_changes)(db *d, db_committing_fn committing, void *ctx);
	int (*changed_games)(db *d, db_changed_fn fn, void *ctx, db_error *err);
	/* db_target_describe. */
	void (*describe)(const char *target, char *out, size_t size);
	/* db_follow_changes; NULL where one daemon holds the database. */
	int (*follow)(db *d, db_changed_fn fn, void *ctx, int timeout_ms, db_error *err);
	/*
	 * The schema as a copy reads it (db_copy.c), so that no column is named by hand. tables: the
	 * name of every table of Rookery's data (not the backend's own, nor where the schema version
	 * is kept), one a row, in the order they were created. columns (?1 a table): each column in
	 * order, as (name, kind, generated, identity): kind one of "integer", "real", "text" or
	 * "blob", by the declared type; generated 1 for a column the database computes (never
	 * written); identity 1 for one the database numbers by itself.
	 */
	const char *tables, *columns;
	/*
	 * After rows were written with their own numbers in an identity column: the statement (?1 the
	 * table, ?2 the column, ?3 the largest number written) after which the database numbers new
	 * rows past it. NULL where the numbering follows the rows by itself (SQLite's rowid).
	 */
	const char *identity_past;
};

/* The statement as every backend begins its own. */
struct dbi_stmt {
	const struct dbi_backend *be;
};

/* A connection as every backend begins its own; what follows is the backend's. */
struct db {
	const struct dbi_backend *be;
	int group;              /* in a group's transaction (db_group_begin) */
	int in_change;          /* in a group: a change's savepoint is open */
};

/* The backends. */
extern const struct dbi_backend dbi_sqlite;
extern const struct dbi_backend dbi_postgresql;

/* The backend that serves target: a libpq connection URI is PostgreSQL's, anything else SQLite's path. */
const struct dbi_backend *dbi_backend_for(const char *target);

/* The hold (db_hold) under which one daemon at a time migrates a shared database. */
#define DBI_MIGRATIONS_HOLD "rookery migrations"

/* Fill err and return code. */
int dbi_fail(db_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fill err from the connection's last error, mapping constraint and busy errors. */
int dbi_sql_fail(db *d, db_error *err, const char *what);
int dbi_exec(db *d, const char *sql, db_error *err);
/* A ready statement for sql, from the connection's cache when possible; give it back with dbi_finish. */
int dbi_prepare(db *d, const char *sql, dbi_stmt **st, db_error *err);
/* Done with a statement of dbi_prepare: reset and unbound for the next user, or freed. */
void dbi_finish(db *d, dbi_stmt *st);
/* The next row (DBI_ROW), the end (DBI_DONE) or an error (DBI_ERROR, then dbi_sql_fail). */
int dbi_step(dbi_stmt *st);
/* Back to before its first step, bindings kept. */
void dbi_reset(dbi_stmt *st);
/* Step a statement that returns no rows, then finish it. */
int dbi_step_done(db *d, dbi_stmt *st, db_error *err, const char *what);
/* Rows written by the connection's last INSERT, UPDATE or DELETE. */
long long dbi_changes(db *d);

/* Parameters, numbered from 1. */
void dbi_bind_int(dbi_stmt *st, int i, int v);
void dbi_bind_int64(dbi_stmt *st, int i, long long v);
/* A string, or SQL NULL for a NULL pointer. */
void dbi_bind_text(dbi_stmt *st, int i, const char *s);
void dbi_bind_blob(dbi_stmt *st, int i, const void *p, size_t n);
void dbi_bind_null(dbi_stmt *st, int i);

/* Columns of the current row, numbered from 0. */
int dbi_col_int(dbi_stmt *st, int i);
long long dbi_col_int64(dbi_stmt *st, int i);
double dbi_col_double(dbi_stmt *st, int i);
/* The text of a column, or NULL for SQL NULL; valid until the statement moves on. */
const char *dbi_col_text(dbi_stmt *st, int i);
/* A copy of a text column, or NULL for SQL NULL. */
char *dbi_col_dup(dbi_stmt *st, int i);
const void *dbi_col_blob(dbi_stmt *st, int i);
size_t dbi_col_bytes(dbi_stmt *st, int i);
int dbi_col_is_null(dbi_stmt *st, int i);

/*
 * Apply every migration past the stored schema version inside the transaction the caller holds
 * (db_copy.c: a new database is made and filled all or nothing); DB_E_VERSION for a newer one.
 */
int dbi_migrate_within(db *d, db_error *err);

/*
 * What the outbox keeps of a mail once sent or given up (db_mail.c): its kept headers and a note
 * in place of the body, newly allocated, or NULL when message is NULL. The SQL function
 * rookery_outbox_kept(message) that the queries call; each backend provides it from this.
 */
char *dbi_outbox_kept(const char *message);

#endif
