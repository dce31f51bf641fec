/* clock_changes.c - what the clock does to a game: time running out, reminders, time given. */
#include "pipeline/pipeline.h"
#include "core/log.h"
#include "core/utc.h"
#include "game/clock.h"
#include "mail_out/notify.h"
#include "pipeline/change.h"
#include "xalloc.h"

#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The resignation's summary told as a loss on time: "X wins: Y resigned" becomes "X wins on time: Y ran out of time". */
static void time_summary(const char *resigned, char *out, size_t size)
{
	const char *wins = strstr(resigned, "wins: "), *res = strstr(resigned, "resigned");
	GString *s = g_string_new(NULL);

	for (const char *p = resigned; *p;) {
		if (p == wins) {
			g_string_append(s, "wins on time: ");
			p += strlen("wins: ");
		} else if (p == res) {
			g_string_append(s, "ran out of time");
			p += strlen("resigned");
		} else {
			g_string_append_c(s, *p++);
		}
	}
	snprintf(out, size, "%s", s->str);
	g_string_free(s, TRUE);
}

/* A game that goes on without the seat: it leaves as by its rules' resignation, the note says why. */
static int timeout_leaves(app *a, game_loaded *g, int seat, app_error *err)
{
	rules_outcome oc = {0};
	rules_error re;
	game_move_done done = {.ply = g->rec->ply, .seat = seat};
	char why[sizeof oc.note];
	const char *said = "ran out of time";

	if (g->rules->resign(g->pos, seat, &oc, &re))
		return game_rules_fail(&re, err);
	/* The reason first; the rules' note (where the army went) after it, cut short if need be. */
	memcpy(why, oc.note, sizeof why);
	snprintf(oc.note, sizeof oc.note, "%s%s", said, *why ? "; " : "");
	size_t len = strlen(oc.note);
	memcpy(oc.note + len, why, sizeof oc.note - len - 1);
	oc.note[sizeof oc.note - 1] = 0;
	snprintf(done.move, sizeof done.move, "resign");
	int r = change_store_move(a, g, &done, &oc, "clock", 0, err);
	return r ? r : change_commit_move(a, g, &done, "clock", err);
}

/* A game that ends when the seat resigns: it is lost on time, as its rules' resignation ranks it. */
static int timeout_ends(app *a, game_loaded *g, int seat, app_error *err)
{
	rules_result res = {0};
	db_error de;
	char now[32];
	int r;

	rules_result resigned;
	change_resign_result(g, seat, &resigned);
	res = resigned;
	time_summary(resigned.summary, res.summary, sizeof res.summary);
	change_record_result(g->rec, &res, g->rules->nseats);
	utc_now(now);
	free(g->rec->updated_at);
	g->rec->updated_at = xstrdup(now);
	r = db_game_save_state(app_db(a), g->rec, &de);
	if (!r)
		r = change_save_clock(a, g, 0, &de);
	if (!r)
		r = notify_action(a, g, seat, "time", "clock", &de);
	if (!r)
		r = db_commit(app_db(a), &de);
	if (r)
		return app_storage_fail(err, &de);
	log_event("game %s over: %s", g->rec->id, g->rec->result);
	return 0;
}

int game_timeout(app *a, const char *id, int seat, long long now, app_error *err)
{
	game_loaded g;
	int r;

	if ((r = change_begin(a, id, &g, err)))
		return r == E_GAME_OVER ? 0 : r;
	/* Checked again inside the transaction: a move or a gift may have come first. */
	if (g.clock && seat < g.clock->nseats && g.clock->seats[seat].deadline &&
	    g.clock->seats[seat].deadline <= now) {
		if (game_turn_mask(&g) & (1u << seat)) {
			log_event("game %s: %s ran out of time", id, g.rules->seat_names[seat]);
			r = g.rules->resign ? timeout_leaves(a, &g, seat, err) : timeout_ends(a, &g, seat, err);
		} else {
			/* A clock that runs for a seat the game does not wait for stands (and leaves the list). */
			db_error de;
			if (change_save_clock(a, &g, 0, &de) || db_commit(app_db(a), &de))
				r = app_storage_fail(err, &de);
		}
	}
	db_rollback(app_db(a));
	game_loaded_free(&g);
	return r;
}

int game_give_time(app *a, const char *id, int seat, const char *to, long long seconds,
		   const char *channel, app_error *err)
{
	long long now = (long long)time(NULL);
	game_loaded g;
	db_error de;
	char said[64];
	int r, k = -1;

	if (seconds < CLOCK_HOUR_S || seconds > LIMIT_CLOCK_GIVE_DAYS_MAX * CLOCK_DAY_S)
		return app_fail(err, E_BAD_CLOCK, "give from 1/24 of a day (an hour) to %d days",
				LIMIT_CLOCK_GIVE_DAYS_MAX);
	if ((r = change_begin_seat(a, id, seat, &g, err)))
		return r;
	for (int i = 0; to && i < g.rules->nseats; i++)
		if (!strcasecmp(to, g.rules->seat_names[i]))
			k = i;
	if (!g.clock)
		r = app_fail(err, E_NO_CLOCK, "this game has no clock");
	else if (k < 0)
		r = app_fail(err, E_BAD_REQUEST, "%s has no seat \"%.40s\"", g.rules->title, to ? to : "");
	else if (k == seat)
		r = app_fail(err, E_BAD_CLOCK, "time is given to another seat, not to your own");
	else if (!(game_seats_in_play(&g) & (1u << k)))
		r = app_fail(err, E_BAD_CLOCK, "%s is out of the game", g.rules->seat_names[k]);
	if (r)
		goto out;
	clock_give(g.clock, k, seconds, now);
	if ((r = db_clock_save(app_db(a), id, g.clock, &de)) == 0 &&
	    (r = notify_time_given(a, &g, seat, k, seconds, channel, &de)) == 0)
		r = db_commit(app_db(a), &de);
	if (r) {
		r = app_storage_fail(err, &de);
		goto out;
	}
	clock_duration_text(seconds, said, sizeof said);
	log_event("game %s: %s gave %s %s via %s", id, g.rules->seat_names[seat], g.rules->seat_names[k], said,
		  channel);
out:
	db_rollback(app_db(a));
	game_loaded_free(&g);
	return r;
}

int game_remind(app *a, const char *id, int seat, long long now, int *sent, app_error *err)
{
	game_loaded g;
	db_error de;
	int r, due;

	*sent = 0;
	if ((r = change_begin(a, id, &g, err)))
		return r == E_GAME_OVER ? 0 : r;
	due = g.clock && seat < g.clock->nseats ? clock_reminder_due(g.clock, seat, now) : 0;
	if (due) {
		/* The last reminder makes the day's one pointless: each goes at most once a deadline. */
		g.clock->seats[seat].reminded |= due == DB_CLOCK_REMINDED_LAST ?
			DB_CLOCK_REMINDED_LAST | DB_CLOCK_REMINDED_DAY : due;
		if ((r = db_clock_save(app_db(a), id, g.clock, &de)) == 0 && (r = notify_reminder(a, &g, seat, &de)) == 0)
			r = db_commit(app_db(a), &de);
		if (r)
			r = app_storage_fail(err, &de);
		else
			*sent = 1;
	}
	db_rollback(app_db(a));
	game_loaded_free(&g);
	return r;
}
