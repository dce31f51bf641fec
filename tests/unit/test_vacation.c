/* test_vacation.c - vacation arithmetic: UTC dates, days counted against each year, clocks standing still. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "game/clock.h"
#include "game/vacation.h"

#define DAY CLOCK_DAY_S
#define HOUR CLOCK_HOUR_S

static void day_starts_round_trip(void **state)
{
	(void)state;
	assert_int_equal(vacation_day_start(1970, 1, 1), 0);
	assert_int_equal(vacation_day_start(2000, 3, 1), 951868800LL);
	assert_int_equal(vacation_day_start(2024, 2, 29), 1709164800LL);
	/* 2100 is no leap year: 1 March follows 28 February. */
	assert_int_equal(vacation_day_start(2100, 3, 1) - vacation_day_start(2100, 2, 28), DAY);
	assert_int_equal(vacation_day_start(2000, 3, 1) - vacation_day_start(2000, 2, 28), 2 * DAY);
	/* Every day from 1970 to 2400 comes back as itself through clock_civil. */
	for (long long t = 0; t < vacation_day_start(2400, 12, 31); t += DAY) {
		long long y;
		int m, d;
		clock_civil(t + 13 * HOUR, &y, &m, &d);
		if (vacation_day_start(y, m, d) != t)
			fail_msg("day %lld is %lld-%d-%d", t / DAY, y, m, d);
	}
}

