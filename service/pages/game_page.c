/* game_page.c - a game's page, for a spectator or a seat (with its forms), and its record page by page. */
#include "pages/pages.h"
#include "pages/game_page.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/token.h"
#include "game/clock.h"
#include "game/conditional.h"
#include "game/dice.h"
#include "game/game.h"
#include "game/vacation.h"
#include "game/view.h"
#include "game/view_served.h"
#include "mail_out/consent.h"
#include "pages/board.h"
#include "pipeline/pipeline.h"
#include "xalloc.h"

#include <ctype.h>
#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The board as the viewer sees it, rotated so their side is at the bottom:
 * the drawing (board.c), and the lists beside it: holdings, notes, kinds.
 */
static json_t *board_model(const game_loaded *g, int seat, json_t *last_places)
{
	rules_view *v = xmalloc(sizeof *v);
	json_t *holdings = json_array();
	int shared = 0, neutral = 0;

	view_oriented(g, seat, v);
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			shared |= v->cell[r][c].controllers != 0;
			neutral |= v->cell[r][c].piece[0] && v->cell[r][c].neutral;
		}
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		json_t *pieces = json_array();
		for (int i = 0; i < hd->npieces; i++)
			json_array_append_new(pieces, json_string(hd->pieces[i]));
		json_t *o = json_pack("{s:s, s:s, s:o, s:b}", "name", hd->name,
			"seat", g->rules->seat_names[hd->owner], "pieces", pieces, "empty", hd->npieces == 0);
		if (hd->row >= 0)
			json_object_set_new(o, "square", json_string(v->cell[hd->row][hd->col].name));
		json_array_append_new(holdings, o);
	}
	json_t *notes = json_array(), *kinds = json_array();
	int anchored = 0;
	for (int i = 0; i < v->nnotes; i++)
		json_array_append_new(notes, json_string(v->notes[i]));
	for (int h = 0; h < v->nholdings; h++)
		anchored |= v->holding[h].row >= 0;
	/* The special squares this board has, once each, for the legend. */
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			const char *k = v->cell[r][c].kind;
			int seen = !*k || !strcmp(k, "off");
			for (size_t i = 0; !seen && i < json_array_size(kinds); i++)
				seen = !strcmp(json_string_value(json_array_get(kinds, i)), k);
			if (!seen)
				json_array_append_new(kinds, json_string(k));
		}
	json_t *out = json_pack("{s:o, s:o, s:b, s:b, s:b, s:b, s:o, s:b, s:o, s:b}", "svg", board_svg(g, seat, v, last_places),
				"holdings", holdings, "has_holdings", v->nholdings > 0, "shared", shared, "neutral", neutral,
				"has_facing", v->has_facing,
				"notes", notes, "has_kinds", json_array_size(kinds) > 0, "kinds", kinds,
				"has_anchored", anchored);
	free(v);
	return out;
}

/* A page of view_moves as the pages list it: each move with its player's side and whether it rolled dice. */
static json_t *history_items(const game_loaded *g, int viewer, json_t *moves)
{
	json_t *list = json_array(), *m;
	size_t i;

	json_array_foreach(json_object_get(moves, "moves"), i, m) {
		json_t *item = json_deep_copy(m);
		json_object_set_new(item, "mine", json_string(viewer >= 0 &&
			!strcmp(json_string_value(json_object_get(m, "seat")), g->rules->seat_names[viewer]) ? "mine" : "theirs"));
		json_object_set_new(item, "has_dice", json_boolean(json_array_size(json_object_get(m, "dice"))));
		json_array_append_new(list, item);
	}
	return list;
}

/*
 * The latest LIMIT_PAGE_RECENT_MOVES moves from ply from on, newest last (the
 * whole record is a link away, so the page costs the same at any ply); *last
 * is the last move.
 */
