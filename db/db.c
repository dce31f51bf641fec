/* db.c - storage: choosing the backend, embedded migrations, transactions and group commits, games and seats. */
#include "db.h"
#include "db_internal.h"
#include "migrations.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int db_schema_version_supported(void)
{
	int n = 0;
	while (db_migrations[n].name)
		n++;
	return n;
}

int db_schema_version(db *d)
{
	return d->be->schema_version(d);
}

/* Apply each migration past the stored schema version in its own transaction. */
static int migrate_locked(db *d, db_error *err)
{
	int have = db_schema_version(d), want = db_schema_version_supported();

	if (have < 0)
		return dbi_sql_fail(d, err, "reading the schema version");
	if (have > want)
		return dbi_fail(err, DB_E_VERSION,
			    "the database has schema version %d but this rookery only knows up to %d; "
			    "use a newer rookery (refusing to touch the database)", have, want);
	for (int v = have; v < want; v++) {
		const struct db_migration *m = &d->be->migrations[v];
		char *sql = xstrndup(m->data, m->len);
		int r;

		r = dbi_exec(d, d->be->begin_write, err);
		if (!r)
			r = dbi_exec(d, sql, err);
		if (!r)
			r = d->be->set_schema_version(d, v + 1, err);
		if (!r)
			r = dbi_exec(d, "COMMIT", err);
		free(sql);
		if (r) {
			dbi_exec(d, "ROLLBACK", NULL);
			return dbi_fail(err, DB_E_IO, "migration %s failed: %s", m->name,
				    err ? err->message : "");
		}
	}
	return 0;
}

/* The backend that serves target: a libpq connection URI is PostgreSQL's, anything else SQLite's path. */
static const struct dbi_backend *backend_for(const char *target)
{
	if (db_target_is_postgresql(target))
		return &dbi_postgresql;
	return &dbi_sqlite;
}

int db_target_is_postgresql(const char *target)
{
	return !strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11);
}

void db_target_describe(const char *target, char *out, size_t size)
{
	backend_for(target)->describe(target, out, size);
}

int db_shared(db *d)
{
	return d->be->shared;
}

int db_game_lock(db *d, const char *id, db_error *err)
{
	dbi_stmt *st;
	int r;

	if (!d->be->lock_game)
		return 0;
	if ((r = dbi_prepare(d, d->be->lock_game, &st, err)))
		return r;
	dbi_bind_text(st, 1, id);
	/* The statement answers one row (of nothing) once the lock is held. */
	r = dbi_step(st) == DBI_ERROR ? dbi_sql_fail(d, err, "lock the game") : 0;
	dbi_finish(d, st);
	return r;
}

/* Run a hold's statement: 1 when it answered true, 0 when false, -1 on an error. */
static int hold_step(db *d, const char *sql, const char *name, db_error *err)
{
	dbi_stmt *st;
	int r;

	if (dbi_prepare(d, sql, &st, err))
		return -1;
	dbi_bind_text(st, 1, name);
	if (dbi_step(st) == DBI_ROW) {
		r = dbi_col_int(st, 0) != 0;
	} else {
		dbi_sql_fail(d, err, name);
		r = -1;
	}
	dbi_finish(d, st);
	return r;
}

int db_hold_try(db *d, const char *name)
{
	return !d->be->hold_try || hold_step(d, d->be->hold_try, name, NULL) == 1;
}

int db_hold(db *d, const char *name, db_error *err)
{
	return d->be->hold && hold_step(d, d->be->hold, name, err) < 0 ? DB_E_IO : 0;
}

void db_hold_end(db *d, const char *name)
{
	if (d->be->hold_end)
		hold_step(d, d->be->hold_end, name, NULL);
}

int db_follow_changes(db *d, db_changed_fn fn, void *ctx, int timeout_ms, db_error *err)
{
	if (!d->be->follow)
		return dbi_fail(err, DB_E_IO, "the %s backend has no other daemon's commits to follow", d->be->name);
	return d->be->follow(d, fn, ctx, timeout_ms, err);
}

/* Daemons starting together on one shared database: one migrates, the others then find it done. */
static int migrate(db *d, db_error *err)
{
	int r;

	if ((r = db_hold(d, "rookery migrations", err)))
		return r;
	r = migrate_locked(d, err);
	db_hold_end(d, "rookery migrations");
	return r;
}

