/* pg_stmt.c - the statement API over PostgreSQL: SQL translated once, prepared once per connection, run at the first step. */
#include "pg_db.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * What db/'s SQL marks with a comment, which SQLite skips: a comment stands where
 * PostgreSQL needs words SQLite has no use for (one writer at a time needs no row locks).
 */
static const struct {
	const char *marker;
	const char *words;
} markers[] = {
	{ "/*skip_locked*/", "FOR UPDATE SKIP LOCKED" },
	/* An INSERT that writes the numbers of an identity column GENERATED ALWAYS (a copy's). */
	{ "/*overriding*/", "OVERRIDING SYSTEM VALUE" },
};

char *pg_translate(const char *sql, int *nparams, unsigned long *used)
{
	size_t n = strlen(sql), cap = n * 2 + 64, o = 0;
	char *out = xmalloc(cap);
	char quote = 0;

	*nparams = 0;
	*used = 0;
	for (size_t i = 0; i < n;) {
		char c = sql[i];
		int matched = 0;

		if (quote) {
			out[o++] = c;
			if (c == quote)
				quote = 0;
			i++;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			out[o++] = c;
			i++;
			continue;
		}
		if (c == '?' && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
			int v = 0;
			out[o++] = '$';
			for (i++; sql[i] >= '0' && sql[i] <= '9'; i++) {
				v = v * 10 + (sql[i] - '0');
				out[o++] = sql[i];
			}
			if (v > *nparams)
				*nparams = v;
			if (v >= 1 && v <= PG_MAX_PARAMS)
				*used |= 1ul << (v - 1);
			continue;
		}
		for (size_t m = 0; m < sizeof markers / sizeof markers[0]; m++) {
			size_t ml = strlen(markers[m].marker), wl = strlen(markers[m].words);
			if (strncmp(sql + i, markers[m].marker, ml) == 0) {
				if (o + wl + 1 > cap)
					out = xrealloc(out, cap = cap + wl + 64);
				memcpy(out + o, markers[m].words, wl);
				o += wl;
				i += ml;
				matched = 1;
				break;
			}
		}
		if (!matched)
			out[o++] = sql[i++];
		if (o + 16 > cap)
			out = xrealloc(out, cap *= 2);
	}
	out[o] = 0;
	return out;
}

#define TEXT_OID 25   /* pg_type.oid of text */

