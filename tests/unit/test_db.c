/* test_db.c - storage: the statement API over the backend, migrations, games, seats, moves, actions, settings, backups, client seeds, mail secrets, lists, and db/'s SQL as PostgreSQL reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/token.h"
#include "db.h"
#include "db_internal.h"
#include "migrations.h"
#include "postgresql/pg_db.h"

/* The database of each test: a new SQLite file, or with ROOKERY_TEST_DB a PostgreSQL database emptied first. */
static char path[512];
static const char *postgresql;

static int setup(void **state)
{
	(void)state;
	if (postgresql) {
		db *d;
		db_error e;
		int r;

		snprintf(path, sizeof path, "%s", postgresql);
		if (dbi_postgresql.open(path, DBI_OPEN_WRITER, &d, &e))
			return -1;
		r = dbi_exec(d, "DROP SCHEMA public CASCADE; CREATE SCHEMA public;", &e);
		db_close(d);
		return r;
	}
	snprintf(path, sizeof path, "/tmp/rookery-test-db-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	char p[600];
	(void)state;
	if (postgresql)
		return 0;
	unlink(path);
	snprintf(p, sizeof p, "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", path);
	unlink(p);
	return 0;
}

static void sample_game(db_game *g, const char *id)
{
	memset(g, 0, sizeof *g);
	g->id = (char *)id;
	g->variant = "nchess";
	g->rules_version = 1;
	g->options = "";
	g->position = "pos0";
	g->draw_offer = -1;
	memset(g->seed, 7, sizeof g->seed);
	g->commitment = "c0ffee";
	g->created_at = g->updated_at = "2026-11-22T00:00:00Z";
	g->nseats = 2;
	g->seats[0] = (db_seat){0, "Ann", "ann@example.org", NULL, 0};
	g->seats[1] = (db_seat){1, "Ben", NULL, NULL, 0};
}

/* What the query files rely on from any backend: typed parameters and columns, NULLs, blobs,
 * two borrowers of one SQL at once, a unique key's conflict reported as such, and changes. */
static void statement_api_keeps_its_contract(void **state)
{
	db *d;
	db_error e;
	dbi_stmt *a, *b;
	const unsigned char blob[3] = {0, 0xff, 7};
	(void)state;

	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(dbi_prepare(d, "INSERT INTO settings (key, value) VALUES ('blob', ?1)", &a, &e), 0);
	dbi_bind_blob(a, 1, blob, sizeof blob);
	assert_int_equal(dbi_step_done(d, a, &e, "blob"), 0);
	/* Typed by CAST where nothing else tells PostgreSQL a parameter's type, as the queries must be. */
	const char *sql = "SELECT CAST(?1 AS BIGINT), CAST(?2 AS TEXT), CAST(?3 AS TEXT), "
			  "(SELECT value FROM settings WHERE key = ?4), CAST(?5 AS INTEGER), CAST(?1 AS BIGINT) * 2";
	assert_int_equal(dbi_prepare(d, sql, &a, &e), 0);
	assert_int_equal(dbi_prepare(d, sql, &b, &e), 0);
	assert_ptr_not_equal(a, b);
	dbi_bind_int64(a, 1, 5000000000LL);
	dbi_bind_text(a, 2, "text");
	dbi_bind_text(a, 3, NULL);
	dbi_bind_text(a, 4, "blob");
	dbi_bind_int(a, 5, -3);
	dbi_bind_int(b, 1, 1);
	assert_int_equal(dbi_step(a), DBI_ROW);
	assert_int_equal(dbi_step(b), DBI_ROW);
	assert_true(dbi_col_int64(a, 0) == 5000000000LL);
	assert_string_equal(dbi_col_text(a, 1), "text");
	assert_true(dbi_col_is_null(a, 2));
	assert_null(dbi_col_text(a, 2));
	assert_null(dbi_col_dup(a, 2));
	assert_int_equal(dbi_col_bytes(a, 3), sizeof blob);
	assert_memory_equal(dbi_col_blob(a, 3), blob, sizeof blob);
	assert_int_equal(dbi_col_int(a, 4), -3);
	assert_true(dbi_col_double(a, 5) == 1e10);
	assert_int_equal(dbi_col_int(b, 5), 2);
	assert_true(dbi_col_is_null(b, 1));
	assert_int_equal(dbi_step(a), DBI_DONE);
	dbi_finish(d, a);
	dbi_finish(d, b);

	/* A statement given back is lent again clean: no row left, no parameter kept. */
	assert_int_equal(dbi_prepare(d, sql, &a, &e), 0);
	assert_int_equal(dbi_step(a), DBI_ROW);
	assert_true(dbi_col_is_null(a, 0));
	dbi_finish(d, a);

	assert_int_equal(dbi_prepare(d, "INSERT INTO settings (key, value) VALUES (?1, ?2)", &a, &e), 0);
	dbi_bind_text(a, 1, "k");
	dbi_bind_blob(a, 2, blob, sizeof blob);
	assert_int_equal(dbi_step_done(d, a, &e, "first"), 0);
	assert_int_equal(dbi_changes(d), 1);
	assert_int_equal(dbi_prepare(d, "INSERT INTO settings (key, value) VALUES (?1, ?2)", &a, &e), 0);
	dbi_bind_text(a, 1, "k");
	dbi_bind_blob(a, 2, blob, sizeof blob);
	assert_int_equal(dbi_step(a), DBI_ERROR);
	assert_int_equal(dbi_sql_fail(d, &e, "second"), DB_E_CONFLICT);
	assert_int_equal(e.code, DB_E_CONFLICT);
	dbi_finish(d, a);
	db_close(d);
}

static void migrates_and_sets_wal(void **state)
{
	db *d;
	db_error e;
	(void)state;

	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_schema_version(d), db_schema_version_supported());
	assert_true(db_schema_version_supported() >= 1);
	db_close(d);
	/* Opening again applies nothing and keeps the version. */
	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_schema_version(d), db_schema_version_supported());
	db_close(d);

	sqlite3 *raw;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(raw);
}