int db_open(const char *path, db **out, db_error *err)
{
	int r = backend_for(path)->open(path, DBI_OPEN_WRITER, out, err);

	if (!r && (r = migrate(*out, err))) {
		db_close(*out);
		*out = NULL;
	}
	return r;
}

int db_open_reader(const char *path, db **out, db_error *err)
{
	int r = backend_for(path)->open(path, DBI_OPEN_READER, out, err);

	if (!r && db_schema_version(*out) != db_schema_version_supported())
		r = dbi_fail(err, DB_E_VERSION, "the database's schema is not this rookery's");
	if (r && *out) {
		db_close(*out);
		*out = NULL;
	}
	return r;
}

void db_close(db *d)
{
	if (d)
		d->be->close(d);
}

int db_backup(db *d, const char *dest, db_error *err)
{
	return d->be->backup(d, dest, err);
}

void db_watch_changes(db *d, db_committing_fn committing, void *ctx)
{
	d->be->watch_changes(d, committing, ctx);
}

int db_changed_games(db *d, db_changed_fn fn, void *ctx, db_error *err)
{
	return d->be->changed_games(d, fn, ctx, err);
}

/*
 * A statement without rows or parameters, prepared once per connection
 * (BEGIN, COMMIT, SAVEPOINT...): every change and every read begins and ends
 * a transaction, and parsing the SQL each time cost as much as the rest.
 */
static int exec_cached(db *d, const char *sql, db_error *err, const char *what)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, sql, &st, err);

	return r ? r : dbi_step_done(d, st, err, what);
}

/*
 * Inside a group (db_group_begin) each change is a savepoint of the group's
 * one transaction: its commit releases the savepoint, its rollback undoes
 * that change alone, and the group's commit makes them all durable at once.
 */
int db_begin(db *d, db_error *err)
{
	if (d->group) {
		int r = exec_cached(d, "SAVEPOINT change", err, "savepoint");
		d->in_change = r == 0;
		return r;
	}
	return exec_cached(d, d->be->begin_write, err, "begin");
}

int db_commit(db *d, db_error *err)
{
	if (d->group) {
		if (!d->in_change)
			return dbi_fail(err, DB_E_IO, "commit without a change begun");
		int r = exec_cached(d, "RELEASE change", err, "release");
		if (r) {
			db_rollback(d);
			return r;
		}
		d->in_change = 0;
		return 0;
	}
	int r = exec_cached(d, "COMMIT", err, "commit");
	if (r)
		db_rollback(d);
	return r;
}

void db_rollback(db *d)
{
	if (d->group) {
		if (d->in_change && db_in_transaction(d))
			dbi_exec(d, "ROLLBACK TO change; RELEASE change", NULL);
		d->in_change = 0;
		return;
	}
	if (db_in_transaction(d))
		dbi_exec(d, "ROLLBACK", NULL);
}

int db_group_begin(db *d, db_error *err)
{
	int r = exec_cached(d, d->be->begin_write, err, "begin");

	if (r)
		return r;
	d->group = 1;
	d->in_change = 0;
	return 0;
}

int db_group_intact(db *d)
{
	return d->group && db_in_transaction(d);
}

int db_group_commit(db *d, db_error *err)
{
	int r = 0;

	if (d->in_change)
		db_rollback(d);   /* a change left open: it was not finished, so it is not kept */
	d->group = 0;
	if (!db_in_transaction(d))
		return dbi_fail(err, DB_E_IO, "the group's transaction was rolled back by an error");
	if ((r = exec_cached(d, "COMMIT", err, "commit")))
		db_rollback(d);
	return r;
}

void db_group_abort(db *d)
{
	d->group = 0;
	d->in_change = 0;
	db_rollback(d);
}

int db_in_transaction(db *d)
{
	return d->be->in_transaction(d);
}

int db_read_begin(db *d, db_error *err)
{
	/* Every request that reads begins and ends one: not parsed again each time. */
	return exec_cached(d, d->be->begin_read, err, "begin");
}

void db_read_end(db *d)
{
	if (db_in_transaction(d))
		exec_cached(d, "COMMIT", NULL, "commit");
}

int db_game_version(db *d, const char *id, long long *version, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "SELECT version FROM games WHERE id = ?1", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, id);
	switch (dbi_step(st)) {
	case DBI_ROW:
		*version = dbi_col_int64(st, 0);
		break;
	case DBI_DONE:
		r = dbi_fail(err, DB_E_NOTFOUND, "no game %s", id);
		break;
	default:
		r = dbi_sql_fail(d, err, "read the game's version");
	}
	dbi_finish(d, st);
	return r;
}

