/* test_rules_cyvasse.c - the Nine-Tile Cyvasse rules against docs/rules/cyvasse.md: scenarios Y1-Y20,
 * notation, setups and their secrecy, random games from random setups. */
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

extern const rules_game rules_cyvasse;
static const rules_game *const G = &rules_cyvasse;

enum { WHITE = 0, BLACK = 1 };

#define EMPTY_ROWS "......../........./........../.........../............/.........../........../........./........"
#define START "cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":S--:-"

#define WHITE_DEFAULT "setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a3,j3,b4,c4,h4,k4 " \
	"S=e4,f4,g4 L=g2,b3,i3 H=c3,h3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2"
#define BLACK_DEFAULT "setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a6,d6,i6,j6,a7,j7 " \
	"S=e6,f6,g6 L=b7,i7,c8 H=c7,h7 E=d7,g7 C=e7,f7 T=d9 D=g8 W=d8,f8 K=e8"

/* Both default setups as the diagram of The default setup draws them (terrain, then pieces). */
#define DEFAULT_TERRAIN ".....~../........X/........../X..~....X~./............/.~X....~..X/........../X......../..~....."
#define DEFAULT_PIECES "....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/............/r..rsss.rr./rlheccehlr/..lwkwd../...t...."

static const int row_len[10] = { 0, 8, 9, 10, 11, 12, 11, 10, 9, 8 };
static const int row_start[10] = { 0, 0, 8, 17, 27, 38, 50, 61, 71, 80 };

/* ---- helpers ---- */

/* Square index of "e4" (rows from 1, letters from a). */
static int sq_index(const char *name)
{
	int i = tolower((unsigned char)name[0]) - 'a', n = name[1] - '0';

	assert_true(n >= 1 && n <= 9 && i >= 0 && i < row_len[n]);
	return row_start[n] + i;
}

/* Hex distance between two squares (Neighbours and straight lines). */
static int hex_distance(int a, int b)
{
	int xy[2][2];

	for (int k = 0; k < 2; k++) {
		int s = k ? b : a, n = 9, i;
		while (s < row_start[n])
			n--;
		i = s - row_start[n];
		xy[k][0] = n >= 5 ? i : 5 - n + i;
		xy[k][1] = n >= 5 ? n - 5 + i : i;
	}
	int dx = xy[1][0] - xy[0][0], dy = xy[1][1] - xy[0][1];
	if ((dx >= 0) == (dy >= 0))
		return abs(dx) > abs(dy) ? abs(dx) : abs(dy);
	return abs(dx) + abs(dy);
}

static void sq_str(int s, char buf[4])
{
	int n = 9;

	while (s < row_start[n])
		n--;
	buf[0] = (char)('a' + s - row_start[n]);
	buf[1] = (char)('0' + n);
	buf[2] = 0;
}

/* "cy1:<terrain>:<pieces>:" from two 88-square arrays. */
static size_t rows_text(char *out, size_t size, const char terr[88], const char pcs[88])
{
	size_t n = (size_t)snprintf(out, size, "cy1:");

	for (int layer = 0; layer < 2; layer++)
		for (int r = 1; r <= 9; r++) {
			for (int i = 0; i < row_len[r]; i++)
				out[n++] = (layer ? pcs : terr)[row_start[r] + i];
			out[n++] = r < 9 ? '/' : ':';
		}
	out[n] = 0;
	return n;
}

/*
 * A position in play from "wK e2, bK e5, wR d5" (w/b, letter, square), the
 * terrain "X d3, ~ e2" and the side to move 'W' or 'B'.
 */
static rules_position *make(const char *pieces, const char *terrain, char side)
{
	char terr[88], pcs[88], text[400];
	const char *p;
	rules_position *pos = NULL;
	rules_error err;
	size_t n;

	memset(terr, '.', sizeof terr);
	memset(pcs, '.', sizeof pcs);
	for (p = pieces; *p;) {
		if (*p != 'w' && *p != 'b') {
			p++;
			continue;
		}
		char color = *p++, letter = *p++;
		while (*p == ' ')
			p++;
		int s = sq_index(p);
		p += 2;
		assert_int_equal(pcs[s], '.');
		pcs[s] = color == 'w' ? letter : (char)tolower((unsigned char)letter);
	}
	for (p = terrain ? terrain : ""; *p;) {
		if (*p != 'X' && *p != '~') {
			p++;
			continue;
		}
		char t = *p++;
		while (*p == ' ')
			p++;
		terr[sq_index(p)] = t;
		p += 2;
	}
	n = rows_text(text, sizeof text, terr, pcs);
	snprintf(text + n, sizeof text - n, "%c:-", side);
	int rc = G->deserialize(text, &pos, &err);
	if (rc)
		fprintf(stderr, "make failed: %s (%s)\n", err.message, text);
	assert_int_equal(rc, 0);
	return pos;
}

/* The piece on a square as the view writes it, "" when empty. */
static const char *at(const rules_position *pos, const char *name)
{
	static rules_view v;

	G->view(pos, &v);
	for (int r = 0; r < v.rows; r++)
		for (int c = 0; c < v.cols; c++)
			if (!strcmp(v.cell[r][c].name, name))
				return v.cell[r][c].piece;
	fail_msg("no square %s in the view", name);
	return "";
}

/* Replace the first occurrence of from by to in line (into buf). */
static const char *edit(const char *line, const char *from, const char *to)
{
	static char buf[4][512];
	static int k;
	const char *p = strstr(line, from);
	char *out = buf[k++ % 4];

	assert_non_null(p);
	snprintf(out, 512, "%.*s%s%s", (int)(p - line), line, to, p + strlen(from));
	return out;
}

/* Both default setups in, White first (roll 1-3) or Black (4-6). */
static rules_position *default_game(int roll)
{
	rules_position *pos = start_pos();
	script sc = { { roll }, 1, 0, 0, 0 };
	rules_dice dice = { script_roll, &sc };

	play_as(pos, WHITE, "setup default", WHITE_DEFAULT, NULL, NULL, NULL);
	play_as(pos, BLACK, "setup default", BLACK_DEFAULT, NULL, &dice, NULL);
	return pos;
}

/* ---- Y1-Y3: setups ---- */