static void refuses_newer_database(void **state)
{
	db *d;
	db_error e;
	sqlite3 *raw;
	char sql[64];
	(void)state;

	assert_int_equal(db_open(path, &d, &e), 0);
	db_close(d);
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", db_schema_version_supported() + 1);
	assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(db_open(path, &d, &e), DB_E_VERSION);
	assert_null(d);
	assert_non_null(strstr(e.message, "newer"));
}

static void game_round_trip(void **state)
{
	db *d;
	db_error e;
	db_game g, *back;
	unsigned char hashes[2][DB_HASH_BYTES];
	char *gid;
	int seat;
	(void)state;

	memset(hashes[0], 1, DB_HASH_BYTES);
	memset(hashes[1], 2, DB_HASH_BYTES);
	sample_game(&g, "game1");
	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
	assert_int_equal(db_commit(d, &e), 0);

	assert_int_equal(db_game_load(d, "game1", &back, &e), 0);
	assert_string_equal(back->variant, "nchess");
	assert_int_equal(back->rules_version, 1);
	assert_string_equal(back->position, "pos0");
	assert_string_equal(back->start_position, "pos0");
	assert_int_equal(back->over, 0);
	assert_int_equal(back->draw_offer, -1);
	assert_memory_equal(back->seed, g.seed, DB_SEED_BYTES);
	assert_int_equal(back->nseats, 2);
	assert_string_equal(back->seats[0].name, "Ann");
	assert_string_equal(back->seats[0].email, "ann@example.org");
	assert_null(back->seats[1].email);

	assert_int_equal(db_seat_by_token(d, hashes[1], &gid, &seat, &e), 0);
	assert_string_equal(gid, "game1");
	assert_int_equal(seat, 1);
	free(gid);
	unsigned char unknown[DB_HASH_BYTES] = {9};
	assert_int_equal(db_seat_by_token(d, unknown, &gid, &seat, &e), DB_E_NOTFOUND);

	/* A second game with the same id is a conflict, and rolls back cleanly. */
	memset(hashes[0], 3, DB_HASH_BYTES);
	memset(hashes[1], 4, DB_HASH_BYTES);
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), DB_E_CONFLICT);
	db_rollback(d);

	/* State changes and moves. */
	db_move m = {0, 0, "S 7 1 6 1", "", "api", "2026-11-22T00:00:01Z", "[]", "pos1", 0, "[\"7 1\",\"6 1\"]"};
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_move_append(d, "game1", &m, &e), 0);
	free(back->position);
	back->position = strdup("pos1");
	back->ply = 1;
	back->draw_offer = 1;
	assert_int_equal(db_game_save_state(d, back, &e), 0);
	assert_int_equal(db_action_append(d, "game1", 1, 1, "offer", "web", "t", &e), 0);
	assert_int_equal(db_commit(d, &e), 0);
	/* The same ply twice is refused. */
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_move_append(d, "game1", &m, &e), DB_E_CONFLICT);
	db_rollback(d);
	db_game_free(back);

	assert_int_equal(db_game_load(d, "game1", &back, &e), 0);
	assert_int_equal(back->ply, 1);
	assert_string_equal(back->position, "pos1");
	assert_string_equal(back->start_position, "pos0");
	assert_int_equal(back->draw_offer, 1);
	db_game_free(back);

	/* A secret move stays secret until the game reveals its secrets. */
	db_move hidden = {1, 1, "setup", "", "api", "2026-11-22T00:00:02Z", "[]", "pos2", 1, NULL};
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_move_append(d, "game1", &hidden, &e), 0);
	assert_int_equal(db_commit(d, &e), 0);

	db_move *list;
	size_t n;
	assert_int_equal(db_moves_range(d, "game1", 0, 10, &list, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].move, "S 7 1 6 1");
	assert_string_equal(list[0].position_after, "pos1");
	assert_int_equal(list[0].secret, 0);
	assert_int_equal(list[1].secret, 1);
	assert_string_equal(list[0].places, "[\"7 1\",\"6 1\"]");
	assert_string_equal(list[1].places, "[]");
	db_moves_free(list, n);
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_moves_reveal(d, "game1", &e), 0);
	assert_int_equal(db_commit(d, &e), 0);
	db_move got;
	assert_int_equal(db_move_get(d, "game1", 1, &got, &e), 0);
	assert_int_equal(got.secret, 0);
	db_move_clear(&got);

	db_action *acts;
	assert_int_equal(db_actions_list(d, "game1", &acts, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(acts[0].action, "offer");
	assert_int_equal(acts[0].seq, 1);
	db_actions_free(acts, n);

	assert_int_equal(db_game_load(d, "nope", &back, &e), DB_E_NOTFOUND);
	db_close(d);
}

/* Append moves of plies [from, to) to game id, each named "<id> <ply>". */
static void append_moves(db *d, const char *id, int from, int to)
{
	db_error e;
	char text[32];

	assert_int_equal(db_begin(d, &e), 0);
	for (int ply = from; ply < to; ply++) {
		snprintf(text, sizeof text, "%s %d", id, ply);
		db_move m = {ply, ply % 2, text, "", "api", "2026-11-22T00:00:01Z", "[]", text, 0, "[]"};
		assert_int_equal(db_move_append(d, id, &m, &e), 0);
	}
	assert_int_equal(db_commit(d, &e), 0);
}

/* A page of moves: the plies asked for, in order, of that game only, and nothing past the end. */
static void moves_range(void **state)
{
	db *d;
	db_error e;
	db_game g;
	unsigned char hashes[2][DB_HASH_BYTES];
	db_move *list;
	size_t n;
	char want[32];
	static const struct { int from, limit, n; } pages[] = {
		{0, 10, 10}, {10, 10, 10}, {20, 10, 5}, {24, 1, 1}, {25, 10, 0}, {1000, 10, 0},
		{0, 500, 25}, {3, 0, 0}, {0, -1, 0},
	};
	(void)state;

	assert_int_equal(db_open(path, &d, &e), 0);
	for (int k = 0; k < 2; k++) {
		sample_game(&g, k ? "game2" : "game1");
		memset(hashes, k + 1, sizeof hashes);
		hashes[1][0] = 0x80;
		assert_int_equal(db_begin(d, &e), 0);
		assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
		assert_int_equal(db_commit(d, &e), 0);
	}
	/* Interleaved, so that the other game's moves sit between this one's in insertion order. */
	append_moves(d, "game1", 0, 12);
	append_moves(d, "game2", 0, 40);
	append_moves(d, "game1", 12, 25);
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		assert_int_equal(db_moves_range(d, "game1", pages[i].from, pages[i].limit, &list, &n, &e), 0);
		assert_int_equal(n, pages[i].n);
		for (size_t k = 0; k < n; k++) {
			snprintf(want, sizeof want, "game1 %d", pages[i].from + (int)k);
			assert_int_equal(list[k].ply, pages[i].from + (int)k);
			assert_string_equal(list[k].move, want);
			assert_string_equal(list[k].position_after, want);
		}
		db_moves_free(list, n);
	}
	assert_int_equal(db_moves_range(d, "nosuchgame", 0, 10, &list, &n, &e), 0);
	assert_int_equal(n, 0);
	db_moves_free(list, n);
	db_close(d);
}