int db_game_insert(db *d, const db_game *g, const unsigned char token_hashes[][DB_HASH_BYTES],
		   db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "INSERT INTO games (id, variant, rules_version, options, status, ply, "
		    "start_position, position, dice_seed, dice_commitment, created_at, updated_at, dice_version, "
		    "open_seats, open_until) "
		    "VALUES (?1, ?2, ?3, ?4, 'running', 0, ?5, ?5, ?6, ?7, ?8, ?8, ?9, ?10, ?11)", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, g->id);
	dbi_bind_text(st, 2, g->variant);
	dbi_bind_int(st, 3, g->rules_version);
	dbi_bind_text(st, 4, g->options ? g->options : "");
	dbi_bind_text(st, 5, g->position);
	dbi_bind_blob(st, 6, g->seed, DB_SEED_BYTES);
	dbi_bind_text(st, 7, g->commitment);
	dbi_bind_text(st, 8, g->created_at);
	dbi_bind_int(st, 9, g->dice_version);
	dbi_bind_int(st, 10, g->open_seats);
	dbi_bind_text(st, 11, g->open_until);
	r = dbi_step_done(d, st, err, "insert game");
	for (int i = 0; !r && i < g->nseats; i++) {
		r = dbi_prepare(d, "INSERT INTO seats (game_id, seat, name, email, token_hash, open) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &st, err);
		if (r)
			break;
		dbi_bind_text(st, 1, g->id);
		dbi_bind_int(st, 2, g->seats[i].seat);
		dbi_bind_text(st, 3, g->seats[i].name);
		dbi_bind_text(st, 4, g->seats[i].email);
		dbi_bind_blob(st, 5, token_hashes[i], DB_HASH_BYTES);
		dbi_bind_int(st, 6, g->seats[i].open);
		r = dbi_step_done(d, st, err, "insert seat");
	}
	return r;
}

int db_game_load(db *d, const char *id, db_game **out, db_error *err)
{
	dbi_stmt *st;
	db_game *g;
	int r, step;

	*out = NULL;
	/* One statement, so one read transaction: the game's row once per seat. */
	r = dbi_prepare(d, "SELECT g.id, g.variant, g.rules_version, g.options, g.status, g.ply, "
		    "g.start_position, g.position, g.result, g.ranks, g.draw_offer, g.dice_seed, "
		    "g.dice_commitment, g.created_at, g.updated_at, g.draw_accepts, s.seat, s.name, s.email, "
		    "s.client_seed, g.dice_version, g.dice_rolled, g.version, g.open_seats, g.open_until, s.open "
		    "FROM games g LEFT JOIN seats s ON s.game_id = g.id WHERE g.id = ?1 ORDER BY s.seat", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, id);
	switch (dbi_step(st)) {
	case DBI_ROW:
		break;
	case DBI_DONE:
		dbi_finish(d, st);
		return dbi_fail(err, DB_E_NOTFOUND, "no game %s", id);
	default:
		r = dbi_sql_fail(d, err, "load game");
		dbi_finish(d, st);
		return r;
	}
	g = xcalloc(1, sizeof *g);
	g->id = dbi_col_dup(st, 0);
	g->variant = dbi_col_dup(st, 1);
	g->rules_version = dbi_col_int(st, 2);
	g->options = dbi_col_dup(st, 3);
	g->over = strcmp(dbi_col_text(st, 4), "over") == 0;
	g->ply = dbi_col_int(st, 5);
	g->start_position = dbi_col_dup(st, 6);
	g->position = dbi_col_dup(st, 7);
	g->result = dbi_col_dup(st, 8);
	g->ranks = dbi_col_dup(st, 9);
	g->draw_offer = dbi_col_is_null(st, 10) ? -1 : dbi_col_int(st, 10);
	if (dbi_col_bytes(st, 11) == DB_SEED_BYTES)
		memcpy(g->seed, dbi_col_blob(st, 11), DB_SEED_BYTES);
	g->commitment = dbi_col_dup(st, 12);
	g->created_at = dbi_col_dup(st, 13);
	g->updated_at = dbi_col_dup(st, 14);
	g->draw_accepts = (unsigned)dbi_col_int(st, 15);
	g->dice_version = dbi_col_int(st, 20);
	g->dice_rolled = dbi_col_int(st, 21);
	g->version = dbi_col_int64(st, 22);
	g->open_seats = dbi_col_int(st, 23);
	g->open_until = dbi_col_dup(st, 24);
	step = DBI_ROW;
	while (step == DBI_ROW && !dbi_col_is_null(st, 16) && g->nseats < DB_MAX_SEATS) {
		db_seat *s = &g->seats[g->nseats++];
		s->seat = dbi_col_int(st, 16);
		s->name = dbi_col_dup(st, 17);
		s->email = dbi_col_dup(st, 18);
		s->client_seed = dbi_col_dup(st, 19);
		s->open = dbi_col_int(st, 25);
		step = dbi_step(st);
	}
	if (step != DBI_ROW && step != DBI_DONE)
		r = dbi_sql_fail(d, err, "load seats");
	dbi_finish(d, st);
	if (r) {
		db_game_free(g);
		return r;
	}
	*out = g;
	return 0;
}

