/* sqlite_conn.c - the SQLite backend's connection: one file, WAL, synchronous=FULL, busy waits, the schema version in user_version. */
#include "sqlite_db.h"
#include "migrations.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

static int sqlite_exec(db *d, const char *sql, db_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(sqlite_of(d)->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = dbi_fail(err, DB_E_IO, "%s", msg ? msg : "sqlite error");
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

static int sqlite_sql_fail(db *d, db_error *err, const char *what)
{
	sqlite3 *conn = sqlite_of(d)->conn;
	int rc = sqlite3_extended_errcode(conn);
	int code = DB_E_IO;

	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		code = DB_E_CONFLICT;
	else if ((rc & 0xff) == SQLITE_BUSY)
		code = DB_E_BUSY;
	return dbi_fail(err, code, "%s: %s", what, sqlite3_errmsg(conn));
}

/* rookery_outbox_kept(message): db_mail.c's wiping of a sent mail, as an SQL function. */
static void sql_outbox_kept(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *p = (const char *)sqlite3_value_text(argv[0]);
	char *kept;

	(void)argc;
	if (!p) {
		sqlite3_result_null(ctx);
		return;
	}
	kept = dbi_outbox_kept(p);
	sqlite3_result_text(ctx, kept, -1, free);
}

/* greatest(a, b) and least(a, b) of PostgreSQL, which the queries use for SQLite's max(a, b) and min(a, b). */
static void sql_extreme(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int greatest = sqlite3_user_data(ctx) != NULL;
	sqlite3_value *a = argv[0], *b = argv[1];

	(void)argc;
	if (sqlite3_value_type(a) == SQLITE_NULL) {
		sqlite3_result_value(ctx, b);
		return;
	}
	if (sqlite3_value_type(b) == SQLITE_NULL) {
		sqlite3_result_value(ctx, a);
		return;
	}
	if ((sqlite3_value_int64(a) > sqlite3_value_int64(b)) == greatest)
		sqlite3_result_value(ctx, a);
	else
		sqlite3_result_value(ctx, b);
}

/* The SQL functions the queries of db/ call that SQLite lacks. */
static int add_functions(sqlite3 *conn)
{
	static int greatest = 1;
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;

	return sqlite3_create_function(conn, "rookery_outbox_kept", 1, flags, NULL, sql_outbox_kept, NULL, NULL) ||
	       sqlite3_create_function(conn, "greatest", 2, flags, &greatest, sql_extreme, NULL, NULL) ||
	       sqlite3_create_function(conn, "least", 2, flags, NULL, sql_extreme, NULL, NULL);
}

static void sqlite_close(db *d)
{
	struct sqlite_db *s = sqlite_of(d);

	sqlite_cache_clear(s);
	sqlite3_close_v2(s->conn);
	free(s->changed);
	free(s);
}

static int sqlite_open(const char *path, int how, db **out, db_error *err)
{
	struct sqlite_db *s = xcalloc(1, sizeof *s);
	int flags = how == DBI_OPEN_WRITER ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;
	db *d = &s->base;
	int r;

	*out = NULL;
	d->be = &dbi_sqlite;
	if (sqlite3_open_v2(path, &s->conn, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		r = dbi_fail(err, DB_E_IO, "cannot open database %s: %s", path,
			     s->conn ? sqlite3_errmsg(s->conn) : "out of memory");
		sqlite_close(d);
		return r;
	}
	sqlite3_busy_timeout(s->conn, DB_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->conn, 1);
	/* secure_delete: deleted and overwritten content (a wiped mail, an expired link) is zeroed
	 * in the file, not left in free space. At the last close SQLite checkpoints the WAL, with
	 * every older page image, into the database and deletes it. */
	r = sqlite_exec(d, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; "
			"PRAGMA foreign_keys = ON; PRAGMA trusted_schema = OFF; PRAGMA secure_delete = ON;", err);
	if (!r && add_functions(s->conn) != SQLITE_OK)
		r = sqlite_sql_fail(d, err, "registering functions");
	/* query_only rather than SQLITE_OPEN_READONLY: a reader still maps the WAL index. */
	if (!r && how == DBI_OPEN_READER)
		r = sqlite_exec(d, "PRAGMA query_only = ON", err);
	if (r) {
		sqlite_close(d);
		return r;
	}
	*out = d;
	return 0;
}

static long long sqlite_changes(db *d)
{
	return sqlite3_changes(sqlite_of(d)->conn);
}

static int sqlite_in_transaction(db *d)
{
	return !sqlite3_get_autocommit(sqlite_of(d)->conn);
}

/* Read once per connection: prepared apart, so as not to hold a slot of the statement cache. */
static int sqlite_schema_version(db *d)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(sqlite_of(d)->conn, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int sqlite_set_schema_version(db *d, int v, db_error *err)
{
	char pragma[64];

	snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", v);
	return sqlite_exec(d, pragma, err);
}

static void sqlite_describe(const char *path, char *out, size_t size)
{
	snprintf(out, size, "%s", path);
}

const struct dbi_backend dbi_sqlite = {
	.name = "sqlite",
	.open = sqlite_open,
	.close = sqlite_close,
	.exec = sqlite_exec,
	.prepare = sqlite_prepare,
	.finish = sqlite_finish,
	.step = sqlite_step,
	.reset = sqlite_reset,
	.bind_int64 = sqlite_bind_int64,
	.bind_text = sqlite_bind_text,
	.bind_blob = sqlite_bind_blob,
	.bind_null = sqlite_bind_null,
	.col_int64 = sqlite_col_int64,
	.col_double = sqlite_col_double,
	.col_text = sqlite_col_text,
	.col_blob = sqlite_col_blob,
	.col_bytes = sqlite_col_bytes,
	.col_is_null = sqlite_col_is_null,
	.changes = sqlite_changes,
	.in_transaction = sqlite_in_transaction,
	.sql_fail = sqlite_sql_fail,
	.begin_write = "BEGIN IMMEDIATE",
	.begin_read = "BEGIN",
	.schema_version = sqlite_schema_version,
	.migrations = db_migrations,
	.set_schema_version = sqlite_set_schema_version,
	.backup = sqlite_backup,
	.watch_changes = sqlite_watch_changes,
	.changed_games = sqlite_changed_games,
	.describe = sqlite_describe,
	/* The schema's record of each table, in the order they were made (sqlite_ tables are SQLite's). */
	.tables = "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
		  "ORDER BY rowid",
	/* A column's kind by SQLite's rules of type affinity; hidden 2 and 3 are generated columns. */
	.columns = "SELECT name, CASE WHEN instr(upper(type), 'INT') THEN 'integer' "
		   "WHEN instr(upper(type), 'CHAR') OR instr(upper(type), 'CLOB') OR instr(upper(type), 'TEXT') THEN 'text' "
		   "WHEN instr(upper(type), 'BLOB') OR type = '' THEN 'blob' ELSE 'real' END, "
		   "hidden IN (2, 3), 0 FROM pragma_table_xinfo(?1) ORDER BY cid",
};
