/* games.c - the JSON API of games: unpack strictly, call the game actions, answer with views. */
#include "api/api.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/links.h"
#include "game/game.h"
#include "pipeline/pipeline.h"
#include "game/view.h"
#include "game/view_served.h"
#include "mail_out/consent.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static void reply_err(http_request *req, http_response *res, const app_error *err)
{
	http_reply_error(req, res, err->code, err->message);
}

/*
 * A change asked for with a seat link that came by mail: its owner reads that
 * mail (consent.h). Recorded before the change, so that the change's own mails
 * (a game over, say) already reach its owner.
 */
static void owner_acted(http_request *req)
{
	const char *h = http_header(req, "Authorization");

	if (h && strlen(h) > 7)
		consent_token_acted(req->app, h + 7);
}

void api_variants(http_request *req, http_response *res)
{
	json_t *list = json_array();
	(void)req;

	for (size_t i = 0; rules_games[i]; i++) {
		const rules_game *g = rules_games[i];
		json_t *seats = json_array();
		for (int s = 0; s < g->nseats; s++)
			json_array_append_new(seats, json_string(g->seat_names[s]));
		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:i, s:s, s:i, s:o}",
			"id", g->id, "title", g->title, "seats", seats, "players", g->nseats,
			"summary", g->summary, "rules_version", g->version,
			"rules_url", json_sprintf("/rules/%s", g->id)));
	}
	http_reply_json(res, 200, json_pack("{s:o}", "variants", list));
}

void api_create_game(http_request *req, http_response *res)
{
	game_seat_in seats[RULES_MAX_SEATS];
	game_created created;
	app_error err = {0};
	json_error_t je;
	json_t *body, *jseats, *s, *out_seats, *jclock = NULL;
	game_clock_in clock;
	const char *variant;
	char client[HTTP_ADDRESS_TEXT];
	size_t i, n;

	if (http_json_body(req, &body, &err))
		return reply_err(req, res, &err);
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s:s, s:o, s?o}", "variant", &variant, "seats", &jseats,
			   "clock", &jclock)) {
		app_fail(&err, E_BAD_REQUEST, "expected {\"variant\": string, \"seats\": [...], \"clock\": {...}}: %s",
			 je.text);
		goto out;
	}
	if (game_clock_parse(jclock, &clock, &err))
		goto out;
	if (!json_is_array(jseats) || (n = json_array_size(jseats)) == 0 || n > RULES_MAX_SEATS) {
		app_fail(&err, E_BAD_REQUEST, "seats must be an array of 1 to %d seats", RULES_MAX_SEATS);
		goto out;
	}
	json_array_foreach(jseats, i, s) {
		memset(&seats[i], 0, sizeof seats[i]);
		/* An open seat is {"open": true} and nothing else. */
		if (json_is_object(s) && json_object_get(s, "open")) {
			seats[i].open = 1;
			if (json_object_size(s) != 1 || !json_is_true(json_object_get(s, "open"))) {
				app_fail(&err, E_BAD_REQUEST, "seat %zu: an open seat is {\"open\": true} alone", i + 1);
				goto out;
			}
		} else if (json_unpack_ex(s, &je, JSON_STRICT, "{s:s, s?s}", "name", &seats[i].name,
					  "email", &seats[i].email)) {
			app_fail(&err, E_BAD_REQUEST, "seat %zu: expected {\"name\": string, \"email\": string} "
				 "or {\"open\": true}: %s", i + 1, je.text);
			goto out;
		}
	}
	http_client_address(req, client, sizeof client);
	if (game_create_timed(req->app, client, variant, seats, (int)n, &clock, &created, &err))
		goto out;

	const rules_game *rg = rules_find(variant, 0);
	out_seats = json_array();
	for (int k = 0; k < created.nseats; k++) {
		if (seats[k].open) {
			json_array_append_new(out_seats, json_pack("{s:s, s:b}", "seat", rg->seat_names[k], "open", 1));
			continue;
		}
		char *url = link_seat(req->app, created.id, created.tokens[k]);
		json_array_append_new(out_seats, json_pack("{s:s, s:s, s:s, s:s}",
			"seat", rg->seat_names[k], "name", seats[k].name,
			"token", created.tokens[k], "url", url));
		free(url);
	}
	char *game_url = link_game(req->app, created.id);
	http_reply_json(res, 201, json_pack("{s:s, s:s, s:s, s:o}", "id", created.id,
		"variant", rg->id, "url", game_url, "seats", out_seats));
	free(game_url);
out:
	json_decref(body);
	if (err.code)
		reply_err(req, res, &err);
}

/* An answer holding a view of a game already loaded: made after the change is durable (http_reply_later). */
struct game_answer {
	int status;
	json_t *head;          /* the answer's other members, or NULL: the view is the answer */
	const char *member;    /* the view's member in head */
	game_loaded g;
	int seat;
};