static void test_y1_default_setup(void **state)
{
	rules_position *pos = *state, *q;
	script sc = { { 2 }, 1, 0, 0, 0 };
	rules_dice dice = { script_roll, &sc };
	rules_outcome out;

	expect_position(pos, START);
	assert_int_equal(G->turn(pos), 3u);
	/* The choice help spells the default setup out. */
	assert_non_null(strstr(G->choice_help, &WHITE_DEFAULT[6]));
	play_as(pos, WHITE, "setup default", WHITE_DEFAULT, "setup accepted, hidden until both setups are in",
		NULL, &out);
	assert_int_equal(out.secret, 1);
	assert_int_equal(out.reveals, 0);
	play_as(pos, BLACK, "SETUP   Default # the house one", BLACK_DEFAULT,
		"setups revealed; d6: 2 \xe2\x80\x94 White moves first", &dice, &out);
	assert_int_equal(out.secret, 1);
	assert_int_equal(out.reveals, 1);
	assert_int_equal(sc.sides, 6);
	expect_position(pos, "cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":W:-");
	assert_int_equal(to_move(pos), WHITE);
	assert_string_equal(at(pos, "e2"), "K");
	assert_string_equal(at(pos, "e8"), "k");
	/* Black's array is White's rotated by 180 degrees. */
	{
		char *s = G->serialize(pos);
		char terr[88], pcs[88];
		const char *p = s + 4;
		for (int layer = 0; layer < 2; layer++)
			for (int i = 0; i < 88; p++) {
				if (*p == '/' || *p == ':')
					continue;
				(layer ? pcs : terr)[i++] = *p;
			}
		for (int i = 0; i < 88; i++) {
			assert_int_equal(terr[i], terr[87 - i]);
			if (isupper((unsigned char)pcs[i]))
				assert_int_equal(tolower((unsigned char)pcs[i]), pcs[87 - i]);
			else if (pcs[i] == '.')
				assert_int_equal(pcs[87 - i], '.');
		}
		free(s);
	}
	/* The whole line is accepted as written as well. */
	q = start_pos();
	expect_legal_by(q, WHITE, WHITE_DEFAULT, WHITE_DEFAULT);
	expect_legal_by(q, BLACK, BLACK_DEFAULT, BLACK_DEFAULT);
	expect_legal_by(q, WHITE, "setup k1 l0 = 5a  l1=6 l3=7A L4=8a R1=4b R2=3b R4=2bR R5=1 "
			"R = a3 , j3,b4,c4,h4,k4 s=e4,f4,g4 l=g2,b3,i3 h=c3,h3 e=d3,g3 c=e3,f3 t=e1 d=c2 w=d2,f2",
			WHITE_DEFAULT);
	/* Slots in any order, groups in any order, a kind split over groups. */
	expect_legal_by(q, WHITE, "setup K1 R5=1B R4=2Br R2=3B R1=4B L4=8A L3=7A L1=6A L0=5A "
			"K=e2 W=f2,d2 D=c2 T=e1 C=f3,e3 E=g3,d3 H=h3,c3 L=i3 L=g2,b3 S=g4,f4,e4 "
			"R=k4,h4 R=c4,b4,j3,a3",
			WHITE_DEFAULT);
	G->free_position(q);
}

static void test_y2_invalid_setups(void **state)
{
	rules_position *pos = *state;
	const char *d = WHITE_DEFAULT;

	expect_reject(pos, WHITE, edit(d, "R=a3,", "R=a4,"), RULES_E_ILLEGAL,
		      "a4 is a mountain in your setup (tile 5 in L0)");
	expect_reject(pos, WHITE, edit(d, "R=a3,", "R=a5,"), RULES_E_ILLEGAL, "a5 is on the middle row");
	expect_reject(pos, WHITE, edit(d, "R=a3,", "R=a6,"), RULES_E_ILLEGAL,
		      "a6 is not in your half: White sets up on rows 1-4");
	expect_reject(pos, WHITE, edit(d, "R1=4B", "R1=4A"), RULES_E_ILLEGAL,
		      "slot R1 takes face B (R slots take face B), not 4A");
	expect_reject(pos, WHITE, edit(d, "L0=5A", "L0=5B"), RULES_E_ILLEGAL, "slot L0 takes face A");
	/* Tile 5 twice, tile 8 missing: the Dragon leaves c2, which 5A in L4 makes a mountain. */
	expect_legal_by(pos, WHITE, edit(d, "D=c2", "D=a1"),
			"setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a3,j3,b4,c4,h4,k4 "
			"S=e4,f4,g4 L=g2,b3,i3 H=c3,h3 E=d3,g3 C=e3,f3 T=e1 D=a1 W=d2,f2 K=e2");
	expect_reject(pos, WHITE, edit(edit(d, "D=c2", "D=a1"), "L4=8A", "L4=5A"), RULES_E_ILLEGAL,
		      "tile 5 is placed twice, in L0 and L4");
	expect_reject(pos, WHITE, edit(d, "L1=6A", "L2=6A"), RULES_E_ILLEGAL,
		      "K1 does not use slot L2 (K1 uses L0, L1, L3, L4, R1, R2, R4, R5)");
	expect_reject(pos, WHITE, edit(d, "K=e2", "K=a2"), RULES_E_ILLEGAL,
		      "the King must stand on the circle of the King's tile, e2 for K1, not a2");
	expect_reject(pos, WHITE, edit(d, "R=a3,j3,b4,c4,h4,k4", "R=a3,j3,b4,c4,h4"), RULES_E_ILLEGAL,
		      "your setup has 5 Rabble (R); it needs exactly 6");
	/* More faults of the same kind. */
	expect_reject(pos, WHITE, edit(d, " R5=1B", ""), RULES_E_ILLEGAL, "slot R5 has no tile");
	expect_reject(pos, WHITE, edit(d, "R5=1B", "R5=1B R5=1B"), RULES_E_ILLEGAL, "slot R5 is given twice");
	expect_reject(pos, WHITE, edit(d, "T=e1", "T=e3"), RULES_E_ILLEGAL, "e3 is used twice");
	expect_legal_by(pos, WHITE, edit(d, " K=e2", ""), WHITE_DEFAULT);
	expect_reject(pos, WHITE, edit(edit(d, " K=e2", ""), "T=e1", "T=e2"), RULES_E_ILLEGAL,
		      "e2 is the King's square (the circle of K1) and must be left for the King");
	expect_reject(pos, WHITE, edit(d, "K=e2", "K=e2,a1"), RULES_E_ILLEGAL, "a setup has one King, not 2");
	expect_reject(pos, WHITE, edit(d, "T=e1", "T=e1,a1"), RULES_E_ILLEGAL, "your setup has 2 Trebuchet");
	expect_reject(pos, WHITE, edit(d, "K1", "K0"), RULES_E_ILLEGAL, "K0 does not use slot L1");
	/* Black's squares are its own rows; White's line is wrong for Black. */
	expect_reject(pos, BLACK, d, RULES_E_ILLEGAL, "a3 is not in your half: Black sets up on rows 6-9");
	/* Syntax. */
	expect_reject(pos, WHITE, "setup", RULES_E_PARSE, "the King's tile position");
	expect_reject(pos, WHITE, "setup K3 L0=5A", RULES_E_PARSE, "K0, K1 or K2");
	expect_reject(pos, WHITE, edit(d, "L0=5A", "L0=9A"), RULES_E_PARSE, "there is no tile 9");
	expect_reject(pos, WHITE, edit(d, "L0=5A", "L6=5A"), RULES_E_PARSE, "there is no slot L6");
	expect_reject(pos, WHITE, edit(d, "L0=5A", "L0=A"), RULES_E_PARSE, "a tile number 1-8");
	expect_reject(pos, WHITE, edit(edit(d, " R5=1B", ""), "K=e2", "K=e2 R5=1B"), RULES_E_PARSE,
		      "slot R5 follows a piece group: slot assignments come first");
	expect_reject(pos, WHITE, edit(d, "T=e1", "X=e1"), RULES_E_PARSE, "'X' is not a piece letter");
	expect_reject(pos, WHITE, edit(d, "T=e1", "T=m1"), RULES_E_PARSE, "a square such as e4");
	expect_reject(pos, WHITE, edit(d, "T=e1", "T=i1"), RULES_E_PARSE, "there is no square i1");
	expect_reject(pos, WHITE, edit(d, "T=e1", "T=e1,"), RULES_E_PARSE, "a square such as e4");
	expect_reject(pos, WHITE, edit(d, "K1", "K1 K1"), RULES_E_PARSE, "written once, first");
	expect_reject(pos, WHITE, "setup defaults", RULES_E_PARSE, "");
	expect_reject(pos, WHITE, "setup default now", RULES_E_PARSE, "the end of the line");
	expect_position(pos, START);
}

/* A view compared field by field (memcmp would also compare padding, which is zeroed anyway). */
static void expect_same_view(const rules_view *a, const rules_view *b)
{
	assert_int_equal(memcmp(a, b, sizeof *a), 0);
}

static void test_y3_hidden_setup_procedure(void **state)
{
	rules_position *pos = *state, *p, *before;
	rules_view empty_w, empty_b, empty_s, v, v2;
	rules_move m;
	rules_error err;
	rules_outcome out;
	script sc = { { 5 }, 1, 0, 0, 0 };
	rules_dice dice = { script_roll, &sc };
	const char *other = "setup K0 L0=8A L3=7A R0=6B R1=5B R2=4Br R3=3B R4=2B R5=1B "
		"R=a3,b3,c3,d3,e3,f3 S=a4,b4,c4 L=d4,e4,f4 H=g4,h4 E=i4,j4 C=g3,k4 T=h3 D=h2 W=d2,j3 K=c2";

	assert_int_equal(G->has_secrets(pos), 0);
	G->view_for(pos, WHITE, &empty_w);
	G->view_for(pos, BLACK, &empty_b);
	G->view_for(pos, -1, &empty_s);

	/* White's first setup: accepted, hidden. */
	play_as(pos, WHITE, "setup default", WHITE_DEFAULT, "setup accepted, hidden until both setups are in",
		NULL, &out);
	assert_int_equal(out.secret, 1);
	assert_int_equal(out.reveals, 0);
	assert_int_equal(G->has_secrets(pos), 1);
	assert_int_equal(G->turn(pos), 3u);
	G->view_for(pos, BLACK, &v);
	expect_same_view(&v, &empty_b);
	G->view_for(pos, -1, &v);
	expect_same_view(&v, &empty_s);
	G->view_for(pos, WHITE, &v);
	assert_string_equal(v.cell[7][5].name, "e2");
	assert_string_equal(v.cell[7][5].piece, "K");
	assert_string_equal(v.cell[5][0].kind, "mountain");    /* a4 */
	assert_string_equal(v.cell[5][0].name, "a4");
	/* view may show everything */
	G->view(pos, &v2);
	expect_same_view(&v, &v2);

	/* No move before the reveal, by either seat. */
	expect_reject(pos, WHITE, "Rb4-b5", RULES_E_ILLEGAL, "no move can be made before both setups are in");
	expect_reject(pos, BLACK, "Rd6-d5", RULES_E_ILLEGAL, "no move can be made before both setups are in");
	assert_int_equal(count_moves(pos, WHITE), 1);   /* the default setup, to replace */
	assert_int_equal(count_moves(pos, BLACK), 1);

	/* Black's setup errors are the same whatever White has sent. */
	{
		rules_error e1, e2;
		rules_position *s0 = start_pos();
		const char *bad = edit(BLACK_DEFAULT, "K=e8", "K=c8");
		assert_int_equal(G->parse(s0, BLACK, bad, &m, &e1), RULES_E_ILLEGAL);
		assert_int_equal(G->parse(pos, BLACK, bad, &m, &e2), RULES_E_ILLEGAL);
		assert_string_equal(e1.message, e2.message);
		G->free_position(s0);
	}

	/* White replaces it. */
	play_as(pos, WHITE, other, other, "setup replaced, hidden until both setups are in", NULL, &out);
	assert_int_equal(out.secret, 1);
	G->view_for(pos, WHITE, &v);
	assert_string_equal(v.cell[7][3].name, "c2");
	assert_string_equal(v.cell[7][3].piece, "K");
	assert_string_equal(v.cell[7][5].piece, "");            /* e2 */
	assert_string_equal(v.cell[5][0].kind, "");             /* a4 is open now */
	assert_string_equal(v.cell[5][0].piece, "S");
	G->view_for(pos, BLACK, &v);
	expect_same_view(&v, &empty_b);

	/* Black completes: without dice nothing happens. */
	assert_int_equal(G->parse(pos, BLACK, "setup default", &m, &err), 0);
	before = G->clone(pos);
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_DICE);
	{
		script none = { { 0 }, 0, 0, 0, 0 };
		rules_dice dead = { script_roll, &none };
		assert_int_equal(G->apply(pos, &m, &dead, &out, &err), RULES_E_DICE);
		script bad = { { 7 }, 1, 0, 0, 0 };
		rules_dice wrong = { script_roll, &bad };
		assert_int_equal(G->apply(pos, &m, &wrong, &out, &err), RULES_E_DICE);
	}
	{
		char *a = G->serialize(pos), *b = G->serialize(before);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	G->free_position(before);
	assert_int_equal(G->apply(pos, &m, &dice, &out, &err), 0);
	assert_int_equal(out.secret, 1);
	assert_int_equal(out.reveals, 1);
	assert_string_equal(out.note, "setups revealed; d6: 5 \xe2\x80\x94 Black moves first");
	assert_int_equal(G->has_secrets(pos), 0);
	assert_int_equal(to_move(pos), BLACK);
	G->view_for(pos, WHITE, &v);
	G->view(pos, &v2);
	expect_same_view(&v, &v2);
	G->view_for(pos, -1, &v);
	expect_same_view(&v, &v2);
	G->view_for(pos, BLACK, &v);
	expect_same_view(&v, &v2);
	assert_string_equal(v.cell[7][3].piece, "K");           /* White's replacement counts */

	/* Setups are final now. */
	expect_reject(pos, WHITE, "setup default", RULES_E_ILLEGAL, "the setup phase is over");
	expect_reject(pos, BLACK, "setup default", RULES_E_ILLEGAL, "the setup phase is over");
	expect_reject(pos, WHITE, "Rd3-d4", RULES_E_TURN, "Black is to move");

	/* Rolls 1-3 give White the first move, 4-6 Black. */
	for (int r = 1; r <= 6; r++) {
		p = default_game(r);
		assert_int_equal(to_move(p), r <= 3 ? WHITE : BLACK);
		G->free_position(p);
	}
	/* Black may go first in the setup phase too. */
	p = start_pos();
	sc.used = 0;
	sc.v[0] = 3;
	play_as(p, BLACK, "setup default", BLACK_DEFAULT, "setup accepted, hidden until both setups are in",
		NULL, NULL);
	G->view_for(p, WHITE, &v);
	expect_same_view(&v, &empty_w);
	play_as(p, WHITE, "setup default", WHITE_DEFAULT, "setups revealed; d6: 3 \xe2\x80\x94 White moves first",
		&dice, NULL);
	expect_position(p, "cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":W:-");
	G->free_position(p);
}

/* ---- Y4-Y20: play ---- */

static void test_y4_rabble_double_move(void **state)
{
	rules_position *pos = make("wK e2, bK e8, wR c4, wR d4, wR h4", NULL, 'W');
	(void)state;

	expect_legal(pos, "Rc4-c5 / Rd4-d5", "Rc4-c5 / Rd4-d5");
	expect_legal(pos, "Rc4-c5", "Rc4-c5");
	expect_illegal(pos, "Rc4-c5 / Rc5-c6", "the second move must be made with a different Rabble");
	expect_illegal(pos, "Rc4-c5 / Rh4-h6", "the Rabble moves at most 1 square; h6 is 2 away");
	expect_illegal(pos, "Rc4-c5 / Rd4-d5 / Rh4-h5", "not more");
	expect_illegal(pos, "Ke2-e3 / Rc4-c5", "only a Rabble's normal move");
	expect_illegal(pos, "Rc4-c5 / Ke2-e3", "the second move must be made with a Rabble");
	play(pos, "Rc4-c5 / Rd4-d5", "Rc4-c5 / Rd4-d5", "");
	assert_string_equal(at(pos, "c5"), "R");
	assert_string_equal(at(pos, "d5"), "R");
	assert_string_equal(at(pos, "c4"), "");
	assert_int_equal(to_move(pos), BLACK);
	G->free_position(pos);

	pos = make("wK e2, bK e8, wR c4, wR d4, wR h4, bR c5, bR d5", NULL, 'W');
	expect_legal(pos, "Rc4xc5", "Rc4xc5");
	expect_illegal(pos, "Rc4xc5 / Rh4-h5", "only a Rabble's normal move (not a capture)");
	expect_illegal(pos, "Rh4-h5 / Rd4xd5", "the second Rabble move cannot capture");
	expect_illegal(pos, "Rh4-h5 / Rd4-d5", "the second Rabble move cannot capture");
	expect_legal(pos, "Rh4-h5 / Rd4-e4", "Rh4-h5 / Rd4-e4");
	/* The second move is made on the position after the first. */
	expect_legal(pos, "Rd4-e4 / Rc4-d4", "Rd4-e4 / Rc4-d4");
	G->free_position(pos);
}

static void test_y5_spears_zone_stops_movement(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wL e4, bS e6", NULL, 'W');
	(void)state;

	expect_illegal(pos, "Le4-e7", "no free path of at most 3 steps leads the Light Horse from e4 to e7");
	expect_legal(pos, "Le4-e5", "Le4-e5");
	expect_legal(pos, "Le4-d6", "Le4-d6");
	expect_legal(pos, "Le4-f6", "Le4-f6");
	expect_illegal(pos, "Le4-e8", "the Light Horse moves at most 3 squares; e8 is 4 away");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e4", NULL, 'W');
	expect_legal(pos, "Le4-e7", "Le4-e7");
	G->free_position(pos);
	/* A piece may start on a zone square and leave it. */
	pos = make("wK a1, bK h9, wL e5, bS e6", NULL, 'W');
	expect_legal(pos, "Le5-c5", "Le5-c5");
	G->free_position(pos);
}

static void test_y6_spears_engagement_and_capture(void **state)
{
	rules_position *pos = make("wK a1, bK h9, bS e6, wR e5, wR d6, wR f6", NULL, 'B');
	(void)state;

	expect_legal(pos, "Se6xe5", "Se6xe5");
	expect_illegal(pos, "Se6xd6", "a Spears captures only on its two front squares");
	expect_illegal(pos, "Se6xf6", "a Spears captures only on its two front squares");
	expect_legal(pos, "Se6-d7", "Se6-d7");
	expect_legal(pos, "Se6-e7", "Se6-e7");
	expect_legal(pos, "Se6-f5", "Se6-f5");
	G->free_position(pos);
	/* d6 and f6 are engaged by nothing: a Black Rabble next to d6 could not take it
	 * without the Spears' help, while e5 is engaged by the Spears. */
	pos = make("wK a1, bK h9, bS e6, wR e5, wR d6, bR d5", NULL, 'B');
	expect_legal(pos, "Rd5xe5", "Rd5xe5");
	expect_legal(pos, "Rd5xd6", "Rd5xd6");    /* the Rabble itself engages d6 */
	G->free_position(pos);
	pos = make("wK a1, bK h9, bS e6, wH e5, bR d5", NULL, 'B');
	/* the heavy e5 is engaged by the Spears and the Rabble */
	expect_legal(pos, "Rd5xe5", "Rd5xe5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bS e6, wH d6, bR d7", NULL, 'B');
	/* d6 is not a front square: only the Rabble engages it */
	expect_illegal(pos, "Rd7xd6", "not sufficiently engaged: heavy armour needs 2 engagers, it has 1");
	G->free_position(pos);
}

static void test_y7_light_horse_continuation(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wL e3, bR f4", NULL, 'W');
	(void)state;

	expect_legal(pos, "Le3xf4", "Le3xf4");
	expect_legal(pos, "Le3xf4-g5", "Le3xf4-g5");
	expect_legal(pos, "Le3xf4-g6", "Le3xf4-g6");
	expect_illegal(pos, "Le3xf4-g7", "at most 3 squares in all");
	expect_illegal(pos, "Le3xf4-f5", "not on that line");
	play(pos, "Le3xf4-g6", "Le3xf4-g6", "captures bR");
	assert_string_equal(at(pos, "g6"), "L");
	assert_string_equal(at(pos, "f4"), "");
	assert_string_equal(at(pos, "e3"), "");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wL e3, bR f4, bS f6", NULL, 'W');
	expect_legal(pos, "Le3xf4", "Le3xf4");
	expect_legal(pos, "Le3xf4-g5", "Le3xf4-g5");
	expect_illegal(pos, "Le3xf4-g6", "the continuation cannot pass g5, a Spears zone square");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wL e3, bR g5, bS f6, wR g4", NULL, 'W');
	expect_legal(pos, "Le3xg5", "Le3xg5");
	expect_illegal(pos, "Le3xg5-g6", "the captured piece stood on a Spears zone square");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e3, bR g5, wR g4", NULL, 'W');
	expect_legal(pos, "Le3xg5-g6", "Le3xg5-g6");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wL e3, bR f4, wR g5", NULL, 'W');
	expect_legal(pos, "Le3xf4-g6", "Le3xf4-g6");
	expect_illegal(pos, "Le3xf4-g5", "holds your own Rabble");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e3, bR f4, bR g5", NULL, 'W');
	expect_illegal(pos, "Le3xf4-g6", "the continuation is blocked by the opposing Rabble on g5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e3, bR f4", "X g6", 'W');
	expect_illegal(pos, "Le3xf4-g6", "the continuation is blocked by the mountain on g6");
	expect_legal(pos, "Le3xf4-g5", "Le3xf4-g5");
	G->free_position(pos);
	/* Heavy Horse: two squares in all. */
	pos = make("wK a1, bK h9, wH e3, bR f4, wR f5", NULL, 'W');
	expect_legal(pos, "He3xf4-g5", "He3xf4-g5");
	expect_illegal(pos, "He3xf4-g6", "the Heavy Horse moves at most 2 squares in all");
	G->free_position(pos);
	/* Only Horses continue. */
	pos = make("wK a1, bK h9, wR e3, bR f4", NULL, 'W');
	expect_illegal(pos, "Re3xf4-g5", "only a Horse may continue");
	expect_illegal(pos, "Re3-e4-e5", "a third square follows only a capture");
	G->free_position(pos);
}

static void test_y8_heavy_armour(void **state)
{
	rules_position *pos = make("wK a1, bK h9, bH e5, wR d5, wC e2", NULL, 'W');
	(void)state;

	expect_legal(pos, "Rd5xe5", "Rd5xe5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bH e5, wR d5, wC e2, wR e3", NULL, 'W');
	expect_legal(pos, "Rd5xe5", "Rd5xe5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bH e5, wR d5, wC e2, bR e3", NULL, 'W');
	expect_illegal(pos, "Rd5xe5", "the Black Heavy Horse on e5 is not sufficiently engaged: heavy armour needs 2 engagers, it has 1");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bH e5, wR d5", NULL, 'W');
	expect_illegal(pos, "Rd5xe5", "not sufficiently engaged");
	G->free_position(pos);
}

static void test_y9_engagement_before_capture(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wH e3, bR e5", NULL, 'W');
	(void)state;

	expect_illegal(pos, "He3xe5", "the Black Rabble on e5 is not sufficiently engaged: light armour needs 1 engager, it has 0");
	expect_legal(pos, "He3-e4", "He3-e4");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wH e3, bR e5, wC b5", NULL, 'W');
	expect_legal(pos, "He3xe5", "He3xe5");
	G->free_position(pos);
}

static void test_y10_elephant(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wE e3, bR e5", NULL, 'W');
	(void)state;

	expect_legal(pos, "Ee3xe5", "Ee3xe5");
	expect_legal(pos, "Ee3-e5", "Ee3xe5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wE e3", NULL, 'W');
	expect_illegal(pos, "Ee3-e5", "the Elephant moves only 1 square");
	expect_legal(pos, "Ee3-e4", "Ee3-e4");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wE e3, bR e5, wR e4", NULL, 'W');
	expect_illegal(pos, "Ee3xe5", "an Elephant cannot capture through a piece, and e4 is occupied");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wE e3, bR d6, wC e2", NULL, 'W');
	expect_illegal(pos, "Ee3xd6", "the Elephant captures at most 2 squares away; d6 is 3 away");
	G->free_position(pos);
}

static void test_y11_crossbows_never_capture(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wC e2, bR e5", NULL, 'W');
	(void)state;

	expect_illegal(pos, "Ce2xe5", "the Crossbows never capture");
	expect_legal(pos, "Ce2-e4", "Ce2-e4");
	G->free_position(pos);
	/* ... but they engage: a Light Horse takes e5 thanks to them. */
	pos = make("wK a1, bK h9, wC e2, bR e5, wL c5", NULL, 'W');
	expect_legal(pos, "Lc5xe5", "Lc5xe5");
	G->free_position(pos);
}

static void test_y12_trebuchet(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wT e2, bR e5", NULL, 'W');
	(void)state;

	expect_legal(pos, "te2xe5", "Te2xe5-e1");
	expect_legal(pos, "Te2xe5-e1", "Te2xe5-e1");
	expect_illegal(pos, "Te2xe5-e3", "the Trebuchet steps back to e1, not e3");
	play(pos, "Te2xe5", "Te2xe5-e1", "captures bR");
	assert_string_equal(at(pos, "e5"), "");
	assert_string_equal(at(pos, "e2"), "");
	assert_string_equal(at(pos, "e1"), "T");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wT e2, bR e5, wR e1", NULL, 'W');
	expect_illegal(pos, "Te2xe5", "the Trebuchet cannot step back to e1: it is occupied");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wT e2, bR e5", "X e1", 'W');
	expect_illegal(pos, "Te2xe5", "the Trebuchet cannot step back to e1: it is a mountain");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wT e2, bR f2, wR g2, bR e3, wR d3", NULL, 'W');
	expect_illegal(pos, "Te2xf2", "a Trebuchet never engages an adjacent piece");
	expect_illegal(pos, "Te2xe3", "a Trebuchet never engages an adjacent piece");
	expect_legal(pos, "Rg2xf2", "Rg2xf2");
	expect_legal(pos, "Rd3xe3", "Rd3xe3");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wT e2, bR g2", NULL, 'W');
	expect_legal(pos, "Te2xg2", "Te2xg2-d2");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wT e2, bR d6", NULL, 'W');
	expect_legal(pos, "Te2xd6", "Te2xd6-e1");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wT e2, bR d6, bR e4", NULL, 'W');
	expect_illegal(pos, "Te2xd6", "a piece of the target's colour is in the way");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wT e2, bR e5", "~ e2", 'W');
	expect_illegal(pos, "Te2xe5", "it stands on water");
	G->free_position(pos);
	/* At the edge: no square to step back to. */
	pos = make("wK a1, bK h9, wT e1, bR e4", NULL, 'W');
	expect_illegal(pos, "Te1xe4", "the Trebuchet cannot step back away from e4: it stands at the edge");
	G->free_position(pos);
	/* Next to an opposing Tower it engages nothing (house ruling 7). */
	pos = make("wK a1, bK h9, wT e2, bR e5, bW d2", NULL, 'W');
	expect_illegal(pos, "Te2xe5", "next to an opposing Tower");
	G->free_position(pos);
}

static void test_y13_dragon(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wD c3, bR e3, bC g3", "X d3", 'W');
	(void)state;

	expect_legal(pos, "Dc3-f3", "Dc3-f3");
	expect_illegal(pos, "Dc3-d3", "d3 is a mountain");
	expect_illegal(pos, "Dc3-e3", "not sufficiently engaged");  /* read as a capture */
	expect_legal(pos, "Dc3xg3", "Dc3xg3");
	expect_illegal(pos, "Dc3-c8", "the Dragon moves at most 4 squares");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wD c3, bR e3, bC g3, bS f4", "X d3", 'W');
	expect_illegal(pos, "Dc3xg3", "the way from c3 to g3 passes e3, a Spears zone square");
	expect_legal(pos, "Dc3-f3", "Dc3-f3");
	G->free_position(pos);
	/* The Dragon engages at range 2 (e3 is heavy: the Dragon and a Rabble). */
	pos = make("wK a1, bK h9, wD c3, bH e3, wR e4", NULL, 'W');
	expect_legal(pos, "Re4xe3", "Re4xe3");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wD c3, bH e3, wR e4", "X d3", 'W');
	expect_illegal(pos, "Re4xe3", "it has 1");
	G->free_position(pos);
	/* Spears zones stop the Dragon's normal moves too. */
	pos = make("wK a1, bK h9, wD e4, bS d6, bS e6, bS f6", NULL, 'W');
	expect_illegal(pos, "De4-e7", "a Dragon may not pass a Spears zone square");
	expect_legal(pos, "De4-e5", "De4-e5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wD e4", NULL, 'W');
	expect_legal(pos, "De4-e7", "De4-e7");
	G->free_position(pos);
}

static void test_y14_tower(void **state)
{
	rules_position *pos = make("wK a1, bK h9, bW e6, wR e5, bR d5, wR c5", NULL, 'W');
	(void)state;

	expect_legal(pos, "Re5xd5", "Re5xd5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bW e6, wR e5, bR d5", NULL, 'W');
	expect_illegal(pos, "Re5xd5", "it has 0");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bW e6, wR e5, bR d5", NULL, 'B');
	expect_illegal(pos, "We6-e7", "a Tower never moves");
	expect_illegal(pos, "We6xe5", "a Tower never moves, so it never captures");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bW e6, wR e5, wR f6", NULL, 'W');
	expect_legal(pos, "Re5xe6", "Re5xe6");
	play(pos, "Re5xe6", "Re5xe6", "captures bW");
	G->free_position(pos);
	pos = make("wK a1, bK h9, bW e6, wR e5", NULL, 'W');
	expect_illegal(pos, "Re5xe6", "heavy armour needs 2 engagers, it has 1");
	G->free_position(pos);
}

static void test_y15_king_tower_jump(void **state)
{
	rules_position *pos = make("wK e2, bK h9, wW e3", NULL, 'W');
	(void)state;

	expect_legal(pos, "Ke2-e4", "Ke2-e4");
	expect_illegal(pos, "Ke2-e5", "the King moves 1 square, or 2 straight over its own Tower; e5 is 3 away");
	expect_illegal(pos, "Ke2-f4", "the King moves 1 square, or 2 straight over its own Tower");
	play(pos, "Ke2-e4", "Ke2-e4", "");
	assert_string_equal(at(pos, "e4"), "K");
	G->free_position(pos);
	pos = make("wK e2, bK h9, wW e3, bR e4, wR d4", NULL, 'W');
	expect_legal(pos, "Ke2xe4", "Ke2xe4");
	G->free_position(pos);
	pos = make("wK e2, bK h9, wW e3, bS f4", NULL, 'W');
	expect_illegal(pos, "Ke2-e4", "the King cannot jump over the Tower on e3: it stands on a Spears zone square");
	expect_legal(pos, "Ke2-f3", "Ke2-f3");
	G->free_position(pos);
	pos = make("wK e2, bK h9, wW e3", "X e4", 'W');
	expect_illegal(pos, "Ke2-e4", "e4 is a mountain");
	G->free_position(pos);
	/* Not over someone else's Tower. */
	pos = make("wK e2, bK h9, bW e3", NULL, 'W');
	expect_illegal(pos, "Ke2-e4", "the King moves 1 square");
	G->free_position(pos);
}

static void test_y16_water_and_mountains_block_engagement(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wC e2, bR e5, wL c5", NULL, 'W');
	(void)state;

	expect_legal(pos, "Lc5xe5", "Lc5xe5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wC e2, bR e5, wL c5", "~ e2", 'W');
	expect_illegal(pos, "Lc5xe5", "it has 0");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wC e2, bR e5, wL c5", "X e3", 'W');
	expect_illegal(pos, "Lc5xe5", "it has 0");
	G->free_position(pos);
	/* Water never hinders movement (house ruling 11). */
	pos = make("wK a1, bK h9, wL e2", "~ e3, ~ e4", 'W');
	expect_legal(pos, "Le2-e5", "Le2-e5");
	G->free_position(pos);
	/* A piece on water can still be engaged and captured. */
	pos = make("wK a1, bK h9, wR e3, bR e4", "~ e4", 'W');
	expect_legal(pos, "Re3xe4", "Re3xe4");
	G->free_position(pos);
}

static void test_y17_unarmoured_need_no_engagement(void **state)
{
	rules_position *pos = make("wK a1, bK h9, wL e2, bC e5", NULL, 'W');
	(void)state;

	expect_legal(pos, "Le2xe5", "Le2xe5");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e2, bC e5", "X e3", 'W');
	expect_illegal(pos, "Le2xe5", "the way from e2 to e5 is blocked by the mountain on e3");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e2, bC e5, bR e3", NULL, 'W');
	expect_illegal(pos, "Le2xe5", "blocked by the opposing Rabble on e3");
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e2, bC e5, wR e3", NULL, 'W');
	expect_legal(pos, "Le2xe5", "Le2xe5");     /* own pieces may be passed */
	G->free_position(pos);
	pos = make("wK a1, bK h9, wL e2, bC e5, bS f4", NULL, 'W');
	expect_illegal(pos, "Le2xe5", "the way from e2 to e5 passes e3, a Spears zone square");
	G->free_position(pos);
}

static void test_y18_king_capture_wins(void **state)
{
	rules_position *pos = make("wK e2, bK e5, wR d5, wR e4", NULL, 'W');
	rules_result res;
	(void)state;

	expect_legal(pos, "Rd5e5", "Rd5xe5");
	play(pos, "Rd5xe5", "Rd5xe5", "captures bK \xe2\x80\x94 White wins");
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[WHITE], 1);
	assert_int_equal(res.rank[BLACK], 2);
	assert_string_equal(res.summary, "White wins: King captured");
	assert_int_equal(G->turn(pos), 0u);
	assert_int_equal(count_moves(pos, WHITE), 0);
	assert_int_equal(count_moves(pos, BLACK), 0);
	expect_reject(pos, BLACK, "Rd3-d4", RULES_E_OVER, "the game is over");
	expect_reject(pos, BLACK, "setup default", RULES_E_OVER, "the game is over");
	G->free_position(pos);
}

static void test_y19_no_legal_move_loses(void **state)
{
	rules_position *pos = make("wK e2, bK a9, wH b9, wE b8, wD a8", NULL, 'B');
	rules_result res;
	(void)state;

	assert_int_equal(G->turn(pos), 0u);
	assert_int_equal(count_moves(pos, BLACK), 0);
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[WHITE], 1);
	assert_int_equal(res.rank[BLACK], 2);
	assert_string_equal(res.summary, "White wins: Black has no legal move");
	expect_reject(pos, BLACK, "Ka9-b9", RULES_E_OVER, "the game is over");
	G->free_position(pos);

	/* The same reached by a move: the game ends on that move. */
	pos = make("wK e2, bK a9, wH b9, wE b8, wD c8", NULL, 'W');
	play(pos, "Dc8-a8", "Dc8-a8", "Black has no legal move \xe2\x80\x94 White wins");
	expect_position(pos, "cy1:......../........./........../.........../............/.........../"
			"........../........./........:......../....K..../........../.........../"
			"............/.........../........../DE......./kH......:B:W:nomove");
	G->result(pos, &res);
	assert_string_equal(res.summary, "White wins: Black has no legal move");
	G->free_position(pos);
}

