/* join.c - POST /api/games/{id}/join: a player takes an open seat, first come first served. */
#include "api/api.h"
#include "core/errors.h"
#include "core/links.h"
#include "pipeline/pipeline.h"

#include <sodium.h>
#include <stdlib.h>

void api_join_game(http_request *req, http_response *res)
{
	game_seat_in who = {0};
	game_joined joined;
	app_error err = {0};
	json_error_t je;
	json_t *body;
	const char *seat = NULL;
	char client[HTTP_ADDRESS_TEXT];

	if (http_json_body(req, &body, &err))
		return http_reply_error(req, res, err.code, err.message);
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s?s, s:s, s?s}", "seat", &seat, "name", &who.name,
			   "email", &who.email)) {
		app_fail(&err, E_BAD_REQUEST, "expected {\"seat\": string, \"name\": string, \"email\": string} "
			 "(seat and email may be left out): %s", je.text);
	} else {
		http_client_address(req, client, sizeof client);
		if (!game_join(req->app, client, req->params[0], seat, &who, &joined, &err)) {
			char *url = link_seat(req->app, req->params[0], joined.token);
			http_reply_json(res, 201, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "id", req->params[0],
				"seat", joined.seat_name, "name", who.name, "token", joined.token, "url", url,
				"started", joined.started));
			sodium_memzero(joined.token, sizeof joined.token);
			free(url);
		}
	}
	json_decref(body);
	if (err.code)
		http_reply_error(req, res, err.code, err.message);
}
