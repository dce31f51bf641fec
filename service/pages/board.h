/* board.h - the drawn board of the game page, as a model for its SVG template. */
#ifndef ROOKERY_BOARD_H
#define ROOKERY_BOARD_H

#include "game/game.h"

#include <jansson.h>

/*
 * The SVG model of v, the board as seat (or -1) sees it, already turned to
 * their side: "viewbox"; "cells" (each with "square", "kind", "shade", "r",
 * "c", "transform" to its centre, "shape" polygon points, "last" when
 * last_places names it, optional "walls" path, "label", "piece" {letter,
 * side, title, long, facing}, "held" prisoners as they fit on the cell,
 * "held_all" every one of them, oldest first, "held_side"); "labels" (coordinates:
 * x, y, text); "hands" (holdings without a square: name, side, x, y,
 * pieces {letter, touch, side, transform}), the viewer's below the board;
 * "alt": the position in words, each army's pieces with their squares
 * ("South: Chariot a1, Knight b1; North: ..."), the board's text alternative.
 * last_places is a JSON array of square names (borrowed).
 */
json_t *board_svg(const game_loaded *g, int seat, const rules_view *v, json_t *last_places);

/*
 * The board of g as a standalone SVG image (malloc'd): what anyone may see
 * of g->pos (the position after ply), turned to side's edge, drawn as the
 * game page draws it (board_svg) with the page's colours written inline,
 * a title and, as its description, the position in words. last_places:
 * the squares to outline (borrowed, may be NULL).
 */
char *board_image_svg(const game_loaded *g, int side, int ply, json_t *last_places);

#endif