static void test_y20_moving_is_mandatory(void **state)
{
	rules_position *pos = make("wK e2, bK e8, wR c4", NULL, 'W');
	(void)state;

	expect_illegal(pos, "pass", "passing is not allowed: you must move a piece");
	expect_illegal(pos, "PASS # no", "passing is not allowed");
	expect_reject(pos, BLACK, "pass", RULES_E_TURN, "White is to move");
	G->free_position(pos);
}

/* ---- notation (Writing moves) ---- */

static void test_notation_examples(void **state)
{
	rules_position *p;
	(void)state;

	/* 1, 2 */
	p = make("wK e2, bK e8, wR b4, wR c4, wR d4", NULL, 'W');
	expect_legal(p, "b4-b5", "Rb4-b5");
	expect_legal(p, "rc4c5 / rd4d5", "Rc4-c5 / Rd4-d5");
	G->free_position(p);
	/* 3 */
	p = make("wK e2, bK e8, wL e4", NULL, 'W');
	expect_legal(p, "Le4-d6", "Le4-d6");
	G->free_position(p);
	/* 4 */
	p = make("wK a1, bK h9, wL e3, bR f4", NULL, 'W');
	expect_legal(p, "Le3xf4-g5", "Le3xf4-g5");
	G->free_position(p);
	/* 5 */
	p = make("wK a1, bK h9, wH e3, bR e5, wR d5", NULL, 'W');
	expect_legal(p, "He3 x e5", "He3xe5");
	G->free_position(p);
	/* 6 */
	p = make("wK a1, bK h9, wT e2, bR e5", NULL, 'W');
	expect_legal(p, "te2xe5", "Te2xe5-e1");
	G->free_position(p);
	/* 7 */
	p = make("wK e2, bK h9, wW e3", NULL, 'W');
	expect_legal(p, "Ke2-e4", "Ke2-e4");
	G->free_position(p);
	/* 8 */
	p = make("wK a1, bK h9, wD c3, bR e3, bC g3", "X d3", 'W');
	expect_legal(p, "Dc3xg3", "Dc3xg3");
	G->free_position(p);
	/* 9 */
	p = make("wK e2, bK e5, wR d5, wR e4", NULL, 'W');
	play(p, "Rd5e5", "Rd5xe5", "captures bK \xe2\x80\x94 White wins");
	G->free_position(p);
	/* 10 */
	p = start_pos();
	expect_legal_by(p, WHITE, "setup default", WHITE_DEFAULT);
	expect_legal_by(p, BLACK, "setup default", BLACK_DEFAULT);
	G->free_position(p);
}

