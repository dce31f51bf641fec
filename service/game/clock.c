/* clock.c - correspondence clock arithmetic: deadlines, increments, caps, gifts and reminders. */
#include "game/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int clock_days_seconds(double days, double max_days, long long *s)
{
	if (!isfinite(days) || days <= 0 || days > max_days)
		return -1;
	*s = (long long)(days * (double)CLOCK_DAY_S + 0.5);   /* to the nearest second: 1/24 is 3600 */
	return *s < CLOCK_HOUR_S ? -1 : 0;
}

void clock_init(db_clock *c, int type, long long base_s, long long increment_s, long long max_s, int nseats)
{
	memset(c, 0, sizeof *c);
	c->type = type;
	c->base_s = base_s;
	c->increment_s = type == DB_CLOCK_BANK ? increment_s : 0;
	c->max_s = type == DB_CLOCK_BANK ? max_s : 0;
	c->nseats = nseats;
	for (int i = 0; i < nseats; i++)
		c->seats[i].remaining_s = base_s;
}

static void start(db_clock *c, int seat, long long now)
{
	db_seat_clock *s = &c->seats[seat];

	/* A per-move clock has its full time, and more if it was given some while it stood. */
	if (c->type == DB_CLOCK_PER_MOVE && s->remaining_s < c->base_s)
		s->remaining_s = c->base_s;
	/* During its player's vacation a clock starts when the vacation ends. */
	if (s->paused_until > now)
		now = s->paused_until;
	s->running_since = now;
	s->deadline = now + s->remaining_s;
	s->reminded = 0;
}

static void stop(db_clock *c, int seat, int moved, long long now)
{
	db_seat_clock *s = &c->seats[seat];
	long long left = clock_remaining(c, seat, now);

	if (c->type == DB_CLOCK_PER_MOVE) {
		/* The time of the move is spent; the next move has the control's time again. */
		left = moved ? c->base_s : left;
	} else if (moved && left < c->max_s) {
		left += c->increment_s;
		if (left > c->max_s)
			left = c->max_s;
	}
	s->remaining_s = left;
	s->running_since = 0;
	s->deadline = 0;
	s->reminded = 0;
}

void clock_sync(db_clock *c, unsigned waiting, unsigned movers, long long now)
{
	for (int i = 0; i < c->nseats; i++) {
		int running = c->seats[i].deadline != 0, wait = (waiting >> i) & 1, moved = (movers >> i) & 1;
		if (running && (!wait || moved))
			stop(c, i, moved, now);
		if (wait && (!running || moved))
			start(c, i, now);
	}
}

long long clock_remaining(const db_clock *c, int seat, long long now)
{
	const db_seat_clock *s = &c->seats[seat];

	if (!s->deadline)
		return s->remaining_s;
	if (s->paused_until > now)
		now = s->paused_until;   /* standing still for a vacation */
	return s->deadline > now ? s->deadline - now : 0;
}

/* The last tenth of a deadline's time, at least an hour. */
static long long last_threshold(const db_seat_clock *s)
{
	long long tenth = (s->deadline - s->running_since) / LIMIT_REMINDER_LAST_SHARE;

	return tenth > LIMIT_REMINDER_LAST_MIN_S ? tenth : LIMIT_REMINDER_LAST_MIN_S;
}

void clock_give(db_clock *c, int seat, long long s, long long now)
{
	db_seat_clock *k = &c->seats[seat];

	k->remaining_s += s;
	if (!k->deadline)
		return;
	k->deadline += s;
	/* A reminder sent for the old deadline is owed again once the new one is as near. */
	if (k->deadline - now > last_threshold(k))
		k->reminded &= ~DB_CLOCK_REMINDED_LAST;
	if (k->deadline - now > LIMIT_REMINDER_DAY_S)
		k->reminded &= ~DB_CLOCK_REMINDED_DAY;
}

