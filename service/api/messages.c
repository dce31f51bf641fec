/* messages.c - the JSON API of messages between seats: send one, read those a seat may read. */
#include "api/api.h"
#include "core/errors.h"
#include "core/limits.h"
#include "game/game.h"
#include "pipeline/pipeline.h"

#include <stdlib.h>

json_t *api_message_json(const rules_game *rules, long long seq, int from, int to, const char *text,
			 const char *channel, const char *at)
{
	return json_pack("{s:I, s:s, s:o, s:s, s:s, s:s}", "seq", (json_int_t)seq, "from", rules->seat_names[from],
			 "to", to >= 0 ? json_string(rules->seat_names[to]) : json_null(), "text", text,
			 "channel", channel, "at", at);
}

int api_message_field(const json_t *field, const char **text, const char **to, app_error *err)
{
	json_error_t je;
	json_t *jto = NULL;

	*text = *to = NULL;
	if (!field || json_is_null(field))
		return 0;
	if (json_is_string(field)) {
		*text = json_string_value(field);
		return 0;
	}
	if (json_unpack_ex((json_t *)field, &je, JSON_STRICT, "{s:s, s?o}", "text", text, "to", &jto) ||
	    (jto && !json_is_null(jto) && !json_is_string(jto)))
		return app_fail(err, E_BAD_REQUEST, "a message is {\"text\": string, \"to\": null or a seat name}");
	*to = json_string_value(jto);
	return 0;
}

void api_post_message(http_request *req, http_response *res)
{
	app_error err = {0};
	json_t *body;
	const char *text, *to;
	game_message m;

	if (http_json_body(req, &body, &err))
		return http_reply_error(req, res, err.code, err.message);
	if (api_message_field(body, &text, &to, &err) || !text)
		app_fail(&err, E_BAD_REQUEST, "expected {\"text\": string, \"to\": null or a seat name}");
	else if (!game_send_message(req->app, req->params[0], req->auth_seat, text, to, "api", &m, &err)) {
		http_reply_json(res, 201, api_message_json(m.rules, m.seq, m.from, m.to, m.text, m.channel, m.at));
		game_message_clear(&m);
	}
	json_decref(body);
	if (err.code)
		http_reply_error(req, res, err.code, err.message);
}

void api_get_messages(http_request *req, http_response *res)
{
	app_error err;
	game_loaded g;
	db_message *v;
	db_error de;
	size_t n;
	int from, limit;

	if (http_page_query(req, &from, &limit, &err) || game_load(req->app, req->params[0], &g, &err))
		return http_reply_error(req, res, err.code, err.message);
	/* One more than the page: whether there is a next one. */
	if (db_messages_for(app_db(req->app), g.rec->id, req->auth_seat, from, limit + 1, 0, &v, &n, &de)) {
		game_loaded_free(&g);
		return http_reply_error(req, res, E_INTERNAL, "cannot read the messages");
	}
	json_t *list = json_array();
	for (size_t i = 0; i < n && i < (size_t)limit; i++)
		json_array_append_new(list, api_message_json(g.rules, v[i].seq, v[i].from_seat, v[i].to_seat,
							     v[i].text, v[i].channel, v[i].at));
	http_reply_json(res, 200, json_pack("{s:s, s:s, s:o, s:i, s:i, s:o}", "game", g.rec->id,
		"seat", g.rules->seat_names[req->auth_seat], "messages", list, "from", from, "limit", limit,
		"next", n > (size_t)limit ? json_integer(v[limit].seq) : json_null()));
	db_messages_free(v, n);
	game_loaded_free(&g);
}
