/* test_rules_complex_allegiance.c - the Complex Allegiance Chess rules against
 * docs/rules/complex-allegiance.md: scenarios CA1-CA17, notation, position text, random games,
 * gestures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_check.h"

extern const rules_game rules_complex_allegiance;
static const rules_game *const G = &rules_complex_allegiance;

enum { NORTH = 0, EAST = 1, SOUTH = 2, WEST = 3 };

#define START "ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/" \
	"wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/" \
	"wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-"

/* ---- helpers ---- */

typedef char grid_t[10][10][6];

static int corner(int r, int f)
{
	return (r == 0 || r == 9) && (f == 0 || f == 9);
}

/* "e2" -> rank index 1, file index 4. */
static void square_of(const char *s, int *r, int *f)
{
	*f = s[0] - 'a';
	*r = atoi(s + 1) - 1;
	assert_true(*f >= 0 && *f < 10 && *r >= 0 && *r < 10);
}

/* Pieces as "nK e1, NWP* b2, sQ e5": owner (n e s w, or NW NE SW SE for a
 * shared piece), letter, '*' when never moved, square. */
static void place(grid_t g, const char *pieces)
{
	const char *p = pieces;

	while (*p) {
		char tok[6] = "";
		size_t n = 0;
		int r, f;
		if (*p == ' ' || *p == ',') {
			p++;
			continue;
		}
		while (*p && *p != ' ' && n < 5)
			tok[n++] = *p++;
		tok[n] = 0;
		while (*p == ' ')
			p++;
		square_of(p, &r, &f);
		while (*p && *p != ',')
			p++;
		assert_false(corner(r, f));
		assert_string_equal(g[r][f], "");
		strcpy(g[r][f], tok);
	}
}

static rules_position *setup_grid(grid_t g, char side)
{
	static const char *const kings[4] = { "nK", "eK", "sK", "wK" };
	static const char *const squares[4] = { "e1", "j5", "f10", "a6" };
	char text[1024];
	size_t n = 0;

	/* The four Kings on their start squares unless placed elsewhere. */
	for (int s = 0; s < 4; s++) {
		int found = 0, r, f;
		for (r = 0; r < 10; r++)
			for (f = 0; f < 10; f++)
				if (!strncmp(g[r][f], kings[s], 2))
					found = 1;
		if (found)
			continue;
		square_of(squares[s], &r, &f);
		assert_string_equal(g[r][f], "");
		strcpy(g[r][f], kings[s]);
	}
	n += (size_t)snprintf(text, sizeof text, "ca1:");
	for (int r = 0; r < 10; r++) {
		for (int f = 0; f < 10; f++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s",
					      corner(r, f) ? "#" : g[r][f][0] ? g[r][f] : ".");
		text[n++] = r < 9 ? '/' : ':';
	}
	snprintf(text + n, sizeof text - n, "%c:-:-", side);
	return position_of(text);
}

/* A position from a piece list (plus the Kings the Scenarios assume) and the
 * seat to move, 'N', 'E', 'S' or 'W'. */
static rules_position *setup(const char *pieces, char side)
{
	grid_t g;

	memset(g, 0, sizeof g);
	place(g, pieces);
	return setup_grid(g, side);
}

/* The end of the position text: ":<to move>:<en passant>:<result>". */
static void expect_state(const rules_position *pos, const char *tail)
{
	char *s = G->serialize(pos);
	size_t n = strlen(s), t = strlen(tail);

	if (n < t || strcmp(s + n - t, tail))
		fprintf(stderr, "position %s does not end in %s\n", s, tail);
	assert_true(n >= t);
	assert_string_equal(s + n - t, tail);
	free(s);
}

/* The piece on a square as "nK" or "NWQ", "" when empty. */
static const char *at(const rules_position *pos, const char *square)
{
	static char buf[8];
	static const char *const groups[16] = {
		[1 | 8] = "NW", [1 | 2] = "NE", [4 | 8] = "SW", [4 | 2] = "SE",
	};
	rules_view v;
	int r, f;

	square_of(square, &r, &f);
	G->view(pos, &v);
	const rules_cell *c = &v.cell[r][f];
	if (!c->piece[0])
		return "";
	if (c->owner >= 0) {
		assert_int_equal(c->controllers, 0);
		snprintf(buf, sizeof buf, "%c%s", "nesw"[c->owner], c->piece);
	} else {
		assert_non_null(groups[c->controllers & 15]);
		snprintf(buf, sizeof buf, "%s%s", groups[c->controllers & 15], c->piece);
	}
	return buf;
}

/* ---- the Scenarios ---- */

static void test_ca1_start(void **state)
{
	rules_position *pos = *state, *p;
	char *moves;

	expect_position(pos, START);
	assert_int_equal(G->turn(pos), 1u << NORTH);
	assert_int_equal(count_moves(pos, NORTH), 14);
	moves = listed_moves(pos, to_move(pos), " ");
	assert_string_equal(moves, "Nc1-d3 Nh1-g3 c2-c3 c2-c4 d2-d3 d2-d4 e2-e3 e2-e4 f2-f3 f2-f4 "
			    "g2-g3 g2-g4 h2-h3 h2-h4");
	free(moves);
	for (int s = EAST; s <= WEST; s++)
		assert_int_equal(count_moves(pos, s), 0);
	expect_legal(pos, "e2-e4", "e2-e4");
	expect_reject(pos, EAST, "i3-h3", RULES_E_TURN, "it is not your turn: North is to move");
	expect_position(pos, START);

	play(pos, "e2-e4", "e2-e4", "");
	assert_string_equal(at(pos, "e4"), "nP");
	assert_string_equal(at(pos, "e2"), "");
	assert_int_equal(G->turn(pos), 1u << EAST);
	/* A double step by North gives South an en passant right on e3. */
	expect_state(pos, ":E:e3e4=S:-");
	play(pos, "i3-h3", "i3-h3", "");
	assert_int_equal(G->turn(pos), 1u << SOUTH);

	/* The array is the same from every edge: each seat has 14 first moves. */
	p = start_pos();
	play(p, "e2-e4", "e2-e4", "");
	assert_int_equal(count_moves(p, EAST), 14);
	moves = listed_moves(p, to_move(p), " ");
	assert_string_equal(moves, "Nj3-h4 Nj8-h7 i3-g3 i3-h3 i4-g4 i4-h4 i5-g5 i5-h5 i6-g6 i6-h6 "
			    "i7-g7 i7-h7 i8-g8 i8-h8");
	free(moves);
	play(p, "i5-g5", "i5-g5", "");
	assert_int_equal(count_moves(p, SOUTH), 14);
	play(p, "e9-e7", "e9-e7", "");
	assert_int_equal(count_moves(p, WEST), 14);
	moves = listed_moves(p, to_move(p), " ");
	assert_string_equal(moves, "Na3-c4 Na8-c7 b3-c3 b3-d3 b4-c4 b4-d4 b5-c5 b5-d5 b6-c6 b6-d6 "
			    "b7-c7 b7-d7 b8-c8 b8-d8");
	free(moves);
	G->free_position(p);
}

static void test_ca2_corners(void **state)
{
	rules_position *n = setup("nR b1, wN b3", 'N');
	rules_position *w = setup("nR b1, wN b3", 'W');
	(void)state;

	expect_illegal(n, "Rb1-a1", "a1 is not on the board (the corners a1, j1, a10 and j10 do not exist)");
	expect_legal(n, "Rb1-c1", "Rb1-c1");
	expect_illegal(w, "Nb3-a1", "a1 is not on the board");
	expect_legal(w, "Nb3-c1", "Nb3-c1");
	/* Not even as a from-square. */
	expect_illegal(w, "a10-b10", "a10 is not on the board");
	G->free_position(n);
	G->free_position(w);
}