static void game_answer_render(void *arg, http_response *res)
{
	struct game_answer *a = arg;
	json_t *view = view_game(&a->g, a->seat);

	if (a->head) {
		json_object_set_new(a->head, a->member, view);
		view = json_incref(a->head);
	}
	http_reply_json(res, a->status, view);
}

static void game_answer_drop(void *arg)
{
	struct game_answer *a = arg;

	json_decref(a->head);
	game_loaded_free(&a->g);
	free(a);
}

/* Answer head (stolen; NULL: the view alone) with the view of *g as seat under member; takes *g. */
static void reply_with_game(http_response *res, int status, json_t *head, const char *member, game_loaded *g,
			    int seat)
{
	struct game_answer *a = xmalloc(sizeof *a);

	a->status = status;
	a->head = head;
	a->member = member;
	a->g = *g;
	a->seat = seat;
	memset(g, 0, sizeof *g);
	http_reply_later(res, status, game_answer_render, game_answer_drop, a);
}

/* The viewer a read speaks for: the seat of its token, else the public (-1). */
static int viewer_of(const http_request *req)
{
	return req->auth_game ? req->auth_seat : -1;
}

static int held(void *req, const char *tag)
{
	return http_etag_held(req, tag);
}

void api_get_game(http_request *req, http_response *res)
{
	view_served v;
	app_error err;

	if (view_serve_game(req->app, req->params[0], viewer_of(req), http_header(req, "If-None-Match") ? held : NULL,
			    req, &v, &err))
		return reply_err(req, res, &err);
	if (v.text)
		http_reply(res, 200, "application/json", v.text, v.len);
	else
		http_reply_not_modified(res);
	http_validated(res, v.tag, viewer_of(req) >= 0);
}

/*
 * The validator of a page of moves or dice, from the version alone: 1 when
 * the answer is made (304, or an error), 0 when the page must be made.
 */
static int page_validated(http_request *req, http_response *res, enum view_page_kind kind, int viewer,
			  int *from, int *limit)
{
	app_error err;
	long long version;
	char tag[VIEW_TAG_TEXT];

	if (http_page_query(req, from, limit, &err) || view_version(req->app, req->params[0], &version, &err)) {
		reply_err(req, res, &err);
		return 1;
	}
	view_page_tag(version, kind, viewer, *from, *limit, tag);
	http_validated(res, tag, viewer >= 0);
	if (!http_etag_held(req, tag))
		return 0;
	http_reply_not_modified(res);
	return 1;
}

void api_check_move(http_request *req, http_response *res)
{
	app_error err = {0};
	game_loaded g;
	rules_move mv;
	rules_move_list next = {0};

	if (game_load(req->app, req->params[0], &g, &err))
		return reply_err(req, res, &err);
	if (!http_query(req, "move"))
		app_fail(&err, E_BAD_REQUEST, "give the partial move as ?move=");
	else if (!game_read_move(&g, req->auth_seat, http_query(req, "move"), &mv, &err)) {
		json_t *out = view_move_option(&g, &mv), *list = json_array();
		if (mv.partial)
			g.rules->continuations(g.pos, &mv, &next);
		for (size_t i = 0; i < next.n; i++)
			json_array_append_new(list, view_move_option(&g, &next.v[i]));
		rules_move_list_free(&next);
		json_object_set_new(out, "continuations", list);
		http_reply_json(res, 200, out);
	}
	game_loaded_free(&g);
	if (err.code)
		reply_err(req, res, &err);
}

void api_post_move(http_request *req, http_response *res)
{
	app_error err = {0};
	game_move_done done;
	json_error_t je;
	json_t *body, *jply = NULL, *jmessage = NULL;
	const char *text, *message, *to;
	game_message said;
	game_loaded g;

	if (http_json_body(req, &body, &err))
		return reply_err(req, res, &err);
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s:s, s:o, s?o}", "move", &text, "ply", &jply,
			   "message", &jmessage)) {
		app_fail(&err, E_BAD_REQUEST, "expected {\"move\": string, \"ply\": integer, \"message\": ...}: %s",
			 je.text);
		goto out;
	}
	if (api_message_field(jmessage, &message, &to, &err))
		goto out;
	if (!json_is_integer(jply) || json_integer_value(jply) < 0 || json_integer_value(jply) > LIMIT_PLY_NUMBER) {
		app_fail(&err, E_BAD_REQUEST, "ply must be a non-negative integer");
		goto out;
	}
	owner_acted(req);
	if (game_submit_move_said(req->app, req->params[0], req->auth_seat, (int)json_integer_value(jply),
				  text, message, to, "api", &done, &said, &g, &err))
		goto out;
	json_t *dice = json_array();
	for (int i = 0; i < done.nrolls; i++)
		json_array_append_new(dice, json_integer(done.rolls[i]));
	json_t *head = json_pack("{s:i, s:s, s:s, s:s, s:o, s:b}", "ply", done.ply,
		"seat", g.rules->seat_names[done.seat], "move", done.move, "note", done.note, "dice", dice,
		"duplicate", done.duplicate);
	if (said.seq)
		json_object_set_new(head, "message", api_message_json(g.rules, said.seq, said.from, said.to,
								      said.text, said.channel, said.at));
	game_message_clear(&said);
	reply_with_game(res, done.duplicate ? 200 : 201, head, "game", &g, req->auth_seat);
