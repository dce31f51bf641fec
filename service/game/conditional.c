/* conditional.c - a seat's tree of conditional moves: checked by replaying it, matched against what is played. */
#include "game/conditional.h"
#include "core/limits.h"
#include "core/text.h"
#include "xalloc.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dice while checking a line: any value will do, but what follows a roll cannot be known. */
static int count_roll(void *ctx, int sides, int *value)
{
	(*(int *)ctx)++;
	*value = sides;
	return 0;
}

struct checker {
	const rules_game *rules;
	int seat;
	int answers;
};

/* A rules refusal of the move at where, as the service's error. */
static int move_fail(const rules_error *re, const char *where, const char *text, app_error *err)
{
	app_error e = {0};
	game_rules_fail(re, &e);
	return app_fail(err, e.code == E_INTERNAL ? E_BAD_CONDITIONAL : e.code, "%s: \"%.60s\": %s", where, text,
			e.message);
}

/* Read text as mover's move in pos, write its canonical text and play it there; *rolled counts dice. */
static int play_text(const struct checker *c, rules_position *pos, int mover, const char *text,
		     const char *where, char canon[RULES_TEXT_MAX], int *rolled, app_error *err)
{
	rules_move mv;
	rules_error re = {0};
	rules_outcome oc = {0};
	rules_dice dice = {count_roll, rolled};

	if (strlen(text) > LIMIT_MOVE_TEXT || !text_utf8_valid(text, strlen(text)))
		return app_fail(err, E_BAD_MOVE, "%s: a move is at most %d bytes of UTF-8 text", where, LIMIT_MOVE_TEXT);
	if (c->rules->parse(pos, mover, text, &mv, &re))
		return move_fail(&re, where, text, err);
	c->rules->format(pos, &mv, canon, RULES_TEXT_MAX);
	if (c->rules->apply(pos, &mv, &dice, &oc, &re))
		return move_fail(&re, where, text, err);
	return 0;
}

static int check_node(struct checker *c, const rules_position *pos, const json_t *node, int depth,
		      json_t **canon, app_error *err);

/* One entry of a level: the expected moves, the answer, what follows. */
static int check_entry(struct checker *c, const rules_position *from, const json_t *entry, int depth, int index,
		       json_t **canon, app_error *err)
{
	json_error_t je;
	json_t *moves, *next = NULL, *cmoves = json_array(), *cnext = NULL;
	const char *then;
	char where[96], text[RULES_TEXT_MAX];
	rules_position *pos = c->rules->clone(from);
	int rolled = 0, r = 0;
	size_t i;

	snprintf(where, sizeof where, "level %d, entry %d", depth, index + 1);
	if (json_unpack_ex((json_t *)entry, &je, JSON_STRICT, "{s:o, s:s, s?o}", "moves", &moves, "then", &then,
			   "next", &next) || !json_is_array(moves) || json_array_size(moves) == 0 ||
	    json_array_size(moves) > RULES_MAX_SEATS * 2 || (next && !json_is_object(next))) {
		r = app_fail(err, E_BAD_CONDITIONAL, "%s: expected {\"moves\": [move, ...], \"then\": move, "
			     "\"next\": {\"if\": [...]}} with 1 to %d moves", where, RULES_MAX_SEATS * 2);
		goto out;
	}
	for (i = 0; i < json_array_size(moves); i++) {
		const json_t *m = json_array_get(moves, i);
		unsigned turn = c->rules->turn(pos);
		if (!json_is_string(m)) {
			r = app_fail(err, E_BAD_CONDITIONAL, "%s: the moves are strings", where);
			goto out;
		}
		if (rolled) {
			r = app_fail(err, E_BAD_CONDITIONAL, "%s: a move that rolls dice can only end its line", where);
			goto out;
		}
		if (!turn || (turn & (1u << c->seat)) || (turn & (turn - 1))) {
			r = app_fail(err, E_BAD_CONDITIONAL, "%s: \"%.60s\" is not the move of the one other seat to "
				     "move: %s", where, json_string_value(m), !turn ? "the game would be over" :
				     turn & (1u << c->seat) ? "it would be your turn" : "several seats would act");
			goto out;
		}
		if ((r = play_text(c, pos, __builtin_ctz(turn), json_string_value(m), where, text, &rolled, err)))
			goto out;
		json_array_append_new(cmoves, json_string(text));
	}
	if (rolled) {
		r = app_fail(err, E_BAD_CONDITIONAL, "%s: an expected move that rolls dice cannot be answered in advance",
			     where);
		goto out;
	}
	if (!(c->rules->turn(pos) & (1u << c->seat))) {
		r = app_fail(err, E_BAD_CONDITIONAL, "%s: after these moves it would not be your turn: name every "
			     "move up to your turn", where);
		goto out;
	}
	if (++c->answers > LIMIT_CONDITIONAL_ANSWERS) {
		r = app_fail(err, E_TOO_LARGE, "a tree holds at most %d answers", LIMIT_CONDITIONAL_ANSWERS);
		goto out;
	}
	if ((r = play_text(c, pos, c->seat, then, where, text, &rolled, err)))
		goto out;
	if (next && json_array_size(json_object_get(next, "if")) > 0) {
		if (rolled) {
			r = app_fail(err, E_BAD_CONDITIONAL, "%s: an answer that rolls dice can only end its line", where);
			goto out;
		}
		if ((r = check_node(c, pos, next, depth + 1, &cnext, err)))
			goto out;
	}
	*canon = json_pack("{s:O, s:s}", "moves", cmoves, "then", text);
	if (cnext)
		json_object_set_new(*canon, "next", cnext);
out:
	json_decref(cmoves);
	c->rules->free_position(pos);
	return r;
}

