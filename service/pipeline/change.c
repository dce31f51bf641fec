/* change.c - the steps every change to a game shares: begin, store, mails, commit. */
#include "pipeline/change.h"
#include "core/log.h"
#include "core/utc.h"
#include "game/clock.h"
#include "game/vacation.h"
#include "mail_out/notify.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *rolls_json(const game_move_done *d)
{
	json_t *arr = json_array();
	char *s;

	for (int i = 0; i < d->nrolls; i++)
		json_array_append_new(arr, json_pack("{s:i, s:i}", "sides", d->sides[i],
						     "value", d->rolls[i]));
	s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return s;
}

/* The places of a gesture as JSON array text. */
static char *places_json(const rules_gesture *gesture)
{
	json_t *a = json_array();
	char *text;

	for (int i = 0; i < gesture->n; i++)
		json_array_append_new(a, json_string(gesture->at[i]));
	text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return text;
}

void change_resign_result(const game_loaded *g, int seat, rules_result *res)
{
	memset(res, 0, sizeof *res);
	if (g->rules->resign_result) {
		g->rules->resign_result(g->pos, seat, res);
		return;
	}
	res->over = 1;
	for (int i = 0; i < g->rules->nseats; i++)
		res->rank[i] = i == seat ? g->rules->nseats : 1;
	if (g->rules->nseats == 2)
		snprintf(res->summary, sizeof res->summary, "%s wins: %s resigned",
			 g->rules->seat_names[1 - seat], g->rules->seat_names[seat]);
	else
		snprintf(res->summary, sizeof res->summary, "%s resigned", g->rules->seat_names[seat]);
}

/* Record the end of a game in rec from the rules' result. */
void change_record_result(db_game *rec, const rules_result *res, int nseats)
{
	json_t *ranks = json_array();

	for (int i = 0; i < nseats; i++)
		json_array_append_new(ranks, json_integer(res->rank[i]));
	rec->over = 1;
	free(rec->result);
	rec->result = xstrdup(res->summary);
	free(rec->ranks);
	rec->ranks = json_dumps(ranks, JSON_COMPACT);
	json_decref(ranks);
	rec->draw_offer = -1;
}

/* A draw for the seats of mask all: they share the game's draw rank, the others come after them. */
void change_draw_result(const game_loaded *g, unsigned all, const char *summary, rules_result *res)
{
	int rank = g->rules->draw_rank ? g->rules->draw_rank : 1, n = 0;

	memset(res, 0, sizeof *res);
	for (int i = 0; i < g->rules->nseats; i++)
		n += (all >> i) & 1;
	res->over = 1;
	for (int i = 0; i < g->rules->nseats; i++)
		res->rank[i] = (all >> i) & 1 ? rank : rank + n;
	snprintf(res->summary, sizeof res->summary, "%s", summary);
}

/*
 * After a change to g (its record already updated): the clocks of the seats
 * it now waits for run, the others stand (clock_sync); movers just moved.
 * Stored in the change's transaction, before its mails, which state the deadlines.
 */
int change_save_clock(app *a, game_loaded *g, unsigned movers, db_error *de)
{
	if (!g->clock)
		return 0;
	clock_sync(g->clock, game_turn_mask(g), movers, (long long)time(NULL));
	return db_clock_save(app_db(a), g->rec->id, g->clock, de);
}

/*
 * Store what just changed g->pos in the caller's open transaction: the move
 * row (out->move by out->seat, with its note, dice and secrecy), the game's
 * new state in g->rec and in the database, and its mails. The caller commits.
 */
int change_store_move(app *a, game_loaded *g, game_move_done *out, const rules_outcome *oc,
		      const char *channel, int anytime, app_error *err)
{
	db_move rec = {0};
	db_error de;
	char now[32];
	rules_result res;
	int r, seat = out->seat;

	snprintf(out->note, sizeof out->note, "%s", oc->note);
	out->secret = oc->secret;
	utc_now(now);
	rec.ply = g->rec->ply;
	rec.seat = seat;
	rec.move = out->move;
	rec.note = out->note;
	rec.channel = (char *)channel;
	rec.at = now;
	rec.dice = rolls_json(out);
	rec.position_after = g->rules->serialize(g->pos);
	rec.secret = oc->secret;
	rec.places = places_json(&out->gesture);
	free(g->rec->position);
	g->rec->position = xstrdup(rec.position_after);
	g->rec->ply++;
	free(g->rec->updated_at);
	g->rec->updated_at = xstrdup(now);
	/* A move by a seat that has not agreed to the draw offer lets it lapse. */
	if (g->rec->draw_offer >= 0 && !(g->rec->draw_accepts & (1u << seat)))
		g->rec->draw_offer = -1;
	g->rules->result(g->pos, &res);
	/* However a game goes, it ends: at the ply limit it is drawn, which bounds every game's record. */
	if (!res.over && g->rec->ply >= game_ply_limit(g->rules)) {
		char why[sizeof res.summary];
		snprintf(why, sizeof why, "drawn: the %d-ply limit was reached", game_ply_limit(g->rules));
		change_draw_result(g, game_seats_in_play(g), why, &res);
	}
	if (res.over)
		change_record_result(g->rec, &res, g->rules->nseats);
	r = db_move_append(app_db(a), g->rec->id, &rec, &de);
	if (!r && oc->reveals)
		r = db_moves_reveal(app_db(a), g->rec->id, &de);
	if (!r)
		r = db_game_save_state(app_db(a), g->rec, &de);
	/* From the first roll on, the client seeds that made it stay as they are. */
	if (!r && out->nrolls && !g->rec->dice_rolled) {
		r = db_game_mark_rolled(app_db(a), g->rec->id, &de);
		g->rec->dice_rolled = 1;
	}
	if (!r)
		r = change_save_clock(a, g, anytime ? 0 : 1u << seat, &de);
	if (!r)
		r = notify_moved(a, g, out, channel, &de);
	/* The caller answers with g: its version is the one these writes left (triggers moved it). */
	if (!r)
		r = db_game_version(app_db(a), g->rec->id, &g->rec->version, &de);
	if (r)
		r = app_storage_fail(err, &de);
	free(rec.dice);
	free(rec.position_after);
	free(rec.places);
	return r;
}

