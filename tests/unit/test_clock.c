/* test_clock.c - the clock arithmetic: days, deadlines, increments and caps, gifts, reminders, UTC dates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game/clock.h"

#define DAY CLOCK_DAY_S
#define HOUR CLOCK_HOUR_S
#define T0 1795000000LL   /* 2026-11-18, an arbitrary "now" */

static void days_fractions_and_bounds(void **state)
{
	long long s;
	(void)state;

	assert_int_equal(clock_days_seconds(1, 365, &s), 0);
	assert_int_equal(s, DAY);
	assert_int_equal(clock_days_seconds(1.0 / 24, 365, &s), 0);   /* an hour: the least */
	assert_int_equal(s, HOUR);
	assert_int_equal(clock_days_seconds(0.5, 365, &s), 0);
	assert_int_equal(s, 12 * HOUR);
	assert_int_equal(clock_days_seconds(2.75, 365, &s), 0);
	assert_int_equal(s, 2 * DAY + 18 * HOUR);
	assert_int_equal(clock_days_seconds(365, 365, &s), 0);
	assert_int_equal(s, 365 * DAY);
	assert_int_equal(clock_days_seconds(1.0 / 48, 365, &s), -1);  /* half an hour */
	assert_int_equal(clock_days_seconds(0, 365, &s), -1);
	assert_int_equal(clock_days_seconds(-1, 365, &s), -1);
	assert_int_equal(clock_days_seconds(365.01, 365, &s), -1);
	assert_int_equal(clock_days_seconds(1e300, 365, &s), -1);
	assert_int_equal(clock_days_seconds(strtod("nan", NULL), 365, &s), -1);
	assert_int_equal(clock_days_seconds(strtod("inf", NULL), 365, &s), -1);
}

static void per_move_starts_afresh(void **state)
{
	db_clock c;
	(void)state;

	clock_init(&c, DB_CLOCK_PER_MOVE, 3 * DAY, 0, 0, 2);
	clock_sync(&c, 1u << 0, 0, T0);                 /* seat 0 to move */
	assert_int_equal(c.seats[0].deadline, T0 + 3 * DAY);
	assert_int_equal(c.seats[1].deadline, 0);
	assert_int_equal(clock_remaining(&c, 0, T0 + DAY), 2 * DAY);
	assert_int_equal(clock_remaining(&c, 0, T0 + 4 * DAY), 0);   /* never below 0 */
	clock_sync(&c, 1u << 1, 1u << 0, T0 + 2 * DAY); /* seat 0 moved after two days */
	assert_int_equal(c.seats[0].deadline, 0);
	assert_int_equal(c.seats[0].remaining_s, 3 * DAY);
	assert_int_equal(c.seats[1].deadline, T0 + 5 * DAY);
	/* A seat that moves and is still to move (a move in parts) starts afresh. */
	clock_sync(&c, 1u << 1, 1u << 1, T0 + 3 * DAY);
	assert_int_equal(c.seats[1].deadline, T0 + 6 * DAY);
	/* The game over: every clock stands. */
	clock_sync(&c, 0, 0, T0 + 4 * DAY);
	assert_int_equal(c.seats[0].deadline, 0);
	assert_int_equal(c.seats[1].deadline, 0);
}

static void bank_increments_and_cap(void **state)
{
	db_clock c;
	(void)state;

	clock_init(&c, DB_CLOCK_BANK, 30 * DAY, DAY, 45 * DAY / 1, 2);
	clock_sync(&c, 1u << 0, 0, T0);
	assert_int_equal(c.seats[0].deadline, T0 + 30 * DAY);
	/* Seat 0 thinks 2 hours: 30 days less 2 hours, plus a day. */
	clock_sync(&c, 1u << 1, 1u << 0, T0 + 2 * HOUR);
	assert_int_equal(c.seats[0].remaining_s, 31 * DAY - 2 * HOUR);
	assert_int_equal(c.seats[1].deadline, T0 + 2 * HOUR + 30 * DAY);
	/* Quick moves: the increments stop at the cap. */
	long long now = T0 + 2 * HOUR;
	for (int i = 0; i < 40; i++) {
		now += 60;
		clock_sync(&c, 1u << 0, 1u << 1, now);
		now += 60;
		clock_sync(&c, 1u << 1, 1u << 0, now);
	}
	assert_int_equal(c.seats[0].remaining_s, 45 * DAY);
	assert_int_equal(c.seats[1].deadline - now, 45 * DAY);
	/* A bank whose time was above the cap (a gift) keeps it, but gains nothing. */
	clock_give(&c, 0, 5 * DAY, now);
	assert_int_equal(c.seats[0].remaining_s, 50 * DAY);
	clock_sync(&c, 1u << 0, 1u << 1, now);
	clock_sync(&c, 1u << 1, 1u << 0, now + HOUR);
	assert_int_equal(c.seats[0].remaining_s, 50 * DAY - HOUR);
	/* Two seats waited for at once (a setup phase): both run, each stops on its own move. */
	clock_init(&c, DB_CLOCK_BANK, DAY, HOUR, 2 * DAY, 2);
	clock_sync(&c, 3, 0, T0);
	assert_int_equal(c.seats[0].deadline, T0 + DAY);
	assert_int_equal(c.seats[1].deadline, T0 + DAY);
	clock_sync(&c, 1u << 1, 1u << 0, T0 + 3 * HOUR);
	assert_int_equal(c.seats[0].remaining_s, DAY - 2 * HOUR);
	assert_int_equal(c.seats[1].deadline, T0 + DAY);
}

