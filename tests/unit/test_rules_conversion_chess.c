/* test_rules_conversion_chess.c - the Conversion Chess rules against docs/rules/conversion-chess.md:
 * scenarios CC1-CC22, notation, position text, random games. */
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

extern const rules_game rules_conversion_chess;
static const rules_game *const G = &rules_conversion_chess;

enum { WHITE = 0, BLACK = 1 };

#define START "cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-"

/* ---- helpers ---- */

static void square_of(const char *s, int *r, int *f)
{
	*f = tolower((unsigned char)s[0]) - 'a';
	*r = s[1] - '1';
	assert_true(*f >= 0 && *f < 9 && *r >= 0 && *r < 9);
}

/*
 * A position from "wR h2, bN h5, w(RN) d4": owner w/b, a piece letter or a compound in
 * parentheses (letters in the fixed order), a square. Unless kings is 0, wK e1 and bK e9 are
 * added for a side that has no King in the list (as the Scenarios assume). Hands are
 * written as in the position text ("" for empty), side is 'W' or 'B'.
 */
static rules_position *setup_full(const char *pieces, const char *whand, const char *bhand, char side,
				  int kings)
{
	char board[9][9][12], text[1024];
	int have_king[2] = { 0, 0 }, r, f;
	size_t n = 0;
	const char *p = pieces;

	memset(board, 0, sizeof board);
	while (*p) {
		char piece[12];
		size_t k = 0;
		int owner;
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		assert_true(*p == 'w' || *p == 'b');
		owner = *p++ == 'w' ? WHITE : BLACK;
		if (*p == '(') {
			while (*p != ')')
				piece[k++] = *p++;
			piece[k++] = *p++;
		} else {
			piece[k++] = *p++;
		}
		piece[k] = 0;
		if (strcmp(piece, "K") == 0)
			have_king[owner] = 1;
		while (*p == ' ')
			p++;
		square_of(p, &r, &f);
		p += 2;
		assert_int_equal(board[r][f][0], 0);
		for (size_t i = 0; i <= k; i++)
			board[r][f][i] = owner == WHITE ? piece[i] : (char)tolower((unsigned char)piece[i]);
	}
	if (kings && !have_king[WHITE]) {
		assert_int_equal(board[0][4][0], 0);
		strcpy(board[0][4], "K");
	}
	if (kings && !have_king[BLACK]) {
		assert_int_equal(board[8][4][0], 0);
		strcpy(board[8][4], "k");
	}
	n += (size_t)snprintf(text, sizeof text, "cc1:");
	for (r = 8; r >= 0; r--) {
		for (f = 0; f < 9; f++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s", board[r][f][0] ? board[r][f] : ".");
		text[n++] = r ? '/' : ':';
	}
	snprintf(text + n, sizeof text - n, "%s:%s:%c:-", whand && *whand ? whand : "-",
		 bhand && *bhand ? bhand : "-", side);
	return position_of(text);
}

static rules_position *setup(const char *pieces, char side)
{
	return setup_full(pieces, NULL, NULL, side, 1);
}

/* Play text on a copy of pos: the canonical echo and the note. */
static void try_on_copy(const rules_position *pos, const char *text, const char *canon, const char *note)
{
	rules_position *copy = G->clone(pos);

	play(copy, text, canon, note);
	G->free_position(copy);
}

/* The piece on a square as the view draws it, "" when empty. */
static const char *at(const rules_position *pos, const char *square)
{
	static rules_view v;
	int r, f;

	square_of(square, &r, &f);
	G->view(pos, &v);
	assert_string_equal(v.cell[8 - r][f].name, square);
	return v.cell[8 - r][f].piece;
}

/* A seat's hand as a string of letters. */
static const char *hand(const rules_position *pos, int seat)
{
	static char buf[80];
	rules_view v;

	G->view(pos, &v);
	buf[0] = 0;
	for (int i = 0; i < v.holding[seat].npieces; i++)
		strcat(buf, v.holding[seat].pieces[i]);
	return buf;
}

/* The destinations of the plain moves (no promotion) of the piece on from, sorted, "d5 e5". */
static const char *dests(const rules_position *pos, const char *from)
{
	static char out[200];
	rules_move_list l = { 0 };
	char *found[81];
	size_t n = 0, len = 0;

	G->legal_moves(pos, to_move(pos), &l);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX], *p;
		G->format(pos, &l.v[i], buf, sizeof buf);
		if (strchr(buf, '/') || strchr(buf, '=') || strchr(buf, '*'))
			continue;
		p = buf[0] == '(' ? strchr(buf, ')') + 1 : buf + 1;
		if (strncmp(p, from, 2) != 0)
			continue;
		p += 3;
		p[2] = 0;
		int dup = 0;
		for (size_t k = 0; k < n; k++)
			dup |= strcmp(found[k], p) == 0;
		if (!dup)
			found[n++] = strdup(p);
	}
	qsort(found, n, sizeof *found, cmp_str);
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", i ? " " : "", found[i]);
		free(found[i]);
	}
	rules_move_list_free(&l);
	return out;
}

static void expect_result(const rules_position *pos, int winner, const char *summary)
{
	rules_result res;

	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[winner], 1);
	assert_int_equal(res.rank[1 - winner], 2);
	assert_string_equal(res.summary, summary);
	assert_int_equal(G->turn(pos), 0u);
	assert_int_equal(count_moves(pos, WHITE), 0);
	assert_int_equal(count_moves(pos, BLACK), 0);
}

static void expect_going(const rules_position *pos, int seat)
{
	rules_result res;

	G->result(pos, &res);
	assert_int_equal(res.over, 0);
	assert_int_equal(G->turn(pos), 1u << seat);
}

/* ---- the Scenarios ---- */

static void test_cc1_start(void **state)
{
	static const char *want[] = {
		"Pa3-a4", "Pb3-b4", "Pc3-c4", "Pd3-d4", "Pe3-e4", "Pf3-f4", "Pg3-g4", "Ph3-h4", "Pi3-i4",
		"Ac2-a4", "Ac2-e4", "Ag2-e4", "Ag2-i4", "Rh2-i2", "Sc1-d2", "Sg1-f2", "Gd1-d2", "Gd1-e2",
		"Gf1-f2", "Gf1-e2", "Ke1-d2", "Ke1-e2", "Ke1-f2",
	};
	char *exp[32], *got, joined[512] = "";
	rules_position *pos = *state;

	expect_position(pos, START);
	assert_int_equal(G->turn(pos), 1u);
	assert_int_equal(sizeof want / sizeof want[0], 23);
	for (size_t i = 0; i < 23; i++)
		exp[i] = strdup(want[i]);
	qsort(exp, 23, sizeof exp[0], cmp_str);
	for (size_t i = 0; i < 23; i++) {
		strcat(joined, i ? "|" : "");
		strcat(joined, exp[i]);
		free(exp[i]);
	}
	got = listed_moves(pos, to_move(pos), "|");
	assert_string_equal(got, joined);
	free(got);
	assert_int_equal(count_moves(pos, WHITE), 23);
	assert_int_equal(count_moves(pos, BLACK), 0);

	expect_legal(pos, "Pe3-e4", "Pe3-e4");
	/* Knights and Dabbabas are stuck; no promotion outside the zone (house ruling 14). */
	expect_illegal(pos, "Nb1-c3", "the Knight on b1 cannot move to c3: the Knight move is blocked at b2");
	expect_illegal(pos, "Da1-a3", "a3 holds your own Pawn");
	expect_illegal(pos, "Pe3=R / Re3xe7 assim",
		       "promotion before moving needs the piece in White's zone (ranks 7-9), and e3 is outside it");
	expect_illegal(pos, "Pe3=R", "a promotion in place needs the piece in White's zone (ranks 7-9)");
	/* Black may not move first. */
	expect_reject(pos, BLACK, "Pe7-e6", RULES_E_TURN, "it is not your turn: White is to move");
}

static void test_cc2_lame_knight(void **state)
{
	rules_position *pos = setup("wN e4, bP e5", 'W');
	rules_position *free_knight = setup("wN e4", 'W');
	(void)state;

	expect_illegal(pos, "Ne4-d6", "the Knight on e4 cannot move to d6: the Knight move is blocked at e5 (the Knight is lame)");
	expect_illegal(pos, "Ne4-f6", "blocked at e5");
	assert_string_equal(dests(pos, "e4"), "c3 c5 d2 f2 g3 g5");
	assert_string_equal(dests(free_knight, "e4"), "c3 c5 d2 d6 f2 f6 g3 g5");
	expect_legal(pos, "Ne4-c5", "Ne4-c5");
	expect_legal(pos, "Ne4-g3", "Ne4-g3");
	G->free_position(pos);
	G->free_position(free_knight);
}

