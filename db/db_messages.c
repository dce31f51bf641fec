/* db_messages.c - storage of the messages the seats of a game send each other. */
#include "db.h"
#include "db_internal.h"

#include <stdlib.h>
#include <time.h>

int db_message_add(db *d, const char *game_id, int from_seat, int to_seat, const char *text,
		   const char *channel, const char *now, long long *seq, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO messages (game_id, seq, from_seat, to_seat, text, channel, at) "
			    "SELECT ?1, COALESCE(MAX(seq), 0) + 1, ?2, ?3, ?4, ?5, ?6 FROM messages WHERE game_id = ?1 "
			    "RETURNING seq", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, from_seat);
	if (to_seat >= 0)
		dbi_bind_int(st, 3, to_seat);
	else
		dbi_bind_null(st, 3);
	dbi_bind_text(st, 4, text);
	dbi_bind_text(st, 5, channel);
	dbi_bind_text(st, 6, now);
	if (dbi_step(st) != DBI_ROW) {
		r = dbi_sql_fail(d, err, "store a message");
		dbi_finish(d, st);
		return r;
	}
	*seq = dbi_col_int64(st, 0);
	/* RETURNING: the row is written when the statement runs to its end. */
	if (dbi_step(st) != DBI_DONE)
		r = dbi_sql_fail(d, err, "store a message");
	dbi_finish(d, st);
	return r;
}

int db_messages_last_hour(db *d, const char *game_id, int from_seat, int *count, db_error *err)
{
	dbi_stmt *st;
	char since[32];
	time_t hour_ago = time(NULL) - 3600;
	struct tm tm;
	int r = dbi_prepare(d, "SELECT count(*) FROM messages WHERE game_id = ?1 AND from_seat = ?2 "
			    "AND at > ?3", &st, err);

	/* The times are written as UTC text (YYYY-MM-DDTHH:MM:SSZ), which compares in time order. */
	strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&hour_ago, &tm));
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, from_seat);
	dbi_bind_text(st, 3, since);
	if (dbi_step(st) == DBI_ROW)
		*count = dbi_col_int(st, 0);
	else
		r = dbi_sql_fail(d, err, "count messages");
	dbi_finish(d, st);
	return r;
}

int db_messages_for(db *d, const char *game_id, int seat, long long from, int limit, int others_only,
		    db_message **out, size_t *n, db_error *err)
{
	dbi_stmt *st;
	size_t cap = 0;
	int r, rc;

	*out = NULL;
	*n = 0;
	/* from < 0: the latest limit of them (still in order). */
	if ((r = dbi_prepare(d, "SELECT * FROM (SELECT seq, from_seat, to_seat, text, channel, at FROM messages "
			     "WHERE game_id = ?1 AND seq >= ?2 AND (to_seat IS NULL OR to_seat = ?3 OR from_seat = ?3) "
			     "AND NOT (?5 <> 0 AND from_seat = ?3) ORDER BY CASE WHEN ?6 <> 0 THEN -seq ELSE seq END "
			     "LIMIT ?4) AS latest ORDER BY seq", &st, err)))
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int64(st, 2, from);
	dbi_bind_int(st, 3, seat);
	dbi_bind_int(st, 4, limit);
	dbi_bind_int(st, 5, others_only != 0);
	dbi_bind_int(st, 6, from < 0);
	while ((rc = dbi_step(st)) == DBI_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			db_message *v = realloc(*out, cap * sizeof *v);
			if (!v) {
				r = dbi_fail(err, DB_E_IO, "out of memory");
				break;
			}
			*out = v;
		}
		db_message *m = &(*out)[(*n)++];
		m->seq = dbi_col_int64(st, 0);
		m->from_seat = dbi_col_int(st, 1);
		m->to_seat = dbi_col_is_null(st, 2) ? -1 : dbi_col_int(st, 2);
		m->text = dbi_col_dup(st, 3);
		m->channel = dbi_col_dup(st, 4);
		m->at = dbi_col_dup(st, 5);
	}
	if (!r && rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "read messages");
	dbi_finish(d, st);
	if (r) {
		db_messages_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

void db_messages_free(db_message *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].text);
		free(v[i].channel);
		free(v[i].at);
	}
	free(v);
}

int db_messages_mailed_get(db *d, const char *game_id, int seat, long long *seq, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT messages_mailed FROM seats WHERE game_id = ?1 AND seat = ?2", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	*seq = 0;
	if (dbi_step(st) == DBI_ROW)
		*seq = dbi_col_int64(st, 0);
	else
		r = dbi_sql_fail(d, err, "read the messages mailed");
	dbi_finish(d, st);
	return r;
}

int db_messages_mailed_set(db *d, const char *game_id, int seat, long long seq, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE seats SET messages_mailed = greatest(messages_mailed, ?3) "
			    "WHERE game_id = ?1 AND seat = ?2", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_int64(st, 3, seq);
	return dbi_step_done(d, st, err, "mark messages mailed");
}