static json_t *history_model(app *a, const game_loaded *g, int viewer, int from, json_t **last)
{
	app_error err;
	json_t *moves = view_moves(a, g, viewer, from, LIMIT_PAGE_RECENT_MOVES, &err), *list;

	*last = NULL;
	if (!moves)
		return json_array();
	list = history_items(g, viewer, moves);
	json_decref(moves);
	if (json_array_size(list))
		*last = json_incref(json_array_get(list, json_array_size(list) - 1));
	return list;
}

/*
 * What the page's live updates compare: a game page is stale once the ply,
 * the status, the draw offer, a deadline or the open seats changed. play.js builds the same text from
 * GET /api/games/{id}.
 */
static json_t *state_key(const game_loaded *g)
{
	char key[320];
	int n = snprintf(key, sizeof key, "%d|%s|%s|", g->rec->ply, g->rec->over ? "over" : "running",
			 g->rec->draw_offer >= 0 ? g->rules->seat_names[g->rec->draw_offer] : "");

	for (int i = 0; g->rec->draw_offer >= 0 && i < g->rules->nseats; i++)
		if (g->rec->draw_accepts & (1u << i))
			n += snprintf(key + n, sizeof key - (size_t)n, "%s,", g->rules->seat_names[i]);
	/* A gift of time moves a deadline without a move. */
	for (int i = 0; g->clock && i < g->clock->nseats; i++) {
		char at[32] = "";
		if (g->clock->seats[i].deadline)
			clock_iso(g->clock->seats[i].deadline, at);
		n += snprintf(key + n, sizeof key - (size_t)n, "|%s", at);
	}
	/* A player taking an open seat changes no ply: the page of an open game follows their count. */
	if (g->rec->open_seats)
		snprintf(key + n, sizeof key - (size_t)n, "|o%d", g->rec->open_seats);
	return json_string(key);
}

/* The legal moves (view_move_option's objects) with their places as one attribute: "7 1|6 1". */
static json_t *legal_for_page(json_t *legal)
{
	json_t *out = json_deep_copy(legal), *option, *place;
	size_t i, k;

	if (!out)
		return json_array();
	json_array_foreach(out, i, option) {
		char text[RULES_TOUCH_MAX * 9 + 1] = "";
		json_array_foreach(json_object_get(option, "places"), k, place) {
			if (k)
				strcat(text, "|");
			strncat(text, json_string_value(place), 8);
		}
		json_object_set_new(option, "places_text", json_string(text));
		json_object_set_new(option, "partial_text", json_string(json_is_true(json_object_get(option, "partial")) ? "1" : ""));
	}
	return out;
}

/* Days as people write them: "3 days", "1 day", "0.5 days". */
static void days_text(long long s, char *out, size_t size)
{
	if (s % CLOCK_DAY_S)
		snprintf(out, size, "%g days", (double)s / CLOCK_DAY_S);
	else
		snprintf(out, size, "%lld day%s", s / CLOCK_DAY_S, s == CLOCK_DAY_S ? "" : "s");
}

/*
 * The clock on the page: the time control in words and each seat's time left
 * and deadline, in UTC for the <time> element that play.js shows in local time.
 */
static json_t *clock_model(const game_loaded *g)
{
	const db_clock *c = g->clock;
	long long now = (long long)time(NULL);
	char base[32], inc[32], max[32], control[160];
	json_t *seats;

	if (!c)
		return json_null();
	seats = json_array();
	days_text(c->base_s, base, sizeof base);
	days_text(c->increment_s, inc, sizeof inc);
	days_text(c->max_s, max, sizeof max);
	if (c->type == DB_CLOCK_BANK)
		snprintf(control, sizeof control, "Time bank: %s each, %s more after each move, at most %s.", base,
			 c->increment_s ? inc : "nothing", max);
	else
		snprintf(control, sizeof control, "%s per move.", base);
	control[0] = (char)toupper((unsigned char)control[0]);
	for (int i = 0; i < c->nseats && i < g->rec->nseats; i++) {
		char left[64], at[32], text[40];
		clock_duration_text(clock_remaining(c, i, now), left, sizeof left);
		json_t *seat = json_pack("{s:s, s:s, s:s}", "seat", g->rules->seat_names[i], "name", g->rec->seats[i].name,
					 "remaining", left);
		if (c->seats[i].paused_until > now) {
			clock_iso(c->seats[i].paused_until, at);
			json_object_set_new(seat, "vacation_until", json_sprintf("%.10s %.5s UTC", at, at + 11));
		}
		if (c->seats[i].deadline) {
			clock_iso(c->seats[i].deadline, at);
			snprintf(text, sizeof text, "%.10s %.8s UTC", at, at + 11);
			json_object_set_new(seat, "deadline", json_string(at));
			json_object_set_new(seat, "deadline_text", json_string(text));
		}
		json_array_append_new(seats, seat);
	}
	return json_pack("{s:s, s:o}", "control", control, "seats", seats);
}

