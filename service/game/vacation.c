/* vacation.c - players' vacations: the days a year allows, and their clocks standing still meanwhile. */
#include "game/vacation.h"
#include "core/limits.h"
#include "core/log.h"
#include "game/clock.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most vacations a player can have touching this year and the next: each counts a day at least. */
#define VACATION_ROWS_MAX (2 * LIMIT_VACATION_DAYS_MAX + 2)

long long vacation_day_start(long long y, int m, int d)
{
	/* Days from 1970-01-01 to a civil date: the inverse of clock_civil's (proleptic Gregorian). */
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return (era * 146097 + doe - 719468) * CLOCK_DAY_S;
}

int vacation_parse_date(const char *text, long long *t)
{
	long long y, cy;
	int m, d, cm, cd;

	if (!text || strlen(text) != 10 || text[4] != '-' || text[7] != '-')
		return -1;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)text[i]))
			return -1;
	y = atoll(text);
	m = atoi(text + 5);
	d = atoi(text + 8);
	if (y < 1970 || m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	*t = vacation_day_start(y, m, d);
	/* A day past the month's end (02-30) comes back as another date. */
	clock_civil(*t, &cy, &cm, &cd);
	return cy == y && cm == m && cd == d ? 0 : -1;
}

/* a / b rounded up, for b > 0 and any a. */
static long long ceil_div(long long a, long long b)
{
	return a >= 0 ? (a + b - 1) / b : -(-a / b);
}

int vacation_days(long long start, long long end)
{
	long long n = ceil_div(end - start, CLOCK_DAY_S);

	return n < 1 ? 1 : (int)n;
}

int vacation_days_in_year(long long start, long long end, long long year)
{
	long long n = vacation_days(start, end);
	/* Day i starts at start + i days: those in [year's start, next year's start). */
	long long lo = ceil_div(vacation_day_start(year, 1, 1) - start, CLOCK_DAY_S);
	long long hi = ceil_div(vacation_day_start(year + 1, 1, 1) - start, CLOCK_DAY_S);

	lo = lo < 0 ? 0 : lo > n ? n : lo;
	hi = hi < 0 ? 0 : hi > n ? n : hi;
	return (int)(hi - lo);
}

int vacation_days_unused(long long end, long long now)
{
	return end > now ? (int)((end - now) / CLOCK_DAY_S) : 0;
}

int vacation_player_of_seat(app *a, const char *game_id, int seat, char *out, size_t size, app_error *err)
{
	game_loaded g;

	if (game_load(a, game_id, &g, err))
		return err->code;
	vacation_player(g.rec, seat, out, size);
	game_loaded_free(&g);
	return 0;
}

void vacation_player_of_email(const char *email, char *out, size_t size)
{
	size_t i;

	/* As SQLite's lower() in db_vacation.c: ASCII letters only. */
	for (i = 0; email[i] && i + 1 < size; i++)
		out[i] = (char)(email[i] >= 'A' && email[i] <= 'Z' ? email[i] - 'A' + 'a' : email[i]);
	out[i] = 0;
}

void vacation_player(const db_game *rec, int seat, char *out, size_t size)
{
	const char *email = NULL;

	for (int i = 0; i < rec->nseats; i++)
		if (rec->seats[i].seat == seat)
			email = rec->seats[i].email;
	if (email && *email)
		vacation_player_of_email(email, out, size);
	else
		snprintf(out, size, "#%s/%d", rec->id, seat);
}

static long long year_of(long long t)
{
	long long y;
	int m, d;

	clock_civil(t, &y, &m, &d);
	return y;
}