out:
	json_decref(body);
	if (err.code)
		reply_err(req, res, &err);
}

void api_get_moves(http_request *req, http_response *res)
{
	game_loaded g;
	app_error err;
	json_t *moves;
	int from, limit;

	if (page_validated(req, res, VIEW_PAGE_MOVES, viewer_of(req), &from, &limit))
		return;
	if (game_load(req->app, req->params[0], &g, &err))
		return reply_err(req, res, &err);
	moves = view_moves(req->app, &g, viewer_of(req), from, limit, &err);
	game_loaded_free(&g);
	if (!moves)
		return reply_err(req, res, &err);
	http_reply_json(res, 200, moves);
}

/* Answer a side action with the game's new state. */
static void reply_state(http_request *req, http_response *res)
{
	game_loaded g;
	app_error err;

	if (game_load(req->app, req->params[0], &g, &err))
		return reply_err(req, res, &err);
	reply_with_game(res, 200, NULL, NULL, &g, req->auth_seat);
}

void api_resign(http_request *req, http_response *res)
{
	app_error err = {0};
	json_t *body = NULL;
	json_error_t je;

	/* The body is optional; when sent it must be an empty object. */
	if (req->body_len) {
		if (http_json_body(req, &body, &err))
			return reply_err(req, res, &err);
		if (json_unpack_ex(body, &je, JSON_STRICT, "{}")) {
			json_decref(body);
			return http_reply_error(req, res, E_BAD_REQUEST, "resign takes no fields");
		}
		json_decref(body);
	}
	owner_acted(req);
	if (game_resign(req->app, req->params[0], req->auth_seat, "api", &err))
		return reply_err(req, res, &err);
	reply_state(req, res);
}

/*
 * A seat's action whose one field, a string, comes in a strict JSON body
 * ({"<field>": "..."}), answered with the game's new state.
 */
static void field_action(http_request *req, http_response *res, const char *field, const char *expected,
			 int (*act)(app *, const char *, int, const char *, const char *, app_error *))
{
	app_error err = {0};
	json_error_t je;
	json_t *body;
	const char *value;

	if (http_json_body(req, &body, &err))
		return reply_err(req, res, &err);
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s:s}", field, &value)) {
		json_decref(body);
		return http_reply_error(req, res, E_BAD_REQUEST, expected);
	}
	owner_acted(req);
	int r = act(req->app, req->params[0], req->auth_seat, value, "api", &err);
	json_decref(body);
	if (r)
		return reply_err(req, res, &err);
	reply_state(req, res);
}

void api_draw(http_request *req, http_response *res)
{
	field_action(req, res, "action", "expected {\"action\": \"offer\"|\"accept\"|\"decline\"|\"withdraw\"}",
		     game_draw);
}

void api_client_seed(http_request *req, http_response *res)
{
	field_action(req, res, "client_seed", "expected {\"client_seed\": string}", game_set_client_seed);
}

void api_get_dice(http_request *req, http_response *res)
{
	game_loaded g;
	app_error err;
	json_t *d;
	int from, limit;

	/* The dice record is the same for every viewer. */
	if (page_validated(req, res, VIEW_PAGE_DICE, -1, &from, &limit))
		return;
	if (game_load(req->app, req->params[0], &g, &err))
		return reply_err(req, res, &err);
	d = view_dice(req->app, &g, from, limit, &err);
	game_loaded_free(&g);
	if (!d)
		return reply_err(req, res, &err);
	http_reply_json(res, 200, d);
}

void api_clock(http_request *req, http_response *res)
{
	app_error err = {0};
	json_error_t je;
	json_t *body, *days;
	const char *to;
	long long seconds;

	if (http_json_body(req, &body, &err))
		return reply_err(req, res, &err);
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s:{s:s, s:o}}", "give", "seat", &to, "days", &days)) {
		json_decref(body);
		return http_reply_error(req, res, E_BAD_REQUEST, "expected {\"give\": {\"seat\": string, \"days\": number}}");
	}
	if (!json_is_number(days) || clock_days_seconds(json_number_value(days), LIMIT_CLOCK_GIVE_DAYS_MAX, &seconds))
		app_fail(&err, E_BAD_CLOCK, "days must be a number from 1/24 (an hour) to %d", LIMIT_CLOCK_GIVE_DAYS_MAX);
	else
		owner_acted(req);
	if (!err.code)
		game_give_time(req->app, req->params[0], req->auth_seat, to, seconds, "api", &err);
	json_decref(body);
	if (err.code)
		return reply_err(req, res, &err);
	reply_state(req, res);
}