/* The seats a seat may give time to: the others still in the game, while it runs with a clock. */
static json_t *give_targets(const game_loaded *g, int seat)
{
	unsigned in = g->rules->in_play ? g->rules->in_play(g->pos) : (1u << g->rules->nseats) - 1;
	json_t *list = json_array();

	for (int i = 0; g->clock && !g->rec->over && !game_open(g) && i < g->rules->nseats; i++)
		if (i != seat && (in >> i) & 1)
			json_array_append_new(list, json_string(g->rules->seat_names[i]));
	return list;
}

/*
 * The seat's own conditional moves, as lines, for its page only (never
 * cached: a tree changes no version); null once the game is over.
 */
static json_t *conditional_model(app *a, const game_loaded *g, int seat)
{
	app_error err;
	json_t *tree = g->rec->over || game_open(g) ? NULL : game_conditional_get(a, g->rec->id, seat, &err);
	char *lines;
	json_t *m;

	if (!tree)
		return json_null();
	lines = conditional_to_lines(tree);
	m = json_pack("{s:s, s:b, s:b}", "lines", lines, "has_lines", *lines != 0,
		      "can_add", !((game_turn_mask(g) >> seat) & 1));
	free(lines);
	json_decref(tree);
	return m;
}

/*
 * An open game's page says how many players it waits for and until when
 * ("waiting"); to a reader without a seat it offers its open seats to take
 * ("join": the seats, and the form token of a form that needs no seat).
 */
static void open_model(http_request *req, http_response *res, const game_loaded *g, int seat, json_t *m)
{
	json_t *seats = json_array();
	int n = g->rec->open_seats;

	if (!game_open(g)) {
		json_decref(seats);
		return;
	}
	for (int i = 0; i < g->rec->nseats; i++)
		if (g->rec->seats[i].open)
			json_array_append_new(seats, json_string(g->rules->seat_names[i]));
	json_object_set_new(m, "waiting", json_pack("{s:o, s:s}", "players", json_sprintf("%d more player%s", n,
		n == 1 ? "" : "s"), "until", g->rec->open_until ? g->rec->open_until : ""));
	if (seat < 0)
		json_object_set_new(m, "join", json_pack("{s:o, s:o, s:i, s:i}", "seats", seats, "csrf",
			page_form_csrf(req, res), "name_max", LIMIT_NAME, "email_max", LIMIT_EMAIL));
	else
		json_decref(seats);
}

