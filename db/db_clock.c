/* db_clock.c - storage of correspondence clocks: a game's time control and its seats' clocks. */
#include "db.h"
#include "db_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {"", "per_move", "bank"};

static void bind_time(dbi_stmt *st, int i, long long t)
{
	if (t)
		dbi_bind_int64(st, i, t);
	else
		dbi_bind_null(st, i);
}

/* Insert or replace one seat's clock. */
static int put_seat(db *d, const char *game_id, int seat, const db_seat_clock *c, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO seat_clocks (game_id, seat, remaining_s, running_since, "
			    "deadline, reminded, paused_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
			    "ON CONFLICT (game_id, seat) DO UPDATE SET remaining_s = excluded.remaining_s, "
			    "running_since = excluded.running_since, deadline = excluded.deadline, "
			    "reminded = excluded.reminded, paused_until = excluded.paused_until", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_int64(st, 3, c->remaining_s);
	bind_time(st, 4, c->running_since);
	bind_time(st, 5, c->deadline);
	dbi_bind_int(st, 6, c->reminded);
	bind_time(st, 7, c->paused_until);
	return dbi_step_done(d, st, err, "store a seat's clock");
}

int db_clock_insert(db *d, const char *game_id, const db_clock *c, db_error *err)
{
	dbi_stmt *st;
	int r;

	if (c->type != DB_CLOCK_PER_MOVE && c->type != DB_CLOCK_BANK)
		return dbi_fail(err, DB_E_IO, "no such clock type");
	if ((r = dbi_prepare(d, "INSERT INTO game_clocks (game_id, type, base_s, increment_s, max_s) "
			     "VALUES (?1, ?2, ?3, ?4, ?5)", &st, err)))
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_text(st, 2, type_names[c->type]);
	dbi_bind_int64(st, 3, c->base_s);
	dbi_bind_int64(st, 4, c->increment_s);
	dbi_bind_int64(st, 5, c->max_s);
	if ((r = dbi_step_done(d, st, err, "store a time control")))
		return r;
	return db_clock_save(d, game_id, c, err);
}

int db_clock_save(db *d, const char *game_id, const db_clock *c, db_error *err)
{
	int r = 0;

	for (int i = 0; !r && i < c->nseats; i++)
		r = put_seat(d, game_id, i, &c->seats[i], err);
	return r;
}

int db_clock_load(db *d, const char *game_id, db_clock *out, db_error *err)
{
	dbi_stmt *st;
	int r, rc;

	memset(out, 0, sizeof *out);
	if ((r = dbi_prepare(d, "SELECT type, base_s, increment_s, max_s FROM game_clocks WHERE game_id = ?1",
			     &st, err)))
		return r;
	dbi_bind_text(st, 1, game_id);
	if ((rc = dbi_step(st)) == DBI_ROW) {
		const char *type = dbi_col_text(st, 0);
		out->type = type && !strcmp(type, "bank") ? DB_CLOCK_BANK : DB_CLOCK_PER_MOVE;
		out->base_s = dbi_col_int64(st, 1);
		out->increment_s = dbi_col_int64(st, 2);
		out->max_s = dbi_col_int64(st, 3);
	} else {
		r = rc == DBI_DONE ? dbi_fail(err, DB_E_NOTFOUND, "no clock") : dbi_sql_fail(d, err, "load a clock");
	}
	dbi_finish(d, st);
	if (r)
		return r;
	if ((r = dbi_prepare(d, "SELECT seat, remaining_s, running_since, deadline, reminded, paused_until "
			     "FROM seat_clocks WHERE game_id = ?1 ORDER BY seat", &st, err)))
		return r;
	dbi_bind_text(st, 1, game_id);
	while ((rc = dbi_step(st)) == DBI_ROW) {
		int seat = dbi_col_int(st, 0);
		if (seat < 0 || seat >= DB_MAX_SEATS)
			continue;
		db_seat_clock *s = &out->seats[seat];
		s->remaining_s = dbi_col_int64(st, 1);
		s->running_since = dbi_col_int64(st, 2);
		s->deadline = dbi_col_int64(st, 3);
		s->reminded = dbi_col_int(st, 4);
		s->paused_until = dbi_col_int64(st, 5);
		if (seat + 1 > out->nseats)
			out->nseats = seat + 1;
	}
	if (rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "load the seats' clocks");
	dbi_finish(d, st);
	return r;
}

/* Run a query of (game_id, seat) rows with ?1 = now and ?2 = max into out. */
/* The seats sql lists (?1 now, ?2 max, ?3..?5 a reminder rule's numbers when rule is not NULL). */
static int list_due(db *d, const char *sql, long long now, const db_reminder_rule *rule, db_clock_due *out,
		    int max, int *n, db_error *err)
{
	dbi_stmt *st;
	int r, rc;

	*n = 0;
	if ((r = dbi_prepare(d, sql, &st, err)))
		return r;
	dbi_bind_int64(st, 1, now);
	dbi_bind_int(st, 2, max);
	if (rule) {
		dbi_bind_int64(st, 3, rule->day_s);
		dbi_bind_int64(st, 4, rule->last_share);
		dbi_bind_int64(st, 5, rule->last_min_s);
	}
	while (*n < max && (rc = dbi_step(st)) == DBI_ROW) {
		snprintf(out[*n].game_id, sizeof out[*n].game_id, "%s", dbi_col_text(st, 0));
		out[*n].seat = dbi_col_int(st, 1);
		(*n)++;
	}
	if (*n < max && rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "list clocks");
	dbi_finish(d, st);
	return r;
}

int db_clocks_expired(db *d, long long now, db_clock_due *out, int max, int *n, db_error *err)
{
	return list_due(d, "SELECT c.game_id, c.seat FROM seat_clocks c JOIN games g ON g.id = c.game_id "
			"WHERE c.deadline IS NOT NULL AND c.deadline <= ?1 AND g.status = 'running' "
			"ORDER BY c.deadline LIMIT ?2", now, NULL, out, max, n, err);
}

int db_clocks_remind(db *d, long long now, const db_reminder_rule *rule, db_clock_due *out, int max, int *n,
		     db_error *err)
{
	/* Mirrors clock_reminder_due (service/game/clock.c), which decides which reminder goes. */
	return list_due(d, "SELECT c.game_id, c.seat FROM seat_clocks c JOIN games g ON g.id = c.game_id "
			"WHERE c.deadline IS NOT NULL AND c.deadline > ?1 AND g.status = 'running' "
			"AND (c.paused_until IS NULL OR c.paused_until <= ?1) AND ("
			"((c.reminded & 1) = 0 AND c.deadline - c.running_since > ?3 AND c.deadline - ?1 <= ?3) OR "
			"((c.reminded & 2) = 0 AND c.deadline - c.running_since > greatest(?5, (c.deadline - c.running_since) / ?4) "
			"AND c.deadline - ?1 <= greatest(?5, (c.deadline - c.running_since) / ?4))) "
			"ORDER BY c.deadline LIMIT ?2", now, rule, out, max, n, err);
}

int db_clocks_extend(db *d, long long by, int *count, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE seat_clocks SET deadline = deadline + ?1, running_since = running_since + ?1 "
			    "WHERE deadline IS NOT NULL", &st, err);

	*count = 0;
	if (r)
		return r;
	dbi_bind_int64(st, 1, by);
	if ((r = dbi_step_done(d, st, err, "extend the clocks")) == 0)
		*count = dbi_changes(d);
	return r;
}
