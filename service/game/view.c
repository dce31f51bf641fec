/* view.c - JSON descriptions of games, shared by the API and the pages. */
#include "game/view.h"
#include "db.h"
#include "game/clock.h"
#include "game/dice.h"
#include "xalloc.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The drawable state viewer (a seat or -1) may see: games with secrets say what that is. */
static void view_as(const game_loaded *g, int viewer, rules_view *out)
{
	if (g->rules->view_for)
		g->rules->view_for(g->pos, viewer, out);
	else
		g->rules->view(g->pos, out);
}

/* What is drawn on a cell turns with the board: its walls and its piece's facing. */
static void turn_cell(rules_cell *cell, int turns, int has_facing)
{
	unsigned w = cell->walls;

	for (int i = 0; i < turns; i++)
		w = ((w << 1) | (w >> 3)) & 15;   /* top -> right -> bottom -> left -> top */
	cell->walls = (unsigned char)w;
	if (has_facing && cell->facing >= 0)
		cell->facing = (signed char)((cell->facing + turns) % 4);
}

/* Copy src rotated by turns clockwise quarter turns into dst (square boards for odd turns). */
static void rotate(const rules_view *src, int turns, rules_view *dst)
{
	/* Half turns work on any grid; quarter turns only on square ones (the four-seat boards). */
	int rows = src->rows, cols = src->cols, n = rows;

	*dst = *src;
	if (turns == 0 || (turns % 2 && rows != cols))
		return;
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c < cols; c++) {
			int sr, sc;
			switch (turns) {
			case 1: sr = n - 1 - c, sc = r; break;          /* the left edge comes to the top */
			case 2: sr = rows - 1 - r, sc = cols - 1 - c; break;
			default: sr = c, sc = n - 1 - r; break;         /* the right edge comes to the top */
			}
			dst->cell[r][c] = src->cell[sr][sc];
			turn_cell(&dst->cell[r][c], turns, src->has_facing);
		}
	}
	for (int r = 0; r < rows; r++)
		snprintf(dst->row_label[r], sizeof dst->row_label[r], "%s",
			 turns == 1 ? src->col_label[r] : turns == 2 ? src->row_label[rows - 1 - r] :
			 src->col_label[n - 1 - r]);
	for (int c = 0; c < cols; c++)
		snprintf(dst->col_label[c], sizeof dst->col_label[c], "%s",
			 turns == 1 ? src->row_label[n - 1 - c] : turns == 2 ? src->col_label[cols - 1 - c] :
			 src->row_label[c]);
	for (int h = 0; h < src->nholdings; h++) {
		int r = src->holding[h].row, c = src->holding[h].col;
		if (r < 0)
			continue;
		switch (turns) {
		case 1: dst->holding[h].row = c, dst->holding[h].col = n - 1 - r; break;
		case 2: dst->holding[h].row = rows - 1 - r, dst->holding[h].col = cols - 1 - c; break;
		default: dst->holding[h].row = n - 1 - c, dst->holding[h].col = r; break;
		}
	}
}

/* What viewer may see, turned so that side's edge is at the bottom (side -1: the first seat's view). */
static void oriented(const game_loaded *g, int viewer, int side, rules_view *out)
{
	rules_view *v = xmalloc(sizeof *v);
	int turns = side >= 0 ? g->rules->view_quarter_turns(side) % 4 : 0;

	view_as(g, viewer, v);
	/* Name every cell before rotating: a square keeps its name wherever it is drawn. */
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++)
			if (!v->cell[r][c].name[0])
				snprintf(v->cell[r][c].name, sizeof v->cell[r][c].name, "%s %s",
					 v->row_label[r], v->col_label[c]);
	rotate(v, turns, out);
	free(v);
}

void view_oriented(const game_loaded *g, int seat, rules_view *out)
{
	oriented(g, seat, seat, out);
}

void view_oriented_public(const game_loaded *g, int side, rules_view *out)
{
	oriented(g, -1, side, out);
}

