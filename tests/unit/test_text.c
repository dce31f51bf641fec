/* test_text.c - UTF-8, printable-name and email checks; tokens; error code table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <string.h>

#include "core/errors.h"
#include "core/text.h"
#include "core/token.h"

static void utf8(void **state)
{
	(void)state;
	assert_true(text_utf8_valid("", 0));
	assert_true(text_utf8_valid("plain", 5));
	assert_true(text_utf8_valid("\xc3\xa9t\xc3\xa9", 5));            /* été */
	assert_true(text_utf8_valid("\xe6\x96\xb0\xe6\xa3\x8b", 6));     /* 新棋 */
	assert_true(text_utf8_valid("\xf0\x9f\x90\xa6", 4));             /* a bird */
	assert_false(text_utf8_valid("\xff", 1));
	assert_false(text_utf8_valid("\xc3", 1));                        /* cut short */
	assert_false(text_utf8_valid("\xe6\x96", 2));
	assert_false(text_utf8_valid("\xc0\xaf", 2));                    /* overlong '/' */
	assert_false(text_utf8_valid("\xed\xa0\x80", 3));                /* surrogate */
	assert_false(text_utf8_valid("\xf4\x90\x80\x80", 4));            /* past U+10FFFF */
	assert_false(text_utf8_valid("a\x80", 2));
}

static void printable(void **state)
{
	(void)state;
	assert_true(text_printable("Ann Lee"));
	assert_true(text_printable("Zoë"));
	assert_false(text_printable("tab\there"));
	assert_false(text_printable("line\nbreak"));
	assert_false(text_printable("bell\a"));
	assert_false(text_printable("\xff"));
	assert_false(text_printable("del\x7f"));
	/* C1 controls, U+0080 to U+009F */
	assert_false(text_printable("c1\xc2\x80"));
	assert_false(text_printable("c1\xc2\x85"));                     /* NEL, a line break */
	assert_false(text_printable("c1\xc2\x9f"));
	assert_true(text_printable("\xc2\xa0nbsp"));                     /* U+00A0 is a character */
	/* line and paragraph separators */
	assert_false(text_printable("a\xe2\x80\xa8" "b"));
	assert_false(text_printable("a\xe2\x80\xa9" "b"));
	/* bidi embeddings and overrides U+202A..U+202E, isolates U+2066..U+2069, marks */
	assert_false(text_printable("\xe2\x80\xaa"));
	assert_false(text_printable("Ann\xe2\x80\xaetxt.exe"));       /* U+202E RIGHT-TO-LEFT OVERRIDE */
	assert_false(text_printable("\xe2\x81\xa6x"));
	assert_false(text_printable("x\xe2\x81\xa9"));
	assert_false(text_printable("\xe2\x80\x8e"));                   /* U+200E */
	assert_false(text_printable("\xe2\x80\x8f"));                   /* U+200F */
	assert_false(text_printable("\xd8\x9c"));                        /* U+061C */
	/* their neighbours stay allowed */
	assert_true(text_printable("\xe2\x80\xa7"));                    /* U+2027 */
	assert_true(text_printable("\xe2\x80\xaf"));                    /* U+202F */
	assert_true(text_printable("\xe2\x81\xa5\xe2\x81\xaa"));        /* U+2065, U+206A */
	assert_true(text_printable("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"));  /* Hebrew letters */
}

static void printable_lines(void **state)
{
	size_t n = 0;
	(void)state;
	assert_true(text_printable_lines("one\ntwo\n\nZo\xc3\xab", &n));
	assert_int_equal(n, 12);                                          /* characters, not bytes */
	assert_true(text_printable_lines("", NULL));
	assert_false(text_printable_lines("tab\there", NULL));
	assert_false(text_printable_lines("cr\r\nlf", NULL));               /* the caller makes line ends "\n" */
	assert_false(text_printable_lines("bell\a", NULL));
	assert_false(text_printable_lines("c1\xc2\x85", NULL));
	assert_false(text_printable_lines("a\xe2\x80\xa8" "b", NULL));
	assert_false(text_printable_lines("Ann\xe2\x80\xaetxt", NULL));
	assert_false(text_printable_lines("\xff", NULL));
}