static void test_cc3_alfil_and_dabbaba_jump(void **state)
{
	rules_position *a = setup("wA c3, bP d4, wP b2", 'W');
	rules_position *d = setup("wD e5, bP e6, wP d5", 'W');
	(void)state;

	expect_legal(a, "Ac3-e5", "Ac3-e5");
	expect_legal(a, "Ac3-a5", "Ac3-a5");
	expect_legal(a, "Ac3-a1", "Ac3-a1");
	expect_illegal(a, "Ac3-e1", "e1 holds your own King");
	assert_string_equal(dests(a, "c3"), "a1 a5 e5");
	expect_legal(d, "De5-e7", "De5-e7");
	expect_legal(d, "De5-c5", "De5-c5");
	expect_legal(d, "De5-g5", "De5-g5");
	expect_legal(d, "De5-e3", "De5-e3");
	assert_string_equal(dests(d, "e5"), "c5 e3 e7 g5");
	G->free_position(a);
	G->free_position(d);
}

static void test_cc4_rook_vs_rook(void **state)
{
	rules_position *pos = setup("wR a5, bR e5", 'W');
	(void)state;

	expect_illegal(pos, "Ra5xe5", "the Rook may not move onto the Rook on e5: Third Tier against Third Tier is attacking only");
	expect_illegal(pos, "Ra5xe5 disp(P)", "attacking only");
	expect_illegal(pos, "Ra5xe5 assim", "attacking only");
	G->free_position(pos);

	pos = setup("wR a4, bR e5", 'W');
	play(pos, "Ra4-a5", "Ra4-a5", "converts e5");
	assert_string_equal(at(pos, "e5"), "R");
	assert_string_equal(at(pos, "a5"), "R");
	expect_going(pos, BLACK);
	expect_position(pos, "cc1:....k..../........./........./........./R...R..../........./........./........./....K....:-:-:B:-");
	G->free_position(pos);
}

static void test_cc5_pawn_displaces_bishop(void **state)
{
	rules_position *pos = setup("wP e4, bB e5", 'W');
	(void)state;

	expect_illegal(pos, "Pe4xe5", "demotion choice required: the Bishop goes to your hand as P, S or G: write disp(P), disp(S) or disp(G)");
	expect_illegal(pos, "Pe4xe5 disp", "demotion choice required");
	expect_illegal(pos, "Pe4xe5 disp(N)", "the Bishop demotes to P, S or G, not N");
	expect_illegal(pos, "Pe4xe5 assim", "Second Tier against Third Tier allows only displacement (disp), not assimilation");
	expect_illegal(pos, "Pe4xe5 disp(S,G)", "the demotion list has 2 pieces, but the Bishop needs 1");
	play(pos, "Pe4xe5 disp(S)", "Pe4xe5 disp(S)", "to hand: S");
	assert_string_equal(at(pos, "e5"), "P");
	assert_string_equal(at(pos, "e4"), "");
	assert_string_equal(hand(pos, WHITE), "S");
	assert_string_equal(hand(pos, BLACK), "");
	G->free_position(pos);
}

static void test_cc6_rook_assimilates_knight(void **state)
{
	rules_position *pos = setup("wR h2, bN h5, bA f6, bR h8", 'W');
	(void)state;

	expect_illegal(pos, "Rh2xh5 disp", "Third Tier against First Tier allows only assimilation (assim), not displacement");
	expect_legal(pos, "Rh2xh5 assim", "Rh2xh5 assim");
	play(pos, "Rh2xh5", "Rh2xh5 assim", "becomes (RN); converts f6, h8");
	assert_string_equal(at(pos, "h5"), "RN");
	assert_string_equal(at(pos, "f6"), "A");
	assert_string_equal(at(pos, "h8"), "R");
	assert_string_equal(at(pos, "h2"), "");
	assert_string_equal(hand(pos, WHITE), "");
	expect_going(pos, BLACK);
	G->free_position(pos);
}

static void test_cc7_rook_vs_pawn_choice(void **state)
{
	rules_position *pos = setup("wR b2, bP b7, bN b9", 'W');
	(void)state;

	expect_illegal(pos, "Rb2xb7", "capture method required: Third Tier against Second Tier may displace or assimilate, so write disp or assim after b7");
	expect_illegal(pos, "Rb2xb7 disp", "demotion choice required: the Pawn goes to your hand as A, N or D");
	try_on_copy(pos, "Rb2xb7 disp(N)", "Rb2xb7 disp(N)", "to hand: N");
	{
		rules_position *c = G->clone(pos);
		play(c, "Rb2xb7 disp(N)", "Rb2xb7 disp(N)", "to hand: N");
		assert_string_equal(at(c, "b9"), "n");     /* Third vs First: no conversion */
		assert_string_equal(at(c, "b7"), "R");
		assert_string_equal(hand(c, WHITE), "N");
		G->free_position(c);
	}
	play(pos, "Rb2xb7 assim", "Rb2xb7 assim", "becomes (RP); converts b9");
	assert_string_equal(at(pos, "b7"), "RP");
	assert_string_equal(at(pos, "b9"), "N");
	assert_string_equal(hand(pos, WHITE), "");
	G->free_position(pos);
}

static void test_cc8_knight_vs_knight(void **state)
{
	rules_position *pos = setup("wN c3, bN d5, bA e7, bP b6", 'W');
	rules_position *c;
	(void)state;

	expect_illegal(pos, "Nc3xd5", "capture method required: First Tier against First Tier may displace or assimilate");
	c = G->clone(pos);
	play(c, "Nc3xd5 disp", "Nc3xd5 disp", "to hand: N; converts e7");
	assert_string_equal(hand(c, WHITE), "N");
	assert_string_equal(at(c, "d5"), "N");
	assert_string_equal(at(c, "e7"), "A");
	assert_string_equal(at(c, "b6"), "p");
	G->free_position(c);
	play(pos, "Nc3xd5 assim", "Nc3xd5 assim", "converts e7");
	assert_string_equal(at(pos, "d5"), "N");       /* still a plain Knight */
	assert_string_equal(at(pos, "e7"), "A");
	assert_string_equal(at(pos, "b6"), "p");
	assert_string_equal(hand(pos, WHITE), "");
	G->free_position(pos);
}

static void test_cc9_displacing_a_compound(void **state)
{
	rules_position *pos = setup("wP d4, b(RN) d5", 'W');
	(void)state;

	expect_illegal(pos, "Pd4xd5 disp(N)", "the Rook power demotes to P, S or G, not N");
	expect_illegal(pos, "Pd4xd5 disp", "demotion choice required: write disp(...) with one hand piece for each power of the compound (RN) that is demoted by choice: Rook to P, S or G");
	expect_illegal(pos, "Pd4xd5 disp(G,N)", "the demotion list has 2 pieces, but the compound (RN) needs 1");
	play(pos, "Pd4xd5 disp(G)", "Pd4xd5 disp(G)", "to hand: G, N");
	assert_string_equal(hand(pos, WHITE), "NG");   /* shown in the order A N D P S G */
	assert_string_equal(at(pos, "d5"), "P");
	expect_position(pos, "cc1:....k..../........./........./........./...P...../........./........./........./....K....:NG:-:B:-");
	G->free_position(pos);
}

static void test_cc10_compound_movement(void **state)
{
	rules_position *pos = setup("w(RN) d4, bP d7, wK e1, bK i9", 'W');
	rules_position *blocked = setup("w(RN) d4, bP d7, wP d5, wK e1, bK i9", 'W');
	rules_position *king = setup("w(RN) d4, bP d7, wK e1, bK e9", 'W');
	(void)state;

	try_on_copy(pos, "(RN)d4-d6", "(RN)d4-d6", "converts d7");
	try_on_copy(pos, "(RN)d4-e6", "(RN)d4-e6", "");
	try_on_copy(pos, "(NR)d4-f5", "(RN)d4-f5", "");
	expect_illegal(pos, "(RN)d4-f6", "the compound (RN) on d4 cannot move to f6: none of its powers (Rook, Knight) goes there");
	expect_illegal(blocked, "(RN)d4-e6", "the Knight move is blocked at d5 (the Knight is lame)");
	expect_illegal(blocked, "(RN)d4-c6", "blocked at d5");
	expect_illegal(blocked, "(RN)d4-d6", "the compound (RN) on d4 cannot move to d6: the Rook move is blocked at d5");
	play(king, "(RN)d4-e6", "(RN)d4-e6", "converts e9: King converted \u2014 White wins");
	expect_result(king, WHITE, "White wins: King converted");
	assert_string_equal(at(king, "e9"), "");
	assert_string_equal(at(king, "d7"), "p");
	expect_position(king, "cc1:........./........./...p...../....(RN)..../........./........./........./........./....K....:-:-:B:W:converted");
	G->free_position(pos);
	G->free_position(blocked);
	G->free_position(king);
}