static void test_lexical_rules(void **state)
{
	rules_position *s = make("wK e2, bK e8, wR c3, wC c4, wL k5, bR d6", NULL, 'W');
	(void)state;

	/* A leading letter is a piece letter only before a square. */
	expect_legal(s, "c3-b3", "Rc3-b3");
	expect_legal(s, "c3b3", "Rc3-b3");
	expect_legal(s, "Cc4-c5", "Cc4-c5");
	expect_legal(s, "cc4-c5", "Cc4-c5");
	expect_legal(s, "c c4 c5", "Cc4-c5");
	expect_legal(s, "C C4 C5", "Cc4-c5");
	expect_legal(s, "\tc4c5\t", "Cc4-c5");
	expect_legal(s, "Cc4-c5 +", "Cc4-c5");
	expect_legal(s, "Cc4-c5++ # check? / x", "Cc4-c5");
	expect_legal(s, "Cc4-c5#", "Cc4-c5");
	expect_legal(s, "k5-l5", "Lk5-l5");
	expect_legal(s, "lk5-l5", "Lk5-l5");
	expect_legal(s, "L k5 - l5", "Lk5-l5");
	expect_legal(s, "L k5 l5", "Lk5-l5");
	G->free_position(s);
	/* "x" or "-" or nothing before a capture. */
	s = make("wK e2, bK e8, wR d5, bR e5", NULL, 'W');
	expect_legal(s, "d5xe5", "Rd5xe5");
	expect_legal(s, "d5Xe5", "Rd5xe5");
	expect_legal(s, "d5-e5", "Rd5xe5");
	expect_legal(s, "rd5 e5", "Rd5xe5");
	G->free_position(s);
}

