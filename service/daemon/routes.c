/* routes.c - the site: every address the server answers, its auth, body and handler. */
#include "daemon/routes.h"
#include "api/api.h"
#include "core/limits.h"
#include "game/game.h"
#include "live/events.h"
#include "pages/pages.h"

#include <stddef.h>

/*
 * In a pattern, {} captures one path segment as a plain parameter and
 * {token} captures one that is a credential (a sign-in token, a seat
 * token...): both land in req->params in order, but the request log
 * writes a {token} segment as "*". Mark every secret segment {token}.
 */
static const http_route routes[] = {
	/* method  pattern                      auth           body       max body          api handler */
	{"GET",  "/api/variants",              AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, api_variants},
	{"POST", "/api/games",                 AUTH_NONE,     BODY_JSON, LIMIT_BODY_JSON,  1, api_create_game},
	{"GET",  "/api/games",                 AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, api_list_games},
	{"GET",  "/api/games/{}",              AUTH_OPTIONAL, BODY_NONE, LIMIT_BODY_NONE,  1, api_get_game},
	{"POST", "/api/games/{}/join",         AUTH_NONE,     BODY_JSON, LIMIT_BODY_JSON,  1, api_join_game},
	{"GET",  "/api/games/{}/events",       AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, events_serve},
	{"GET",  "/api/games/{}/moves",        AUTH_OPTIONAL, BODY_NONE, LIMIT_BODY_NONE,  1, api_get_moves},
	{"POST", "/api/games/{}/moves",        AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_post_move},
	{"GET",  "/api/games/{}/check",        AUTH_SEAT,     BODY_NONE, LIMIT_BODY_NONE,  1, api_check_move},
	{"POST", "/api/games/{}/resign",       AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_resign},
	{"POST", "/api/games/{}/draw",         AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_draw},
	{"GET",  "/api/games/{}/dice",         AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, api_get_dice},
	{"GET",  "/api/games/{}/record",       AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, api_get_record},
	{"PUT",  "/api/games/{}/client-seed",  AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_client_seed},
	{"GET",  "/api/games/{}/conditional",  AUTH_SEAT,     BODY_NONE, LIMIT_BODY_NONE,  1, api_conditional_get},
	{"PUT",  "/api/games/{}/conditional",  AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_conditional_put},
	{"DELETE", "/api/games/{}/conditional", AUTH_SEAT,    BODY_NONE, LIMIT_BODY_NONE,  1, api_conditional_delete},
	{"POST", "/api/games/{}/clock",        AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_clock},
	{"POST", "/api/games/{}/messages",     AUTH_SEAT,     BODY_JSON, LIMIT_BODY_JSON,  1, api_post_message},
	{"GET",  "/api/games/{}/messages",     AUTH_SEAT,     BODY_NONE, LIMIT_BODY_NONE,  1, api_get_messages},
	{"GET",  "/api/vacation",              AUTH_PLAYER,    BODY_NONE, LIMIT_BODY_NONE,  1, api_vacation_get},
	{"POST", "/api/vacation",              AUTH_PLAYER,    BODY_JSON, LIMIT_BODY_JSON,  1, api_vacation_post},
	{"GET",  "/api/openapi.json",          AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, page_api_contract},

	{"GET",  "/",                          AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_home},
	{"POST", "/games",                     AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_create},
	{"GET",  "/games",                     AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_games},
	{"GET",  "/new/{}",                    AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_new},
	{"GET",  "/games/{}",                  AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_game},
	{"GET",  "/games/{}/moves",            AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_moves},
	/* An image: its errors are JSON, whose codes a client can read. */
	{"GET",  "/games/{}/board.svg",        AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  1, page_board_svg},
	{"POST", "/games/{}/join",             AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_join},
	{"POST", "/games/{}/move",             AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_move},
	{"POST", "/games/{}/resign",           AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_resign},
	{"POST", "/games/{}/draw",             AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_draw},
	{"POST", "/games/{}/messages",         AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_message},
	{"POST", "/games/{}/mail",             AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_mail_me},
	{"GET",  "/mail/stop/{token}",         AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_mail_stop},
	{"POST", "/mail/stop/{token}",         AUTH_NONE,     BODY_RAW,  LIMIT_BODY_FORM,  0, page_mail_stop_post},
	{"POST", "/games/{}/client-seed",      AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_client_seed},
	{"POST", "/games/{}/conditional",      AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_conditional},
	{"POST", "/games/{}/clock",            AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_clock},
	{"POST", "/games/{}/vacation",         AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_vacation},
	{"GET",  "/me",                        AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_me},
	{"POST", "/me",                        AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_me_request},
	{"GET",  "/me/{token}",                AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_me_open},
	{"POST", "/me/{token}",                AUTH_NONE,     BODY_FORM, LIMIT_BODY_FORM,  0, page_me_games},
	{"GET",  "/api",                       AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_api},
	{"GET",  "/rules/{}",                  AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_rules},
	{"GET",  "/style.css",                 AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_asset},
	{"GET",  "/play.js",                   AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_asset},
	{"GET",  "/favicon.svg",               AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_asset},
	{"GET",  "/setup.js",                  AUTH_NONE,     BODY_NONE, LIMIT_BODY_NONE,  0, page_asset},
	{NULL, NULL, AUTH_NONE, BODY_NONE, 0, 0, NULL},
};

const http_site routes_site = {
	.routes = routes,
	.error_page = page_error,
	.seat_token = game_authenticate,
	.player_token = game_authenticate_player,
};