void db_game_free(db_game *g)
{
	if (!g)
		return;
	free(g->id);
	free(g->variant);
	free(g->options);
	free(g->start_position);
	free(g->position);
	free(g->result);
	free(g->ranks);
	free(g->commitment);
	free(g->created_at);
	free(g->updated_at);
	free(g->open_until);
	for (int i = 0; i < g->nseats; i++) {
		free(g->seats[i].name);
		free(g->seats[i].email);
		free(g->seats[i].client_seed);
	}
	free(g);
}

int db_game_save_state(db *d, const db_game *g, db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "UPDATE games SET ply = ?2, position = ?3, status = ?4, result = ?5, "
		    "ranks = ?6, draw_offer = ?7, updated_at = ?8, draw_accepts = ?9 WHERE id = ?1", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, g->id);
	dbi_bind_int(st, 2, g->ply);
	dbi_bind_text(st, 3, g->position);
	dbi_bind_text(st, 4, g->over ? "over" : "running");
	dbi_bind_text(st, 5, g->result);
	dbi_bind_text(st, 6, g->ranks);
	if (g->draw_offer >= 0)
		dbi_bind_int(st, 7, g->draw_offer);
	else
		dbi_bind_null(st, 7);
	dbi_bind_text(st, 8, g->updated_at);
	dbi_bind_int(st, 9, g->draw_offer >= 0 ? (int)g->draw_accepts : 0);
	r = dbi_step_done(d, st, err, "save game");
	if (!r && dbi_changes(d) != 1)
		r = dbi_fail(err, DB_E_NOTFOUND, "no game %s", g->id);
	return r;
}

int db_seat_join(db *d, const char *game_id, int seat, const char *name, const char *email,
		 const unsigned char token_hash[DB_HASH_BYTES], const char *now, db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "UPDATE seats SET name = ?3, email = ?4, token_hash = ?5, open = 0 "
			"WHERE game_id = ?1 AND seat = ?2 AND open = 1", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_text(st, 3, name);
	dbi_bind_text(st, 4, email);
	dbi_bind_blob(st, 5, token_hash, DB_HASH_BYTES);
	r = dbi_step_done(d, st, err, "join seat");
	if (!r && dbi_changes(d) != 1)
		return dbi_fail(err, DB_E_CONFLICT, "seat %d of game %s is not open", seat, game_id);
	if (r)
		return r;
	r = dbi_prepare(d, "UPDATE games SET open_seats = open_seats - 1, updated_at = ?2 "
			"WHERE id = ?1 AND open_seats > 0", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_text(st, 2, now);
	r = dbi_step_done(d, st, err, "count open seats");
	if (!r && dbi_changes(d) != 1)
		r = dbi_fail(err, DB_E_CONFLICT, "game %s has no open seat", game_id);
	return r;
}

int db_games_expire_open(db *d, const char *now, char (*ids)[DB_GAME_ID_TEXT], int max, int *n, db_error *err)
{
	dbi_stmt *st;
	int r, step;

	*n = 0;
	r = dbi_prepare(d, "UPDATE games SET status = 'over', result = 'expired', ranks = NULL, updated_at = ?1 "
			"WHERE id IN (SELECT id FROM games WHERE status = 'running' AND open_seats > 0 "
			"AND open_until <= ?1 LIMIT ?2) RETURNING id", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, now);
	dbi_bind_int(st, 2, max);
	while ((step = dbi_step(st)) == DBI_ROW && *n < max)
		snprintf(ids[(*n)++], DB_GAME_ID_TEXT, "%s", dbi_col_text(st, 0));
	if (step != DBI_ROW && step != DBI_DONE)
		r = dbi_sql_fail(d, err, "expire open games");
	dbi_finish(d, st);
	return r;
}

int db_seat_set_client_seed(db *d, const char *game_id, int seat, const char *client_seed,
			    db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "UPDATE seats SET client_seed = ?3 WHERE game_id = ?1 AND seat = ?2", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, seat);
	dbi_bind_text(st, 3, client_seed);
	r = dbi_step_done(d, st, err, "set client seed");
	if (!r && dbi_changes(d) != 1)
		r = dbi_fail(err, DB_E_NOTFOUND, "no seat %d in game %s", seat, game_id);
	return r;
}