static void test_lexical_errors(void **state)
{
	rules_position *s = make("wK e2, bK e8, wR c3, wC c4, wL k5, bR d6", NULL, 'W');
	(void)state;

	expect_reject(s, -1, "", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "  ", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "# just a comment", RULES_E_PARSE, "");
	expect_reject(s, -1, "Xc3-c4", RULES_E_PARSE, "'X' is not a piece letter");
	expect_reject(s, -1, "c3", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "c3-m4", RULES_E_PARSE, "a square such as e4");
	expect_reject(s, -1, "c3-k3", RULES_E_PARSE, "there is no square k3: row 3 runs from a3 to j3");
	expect_reject(s, -1, "c3-c10", RULES_E_PARSE, "there is no row 10");
	expect_reject(s, -1, "c0-c4", RULES_E_PARSE, "a square such as e4");
	expect_reject(s, -1, "c3-c4 /", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "c3-c4 x", RULES_E_PARSE, "unexpected 'x'");
	expect_reject(s, -1, "c3-c4;", RULES_E_PARSE, "unexpected ';'");
	expect_reject(s, -1, "c3-c4 + /", RULES_E_PARSE, "unexpected '/'");
	expect_reject(s, -1, "c3-c4\n", RULES_E_PARSE, "unexpected character 0x0a");
	expect_reject(s, -1, "c3-c4 \xc3\xa9", RULES_E_PARSE, "only ASCII");
	expect_reject(s, -1, "c3-c4 # caf\xc3\xa9", RULES_E_PARSE, "only ASCII");
	expect_reject(s, -1, "resign", RULES_E_PARSE, "");
	expect_reject(s, -1, "offer draw", RULES_E_PARSE, "");
	expect_reject(s, -1, "Rc3--c4", RULES_E_PARSE, "a square such as e4");
	/* Position checks. */
	expect_illegal(s, "Rc4-c5", "wrong letter: the piece on c4 is a Crossbows (C), not a Rabble (R)");
	expect_illegal(s, "Ec3-b3", "wrong letter: the piece on c3 is a Rabble (R), not an Elephant (E)");
	expect_illegal(s, "a3-a4", "there is no piece on a3");
	expect_illegal(s, "d6-d5", "the Rabble on d6 is Black's, not yours");
	expect_illegal(s, "c3-c4", "c4 holds your own Crossbows");
	expect_illegal(s, "c3xb3", "there is no opposing piece on b3 to capture");
	expect_illegal(s, "c3xc4", "there is no opposing piece on c4 to capture");
	expect_illegal(s, "Cc4xd6", "the Crossbows never capture");
	expect_illegal(s, "Rc3-c3", "a move must end on another square");
	/* Syntax is checked before whose turn it is. */
	expect_reject(s, BLACK, "hello", RULES_E_PARSE, "");
	expect_reject(s, BLACK, "Rd6-d5", RULES_E_TURN, "White is to move");
	expect_reject(s, 7, "Rc3-b3", RULES_E_TURN, "");
	expect_reject(s, 7, "setup default", RULES_E_TURN, "");

	expect_length_limit(s, "c3-b3 ", "Rc3-b3");
	G->free_position(s);
}

/* ---- position text, view and tampered moves ---- */

static void test_serialize_round_trip_and_corruption(void **state)
{
	const char *play_ok = "cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":W:-";
	const char *setup_w = "cy1:.....~../........X/........../X..~....X~./............/.........../"
		"........../........./........:....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/............/"
		".........../........../........./........:SW-:-";
	static const char *bad[] = {
		"",
		"cy1:",
		"cy2:" EMPTY_ROWS ":" EMPTY_ROWS ":S--:-",
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":S--:",
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":S--",
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":S--:- ",
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":SWB:-",        /* both in, still setting up */
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":SW-:-",        /* White's setup is not there */
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":S--:W:king",
		"cy1:" EMPTY_ROWS ":" EMPTY_ROWS ":W:-",          /* no Kings */
		/* terrain on the middle row, bad terrain, piece on a mountain */
		"cy1:......../........./........../.........../.....X....../.........../........../........./........:" EMPTY_ROWS ":S--:-",
		"cy1:......../........./........../.........../............/.........../........../........./.......#:" EMPTY_ROWS ":S--:-",
		"cy1:" DEFAULT_TERRAIN ":" "....T.../..DWKWL../RLHECCEHLR/RRR.SSSR..R/............/r..rsss.rr./rlheccehlr/..lwkwd../...t....:W:-",
		/* rows too short, too long */
		"cy1:......./........./........../.........../............/.........../........../........./........:" EMPTY_ROWS ":S--:-",
		"cy1:........./........./........../.........../............/.........../........../........./........:" EMPTY_ROWS ":S--:-",
		/* too many pieces of a kind; a bad letter */
		"cy1:" DEFAULT_TERRAIN ":" "....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/R.........../r..rsss.rr./rlheccehlr/..lwkwd../...t....:W:-",
		"cy1:" DEFAULT_TERRAIN ":" "....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/Q.........../r..rsss.rr./rlheccehlr/..lwkwd../...t....:W:-",
		/* bad phase, bad results, a finished game's side to move */
		"cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":X:-",
		"cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":W:W:draw",
		"cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":W:W:king",      /* both Kings there */
		"cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":B:W:nomove",    /* Black can move */
		"cy1:" DEFAULT_TERRAIN ":" DEFAULT_PIECES ":W:W:nomove",
		/* setup phase: a piece on the other half, an incomplete setup, terrain without a setup */
		"cy1:.....~../........X/........../X..~....X~./............/.........../"
		"........../........./........:....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/............/"
		"r........../........../........./........:SW-:-",
		"cy1:.....~../........X/........../X..~....X~./............/.........../"
		"........../........./........:....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..../............/"
		".........../........../........./........:SW-:-",
		"cy1:.....~../........X/........../X..~....X~./............/.~........./"
		"........../........./........:....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/............/"
		".........../........../........./........:SW-:-",
		/* setup phase: terrain no tiles can make (water on a4 instead of a mountain) */
		"cy1:.....~../........X/........../~..~....X~./............/.........../"
		"........../........./........:....T.../..DWKWL../RLHECCEHLR/.RR.SSSR..R/............/"
		".........../........../........./........:SW-:-",
		/* setup phase: the King off its circle */
		"cy1:.....~../........X/........../X..~....X~./............/.........../"
		"........../........./........:....T.../..DW.WLK./RLHECCEHLR/.RR.SSSR..R/............/"
		".........../........../........./........:SW-:-",
	};
	rules_position *pos = NULL;
	rules_error err;
	char *s;
	(void)state;

	expect_prefixes_refused(START);
	expect_prefixes_refused(play_ok);
	expect_prefixes_refused(setup_w);
	assert_int_equal(G->deserialize(setup_w, &pos, &err), 0);
	assert_int_equal(G->has_secrets(pos), 1);
	assert_int_equal(G->turn(pos), 3u);
	G->free_position(pos);

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_corrupt(bad[i]);

	/* A game won by capturing the King, and the start. */
	pos = make("wK e2, bK e5, wR d5, wR e4", NULL, 'W');
	play(pos, "Rd5xe5", "Rd5xe5", NULL);
	s = G->serialize(pos);
	assert_non_null(strstr(s, ":B:W:king"));
	expect_text_round_trip(s);
	free(s);
	G->free_position(pos);
}

