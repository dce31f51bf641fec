/* game_list.c - the page /games: open seats to take, games in progress to watch, finished games. */
#include "pages/pages.h"
#include "core/errors.h"
#include "game/game_list.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const list_query[] = {"status", "variant", "limit", "cursor", NULL};

/* The page's sections, in order; a status asked for shows its own alone. */
static const struct {
	const char *status, *heading, *none;
} sections[] = {
	{"open", "Open seats to take", "No game waits for a player."},
	{"active", "Games in progress to watch", "No game is being played."},
	{"finished", "Finished games", "No game has finished."},
};

/* A query argument of the page; the filter form sends an empty one for "any". */
static const char *page_query(http_request *req, const char *name)
{
	const char *v = http_query(req, name);

	return v && *v ? v : NULL;
}

/* The address of the section's next page: the same filters, from the cursor on. */
static json_t *older_link(const game_list_ask *ask, const char *status, const char *limit, json_t *cursor)
{
	if (!json_is_string(cursor))
		return json_null();
	char *v = ask->variant ? xasprintf("&variant=%s", ask->variant->id) : xstrdup("");
	char *l = limit ? xasprintf("&limit=%d", ask->limit) : xstrdup("");
	json_t *link = json_sprintf("/games?status=%s%s%s&cursor=%s", status, v, l, json_string_value(cursor));

	free(v);
	free(l);
	return link;
}

static json_t *filters_model(const game_list_ask *ask)
{
	json_t *variants = json_array(), *statuses = json_array();

	for (size_t i = 0; rules_games[i]; i++)
		json_array_append_new(variants, json_pack("{s:s, s:s, s:b}", "id", rules_games[i]->id,
			"title", rules_games[i]->title, "selected", ask->variant == rules_games[i]));
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		json_array_append_new(statuses, json_pack("{s:s, s:s, s:b}", "value", sections[i].status,
			"label", sections[i].heading, "selected", ask->listing && !strcmp(ask->listing, sections[i].status)));
	return json_pack("{s:o, s:o, s:b, s:b}", "variants", variants, "statuses", statuses,
		"any_variant", ask->variant == NULL, "any_status", ask->listing == NULL);
}

void page_games(http_request *req, http_response *res)
{
	game_list_ask ask;
	app_error err;
	json_t *out = json_array();
	const char *limit = page_query(req, "limit");

	if (http_query_only(req, list_query, &err) ||
	    game_list_ask_read(page_query(req, "status"), page_query(req, "variant"), limit, page_query(req, "cursor"),
			       &ask, &err)) {
		json_decref(out);
		return http_reply_error(req, res, err.code, err.message);
	}
	const char *asked = ask.listing;
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		if (asked && strcmp(asked, sections[i].status))
			continue;
		ask.listing = sections[i].status;
		json_t *list = game_list(req->app, &ask, &err), *rows;
		if (!list) {
			json_decref(out);
			return http_reply_error(req, res, err.code, err.message);
		}
		/* The API's entries as they are: the template reads the fields it shows. */
		rows = json_object_get(list, "games");
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:b, s:O, s:o, s:b}", "status", sections[i].status,
			"heading", sections[i].heading, "none", sections[i].none, "any", json_array_size(rows) > 0, "games", rows,
			"older", older_link(&ask, sections[i].status, limit, json_object_get(list, "next_cursor")),
			"earlier", *ask.before_id != 0));
		json_decref(list);
	}
	ask.listing = asked;
	page_render(req, res, 200, "games.html", json_pack("{s:s, s:o, s:o}", "title", "Games",
		"sections", out, "filters", filters_model(&ask)));
}
