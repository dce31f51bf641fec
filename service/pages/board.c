/* board.c - the drawn board: every cell, piece, wall, label and hand placed for the game page's SVG. */
#include "pages/board.h"
#include "game/board_look.h"
#include "xalloc.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Geometry, in SVG user units: a square cell is UNIT wide; MARGIN leaves
 * room for the coordinates. Brick boards (hexagonal cells, pointy top) keep
 * the cell UNIT wide, so a hexagon is UNIT * 2/sqrt(3) tall and rows are
 * three quarters of that apart.
 */
#define UNIT 40.0
#define MARGIN 22.0
#define HEX_HEIGHT (UNIT * 1.1547005)
#define HEX_ROW (HEX_HEIGHT * 0.75)
#define HAND_ROW 34.0

static const char SQUARE_SHAPE[] = "-20,-20 20,-20 20,20 -20,20";

static char *hex_shape(void)
{
	double h = HEX_HEIGHT / 2, q = HEX_HEIGHT / 4, w = UNIT / 2;
	return xasprintf("0,%.2f %.2f,%.2f %.2f,%.2f 0,%.2f %.2f,%.2f %.2f,%.2f",
			 -h, w, -q, w, q, h, -w, q, -w, -q);
}

/* The outline of the walled sides of a square cell, as path data (walls are drawn on square boards only). */
static char *wall_path(unsigned walls)
{
	static const char *const side[] = {"M-20,-20H20", "M20,-20V20", "M-20,20H20", "M-20,-20V20"};
	char d[64] = "";

	for (int k = 0; k < 4; k++)
		if (walls & (1u << k))
			strcat(d, side[k]);
	return xstrdup(d);
}

static int in_list(json_t *list, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* The prisoners of an anchored holding as they fit on their cell: "s n c +2". */
static char *held_text(const rules_holding *hd)
{
	char out[64] = "";
	int shown = hd->npieces > 4 ? 3 : hd->npieces;

	for (int i = 0; i < shown; i++) {
		strcat(out, hd->pieces[hd->npieces - 1 - i]);  /* newest first: the next released */
		strcat(out, " ");
	}
	if (shown < hd->npieces)
		snprintf(out + strlen(out), sizeof out - strlen(out), "+%d ", hd->npieces - shown);
	out[strlen(out) - 1] = 0;
	return xstrdup(out);
}

static json_t *cell_model(const game_loaded *g, const rules_view *v, int r, int c, double x, double y,
			  const char *shape, json_t *last_places)
{
	const rules_cell *cell = &v->cell[r][c];
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:b}",
		"square", cell->name, "kind", board_cell_kind(cell), "shade", board_cell_shade(r, c), "r", r, "c", c,
		"shape", shape, "transform", "", "last", in_list(last_places, cell->name));
	char *transform = xasprintf("translate(%.2f %.2f)", x, y);
	json_object_set_new(o, "transform", json_string(transform));
	free(transform);
	if (cell->walls && !v->brick) {
		char *d = wall_path(cell->walls);
		json_object_set_new(o, "walls", json_string(d));
		free(d);
	}
	if (v->brick)
		json_object_set_new(o, "label", json_string(cell->name));
	if (cell->piece[0]) {
		char *title = board_piece_title(g->rules, cell);
		json_t *p = json_pack("{s:s, s:s, s:s, s:b}", "letter", cell->piece, "side", board_piece_side(g->rules, cell),
			"title", title, "long", strlen(cell->piece) > 2);
		free(title);
		if (v->has_facing && cell->facing >= 0) {
			char *rot = xasprintf("rotate(%d)", 90 * (cell->facing & 3));
			json_object_set_new(p, "facing", json_string(rot));
			free(rot);
		}
		json_object_set_new(o, "piece", p);
	}
	for (int h = 0; h < v->nholdings; h++)
		if (v->holding[h].row == r && v->holding[h].col == c && v->holding[h].npieces) {
			char *held = held_text(&v->holding[h]);
			json_object_set_new(o, "held", json_string(held));
			json_object_set_new(o, "held_side", json_string(g->rules->seat_names[v->holding[h].owner]));
			GString *all = g_string_new(NULL);
			for (int i = 0; i < v->holding[h].npieces; i++)
				g_string_append_printf(all, "%s%s", i ? " " : "", v->holding[h].pieces[i]);
			json_object_set_new(o, "held_all", json_string(all->str));
			g_string_free(all, TRUE);
			free(held);
		}
	return o;
}

/* A coordinate's text at (x, y), its middle there. */
static json_t *label(double x, double y, const char *text)
{
	char xs[16], ys[16];

	snprintf(xs, sizeof xs, "%.2f", x);
	snprintf(ys, sizeof ys, "%.2f", y);
	return json_pack("{s:s, s:s, s:s}", "x", xs, "y", ys, "text", text);
}

