/* test_game.c - the move pipeline through game_*: turns, stale plies, duplicates, draws, resignation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/app.h"
#include "core/limits.h"
#include "game/game.h"
#include "pipeline/pipeline.h"

struct fixture {
	char path[64];
	app a;
	game_created c;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	game_seat_in seats[2] = {{"Ann", "ann@example.org", 0}, {"Ben", NULL, 0}};
	db_error de;
	app_error err;
	int fd;

	snprintf(f->path, sizeof f->path, "/tmp/rookery-test-game-XXXXXX");
	fd = mkstemp(f->path);
	close(fd);
	unlink(f->path);
	if (db_open(f->path, &f->a.db, &de))
		return -1;
	f->a.base_url = "http://127.0.0.1:1";
	if (app_load_keys(&f->a) || game_create(&f->a, NULL, "nchess", seats, 2, &f->c, &err))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[80];

	db_close(f->a.db);
	unlink(f->path);
	snprintf(p, sizeof p, "%s-wal", f->path);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", f->path);
	unlink(p);
	free(f);
	return 0;
}

static int ply_of(struct fixture *f)
{
	game_loaded g;
	app_error err;
	int ply;

	assert_int_equal(game_load(&f->a, f->c.id, &g, &err), 0);
	ply = g.rec->ply;
	game_loaded_free(&g);
	return ply;
}

static void tokens_open_their_seats(void **state)
{
	struct fixture *f = *state;
	app_error err;
	char *gid;
	int seat;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(game_authenticate(&f->a, f->c.tokens[i], &gid, &seat, &err), 0);
		assert_string_equal(gid, f->c.id);
		assert_int_equal(seat, i);
		free(gid);
	}
	assert_int_equal(game_authenticate(&f->a, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", &gid, &seat, &err), E_UNAUTHORIZED);
	assert_int_equal(game_authenticate(&f->a, "", &gid, &seat, &err), E_UNAUTHORIZED);
	assert_int_equal(game_authenticate(&f->a, "x' OR 1=1 --", &gid, &seat, &err), E_UNAUTHORIZED);
}

static void create_checks_input(void **state)
{
	struct fixture *f = *state;
	game_created c;
	app_error err;
	game_seat_in one[1] = {{"Ann", NULL, 0}};
	game_seat_in bad_email[2] = {{"Ann", "not-an-address", 0}, {"Ben", NULL, 0}};
	game_seat_in no_name[2] = {{"", NULL, 0}, {"Ben", NULL, 0}};
	game_seat_in ctrl[2] = {{"A\x01nn", NULL, 0}, {"Ben", NULL, 0}};

	assert_int_equal(game_create(&f->a, NULL, "go", one, 1, &c, &err), E_UNKNOWN_VARIANT);
	assert_int_equal(game_create(&f->a, NULL, "nchess", one, 1, &c, &err), E_BAD_REQUEST);
	assert_int_equal(game_create(&f->a, NULL, "nchess", bad_email, 2, &c, &err), E_BAD_REQUEST);
	assert_int_equal(game_create(&f->a, NULL, "nchess", no_name, 2, &c, &err), E_BAD_REQUEST);
	assert_int_equal(game_create(&f->a, NULL, "nchess", ctrl, 2, &c, &err), E_BAD_REQUEST);
}

static void move_pipeline(void **state)
{
	struct fixture *f = *state;
	game_move_done d;
	app_error err;

	/* North may not open. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 1, 0, "s 3 1 4 1", "api", &d, NULL, &err), E_NOT_YOUR_TURN);
	/* A wrong ply changes nothing. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 3, "S 7 1 6 1", "api", &d, NULL, &err), E_STALE);
	/* Garbage and illegal moves name the problem. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "hello", "api", &d, NULL, &err), E_BAD_MOVE);
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "S 7 5 8 5", "api", &d, NULL, &err), E_ILLEGAL);
	assert_true(strlen(err.message) > 0);
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "S 7 5 6 5 \xff", "api", &d, NULL, &err), E_BAD_MOVE);
	assert_int_equal(ply_of(f), 0);

	/* A legal move, typed loosely, is stored canonically. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "[s 7, 1, 6, 1]", "api", &d, NULL, &err), 0);
	assert_string_equal(d.move, "S 7 1 6 1");
	assert_int_equal(d.ply, 0);
	assert_false(d.duplicate);
	assert_int_equal(ply_of(f), 1);

	/* The same move again (even spelt differently) is answered, not stored twice. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "S 7 1 6 1", "api", &d, NULL, &err), 0);
	assert_true(d.duplicate);
	assert_string_equal(d.move, "S 7 1 6 1");
	assert_int_equal(ply_of(f), 1);
	/* Another move for that ply is stale. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "S 7 3 6 3", "api", &d, NULL, &err), E_STALE);
	/* The other seat cannot claim the ply either. */
	assert_int_equal(game_submit_move(&f->a, f->c.id, 1, 0, "S 7 1 6 1", "api", &d, NULL, &err), E_STALE);

	/* The pipeline hands back the game as the move left it: what a fresh load reads. */
	game_loaded after, loaded;
	assert_int_equal(game_submit_move(&f->a, f->c.id, 1, 1, "s 3 1 4 1", "mail", &d, &after, &err), 0);
	assert_int_equal(ply_of(f), 2);
	assert_int_equal(game_load(&f->a, f->c.id, &loaded, &err), 0);
	assert_int_equal(after.rec->ply, 2);
	assert_string_equal(after.rec->position, loaded.rec->position);
	char *a_pos = after.rules->serialize(after.pos), *l_pos = loaded.rules->serialize(loaded.pos);
	assert_string_equal(a_pos, l_pos);
	free(a_pos);
	free(l_pos);
	game_loaded_free(&after);
	game_loaded_free(&loaded);

	/* An over-long move text is refused before anything else. */
	char longtext[LIMIT_MOVE_TEXT + 2];
	memset(longtext, ' ', sizeof longtext - 1);
	longtext[sizeof longtext - 1] = 0;
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 2, longtext, "api", &d, NULL, &err), E_TOO_LARGE);
}

