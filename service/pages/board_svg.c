/* board_svg.c - GET /games/{id}/board.svg: the board at any ply as a standalone SVG image, from any seat's side, as anyone may see it. */
#include "pages/pages.h"
#include "pages/board.h"
#include "core/errors.h"
#include "core/limits.h"
#include "db.h"
#include "game/board_look.h"
#include "game/game.h"
#include "game/view.h"
#include "game/view_cache.h"
#include "game/view_served.h"
#include "xalloc.h"
#include "core/text.h"

#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of an object's member, "" when absent. */
static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* Append s escaped for XML text and attribute values. */
static void esc(GString *out, const char *s)
{
	char *e = g_markup_escape_text(s, -1);
	g_string_append(out, e);
	g_free(e);
}

/* The attributes a centred letter or number is written with. */
#define CENTRED "text-anchor=\"middle\" dominant-baseline=\"central\""

/* A piece's disc and letter (the inside of its <g>), painted for side. */
static void piece_body(GString *out, const char *letter, const char *side, int longname)
{
	board_piece_paint p = board_piece_look(side);

	g_string_append_printf(out, "<circle r=\"14\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%g\"%s/>",
			       p.fill, p.stroke, p.stroke_width, p.dashed ? " stroke-dasharray=\"3 2\"" : "");
	g_string_append_printf(out, "<text class=\"glyph%s\" fill=\"%s\" font-size=\"%d\" font-weight=\"700\" " CENTRED ">",
			       longname ? " long" : "", p.glyph, longname ? 10 : 17);
	esc(out, letter);
	g_string_append(out, "</text>");
}

/* The opening tag of a piece's group, without its ">": its classes, letters and side. */
static void piece_open(GString *out, const char *classes, json_t *piece)
{
	g_string_append_printf(out, "<g class=\"%s side-", classes);
	esc(out, str(piece, "side"));
	g_string_append(out, "\" data-piece=\"");
	esc(out, str(piece, "letter"));
	g_string_append(out, "\" data-side=\"");
	esc(out, str(piece, "side"));
	g_string_append(out, "\"");
}

static void cell_svg(GString *out, json_t *cell)
{
	json_t *piece = json_object_get(cell, "piece");
	int last = json_is_true(json_object_get(cell, "last"));
	board_square_paint sq = board_square_look(str(cell, "kind"), str(cell, "shade"), last);

	g_string_append(out, "<g class=\"sq ");
	esc(out, str(cell, "kind"));
	g_string_append_printf(out, " %s%s\" data-square=\"", str(cell, "shade"), last ? " last" : "");
	esc(out, str(cell, "square"));
	g_string_append(out, "\" data-touch=\"");
	esc(out, str(cell, "square"));
	g_string_append_printf(out, "\" data-r=\"%d\" data-c=\"%d\" transform=\"%s\"><title>",
			       (int)json_integer_value(json_object_get(cell, "r")),
			       (int)json_integer_value(json_object_get(cell, "c")), str(cell, "transform"));
	esc(out, str(cell, "square"));
	if (piece) {
		g_string_append(out, ": ");
		esc(out, str(piece, "title"));
	}
	if (json_object_get(cell, "held")) {
		g_string_append(out, " (holds ");
		esc(out, str(cell, "held"));
		g_string_append(out, ")");
	}
	g_string_append_printf(out, "</title><polygon points=\"%s\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%g\"/>",
			       str(cell, "shape"), sq.fill, sq.stroke, sq.stroke_width);
	/* As on the page: a piece hides its square's name, so none is written under it. */
	if (json_object_get(cell, "label") && !piece) {
		g_string_append(out, "<text class=\"name\" y=\"-11\" font-size=\"7\" fill=\"" BOARD_MUTED "\" " CENTRED ">");
		esc(out, str(cell, "label"));
		g_string_append(out, "</text>");
	}
	if (piece) {
		piece_open(out, "pc", piece);
		g_string_append(out, ">");
		piece_body(out, str(piece, "letter"), str(piece, "side"), json_is_true(json_object_get(piece, "long")));
		if (json_object_get(piece, "facing"))
			g_string_append_printf(out, "<path class=\"facing\" transform=\"%s\" d=\"M0,-19.5 L4.5,-14 L-4.5,-14 Z\" "
					       "fill=\"" BOARD_INK "\" stroke=\"#fff\" stroke-width=\"0.8\"/>", str(piece, "facing"));
		g_string_append(out, "</g>");
	}
	if (json_object_get(cell, "held")) {
		g_string_append(out, "<text class=\"held side-");
		esc(out, str(cell, "held_side"));
		g_string_append(out, "\" data-pieces=\"");
		esc(out, str(cell, "held_all"));
		g_string_append(out, "\" y=\"14\" font-size=\"8\" font-weight=\"700\" fill=\"" BOARD_INK "\" " CENTRED ">");
		esc(out, str(cell, "held"));
		g_string_append(out, "</text>");
	}
	g_string_append(out, "</g>\n");
}