static void test_cc11_compound_converts_king(void **state)
{
	rules_position *pos = setup("w(RN) a5", 'W');
	(void)state;

	play(pos, "(RN)a5-e5", "(RN)a5-e5", "converts e9: King converted \u2014 White wins");
	expect_result(pos, WHITE, "White wins: King converted");
	expect_reject(pos, BLACK, "Ke9-e8", RULES_E_OVER, "the game is over");
	G->free_position(pos);
}

static void test_cc12_first_tier_cannot_convert_king(void **state)
{
	rules_position *pos = setup("wN c5, bP a7", 'W');
	(void)state;

	play(pos, "Nc5-d7", "Nc5-d7", "");
	assert_string_equal(at(pos, "e9"), "k");
	expect_going(pos, BLACK);
	play(pos, "Pa7-a6", "Pa7-a6", "");
	play(pos, "Nd7xe9", "Nd7xe9", "King captured \u2014 White wins");
	expect_result(pos, WHITE, "White wins: King captured");
	assert_string_equal(hand(pos, WHITE), "");
	assert_string_equal(at(pos, "e9"), "N");
	expect_position(pos, "cc1:....N..../........./........./p......../........./........./........./........./....K....:-:-:B:W:king");
	G->free_position(pos);
}

static void test_cc13_drops(void **state)
{
	rules_position *pos = setup_full("bA f7", "NS", NULL, 'W', 1);
	(void)state;

	try_on_copy(pos, "S*e5", "S*e5", "");
	expect_illegal(pos, "G*e5", "you have no Gold in your hand");
	expect_illegal(pos, "S*e9", "e9 is not empty");
	expect_illegal(pos, "R*e5", "a Rook is never in a hand");
	expect_illegal(pos, "K*e5", "a King is never in a hand");
	try_on_copy(pos, "S*e8", "S*e8", "");
	play(pos, "n*e5", "N*e5", "");
	assert_string_equal(at(pos, "f7"), "a");       /* drops never convert */
	assert_string_equal(at(pos, "e5"), "N");
	assert_string_equal(hand(pos, WHITE), "S");
	G->free_position(pos);
}

static void test_cc14_promotion_in_place(void **state)
{
	rules_position *pos = setup("wP e7, wP e6, wN d7", 'W');
	rules_position *c;
	(void)state;

	expect_illegal(pos, "Pe6=R", "a promotion in place needs the piece in White's zone (ranks 7-9), and e6 is outside it");
	expect_illegal(pos, "Pe7=K", "nothing ever promotes to a King");
	expect_illegal(pos, "Nd7=R", "a promotion goes exactly one tier up: the Knight (First Tier) promotes to P, S or G, not R");
	expect_illegal(pos, "Pe7=S", "the Pawn (Second Tier) promotes to B or R, not S");
	expect_illegal(pos, "Ke1=R", "the King never promotes");
	expect_legal(pos, "Nd7=G", "Nd7=G");
	c = G->clone(pos);
	play(c, "Nd7=G", "Nd7=G", "");
	assert_string_equal(at(c, "d7"), "G");
	G->free_position(c);
	play(pos, "Pe7=R", "Pe7=R", "");
	assert_string_equal(at(pos, "e7"), "R");
	assert_string_equal(at(pos, "e9"), "k");       /* no conversion by a promotion in place */
	expect_going(pos, BLACK);
	G->free_position(pos);
}

static void test_cc15_promotion_before_and_after(void **state)
{
	rules_position *pos = setup("wP e6, wA c7", 'W');
	(void)state;

	try_on_copy(pos, "Pe6-e7 / Pe7=B", "Pe6-e7 / Pe7=B", "");
	expect_illegal(pos, "Pe6=B / Be6-g8", "promotion before moving needs the piece in White's zone (ranks 7-9), and e6 is outside it");
	expect_illegal(pos, "Pe6=B / Be6-d5", "promotion before moving needs the piece in White's zone");
	try_on_copy(pos, "Ac7=S / Sc7-d6", "Ac7=S / Sc7-d6", "");
	try_on_copy(pos, "Ac7=S / Ac7-d6", "Ac7=S / Sc7-d6", "");
	expect_parse_error(pos, "Ac7=S / Sc7-c8 / Sc8=R", "at most one promotion per turn");
	expect_illegal(pos, "Pe6-e7 / Pe6=B", "a promotion after a move is written on the square the piece moved to (e7), not e6");
	expect_illegal(pos, "Ac7=S / Sd7-d8", "a promotion before a move is written on the square the piece moves from: c7 is promoted, but the move starts on d7");
	expect_illegal(pos, "Ac7=S / Sc7-a5", "the Silver on c7 cannot move to a5");   /* new powers only */
	expect_illegal(pos, "Ac7=S / Nc7-d6", "wrong piece: c7 holds an Alfil, not a Knight");
	expect_illegal(pos, "Pe6-e7 / Ne7=B", "wrong piece: after the move e7 holds a Pawn, not a Knight");
	play(pos, "e6-e7 / e7=B", "Pe6-e7 / Pe7=B", "");
	assert_string_equal(at(pos, "e7"), "B");
	G->free_position(pos);

	/* After moving out of the zone: the move began there. */
	pos = setup("wA c7", 'W');
	play(pos, "Ac7-e5 / e5=G", "Ac7-e5 / Ae5=G", "");
	assert_string_equal(at(pos, "e5"), "G");
	G->free_position(pos);
}

static void test_cc16_king_capture_by_displacement(void **state)
{
	rules_position *pos = setup("wG e8", 'W');
	(void)state;

	expect_illegal(pos, "Ge8xe9 / Ge9=R", "nothing may follow the capture of the King");
	expect_legal(pos, "Ge8xe9 disp(N)", "Ge8xe9");     /* a written method is ignored */
	expect_legal(pos, "Ge8-e9 assim", "Ge8xe9");
	play(pos, "Ge8xe9", "Ge8xe9", "King captured \u2014 White wins");
	expect_result(pos, WHITE, "White wins: King captured");
	assert_string_equal(hand(pos, WHITE), "");
	G->free_position(pos);
}

static rules_position *cc17_position(void)
{
	return setup_full("bK a9, bR a8, bR b9, bB b8, wR a7, wR c9, wB c7, wK e1", NULL, NULL, 'B', 0);
}

static void test_cc17_no_legal_move_loses(void **state)
{
	rules_position *pos = cc17_position(), *p2;
	(void)state;

	expect_result(pos, WHITE, "White wins: Black has no legal move");
	expect_reject(pos, BLACK, "Ka9-a8", RULES_E_OVER, "the game is over");
	G->free_position(pos);

	/* Reached by play: White's move leaves Black without one. */
	p2 = setup_full("bK a9, bR a8, bR b9, bB b8, wR a7, wR c9, wB c7, wK f1", NULL, NULL, 'W', 0);
	play(p2, "Kf1-e1", "Kf1-e1", "Black has no legal move \u2014 White wins");
	expect_result(p2, WHITE, "White wins: Black has no legal move");
	expect_position(p2, "cc1:krR....../rb......./R.B....../........./........./........./........./........./....K....:-:-:B:W:nomove");
	G->free_position(p2);
}

static void test_cc18_converted_pieces_turn_around(void **state)
{
	rules_position *pos = setup("w(RN) a2, bP d6", 'W');
	(void)state;

	play(pos, "(RN)a2-a6", "(RN)a2-a6", "converts d6");
	assert_string_equal(at(pos, "d6"), "P");
	play(pos, "Ke9-f9", "Ke9-f9", "");
	expect_illegal(pos, "Pd6-d5", "the Pawn on d6 cannot move to d5: a Pawn moves one square straight forward (White's forward is toward rank 9)");
	assert_string_equal(dests(pos, "d6"), "d7");
	play(pos, "Pd6-d7", "Pd6-d7", "");
	G->free_position(pos);
}

static void test_cc19_who_cannot_promote(void **state)
{
	rules_position *pos = setup("w(RN) e7, wR d7, wK e1", 'W');
	static const char *const ups[] = { "P", "S", "G", "B", "R", "A", "K" };
	char text[32];
	(void)state;

	for (size_t i = 0; i < sizeof ups / sizeof ups[0]; i++) {
		snprintf(text, sizeof text, "(RN)e7=%s", ups[i]);
		expect_illegal(pos, text, "the compound (RN) on e7 cannot promote: compounds never promote");
		snprintf(text, sizeof text, "Rd7=%s", ups[i]);
		expect_illegal(pos, text, "the Rook on d7 cannot promote: Third Tier pieces never promote");
	}
	expect_illegal(pos, "(RN)e7=B / Be7-e8", "compounds never promote");
	G->free_position(pos);
}