static void test_ca3_side_neighbours(void **state)
{
	rules_position *pos = setup("nQ e5, wP e6, sP e4, eP f5", 'N');
	(void)state;

	expect_illegal(pos, "Qe5xe6",
		       "e6 holds West's Pawn: North may capture only South's pieces and shared pieces it does not control");
	expect_illegal(pos, "Qe5xf5", "f5 holds East's Pawn: North may capture only South's pieces");
	expect_legal(pos, "Qe5xe4", "Qe5xe4");
	play(pos, "Qe5xe4", "Qe5xe4", "");
	assert_string_equal(at(pos, "e4"), "nQ");
	G->free_position(pos);
}

static void test_ca4_nw_pawn_by_north(void **state)
{
	rules_position *pos = setup("NWP* b2, sN a3, sN c3", 'N');
	(void)state;

	expect_legal(pos, "b2xa3", "b2xa3");
	expect_illegal(pos, "b2xc3",
		       "the shared NW Pawn on b2, moved by North, may not capture away from West's edge (file a)");
	expect_legal(pos, "b2-b3", "b2-b3");
	expect_legal(pos, "b2-b4", "b2-b4");
	play(pos, "b2xa3", "b2xa3", "");
	assert_string_equal(at(pos, "a3"), "NWP");
	G->free_position(pos);
}

static void test_ca5_nw_pawn_by_west(void **state)
{
	rules_position *pos = setup("NWP* b2, eN c1, eN c3", 'W');
	rules_position *dbl;
	(void)state;

	expect_legal(pos, "b2xc1", "b2xc1");
	expect_illegal(pos, "b2xc3",
		       "the shared NW Pawn on b2, moved by West, may not capture away from North's edge (rank 1)");
	expect_legal(pos, "b2-c2", "b2-c2");
	expect_legal(pos, "b2-d2", "b2-d2");
	dbl = G->clone(pos);
	play(dbl, "b2-d2", "b2-d2", "");
	assert_string_equal(at(dbl, "d2"), "NWP");
	/* East and South may take the NW pawn: both get the right. */
	expect_state(dbl, ":N:c2d2=ES:-");
	play(pos, "b2xc1", "b2xc1", "");
	assert_string_equal(at(pos, "c1"), "NWP");
	G->free_position(pos);
	G->free_position(dbl);
}

static void test_ca6_who_captures_shared(void **state)
{
	rules_position *e = setup("NWP b2, eB d4, sR b6", 'E');
	rules_position *s = setup("NWP b2, eB d4, sR b6", 'S');
	rules_position *n = setup("SWP b9, nQ b6, wQ d9", 'N');
	rules_position *w = setup("SWP b9, nQ b6, wQ d9", 'W');
	(void)state;

	expect_legal(e, "Bd4xb2", "Bd4xb2");
	expect_legal(s, "Rb6xb2", "Rb6xb2");
	expect_legal(n, "Qb6xb9", "Qb6xb9");
	expect_illegal(w, "Qd9xb9", "b9 holds the shared SW Pawn, which you control");
	play(e, "Bd4xb2", "Bd4xb2", "");
	assert_string_equal(at(e, "b2"), "eB");
	G->free_position(e);
	G->free_position(s);
	G->free_position(n);
	G->free_position(w);
}

static void test_ca7_shared_promotion_and_queen(void **state)
{
	rules_position *p = setup("NWP i2", 'W');
	rules_position *n = setup("NWQ e5, sP c5, sP g5, sP e7", 'N');
	rules_position *w = setup("NWQ e5, eP e3, eP e8, eP c5", 'W');
	rules_view v;
	(void)state;

	play(p, "i2-j2", "i2-j2=Q", "shared NW Queen");
	assert_string_equal(at(p, "j2"), "NWQ");
	G->view(p, &v);
	assert_int_equal(v.cell[1][9].owner, -1);
	assert_int_equal(v.cell[1][9].controllers, (1u << NORTH) | (1u << WEST));
	assert_string_equal(v.cell[1][9].piece, "Q");

	expect_legal(n, "Qe5xc5", "Qe5xc5");
	expect_illegal(n, "Qe5xg5", "the shared NW Queen on e5, moved by North, may not capture away from West's edge");
	expect_legal(n, "Qe5xe7", "Qe5xe7");
	/* Non-capturing moves are free. */
	expect_legal(n, "Qe5-h8", "Qe5-h8");

	expect_legal(w, "Qe5xe3", "Qe5xe3");
	expect_illegal(w, "Qe5xe8", "the shared NW Queen on e5, moved by West, may not capture away from North's edge");
	expect_legal(w, "Qe5xc5", "Qe5xc5");
	expect_legal(w, "Qe5-e7", "Qe5-e7");
	G->free_position(p);
	G->free_position(n);
	G->free_position(w);
}

static void test_ca8_en_passant_next_turn(void **state)
{
	rules_position *pos = setup("nP* d2, sP e4", 'N');
	rules_position *late;
	rules_position *east = setup("nP* d2, sP e4, eP e2", 'N');
	(void)state;

	play(pos, "d2-d4", "d2-d4", "");
	expect_state(pos, ":E:d3d4=S:-");
	late = G->clone(pos);
	play(pos, "Kj5-j4", "Kj5-j4", "");
	expect_legal(pos, "e4xd3 ep", "e4xd3");
	play(pos, "e4xd3", "e4xd3", "en passant, removes d4");
	assert_string_equal(at(pos, "d3"), "sP");
	assert_string_equal(at(pos, "d4"), "");
	assert_string_equal(at(pos, "e4"), "");
	expect_state(pos, ":W:-:-");

	/* South plays something else: the right has expired. */
	play(late, "Kj5-j4", "Kj5-j4", "");
	play(late, "Kf10-f9", "Kf10-f9", "");
	expect_state(late, ":W:-:-");
	play(late, "Ka6-a5", "Ka6-a5", "");
	play(late, "Ke1-e2", "Ke1-e2", "");
	play(late, "Kj4-j3", "Kj4-j3", "");
	expect_illegal(late, "e4xd3", "the Pawn on e4 moves diagonally only to capture, and d3 is empty");

	/* East's pawn on e2 could step onto d3, but East may not take North's pawn. */
	play(east, "d2-d4", "d2-d4", "");
	expect_illegal(east, "e2xd3", "d3 is empty, and you may not take the pawn on d4 en passant");
	G->free_position(pos);
	G->free_position(late);
	G->free_position(east);
}

static void test_ca9_en_passant_perpendicular(void **state)
{
	rules_position *pos = setup("NWP* b2, eP d1", 'W');
	rules_position *a, *b = setup("NWP* b2, sP d3", 'W');
	(void)state;

	play(pos, "b2-d2", "b2-d2", "");
	expect_state(pos, ":N:c2d2=ES:-");
	a = G->clone(pos);
	play(pos, "Ke1-f1", "Ke1-f1", "");
	play(pos, "d1xc2", "d1xc2", "en passant, removes d2");
	assert_string_equal(at(pos, "c2"), "eP");
	assert_string_equal(at(pos, "d2"), "");
	assert_string_equal(at(pos, "d1"), "");
	/* South's right lapsed with the pawn. */
	expect_state(pos, ":S:-:-");

	/* Variant A: North moves the NW pawn on; the right is gone. */
	play(a, "d2-d3", "d2-d3", "");
	assert_string_equal(at(a, "d3"), "NWP");
	expect_state(a, ":E:-:-");
	expect_illegal(a, "d1xc2", "moves diagonally only to capture, and c2 is empty");

	/* Variant B: South takes on its turn, after East lost its right. */
	play(b, "b2-d2", "b2-d2", "");
	play(b, "Ke1-f1", "Ke1-f1", "");
	play(b, "Kj5-j4", "Kj5-j4", "");
	expect_state(b, ":S:c2d2=S:-");
	play(b, "d3xc2", "d3xc2", "en passant, removes d2");
	assert_string_equal(at(b, "c2"), "sP");
	assert_string_equal(at(b, "d2"), "");
	G->free_position(pos);
	G->free_position(a);
	G->free_position(b);
}