/* A level {"if": [...]} from pos. */
static int check_node(struct checker *c, const rules_position *pos, const json_t *node, int depth,
		      json_t **canon, app_error *err)
{
	json_error_t je;
	json_t *list, *out;
	size_t i;

	if (depth > LIMIT_CONDITIONAL_DEPTH)
		return app_fail(err, E_TOO_LARGE, "a tree is at most %d levels deep", LIMIT_CONDITIONAL_DEPTH);
	if (!json_is_object(node) || json_unpack_ex((json_t *)node, &je, JSON_STRICT, "{s:o}", "if", &list) ||
	    !json_is_array(list))
		return app_fail(err, E_BAD_CONDITIONAL, "level %d: expected {\"if\": [entry, ...]}", depth);
	out = json_array();
	for (i = 0; i < json_array_size(list); i++) {
		json_t *entry = NULL;
		int r = check_entry(c, pos, json_array_get(list, i), depth, (int)i, &entry, err);
		if (r) {
			json_decref(out);
			return r;
		}
		/* Two answers to the same moves: the tree would not say what to play. */
		for (size_t k = 0; k < json_array_size(out); k++)
			if (json_equal(json_object_get(json_array_get(out, k), "moves"), json_object_get(entry, "moves"))) {
				json_decref(entry);
				json_decref(out);
				return app_fail(err, E_BAD_CONDITIONAL, "level %d, entry %zu: the same moves are "
						"expected twice", depth, i + 1);
			}
		json_array_append_new(out, entry);
	}
	*canon = json_pack("{s:o}", "if", out);
	return 0;
}

/* Whether seat may have conditional moves in g now: 0, or why not. */
static int check_now(const game_loaded *g, int seat, app_error *err)
{
	unsigned turn = game_turn_mask(g);
	int r = game_check_running(g, err);

	if (r)
		return r;
	if ((g->rules->has_secrets && g->rules->has_secrets(g->pos)) || (turn & (turn - 1)))
		return app_fail(err, E_CONDITIONAL_NOT_NOW, "conditional moves wait until the hidden setup is over");
	if (turn & (1u << seat))
		return app_fail(err, E_CONDITIONAL_NOT_NOW, "it is your turn: play your move, then store what follows");
	return 0;
}

int conditional_check(const game_loaded *g, int seat, const json_t *tree, json_t **canon, app_error *err)
{
	struct checker c = {g->rules, seat, 0};
	int r;

	*canon = NULL;
	if ((r = check_now(g, seat, err)))
		return r;
	return check_node(&c, g->pos, tree, 1, canon, err);
}

