/* db_vacation.c - storage of players' vacations and the standing still of their clocks. */
#include "db.h"
#include "db_internal.h"

/* The player of a seat row s (vacation.h says the same in C): its address in lower case, or the seat itself. */
#define PLAYER_OF_SEAT "CASE WHEN s.email IS NOT NULL AND s.email <> '' THEN lower(s.email) " \
	"ELSE '#' || s.game_id || '/' || s.seat END"

int db_vacation_add(db *d, const char *player, long long start, long long end, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO vacations (player, start_at, end_at) VALUES (?1, ?2, ?3)", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, player);
	dbi_bind_int64(st, 2, start);
	dbi_bind_int64(st, 3, end);
	return dbi_step_done(d, st, err, "store a vacation");
}

int db_vacations_list(db *d, const char *player, long long since, db_vacation *out, int max, int *n,
		      db_error *err)
{
	dbi_stmt *st;
	int r, rc = DBI_DONE;

	*n = 0;
	if ((r = dbi_prepare(d, "SELECT id, start_at, end_at FROM vacations WHERE player = ?1 AND end_at > ?2 "
			     "ORDER BY start_at LIMIT ?3", &st, err)))
		return r;
	dbi_bind_text(st, 1, player);
	dbi_bind_int64(st, 2, since);
	dbi_bind_int(st, 3, max);
	while (*n < max && (rc = dbi_step(st)) == DBI_ROW) {
		out[*n].id = dbi_col_int64(st, 0);
		out[*n].start_at = dbi_col_int64(st, 1);
		out[*n].end_at = dbi_col_int64(st, 2);
		(*n)++;
	}
	if (*n < max && rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "list vacations");
	dbi_finish(d, st);
	return r;
}

int db_vacation_set_end(db *d, long long id, long long end, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, end ? "UPDATE vacations SET end_at = ?2 WHERE id = ?1" : "DELETE FROM vacations WHERE id = ?1",
			    &st, err);

	if (r)
		return r;
	dbi_bind_int64(st, 1, id);
	if (end)
		dbi_bind_int64(st, 2, end);
	return dbi_step_done(d, st, err, "end a vacation");
}

int db_vacations_pause(db *d, long long now, int *count, db_error *err)
{
	dbi_stmt *st;
	/*
	 * A running clock stands still from the vacation's start (or its own, if later) to its end:
	 * its deadline and start move on by that. SET reads the row as it was, so running_since
	 * in the deadline's expression is the old one.
	 */
	int r = dbi_prepare(d, "UPDATE seat_clocks AS c SET "
			    "running_since = CASE WHEN c.deadline > p.start_at "
			    "THEN c.running_since + p.end_at - greatest(p.start_at, c.running_since) ELSE c.running_since END, "
			    "deadline = CASE WHEN c.deadline > p.start_at "
			    "THEN c.deadline + p.end_at - greatest(p.start_at, c.running_since) ELSE c.deadline END, "
			    "paused_until = p.end_at "
			    "FROM (SELECT v.start_at, v.end_at, s.game_id, s.seat FROM vacations v "
			    "JOIN seats s ON " PLAYER_OF_SEAT " = v.player JOIN games g ON g.id = s.game_id "
			    "WHERE v.start_at <= ?1 AND v.end_at > ?1 AND g.status = 'running') AS p "
			    "WHERE c.game_id = p.game_id AND c.seat = p.seat "
			    "AND (c.paused_until IS NULL OR c.paused_until < p.end_at)", &st, err);

	*count = 0;
	if (r)
		return r;
	dbi_bind_int64(st, 1, now);
	if ((r = dbi_step_done(d, st, err, "stop the clocks of vacations")) == 0)
		*count = dbi_changes(d);
	return r;
}

int db_vacation_unpause(db *d, const char *player, long long now, db_error *err)
{
	dbi_stmt *st;
	/* The clocks run again from now: what the vacation had added beyond now is taken back. */
	int r = dbi_prepare(d, "UPDATE seat_clocks SET deadline = deadline - (paused_until - ?2), "
			    "running_since = running_since - (paused_until - ?2), paused_until = NULL "
			    "WHERE paused_until > ?2 AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = seat_clocks.game_id "
			    "AND s.seat = seat_clocks.seat AND " PLAYER_OF_SEAT " = ?1)", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, player);
	dbi_bind_int64(st, 2, now);
	return dbi_step_done(d, st, err, "restart the clocks after a vacation");
}

int db_vacations_outage(db *d, long long last, long long now, db_error *err)
{
	dbi_stmt *st;
	/* The part of the outage before a vacation's end was not charged anyway: the vacation had moved the deadline. */
	int r = dbi_prepare(d, "UPDATE seat_clocks SET deadline = deadline - least(?2 - ?1, paused_until - ?1), "
			    "running_since = running_since - least(?2 - ?1, paused_until - ?1) "
			    "WHERE deadline IS NOT NULL AND paused_until > ?1", &st, err);

	if (r)
		return r;
	dbi_bind_int64(st, 1, last);
	dbi_bind_int64(st, 2, now);
	return dbi_step_done(d, st, err, "take back an outage's time within vacations");
}
