/* my_games.c - "my games": a sign-in link by mail, then every game of that address with fresh seat links. */
#include "core/errors.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/text.h"
#include "core/token.h"
#include "game/game.h"
#include "game/vacation.h"
#include "mail_out/consent.h"
#include "mail_out/notify.h"
#include "pages/pages.h"
#include "xalloc.h"

#include <ctype.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void page_me(http_request *req, http_response *res)
{
	page_render(req, res, 200, "me.html", json_pack("{s:s, s:o}", "title", "My games",
		"csrf", page_form_csrf(req, res)));
}

/* Queue the sign-in mail when the address has games; the answer never tells whether it has. */
static int request_link(app *a, const char *email, const char *client, app_error *err)
{
	db_player_seat *seats;
	size_t n;
	db_error de;
	int ok_address = 0, ok_client = 0, r;
	long long now = (long long)time(NULL);
	char *key_a = xasprintf("signin-address:%s", email), *key_c = xasprintf("signin-client:%s", client);

	/* Addresses differ in case only in the rarest of set-ups: count them as one. */
	for (char *p = key_a; *p; p++)
		*p = (char)tolower((unsigned char)*p);

	if ((r = db_begin(app_db(a), &de)))
		goto storage;
	r = db_rate_hit(app_db(a), key_c, now, LIMIT_RATE_WINDOW_S, LIMIT_SIGNIN_PER_CLIENT_PER_HOUR, &ok_client, &de);
	if (!r)
		r = db_rate_hit(app_db(a), key_a, now, LIMIT_RATE_WINDOW_S, LIMIT_SIGNIN_PER_ADDRESS_PER_HOUR, &ok_address, &de);
	if (!r && ok_client && ok_address && !(r = db_seats_by_email(app_db(a), email, &seats, &n, &de))) {
		if (n > 0) {
			char token[TOKEN_TEXT];
			unsigned char hash[TOKEN_HASH_BYTES];
			token_new(token);
			token_hash(token, hash);
			char *link = xasprintf("%s/me/%s", a->base_url, token);
			r = db_signin_add(app_db(a), hash, email, now + LIMIT_SIGNIN_TTL_S, &de);
			if (!r)
				r = notify_signin(a, email, link, &de);
			free(link);
		}
		db_player_seats_free(seats, n);
	}
	/* The counters are kept even when the limit is hit, so hammering does not reset them. */
	if (!r)
		r = db_commit(app_db(a), &de);
	if (r)
		goto storage;
	free(key_a);
	free(key_c);
	if (!ok_client || !ok_address)
		return app_fail(err, E_RATE_LIMITED, "too many sign-in requests; try again in an hour");
	return 0;
storage:
	db_rollback(app_db(a));
	free(key_a);
	free(key_c);
	log_event("sign-in request failed: %s", de.message);
	return app_fail(err, E_INTERNAL, "the server could not do this; try again later");
}

void page_me_request(http_request *req, http_response *res)
{
	char *email = http_form_field(req, "email"), client[HTTP_ADDRESS_TEXT];
	app_error err = {0};

	http_client_address(req, client, sizeof client);
	if (!page_same_origin(req))
		app_fail(&err, E_FORBIDDEN, "this form was sent from another site");
	else if (!page_form_ok(req))
		app_fail(&err, E_FORBIDDEN, PAGE_FORM_EXPIRED);
	else if (!email || strlen(email) > LIMIT_EMAIL || !text_email_plausible(email))
		app_fail(&err, E_BAD_REQUEST, "that is not an email address");
	else
		request_link(req->app, email, client, &err);
	if (err.code) {
		page_render(req, res, app_code_status(err.code), "me.html", json_pack("{s:s, s:s, s:o}",
			"title", "My games", "error", err.message, "csrf", page_form_csrf(req, res)));
		res->code = err.code;
	} else {
		page_render(req, res, 200, "me.html", json_pack("{s:s, s:b, s:i, s:o}", "title", "My games", "sent", 1,
			"link_minutes", LIMIT_SIGNIN_TTL_S / CLOCK_MINUTE_S, "csrf", page_form_csrf(req, res)));
	}
	free(email);
}

/* The address a sign-in token stands for, or an error; use_up: the token is deleted (call in a
 * transaction). */
static char *signin_email(http_request *req, int use_up, app_error *err)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	char *email = NULL;
	db_error de;
	int r;

	if (!token_well_formed(req->params[0])) {
		app_fail(err, E_NOT_FOUND, "this sign-in link is not valid");
		return NULL;
	}
	token_hash(req->params[0], hash);
	r = (use_up ? db_signin_take : db_signin_email)(app_db(req->app), hash, (long long)time(NULL), &email, &de);
	if (r == DB_E_NOTFOUND)
		app_fail(err, E_NOT_FOUND, "this sign-in link has expired, was used already or is not valid; "
			 "ask for a new one");
	else if (r)
		app_fail(err, E_INTERNAL, "the server could not do this; try again later");
	return email;
}

/* GET: a confirm button only, so that a mail scanner following the link changes nothing. */
void page_me_open(http_request *req, http_response *res)
{
	app_error err = {0};
	char *email = signin_email(req, 0, &err), csrf[FORM_TOKEN_TEXT];

	if (!email)
		return http_reply_error(req, res, err.code, err.message);
	/* The confirm form's token is bound to the sign-in token, as a seat's forms are to the seat's. */
	token_form(req->app->form_key, req->params[0], csrf);
	page_render(req, res, 200, "me-open.html", json_pack("{s:s, s:s, s:s, s:s}", "title", "My games",
		"email", email, "token", req->params[0], "csrf", csrf));
	free(email);
}