static void test_cc20_compound_displaces_and_converts(void **state)
{
	rules_position *pos = setup("w(RN) d4, bP d6, bB b6", 'W');
	(void)state;

	expect_illegal(pos, "(RN)d4xd6 assim", "Fourth Tier against Second Tier allows only displacement (disp), not assimilation");
	expect_illegal(pos, "(RN)d4xd6", "demotion choice required: the Pawn goes to your hand as A, N or D");
	play(pos, "(RN)d4xd6 disp(A)", "(RN)d4xd6 disp(A)", "to hand: A; converts b6");
	assert_string_equal(at(pos, "b6"), "B");
	assert_string_equal(at(pos, "d6"), "RN");
	assert_string_equal(hand(pos, WHITE), "A");
	G->free_position(pos);
}

static void test_cc21_black_zone(void **state)
{
	rules_position *pos = setup("bP e3", 'B');
	rules_position *out = setup("bP e4", 'B');
	(void)state;

	play(pos, "Pe3=B", "Pe3=B", "");
	assert_string_equal(at(pos, "e3"), "b");
	expect_illegal(out, "Pe4=B", "a promotion in place needs the piece in Black's zone (ranks 1-3), and e4 is outside it");
	G->free_position(pos);
	G->free_position(out);
}

static void test_cc22_directions(void **state)
{
	rules_position *p;
	(void)state;

	p = setup("wS e4", 'W');
	assert_string_equal(dests(p, "e4"), "d3 d5 e5 f3 f5");
	G->free_position(p);
	p = setup("wG e4", 'W');
	assert_string_equal(dests(p, "e4"), "d4 d5 e3 e5 f4 f5");
	G->free_position(p);
	p = setup("bS e6", 'B');
	assert_string_equal(dests(p, "e6"), "d5 d7 e5 f5 f7");
	G->free_position(p);
	p = setup("bG e6", 'B');
	assert_string_equal(dests(p, "e6"), "d5 d6 e5 e7 f5 f6");
	G->free_position(p);
	p = setup("wP e4", 'W');
	assert_string_equal(dests(p, "e4"), "e5");
	G->free_position(p);
	p = setup("bP e6", 'B');
	assert_string_equal(dests(p, "e6"), "e5");
	G->free_position(p);
}

/* ---- more rules ---- */

/* A Pawn on its last rank cannot move but can promote in place (The pieces and their
 * tiers); drops go anywhere (Drops). */
static void test_pawn_on_last_rank(void **state)
{
	rules_position *pos = setup_full("", "P", NULL, 'W', 1);
	(void)state;

	play(pos, "P*a9", "P*a9", "");
	play(pos, "Ke9-d9", "Ke9-d9", "");
	assert_string_equal(dests(pos, "a9"), "");
	expect_illegal(pos, "Pa9-a8", "a Pawn moves one square straight forward");
	play(pos, "Pa9=R", "Pa9=R", "");
	assert_string_equal(at(pos, "a9"), "R");
	G->free_position(pos);
}

/* Black's captures go to Black's hand, in Black's case; Black's compounds are written upper case. */
static void test_black_captures(void **state)
{
	rules_position *pos = setup("b(BR) d4, wP d3, wB b1, wN h7, wR f6", 'B');
	(void)state;

	expect_illegal(pos, "(BR)d4xf6", "the compound (BR) may not move onto the Rook on f6");
	play(pos, "(RB)d4xd3 disp(d)", "(BR)d4xd3 disp(D)", "to hand: D; converts b1, h7");
	assert_string_equal(at(pos, "d3"), "br");
	assert_string_equal(at(pos, "b1"), "b");
	assert_string_equal(at(pos, "h7"), "n");
	assert_string_equal(at(pos, "f6"), "R");
	assert_string_equal(hand(pos, BLACK), "d");
	G->free_position(pos);
}

/* A compound of several Second and Third Tier powers lists one choice per power, B R G P S. */
static void test_displacing_a_big_compound(void **state)
{
	rules_position *pos = setup("wP d4, b(RGSN) d5", 'W');
	(void)state;

	expect_illegal(pos, "Pd4xd5 disp(P)", "the demotion list has 1 piece, but the compound (RGSN) needs 3");
	expect_illegal(pos, "Pd4xd5 disp(P,P,A)", "the Gold power demotes to A, N or D, not P");
	expect_illegal(pos, "Pd4xd5 disp(P, A, G)", "the Silver power demotes to A, N or D, not G");
	assert_string_equal(at(pos, "d5"), "rg+");
	play(pos, "pd4xd5 Disp( s ,d,A )", "Pd4xd5 disp(S,D,A)", "to hand: S, D, A, N");
	assert_string_equal(hand(pos, WHITE), "ANDS");
	G->free_position(pos);
}

/* Promotion after a capture; assimilating the same power keeps a plain piece that may promote. */
static void test_promotion_after_captures(void **state)
{
	rules_position *pos = setup("wN c6, bN d8, bP b8", 'W');
	(void)state;

	expect_illegal(pos, "Nc6xd8 assim / Nd8=K", "nothing ever promotes to a King");
	try_on_copy(pos, "Nc6xd8 assim / d8=G", "Nc6xd8 assim / Nd8=G", "");
	expect_illegal(pos, "Nc6xb8 / Nb8=S", "demotion choice required: the Pawn goes to your hand as A, N or D");
	try_on_copy(pos, "Nc6xb8 disp(A) / Nb8=S", "Nc6xb8 disp(A) / Nb8=S", "to hand: A");
	G->free_position(pos);
	pos = setup("wR h6, bN h7", 'W');
	expect_illegal(pos, "Rh6xh7 / h7=B", "the compound (RN) on h7 after the move cannot promote: compounds never promote");
	G->free_position(pos);
}

/* ---- notation (Writing moves) ---- */

static void test_notation_examples(void **state)
{
	rules_position *p;
	(void)state;

	/* 1, 2 */
	p = start_pos();
	expect_legal(p, "e3-e4", "Pe3-e4");
	expect_legal(p, "c2e4", "Ac2-e4");
	G->free_position(p);
	/* 3 */
	p = setup("wP e4, bB e5", 'W');
	try_on_copy(p, "e4xe5 disp(S)", "Pe4xe5 disp(S)", "to hand: S");
	try_on_copy(p, "e4xe5disp(s)", "Pe4xe5 disp(S)", "to hand: S");
	G->free_position(p);
	/* 4 */
	p = setup("wR h2, bN h5, bA f6, bR h8", 'W');
	try_on_copy(p, "Rh2xh5", "Rh2xh5 assim", "becomes (RN); converts f6, h8");
	G->free_position(p);
	/* 5 */
	p = setup("wR b2, bP b7, bN b9", 'W');
	try_on_copy(p, "rb2xb7 d(n)", "Rb2xb7 disp(N)", "to hand: N");
	G->free_position(p);
	/* 6 */
	p = setup("wP d4, b(RN) d5", 'W');
	try_on_copy(p, "Pd4xd5 disp(G)", "Pd4xd5 disp(G)", "to hand: G, N");
	G->free_position(p);
	/* 7 */
	p = setup_full("bA f7", "NS", NULL, 'W', 1);
	try_on_copy(p, "S*e5", "S*e5", "");
	G->free_position(p);
	/* 8 */
	p = setup("wP e7", 'W');
	try_on_copy(p, "e7=R", "Pe7=R", "");
	G->free_position(p);
	/* 9, 10 */
	p = setup("wP e6, wA c7", 'W');
	try_on_copy(p, "e6-e7 / e7=B", "Pe6-e7 / Pe7=B", "");
	try_on_copy(p, "c7=S / c7-d6", "Ac7=S / Sc7-d6", "");
	G->free_position(p);
	/* 11 */
	p = setup("w(RN) a5", 'W');
	try_on_copy(p, "(NR)a5-e5", "(RN)a5-e5", "converts e9: King converted \u2014 White wins");
	G->free_position(p);
	/* 12 */
	p = setup("wN c3, bN d5", 'W');
	try_on_copy(p, "Nc3xd5 a", "Nc3xd5 assim", "");
	G->free_position(p);
}

static void test_notation_rejected_examples(void **state)
{
	rules_position *p;
	(void)state;

	p = setup("wR a5, bR e5", 'W');
	expect_illegal(p, "Ra5xe5", "attacking only");
	G->free_position(p);
	p = setup("wP e4, bB e5", 'W');
	expect_illegal(p, "Pe4xe5", "demotion choice required");
	expect_illegal(p, "Pe4xe5 disp(N)", "demotes to P, S or G, not N");
	G->free_position(p);
	p = setup("wP e7, wN d7", 'W');
	expect_illegal(p, "Pe7=K", "nothing ever promotes to a King");
	expect_illegal(p, "Nd7=R", "promotes to P, S or G, not R");
	G->free_position(p);
}

