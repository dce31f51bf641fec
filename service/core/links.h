/* links.h - the public addresses of a game's pages, as every channel (API, pages, mail) gives them. */
#ifndef ROOKERY_LINKS_H
#define ROOKERY_LINKS_H

#include "core/app.h"

/* The seat link of a token: <base>/games/<id>?seat=<token>. Caller frees. */
char *link_seat(app *a, const char *game_id, const char *token);

/* The public page of a game: <base>/games/<id>. Caller frees. */
char *link_game(app *a, const char *game_id);

#endif