static void rollback_leaves_nothing(void **state)
{
	db *d;
	db_error e;
	db_game g;
	unsigned char hashes[2][DB_HASH_BYTES] = {{5}, {6}};
	int count;
	(void)state;

	sample_game(&g, "game2");
	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
	db_rollback(d);
	assert_int_equal(db_game_count(d, &count, &e), 0);
	assert_int_equal(count, 0);
	db_close(d);
}

struct committing {
	db *reader;
	int calls;
	int seen;   /* the reader saw the game from inside the call */
};

static void committing(void *arg)
{
	struct committing *c = arg;
	long long version;
	db_error e;

	c->calls++;
	if (db_game_version(c->reader, "game4", &version, &e) != DB_E_NOTFOUND)
		c->seen++;
}

static void changed(void *ctx, const char *game_id, long long version)
{
	(void)ctx;
	(void)game_id;
	(void)version;
}

static void noted_games_are_announced_inside_the_commit(void **state)
{
	struct committing c = {0};
	db *d;
	db_error e;
	db_game g;
	unsigned char hashes[2][DB_HASH_BYTES] = {{7}, {8}};
	long long version;
	(void)state;

	sample_game(&g, "game4");
	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_open_reader(path, &c.reader, &e), 0);
	db_watch_changes(d, committing, &c);
	/* A commit that touches no game is not announced. */
	assert_int_equal(db_setting_put(d, "k", "v", 1, &e), 0);
	assert_int_equal(c.calls, 0);
	/* One that does is, while no other connection can see it yet. */
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
	assert_int_equal(c.calls, 0);
	assert_int_equal(db_commit(d, &e), 0);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.seen, 0);
	assert_int_equal(db_game_version(c.reader, "game4", &version, &e), 0);
	/* Once the noted games are read, commits without a game are not announced again. */
	assert_int_equal(db_changed_games(d, changed, NULL, &e), 0);
	assert_int_equal(db_setting_put(d, "k", "w", 1, &e), 0);
	assert_int_equal(c.calls, 1);
	db_close(c.reader);
	db_close(d);
}