static void test_lexical_rules(void **state)
{
	rules_position *s = *state;
	rules_position *d = setup("wD d4, wN b1, bN d5", 'W');

	/* Piece letters, case, spaces, separators, checks and comments. */
	expect_legal(s, "pe3-e4", "Pe3-e4");
	expect_legal(s, "P e3 - e4", "Pe3-e4");
	expect_legal(s, "E3E4", "Pe3-e4");
	expect_legal(s, "\t e3 x e4 ", "Pe3-e4");
	expect_legal(s, "Pe3-e4 +", "Pe3-e4");
	expect_legal(s, "Pe3-e4++ # check? / x", "Pe3-e4");
	expect_legal(s, "Pe3-e4#", "Pe3-e4");
	/* A leading letter is a piece only when a square follows: d4-d2 is a move from d4. */
	expect_legal(d, "d4-d2", "Dd4-d2");
	expect_legal(d, "dd4-d6", "Dd4-d6");
	expect_legal(d, "Dd4-d6", "Dd4-d6");
	expect_legal(d, "D d4-d6", "Dd4-d6");
	expect_legal(d, "(d)d4-d6", "Dd4-d6");
	expect_illegal(d, "Nd4-d6", "wrong piece: d4 holds a Dabbaba, not a Knight");
	expect_illegal(d, "(ND)d4-d6", "wrong piece: d4 holds a Dabbaba, not a compound (DN)");
	expect_illegal(d, "Nb1-b3", "the Knight on b1 cannot move to b3: a Knight moves one square orthogonally and then one diagonally outward");
	expect_illegal(d, "d4-d6 disp", "a capture method is written only for a capture, and d6 is empty");

	expect_parse_error(s, "", "ends too early");
	expect_parse_error(s, "  ", "ends too early");
	expect_parse_error(s, "# just a comment", "unexpected '#'");
	expect_parse_error(s, "j3-j4", "'j' is neither a piece letter nor a file");
	expect_parse_error(s, "Xe3-e4", "'X' is neither a piece letter nor a file");
	expect_parse_error(s, "Ke", "the piece letter 'K' must be followed by the square");
	expect_parse_error(s, "e0-e1", "there is no rank 0");
	expect_parse_error(s, "e3-e10", "there is no rank 10");
	expect_parse_error(s, "e3-j4", "'j' is not a file");
	expect_parse_error(s, "e3-", "ends too early: expected the square the piece moves to");
	expect_parse_error(s, "e3-e4 x", "unexpected 'x': expected a capture method (disp or assim)");
	expect_parse_error(s, "e3-e4 dispx", "unexpected 'd'");
	expect_parse_error(s, "e3-e4 assim(N)", "assimilation takes no demotion list");
	expect_parse_error(s, "e3-e4 disp()", "unexpected ')': expected a hand piece letter");
	expect_parse_error(s, "e3-e4 disp(N", "ends too early: expected ',' or ')' in the demotion list");
	expect_parse_error(s, "e3-e4 disp(N,X)", "'X' is not a piece letter");
	expect_parse_error(s, "()e3-e4", "unexpected ')': expected a piece letter in the parentheses");
	expect_parse_error(s, "(RR)e3-e4", "the letter R appears twice");
	expect_parse_error(s, "(R", "ends too early");
	expect_parse_error(s, "e3=", "ends too early: expected the piece to promote to");
	expect_parse_error(s, "e3=X", "'X' is not a piece letter");
	expect_parse_error(s, "X*e5", "'X' is not a piece letter");
	expect_parse_error(s, "S*", "ends too early: expected the square to drop on");
	expect_parse_error(s, "S*e5 / e3-e4", "a drop is the whole turn");
	expect_parse_error(s, "e3-e4 / e4-e5", "a turn moves one piece only");
	expect_parse_error(s, "e3=R / e3=B", "at most one promotion per turn");
	expect_parse_error(s, "e3-e4 / ", "ends too early");
	expect_parse_error(s, "e3-e4 / e4=B / e4=R / e4=S / e4=G", "too many parts");
	expect_parse_error(s, "e3-e4;", "unexpected ';'");
	expect_parse_error(s, "e3-e4\n", "unexpected character 0x0a");
	expect_parse_error(s, "e3-e4 \xc3\xa9", "only ASCII");
	expect_parse_error(s, "e3-e4 # caf\xc3\xa9", "only ASCII");
	expect_parse_error(s, "resign", "the piece letter 'r' must be followed by the square");
	expect_parse_error(s, "offer draw", "'o' is neither a piece letter nor a file");

	expect_length_limit(s, "Pe3-e4", "Pe3-e4");

	/* Syntax is checked before whose turn it is; bad seats. */
	expect_reject(s, BLACK, "hello", RULES_E_PARSE, "");
	expect_reject(s, BLACK, "Pe7-e6", RULES_E_TURN, "White is to move");
	expect_reject(s, 7, "Pe3-e4", RULES_E_TURN, "no seat 7");
	expect_reject(s, -1, "Pe7-e6", RULES_E_ILLEGAL, "the Pawn on e7 is Black's, not yours");
	expect_reject(s, -1, "e5-e6", RULES_E_ILLEGAL, "there is no piece on e5");
	G->free_position(d);
}

/* ---- position text, view and tampered moves ---- */

