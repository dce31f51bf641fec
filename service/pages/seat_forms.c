/* seat_forms.c - the forms of a seat's page: move, resign, draw, client seed, time, vacation, message, mail. */
#include "pages/pages.h"
#include "pages/game_page.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/token.h"
#include "game/clock.h"
#include "game/conditional.h"
#include "game/game.h"
#include "mail_out/consent.h"
#include "pipeline/pipeline.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

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
	page_render_game(req, res, app_code_status(err->code), &g, seat, token, err->message, typed);
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

void page_message(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token, *text = NULL, *to = NULL;
	int seat = form_seat(req, &token, &err);
	game_message sent;

	if (seat >= 0) {
		text = http_form_field(req, "text");
		to = http_form_field(req, "to");
		/* The choice "everyone" comes as an empty name. */
		if (!game_send_message(req->app, req->params[0], seat, text, to && *to ? to : NULL, "web", &sent, &err))
			game_message_clear(&sent);
	}
	form_done(req, res, seat, token, &err, NULL);
	free(token);
	free(text);
	free(to);
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

/* A line of the line editor (its moves joined by "|") added to seat's conditional moves. */
static void conditional_store_path(app *a, const char *id, int seat, char *path, app_error *err)
{
	const char *texts[CONDITIONAL_LINE_MAX + 1];
	int n = page_line_moves(path, NULL, texts);
	game_loaded g;
	json_t *tree, *canon = NULL;

	if (game_load(a, id, &g, err))
		return;
	tree = conditional_line_tree(&g, seat, texts, n, err);
	game_loaded_free(&g);
	if (tree)
		game_conditional_put(a, id, seat, tree, 1, "web", &canon, err);
	json_decref(tree);
	json_decref(canon);
}

/* A line of conditional moves added to the seat's own ("if MOVE then MOVE, ..."), or all cleared. */
void page_conditional(http_request *req, http_response *res)
{
	app_error err = {0};
	char *token, *line = NULL, *clear = NULL, *path = NULL;
	int seat = form_seat(req, &token, &err);

	if (seat >= 0) {
		line = http_form_field(req, "line");
		clear = http_form_field(req, "clear");
		path = http_form_field(req, "path");
		if (path) {
			conditional_store_path(req->app, req->params[0], seat, path, &err);
		} else if (clear && !strcmp(clear, "yes")) {
			game_conditional_clear(req->app, req->params[0], seat, &err);
		} else if (!line || !*line) {
			app_fail(&err, E_BAD_CONDITIONAL, "type a line such as \"if THEIR MOVE then YOUR ANSWER\" first");
		} else {
			json_t *tree = conditional_from_lines(line, &err), *canon = NULL;
			if (tree)
				game_conditional_put(req->app, req->params[0], seat, tree, 1, "web", &canon, &err);
			json_decref(tree);
			json_decref(canon);
		}
	}
	form_done(req, res, seat, token, &err, NULL);
	free(token);
	free(line);
	free(clear);
	free(path);
}