static void dates_are_parsed_strictly(void **state)
{
	long long t;
	static const char *const bad[] = {
		"2023-02-29", "2100-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-01-00", "2026-1-01",
		"2026-01-01 ", " 2026-01-01", "", "1969-12-31", "+026-01-01", "2026/01/01", "20260101", "2026-01-0x",
		"99999-01-01", "-2026-01-01", "2026-01-1\n",
	};
	(void)state;

	assert_int_equal(vacation_parse_date("2024-02-29", &t), 0);
	assert_int_equal(t, 1709164800LL);
	assert_int_equal(vacation_parse_date("2000-02-29", &t), 0);
	assert_int_equal(vacation_parse_date("1970-01-01", &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(vacation_parse_date("9999-12-31", &t), 0);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (vacation_parse_date(bad[i], &t) == 0)
			fail_msg("\"%s\" was taken for a date", bad[i]);
	assert_int_equal(vacation_parse_date(NULL, &t), -1);
}

static void days_counted_against_each_year(void **state)
{
	long long dec20 = vacation_day_start(2026, 12, 20) + 12 * HOUR;
	long long s = vacation_day_start(2026, 6, 1);
	(void)state;

	/* Whole days begun, at least one (a vacation ended at once counts its first day). */
	assert_int_equal(vacation_days(s, s), 1);
	assert_int_equal(vacation_days(s, s + 1), 1);
	assert_int_equal(vacation_days(s, s + DAY), 1);
	assert_int_equal(vacation_days(s, s + DAY + 1), 2);
	assert_int_equal(vacation_days(s, s + 5 * DAY), 5);
	/* From 20 December at noon for 25 days: 12 days begin in 2026, 13 in 2027. */
	assert_int_equal(vacation_days_in_year(dec20, dec20 + 25 * DAY, 2026), 12);
	assert_int_equal(vacation_days_in_year(dec20, dec20 + 25 * DAY, 2027), 13);
	assert_int_equal(vacation_days_in_year(dec20, dec20 + 25 * DAY, 2025), 0);
	assert_int_equal(vacation_days_in_year(dec20, dec20 + 25 * DAY, 2028), 0);
	/* The dates 31 December to 1 January: one day each. */
	s = vacation_day_start(2026, 12, 31);
	assert_int_equal(vacation_days_in_year(s, s + 2 * DAY, 2026), 1);
	assert_int_equal(vacation_days_in_year(s, s + 2 * DAY, 2027), 1);
	/* Leap years: 28 February to 1 March 2028 is three days; all of 2028 is 366. */
	s = vacation_day_start(2028, 2, 28);
	assert_int_equal(vacation_days_in_year(s, vacation_day_start(2028, 3, 2), 2028), 3);
	s = vacation_day_start(2028, 1, 1);
	assert_int_equal(vacation_days_in_year(s, vacation_day_start(2029, 1, 1), 2028), 366);
	assert_int_equal(vacation_days_in_year(s, vacation_day_start(2029, 1, 1), 2029), 0);
	/* Unused whole days at an early end. */
	s = vacation_day_start(2026, 6, 1);
	assert_int_equal(vacation_days_unused(s + 5 * DAY, s + 36 * HOUR), 3);
	assert_int_equal(vacation_days_unused(s + 5 * DAY, s + 5 * DAY - 1), 0);
	assert_int_equal(vacation_days_unused(s + 5 * DAY, s + 6 * DAY), 0);
	assert_int_equal(vacation_days(s, s + 36 * HOUR) + vacation_days_unused(s + 5 * DAY, s + 36 * HOUR), 5);
}

static void spans_asked_for(void **state)
{
	long long now = vacation_day_start(2026, 6, 10) + 15 * HOUR, start, end;
	app_error err;
	(void)state;

	assert_int_equal(vacation_span(3, NULL, NULL, now, &start, &end, &err), 0);
	assert_true(start == now && end == now + 3 * DAY);
	/* From today: from now to the end of the last date. */
	assert_int_equal(vacation_span(0, "2026-06-10", "2026-06-11", now, &start, &end, &err), 0);
	assert_true(start == now && end == vacation_day_start(2026, 6, 12));
	assert_int_equal(vacation_days(start, end), 2);
	assert_int_equal(vacation_span(0, "2026-06-12", "2026-06-12", now, &start, &end, &err), 0);
	assert_true(start == vacation_day_start(2026, 6, 12) && end == start + DAY);
	assert_int_equal(vacation_span(0, "2026-06-09", "2026-06-12", now, &start, &end, &err), E_BAD_VACATION);
	assert_int_equal(vacation_span(0, "2026-06-12", "2026-06-11", now, &start, &end, &err), E_BAD_VACATION);
	assert_int_equal(vacation_span(0, "2027-06-12", "2027-06-12", now, &start, &end, &err), E_BAD_VACATION);
	assert_int_equal(vacation_span(0, "2026-06-12", "2099-06-12", now, &start, &end, &err), E_VACATION_DAYS);
	assert_int_equal(vacation_span(367, NULL, NULL, now, &start, &end, &err), E_BAD_VACATION);
	assert_int_equal(vacation_span(0, "2026-06-12", NULL, now, &start, &end, &err), E_BAD_VACATION);
}

static void players(void **state)
{
	db_game rec = {.id = "g1", .nseats = 2, .seats = {{.seat = 0, .name = "A", .email = "Ann@Players.TEST"},
							 {.seat = 1, .name = "B"}}};
	char p[VACATION_PLAYER_TEXT];
	(void)state;

	vacation_player(&rec, 0, p, sizeof p);
	assert_string_equal(p, "ann@players.test");
	vacation_player(&rec, 1, p, sizeof p);
	assert_string_equal(p, "#g1/1");
}

static void clocks_stand_still_until_the_end(void **state)
{
	long long now = vacation_day_start(2026, 6, 10), back = now + 2 * DAY;
	db_clock c;
	(void)state;

	clock_init(&c, DB_CLOCK_PER_MOVE, DAY, 0, 0, 2);
	c.seats[1].paused_until = back;
	/* A clock that starts during its player's vacation starts at its end, with all its time. */
	clock_sync(&c, 2, 1, now);
	assert_int_equal(c.seats[1].running_since, back);
	assert_int_equal(c.seats[1].deadline, back + DAY);
	assert_int_equal(clock_remaining(&c, 1, now + DAY), DAY);
	/* No reminder while it stands, though the old deadline's last tenth has come. */
	assert_int_equal(clock_reminder_due(&c, 1, now + 23 * HOUR), 0);
	assert_int_equal(clock_reminder_due(&c, 1, back + 22 * HOUR), DB_CLOCK_REMINDED_LAST);
	/* Stopped by a move, it keeps the time it had. */
	assert_int_equal(clock_remaining(&c, 1, back + HOUR), DAY - HOUR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(day_starts_round_trip),
		cmocka_unit_test(dates_are_parsed_strictly),
		cmocka_unit_test(days_counted_against_each_year),
		cmocka_unit_test(spans_asked_for),
		cmocka_unit_test(players),
		cmocka_unit_test(clocks_stand_still_until_the_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