char *view_board_text(const game_loaded *g, int seat)
{
	rules_view *v = xmalloc(sizeof *v);
	/* With more than two seats case cannot tell the sides apart: prefix the seat's initial. */
	int marked = g->rules->nseats > 2, w = 2, shared = 0;
	size_t cap = 8192, n = 0;
	char *out = xmalloc(cap);

#define PUT(...) do { \
		int k_ = snprintf(out + n, cap - n, __VA_ARGS__); \
		if (k_ > 0) n += (size_t)k_ < cap - n ? (size_t)k_ : cap - n - 1; \
	} while (0)
	view_oriented(g, seat, v);
	/* Columns as wide as the widest piece (compounds are several letters), plus a space. */
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			int len = (int)strlen(v->cell[r][c].piece) + marked + 1;
			if (len > w)
				w = len;
		}
	PUT("    ");
	for (int c = 0; c < v->cols; c++)
		PUT("%-*s", c + 1 < v->cols ? w : 0, v->col_label[c]);
	PUT("\n");
	for (int r = 0; r < v->rows; r++) {
		PUT("%3s ", v->row_label[r]);
		for (int c = 0; c < v->cols; c++) {
			const rules_cell *cell = &v->cell[r][c];
			char shown[8];
			if (cell->piece[0] && marked) {
				char who = cell->controllers ? '*' : cell->owner >= 0 ?
					(char)(g->rules->seat_names[cell->owner][0] | 0x20) : '?';
				shared |= cell->controllers != 0;
				snprintf(shown, sizeof shown, "%c%s", who, cell->piece);
			} else {
				snprintf(shown, sizeof shown, "%s", cell->piece[0] ? cell->piece :
					 !strcmp(cell->kind, "river") ? "~" : !strcmp(cell->kind, "prison") ? "+" :
					 !strcmp(cell->kind, "off") ? " " : ".");
			}
			PUT("%-*s", w, shown);
		}
		PUT("%s\n", v->row_label[r]);
	}
	PUT("    ");
	for (int c = 0; c < v->cols; c++)
		PUT("%-*s", c + 1 < v->cols ? w : 0, v->col_label[c]);
	PUT("\n");
	if (marked) {
		PUT("\n");
		for (int i = 0; i < g->rules->nseats; i++)
			PUT("%s%c = %s", i ? ", " : "", g->rules->seat_names[i][0] | 0x20, g->rules->seat_names[i]);
		PUT("%s\n", shared ? ", * = shared" : "");
	}
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		PUT("\n%s: ", hd->name);
		if (!hd->npieces)
			PUT("empty");
		for (int i = 0; i < hd->npieces; i++)
			PUT("%s%s", i ? " " : "", hd->pieces[i]);
	}
	PUT("\n");
#undef PUT
	free(v);
	return out;
}

json_t *view_seat_list(const rules_game *rules, unsigned mask)
{
	json_t *a = json_array();

	for (int i = 0; i < rules->nseats; i++)
		if (mask & (1u << i))
			json_array_append_new(a, json_string(rules->seat_names[i]));
	return a;
}

/*
 * A board repeats a few strings (pieces, kinds of square) on every cell: each
 * distinct one is made once and shared, which makes a spectator's GET cheaper.
 */
typedef struct string_pool {
	int n;
	json_t *v[48];
} string_pool;

/* A new reference to a string equal to s, from the pool when it has one. */
static json_t *pooled(string_pool *p, const char *s)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(json_string_value(p->v[i]), s) == 0)
			return json_incref(p->v[i]);
	json_t *v = json_string(s);
	if (p->n < (int)(sizeof p->v / sizeof p->v[0]))
		p->v[p->n++] = json_incref(v);
	return v;
}

static void pool_free(string_pool *p)
{
	for (int i = 0; i < p->n; i++)
		json_decref(p->v[i]);
}