/*
 * Commit the change of g made by seat (move done), with the conditional
 * answers it sets off, and log them: 0, or the error (the caller rolls back).
 */
int change_commit_move(app *a, game_loaded *g, const game_move_done *done, const char *channel,
		       app_error *err)
{
	conditional_followed followed;
	db_error de;
	int r;

	if ((r = conditional_follow(a, g, &followed, err)))
		return r;
	if (db_commit(app_db(a), &de))
		return app_storage_fail(err, &de);
	change_log_move(g, done, channel);
	for (int i = 0; i < followed.n; i++)
		change_log_move(g, &followed.done[i], "conditional");
	if (g->rec->over)
		log_event("game %s over: %s", g->rec->id, g->rec->result);
	return 0;
}

void change_log_move(const game_loaded *g, const game_move_done *done, const char *channel)
{
	/* Even the log keeps a secret move (a hidden setup) to itself. */
	log_event("game %s ply %d: %s played %s%s%s via %s", g->rec->id, done->ply,
		  g->rules->seat_names[done->seat], done->secret ? "a secret move" : done->move,
		  *done->note && !done->secret ? " " : "", done->secret ? "" : done->note, channel);
}

/* Load the game for a side action inside an open transaction. */
int change_begin(app *a, const char *id, game_loaded *g, app_error *err)
{
	db_error de;
	int r;

	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	if ((r = game_load(a, id, g, err)) == 0 && (r = game_check_running(g, err)))
		game_loaded_free(g);
	if (r)
		db_rollback(app_db(a));
	return r;
}

/* begin_action for an action of seat: it ends its player's vacation under way (vacation_acted). */
int change_begin_seat(app *a, const char *id, int seat, game_loaded *g, app_error *err)
{
	db_error de;
	int r = change_begin(a, id, g, err);

	if (!r && vacation_acted(a, g, seat, (long long)time(NULL), &de)) {
		r = app_storage_fail(err, &de);
		db_rollback(app_db(a));
		game_loaded_free(g);
	}
	return r;
}

int change_finish_action(app *a, game_loaded *g, int seat, const char *action,
			 const char *channel, app_error *err)
{
	db_error de;
	char now[32];
	int r;

	utc_now(now);
	free(g->rec->updated_at);
	g->rec->updated_at = xstrdup(now);
	r = db_action_append(app_db(a), g->rec->id, g->rec->ply, seat, action, channel, now, &de);
	if (!r)
		r = db_game_save_state(app_db(a), g->rec, &de);
	if (!r)
		r = change_save_clock(a, g, 0, &de);
	if (!r)
		r = notify_action(a, g, seat, action, channel, &de);
	/* A game ended by an action keeps no conditional moves: none can be played. */
	if (!r && g->rec->over)
		r = db_conditional_delete(app_db(a), g->rec->id, -1, &de);
	if (!r)
		r = db_commit(app_db(a), &de);
	if (r) {
		db_rollback(app_db(a));
		return app_storage_fail(err, &de);
	}
	static const char *const said[][2] = {
		{"resign", "resigned"}, {"offer", "offered a draw"}, {"accept", "accepted the draw"},
		{"decline", "declined the draw"}, {"withdraw", "withdrew the draw offer"},
	};
	const char *what = action;
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
		if (!strcmp(said[i][0], action))
			what = said[i][1];
	log_event("game %s: %s %s via %s", g->rec->id, g->rules->seat_names[seat], what, channel);
	if (g->rec->over)
		log_event("game %s over: %s", g->rec->id, g->rec->result);
	return 0;
}
