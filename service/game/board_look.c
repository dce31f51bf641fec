/* board_look.c - the board's colours (templates/style.css's, for drawings without it), piece names and the position in words. */
#include "game/board_look.h"
#include "xalloc.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* The squares: svg.board .sq.<kind> polygon in style.css (prisons and the Capital have their own outline). */
static const struct {
	const char *kind, *fill, *stroke;
	double width;
} squares[] = {
	{"river", "#cfe3ef", NULL, 0}, {"prison", "#e8dcc6", "#b89b66", 2}, {"fortress", "#e6dcc9", NULL, 0},
	{"capital", "#f0d78c", "#b8912e", 2}, {"lane", "#efe9dc", NULL, 0}, {"mountain", "#b9ad9a", NULL, 0},
	{"water", "#b8d5e6", NULL, 0}, {"open", "#ece7dc", NULL, 0}, {"hidden", "#ece7dc", NULL, 0},
};

/* The pieces: svg.board .pc.side-<side> circle, and the glyph's colour. */
static const struct {
	const char *side, *fill, *stroke, *glyph;
} pieces[] = {
	{"South", "#1f3f8a", "#0d2255", "#fff"}, {"North", "#8a1f2b", "#55101a", "#fff"},
	{"East", "#1d6b3a", "#0d3d20", "#fff"}, {"West", "#6b3a8a", "#3d1f52", "#fff"},
	{"White", "#fffdf7", "#2b2b2b", BOARD_INK}, {"Black", "#2b2622", "#000", "#fff"},
	{"shared", "#f3d98a", "#8a5a00", BOARD_INK},
};

const char *board_cell_kind(const rules_cell *cell)
{
	return *cell->kind ? cell->kind : "plain";
}

const char *board_cell_shade(int r, int c)
{
	return (r + c) % 2 ? "dark" : "light";
}

board_square_paint board_square_look(const char *kind, const char *shade, int last)
{
	board_square_paint p = {strcmp(shade, "dark") ? "#efe6d2" : "#e2d5b9", "#d8d0c0", 1};

	for (size_t i = 0; i < sizeof squares / sizeof squares[0]; i++)
		if (!strcmp(kind, squares[i].kind)) {
			p.fill = squares[i].fill;
			if (squares[i].stroke)
				p.stroke = squares[i].stroke, p.stroke_width = squares[i].width;
		}
	if (last)
		p.stroke = "#7a3b12", p.stroke_width = 3;
	return p;
}

const char *board_piece_side(const rules_game *rules, const rules_cell *cell)
{
	return cell->controllers ? "shared" : cell->owner >= 0 ? rules->seat_names[cell->owner] : "none";
}

board_piece_paint board_piece_look(const char *side)
{
	/* A piece of no side has no rule of its own: SVG's black disc with the white letter. */
	board_piece_paint p = {"#000", "none", "#fff", 1.5, 0};

	for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
		if (!strcmp(side, pieces[i].side))
			p = (board_piece_paint){pieces[i].fill, pieces[i].stroke, pieces[i].glyph, 1.5, 0};
	if (!strcmp(side, "shared"))
		p.stroke_width = 2, p.dashed = 1;
	return p;
}

char *board_piece_title(const rules_game *rules, const rules_cell *cell)
{
	if (cell->controllers) {
		GString *t = g_string_new(NULL);
		int k = 0;
		g_string_append_printf(t, "%s shared by ", cell->piece);
		for (int i = 0; i < rules->nseats; i++)
			if (cell->controllers & (1u << i))
				g_string_append_printf(t, "%s%s", k++ ? " and " : "", rules->seat_names[i]);
		char *out = xstrdup(t->str);
		g_string_free(t, TRUE);
		return out;
	}
	if (cell->owner >= 0)
		return xasprintf("%s %s", rules->seat_names[cell->owner], cell->piece);
	return xstrdup(cell->piece);
}

/* Append "P sq, P sq." for the pieces on v drawn in side (nothing when there are none). */
static void side_words(GString *t, const rules_game *rules, const rules_view *v, const char *side)
{
	int n = 0;

	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			const rules_cell *cell = &v->cell[r][c];
			if (!cell->piece[0] || strcmp(board_piece_side(rules, cell), side))
				continue;
			g_string_append_printf(t, "%s%s %s", n++ ? ", " : "", cell->piece, cell->name);
			if (cell->controllers) {
				char *title = board_piece_title(rules, cell);
				g_string_append_printf(t, " (%s)", title + strlen(cell->piece) + 1);
				free(title);
			}
		}
	if (n)
		g_string_append_c(t, '.');
}

char *board_words(const rules_game *rules, const rules_view *v)
{
	GString *t = g_string_new(NULL);

	for (int i = 0; i <= rules->nseats + 1; i++) {
		const char *side = i < rules->nseats ? rules->seat_names[i] : i == rules->nseats ? "shared" : "none";
		GString *part = g_string_new(NULL);
		side_words(part, rules, v, side);
		if (part->len)
			g_string_append_printf(t, "%s%s: %s", t->len ? " " : "",
					       i < rules->nseats ? side : i == rules->nseats ? "Shared" : "Other pieces",
					       part->str);
		g_string_free(part, TRUE);
	}
	if (!t->len)
		g_string_append(t, "No pieces on the board.");
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		if (!hd->npieces)
			continue;
		g_string_append_printf(t, " %s:", hd->name);
		for (int i = 0; i < hd->npieces; i++)
			g_string_append_printf(t, " %s", hd->pieces[i]);
		g_string_append_c(t, '.');
	}
	char *out = xstrdup(t->str);
	g_string_free(t, TRUE);
	return out;
}