/* Render the game page; seat >= 0 with token shows the seat's controls. */
void page_render_game(http_request *req, http_response *res, int status, const game_loaded *g,
		      int seat, const char *token, const char *error, const char *typed)
{
	json_t *game = view_game_cached(req->app, g, seat), *last, *m;
	unsigned turn = game_turn_mask(g);
	char turn_text[160] = "";

	for (int i = 0; i < g->rules->nseats; i++)
		if (turn & (1u << i))
			snprintf(turn_text, sizeof turn_text, "%s (%s) to move", g->rules->seat_names[i],
				 g->rec->seats[i].name);
	int from = g->rec->ply > LIMIT_PAGE_RECENT_MOVES ? g->rec->ply - LIMIT_PAGE_RECENT_MOVES : 0;
	json_t *history = history_model(req->app, g, seat, from, &last);
	m = json_pack("{s:s, s:o, s:o, s:o, s:s}", "title", g->rules->title, "game", game,
		      "board", board_model(g, seat, last ? json_object_get(last, "places") : NULL),
		      "history", history, "turn_text", turn_text);
	json_object_set_new(m, "last", last ? last : json_null());
	json_object_set_new(m, "has_history", json_boolean(last != NULL));
	/* The list is numbered from its first move's ply, which is not 1 once older moves are left out. */
	json_object_set_new(m, "history_start", json_integer(from + 1));
	json_object_set_new(m, "history_earlier", json_boolean(from > 0));
	/* An example for the move box: a move the viewer could make now. */
	json_t *legal = json_object_get(game, "legal_moves");
	json_object_set_new(m, "example", json_string(json_array_size(legal) ?
		json_string_value(json_array_get(legal, 0)) : ""));
	json_object_set_new(m, "rules_url", json_sprintf("/rules/%s", g->rules->id));
	json_object_set_new(m, "state", state_key(g));
	json_object_set_new(m, "confirm_label", json_string("Play this move"));
	json_object_set_new(m, "legend", json_string(g->rules->legend ? g->rules->legend : ""));
	json_object_set_new(m, "side_name", json_string(g->rules->seat_names[seat >= 0 ? seat : 0]));
	json_object_set_new(m, "legal", legal_for_page(json_object_get(game, "legal")));
	/* Cyvasse's hidden setup has its own editor while the seat may still set up. */
	const char *first = json_string_value(json_array_get(legal, 0));
	json_object_set_new(m, "setup_editor", json_boolean(!strcmp(g->rules->id, "cyvasse") && first &&
							   !strncmp(first, "setup ", 6)));
	json_object_set_new(m, "over", json_boolean(g->rec->over));
	json_object_set_new(m, "playing", json_boolean(!g->rec->over && !game_open(g)));
	open_model(req, res, g, seat, m);
	json_object_set_new(m, "dice_v2", json_boolean(g->rec->dice_version >= DICE_V2));
	json_object_set_new(m, "seeds_open", json_boolean(view_client_seeds_open(g)));
	json_object_set_new(m, "seed_limit", json_integer(LIMIT_CLIENT_SEED));
	json_object_set_new(m, "clock", clock_model(g));
	json_object_set_new(m, "give_max", json_integer(LIMIT_CLOCK_GIVE_DAYS_MAX));
	if (error)
		json_object_set_new(m, "error", json_string(error));
	if (seat >= 0) {
		char csrf[FORM_TOKEN_TEXT];
		int offer = g->rec->draw_offer, agreed = offer >= 0 && (g->rec->draw_accepts >> seat) & 1;
		token_form(req->app->form_key, token, csrf);
		json_object_set_new(m, "viewer", json_pack("{s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:b, s:b, s:b, s:s}",
			"seat", g->rules->seat_names[seat],
			"name", g->rec->seats[seat].name,
			"token", token,
			"csrf", csrf,
			"ply", g->rec->ply,
			"to_move", !g->rec->over && (turn & (1u << seat)),
			"can_move", json_array_size(json_object_get(game, "legal")) > 0,
			"can_offer", !g->rec->over && !game_open(g) && offer < 0,
			"can_answer", !g->rec->over && offer >= 0 && !agreed,
			"can_withdraw", !g->rec->over && offer == seat,
			"typed", typed ? typed : ""));
		/* The seat's client seed form while the dice take one; play.js fills in a random one
		 * when the seat has none yet (seed_auto). */
		const char *mine = g->rec->seats[seat].client_seed;
		json_t *viewer = json_object_get(m, "viewer");
		json_object_set_new(viewer, "client_seed", json_string(mine ? mine : ""));
		json_object_set_new(viewer, "can_seed", json_boolean(view_client_seeds_open(g)));
		json_object_set_new(viewer, "seed_auto", json_string(view_client_seeds_open(g) && !mine ? "1" : ""));
		json_t *targets = give_targets(g, seat);
		json_object_set_new(viewer, "can_give", json_boolean(json_array_size(targets) > 0));
		json_object_set_new(viewer, "give_to", targets);
		char player[VACATION_PLAYER_TEXT];
		vacation_player(g->rec, seat, player, sizeof player);
		/* Before the start the seats are not all there: no messages yet. */
		json_object_set_new(viewer, "messages", game_open(g) ? json_null() : page_messages_model(req->app, g, seat));
		json_object_set_new(viewer, "vacation", page_vacation_model(req->app, g->rec->id, token, player));
		json_object_set_new(viewer, "conditional", conditional_model(req->app, g, seat));
		json_object_set_new(m, "self_url", json_sprintf("/games/%s?seat=%s", g->rec->id, token));
		/* A seat whose address has not asked for mail: only a reader who came by that mail can ask.
		 * Looked up only for a running game's seat with an address: most page views need neither. */
		int asks = !g->rec->over && consent_may_offer(req->app, g->rec->seats[seat].email);
		int mailed = asks && consent_token_mailed(req->app, token, g->rec->id, seat);
		json_object_set_new(viewer, "mail_offer", json_boolean(asks && mailed));
		json_object_set_new(viewer, "mail_waits", json_boolean(asks && !mailed));
	}
	page_render(req, res, status, "game.html", m);
}

