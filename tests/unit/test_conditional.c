/* test_conditional.c - conditional moves' mail grammar, their lines, and matching a tree against play. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "game/conditional.h"

static void lines_read(void **state)
{
	app_error err = {0};
	json_t *t, *want;
	char *back;

	(void)state;
	t = conditional_from_lines("If N 3 2 4 3 then S 7 3 6 3, if N 4 3 5 3 then S 6 3 5 3\n"
				   "  if i8-g8 and c9-c7 and b3-c3 then h2-h4  \n\n", &err);
	assert_non_null(t);
	want = json_loads("{\"if\": [{\"moves\": [\"N 3 2 4 3\"], \"then\": \"S 7 3 6 3\"},"
			  "{\"moves\": [\"N 4 3 5 3\"], \"then\": \"S 6 3 5 3\"},"
			  "{\"moves\": [\"i8-g8\", \"c9-c7\", \"b3-c3\"], \"then\": \"h2-h4\"}]}", 0, NULL);
	assert_true(json_equal(t, want));
	back = conditional_to_lines(t);
	assert_string_equal(back, "if N 3 2 4 3 then S 7 3 6 3\nif N 4 3 5 3 then S 6 3 5 3\n"
			    "if i8-g8 and c9-c7 and b3-c3 then h2-h4\n");
	free(back);
	json_decref(t);
	json_decref(want);

	/* Not of the form; what is (words that are no moves) is for the rules to refuse. */
	static const char *const bad[] = {
		"if N 3 2 4 3", "N 3 2 4 3 then S 7 3 6 3", "if then S 7 3 6 3", "if N 3 2 4 3 then ",
		"if N 3 2 4 3 then S 7 3 6 3, if N 4 3 5 3", "if  and  then S 7 3 6 3",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		memset(&err, 0, sizeof err);
		assert_null(conditional_from_lines(bad[i], &err));
		assert_int_equal(err.code, E_BAD_CONDITIONAL);
	}
}

static void matching(void **state)
{
	json_t *t = json_loads("{\"if\": [{\"moves\": [\"a\", \"b\", \"c\"], \"then\": \"x\", "
			       "\"next\": {\"if\": [{\"moves\": [\"d\"], \"then\": \"y\"}]}},"
			       "{\"moves\": [\"e\"], \"then\": \"z\"}]}", 0, NULL);
	const char *answer;
	const json_t *next;
	const char *const played[] = {"a", "b", "c"}, *const other[] = {"a", "q"}, *const e[] = {"e"};

	(void)state;
	assert_int_equal(conditional_match(t, played, 0, 0, &answer, &next), CONDITIONAL_WAIT);
	assert_int_equal(conditional_match(t, played, 2, 0, &answer, &next), CONDITIONAL_WAIT);
	assert_int_equal(conditional_match(t, played, 3, 1, &answer, &next), CONDITIONAL_PLAY);
	assert_string_equal(answer, "x");
	assert_non_null(next);
	/* All the moves expected, yet not the seat's turn: the game went elsewhere. */
	assert_int_equal(conditional_match(t, played, 3, 0, &answer, &next), CONDITIONAL_DEVIATED);
	assert_int_equal(conditional_match(t, other, 2, 0, &answer, &next), CONDITIONAL_DEVIATED);
	assert_int_equal(conditional_match(t, e, 1, 1, &answer, &next), CONDITIONAL_PLAY);
	assert_string_equal(answer, "z");
	assert_null(next);
	json_decref(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_read),
		cmocka_unit_test(matching),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
