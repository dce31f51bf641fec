/* vacation.c - GET and POST /api/vacation: a player's vacation days, with a seat token or the player's own. */
#include "api/api.h"
#include "core/errors.h"
#include "game/game.h"
#include "game/vacation.h"

#include <time.h>

/* The player of the request's token (a player's token, or a seat's) into player; 0, or an error. */
static int token_player(http_request *req, char *player, size_t size, app_error *err)
{
	if (req->auth_player) {
		vacation_player_of_email(req->auth_player, player, size);
		return 0;
	}
	return vacation_player_of_seat(req->app, req->auth_game, req->auth_seat, player, size, err);
}

/* Answer with the player's allowance and vacations, and "returned_days" when some came back. */
static void reply_view(http_request *req, http_response *res, const char *player, int returned)
{
	app_error err = {0};
	json_t *o = vacation_view(req->app, player, (long long)time(NULL), &err);

	if (!o)
		return http_reply_error(req, res, err.code, err.message);
	if (returned >= 0)
		json_object_set_new(o, "returned_days", json_integer(returned));
	http_reply_json(res, 200, o);
}

void api_vacation_get(http_request *req, http_response *res)
{
	char player[VACATION_PLAYER_TEXT];
	app_error err = {0};

	if (token_player(req, player, sizeof player, &err))
		return http_reply_error(req, res, err.code, err.message);
	reply_view(req, res, player, -1);
}

void api_vacation_post(http_request *req, http_response *res)
{
	char player[VACATION_PLAYER_TEXT];
	app_error err = {0};
	json_error_t je;
	json_t *body, *days = NULL, *end = NULL;
	const char *from = NULL, *to = NULL;
	long long now = (long long)time(NULL), start, until;
	int returned = -1;

	if (http_json_body(req, &body, &err))
		return http_reply_error(req, res, err.code, err.message);
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s?o, s?s, s?s, s?o}", "days", &days, "from", &from, "to", &to,
			   "end", &end) || !!days + !!end + !!(from || to) != 1 || !from != !to)
		app_fail(&err, E_BAD_REQUEST, "expected {\"days\": N}, {\"from\": \"YYYY-MM-DD\", \"to\": \"YYYY-MM-DD\"} "
			 "or {\"end\": true}");
	else if (end && !json_is_true(end))
		app_fail(&err, E_BAD_REQUEST, "end must be true");
	else if (days && (!json_is_integer(days) || json_integer_value(days) < 1))
		app_fail(&err, E_BAD_VACATION, "days must be a whole number of days, at least 1");
	else if (!token_player(req, player, sizeof player, &err)) {
		if (end)
			vacation_end(req->app, player, now, &returned, &err);
		else if (!vacation_span(days ? json_integer_value(days) : 0, from, to, now, &start, &until, &err))
			vacation_take(req->app, player, start, until, now, &err);
	}
	json_decref(body);
	if (err.code)
		return http_reply_error(req, res, err.code, err.message);
	reply_view(req, res, player, returned);
}
