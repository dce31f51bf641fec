/* db_consent.c - storage for mail consent: addresses, mails held by the daily cap, live reply addresses. */
#include "db.h"
#include "db_internal.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const consent_names[] = {"none", "invited", "confirmed"};
static const char *const mail_mode_names[] = {"every_move", "digest", "essentials"};

/* The index of name in names (n of them), or 0. */
static int name_value(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (name && !strcmp(name, names[i]))
			return i;
	return 0;
}

#define ADDRESS_COLUMNS "id, email, consent, stopped, no_invites, day, day_count, mail_mode, digest_hour, digest_day"

static void read_address(dbi_stmt *st, db_address *out)
{
	const char *consent = dbi_col_text(st, 2);

	out->id = dbi_col_int64(st, 0);
	out->email = dbi_col_dup(st, 1);
	out->consent = name_value(consent_names, 3, consent);
	out->stopped = dbi_col_int(st, 3);
	out->no_invites = dbi_col_int(st, 4);
	out->day = dbi_col_int64(st, 5);
	out->day_count = dbi_col_int(st, 6);
	out->mail_mode = name_value(mail_mode_names, 3, dbi_col_text(st, 7));
	out->digest_hour = dbi_col_is_null(st, 8) ? -1 : dbi_col_int(st, 8);
	out->digest_day = dbi_col_int64(st, 9);
}

int db_address_get(db *d, const char *email, db_address *out, db_error *err)
{
	dbi_stmt *st;
	/* The no-op update makes RETURNING give the row whether it was new or not. */
	int r = dbi_prepare(d, "INSERT INTO addresses (email) VALUES (?1) ON CONFLICT (lower(email)) "
			    "DO UPDATE SET email = addresses.email RETURNING " ADDRESS_COLUMNS, &st, err);

	memset(out, 0, sizeof *out);
	if (r)
		return r;
	dbi_bind_text(st, 1, email);
	if (dbi_step(st) == DBI_ROW)
		read_address(st, out);
	else
		r = dbi_sql_fail(d, err, "read address");
	dbi_finish(d, st);
	return r;
}

/* One address by email (id 0) or by id: the two ways its row is looked up without creating it. */
static int address_lookup(db *d, const char *email, long long id, db_address *out, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, email ? "SELECT " ADDRESS_COLUMNS " FROM addresses WHERE lower(email) = lower(?1)" :
			    "SELECT " ADDRESS_COLUMNS " FROM addresses WHERE id = ?1", &st, err);

	memset(out, 0, sizeof *out);
	if (r)
		return r;
	if (email)
		dbi_bind_text(st, 1, email);
	else
		dbi_bind_int64(st, 1, id);
	if (dbi_step(st) == DBI_ROW)
		read_address(st, out);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "no such address");
	dbi_finish(d, st);
	return r;
}

int db_address_find(db *d, const char *email, db_address *out, db_error *err)
{
	return address_lookup(d, email, 0, out, err);
}

int db_address_by_id(db *d, long long id, db_address *out, db_error *err)
{
	return address_lookup(d, NULL, id, out, err);
}

int db_address_save(db *d, const db_address *a, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE addresses SET consent = ?2, stopped = ?3, no_invites = ?4, day = ?5, "
			    "day_count = ?6, mail_mode = ?7, digest_hour = ?8, digest_day = ?9 WHERE id = ?1", &st, err);

	if (r)
		return r;
	dbi_bind_int64(st, 1, a->id);
	dbi_bind_text(st, 2, consent_names[a->consent]);
	dbi_bind_int(st, 3, a->stopped);
	dbi_bind_int(st, 4, a->no_invites);
	dbi_bind_int64(st, 5, a->day);
	dbi_bind_int(st, 6, a->day_count);
	dbi_bind_text(st, 7, mail_mode_names[a->mail_mode]);
	if (a->digest_hour >= 0)
		dbi_bind_int(st, 8, a->digest_hour);
	dbi_bind_int64(st, 9, a->digest_day);
	return dbi_step_done(d, st, err, "save address");
}

void db_address_clear(db_address *a)
{
	free(a->email);
	memset(a, 0, sizeof *a);
}

/* The first column of a statement's first row, an id; DB_E_NOTFOUND when it has none. Finishes st. */
static int first_id(db *d, dbi_stmt *st, long long *id)
{
	int r = 0;

	if (dbi_step(st) == DBI_ROW)
		*id = dbi_col_int64(st, 0);
	else
		r = DB_E_NOTFOUND;
	dbi_finish(d, st);
	return r;
}

