/* conditional.c - storing a seat's conditional moves, and playing them when the game reaches them. */
#include "pipeline/pipeline.h"
#include "core/limits.h"
#include "game/conditional.h"
#include "mail_out/notify.h"
#include "pipeline/change.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The confirmation of a tree stored by mail: what is stored, in the mail's own grammar. */
static int confirm_by_mail(app *a, const game_loaded *g, int seat, const json_t *canon, db_error *de)
{
	char *lines = conditional_to_lines(canon);
	char *said = *lines ? xasprintf("your conditional moves in %s game %s are stored (they replace any "
					"before):\n\n%s\nEach answer is played as soon as the game reaches it; a move "
					"they do not expect clears them.", g->rules->title, g->rec->id, lines) :
		xasprintf("your conditional moves in %s game %s are cleared.", g->rules->title, g->rec->id);
	int r = notify_conditional(a, g, seat, said, de);

	free(said);
	free(lines);
	return r;
}

/*
 * Put the entries of add into the level node: an entry expecting the same
 * moves with the same answer takes in what add has under it, level by level;
 * with another answer, add's entry replaces it.
 */
static void merge_into(json_t *node, const json_t *add)
{
	json_t *list = json_object_get(node, "if"), *e;
	size_t i;

	json_array_foreach(json_object_get(add, "if"), i, e) {
		json_t *same = NULL;
		size_t k;
		for (k = 0; k < json_array_size(list) && !same; k++)
			if (json_equal(json_object_get(json_array_get(list, k), "moves"), json_object_get(e, "moves")))
				same = json_array_get(list, k);
		if (!same) {
			json_array_append(list, e);
		} else if (!json_equal(json_object_get(same, "then"), json_object_get(e, "then"))) {
			json_array_set(list, k - 1, e);
		} else if (json_object_get(e, "next")) {
			if (json_object_get(same, "next"))
				merge_into(json_object_get(same, "next"), json_object_get(e, "next"));
			else
				json_object_set(same, "next", json_object_get(e, "next"));
		}
	}
}

/* The seat's stored tree with add merged in (merge_into), when it starts where the game is; else add. New reference. */
static json_t *merged(app *a, const game_loaded *g, int seat, const json_t *add, db_error *de)
{
	char *text = NULL;
	int from, r = db_conditional_get(app_db(a), g->rec->id, seat, &text, &from, de);
	json_t *old = !r && from == g->rec->ply ? json_loads(text, 0, NULL) : NULL;

	free(text);
	if (!old)
		return json_deep_copy(add);
	merge_into(old, add);
	return old;
}

int game_conditional_put(app *a, const char *id, int seat, const json_t *tree, int add, const char *channel,
			 json_t **canon, app_error *err)
{
	game_loaded g = {0};
	db_error de;
	int r;

	*canon = NULL;
	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	if ((r = game_load(a, id, &g, err)))
		goto out;
	if ((r = conditional_check(&g, seat, tree, canon, err)))
		goto out;
	if (add) {
		/* The entries added are checked; so is the whole, which must keep within the limits. */
		json_t *whole = merged(a, &g, seat, *canon, &de);
		json_decref(*canon);
		*canon = NULL;
		r = conditional_check(&g, seat, whole, canon, err);
		json_decref(whole);
		if (r)
			goto out;
	}
	/* An empty tree is no tree. Storing one changes no view: games.version stays as it is. */
	if (json_array_size(json_object_get(*canon, "if")) == 0)
		r = db_conditional_delete(app_db(a), id, seat, &de);
	else {
		char *text = json_dumps(*canon, JSON_COMPACT);
		r = db_conditional_put(app_db(a), id, seat, g.rec->ply, text, &de);
		free(text);
	}
	if (!r && !strcmp(channel, "mail"))
		r = confirm_by_mail(a, &g, seat, *canon, &de);
	if (!r)
		r = db_commit(app_db(a), &de);
	if (r)
		r = app_storage_fail(err, &de);
out:
	if (r) {
		json_decref(*canon);
		*canon = NULL;
	}
	db_rollback(app_db(a));
	game_loaded_free(&g);
	return r;
}

