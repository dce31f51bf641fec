/* pg_conn.c - the PostgreSQL backend's connection: libpq, errors by SQLSTATE, the schema version in a table of its own. */
#include "pg_db.h"
#include "migrations.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_lost(struct pg_db *p, db_error *err)
{
	return dbi_fail(err, DB_E_BUSY, "the database connection is lost: %s", p->message ? p->message : "");
}

void pg_note_error(struct pg_db *p, const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorMessage(res) : NULL;
	size_t n;

	snprintf(p->sqlstate, sizeof p->sqlstate, "%s", state ? state : "");
	if (!msg || !*msg)
		msg = PQerrorMessage(p->conn);
	free(p->message);
	p->message = xstrdup(msg && *msg ? msg : "postgresql error");
	n = strlen(p->message);
	while (n && (p->message[n - 1] == '\n' || p->message[n - 1] == ' '))
		p->message[--n] = 0;
}

int pg_usable(struct pg_db *p)
{
	PGresult *res;
	int ok;

	if (PQstatus(p->conn) == CONNECTION_OK)
		return 0;
	PQreset(p->conn);
	if (PQstatus(p->conn) != CONNECTION_OK) {
		pg_note_error(p, NULL);
		return -1;
	}
	/* A new session: nothing prepared, nothing listened to, the settings to make again. */
	pg_prepared_clear(p, 0);
	p->listening = 0;
	res = PQexec(p->conn, p->setup);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		pg_note_error(p, res);
	PQclear(res);
	return ok ? 0 : -1;
}

static int pg_exec(db *d, const char *sql, db_error *err)
{
	struct pg_db *p = pg_of(d);
	PGresult *res;
	ExecStatusType status;
	int r = 0;

	if (pg_usable(p))
		return pg_lost(p, err);
	res = PQexec(p->conn, sql);
	status = PQresultStatus(res);

	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		pg_note_error(p, res);
		r = dbi_fail(err, DB_E_IO, "%s", p->message);
	}
	PQclear(res);
	return r;
}

/*
 * A unique key's conflict is the caller's to report; what concurrency causes (a deadlock
 * between two daemons' transactions, a lock not granted in time, a serialization failure)
 * is "busy": nothing was changed and the same request may go through when tried again.
 */
static int pg_sql_fail(db *d, db_error *err, const char *what)
{
	struct pg_db *p = pg_of(d);
	int code = DB_E_IO;

	if (!strcmp(p->sqlstate, "23505"))
		code = DB_E_CONFLICT;
	else if (PQstatus(p->conn) != CONNECTION_OK)
		code = DB_E_BUSY;   /* the server is gone: made again at the next use, the request may be retried */
	else if (!strcmp(p->sqlstate, "40001") || !strcmp(p->sqlstate, "40P01") || !strcmp(p->sqlstate, "55P03"))
		code = DB_E_BUSY;
	return dbi_fail(err, code, "%s: %s", what, p->message ? p->message : PQerrorMessage(p->conn));
}

static void pg_close(db *d)
{
	struct pg_db *p = pg_of(d);

	pg_prepared_clear(p, 1);
	PQfinish(p->conn);
	free(p->message);
	free(p);
}

/* Notices (a table that already exists...) are not errors: not printed. */
static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int pg_open(const char *uri, int how, db **out, db_error *err)
{
	struct pg_db *p = xcalloc(1, sizeof *p);
	db *d = &p->base;
	int r;

	*out = NULL;
	d->be = &dbi_postgresql;
	p->conn = PQconnectdb(uri);
	if (PQstatus(p->conn) != CONNECTION_OK) {
		/* libpq's message names the host and the reason, never the password. */
		r = dbi_fail(err, DB_E_IO, "cannot connect to the database: %s",
			     p->conn ? PQerrorMessage(p->conn) : "out of memory");
		pg_close(d);
		return r;
	}
	PQsetNoticeProcessor(p->conn, quiet, NULL);
	/* Every statement waits for another daemon's lock as long as SQLite waits for the writer. */
	snprintf(p->setup, sizeof p->setup, "SET application_name = 'rookery'; SET lock_timeout = %d; "
		 "SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC';%s", DB_BUSY_TIMEOUT_MS,
		 how == DBI_OPEN_READER ? " SET default_transaction_read_only = on;" : "");
	if ((r = pg_exec(d, p->setup, err))) {
		pg_close(d);
		return r;
	}
	*out = d;
	return 0;
}

static long long pg_changes(db *d)
{
	return pg_of(d)->changes;
}

static int pg_in_transaction(db *d)
{
	return PQtransactionStatus(pg_of(d)->conn) != PQTRANS_IDLE;
}

/* One row, one column, as a number (-1 on error or no row). */
static long long query_number(struct pg_db *p, const char *sql)
{
	PGresult *res = PQexec(p->conn, sql);
	long long v = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		v = atoll(PQgetvalue(res, 0, 0));
	else if (PQresultStatus(res) != PGRES_TUPLES_OK)
		pg_note_error(p, res);
	PQclear(res);
	return v;
}

