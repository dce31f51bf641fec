/* actions.c - the side actions of a seat: resigning, draws, the dice's client seed. */
#include "pipeline/pipeline.h"
#include "core/limits.h"
#include "core/log.h"
#include "game/dice.h"
#include "pipeline/change.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int game_resign(app *a, const char *id, int seat, const char *channel, app_error *err)
{
	game_loaded g;
	rules_result res = {0};
	int r;

	if ((r = change_begin_seat(a, id, seat, &g, err)))
		return r;
	/* Games that go on without the resigner record the resignation as a move of its own. */
	if (g.rules->resign) {
		rules_outcome oc = {0};
		rules_error re;
		game_move_done done = {.ply = g.rec->ply, .seat = seat};
		if (g.rules->resign(g.pos, seat, &oc, &re)) {
			r = game_rules_fail(&re, err);
			db_rollback(app_db(a));
		} else {
			snprintf(done.move, sizeof done.move, "resign");
			if (!(r = change_store_move(a, &g, &done, &oc, channel, 0, err)))
				r = change_commit_move(a, &g, &done, channel, err);
			db_rollback(app_db(a));
		}
		game_loaded_free(&g);
		return r;
	}
	change_resign_result(&g, seat, &res);
	change_record_result(g.rec, &res, g.rules->nseats);
	r = change_finish_action(a, &g, seat, "resign", channel, err);
	game_loaded_free(&g);
	return r;
}

int game_draw(app *a, const char *id, int seat, const char *action, const char *channel,
	      app_error *err)
{
	game_loaded g;
	unsigned me = 1u << seat, all;
	int r, offer;

	if (!action || (strcmp(action, "offer") && strcmp(action, "accept") &&
			strcmp(action, "decline") && strcmp(action, "withdraw")))
		return app_fail(err, E_BAD_REQUEST, "action must be offer, accept, decline or withdraw");
	if ((r = change_begin_seat(a, id, seat, &g, err)))
		return r;
	offer = g.rec->draw_offer;
	/* A draw needs the seats still in the game; the others lose when it is drawn. */
	all = game_seats_in_play(&g);
	if (!(all & me)) {
		r = app_fail(err, E_FORBIDDEN, "you are out of the game: draws are for the players still in it");
		goto out;
	}
	if (!strcmp(action, "offer")) {
		if (offer >= 0) {
			r = app_fail(err, E_OFFER_PENDING, g.rec->draw_accepts & me ? "you have already agreed to a draw"
				     : "%s has offered a draw: accept or decline it", g.rules->seat_names[offer]);
			goto out;
		}
		g.rec->draw_offer = seat;
		g.rec->draw_accepts = me;
	} else if (!strcmp(action, "withdraw")) {
		if (offer != seat) {
			r = app_fail(err, E_NO_OFFER, "you have no draw offer to withdraw");
			goto out;
		}
		g.rec->draw_offer = -1;
	} else if (offer < 0 || (g.rec->draw_accepts & me)) {
		r = app_fail(err, E_NO_OFFER, offer < 0 ? "there is no draw offer to %s" :
			     "you have already agreed to this draw (the offerer may withdraw it)", action);
		goto out;
	} else if (!strcmp(action, "decline")) {
		g.rec->draw_offer = -1;
	} else {
		g.rec->draw_accepts |= me;
		/* Everybody still in the game must agree; they share one rank, the rest lose. */
		if ((g.rec->draw_accepts & all) == all) {
			rules_result res;
			change_draw_result(&g, all, "drawn by agreement", &res);
			change_record_result(g.rec, &res, g.rules->nseats);
		}
	}
	r = change_finish_action(a, &g, seat, action, channel, err);
	game_loaded_free(&g);
	return r;
out:
	db_rollback(app_db(a));
	game_loaded_free(&g);
	return r;
}

int game_set_client_seed(app *a, const char *id, int seat, const char *client_seed,
			 const char *channel, app_error *err)
{
	game_loaded g;
	db_error de;
	int r;

	r = dice_client_seed_check(client_seed, LIMIT_CLIENT_SEED);
	if (r)
		return app_fail(err, r == 1 && client_seed && *client_seed ? E_TOO_LARGE : E_BAD_REQUEST,
				"a client seed is 1 to %d printable ASCII characters (letters, digits, "
				"punctuation, spaces)", LIMIT_CLIENT_SEED);
	if ((r = change_begin_seat(a, id, seat, &g, err)))
		return r;
	if (g.rec->dice_version < DICE_V2)
		r = app_fail(err, E_SEEDS_FIXED, "this game's dice were committed before client seeds existed: "
			     "they take none");
	else if (g.rec->dice_rolled)
		r = app_fail(err, E_SEEDS_FIXED, "the dice have already rolled: client seeds are set before "
			     "the game's first roll");
	else if (db_seat_set_client_seed(app_db(a), id, seat, client_seed, &de) || db_commit(app_db(a), &de))
		r = app_storage_fail(err, &de);
	db_rollback(app_db(a));
	if (!r)
		log_event("game %s: %s set a client seed via %s", id, g.rules->seat_names[seat], channel);
	game_loaded_free(&g);
	return r;
}
