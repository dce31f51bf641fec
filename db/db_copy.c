/* db_copy.c - a whole database copied into an empty one: every table and column as the schema lists them, in one transaction. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a column holds, as the copy reads and writes it. */
enum kind { KIND_INTEGER, KIND_REAL, KIND_TEXT, KIND_BLOB };

struct column {
	char *name;
	enum kind kind;
	int generated;   /* computed by the database: never written */
	int identity;    /* numbered by the database */
};

struct names {
	char **v;
	size_t n;
};

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

static int names_have(const struct names *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i], name))
			return 1;
	return 0;
}

static void columns_free(struct column *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

/* name as SQL writes an identifier, newly allocated: "name", its own quotes doubled. */
static char *quoted(const char *name)
{
	size_t n = strlen(name), o = 0;
	char *q = xmalloc(2 * n + 3);

	q[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '"')
			q[o++] = '"';
		q[o++] = name[i];
	}
	q[o++] = '"';
	q[o] = 0;
	return q;
}

/* The tables of d's schema (the backend's statement), in the order they were made. */
static int list_tables(db *d, struct names *out, db_error *err)
{
	dbi_stmt *st;
	int r, step;

	memset(out, 0, sizeof *out);
	if ((r = dbi_prepare(d, d->be->tables, &st, err)))
		return r;
	while ((step = dbi_step(st)) == DBI_ROW) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->v[out->n++] = dbi_col_dup(st, 0);
	}
	r = step == DBI_DONE ? 0 : dbi_sql_fail(d, err, "list the tables");
	dbi_finish(d, st);
	if (r)
		names_free(out);
	return r;
}

