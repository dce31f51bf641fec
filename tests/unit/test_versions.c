/* test_versions.c - games' versions in memory: the writer's word stands, a reader's only when it cannot be stale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/app.h"
#include "core/readers.h"
#include "core/versions.h"
#include "game/game.h"
#include "game/view_cache.h"
#include "game/view_served.h"
#include "pipeline/pipeline.h"

/* The version known for id, or -1. */
static long long known(versions *v, const char *id)
{
	long long version;
	return versions_get(v, id, &version) ? version : -1;
}

static void commits_are_known(void **state)
{
	versions *v = versions_new(64);
	(void)state;

	assert_int_equal(known(v, "g1"), -1);
	versions_committed(v, "g1", 3);
	assert_int_equal(known(v, "g1"), 3);
	versions_committed(v, "g1", 7);
	assert_int_equal(known(v, "g1"), 7);
	assert_int_equal(known(v, "g2"), -1);
	assert_int_equal(known(NULL, "g1"), -1);
	versions_free(v);
}

static void a_reader_never_lowers_a_version(void **state)
{
	versions *v = versions_new(64);
	uint64_t mark = versions_mark(v);
	(void)state;

	/* The reader's snapshot began before the commit of version 5: it read 4. */
	versions_committed(v, "g1", 5);
	versions_learn(v, "g1", 4, mark);
	assert_int_equal(known(v, "g1"), 5);
	versions_free(v);
}

/* Between a commit and the writer telling it, memory lags: a reader that saw the commit raises it. */
static void a_reader_raises_a_lagging_version(void **state)
{
	versions *v = versions_new(64);
	(void)state;

	versions_committed(v, "g1", 5);
	versions_learn(v, "g1", 6, versions_mark(v));
	assert_int_equal(known(v, "g1"), 6);
	versions_committed(v, "g1", 6);   /* the writer's word comes after: nothing goes back */
	assert_int_equal(known(v, "g1"), 6);
	versions_free(v);
}

static void a_reader_teaches_a_game_nobody_told_of(void **state)
{
	versions *v = versions_new(64);
	(void)state;

	versions_committed(v, "other", 2);
	uint64_t mark = versions_mark(v);
	versions_learn(v, "g1", 9, mark);
	assert_int_equal(known(v, "g1"), 9);
	versions_free(v);
}

/* From a commit's COMMIT until its versions are told, memory knows nothing; then it knows them. */
static void nothing_is_known_while_a_commit_is_told(void **state)
{
	versions *v = versions_new(64);
	(void)state;

	versions_committed(v, "g1", 3);
	versions_commit_told(v);   /* nothing begun: nothing to end */
	assert_int_equal(known(v, "g1"), 3);
	versions_commit_begins(v);
	assert_int_equal(known(v, "g1"), -1);
	versions_commit_begins(v);   /* a second commit in the same stretch */
	versions_committed(v, "g1", 4);
	assert_int_equal(known(v, "g1"), -1);
	versions_commit_told(v);
	assert_int_equal(known(v, "g1"), 4);
	versions_commit_begins(NULL);
	versions_commit_told(NULL);
	versions_free(v);
}

/* Ids that share the one slot of a table of room 1. */
static void a_stale_reader_is_not_believed_after_a_record_was_replaced(void **state)
{
	versions *v = versions_new(1);
	(void)state;

	/* A reader begins; g1 moves to 6 (told), then another game takes g1's slot: the 6 is forgotten. */
	uint64_t mark = versions_mark(v);
	versions_committed(v, "g1", 6);
	versions_committed(v, "g2", 1);
	assert_int_equal(known(v, "g1"), -1);
	/* The reader's snapshot saw g1 at 5, before the commit: it must not become g1's version. */
	versions_learn(v, "g1", 5, mark);
	assert_int_equal(known(v, "g1"), -1);
	assert_int_equal(known(v, "g2"), 1);
	/* A reader that began after all that is believed. */
	versions_learn(v, "g1", 6, versions_mark(v));
	assert_int_equal(known(v, "g1"), 6);
	versions_free(v);
}

static void replacing_a_record_is_harmless_before_the_mark(void **state)
{
	versions *v = versions_new(1);
	(void)state;

	versions_committed(v, "g1", 6);
	versions_committed(v, "g2", 1);   /* g1 forgotten, but before the reader began */
	uint64_t mark = versions_mark(v);
	versions_learn(v, "g1", 6, mark);
	assert_int_equal(known(v, "g1"), 6);
	versions_free(v);
}

