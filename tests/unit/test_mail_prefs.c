/* test_mail_prefs.c - reading a choice of how much mail from a form and from a mail command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "mail_out/mail_prefs.h"

static void commands(void **state)
{
	static const struct {
		const char *words;
		int result, mode, hour;
	} cases[] = {
		{"every move", 1, DB_MAIL_EVERY_MOVE, -1},
		{"essentials", 1, DB_MAIL_ESSENTIALS, -1},
		{"digest", 1, DB_MAIL_DIGEST, -1},
		{"digest 7", 1, DB_MAIL_DIGEST, 7},
		{"digest 07", 1, DB_MAIL_DIGEST, 7},
		{"digest 7:00", 1, DB_MAIL_DIGEST, 7},
		{"digest 23:00 utc", 1, DB_MAIL_DIGEST, 23},
		{"digest 0 utc", 1, DB_MAIL_DIGEST, 0},
		{"digest 24", -1, 0, 0},
		{"digest 7:30", -1, 0, 0},
		{"digest 007", -1, 0, 0},
		{"digest -1", -1, 0, 0},
		{"digest tomorrow", -1, 0, 0},
		{"digest ", -1, 0, 0},
		{"digests", 0, 0, 0},
		{"every", 0, 0, 0},
		{"essential", 0, 0, 0},
		{"s 7 7 7 8", 0, 0, 0},
		{"", 0, 0, 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int mode = -5, hour = -5, r = mail_prefs_from_command(cases[i].words, &mode, &hour);
		assert_int_equal(r, cases[i].result);
		if (r == 1) {
			assert_int_equal(mode, cases[i].mode);
			assert_int_equal(hour, cases[i].hour);
		}
	}
}

static void forms(void **state)
{
	int mode, hour;

	(void)state;
	assert_int_equal(mail_prefs_from_form("digest", "0", &mode, &hour), 0);
	assert_int_equal(mode, DB_MAIL_DIGEST);
	assert_int_equal(hour, 0);
	assert_int_equal(mail_prefs_from_form("digest", "23", &mode, &hour), 0);
	assert_int_equal(hour, 23);
	assert_int_equal(mail_prefs_from_form("essentials", NULL, &mode, &hour), 0);
	assert_int_equal(mode, DB_MAIL_ESSENTIALS);
	assert_int_equal(hour, -1);
	assert_int_equal(mail_prefs_from_form("every_move", "junk", &mode, &hour), 0);
	assert_int_equal(mode, DB_MAIL_EVERY_MOVE);
	assert_int_equal(hour, -1);
	assert_int_equal(mail_prefs_from_form("digest", "24", &mode, &hour), -1);
	assert_int_equal(mail_prefs_from_form("digest", "", &mode, &hour), -1);
	assert_int_equal(mail_prefs_from_form("digest", NULL, &mode, &hour), -1);
	assert_int_equal(mail_prefs_from_form("Digest", "7", &mode, &hour), -1);
	assert_int_equal(mail_prefs_from_form(NULL, "7", &mode, &hour), -1);
}

static void hours_and_words(void **state)
{
	db_address ad = {.mail_mode = DB_MAIL_DIGEST, .digest_hour = -1};
	char *said;

	(void)state;
	assert_int_equal(mail_prefs_hour(&ad), LIMIT_DIGEST_HOUR_DEFAULT);
	mail_prefs_apply(&ad, DB_MAIL_DIGEST, 18);
	assert_int_equal(mail_prefs_hour(&ad), 18);
	said = mail_prefs_describe(&ad);
	assert_non_null(strstr(said, "at 18:00 UTC"));
	free(said);
	/* Another mode, or "digest" without an hour, keeps the hour chosen. */
	mail_prefs_apply(&ad, DB_MAIL_ESSENTIALS, -1);
	mail_prefs_apply(&ad, DB_MAIL_DIGEST, -1);
	assert_int_equal(mail_prefs_hour(&ad), 18);
	assert_string_equal(mail_prefs_name(&ad), "digest");
	json_t *model = mail_prefs_model(&ad);
	assert_true(json_is_true(json_object_get(model, "digest")));
	assert_true(json_is_false(json_object_get(model, "essentials")));
	json_t *hours = json_object_get(model, "hours");
	assert_int_equal(json_array_size(hours), 24);
	assert_true(json_is_true(json_object_get(json_array_get(hours, 18), "selected")));
	assert_true(json_is_false(json_object_get(json_array_get(hours, 7), "selected")));
	json_decref(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commands),
		cmocka_unit_test(forms),
		cmocka_unit_test(hours_and_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
