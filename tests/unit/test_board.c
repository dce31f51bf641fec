/* test_board.c - the drawn board's model: cells, shapes, labels, hands, walls and the last move. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/board_look.h"
#include "game/view.h"
#include "mail_out/mail_board.h"
#include "pages/board.h"

/* The board of a fresh game of variant as seat sees it, with last as the last move's places. */
static json_t *drawn(const char *variant, int seat, const char *options, json_t *last)
{
	game_loaded g = {0};
	rules_view *v = calloc(1, sizeof *v);
	json_t *out;

	assert_non_null(v);
	g.rules = rules_find(variant, 0);
	assert_non_null(g.rules);
	assert_int_equal(g.rules->start(options, &g.pos, NULL), 0);
	view_oriented(&g, seat, v);
	out = board_svg(&g, seat, v, last);
	g.rules->free_position(g.pos);
	free(v);
	return out;
}

/* The cell drawn for square, or NULL. */
static json_t *cell(json_t *board, const char *square)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(board, "cells"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "square")), square))
			return c;
	return NULL;
}

/* The centre of a cell, from its "translate(x y)". */
static void centre(json_t *c, double *x, double *y)
{
	assert_non_null(c);
	assert_int_equal(sscanf(json_string_value(json_object_get(c, "transform")), "translate(%lf %lf)", x, y), 2);
}

static const char *piece_of(json_t *c)
{
	json_t *p = json_object_get(c, "piece");
	return p ? json_string_value(json_object_get(p, "letter")) : "";
}

static void test_nchess_squares_and_labels(void **state)
{
	json_t *last = json_pack("[s, s]", "7 1", "6 1");
	json_t *b = drawn("nchess", 0, NULL, last);
	double x1, y1, x2, y2;
	(void)state;

	assert_int_equal(json_array_size(json_object_get(b, "cells")), 81);
	/* Row and column labels on both sides. */
	assert_int_equal(json_array_size(json_object_get(b, "labels")), 4 * 9);
	assert_int_equal(json_array_size(json_object_get(b, "hands")), 0);
	assert_string_equal(json_string_value(json_object_get(b, "viewbox")), "0 0 404 413");
	/* South at the bottom: row 9 below row 1, columns left to right. */
	centre(cell(b, "9 1"), &x1, &y1);
	centre(cell(b, "1 9"), &x2, &y2);
	assert_true(y1 > y2 && x1 < x2);
	assert_string_equal(piece_of(cell(b, "9 1")), "C");
	assert_string_equal(json_string_value(json_object_get(json_object_get(cell(b, "9 1"), "piece"), "side")), "South");
	assert_string_equal(json_string_value(json_object_get(cell(b, "5 1"), "kind")), "river");
	assert_string_equal(json_string_value(json_object_get(cell(b, "9 4"), "kind")), "prison");
	assert_true(json_is_true(json_object_get(cell(b, "7 1"), "last")));
	assert_true(json_is_true(json_object_get(cell(b, "6 1"), "last")));
	assert_false(json_is_true(json_object_get(cell(b, "7 2"), "last")));
	assert_string_equal(json_string_value(json_object_get(cell(b, "7 1"), "shape")), "-20,-20 20,-20 20,20 -20,20");
	json_decref(b);

	/* North sees the board turned half round. */
	b = drawn("nchess", 1, NULL, NULL);
	centre(cell(b, "9 1"), &x1, &y1);
	centre(cell(b, "1 9"), &x2, &y2);
	assert_true(y1 < y2 && x1 > x2);
	json_decref(b);
	json_decref(last);
}