/* The columns of table in d, in order, as its schema describes them. */
static int list_columns(db *d, const char *table, struct column **out, size_t *n, db_error *err)
{
	static const char *const kinds[] = { "integer", "real", "text", "blob" };
	dbi_stmt *st;
	int r, step;

	*out = NULL;
	*n = 0;
	if ((r = dbi_prepare(d, d->be->columns, &st, err)))
		return r;
	dbi_bind_text(st, 1, table);
	while ((step = dbi_step(st)) == DBI_ROW) {
		struct column c = { dbi_col_dup(st, 0), KIND_TEXT, dbi_col_int(st, 2), dbi_col_int(st, 3) };
		const char *kind = dbi_col_text(st, 1);
		for (size_t k = 0; kind && k < sizeof kinds / sizeof kinds[0]; k++)
			if (!strcmp(kind, kinds[k]))
				c.kind = (enum kind)k;
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = c;
	}
	r = step == DBI_DONE ? 0 : dbi_sql_fail(d, err, "list the columns");
	dbi_finish(d, st);
	if (!r && *n == 0)
		r = dbi_fail(err, DB_E_IO, "the table %s has no columns", table);
	if (r) {
		columns_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

/* A query of one number (count, max), or DB_E_NOTFOUND when it answers NULL. */
static int query_number(db *d, const char *sql, long long *v, db_error *err)
{
	dbi_stmt *st;
	int r;

	if ((r = dbi_prepare(d, sql, &st, err)))
		return r;
	if (dbi_step(st) != DBI_ROW)
		r = dbi_sql_fail(d, err, sql);
	else if (dbi_col_is_null(st, 0))
		r = DB_E_NOTFOUND;
	else
		*v = dbi_col_int64(st, 0);
	dbi_finish(d, st);
	return r;
}

static int count_rows(db *d, const char *table, long long *rows, db_error *err)
{
	char *q = quoted(table), *sql = xasprintf("SELECT count(*) FROM %s", q);
	int r = query_number(d, sql, rows, err);

	free(q);
	free(sql);
	return r;
}

/* Bind column i of the source's row as parameter i + 1 of the insert, read as the destination stores it. */
static void bind_value(dbi_stmt *ins, dbi_stmt *sel, int i, enum kind kind)
{
	if (dbi_col_is_null(sel, i)) {
		dbi_bind_null(ins, i + 1);
		return;
	}
	switch (kind) {
	case KIND_INTEGER:
		dbi_bind_int64(ins, i + 1, dbi_col_int64(sel, i));
		break;
	case KIND_BLOB: {
		const void *p = dbi_col_blob(sel, i);
		size_t n = dbi_col_bytes(sel, i);
		dbi_bind_blob(ins, i + 1, n ? p : "", n);
		break;
	}
	default:   /* text, and numbers of other kinds as their text */
		dbi_bind_text(ins, i + 1, dbi_col_text(sel, i));
	}
}

/*
 * The statements that read table from the source and write it into the destination: every
 * column the destination stores, by name (the source answers SQLite's rowid by that name too).
 * Every column the source stores must be among them, else its values would be lost.
 */
static int copy_statements(db *src, const char *table, struct column *dcols, size_t nd, char **select,
			   char **insert, db_error *err)
{
	struct column *scols;
	size_t ns, written = 0;
	char *q = quoted(table), *names = xstrdup(""), *params = xstrdup("");
	int r, identity = 0;

	*select = *insert = NULL;
	if ((r = list_columns(src, table, &scols, &ns, err)))
		goto out;
	for (size_t i = 0; i < ns && !r; i++) {
		int found = 0;
		for (size_t j = 0; j < nd && !found; j++)
			found = !dcols[j].generated && !strcmp(dcols[j].name, scols[i].name);
		if (!found && !scols[i].generated)
			r = dbi_fail(err, DB_E_VERSION, "the destination has no column %s.%s: the schemas differ",
				     table, scols[i].name);
	}
	columns_free(scols, ns);
	for (size_t j = 0; j < nd && !r; j++) {
		char *c, *more;
		if (dcols[j].generated)
			continue;
		c = quoted(dcols[j].name);
		written++;
		more = xasprintf("%s%s%s", names, written > 1 ? ", " : "", c);
		free(names);
		names = more;
		more = xasprintf("%s%s?%zu", params, written > 1 ? ", " : "", written);
		free(params);
		params = more;
		identity |= dcols[j].identity;
		free(c);
	}
	if (!r && !written)
		r = dbi_fail(err, DB_E_VERSION, "the destination's table %s has no column to write", table);
	if (!r) {
		*select = xasprintf("SELECT %s FROM %s", names, q);
		*insert = xasprintf("INSERT INTO %s (%s) %sVALUES (%s)", q, names, identity ? "/*overriding*/ " : "",
				    params);
	}
out:
	free(q);
	free(names);
	free(params);
	return r;
}

/* New rows of dst's identity columns of table are numbered past the copied ones. */
static int identities_past(db *dst, const char *table, const struct column *dcols, size_t nd, db_error *err)
{
	char *q = quoted(table);
	int r = 0;

	for (size_t j = 0; j < nd && !r && dst->be->identity_past; j++) {
		char *c, *sql;
		long long max;
		dbi_stmt *st;

		if (!dcols[j].identity)
			continue;
		c = quoted(dcols[j].name);
		sql = xasprintf("SELECT max(%s) FROM %s", c, q);
		r = query_number(dst, sql, &max, err);
		free(c);
		free(sql);
		if (r == DB_E_NOTFOUND) {   /* no rows: the numbering starts as it would */
			r = 0;
			continue;
		}
		if (r || (r = dbi_prepare(dst, dst->be->identity_past, &st, err)))
			break;
		dbi_bind_text(st, 1, table);
		dbi_bind_text(st, 2, dcols[j].name);
		dbi_bind_int64(st, 3, max);
		if (dbi_step(st) != DBI_ROW)
			r = dbi_sql_fail(dst, err, "number the identity past the copied rows");
		dbi_finish(dst, st);
	}
	free(q);
	return r;
}

/* Copy every row of table from src to dst; *copied: how many. */
static int copy_table(db *src, db *dst, const char *table, long long *copied, db_error *err)
{
	struct column *dcols;
	size_t nd;
	char *select = NULL, *insert = NULL;
	dbi_stmt *sel = NULL, *ins = NULL;
	int r, step;

	*copied = 0;
	if ((r = list_columns(dst, table, &dcols, &nd, err)))
		return r;
	if ((r = copy_statements(src, table, dcols, nd, &select, &insert, err)))
		goto out;
	if ((r = dbi_prepare(src, select, &sel, err)) || (r = dbi_prepare(dst, insert, &ins, err)))
		goto out;
	while ((step = dbi_step(sel)) == DBI_ROW) {
		int col = 0;
		for (size_t j = 0; j < nd; j++)
			if (!dcols[j].generated)
				bind_value(ins, sel, col++, dcols[j].kind);
		if (dbi_step(ins) != DBI_DONE) {
			r = dbi_sql_fail(dst, err, table);
			goto out;
		}
		dbi_reset(ins);
		(*copied)++;
	}
	if (step != DBI_DONE) {
		r = dbi_sql_fail(src, err, table);
		goto out;
	}
	r = identities_past(dst, table, dcols, nd, err);
out:
	if (sel)
		dbi_finish(src, sel);
	if (ins)
		dbi_finish(dst, ins);
	free(select);
	free(insert);
	columns_free(dcols, nd);
	return r;
}

/*
 * The version triggers (migration 0012) moved each copied game's version on as its seats,
 * moves, actions, clocks and messages went in after it: each game gets its source's version
 * back. An UPDATE that sets another version is not moved on by them; one that would set the
 * version the game already has is not made.
 */
static int restore_versions(db *src, db *dst, db_error *err)
{
	dbi_stmt *sel, *upd;
	int r, step;

	if ((r = dbi_prepare(src, "SELECT id, version FROM games", &sel, err)))
		return r;
	if ((r = dbi_prepare(dst, "UPDATE games SET version = ?2 WHERE id = ?1 AND version <> ?2", &upd, err))) {
		dbi_finish(src, sel);
		return r;
	}
	while ((step = dbi_step(sel)) == DBI_ROW) {
		dbi_bind_text(upd, 1, dbi_col_text(sel, 0));
		dbi_bind_int64(upd, 2, dbi_col_int64(sel, 1));
		if (dbi_step(upd) != DBI_DONE) {
			r = dbi_sql_fail(dst, err, "restore the games' versions");
			break;
		}
		dbi_reset(upd);
	}
	if (!r && step != DBI_DONE)
		r = dbi_sql_fail(src, err, "read the games' versions");
	dbi_finish(src, sel);
	dbi_finish(dst, upd);
	return r;
}

int db_copy_source(const char *path, db **out, db_error *err)
{
	int r = dbi_backend_for(path)->open(path, DBI_OPEN_READER, out, err);
	int have, want = db_schema_version_supported();

	if (r)
		return r;
	have = db_schema_version(*out);
	if (have < 0)
		r = dbi_sql_fail(*out, err, "read the schema version");
	else if (have > want)
		r = dbi_fail(err, DB_E_VERSION, "its schema version is %d, newer than this rookery's %d: "
			     "copy it with a newer rookery", have, want);
	else if (have < want)
		r = dbi_fail(err, DB_E_VERSION, "its schema version is %d, older than this rookery's %d: "
			     "migrate it first (rookery migrate --db)", have, want);
	if (!r)
		r = db_read_begin(*out, err);
	if (r) {
		db_close(*out);
		*out = NULL;
	}
	return r;
}

/* Refuse a destination any of whose tables holds a row. */
static int check_empty(db *d, db_error *err)
{
	struct names tables;
	int r = list_tables(d, &tables, err);

	for (size_t i = 0; !r && i < tables.n; i++) {
		char *q = quoted(tables.v[i]), *sql = xasprintf("SELECT count(*) FROM (SELECT 1 FROM %s LIMIT 1) t", q);
		long long any = 0;
		if (!(r = query_number(d, sql, &any, err)) && any)
			r = dbi_fail(err, DB_E_CONFLICT, "it is not empty: the table %s holds rows", tables.v[i]);
		free(q);
		free(sql);
	}
	names_free(&tables);
	return r;
}

int db_copy_destination(const char *target, db **out, db_error *err)
{
	int r = dbi_backend_for(target)->open(target, DBI_OPEN_WRITER, out, err);
	int have;

	if (r)
		return r;
	if ((r = db_hold(*out, DBI_MIGRATIONS_HOLD, err))) {
		db_close(*out);
		*out = NULL;
		return r;
	}
	r = dbi_exec(*out, (*out)->be->begin_write, err);
	if (!r && (have = db_schema_version(*out)) > db_schema_version_supported())
		r = dbi_fail(err, DB_E_VERSION, "its schema version is %d, newer than this rookery's %d",
			     have, db_schema_version_supported());
	if (!r)
		r = check_empty(*out, err);
	if (!r)
		r = dbi_migrate_within(*out, err);
	if (r) {
		db_copy_end(*out, 0, NULL);
		*out = NULL;
	}
	return r;
}

int db_copy_tables(db *src, db *dst, db_copied **out, size_t *n, db_error *err)
{
	struct names from, to;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = list_tables(src, &from, err)))
		return r;
	if ((r = list_tables(dst, &to, err))) {
		names_free(&from);
		return r;
	}
	for (size_t i = 0; !r && i < from.n; i++)
		if (!names_have(&to, from.v[i]))
			r = dbi_fail(err, DB_E_VERSION, "the destination has no table %s: the schemas differ", from.v[i]);
	for (size_t i = 0; !r && i < to.n; i++)
		if (!names_have(&from, to.v[i]))
			r = dbi_fail(err, DB_E_VERSION, "the source has no table %s: the schemas differ", to.v[i]);
	/* In the order the source made them: a table comes after those it refers to. */
	for (size_t i = 0; !r && i < from.n; i++) {
		db_copied c = { xstrdup(from.v[i]), 0, 0, 0 };
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = c;
		r = copy_table(src, dst, c.table, &(*out)[*n - 1].copied, err);
	}
	if (!r)
		r = restore_versions(src, dst, err);
	for (size_t i = 0; !r && i < *n; i++) {
		if (!(r = count_rows(src, (*out)[i].table, &(*out)[i].source_rows, err)))
			r = count_rows(dst, (*out)[i].table, &(*out)[i].dest_rows, err);
	}
	names_free(&from);
	names_free(&to);
	if (r) {
		db_copied_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

void db_copied_free(db_copied *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].table);
	free(v);
}

