/* pages.c - HTML pages: build a JSON model, render a template, handle the forms. */
#include "pages/pages.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/links.h"
#include "core/token.h"
#include "game/dice.h"
#include "game/game.h"
#include "pipeline/pipeline.h"
#include "game/vacation.h"
#include "game/view.h"
#include "mail_out/consent.h"
#include "pages/board.h"
#include "pages/tmpl.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void page_render(http_request *req, http_response *res, int status, const char *name, json_t *model)
{
	tmpl_error te;
	char *html;

	json_object_set_new(model, "version", json_string(ROOKERY_VERSION));
	html = tmpl_render(name, model, &te);
	json_decref(model);
	if (!html) {
		/* A broken template is our bug; say so plainly without recursing into templates. */
		(void)req;
		http_reply(res, 500, "text/plain; charset=utf-8",
			   xasprintf("internal error: template %s: %s\n", name, te.message), 0);
		res->len = strlen(res->body);
		return;
	}
	http_reply(res, status, "text/html; charset=utf-8", html, strlen(html));
}

void page_error(http_request *req, http_response *res, int code, const char *message)
{
	page_render(req, res, app_code_status(code), "error.html", json_pack("{s:s, s:s, s:i}",
		"title", "Error", "message", message, "status", app_code_status(code)));
	res->code = code;
}

static json_t *variants_model(void)
{
	json_t *list = json_array();

	for (size_t i = 0; rules_games[i]; i++) {
		const rules_game *g = rules_games[i];
		json_t *seats = json_array();
		for (int s = 0; s < g->nseats; s++)
			json_array_append_new(seats, json_pack("{s:s, s:i, s:b}", "seat", g->seat_names[s],
				"index", s, "first", s == 0));
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:i, s:o, s:b}", "id", g->id,
			"title", g->title, "summary", g->summary, "players", g->nseats, "seats", seats,
			"first", i == 0));
	}
	return list;
}

/*
 * Forms that need no seat (the home page's, /me's) are tied to a random
 * cookie instead: the page sets it when the browser has none and carries its
 * HMAC under the form key; a post must bring both. A cross-site page can
 * neither read the cookie nor make the HMAC. The cookie is __Host- prefixed
 * behind https, so that no sibling host can plant one.
 */
static const char *form_cookie_name(const app *a)
{
	return strncmp(a->base_url, "https://", 8) ? "rookery_form" : "__Host-rookery_form";
}

json_t *page_form_csrf(http_request *req, http_response *res)
{
	const char *cookie = http_cookie(req, form_cookie_name(req->app));
	char fresh[TOKEN_TEXT], csrf[FORM_TOKEN_TEXT];

	if (!token_well_formed(cookie)) {
		int secure = !strncmp(req->app->base_url, "https://", 8);
		token_new(fresh);
		free(res->set_cookie);
		res->set_cookie = xasprintf("%s=%s; Path=/; HttpOnly; SameSite=Strict%s",
					    form_cookie_name(req->app), fresh, secure ? "; Secure" : "");
		cookie = fresh;
	}
	token_form(req->app->form_key, cookie, csrf);
	return json_string(csrf);
}

int page_form_ok(http_request *req)
{
	const char *cookie = http_cookie(req, form_cookie_name(req->app));
	char *csrf = http_form_field(req, "csrf");
	int ok = token_well_formed(cookie) && token_form_ok(req->app->form_key, cookie, csrf);

	free(csrf);
	return ok;
}

void page_home(http_request *req, http_response *res)
{
	page_render(req, res, 200, "home.html", json_pack("{s:s, s:o, s:o}", "title", "Rookery",
		"variants", variants_model(), "csrf", page_form_csrf(req, res)));
}

/*
 * Cross-site check. Browsers say where a form came from in Sec-Fetch-Site
 * and Origin. Our pages' Referrer-Policy (strict-origin) lets browsers name
 * our origin in the Origin of our own forms, so "Origin: null" (a sandboxed
 * frame, a data: page, a redirect from elsewhere) is always refused. The
 * Origin must be the scheme://host[:port] of the base URL, or match the Host
 * the request came to. A request without Origin is no browser's form post;
 * the per-form tokens guard every form all the same.
 */
