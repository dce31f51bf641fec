/* sqlite_changes.c - which games a connection's writes touched, for whoever follows them live: SQLite's update hook. */
#include "sqlite_db.h"
#include "xalloc.h"

#include <string.h>

/*
 * The update hook sees every row written, triggers' writes included; the
 * version triggers (migration 0012) update the game's row for every change
 * to what a view shows, so a write to a game's row is the sign to follow.
 * It may name a game whose change was then rolled back: the caller compares
 * versions.
 */
static void on_update(void *arg, int op, const char *dbname, const char *table, sqlite3_int64 rowid)
{
	struct sqlite_db *d = arg;
	(void)op;
	(void)dbname;

	if (strcmp(table, "games") != 0)
		return;
	for (size_t i = 0; i < d->nchanged; i++)
		if (d->changed[i] == rowid)
			return;
	if (d->nchanged == d->changed_cap) {
		d->changed_cap = d->changed_cap ? 2 * d->changed_cap : 16;
		d->changed = xrealloc(d->changed, d->changed_cap * sizeof *d->changed);
	}
	d->changed[d->nchanged++] = rowid;
}

/*
 * SQLite calls the commit hook inside COMMIT (and at the end of a statement
 * outside a transaction) before anything of the transaction reaches the
 * WAL: no reader can see the commit yet. Any noted game may be in it.
 */
static int on_commit(void *arg)
{
	struct sqlite_db *d = arg;

	if (d->nchanged && d->committing)
		d->committing(d->committing_ctx);
	return 0;   /* 0: the commit goes on */
}

void sqlite_watch_changes(db *d, db_committing_fn committing, void *ctx)
{
	struct sqlite_db *s = sqlite_of(d);

	s->committing = committing;
	s->committing_ctx = ctx;
	sqlite3_update_hook(s->conn, on_update, s);
	sqlite3_commit_hook(s->conn, on_commit, s);
}

int sqlite_changed_games(db *d, db_changed_fn fn, void *ctx, db_error *err)
{
	struct sqlite_db *s = sqlite_of(d);
	dbi_stmt *st;
	int r = 0;

	if (s->nchanged == 0)
		return 0;
	r = dbi_prepare(d, "SELECT id, version FROM games WHERE rowid = ?1", &st, err);
	for (size_t i = 0; !r && i < s->nchanged; i++) {
		dbi_bind_int64(st, 1, s->changed[i]);
		if (dbi_step(st) == DBI_ROW)
			fn(ctx, dbi_col_text(st, 0), dbi_col_int64(st, 1));
		dbi_reset(st);
	}
	if (!r)
		dbi_finish(d, st);
	s->nchanged = 0;
	return r;
}