int vacation_span(long long days, const char *from, const char *to, long long now, long long *start,
		  long long *end, app_error *err)
{
	long long today = now - (now % CLOCK_DAY_S + CLOCK_DAY_S) % CLOCK_DAY_S, f, t;

	if (days > 0) {
		if (days > LIMIT_VACATION_DAYS_MAX)
			return app_fail(err, E_BAD_VACATION, "a vacation is 1 to %d days", LIMIT_VACATION_DAYS_MAX);
		*start = now;
		*end = now + days * CLOCK_DAY_S;
		return 0;
	}
	if (!from || !to)
		return app_fail(err, E_BAD_VACATION, "give a number of days, or the dates from and to");
	if (vacation_parse_date(from, &f) || vacation_parse_date(to, &t))
		return app_fail(err, E_BAD_VACATION, "dates are written YYYY-MM-DD (a real date, UTC)");
	if (t < f)
		return app_fail(err, E_BAD_VACATION, "the vacation ends before it begins");
	if (f < today)
		return app_fail(err, E_BAD_VACATION, "a vacation starts today or later, not in the past");
	if (f > today + LIMIT_VACATION_AHEAD_DAYS * CLOCK_DAY_S)
		return app_fail(err, E_BAD_VACATION, "a vacation starts within %d days", LIMIT_VACATION_AHEAD_DAYS);
	if (t - f >= 2LL * LIMIT_VACATION_DAYS_MAX * CLOCK_DAY_S)
		return app_fail(err, E_VACATION_DAYS, "that vacation is longer than any year allows");
	/* Today's vacation begins now: the hours already gone are not given back. */
	*start = f > now ? f : now;
	*end = t + CLOCK_DAY_S;
	return 0;
}

static int storage_fail(const db_error *de, app_error *err)
{
	log_event("vacation: storage failed: %s", de->message);
	return app_fail(err, E_INTERNAL, "the server could not do this; try again later");
}

/* Player's vacations that count this year or later (the caller frees *out). */
static int list_from_year(app *a, const char *player, long long now, db_vacation **out, int *n, db_error *de)
{
	*out = calloc(VACATION_ROWS_MAX, sizeof **out);
	if (!*out)
		abort();
	return db_vacations_list(app_db(a), player, vacation_day_start(year_of(now), 1, 1), *out, VACATION_ROWS_MAX, n, de);
}

static int used_in_year(const db_vacation *v, int n, long long year)
{
	int used = 0;

	for (int i = 0; i < n; i++)
		used += vacation_days_in_year(v[i].start_at, v[i].end_at, year);
	return used;
}

/* Whether a vacation from start to end may be added to the n vacations v: 0, or an error. */
static int check_take(app *a, const db_vacation *v, int n, long long start, long long end, app_error *err)
{
	char s[32], e[32];

	for (int i = 0; i < n; i++)
		if (v[i].start_at < end && start < v[i].end_at) {
			clock_iso(v[i].start_at, s);
			clock_iso(v[i].end_at, e);
			return app_fail(err, E_VACATION_OVERLAP, "that overlaps your vacation from %s until %s", s, e);
		}
	for (long long y = year_of(start); y <= year_of(end - 1); y++) {
		int want = vacation_days_in_year(start, end, y), used = used_in_year(v, n, y);
		if (used + want > (int)a->vacation_days)
			return app_fail(err, E_VACATION_DAYS, "that takes %d vacation day%s of %lld, which has %d left",
					want, want == 1 ? "" : "s", y, used > (int)a->vacation_days ? 0 :
					(int)a->vacation_days - used);
	}
	return 0;
}

int vacation_take(app *a, const char *player, long long start, long long end, long long now, app_error *err)
{
	db_vacation *v = NULL;
	db_error de;
	int n, r, paused;

	if ((r = db_begin(app_db(a), &de)))
		return storage_fail(&de, err);
	if ((r = list_from_year(a, player, now, &v, &n, &de))) {
		r = storage_fail(&de, err);
	} else if ((r = check_take(a, v, n, start, end, err)) == 0) {
		if (db_vacation_add(app_db(a), player, start, end, &de) || db_vacations_pause(app_db(a), now, &paused, &de) ||
		    db_commit(app_db(a), &de))
			r = storage_fail(&de, err);
		else
			log_event("vacation: a player takes %d day(s) from %lld", vacation_days(start, end), start);
	}
	db_rollback(app_db(a));
	free(v);
	return r;
}