static void gifts(void **state)
{
	db_clock c;
	(void)state;

	clock_init(&c, DB_CLOCK_PER_MOVE, DAY, 0, 0, 2);
	clock_sync(&c, 1u << 0, 0, T0);
	clock_give(&c, 0, DAY, T0 + HOUR);             /* the seat to move: its deadline moves on */
	assert_int_equal(c.seats[0].deadline, T0 + 2 * DAY);
	clock_give(&c, 1, 2 * DAY, T0 + HOUR);         /* a standing per-move clock: for its next move */
	clock_sync(&c, 1u << 1, 1u << 0, T0 + 2 * HOUR);
	assert_int_equal(c.seats[1].deadline, T0 + 2 * HOUR + 3 * DAY);
	clock_sync(&c, 1u << 0, 1u << 1, T0 + 3 * HOUR);  /* ... and that move only */
	clock_sync(&c, 1u << 1, 1u << 0, T0 + 4 * HOUR);
	assert_int_equal(c.seats[1].deadline, T0 + 4 * HOUR + DAY);
}

static void reminders(void **state)
{
	db_clock c;
	(void)state;

	clock_init(&c, DB_CLOCK_PER_MOVE, 3 * DAY, 0, 0, 2);
	clock_sync(&c, 1u << 0, 0, T0);
	assert_int_equal(clock_reminder_due(&c, 0, T0), 0);
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 2 * DAY - 1), 0);
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 2 * DAY), DB_CLOCK_REMINDED_DAY);
	c.seats[0].reminded |= DB_CLOCK_REMINDED_DAY;
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 2 * DAY + HOUR), 0);
	/* The last tenth of 3 days: 7.2 hours. */
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 3 * DAY - 7 * HOUR - 13 * 60), 0);
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 3 * DAY - 7 * HOUR - 12 * 60), DB_CLOCK_REMINDED_LAST);
	c.seats[0].reminded |= DB_CLOCK_REMINDED_LAST;
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 3 * DAY - 60), 0);
	assert_int_equal(clock_reminder_due(&c, 1, T0), 0);  /* not waited for */
	/* A gift past the thresholds re-arms them; the next start re-arms them too. */
	clock_give(&c, 0, 2 * DAY, T0 + 3 * DAY - HOUR);
	assert_int_equal(c.seats[0].reminded, 0);
	/* One day per move: no "a day left" (it had no more), and the last tenth is at least an hour. */
	clock_init(&c, DB_CLOCK_PER_MOVE, DAY, 0, 0, 2);
	clock_sync(&c, 1u << 0, 0, T0);
	assert_int_equal(clock_reminder_due(&c, 0, T0), 0);
	assert_int_equal(clock_reminder_due(&c, 0, T0 + DAY - 2 * HOUR - 25 * 60), 0);
	assert_int_equal(clock_reminder_due(&c, 0, T0 + DAY - 2 * HOUR - 24 * 60), DB_CLOCK_REMINDED_LAST);
	/* An hour per move: its whole time is its last hour, so no reminder at all. */
	clock_init(&c, DB_CLOCK_PER_MOVE, HOUR, 0, 0, 2);
	clock_sync(&c, 1u << 0, 0, T0);
	for (long long t = T0; t < T0 + HOUR; t += 60)
		assert_int_equal(clock_reminder_due(&c, 0, t), 0);
	/* A bank of 30 days: the last tenth (3 days) comes before the last day. */
	clock_init(&c, DB_CLOCK_BANK, 30 * DAY, DAY, 45 * DAY, 2);
	clock_sync(&c, 1u << 0, 0, T0);
	assert_int_equal(clock_reminder_due(&c, 0, T0 + 27 * DAY), DB_CLOCK_REMINDED_LAST);
}