static void test_view(void **state)
{
	rules_position *pos = default_game(1);
	rules_view v;
	int on = 0;
	(void)state;

	G->view(pos, &v);
	expect_grid(&v, 9, 12, "9", "1", "", "");
	for (int c = 0; c < 12; c++)
		assert_string_equal(v.col_label[c], "");
	/* The mapping: row n's letter i in column i + offset. */
	static const int offset[10] = { 0, 2, 1, 1, 0, 0, 0, 1, 1, 2 };
	for (int r = 0; r < 9; r++) {
		int n = 9 - r;
		for (int c = 0; c < 12; c++) {
			const rules_cell *cell = &v.cell[r][c];
			int i = c - offset[n];
			if (i < 0 || i >= row_len[n]) {
				assert_string_equal(cell->kind, "off");
				assert_string_equal(cell->piece, "");
				assert_int_equal(cell->owner, -1);
				continue;
			}
			char name[4];
			snprintf(name, sizeof name, "%c%d", 'a' + i, n);
			assert_string_equal(cell->name, name);
			on++;
		}
	}
	assert_int_equal(on, 88);
	assert_string_equal(v.cell[8][6].name, "e1");
	assert_string_equal(v.cell[8][6].piece, "T");
	assert_int_equal(v.cell[8][6].owner, WHITE);
	assert_string_equal(v.cell[8][7].kind, "water");        /* f1 */
	assert_string_equal(v.cell[7][9].kind, "mountain");     /* i2 */
	assert_string_equal(v.cell[4][0].name, "a5");
	assert_string_equal(v.cell[4][0].kind, "");
	assert_string_equal(v.cell[4][11].name, "l5");
	assert_string_equal(v.cell[0][5].name, "d9");
	assert_string_equal(v.cell[0][5].piece, "t");
	assert_int_equal(v.cell[0][5].owner, BLACK);
	assert_string_equal(v.cell[0][4].kind, "water");        /* c9 */
	assert_int_equal(v.nholdings, 0);
	assert_int_equal(v.has_facing, 0);
	assert_int_equal(v.brick, 1);           /* rows laid like bricks: hexagons */
	assert_int_equal(G->view_quarter_turns(WHITE), 0);
	assert_int_equal(G->view_quarter_turns(BLACK), 2);
	G->free_position(pos);
}

static void test_apply_rejects_bad_moves(void **state)
{
	rules_position *pos = make("wK e2, bK e8, wR c4, bR c6", NULL, 'W');
	rules_move m;
	rules_error err;
	rules_outcome out;
	char buf[8];
	char *before = G->serialize(pos), *after;
	(void)state;

	memset(&m, 0, sizeof m);
	memset(m.raw, 0xff, sizeof m.raw);
	m.raw[0] = 'S';
	assert_int_equal(G->format(pos, &m, buf, sizeof buf), 0);
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_ILLEGAL);
	rules_move_list l = { 0 };
	assert_int_equal(G->continuations(pos, &m, &l), 0);
	assert_int_equal(l.n, 0);
	/* A legal move tampered with: another end square, a second part. */
	assert_int_equal(G->parse(pos, WHITE, "Rc4-c5", &m, &err), 0);
	m.raw[4] = m.raw[3] + 1;
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_ILLEGAL);
	assert_int_equal(G->parse(pos, WHITE, "Rc4-c5", &m, &err), 0);
	m.raw[5] = 1;
	m.raw[6] = m.raw[3];
	m.raw[7] = m.raw[3] + 1;
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_ILLEGAL);
	/* A setup in play. */
	{
		rules_position *s0 = start_pos();
		assert_int_equal(G->parse(s0, WHITE, "setup default", &m, &err), 0);
		G->free_position(s0);
	}
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_ILLEGAL);
	after = G->serialize(pos);
	assert_string_equal(before, after);
	free(after);
	G->free_position(pos);
	free(before);

	/* A setup tampered with: not sorted, a piece on a mountain. */
	pos = start_pos();
	assert_int_equal(G->parse(pos, WHITE, "setup default", &m, &err), 0);
	rules_move t = m;
	unsigned char tmp = t.raw[33];
	t.raw[33] = t.raw[34];
	t.raw[34] = tmp;
	assert_int_equal(G->apply(pos, &t, NULL, &out, &err), RULES_E_ILLEGAL);
	t = m;
	t.raw[33] = (unsigned char)sq_index("a4");
	assert_int_equal(G->apply(pos, &t, NULL, &out, &err), RULES_E_ILLEGAL);
	t = m;
	t.seat = 5;
	assert_int_equal(G->apply(pos, &t, NULL, &out, &err), RULES_E_TURN);
	t = m;
	t.seat = BLACK;
	assert_int_equal(G->apply(pos, &t, NULL, &out, &err), RULES_E_ILLEGAL);
	expect_position(pos, START);
	G->free_position(pos);
}

/* ---- listed moves ---- */

/*
 * The generator agrees with the move checker: every single move (not a
 * double move) that parse accepts, written as from-to and, for Horses,
 * from x target - end, is listed, and every listed single move is accepted.
 */
static void cross_check(const rules_position *pos)
{
	rules_move_list l = { 0 };
	int seat = to_move(pos), nl = 0, na = 0;
	char **listed, **accepted;
	rules_view v;

	if (seat < 0)
		return;
	G->legal_moves(pos, seat, &l);
	listed = calloc(l.n + 1, sizeof *listed);
	accepted = calloc(l.n + 1, sizeof *accepted);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX];
		G->format(pos, &l.v[i], buf, sizeof buf);
		if (!strchr(buf, '/'))
			listed[nl++] = strdup(buf);
	}
	G->view(pos, &v);
	for (int a = 0; a < 88; a++) {
		char A[4], B[4], C[4];
		sq_str(a, A);
		const char *pa = at(pos, A);
		if (!pa[0] || (isupper((unsigned char)pa[0]) ? WHITE : BLACK) != seat)
			continue;
		for (int b = 0; b < 88; b++) {
			char text[32], buf[RULES_TEXT_MAX];
			rules_move m;
			sq_str(b, B);
			snprintf(text, sizeof text, "%s-%s", A, B);
			int rc = G->parse(pos, seat, text, &m, NULL);
			assert_true(rc == RULES_OK || rc == RULES_E_ILLEGAL);
			if (rc == RULES_OK) {
				G->format(pos, &m, buf, sizeof buf);
				assert_true(na < nl);
				accepted[na++] = strdup(buf);
			}
			if (rc != RULES_OK || toupper((unsigned char)pa[0]) == 'T'
			    || (toupper((unsigned char)pa[0]) != 'L' && toupper((unsigned char)pa[0]) != 'H'))
				continue;
			for (int e = 0; e < 88; e++) {
				sq_str(e, C);
				if (e == b)
					continue;
				snprintf(text, sizeof text, "%sx%s-%s", A, B, C);
				rc = G->parse(pos, seat, text, &m, NULL);
				assert_true(rc == RULES_OK || rc == RULES_E_ILLEGAL);
				if (rc == RULES_OK) {
					G->format(pos, &m, buf, sizeof buf);
					assert_true(na < nl);
					accepted[na++] = strdup(buf);
				}
			}
		}
	}
	qsort(listed, (size_t)nl, sizeof *listed, cmp_str);
	qsort(accepted, (size_t)na, sizeof *accepted, cmp_str);
	if (na != nl)
		fprintf(stderr, "cross check: %d listed single moves, %d accepted\n", nl, na);
	assert_int_equal(na, nl);
	for (int i = 0; i < nl; i++) {
		assert_string_equal(listed[i], accepted[i]);
		free(listed[i]);
		free(accepted[i]);
	}
	free(listed);
	free(accepted);
	rules_move_list_free(&l);
}

static void test_round_trip_listed_moves(void **state)
{
	rules_position *p[8];
	(void)state;

	p[0] = default_game(1);
	p[1] = make("wK e2, bK e8, wR c4, wR d4, wR h4, bR c5, bR d5", NULL, 'W');
	p[2] = make("wK a1, bK h9, wL e3, bR f4, bS f6, wH c5, bE d6, bH e5, wW e6, wT c3, wC g4",
		    "X g6, ~ d4", 'W');
	p[3] = make("wK e2, bK h9, wW e3, bR e4, wR d4, wD f4, bC f7, bT g5, bS h6, wE g4", "X c7", 'W');
	p[4] = make("wK e2, bK h9, wW e3, bR e4, wR d4, wD f4, bC f7, bT g5, bS h6, wE g4", "X c7", 'B');
	p[5] = make("wK a1, bK h9, bS e6, wR e5, wR d6, wR f6, bT e9, bL c7", NULL, 'B');
	p[6] = start_pos();
	p[7] = default_game(6);
	for (int i = 0; i < 8; i++) {
		if (i == 6) {
			check_round_trips(p[i], WHITE);
			check_round_trips(p[i], BLACK);
		} else {
			check_round_trips(p[i], to_move(p[i]));
			cross_check(p[i]);
		}
		G->free_position(p[i]);
	}
}

/* The legal moves of the default start: White's list includes the Rabble double moves. */
static void test_move_counts(void **state)
{
	rules_position *pos = default_game(1);
	rules_move_list l = { 0 };
	int singles = 0, doubles = 0, captures = 0;
	(void)state;

	G->legal_moves(pos, WHITE, &l);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX];
		G->format(pos, &l.v[i], buf, sizeof buf);
		if (strchr(buf, '/'))
			doubles++;
		else if (strchr(buf, 'x'))
			captures++;
		else
			singles++;
	}
	/* The Crossbows on e3 engages d6 through the own Spears on e4, so the Light
	 * Horse on b3 can take it at once, passing the own Rabble on c4. */
	assert_int_equal(captures, 1);
	expect_legal(pos, "Lb3xd6", "Lb3xd6");
	assert_true(singles > 20);
	assert_true(doubles > 100);
	assert_int_equal(count_moves(pos, BLACK), 0);
	rules_move_list_free(&l);
	G->free_position(pos);
}

/* ---- random setups and random games ---- */

/* The slot table of Terrain and tiles, both seats as printed (not derived by rotation). */
static const char *const slots_w[12][4] = {
	{ "a4", "b4", "a3", "b3" }, { "c4", "d4", "c3", "d3" }, { "e4", "f4", "e3", "f3" },
	{ "a2", "b2", "a1", "b1" }, { "c2", "d2", "c1", "d1" }, { "e2", "f2", "e1", "f1" },
	{ "f4", "g4", "e3", "f3" }, { "h4", "i4", "g3", "h3" }, { "j4", "k4", "i3", "j3" },
	{ "d2", "e2", "c1", "d1" }, { "f2", "g2", "e1", "f1" }, { "h2", "i2", "g1", "h1" },
};
static const char *const slots_b[12][4] = {
	{ "k6", "j6", "j7", "i7" }, { "i6", "h6", "h7", "g7" }, { "g6", "f6", "f7", "e7" },
	{ "i8", "h8", "h9", "g9" }, { "g8", "f8", "f9", "e9" }, { "e8", "d8", "d9", "c9" },
	{ "f6", "e6", "f7", "e7" }, { "d6", "c6", "d7", "c7" }, { "b6", "a6", "b7", "a7" },
	{ "f8", "e8", "f9", "e9" }, { "d8", "c8", "d9", "c9" }, { "b8", "a8", "b9", "a9" },
};
static const char *const kslots[3] = { "L0 L3 R0 R1 R2 R3 R4 R5", "L0 L1 L3 L4 R1 R2 R4 R5",
	"L0 L1 L2 L3 L4 L5 R2 R5" };
