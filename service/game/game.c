/* game.c - a stored game read back: tokens to seats, loading, whose turn, reading a move. */
#include "game/game.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/text.h"
#include "core/token.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int game_authenticate(app *a, const char *token, char **game_id, int *seat, app_error *err)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	db_error de;
	int r;

	*game_id = NULL;
	if (!token || !*token)
		return app_fail(err, E_UNAUTHORIZED, "this needs a seat token");
	if (!token_well_formed(token))
		return app_fail(err, E_UNAUTHORIZED, "that is not a valid seat token");
	token_hash(token, hash);
	r = db_seat_by_token(app_db(a), hash, game_id, seat, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_UNAUTHORIZED, "that seat token is not known");
	if (r)
		return app_storage_fail(err, &de);
	return 0;
}

int game_authenticate_player(app *a, const char *token, char **email, app_error *err)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	db_error de;
	int r;

	*email = NULL;
	if (!token || !token_well_formed(token))
		return app_fail(err, E_UNAUTHORIZED, "that is not a valid token");
	token_hash(token, hash);
	r = db_player_token_email(app_db(a), hash, (long long)time(NULL), email, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_UNAUTHORIZED, "that token is not known or has expired");
	if (r)
		return app_storage_fail(err, &de);
	return 0;
}

int game_load(app *a, const char *id, game_loaded *out, app_error *err)
{
	rules_error re;
	db_error de;
	int r;

	memset(out, 0, sizeof *out);
	/* A change holds its game first, so that it reads what another daemon's change of it left. */
	if (!app_reading() && db_in_transaction(app_db(a)) && db_game_lock(app_db(a), id, &de))
		return app_storage_fail(err, &de);
	r = db_game_load(app_db(a), id, &out->rec, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_NOT_FOUND, "there is no game %s", id);
	if (r)
		return app_storage_fail(err, &de);
	out->rules = rules_find(out->rec->variant, out->rec->rules_version);
	if (!out->rules) {
		r = app_fail(err, E_INTERNAL, "game %s uses %s rules version %d, which this server does not have",
			     id, out->rec->variant, out->rec->rules_version);
		goto fail;
	}
	if (out->rules->deserialize(out->rec->position, &out->pos, &re)) {
		log_event("game %s: stored position is corrupt: %s", id, re.message);
		r = app_fail(err, E_INTERNAL, "game %s cannot be read", id);
		goto fail;
	}
	out->clock = xmalloc(sizeof *out->clock);
	if ((r = db_clock_load(app_db(a), id, out->clock, &de)) == DB_E_NOTFOUND) {
		free(out->clock);
		out->clock = NULL;
	} else if (r) {
		r = app_storage_fail(err, &de);
		goto fail;
	}
	return 0;
fail:
	game_loaded_free(out);
	return r;
}

void game_loaded_free(game_loaded *g)
{
	if (g->pos)
		g->rules->free_position(g->pos);
	free(g->clock);
	db_game_free(g->rec);
	memset(g, 0, sizeof *g);
}

int game_open(const game_loaded *g)
{
	return !g->rec->over && g->rec->open_seats > 0;
}

unsigned game_turn_mask(const game_loaded *g)
{
	if (g->rec->over || game_open(g))
		return 0;
	return g->rules->turn(g->pos);
}

int game_rules_fail(const rules_error *re, app_error *err)
{
	int code;

	switch (re->code) {
	case RULES_E_PARSE: code = E_BAD_MOVE; break;
	case RULES_E_ILLEGAL: code = E_ILLEGAL; break;
	case RULES_E_INCOMPLETE: code = E_INCOMPLETE; break;
	case RULES_E_TURN: code = E_NOT_YOUR_TURN; break;
	case RULES_E_OVER: code = E_GAME_OVER; break;
	default: code = E_INTERNAL; break;
	}
	return app_fail(err, code, "%s", re->message);
}

int game_check_running(const game_loaded *g, app_error *err)
{
	if (g->rec->over)
		return app_fail(err, E_GAME_OVER, "the game is over: %s", g->rec->result ? g->rec->result : "");
	if (game_open(g))
		return app_fail(err, E_NOT_STARTED, "the game has not started: it waits for %d more player%s to take "
				"its open seats", g->rec->open_seats, g->rec->open_seats == 1 ? "" : "s");
	return 0;
}

int game_read_move(const game_loaded *g, int seat, const char *text, rules_move *mv, app_error *err)
{
	rules_error re;
	int r;

	if (!text || strlen(text) > LIMIT_MOVE_TEXT)
		return app_fail(err, E_TOO_LARGE, "a move is at most %d bytes", LIMIT_MOVE_TEXT);
	if (!text_utf8_valid(text, strlen(text)))
		return app_fail(err, E_BAD_MOVE, "the move is not valid UTF-8 text");
	if ((r = game_check_running(g, err)))
		return r;
	r = g->rules->parse(g->pos, seat, text, mv, &re);
	if (r && r != RULES_E_INCOMPLETE)
		return game_rules_fail(&re, err);
	return 0;
}

int game_ply_limit(const rules_game *rules)
{
	return LIMIT_PLIES / 2 * rules->nseats;
}

/* Seats still in the game (bit mask): a draw is theirs, and the others lose. */
unsigned game_seats_in_play(const game_loaded *g)
{
	return g->rules->in_play ? g->rules->in_play(g->pos) : (1u << g->rules->nseats) - 1;
}
