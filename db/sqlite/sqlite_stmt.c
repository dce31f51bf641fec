/* sqlite_stmt.c - the statement API over SQLite, with each connection's cache of prepared statements. */
#include "sqlite_db.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *raw(dbi_stmt *st)
{
	return ((struct sqlite_stmt *)st)->st;
}

int sqlite_prepare(db *d, const char *sql, dbi_stmt **out, db_error *err)
{
	struct sqlite_db *s = sqlite_of(d);
	struct sqlite_stmt *free_slot = NULL, *w;
	sqlite3_stmt *st;

	for (int i = 0; i < SQLITE_CACHE_SLOTS; i++) {
		struct sqlite_stmt *c = &s->cache[i];
		if (!c->st) {
			if (!free_slot)
				free_slot = c;
		} else if (!c->lent && strcmp(c->sql, sql) == 0) {
			c->lent = 1;
			*out = &c->base;
			return 0;
		}
	}
	if (sqlite3_prepare_v3(s->conn, sql, -1, free_slot ? SQLITE_PREPARE_PERSISTENT : 0, &st, NULL) !=
	    SQLITE_OK)
		return dbi_sql_fail(d, err, "prepare");
	if (free_slot) {
		w = free_slot;
		/* Keyed by SQLite's own copy of the text, which lives as long as the statement. */
		w->sql = sqlite3_sql(st);
		w->lent = 1;
		w->cached = 1;
	} else {
		w = xcalloc(1, sizeof *w);
	}
	w->base.be = &dbi_sqlite;
	w->st = st;
	*out = &w->base;
	return 0;
}

void sqlite_finish(db *d, dbi_stmt *st)
{
	struct sqlite_stmt *w = (struct sqlite_stmt *)st;

	(void)d;
	if (w->cached) {
		sqlite3_reset(w->st);
		sqlite3_clear_bindings(w->st);
		w->lent = 0;
		return;
	}
	sqlite3_finalize(w->st);
	free(w);
}

void sqlite_cache_clear(struct sqlite_db *s)
{
	for (int i = 0; i < SQLITE_CACHE_SLOTS; i++) {
		sqlite3_finalize(s->cache[i].st);
		memset(&s->cache[i], 0, sizeof s->cache[i]);
	}
}

int sqlite_step(dbi_stmt *st)
{
	switch (sqlite3_step(raw(st))) {
	case SQLITE_ROW:
		return DBI_ROW;
	case SQLITE_DONE:
		return DBI_DONE;
	default:
		return DBI_ERROR;
	}
}

void sqlite_reset(dbi_stmt *st)
{
	sqlite3_reset(raw(st));
}

void sqlite_bind_int64(dbi_stmt *st, int i, long long v)
{
	sqlite3_bind_int64(raw(st), i, v);
}

void sqlite_bind_text(dbi_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(raw(st), i, s, -1, SQLITE_TRANSIENT);
}

void sqlite_bind_blob(dbi_stmt *st, int i, const void *p, size_t n)
{
	sqlite3_bind_blob(raw(st), i, p, (int)n, SQLITE_TRANSIENT);
}

void sqlite_bind_null(dbi_stmt *st, int i)
{
	sqlite3_bind_null(raw(st), i);
}

long long sqlite_col_int64(dbi_stmt *st, int i)
{
	return sqlite3_column_int64(raw(st), i);
}

double sqlite_col_double(dbi_stmt *st, int i)
{
	return sqlite3_column_double(raw(st), i);
}

const char *sqlite_col_text(dbi_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(raw(st), i);
}

const void *sqlite_col_blob(dbi_stmt *st, int i)
{
	return sqlite3_column_blob(raw(st), i);
}

size_t sqlite_col_bytes(dbi_stmt *st, int i)
{
	return (size_t)sqlite3_column_bytes(raw(st), i);
}

int sqlite_col_is_null(dbi_stmt *st, int i)
{
	return sqlite3_column_type(raw(st), i) == SQLITE_NULL;
}