static const char *const ktile_w[3][6] = {
	{ "c4", "d4", "e4", "c3", "d3", "c2" }, { "e4", "f4", "g4", "e3", "f3", "e2" },
	{ "g4", "h4", "i4", "g3", "h3", "g2" },
};
static const char *const ktile_b[3][6] = {
	{ "i6", "h6", "g6", "h7", "g7", "g8" }, { "g6", "f6", "e6", "f7", "e7", "e8" },
	{ "e6", "d6", "c6", "d7", "c7", "c8" },
};
static const char *const faces[8][2] = {
	{ "X..X", ".X.." }, { "~~..", "~..." }, { "X...", "~..." }, { ".~..", ".X.." },
	{ "X...", "...." }, { ".~..", "...." }, { "....", "...." }, { "....", "...." },
};

static int slot_index(const char *s)
{
	return (s[0] == 'R') * 6 + s[1] - '0';
}

/* Each position's King's tile and slots cover the seat's 38 squares once (Terrain and tiles). */
static void test_tile_geometry(void **state)
{
	(void)state;
	for (int seat = 0; seat < 2; seat++)
		for (int k = 0; k < 3; k++) {
			int cover[88] = { 0 };
			for (int i = 0; i < 6; i++)
				cover[sq_index((seat ? ktile_b : ktile_w)[k][i])]++;
			for (int i = 0; i < 8; i++) {
				int slot = slot_index(kslots[k] + 3 * i);
				for (int c = 0; c < 4; c++)
					cover[sq_index((seat ? slots_b : slots_w)[slot][c])]++;
			}
			for (int s = 0; s < 88; s++) {
				int n = 9;
				while (s < row_start[n])
					n--;
				int mine = seat == WHITE ? n < 5 : n > 5;
				assert_int_equal(cover[s], mine ? 1 : 0);
			}
		}
}

/* A random valid setup line for seat; terr receives the terrain of its half. */
static void random_setup(int seat, char *line, size_t size, char terr[88])
{
	static const char letters[] = "RSLHECTDW";
	static const int counts[] = { 6, 3, 3, 2, 2, 2, 1, 1, 2 };
	int kpos = (int)(rng() % 3), tiles[8], free_sq[40], nfree = 0, circle;
	char used[88];
	size_t n;

	for (int i = 0; i < 8; i++)
		tiles[i] = i + 1;
	for (int i = 7; i > 0; i--) {
		int j = (int)(rng() % (uint64_t)(i + 1)), t = tiles[i];
		tiles[i] = tiles[j];
		tiles[j] = t;
	}
	memset(used, 0, sizeof used);
	n = (size_t)snprintf(line, size, "setup K%d", kpos);
	for (int i = 0; i < 8; i++) {
		const char *sl = kslots[kpos] + 3 * i;
		int slot = slot_index(sl), rot = (int)(rng() % 2), face = slot >= 6;
		for (int c = 0; c < 4; c++) {
			char t = faces[tiles[i] - 1][face][rot ? 3 - c : c];
			terr[sq_index((seat ? slots_b : slots_w)[slot][c])] = t;
		}
		/* The face letter is optional: write it half the time. */
		n += (size_t)snprintf(line + n, size - n, " %.2s=%d%s%s", sl, tiles[i],
				      rng() % 2 ? (face ? "B" : "A") : "", rot ? "r" : "");
	}
	circle = sq_index((seat ? ktile_b : ktile_w)[kpos][5]);
	for (int i = 0; i < 6; i++)
		terr[sq_index((seat ? ktile_b : ktile_w)[kpos][i])] = '.';
	for (int s = 0; s < 88; s++) {
		int r = 9;
		while (s < row_start[r])
			r--;
		if ((seat == WHITE ? r < 5 : r > 5) && s != circle && terr[s] != 'X')
			free_sq[nfree++] = s;
	}
	assert_true(nfree >= 22);
	for (int i = nfree - 1; i > 0; i--) {
		int j = (int)(rng() % (uint64_t)(i + 1)), t = free_sq[i];
		free_sq[i] = free_sq[j];
		free_sq[j] = t;
	}
	for (int k = 0, f = 0; k < 9; k++) {
		n += (size_t)snprintf(line + n, size - n, " %c=", letters[k]);
		for (int i = 0; i < counts[k]; i++, f++) {
			char A[4];
			sq_str(free_sq[f], A);
			n += (size_t)snprintf(line + n, size - n, "%s%s", i ? "," : "", A);
		}
	}
	if (rng() % 2) {
		char A[4];
		sq_str(circle, A);
		snprintf(line + n, size - n, " K=%s", A);
	}
}

static void check_invariants(const rules_position *pos, int mover, const int before[2])
{
	rules_view v, v2;
	rules_result res;
	int pieces[2] = { 0, 0 }, kings[2] = { 0, 0 };

	assert_int_equal(G->has_secrets(pos), 0);
	G->view(pos, &v);
	G->view_for(pos, 1 - mover, &v2);
	expect_same_view(&v, &v2);
	G->result(pos, &res);
	for (int r = 0; r < 9; r++)
		for (int c = 0; c < 12; c++) {
			const rules_cell *cell = &v.cell[r][c];
			if (!cell->piece[0]) {
				assert_int_equal(cell->owner, -1);
				continue;
			}
			int owner = cell->owner;
			assert_int_equal(owner, isupper((unsigned char)cell->piece[0]) ? WHITE : BLACK);
			assert_string_not_equal(cell->kind, "mountain");
			pieces[owner]++;
			kings[owner] += toupper((unsigned char)cell->piece[0]) == 'K';
		}
	/* The mover lost nothing; the other lost at most one piece. */
	assert_int_equal(pieces[mover], before[mover]);
	assert_true(pieces[1 - mover] == before[1 - mover] || pieces[1 - mover] == before[1 - mover] - 1);
	assert_int_equal(kings[mover], 1);
	if (kings[1 - mover] == 0) {
		assert_int_equal(res.over, 1);
		assert_int_equal(res.rank[mover], 1);
		assert_string_equal(res.summary, mover == WHITE ? "White wins: King captured"
				    : "Black wins: King captured");
	}
	expect_turn_passed(pos, mover);
	if (res.over)
		assert_int_equal(res.rank[1 - mover], 2);
}

static int n_doubles, n_captures, n_continuations, n_retreats, n_jumps, n_king, n_nomove;

/* A random legal move for the side to move: a King capture when there is
 * one, otherwise a capture half of the time, so that games end. */
static void random_capture_move(const rules_position *pos, rules_move *out, char *text)
{
	rules_move_list l = { 0 };
	int seat = to_move(pos), ncap = 0, *caps;
	char buf[RULES_TEXT_MAX];

	assert_true(G->legal_moves(pos, seat, &l) > 0);
	caps = calloc(l.n, sizeof *caps);
	for (size_t i = 0; i < l.n; i++) {
		G->format(pos, &l.v[i], buf, sizeof buf);
		if (!strchr(buf, 'x'))
			continue;
		caps[ncap++] = (int)i;
		char tgt[4];
		snprintf(tgt, sizeof tgt, "%.2s", strchr(buf, 'x') + 1);
		if (toupper((unsigned char)at(pos, tgt)[0]) == 'K') {
			caps[0] = (int)i;
			ncap = 1;
			break;
		}
	}
	size_t pick = ncap && (rng() % 2 || ncap == 1) ? (size_t)caps[rng() % (uint64_t)ncap]
		: (size_t)(rng() % l.n);
	*out = l.v[pick];
	G->format(pos, out, text, RULES_TEXT_MAX);
	free(caps);
	rules_move_list_free(&l);
}

static void choose_capture(const rules_position *pos, rules_move *move, void *ctx)
{
	char text[RULES_TEXT_MAX];

	(void)ctx;
	random_capture_move(pos, move, text);
}

/* After each ply of play (ctx: each seat's pieces before it): nothing secret, what the move did,
 * and the invariants. */
static void random_ply(const rules_position *pos, int seat, const char *text, const rules_outcome *out,
		       void *ctx)
{
	int *count = ctx, before[2];

	assert_int_equal(out->secret, 0);
	assert_int_equal(out->reveals, 0);
	n_doubles += strchr(text, '/') != NULL;
	n_captures += strstr(out->note, "captures") != NULL;
	n_continuations += (text[0] == 'L' || text[0] == 'H') && strlen(text) > 6;
	n_retreats += text[0] == 'T' && strchr(text, 'x') != NULL;
	n_jumps += text[0] == 'K' && text[3] == '-' && hex_distance(sq_index(text + 1), sq_index(text + 4)) == 2;
	n_king += strstr(out->note, "captures wK") || strstr(out->note, "captures bK");
	n_nomove += strstr(out->note, "no legal move") != NULL;
	if (strstr(out->note, "captures"))
		count[1 - seat]--;
	before[0] = count[0];
	before[1] = count[1];
	if (strstr(out->note, "captures"))
		before[1 - seat]++;
	check_invariants(pos, seat, before);
}

/* Sets up both seats at random (each setup checked on its own), then plays a random game, the
 * round trips and the parser checked every 20 plies when deep; record (may be NULL) gets what
 * was played. Returns the plies. */
