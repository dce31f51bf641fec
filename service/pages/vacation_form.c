/* vacation_form.c - the vacation form of the seat page and of "my games": its model and its action. */
#include "core/errors.h"
#include "core/limits.h"
#include "core/token.h"
#include "game/clock.h"
#include "game/game.h"
#include "game/vacation.h"
#include "pages/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "2026-11-28 00:00 UTC" for an ISO 8601 time of vacation_view. */
static json_t *when_text(json_t *iso)
{
	const char *s = json_string_value(iso);

	return json_sprintf("%.10s %.5s UTC", s ? s : "", s && strlen(s) > 16 ? s + 11 : "");
}

json_t *page_vacation_model(app *a, const char *game_id, const char *token, const char *player)
{
	long long now = (long long)time(NULL);
	char csrf[FORM_TOKEN_TEXT], today[32];
	app_error err;
	json_t *v = vacation_view(a, player, now, &err), *item;
	size_t i;

	if (!v)
		return json_null();
	json_array_foreach(json_object_get(v, "vacations"), i, item) {
		json_object_set_new(item, "from_text", when_text(json_object_get(item, "from")));
		json_object_set_new(item, "until_text", when_text(json_object_get(item, "until")));
		json_int_t days = json_integer_value(json_object_get(item, "days"));
		json_object_set_new(item, "days_text", json_sprintf("%d day%s", (int)days, days == 1 ? "" : "s"));
	}
	token_form(a->form_key, token, csrf);
	clock_iso(now, today);
	today[10] = 0;
	json_object_set_new(v, "has_vacations", json_boolean(json_array_size(json_object_get(v, "vacations")) > 0));
	json_object_set_new(v, "game", json_string(game_id));
	json_object_set_new(v, "token", json_string(token));
	json_object_set_new(v, "csrf", json_string(csrf));
	json_object_set_new(v, "today", json_string(today));
	json_object_set_new(v, "max_days", json_integer(LIMIT_VACATION_DAYS_MAX));
	return v;
}

int page_vacation_act(app *a, const char *game_id, int seat, const char *end, const char *days, const char *from,
		      const char *to, app_error *err)
{
	char player[VACATION_PLAYER_TEXT], *rest;
	long long now = (long long)time(NULL), n = 0, start, until;
	int returned;

	if (days && *days) {
		n = strtoll(days, &rest, 10);
		if (*rest || n < 1)
			return app_fail(err, E_BAD_VACATION, "days must be a whole number of days, at least 1");
	}
	if (vacation_player_of_seat(a, game_id, seat, player, sizeof player, err))
		return err->code;
	if (end && !strcmp(end, "yes"))
		return vacation_end(a, player, now, &returned, err);
	if (vacation_span(n, from && *from ? from : NULL, to && *to ? to : NULL, now, &start, &until, err))
		return err->code;
	return vacation_take(a, player, start, until, now, err);
}