static void hand_svg(GString *out, json_t *hand)
{
	json_t *p;
	size_t i;

	g_string_append(out, "<text class=\"hand-name side-");
	esc(out, str(hand, "side"));
	g_string_append_printf(out, "\" x=\"%s\" y=\"%s\" font-size=\"11\" dominant-baseline=\"central\" fill=\"" BOARD_INK "\">",
			       str(hand, "x"), str(hand, "y"));
	esc(out, str(hand, "name"));
	g_string_append_printf(out, "%s</text>", json_is_true(json_object_get(hand, "empty")) ? ": empty" : "");
	json_array_foreach(json_object_get(hand, "pieces"), i, p) {
		piece_open(out, "pc hand", p);
		g_string_append(out, " data-holding=\"");
		esc(out, str(hand, "name"));
		g_string_append_printf(out, "\" transform=\"%s\"><title>", str(p, "transform"));
		esc(out, str(p, "letter"));
		g_string_append(out, " in ");
		esc(out, str(hand, "name"));
		g_string_append(out, "</title>");
		piece_body(out, str(p, "letter"), str(p, "side"), json_is_true(json_object_get(p, "long")));
		g_string_append(out, "</g>");
	}
	g_string_append(out, "\n");
}

char *board_image_svg(const game_loaded *g, int side, int ply, json_t *last_places)
{
	rules_view *v = xmalloc(sizeof *v);
	GString *out = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	json_t *model, *o;
	size_t i;
	int height;

	view_oriented_public(g, side, v);
	model = board_svg(g, side, v, last_places);
	/* The model holds the text alternative: the same words as the game page's. */
	const char *words = str(model, "alt");
	const char *box = str(model, "viewbox");
	/* The viewBox is "0 0 W H": the image's own size is the same. */
	height = atoi(strrchr(box, ' ') + 1);
	g_string_append_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" viewBox=\"%s\" "
			       "width=\"%d\" height=\"%d\" role=\"img\" aria-labelledby=\"board-title board-desc\" "
			       "font-family=\"ui-monospace, 'DejaVu Sans Mono', monospace\" data-variant=\"%s\" "
			       "data-ply=\"%d\" data-side=\"%s\">\n<title id=\"board-title\">",
			       box, (int)json_integer_value(json_object_get(model, "width")), height, g->rules->id, ply,
			       g->rules->seat_names[side]);
	char *title = xasprintf("%s game %s after ply %d, seen from %s's side", g->rules->title, g->rec->id, ply,
				g->rules->seat_names[side]);
	esc(out, title);
	free(title);
	g_string_append(out, "</title>\n<desc id=\"board-desc\">");
	esc(out, words);
	g_string_append_printf(out, "</desc>\n<rect width=\"100%%\" height=\"100%%\" fill=\"" BOARD_PAPER "\"/>\n");
	json_array_foreach(json_object_get(model, "labels"), i, o) {
		g_string_append_printf(out, "<text class=\"coord\" x=\"%s\" y=\"%s\" font-size=\"11\" fill=\"" BOARD_MUTED "\" "
				       CENTRED ">", str(o, "x"), str(o, "y"));
		esc(out, str(o, "text"));
		g_string_append(out, "</text>\n");
	}
	json_array_foreach(json_object_get(model, "cells"), i, o)
		cell_svg(out, o);
	json_array_foreach(json_object_get(model, "cells"), i, o)
		if (json_object_get(o, "walls"))
			g_string_append_printf(out, "<path class=\"wall\" transform=\"%s\" d=\"%s\" stroke=\"" BOARD_WALL "\" "
					       "stroke-width=\"4\" stroke-linecap=\"square\" fill=\"none\"/>\n",
					       str(o, "transform"), str(o, "walls"));
	json_array_foreach(json_object_get(model, "hands"), i, o)
		hand_svg(out, o);
	g_string_append(out, "</svg>\n");
	json_decref(model);
	free(v);
	char *s = xstrdup(out->str);
	g_string_free(out, TRUE);
	return s;
}

/*
 * The position after ply (< the game's ply) as stored with its move, into
 * *pos, and the squares that move touched into *places (none while the
 * position holds a secret, or the move is still secret: the image of a ply
 * never changes). 0, or an app_code with err filled.
 */
static int stored_position(app *a, const game_loaded *g, int ply, rules_position **pos, json_t **places,
			   app_error *err)
{
	db_move m = {0};
	db_error de;
	rules_error re;
	const char *text = g->rec->start_position;

	*places = NULL;
	if (ply > 0) {
		if (db_move_get(app_db(a), g->rec->id, ply - 1, &m, &de))
			return app_storage_fail(err, &de);
		text = m.position_after;
	}
	if (g->rules->deserialize(text, pos, &re)) {
		db_move_clear(&m);
		return app_fail(err, E_INTERNAL, "the stored position of ply %d cannot be read", ply);
	}
	if (ply > 0 && !m.secret && !(g->rules->has_secrets && g->rules->has_secrets(*pos)))
		*places = json_loads(m.places ? m.places : "[]", 0, NULL);
	db_move_clear(&m);
	return 0;
}