int db_copy_end(db *dst, int keep, db_error *err)
{
	int r = 0;

	if (keep)
		r = dbi_exec(dst, "COMMIT", err);
	if (db_in_transaction(dst))
		dbi_exec(dst, "ROLLBACK", NULL);
	db_hold_end(dst, DBI_MIGRATIONS_HOLD);
	db_close(dst);
	return r;
}

int db_game_ids(db *d, char ***ids, size_t *n, db_error *err)
{
	struct names found = { NULL, 0 };
	dbi_stmt *st;
	int r, step;

	*ids = NULL;
	*n = 0;
	if ((r = dbi_prepare(d, "SELECT id FROM games ORDER BY id", &st, err)))
		return r;
	while ((step = dbi_step(st)) == DBI_ROW) {
		found.v = xrealloc(found.v, (found.n + 1) * sizeof *found.v);
		found.v[found.n++] = dbi_col_dup(st, 0);
	}
	r = step == DBI_DONE ? 0 : dbi_sql_fail(d, err, "list the games");
	dbi_finish(d, st);
	if (r) {
		names_free(&found);
		return r;
	}
	*ids = found.v;
	*n = found.n;
	return 0;
}

void db_game_ids_free(char **ids, size_t n)
{
	struct names t = { ids, n };

	names_free(&t);
}
