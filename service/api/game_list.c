/* game_list.c - GET /api/games: the games anyone may look at, newest first, a page at a time. */
#include "api/api.h"
#include "core/errors.h"
#include "game/game_list.h"

static const char *const list_query[] = {"status", "variant", "limit", "cursor", NULL};

void api_list_games(http_request *req, http_response *res)
{
	game_list_ask ask;
	app_error err;
	json_t *list;

	if (http_query_only(req, list_query, &err) ||
	    game_list_ask_read(http_query(req, "status"), http_query(req, "variant"), http_query(req, "limit"),
			       http_query(req, "cursor"), &ask, &err) ||
	    !(list = game_list(req->app, &ask, &err)))
		return http_reply_error(req, res, err.code, err.message);
	http_reply_json(res, 200, list);
}