/*
 * POST: mint a seat link for each game of the address and list them, games to move in first. The
 * sign-in link is used up in the same transaction: it works once.
 */
void page_me_games(http_request *req, http_response *res)
{
	app_error err = {0};
	char *email = NULL;
	db_player_seat *seats = NULL;
	size_t n = 0;
	db_error de;
	json_t *to_move = json_array(), *waiting = json_array(), *over = json_array(), *vacation = NULL;
	char player[VACATION_PLAYER_TEXT], last_token[TOKEN_TEXT] = "", last_game[GAME_ID_TEXT] = "";

	char *csrf = http_form_field(req, "csrf");
	int csrf_ok = token_form_ok(req->app->form_key, req->params[0], csrf);
	free(csrf);
	if (!page_same_origin(req)) {
		app_fail(&err, E_FORBIDDEN, "this form was sent from another site");
		goto out;
	}
	/* An unknown link is told as such; a refused form uses nothing up. */
	if (!(email = signin_email(req, 0, &err)))
		goto out;
	free(email);
	email = NULL;
	if (!csrf_ok) {
		app_fail(&err, E_FORBIDDEN, PAGE_FORM_EXPIRED);
		goto out;
	}
	if (db_begin(app_db(req->app), &de)) {
		app_fail(&err, E_INTERNAL, "the server could not do this; try again later");
		goto out;
	}
	/* The link came by mail to the address: its owner has acted (consent.h). */
	if (!(email = signin_email(req, 1, &err)) || consent_confirm(req->app, email, &de) ||
	    db_seats_by_email(app_db(req->app), email, &seats, &n, &de)) {
		db_rollback(app_db(req->app));
		if (!err.code)
			app_fail(&err, E_INTERNAL, "the server could not do this; try again later");
		goto out;
	}
	for (size_t i = 0; i < n && !err.code; i++) {
		game_loaded g;
		char token[TOKEN_TEXT];
		unsigned char hash[TOKEN_HASH_BYTES];
		if (game_load(req->app, seats[i].game_id, &g, &err))
			break;
		token_new(token);
		token_hash(token, hash);
		if (db_seat_link_add(app_db(req->app), hash, g.rec->id, seats[i].seat,
				     (long long)time(NULL) + LIMIT_MY_LINK_TTL_S, &de)) {
			app_fail(&err, E_INTERNAL, "the server could not do this; try again later");
			game_loaded_free(&g);
			break;
		}
		char *url = xasprintf("/games/%s?seat=%s", g.rec->id, token);
		json_t *item = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s}", "id", g.rec->id, "title", g.rules->title,
			"seat", g.rules->seat_names[seats[i].seat], "url", url, "ply", g.rec->ply,
			"result", g.rec->result ? g.rec->result : "");
		free(url);
		json_t *opp = json_array();
		for (int k = 0; k < g.rec->nseats; k++)
			if (k != seats[i].seat)
				json_array_append_new(opp, json_string(g.rec->seats[k].name));
		json_object_set_new(item, "opponents", opp);
		/* The vacation form goes with one of the fresh links: every seat here is the same player's. */
		vacation_player(g.rec, seats[i].seat, player, sizeof player);
		snprintf(last_token, sizeof last_token, "%s", token);
		snprintf(last_game, sizeof last_game, "%s", g.rec->id);
		json_array_append_new(g.rec->over ? over : (game_turn_mask(&g) >> seats[i].seat) & 1 ? to_move : waiting,
				      item);
		game_loaded_free(&g);
	}
	/* The player's own API token (its vacations), shown once here like the seat links. */
	char api_token[TOKEN_TEXT];
	unsigned char api_hash[TOKEN_HASH_BYTES];
	token_new(api_token);
	token_hash(api_token, api_hash);
	if (!err.code && db_player_token_add(app_db(req->app), api_hash, email, (long long)time(NULL) + LIMIT_MY_LINK_TTL_S,
					     &de))
		app_fail(&err, E_INTERNAL, "the server could not do this; try again later");
	if (err.code || db_commit(app_db(req->app), &de)) {
		db_rollback(app_db(req->app));
		if (!err.code)
			app_fail(&err, E_INTERNAL, "the server could not do this; try again later");
		goto out;
	}
	/* How much mail the address gets, with the form that changes it; and the player's vacations. */
	db_address ad;
	json_t *prefs = db_address_find(app_db(req->app), email, &ad, &de) ? json_null() : page_mail_prefs(req->app, &ad);
	db_address_clear(&ad);
	vacation = *last_token ? page_vacation_model(req->app, last_game, last_token, player) : json_null();
	page_render(req, res, 200, "me-games.html", json_pack("{s:s, s:s, s:O, s:O, s:O, s:b, s:o, s:o, s:s}", "title",
		"My games", "email", email, "to_move", to_move, "waiting", waiting, "over", over, "none", n == 0,
		"prefs", prefs, "vacation", vacation, "api_token", api_token));
	sodium_memzero(api_token, sizeof api_token);
out:
	if (err.code)
		http_reply_error(req, res, err.code, err.message);
	json_decref(to_move);
	json_decref(waiting);
	json_decref(over);
	db_player_seats_free(seats, n);
	free(email);
}
