/* join_page.c - POST /games/{id}/join: the join form of an open game's page takes a seat for its reader. */
#include "pages/pages.h"
#include "pages/game_page.h"
#include "core/errors.h"
#include "core/links.h"
#include "game/game.h"
#include "pipeline/pipeline.h"
#include "xalloc.h"

#include <sodium.h>
#include <stdlib.h>

void page_join(http_request *req, http_response *res)
{
	char *seat = http_form_field(req, "seat"), *name = http_form_field(req, "name");
	char *email = http_form_field(req, "email"), client[HTTP_ADDRESS_TEXT];
	game_seat_in who = {name, email, 0};
	game_joined joined;
	app_error err = {0};
	game_loaded g;

	if (!page_same_origin(req))
		app_fail(&err, E_FORBIDDEN, "this form was sent from another site");
	else if (!page_form_ok(req))
		app_fail(&err, E_FORBIDDEN, PAGE_FORM_EXPIRED);
	else {
		http_client_address(req, client, sizeof client);
		if (!game_join(req->app, client, req->params[0], seat && *seat ? seat : NULL, &who, &joined, &err)) {
			/* The seat link is the joiner's credential: straight to it, as the home form shows its own. */
			char *loc = xasprintf("/games/%s?seat=%s", req->params[0], joined.token);
			http_redirect(res, loc);
			sodium_memzero(joined.token, sizeof joined.token);
			free(loc);
		}
	}
	/* Refused: the game's page again with the reason, as every form of the site answers. */
	if (err.code) {
		app_error lerr;
		if (game_load(req->app, req->params[0], &g, &lerr)) {
			http_reply_error(req, res, err.code, err.message);
		} else {
			page_render_game(req, res, app_code_status(err.code), &g, -1, NULL, err.message, NULL);
			res->code = err.code;
			game_loaded_free(&g);
		}
	}
	free(seat);
	free(name);
	free(email);
}