int db_game_mark_rolled(db *d, const char *game_id, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE games SET dice_rolled = 1 WHERE id = ?1", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	return dbi_step_done(d, st, err, "mark dice rolled");
}

int db_seat_by_token(db *d, const unsigned char hash[DB_HASH_BYTES], char **game_id,
		     int *seat, db_error *err)
{
	dbi_stmt *st;
	int r;

	*game_id = NULL;
	/* A seat's own token, or a further link minted for a signed-in player and not yet expired. */
	r = dbi_prepare(d, "SELECT game_id, seat FROM seats WHERE token_hash = ?1 UNION ALL "
			"SELECT game_id, seat FROM seat_links WHERE token_hash = ?1 AND expires_at > unixepoch()",
			&st, err);
	if (r)
		return r;
	dbi_bind_blob(st, 1, hash, DB_HASH_BYTES);
	if (dbi_step(st) == DBI_ROW) {
		*game_id = dbi_col_dup(st, 0);
		*seat = dbi_col_int(st, 1);
	} else {
		r = dbi_fail(err, DB_E_NOTFOUND, "unknown token");
	}
	dbi_finish(d, st);
	return r;
}

int db_move_append(db *d, const char *game_id, const db_move *m, db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "INSERT INTO moves (game_id, ply, seat, move, note, channel, at, dice, "
		    "position_after, secret, places) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
		    &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, m->ply);
	dbi_bind_int(st, 3, m->seat);
	dbi_bind_text(st, 4, m->move);
	dbi_bind_text(st, 5, m->note ? m->note : "");
	dbi_bind_text(st, 6, m->channel);
	dbi_bind_text(st, 7, m->at);
	dbi_bind_text(st, 8, m->dice ? m->dice : "[]");
	dbi_bind_text(st, 9, m->position_after);
	dbi_bind_int(st, 10, m->secret);
	dbi_bind_text(st, 11, m->places ? m->places : "[]");
	return dbi_step_done(d, st, err, "append move");
}

int db_moves_reveal(db *d, const char *game_id, db_error *err)
{
	dbi_stmt *st;
	int r = dbi_prepare(d, "UPDATE moves SET secret = 0 WHERE game_id = ?1 AND secret <> 0", &st, err);

	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	return dbi_step_done(d, st, err, "reveal moves");
}

static void read_move(dbi_stmt *st, db_move *m)
{
	m->ply = dbi_col_int(st, 0);
	m->seat = dbi_col_int(st, 1);
	m->move = dbi_col_dup(st, 2);
	m->note = dbi_col_dup(st, 3);
	m->channel = dbi_col_dup(st, 4);
	m->at = dbi_col_dup(st, 5);
	m->dice = dbi_col_dup(st, 6);
	m->position_after = dbi_col_dup(st, 7);
	m->secret = dbi_col_int(st, 8);
	m->places = dbi_col_dup(st, 9);
}

#define MOVE_COLUMNS "ply, seat, move, note, channel, at, dice, position_after, secret, places"

int db_move_get(db *d, const char *game_id, int ply, db_move *out, db_error *err)
{
	dbi_stmt *st;
	int r;

	memset(out, 0, sizeof *out);
	r = dbi_prepare(d, "SELECT " MOVE_COLUMNS " FROM moves WHERE game_id = ?1 AND ply = ?2", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, ply);
	if (dbi_step(st) == DBI_ROW)
		read_move(st, out);
	else
		r = dbi_fail(err, DB_E_NOTFOUND, "no move %d", ply);
	dbi_finish(d, st);
	return r;
}

