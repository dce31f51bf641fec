/* record.c - GET /api/games/{id}/record: the game's record as text (docs/record.md), to download. */
#include "api/api.h"
#include "game/game.h"
#include "game/record.h"
#include "game/view_served.h"
#include "xalloc.h"

#include <stdlib.h>

void api_get_record(http_request *req, http_response *res)
{
	char tag[VIEW_TAG_TEXT];
	long long version;
	app_error err;
	game_loaded g;
	size_t len;

	/* The same record for every viewer: a spectator's. A tag still held costs one read of the version. */
	if (view_version(req->app, req->params[0], &version, &err))
		return http_reply_error(req, res, err.code, err.message);
	view_page_tag(version, VIEW_PAGE_RECORD, -1, 0, 0, tag);
	if (http_etag_held(req, tag)) {
		http_validated(res, tag, 0);
		return http_reply_not_modified(res);
	}
	if (game_load(req->app, req->params[0], &g, &err))
		return http_reply_error(req, res, err.code, err.message);
	char *text = record_text(req->app, &g, &len, &err);
	if (!text) {
		game_loaded_free(&g);
		return http_reply_error(req, res, err.code, err.message);
	}
	/* Named by the version the record was read at, which a change since may have passed. */
	view_page_tag(g.rec->version, VIEW_PAGE_RECORD, -1, 0, 0, tag);
	char *name = xasprintf("rookery-%s.txt", g.rec->id);
	game_loaded_free(&g);
	http_reply(res, 200, "text/plain; charset=utf-8", text, len);
	http_validated(res, tag, 0);
	http_attachment(res, name);
	free(name);
}
