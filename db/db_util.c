/* db_util.c - the statement API the storage files speak, handed to the connection's backend; errors. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>

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
	return d->be->sql_fail(d, err, what);
}

int dbi_exec(db *d, const char *sql, db_error *err)
{
	return d->be->exec(d, sql, err);
}

int dbi_prepare(db *d, const char *sql, dbi_stmt **st, db_error *err)
{
	return d->be->prepare(d, sql, st, err);
}

void dbi_finish(db *d, dbi_stmt *st)
{
	d->be->finish(d, st);
}

int dbi_step(dbi_stmt *st)
{
	return st->be->step(st);
}

void dbi_reset(dbi_stmt *st)
{
	st->be->reset(st);
}

int dbi_step_done(db *d, dbi_stmt *st, db_error *err, const char *what)
{
	int r = 0;

	if (dbi_step(st) != DBI_DONE)
		r = dbi_sql_fail(d, err, what);
	dbi_finish(d, st);
	return r;
}

long long dbi_changes(db *d)
{
	return d->be->changes(d);
}

void dbi_bind_int(dbi_stmt *st, int i, int v)
{
	st->be->bind_int64(st, i, v);
}

void dbi_bind_int64(dbi_stmt *st, int i, long long v)
{
	st->be->bind_int64(st, i, v);
}

void dbi_bind_text(dbi_stmt *st, int i, const char *s)
{
	if (s)
		st->be->bind_text(st, i, s);
	else
		st->be->bind_null(st, i);
}

void dbi_bind_blob(dbi_stmt *st, int i, const void *p, size_t n)
{
	st->be->bind_blob(st, i, p, n);
}

void dbi_bind_null(dbi_stmt *st, int i)
{
	st->be->bind_null(st, i);
}

int dbi_col_int(dbi_stmt *st, int i)
{
	return (int)st->be->col_int64(st, i);
}

long long dbi_col_int64(dbi_stmt *st, int i)
{
	return st->be->col_int64(st, i);
}

double dbi_col_double(dbi_stmt *st, int i)
{
	return st->be->col_double(st, i);
}

const char *dbi_col_text(dbi_stmt *st, int i)
{
	return st->be->col_text(st, i);
}

char *dbi_col_dup(dbi_stmt *st, int i)
{
	const char *t = st->be->col_text(st, i);
	return t ? xstrdup(t) : NULL;
}

const void *dbi_col_blob(dbi_stmt *st, int i)
{
	return st->be->col_blob(st, i);
}

size_t dbi_col_bytes(dbi_stmt *st, int i)
{
	return st->be->col_bytes(st, i);
}

int dbi_col_is_null(dbi_stmt *st, int i)
{
	return st->be->col_is_null(st, i);
}
