/* game_page.h - a game's page as the seat forms show it again (private to pages/). */
#ifndef ROOKERY_GAME_PAGE_H
#define ROOKERY_GAME_PAGE_H

#include "game/game.h"
#include "http/http.h"

#include <jansson.h>

/*
 * Render g's page with status; seat >= 0 with its token shows the seat's
 * controls, error (or NULL) above them, typed (or NULL) back in the move box.
 */
void page_render_game(http_request *req, http_response *res, int status, const game_loaded *g,
		      int seat, const char *token, const char *error, const char *typed);

/*
 * The seat a page request speaks for, from ?seat= or the form's token: -1
 * for a spectator (no token), -2 with err filled for a token that opens no
 * seat of this game.
 */
int page_seat(http_request *req, const char *token, app_error *err);

/* The messages seat may read on g's page (the latest LIMIT_PAGE_RECENT_MESSAGES) and the seats it may write to. */
json_t *page_messages_model(app *a, const game_loaded *g, int seat);

/*
 * Split line (the line editor's moves joined by "|", which no notation uses)
 * and more (one move, may be NULL) into texts, in place; how many, at most
 * CONDITIONAL_LINE_MAX + 1 (one too many, for the replay to refuse).
 */
int page_line_moves(char *line, const char *more, const char **texts);

#endif
