/* game_list.c - the lists of games anyone may read, a page at a time behind an opaque cursor. */
#include "game/game_list.h"
#include "core/limits.h"
#include "core/links.h"
#include "core/text.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A cursor is the last row of a page, its created_at and id joined by a dot,
 * in URL-safe base64 without padding: opaque to clients, and read back only
 * when it is exactly what cursor_write would make of a well-formed row.
 */
#define CURSOR_RAW_MAX (GAME_LIST_TIME_TEXT + DB_GAME_ID_TEXT)

static void cursor_write(const char *created_at, const char *id, char *out, size_t size)
{
	char raw[CURSOR_RAW_MAX];
	int len = snprintf(raw, sizeof raw, "%s.%s", created_at, id);

	sodium_bin2base64(out, size, (const unsigned char *)raw, (size_t)len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

/* "2026-01-31T12:00:00Z", the way the games' times are written (utc_now). */
static int time_well_formed(const char *t, size_t len)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";

	if (len != sizeof shape - 1)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (shape[i] == 'd' ? t[i] < '0' || t[i] > '9' : t[i] != shape[i])
			return 0;
	return 1;
}

static int cursor_read(const char *cursor, game_list_ask *ask)
{
	unsigned char raw[CURSOR_RAW_MAX];
	char again[GAME_LIST_CURSOR_MAX + 1];
	size_t len, n = strlen(cursor), idlen;
	const char *end;

	if (n == 0 || n > GAME_LIST_CURSOR_MAX ||
	    sodium_base642bin(raw, sizeof raw - 1, cursor, n, NULL, &len, &end,
			      sodium_base64_VARIANT_URLSAFE_NO_PADDING) || end != cursor + n)
		return -1;
	raw[len] = 0;
	if (len < GAME_LIST_TIME_TEXT + 1 || !time_well_formed((const char *)raw, GAME_LIST_TIME_TEXT - 1) ||
	    raw[GAME_LIST_TIME_TEXT - 1] != '.')
		return -1;
	const char *id = (const char *)raw + GAME_LIST_TIME_TEXT;
	idlen = len - GAME_LIST_TIME_TEXT;
	if (idlen == 0 || idlen >= DB_GAME_ID_TEXT || strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789") != idlen)
		return -1;
	memcpy(ask->before_at, raw, GAME_LIST_TIME_TEXT - 1);
	ask->before_at[GAME_LIST_TIME_TEXT - 1] = 0;
	memcpy(ask->before_id, id, idlen + 1);
	/* One text per row: any other spelling of the same bytes is refused too. */
	cursor_write(ask->before_at, ask->before_id, again, sizeof again);
	return strcmp(again, cursor) ? -1 : 0;
}

int game_list_ask_read(const char *status, const char *variant, const char *limit, const char *cursor,
		       game_list_ask *ask, app_error *err)
{
	static const char *const listings[] = {"open", "active", "finished"};

	memset(ask, 0, sizeof *ask);
	ask->limit = LIMIT_GAME_LIST_DEFAULT;
	if (status) {
		for (size_t i = 0; i < sizeof listings / sizeof listings[0]; i++)
			if (!strcmp(status, listings[i]))
				ask->listing = listings[i];
		if (!ask->listing)
			return app_fail(err, E_BAD_REQUEST, "status must be open, active or finished");
	}
	if (variant && !(ask->variant = rules_find(variant, 0)))
		return app_fail(err, E_BAD_REQUEST, "there is no game called \"%.40s\" (see /api/variants)", variant);
	if (limit) {
		long long n;
		ask->limit = text_whole_number(limit, 3, &n) ? 0 : (int)n;
		if (ask->limit < 1 || ask->limit > LIMIT_GAME_LIST_MAX)
			return app_fail(err, E_BAD_REQUEST, "limit must be a whole number from 1 to %d", LIMIT_GAME_LIST_MAX);
	}
	if (cursor && cursor_read(cursor, ask))
		return app_fail(err, E_BAD_REQUEST, "cursor must be a next_cursor of an earlier page, as it was given");
	return 0;
}

static json_t *listed_json(app *a, const db_listed_game *g)
{
	const rules_game *rg = rules_find(g->variant, 0);
	json_t *seats = json_array();
	char *url = link_game(a, g->id);

	for (int i = 0; i < g->nseats; i++) {
		const db_listed_seat *s = &g->seats[i];
		const char *seat = rg && s->seat >= 0 && s->seat < rg->nseats ? rg->seat_names[s->seat] : "";
		json_array_append_new(seats, json_pack("{s:s, s:s, s:b}", "seat", seat, "name", s->name, "open", s->open));
	}
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:i, s:o, s:s, s:s, s:s}", "id", g->id, "variant", g->variant,
		"title", rg ? rg->title : g->variant, "status", g->listing, "seats", seats, "ply", g->ply,
		"result", g->listing && !strcmp(g->listing, "finished") && g->result ? json_string(g->result) : json_null(),
		"created_at", g->created_at, "updated_at", g->updated_at, "url", url);
	free(url);
	return o;
}

json_t *game_list(app *a, const game_list_ask *ask, app_error *err)
{
	db_listed_game *v;
	db_error de;
	size_t n;
	char cursor[GAME_LIST_CURSOR_MAX + 1];

	/* One more than the page: whether there is a next one. */
	if (db_games_listed(app_db(a), ask->listing, ask->variant ? ask->variant->id : NULL,
			    *ask->before_at ? ask->before_at : NULL, *ask->before_id ? ask->before_id : NULL,
			    ask->limit + 1, &v, &n, &de)) {
		app_fail(err, E_INTERNAL, "cannot read the list of games");
		return NULL;
	}
	json_t *games = json_array(), *next = json_null();
	for (size_t i = 0; i < n && i < (size_t)ask->limit; i++)
		json_array_append_new(games, listed_json(a, &v[i]));
	if (n > (size_t)ask->limit) {
		const db_listed_game *last = &v[ask->limit - 1];
		cursor_write(last->created_at, last->id, cursor, sizeof cursor);
		next = json_string(cursor);
	}
	db_listed_games_free(v, n);
	return json_pack("{s:o, s:o}", "games", games, "next_cursor", next);
}