int clock_reminder_due(const db_clock *c, int seat, long long now)
{
	const db_seat_clock *s = &c->seats[seat];
	long long period = s->deadline - s->running_since, left = s->deadline - now, last;

	if (!s->deadline || left <= 0 || s->paused_until > now)
		return 0;
	last = last_threshold(s);
	if (!(s->reminded & DB_CLOCK_REMINDED_LAST) && period > last && left <= last)
		return DB_CLOCK_REMINDED_LAST;
	if (!(s->reminded & DB_CLOCK_REMINDED_DAY) && period > LIMIT_REMINDER_DAY_S && left <= LIMIT_REMINDER_DAY_S)
		return DB_CLOCK_REMINDED_DAY;
	return 0;
}

/* Days since 1970-01-01 to a civil date, proleptic Gregorian (leap years by the 4/100/400 rule). */
static void civil_from_days(long long z, long long *y, int *m, int *d)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

void clock_civil(long long t, long long *y, int *m, int *d)
{
	civil_from_days(t >= 0 ? t / CLOCK_DAY_S : -((-t + CLOCK_DAY_S - 1) / CLOCK_DAY_S), y, m, d);
}

void clock_iso(long long t, char out[32])
{
	long long days = t >= 0 ? t / CLOCK_DAY_S : -((-t + CLOCK_DAY_S - 1) / CLOCK_DAY_S), y;
	long long sec = t - days * CLOCK_DAY_S;
	int m, d;

	civil_from_days(days, &y, &m, &d);
	/* Years past 9999 do not fit the form (nor occur: deadlines are at most a few years away). */
	if (y < 0 || y > 9999)
		y = y < 0 ? 0 : 9999;
	snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, m, d, (int)(sec / CLOCK_HOUR_S),
		 (int)(sec / CLOCK_MINUTE_S % 60), (int)(sec % CLOCK_MINUTE_S));
}

void clock_duration_text(long long s, char *out, size_t size)
{
	long long d = s / CLOCK_DAY_S, h = s % CLOCK_DAY_S / CLOCK_HOUR_S, m = s % CLOCK_HOUR_S / CLOCK_MINUTE_S;

	if (s < 0)
		d = h = m = 0;
	if (d)
		snprintf(out, size, "%lld day%s %lld hour%s", d, d == 1 ? "" : "s", h, h == 1 ? "" : "s");
	else if (h)
		snprintf(out, size, "%lld hour%s %lld minute%s", h, h == 1 ? "" : "s", m, m == 1 ? "" : "s");
	else
		snprintf(out, size, "%lld minute%s", m, m == 1 ? "" : "s");
}

const char *clock_type_name(int type)
{
	return type == DB_CLOCK_BANK ? "bank" : "per_move";
}

int clock_give_command(const char *line, char *seat, size_t size, long long *seconds)
{
	char w[6][32], extra[2];
	double n;
	char *end;
	size_t len;

	/* Six words and no seventh: give time <n> <unit> to <seat>. */
	if (sscanf(line, " %31s %31s %31s %31s %31s %31s %1s", w[0], w[1], w[2], w[3], w[4], w[5], extra) != 6 ||
	    strcasecmp(w[0], "give") || strcasecmp(w[1], "time") || strcasecmp(w[4], "to"))
		return 0;
	len = strlen(w[5]);
	while (len && (w[5][len - 1] == '.' || w[5][len - 1] == '!'))
		w[5][--len] = 0;
	snprintf(seat, size, "%s", w[5]);
	n = strtod(w[2], &end);
	*seconds = 0;
	if (end == w[2] || *end || !isfinite(n) || n <= 0 || n > 1e6)
		return 1;
	if (!strcasecmp(w[3], "day") || !strcasecmp(w[3], "days"))
		*seconds = (long long)(n * (double)CLOCK_DAY_S + 0.5);
	else if (!strcasecmp(w[3], "hour") || !strcasecmp(w[3], "hours"))
		*seconds = (long long)(n * (double)CLOCK_HOUR_S + 0.5);
	return 1;
}