/* The seat a page request speaks for, from ?seat= or the form; -1 for a spectator. */
int page_seat(http_request *req, const char *token, app_error *err)
{
	char *gid = NULL;
	int seat = -1;

	if (!token || !*token)
		return -1;
	if (game_authenticate(req->app, token, &gid, &seat, err) == 0 && strcmp(gid, req->params[0]) != 0) {
		app_fail(err, E_UNAUTHORIZED, "that seat link belongs to another game");
		seat = -1;
	}
	free(gid);
	return err->code ? -2 : seat;
}

int page_line_moves(char *line, const char *more, const char **texts)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(line, "|\r\n", &save); t && n < CONDITIONAL_LINE_MAX + 1;
	     t = strtok_r(NULL, "|\r\n", &save))
		if (*t)
			texts[n++] = t;
	if (more && *more && n < CONDITIONAL_LINE_MAX + 1)
		texts[n++] = more;
	return n;
}

/*
 * The line editor: the board as a line of conditional moves being built would
 * leave it (line: its moves so far, joined by "|"; more: the move just picked),
 * with the legal moves of whoever moves next in it to pick from on the board,
 * and whenever the seat's answer ends it a button storing it (any number of
 * levels). Drawn for the seat's own token only, and never cached.
 */
static void render_line(http_request *req, http_response *res, const game_loaded *g, int seat, const char *token,
			const char *line, const char *more)
{
	char *copy = xstrdup(line), csrf[FORM_TOKEN_TEXT];
	char (*canon)[RULES_TEXT_MAX] = xmalloc(sizeof(char[CONDITIONAL_LINE_MAX][RULES_TEXT_MAX]));
	const char *texts[CONDITIONAL_LINE_MAX + 1];
	int n = page_line_moves(copy, more, texts), movers[CONDITIONAL_LINE_MAX], mover, complete, r;
	app_error err = {0}, first = {0};
	rules_position *pos;

	r = conditional_replay(g, seat, texts, n, &pos, canon, movers, &mover, &complete, &first);
	/* A move picked that does not fit: the line as it was, with the reason. */
	if (r && more && *more && n > 0)
		r = conditional_replay(g, seat, texts, --n, &pos, canon, movers, &mover, &complete, &err);
	if (r) {
		free(copy);
		free(canon);
		page_render_game(req, res, app_code_status(first.code), g, seat, token, first.message, NULL);
		return;
	}
	game_loaded hyp = *g;
	hyp.pos = pos;
	int picks = mover >= 0 && n < CONDITIONAL_LINE_MAX;
	json_t *game = view_game(&hyp, picks ? mover : seat), *steps = json_array();
	GString *text = g_string_new(NULL);
	for (int i = 0; i < n; i++) {
		g_string_append_printf(text, "%s%s", i ? "|" : "", canon[i]);
		texts[i] = canon[i];
		json_array_append_new(steps, json_pack("{s:s, s:s}", "move", canon[i], "mine",
						       movers[i] == seat ? "mine" : "theirs"));
	}
	json_t *tree = complete ? conditional_line_tree(g, seat, texts, n, &err) : NULL;
	char *lines = tree ? conditional_to_lines(tree) : xstrdup("");
	token_form(req->app->form_key, token, csrf);
	json_t *m = json_pack("{s:s, s:O, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b}", "title", g->rules->title,
			      "game", game, "board", board_model(&hyp, seat, NULL), "steps", steps,
			      "line", text->str, "stored", lines, "token", token, "csrf", csrf,
			      "mover", picks ? g->rules->seat_names[mover] : "", "complete", tree != NULL,
			      "mine", picks && mover == seat, "picks", picks);
	json_object_set_new(m, "legal", picks ? legal_for_page(json_object_get(game, "legal")) : json_array());
	json_object_set_new(m, "state", state_key(g));
	json_object_set_new(m, "confirm_label", json_string("Add to the line"));
	json_object_set_new(m, "side_name", json_string(g->rules->seat_names[seat]));
	json_object_set_new(m, "legend", json_string(g->rules->legend ? g->rules->legend : ""));
	json_object_set_new(m, "has_steps", json_boolean(n > 0));
	if (first.code)
		json_object_set_new(m, "error", json_string(first.message));
	g_string_free(text, TRUE);
	json_decref(tree);
	json_decref(game);
	free(lines);
	g->rules->free_position(pos);
	free(copy);
	free(canon);
	page_render(req, res, 200, "line.html", m);
}

