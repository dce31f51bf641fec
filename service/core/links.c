/* links.c - the public addresses of a game's pages. */
#include "core/links.h"
#include "xalloc.h"

char *link_seat(app *a, const char *game_id, const char *token)
{
	return xasprintf("%s/games/%s?seat=%s", a->base_url, game_id, token);
}

char *link_game(app *a, const char *game_id)
{
	return xasprintf("%s/games/%s", a->base_url, game_id);
}
