/* api.h - the JSON API handlers (routes in routes.c, documented in docs/api.md). */
#ifndef ROOKERY_API_H
#define ROOKERY_API_H

#include "http/http.h"
#include "rules.h"

#include <jansson.h>

void api_variants(http_request *req, http_response *res);
void api_create_game(http_request *req, http_response *res);
/* GET /api/games?status=&variant=&limit=&cursor=: the listed games, newest first (game_list.h). */
void api_list_games(http_request *req, http_response *res);
/*
 * POST /api/games/{id}/join: {"seat" (optional), "name", "email" (optional)}
 * takes an open seat; 201 {"id", "seat", "name", "token", "url", "started"}.
 */
void api_join_game(http_request *req, http_response *res);
void api_get_game(http_request *req, http_response *res);
void api_post_move(http_request *req, http_response *res);
/* GET /api/games/{id}/check?move=: a move read without playing it, with its continuations when partial. */
void api_check_move(http_request *req, http_response *res);
void api_get_moves(http_request *req, http_response *res);
void api_resign(http_request *req, http_response *res);
void api_draw(http_request *req, http_response *res);
/* PUT /api/games/{id}/client-seed: the seat's client seed for the dice, while no die has rolled. */
void api_client_seed(http_request *req, http_response *res);
void api_get_dice(http_request *req, http_response *res);
/* GET /api/games/{id}/record: the game's record as text (docs/record.md), a spectator's, as a download. */
void api_get_record(http_request *req, http_response *res);
/* GET, PUT and DELETE /api/games/{id}/conditional: the seat token's own tree of conditional moves. */
void api_conditional_get(http_request *req, http_response *res);
void api_conditional_put(http_request *req, http_response *res);
void api_conditional_delete(http_request *req, http_response *res);

/* POST /api/games/{id}/messages: {"text": string, "to": null | seat name} from the token's seat (201). */
void api_post_message(http_request *req, http_response *res);
/* GET /api/games/{id}/messages?from=&limit=: the messages to every seat, to the token's seat and from it. */
void api_get_messages(http_request *req, http_response *res);
/* A message as the API shows it. */
json_t *api_message_json(const rules_game *rules, long long seq, int from, int to, const char *text,
			 const char *channel, const char *at);
/*
 * A message field of a body (NULL or null: none; a string: to every seat;
 * {"text", "to"}): *text (NULL for none) and *to, or E_BAD_REQUEST.
 */
int api_message_field(const json_t *field, const char **text, const char **to, app_error *err);

/* POST /api/games/{id}/clock: {"give": {"seat": "North", "days": 1}} gives another seat time (seat token). */
void api_clock(http_request *req, http_response *res);
/* GET /api/vacation: the seat token's player's vacation days left this year and its vacations to come. */
void api_vacation_get(http_request *req, http_response *res);
/* POST /api/vacation: {"days": N}, {"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"} or {"end": true} (seat token). */
void api_vacation_post(http_request *req, http_response *res);

#endif
