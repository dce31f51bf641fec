/* pg_db.h - what the PostgreSQL backend's files share: its connection and its statement. */
#ifndef ROOKERY_PG_DB_H
#define ROOKERY_PG_DB_H

#include "db_internal.h"

#include <libpq-fe.h>

/* The most parameters one statement of db/ takes (?1 ... ?N): a copy's INSERT has one a column. */
#define PG_MAX_PARAMS 64

/*
 * A statement prepared on the server once per connection, named by its place in the connection's
 * list and kept for the connection's life: the same SQL is prepared again only on a new connection.
 */
struct pg_prepared {
	char *sql;              /* the text as db/ wrote it, the key */
	char *text;             /* as PostgreSQL reads it */
	char name[16];          /* the server's name for it */
	int nparams;
	unsigned long used;     /* bit N-1: ?N appears in the text */
	int ready;              /* prepared on the server in this session */
	struct pg_prepared *next;
};

struct pg_stmt {
	struct dbi_stmt base;
	struct pg_db *db;
	struct pg_prepared *prep;
	char *values[PG_MAX_PARAMS];   /* bound parameters (NULL: SQL NULL), owned */
	int lengths[PG_MAX_PARAMS];
	int formats[PG_MAX_PARAMS];    /* 1 for a blob, sent as bytes */
	PGresult *res;                 /* the rows, once run */
	int row;                       /* the current row of res, -1 before the first */
	unsigned char *blob;           /* the current column's bytes (col_blob), until the next step */
	size_t blob_len;
	int blob_col;
};

struct pg_db {
	struct db base;
	PGconn *conn;
	struct pg_prepared *prepared;  /* the statements prepared on this connection */
	int nprepared;
	long long changes;             /* rows of the last INSERT, UPDATE or DELETE */
	char sqlstate[6];              /* of the last error */
	char *message;                 /* the last error's text */
	int listening;                 /* LISTEN sent (pg_follow.c) */
	char setup[256];               /* the session's settings, made again after a reconnection */
};

static inline struct pg_db *pg_of(db *d)
{
	return (struct pg_db *)d;
}

/* pg_conn.c: note the error of res (or of the connection, res NULL) as the connection's last. */
void pg_note_error(struct pg_db *p, const PGresult *res);
/*
 * A connection the server dropped (a restart, a failover to the replica) is made again before
 * the next statement, outside a transaction: 0 when the connection is usable.
 */
int pg_usable(struct pg_db *p);
/* Fill err for a connection that cannot be made again now (DB_E_BUSY: a later request may find it). */
int pg_lost(struct pg_db *p, db_error *err);

/* pg_stmt.c: the statement API over prepared statements. */
int pg_prepare(db *d, const char *sql, dbi_stmt **st, db_error *err);
void pg_finish(db *d, dbi_stmt *st);
/* A new session has none of the statements prepared; forget: free them too (closing). */
void pg_prepared_clear(struct pg_db *p, int forget);
int pg_step(dbi_stmt *st);
void pg_reset(dbi_stmt *st);
void pg_bind_int64(dbi_stmt *st, int i, long long v);
void pg_bind_text(dbi_stmt *st, int i, const char *s);
void pg_bind_blob(dbi_stmt *st, int i, const void *p, size_t n);
void pg_bind_null(dbi_stmt *st, int i);
long long pg_col_int64(dbi_stmt *st, int i);
double pg_col_double(dbi_stmt *st, int i);
const char *pg_col_text(dbi_stmt *st, int i);
const void *pg_col_blob(dbi_stmt *st, int i);
size_t pg_col_bytes(dbi_stmt *st, int i);
int pg_col_is_null(dbi_stmt *st, int i);
/*
 * The SQL db/ writes, as PostgreSQL reads it (newly allocated): ?N becomes $N, and the markers
 * written as comments for SQLite to skip become what they mark (see db_internal.h); *nparams
 * is the highest N, and bit N-1 of *used is set for each N the SQL names.
 */
char *pg_translate(const char *sql, int *nparams, unsigned long *used);

/* pg_follow.c: db_follow_changes, by LISTEN. */
int pg_follow(db *d, db_changed_fn fn, void *ctx, int timeout_ms, db_error *err);

#endif
