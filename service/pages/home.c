/* home.c - starting a game in two steps (the game, then its seats and clock) and the rules pages. */
#include "pages/pages.h"
#include "core/errors.h"
#include "core/links.h"
#include "game/game.h"
#include "game/view.h"
#include "pages/board.h"
#include "pages/tmpl.h"
#include "pipeline/pipeline.h"
#include "xalloc.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A game's starting position drawn small, for choosing a game: the page's
 * board drawing (board.c) without the squares' titles ("mini"), or JSON null
 * when the game cannot start without options.
 */
static json_t *start_board(const rules_game *rg)
{
	rules_position *pos;
	rules_error re;

	if (rg->start(NULL, &pos, &re))
		return json_null();
	game_loaded g = {.rules = rg, .pos = pos};
	rules_view *v = xmalloc(sizeof *v);
	view_oriented(&g, -1, v);
	json_t *svg = board_svg(&g, -1, v, NULL);
	json_object_set_new(svg, "mini", json_true());
	free(v);
	rg->free_position(pos);
	return svg;
}

/* What the pages say of a game: id, title, summary, players, and its starting board (svg). */
static json_t *variant_model(const rules_game *g)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:o}", "id", g->id, "title", g->title, "summary", g->summary,
			 "players", g->nseats, "svg", start_board(g));
}

/*
 * The games to choose from, with their starting boards: the same for every
 * request, so made once and shared, never changed (templates only read it).
 */
static json_t *home_variants;
static pthread_once_t home_variants_once = PTHREAD_ONCE_INIT;

static void make_home_variants(void)
{
	home_variants = json_array();
	for (size_t i = 0; rules_games[i]; i++)
		json_array_append_new(home_variants, variant_model(rules_games[i]));
}

/* The model of rg from the shared list (a new reference). */
static json_t *shared_variant(const rules_game *rg)
{
	pthread_once(&home_variants_once, make_home_variants);
	for (size_t i = 0; rules_games[i]; i++)
		if (rules_games[i] == rg)
			return json_incref(json_array_get(home_variants, i));
	return variant_model(rg);
}

/* Step 1, choosing the game (error, when given, says why the last form went nowhere). */
static void render_home(http_request *req, http_response *res, int status, const char *error)
{
	pthread_once(&home_variants_once, make_home_variants);
	json_t *m = json_pack("{s:s, s:O}", "title", "Rookery", "variants", home_variants);
	if (error)
		json_object_set_new(m, "error", json_string(error));
	page_render(req, res, status, "home.html", m);
}

void page_home(http_request *req, http_response *res)
{
	render_home(req, res, 200, NULL);
}

/* A form field's text, "" when absent. */
static json_t *field(http_request *req, const char *name)
{
	char *v = http_form_field(req, name);
	json_t *out = json_string(v ? v : "");

	free(v);
	return out ? out : json_string("");   /* not UTF-8: as if empty */
}

/*
 * Step 2 for rg: its seats (name, email, left open) and clock, filled in as
 * the request's form had them (a form sent back with error), empty for a GET.
 */
static void render_new(http_request *req, http_response *res, int status, const rules_game *rg, const char *error)
{
	static const char *const clocks[][2] = {
		{"none", "none: take as long as you like"},
		{"per_move", "per move: the same time for every move"},
		{"bank", "time bank: time for the game, more after each move"},
	};
	json_t *seats = json_array(), *options = json_array(), *chosen = field(req, "clock");

	for (int s = 0; s < rg->nseats; s++) {
		char key[16];
		json_t *seat = json_pack("{s:s, s:i, s:b}", "seat", rg->seat_names[s], "index", s, "first", s == 0);
		snprintf(key, sizeof key, "name%d", s);
		json_object_set_new(seat, "name", field(req, key));
		snprintf(key, sizeof key, "email%d", s);
		json_object_set_new(seat, "email", field(req, key));
		snprintf(key, sizeof key, "open%d", s);
		json_t *open = field(req, key);
		json_object_set_new(seat, "open", json_boolean(!strcmp(json_string_value(open), "1")));
		json_decref(open);
		json_array_append_new(seats, seat);
	}
	for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++)
		json_array_append_new(options, json_pack("{s:s, s:s, s:b}", "value", clocks[i][0], "label", clocks[i][1],
			"selected", !strcmp(json_string_value(chosen), clocks[i][0])));
	json_decref(chosen);
	json_t *m = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "title", rg->title,
		"variant", shared_variant(rg), "seats", seats, "clocks", options, "days", field(req, "days"),
		"increment_days", field(req, "increment_days"), "max_days", field(req, "max_days"),
		"csrf", page_form_csrf(req, res));
	if (error)
		json_object_set_new(m, "error", json_string(error));
	page_render(req, res, status, "new.html", m);
}

