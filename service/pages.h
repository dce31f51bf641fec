/* pages.h - the HTML pages, rendered from templates/, working without JavaScript. */
#ifndef ROOKERY_PAGES_H
#define ROOKERY_PAGES_H

#include "http.h"

void page_home(http_request *req, http_response *res);
void page_create(http_request *req, http_response *res);
void page_game(http_request *req, http_response *res);
void page_move(http_request *req, http_response *res);
void page_resign(http_request *req, http_response *res);
void page_draw(http_request *req, http_response *res);
/* GET /games/{id}/moves?from=&limit=: the whole record of a game, page by page, as a spectator sees it. */
void page_moves(http_request *req, http_response *res);
void page_rules(http_request *req, http_response *res);
/* The static files served from the binary: /style.css, /play.js, /setup.js, /favicon.svg. */
void page_asset(http_request *req, http_response *res);

void page_me(http_request *req, http_response *res);
void page_me_request(http_request *req, http_response *res);
void page_me_open(http_request *req, http_response *res);
void page_me_games(http_request *req, http_response *res);

/* Render template name with model (stolen) as a complete page with status. */
void page_render(http_request *req, http_response *res, int status, const char *name, json_t *model);

/* False when a form post comes from another site (Sec-Fetch-Site, Origin). */
int page_same_origin(http_request *req);

/* The error page for code with message, with the code's HTTP status. */
void page_error(http_request *req, http_response *res, int code, const char *message);

#endif