/* A shared pawn takes en passant for a controller, in its allowed direction only. */
static void test_en_passant_with_shared_pawn(void **state)
{
	rules_position *ok = setup("sP* c9, NWP d7", 'S');
	rules_position *away = setup("sP* c9, NWP b7", 'S');
	(void)state;

	play(ok, "c9-c7", "c9-c7", "");
	expect_state(ok, ":W:c8c7=N:-");
	play(ok, "Ka6-a5", "Ka6-a5", "");
	play(ok, "d7xc8", "d7xc8", "en passant, removes c7");
	assert_string_equal(at(ok, "c8"), "NWP");
	assert_string_equal(at(ok, "c7"), "");

	play(away, "c9-c7", "c9-c7", "");
	play(away, "Ka6-a5", "Ka6-a5", "");
	expect_illegal(away, "b7xc8", "the shared NW Pawn on b7, moved by North, may not capture away from West's edge");
	G->free_position(ok);
	G->free_position(away);
}

static void test_ca10_castling(void **state)
{
	const char *pieces = "nK* e1, nR* b1, nR* i1, sQ e5";
	rules_position *pos = setup(pieces, 'N');
	rules_position *q = setup(pieces, 'N');
	rules_position *moved = setup(pieces, 'N');
	rules_position *blocked = setup("nK* e1, nR* b1, nR* i1, sQ e5, nB d1", 'N');
	(void)state;

	expect_legal(pos, "O-O", "O-O");
	expect_legal(pos, "0-0", "O-O");
	expect_legal(pos, "o-o+", "O-O");
	expect_legal(pos, "Ke1-c1", "O-O");
	expect_legal(pos, "e1c1", "O-O");
	expect_legal(pos, "O-O-O", "O-O-O");
	expect_legal(pos, "0-0-0", "O-O-O");
	expect_legal(pos, "Ke1-g1", "O-O-O");
	play(pos, "O-O", "O-O", "");
	assert_string_equal(at(pos, "c1"), "nK");
	assert_string_equal(at(pos, "d1"), "nR");
	assert_string_equal(at(pos, "b1"), "");
	assert_string_equal(at(pos, "e1"), "");
	play(q, "Ke1-g1", "O-O-O", "");
	assert_string_equal(at(q, "g1"), "nK");
	assert_string_equal(at(q, "f1"), "nR");
	assert_string_equal(at(q, "i1"), "");

	/* The Rook went to b3 and came back: no O-O, O-O-O still fine. */
	play(moved, "Rb1-b3", "Rb1-b3", "");
	play(moved, "Kj5-j4", "Kj5-j4", "");
	play(moved, "Kf10-f9", "Kf10-f9", "");
	play(moved, "Ka6-a5", "Ka6-a5", "");
	play(moved, "Rb3-b1", "Rb3-b1", "");
	play(moved, "Kj4-j5", "Kj4-j5", "");
	play(moved, "Kf9-f10", "Kf9-f10", "");
	play(moved, "Ka5-a6", "Ka5-a6", "");
	expect_illegal(moved, "O-O", "cannot castle (O-O): there is no unmoved Rook of yours on b1");
	expect_illegal(moved, "Ke1-c1", "cannot castle (O-O): there is no unmoved Rook of yours on b1");
	expect_legal(moved, "O-O-O", "O-O-O");

	expect_illegal(blocked, "O-O", "cannot castle (O-O): d1 is not empty");
	expect_legal(blocked, "O-O-O", "O-O-O");

	/* Once the King has moved, never again. */
	play(q, "Kj5-j4", "Kj5-j4", "");
	play(q, "Kf10-f9", "Kf10-f9", "");
	play(q, "Ka6-a5", "Ka6-a5", "");
	expect_illegal(q, "O-O", "cannot castle (O-O): your King has moved");
	G->free_position(pos);
	G->free_position(q);
	G->free_position(moved);
	G->free_position(blocked);
}