void page_game(http_request *req, http_response *res)
{
	const char *token = http_query(req, "seat"), *line = http_query(req, "line");
	app_error err = {0};
	game_loaded g;
	int seat = page_seat(req, token, &err);

	if (seat == -2)
		return http_reply_error(req, res, err.code, err.message);
	if (game_load(req->app, req->params[0], &g, &err))
		return http_reply_error(req, res, err.code, err.message);
	if (seat >= 0 && line)
		render_line(req, res, &g, seat, token, line, http_query(req, "move"));
	else
		page_render_game(req, res, 200, &g, seat, token, NULL, NULL);
	game_loaded_free(&g);
}

void page_moves(http_request *req, http_response *res)
{
	app_error err = {0};
	game_loaded g;
	json_t *moves, *m;
	int from, limit;

	if (http_page_query(req, &from, &limit, &err) || game_load(req->app, req->params[0], &g, &err))
		return http_reply_error(req, res, err.code, err.message);
	/* A spectator's view: whoever holds the link sees no secret move. */
	if (!(moves = view_moves(req->app, &g, -1, from, limit, &err))) {
		game_loaded_free(&g);
		return http_reply_error(req, res, err.code, err.message);
	}
	size_t n = json_array_size(json_object_get(moves, "moves"));
	json_t *next = json_object_get(moves, "next");
	m = json_pack("{s:s, s:s, s:o, s:i, s:i, s:i, s:i}", "title", g.rules->title, "id", g.rec->id,
		      "moves", history_items(&g, -1, moves), "plies", g.rec->ply, "first", from + 1,
		      "last", from + (int)n, "limit", limit);
	json_object_set_new(m, "none", json_boolean(n == 0));
	json_object_set_new(m, "earlier", from > 0 ? json_pack("{s:i}", "from", from > limit ? from - limit : 0)
			    : json_null());
	json_object_set_new(m, "later", json_is_integer(next) ? json_pack("{s:O}", "from", next) : json_null());
	json_decref(moves);
	game_loaded_free(&g);
	page_render(req, res, 200, "moves.html", m);
}
