/* vacation.h - players' vacations: days a calendar year, the dates' arithmetic, clocks standing still. */
#ifndef ROOKERY_VACATION_H
#define ROOKERY_VACATION_H

#include "game/game.h"

#include <jansson.h>
#include <stddef.h>

#define VACATION_PLAYER_TEXT 320   /* an address (LIMIT_EMAIL) in lower case, or "#<game>/<seat>" */

/* ---- pure date arithmetic (unix seconds, UTC; no time zone is ever used) ---- */

/* 00:00 UTC of the date y-m-d (proleptic Gregorian). */
long long vacation_day_start(long long y, int m, int d);
/* A strict "YYYY-MM-DD" date (a real one, years 1970 to 9999) as its 00:00 UTC into *t: 0, or -1. */
int vacation_parse_date(const char *text, long long *t);
/* The days a vacation from start to end counts: whole days begun, at least one. */
int vacation_days(long long start, long long end);
/*
 * The days of that count that fall in year (UTC): day i of the vacation
 * (starting at start + i days) counts against the year it starts in.
 */
int vacation_days_in_year(long long start, long long end, long long year);
/* The whole days a vacation ending at end still has at now (those returned when it ends at now). */
int vacation_days_unused(long long end, long long now);

/* ---- players ---- */

/* The player of seat of rec into out: its address in lower case, or "#<game>/<seat>" without one. */
void vacation_player(const db_game *rec, int seat, char *out, size_t size);

/* The player who holds seat of game_id (vacation_player of the stored game): 0, or the error of loading it. */
int vacation_player_of_seat(app *a, const char *game_id, int seat, char *out, size_t size, app_error *err);

/* The player an email address is (as vacation_player spells it). */
void vacation_player_of_email(const char *email, char *out, size_t size);

/* ---- actions (each in a transaction of its own unless it says otherwise) ---- */

/*
 * The span of a vacation asked for: days whole days from now (days > 0), or
 * else the UTC dates from..to (both included; from today on), into
 * *start..*end; 0 or E_BAD_VACATION with a message.
 */
int vacation_span(long long days, const char *from, const char *to, long long now, long long *start,
		  long long *end, app_error *err);
/*
 * Player takes a vacation from start to end (vacation_span's): refused with
 * E_VACATION_OVERLAP when it overlaps one taken, E_VACATION_DAYS when a year
 * it touches has not that many days left. A vacation that begins at once stops
 * the player's clocks at once.
 */
int vacation_take(app *a, const char *player, long long start, long long end, long long now, app_error *err);
/*
 * Player's vacation under way ends at now, its clocks run again and its unused
 * whole days return (*returned); without one, the next one to come is
 * withdrawn (all its days return). E_BAD_VACATION when there is neither.
 */
int vacation_end(app *a, const char *player, long long now, int *returned, app_error *err);
/*
 * Player's allowance at now: {"days_per_year", "year", "days_left",
 * "vacations": [{"from", "until", "days", "current"}]} (current and coming
 * ones), or NULL with err.
 */
json_t *vacation_view(app *a, const char *player, long long now, app_error *err);
/*
 * Inside the transaction of an action by seat of g at now: a vacation of its
 * player under way ends, and its clocks run again (g->clock's too).
 */
int vacation_acted(app *a, game_loaded *g, int seat, long long now, db_error *de);
/* Every vacation under way at now stops its player's clocks (the sweep; a transaction of its own). */
int vacation_pause_due(app *a, long long now, int *count, db_error *de);

#endif