static void test_serialize_round_trip_and_corruption(void **state)
{
	static const char *bad[] = {
		"",
		"cc1:",
		"cc2:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"nchess1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		/* bad squares, short and long ranks */
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/....x..../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND/:-:-:W:-",
		/* compounds: out of order, mixed case, a single letter, a King, empty, unclosed */
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/(NR)......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/(Rn)......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/(R)......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/(RK)......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/()......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/(RRN)......../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/(RN",
		/* hands: wrong case, out of order, not a hand piece, empty field, '-' mixed in */
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:n:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:N:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:NA:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:R:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:K:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND::-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:N-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:-:W:-",
		/* side to move, result, trailing text */
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:X:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:draw",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:- ",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W",
		/* Kings: missing, two, in a compound; the result does not fit */
		"cc1:dnsg.gsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/....k..../........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:B:W:king",
		"cc1:dnsg.gsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:W:king",
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSG.GSND:-:-:B:W:converted",
		/* "nomove" while the loser can move */
		"cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:B:W:nomove",
	};
	char text[512];
	(void)state;

	expect_text_round_trip(START);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_corrupt(bad[i]);

	/* Every prefix of a valid text is rejected, never read past. */
	const char *good = "cc1:..(rpn)....N./........./........./(BRGPSADN)......../........./........./"
		"........./........./....K....:AANDDPSSGG:nns:B:W:king";
	expect_prefixes_refused(good);

	/* At most MAX_UNITS (99) power units: board powers plus hand pieces. */
	{
		size_t n = (size_t)snprintf(text, sizeof text, "cc1:");
		for (int i = 0; i < 9; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, "(BRGPSADN)");
		n += (size_t)snprintf(text + n, sizeof text - n, "/k......../");
		for (int i = 0; i < 6; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, "........./");
		n += (size_t)snprintf(text + n, sizeof text - n, "....K....:");
		for (int i = 0; i < 99 - 72 - 2; i++)
			text[n++] = 'G';
		snprintf(text + n, sizeof text - n, ":-:W:-");
		expect_text_round_trip(text);
		snprintf(text + n, sizeof text - n, "G:-:W:-");
		expect_corrupt(text);
	}
}

static void test_view(void **state)
{
	rules_position *pos = setup_full("w(RN) d4, b(BRGN) f5, b(RPA) a1, wA c2, bp c7", "NNS", "ag", 'W', 1);
	rules_view v;
	(void)state;

	G->view(pos, &v);
	expect_grid(&v, 9, 9, "9", "1", "a", "i");
	assert_string_equal(v.cell[0][0].name, "a9");
	assert_string_equal(v.cell[8][8].name, "i1");
	assert_string_equal(v.cell[5][3].name, "d4");
	assert_string_equal(v.cell[5][3].piece, "RN");
	assert_int_equal(v.cell[5][3].owner, WHITE);
	assert_string_equal(v.cell[4][5].piece, "br+");
	assert_int_equal(v.cell[4][5].owner, BLACK);
	assert_string_equal(v.cell[8][0].piece, "rpa");
	assert_string_equal(v.cell[7][2].piece, "A");
	assert_string_equal(v.cell[2][2].piece, "p");
	assert_string_equal(v.cell[0][4].piece, "k");
	assert_string_equal(v.cell[8][4].piece, "K");
	assert_string_equal(v.cell[4][4].piece, "");
	assert_int_equal(v.cell[4][4].owner, -1);
	assert_string_equal(v.cell[4][4].kind, "");
	assert_int_equal(v.cell[4][4].controllers, 0);
	assert_int_equal(v.nnotes, 1);
	assert_string_equal(v.notes[0], "f5: Black (BRGN)");
	assert_int_equal(v.nholdings, 2);
	assert_string_equal(v.holding[0].name, "White's hand");
	assert_int_equal(v.holding[0].row, -1);
	assert_int_equal(v.holding[0].col, -1);
	assert_int_equal(v.holding[0].owner, WHITE);
	assert_int_equal(v.holding[0].npieces, 3);
	assert_string_equal(v.holding[0].pieces[0], "N");
	assert_string_equal(v.holding[0].pieces[1], "N");
	assert_string_equal(v.holding[0].pieces[2], "S");
	assert_string_equal(v.holding[1].name, "Black's hand");
	assert_int_equal(v.holding[1].owner, BLACK);
	assert_int_equal(v.holding[1].npieces, 2);
	assert_string_equal(v.holding[1].pieces[0], "a");
	assert_string_equal(v.holding[1].pieces[1], "g");
	assert_int_equal(v.brick, 0);
	assert_int_equal(G->view_quarter_turns(WHITE), 0);
	assert_int_equal(G->view_quarter_turns(BLACK), 2);
	G->free_position(pos);

	/* More than 32 pieces in a hand are shown counted. */
	pos = setup_full("", "AAAAANNNNNNNNNNDDDDDDDDDDPPPPPPPPPPSSG", NULL, 'W', 1);
	G->view(pos, &v);
	assert_int_equal(v.holding[0].npieces, 6);
	assert_string_equal(v.holding[0].pieces[0], "5A");
	assert_string_equal(v.holding[0].pieces[1], "10N");
	assert_string_equal(v.holding[0].pieces[5], "1G");
	G->free_position(pos);
}

/* A legal move with one field changed is refused; the move itself applies, with an empty note. */
static void test_apply_rejects_bad_moves(void **state)
{
	rules_position *pos = *state;

	expect_tampered(pos, WHITE, "Pe3-e4", 7, 1, RULES_E_ILLEGAL);          /* a capture flag on a plain move */
	expect_tampered(pos, WHITE, "Pe3-e4", 5, 0x20, RULES_E_ILLEGAL);       /* the wrong piece */
	play(pos, "Pe3-e4", NULL, "");
}

/* ---- every listed move round-trips through its text ---- */

static void test_round_trip_listed_moves(void **state)
{
	rules_position *p[8];
	(void)state;

	p[0] = start_pos();
	p[1] = setup("wP e6, wA c7, wN c6, bN d8, bP b8, bB e7", 'W');
	p[2] = setup("wP d6, b(RGSN) d7, b(BR) f7, wR h6, bN h7", 'W');
	p[3] = setup_full("wS e7, wG c8, bP e8, bB d8, w(RN) a5", "ANDPSG", "nn", 'W', 1);
	p[4] = setup_full("bS e3, bG c2, wP e2, wB d2, b(RN) a5", "P", "andpsg", 'B', 1);
	p[5] = cc17_position();
	p[6] = setup("wR h2, bN h5, bA f6, bR h8, wK a1, bK i9", 'W');
	p[7] = setup("wP d4, b(BRGPS) d5, wN d3", 'W');
	for (int i = 0; i < 8; i++) {
		check_round_trips(p[i], -1);
		G->free_position(p[i]);
	}
}

/* A Pawn displacing a five-choice compound in the zone: 3^5 demotions, each listed with the
 * promotions after it. */
static void test_many_variants(void **state)
{
	rules_position *pos = setup("wP d7, b(BRGPS) d8", 'W');
	rules_move_list l = { 0 };
	size_t n = 0;
	(void)state;

	G->legal_moves(pos, WHITE, &l);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX];
		G->format(pos, &l.v[i], buf, sizeof buf);
		n += strncmp(buf, "Pd7xd8", 6) == 0;
	}
	assert_int_equal(n, 243 * 3);
	try_on_copy(pos, "Pd7xd8 disp(G,S,N,A,D) / Pd8=R", "Pd7xd8 disp(G,S,N,A,D) / Pd8=R",
		    "to hand: G, S, N, A, D");
	rules_move_list_free(&l);
	G->free_position(pos);
}

/* ---- the generator agrees with the parser ---- */

/* Everything the parser accepts among these texts is listed. */
static void cross_check(const rules_position *pos)
{
	static const char *const suffixes[] = {
		"", " disp", " assim", " disp(A)", " disp(N)", " disp(D)", " disp(P)", " disp(S)", " disp(G)",
	};
	rules_move_list l = { 0 };
	rules_view v;
	int seat = to_move(pos);
	size_t accepted = 0;

	if (seat < 0)
		return;
	G->legal_moves(pos, seat, &l);
	G->view(pos, &v);
	for (int fr = 0; fr < 9; fr++)
		for (int ff = 0; ff < 9; ff++) {
			char from[3] = { (char)('a' + ff), (char)('1' + fr), 0 };
			if (v.cell[8 - fr][ff].owner == seat)
			for (int tr = 0; tr < 9; tr++)
				for (int tf = 0; tf < 9; tf++) {
					char to[3] = { (char)('a' + tf), (char)('1' + tr), 0 };
					/* onto an empty square only the plain text can be right */
					size_t nsuf = v.cell[8 - tr][tf].owner == 1 - seat
						? sizeof suffixes / sizeof suffixes[0] : 1;
					for (size_t k = 0; k < nsuf; k++) {
						char text[64];
						rules_move m;
						int found = 0;
						snprintf(text, sizeof text, "%s-%s%s", from, to, suffixes[k]);
						if (G->parse(pos, seat, text, &m, NULL) != RULES_OK)
							continue;
						accepted++;
						for (size_t i = 0; i < l.n && !found; i++)
							found = memcmp(&l.v[i], &m, sizeof m) == 0;
						if (!found)
							fprintf(stderr, "accepted but not listed: %s\n", text);
						assert_true(found);
					}
				}
			for (const char *up = "PSGBRANDK"; *up; up++) {
				char text[64];
				rules_move m;
				snprintf(text, sizeof text, "%s=%c", from, *up);
				if (G->parse(pos, seat, text, &m, NULL) == RULES_OK) {
					int found = 0;
					accepted++;
					for (size_t i = 0; i < l.n && !found; i++)
						found = memcmp(&l.v[i], &m, sizeof m) == 0;
					assert_true(found);
				}
			}
			for (const char *h = "ANDPSGKBR"; *h; h++) {
				char text[64];
				rules_move m;
				snprintf(text, sizeof text, "%c*%s", *h, from);
				if (G->parse(pos, seat, text, &m, NULL) == RULES_OK) {
					int found = 0;
					accepted++;
					for (size_t i = 0; i < l.n && !found; i++)
						found = memcmp(&l.v[i], &m, sizeof m) == 0;
					assert_true(found);
				}
			}
		}
	assert_true(accepted > 0);
	rules_move_list_free(&l);
}

static void test_cross_check_positions(void **state)
{
	rules_position *p[4];
	(void)state;

	p[0] = start_pos();
	p[1] = setup_full("wP e6, wA c7, wN c6, bN d8, bP b8, bB e7, w(RN) a5, bR a7", "NG", "s", 'W', 1);
	p[2] = setup_full("bS e3, bG c2, wP e2, wB d2, b(RN) a5, w(BPA) c4", "P", "andpsg", 'B', 1);
	p[3] = setup("wP d4, b(RN) d5, bB e5, bP c5, wR c1, wN b3", 'W');
	for (int i = 0; i < 4; i++) {
		cross_check(p[i]);
		G->free_position(p[i]);
	}
}

/* ---- random games ---- */

/* A position read independently from its text. */
typedef struct tpos {
	unsigned powers[9][9];  /* bit i = "BRGPSADNK"[i] */
	int owner[9][9];        /* -1 empty */
	int hand[2];            /* pieces in each hand */
	int pieces, units, kings[2];
} tpos;