int conditional_replay(const game_loaded *g, int seat, const char *const *texts, int n, rules_position **pos,
		       char (*canon)[RULES_TEXT_MAX], int *movers, int *mover, int *complete, app_error *err)
{
	struct checker c = {g->rules, seat, 0};
	int rolled = 0, r = 0;
	char where[32];

	*pos = NULL;
	*complete = 0;
	if ((r = check_now(g, seat, err)))
		return r;
	if (n > CONDITIONAL_LINE_MAX)
		return app_fail(err, E_TOO_LARGE, "a line holds at most %d moves", CONDITIONAL_LINE_MAX);
	*pos = g->rules->clone(g->pos);
	for (int i = 0; i <= n; i++) {
		unsigned turn = g->rules->turn(*pos);
		*mover = rolled ? -1 : turn & (1u << seat) ? seat : turn && !(turn & (turn - 1)) ? __builtin_ctz(turn) : -1;
		if (i == n)
			break;
		snprintf(where, sizeof where, "move %d", i + 1);
		if (*mover < 0) {
			r = app_fail(err, E_BAD_CONDITIONAL, "%s: \"%.60s\" cannot follow: %s", where, texts[i],
				     rolled ? "the move before rolls dice" : "nobody, or several seats at once, would move");
			break;
		}
		if ((r = play_text(&c, *pos, *mover, texts[i], where, canon[i], &rolled, err)))
			break;
		if (movers)
			movers[i] = *mover;
		*complete = *mover == seat;
	}
	if (r) {
		g->rules->free_position(*pos);
		*pos = NULL;
	}
	return r;
}

json_t *conditional_line_tree(const game_loaded *g, int seat, const char *const *texts, int n, app_error *err)
{
	char (*canon)[RULES_TEXT_MAX] = xmalloc(sizeof(char[CONDITIONAL_LINE_MAX][RULES_TEXT_MAX]));
	int movers[CONDITIONAL_LINE_MAX], mover, complete, end;
	rules_position *pos;
	json_t *node = NULL;

	if (conditional_replay(g, seat, texts, n, &pos, canon, movers, &mover, &complete, err))
		goto out;
	g->rules->free_position(pos);
	if (!complete) {
		app_fail(err, E_BAD_CONDITIONAL, "a line ends with your answer");
		goto out;
	}
	/* From the last level up: each level's others' moves, then the answer, with what follows under it. */
	for (end = n - 1; end >= 0;) {
		int start = end;
		while (start > 0 && movers[start - 1] != seat)
			start--;
		json_t *moves = json_array();
		for (int i = start; i < end; i++)
			json_array_append_new(moves, json_string(canon[i]));
		json_t *entry = json_pack("{s:o, s:s}", "moves", moves, "then", canon[end]);
		if (node)
			json_object_set_new(entry, "next", node);
		node = json_pack("{s:[o]}", "if", entry);
		end = start - 1;
	}
out:
	free(canon);
	return node;
}

enum conditional_verdict conditional_match(const json_t *tree, const char *const *played, int nplayed,
					   int mine_now, const char **answer, const json_t **next)
{
	const json_t *list = json_object_get(tree, "if"), *entry;
	size_t i;

	*answer = NULL;
	*next = NULL;
	json_array_foreach(list, i, entry) {
		const json_t *moves = json_object_get(entry, "moves");
		int n = (int)json_array_size(moves), k;
		if (nplayed > n)
			continue;
		for (k = 0; k < nplayed; k++)
			if (strcmp(played[k], json_string_value(json_array_get(moves, (size_t)k))) != 0)
				break;
		if (k < nplayed)
			continue;
		if (nplayed < n)
			return CONDITIONAL_WAIT;
		if (!mine_now)
			return CONDITIONAL_DEVIATED;
		*answer = json_string_value(json_object_get(entry, "then"));
		*next = json_object_get(entry, "next");
		return CONDITIONAL_PLAY;
	}
	return CONDITIONAL_DEVIATED;
}