json_t *view_position(const game_loaded *g, int viewer)
{
	string_pool pool = {0};
	rules_view *v = xmalloc(sizeof *v);
	json_t *rows = json_array(), *cols = json_array(), *board = json_array(),
	       *kinds = json_array(), *holdings = json_array();
	char *notation = g->rules->serialize(g->pos);

	view_as(g, viewer, v);
	for (int r = 0; r < v->rows; r++)
		json_array_append_new(rows, json_string(v->row_label[r]));
	for (int c = 0; c < v->cols; c++)
		json_array_append_new(cols, json_string(v->col_label[c]));
	for (int r = 0; r < v->rows; r++) {
		json_t *line = json_array(), *kline = json_array();
		for (int c = 0; c < v->cols; c++) {
			const rules_cell *cell = &v->cell[r][c];
			json_array_append_new(line, cell->piece[0] ? pooled(&pool, cell->piece) : json_null());
			json_array_append_new(kline, pooled(&pool, cell->kind));
		}
		json_array_append_new(board, line);
		json_array_append_new(kinds, kline);
	}
	for (int h = 0; h < v->nholdings; h++) {
		const rules_holding *hd = &v->holding[h];
		json_t *pieces = json_array();
		for (int i = 0; i < hd->npieces; i++)
			json_array_append_new(pieces, json_string(hd->pieces[i]));
		json_array_append_new(holdings, json_pack("{s:s, s:o, s:o, s:s, s:o}",
			"name", hd->name,
			"row", hd->row >= 0 ? json_string(v->row_label[hd->row]) : json_null(),
			"col", hd->col >= 0 ? json_string(v->col_label[hd->col]) : json_null(),
			"seat", g->rules->seat_names[hd->owner],
			"pieces", pieces));
	}
	json_t *notes = json_array();
	for (int i = 0; i < v->nnotes; i++)
		json_array_append_new(notes, json_string(v->notes[i]));
	/* The one-line position holds everything: not shown while anything is secret. */
	int secret = g->rules->has_secrets && g->rules->has_secrets(g->pos);
	json_t *out = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				"notation", secret ? json_null() : json_string(notation),
				"rows", rows, "cols", cols, "board", board, "kinds", kinds,
				"holdings", holdings, "notes", notes);
	/* Owners, walls and facings only where a game has them, so two-seat boards stay small. */
	if (g->rules->nseats > 2 || v->has_facing) {
		json_t *owners = json_array(), *facings = json_array();
		for (int r = 0; r < v->rows; r++) {
			json_t *oline = json_array(), *fline = json_array();
			for (int c = 0; c < v->cols; c++) {
				const rules_cell *cell = &v->cell[r][c];
				json_array_append_new(oline, cell->controllers ? view_seat_list(g->rules, cell->controllers) :
						      cell->owner >= 0 ? pooled(&pool, g->rules->seat_names[cell->owner]) : json_null());
				json_array_append_new(fline, v->has_facing && cell->piece[0] && cell->facing >= 0 ?
						      json_integer(cell->facing) : json_null());
			}
			json_array_append_new(owners, oline);
			json_array_append_new(facings, fline);
		}
		json_object_set_new(out, "owners", owners);
		if (v->has_facing)
			json_object_set_new(out, "facings", facings);
		else
			json_decref(facings);
	}
	int any_wall = 0;
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++)
			any_wall |= v->cell[r][c].walls;
	if (any_wall) {
		json_t *walls = json_array();
		for (int r = 0; r < v->rows; r++) {
			json_t *line = json_array();
			for (int c = 0; c < v->cols; c++)
				json_array_append_new(line, json_integer(v->cell[r][c].walls));
			json_array_append_new(walls, line);
		}
		json_object_set_new(out, "walls", walls);
	}
	pool_free(&pool);
	free(v);
	free(notation);
	return out;
}