static void read_text(const rules_position *pos, tpos *t)
{
	char *s = G->serialize(pos), *p = s + 4;
	static const char letters[] = "BRGPSADNK";

	memset(t, 0, sizeof *t);
	for (int r = 8; r >= 0; r--) {
		for (int f = 0; f < 9; f++) {
			t->owner[r][f] = -1;
			if (*p == '.') {
				p++;
				continue;
			}
			int compound = *p == '(';
			if (compound)
				p++;
			do {
				const char *l = strchr(letters, toupper((unsigned char)*p));
				assert_non_null(l);
				t->powers[r][f] |= 1u << (l - letters);
				t->owner[r][f] = isupper((unsigned char)*p) ? WHITE : BLACK;
				t->units++;
				p++;
			} while (compound && *p != ')');
			if (compound) {
				p++;
				assert_false(t->powers[r][f] & 0x100);  /* never a King in a compound */
			}
			t->pieces++;
			if (t->powers[r][f] == 0x100)
				t->kings[t->owner[r][f]]++;
		}
		assert_int_equal(*p++, r ? '/' : ':');
	}
	for (int seat = 0; seat < 2; seat++) {
		if (*p == '-') {
			p++;
		} else {
			while (*p != ':') {
				assert_non_null(strchr(seat == WHITE ? "ANDPSG" : "andpsg", *p));
				t->hand[seat]++;
				p++;
			}
		}
		assert_int_equal(*p++, ':');
	}
	t->pieces += t->hand[0] + t->hand[1];
	t->units += t->hand[0] + t->hand[1];
	free(s);
}

/* Counts of what the random games did, so the test can insist they covered it. */
static int n_disp, n_assim, n_convert, n_drop, n_promo, n_king, n_king_converted, n_nomove, n_compound;

/* Check what a move did against the notes and the two positions (Capturing; Drops). */
static void check_step(const tpos *a, const tpos *b, int seat, const char *text, const char *note)
{
	const char *th = strstr(note, "to hand: "), *cv = strstr(note, "converts ");
	int to_hand = 0, king_gone = strstr(note, "King c") != NULL;

	if (th)
		for (th += 9; *th && *th != ';'; th++)
			to_hand += isupper((unsigned char)*th) != 0;
	if (strstr(text, " disp")) {
		n_disp++;
		assert_true(th || king_gone);
	}
	if (strstr(text, " assim"))
		n_assim++;
	if (strchr(text, '*'))
		n_drop++;
	if (strchr(text, '='))
		n_promo++;
	/* Pieces: a displacement adds the captive's powers to the hand; an assimilation and a King
	 * capture or conversion take one piece out of the game; nothing else changes the count. */
	assert_int_equal(b->pieces, a->pieces + (to_hand ? to_hand - 1 : 0)
			 - (strstr(text, " assim") != NULL) - king_gone);
	assert_int_equal(b->hand[seat], a->hand[seat] + to_hand - (strchr(text, '*') != NULL));
	assert_int_equal(b->hand[1 - seat], a->hand[1 - seat]);
	assert_true(b->units <= a->units);
	if (!strstr(text, " assim"))
		assert_int_equal(b->units, a->units - king_gone);
	/* Every converted square changed owner to the mover (or lost its King). */
	if (cv) {
		n_convert++;
		for (cv += 9; *cv >= 'a' && *cv <= 'i'; cv += 4) {
			int f = cv[0] - 'a', r = cv[1] - '1';
			assert_int_equal(a->owner[r][f], 1 - seat);
			if (a->powers[r][f] == 0x100) {
				assert_int_equal(b->owner[r][f], -1);
			} else {
				assert_int_equal(b->owner[r][f], seat);
				assert_int_equal(b->powers[r][f], a->powers[r][f]);
			}
			if (cv[2] != ',')
				break;
		}
	}
	for (int r = 0; r < 9; r++)
		for (int f = 0; f < 9; f++)
			n_compound += b->powers[r][f] && (b->powers[r][f] & (b->powers[r][f] - 1)) ? 1 : 0;
}

static void check_invariants(const rules_position *pos, int mover, const tpos *t)
{
	rules_result res;

	G->result(pos, &res);
	assert_true(t->units <= 44);
	for (int seat = 0; seat < 2; seat++) {
		int taken = t->kings[seat] == 0;
		assert_true(t->kings[seat] <= 1);
		if (taken) {
			assert_int_equal(res.over, 1);
			assert_int_equal(res.rank[seat], 2);
		}
	}
	expect_turn_passed(pos, mover);
	if (res.over) {
		assert_true(t->kings[1 - mover] == 0 || strstr(res.summary, "no legal move"));
	} else {
		assert_int_equal(t->kings[0], 1);
		assert_int_equal(t->kings[1], 1);
	}
}

/* After each ply of a random game (ctx: the position before it, read from its text): what the move
 * did, and the invariants. */
static void random_ply(const rules_position *pos, int seat, const char *text, const rules_outcome *out,
		       void *ctx)
{
	tpos *before = ctx, after;

	read_text(pos, &after);
	check_step(before, &after, seat, text, out->note);
	check_invariants(pos, seat, &after);
	n_king += strstr(out->note, "King captured") != NULL;
	n_king_converted += strstr(out->note, "King converted") != NULL;
	n_nomove += strstr(out->note, "no legal move") != NULL;
	*before = after;
}

/* One random game from pos, the round trips checked every 40 plies and the parser every 80 when
 * deep. Returns its length. */
static int random_game_cc(rules_position *pos, int cap, int deep)
{
	tpos before;
	random_play how = { .check = random_ply, .every = deep ? 40 : 0, .deep = cross_check, .deep_every = 80,
			    .ctx = &before };

	read_text(pos, &before);
	check_invariants(pos, 1 - to_move(pos), &before);
	return random_game(pos, cap, &how, NULL);
}

static void test_random_games(void **state)
{
	int over = 0, total = 0;
	(void)state;

	n_disp = n_assim = n_convert = n_drop = n_promo = n_king = n_king_converted = n_nomove = 0;
	n_compound = 0;
	rng_seed(0x9e3779b97f4a7c15ULL);
	for (int g = 0; g < 200; g++) {
		rules_position *pos = start_pos();
		rules_result res;
		total += random_game_cc(pos, 400, g < 4);
		G->result(pos, &res);
		over += res.over;
		G->free_position(pos);
	}
	if (getenv("CC_STATS"))
		fprintf(stderr, "games over %d, plies %d, disp %d, assim %d, conversions %d, drops %d, "
			"promotions %d, King captured %d, converted %d, no move %d, compound-plies %d\n",
			over, total, n_disp, n_assim, n_convert, n_drop, n_promo, n_king, n_king_converted,
			n_nomove, n_compound);
	/* Random play ends most games by taking a King, and on the way exercises every mechanism. */
	assert_true(over > 150);
	assert_int_equal(over, n_king + n_king_converted + n_nomove);
	assert_true(n_disp > 100);
	assert_true(n_assim > 100);
	assert_true(n_convert > 50);
	assert_true(n_drop > 100);
	assert_true(n_promo > 50);
	assert_true(n_king_converted > 0);
	assert_true(n_compound > 100);
}

/* Random games from a position full of compounds and hand pieces. */
static void test_random_games_with_compounds(void **state)
{
	(void)state;

	rng_seed(777);
	for (int g = 0; g < 20; g++) {
		rules_position *pos = setup_full("w(RN) d4, b(BP) e6, w(BRGPS) c3, b(GSAD) f7, wP e7, bP d3, "
						 "wA c7, bA g3, wR a1, bR i9, wK e1, bK e9",
						 "NNPSG", "adds", g % 2 ? 'B' : 'W', 1);
		random_game_cc(pos, 150, g < 3);
		G->free_position(pos);
	}
}

/* ---- gestures: how moves are pointed at on the board ---- */

static void test_gestures_start(void **state)
{
	rules_position *pos = *state;

	assert_int_equal(gesture_check(G, pos, WHITE, 2), 23);
	assert_int_equal(gesture_check(G, pos, BLACK, 2), 0);        /* not Black's turn */
	expect_gesture(pos, "e3-e4", "e3 e4", "");
	expect_gesture(pos, "c2-e4", "c2 e4", "");
}

/* Drops: the piece in its owner's hand (holding 0 White's, 1 Black's, as the view writes it). */
static void test_gestures_drops(void **state)
{
	rules_position *pos = setup_full("bA f7", "NS", "ag", 'W', 1);
	(void)state;

	expect_gesture(pos, "S*e5", "@0:S e5", "");
	expect_gesture(pos, "N*e8", "@0:N e8", "");
	gesture_check(G, pos, WHITE, 2);
	play(pos, "N*e5", "N*e5", "");
	expect_gesture(pos, "g*d4", "@1:g d4", "");
	expect_gesture(pos, "A*a5", "@1:a a5", "");
	gesture_check(G, pos, BLACK, 2);
	G->free_position(pos);

	/* A hand too big to show piece by piece shows counts, and the drop touches the count. */
	pos = setup_full("", "AAAAANNNNNNNNNNDDDDDDDDDDPPPPPPPPPPSSG", NULL, 'W', 1);
	expect_gesture(pos, "N*e5", "@0:10N e5", "");
	expect_gesture(pos, "G*a4", "@0:1G a4", "");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);
}