int db_digest_due(db *d, int hour, int default_hour, long long day, long long *address_id, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT id FROM addresses WHERE mail_mode = 'digest' AND "
			    "coalesce(digest_hour, ?2) = ?1 AND digest_day < ?3 AND stopped = 0 AND "
			    "consent = 'confirmed' LIMIT 1", &st, err);

	*address_id = 0;
	if (r)
		return r;
	dbi_bind_int(st, 1, hour);
	dbi_bind_int(st, 2, default_hour);
	dbi_bind_int64(st, 3, day);
	return first_id(d, st, address_id);
}

int db_held_add(db *d, long long address_id, const char *game_id, const char *kind, long long day,
		db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "INSERT INTO held_mails (address_id, game_id, kind, day) VALUES (?1, ?2, ?3, ?4)",
			    &st, err);

	if (r)
		return r;
	dbi_bind_int64(st, 1, address_id);
	dbi_bind_text(st, 2, game_id);
	dbi_bind_text(st, 3, kind);
	dbi_bind_int64(st, 4, day);
	return dbi_step_done(d, st, err, "hold mail");
}

int db_held_due(db *d, long long day, long long *address_id, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT address_id FROM held_mails WHERE day < ?1 LIMIT 1", &st, err);

	*address_id = 0;
	if (r)
		return r;
	dbi_bind_int64(st, 1, day);
	return first_id(d, st, address_id);
}

int db_held_take(db *d, long long address_id, db_held_game **out, size_t *n, db_error *err)
{
	dbi_stmt *st;
	size_t cap = 0;
	int r = dbi_prepare(d, "SELECT game_id, COUNT(*) FROM held_mails WHERE address_id = ?1 "
			    "GROUP BY game_id ORDER BY MIN(rowid)", &st, err);

	*out = NULL;
	*n = 0;
	if (r)
		return r;
	dbi_bind_int64(st, 1, address_id);
	while (dbi_step(st) == DBI_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[*n].game_id = dbi_col_dup(st, 0);
		(*out)[*n].count = dbi_col_int(st, 1);
		(*n)++;
	}
	dbi_finish(d, st);
	if ((r = dbi_prepare(d, "DELETE FROM held_mails WHERE address_id = ?1", &st, err)))
		return r;
	dbi_bind_int64(st, 1, address_id);
	return dbi_step_done(d, st, err, "take held mails");
}

void db_held_games_free(db_held_game *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].game_id);
	free(v);
}

int db_reply_issue(db *d, const char *game_id, int seat, int ply, int *serial, db_error *err)
{
	dbi_stmt *st;
	/* Mails of the same ply share the live address until it acts; a new ply gets a new one. */
	int r = dbi_prepare(d, "UPDATE seats SET reply_serial = CASE WHEN reply_serial > 0 AND reply_ply = ?3 "
			    "AND reply_used = 0 THEN reply_serial ELSE reply_serial + 1 END, reply_ply = ?3, "
			    "reply_used = 0 WHERE game_id = ?1 AND seat = ?2 RETURNING reply_serial", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_int(st, 3, ply);
	if (dbi_step(st) == DBI_ROW)
		*serial = dbi_col_int(st, 0);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "no such seat");
	dbi_finish(d, st);
	return r;
}

int db_reply_get(db *d, const char *game_id, int seat, db_reply *out, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT reply_serial, reply_ply, reply_used FROM seats "
			    "WHERE game_id = ?1 AND seat = ?2", &st, err);

	memset(out, 0, sizeof *out);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	if (dbi_step(st) == DBI_ROW) {
		out->serial = dbi_col_int(st, 0);
		out->ply = dbi_col_int(st, 1);
		out->used = dbi_col_int(st, 2);
	} else {
		r = dbi_fail(err, DB_E_NOTFOUND, "no such seat");
	}
	dbi_finish(d, st);
	return r;
}

int db_reply_use(db *d, const char *game_id, int seat, int serial, int used, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE seats SET reply_used = ?4 WHERE game_id = ?1 AND seat = ?2 "
			    "AND reply_serial = ?3", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_int(st, 3, serial);
	dbi_bind_int(st, 4, used);
	return dbi_step_done(d, st, err, "use reply address");
}

int db_seat_link_find(db *d, const unsigned char hash[DB_HASH_BYTES], char **game_id, int *seat,
		      db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT game_id, seat FROM seat_links WHERE token_hash = ?1 "
			    "AND expires_at > unixepoch()", &st, err);

	*game_id = NULL;
	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	if (dbi_step(st) == DBI_ROW) {
		*game_id = dbi_col_dup(st, 0);
		*seat = dbi_col_int(st, 1);
	} else {
		r = dbi_fail(err, DB_E_NOTFOUND, "not a mailed seat link");
	}
	dbi_finish(d, st);
	return r;
}
