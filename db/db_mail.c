/* db_mail.c - storage for mail: the outbox, incoming mails seen, sign-in and seat links, rate limits. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

int db_outbox_add(db *d, const char *game_id, const char *kind, const char *recipient,
		  const char *message, const char *created_at, long long now, db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO outbox (game_id, kind, recipient, message, state, "
			    "next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6)", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_text(st, 2, kind);
	dbi_bind_text(st, 3, recipient);
	dbi_bind_text(st, 4, message);
	sqlite3_bind_int64(st, 5, now);
	dbi_bind_text(st, 6, created_at);
	r = dbi_step_done(d, st, err, "queue mail");
	if (!r)
		d->outbox_added++;
	return r;
}

unsigned long db_outbox_added(db *d)
{
	return d->outbox_added;
}

int db_outbox_claim(db *d, long long now, int limit, db_outbox_row **rows, size_t *n, db_error *err)
{
	sqlite3_stmt *st;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if ((r = db_begin(d, err)))
		return r;
	r = dbi_prepare(d, "UPDATE outbox SET state = 'sending', attempts = attempts + 1 WHERE id IN "
			"(SELECT id FROM outbox WHERE state = 'queued' AND next_attempt_at <= ?1 "
			"ORDER BY id LIMIT ?2) RETURNING id, game_id, kind, recipient, message, attempts",
			&st, err);
	if (r)
		goto out;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, limit);
	*rows = xcalloc((size_t)limit, sizeof **rows);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
		db_outbox_row *o = &(*rows)[(*n)++];
		o->id = sqlite3_column_int64(st, 0);
		o->game_id = dbi_col_text(st, 1);
		o->kind = dbi_col_text(st, 2);
		o->recipient = dbi_col_text(st, 3);
		o->message = dbi_col_text(st, 4);
		o->attempts = sqlite3_column_int(st, 5);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = dbi_sql_fail(d, err, "claim mail");
	dbi_finish(d, st);
	if (!r)
		r = db_commit(d, err);
out:
	if (r) {
		db_rollback(d);
		db_outbox_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
	}
	return r;
}

void db_outbox_rows_free(db_outbox_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].game_id);
		free(rows[i].kind);
		free(rows[i].recipient);
		free(rows[i].message);
	}
	free(rows);
}

/* One UPDATE of an outbox row by id (?1), with a text (?2) and, if used, a number (?3). */
static int outbox_update(db *d, const char *sql, long long id, const char *text, long long number,
			 db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, sql, &st, err);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	dbi_bind_text(st, 2, text);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, number);
	return dbi_step_done(d, st, err, "update mail");
}

int db_outbox_sent(db *d, long long id, const char *sent_at, db_error *err)
{
	return outbox_update(d, "UPDATE outbox SET state = 'sent', sent_at = ?2, last_error = NULL "
			     "WHERE id = ?1", id, sent_at, 0, err);
}

int db_outbox_retry(db *d, long long id, long long next_at, const char *error, db_error *err)
{
	return outbox_update(d, "UPDATE outbox SET state = 'queued', last_error = ?2, "
			     "next_attempt_at = ?3 WHERE id = ?1", id, error, next_at, err);
}

int db_outbox_failed(db *d, long long id, const char *error, db_error *err)
{
	return outbox_update(d, "UPDATE outbox SET state = 'failed', last_error = ?2 "
			     "WHERE id = ?1", id, error, 0, err);
}

int db_outbox_abandon_interrupted(db *d, int *count, db_error *err)
{
	int r = dbi_exec(d, "UPDATE outbox SET state = 'failed', last_error = "
			 "'interrupted while being sent; not sent again, so that no mail goes out twice' "
			 "WHERE state = 'sending'", err);

	*count = r ? 0 : sqlite3_changes(d->conn);
	return r;
}

int db_outbox_count(db *d, const char *state, int *count, db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "SELECT COUNT(*) FROM outbox WHERE ?1 IS NULL OR state = ?1", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, state);
	*count = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	dbi_finish(d, st);
	return 0;
}