static void utc_dates_and_leap_days(void **state)
{
	char out[32];
	(void)state;

	/* The process's time zone plays no part. */
	setenv("TZ", "Pacific/Kiritimati", 1);
	tzset();
	clock_iso(0, out);
	assert_string_equal(out, "1970-01-01T00:00:00Z");
	clock_iso(951782400, out);
	assert_string_equal(out, "2000-02-29T00:00:00Z");   /* a leap day of a year divisible by 400 */
	clock_iso(951868799, out);
	assert_string_equal(out, "2000-02-29T23:59:59Z");
	clock_iso(4107542400LL, out);
	assert_string_equal(out, "2100-03-01T00:00:00Z");   /* 2100 has no leap day */
	clock_iso(1709164800LL + 86399, out);
	assert_string_equal(out, "2024-02-29T23:59:59Z");
	clock_iso(1709164800LL + 86400, out);
	assert_string_equal(out, "2024-03-01T00:00:00Z");
	clock_iso(1798761599LL, out);
	assert_string_equal(out, "2026-12-31T23:59:59Z");
	/* A deadline across a leap day: 3 days per move from 2028-02-28 noon. */
	db_clock c;
	clock_init(&c, DB_CLOCK_PER_MOVE, 3 * DAY, 0, 0, 2);
	clock_sync(&c, 1, 0, 1835352000LL);   /* 2028-02-28T12:00:00Z */
	clock_iso(c.seats[0].deadline, out);
	assert_string_equal(out, "2028-03-02T12:00:00Z");
	/* Every day of four centuries agrees with the C library's UTC calendar. */
	for (long long t = -2208988800LL; t < 10413792000LL; t += DAY + 3607) {
		time_t tt = (time_t)t;
		struct tm tm;
		char want[32];
		gmtime_r(&tt, &tm);
		strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
		clock_iso(t, out);
		assert_string_equal(out, want);
	}
}

static void durations(void **state)
{
	char out[64];
	(void)state;

	clock_duration_text(3 * DAY, out, sizeof out);
	assert_string_equal(out, "3 days 0 hours");
	clock_duration_text(DAY + HOUR + 59, out, sizeof out);
	assert_string_equal(out, "1 day 1 hour");
	clock_duration_text(5 * HOUR + 10 * 60 + 30, out, sizeof out);
	assert_string_equal(out, "5 hours 10 minutes");
	clock_duration_text(59, out, sizeof out);
	assert_string_equal(out, "0 minutes");
	clock_duration_text(-5, out, sizeof out);
	assert_string_equal(out, "0 minutes");
}

static void give_command(void **state)
{
	char seat[32];
	long long s;
	(void)state;

	assert_int_equal(clock_give_command("give time 1 day to North", seat, sizeof seat, &s), 1);
	assert_string_equal(seat, "North");
	assert_int_equal(s, DAY);
	assert_int_equal(clock_give_command("  Give  TIME 2 days to south.", seat, sizeof seat, &s), 1);
	assert_string_equal(seat, "south");
	assert_int_equal(s, 2 * DAY);
	assert_int_equal(clock_give_command("give time 12 hours to East!", seat, sizeof seat, &s), 1);
	assert_int_equal(s, 12 * HOUR);
	assert_int_equal(clock_give_command("give time 0.5 days to West", seat, sizeof seat, &s), 1);
	assert_int_equal(s, DAY / 2);
	/* A command with a bad amount is still the command: the gift is refused with its reason. */
	assert_int_equal(clock_give_command("give time lots days to North", seat, sizeof seat, &s), 1);
	assert_int_equal(s, 0);
	assert_int_equal(clock_give_command("give time 1 week to North", seat, sizeof seat, &s), 1);
	assert_int_equal(s, 0);
	assert_int_equal(clock_give_command("give time nan days to North", seat, sizeof seat, &s), 1);
	assert_int_equal(s, 0);
	/* Anything else is a move or another command. */
	assert_int_equal(clock_give_command("give time 1 day to North now", seat, sizeof seat, &s), 0);
	assert_int_equal(clock_give_command("give time 1 day North", seat, sizeof seat, &s), 0);
	assert_int_equal(clock_give_command("resign", seat, sizeof seat, &s), 0);
	assert_int_equal(clock_give_command("S 7 1 6 1", seat, sizeof seat, &s), 0);
	assert_int_equal(clock_give_command("", seat, sizeof seat, &s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(days_fractions_and_bounds),
		cmocka_unit_test(per_move_starts_afresh),
		cmocka_unit_test(bank_increments_and_cap),
		cmocka_unit_test(gifts),
		cmocka_unit_test(reminders),
		cmocka_unit_test(utc_dates_and_leap_days),
		cmocka_unit_test(durations),
		cmocka_unit_test(give_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