/* The squares the game's last move touched, as the game page outlines them (none for a secret move). */
static json_t *current_places(app *a, const game_loaded *g)
{
	app_error err;
	json_t *moves = g->rec->ply ? view_moves(a, g, -1, g->rec->ply - 1, 1, &err) : NULL;
	json_t *places = json_incref(json_object_get(json_array_get(json_object_get(moves, "moves"), 0), "places"));

	json_decref(moves);
	return places;
}

/* The seat names of rules into out: "South, North". */
static void seat_list(const rules_game *rules, char *out, size_t size)
{
	size_t n = 0;

	out[0] = 0;
	for (int i = 0; i < rules->nseats && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", i ? ", " : "", rules->seat_names[i]);
}

/*
 * The image of the game as it stands is kept in the view cache beside the
 * game's views, keyed by the version like them, under a viewer of its own
 * per side (views use -1 and the seats): it is the one image everybody
 * asks for, and drawing it costs as much as a page. An earlier ply's image
 * never changes, and its answer may be kept by browsers and proxies.
 */
static int image_viewer(int side)
{
	return -2 - side;
}

/* What a reader read is committed, so its image may be kept for others. */
static void keep_image(app *a, const game_loaded *g, int side, const char *svg)
{
	view_cache_meta meta = {.rules = g->rules};

	if (a->views && app_reading())
		view_cache_put(a->views, g->rec->id, g->rec->version, image_viewer(side), svg, strlen(svg), &meta);
}

void page_board_svg(http_request *req, http_response *res)
{
	static const char *const known[] = {"ply", "seat", NULL};
	const char *ply_text = http_query(req, "ply"), *seat_text = http_query(req, "seat");
	app_error err = {0};
	game_loaded g;
	char tag[VIEW_TAG_TEXT];
	int side = 0, ply;

	if (http_query_only(req, known, &err))
		return http_reply_error(req, res, err.code, err.message);
	long long asked = -1;
	if (ply_text && text_whole_number(ply_text, 9, &asked))
		return http_reply_error(req, res, E_BAD_REQUEST, "ply must be a whole number from 0 to the game's ply");
	if (game_load(req->app, req->params[0], &g, &err))
		return http_reply_error(req, res, err.code, err.message);
	ply = ply_text ? (int)asked : g.rec->ply;
	if (seat_text && (side = rules_seat_index(g.rules, seat_text)) < 0) {
		/* The text is not repeated: it may be a seat token put where a seat name goes. */
		char seats[128];
		seat_list(g.rules, seats, sizeof seats);
		app_fail(&err, E_BAD_REQUEST, "seat must be a seat name of %s (%s)", g.rules->title, seats);
	} else if (ply > g.rec->ply)
		app_fail(&err, E_BAD_REQUEST, "ply must be from 0 to %d, the game's ply", g.rec->ply);
	if (err.code) {
		game_loaded_free(&g);
		return http_reply_error(req, res, err.code, err.message);
	}
	/* The game as it stands changes with its version; an earlier ply never does. */
	int earlier = ply < g.rec->ply;
	view_board_tag(earlier ? -1 : g.rec->version, ply, side, tag);
	if (earlier)
		http_validated_for(res, tag, LIMIT_BOARD_IMAGE_MAX_AGE_S);
	else
		http_validated(res, tag, 0);
	if (http_etag_held(req, tag)) {
		game_loaded_free(&g);
		return http_reply_not_modified(res);
	}
	char *svg = NULL;
	size_t len;
	view_cache_meta meta;
	if (!earlier && view_cache_get(req->app->views, g.rec->id, g.rec->version, image_viewer(side), &svg, &len, &meta)) {
		game_loaded_free(&g);
		return http_reply(res, 200, "image/svg+xml; charset=utf-8", svg, len);
	}
	json_t *places = NULL;
	game_loaded at = g;
	if (earlier && stored_position(req->app, &g, ply, &at.pos, &places, &err)) {
		game_loaded_free(&g);
		return http_reply_error(req, res, err.code, err.message);
	}
	if (!earlier)
		places = current_places(req->app, &g);
	svg = board_image_svg(&at, side, ply, places);
	json_decref(places);
	if (earlier)
		g.rules->free_position(at.pos);
	else
		keep_image(req->app, &g, side, svg);
	game_loaded_free(&g);
	http_reply(res, 200, "image/svg+xml; charset=utf-8", svg, strlen(svg));
}
