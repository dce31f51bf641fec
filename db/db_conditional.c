/* db_conditional.c - storage of each seat's private tree of conditional moves. */
#include "db.h"
#include "db_internal.h"

int db_conditional_get(db *d, const char *game_id, int seat, char **tree, int *from_ply, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT tree, from_ply FROM conditionals WHERE game_id = ?1 AND seat = ?2", &st, err);

	*tree = NULL;
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	int rc = dbi_step(st);
	if (rc == DBI_ROW) {
		*tree = dbi_col_dup(st, 0);
		*from_ply = dbi_col_int(st, 1);
	} else if (rc == DBI_DONE) {
		r = dbi_fail(err, DB_E_NOTFOUND, "no conditional moves");
	} else {
		r = dbi_sql_fail(d, err, "read conditional moves");
	}
	dbi_finish(d, st);
	return r;
}

int db_conditional_put(db *d, const char *game_id, int seat, int from_ply, const char *tree, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO conditionals (game_id, seat, from_ply, tree) VALUES (?1, ?2, ?3, ?4) "
			    "ON CONFLICT (game_id, seat) DO UPDATE SET from_ply = ?3, tree = ?4", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_int(st, 3, from_ply);
	dbi_bind_text(st, 4, tree);
	return dbi_step_done(d, st, err, "store conditional moves");
}

int db_conditional_delete(db *d, const char *game_id, int seat, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "DELETE FROM conditionals WHERE game_id = ?1 AND (?2 < 0 OR seat = ?2)", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	return dbi_step_done(d, st, err, "clear conditional moves");
}

int db_conditional_seats(db *d, const char *game_id, unsigned *mask, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT seat FROM conditionals WHERE game_id = ?1", &st, err), rc;

	*mask = 0;
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	while ((rc = dbi_step(st)) == DBI_ROW)
		*mask |= 1u << (dbi_col_int(st, 0) & 31);
	if (rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "list conditional moves");
	dbi_finish(d, st);
	return r;
}
