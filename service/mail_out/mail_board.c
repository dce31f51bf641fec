/* mail_board.c - the board as an HTML table with inline colours, for the HTML part of mails. */
#include "mail_out/mail_board.h"
#include "game/board_look.h"
#include "game/view.h"
#include "xalloc.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static void esc(GString *out, const char *s)
{
	char *e = g_markup_escape_text(s, -1);
	g_string_append(out, e);
	g_free(e);
}

/* A coordinate's cell, at the board's edge. */
static void label_cell(GString *out, const char *text)
{
	g_string_append(out, "<th style=\"color:" BOARD_MUTED ";font-weight:normal;font-size:11px;padding:1px 3px\">");
	esc(out, text);
	g_string_append(out, "</th>");
}

static void square_cell(GString *out, const rules_game *rules, const rules_view *v, int r, int c)
{
	static const char *const sides[] = {"top", "right", "bottom", "left"};
	const rules_cell *cell = &v->cell[r][c];
	board_square_paint p = board_square_look(board_cell_kind(cell), board_cell_shade(r, c), 0);

	if (!strcmp(cell->kind, "off")) {
		g_string_append(out, "<td></td>");
		return;
	}
	/* The table centres the letters; walls are the sides drawn thick. */
	g_string_append_printf(out, "<td style=\"width:30px;height:30px;padding:0;background:%s;border:%dpx solid %s",
			       p.fill, p.stroke_width > 1 ? 2 : 1, p.stroke);
	for (int k = 0; k < 4; k++)
		if (!v->brick && (cell->walls >> k) & 1)
			g_string_append_printf(out, ";border-%s:3px solid " BOARD_WALL, sides[k]);
	g_string_append(out, "\" data-square=\"");
	esc(out, cell->name);
	g_string_append(out, "\" title=\"");
	esc(out, cell->name);
	if (cell->piece[0]) {
		const char *side = board_piece_side(rules, cell);
		board_piece_paint pp = board_piece_look(side);
		char *title = board_piece_title(rules, cell);
		g_string_append(out, ": ");
		esc(out, title);
		free(title);
		g_string_append(out, "\" data-piece=\"");
		esc(out, cell->piece);
		g_string_append(out, "\" data-side=\"");
		esc(out, side);
		g_string_append_printf(out, "\"><span style=\"display:inline-block;min-width:22px;height:22px;line-height:22px;"
				       "border-radius:11px;background:%s;color:%s;border:1px %s %s;font-weight:bold;"
				       "font-size:%dpx\">", pp.fill, pp.glyph, pp.dashed ? "dashed" : "solid",
				       strcmp(pp.stroke, "none") ? pp.stroke : pp.fill, strlen(cell->piece) > 2 ? 10 : 14);
		esc(out, cell->piece);
		g_string_append(out, "</span>");
	} else {
		g_string_append(out, "\">");
	}
	for (int h = 0; h < v->nholdings; h++)
		if (v->holding[h].row == r && v->holding[h].col == c && v->holding[h].npieces) {
			g_string_append(out, "<div style=\"font-size:9px;font-weight:bold;color:" BOARD_INK "\">");
			for (int i = 0; i < v->holding[h].npieces; i++) {
				g_string_append(out, i ? " " : "");
				esc(out, v->holding[h].pieces[i]);
			}
			g_string_append(out, "</div>");
		}
	g_string_append(out, "</td>");
}

static void column_labels(GString *out, const rules_view *v)
{
	g_string_append(out, "<tr><td></td>");
	for (int c = 0; c < v->cols; c++)
		label_cell(out, v->brick ? "" : v->col_label[c]);
	g_string_append(out, "<td></td></tr>\n");
}

char *mail_board_html(const game_loaded *g, int seat)
{
	rules_view *v = xmalloc(sizeof *v);
	GString *out = g_string_new(NULL);

	view_oriented(g, seat, v);
	char *words = board_words(g->rules, v);
	g_string_append_printf(out, "<table style=\"border-collapse:collapse;font-family:monospace;text-align:center;background:" BOARD_PAPER
			       ";color:" BOARD_INK ";margin:0.5em 0\" aria-label=\"The board, seen from %s's side: ",
			       g->rules->seat_names[seat >= 0 ? seat : 0]);
	esc(out, words);
	g_string_append(out, "\">\n");
	column_labels(out, v);
	for (int r = 0; r < v->rows; r++) {
		g_string_append(out, "<tr>");
		label_cell(out, v->row_label[r]);
		for (int c = 0; c < v->cols; c++)
			square_cell(out, g->rules, v, r, c);
		label_cell(out, v->row_label[r]);
		g_string_append(out, "</tr>\n");
	}
	column_labels(out, v);
	g_string_append(out, "</table>\n");
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		if (hd->row >= 0)
			continue;
		g_string_append(out, "<p style=\"margin:0.2em 0\">");
		esc(out, hd->name);
		g_string_append(out, ": ");
		for (int i = 0; i < hd->npieces; i++) {
			g_string_append(out, i ? " " : "");
			esc(out, hd->pieces[i]);
		}
		g_string_append(out, hd->npieces ? "</p>\n" : "empty</p>\n");
	}
	free(words);
	free(v);
	char *s = xstrdup(out->str);
	g_string_free(out, TRUE);
	return s;
}
