/* test_view_cache.c - the cache of rendered views: exact keys, one view per game and viewer, LRU bounds, threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/view_cache.h"

#define BIG (1 << 20)

static void put(view_cache *c, const char *id, long long version, int viewer, const char *text)
{
	view_cache_meta meta = {.has_clock = (int)version % 2};

	meta.clock.base_s = version;
	view_cache_put(c, id, version, viewer, text, strlen(text), &meta);
}

/* The text held for the key, or NULL; freed at the next call. */
static const char *get(view_cache *c, const char *id, long long version, int viewer)
{
	static char *last;
	view_cache_meta meta;
	size_t len;

	free(last);
	last = NULL;
	if (!view_cache_get(c, id, version, viewer, &last, &len, &meta))
		return NULL;
	assert_int_equal(len, strlen(last));
	assert_int_equal(meta.clock.base_s, version);
	assert_int_equal(meta.has_clock, (int)version % 2);
	return last;
}

static void only_the_exact_key_answers(void **state)
{
	view_cache *c = view_cache_new(16, BIG);
	(void)state;

	put(c, "g1", 5, -1, "public");
	put(c, "g1", 5, 0, "south");
	put(c, "g1", 5, 1, "north");
	assert_string_equal(get(c, "g1", 5, -1), "public");
	assert_string_equal(get(c, "g1", 5, 0), "south");
	assert_string_equal(get(c, "g1", 5, 1), "north");
	/* No seat's view for another seat or the public, no version for another, no game for another. */
	assert_null(get(c, "g1", 5, 2));
	assert_null(get(c, "g1", 4, 0));
	assert_null(get(c, "g1", 6, -1));
	assert_null(get(c, "g2", 5, -1));
	assert_null(get(c, "g", 5, -1));
	assert_null(get(c, "g10", 5, -1));
	view_cache_stats st;
	view_cache_stats_get(c, &st);
	assert_int_equal(st.hits, 3);
	assert_int_equal(st.misses, 6);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.bytes, strlen("public") + strlen("south") + strlen("north"));
	view_cache_free(c);
}

static void newer_versions_replace_older_ones(void **state)
{
	view_cache *c = view_cache_new(16, BIG);
	view_cache_stats st;
	(void)state;

	put(c, "g1", 5, 0, "five");
	put(c, "g1", 7, 0, "seven");
	assert_null(get(c, "g1", 5, 0));
	assert_string_equal(get(c, "g1", 7, 0), "seven");
	/* A reader with an older snapshot, or a second reader of the same version, changes nothing. */
	put(c, "g1", 6, 0, "six");
	put(c, "g1", 7, 0, "seven again");
	assert_null(get(c, "g1", 6, 0));
	assert_string_equal(get(c, "g1", 7, 0), "seven");
	view_cache_stats_get(c, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.bytes, 5);
	assert_int_equal(st.evictions, 0);
	view_cache_free(c);
}

static void least_recently_used_goes_first(void **state)
{
	view_cache *c = view_cache_new(3, BIG);
	view_cache_stats st;
	(void)state;

	put(c, "a", 1, -1, "A");
	put(c, "b", 1, -1, "B");
	put(c, "c", 1, -1, "C");
	assert_non_null(get(c, "a", 1, -1));   /* a is now the most recent: b goes next */
	put(c, "d", 1, -1, "D");
	assert_null(get(c, "b", 1, -1));
	assert_non_null(get(c, "a", 1, -1));
	assert_non_null(get(c, "c", 1, -1));
	assert_non_null(get(c, "d", 1, -1));
	put(c, "e", 1, 0, "E");
	assert_null(get(c, "a", 1, -1));
	view_cache_stats_get(c, &st);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.evictions, 2);
	/* Many more: the bound holds. */
	for (int i = 0; i < 1000; i++) {
		char id[16];
		snprintf(id, sizeof id, "g%d", i);
		put(c, id, i, i % 5 - 1, "view");
	}
	view_cache_stats_get(c, &st);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.evictions, 2 + 1000);
	assert_non_null(get(c, "g999", 999, 999 % 5 - 1));
	assert_null(get(c, "g996", 996, 996 % 5 - 1));
	view_cache_free(c);
}

static void bytes_are_bounded_too(void **state)
{
	view_cache *c = view_cache_new(100, 10);
	view_cache_stats st;
	(void)state;

	put(c, "a", 1, -1, "12345");
	put(c, "b", 1, -1, "12345");
	put(c, "c", 1, -1, "1");   /* 11 bytes: a goes */
	assert_null(get(c, "a", 1, -1));
	assert_non_null(get(c, "b", 1, -1));
	put(c, "d", 1, -1, "12345678901");   /* larger than the whole bound: not kept, nothing goes */
	assert_null(get(c, "d", 1, -1));
	view_cache_stats_get(c, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.bytes, 6);
	view_cache_free(c);
}

static void zero_keeps_nothing(void **state)
{
	view_cache *c = view_cache_new(0, BIG);
	(void)state;

	put(c, "a", 1, -1, "A");
	assert_null(get(c, "a", 1, -1));
	view_cache_free(c);
	/* No cache at all answers nothing and keeps nothing. */
	put(NULL, "a", 1, -1, "A");
	assert_null(get(NULL, "a", 1, -1));
	view_cache_free(NULL);
	get(NULL, "", 0, 0);   /* frees the last copy */
}

/* Threads putting and getting at once: each answer is the text of its own key. */
static void *hammer(void *arg)
{
	view_cache *c = arg;
	view_cache_meta meta = {0};

	for (int i = 0; i < 20000; i++) {
		char id[16], text[64], *got;
		size_t len;
		int viewer = i % 3 - 1;
		snprintf(id, sizeof id, "g%d", i % 37);
		snprintf(text, sizeof text, "%s/%d/%d", id, i / 37, viewer);
		view_cache_put(c, id, i / 37, viewer, text, strlen(text), &meta);
		if (view_cache_get(c, id, i / 37, viewer, &got, &len, &meta)) {
			assert_string_equal(got, text);
			free(got);
		}
	}
	return NULL;
}

static void threads_share_it(void **state)
{
	view_cache *c = view_cache_new(8, BIG);
	pthread_t t[4];
	view_cache_stats st;
	(void)state;

	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, c), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	view_cache_stats_get(c, &st);
	assert_true(st.entries <= 8);
	assert_true(st.evictions > 0);
	view_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(only_the_exact_key_answers),
		cmocka_unit_test(newer_versions_replace_older_ones),
		cmocka_unit_test(least_recently_used_goes_first),
		cmocka_unit_test(bytes_are_bounded_too),
		cmocka_unit_test(zero_keeps_nothing),
		cmocka_unit_test(threads_share_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
