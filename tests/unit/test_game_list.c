/* test_game_list.c - the parameters of a list of games, its cursor above all, read strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "game/game_list.h"

static char *cursor_of(const char *raw)
{
	static char out[128];

	sodium_bin2base64(out, sizeof out, (const unsigned char *)raw, strlen(raw),
			  sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return out;
}

static void parameters_read_strictly(void **state)
{
	game_list_ask ask;
	app_error err;
	char c[256];
	(void)state;

	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, NULL, &ask, &err), 0);
	assert_null(ask.listing);
	assert_null(ask.variant);
	assert_int_equal(ask.limit, LIMIT_GAME_LIST_DEFAULT);
	assert_string_equal(ask.before_id, "");
	assert_int_equal(game_list_ask_read("finished", "civil-war", "100", cursor_of("2026-11-20T10:00:01Z.g3"),
					    &ask, &err), 0);
	assert_string_equal(ask.listing, "finished");
	assert_string_equal(ask.variant->id, "civil-war");
	assert_int_equal(ask.limit, LIMIT_GAME_LIST_MAX);
	assert_string_equal(ask.before_at, "2026-11-20T10:00:01Z");
	assert_string_equal(ask.before_id, "g3");
	assert_int_equal(game_list_ask_read(NULL, NULL, "1", cursor_of("2026-11-20T10:00:01Z.abcdefghijklmnopqrstuvwxyz012345"),
					    &ask, &err), 0);
	assert_string_equal(ask.before_id, "abcdefghijklmnopqrstuvwxyz012345");

	static const char *const statuses[] = {"", "Open", "expired", "running", "over", "open ", NULL};
	for (int i = 0; statuses[i]; i++)
		assert_int_equal(game_list_ask_read(statuses[i], NULL, NULL, NULL, &ask, &err), E_BAD_REQUEST);
	static const char *const variants[] = {"", "chess", "NCHESS", "nchess ", NULL};
	for (int i = 0; variants[i]; i++)
		assert_int_equal(game_list_ask_read(NULL, variants[i], NULL, NULL, &ask, &err), E_BAD_REQUEST);
	static const char *const limits[] = {"", "0", "101", "-1", "+5", "1.0", "1e2", "0100", "99999999999", " 5", NULL};
	for (int i = 0; limits[i]; i++)
		assert_int_equal(game_list_ask_read(NULL, NULL, limits[i], NULL, &ask, &err), E_BAD_REQUEST);
	static const char *const raws[] = {
		"2026-11-20T10:00:01Z.g3'--", "2026-11-20T10:00:01Z.G3", "2026-11-20T10:00:01Z.", "2026-11-20T10:00:01Z",
		"2026-11-20 10:00:01Z.g3", "2026-11-20T10:00:01.g3", "x026-11-20T10:00:01Z.g3", "2026-11-20T10:00:01Zg3",
		"2026-11-20T10:00:01Z.abcdefghijklmnopqrstuvwxyz0123456", "2026-11-20T10:00:01Z.g 3", NULL,
	};
	for (int i = 0; raws[i]; i++)
		assert_int_equal(game_list_ask_read(NULL, NULL, NULL, cursor_of(raws[i]), &ask, &err), E_BAD_REQUEST);
	/* Not base64 as written here: padded, another alphabet, bits left over, too long, empty. */
	strcpy(c, cursor_of("2026-11-20T10:00:01Z.g3"));
	strcat(c, "=");
	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, c, &ask, &err), E_BAD_REQUEST);
	sodium_bin2base64(c, sizeof c, (const unsigned char *)"2026-11-20T10:00:01Z.g3?", 24,
			  sodium_base64_VARIANT_ORIGINAL);
	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, c, &ask, &err), E_BAD_REQUEST);
	strcpy(c, cursor_of("2026-11-20T10:00:01Z.g3"));
	/* 23 bytes: the last character carries 2 spare bits, which must be 0. */
	assert_int_equal(strlen(c), 31);
	c[30] = c[30] == 'z' ? 'y' : (char)(c[30] + 1);
	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, c, &ask, &err), E_BAD_REQUEST);
	memset(c, 'A', GAME_LIST_CURSOR_MAX + 4);
	c[GAME_LIST_CURSOR_MAX + 4] = 0;
	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, c, &ask, &err), E_BAD_REQUEST);
	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, "", &ask, &err), E_BAD_REQUEST);
	assert_int_equal(game_list_ask_read(NULL, NULL, NULL, "!!!!", &ask, &err), E_BAD_REQUEST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parameters_read_strictly),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