json_t *view_move_option(const game_loaded *g, const rules_move *mv)
{
	char text[RULES_TEXT_MAX];
	rules_gesture gesture;
	json_t *places = json_array();

	memset(&gesture, 0, sizeof gesture);
	g->rules->format(g->pos, mv, text, sizeof text);
	if (g->rules->gesture)
		g->rules->gesture(g->pos, mv, &gesture);
	for (int i = 0; i < gesture.n; i++)
		json_array_append_new(places, json_string(gesture.at[i]));
	return json_pack("{s:s, s:o, s:s, s:b}", "move", text, "places", places,
			 "choice", gesture.choice, "partial", mv->partial);
}

/*
 * Seat's legal moves: their canonical texts (partial ones as their prefix)
 * into *texts, and the same moves with their gestures into *options,
 * followed there by the moves the seat may make at any time.
 */
static void legal_moves(const game_loaded *g, int seat, json_t **texts, json_t **options)
{
	rules_move_list list = {0};

	*texts = json_array();
	*options = json_array();
	size_t answers = 0;

	if (!g->rec->over && !game_open(g)) {
		answers = g->rules->legal_moves(g->pos, seat, &list);
		if (g->rules->anytime_moves)
			g->rules->anytime_moves(g->pos, seat, &list);
	}
	for (size_t i = 0; i < list.n; i++) {
		json_t *option = view_move_option(g, &list.v[i]);
		if (i < answers)
			json_array_append(*texts, json_object_get(option, "move"));
		json_array_append_new(*options, option);
	}
	rules_move_list_free(&list);
}

/*
 * The finishing places, seats grouped by rank: [{"place": 1, "seats": ["South"]},
 * {"place": 2, "seats": ["East", "North"]}, ...]. (A "place" elsewhere in the
 * service is a square a move touches, as in rules.h.)
 */
static json_t *finishing_places(const rules_game *rules, json_t *ranks)
{
	json_t *out = json_array();

	for (int rank = 1; rank <= rules->nseats; rank++) {
		unsigned mask = 0;
		for (int i = 0; i < rules->nseats; i++)
			if (json_integer_value(json_array_get(ranks, (size_t)i)) == rank)
				mask |= 1u << i;
		if (mask)
			json_array_append_new(out, json_pack("{s:i, s:o}", "place", rank, "seats",
							     view_seat_list(rules, mask)));
	}
	return out;
}

int view_client_seeds_open(const game_loaded *g)
{
	return !g->rec->over && !game_open(g) && g->rec->dice_version >= DICE_V2 && !g->rec->dice_rolled;
}

/* A seat's client seed as JSON: the string, or null when it has none. */
static json_t *client_seed(const db_seat *s)
{
	return s->client_seed ? json_string(s->client_seed) : json_null();
}

/* Seconds as days for the API: a whole number when whole (3, not 3.0), else a fraction. */
static json_t *days_json(long long s)
{
	return s % CLOCK_DAY_S ? json_real((double)s / CLOCK_DAY_S) : json_integer(s / CLOCK_DAY_S);
}

json_t *view_clock(const game_loaded *g, long long now)
{
	return view_clock_of(g->rules, g->clock, now);
}

json_t *view_clock_of(const rules_game *rules, const db_clock *c, long long now)
{
	json_t *seats, *o;
	char at[32], until[32];

	if (!c)
		return json_null();
	seats = json_array();
	for (int i = 0; i < c->nseats && i < rules->nseats; i++) {
		clock_iso(c->seats[i].deadline, at);
		clock_iso(c->seats[i].paused_until, until);
		json_array_append_new(seats, json_pack("{s:s, s:I, s:o, s:o}", "seat", rules->seat_names[i],
			"remaining_s", (json_int_t)clock_remaining(c, i, now),
			"deadline", c->seats[i].deadline ? json_string(at) : json_null(),
			"vacation_until", c->seats[i].paused_until > now ? json_string(until) : json_null()));
	}
	o = json_pack("{s:s, s:o}", "type", clock_type_name(c->type), "days", days_json(c->base_s));
	if (c->type == DB_CLOCK_BANK) {
		json_object_set_new(o, "increment_days", days_json(c->increment_s));
		json_object_set_new(o, "max_days", days_json(c->max_s));
	}
	json_object_set_new(o, "seats", seats);
	return o;
}