static int random_game_cy(rules_position *pos, int cap, int deep, play_record *record)
{
	int count[2] = { 23, 23 }, setups = 0;
	random_play how = { .choose = choose_capture, .check = random_ply, .every = deep ? 20 : 0,
			    .deep = cross_check, .ctx = count };

	/* Setups: either seat first, sometimes replaced before the other's is in. */
	int first = (int)(rng() % 2), replace = (int)(rng() % 3 == 0);
	for (int k = 0; k < 2 + replace; k++) {
		int seat = k < 1 + replace ? first : 1 - first;
		char line[RULES_TEXT_MAX], terr[88];
		rules_move m;
		rules_outcome out;
		rules_error err;
		script sc = { { 1 + (int)(rng() % 6) }, 1, 0, 0, 0 };
		rules_dice dice = { script_roll, &sc };
		random_setup(seat, line, sizeof line, terr);
		int rc = G->parse(pos, seat, line, &m, &err);
		if (rc)
			fail_msg("random setup '%s' rejected: %s", line, err.message);
		check_round_trip(pos, &m);
		assert_int_equal(G->apply(pos, &m, &dice, &out, &err), RULES_OK);
		assert_int_equal(out.secret, 1);
		assert_int_equal(out.reveals, k == 1 + replace);
		assert_int_equal(sc.used, k == 1 + replace);
		record_ply(record, seat, line, sc.v, sc.used);
		setups++;
		if (out.reveals) {
			/* the terrain is the one drawn up */
			rules_view v;
			G->view(pos, &v);
			for (int r = 0; r < 9; r++)
				for (int c = 0; c < 12; c++) {
					const rules_cell *cell = &v.cell[r][c];
					if (!cell->name[0] || (seat == WHITE ? 9 - r >= 5 : 9 - r <= 5))
						continue;
					char want = terr[sq_index(cell->name)];
					assert_string_equal(cell->kind, want == 'X' ? "mountain" : want == '~' ? "water" : "");
				}
			assert_int_equal(G->has_secrets(pos), 0);
			break;
		}
		assert_int_equal(G->has_secrets(pos), 1);
		/* The position text keeps the hidden setup (and deserialize finds its tiles). */
		{
			char *t = G->serialize(pos), *t2;
			rules_position *back = NULL;
			assert_int_equal(G->deserialize(t, &back, NULL), 0);
			t2 = G->serialize(back);
			assert_string_equal(t, t2);
			assert_int_equal(G->has_secrets(back), 1);
			free(t);
			free(t2);
			G->free_position(back);
		}
		/* Only the submitter sees it. */
		{
			rules_view a, b;
			rules_position *s0 = start_pos();
			G->view_for(pos, 1 - seat, &a);
			G->view_for(s0, 1 - seat, &b);
			expect_same_view(&a, &b);
			G->view_for(pos, -1, &a);
			G->view_for(s0, -1, &b);
			expect_same_view(&a, &b);
			G->free_position(s0);
		}
	}
	return setups + random_game(pos, cap, &how, record);
}

static void test_random_games(void **state)
{
	int over = 0, total = 0;
	(void)state;

	n_doubles = n_captures = n_continuations = n_retreats = n_jumps = n_king = n_nomove = 0;
	rng_seed(0x9e3779b97f4a7c15ULL);
	for (int g = 0; g < 150; g++) {
		rules_position *pos = start_pos();
		rules_result res;
		total += random_game_cy(pos, 2000, g < 3, NULL);
		G->result(pos, &res);
		over += res.over;
		G->free_position(pos);
	}
	if (getenv("CYVASSE_STATS"))
		fprintf(stderr, "games over %d, plies %d, captures %d, doubles %d, continuations %d, "
			"retreats %d, jumps %d, king %d, nomove %d\n", over, total, n_captures, n_doubles,
			n_continuations, n_retreats, n_jumps, n_king, n_nomove);
	assert_int_equal(over, 150);
	assert_true(n_captures > 1000);
	assert_true(n_doubles > 100);
	assert_true(n_continuations > 10);
	assert_true(n_retreats > 10);
	assert_true(n_jumps > 5);
}

/* Games from random hidden setups (one replaced now and then) replay from their record. */
static void test_replay_rebuilds_position(void **state)
{
	static play_record record;
	(void)state;

	rng_seed(12345);
	for (int g = 0; g < 5; g++) {
		rules_position *pos = start_pos();
		char *end;
		record.n = record.nrolls = 0;
		random_game_cy(pos, 2000, 0, &record);
		end = G->serialize(pos);
		check_replay(&record, end);
		free(end);
		G->free_position(pos);
	}
}

/* ---- gestures: how moves are pointed at on the board ---- */

/* The setup phase lists the default setup, which touches nothing; then the moves of play. */
static void test_gestures_setup_and_start(void **state)
{
	rules_position *pos = *state, *p;
	script sc = { { 5 }, 1, 0, 0, 0 };
	rules_dice dice = { script_roll, &sc };

	for (int seat = WHITE; seat <= BLACK; seat++) {
		assert_int_equal(gesture_check(G, pos, seat, 2), 1);
		expect_gesture_by(pos, seat, "setup default", "", "default setup");
	}
	/* Any other setup touches nothing either. */
	expect_gesture_by(pos, WHITE, edit(WHITE_DEFAULT, "R4=2Br", "R4=2B"), "", "setup");
	expect_gesture_by(pos, WHITE, WHITE_DEFAULT, "", "default setup");
	expect_gesture_by(pos, BLACK, edit(BLACK_DEFAULT, "K=e8", ""), "", "default setup");
	play_as(pos, WHITE, "setup default", WHITE_DEFAULT, NULL, NULL, NULL);
	assert_int_equal(gesture_check(G, pos, WHITE, 2), 1);     /* White may still replace it */
	assert_int_equal(gesture_check(G, pos, BLACK, 2), 1);
	play_as(pos, BLACK, "setup default", BLACK_DEFAULT, NULL, &dice, NULL);

	/* Black moves first (d6: 5). */
	assert_true(gesture_check(G, pos, BLACK, 2) > 20);
	assert_int_equal(gesture_check(G, pos, WHITE, 2), 0);
	expect_gesture(pos, "Ra6-a5", "a6 a5", "");
	expect_gesture(pos, "Ra6-a5 / Rd6-d5", "a6 a5 d6 d5", "");
	expect_gesture(pos, "Lb7-b6", "b7 b6", "");

	p = default_game(2);
	assert_true(gesture_check(G, p, WHITE, 2) > 20);
	assert_int_equal(gesture_check(G, p, BLACK, 2), 0);
	expect_gesture(p, "Rb4-b5 / Rc4-c5", "b4 b5 c4 c5", "");
	G->free_position(p);
}

/* A capture touches the capturer and its victim; a Horse's end square is touched when it continues. */
static void test_gestures_moves_and_captures(void **state)
{
	rules_position *pos = make("wK e2, bK e8, wR c4, wR d4, wR h4", NULL, 'W');       /* Y4 */
	(void)state;

	expect_gesture(pos, "Rc4-c5", "c4 c5", "");
	expect_gesture(pos, "Rc4-c5 / Rd4-d5", "c4 c5 d4 d5", "");
	expect_gesture(pos, "Rd4-e4 / Rc4-d4", "d4 e4 c4 d4", "");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = make("wK a1, bK h9, wL e3, bR f4", NULL, 'W');                             /* Y7 */
	expect_gesture(pos, "Le3xf4", "e3 f4", "");
	expect_gesture(pos, "Le3xf4-g5", "e3 f4 g5", "");
	expect_gesture(pos, "Le3xf4-g6", "e3 f4 g6", "");
	expect_gesture(pos, "Le3-g5", "e3 g5", "");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = make("wK a1, bK h9, wH e3, bR f4, wR f5", NULL, 'W');
	expect_gesture(pos, "He3xf4-g5", "e3 f4 g5", "");
	G->free_position(pos);

	pos = make("wK a1, bK h9, wT e2, bR e5", NULL, 'W');                             /* Y12 */
	expect_gesture(pos, "Te2xe5", "e2 e5", "");             /* the retreat to e1 follows */
	expect_gesture(pos, "Te2xe5-e1", "e2 e5", "");
	expect_gesture(pos, "Te2-e3", "e2 e3", "");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = make("wK e2, bK h9, wW e3, bR e4, wR d4", NULL, 'W');                      /* Y15 */
	expect_gesture(pos, "Ke2xe4", "e2 e4", "");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);
	pos = make("wK e2, bK h9, wW e3", NULL, 'W');
	expect_gesture(pos, "Ke2-e4", "e2 e4", "");
	G->free_position(pos);

	pos = make("wK a1, bK h9, bS e6, wR e5, wR d6, wR f6", NULL, 'B');               /* Y6 */
	expect_gesture(pos, "Se6xe5", "e6 e5", "");
	gesture_check(G, pos, BLACK, 2);
	G->free_position(pos);
}

/* Every position of random games from random setups, setups included. */
static void test_gestures_random_games(void **state)
{
	gesture_tally t = { 0, 0 };
	(void)state;

	rng_seed(4242);
	for (int g = 0; g < 20; g++) {
		rules_position *pos = start_pos();
		for (int seat = WHITE; seat <= BLACK; seat++) {
			char line[RULES_TEXT_MAX], terr[88];
			rules_move m;
			rules_gesture gs;
			rules_error err;
			script sc = { { 1 + (int)(rng() % 6) }, 1, 0, 0, 0 };
			rules_dice dice = { script_roll, &sc };
			t.moves += gesture_check(G, pos, seat, 2);
			random_setup(seat, line, sizeof line, terr);
			assert_int_equal(G->parse(pos, seat, line, &m, &err), RULES_OK);
			G->gesture(pos, &m, &gs);
			assert_int_equal(gs.n, 0);
			assert_string_equal(gs.choice, "setup");
			assert_int_equal(G->apply(pos, &m, &dice, NULL, &err), RULES_OK);
		}
		gestures_along(pos, 2000, NULL, choose_capture, &t);
		G->free_position(pos);
	}
	assert_true(t.moves > 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		start_test(test_y1_default_setup),
		start_test(test_y2_invalid_setups),
		start_test(test_y3_hidden_setup_procedure),
		cmocka_unit_test(test_y4_rabble_double_move),
		cmocka_unit_test(test_y5_spears_zone_stops_movement),
		cmocka_unit_test(test_y6_spears_engagement_and_capture),
		cmocka_unit_test(test_y7_light_horse_continuation),
		cmocka_unit_test(test_y8_heavy_armour),
		cmocka_unit_test(test_y9_engagement_before_capture),
		cmocka_unit_test(test_y10_elephant),
		cmocka_unit_test(test_y11_crossbows_never_capture),
		cmocka_unit_test(test_y12_trebuchet),
		cmocka_unit_test(test_y13_dragon),
		cmocka_unit_test(test_y14_tower),
		cmocka_unit_test(test_y15_king_tower_jump),
		cmocka_unit_test(test_y16_water_and_mountains_block_engagement),
		cmocka_unit_test(test_y17_unarmoured_need_no_engagement),
		cmocka_unit_test(test_y18_king_capture_wins),
		cmocka_unit_test(test_y19_no_legal_move_loses),
		cmocka_unit_test(test_y20_moving_is_mandatory),
		cmocka_unit_test(test_notation_examples),
		cmocka_unit_test(test_lexical_rules),
		cmocka_unit_test(test_lexical_errors),
		cmocka_unit_test(test_serialize_round_trip_and_corruption),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_apply_rejects_bad_moves),
		cmocka_unit_test(test_tile_geometry),
		cmocka_unit_test(test_round_trip_listed_moves),
		cmocka_unit_test(test_move_counts),
		cmocka_unit_test(test_random_games),
		cmocka_unit_test(test_replay_rebuilds_position),
		start_test(test_gestures_setup_and_start),
		cmocka_unit_test(test_gestures_moves_and_captures),
		cmocka_unit_test(test_gestures_random_games),
	};

	check_use(&(rules_check){ .game = G });
	return cmocka_run_group_tests(tests, NULL, NULL);
}
