/* move.c - the move pipeline: read, check, roll, apply, store and mail a move in one transaction. */
#include "pipeline/pipeline.h"
#include "core/limits.h"
#include "core/text.h"
#include "game/dice.h"
#include "game/vacation.h"
#include "game/view.h"
#include "pipeline/change.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Rolls of one move, drawn from the game's committed seed (and its seats' client seeds). */
struct roller {
	const db_game *rec;
	int ply;
	game_move_done *done;
};

static int roll_from_seed(void *ctx, int sides, int *value)
{
	struct roller *r = ctx;

	if (sides < 1 || r->done->nrolls >= (int)(sizeof r->done->rolls / sizeof r->done->rolls[0]))
		return -1;
	if (r->rec->dice_version >= DICE_V2) {
		const char *client[DB_MAX_SEATS];
		for (int i = 0; i < r->rec->nseats; i++)
			client[i] = r->rec->seats[i].client_seed;
		*value = dice_roll_v2(r->rec->seed, r->rec->id, client, r->rec->nseats, r->ply,
				      r->done->nrolls, (uint32_t)sides);
	} else {
		*value = dice_roll(r->rec->seed, r->rec->id, r->ply, r->done->nrolls, (uint32_t)sides);
	}
	r->done->sides[r->done->nrolls] = sides;
	r->done->rolls[r->done->nrolls++] = *value;
	return 0;
}

/* Parse text as seat's move in the stored position before ply. */
static int canonical_at(app *a, const game_loaded *g, int ply, int seat, const char *text,
			char out[RULES_TEXT_MAX])
{
	rules_position *pos = NULL;
	rules_move mv;
	rules_error re;
	db_move prev;
	db_error de;
	int r;

	if (ply == 0) {
		r = g->rules->deserialize(g->rec->start_position, &pos, &re);
	} else {
		if (db_move_get(app_db(a), g->rec->id, ply - 1, &prev, &de))
			return -1;
		r = g->rules->deserialize(prev.position_after, &pos, &re);
		db_move_clear(&prev);
	}
	if (r)
		return -1;
	r = g->rules->parse(pos, seat, text, &mv, &re);
	if (!r)
		g->rules->format(pos, &mv, out, RULES_TEXT_MAX);
	g->rules->free_position(pos);
	return r ? -1 : 0;
}

/* An earlier submission of the same move: answer as the first time. */
static int answer_duplicate(app *a, game_loaded *g, int ply, int seat, const char *text,
			    game_move_done *out, app_error *err)
{
	char canon[RULES_TEXT_MAX];
	db_move m;
	db_error de;
	int r = db_move_get(app_db(a), g->rec->id, ply, &m, &de);

	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_STALE, "the game is at ply %d, not %d", g->rec->ply, ply);
	if (r)
		return app_storage_fail(err, &de);
	if (m.seat != seat || canonical_at(a, g, ply, seat, text, canon) || strcmp(canon, m.move) != 0) {
		r = app_fail(err, E_STALE, "ply %d has already been played (%s); the game is at ply %d",
			     ply, view_move_text(&m, seat), g->rec->ply);
		goto out;
	}
	out->ply = ply;
	out->seat = seat;
	out->duplicate = 1;
	snprintf(out->move, sizeof out->move, "%s", m.move);
	snprintf(out->note, sizeof out->note, "%s", m.note);
	out->secret = m.secret;
	json_t *dice = json_loads(m.dice, 0, NULL);
	size_t i;
	json_t *v;
	json_array_foreach(dice, i, v) {
		if (out->nrolls < LIMIT_ROLLS_PER_MOVE) {
			out->sides[out->nrolls] = (int)json_integer_value(json_object_get(v, "sides"));
			out->rolls[out->nrolls++] = (int)json_integer_value(json_object_get(v, "value"));
		}
	}
	json_decref(dice);
out:
	db_move_clear(&m);
	return r;
}