int vacation_end(app *a, const char *player, long long now, int *returned, app_error *err)
{
	db_vacation *v = NULL;
	db_error de;
	int n, r, k = -1;

	*returned = 0;
	if ((r = db_begin(app_db(a), &de)))
		return storage_fail(&de, err);
	if ((r = list_from_year(a, player, now, &v, &n, &de))) {
		r = storage_fail(&de, err);
		goto out;
	}
	/* The one under way, else the next to come (the list is in order of start). */
	for (int i = n - 1; i >= 0; i--)
		if (v[i].end_at > now && (k < 0 || v[i].start_at <= now))
			k = i;
	if (k < 0) {
		r = app_fail(err, E_BAD_VACATION, "you have no vacation to end");
		goto out;
	}
	if (v[k].start_at > now) {
		*returned = vacation_days(v[k].start_at, v[k].end_at);
		r = db_vacation_set_end(app_db(a), v[k].id, 0, &de);
	} else {
		/* Ended at once, it still counts its first day (vacation_days). */
		*returned = vacation_days(v[k].start_at, v[k].end_at) - vacation_days(v[k].start_at, now);
		if ((r = db_vacation_set_end(app_db(a), v[k].id, now, &de)) == 0)
			r = db_vacation_unpause(app_db(a), player, now, &de);
	}
	if (r || (r = db_commit(app_db(a), &de)))
		r = storage_fail(&de, err);
out:
	db_rollback(app_db(a));
	free(v);
	return r;
}

json_t *vacation_view(app *a, const char *player, long long now, app_error *err)
{
	db_vacation *v = NULL;
	db_error de;
	json_t *list, *o;
	char s[32], e[32];
	int n, used;

	if (list_from_year(a, player, now, &v, &n, &de)) {
		free(v);
		storage_fail(&de, err);
		return NULL;
	}
	list = json_array();
	for (int i = 0; i < n; i++) {
		if (v[i].end_at <= now)
			continue;
		clock_iso(v[i].start_at, s);
		clock_iso(v[i].end_at, e);
		json_array_append_new(list, json_pack("{s:s, s:s, s:i, s:b}", "from", s, "until", e,
			"days", vacation_days(v[i].start_at, v[i].end_at), "current", v[i].start_at <= now));
	}
	used = used_in_year(v, n, year_of(now));
	o = json_pack("{s:i, s:I, s:i, s:o}", "days_per_year", (int)a->vacation_days, "year",
		      (json_int_t)year_of(now), "days_left", used > (int)a->vacation_days ? 0 :
		      (int)a->vacation_days - used, "vacations", list);
	free(v);
	return o;
}

/* The clock s runs again from now: what its vacation added beyond now is taken back (as db_vacation_unpause). */
static void resume(db_seat_clock *s, long long now)
{
	long long back = s->paused_until - now;

	if (back <= 0)
		return;
	if (s->deadline) {
		s->deadline -= back;
		s->running_since -= back;
	}
	s->paused_until = 0;
}

int vacation_acted(app *a, game_loaded *g, int seat, long long now, db_error *de)
{
	char player[VACATION_PLAYER_TEXT], other[VACATION_PLAYER_TEXT];
	db_vacation v[2];
	int n, r, k = -1;

	vacation_player(g->rec, seat, player, sizeof player);
	/* Vacations ending after now, in order: the first is the one under way, if any. */
	if ((r = db_vacations_list(app_db(a), player, now, v, 2, &n, de)))
		return r;
	for (int i = 0; i < n && k < 0; i++)
		if (v[i].start_at <= now)
			k = i;
	if (k < 0)
		return 0;
	if ((r = db_vacation_set_end(app_db(a), v[k].id, now, de)) ||
	    (r = db_vacation_unpause(app_db(a), player, now, de)))
		return r;
	for (int i = 0; g->clock && i < g->clock->nseats; i++) {
		vacation_player(g->rec, i, other, sizeof other);
		if (!strcmp(other, player))
			resume(&g->clock->seats[i], now);
	}
	log_event("game %s: an action of %s ends its player's vacation", g->rec->id, g->rules->seat_names[seat]);
	return 0;
}

int vacation_pause_due(app *a, long long now, int *count, db_error *de)
{
	/* One statement: atomic on its own, and no write when no vacation is under way. */
	return db_vacations_pause(app_db(a), now, count, de);
}