int page_same_origin(http_request *req)
{
	const char *origin = http_header(req, "Origin"), *host = http_header(req, "Host");
	const char *site = http_header(req, "Sec-Fetch-Site");
	const char *base = req->app->base_url, *scheme_end = strstr(base, "://");
	size_t base_len;

	if (site && strcasecmp(site, "same-origin") && strcasecmp(site, "none"))
		return 0;
	if (!origin)
		return 1;
	if (!strcmp(origin, "null"))
		return 0;
	if (scheme_end) {
		const char *path = strchr(scheme_end + 3, '/');
		base_len = path ? (size_t)(path - base) : strlen(base);
		if (strlen(origin) == base_len && !strncasecmp(origin, base, base_len))
			return 1;
	}
	if (host) {
		const char *rest = strstr(origin, "://");
		if (rest && !strcasecmp(rest + 3, host))
			return 1;
	}
	return 0;
}

/*
 * The home form's time control (fields clock, days, increment_days,
 * max_days) read as the API's "clock" object is: a field that is not a
 * number is passed on as text, which game_clock_parse refuses with its reason.
 */
static int form_clock(http_request *req, game_clock_in *out, app_error *err)
{
	static const char *const fields[] = {"days", "increment_days", "max_days"};
	char *type = http_form_field(req, "clock");
	json_t *j = json_null();
	int r;

	if (type && *type && strcmp(type, "none")) {
		j = json_pack("{s:s}", "type", type);
		for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
			char *v = http_form_field(req, fields[i]), *end;
			double d = v && *v ? strtod(v, &end) : 0;
			/* A per-move game's form sends the bank's fields too, empty. */
			if (v && *v)
				json_object_set_new(j, fields[i], *end ? json_string(v) : json_real(d));
			free(v);
		}
	}
	r = game_clock_parse(j, out, err);
	json_decref(j);
	free(type);
	return r;
}

void page_create(http_request *req, http_response *res)
{
	game_clock_in clock;
	char *variant = http_form_field(req, "variant");
	const rules_game *rg = rules_find(variant ? variant : "", 0);
	game_seat_in seats[RULES_MAX_SEATS];
	char *names[RULES_MAX_SEATS] = {0}, *emails[RULES_MAX_SEATS] = {0}, client[HTTP_ADDRESS_TEXT];
	game_created c;
	app_error err = {0};

	if (!page_same_origin(req)) {
		app_fail(&err, E_FORBIDDEN, "this form was sent from another site");
		goto out;
	}
	if (!page_form_ok(req)) {
		app_fail(&err, E_FORBIDDEN, PAGE_FORM_EXPIRED);
		goto out;
	}
	if (!rg) {
		app_fail(&err, E_UNKNOWN_VARIANT, "choose one of the games");
		goto out;
	}
	for (int i = 0; i < rg->nseats; i++) {
		char key[16];
		snprintf(key, sizeof key, "name%d", i);
		names[i] = http_form_field(req, key);
		snprintf(key, sizeof key, "email%d", i);
		emails[i] = http_form_field(req, key);
		seats[i].name = names[i] && *names[i] ? names[i] : rg->seat_names[i];
		seats[i].email = emails[i];
	}
	http_client_address(req, client, sizeof client);
	if (form_clock(req, &clock, &err) ||
	    game_create_timed(req->app, client, rg->id, seats, rg->nseats, &clock, &c, &err))
		goto out;
	json_t *links = json_array();
	for (int i = 0; i < c.nseats; i++) {
		char *url = link_seat(req->app, c.id, c.tokens[i]);
		json_array_append_new(links, json_pack("{s:s, s:s, s:s}", "seat", rg->seat_names[i],
			"name", seats[i].name, "url", url));
		free(url);
	}
	page_render(req, res, 201, "created.html", json_pack("{s:s, s:s, s:s, s:o}", "title",
		"Game created", "id", c.id, "variant", rg->title, "links", links));
out:
	if (err.code) {
		json_t *m = json_pack("{s:s, s:o, s:s, s:o}", "title", "Rookery", "variants",
				      variants_model(), "error", err.message, "csrf", page_form_csrf(req, res));
		page_render(req, res, app_code_status(err.code), "home.html", m);
		res->code = err.code;
	}
	free(variant);
	for (int i = 0; i < RULES_MAX_SEATS; i++) {
		free(names[i]);
		free(emails[i]);
	}
}

/*
 * The board as the viewer sees it, rotated so their side is at the bottom:
 * the drawing (board.c), and the lists beside it: holdings, notes, kinds.
 */