json_t *view_game_timeless(const game_loaded *g, int seat)
{
	const db_game *rec = g->rec;
	json_t *seats = json_array(), *o;

	for (int i = 0; i < rec->nseats; i++)
		json_array_append_new(seats, json_pack("{s:s, s:s, s:o, s:b}", "seat",
			g->rules->seat_names[rec->seats[i].seat], "name", rec->seats[i].name,
			"client_seed", client_seed(&rec->seats[i]), "open", rec->seats[i].open));
	o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:o, s:o, s:o, s:s, s:o}",
		"id", rec->id,
		"variant", rec->variant,
		"title", g->rules->title,
		"rules_version", rec->rules_version,
		"status", rec->over ? "over" : "running",
		"ply", rec->ply,
		"turn", view_seat_list(g->rules, game_turn_mask(g)),
		"seats", seats,
		"position", view_position(g, seat),
		"dice_commitment", rec->commitment,
		"draw_offer", rec->draw_offer >= 0 ? json_string(g->rules->seat_names[rec->draw_offer]) : json_null());
	json_object_set_new(o, "draw_accepted_by", view_seat_list(g->rules, rec->draw_offer >= 0 ? rec->draw_accepts : 0));
	json_object_set_new(o, "version", json_integer(rec->version));
	json_object_set_new(o, "dice_version", json_integer(rec->dice_version));
	json_object_set_new(o, "client_seeds_open", json_boolean(view_client_seeds_open(g)));
	json_object_set_new(o, "open_seats", json_integer(rec->open_seats));
	if (rec->open_seats > 0 && rec->open_until)
		json_object_set_new(o, "open_until", json_string(rec->open_until));
	if (rec->over) {
		json_t *ranks = json_loads(rec->ranks ? rec->ranks : "[]", 0, NULL);
		if (!ranks)
			ranks = json_array();
		json_object_set_new(o, "result", json_pack("{s:s, s:O, s:o}", "summary",
			rec->result ? rec->result : "", "ranks", ranks, "places", finishing_places(g->rules, ranks)));
		json_decref(ranks);
	} else {
		json_object_set_new(o, "result", json_null());
	}
	if (seat >= 0) {
		json_object_set_new(o, "seat", json_string(g->rules->seat_names[seat]));
		json_t *texts, *options;
		legal_moves(g, seat, &texts, &options);
		json_object_set_new(o, "legal_moves", texts);
		json_object_set_new(o, "legal", options);
	}
	return o;
}

json_t *view_game(const game_loaded *g, int seat)
{
	json_t *o = view_game_timeless(g, seat);

	json_object_set_new(o, "clock", view_clock(g, (long long)time(NULL)));
	return o;
}

const char *view_move_text(const db_move *m, int viewer)
{
	return m->secret && m->seat != viewer ? "(hidden until revealed)" : m->move;
}

/* The page's fields beside its list: the game's ply count, the page asked for, and where the next one starts. */
static void set_page(json_t *o, const game_loaded *g, int from, int limit, size_t n)
{
	int next = from + (int)n;

	json_object_set_new(o, "plies", json_integer(g->rec->ply));
	json_object_set_new(o, "from", json_integer(from));
	json_object_set_new(o, "limit", json_integer(limit));
	json_object_set_new(o, "next", n > 0 && next < g->rec->ply ? json_integer(next) : json_null());
}