/*
 * Hands (holdings without a square) as rows of pieces: the viewer's below
 * the board, the others above. Each piece carries the place "@h:P" its drop
 * gesture names. *y is where the rows start, and afterwards where the next thing goes.
 */
static void hand_rows(const game_loaded *g, const rules_view *v, int seat, int below, double width,
		      double *y, json_t *hands)
{
	int per_row = (int)((width - 2 * MARGIN - 90) / (UNIT * 0.9));

	if (per_row < 4)
		per_row = 4;
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		int mine = hd->owner == (seat >= 0 ? seat : 0);
		if (hd->row >= 0 || mine != below)
			continue;
		json_t *pieces = json_array();
		int nrows = hd->npieces ? (hd->npieces + per_row - 1) / per_row : 1;
		for (int i = 0; i < hd->npieces; i++) {
			char touch[24];
			snprintf(touch, sizeof touch, "@%d:%s", h, hd->pieces[i]);
			json_array_append_new(pieces, json_pack("{s:s, s:s, s:s, s:b, s:s}",
				"letter", hd->pieces[i], "touch", touch,
				"side", g->rules->seat_names[hd->owner], "long", strlen(hd->pieces[i]) > 2,
				"transform", ""));
			char *tr = xasprintf("translate(%.2f %.2f)", MARGIN + 90 + (i % per_row + 0.5) * UNIT * 0.9,
					     *y + (i / per_row + 0.5) * HAND_ROW);
			json_object_set_new(json_array_get(pieces, (size_t)i), "transform", json_string(tr));
			free(tr);
		}
		json_t *hand = label(MARGIN, *y + HAND_ROW / 2, hd->name);
		json_object_set_new(hand, "name", json_string(hd->name));
		json_object_set_new(hand, "side", json_string(g->rules->seat_names[hd->owner]));
		json_object_set_new(hand, "pieces", pieces);
		json_object_set_new(hand, "empty", json_boolean(hd->npieces == 0));
		json_array_append_new(hands, hand);
		*y += nrows * HAND_ROW + 4;
	}
}

json_t *board_svg(const game_loaded *g, int seat, const rules_view *v, json_t *last_places)
{
	json_t *cells = json_array(), *labels = json_array(), *hands = json_array();
	double width = 2 * MARGIN + v->cols * UNIT, y = 4, top, height;
	char *hex = v->brick ? hex_shape() : NULL;
	const char *shape = hex ? hex : SQUARE_SHAPE;

	hand_rows(g, v, seat, 0, width, &y, hands);
	top = y + MARGIN;
	for (int r = 0; r < v->rows; r++) {
		double cy = v->brick ? top + r * HEX_ROW + HEX_HEIGHT / 2 : top + (r + 0.5) * UNIT;
		int used = 0, i = 0;
		for (int c = 0; c < v->cols; c++)
			used += strcmp(v->cell[r][c].kind, "off") != 0;
		for (int c = 0; c < v->cols; c++) {
			if (!strcmp(v->cell[r][c].kind, "off"))
				continue;
			/* Brick rows are centred by their length; square boards keep their columns. */
			double cx = MARGIN + (v->brick ? ((v->cols - used) / 2.0 + i + 0.5) : c + 0.5) * UNIT;
			json_array_append_new(cells, cell_model(g, v, r, c, cx, cy, shape, last_places));
			i++;
		}
		json_array_append_new(labels, label(MARGIN / 2, cy, v->row_label[r]));
		if (!v->brick)
			json_array_append_new(labels, label(width - MARGIN / 2, cy, v->row_label[r]));
	}
	height = v->brick ? (v->rows - 1) * HEX_ROW + HEX_HEIGHT : v->rows * UNIT;
	if (!v->brick)
		for (int c = 0; c < v->cols; c++) {
			double cx = MARGIN + (c + 0.5) * UNIT;
			json_array_append_new(labels, label(cx, top - MARGIN / 2, v->col_label[c]));
			json_array_append_new(labels, label(cx, top + height + MARGIN / 2, v->col_label[c]));
		}
	y = top + height + MARGIN + 4;
	hand_rows(g, v, seat, 1, width, &y, hands);
	char *box = xasprintf("0 0 %d %d", (int)width, (int)y + 1);
	json_t *out = json_pack("{s:s, s:o, s:o, s:o, s:b, s:i, s:o}", "viewbox", box, "cells", cells,
				"labels", labels, "hands", hands, "has_hands", json_array_size(hands) > 0,
				"width", (int)width, "alt", board_words_json(g->rules, v));
	free(box);
	free(hex);
	return out;
}
