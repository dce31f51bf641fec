/* record.h - a game's record as text (docs/record.md): tag pairs, then every ply with its rolls. */
#ifndef ROOKERY_RECORD_H
#define ROOKERY_RECORD_H

#include "game/game.h"

#include <stddef.h>

/*
 * The record of g as any spectator may see it, in the format docs/record.md
 * describes: the tag pairs (names, result, clock, dice commitment, and the
 * seed once the game is over), then one line per ply (a secret move not yet
 * revealed written as {hidden}), the seats' resignations and draw offers
 * where they happened, and the result. Reads the moves page by page and the
 * actions through app_db(a). Returns the malloc'd UTF-8 text with *len its
 * length, or NULL with err filled when the moves cannot be read.
 */
char *record_text(app *a, const game_loaded *g, size_t *len, app_error *err);

#endif