json_t *game_conditional_get(app *a, const char *id, int seat, app_error *err)
{
	char *text = NULL;
	int from;
	db_error de;
	int r = db_conditional_get(app_db(a), id, seat, &text, &from, &de);
	json_t *tree;

	if (r == DB_E_NOTFOUND)
		return json_pack("{s:[]}", "if");
	if (r) {
		app_storage_fail(err, &de);
		return NULL;
	}
	tree = json_loads(text, 0, NULL);
	free(text);
	if (!tree)
		app_fail(err, E_INTERNAL, "a stored tree of conditional moves cannot be read");
	return tree;
}

int game_conditional_clear(app *a, const char *id, int seat, app_error *err)
{
	game_loaded g = {0};
	db_error de;
	int r;

	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	/* A game over may have its trees cleared (there are none); one not started has none to clear. */
	if (!(r = game_load(a, id, &g, err)) && game_open(&g))
		r = game_check_running(&g, err);
	if (!r && (db_conditional_delete(app_db(a), id, seat, &de) || db_commit(app_db(a), &de)))
		r = app_storage_fail(err, &de);
	db_rollback(app_db(a));
	game_loaded_free(&g);
	return r;
}

/* Clear seat's tree and tell it why (why: the end of a sentence). */
static int clear_told(app *a, const game_loaded *g, int seat, const char *why, db_error *de)
{
	char *said = xasprintf("your conditional moves in %s game %s are cleared: %s", g->rules->title, g->rec->id,
			       why);
	int r = db_conditional_delete(app_db(a), g->rec->id, seat, de);

	if (!r)
		r = notify_conditional(a, g, seat, said, de);
	free(said);
	return r;
}

/*
 * Seat's tree against the moves since it was stored: wait, clear it, or play
 * its answer (*played set, the answer in *done). 0, or an error.
 */
static int follow_seat(app *a, game_loaded *g, int seat, int *played, game_move_done *done, app_error *err)
{
	conditional_state st;
	char *said = NULL;
	db_error de = {0};
	int r;

	*played = 0;
	if ((r = conditional_state_of(a, g, seat, &st, &de)))
		return app_storage_fail(err, &de);
	if (!st.tree || st.verdict == CONDITIONAL_WAIT)
		goto out;
	if (st.verdict == CONDITIONAL_DEVIATED) {
		r = clear_told(a, g, seat, st.why, &de);
		goto out;
	}
	rules_move mv;
	app_error why = {0};
	if (game_read_move(g, seat, st.answer, &mv, &why) || mv.partial) {
		said = xasprintf("%s could not be played now: %s", st.answer,
				 why.code ? why.message : "it is incomplete");
		r = clear_told(a, g, seat, said, &de);
		goto out;
	}
	if ((r = change_play_move(a, g, seat, &mv, "conditional", 0, done, err)))
		goto done;
	*played = 1;
	if (st.next) {
		char *rest = json_dumps(st.next, JSON_COMPACT);
		r = db_conditional_put(app_db(a), g->rec->id, seat, g->rec->ply, rest, &de);
		free(rest);
	} else {
		r = db_conditional_delete(app_db(a), g->rec->id, seat, &de);
	}
	if (!r) {
		said = xasprintf("your conditional move %s%s%s%s was played in %s game %s%s", done->move,
				 *done->note ? " (" : "", done->note, *done->note ? ")" : "", g->rules->title,
				 g->rec->id, st.next ? "; the rest of your conditional moves waits." :
				 "; that was the last of your conditional moves.");
		r = notify_conditional(a, g, seat, said, &de);
	}
out:
	if (r)
		r = app_storage_fail(err, &de);
done:
	conditional_state_clear(&st);
	free(said);
	return r;
}

int conditional_follow(app *a, game_loaded *g, conditional_followed *followed, app_error *err)
{
	db_error de;
	unsigned mask;
	int r;

	followed->n = 0;
	while (followed->n < LIMIT_CONDITIONAL_CHAIN) {
		int played = 0;
		if ((r = db_conditional_seats(app_db(a), g->rec->id, &mask, &de)))
			return app_storage_fail(err, &de);
		if (!mask)
			return 0;
		/* A game over keeps no conditional moves: none can be played. */
		if (g->rec->over)
			return db_conditional_delete(app_db(a), g->rec->id, -1, &de) ? app_storage_fail(err, &de) : 0;
		for (int seat = 0; seat < g->rec->nseats && !played; seat++)
			if ((mask >> seat) & 1 &&
			    (r = follow_seat(a, g, seat, &played, &followed->done[followed->n], err)))
				return r;
		if (!played)
			return 0;
		followed->n++;
	}
	return 0;
}
