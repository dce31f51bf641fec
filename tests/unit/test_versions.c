/* test_versions.c - games' versions in memory: the writer's word stands, a reader's only when it cannot be stale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "core/versions.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commits_are_known),
		cmocka_unit_test(a_reader_never_lowers_a_version),
		cmocka_unit_test(a_reader_raises_a_lagging_version),
		cmocka_unit_test(a_reader_teaches_a_game_nobody_told_of),
		cmocka_unit_test(a_stale_reader_is_not_believed_after_a_record_was_replaced),
		cmocka_unit_test(replacing_a_record_is_harmless_before_the_mark),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
