/* db_mail.c - storage for mail: the outbox, incoming mails seen, sign-in and seat links, rate limits. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int db_outbox_add(db *d, const char *game_id, const char *kind, const char *recipient,
		  const char *message, const char *created_at, long long now, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO outbox (game_id, kind, recipient, message, state, "
			    "next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6)", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_text(st, 2, kind);
	dbi_bind_text(st, 3, recipient);
	dbi_bind_text(st, 4, message);
	dbi_bind_int64(st, 5, now);
	dbi_bind_text(st, 6, created_at);
	return dbi_step_done(d, st, err, "queue mail");
}

int db_outbox_claim(db *d, long long now, int limit, db_outbox_row **rows, size_t *n, db_error *err)
{
	dbi_stmt *st;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if ((r = db_begin(d, err)))
		return r;
	/*
	 * Daemons sharing the database claim different mails: each skips the rows another's claim
	 * holds (skip_locked). The rows are chosen once, in the WITH (MATERIALIZED: never
	 * folded into the UPDATE), before any is updated: a subquery run again for each row would
	 * skip the rows this very statement just locked and claim more than asked, left 'sending'.
	 */
	r = dbi_prepare(d, "WITH due AS MATERIALIZED (SELECT id FROM outbox WHERE state = 'queued' AND next_attempt_at <= ?1 "
			"ORDER BY id LIMIT ?2 /*skip_locked*/) "
			"UPDATE outbox SET state = 'sending', attempts = attempts + 1, sending_since = ?1 "
			"FROM due WHERE outbox.id = due.id AND outbox.state = 'queued' "
			"RETURNING outbox.id, outbox.game_id, outbox.kind, outbox.recipient, outbox.message, "
			"outbox.attempts",
			&st, err);
	if (r)
		goto out;
	dbi_bind_int64(st, 1, now);
	dbi_bind_int(st, 2, limit);
	*rows = xcalloc((size_t)limit, sizeof **rows);
	while ((rc = dbi_step(st)) == DBI_ROW && *n < (size_t)limit) {
		db_outbox_row *o = &(*rows)[(*n)++];
		o->id = dbi_col_int64(st, 0);
		o->game_id = dbi_col_dup(st, 1);
		o->kind = dbi_col_dup(st, 2);
		o->recipient = dbi_col_dup(st, 3);
		o->message = dbi_col_dup(st, 4);
		o->attempts = dbi_col_int(st, 5);
	}
	if (rc != DBI_DONE && rc != DBI_ROW)
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

/* One UPDATE of an outbox row by id (?1), with a text (?2) and, unless NULL, a number (?3). */
static int outbox_update(db *d, const char *sql, long long id, const char *text, const long long *number,
			 db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, sql, &st, err);

	if (r)
		return r;
	dbi_bind_int64(st, 1, id);
	dbi_bind_text(st, 2, text);
	if (number)
		dbi_bind_int64(st, 3, *number);
	return dbi_step_done(d, st, err, "update mail");
}

/*
 * What the outbox keeps of a mail once it is sent or given up: the headers an operator needs to
 * tell what went where (kept_headers), then a note in place of the body. The body and the
 * Reply-To hold links and a reply address that act for the recipient, and must not stay at rest.
 * Each backend offers it as the SQL function rookery_outbox_kept(message), so that the row is
 * wiped by the very statement that marks it sent or failed.
 */
static const char *const kept_headers[] = {
	"Date", "From", "To", "Subject", "Message-ID", "In-Reply-To", "References", NULL,
};

static int header_kept(const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);

	if (!colon)
		return 0;
	for (int i = 0; kept_headers[i]; i++)
		if (strlen(kept_headers[i]) == (size_t)(colon - line) &&
		    !strncasecmp(line, kept_headers[i], (size_t)(colon - line)))
			return 1;
	return 0;
}

char *dbi_outbox_kept(const char *p)
{
	/* Never longer than the message, a newline, and the note. */
	char *out, *o;
	int keep = 0;

	if (!p)
		return NULL;
	out = o = xmalloc(strlen(p) + sizeof "\n\n" DB_OUTBOX_WIPED "\n");
	/* Header lines up to the first empty one; a line starting with white space continues the last. */
	while (*p && *p != '\n' && strncmp(p, "\r\n", 2)) {
		size_t len = strcspn(p, "\n");
		if (*p != ' ' && *p != '\t')
			keep = header_kept(p, len);
		if (keep) {
			memcpy(o, p, len);
			o += len;
			*o++ = '\n';
		}
		p += len + (p[len] == '\n');
	}
	strcpy(o, "\n" DB_OUTBOX_WIPED "\n");
	return out;
}