/* A server's state around a real database file: the writer, two readers, versions and views in memory. */
struct served {
	char path[64];
	app a;
	game_created c;
};

static int serve(void **state)
{
	struct served *f = calloc(1, sizeof *f);
	game_seat_in seats[2] = {{"Ann", NULL, 0}, {"Ben", NULL, 0}};
	db_error de;
	app_error err;
	int fd;

	snprintf(f->path, sizeof f->path, "/tmp/rookery-test-versions-XXXXXX");
	fd = mkstemp(f->path);
	close(fd);
	unlink(f->path);
	if (db_open(f->path, &f->a.db, &de))
		return -1;
	pthread_mutex_init(&f->a.lock, NULL);
	app_watch_changes(&f->a);
	f->a.base_url = "http://127.0.0.1:1";
	f->a.versions = versions_new(64);
	f->a.views = view_cache_new(64, 1 << 20);
	if (app_load_keys(&f->a) || !(f->a.readers = readers_open(f->path, 2, &de)))
		return -1;
	app_writer_lock(&f->a);
	int r = game_create(&f->a, NULL, "nchess", seats, 2, &f->c, &err);
	app_writer_unlock(&f->a);
	*state = f;
	return r ? -1 : 0;
}

static int unserve(void **state)
{
	struct served *f = *state;
	char p[80];

	readers_close(f->a.readers);
	view_cache_free(f->a.views);
	versions_free(f->a.versions);
	db_close(f->a.db);
	pthread_mutex_destroy(&f->a.lock);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s%s", f->path, (const char *[]){"", "-wal", "-shm"}[i]);
		unlink(p);
	}
	free(f);
	return 0;
}

/* One request that reads the game JSON as the public sees it: its ply. */
static int ply_served(struct served *f, long long *version)
{
	view_served v;
	app_error err;
	json_t *o;
	int ply;

	app_read_begin(&f->a);
	assert_int_equal(view_serve_game(&f->a, f->c.id, -1, NULL, NULL, &v, &err), 0);
	app_read_end(&f->a);
	assert_non_null(o = json_loadb(v.text, v.len, 0, NULL));
	ply = (int)json_integer_value(json_object_get(o, "ply"));
	json_decref(o);
	free(v.text);
	*version = v.version;
	return ply;
}

/* One request that reads the game from the database (as a page of its moves does): its ply. */
static int ply_loaded(struct served *f)
{
	game_loaded g;
	app_error err;
	int ply;

	app_read_begin(&f->a);
	assert_int_equal(game_load(&f->a, f->c.id, &g, &err), 0);
	ply = g.rec->ply;
	game_loaded_free(&g);
	app_read_end(&f->a);
	return ply;
}

/*
 * The writer committed a move and has not told it yet: a read of the database
 * sees it, and a later read must not answer from the older version in memory.
 */
static void no_read_goes_back_while_a_commit_is_told(void **state)
{
	struct served *f = *state;
	game_move_done d;
	app_error err;
	long long version, before;

	app_writer_lock(&f->a);
	assert_int_equal(game_submit_move(&f->a, f->c.id, 0, 0, "S 7 1 6 1", "api", &d, NULL, &err), 0);
	app_writer_unlock(&f->a);
	assert_int_equal(ply_served(f, &before), 1);   /* the view of ply 1 is in the cache now */

	app_writer_lock(&f->a);
	assert_int_equal(game_submit_move(&f->a, f->c.id, 1, 1, "s 3 1 4 1", "api", &d, NULL, &err), 0);
	/* Committed, not told: the writer is between its COMMIT and app_writer_unlock. */
	assert_int_equal(ply_loaded(f), 2);
	assert_int_equal(ply_served(f, &version), 2);
	assert_true(version > before);
	app_writer_unlock(&f->a);

	assert_int_equal(ply_served(f, &version), 2);
	assert_true(versions_get(f->a.versions, f->c.id, &before));
	assert_int_equal(before, version);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commits_are_known),
		cmocka_unit_test(a_reader_never_lowers_a_version),
		cmocka_unit_test(a_reader_raises_a_lagging_version),
		cmocka_unit_test(a_reader_teaches_a_game_nobody_told_of),
		cmocka_unit_test(nothing_is_known_while_a_commit_is_told),
		cmocka_unit_test(a_stale_reader_is_not_believed_after_a_record_was_replaced),
		cmocka_unit_test(replacing_a_record_is_harmless_before_the_mark),
		cmocka_unit_test_setup_teardown(no_read_goes_back_while_a_commit_is_told, serve, unserve),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