int db_moves_range(db *d, const char *game_id, int from, int limit, db_move **out, size_t *n,
		   db_error *err)
{
	dbi_stmt *st;
	int r, rc = DBI_DONE;

	*out = NULL;
	*n = 0;
	if (limit <= 0)
		return 0;
	r = dbi_prepare(d, "SELECT " MOVE_COLUMNS " FROM moves WHERE game_id = ?1 AND ply >= ?2 "
			"ORDER BY ply LIMIT ?3", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, from);
	dbi_bind_int(st, 3, limit);
	*out = xcalloc((size_t)limit, sizeof **out);
	while (*n < (size_t)limit && (rc = dbi_step(st)) == DBI_ROW)
		read_move(st, &(*out)[(*n)++]);
	if (*n < (size_t)limit && rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "list moves");
	dbi_finish(d, st);
	if (r || *n == 0) {
		db_moves_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

void db_move_clear(db_move *m)
{
	free(m->move);
	free(m->note);
	free(m->channel);
	free(m->at);
	free(m->dice);
	free(m->position_after);
	free(m->places);
	memset(m, 0, sizeof *m);
}

void db_moves_free(db_move *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		db_move_clear(&v[i]);
	free(v);
}

int db_action_append(db *d, const char *game_id, int ply, int seat, const char *action,
		     const char *channel, const char *at, db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "INSERT INTO actions (game_id, seq, ply, seat, action, channel, at) "
		    "VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE game_id = ?1), "
		    "?2, ?3, ?4, ?5, ?6)", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	dbi_bind_int(st, 2, ply);
	dbi_bind_int(st, 3, seat);
	dbi_bind_text(st, 4, action);
	dbi_bind_text(st, 5, channel);
	dbi_bind_text(st, 6, at);
	return dbi_step_done(d, st, err, "append action");
}

int db_actions_list(db *d, const char *game_id, db_action **out, size_t *n, db_error *err)
{
	dbi_stmt *st;
	size_t cap = 0;
	int r, rc;

	*out = NULL;
	*n = 0;
	r = dbi_prepare(d, "SELECT seq, ply, seat, action, channel, at FROM actions "
		    "WHERE game_id = ?1 ORDER BY seq", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, game_id);
	while ((rc = dbi_step(st)) == DBI_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		db_action *a = &(*out)[(*n)++];
		a->seq = dbi_col_int(st, 0);
		a->ply = dbi_col_int(st, 1);
		a->seat = dbi_col_int(st, 2);
		a->action = dbi_col_dup(st, 3);
		a->channel = dbi_col_dup(st, 4);
		a->at = dbi_col_dup(st, 5);
	}
	if (rc != DBI_DONE)
		r = dbi_sql_fail(d, err, "list actions");
	dbi_finish(d, st);
	return r;
}

void db_actions_free(db_action *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].action);
		free(v[i].channel);
		free(v[i].at);
	}
	free(v);
}

int db_setting_get(db *d, const char *key, void **value, size_t *len, db_error *err)
{
	dbi_stmt *st;
	int r;

	*value = NULL;
	*len = 0;
	r = dbi_prepare(d, "SELECT value FROM settings WHERE key = ?1", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, key);
	if (dbi_step(st) == DBI_ROW) {
		*len = dbi_col_bytes(st, 0);
		*value = xmalloc(*len + 1);
		if (*len)
			memcpy(*value, dbi_col_blob(st, 0), *len);
		((char *)*value)[*len] = 0;
	} else {
		r = dbi_fail(err, DB_E_NOTFOUND, "no setting %s", key);
	}
	dbi_finish(d, st);
	return r;
}

int db_setting_put(db *d, const char *key, const void *value, size_t len, db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "INSERT INTO settings (key, value) VALUES (?1, ?2) "
			    "ON CONFLICT (key) DO UPDATE SET value = excluded.value", &st, err);
	if (r)
		return r;
	dbi_bind_text(st, 1, key);
	dbi_bind_blob(st, 2, value, len);
	return dbi_step_done(d, st, err, "put setting");
}

int db_game_count(db *d, int *count, db_error *err)
{
	dbi_stmt *st;
	int r;

	r = dbi_prepare(d, "SELECT COUNT(*) FROM games", &st, err);
	if (r)
		return r;
	*count = dbi_step(st) == DBI_ROW ? dbi_col_int(st, 0) : 0;
	dbi_finish(d, st);
	return 0;
}
