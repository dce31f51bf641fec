/* clock.h - correspondence clock arithmetic: pure functions of unix seconds (UTC), no time zones. */
#ifndef ROOKERY_CLOCK_H
#define ROOKERY_CLOCK_H

#include "core/limits.h"
#include "db.h"

#include <stddef.h>

/*
 * Days (a JSON number, fractional down to an hour, 1/24) as whole seconds
 * into *s: 0, or -1 when days is not finite or not within
 * [1/24, max_days] (rounded to the second, so 1/24 itself is accepted).
 */
int clock_days_seconds(double days, double max_days, long long *s);

/*
 * Set up c for a new game of nseats with control type (DB_CLOCK_PER_MOVE or
 * DB_CLOCK_BANK), every clock stopped with base_s.
 */
void clock_init(db_clock *c, int type, long long base_s, long long increment_s, long long max_s, int nseats);

/*
 * After any change to a game at now: the seats of waiting (a bit mask: the
 * seats the game now waits for; 0 when it is over) run, the others stand.
 * movers are the seats that just moved: a mover's clock stops (a bank gains
 * its increment, up to the cap; a per-move clock is reset) and, if the game
 * still waits for it, starts afresh. A seat that starts gets a new deadline
 * and its reminders re-armed.
 */
void clock_sync(db_clock *c, unsigned waiting, unsigned movers, long long now);

/* Seat's time left at now: its deadline minus now (never below 0) when running, else its time. */
long long clock_remaining(const db_clock *c, int seat, long long now);

/*
 * Give seat s more seconds: a running clock's deadline moves on (and a
 * reminder already sent re-arms when, at now, the new deadline is beyond
 * its threshold); a stopped clock keeps them for its next start. Caps do not
 * apply to gifts.
 */
void clock_give(db_clock *c, int seat, long long s, long long now);

/*
 * The reminder seat is owed at now: DB_CLOCK_REMINDED_LAST when the last
 * tenth of the time (at least an hour, and less than the whole) remains,
 * else DB_CLOCK_REMINDED_DAY when a day of more than a day remains; 0 when
 * none is due or it was sent for this deadline. db_clocks_remind selects by
 * the same rule.
 */
int clock_reminder_due(const db_clock *c, int seat, long long now);

/* The UTC date of t (unix seconds): year, month 1..12, day 1..31. */
void clock_civil(long long t, long long *y, int *m, int *d);

/* t as ISO 8601 UTC, "2026-11-22T03:49:32Z" (computed from the day count, never from a time zone). */
void clock_iso(long long t, char out[32]);

/* A duration for people: "2 days 3 hours", "5 hours 10 minutes", "40 minutes" (whole minutes, floor). */
void clock_duration_text(long long s, char *out, size_t size);

/* The control's name in the API ("per_move", "bank"). */
const char *clock_type_name(int type);

/*
 * Whether line is the mail command "give time <n> day[s]|hour[s] to <seat>"
 * (any case, spaces, a final full stop): 1 with the seat's name copied into
 * seat and the amount into *seconds (0 when it is not a number: the gift is
 * then refused as any bad amount is), or 0 for any other line.
 */
int clock_give_command(const char *line, char *seat, size_t size, long long *seconds);

#endif