static json_t *moves_json(app *a, const game_loaded *g, int viewer, int from, int limit, int detailed,
			  app_error *err)
{
	db_move *moves;
	size_t n;
	db_error de;
	json_t *list, *out;

	if (db_moves_range(app_db(a), g->rec->id, from, limit, &moves, &n, &de)) {
		app_fail(err, E_INTERNAL, "cannot read the moves");
		return NULL;
	}
	list = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *stored = json_loads(moves[i].dice, 0, NULL), *dice = json_array(), *roll;
		size_t k;
		json_array_foreach(stored, k, roll)
			json_array_append(dice, json_object_get(roll, "value"));
		json_t *full = detailed ? stored : (json_decref(stored), NULL);
		int hidden = moves[i].secret && moves[i].seat != viewer;
		json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:b}",
			"ply", moves[i].ply,
			"seat", g->rules->seat_names[moves[i].seat],
			"move", view_move_text(&moves[i], viewer),
			"note", hidden ? "" : moves[i].note,
			"at", moves[i].at,
			"dice", dice,
			"hidden", moves[i].secret));
		json_t *places = hidden ? NULL : json_loads(moves[i].places ? moves[i].places : "[]", 0, NULL);
		json_object_set_new(json_array_get(list, json_array_size(list) - 1), "places",
				    places ? places : json_array());
		if (full)
			json_object_set_new(json_array_get(list, json_array_size(list) - 1), "rolls", full);
	}
	db_moves_free(moves, n);
	out = json_pack("{s:o}", "moves", list);
	set_page(out, g, from, limit, n);
	return out;
}

json_t *view_moves(app *a, const game_loaded *g, int viewer, int from, int limit, app_error *err)
{
	return moves_json(a, g, viewer, from, limit, 0, err);
}

json_t *view_dice(app *a, const game_loaded *g, int from, int limit, app_error *err)
{
	json_t *moves = moves_json(a, g, -1, from, limit, 1, err), *rolls, *m, *out;
	size_t i;

	if (!moves)
		return NULL;
	rolls = json_array();
	json_array_foreach(json_object_get(moves, "moves"), i, m) {
		json_t *roll;
		size_t k;
		json_array_foreach(json_object_get(m, "rolls"), k, roll)
			json_array_append_new(rolls, json_pack("{s:O, s:O, s:i, s:O, s:O}",
				"ply", json_object_get(m, "ply"), "seat", json_object_get(m, "seat"),
				"k", (int)k, "sides", json_object_get(roll, "sides"),
				"value", json_object_get(roll, "value")));
	}
	json_t *seeds = json_array();
	for (int i = 0; i < g->rec->nseats; i++)
		json_array_append_new(seeds, json_pack("{s:s, s:o}", "seat", g->rules->seat_names[i],
						       "client_seed", client_seed(&g->rec->seats[i])));
	int v2 = g->rec->dice_version >= DICE_V2;
	out = json_pack("{s:s, s:i, s:s, s:o, s:s, s:s, s:o}",
		"game", g->rec->id,
		"version", v2 ? DICE_V2 : DICE_V1,
		"commitment", g->rec->commitment,
		"client_seeds", seeds,
		"algorithm", v2 ? "sha256(seed) = commitment; roll k of ply p = HMAC-SHA256(seed, "
			     "\"rookery-dice/v2|<game>|<p>|<k>\" followed by \"|<n>:<client seed>\" for each seat "
			     "in seat order, n = the client seed's length in bytes, 0 for none), big-endian 32-bit "
			     "words, rejection below 2^32 - 2^32 mod sides, value = word mod sides + 1"
			: "sha256(seed) = commitment; roll k of ply p = "
			     "HMAC-SHA256(seed, \"rookery-dice/v1|<game>|<p>|<k>\"), big-endian 32-bit words, "
			     "rejection below 2^32 - 2^32 mod sides, value = word mod sides + 1",
		"status", g->rec->over ? "over" : "running",
		"rolls", rolls);
	set_page(out, g, from, limit, json_array_size(json_object_get(moves, "moves")));
	json_decref(moves);
	if (g->rec->over) {
		char hex[DB_SEED_BYTES * 2 + 1];
		sodium_bin2hex(hex, sizeof hex, g->rec->seed, DB_SEED_BYTES);
		json_object_set_new(out, "seed", json_string(hex));
	} else {
		json_object_set_new(out, "seed", json_null());
	}
	return out;
}
