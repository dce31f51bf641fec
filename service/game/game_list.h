/* game_list.h - the lists of games anyone may read: open seats to take, games to watch, finished games. */
#ifndef ROOKERY_GAME_LIST_H
#define ROOKERY_GAME_LIST_H

#include "core/app.h"
#include "core/errors.h"
#include "db.h"
#include "rules.h"

#include <jansson.h>

#define GAME_LIST_TIME_TEXT 21    /* a created_at, "2026-01-31T12:00:00Z", and its NUL */
#define GAME_LIST_CURSOR_MAX 96   /* the longest cursor read: one of a time and a 32-character id is 71 */

/* Which games a list asks for: one page of them. */
typedef struct game_list_ask {
	const char *listing;          /* "open", "active", "finished", or NULL: every listed game */
	const rules_game *variant;    /* NULL: every variant */
	int limit;                    /* games a page, 1 to LIMIT_GAME_LIST_MAX */
	char before_at[GAME_LIST_TIME_TEXT];   /* the cursor's row (empty: from the newest) */
	char before_id[DB_GAME_ID_TEXT];
} game_list_ask;

/*
 * Read a list's parameters as a query gives them (each NULL when absent):
 * status open|active|finished, variant a game's id, limit 1 to
 * LIMIT_GAME_LIST_MAX (default LIMIT_GAME_LIST_DEFAULT) and cursor a
 * next_cursor of an earlier page, read strictly (a cursor not made here is
 * refused, never looked up). 0, or E_BAD_REQUEST saying which is wrong.
 */
int game_list_ask_read(const char *status, const char *variant, const char *limit, const char *cursor,
		       game_list_ask *ask, app_error *err);

/*
 * The page ask names, as GET /api/games answers it: {"games": [{"id",
 * "variant", "title", "status", "seats": [{"seat", "name", "open"}], "ply",
 * "result" (the summary, null until over), "created_at", "updated_at",
 * "url"}], "next_cursor": the cursor of the next page, or null at the end}.
 * Only what any spectator may see. New reference, or NULL with err.
 */
json_t *game_list(app *a, const game_list_ask *ask, app_error *err);

#endif