static void settings(void **state)
{
	db *d;
	db_error e;
	void *v;
	size_t len;
	(void)state;

	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_setting_get(d, "k", &v, &len, &e), DB_E_NOTFOUND);
	assert_int_equal(db_setting_put(d, "k", "\x00\x01\x02", 3, &e), 0);
	assert_int_equal(db_setting_get(d, "k", &v, &len, &e), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(v, "\x00\x01\x02", 3);
	free(v);
	db_close(d);
}

/* "<dir>/<name>" in a static buffer of its own per slot. */
static const char *in(int slot, const char *dir, const char *name)
{
	static char buf[8][128];
	int n = snprintf(buf[slot], sizeof buf[slot], "%s/%s", dir, name);
	assert_true(n > 0 && (size_t)n < sizeof buf[slot]);
	return buf[slot];
}

static int file_is(const char *p, const char *text)
{
	char got[64] = "";
	FILE *f = fopen(p, "r");
	if (!f)
		return 0;
	size_t n = fread(got, 1, sizeof got - 1, f);
	fclose(f);
	got[n] = 0;
	return !strcmp(got, text);
}

static void backup_is_private_and_touches_only_its_own(void **state)
{
	char dir[64] = "/tmp/rookery-test-backup-XXXXXX", link[80];
	db *d, *copy;
	db_game g;
	db_error e;
	unsigned char hashes[2][DB_HASH_BYTES] = {{1}, {2}};
	struct stat st;
	int count;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(db_open(path, &d, &e), 0);
	sample_game(&g, "g1");
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);

	/* 0600 whatever the umask, nothing left beside it, a database of its own. */
	mode_t old = umask(022);
	assert_int_equal(db_backup(d, in(0, dir, "copy.db"), &e), 0);
	umask(old);
	assert_int_equal(stat(in(0, dir, "copy.db"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(access(in(1, dir, "copy.db.part"), F_OK), -1);
	assert_int_equal(db_open(in(0, dir, "copy.db"), &copy, &e), 0);
	assert_int_equal(db_game_count(copy, &count, &e), 0);
	assert_int_equal(count, 1);
	db_close(copy);

	/* An existing dest, even a dangling link, is refused and left as it was. */
	assert_int_equal(db_backup(d, in(0, dir, "copy.db"), &e), DB_E_CONFLICT);
	assert_int_equal(symlink(in(1, dir, "nowhere.db"), in(2, dir, "link.db")), 0);
	assert_int_equal(db_backup(d, in(2, dir, "link.db"), &e), DB_E_CONFLICT);
	assert_int_equal(readlink(in(2, dir, "link.db"), link, sizeof link), (ssize_t)strlen(in(1, dir, "nowhere.db")));
	assert_int_equal(access(in(1, dir, "nowhere.db"), F_OK), -1);

	/* A "<dest>.part" that this call did not make is neither used nor deleted. */
	FILE *f = fopen(in(3, dir, "next.db.part"), "w");
	assert_non_null(f);
	fputs("theirs", f);
	fclose(f);
	assert_int_equal(db_backup(d, in(4, dir, "next.db"), &e), DB_E_CONFLICT);
	assert_non_null(strstr(e.message, ".part already exists"));
	assert_true(file_is(in(3, dir, "next.db.part"), "theirs"));
	assert_int_equal(access(in(4, dir, "next.db"), F_OK), -1);

	/* A directory that is a symbolic link, a missing one, a dest that names no file. */
	assert_int_equal(symlink(dir, in(5, dir, "trap")), 0);
	assert_int_equal(db_backup(d, in(6, in(5, dir, "trap"), "x.db"), &e), DB_E_IO);
	assert_non_null(strstr(e.message, "symbolic link"));
	assert_int_equal(db_backup(d, in(6, dir, "missing/x.db"), &e), DB_E_IO);
	assert_int_equal(db_backup(d, in(6, dir, ""), &e), DB_E_IO);
	assert_int_equal(access(in(7, dir, "x.db"), F_OK), -1);

	db_close(d);
	unlink(in(0, dir, "copy.db"));
	unlink(in(2, dir, "link.db"));
	unlink(in(3, dir, "next.db.part"));
	unlink(in(5, dir, "trap"));
	assert_int_equal(rmdir(dir), 0);   /* nothing else was left behind */
}

/* The migration to client seeds keeps the games stored before it on dice version 1. */
static void client_seeds_and_dice_version(void **state)
{
	unsigned char hashes[2][DB_HASH_BYTES];
	sqlite3 *raw;
	db_game g, *back;
	db_error e;
	db *d;
	int i;
	(void)state;

	/* A database as the migrations before 0006_client_seeds.sql left it, with one game. */
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	for (i = 0; db_migrations[i].name && strcmp(db_migrations[i].name, "0006_client_seeds.sql"); i++) {
		char *sql = strndup(db_migrations[i].data, db_migrations[i].len);
		assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
		free(sql);
	}
	assert_non_null(db_migrations[i].name);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", i);
	assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "INSERT INTO games (id, variant, rules_version, status, start_position, "
				      "position, dice_seed, dice_commitment, created_at, updated_at) VALUES ('old', "
				      "'civil-war', 1, 'running', 'p', 'p', x'00', 'c', 't', 't'); INSERT INTO seats "
				      "(game_id, seat, name, token_hash) VALUES ('old', 0, 'Ann', x'01')",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);

	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_schema_version(d), db_schema_version_supported());
	assert_int_equal(db_game_load(d, "old", &back, &e), 0);
	assert_int_equal(back->dice_version, 1);
	assert_int_equal(back->dice_rolled, 0);
	assert_null(back->seats[0].client_seed);
	db_game_free(back);

	/* A new game keeps the version it is inserted with; seeds and the first roll are stored. */
	memset(hashes[0], 1, DB_HASH_BYTES);
	memset(hashes[1], 2, DB_HASH_BYTES);
	sample_game(&g, "new");
	g.dice_version = 2;
	assert_int_equal(db_begin(d, &e), 0);
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
	assert_int_equal(db_seat_set_client_seed(d, "new", 1, "lucky 7", &e), 0);
	assert_int_equal(db_seat_set_client_seed(d, "new", 2, "no such seat", &e), DB_E_NOTFOUND);
	assert_int_equal(db_game_mark_rolled(d, "new", &e), 0);
	assert_int_equal(db_commit(d, &e), 0);
	assert_int_equal(db_game_load(d, "new", &back, &e), 0);
	assert_int_equal(back->dice_version, 2);
	assert_int_equal(back->dice_rolled, 1);
	assert_null(back->seats[0].client_seed);
	assert_string_equal(back->seats[1].client_seed, "lucky 7");
	db_game_free(back);
	db_close(d);
}