int conditional_state_of(app *a, const game_loaded *g, int seat, conditional_state *st, db_error *de)
{
	const char *moves[RULES_MAX_SEATS * 2];
	db_move m[RULES_MAX_SEATS * 2];
	char *text = NULL;
	int from, n = 0, own = 0, r;

	memset(st, 0, sizeof *st);
	r = db_conditional_get(app_db(a), g->rec->id, seat, &text, &from, de);
	if (r == DB_E_NOTFOUND)
		return 0;
	if (r)
		return r;
	st->tree = json_loads(text, 0, NULL);
	free(text);
	st->verdict = CONDITIONAL_DEVIATED;
	if (!st->tree || g->rec->ply < from || g->rec->ply - from > RULES_MAX_SEATS * 2) {
		snprintf(st->why, sizeof st->why, "the game went past them.");
		if (!st->tree)
			st->tree = json_object();
		return 0;
	}
	for (int ply = from; ply < g->rec->ply; ply++, n++) {
		if ((r = db_move_get(app_db(a), g->rec->id, ply, &m[n], de)))
			break;
		moves[n] = m[n].move;
		own |= m[n].seat == seat;
	}
	if (!r && own)
		snprintf(st->why, sizeof st->why, "you moved yourself.");
	else if (!r)
		st->verdict = conditional_match(st->tree, moves, n, (game_turn_mask(g) >> seat) & 1, &st->answer,
						&st->next);
	if (!r && !own && st->verdict == CONDITIONAL_DEVIATED) {
		if (n)
			snprintf(st->why, sizeof st->why, "%s played %s, which they did not expect.",
				 g->rules->seat_names[m[n - 1].seat], m[n - 1].move);
		else
			snprintf(st->why, sizeof st->why, "the game is no longer where they begin.");
	}
	for (int i = 0; i < n; i++)
		db_move_clear(&m[i]);
	return r;
}

void conditional_state_clear(conditional_state *st)
{
	json_decref(st->tree);
	memset(st, 0, sizeof *st);
}

/* Trim spaces at both ends of s in place. */
static char *trim(char *s)
{
	return g_strstrip(s);
}

/* One "if A and B then C" into an entry, or NULL. */
static json_t *entry_of(char *part)
{
	char *p = trim(part), *then;
	json_t *moves;

	if (g_ascii_strncasecmp(p, "if ", 3) != 0)
		return NULL;
	p += 3;
	if (!(then = strstr(p, " then ")))
		return NULL;
	*then = 0;
	then = trim(then + 6);
	if (!*then)
		return NULL;
	moves = json_array();
	gchar **each = g_strsplit(p, " and ", -1);
	for (gchar **m = each; *m; m++) {
		char *t = trim(*m);
		if (*t)
			json_array_append_new(moves, json_string(t));
	}
	g_strfreev(each);
	if (json_array_size(moves) == 0) {
		json_decref(moves);
		return NULL;
	}
	return json_pack("{s:o, s:s}", "moves", moves, "then", then);
}

json_t *conditional_from_lines(const char *text, app_error *err)
{
	json_t *list = json_array();
	gchar **lines = g_strsplit(text, "\n", -1);

	for (gchar **l = lines; *l; l++) {
		char *line = trim(*l);
		if (!*line)
			continue;
		/* Entries of one line are split before each ", if ". */
		GString *cur = g_string_new(NULL);
		const char *p = line;
		for (;;) {
			const char *sep = strstr(p, ", if ");
			if (!sep)
				sep = strstr(p, ",if ");
			g_string_append_len(cur, p, sep ? sep - p : (gssize)strlen(p));
			json_t *e = entry_of(cur->str);
			if (!e) {
				app_fail(err, E_BAD_CONDITIONAL, "\"%.80s\" is not of the form \"if MOVE then MOVE\"", line);
				g_string_free(cur, TRUE);
				g_strfreev(lines);
				json_decref(list);
				return NULL;
			}
			json_array_append_new(list, e);
			if (!sep)
				break;
			g_string_truncate(cur, 0);
			p = sep + 1;
		}
		g_string_free(cur, TRUE);
	}
	g_strfreev(lines);
	return json_pack("{s:o}", "if", list);
}

static void append_lines(GString *t, const json_t *node, int depth)
{
	const json_t *entry, *m;
	size_t i, k;

	json_array_foreach(json_object_get(node, "if"), i, entry) {
		for (int d = 0; d < depth; d++)
			g_string_append(t, "  ");
		g_string_append(t, "if ");
		json_array_foreach(json_object_get(entry, "moves"), k, m)
			g_string_append_printf(t, "%s%s", k ? " and " : "", json_string_value(m));
		g_string_append_printf(t, " then %s\n", json_string_value(json_object_get(entry, "then")));
		if (json_object_get(entry, "next"))
			append_lines(t, json_object_get(entry, "next"), depth + 1);
	}
}

char *conditional_to_lines(const json_t *tree)
{
	GString *t = g_string_new(NULL);

	append_lines(t, tree, 0);
	return g_string_free(t, FALSE);
}