static void test_cyvasse_rows_are_centred_hexagons(void **state)
{
	json_t *b = drawn("cyvasse", 0, NULL, NULL);
	double xa1, ya1, xh1, xa5, ya5, xl5, xa2, ya2;
	(void)state;

	assert_int_equal(json_array_size(json_object_get(b, "cells")), 88);
	/* One label per row, no column letters (they differ from row to row). */
	assert_int_equal(json_array_size(json_object_get(b, "labels")), 9);
	centre(cell(b, "a1"), &xa1, &ya1);
	centre(cell(b, "h1"), &xh1, &ya1);
	centre(cell(b, "a5"), &xa5, &ya5);
	centre(cell(b, "l5"), &xl5, &ya5);
	centre(cell(b, "a2"), &xa2, &ya2);
	/* Row 5 fills the width; row 1 (8 squares) is centred under it, row 2 half a square further out. */
	assert_true(xa5 < xa1 && xl5 > xh1);
	assert_true(xa1 - xa5 > 79.9 && xa1 - xa5 < 80.1);
	assert_true(xa1 - xa2 > 19.9 && xa1 - xa2 < 20.1);
	assert_true((xa1 + xh1) / 2 - (xa5 + xl5) / 2 < 0.01 && (xa5 + xl5) / 2 - (xa1 + xh1) / 2 < 0.01);
	/* Rows of hexagons are three quarters of a hexagon apart. */
	assert_true(ya1 - ya2 > 34.6 && ya1 - ya2 < 34.7);
	assert_int_equal(strncmp(json_string_value(json_object_get(cell(b, "a1"), "shape")), "0,-23.09 20.00,-11.55", 21), 0);
	/* Hex squares carry their names, since no column labels can. */
	assert_string_equal(json_string_value(json_object_get(cell(b, "e4"), "label")), "e4");
	json_decref(b);
}

static void test_conversion_hands(void **state)
{
	json_t *b = drawn("conversion-chess", 0, NULL, NULL), *hands, *h;
	double x, top, bottom;
	(void)state;

	hands = json_object_get(b, "hands");
	assert_int_equal(json_array_size(hands), 2);
	/* The viewer's hand is drawn below the board, the other above. */
	h = json_array_get(hands, 0);
	assert_string_equal(json_string_value(json_object_get(h, "side")), "Black");
	assert_true(json_is_true(json_object_get(h, "empty")));
	centre(cell(b, "a9"), &x, &top);
	assert_true(atof(json_string_value(json_object_get(h, "y"))) < top);
	h = json_array_get(hands, 1);
	assert_string_equal(json_string_value(json_object_get(h, "side")), "White");
	centre(cell(b, "a1"), &x, &bottom);
	assert_true(atof(json_string_value(json_object_get(h, "y"))) > bottom);
	json_decref(b);

	b = drawn("conversion-chess", 1, NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(b, "hands"), 1), "side")), "Black");
	json_decref(b);
}

static void test_civil_war_walls_and_facings(void **state)
{
	json_t *b = drawn("civil-war", 0, NULL, NULL), *c;
	size_t i, walls = 0, facing = 0, pieces = 0;
	(void)state;

	assert_int_equal(json_array_size(json_object_get(b, "cells")), 225);
	json_array_foreach(json_object_get(b, "cells"), i, c) {
		const char *d = json_string_value(json_object_get(c, "walls"));
		json_t *p = json_object_get(c, "piece");
		if (d) {
			walls++;
			/* Only whole sides of the cell, as path moves and lines. */
			assert_int_equal(strspn(d, "MHV-20,"), strlen(d));
		}
		pieces += p != NULL;
		if (p && json_object_get(p, "facing"))
			facing++;
	}
	assert_true(walls > 0);
	/* Every piece faces somewhere. */
	assert_true(pieces >= 40);
	assert_int_equal(facing, pieces);
	json_decref(b);
}

/* A fresh game of variant, loaded as a stored one would be (its record only names it). */
static void fresh(const char *variant, game_loaded *g, db_game *rec)
{
	memset(g, 0, sizeof *g);
	memset(rec, 0, sizeof *rec);
	rec->id = "g1&<x>";
	g->rec = rec;
	g->rules = rules_find(variant, 0);
	assert_non_null(g->rules);
	assert_int_equal(g->rules->start(NULL, &g->pos, NULL), 0);
}