/* A mail as the composer writes it: folded headers, a reply address, links in the body. */
static const char full_mail[] =
	"Date: Thu, 26 Nov 2026 03:00:00 +0000\n"
	"From: Rookery <rookery@rook.test>\n"
	"Reply-To: Rookery <play+g1-0-1-secretsecretsecr@rook.test>\n"
	"Subject: [Rookery] Nchess game g1: Ann (South)\n"
	" vs Ben (North)\n"
	"To: Ann <ann@example.org>\n"
	"List-Unsubscribe: <http://x.test/unsubscribe/SECRETSECRETSECRETSECRETSECRET01>\n"
	"List-Unsubscribe-Post: List-Unsubscribe=One-Click\n"
	"Message-Id: <g1.your_turn.1@rook.test>\n"
	"In-Reply-To: <g1.0.invite@rook.test>\n"
	"references: <g1.0.invite@rook.test>\n"
	"MIME-Version: 1.0\n"
	"Content-Type: text/plain\n"
	"\n"
	"Your seat link: http://x.test/games/g1?seat=SECRETSECRETSECRETSECRETSECRET02\n";
static const char kept_mail[] =
	"Date: Thu, 26 Nov 2026 03:00:00 +0000\n"
	"From: Rookery <rookery@rook.test>\n"
	"Subject: [Rookery] Nchess game g1: Ann (South)\n"
	" vs Ben (North)\n"
	"To: Ann <ann@example.org>\n"
	"Message-Id: <g1.your_turn.1@rook.test>\n"
	"In-Reply-To: <g1.0.invite@rook.test>\n"
	"references: <g1.0.invite@rook.test>\n"
	"\n" DB_OUTBOX_WIPED "\n";

