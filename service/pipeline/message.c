/* message.c - messages between the seats of a game: checked, stored, and never a change of the game. */
#include "pipeline/pipeline.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/text.h"
#include "core/utc.h"
#include "pipeline/change.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The text as it is kept: line ends made line feeds, blank lines and spaces
 * around it dropped. NULL, with err, when it is empty, too long or holds a
 * control character other than a line end.
 */
static char *message_text(const char *text, app_error *err)
{
	size_t len = text ? strlen(text) : 0, n = 0, chars;
	char *out;

	if (len > 4 * (size_t)LIMIT_MESSAGE_BYTES) {
		app_fail(err, E_TOO_LARGE, "a message is at most %d bytes", LIMIT_MESSAGE_BYTES);
		return NULL;
	}
	out = xmalloc(len + 1);
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\r' && text[i + 1] == '\n')
			continue;
		out[n++] = text[i];
	}
	while (n > 0 && strchr(" \n", out[n - 1]))
		n--;
	out[n] = 0;
	size_t start = strspn(out, " \n");
	memmove(out, out + start, n - start + 1);
	n -= start;
	if (!n)
		app_fail(err, E_BAD_MESSAGE, "a message needs some text");
	else if (n > LIMIT_MESSAGE_BYTES)
		app_fail(err, E_TOO_LARGE, "a message is at most %d bytes", LIMIT_MESSAGE_BYTES);
	else if (!text_printable_lines(out, &chars))
		app_fail(err, E_BAD_MESSAGE, "a message is UTF-8 text without control characters (line breaks are kept)");
	else if (chars > LIMIT_MESSAGE_CHARS)
		app_fail(err, E_TOO_LARGE, "a message is at most %d characters", LIMIT_MESSAGE_CHARS);
	else
		return out;
	free(out);
	return NULL;
}

int message_check(const game_loaded *g, int seat, const char *text, const char *to, game_message *out,
		  app_error *err)
{
	memset(out, 0, sizeof *out);
	out->from = seat;
	out->to = -1;
	out->rules = g->rules;
	/* Messages go on after the end, but not before the start: the seats are not all there. */
	if (game_open(g))
		return game_check_running(g, err);
	if (to) {
		for (int i = 0; i < g->rules->nseats; i++)
			if (!strcasecmp(to, g->rules->seat_names[i]))
				out->to = i;
		if (out->to < 0)
			return app_fail(err, E_BAD_MESSAGE, "%s has no seat \"%.40s\"", g->rules->title, to);
		if (out->to == seat)
			return app_fail(err, E_BAD_MESSAGE, "a message goes to another seat, not to your own");
	}
	if (!(out->text = message_text(text, err)))
		return err ? err->code : E_BAD_MESSAGE;
	return 0;
}

int message_store(app *a, const game_loaded *g, game_message *m, const char *channel, app_error *err)
{
	db_error de;
	int sent;

	if (db_messages_last_hour(app_db(a), g->rec->id, m->from, &sent, &de))
		return app_storage_fail(err, &de);
	if (sent >= LIMIT_MESSAGES_PER_SEAT_HOUR)
		return app_fail(err, E_RATE_LIMITED, "a seat sends at most %d messages an hour",
				LIMIT_MESSAGES_PER_SEAT_HOUR);
	utc_now(m->at);
	snprintf(m->channel, sizeof m->channel, "%s", channel);
	if (db_message_add(app_db(a), g->rec->id, m->from, m->to, m->text, channel, m->at, &m->seq, &de))
		return app_storage_fail(err, &de);
	return 0;
}

void game_message_clear(game_message *m)
{
	free(m->text);
	m->text = NULL;
}

int game_send_message(app *a, const char *id, int seat, const char *text, const char *to, const char *channel,
		      game_message *out, app_error *err)
{
	game_loaded g = {0};
	db_error de;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	if (!(r = game_load(a, id, &g, err)) && !(r = message_check(&g, seat, text, to, out, err)) &&
	    !(r = message_store(a, &g, out, channel, err)) && db_commit(app_db(a), &de))
		r = app_storage_fail(err, &de);
	db_rollback(app_db(a));
	if (!r)
		log_event("game %s: %s sent message %lld via %s", id, g.rules->seat_names[seat], out->seq, channel);
	else
		game_message_clear(out);
	game_loaded_free(&g);
	return r;
}
