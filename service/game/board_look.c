/* board_look.c - the board's colours (templates/style.css's, for drawings without it), piece names and the position in words. */
#include "game/board_look.h"
#include "game/view.h"
#include "xalloc.h"

#include <glib.h>
#include <stdio.h>
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
	{"shared", "#f3d98a", "#8a5a00", BOARD_INK}, {"neutral", "#6e6a60", "#45423b", "#fff"},
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
	return cell->controllers ? "shared" : cell->owner >= 0 ? rules->seat_names[cell->owner]
		: cell->neutral ? "neutral" : "none";
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
	if (cell->neutral)
		return xasprintf("neutral %s", cell->piece);
	return xstrdup(cell->piece);
}

/*
 * A piece in words, from the game's legend ("K King, Q Queen, ..."): the word
 * after its letter, up to any note in brackets; a piece the legend does not
 * name (a compound of several letters) keeps its letters.
 */
static void piece_word(const rules_game *rules, const char *piece, char *out, size_t size)
{
	const char *l = rules->legend;

	snprintf(out, size, "%s", piece);
	if (!l || !piece[0] || piece[1])
		return;
	for (const char *item = l; item && *item && *item != ';'; item = strstr(item, ", ") ? strstr(item, ", ") + 2 : NULL) {
		if ((item[0] | 0x20) != (piece[0] | 0x20) || item[1] != ' ')
			continue;
		size_t n = strcspn(item + 2, ",;(");
		while (n && item[2 + n - 1] == ' ')
			n--;
		snprintf(out, size, "%.*s", (int)n, item + 2);
		return;
	}
}

/* "Chariot a1, Knight b1" of the pieces in cells that pick says belong to one group, appended to text. */
static void army_text(const rules_game *rules, const rules_view *v, int owner, unsigned controllers, GString *text)
{
	int n = 0;

	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			const rules_cell *cell = &v->cell[r][c];
			char word[48];
			if (!cell->piece[0] || cell->controllers != controllers || (!controllers && cell->owner != owner))
				continue;
			piece_word(rules, cell->piece, word, sizeof word);
			g_string_append_printf(text, "%s%s %s", n++ ? ", " : "", word, cell->name);
		}
}

char *board_words(const rules_game *rules, const rules_view *v)
{
	GString *text = g_string_new(NULL);
	unsigned shared[RULES_MAX_ROWS * RULES_MAX_COLS];
	int nshared = 0, unowned = 0, neutral = 0;

	for (int s = 0; s < rules->nseats; s++) {
		size_t at = text->len;
		g_string_append_printf(text, "%s%s: ", at ? "; " : "", rules->seat_names[s]);
		size_t head = text->len;
		army_text(rules, v, s, 0, text);
		if (text->len == head)
			g_string_truncate(text, at);
	}
	/* Shared pieces, by the seats sharing them; pieces of no seat. */
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			const rules_cell *cell = &v->cell[r][c];
			int seen = 0;
			unowned |= cell->piece[0] && !cell->controllers && cell->owner < 0;
			neutral |= cell->piece[0] && cell->neutral;
			for (int i = 0; i < nshared; i++)
				seen |= shared[i] == cell->controllers;
			if (cell->piece[0] && cell->controllers && !seen)
				shared[nshared++] = cell->controllers;
		}
	for (int i = 0; i < nshared; i++) {
		json_t *who = view_seat_list(rules, shared[i]);
		g_string_append_printf(text, "%sshared by", text->len ? "; " : "");
		for (size_t k = 0; k < json_array_size(who); k++)
			g_string_append_printf(text, "%s%s", k ? " and " : " ", json_string_value(json_array_get(who, k)));
		g_string_append(text, ": ");
		json_decref(who);
		army_text(rules, v, -1, shared[i], text);
	}
	if (unowned) {
		/* A game's pieces of no seat are all of one kind: a neutral army's, or of no side. */
		g_string_append_printf(text, "%s%s: ", text->len ? "; " : "", neutral ? "neutral" : "of no side");
		army_text(rules, v, -1, 0, text);
	}
	if (!text->len)
		g_string_append(text, "No pieces on the board");
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		if (!hd->npieces)
			continue;
		g_string_append_printf(text, "; in %s:", hd->name);
		for (int i = 0; i < hd->npieces; i++) {
			char word[48];
			piece_word(rules, hd->pieces[i], word, sizeof word);
			g_string_append_printf(text, "%s %s", i ? "," : "", word);
		}
	}
	g_string_append(text, ".");
	char *out = xstrdup(text->str);
	g_string_free(text, TRUE);
	return out;
}

json_t *board_words_json(const rules_game *rules, const rules_view *v)
{
	char *words = board_words(rules, v);
	json_t *out = json_string(words);
	free(words);
	return out;
}