static void test_ca10_castling_every_seat(void **state)
{
	static const struct {
		char side;
		const char *pieces, *o_o, *o_o_o, *k1, *r1, *k2, *r2;
	} t[] = {
		{ 'E', "eK* j5, eR* j2, eR* j9", "Kj5-j3", "Kj5-j7", "j3", "j4", "j7", "j6" },
		{ 'S', "sK* f10, sR* i10, sR* b10", "Kf10-h10", "Kf10-d10", "h10", "g10", "d10", "e10" },
		{ 'W', "wK* a6, wR* a9, wR* a2", "Ka6-a8", "Ka6-a4", "a8", "a7", "a4", "a5" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		rules_position *a = setup(t[i].pieces, t[i].side);
		rules_position *b = setup(t[i].pieces, t[i].side);
		expect_legal(a, t[i].o_o, "O-O");
		expect_legal(a, t[i].o_o_o, "O-O-O");
		play(a, "O-O", "O-O", "");
		play(b, "O-O-O", "O-O-O", "");
		char king[3] = { (char)tolower((unsigned char)t[i].side), 'K', 0 };
		char rook[3] = { king[0], 'R', 0 };
		assert_string_equal(at(a, t[i].k1), king);
		assert_string_equal(at(a, t[i].r1), rook);
		assert_string_equal(at(b, t[i].k2), king);
		assert_string_equal(at(b, t[i].r2), rook);
		G->free_position(a);
		G->free_position(b);
	}
}

static void check_king_result(const rules_position *pos, int winner, int loser, const char *summary)
{
	rules_result res;

	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	for (int s = 0; s < 4; s++)
		assert_int_equal(res.rank[s], s == winner ? 1 : s == loser ? 4 : 2);
	assert_string_equal(res.summary, summary);
	assert_int_equal(G->turn(pos), 0u);
	for (int s = 0; s < 4; s++)
		assert_int_equal(count_moves(pos, s), 0);
}

static void test_ca11_king_capture_ends_game(void **state)
{
	rules_position *pos = setup("sQ e5", 'S');
	rules_move m;
	rules_error err;
	(void)state;

	assert_int_equal(try_parse(pos, -1, "Kf10-f9", &m, &err), RULES_OK);
	play(pos, "Qe5xe1", "Qe5xe1", "captures North's King: South wins");
	assert_string_equal(at(pos, "e1"), "sQ");
	check_king_result(pos, SOUTH, NORTH,
			  "South wins: North's King captured (South 1st, East and West share 2nd, North 4th)");
	expect_state(pos, ":-:-:SxN");
	expect_reject(pos, WEST, "Ka6-a5", RULES_E_OVER, "the game is over");
	expect_reject(pos, SOUTH, "Kf10-f9", RULES_E_OVER, "the game is over");
	assert_int_equal(G->apply(pos, &m, NULL, NULL, &err), RULES_E_OVER);
	G->free_position(pos);
}

static void test_ca12_king_taken_by_shared_pawn(void **state)
{
	rules_position *pos = setup("SWP b9, nK a8", 'S');
	rules_position *w = setup("SWP b9, nK a8", 'W');
	(void)state;

	play(pos, "b9xa8", "b9xa8", "captures North's King: South wins");
	assert_string_equal(at(pos, "a8"), "SWP");
	check_king_result(pos, SOUTH, NORTH,
			  "South wins: North's King captured (South 1st, East and West share 2nd, North 4th)");
	/* West moves the same pawn toward file j and captures toward rank 10 only. */
	expect_illegal(w, "b9xa8", "the shared SW Pawn on b9 moves forward for West, toward file j");
	expect_legal(w, "b9-c9", "b9-c9");
	G->free_position(pos);
	G->free_position(w);
}

#define CA13 "eK j2, eP i1, eP i2, eP i3, eP j3, nN h1, nP h2, nP h3, nK e1, sK f10, wK a6"

static void test_ca13_automatic_pass(void **state)
{
	rules_position *pos = setup(CA13, 'N'), *bad = NULL;
	rules_error err;
	char *s, *east;
	(void)state;

	/* The position with East to move cannot exist: East would have passed. */
	s = G->serialize(pos);
	east = strdup(s);
	east[strlen(east) - 5] = 'E';
	assert_int_equal(G->deserialize(east, &bad, &err), RULES_E_DATA);
	assert_non_null(strstr(err.message, "the seat to move has no legal move"));
	assert_null(bad);

	play(pos, "Ke1-d1", "Ke1-d1", "East passes");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	expect_state(pos, ":S:-:-");
	play(pos, "Kf10-f9", "Kf10-f9", "");
	play(pos, "Ka6-a5", "Ka6-a5", "");
	play(pos, "Kd1-e1", "Kd1-e1", "East passes");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	free(s);
	free(east);
	G->free_position(pos);
}

/* A full board where nobody can move once b2 is filled: North pawns
 * everywhere but rank 10, East pawns on rank 10 and around South's King. */
static void stuck_grid(grid_t g, const char *empty)
{
	memset(g, 0, sizeof(grid_t));
	place(g, "nK e1, eK j5, sK f10, wK a6, eP e9, eP f9, eP g9");
	for (int r = 0; r < 10; r++)
		for (int f = 0; f < 10; f++)
			if (!corner(r, f) && !g[r][f][0])
				strcpy(g[r][f], r == 9 ? "eP" : "nP");
	for (const char *p = empty; *p; p += strspn(p, " ,")) {
		int r, f;
		square_of(p, &r, &f);
		g[r][f][0] = 0;
		p += strcspn(p, " ,");
	}
}

static void test_ca13_passes_and_draw(void **state)
{
	grid_t g;
	rules_position *pos;
	rules_result res;
	rules_move_list l = { 0 };
	(void)state;

	stuck_grid(g, "b2, b3");
	pos = setup_grid(g, 'N');
	assert_int_equal(count_moves(pos, NORTH), 1);
	play(pos, "b1-b2", "b1-b2", "East passes; South passes; West passes");
	assert_int_equal(G->turn(pos), 1u << NORTH);
	play(pos, "b2-b3", "b2-b3",
	     "East passes; South passes; West passes; North passes; nobody can move: draw, all four share 2nd");
	assert_int_equal(G->turn(pos), 0u);
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	for (int s = 0; s < 4; s++)
		assert_int_equal(res.rank[s], 2);
	assert_string_equal(res.summary, "Draw: nobody can move (all four share 2nd)");
	expect_state(pos, ":-:-:draw");
	for (int s = 0; s < 4; s++)
		assert_int_equal(G->legal_moves(pos, s, &l), 0);
	expect_reject(pos, NORTH, "e1-d1", RULES_E_OVER, "over");

	/* The text of the draw reads back. */
	char *s = G->serialize(pos);
	rules_position *back = NULL;
	assert_int_equal(G->deserialize(s, &back, NULL), 0);
	expect_position(back, s);
	free(s);
	G->free_position(back);
	rules_move_list_free(&l);
	G->free_position(pos);
}

static void test_ca14_promotion(void **state)
{
	rules_position *pos = setup("wP i4, wP b5, eK j7", 'W');
	rules_position *q = G->clone(pos);
	rules_position *edge = setup("nP a9, sR b10", 'N');
	rules_position *empty_edge = setup("nP a9", 'N');
	char *moves;
	(void)state;

	expect_legal(pos, "i4-j4=N", "i4-j4=N");
	expect_legal(pos, "i4-j4", "i4-j4=Q");
	expect_legal(pos, "i4j4r", "i4-j4=R");
	expect_legal(pos, "i4-j4/B", "i4-j4=B");
	expect_parse_error(pos, "i4-j4=K", "'K' is not a promotion piece: write Q, R, B or N");
	expect_parse_error(pos, "i4-j4=P", "'P' is not a promotion piece");
	expect_illegal(pos, "b5-c5=Q", "b5-c5 is not a promotion");
	play(pos, "i4-j4=N", "i4-j4=N", "");
	assert_string_equal(at(pos, "j4"), "wN");
	play(q, "i4-j4", "i4-j4=Q", "");
	assert_string_equal(at(q, "j4"), "wQ");

	/* All four choices are listed as moves of their own. */
	moves = listed_moves(edge, to_move(edge), " ");
	assert_non_null(strstr(moves, "a9xb10=B a9xb10=N a9xb10=Q a9xb10=R"));
	free(moves);
	expect_illegal(edge, "a9-a10", "a10 is not on the board");
	play(edge, "a9xb10", "a9xb10=Q", "");
	assert_string_equal(at(edge, "b10"), "nQ");
	/* Stuck unless it captures. */
	moves = listed_moves(empty_edge, to_move(empty_edge), " ");
	assert_null(strstr(moves, "a9"));
	free(moves);
	G->free_position(pos);
	G->free_position(q);
	G->free_position(edge);
	G->free_position(empty_edge);
}

static void test_ca14b_en_passant_beside_start(void **state)
{
	rules_position *pos = setup("NEP* i2, wP h2", 'N');
	(void)state;

	play(pos, "i2-i4", "i2-i4", "");
	expect_state(pos, ":E:i3i4=SW:-");
	play(pos, "Kj5-j4", "Kj5-j4", "");
	play(pos, "Kf10-f9", "Kf10-f9", "");
	expect_state(pos, ":W:i3i4=W:-");
	play(pos, "h2xi3", "h2xi3", "en passant, removes i4");
	assert_string_equal(at(pos, "i3"), "wP");
	assert_string_equal(at(pos, "i4"), "");
	assert_string_equal(at(pos, "h2"), "");
	G->free_position(pos);
}

static void test_ca14c_never_moved_per_piece(void **state)
{
	rules_position *pos = setup("NWP* b2", 'W');
	(void)state;

	play(pos, "b2-c2", "b2-c2", "");
	expect_state(pos, ":N:-:-");
	play(pos, "c2-c3", "c2-c3", "");
	play(pos, "Kj5-j4", "Kj5-j4", "");
	play(pos, "Kf10-f9", "Kf10-f9", "");
	expect_illegal(pos, "c3-e3", "the shared NW Pawn on c3 has moved before, so it cannot advance two squares");
	expect_legal(pos, "c3-d3", "c3-d3");
	G->free_position(pos);
}

static void test_ca15_resignation(void **state)
{
	rules_position *pos = *state;
	rules_result res;

	assert_non_null(G->resign_result);
	G->resign_result(pos, NORTH, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[EAST], 2);
	assert_int_equal(res.rank[WEST], 2);
	assert_int_equal(res.rank[NORTH], 4);
	assert_string_equal(res.summary,
			    "South wins: North resigned (South 1st, East and West share 2nd, North 4th)");
	G->resign_result(pos, WEST, &res);
	assert_int_equal(res.rank[EAST], 1);
	assert_int_equal(res.rank[NORTH], 2);
	assert_int_equal(res.rank[SOUTH], 2);
	assert_int_equal(res.rank[WEST], 4);
	assert_string_equal(res.summary,
			    "East wins: West resigned (East 1st, North and South share 2nd, West 4th)");
	/* Resigning is not a move. */
	expect_reject(pos, NORTH, "resign", RULES_E_PARSE, "");
	expect_position(pos, START);
}

static void test_ca16_draw_by_agreement(void **state)
{
	rules_position *pos = *state;

	/* The server collects the four acceptances; everybody then shares 2nd. */
	assert_int_equal(G->draw_rank, 2);
	expect_reject(pos, NORTH, "offer draw", RULES_E_PARSE, "");
	expect_reject(pos, EAST, "accept draw", RULES_E_PARSE, "");
}

static void test_ca17_king_into_attack(void **state)
{
	rules_position *pos = setup("sR d8", 'N');
	(void)state;

	expect_legal(pos, "Ke1-d1", "Ke1-d1");
	play(pos, "Ke1-d1", "Ke1-d1", "");
	play(pos, "Kj5-j4", "Kj5-j4", "");
	play(pos, "Rd8xd1", "Rd8xd1", "captures North's King: South wins");
	G->free_position(pos);
}

/* ---- notation (Writing moves) ---- */

static void test_notation_examples(void **state)
{
	rules_position *p;
	(void)state;

	/* 1, 2 */
	p = start_pos();
	expect_legal(p, "e2-e4", "e2-e4");
	expect_legal(p, "nc1d3", "Nc1-d3");
	G->free_position(p);
	/* 3, 4 */
	p = setup("NWP* b2", 'N');
	expect_legal(p, "b2-b4", "b2-b4");
	G->free_position(p);
	p = setup("NWP* b2", 'W');
	expect_legal(p, "b2-d2", "b2-d2");
	G->free_position(p);
	/* 5 */
	p = setup("NWP* b2, sN a3", 'N');
	play(p, "b2xa3", "b2xa3", "");
	G->free_position(p);
	/* 6 */
	p = setup("nP h9", 'N');
	play(p, "h9h10q", "h9-h10=Q", "");
	assert_string_equal(at(p, "h10"), "nQ");
	G->free_position(p);
	/* 7 */
	p = setup("eP b5", 'E');
	play(p, "b5-a5=N", "b5-a5=N", "");
	assert_string_equal(at(p, "a5"), "eN");
	G->free_position(p);
	/* 8 */
	p = setup("NWP i2", 'W');
	play(p, "i2-j2", "i2-j2=Q", "shared NW Queen");
	G->free_position(p);
	/* 9 */
	p = setup("nP* d2, sP e4", 'N');
	play(p, "d2-d4", "d2-d4", "");
	play(p, "Kj5-j4", "Kj5-j4", "");
	play(p, "e4xd3 ep", "e4xd3", "en passant, removes d4");
	G->free_position(p);
	/* 10, 11 */
	p = setup("nK* e1, nR* b1, nR* i1", 'N');
	expect_legal(p, "O-O", "O-O");
	expect_legal(p, "Ke1-g1", "O-O-O");
	G->free_position(p);
	/* 12 */
	p = setup("nQ f1, sP f9", 'N');
	play(p, "Qf1xf9+ # pressure", "Qf1xf9", "");
	G->free_position(p);
}

static void test_notation_rejected_examples(void **state)
{
	rules_position *s = *state;
	rules_position *b = setup("NWP* b2, sN c3", 'N');
	rules_position *q = setup("nQ e5, wP e6", 'N');

	expect_illegal(s, "Rb1-a1", "a1 is not on the board");
	expect_illegal(b, "b2xc3", "may not capture away from West's edge");
	expect_illegal(q, "Qe5xe6", "e6 holds West's Pawn");
	G->free_position(b);
	G->free_position(q);
}

static void test_lexical_rules(void **state)
{
	rules_position *s = *state;
	rules_position *bish = setup("nB b2", 'N');
	rules_position *east = setup("NWP* b2, eP i5", 'E');

	/* Case, spaces, separators, piece letters. */
	expect_legal(s, "e2e4", "e2-e4");
	expect_legal(s, "e2 e4", "e2-e4");
	expect_legal(s, "e2xe4", "e2-e4");
	expect_legal(s, "e2:e4", "e2-e4");
	expect_legal(s, "E2-E4", "e2-e4");
	expect_legal(s, "\t e2 - e4 ", "e2-e4");
	expect_legal(s, "Pe2-e4", "e2-e4");
	expect_legal(s, "p e2e4", "e2-e4");
	expect_legal(s, "NC1-D3", "Nc1-d3");
	expect_legal(s, "N c1 d3", "Nc1-d3");
	expect_legal(s, "e2-e4+", "e2-e4");
	expect_legal(s, "e2-e4 ++ # check?", "e2-e4");
	expect_legal(s, "e2-e4#", "e2-e4");
	expect_legal(s, "e2-e4 ep", "e2-e4");
	expect_legal(s, "e2-e4 E.P.", "e2-e4");
	expect_legal(bish, "bb2-c3", "Bb2-c3");
	expect_legal(bish, "B b2-c3", "Bb2-c3");
	expect_legal(bish, "b b2 c3", "Bb2-c3");
	expect_legal(bish, "b2-c3", "Bb2-c3");
	expect_illegal(bish, "b2-b4", "the Bishop on b2 moves only diagonally");

	expect_parse_error(s, "", "ends too early");
	expect_parse_error(s, "   ", "ends too early");
	expect_parse_error(s, "# only a comment", "");
	expect_parse_error(s, "e2", "ends too early: expected the square the piece moves to");
	expect_parse_error(s, "e2-", "ends too early");
	expect_parse_error(s, "e2-e11", "there is no rank 11: ranks run from 1 to 10");
	expect_parse_error(s, "e0-e4", "there is no rank 0");
	expect_parse_error(s, "e2-e100", "there is no rank 100");
	expect_parse_error(s, "z2-z4", "'z' is not a file");
	expect_parse_error(s, "e2-k4", "'k' is not a file");
	expect_parse_error(s, "K e", "the piece letter 'K' must be followed by the square");
	expect_parse_error(s, "e2-e4 !", "unexpected '!'");
	expect_parse_error(s, "e2-e4 e.p", "unexpected 'e'");
	expect_parse_error(s, "e2-e4=", "ends too early: expected a promotion piece");
	expect_parse_error(s, "e2-e4=Q=Q", "unexpected '='");
	expect_parse_error(s, "e2-e4 x", "'x' is not a promotion piece");
	expect_parse_error(s, "e2--e4", "unexpected '-'");
	expect_parse_error(s, "O-O-O-O", "castling is written O-O or O-O-O");
	expect_parse_error(s, "O", "castling is written O-O or O-O-O");
	expect_parse_error(s, "O-", "ends too early: expected O after '-'");
	expect_parse_error(s, "O-O=Q", "unexpected '='");
	expect_parse_error(s, "e2-e4\n", "unexpected character 0x0a");
	expect_parse_error(s, "e2-e4 \xc3\xa9", "only ASCII");
	expect_parse_error(s, "e2-e4 # caf\xc3\xa9", "only ASCII");

	/* Well formed, but not on this board or not by these rules. */
	expect_illegal(s, "a1-a2", "a1 is not on the board");
	expect_illegal(s, "e3-e4", "there is no piece on e3");
	expect_illegal(s, "i3-h3", "the Pawn on i3 is East's, not yours");
	expect_illegal(east, "b2-b3", "the shared NW Pawn on b2 is moved only by North and West");
	expect_illegal(s, "Ne2-e4", "wrong letter: the piece on e2 is a Pawn, not a Knight");
	expect_illegal(s, "Qf1-f3=Q", "only a pawn promotes, and f1 is a Queen");
	expect_illegal(s, "e2-e4=Q", "e2-e4 is not a promotion");
	expect_illegal(s, "e2-e2", "a move must go to another square");
	expect_illegal(s, "Nc1-c3", "the Knight on c1 moves in an L");
	expect_illegal(s, "Bd1-d3", "the Bishop on d1 moves only diagonally");
	expect_illegal(s, "Rb1-b3", "the path of the Rook on b1 is blocked at b2");
	expect_illegal(s, "Qf1-g3", "the Queen on f1 moves only along a rank, a file or a diagonal");
	expect_illegal(s, "Ke1-e2", "e2 holds your own Pawn");
	expect_illegal(s, "Ke1-e3", "the King on e1 moves one square in any direction");
	expect_illegal(s, "e1-c1", "cannot castle (O-O): d1 is not empty");
	expect_illegal(s, "O-O-O", "cannot castle (O-O-O): f1 is not empty");
	expect_illegal(s, "e2-e5", "the Pawn on e2 moves forward for North, toward rank 10");
	expect_illegal(s, "e2-f3", "the Pawn on e2 moves diagonally only to capture, and f3 is empty");
	expect_illegal(s, "Rb1xb2", "b2 holds the shared NW Pawn, which you control");
	expect_illegal(east, "i5-h4", "moves diagonally only to capture");
	expect_illegal(east, "i5-j5", "the Pawn on i5 moves forward for East, toward file a");

	expect_length_limit(s, "e2-e4", "e2-e4");

	/* Syntax is checked before whose turn it is. */
	expect_reject(s, EAST, "hello", RULES_E_PARSE, "");
	expect_reject(s, EAST, "i3-h3", RULES_E_TURN, "North is to move");
	expect_reject(s, 7, "e2-e4", RULES_E_TURN, "no seat 7");
	expect_reject(s, -1, "e2-e4", RULES_OK, "");
	G->free_position(bish);
	G->free_position(east);
}

/* ---- position text, view and tampered moves ---- */

static void test_serialize_round_trip_and_corruption(void **state)
{
	static const char *bad[] = {
		"",
		"ca1:",
		"ca2:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		/* a corner not '#', '#' elsewhere */
		"ca1:.nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.#....eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		/* unknown owner, unknown letter, a shared King, two NW pieces */
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.xP...eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.nX...eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.NWK...eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.NWQ....eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.NXQ...eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		/* unmoved marks where they cannot be */
		"ca1:#nR*nNnBnK*nQ*nBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.nP*...eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR**#:N:-:-",
		/* pawns on a promotion edge: North on rank 10, the NW pawn on file j */
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBnPsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*.nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*NWP/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		/* rank too short, too long */
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.....eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*.......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		/* seat to move, trailing text, results */
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:X:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:- ",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:-:-:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:draw",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:-:-:draw",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:-:-:SxN",
		/* a King missing, a King taken by a side neighbour */
		"ca1:#nR*nNnB.nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:-:-",
		"ca1:#nR*nNnB.nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:-:-:ExN",
		/* en passant rights that cannot exist */
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*......eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:E:e3e4=S:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*.nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*..nP...eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:E:e3e4=E:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*.nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*..nP...eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:N:e3e4=S:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*.nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*..nP...eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:E:e3e4=:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*.nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*..nP...eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:E:e3e4=S,e3e4=S:-",
		"ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*.nP*nP*nP*NEP*eR*/wNwP*......eP*eN/wBwP*..nP*...eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:E:e3e4=S:-",
	};
	(void)state;

	expect_text_round_trip(START);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_corrupt(bad[i]);

	/* A valid en passant text reads back; every prefix of it is rejected. */
	const char *good = "ca1:#nR*nNnBnK*nQnBnNnR*#/wR*NWP*nP*nP*.nP*nP*nP*NEP*eR*/wNwP*......eP*eN/"
		"wBwP*..nP...eP*eB/wQwP*......eP*eK*/wK*wP*......eP*eQ/wBwP*......eP*eB/wNwP*......eP*eN/"
		"wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*/#sR*sNsBsQsK*sBsNsR*#:E:e3e4=S:-";
	expect_prefixes_refused(good);
}

static void test_en_passant_rights_text(void **state)
{
	rules_position *pos = setup("NWP* b2, nP* g2, eP* i7", 'W');
	rules_position *back = NULL;
	char *s;
	(void)state;

	/* Three rights open at once, oldest first. */
	play(pos, "b2-d2", "b2-d2", "");
	expect_state(pos, ":N:c2d2=ES:-");
	play(pos, "g2-g4", "g2-g4", "");
	expect_state(pos, ":E:c2d2=ES,g3g4=S:-");
	play(pos, "i7-g7", "i7-g7", "");
	expect_state(pos, ":S:c2d2=S,g3g4=S,h7g7=W:-");
	s = G->serialize(pos);
	assert_int_equal(G->deserialize(s, &back, NULL), 0);
	expect_position(back, s);
	free(s);
	G->free_position(back);
	/* South lets both of its rights go; West's stays until West's turn. */
	play(pos, "Kf10-f9", "Kf10-f9", "");
	expect_state(pos, ":W:h7g7=W:-");
	play(pos, "Ka6-a5", "Ka6-a5", "");
	expect_state(pos, ":N:-:-");
	G->free_position(pos);
}

static void test_view(void **state)
{
	rules_position *pos = *state;
	rules_view v;

	G->view(pos, &v);
	expect_grid(&v, 10, 10, "1", "10", "a", "j");
	assert_int_equal(v.nholdings, 0);
	for (int k = 0; k < 4; k++) {
		int r = k < 2 ? 0 : 9, c = k % 2 ? 9 : 0;
		assert_string_equal(v.cell[r][c].kind, "off");
		assert_string_equal(v.cell[r][c].piece, "");
		assert_int_equal(v.cell[r][c].owner, -1);
	}
	/* e1 North's King, j5 East's, f10 South's, a6 West's. */
	assert_string_equal(v.cell[0][4].piece, "K");
	assert_int_equal(v.cell[0][4].owner, NORTH);
	assert_int_equal(v.cell[0][4].controllers, 0);
	assert_string_equal(v.cell[0][4].kind, "");
	assert_string_equal(v.cell[4][9].piece, "K");
	assert_int_equal(v.cell[4][9].owner, EAST);
	assert_string_equal(v.cell[9][5].piece, "K");
	assert_int_equal(v.cell[9][5].owner, SOUTH);
	assert_string_equal(v.cell[5][0].piece, "K");
	assert_int_equal(v.cell[5][0].owner, WEST);
	/* Shared pawns: no owner, two controllers. */
	assert_string_equal(v.cell[1][1].piece, "P");
	assert_int_equal(v.cell[1][1].owner, -1);
	assert_int_equal(v.cell[1][1].controllers, (1 << NORTH) | (1 << WEST));
	assert_int_equal(v.cell[1][8].controllers, (1 << NORTH) | (1 << EAST));
	assert_int_equal(v.cell[8][1].controllers, (1 << SOUTH) | (1 << WEST));
	assert_int_equal(v.cell[8][8].controllers, (1 << SOUTH) | (1 << EAST));
	/* Empty squares. */
	assert_string_equal(v.cell[4][4].piece, "");
	assert_int_equal(v.cell[4][4].owner, -1);
	assert_int_equal(v.cell[4][4].controllers, 0);
	assert_int_equal(G->view_quarter_turns(SOUTH), 0);
	assert_int_equal(G->view_quarter_turns(EAST), 1);
	assert_int_equal(G->view_quarter_turns(NORTH), 2);
	assert_int_equal(G->view_quarter_turns(WEST), 3);
}

/* Tampered flags: a capture mark on a quiet move, a promotion, castling. */
static void test_apply_rejects_bad_moves(void **state)
{
	for (int byte = 5; byte < 8; byte++)
		expect_tampered(*state, NORTH, "e2-e4", (size_t)byte, byte == 6 ? 'Q' : 1, RULES_E_ILLEGAL);
}

/* ---- every listed move round-trips through its text ---- */

static void test_round_trip_listed_moves(void **state)
{
	rules_position *p[6];
	(void)state;

	p[0] = start_pos();
	p[1] = setup("nK* e1, nR* b1, nR* i1, sQ e5, NWQ e4, nP h9, NEP c9", 'N');
	p[2] = setup("NWP* b2, sN a3, sN c3, NEQ f5, eR c7", 'W');
	p[3] = setup("wP i4, wP b5, eK j7, SEP b3, SWQ g6", 'E');
	p[4] = setup(CA13, 'N');
	p[5] = setup("sP b2, sP i2, NWR c3, nN e8, eB g4", 'S');
	for (int i = 0; i < 6; i++) {
		check_round_trips(p[i], -1);
		G->free_position(p[i]);
	}
}

/* ---- the generator agrees with the move checker ---- */

/* Every (from, to) of the mover's pieces that parse accepts is listed (a
 * promotion four times), and nothing else. */
static void cross_check(const rules_position *pos)
{
	static unsigned char listed_n[10][10][10][10];
	rules_move_list l = { 0 };
	int seat = to_move(pos);
	rules_view v;

	if (seat < 0)
		return;
	memset(listed_n, 0, sizeof listed_n);
	G->legal_moves(pos, seat, &l);
	for (size_t i = 0; i < l.n; i++) {
		const unsigned char *raw = l.v[i].raw;   /* type, fr, ff, tr, tf, ... */
		listed_n[raw[1]][raw[2]][raw[3]][raw[4]]++;
	}
	G->view(pos, &v);
	for (int fr = 0; fr < 10; fr++)
		for (int ff = 0; ff < 10; ff++) {
			const rules_cell *c = &v.cell[fr][ff];
			if (!c->piece[0] || !(c->owner == seat || (c->controllers & (1u << seat))))
				continue;
			for (int tr = 0; tr < 10; tr++)
				for (int tf = 0; tf < 10; tf++) {
					char text[16];
					rules_move m;
					snprintf(text, sizeof text, "%c%d-%c%d", 'a' + ff, fr + 1, 'a' + tf, tr + 1);
					int rc = G->parse(pos, seat, text, &m, NULL);
					assert_true(rc == RULES_OK || rc == RULES_E_ILLEGAL);
					int want = rc ? 0 : m.raw[6] ? 4 : 1;
					if (listed_n[fr][ff][tr][tf] != want)
						fprintf(stderr, "mismatch %s: listed %d\n", text,
							listed_n[fr][ff][tr][tf]);
					assert_int_equal(listed_n[fr][ff][tr][tf], want);
				}
		}
	rules_move_list_free(&l);
}

/* ---- random games ---- */

/* Whether a listed move is an en passant capture: a pawn moving diagonally
 * (rank and file both change) onto an empty square. */
static int is_en_passant(const rules_position *pos, const rules_move *m, const rules_view *v)
{
	char buf[RULES_TEXT_MAX];
	int fr, ff, tr, tf;

	G->format(pos, m, buf, sizeof buf);
	if (!islower((unsigned char)buf[0]))
		return 0;
	ff = buf[0] - 'a';
	fr = atoi(buf + 1) - 1;
	const char *to = buf + strcspn(buf, "-x") + 1;
	tf = to[0] - 'a';
	tr = atoi(to + 1) - 1;
	return fr != tr && ff != tf && !v->cell[tr][tf].piece[0];
}

/* A random legal move; en passant captures, rare in random play, are taken
 * half of the times they are offered. */
static void random_ep_move(const rules_position *pos, rules_move *out)
{
	rules_move_list l = { 0 };
	rules_view v;

	assert_true(G->legal_moves(pos, to_move(pos), &l) > 0);
	*out = l.v[rng() % l.n];
	G->view(pos, &v);
	for (size_t i = 0; i < l.n; i++)
		if (is_en_passant(pos, &l.v[i], &v) && rng() % 2)
			*out = l.v[i];
	assert_int_equal(out->partial, 0);
	rules_move_list_free(&l);
}

static int far_edge(int seat, int r, int f)
{
	return seat == NORTH ? r == 9 : seat == EAST ? f == 0 : seat == SOUTH ? r == 0 : f == 9;
}

/* What the random games did, so the test can insist they covered it. */
static int n_king, n_draw, n_pass, n_ep, n_castle, n_promo, n_shared_promo;

/* Invariants after seat moved with outcome note; *npieces is the count before. */
static void check_invariants(const rules_position *pos, int mover, const char *note, int *npieces)
{
	rules_view v;
	rules_result res;
	int kings[4] = { 0, 0, 0, 0 }, shared[16] = { 0 }, count = 0;

	G->view(pos, &v);
	G->result(pos, &res);
	for (int r = 0; r < 10; r++)
		for (int f = 0; f < 10; f++) {
			const rules_cell *c = &v.cell[r][f];
			if (corner(r, f)) {
				assert_string_equal(c->kind, "off");
				assert_string_equal(c->piece, "");
				continue;
			}
			assert_string_equal(c->kind, "");
			if (!c->piece[0]) {
				assert_int_equal(c->owner, -1);
				assert_int_equal(c->controllers, 0);
				continue;
			}
			count++;
			assert_non_null(strchr("KQRBNP", c->piece[0]));
			assert_int_equal(c->piece[1], 0);
			if (c->owner >= 0) {
				assert_true(c->owner < 4);
				assert_int_equal(c->controllers, 0);
				if (c->piece[0] == 'K')
					kings[c->owner]++;
				if (c->piece[0] == 'P')
					assert_false(far_edge(c->owner, r, f));
			} else {
				unsigned m = c->controllers;
				assert_true(m == 9 || m == 3 || m == 12 || m == 6);
				assert_true(c->piece[0] != 'K');
				shared[m]++;
				for (int t = 0; t < 4; t++)
					if (m & (1u << t) && c->piece[0] == 'P')
						assert_false(far_edge(t, r, f));
			}
		}
	for (int m = 0; m < 16; m++)
		assert_true(shared[m] <= 1);
	assert_true(count <= *npieces);
	*npieces = count;

	/* Turn order: the seats after the mover that passed, then the next. */
	int passes = 0;
	for (const char *p = note; (p = strstr(p, " passes")) != NULL; p++)
		passes++;
	for (int k = 0; k < passes && k < 4; k++) {
		char want[32];
		snprintf(want, sizeof want, "%s passes", G->seat_names[(mover + 1 + k) % 4]);
		assert_non_null(strstr(note, want));
	}
	n_pass += passes;
	if (res.over) {
		assert_int_equal(G->turn(pos), 0u);
		for (int t = 0; t < 4; t++)
			assert_int_equal(count_moves(pos, t), 0);
		if (strstr(note, "King")) {
			int loser = -1;
			for (int t = 0; t < 4; t++)
				if (!kings[t])
					loser = t;
			assert_true(loser >= 0);
			assert_int_equal((loser + 2) % 4, mover);
			for (int t = 0; t < 4; t++) {
				assert_int_equal(kings[t], t == loser ? 0 : 1);
				assert_int_equal(res.rank[t], t == mover ? 1 : t == loser ? 4 : 2);
			}
			n_king++;
		} else {
			assert_int_equal(passes, 4);
			assert_non_null(strstr(note, "draw"));
			for (int t = 0; t < 4; t++) {
				assert_int_equal(kings[t], 1);
				assert_int_equal(res.rank[t], 2);
			}
			n_draw++;
		}
	} else {
		int next = (mover + 1 + passes) % 4;
		assert_true(passes < 4);
		for (int t = 0; t < 4; t++)
			assert_int_equal(kings[t], 1);
		assert_int_equal(G->turn(pos), 1u << next);
		for (int t = 0; t < 4; t++)
			if (t != next)
				assert_int_equal(count_moves(pos, t), 0);
		assert_true(count_moves(pos, next) > 0);
	}
}

static void choose_ep(const rules_position *pos, rules_move *move, void *ctx)
{
	(void)ctx;
	random_ep_move(pos, move);
}

/* After each ply of a random game (ctx: the number of pieces before it): the invariants, and
 * what the move did. */
static void random_ply(const rules_position *pos, int seat, const char *text, const rules_outcome *out,
		       void *ctx)
{
	n_ep += strstr(out->note, "en passant") != NULL;
	n_castle += text[0] == 'O';
	n_promo += strchr(text, '=') != NULL;
	n_shared_promo += strstr(out->note, "shared") != NULL;
	check_invariants(pos, seat, out->note, ctx);
}

/* One random game from pos, the round trips and the parser checked every `every` plies (0: never). */
static int random_game_ca(rules_position *pos, int cap, int every)
{
	int npieces = 60;
	random_play how = { .choose = choose_ep, .check = random_ply, .every = every, .deep = cross_check,
			    .ctx = &npieces };

	return random_game(pos, cap, &how, NULL);
}

static void test_random_games(void **state)
{
	int over = 0, total = 0;
	(void)state;

	n_king = n_draw = n_pass = n_ep = n_castle = n_promo = n_shared_promo = 0;
	rng_seed(0x9e3779b97f4a7c15ULL);
	for (int g = 0; g < 200; g++) {
		rules_position *pos = start_pos();
		rules_result res;
		total += random_game_ca(pos, 800, g < 6 ? 20 : 0);
		G->result(pos, &res);
		over += res.over;
		G->free_position(pos);
	}
	if (getenv("CA_STATS"))
		fprintf(stderr, "games over %d (King %d, draw %d), plies %d, passes %d, en passant %d, "
			"castles %d, promotions %d (shared %d)\n", over, n_king, n_draw, total, n_pass,
			n_ep, n_castle, n_promo, n_shared_promo);
	assert_int_equal(over, n_king + n_draw);
	assert_true(n_king > 50);
	assert_true(n_ep > 0);
	assert_true(n_castle > 0);
	assert_true(n_promo > 0);
}

/* Random games from a position with all four shared pieces promoted, pawns
 * near their edges and unmoved pawns: every few plies the generator is
 * checked against the parser. */
static void test_random_games_with_shared_pieces(void **state)
{
	(void)state;

	rng_seed(777);
	for (int g = 0; g < 30; g++) {
		rules_position *pos = setup("NWQ e5, NER d4, SWB f6, SEN g7, nP* c2, eP* i5, sP* h9, wP* b6, "
					    "nP g8, sP c3, eP c6, wP h4, nK* e1, nR* b1, sK* f10, sR* i10", 'N');
		random_game_ca(pos, 150, 5);
		G->free_position(pos);
	}
}

/* ---- gestures: how moves are pointed at on the board ---- */

/* The property check for the seat to move, and nothing for the others. Returns the moves checked. */
static size_t check_gestures(const rules_position *pos)
{
	int seat = to_move(pos);

	assert_true(seat >= 0);
	for (int t = 0; t < 4; t++)
		if (t != seat)
			assert_int_equal(gesture_check(G, pos, t, 2), 0);
	return gesture_check(G, pos, seat, 2);
}

/* check_gestures() of a position whose every gesture is a listed move's. */
static size_t check_listed_gestures(const rules_position *pos)
{
	size_t n = check_gestures(pos);

	assert_int_equal(n, count_moves(pos, to_move(pos)));
	return n;
}

static void test_gestures_start_and_random_games(void **state)
{
	rules_position *pos = *state, *p;
	gesture_tally t = { 0, 0 };

	assert_int_equal(check_gestures(pos), 14);
	expect_gesture(pos, "e2-e4", "e2 e4", "");
	expect_gesture(pos, "Nc1-d3", "c1 d3", "");
	expect_gesture(pos, "e2-e3", "e2 e3", "");

	/* Every position of 30 random games from the start (the first 150 plies: the checker is
	 * thorough, not fast), and of 5 from a position with shared pieces promoted. */
	rng_seed(2024);
	for (int g = 0; g < 35; g++) {
		p = g < 30 ? start_pos()
			: setup("NWQ e5, NER d4, SWB f6, SEN g7, nP* c2, eP* i5, sP* h9, wP* b6, "
				"nP g8, sP c3, eP c6, wP h4, nK* e1, nR* b1, sK* f10, sR* i10", 'N');
		gestures_along(p, 150, check_listed_gestures, choose_ep, &t);
		G->free_position(p);
	}
	if (getenv("CA_STATS"))
		fprintf(stderr, "gestures: %zu positions, %zu moves checked\n", t.positions, t.moves);
	assert_true(t.positions > 1000);
}

static void test_gestures_promotion(void **state)
{
	rules_position *pos = setup("wP i4, wP b5, eK j7", 'W');
	rules_position *edge = setup("nP a9, sR b10", 'N');
	rules_position *shared = setup("NWP i2", 'W');
	(void)state;

	/* Listed once per piece: the words name it. */
	expect_gesture(pos, "i4-j4=Q", "i4 j4", "promote to Queen");
	expect_gesture(pos, "i4-j4=R", "i4 j4", "promote to Rook");
	expect_gesture(pos, "i4-j4=B", "i4 j4", "promote to Bishop");
	expect_gesture(pos, "i4-j4=N", "i4 j4", "promote to Knight");
	expect_gesture(pos, "i4-j4", "i4 j4", "promote to Queen");
	expect_gesture(pos, "b5-c5", "b5 c5", "");
	check_gestures(pos);

	expect_gesture(edge, "a9xb10=R", "a9 b10", "promote to Rook");
	assert_int_equal(check_gestures(edge), count_moves(edge, NORTH));
	expect_gesture(shared, "i2-j2=N", "i2 j2", "promote to Knight");
	check_gestures(shared);
	G->free_position(pos);
	G->free_position(edge);
	G->free_position(shared);
}

static void test_gestures_castling_and_en_passant(void **state)
{
	rules_position *pos = setup("nK* e1, nR* b1, nR* i1, sQ e5", 'N');
	rules_position *east = setup("eK* j5, eR* j2, eR* j9", 'E');
	rules_position *ep = setup("nP* d2, sP e4", 'N');
	rules_position *shared = setup("sP* c9, NWP d7", 'S');
	(void)state;

	/* Castling is the King's move of two squares; a step of one is a plain King move. */
	expect_gesture(pos, "O-O", "e1 c1", "castle");
	expect_gesture(pos, "O-O-O", "e1 g1", "castle");
	expect_gesture(pos, "Ke1-d1", "e1 d1", "");
	check_gestures(pos);
	expect_gesture(east, "O-O", "j5 j3", "castle");
	expect_gesture(east, "O-O-O", "j5 j7", "castle");
	check_gestures(east);

	/* En passant: the pawn's diagonal step onto the passed square. */
	play(ep, "d2-d4", "d2-d4", "");
	play(ep, "Kj5-j4", "Kj5-j4", "");
	expect_gesture(ep, "e4xd3", "e4 d3", "");
	check_gestures(ep);
	play(shared, "c9-c7", "c9-c7", "");
	play(shared, "Ka6-a5", "Ka6-a5", "");
	expect_gesture(shared, "d7xc8", "d7 c8", "");
	check_gestures(shared);
	G->free_position(pos);
	G->free_position(east);
	G->free_position(ep);
	G->free_position(shared);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		start_test(test_ca1_start),
		cmocka_unit_test(test_ca2_corners),
		cmocka_unit_test(test_ca3_side_neighbours),
		cmocka_unit_test(test_ca4_nw_pawn_by_north),
		cmocka_unit_test(test_ca5_nw_pawn_by_west),
		cmocka_unit_test(test_ca6_who_captures_shared),
		cmocka_unit_test(test_ca7_shared_promotion_and_queen),
		cmocka_unit_test(test_ca8_en_passant_next_turn),
		cmocka_unit_test(test_ca9_en_passant_perpendicular),
		cmocka_unit_test(test_en_passant_with_shared_pawn),
		cmocka_unit_test(test_ca10_castling),
		cmocka_unit_test(test_ca10_castling_every_seat),
		cmocka_unit_test(test_ca11_king_capture_ends_game),
		cmocka_unit_test(test_ca12_king_taken_by_shared_pawn),
		cmocka_unit_test(test_ca13_automatic_pass),
		cmocka_unit_test(test_ca13_passes_and_draw),
		cmocka_unit_test(test_ca14_promotion),
		cmocka_unit_test(test_ca14b_en_passant_beside_start),
		cmocka_unit_test(test_ca14c_never_moved_per_piece),
		start_test(test_ca15_resignation),
		start_test(test_ca16_draw_by_agreement),
		cmocka_unit_test(test_ca17_king_into_attack),
		cmocka_unit_test(test_notation_examples),
		start_test(test_notation_rejected_examples),
		start_test(test_lexical_rules),
		cmocka_unit_test(test_serialize_round_trip_and_corruption),
		cmocka_unit_test(test_en_passant_rights_text),
		start_test(test_view),
		start_test(test_apply_rejects_bad_moves),
		cmocka_unit_test(test_round_trip_listed_moves),
		cmocka_unit_test(test_random_games),
		cmocka_unit_test(test_random_games_with_shared_pieces),
		start_test(test_gestures_start_and_random_games),
		cmocka_unit_test(test_gestures_promotion),
		cmocka_unit_test(test_gestures_castling_and_en_passant),
	};

	check_use(&(rules_check){ .game = G });
	return cmocka_run_group_tests(tests, NULL, NULL);
}