static void emails(void **state)
{
	(void)state;
	assert_true(text_email_plausible("ann@example.org"));
	assert_true(text_email_plausible("a.b+c@mail.example.co.uk"));
	assert_false(text_email_plausible("ann"));
	assert_false(text_email_plausible("@example.org"));
	assert_false(text_email_plausible("ann@"));
	assert_false(text_email_plausible("ann@localhost"));
	assert_false(text_email_plausible("a b@example.org"));
	assert_false(text_email_plausible("ann@ex@ample.org"));
	assert_false(text_email_plausible("<ann@example.org>"));
	assert_false(text_email_plausible("ann@example.org\r\nBcc: x@y.z"));
}

static void tokens(void **state)
{
	char a[TOKEN_TEXT], b[TOKEN_TEXT], form[FORM_TOKEN_TEXT];
	unsigned char key[32] = {1}, other[32] = {2};
	unsigned char h1[TOKEN_HASH_BYTES], h2[TOKEN_HASH_BYTES];
	(void)state;

	token_new(a);
	token_new(b);
	assert_int_equal(strlen(a), TOKEN_TEXT - 1);
	assert_true(token_well_formed(a));
	assert_string_not_equal(a, b);
	assert_false(token_well_formed("short"));
	assert_false(token_well_formed("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
	token_hash(a, h1);
	token_hash(b, h2);
	assert_memory_not_equal(h1, h2, TOKEN_HASH_BYTES);

	token_form(key, a, form);
	assert_true(token_form_ok(key, a, form));
	assert_false(token_form_ok(key, b, form));
	assert_false(token_form_ok(other, a, form));
	assert_false(token_form_ok(key, a, NULL));
	form[0] = form[0] == '0' ? '1' : '0';
	assert_false(token_form_ok(key, a, form));
}

static void whole_numbers(void **state)
{
	long long n = -7;
	(void)state;

	assert_int_equal(text_whole_number("0", 3, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(text_whole_number("007", 3, &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(text_whole_number("999999999999999999", 18, &n), 0);
	assert_int_equal(n, 999999999999999999LL);
	n = -7;
	/* Each refused, and *out left alone. */
	static const char *const bad[] = {"", "1000", "-1", "+1", " 1", "1 ", "1e3", "0x1", "12a"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(text_whole_number(bad[i], 3, &n), -1);
	assert_int_equal(text_whole_number(NULL, 3, &n), -1);
	assert_int_equal(text_whole_number("1", 19, &n), -1);
	assert_int_equal(n, -7);
}

static void error_table(void **state)
{
	(void)state;
	assert_string_equal(app_code_name(E_NOT_YOUR_TURN), "not_your_turn");
	assert_int_equal(app_code_status(E_NOT_YOUR_TURN), 403);
	assert_int_equal(app_code_status(E_STALE), 409);
	assert_int_equal(app_code_status(E_ILLEGAL), 422);
	assert_int_equal(app_code_status(E_UNAUTHORIZED), 401);
	assert_int_equal(app_code_status(E_TOO_LARGE), 413);
	/* Every code has a distinct name. */
	for (int i = 1; i < E_CODE_COUNT_; i++)
		for (int j = i + 1; j < E_CODE_COUNT_; j++)
			assert_string_not_equal(app_code_name(-i), app_code_name(-j));
	assert_string_equal(app_code_name(-999), "internal");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(utf8),
		cmocka_unit_test(printable),
		cmocka_unit_test(printable_lines),
		cmocka_unit_test(emails),
		cmocka_unit_test(tokens),
		cmocka_unit_test(whole_numbers),
		cmocka_unit_test(error_table),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
