/* board_look.h - how a drawn board looks wherever it is drawn: square and piece colours, piece names, the position in words. */
#ifndef ROOKERY_BOARD_LOOK_H
#define ROOKERY_BOARD_LOOK_H

#include "rules.h"

#include <jansson.h>

/*
 * The colours are those templates/style.css gives the game page's board
 * (svg.board ...): drawings that cannot use the stylesheet (a standalone
 * image, the HTML part of a mail) write them inline from here. Change both
 * together; the board_svg test compares them.
 */
#define BOARD_PAPER "#fbf8f1"
#define BOARD_INK "#1d1b18"
#define BOARD_MUTED "#6b665e"
#define BOARD_WALL "#3b3126"

/* How a square is painted: its fill and its outline. */
typedef struct board_square_paint {
	const char *fill, *stroke;
	double stroke_width;
} board_square_paint;

/* How a piece is painted: its disc, the disc's outline (dashed for a shared piece) and its letters. */
typedef struct board_piece_paint {
	const char *fill, *stroke, *glyph;
	double stroke_width;
	int dashed;
} board_piece_paint;

/* The class a cell's kind is drawn with: its kind ("river", "off"...), or "plain". */
const char *board_cell_kind(const rules_cell *cell);

/* "light" or "dark": the shade of the cell at row r, column c of the drawn grid. */
const char *board_cell_shade(int r, int c);

/* The paint of a square of kind and shade (as named above); last: one of the last move's squares. */
board_square_paint board_square_look(const char *kind, const char *shade, int last);

/* The side a piece is drawn in: its owner's seat name, "shared", "neutral" (a neutral army's), or
 * "none" (no owner). */
const char *board_piece_side(const rules_game *rules, const rules_cell *cell);

/* The paint of a piece of side (a seat name, "shared", "neutral" or "none"). */
board_piece_paint board_piece_look(const char *side);

/* What a piece is, for titles: "South's C" or "C shared by East and West" (malloc'd). */
char *board_piece_title(const rules_game *rules, const rules_cell *cell);

/*
 * The position of v in words, the board's text alternative wherever it is
 * drawn (malloc'd): each army's pieces by their names in the game's legend,
 * with their squares, then the shared pieces, those of no side (or of a
 * neutral army: "neutral: King n2") and those
 * held off the board: "South: Chariot 9 1, Knight 9 2; North: ...; shared
 * by East and West: Pawn b2; in South's prison: Knight." or "No pieces on
 * the board."
 */
char *board_words(const rules_game *rules, const rules_view *v);
/* The same, as a JSON string for a template's model. */
json_t *board_words_json(const rules_game *rules, const rules_view *v);

#endif