/* The standalone image: its own root, the page's colours inline, the position in words, escaped text. */
static void test_image_svg(void **state)
{
	game_loaded g;
	db_game rec;
	json_t *last = json_pack("[s]", "7 1");
	(void)state;

	fresh("nchess", &g, &rec);
	char *svg = board_image_svg(&g, 1, 0, last);
	static const char head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
				   "class=\"board\" viewBox=\"0 0 404 413\" width=\"404\" height=\"413\"";
	assert_int_equal(strncmp(svg, head, sizeof head - 1), 0);
	assert_non_null(strstr(svg, "<title id=\"board-title\">Nchess game g1&amp;&lt;x&gt; after ply 0, seen from North&apos;s side</title>"));
	assert_non_null(strstr(svg, "<desc id=\"board-desc\">South: Chariot 9 9, Knight 9 8, Minister 9 7,"));
	assert_non_null(strstr(svg, "; North: Soldier 3 9, Soldier 3 7,"));
	/* South's Chariot on 9 1, drawn in South's colours; the last move's square outlined. */
	const char *c91 = strstr(svg, "data-square=\"9 1\"");
	assert_non_null(c91);
	assert_non_null(strstr(c91, "<g class=\"pc side-South\" data-piece=\"C\" data-side=\"South\"><circle r=\"14\" "
				    "fill=\"#1f3f8a\" stroke=\"#0d2255\""));
	assert_non_null(strstr(svg, " last\" data-square=\"7 1\""));
	assert_null(strstr(svg, " last\" data-square=\"6 1\""));
	assert_non_null(strstr(svg, "<g class=\"sq river"));
	assert_non_null(strstr(svg, "fill=\"#cfe3ef\""));
	assert_null(strstr(svg, "<style"));
	assert_non_null(strstr(svg, "</svg>\n"));
	/* Turned for North: 9 9 is drawn first, at the top left. */
	const char *first = strstr(svg, "data-square=");
	assert_int_equal(strncmp(first, "data-square=\"9 9\" ", 18), 0);
	free(svg);
	json_decref(last);
	g.rules->free_position(g.pos);
}

/* Mails' table: every square in the reader's order, pieces with their side, the page's colours inline. */
static void test_mail_table(void **state)
{
	game_loaded g;
	db_game rec;
	(void)state;

	fresh("nchess", &g, &rec);
	char *t = mail_board_html(&g, 0), *n = mail_board_html(&g, 1);
	assert_int_equal(strncmp(t, "<table ", 7), 0);
	assert_non_null(strstr(t, "data-square=\"9 1\" title=\"9 1: South C\" data-piece=\"C\" data-side=\"South\">"
				  "<span style=\"display:inline-block;min-width:22px;height:22px;line-height:22px;border-radius:11px;"
				  "background:#1f3f8a;color:#fff;border:1px solid #0d2255;"));
	assert_non_null(strstr(t, "background:#cfe3ef"));
	assert_true(strstr(t, "data-square=\"1 1\"") < strstr(t, "data-square=\"9 9\""));
	assert_true(strstr(n, "data-square=\"9 9\"") < strstr(n, "data-square=\"1 1\""));
	size_t cells = 0;
	for (const char *p = t; (p = strstr(p, "data-square=")); p++)
		cells++;
	assert_int_equal(cells, 81);
	free(t);
	free(n);
	g.rules->free_position(g.pos);
}

/* Civil War's variants: the neutral East army of the game of three in its own muted colour, in
 * the image (with its words) and the mail's table; the empty quadrants of the game of two. */
static void test_civil_war_variants(void **state)
{
	game_loaded g;
	db_game rec;
	json_t *b;
	size_t i, pieces = 0;
	json_t *c;
	(void)state;

	fresh("civil-war-3", &g, &rec);
	char *svg = board_image_svg(&g, 0, 0, NULL), *t = mail_board_html(&g, 0);
	const char *n2 = strstr(svg, "data-square=\"n2\"");
	assert_non_null(n2);
	assert_non_null(strstr(n2, "<g class=\"pc side-neutral\" data-piece=\"K\" data-side=\"neutral\"><circle r=\"14\" "
				   "fill=\"#6e6a60\" stroke=\"#45423b\""));
	assert_non_null(strstr(svg, "; neutral: Pawn l7, Knight n7, Bishop o7,"));
	assert_non_null(strstr(t, "title=\"n2: neutral K\" data-piece=\"K\" data-side=\"neutral\">"));
	assert_non_null(strstr(t, "background:#6e6a60;color:#fff;border:1px solid #45423b;"));
	free(svg);
	free(t);
	g.rules->free_position(g.pos);

	b = drawn("civil-war-2", 1, NULL, NULL);
	json_array_foreach(json_object_get(b, "cells"), i, c) {
		const char *sq = json_string_value(json_object_get(c, "square"));
		int f = sq[0] - 'a', r = atoi(sq + 1);
		if (!json_object_get(c, "piece"))
			continue;
		pieces++;
		assert_true((f < 7 && r < 8) || (f > 7 && r > 8));      /* South's and North's quadrants only */
	}
	assert_int_equal(pieces, 30);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nchess_squares_and_labels),
		cmocka_unit_test(test_cyvasse_rows_are_centred_hexagons),
		cmocka_unit_test(test_conversion_hands),
		cmocka_unit_test(test_civil_war_walls_and_facings),
		cmocka_unit_test(test_image_svg),
		cmocka_unit_test(test_mail_table),
		cmocka_unit_test(test_civil_war_variants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
