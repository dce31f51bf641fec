/* test_db.c - storage: migrations, version refusal, games, seats, moves, actions, settings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

static char path[64];

static int setup(void **state)
{
	(void)state;
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
	char p[80];
	(void)state;
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
	g->seats[0] = (db_seat){0, "Ann", "ann@example.org"};
	g->seats[1] = (db_seat){1, "Ben", NULL};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(migrates_and_sets_wal, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_newer_database, setup, teardown),
		cmocka_unit_test_setup_teardown(game_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(moves_range, setup, teardown),
		cmocka_unit_test_setup_teardown(rollback_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(settings, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