int db_outbox_sent(db *d, long long id, const char *sent_at, db_error *err)
{
	return outbox_update(d, "UPDATE outbox SET state = 'sent', sent_at = ?2, last_error = NULL, "
			     "message = rookery_outbox_kept(message) WHERE id = ?1", id, sent_at, NULL, err);
}

int db_outbox_retry(db *d, long long id, long long next_at, const char *error, db_error *err)
{
	return outbox_update(d, "UPDATE outbox SET state = 'queued', last_error = ?2, "
			     "next_attempt_at = ?3 WHERE id = ?1", id, error, &next_at, err);
}

int db_outbox_failed(db *d, long long id, const char *error, db_error *err)
{
	return outbox_update(d, "UPDATE outbox SET state = 'failed', last_error = ?2, "
			     "message = rookery_outbox_kept(message) WHERE id = ?1", id, error, NULL, err);
}

int db_outbox_abandon_interrupted(db *d, long long claimed_before, int *count, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE outbox SET state = 'failed', last_error = "
			    "'interrupted while being sent; not sent again, so that no mail goes out twice', "
			    "message = rookery_outbox_kept(message) WHERE state = 'sending' "
			    "AND (sending_since IS NULL OR sending_since < ?1)", &st, err);

	*count = 0;
	if (r)
		return r;
	dbi_bind_int64(st, 1, claimed_before);
	if (!(r = dbi_step_done(d, st, err, "mark the interrupted mails")))
		*count = (int)dbi_changes(d);
	return r;
}

int db_outbox_count(db *d, const char *state, int *count, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT COUNT(*) FROM outbox WHERE CAST(?1 AS TEXT) IS NULL OR state = ?1", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, state);
	*count = dbi_step(st) == DBI_ROW ? dbi_col_int(st, 0) : 0;
	dbi_finish(d, st);
	return 0;
}

int db_mail_seen(db *d, const char *message_id, char **result, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT result FROM mail_seen WHERE message_id = ?1", &st, err);

	*result = NULL;
	if (r)
		return r;
	dbi_bind_text(st, 1, message_id);
	if (dbi_step(st) == DBI_ROW)
		*result = dbi_col_dup(st, 0);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "not seen");
	dbi_finish(d, st);
	return r;
}

int db_mail_mark_seen(db *d, const char *message_id, const char *result, const char *at, db_error *err)
{
	dbi_stmt *st;
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
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO seat_links (token_hash, game_id, seat, expires_at) "
			    "VALUES (?1, ?2, ?3, ?4)", &st, err);

	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	dbi_bind_text(st, 2, game_id);
	dbi_bind_int(st, 3, seat);
	dbi_bind_int64(st, 4, expires_at);
	return dbi_step_done(d, st, err, "add seat link");
}

int db_signin_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *email,
		  long long expires_at, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO signin_tokens (token_hash, email, expires_at) "
			    "VALUES (?1, ?2, ?3)", &st, err);

	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	dbi_bind_text(st, 2, email);
	dbi_bind_int64(st, 3, expires_at);
	return dbi_step_done(d, st, err, "add sign-in link");
}

/* The email of the sign-in token hash valid at now, by sql (?1 the hash, ?2 now, one row at most). */
static int signin_lookup(db *d, const char *sql, const unsigned char hash[DB_HASH_BYTES], long long now,
			 char **email, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, sql, &st, err);

	*email = NULL;
	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	dbi_bind_int64(st, 2, now);
	switch (dbi_step(st)) {
	case DBI_ROW:
		*email = dbi_col_dup(st, 0);
		break;
	case DBI_DONE:
		r = dbi_fail(err, DB_E_NOTFOUND, "unknown, used or expired sign-in link");
		break;
	default:
		r = dbi_sql_fail(d, err, "sign-in link");
	}
	dbi_finish(d, st);
	return r;
}

