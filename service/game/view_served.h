/* view_served.h - a game's answers as they are served: views from the cache, the clock made at serve time, the tags that name them. */
#ifndef ROOKERY_VIEW_SERVED_H
#define ROOKERY_VIEW_SERVED_H

#include "core/app.h"
#include "core/errors.h"
#include "game/game.h"

#include <jansson.h>
#include <stddef.h>

#define VIEW_TAG_TEXT 96   /* an entity tag with its quotes and NUL */

/* What a page tag names: a page of a game's moves or of its dice record, or its whole text record (from and limit 0). */
enum view_page_kind { VIEW_PAGE_MOVES, VIEW_PAGE_DICE, VIEW_PAGE_RECORD };

/*
 * A tag names one body: it holds a mark of this run of the server (another
 * build may write another body for the same version), the game's version,
 * the viewer (the public, or which seat) and whatever else the body
 * depends on. Tags are written quoted, as HTTP sends them.
 */

/* The game's version alone, one indexed read: 0, or E_NOT_FOUND or a storage error. */
int view_version(app *a, const char *id, long long *version, app_error *err);

/* The tag of page (from, limit) of kind of a game at version as viewer (a seat, or -1) sees it. */
void view_page_tag(long long version, enum view_page_kind kind, int viewer, int from, int limit,
		   char tag[VIEW_TAG_TEXT]);

/*
 * The tag of a game's board image at ply as drawn for side: with version >= 0
 * for the image of the game as it stands (no ply asked for); with version -1
 * for a ply asked for, whose image never changes (the moves of a game are
 * never rewritten), the same for as long as the server runs.
 */
void view_board_tag(long long version, int ply, int side, char tag[VIEW_TAG_TEXT]);

/* Whether the client holds the body a tag names already (an If-None-Match naming it). */
typedef int (*view_held_fn)(void *ctx, const char *tag);

typedef struct view_served {
	char tag[VIEW_TAG_TEXT];
	long long version;
	char *text;       /* the game JSON (malloc'd), or NULL when the client holds it */
	size_t len;
} view_served;

/*
 * The game JSON (view_game) of game id as viewer (a seat, or -1) sees it
 * now, and its tag, which also names the clock's time-dependent values at
 * now. The version is read first and the tag made from it (and the clock,
 * one more indexed read when the cache does not hold the view): when
 * held(ctx, tag) says the client has it, nothing more is read or made and
 * out->text is NULL. held is NULL when the client holds nothing (no
 * If-None-Match): the clock is then not read apart from the game. Else the view comes from a->views, or is made and
 * kept there when the thread reads committed data (app_reading). 0, or
 * an app_code with err filled.
 */
int view_serve_game(app *a, const char *id, int viewer, view_held_fn held, void *ctx, view_served *out,
		    app_error *err);

/*
 * view_game of a loaded game, its part without the clock from a->views when
 * it holds the view of g's version for viewer, else made (and kept when the
 * thread reads committed data); the clock made now.
 */
json_t *view_game_cached(app *a, const game_loaded *g, int viewer);

#endif