int db_mail_seen(db *d, const char *message_id, char **result, db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "SELECT result FROM mail_seen WHERE message_id = ?1", &st, err);

	*result = NULL;
	if (r)
		return r;
	dbi_bind_text(st, 1, message_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*result = dbi_col_text(st, 0);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "not seen");
	dbi_finish(d, st);
	return r;
}

int db_mail_mark_seen(db *d, const char *message_id, const char *result, const char *at, db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO mail_seen (message_id, result, at) VALUES (?1, ?2, ?3)",
			    &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, message_id);
	dbi_bind_text(st, 2, result);
	dbi_bind_text(st, 3, at);
	return dbi_step_done(d, st, err, "mark mail seen");
}

int db_seat_link_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *game_id, int seat,
		     long long expires_at, db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO seat_links (token_hash, game_id, seat, expires_at) "
			    "VALUES (?1, ?2, ?3, ?4)", &st, err);

	if (r)
		return r;
	sqlite3_bind_blob(st, 1, hash, DB_HASH_BYTES, SQLITE_TRANSIENT);
	dbi_bind_text(st, 2, game_id);
	sqlite3_bind_int(st, 3, seat);
	sqlite3_bind_int64(st, 4, expires_at);
	return dbi_step_done(d, st, err, "add seat link");
}

int db_signin_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *email,
		  long long expires_at, db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO signin_tokens (token_hash, email, expires_at) "
			    "VALUES (?1, ?2, ?3)", &st, err);

	if (r)
		return r;
	sqlite3_bind_blob(st, 1, hash, DB_HASH_BYTES, SQLITE_TRANSIENT);
	dbi_bind_text(st, 2, email);
	sqlite3_bind_int64(st, 3, expires_at);
	return dbi_step_done(d, st, err, "add sign-in link");
}

int db_signin_email(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
		    db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "SELECT email FROM signin_tokens WHERE token_hash = ?1 AND expires_at > ?2",
			    &st, err);

	*email = NULL;
	if (r)
		return r;
	sqlite3_bind_blob(st, 1, hash, DB_HASH_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, now);
	if (sqlite3_step(st) == SQLITE_ROW)
		*email = dbi_col_text(st, 0);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "unknown or expired sign-in link");
	dbi_finish(d, st);
	return r;
}

int db_seats_by_email(db *d, const char *email, db_player_seat **out, size_t *n, db_error *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int r = dbi_prepare(d, "SELECT s.game_id, s.seat FROM seats s JOIN games g ON g.id = s.game_id "
			    "WHERE s.email = ?1 COLLATE NOCASE ORDER BY g.updated_at DESC, g.id", &st, err);

	*out = NULL;
	*n = 0;
	if (r)
		return r;
	dbi_bind_text(st, 1, email);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[*n].game_id = dbi_col_text(st, 0);
		(*out)[*n].seat = sqlite3_column_int(st, 1);
		(*n)++;
	}
	dbi_finish(d, st);
	return 0;
}

void db_player_seats_free(db_player_seat *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].game_id);
	free(v);
}

int db_rate_hit(db *d, const char *key, long long now, int window_s, int limit, int *allowed,
		db_error *err)
{
	sqlite3_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1) "
			    "ON CONFLICT (key) DO UPDATE SET "
			    "count = CASE WHEN window_start <= ?2 - ?3 THEN 1 ELSE count + 1 END, "
			    "window_start = CASE WHEN window_start <= ?2 - ?3 THEN ?2 ELSE window_start END "
			    "RETURNING count", &st, err);

	*allowed = 0;
	if (r)
		return r;
	dbi_bind_text(st, 1, key);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int(st, 3, window_s);
	if (sqlite3_step(st) == SQLITE_ROW)
		*allowed = sqlite3_column_int(st, 0) <= limit;
	else
		r = dbi_sql_fail(d, err, "rate limit");
	dbi_finish(d, st);
	return r;
}
