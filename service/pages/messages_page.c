/* messages_page.c - the messages on a seat's game page: those it may read, and whom it may write to. */
#include "pages/game_page.h"
#include "core/limits.h"
#include "db.h"

#include <jansson.h>

json_t *page_messages_model(app *a, const game_loaded *g, int seat)
{
	db_message *v;
	db_error de;
	size_t n;
	json_t *list = json_array(), *to = json_array();

	/* A page that cannot read them shows none rather than failing: they are a link away in the API. */
	if (!db_messages_for(app_db(a), g->rec->id, seat, -1, LIMIT_PAGE_RECENT_MESSAGES, 0, &v, &n, &de)) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
				"from", g->rules->seat_names[v[i].from_seat], "from_name", g->rec->seats[v[i].from_seat].name,
				"to", v[i].to_seat >= 0 ? g->rules->seat_names[v[i].to_seat] : "",
				"text", v[i].text, "at", v[i].at, "mine", v[i].from_seat == seat ? "mine" : "theirs"));
		db_messages_free(v, n);
	}
	for (int i = 0; i < g->rules->nseats; i++)
		if (i != seat)
			json_array_append_new(to, json_string(g->rules->seat_names[i]));
	return json_pack("{s:o, s:b, s:o, s:i}", "list", list, "any", json_array_size(list) > 0, "to", to,
			 "max", LIMIT_MESSAGE_CHARS);
}