void page_new(http_request *req, http_response *res)
{
	const rules_game *rg = rules_find(req->params[0], 0);

	if (!rg)
		return http_reply_error(req, res, E_NOT_FOUND, "there is no game by that name");
	render_new(req, res, 200, rg, NULL);
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
		/* A seat left open (checkbox open{N}) takes no name or address, whatever was typed. */
		snprintf(key, sizeof key, "open%d", i);
		char *left_open = http_form_field(req, key);
		if ((seats[i].open = left_open && !strcmp(left_open, "1")))
			seats[i].name = seats[i].email = NULL;
		free(left_open);
	}
	http_client_address(req, client, sizeof client);
	if (form_clock(req, &clock, &err) ||
	    game_create_timed(req->app, client, rg->id, seats, rg->nseats, &clock, &c, &err))
		goto out;
	json_t *links = json_array();
	int any_open = 0;
	for (int i = 0; i < c.nseats; i++) {
		any_open |= seats[i].open;
		if (seats[i].open) {
			json_array_append_new(links, json_pack("{s:s, s:b}", "seat", rg->seat_names[i], "open", 1));
			continue;
		}
		char *url = link_seat(req->app, c.id, c.tokens[i]);
		json_array_append_new(links, json_pack("{s:s, s:s, s:s, s:b}", "seat", rg->seat_names[i],
			"name", seats[i].name, "url", url, "open", 0));
		free(url);
	}
	char *game_url = link_game(req->app, c.id);
	page_render(req, res, 201, "created.html", json_pack("{s:s, s:s, s:s, s:o, s:b, s:s}", "title",
		"Game created", "id", c.id, "variant", rg->title, "links", links, "has_open", any_open,
		"game_url", game_url));
	free(game_url);
out:
	if (err.code) {
		/* The form again with the choices made, or the games to choose from. */
		if (rg)
			render_new(req, res, app_code_status(err.code), rg, err.message);
		else
			render_home(req, res, app_code_status(err.code), err.message);
		res->code = err.code;
	}
	free(variant);
	for (int i = 0; i < RULES_MAX_SEATS; i++) {
		free(names[i]);
		free(emails[i]);
	}
}

/*
 * The rules page of a game: templates/rules-<id>.html or, for a variant without a page of its own
 * (civil-war-2), the page of the game it varies, found by dropping the id's last "-part"; the page
 * is then told it shows a variant.
 */
void page_rules(http_request *req, http_response *res)
{
	const rules_game *g = rules_find(req->params[0], 0);
	char name[64];
	char *dash;
	int variant = 0;

	if (!g)
		return http_reply_error(req, res, E_NOT_FOUND, "there is no game by that name");
	snprintf(name, sizeof name, "rules-%s.html", g->id);
	while (!tmpl_file_get(name, NULL) && (dash = strrchr(name, '-')) && dash > name + strlen("rules")) {
		strcpy(dash, ".html");
		variant = 1;
	}
	page_render(req, res, 200, name, json_pack("{s:s, s:s, s:i, s:s, s:i, s:b, s:b}", "title", g->title,
		"id", g->id, "rules_version", g->version, "choice_help", g->choice_help,
		"ply_limit", game_ply_limit(g), "leaves_on_time", g->resign != NULL, "variant", variant));
}