static json_t *board_model(const game_loaded *g, int seat, json_t *last_places)
{
	rules_view *v = xmalloc(sizeof *v);
	json_t *holdings = json_array();
	int shared = 0;

	view_oriented(g, seat, v);
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++)
			shared |= v->cell[r][c].controllers != 0;
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
	json_t *out = json_pack("{s:o, s:o, s:b, s:b, s:b, s:o, s:b, s:o, s:b}", "svg", board_svg(g, seat, v, last_places),
				"holdings", holdings, "has_holdings", v->nholdings > 0, "shared", shared,
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
 * the status, the draw offer or a deadline changed. play.js builds the same text from
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

	for (int i = 0; g->clock && !g->rec->over && i < g->rules->nseats; i++)
		if (i != seat && (in >> i) & 1)
			json_array_append_new(list, json_string(g->rules->seat_names[i]));
	return list;
}

/* Render the game page; seat >= 0 with token shows the seat's controls. */
static void render_game(http_request *req, http_response *res, int status, const game_loaded *g,
			int seat, const char *token, const char *error, const char *typed)
{
	json_t *game = view_game(g, seat), *last, *m;
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
	json_object_set_new(m, "legend", json_string(g->rules->legend ? g->rules->legend : ""));
	json_object_set_new(m, "side_name", json_string(g->rules->seat_names[seat >= 0 ? seat : 0]));
	json_object_set_new(m, "legal", legal_for_page(json_object_get(game, "legal")));
	/* Cyvasse's hidden setup has its own editor while the seat may still set up. */
	const char *first = json_string_value(json_array_get(legal, 0));
	json_object_set_new(m, "setup_editor", json_boolean(!strcmp(g->rules->id, "cyvasse") && first &&
							   !strncmp(first, "setup ", 6)));
	json_object_set_new(m, "over", json_boolean(g->rec->over));
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
			"can_offer", !g->rec->over && offer < 0,
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
		json_object_set_new(viewer, "vacation", page_vacation_model(req->app, g->rec->id, token, player));
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
static int page_seat(http_request *req, const char *token, app_error *err)
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

void page_game(http_request *req, http_response *res)
{
	const char *token = http_query(req, "seat");
	app_error err = {0};
	game_loaded g;
	int seat = page_seat(req, token, &err);

	if (seat == -2)
		return http_reply_error(req, res, err.code, err.message);
	if (game_load(req->app, req->params[0], &g, &err))
		return http_reply_error(req, res, err.code, err.message);
	render_game(req, res, 200, &g, seat, token, NULL, NULL);
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

/* The common checks of a seat's form: origin, seat token, form token. */
static int form_seat(http_request *req, char **token, app_error *err)
{
	char *csrf = http_form_field(req, "csrf");
	int seat;

	*token = http_form_field(req, "seat");
	if (!page_same_origin(req)) {
		app_fail(err, E_FORBIDDEN, "this form was sent from another site");
		seat = -2;
	} else if ((seat = page_seat(req, *token, err)) == -1) {
		app_fail(err, E_UNAUTHORIZED, "this needs your seat link");
		seat = -2;
	} else if (seat >= 0 && !token_form_ok(req->app->form_key, *token, csrf)) {
		app_fail(err, E_FORBIDDEN, PAGE_FORM_EXPIRED);
		seat = -2;
	} else if (seat >= 0) {
		/* A seat's form sent through a link that came by mail: its owner reads that mail, and
		 * the change's own mails may reach them already. */
		consent_token_acted(req->app, *token);
	}
	free(csrf);
	return seat;
}

/* After a form: back to the seat's page, or the page again with the error. */
static void form_done(http_request *req, http_response *res, int seat, const char *token,
		      const app_error *err, const char *typed)
{
	game_loaded g;
	app_error lerr;

	if (!err->code) {
		char *loc = xasprintf("/games/%s?seat=%s", req->params[0], token);
		http_redirect(res, loc);
		free(loc);
		return;
	}
	if (seat < 0 || game_load(req->app, req->params[0], &g, &lerr))
		return http_reply_error(req, res, err->code, err->message);
	render_game(req, res, app_code_status(err->code), &g, seat, token, err->message, typed);
	res->code = err->code;
	game_loaded_free(&g);
}

void page_move(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token, *move = NULL, *ply_text = NULL;
	int seat = form_seat(req, &token, &err);
	game_move_done done;

	if (seat >= 0) {
		char *end;
		long ply;
		move = http_form_field(req, "move");
		ply_text = http_form_field(req, "ply");
		ply = ply_text ? strtol(ply_text, &end, 10) : -1;
		if (!move || !*move)
			app_fail(&err, E_BAD_MOVE, "type a move first");
		else if (!ply_text || end == ply_text || *end || ply < 0 || ply > LIMIT_PLY_NUMBER)
			app_fail(&err, E_BAD_REQUEST, "the form lost its ply; reload the page");
		else
			game_submit_move(req->app, req->params[0], seat, (int)ply, move, "web", &done, NULL, &err);
	}
	form_done(req, res, seat, token, &err, move);
	free(token);
	free(move);
	free(ply_text);
}

void page_resign(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token, *confirm = NULL;
	int seat = form_seat(req, &token, &err);

	if (seat >= 0) {
		confirm = http_form_field(req, "confirm");
		if (!confirm || strcmp(confirm, "yes"))
			app_fail(&err, E_BAD_REQUEST, "tick the box to confirm that you resign");
		else
			game_resign(req->app, req->params[0], seat, "web", &err);
	}
	form_done(req, res, seat, token, &err, NULL);
	free(token);
	free(confirm);
}

/* A seat's form whose one field goes to a game action: a draw action, a client seed. */
static void form_action(http_request *req, http_response *res, const char *field,
			int (*act)(app *, const char *, int, const char *, const char *, app_error *))
{
	app_error err = {0};
	char *token, *value = NULL;
	int seat = form_seat(req, &token, &err);

	if (seat >= 0) {
		value = http_form_field(req, field);
		act(req->app, req->params[0], seat, value, "web", &err);
	}
	form_done(req, res, seat, token, &err, NULL);
	free(token);
	free(value);
}

void page_draw(http_request *req, http_response *res)
{
	form_action(req, res, "action", game_draw);
}

void page_client_seed(http_request *req, http_response *res)
{
	form_action(req, res, "client_seed", game_set_client_seed);
}

void page_clock(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token, *to = NULL, *days = NULL, *end;
	int seat = form_seat(req, &token, &err);
	long long seconds;

	if (seat >= 0) {
		to = http_form_field(req, "to");
		days = http_form_field(req, "days");
		double d = days && *days ? strtod(days, &end) : 0;
		if (!days || !*days || *end || clock_days_seconds(d, LIMIT_CLOCK_GIVE_DAYS_MAX, &seconds))
			app_fail(&err, E_BAD_CLOCK, "give from 1/24 of a day (an hour) to %d days",
				 LIMIT_CLOCK_GIVE_DAYS_MAX);
		else
			game_give_time(req->app, req->params[0], seat, to, seconds, "web", &err);
	}
	form_done(req, res, seat, token, &err, NULL);
	free(token);
	free(to);
	free(days);
}

void page_vacation(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token, *fields[4] = {NULL, NULL, NULL, NULL};
	static const char *const names[4] = {"end", "days", "from", "to"};
	int seat = form_seat(req, &token, &err);

	for (int i = 0; seat >= 0 && i < 4; i++)
		fields[i] = http_form_field(req, names[i]);
	if (seat >= 0)
		page_vacation_act(req->app, req->params[0], seat, fields[0], fields[1], fields[2], fields[3], &err);
	form_done(req, res, seat, token, &err, NULL);
	free(token);
	for (int i = 0; i < 4; i++)
		free(fields[i]);
}

void page_mail_me(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token;
	int seat = form_seat(req, &token, &err);

	if (seat >= 0)
		consent_request_mail(req->app, token, req->params[0], seat, &err);
	form_done(req, res, seat, token, &err, NULL);
	free(token);
}

void page_rules(http_request *req, http_response *res)
{
	const rules_game *g = rules_find(req->params[0], 0);
	char name[64];

	if (!g)
		return http_reply_error(req, res, E_NOT_FOUND, "there is no game by that name");
	snprintf(name, sizeof name, "rules-%s.html", g->id);
	page_render(req, res, 200, name, json_pack("{s:s, s:s, s:i, s:s, s:i, s:b}", "title", g->title,
		"id", g->id, "rules_version", g->version, "choice_help", g->choice_help,
		"ply_limit", game_ply_limit(g), "leaves_on_time", g->resign != NULL));
}

void page_asset(http_request *req, http_response *res)
{
	static const struct { const char *path, *file, *type; } assets[] = {
		{"/style.css", "style.css", "text/css; charset=utf-8"},
		{"/play.js", "play.js", "text/javascript; charset=utf-8"},
		{"/favicon.svg", "favicon.svg", "image/svg+xml"},
		{"/setup.js", "setup.js", "text/javascript; charset=utf-8"},
	};
	size_t len;

	for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++) {
		const char *data;
		if (strcmp(req->path, assets[i].path) || !(data = tmpl_file_get(assets[i].file, &len)))
			continue;
		char *copy = xmalloc(len + 1);
		memcpy(copy, data, len + 1);
		return http_reply(res, 200, assets[i].type, copy, len);
	}
	http_reply_error(req, res, E_NOT_FOUND, "no such file");
}