static int in_transaction(struct pg_db *p)
{
	PGTransactionStatusType t = PQtransactionStatus(p->conn);

	return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

static PGresult *run(struct pg_stmt *s)
{
	return PQexecPrepared(s->db->conn, s->prep->name, s->prep->nparams, (const char *const *)s->values,
			      s->lengths, s->formats, 0);
}

/* Prepare w on the server (again, after a reconnection): 0, or -1 with the error noted. */
static int server_prepare(struct pg_db *p, struct pg_prepared *w)
{
	Oid types[PG_MAX_PARAMS];
	PGresult *res;
	int ok;

	/*
	 * PostgreSQL infers each parameter's type from where the SQL uses it; one that a variant of a
	 * query leaves out (the filters of a list) is bound all the same, and declared text.
	 */
	for (int i = 0; i < w->nparams; i++)
		types[i] = w->used & (1ul << i) ? 0 : TEXT_OID;
	res = PQprepare(p->conn, w->name, w->text, w->nparams, types);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		pg_note_error(p, res);
	PQclear(res);
	w->ready = ok;
	return ok ? 0 : -1;
}

/* The connection's prepared statement for sql, translated the first time; prepared when used. */
static struct pg_prepared *prepared_for(struct pg_db *p, const char *sql, db_error *err)
{
	struct pg_prepared *w;

	for (w = p->prepared; w; w = w->next)
		if (strcmp(w->sql, sql) == 0)
			return w;
	w = xcalloc(1, sizeof *w);
	w->text = pg_translate(sql, &w->nparams, &w->used);
	if (w->nparams > PG_MAX_PARAMS) {
		dbi_fail(err, DB_E_IO, "prepare: %d parameters, more than %d", w->nparams, PG_MAX_PARAMS);
		free(w->text);
		free(w);
		return NULL;
	}
	snprintf(w->name, sizeof w->name, "r%d", p->nprepared++);
	w->sql = xstrdup(sql);
	w->next = p->prepared;
	p->prepared = w;
	return w;
}

void pg_prepared_clear(struct pg_db *p, int forget)
{
	if (!forget) {
		for (struct pg_prepared *w = p->prepared; w; w = w->next)
			w->ready = 0;
		return;
	}
	while (p->prepared) {
		struct pg_prepared *w = p->prepared;
		p->prepared = w->next;
		free(w->sql);
		free(w->text);
		free(w);
	}
	p->nprepared = 0;
}

int pg_prepare(db *d, const char *sql, dbi_stmt **out, db_error *err)
{
	struct pg_db *p = pg_of(d);
	struct pg_prepared *prep = prepared_for(p, sql, err);
	struct pg_stmt *s;

	*out = NULL;
	if (!prep)
		return err ? err->code : DB_E_IO;
	/*
	 * Between transactions a connection the server dropped is made again (libpq may learn of
	 * the loss only at the first use: then once more), and a statement is prepared on it.
	 */
	if (!in_transaction(p) && pg_usable(p))
		return dbi_sql_fail(d, err, "prepare");
	if (!prep->ready && server_prepare(p, prep) &&
	    (in_transaction(p) || PQstatus(p->conn) != CONNECTION_BAD || pg_usable(p) || server_prepare(p, prep)))
		return dbi_sql_fail(d, err, "prepare");
	s = xcalloc(1, sizeof *s);
	s->base.be = d->be;
	s->db = p;
	s->prep = prep;
	s->row = -1;
	s->blob_col = -1;
	*out = &s->base;
	return 0;
}

static struct pg_stmt *stmt_of(dbi_stmt *st)
{
	return (struct pg_stmt *)st;
}

static void drop_rows(struct pg_stmt *s)
{
	PQclear(s->res);
	s->res = NULL;
	s->row = -1;
	PQfreemem(s->blob);
	s->blob = NULL;
	s->blob_col = -1;
}

static void unbind(struct pg_stmt *s)
{
	for (int i = 0; i < PG_MAX_PARAMS; i++) {
		free(s->values[i]);
		s->values[i] = NULL;
		s->lengths[i] = 0;
		s->formats[i] = 0;
	}
}

void pg_finish(db *d, dbi_stmt *st)
{
	struct pg_stmt *s = stmt_of(st);

	(void)d;
	if (!s)
		return;
	drop_rows(s);
	unbind(s);
	free(s);
}

/* The first step runs the statement and keeps every row; each step then moves to the next. */
int pg_step(dbi_stmt *st)
{
	struct pg_stmt *s = stmt_of(st);

	PQfreemem(s->blob);
	s->blob = NULL;
	s->blob_col = -1;
	if (!s->res) {
		struct pg_db *p = s->db;
		int between = !in_transaction(p);
		ExecStatusType status;

		s->res = run(s);
		status = PQresultStatus(s->res);
		/*
		 * The server dropped the connection (a restart, a failover): a statement that began no
		 * transaction's work (BEGIN, or one on its own) is run once more on a new connection.
		 */
		if (status == PGRES_FATAL_ERROR && between && PQstatus(p->conn) == CONNECTION_BAD &&
		    pg_usable(p) == 0 && server_prepare(p, s->prep) == 0) {
			PQclear(s->res);
			s->res = run(s);
			status = PQresultStatus(s->res);
		}
		if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
			pg_note_error(p, s->res);
			drop_rows(s);
			return DBI_ERROR;
		}
		p->changes = atoll(PQcmdTuples(s->res));
	}
	if (s->row + 1 < PQntuples(s->res)) {
		s->row++;
		return DBI_ROW;
	}
	s->row = PQntuples(s->res);
	return DBI_DONE;
}

