/* pages.h - the HTML pages, rendered from templates/, working without JavaScript. */
#ifndef ROOKERY_PAGES_H
#define ROOKERY_PAGES_H

#include "http/http.h"

void page_home(http_request *req, http_response *res);
/* GET /new/{variant}: the second step of starting a game, its seats and clock. */
void page_new(http_request *req, http_response *res);
void page_create(http_request *req, http_response *res);
void page_game(http_request *req, http_response *res);
/* POST /games/{id}/join: an open game's join form (fields csrf, seat, name, email); 303 to the new seat link. */
void page_join(http_request *req, http_response *res);
void page_move(http_request *req, http_response *res);
void page_resign(http_request *req, http_response *res);
void page_draw(http_request *req, http_response *res);
/* POST /games/{id}/mail: the seat's owner, by a mailed link, asks for mail about the game. */
/* POST /games/{id}/messages: a message from the seat of the form (text, to: "" for everyone or a seat name). */
void page_message(http_request *req, http_response *res);
void page_mail_me(http_request *req, http_response *res);
/* GET /mail/stop/{token}: what mail the address gets, with buttons to stop it; POST does it (or RFC 8058's one click). */
void page_mail_stop(http_request *req, http_response *res);
void page_mail_stop_post(http_request *req, http_response *res);
/*
 * The model of the form choosing how much mail ad gets (templates/mail-prefs.html): it posts to
 * the address's page /mail/stop/{token} with that page's form token. New reference.
 */
json_t *page_mail_prefs(app *a, const db_address *ad);
/* POST /games/{id}/client-seed: the seat's client seed for the dice (field client_seed). */
void page_client_seed(http_request *req, http_response *res);
/* POST /games/{id}/conditional: a line of conditional moves added to the seat's own, or clear=yes. */
void page_conditional(http_request *req, http_response *res);
/* POST /games/{id}/clock: the seat form giving another seat time (fields to, days). */
void page_clock(http_request *req, http_response *res);
/* GET /games/{id}/moves?from=&limit=: the whole record of a game, page by page, as a spectator sees it. */
void page_moves(http_request *req, http_response *res);
/* GET /games?status=&variant=&limit=&cursor=: the lists of games (game_list.h), a section each or the one asked for. */
void page_games(http_request *req, http_response *res);
/* GET /games/{id}/board.svg?ply=&seat=: the board at a ply from a seat's side, as an SVG image anyone may see. */
void page_board_svg(http_request *req, http_response *res);
void page_rules(http_request *req, http_response *res);
/* The static files served from the binary: /style.css, /play.js, /setup.js, /favicon.svg. */
void page_asset(http_request *req, http_response *res);

/* GET /api/openapi.json: the API contract, docs/openapi.yaml as the build made it JSON (ETag, 304). */
void page_api_contract(http_request *req, http_response *res);
/* GET /api: the contract summarised for people, every endpoint with its parameters and answers. */
void page_api(http_request *req, http_response *res);

void page_me(http_request *req, http_response *res);
void page_me_request(http_request *req, http_response *res);
void page_me_open(http_request *req, http_response *res);
void page_me_games(http_request *req, http_response *res);

/* Render template name with model (stolen) as a complete page with status. */
void page_render(http_request *req, http_response *res, int status, const char *name, json_t *model);

/* What a form without its right form token is told (403 forbidden). */
#define PAGE_FORM_EXPIRED "the form has expired or lost its cookie; reload the page and try again"

/*
 * The form token of a page whose forms need no seat (home, /me), as a JSON
 * string for its model; sets the form cookie on res when the request
 * brought none.
 */
json_t *page_form_csrf(http_request *req, http_response *res);

/* True when a form post brings the form cookie and its form token (field csrf). */
int page_form_ok(http_request *req);

/* False when a form post comes from another site (Sec-Fetch-Site, Origin). */
int page_same_origin(http_request *req);

/* The error page for code with message, with the code's HTTP status. */
void page_error(http_request *req, http_response *res, int code, const char *message);

/* POST /games/{id}/vacation: the vacation form (fields days, or from and to, or end=yes) of the seat's player. */
void page_vacation(http_request *req, http_response *res);
/*
 * The vacation form's model for player with the seat link token of game_id:
 * vacation_view's object with the form's fields, or JSON null when it cannot be read.
 */
json_t *page_vacation_model(app *a, const char *game_id, const char *token, const char *player);
/* The vacation form's action for seat of game_id: end = "yes" ends it, else days or from..to takes one. */
int page_vacation_act(app *a, const char *game_id, int seat, const char *end, const char *days, const char *from,
		      const char *to, app_error *err);

#endif