/* Captures name their method, and the pieces going to the hand when the capturer chose them. */
static void test_gestures_captures(void **state)
{
	rules_position *pos = setup("wR b2, bP b7, bN b9", 'W');      /* CC7: a choice of method */
	(void)state;

	expect_gesture(pos, "Rb2xb7 disp(N)", "b2 b7", "by displacement, N to hand");
	expect_gesture(pos, "Rb2xb7 disp(D)", "b2 b7", "by displacement, D to hand");
	expect_gesture(pos, "Rb2xb7 assim", "b2 b7", "by assimilation");
	expect_gesture(pos, "Rb2-b5", "b2 b5", "");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = setup("wN c3, bN d5, bA e7, bP b6", 'W');                /* CC8: nothing to choose */
	expect_gesture(pos, "Nc3xd5 disp", "c3 d5", "by displacement");
	expect_gesture(pos, "Nc3xd5 assim", "c3 d5", "by assimilation");
	G->free_position(pos);

	pos = setup("wR h2, bN h5, bA f6, bR h8", 'W');                /* CC6: only assimilation */
	expect_gesture(pos, "Rh2xh5", "h2 h5", "by assimilation");
	G->free_position(pos);

	pos = setup("wP d4, b(RN) d5", 'W');                            /* CC9: a compound splits */
	expect_gesture(pos, "Pd4xd5 disp(G)", "d4 d5", "by displacement, G and N to hand");
	G->free_position(pos);

	pos = setup("wP d4, b(RGSN) d5", 'W');
	expect_gesture(pos, "Pd4xd5 disp(S,D,A)", "d4 d5", "by displacement, S, D, A and N to hand");
	assert_int_equal(gesture_check(G, pos, WHITE, 2), 27 + 5);     /* and the King's 5 steps */
	G->free_position(pos);

	pos = setup("wG e8", 'W');                                      /* CC16: the King, no method */
	expect_gesture(pos, "Ge8xe9", "e8 e9", "");
	G->free_position(pos);

	pos = setup("wK e1, bK e3, wP e2, bP d2", 'B');                 /* Black captures too */
	expect_gesture(pos, "Ke3xe2 disp(N)", "e3 e2", "by displacement, N to hand");
	expect_gesture(pos, "Pd2-d1", "d2 d1", "");
	expect_gesture(pos, "Pd2-d1 / Pd1=B", "d2 d1", "then promote to B");
	gesture_check(G, pos, BLACK, 2);
	G->free_position(pos);
}

/* Promotion alone touches the piece; before or after a move it is the move's choice. */
static void test_gestures_promotions(void **state)
{
	rules_position *pos = setup("wP e7, wP e6, wN d7", 'W');       /* CC14 */
	(void)state;

	expect_gesture(pos, "Pe7=R", "e7", "promote to R");
	expect_gesture(pos, "Pe7=B", "e7", "promote to B");
	expect_gesture(pos, "Nd7=G", "d7", "promote to G");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = setup("wP e6, wA c7", 'W');                               /* CC15 */
	expect_gesture(pos, "Pe6-e7", "e6 e7", "");
	expect_gesture(pos, "Pe6-e7 / Pe7=B", "e6 e7", "then promote to B");
	expect_gesture(pos, "Ac7=S / Sc7-d6", "c7 d6", "promote to S first");
	expect_gesture(pos, "Ac7=G / Gc7-c6", "c7 c6", "promote to G first");
	expect_gesture(pos, "Ac7-e5 / Ae5=G", "c7 e5", "then promote to G");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = setup("wN c6, bN d8, bP b8", 'W');
	expect_gesture(pos, "Nc6xb8 disp(A) / Nb8=S", "c6 b8", "by displacement, A to hand, then promote to S");
	expect_gesture(pos, "Nc6xd8 assim / Nd8=G", "c6 d8", "by assimilation, then promote to G");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	pos = setup("wS c8, bP c9, bN b9", 'W');
	expect_gesture(pos, "Sc8xc9 disp(N)", "c8 c9", "by displacement, N to hand");
	expect_gesture(pos, "Sc8=R / Rc8xc9 disp(N)", "c8 c9", "promote to R first, by displacement, N to hand");
	expect_gesture(pos, "Sc8=R / Rc8xc9 assim", "c8 c9", "promote to R first, by assimilation");
	expect_gesture(pos, "Sc8=B / Bc8xb9", "c8 b9", "promote to B first, by assimilation");
	expect_gesture(pos, "Sc8xb9", "c8 b9", "by displacement");
	expect_gesture(pos, "Sc8xb9 / Sb9=B", "c8 b9", "by displacement, then promote to B");
	gesture_check(G, pos, WHITE, 2);
	G->free_position(pos);

	/* A captive of eight powers: the hand pieces are listed without words to fit. */
	pos = setup("wP d6, b(BRGPSADN) d7", 'W');
	expect_gesture(pos, "Pd6xd7 disp(P,P,A,A,A)", "d6 d7", "by displacement, P, P, A, A, A, A, D and N to hand");
	expect_gesture(pos, "Pd6xd7 disp(P,P,A,A,A) / Pd7=R", "d6 d7",
		       "by displacement, P,P,A,A,A,A,D,N to hand, then promote to R");
	assert_int_equal(gesture_check(G, pos, WHITE, 2), 243 * 3 + 5);   /* 3^5 lists, 3 endings; the King */
	G->free_position(pos);
}

/* Every position of random games, from the start and from positions full of compounds. */
static void test_gestures_random_games(void **state)
{
	gesture_tally t = { 0, 0 };
	(void)state;

	rng_seed(4242);
	for (int g = 0; g < 20; g++) {
		rules_position *pos = g < 14 ? start_pos()
			: setup_full("w(RN) d4, b(BP) e6, w(BRGPS) c3, b(GSAD) f7, wP e7, bP d3, "
				     "wA c7, bA g3, wR a1, bR i9, wK e1, bK e9", "NNPSG", "adds", g % 2 ? 'B' : 'W', 1);
		gestures_along(pos, 300, NULL, NULL, &t);
		G->free_position(pos);
	}
	assert_true(t.moves > 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		start_test(test_cc1_start),
		cmocka_unit_test(test_cc2_lame_knight),
		cmocka_unit_test(test_cc3_alfil_and_dabbaba_jump),
		cmocka_unit_test(test_cc4_rook_vs_rook),
		cmocka_unit_test(test_cc5_pawn_displaces_bishop),
		cmocka_unit_test(test_cc6_rook_assimilates_knight),
		cmocka_unit_test(test_cc7_rook_vs_pawn_choice),
		cmocka_unit_test(test_cc8_knight_vs_knight),
		cmocka_unit_test(test_cc9_displacing_a_compound),
		cmocka_unit_test(test_cc10_compound_movement),
		cmocka_unit_test(test_cc11_compound_converts_king),
		cmocka_unit_test(test_cc12_first_tier_cannot_convert_king),
		cmocka_unit_test(test_cc13_drops),
		cmocka_unit_test(test_cc14_promotion_in_place),
		cmocka_unit_test(test_cc15_promotion_before_and_after),
		cmocka_unit_test(test_cc16_king_capture_by_displacement),
		cmocka_unit_test(test_cc17_no_legal_move_loses),
		cmocka_unit_test(test_cc18_converted_pieces_turn_around),
		cmocka_unit_test(test_cc19_who_cannot_promote),
		cmocka_unit_test(test_cc20_compound_displaces_and_converts),
		cmocka_unit_test(test_cc21_black_zone),
		cmocka_unit_test(test_cc22_directions),
		cmocka_unit_test(test_pawn_on_last_rank),
		cmocka_unit_test(test_black_captures),
		cmocka_unit_test(test_displacing_a_big_compound),
		cmocka_unit_test(test_promotion_after_captures),
		cmocka_unit_test(test_notation_examples),
		cmocka_unit_test(test_notation_rejected_examples),
		start_test(test_lexical_rules),
		cmocka_unit_test(test_serialize_round_trip_and_corruption),
		cmocka_unit_test(test_view),
		start_test(test_apply_rejects_bad_moves),
		cmocka_unit_test(test_round_trip_listed_moves),
		cmocka_unit_test(test_many_variants),
		cmocka_unit_test(test_cross_check_positions),
		cmocka_unit_test(test_random_games),
		cmocka_unit_test(test_random_games_with_compounds),
		start_test(test_gestures_start),
		cmocka_unit_test(test_gestures_drops),
		cmocka_unit_test(test_gestures_captures),
		cmocka_unit_test(test_gestures_promotions),
		cmocka_unit_test(test_gestures_random_games),
	};

	check_use(&(rules_check){ .game = G });
	return cmocka_run_group_tests(tests, NULL, NULL);
}
