/* conditional.c - GET, PUT and DELETE /api/games/{id}/conditional: a seat's own conditional moves. */
#include "api/api.h"
#include "core/errors.h"
#include "core/limits.h"
#include "pipeline/pipeline.h"

/*
 * Only the seat's own token reaches these (AUTH_SEAT, and the token's game
 * must be the path's): a tree is shown to nobody else, and none of these
 * answers carries an ETag or moves the game's version.
 */
void api_conditional_get(http_request *req, http_response *res)
{
	app_error err = {0};
	json_t *tree = game_conditional_get(req->app, req->auth_game, req->auth_seat, &err);

	if (!tree)
		return http_reply_error(req, res, err.code, err.message);
	http_reply_json(res, 200, tree);
}

void api_conditional_put(http_request *req, http_response *res)
{
	app_error err = {0};
	json_t *body, *canon = NULL;

	if (http_json_body_depth(req, LIMIT_CONDITIONAL_JSON_DEPTH, &body, &err))
		return http_reply_error(req, res, err.code, err.message);
	game_conditional_put(req->app, req->auth_game, req->auth_seat, body, 0, "api", &canon, &err);
	json_decref(body);
	if (!canon)
		return http_reply_error(req, res, err.code, err.message);
	http_reply_json(res, 200, canon);
}

void api_conditional_delete(http_request *req, http_response *res)
{
	app_error err = {0};

	if (game_conditional_clear(req->app, req->auth_game, req->auth_seat, &err))
		return http_reply_error(req, res, err.code, err.message);
	http_reply_json(res, 200, json_pack("{s:[]}", "if"));
}