/* The outbox's messages by id, read past the storage layer. */
static char *outbox_message(long long id)
{
	sqlite3 *raw;
	sqlite3_stmt *st;
	char *out = NULL;

	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(raw, "SELECT message FROM outbox WHERE id = ?1", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(raw);
	return out;
}

static void raw_exec(const char *sql)
{
	sqlite3 *raw;

	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
}

static void outbox_wiped_once_done(void **state)
{
	db *d;
	db_error e;
	db_outbox_row *rows;
	size_t n;
	int count;
	char *m, wal[600];
	(void)state;

	assert_int_equal(db_open(path, &d, &e), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(db_outbox_add(d, "g1", "your_turn", "ann@example.org", full_mail,
					       "2026-11-26T03:00:00Z", 0, &e), 0);
	assert_int_equal(db_outbox_claim(d, 1, 4, &rows, &n, &e), 0);
	assert_int_equal(n, 4);
	/* Claimed rows are whole: a retry sends them again. */
	assert_string_equal(rows[0].message, full_mail);
	assert_int_equal(db_outbox_sent(d, rows[0].id, "2026-11-26T03:00:01Z", &e), 0);
	assert_int_equal(db_outbox_failed(d, rows[1].id, "550 no such mailbox", &e), 0);
	assert_int_equal(db_outbox_retry(d, rows[2].id, 100, "451 later", &e), 0);
	db_outbox_rows_free(rows, n);
	/* The fourth is left 'sending', as by a crash: a claim as new as the cut-off may still be
	 * another daemon's mail in flight; an older one was interrupted. */
	assert_int_equal(db_outbox_abandon_interrupted(d, 1, &count, &e), 0);
	assert_int_equal(count, 0);
	assert_int_equal(db_outbox_abandon_interrupted(d, 2, &count, &e), 0);
	assert_int_equal(count, 1);
	db_close(d);
	snprintf(wal, sizeof wal, "%s-wal", path);
	assert_int_equal(access(wal, F_OK), -1);   /* the last close leaves no WAL behind */

	for (long long id = 1; id <= 4; id++) {
		m = outbox_message(id);
		assert_string_equal(m, id == 3 ? full_mail : kept_mail);
		free(m);
	}

	/* Migration 0007 wipes what an older Rookery left sent: rerun it while it is the newest. */
	int idx = 0;
	while (db_migrations[idx].name && strcmp(db_migrations[idx].name, "0007_outbox_wipe.sql"))
		idx++;
	assert_non_null(db_migrations[idx].name);
	if (idx + 1 != db_schema_version_supported())
		skip();
	char sql[512];
	snprintf(sql, sizeof sql, "UPDATE outbox SET message = (SELECT message FROM outbox WHERE id = 3), "
		 "state = 'sent' WHERE id = 1; PRAGMA user_version = %d;", idx);
	raw_exec(sql);
	assert_int_equal(db_open(path, &d, &e), 0);
	db_close(d);
	m = outbox_message(1);
	assert_string_equal(m, kept_mail);
	free(m);
	m = outbox_message(3);   /* queued: still whole */
	assert_string_equal(m, full_mail);
	free(m);
}

static void links_expire_and_signin_works_once(void **state)
{
	db *d;
	db_error e;
	db_game g;
	unsigned char hashes[2][DB_HASH_BYTES] = {{1}, {2}}, h[4][DB_HASH_BYTES] = {{10}, {11}, {12}, {13}};
	char *email, *gid;
	int count, seat;
	long long now = (long long)time(NULL);
	(void)state;

	sample_game(&g, "g1");
	assert_int_equal(db_open(path, &d, &e), 0);
	assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
	assert_int_equal(db_seat_link_add(d, h[0], "g1", 0, now - 1, &e), 0);
	assert_int_equal(db_seat_link_add(d, h[1], "g1", 1, now + 100, &e), 0);
	assert_int_equal(db_signin_add(d, h[2], "ann@example.org", now, &e), 0);
	assert_int_equal(db_signin_add(d, h[3], "ann@example.org", now + 60, &e), 0);

	/* Used up: found once only; an expired one never. */
	assert_int_equal(db_signin_take(d, h[2], now, &email, &e), DB_E_NOTFOUND);
	assert_null(email);
	assert_int_equal(db_signin_email(d, h[3], now, &email, &e), 0);
	free(email);
	assert_int_equal(db_signin_take(d, h[3], now, &email, &e), 0);
	assert_string_equal(email, "ann@example.org");
	free(email);
	assert_int_equal(db_signin_take(d, h[3], now, &email, &e), DB_E_NOTFOUND);
	assert_int_equal(db_signin_email(d, h[3], now, &email, &e), DB_E_NOTFOUND);

	/* A seat link past its time is refused even before it is deleted (checked against the clock). */
	assert_int_equal(db_seat_by_token(d, h[0], &gid, &seat, &e), DB_E_NOTFOUND);
	assert_int_equal(db_seat_by_token(d, h[1], &gid, &seat, &e), 0);
	assert_int_equal(seat, 1);
	free(gid);

	/* Expired at or before now: deleted; the rest stays. */
	assert_int_equal(db_links_expire(d, now, &count, &e), 0);
	assert_int_equal(count, 2);   /* the seat link of now - 1, the sign-in link of now */
	assert_int_equal(db_links_expire(d, now, &count, &e), 0);
	assert_int_equal(count, 0);
	assert_int_equal(db_seat_by_token(d, h[1], &gid, &seat, &e), 0);
	free(gid);
	db_close(d);
}

/* The games of the lists (db_game_list.c) below: id, variant, created_at, and what becomes of it. */
static const struct {
	const char *id, *variant, *created_at, *sql;
} list_games[] = {
	{"g1", "nchess", "2026-11-20T10:00:00Z", NULL},
	{"g2", "cyvasse", "2026-11-20T10:00:01Z", "UPDATE games SET status = 'over', result = 'White wins' WHERE id = 'g2'"},
	{"g3", "nchess", "2026-11-20T10:00:01Z", "UPDATE games SET open_seats = 1 WHERE id = 'g3';"
						  "UPDATE seats SET open = 1, name = 'North' WHERE game_id = 'g3' AND seat = 1"},
	{"g4", "nchess", "2026-11-20T10:00:01Z", "UPDATE games SET status = 'over', result = 'expired', open_seats = 1 "
						  "WHERE id = 'g4'"},
	{"g5", "nchess", "2026-11-20T10:00:02Z", "UPDATE games SET status = 'over', result = 'South wins' WHERE id = 'g5'"},
	{"g6", "cyvasse", "2026-11-21T09:00:00Z", NULL},
	{"g7", "nchess", "2026-11-21T09:00:00Z", NULL},
};

static db *listed_games(void)
{
	db *d;
	db_error e;
	sqlite3 *raw;
	unsigned char hashes[2][DB_HASH_BYTES];

	assert_int_equal(db_open(path, &d, &e), 0);
	for (size_t i = 0; i < sizeof list_games / sizeof list_games[0]; i++) {
		db_game g;
		sample_game(&g, list_games[i].id);
		g.variant = (char *)list_games[i].variant;
		g.created_at = g.updated_at = (char *)list_games[i].created_at;
		memset(hashes[0], (int)(2 * i + 1), DB_HASH_BYTES);
		memset(hashes[1], (int)(2 * i + 2), DB_HASH_BYTES);
		assert_int_equal(db_begin(d, &e), 0);
		assert_int_equal(db_game_insert(d, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &e), 0);
		assert_int_equal(db_commit(d, &e), 0);
	}
	/* What only other parts of the service make (a finished game, open seats, one that lapsed). */
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	for (size_t i = 0; i < sizeof list_games / sizeof list_games[0]; i++)
		if (list_games[i].sql)
			assert_int_equal(sqlite3_exec(raw, list_games[i].sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	return d;
}

/* The ids listed, joined by spaces. */
static void listed(db *d, const char *listing, const char *variant, const char *at, const char *id, int limit,
		   const char *want)
{
	db_listed_game *v;
	db_error e;
	size_t n;
	char ids[128] = "";

	assert_int_equal(db_games_listed(d, listing, variant, at, id, limit, &v, &n, &e), 0);
	for (size_t i = 0; i < n; i++)
		snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", i ? " " : "", v[i].id);
	assert_string_equal(ids, want);
	db_listed_games_free(v, n);
}

static void lists_newest_first_by_status_and_variant(void **state)
{
	db *d = listed_games();
	(void)state;

	/* created_at descending, then id descending; the lapsed open game g4 is in no list. */
	listed(d, NULL, NULL, NULL, NULL, 100, "g7 g6 g5 g3 g2 g1");
	listed(d, "active", NULL, NULL, NULL, 100, "g7 g6 g1");
	listed(d, "open", NULL, NULL, NULL, 100, "g3");
	listed(d, "finished", NULL, NULL, NULL, 100, "g5 g2");
	listed(d, NULL, "cyvasse", NULL, NULL, 100, "g6 g2");
	listed(d, "active", "nchess", NULL, NULL, 100, "g7 g1");
	listed(d, "finished", "civil-war", NULL, NULL, 100, "");
	listed(d, NULL, NULL, NULL, NULL, 2, "g7 g6");
	/* From a cursor: strictly after its row, ties of time broken by id. */
	listed(d, NULL, NULL, "2026-11-21T09:00:00Z", "g6", 100, "g5 g3 g2 g1");
	listed(d, NULL, NULL, "2026-11-20T10:00:01Z", "g3", 2, "g2 g1");
	listed(d, NULL, NULL, "2026-11-20T10:00:01Z", "g2", 100, "g1");
	listed(d, NULL, NULL, "2026-11-20T10:00:00Z", "g1", 100, "");
	/* A row that is not there is a place in the order all the same. */
	listed(d, NULL, NULL, "2026-11-20T10:00:01Z", "g25", 100, "g2 g1");
	listed(d, "active", "cyvasse", "2026-11-21T09:00:00Z", "g7", 100, "g6");

	db_listed_game *v;
	db_error e;
	size_t n;
	assert_int_equal(db_games_listed(d, "open", NULL, NULL, NULL, 10, &v, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].listing, "open");
	assert_int_equal(v[0].nseats, 2);
	assert_string_equal(v[0].seats[0].name, "Ann");
	assert_false(v[0].seats[0].open);
	assert_string_equal(v[0].seats[1].name, "North");
	assert_int_equal(v[0].seats[1].open, 1);
	assert_null(v[0].result);
	db_listed_games_free(v, n);
	assert_int_equal(db_games_listed(d, "finished", "cyvasse", NULL, NULL, 10, &v, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].result, "White wins");
	assert_string_equal(v[0].created_at, "2026-11-20T10:00:01Z");
	db_listed_games_free(v, n);
	db_close(d);
}

/* ?N becomes $N outside quotes, the markers become their words, and the parameters named are told. */
static void pg_translate_rewrites_placeholders_and_markers(void **state)
{
	(void)state;
	int n;
	unsigned long used;
	char *t = pg_translate("SELECT a FROM t WHERE b = ?3 AND c = '?1' AND \"?2\" = ?12 OR d = ?3", &n, &used);

	assert_string_equal(t, "SELECT a FROM t WHERE b = $3 AND c = '?1' AND \"?2\" = $12 OR d = $3");
	assert_int_equal(n, 12);
	assert_int_equal(used, (1ul << 2) | (1ul << 11));
	free(t);
	t = pg_translate("SELECT id FROM outbox LIMIT ?1 /*skip_locked*/", &n, &used);
	assert_string_equal(t, "SELECT id FROM outbox LIMIT $1 FOR UPDATE SKIP LOCKED");
	assert_int_equal(n, 1);
	assert_int_equal(used, 1ul);
	free(t);
	t = pg_translate("COMMIT", &n, &used);
	assert_string_equal(t, "COMMIT");
	assert_int_equal(n, 0);
	assert_int_equal(used, 0ul);
	free(t);
}

/*
 * The tests of what every backend does alike; main runs only these on PostgreSQL. The others
 * are about SQLite (WAL, PRAGMA user_version, the update hook, backups) or prepare their
 * database through SQLite itself.
 */
static const struct CMUnitTest shared_tests[] = {
	cmocka_unit_test_setup_teardown(statement_api_keeps_its_contract, setup, teardown),
	cmocka_unit_test_setup_teardown(game_round_trip, setup, teardown),
	cmocka_unit_test_setup_teardown(moves_range, setup, teardown),
	cmocka_unit_test_setup_teardown(rollback_leaves_nothing, setup, teardown),
	cmocka_unit_test_setup_teardown(settings, setup, teardown),
	cmocka_unit_test_setup_teardown(links_expire_and_signin_works_once, setup, teardown),
};

int main(void)
{
	/* tests/postgresql/db_unit.py runs this program again with a private PostgreSQL. */
	postgresql = getenv("ROOKERY_TEST_DB");
	if (postgresql)
		return cmocka_run_group_tests_name("db on postgresql", shared_tests, NULL, NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(statement_api_keeps_its_contract, setup, teardown),
		cmocka_unit_test_setup_teardown(migrates_and_sets_wal, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_newer_database, setup, teardown),
		cmocka_unit_test_setup_teardown(game_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(moves_range, setup, teardown),
		cmocka_unit_test_setup_teardown(rollback_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(noted_games_are_announced_inside_the_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(settings, setup, teardown),
		cmocka_unit_test_setup_teardown(backup_is_private_and_touches_only_its_own, setup, teardown),
		cmocka_unit_test_setup_teardown(client_seeds_and_dice_version, setup, teardown),
		cmocka_unit_test_setup_teardown(outbox_wiped_once_done, setup, teardown),
		cmocka_unit_test_setup_teardown(links_expire_and_signin_works_once, setup, teardown),
		cmocka_unit_test_setup_teardown(lists_newest_first_by_status_and_variant, setup, teardown),
		cmocka_unit_test(pg_translate_rewrites_placeholders_and_markers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
