/* db_game_list.c - the lists of games, newest first, a page at a time from a cursor's row. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * One statement per filter, each matching one index of migration 0016 (a
 * partial index needs its "listing IS NOT NULL" in the WHERE). The page's
 * games are chosen first, then joined with their seats: one statement, so
 * one read transaction. Without a cursor, ?3 and ?4 are "~", above any
 * time and id (both are ASCII letters, digits and punctuation below it).
 */
#define LISTED_GAMES(filter) \
	"SELECT g.id, g.variant, g.listing, g.ply, g.result, g.created_at, g.updated_at, s.seat, s.name, s.open " \
	"FROM (SELECT id, variant, listing, ply, result, created_at, updated_at FROM games " \
	"WHERE listing IS NOT NULL" filter " AND (created_at, id) < (?3, ?4) " \
	"ORDER BY created_at DESC, id DESC LIMIT ?5) g JOIN seats s ON s.game_id = g.id " \
	"ORDER BY g.created_at DESC, g.id DESC, s.seat"

static const char *const listed_sql[2][2] = {
	/* [listing given][variant given] */
	{LISTED_GAMES(""), LISTED_GAMES(" AND variant = ?2")},
	{LISTED_GAMES(" AND listing = ?1"), LISTED_GAMES(" AND listing = ?1 AND variant = ?2")},
};

static void listed_game_clear(db_listed_game *g)
{
	free(g->id);
	free(g->variant);
	free(g->listing);
	free(g->result);
	free(g->created_at);
	free(g->updated_at);
	for (int i = 0; i < g->nseats; i++)
		free(g->seats[i].name);
}

void db_listed_games_free(db_listed_game *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		listed_game_clear(&v[i]);
	free(v);
}

int db_games_listed(db *d, const char *listing, const char *variant, const char *before_at, const char *before_id,
		    int limit, db_listed_game **out, size_t *n, db_error *err)
{
	dbi_stmt *st;
	size_t cap = 0;
	int r, rc;

	*out = NULL;
	*n = 0;
	if ((r = dbi_prepare(d, listed_sql[listing != NULL][variant != NULL], &st, err)))
		return r;
	dbi_bind_text(st, 1, listing);
	dbi_bind_text(st, 2, variant);
	dbi_bind_text(st, 3, before_at && before_id ? before_at : "~");
	dbi_bind_text(st, 4, before_at && before_id ? before_id : "~");
	dbi_bind_int(st, 5, limit);
	while ((rc = dbi_step(st)) == DBI_ROW) {
		const char *id = dbi_col_text(st, 0);
		db_listed_game *g = *n ? &(*out)[*n - 1] : NULL;
		/* The rows of one game's seats come together, in seat order. */
		if (!g || strcmp(g->id, id)) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				*out = xrealloc(*out, cap * sizeof **out);
			}
			g = &(*out)[(*n)++];
			memset(g, 0, sizeof *g);
			g->id = dbi_col_dup(st, 0);
			g->variant = dbi_col_dup(st, 1);
			g->listing = dbi_col_dup(st, 2);
			g->ply = dbi_col_int(st, 3);
			g->result = dbi_col_dup(st, 4);
			g->created_at = dbi_col_dup(st, 5);
			g->updated_at = dbi_col_dup(st, 6);
		}
		if (g->nseats < DB_MAX_SEATS) {
			db_listed_seat *s = &g->seats[g->nseats++];
			s->seat = dbi_col_int(st, 7);
			s->name = dbi_col_dup(st, 8);
			s->open = dbi_col_int(st, 9) != 0;
		}
	}
	if (rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "list games");
	dbi_finish(d, st);
	if (r) {
		db_listed_games_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}