void pg_reset(dbi_stmt *st)
{
	drop_rows(stmt_of(st));
}

static void bind(struct pg_stmt *s, int i, char *value, int length, int format)
{
	if (i < 1 || i > PG_MAX_PARAMS) {
		free(value);
		return;
	}
	drop_rows(s);   /* new parameters: the next step runs the statement again */
	free(s->values[i - 1]);
	s->values[i - 1] = value;
	s->lengths[i - 1] = length;
	s->formats[i - 1] = format;
}

void pg_bind_int64(dbi_stmt *st, int i, long long v)
{
	char *text = xmalloc(24);

	snprintf(text, 24, "%lld", v);
	bind(stmt_of(st), i, text, 0, 0);
}

void pg_bind_text(dbi_stmt *st, int i, const char *s)
{
	bind(stmt_of(st), i, xstrdup(s), 0, 0);
}

void pg_bind_blob(dbi_stmt *st, int i, const void *p, size_t n)
{
	char *bytes = xmalloc(n ? n : 1);

	if (n)
		memcpy(bytes, p, n);
	bind(stmt_of(st), i, bytes, (int)n, 1);
}

void pg_bind_null(dbi_stmt *st, int i)
{
	bind(stmt_of(st), i, NULL, 0, 0);
}

static int has_row(struct pg_stmt *s, int i)
{
	return s->res && s->row >= 0 && s->row < PQntuples(s->res) && i >= 0 && i < PQnfields(s->res);
}

const char *pg_col_text(dbi_stmt *st, int i)
{
	struct pg_stmt *s = stmt_of(st);

	if (!has_row(s, i) || PQgetisnull(s->res, s->row, i))
		return NULL;
	return PQgetvalue(s->res, s->row, i);
}

/* Numbers come as text; a boolean (a comparison in a SELECT list) as t or f. */
long long pg_col_int64(dbi_stmt *st, int i)
{
	const char *t = pg_col_text(st, i);

	if (!t)
		return 0;
	if (t[0] == 't' && !t[1])
		return 1;
	return strtoll(t, NULL, 10);
}

double pg_col_double(dbi_stmt *st, int i)
{
	const char *t = pg_col_text(st, i);

	return t ? strtod(t, NULL) : 0.0;
}

#define BYTEA_OID 17   /* pg_type.oid of bytea, fixed since the catalogue began */

/* A bytea arrives as text (\x and hex digits): its bytes are decoded on demand and kept for the row. */
static int is_bytea(struct pg_stmt *s, int i)
{
	return has_row(s, i) && PQftype(s->res, i) == BYTEA_OID;
}

static void decode_blob(struct pg_stmt *s, int i)
{
	const char *t;

	if (s->blob_col == i)
		return;
	PQfreemem(s->blob);
	s->blob = NULL;
	s->blob_len = 0;
	s->blob_col = i;
	if ((t = pg_col_text(&s->base, i)))
		s->blob = PQunescapeBytea((const unsigned char *)t, &s->blob_len);
}

const void *pg_col_blob(dbi_stmt *st, int i)
{
	struct pg_stmt *s = stmt_of(st);

	if (!is_bytea(s, i))
		return pg_col_text(st, i);
	decode_blob(s, i);
	return s->blob;
}

size_t pg_col_bytes(dbi_stmt *st, int i)
{
	struct pg_stmt *s = stmt_of(st);

	if (!is_bytea(s, i))
		return pg_col_is_null(st, i) ? 0 : (size_t)PQgetlength(s->res, s->row, i);
	decode_blob(s, i);
	return s->blob_len;
}

int pg_col_is_null(dbi_stmt *st, int i)
{
	struct pg_stmt *s = stmt_of(st);

	return !has_row(s, i) || PQgetisnull(s->res, s->row, i);
}