int change_play_move(app *a, game_loaded *g, int seat, const rules_move *mv, const char *channel, int anytime,
		     game_move_done *out, app_error *err)
{
	rules_outcome oc = {0};
	rules_error re;

	out->ply = g->rec->ply;
	out->seat = seat;
	g->rules->format(g->pos, mv, out->move, sizeof out->move);
	if (g->rules->gesture)
		g->rules->gesture(g->pos, mv, &out->gesture);
	struct roller roller = {g->rec, g->rec->ply, out};
	rules_dice dice = {roll_from_seed, &roller};
	if (g->rules->apply(g->pos, mv, &dice, &oc, &re))
		return game_rules_fail(&re, err);
	/* An action made at any time (an alliance) is not the seat's turn: its clock goes on. */
	return change_store_move(a, g, out, &oc, channel, anytime, err);
}

int game_submit_move(app *a, const char *id, int seat, int ply, const char *text,
		     const char *channel, game_move_done *out, game_loaded *after, app_error *err)
{
	return game_submit_move_said(a, id, seat, ply, text, NULL, NULL, channel, out, NULL, after, err);
}

int game_submit_move_said(app *a, const char *id, int seat, int ply, const char *text, const char *message,
			  const char *to, const char *channel, game_move_done *out, game_message *said,
			  game_loaded *after, app_error *err)
{
	game_message m = {0};
	game_loaded g = {0};
	rules_move mv;
	rules_error re;
	db_error de;
	int r;

	memset(out, 0, sizeof *out);
	if (said)
		memset(said, 0, sizeof *said);
	if (!text || strlen(text) > LIMIT_MOVE_TEXT)
		return app_fail(err, E_TOO_LARGE, "a move is at most %d bytes", LIMIT_MOVE_TEXT);
	if (!text_utf8_valid(text, strlen(text)))
		return app_fail(err, E_BAD_MOVE, "the move is not valid UTF-8 text");
	/* A line ending (from a pasted line or a mail body) is not part of the move. */
	char line[LIMIT_MOVE_TEXT + 1];
	size_t len = strlen(text);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	memcpy(line, text, len);
	line[len] = 0;
	text = line;
	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	if ((r = game_load(a, id, &g, err)))
		goto out;
	if (message && (r = message_check(&g, seat, message, to, &m, err)))
		goto out;
	/* Parse first: some actions (alliance declarations) may be made out of turn and
	 * whatever the ply, since they do not answer a position. */
	int parsed = g.rules->parse(g.pos, seat, text, &mv, &re);
	int anytime = !parsed && mv.anytime;
	if (ply >= 0 && ply < g.rec->ply) {
		r = answer_duplicate(a, &g, ply, seat, text, out, err);
		if (r != E_STALE || !anytime)
			goto out;
		/* Not a repeat: an out-of-turn action sent with an old ply is taken as it is. */
		memset(out, 0, sizeof *out);
		if (err)
			memset(err, 0, sizeof *err);
	}
	if ((r = game_check_running(&g, err)))
		goto out;
	if (ply >= 0 && ply != g.rec->ply && !anytime) {
		r = app_fail(err, E_STALE, "the game is at ply %d, not %d", g.rec->ply, ply);
		goto out;
	}
	/* Out of turn, a text the rules could not read is answered with the rules' reason
	 * (a malformed declaration, say); a readable move with "not your turn". */
	if (!(game_turn_mask(&g) & (1u << seat)) && !anytime && (!parsed || re.code == RULES_E_TURN)) {
		r = app_fail(err, E_NOT_YOUR_TURN, "it is not %s's turn", g.rules->seat_names[seat]);
		goto out;
	}
	if (parsed) {
		r = game_rules_fail(&re, err);
		goto out;
	}
	if (vacation_acted(a, &g, seat, (long long)time(NULL), &de)) {
		r = app_storage_fail(err, &de);
		goto out;
	}
	/* Stored before the move, so that the move's mails carry it. */
	if (message && (r = message_store(a, &g, &m, channel, err)))
		goto out;
	if (!(r = change_play_move(a, &g, seat, &mv, channel, anytime, out, err)))
		r = change_commit_move(a, &g, out, channel, err);
out:
	/* A refused move, and the answer to a repeated one, changed nothing. */
	db_rollback(app_db(a));
	if (!r && said)
		*said = m;
	else
		game_message_clear(&m);
	if (!r && after)
		*after = g;
	else
		game_loaded_free(&g);
	return r;
}