/* No table yet is version 0: a new, empty database. */
static int pg_schema_version(db *d)
{
	struct pg_db *p = pg_of(d);

	if (query_number(p, "SELECT count(*) FROM pg_catalog.pg_tables "
			    "WHERE schemaname = current_schema() AND tablename = 'rookery_schema_version'") != 1)
		return 0;
	return (int)query_number(p, "SELECT version FROM rookery_schema_version");
}

static int pg_set_schema_version(db *d, int v, db_error *err)
{
	char sql[256];

	snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS rookery_schema_version (version integer NOT NULL); "
		 "DELETE FROM rookery_schema_version; INSERT INTO rookery_schema_version VALUES (%d);", v);
	return pg_exec(d, sql, err);
}

static int pg_backup(db *d, const char *dest, db_error *err)
{
	(void)d;
	(void)dest;
	return dbi_fail(err, DB_E_IO, "a PostgreSQL database is backed up with pg_dump or a base backup "
		    "(docs/operations.md), not by rookery backup");
}

/* Commits are learnt by every daemon alike, from the notifications (pg_follow.c). */
static void pg_watch_changes(db *d, db_committing_fn committing, void *ctx)
{
	(void)d;
	(void)committing;
	(void)ctx;
}

static int pg_changed_games(db *d, db_changed_fn fn, void *ctx, db_error *err)
{
	(void)d;
	(void)fn;
	(void)ctx;
	(void)err;
	return 0;
}

/* postgresql://user@host:port/dbname from what libpq reads in target, the password left out. */
static void pg_describe(const char *target, char *out, size_t size)
{
	PQconninfoOption *opts = PQconninfoParse(target, NULL);
	const char *user = "", *host = "", *port = "", *name = "";

	for (PQconninfoOption *o = opts; o && o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "user"))
			user = o->val;
		else if (!strcmp(o->keyword, "host"))
			host = o->val;
		else if (!strcmp(o->keyword, "port"))
			port = o->val;
		else if (!strcmp(o->keyword, "dbname"))
			name = o->val;
	}
	/* Several hosts (a primary and its standbys) come as lists: each host with its port. */
	size_t n = (size_t)snprintf(out, size, "postgresql://%s%s", user, *user ? "@" : "");
	for (int i = 0; n < size; i++) {
		size_t hl = strcspn(host, ","), pl = strcspn(port, ",");
		n += (size_t)snprintf(out + n, size - n, "%s%.*s%s%.*s", i ? "," : "", (int)hl, host,
				      pl ? ":" : "", (int)pl, port);
		if (!host[hl] || n >= size)
			break;
		host += hl + 1;
		port += port[pl] ? pl + 1 : pl;
	}
	if (n < size)
		snprintf(out + n, size - n, "/%s", name);
	PQconninfoFree(opts);
}

const struct dbi_backend dbi_postgresql = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.prepare = pg_prepare,
	.finish = pg_finish,
	.step = pg_step,
	.reset = pg_reset,
	.bind_int64 = pg_bind_int64,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.bind_null = pg_bind_null,
	.col_int64 = pg_col_int64,
	.col_double = pg_col_double,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.col_bytes = pg_col_bytes,
	.col_is_null = pg_col_is_null,
	.changes = pg_changes,
	.in_transaction = pg_in_transaction,
	.sql_fail = pg_sql_fail,
	/* Read committed: each statement sees what committed before it, after the game's lock. */
	.begin_write = "BEGIN",
	/* One snapshot for every statement of a read, as SQLite's read transaction gives. */
	.begin_read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	.lock_game = "SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))",
	.hold_try = "SELECT pg_try_advisory_lock(hashtextextended(?1, 1))",
	.hold = "SELECT pg_advisory_lock(hashtextextended(?1, 1)) IS NULL",
	.hold_end = "SELECT pg_advisory_unlock(hashtextextended(?1, 1))",
	.shared = 1,
	.schema_version = pg_schema_version,
	.migrations = db_pg_migrations,
	.set_schema_version = pg_set_schema_version,
	.backup = pg_backup,
	.watch_changes = pg_watch_changes,
	.changed_games = pg_changed_games,
	.follow = pg_follow,
	.describe = pg_describe,
	/* The tables of the connection's schema, in the order they were made. */
	.tables = "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relkind = 'r' AND c.relnamespace = "
		  "(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema()) "
		  "AND c.relname <> 'rookery_schema_version' ORDER BY c.oid",
	.columns = "SELECT a.attname, CASE WHEN t.typname IN ('int2', 'int4', 'int8') THEN 'integer' "
		   "WHEN t.typname = 'bytea' THEN 'blob' WHEN t.typcategory = 'N' THEN 'real' ELSE 'text' END, "
		   "a.attgenerated <> '', a.attidentity <> '' "
		   "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
		   "WHERE a.attrelid = (quote_ident(current_schema()) || '.' || quote_ident(?1))::regclass "
		   "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
	/* An identity column's sequence; the next number it gives is past ?3. */
	.identity_past = "SELECT setval(pg_get_serial_sequence(quote_ident(?1), ?2), ?3)",
};