int db_signin_email(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
		    db_error *err)
{
	return signin_lookup(d, "SELECT email FROM signin_tokens WHERE token_hash = ?1 AND expires_at > ?2",
			     hash, now, email, err);
}

int db_signin_take(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
		   db_error *err)
{
	/* A DELETE ... RETURNING deletes by its first step, which returns the row. */
	return signin_lookup(d, "DELETE FROM signin_tokens WHERE token_hash = ?1 AND expires_at > ?2 "
			     "RETURNING email", hash, now, email, err);
}

int db_links_expire(db *d, long long now, int *count, db_error *err)
{
	static const char *const sql[] = {
		"DELETE FROM seat_links WHERE expires_at <= ?1",
		"DELETE FROM signin_tokens WHERE expires_at <= ?1",
		"DELETE FROM player_tokens WHERE expires_at <= ?1",
	};
	int r = 0;

	*count = 0;
	for (size_t i = 0; !r && i < sizeof sql / sizeof *sql; i++) {
		dbi_stmt *st;
		if ((r = dbi_prepare(d, sql[i], &st, err)))
			break;
		dbi_bind_int64(st, 1, now);
		if (!(r = dbi_step_done(d, st, err, "delete expired links")))
			*count += dbi_changes(d);
	}
	return r;
}

/* The (game, seat) rows of a prepared statement, email bound as ?1. */
static int player_seats(db *d, dbi_stmt *st, const char *email, db_player_seat **out, size_t *n)
{
	size_t cap = 0;

	dbi_bind_text(st, 1, email);
	while (dbi_step(st) == DBI_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[*n].game_id = dbi_col_dup(st, 0);
		(*out)[*n].seat = dbi_col_int(st, 1);
		(*n)++;
	}
	dbi_finish(d, st);
	return 0;
}

int db_seats_by_email(db *d, const char *email, db_player_seat **out, size_t *n, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT s.game_id, s.seat FROM seats s JOIN games g ON g.id = s.game_id "
			    "WHERE lower(s.email) = lower(?1) ORDER BY g.updated_at DESC, g.id", &st, err);

	*out = NULL;
	*n = 0;
	return r ? r : player_seats(d, st, email, out, n);
}

int db_seats_running_by_email(db *d, const char *email, int limit, db_player_seat **out, size_t *n,
			      db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT s.game_id, s.seat FROM seats s JOIN games g ON g.id = s.game_id "
			    "WHERE lower(s.email) = lower(?1) AND g.status = 'running' "
			    "ORDER BY g.updated_at, g.id LIMIT ?2", &st, err);

	*out = NULL;
	*n = 0;
	if (r)
		return r;
	dbi_bind_int(st, 2, limit);
	return player_seats(d, st, email, out, n);
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
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO rate_limits AS r (key, window_start, count) VALUES (?1, ?2, 1) "
			    "ON CONFLICT (key) DO UPDATE SET "
			    "count = CASE WHEN r.window_start <= ?2 - ?3 THEN 1 ELSE r.count + 1 END, "
			    "window_start = CASE WHEN r.window_start <= ?2 - ?3 THEN ?2 ELSE r.window_start END "
			    "RETURNING count", &st, err);

	*allowed = 0;
	if (r)
		return r;
	dbi_bind_text(st, 1, key);
	dbi_bind_int64(st, 2, now);
	dbi_bind_int(st, 3, window_s);
	if (dbi_step(st) == DBI_ROW)
		*allowed = dbi_col_int(st, 0) <= limit;
	else
		r = dbi_sql_fail(d, err, "rate limit");
	dbi_finish(d, st);
	return r;
}

int db_player_token_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *email, long long expires_at,
			db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO player_tokens (token_hash, email, expires_at) VALUES (?1, ?2, ?3)",
			    &st, err);

	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	dbi_bind_text(st, 2, email);
	dbi_bind_int64(st, 3, expires_at);
	return dbi_step_done(d, st, err, "add player token");
}

int db_player_token_email(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
			  db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT email FROM player_tokens WHERE token_hash = ?1 AND expires_at > ?2", &st, err);

	*email = NULL;
	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	dbi_bind_int64(st, 2, now);
	if (dbi_step(st) == DBI_ROW)
		*email = dbi_col_dup(st, 0);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "unknown or expired player token");
	dbi_finish(d, st);
	return r;
}