static void draw_flow(void **state)
{
	struct fixture *f = *state;
	game_move_done d;
	game_loaded g;
	app_error err;

	assert_int_equal(game_draw(&f->a, f->c.id, 0, "accept", "web", &err), E_NO_OFFER);
	assert_int_equal(game_draw(&f->a, f->c.id, 0, "dance", "web", &err), E_BAD_REQUEST);
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "offer", "web", &err), 0);
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "offer", "web", &err), E_OFFER_PENDING);
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "accept", "web", &err), E_NO_OFFER);
	assert_int_equal(game_draw(&f->a, f->c.id, 0, "decline", "web", &err), 0);
	assert_int_equal(game_draw(&f->a, f->c.id, 0, "decline", "web", &err), E_NO_OFFER);

	/* An offer lapses when the other side moves instead of answering. */
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "offer", "web", &err), 0);
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "S 7 1 6 1", "web", &d, NULL, &err), 0);
	assert_int_equal(game_draw(&f->a, f->c.id, 0, "accept", "web", &err), E_NO_OFFER);

	/* Offer, withdraw, offer, accept: drawn. */
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "offer", "web", &err), 0);
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "withdraw", "web", &err), 0);
	assert_int_equal(game_draw(&f->a, f->c.id, 1, "offer", "web", &err), 0);
	assert_int_equal(game_draw(&f->a, f->c.id, 0, "accept", "web", &err), 0);
	assert_int_equal(game_load(&f->a, f->c.id, &g, &err), 0);
	assert_true(g.rec->over);
	assert_string_equal(g.rec->result, "drawn by agreement");
	assert_string_equal(g.rec->ranks, "[1,1]");
	assert_int_equal(game_turn_mask(&g), 0);
	game_loaded_free(&g);
	assert_int_equal(game_submit_move(&f->a, f->c.id, 1, 1, "s 3 1 4 1", "web", &d, NULL, &err), E_GAME_OVER);
	assert_int_equal(game_resign(&f->a, f->c.id, 1, "web", &err), E_GAME_OVER);
}

static void resignation(void **state)
{
	struct fixture *f = *state;
	game_loaded g;
	app_error err;

	/* Resigning does not need the turn. */
	assert_int_equal(game_resign(&f->a, f->c.id, 1, "api", &err), 0);
	assert_int_equal(game_load(&f->a, f->c.id, &g, &err), 0);
	assert_true(g.rec->over);
	assert_string_equal(g.rec->result, "South wins: North resigned");
	assert_string_equal(g.rec->ranks, "[1,2]");
	game_loaded_free(&g);
	assert_int_equal(game_resign(&f->a, f->c.id, 0, "api", &err), E_GAME_OVER);
	assert_int_equal(game_load(&f->a, "nosuchgame", &g, &err), E_NOT_FOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(tokens_open_their_seats, setup, teardown),
		cmocka_unit_test_setup_teardown(create_checks_input, setup, teardown),
		cmocka_unit_test_setup_teardown(move_pipeline, setup, teardown),
		cmocka_unit_test_setup_teardown(draw_flow, setup, teardown),
		cmocka_unit_test_setup_teardown(resignation, setup, teardown),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
