/* test_rules_nchess.c - the Nchess rules against docs/rules/nchess.md: scenarios N1-N20, notation,
 * random games, gestures. */
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

extern const rules_game rules_nchess;
static const rules_game *const G = &rules_nchess;

enum { SOUTH = 0, NORTH = 1 };

#define START "nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/" \
	"........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-"

/* ---- helpers ---- */

static int is_prison_sq(int r, int c)
{
	return (r == 0 || r == 8) && (c == 3 || c == 5);
}

/* A position from a 9x9 board (0 = empty; [0][0] is the rules' [1 1]), the
 * four prisons ([1 4], [1 6], [9 4], [9 6], oldest first; NULL or "" for
 * empty) and the side to move, 'S' or 'N'. */
static rules_position *setup_board(char board[9][9], const char *p14, const char *p16,
				   const char *p94, const char *p96, char side)
{
	char text[512];
	const char *pr[4] = { p14, p16, p94, p96 };
	size_t n = 0;

	n += (size_t)snprintf(text, sizeof text, "nchess1:");
	for (int r = 0; r < 9; r++) {
		for (int c = 0; c < 9; c++)
			text[n++] = board[r][c] ? board[r][c]
				: r == 4 ? '~' : is_prison_sq(r, c) ? '+' : '.';
		text[n++] = r < 8 ? '/' : ':';
	}
	for (int k = 0; k < 4; k++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s:",
				      pr[k] && *pr[k] ? pr[k] : "-");
	snprintf(text + n, sizeof text - n, "%c:-", side);
	return position_of(text);
}

/* Pieces as "C 4 1, G 9 5, s 3 1": letter, row, column. */
static void place_pieces(char board[9][9], const char *pieces)
{
	const char *p = pieces;

	while (*p) {
		if (!isalpha((unsigned char)*p)) {
			p++;
			continue;
		}
		char letter = *p++;
		while (*p == ' ')
			p++;
		int r = *p++ - '1';
		while (*p == ' ')
			p++;
		int c = *p++ - '1';
		assert_true(r >= 0 && r < 9 && c >= 0 && c < 9);
		assert_int_equal(board[r][c], 0);
		board[r][c] = letter;
	}
}

static rules_position *setup(const char *pieces, const char *p14, const char *p16,
			     const char *p94, const char *p96, char side)
{
	char board[9][9];

	memset(board, 0, sizeof board);
	place_pieces(board, pieces);
	return setup_board(board, p14, p16, p94, p96, side);
}

/* The piece on the rules' square [r c] as written, "" when empty. */
static const char *at(const rules_position *pos, int r, int c)
{
	static rules_view v;

	G->view(pos, &v);
	return v.cell[r - 1][c - 1].piece;
}

/* Prison k (0 [1 4], 1 [1 6], 2 [9 4], 3 [9 6]) as a string, oldest first. */
static const char *prison(const rules_position *pos, int k)
{
	static char buf[40];
	rules_view v;

	G->view(pos, &v);
	buf[0] = 0;
	for (int i = 0; i < v.holding[k].npieces; i++)
		strcat(buf, v.holding[k].pieces[i]);
	return buf;
}

/* ---- the Scenarios ---- */

static void test_n1_first_move_and_count(void **state)
{
	static const char *want[] = {
		"S 7 1 6 1", "S 7 1 7 2", "S 7 3 6 3", "S 7 3 7 2", "S 7 3 7 4", "S 7 5 6 5",
		"S 7 5 7 4", "S 7 5 7 6", "S 7 7 6 7", "S 7 7 7 6", "S 7 7 7 8", "S 7 9 6 9",
		"S 7 9 7 8", "C 9 1 8 1", "C 9 9 8 9", "N 9 2 8 4", "N 9 8 8 6", "M 9 3 8 4",
		"M 9 7 8 6", "G 9 5 8 5", "G 9 5 9 4", "G 9 5 9 6", "A 8 2 7 2", "A 8 2 6 2",
		"A 8 2 5 2", "A 8 2 8 1", "A 8 2 8 3", "A 8 2 8 4", "A 8 2 8 5", "A 8 8 7 8",
		"A 8 8 6 8", "A 8 8 5 8", "A 8 8 8 9", "A 8 8 8 7", "A 8 8 8 6", "A 8 8 8 5",
	};
	const size_t nwant = sizeof want / sizeof want[0];
	char *got[64], *exp[64];
	rules_move_list l = { 0 };
	rules_position *pos = *state;

	expect_position(pos, START);
	assert_int_equal(G->turn(pos), 1u);
	assert_int_equal(nwant, 36);
	assert_int_equal(G->legal_moves(pos, SOUTH, &l), 36);
	assert_int_equal(l.n, 36);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX];
		assert_int_equal(l.v[i].partial, 0);
		assert_int_equal(l.v[i].seat, SOUTH);
		G->format(pos, &l.v[i], buf, sizeof buf);
		got[i] = strdup(buf);
		exp[i] = strdup(want[i]);
	}
	qsort(got, 36, sizeof got[0], cmp_str);
	qsort(exp, 36, sizeof exp[0], cmp_str);
	for (size_t i = 0; i < 36; i++) {
		assert_string_equal(got[i], exp[i]);
		free(got[i]);
		free(exp[i]);
	}
	rules_move_list_free(&l);
	assert_int_equal(count_moves(pos, NORTH), 0);

	play(pos, "S 7 1 6 1", "S 7 1 6 1", "");
	assert_string_equal(at(pos, 6, 1), "S");
	assert_string_equal(at(pos, 7, 1), "");
	assert_int_equal(G->turn(pos), 2u);
	expect_position(pos, "nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/"
			"S......../..S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:N:-");
}

static void test_n2_south_moves_first(void **state)
{
	rules_position *pos = *state;
	rules_move m;
	rules_error err;

	expect_reject(pos, NORTH, "s 3 1 4 1", RULES_E_TURN, "not your turn");
	/* apply refuses a North move too, whatever the move holds. */
	assert_int_equal(G->parse(pos, SOUTH, "S 7 1 6 1", &m, &err), RULES_OK);
	m.seat = NORTH;
	assert_int_equal(G->apply(pos, &m, NULL, NULL, &err), RULES_E_TURN);
	expect_position(pos, START);
}

static void test_n3_soldier_directions(void **state)
{
	rules_position *pos = *state;

	expect_legal(pos, "S 7 5 6 5", "S 7 5 6 5");
	expect_legal(pos, "S 7 5 7 4", "S 7 5 7 4");
	expect_illegal(pos, "S 7 5 8 5", "the Soldier on [7 5] cannot move backward");
	expect_illegal(pos, "S 7 5 6 4", "the Soldier on [7 5] cannot move diagonally");
	play(pos, "S 7 5 6 5", "S 7 5 6 5", "");
	expect_legal(pos, "s 3 5 4 5", "s 3 5 4 5");
	expect_illegal(pos, "s 3 5 2 5", "the Soldier on [3 5] cannot move backward");
}

static void test_n4_chariot_and_river(void **state)
{
	rules_position *a = setup("C 6 1, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *b = setup("C 5 1, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	(void)state;

	expect_illegal(a, "C 6 1 4 1", "the Chariot on [6 1] cannot cross the river in one move");
	expect_legal(a, "C 6 1 5 1", "C 6 1 5 1");
	expect_illegal(b, "C 5 1 5 3", "the Chariot on [5 1] moves only one square along the river");
	expect_legal(b, "C 5 1 5 2", "C 5 1 5 2");
	expect_legal(b, "C 5 1 1 1", "C 5 1 1 1");
	expect_legal(b, "C 5 1 9 1", "C 5 1 9 1");
	/* From the river: all of column 1, one step each way along the river. */
	assert_int_equal(count_moves(b, SOUTH), 8 + 1 + 3);
	G->free_position(a);
	G->free_position(b);
}

static void test_n5_empty_prison_does_not_block(void **state)
{
	rules_position *pos = setup("C 9 1, G 8 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *var = setup("C 9 1, G 8 5, g 1 5, n 9 4", 0, 0, 0, 0, 'S');
	(void)state;

	expect_legal(pos, "C 9 1 9 9", "C 9 1 9 9");
	play(pos, "C 9 1 9 6", "C 9 1 9 6", "");
	assert_string_equal(at(pos, 9, 6), "C");
	expect_position(pos, "nchess1:...+g+.../........./........./........./~~~~~~~~~/"
			"........./........./....G..../...+.C...:-:-:-:-:N:-");

	expect_illegal(var, "C 9 1 9 6", "the Chariot's path is blocked at [9 4]");
	play(var, "C 9 1 9 4 6", "C 9 1 9 4 6", "captures n");
	assert_string_equal(at(var, 9, 4), "C");
	assert_string_equal(prison(var, 3), "n");
	assert_string_equal(prison(var, 2), "");
	G->free_position(pos);
	G->free_position(var);
}

static void test_n6_archer(void **state)
{
	rules_position *s = *state;
	rules_position *r = setup("A 5 5, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *h = setup("A 6 5, G 9 5, g 1 5", 0, 0, 0, 0, 'S');

	expect_legal(s, "A 8 2 5 2", "A 8 2 5 2");
	expect_illegal(s, "A 8 2 6 4", "the Archer's path is blocked at [7 3]");
	expect_illegal(r, "A 5 5 5 7", "the Archer on [5 5] moves only one square along the river");
	expect_legal(r, "A 5 5 5 6", "A 5 5 5 6");
	expect_legal(r, "A 5 5 2 2", "A 5 5 2 2");
	expect_illegal(r, "A 5 5 1 5", "the Archer on [5 5] moves at most 3 squares");
	expect_illegal(h, "A 6 5 4 5", "the Archer on [6 5] cannot cross the river in one move");
	expect_illegal(h, "A 6 5 6 9", "the Archer on [6 5] moves at most 3 squares");
	expect_illegal(h, "A 6 5 8 6", "the Archer on [6 5] moves only in a straight line");
	G->free_position(r);
	G->free_position(h);
}

static void test_n7_knight_jumps(void **state)
{
	rules_position *pos = setup("N 6 3, S 5 3, s 5 4, S 6 4, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	(void)state;

	expect_legal(pos, "N 6 3 4 4", "N 6 3 4 4");
	expect_illegal(pos, "N 6 3 4 3", "the Knight on [6 3] moves in an L");
	expect_legal(pos, "N 6 3 5 5", "N 6 3 5 5");
	G->free_position(pos);
}

static void test_n8_minister(void **state)
{
	rules_position *s = *state;
	rules_position *a = setup("M 6 2, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *b = setup("M 5 3, G 9 5, g 1 5", 0, 0, 0, 0, 'S');

	expect_legal(s, "M 9 3 8 4", "M 9 3 8 4");
	expect_illegal(s, "M 9 3 7 1", "the Minister's path is blocked at [8 2]");
	expect_illegal(a, "M 6 2 4 4", "the Minister on [6 2] cannot cross the river in one move");
	expect_legal(a, "M 6 2 5 3", "M 6 2 5 3");
	expect_illegal(a, "M 6 2 6 4", "the Minister on [6 2] moves only diagonally");
	expect_legal(b, "M 5 3 1 7", "M 5 3 1 7");
	G->free_position(a);
	G->free_position(b);
}

static void test_n9_general(void **state)
{
	rules_position *s = *state;
	rules_position *a = setup("G 7 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *b = setup("g 3 5, G 9 5", 0, 0, 0, 0, 'N');

	expect_legal(s, "G 9 5 8 5", "G 9 5 8 5");
	expect_illegal(s, "G 9 5 8 4", "the General on [9 5] cannot move diagonally");
	expect_legal(s, "G 9 5 9 4", "G 9 5 9 4");
	expect_illegal(a, "G 7 5 6 5", "the General must stay in rows 7-9");
	expect_legal(a, "G 7 5 7 4", "G 7 5 7 4");
	expect_illegal(b, "g 3 5 4 5", "the General must stay in rows 1-3");
	G->free_position(a);
	G->free_position(b);
}

static void test_n10_promotion(void **state)
{
	rules_position *pos = setup("S 2 3, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *var = setup("S 2 3, G 9 5, g 1 5, n 1 3", 0, 0, 0, 0, 'S');
	(void)state;

	play(pos, "S 2 3 1 3", "S 2 3 1 3", "promotes to O");
	assert_string_equal(at(pos, 1, 3), "O");
	play(pos, "g 1 5 2 5", "g 1 5 2 5", "");
	expect_legal(pos, "O 1 3 2 3", "O 1 3 2 3");
	expect_illegal(pos, "O 1 3 2 4", "the Officer on [1 3] moves one square along a row or a column");
	expect_reject(pos, -1, "S 1 3 2 3", RULES_E_ILLEGAL, "wrong letter: the piece on [1 3] is an Officer");

	play(var, "S 2 3 1 3 4", "S 2 3 1 3 4", "captures n; promotes to O");
	assert_string_equal(at(var, 1, 3), "O");
	assert_string_equal(prison(var, 2), "n");
	G->free_position(pos);
	G->free_position(var);
}

static void test_n11_capture_and_prison(void **state)
{
	rules_position *pos = setup("C 4 1, G 9 5, s 3 1, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *six = G->clone(pos);
	(void)state;

	expect_illegal(pos, "C 4 1 3 1", "prison digit missing: a capture must name prison 4 or 6");
	expect_illegal(pos, "C 4 1 3 1 5", "the prison must be 4 or 6, not 5");
	expect_illegal(pos, "C 4 1 4 5 4", "a prison digit is written only for a capture");
	play(six, "C 4 1 3 1 6", "C 4 1 3 1 6", "captures s");
	assert_string_equal(prison(six, 3), "s");
	assert_string_equal(prison(six, 2), "");
	play(pos, "C 4 1 3 1 4", "C 4 1 3 1 4", "captures s");
	assert_string_equal(at(pos, 3, 1), "C");
	assert_string_equal(prison(pos, 2), "s");
	expect_position(pos, "nchess1:...+g+.../........./C......../........./~~~~~~~~~/"
			"........./........./........./...+G+...:-:-:s:-:N:-");
	G->free_position(pos);
	G->free_position(six);
}

static void test_n12_release(void **state)
{
	rules_position *pos = setup("c 5 4, g 1 5, G 9 5", 0, 0, "sc", 0, 'N');
	rules_move m, m2;
	rules_error err;
	rules_move_list l = { 0 }, c1 = { 0 }, c2 = { 0 };
	char buf[RULES_TEXT_MAX];
	(void)state;

	assert_int_equal(try_parse(pos, -1, "c 5 4 9 4", &m, &err), RULES_E_INCOMPLETE);
	assert_int_equal(m.partial, 1);
	assert_non_null(strstr(err.message, "2 more placements needed, for c, s in that order"));
	G->format(pos, &m, buf, sizeof buf);
	assert_string_equal(buf, "c 5 4 9 4");
	assert_int_equal(G->apply(pos, &m, NULL, NULL, &err), RULES_E_INCOMPLETE);
	assert_int_equal(try_parse(pos, -1, "c 5 4 9 4 / c 2 1", &m2, &err), RULES_E_INCOMPLETE);
	assert_non_null(strstr(err.message, "1 more placement needed, for s"));

	expect_illegal(pos, "c 5 4 9 4 / s 3 3 / c 2 1",
		       "placement 1 is a Chariot (c), not a Soldier");
	expect_illegal(pos, "c 5 4 9 4 / c 5 1 / s 3 3", "[5 1] is a river square");
	expect_illegal(pos, "c 5 4 9 4 / c 1 4 / s 3 3", "[1 4] is a prison square");
	expect_illegal(pos, "c 5 4 9 4 / c 6 1 / s 3 3", "[6 1] is not in North's half (rows 1-4)");
	expect_illegal(pos, "c 5 4 9 4 / c 2 1 / s 2 1",
		       "[2 1] is already taken by an earlier placement");
	expect_illegal(pos, "c 5 4 9 4 / c 1 5 / s 2 1", "[1 5] is not empty");
	expect_illegal(pos, "c 5 4 9 4 / c 2 1 / s 3 3 / s 3 4",
		       "too many placements: this move releases only 2 prisoners");
	expect_illegal(pos, "c 5 4 8 4 / c 2 1", "this move releases no prisoners");
	/* More placements than any move can have (the move struct holds 34). */
	char many[400] = "c5494";
	for (int i = 0; i < 40; i++)
		strcat(many, "/c21");
	expect_illegal(pos, many, "too many placements: this move releases only 2 prisoners");

	/* Listed once, partial; the continuations then place c, then s. */
	size_t nlisted = G->legal_moves(pos, NORTH, &l);
	assert_int_equal(nlisted, l.n);
	size_t partials = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].partial) {
			partials++;
			assert_int_equal(memcmp(&l.v[i], &m, sizeof m), 0);
		}
	}
	assert_int_equal(partials, 1);
	/* 34 ordinary squares in North's half, one holds the General. */
	assert_int_equal(G->continuations(pos, &m, &c1), 33);
	for (size_t i = 0; i < c1.n; i++)
		assert_int_equal(c1.v[i].partial, 1);
	int found = 0;
	for (size_t i = 0; i < c1.n; i++)
		if (memcmp(&c1.v[i], &m2, sizeof m2) == 0)
			found++;
	assert_int_equal(found, 1);
	assert_int_equal(G->continuations(pos, &m2, &c2), 32);
	for (size_t i = 0; i < c2.n; i++)
		assert_int_equal(c2.v[i].partial, 0);
	rules_move done = c2.v[0];
	assert_int_equal(G->continuations(pos, &done, &c1), 0);

	play(pos, "c 5 4 9 4 / c 2 1 / s 3 3", "c 5 4 9 4 / c 2 1 / s 3 3", "releases c, s");
	assert_string_equal(at(pos, 9, 4), "c");
	assert_string_equal(at(pos, 2, 1), "c");
	assert_string_equal(at(pos, 3, 3), "s");
	assert_string_equal(prison(pos, 2), "");
	expect_position(pos, "nchess1:...+g+.../c......../..s....../........./~~~~~~~~~/"
			"........./........./........./...cG+...:-:-:-:-:S:-");
	rules_move_list_free(&l);
	rules_move_list_free(&c1);
	rules_move_list_free(&c2);
	G->free_position(pos);
}

/* N13's position: North fills rows 1-4 except [4 9]. */
static rules_position *n13_position(void)
{
	char board[9][9];

	memset(board, 0, sizeof board);
	place_pieces(board, "c 1 1, n 1 2, m 1 3, g 1 5, m 1 7, n 1 8, c 1 9, c 5 4, G 9 5");
	for (int r = 1; r < 4; r++)
		for (int c = 0; c < 9; c++)
			if (r != 3 || c != 8)
				board[r][c] = 's';
	return setup_board(board, 0, 0, "ans", 0, 'N');
}

static void test_n13_not_enough_room(void **state)
{
	rules_position *pos = n13_position();
	rules_move m;
	rules_error err;
	rules_move_list l = { 0 };
	(void)state;

	expect_illegal(pos, "c 5 4 9 4 / s 4 9 / n 4 9",
		       "too many placements: there is room in North's half for only 1 of the 3 released prisoners");
	expect_illegal(pos, "c 5 4 9 4 / n 4 9", "placement 1 is a Soldier (s), not a Knight");
	assert_int_equal(try_parse(pos, -1, "c 5 4 9 4", &m, &err), RULES_E_INCOMPLETE);
	assert_non_null(strstr(err.message, "1 more placement needed, for s"));
	assert_int_equal(G->continuations(pos, &m, &l), 1);
	assert_int_equal(l.v[0].partial, 0);
	play(pos, "c 5 4 9 4 / s 4 9", "c 5 4 9 4 / s 4 9",
	     "releases s; 2 stay imprisoned (no room)");
	assert_string_equal(prison(pos, 2), "an");
	assert_string_equal(at(pos, 4, 9), "s");

	play(pos, "G 9 5 8 5", "G 9 5 8 5", "");
	expect_reject(pos, -1, "s 4 9 5 9", RULES_E_INCOMPLETE, "1 more placement needed, for n");
	play(pos, "s 4 9 5 9 / n 4 9", "s 4 9 5 9 / n 4 9", "releases n; 1 stays imprisoned (no room)");
	assert_string_equal(prison(pos, 2), "a");
	assert_string_equal(at(pos, 4, 9), "n");
	assert_string_equal(at(pos, 5, 9), "s");
	assert_string_equal(at(pos, 9, 4), "c");
	rules_move_list_free(&l);
	G->free_position(pos);
}

static void test_n14_delayed_release(void **state)
{
	rules_position *pos = setup("c 9 6, C 2 1, n 1 1, s 3 1, g 1 5, G 9 5", 0, 0, 0, 0, 'S');
	rules_position *alt;
	(void)state;

	play(pos, "C 2 1 1 1 6", "C 2 1 1 1 6", "captures n");
	assert_string_equal(prison(pos, 3), "n");
	assert_string_equal(at(pos, 9, 6), "c");
	alt = G->clone(pos);
	expect_reject(pos, -1, "s 3 1 4 1", RULES_E_INCOMPLETE, "1 more placement needed, for n");
	play(pos, "s 3 1 4 1 / n 2 1", "s 3 1 4 1 / n 2 1", "releases n");
	assert_string_equal(at(pos, 2, 1), "n");
	assert_string_equal(prison(pos, 3), "");

	play(alt, "c 9 6 8 6", "c 9 6 8 6", "");
	assert_string_equal(prison(alt, 3), "n");
	G->free_position(pos);
	G->free_position(alt);
}

static void test_n15_general_capture_ends_game(void **state)
{
	rules_position *pos = setup("C 5 4, g 1 4, G 9 5", "S", 0, 0, 0, 'S');
	rules_move a, b, c;
	rules_error err;
	rules_result res;
	char buf[RULES_TEXT_MAX];
	(void)state;

	assert_int_equal(try_parse(pos, -1, "C 5 4 1 4", &a, &err), RULES_OK);
	assert_int_equal(try_parse(pos, -1, "C 5 4 1 4 6", &b, &err), RULES_OK);
	assert_int_equal(try_parse(pos, -1, "C 5 4 1 4 / S 2 2 / N 9 9", &c, &err), RULES_OK);
	assert_int_equal(memcmp(&a, &b, sizeof a), 0);
	assert_int_equal(memcmp(&a, &c, sizeof a), 0);
	G->format(pos, &c, buf, sizeof buf);
	assert_string_equal(buf, "C 5 4 1 4");
	expect_illegal(pos, "C 5 4 1 4 5", "the prison must be 4 or 6");

	play(pos, "C 5 4 1 4 6", "C 5 4 1 4", "wins: General captured");
	assert_string_equal(at(pos, 1, 4), "C");
	assert_string_equal(prison(pos, 0), "S");
	assert_int_equal(G->turn(pos), 0u);
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[NORTH], 2);
	assert_string_equal(res.summary, "South wins: General captured");
	assert_int_equal(count_moves(pos, SOUTH), 0);
	assert_int_equal(count_moves(pos, NORTH), 0);
	expect_reject(pos, NORTH, "c 1 1 2 1", RULES_E_OVER, "over");
	assert_int_equal(G->apply(pos, &a, NULL, NULL, &err), RULES_E_OVER);
	expect_position(pos, "nchess1:...C.+.../........./........./........./~~~~~~~~~/"
			"........./........./........./...+G+...:S:-:-:-:N:S:general");
	G->free_position(pos);
}

/* N16's position: g [1 1], North Ministers on every square with odd row+col. */
static rules_position *n16_position(const char *extra, char side)
{
	char board[9][9];

	memset(board, 0, sizeof board);
	place_pieces(board, "g 1 1, G 9 5");
	place_pieces(board, extra);
	for (int r = 0; r < 9; r++)
		for (int c = 0; c < 9; c++)
			if ((r + c) % 2)
				board[r][c] = 'm';
	return setup_board(board, 0, 0, 0, 0, side);
}

static void test_n16_no_legal_move_loses(void **state)
{
	rules_position *pos = n16_position("", 'N');
	rules_position *var = n16_position("M 7 7", 'S');
	rules_result res;
	(void)state;

	/* As given: North to move and stuck; the game is over, South wins. */
	assert_int_equal(count_moves(pos, NORTH), 0);
	assert_int_equal(G->turn(pos), 0u);
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[NORTH], 2);
	assert_string_equal(res.summary, "South wins: North has no legal move");
	expect_reject(pos, NORTH, "m 1 2 2 3", RULES_E_OVER, "over");

	/* The same reached by a move: apply ends the game. */
	assert_int_equal(G->turn(var), 1u);
	play(var, "M 7 7 6 6", "M 7 7 6 6", "wins: North has no legal move");
	assert_int_equal(G->turn(var), 0u);
	G->result(var, &res);
	assert_string_equal(res.summary, "South wins: North has no legal move");
	char *s = G->serialize(var);
	assert_non_null(strstr(s, ":N:S:nomove"));
	free(s);
	G->free_position(pos);
	G->free_position(var);
}

static void test_n17_own_piece(void **state)
{
	rules_position *pos = *state;

	expect_illegal(pos, "C 9 1 7 1", "[7 1] holds your own Soldier");
	expect_legal(pos, "C 9 1 8 1", "C 9 1 8 1");
}

static void test_n18_letters_and_case(void **state)
{
	rules_position *pos = *state;

	expect_illegal(pos, "N 9 1 8 1", "wrong letter: the piece on [9 1] is a Chariot, not a Knight");
	expect_legal(pos, "c 9 1 8 1", "C 9 1 8 1");
	expect_illegal(pos, "s 3 1 4 1", "the Soldier on [3 1] is North's, not yours");
	expect_illegal(pos, "S 6 1 5 1", "there is no piece on [6 1]");
}

/* Resignation and draws are handled by the server, not by the rules: these
 * words are not moves. */
static void test_n19_resign_and_draw_are_not_moves(void **state)
{
	rules_position *pos = *state;

	expect_reject(pos, SOUTH, "resign", RULES_E_PARSE, "'r' is not a piece letter");
	expect_reject(pos, NORTH, "offer draw", RULES_E_PARSE, "");
	expect_reject(pos, SOUTH, "accept draw", RULES_E_PARSE, "");
	expect_position(pos, START);
}

static void test_n20_two_prisons(void **state)
{
	rules_position *pos = setup("c 9 4, a 9 6, g 1 5, G 8 5", 0, 0, "n", "s", 'N');
	(void)state;

	expect_illegal(pos, "g 1 5 2 5 / s 3 3 / n 2 1", "placement 1 is a Knight (n), not a Soldier");
	expect_reject(pos, -1, "g 1 5 2 5", RULES_E_INCOMPLETE, "2 more placements needed, for n, s");
	play(pos, "g 1 5 2 5 / n 2 1 / s 3 3", "g 1 5 2 5 / n 2 1 / s 3 3", "releases n, s");
	assert_string_equal(at(pos, 2, 1), "n");
	assert_string_equal(at(pos, 3, 3), "s");
	assert_string_equal(prison(pos, 2), "");
	assert_string_equal(prison(pos, 3), "");
	G->free_position(pos);
}

/* ---- notation (Writing moves) ---- */

static void test_notation_examples(void **state)
{
	rules_position *p;
	(void)state;

	/* 1, 11 */
	p = start_pos();
	expect_legal(p, "S 7 1 6 1", "S 7 1 6 1");
	expect_legal(p, "S 7 5 6 5  # centre pawn", "S 7 5 6 5");
	play(p, "S 7 1 6 1", "S 7 1 6 1", "");
	/* 2 */
	expect_legal(p, "[a 2 2 5 2]", "a 2 2 5 2");
	G->free_position(p);
	/* 3 */
	p = setup("C 4 1, G 9 5, s 3 1, g 1 5", 0, 0, 0, 0, 'S');
	expect_legal(p, "c4131 4", "C 4 1 3 1 4");
	G->free_position(p);
	/* 4 */
	p = setup("N 6 3, s 4 4, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	play(p, "N 6 3 4 4 6", "N 6 3 4 4 6", "captures s");
	assert_string_equal(prison(p, 3), "s");
	G->free_position(p);
	/* 5, 6: see N10. 7, 8 */
	p = setup("c 5 4, g 1 5, G 9 5", 0, 0, "sc", 0, 'N');
	expect_legal(p, "c 5 4 9 4 / c 2 1 / s 3 3", "c 5 4 9 4 / c 2 1 / s 3 3");
	expect_legal(p, "C 5 4 9 4 / C 2 1 / S 3 3", "c 5 4 9 4 / c 2 1 / s 3 3");
	expect_legal(p, "[C5494]/[C21]/[S33]", "c 5 4 9 4 / c 2 1 / s 3 3");
	G->free_position(p);
	/* 9: see N14. 10 */
	p = setup("O 2 5, g 1 5, G 9 5", 0, 0, 0, 0, 'S');
	play(p, "O 2 5 1 5", "O 2 5 1 5", "wins: General captured");
	G->free_position(p);
	/* North promotes to a lower-case officer. */
	p = setup("s 8 3, G 9 5, g 1 5", 0, 0, 0, 0, 'N');
	play(p, "s 8 3 9 3", "s 8 3 9 3", "promotes to o");
	assert_string_equal(at(p, 9, 3), "o");
	G->free_position(p);
}

static void test_notation_rejected_examples(void **state)
{
	rules_position *p = setup("C 4 1, G 9 5, s 3 1, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *s = *state;

	expect_illegal(p, "C 4 1 3 1", "prison digit missing");
	expect_illegal(p, "C 4 1 3 1 5", "the prison must be 4 or 6");
	expect_illegal(s, "S 7 1 6 1 4", "a prison digit is written only for a capture, and [6 1] is empty");
	expect_illegal(s, "N 9 1 8 1", "wrong letter");
	G->free_position(p);
}

static void test_lexical_rules(void **state)
{
	rules_position *s = *state;
	char buf[1200];

	expect_legal(s, "S7161", "S 7 1 6 1");
	expect_legal(s, "[S 7, 1, 6, 1]", "S 7 1 6 1");
	expect_legal(s, "\t s ,7,,1\t6 1 ", "S 7 1 6 1");
	expect_legal(s, "S 7 1 6 1 +", "S 7 1 6 1");
	expect_legal(s, "S 7 1 6 1++ #check? / x", "S 7 1 6 1");
	expect_legal(s, "S 7 1 6 1#", "S 7 1 6 1");

	expect_reject(s, -1, "", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "  ", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "# just a comment", RULES_E_PARSE, "");
	expect_reject(s, -1, "X 7 1 6 1", RULES_E_PARSE, "'X' is not a piece letter");
	expect_reject(s, -1, "S 7 1 6", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "S 7 1 6 1 4 4", RULES_E_PARSE, "too many digits");
	expect_reject(s, -1, "S 0 1 6 1", RULES_E_PARSE, "0 is not a row or column");
	expect_reject(s, -1, "S 7 1 6 1 /", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "S 7 1 6 1 / S 2", RULES_E_PARSE, "ends too early");
	expect_reject(s, -1, "S 7 1 6 1 / S 2 1 3", RULES_E_PARSE, "too many digits");
	expect_reject(s, -1, "S 7 1 6 1 ]]", RULES_E_PARSE, "unexpected ']'");
	expect_reject(s, -1, "S 7 1 6 1 + /", RULES_E_PARSE, "unexpected '/'");
	expect_reject(s, -1, "S 7 1 6 1 x", RULES_E_PARSE, "unexpected 'x'");
	expect_reject(s, -1, "S 7 1 6 1;", RULES_E_PARSE, "unexpected ';'");
	expect_reject(s, -1, "S 7 1 6 1\n", RULES_E_PARSE, "unexpected character 0x0a");
	expect_reject(s, -1, "S 7 1 6 1 \xc3\xa9", RULES_E_PARSE, "only ASCII");
	expect_reject(s, -1, "S 7 1 6 1 # caf\xc3\xa9", RULES_E_PARSE, "only ASCII");
	expect_reject(s, -1, "S - 7 1 6 1", RULES_E_PARSE, "unexpected '-'");

	expect_length_limit(s, "S 7 1 6 1", "S 7 1 6 1");
	memset(buf, 'S', sizeof buf - 1);
	buf[sizeof buf - 1] = 0;
	expect_reject(s, -1, buf, RULES_E_PARSE, "too long");

	/* Syntax is checked before whose turn it is. */
	expect_reject(s, NORTH, "hello", RULES_E_PARSE, "");
	expect_reject(s, NORTH, "s 3 1 4 1", RULES_E_TURN, "South is to move");
	expect_reject(s, 7, "S 7 1 6 1", RULES_E_TURN, "");
}

/* ---- position text, view and tampered moves ---- */

static void test_serialize_round_trip_and_corruption(void **state)
{
	static const char *bad[] = {
		"",
		"nchess1:",
		"chess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess2:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		/* an empty ordinary square written as river, prison and unknown */
		"nchess1:cnm+g+mnc/~a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess1:cnm.g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~.~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a..x..a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		/* row too short, too long */
		"nchess1:cnm+g+mnc/.a.....a/s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a../s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		/* truncated anywhere */
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S",
		/* trailing text, bad side, bad result */
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:- ",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:X:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:S:draw",
		/* the General count does not fit the result */
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:N:S:general",
		"nchess1:cnm+.+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a..g..a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		/* a finished game whose side to move is the winner */
		"nchess1:cnm+.+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:S:general",
		/* a Soldier on its last row */
		"nchess1:cnmSg+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNMsG+MNC:-:-:-:-:S:-",
		/* prisoners: wrong side, a General, empty field, '-' mixed in */
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:s:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:S:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:G:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC::-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:S-:-:-:-:S:-",
		"nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:-:S:-",
	};
	char long_text[400];
	(void)state;

	expect_text_round_trip(START);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_corrupt(bad[i]);

	/* Every prefix of a valid text is rejected, never read past. */
	const char *good = "nchess1:...C.+.../........./........./........./~~~~~~~~~/"
		"........./........./........./...+G+...:S:-:-:-:N:S:general";
	expect_prefixes_refused(good);

	/* More pieces than the position may hold. */
	int n = snprintf(long_text, sizeof long_text, "nchess1:mmmmgmmmm/mmmmmmmmm/mmmmmmmmm/"
			 "mmmmmmmmm/mmmmmmmmm/mmmmmmmmm/mmmmmmmmm/mmmmmmmmm/mmmmGmmmm:-:-:");
	for (int i = 0; i < 16; i++)
		long_text[n++] = 'm';
	snprintf(long_text + n, sizeof long_text - n, ":-:S:-");
	expect_corrupt(long_text);
	/* ... one fewer fits. */
	snprintf(long_text + n - 1, sizeof long_text - n + 1, ":-:S:-");
	expect_text_round_trip(long_text);
}

static void test_view(void **state)
{
	rules_position *pos = setup("C 9 1, G 8 5, g 1 5, n 9 4, c 1 6", "SAO", 0, 0, "c", 'S');
	rules_view v;
	(void)state;

	G->view(pos, &v);
	expect_grid(&v, 9, 9, "1", "9", "1", "9");
	assert_string_equal(v.cell[8][0].piece, "C");
	assert_int_equal(v.cell[8][0].owner, SOUTH);
	assert_string_equal(v.cell[8][0].kind, "");
	assert_string_equal(v.cell[8][3].piece, "n");
	assert_int_equal(v.cell[8][3].owner, NORTH);
	assert_string_equal(v.cell[8][3].kind, "prison");
	assert_string_equal(v.cell[0][5].kind, "prison");
	assert_string_equal(v.cell[0][3].kind, "prison");
	assert_string_equal(v.cell[0][3].piece, "");
	assert_int_equal(v.cell[0][3].owner, -1);
	assert_string_equal(v.cell[8][5].kind, "prison");
	assert_string_equal(v.cell[4][0].kind, "river");
	assert_string_equal(v.cell[4][8].kind, "river");
	assert_string_equal(v.cell[3][3].kind, "");
	assert_int_equal(v.nholdings, 4);
	assert_string_equal(v.holding[0].name, "North prison 4");
	assert_int_equal(v.holding[0].row, 0);
	assert_int_equal(v.holding[0].col, 3);
	assert_int_equal(v.holding[0].owner, SOUTH);
	assert_int_equal(v.holding[0].npieces, 3);
	assert_string_equal(v.holding[0].pieces[0], "S");
	assert_string_equal(v.holding[0].pieces[2], "O");
	assert_string_equal(v.holding[1].name, "North prison 6");
	assert_int_equal(v.holding[1].npieces, 0);
	assert_string_equal(v.holding[3].name, "South prison 6");
	assert_int_equal(v.holding[3].row, 8);
	assert_int_equal(v.holding[3].col, 5);
	assert_int_equal(v.holding[3].owner, NORTH);
	assert_int_equal(v.holding[3].npieces, 1);
	assert_string_equal(v.holding[3].pieces[0], "c");
	assert_int_equal(G->view_quarter_turns(SOUTH), 0);
	assert_int_equal(G->view_quarter_turns(NORTH), 2);
	G->free_position(pos);
}

/* A legal move with a prison digit though it captures nothing. */
static void test_apply_rejects_bad_moves(void **state)
{
	expect_tampered(*state, SOUTH, "S 7 1 6 1", 5, 4, RULES_E_ILLEGAL);
}

/* ---- every listed move round-trips through its text ---- */

static void test_round_trip_listed_moves(void **state)
{
	rules_position *p[5];
	(void)state;

	p[0] = start_pos();
	p[1] = setup("c 5 4, g 1 5, G 9 5", 0, 0, "sc", 0, 'N');
	p[2] = n13_position();
	p[3] = setup("c 9 4, a 9 6, g 1 5, G 8 5", 0, 0, "n", "s", 'N');
	p[4] = setup("C 5 4, g 1 4, G 9 5, N 2 5, s 3 4, O 2 2", "S", 0, 0, 0, 'S');
	for (int i = 0; i < 5; i++) {
		check_round_trips(p[i], -1);
		G->free_position(p[i]);
	}
}

/* ---- the generator agrees with the move checker ---- */

/* Every (from, to) of seat's pieces that parse accepts is listed, and back. */
static void cross_check(const rules_position *pos)
{
	rules_move_list l = { 0 };
	int seat = to_move(pos);
	unsigned char listed[9][9][9][9];
	rules_view v;

	if (seat < 0)
		return;
	memset(listed, 0, sizeof listed);
	G->legal_moves(pos, seat, &l);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX];
		int fr, fc, tr, tc;
		G->format(pos, &l.v[i], buf, sizeof buf);
		assert_int_equal(sscanf(buf + 2, "%d %d %d %d", &fr, &fc, &tr, &tc), 4);
		listed[fr - 1][fc - 1][tr - 1][tc - 1]++;
	}
	G->view(pos, &v);
	for (int fr = 0; fr < 9; fr++)
		for (int fc = 0; fc < 9; fc++) {
			if (v.cell[fr][fc].owner != seat)
				continue;
			for (int tr = 0; tr < 9; tr++)
				for (int tc = 0; tc < 9; tc++) {
					char text[32];
					rules_move m;
					const char *victim = v.cell[tr][tc].piece;
					int cap = v.cell[tr][tc].owner == 1 - seat
						&& toupper((unsigned char)victim[0]) != 'G';
					snprintf(text, sizeof text, "%s %d %d %d %d%s",
						 v.cell[fr][fc].piece, fr + 1, fc + 1, tr + 1, tc + 1,
						 cap ? " 6" : "");
					int rc = G->parse(pos, seat, text, &m, NULL);
					int ok = rc == RULES_OK || rc == RULES_E_INCOMPLETE;
					assert_true(rc == RULES_OK || rc == RULES_E_INCOMPLETE
						    || rc == RULES_E_ILLEGAL);
					int want = ok ? (cap ? 2 : 1) : 0;
					if (listed[fr][fc][tr][tc] != want)
						fprintf(stderr, "mismatch %s: listed %d\n", text,
							listed[fr][fc][tr][tc]);
					assert_int_equal(listed[fr][fc][tr][tc], want);
				}
		}
	rules_move_list_free(&l);
}

/* ---- random games ---- */

static void check_invariants(const rules_position *pos, int mover)
{
	rules_view v;
	rules_result res;
	int board[2] = { 0, 0 }, held[2] = { 0, 0 }, generals[2] = { 0, 0 };

	G->view(pos, &v);
	G->result(pos, &res);
	for (int r = 0; r < 9; r++)
		for (int c = 0; c < 9; c++) {
			const char *p = v.cell[r][c].piece;
			if (!p[0]) {
				assert_int_equal(v.cell[r][c].owner, -1);
				continue;
			}
			int owner = v.cell[r][c].owner;
			assert_int_equal(owner, isupper((unsigned char)p[0]) ? SOUTH : NORTH);
			board[owner]++;
			if (toupper((unsigned char)p[0]) == 'G')
				generals[owner]++;
			assert_false(p[0] == 'S' && r == 0);
			assert_false(p[0] == 's' && r == 8);
		}
	for (int k = 0; k < 4; k++) {
		assert_true(v.holding[k].npieces < 32);
		held[v.holding[k].owner] += v.holding[k].npieces;
		for (int i = 0; i < v.holding[k].npieces; i++)
			assert_true(toupper((unsigned char)v.holding[k].pieces[i][0]) != 'G');
	}
	for (int s2i = 0; s2i < 2; s2i++) {
		int captured = generals[s2i] == 0;
		assert_true(generals[s2i] <= 1);
		if (captured) {
			assert_int_equal(res.over, 1);
			assert_int_equal(res.rank[s2i], 2);
			assert_string_equal(res.summary, s2i == SOUTH
					    ? "North wins: General captured" : "South wins: General captured");
		}
		assert_int_equal(board[s2i] + held[s2i] + captured, 14);
	}
	expect_turn_passed(pos, mover);
}

/* What the random games did, so the test can insist they covered it. */
static int n_releases, n_no_room, n_promotions, n_captures;

/* After each ply of a random game: the invariants, and what the move did. */
static void random_ply(const rules_position *pos, int seat, const char *text, const rules_outcome *out,
		       void *ctx)
{
	(void)text;
	(void)ctx;
	n_releases += strstr(out->note, "releases") != NULL;
	n_no_room += strstr(out->note, "(no room)") != NULL;
	n_promotions += strstr(out->note, "promotes") != NULL;
	n_captures += strstr(out->note, "captures") != NULL;
	check_invariants(pos, seat);
}

static void test_random_games(void **state)
{
	int over = 0, total = 0, general = 0, nomove = 0;
	(void)state;

	n_releases = n_no_room = n_promotions = n_captures = 0;
	rng_seed(0x9e3779b97f4a7c15ULL);
	for (int g = 0; g < 300; g++) {
		rules_position *pos = start_pos();
		rules_result res;
		random_play how = { .check = random_ply, .every = g < 12 ? 25 : 0, .deep = cross_check };
		check_invariants(pos, NORTH);
		total += random_game(pos, 600, &how, NULL);
		G->result(pos, &res);
		if (res.over) {
			over++;
			if (strstr(res.summary, "General captured"))
				general++;
			else
				nomove++;
		}
		G->free_position(pos);
	}
	if (getenv("NCHESS_STATS"))
		fprintf(stderr, "games over %d (general %d, no move %d), plies %d, "
			"captures %d, promotions %d, releases %d, no room %d\n",
			over, general, nomove, total, n_captures, n_promotions, n_releases, n_no_room);
	/* Random play ends most games by taking a General, and on the way
	 * exercises captures, promotions and releases. */
	assert_true(over > 150);
	assert_int_equal(over, general + nomove);
	assert_true(n_captures > 1000);
	assert_true(n_promotions > 10);
	assert_true(n_releases > 10);
}

/* Positions with prisoners: random games from a position rich in captures. */
static void test_random_games_with_prisons(void **state)
{
	(void)state;

	rng_seed(777);
	for (int g = 0; g < 40; g++) {
		rules_position *pos = setup("c 5 4, a 9 6, g 1 5, G 8 5, C 5 6, A 1 4, S 4 4, s 6 6,"
					    "N 7 3, n 3 7, M 6 2, m 4 8, O 2 2, o 8 8",
					    "SCA", "N", "ns", "cm", 'N');
		/* The totals here are not 14 per side; only play and round-trip. */
		random_play how = { .every = 10, .deep = cross_check };
		random_game(pos, 300, &how, NULL);
		G->free_position(pos);
	}
}

/* ---- gestures: how moves are pointed at on the board ---- */

/* The property check for the side to move, and nothing for the other side. Returns the moves checked. */
static size_t check_gestures(const rules_position *pos, int depth)
{
	int seat = to_move(pos);

	assert_true(seat >= 0);
	assert_int_equal(gesture_check(G, pos, 1 - seat, depth), 0);
	return gesture_check(G, pos, seat, depth);
}

/* Positions whose gestures covered more than their listed moves: they had releases. */
static int with_releases;

/* check_gestures() to depth 2, counting the positions with releases. */
static size_t check_release_gestures(const rules_position *pos)
{
	size_t n = check_gestures(pos, 2);

	with_releases += n > count_moves(pos, to_move(pos));
	return n;
}

static void test_gestures_start_and_random_games(void **state)
{
	rules_position *pos = *state, *p;
	gesture_tally t = { 0, 0 };

	/* No partial moves at the start: exactly the listed moves. */
	assert_int_equal(check_gestures(pos, 2), count_moves(pos, SOUTH));

	/* Every position of the first 100 plies of 30 random games from the start, and of the first
	 * 8 of 2 from a position full of prisoners (checking a release to depth 2 means a thousand
	 * placements, and every move is one while a piece stands on a full prison). */
	with_releases = 0;
	rng_seed(4242);
	for (int g = 0; g < 32; g++) {
		p = g < 30 ? start_pos()
			: setup("c 5 4, a 9 6, g 1 5, G 8 5, C 5 6, A 1 4, S 4 4, s 6 6,"
				"N 7 3, n 3 7, M 6 2, m 4 8, O 2 2, o 8 8", "SCA", "N", "ns", "cm", 'N');
		gestures_along(p, g < 30 ? 100 : 8, check_release_gestures, NULL, &t);
		G->free_position(p);
	}
	if (getenv("NCHESS_STATS"))
		fprintf(stderr, "gestures: %zu positions (%d with releases), %zu moves checked\n",
			t.positions, with_releases, t.moves);
	assert_true(t.positions > 1000);
	assert_true(with_releases > 10);
}

static void test_gestures_moves_and_captures(void **state)
{
	rules_position *pos = *state;
	rules_position *capture = setup("C 4 1, G 9 5, s 3 1, g 1 5", 0, 0, 0, 0, 'S');
	rules_position *general = setup("C 4 1, G 9 5, g 3 1", 0, 0, 0, 0, 'S');
	rules_position *promote = setup("S 2 3, S 2 7, n 1 7, G 9 5, g 1 5", 0, 0, 0, 0, 'S');
	rules_move_list l = { 0 };
	int both = 0;

	expect_gesture(pos, "S 7 1 6 1", "7 1|6 1", "");
	expect_gesture(pos, "A 8 2 5 2", "8 2|5 2", "");
	expect_gesture(pos, "N 9 2 8 4", "9 2|8 4", "");

	/* A capture is listed once per prison: the words tell them apart. */
	expect_gesture(capture, "C 4 1 3 1 4", "4 1|3 1", "to prison 4");
	expect_gesture(capture, "C 4 1 3 1 6", "4 1|3 1", "to prison 6");
	G->legal_moves(capture, SOUTH, &l);
	for (size_t i = 0; i < l.n; i++) {
		rules_gesture g;
		G->gesture(capture, &l.v[i], &g);
		if (g.n == 2 && !strcmp(g.at[0], "4 1") && !strcmp(g.at[1], "3 1"))
			both++;
	}
	assert_int_equal(both, 2);
	check_gestures(capture, 2);

	/* Taking the General goes to no prison; promotion is automatic. */
	expect_gesture(general, "C 4 1 3 1", "4 1|3 1", "");
	check_gestures(general, 2);
	expect_gesture(promote, "S 2 3 1 3", "2 3|1 3", "");
	expect_gesture(promote, "S 2 7 1 7 6", "2 7|1 7", "to prison 6");
	check_gestures(promote, 2);
	rules_move_list_free(&l);
	G->free_position(capture);
	G->free_position(general);
	G->free_position(promote);
}

static void test_gestures_release(void **state)
{
	rules_position *pos = setup("c 5 4, g 1 5, G 9 5", 0, 0, "sc", 0, 'N');
	/* A South Archer on South's prison square: taking it frees North's prisoners too. */
	rules_position *capture = setup("c 5 4, g 1 5, G 9 5, A 9 4", 0, 0, "sc", 0, 'N');
	/* N14: North's Archer already stands on South's prison when a prisoner arrives. */
	rules_position *delayed = setup("a 9 6, s 3 1, g 1 5, G 9 5", 0, 0, 0, "n", 'N');
	rules_move m;
	rules_error err;
	rules_move_list l = { 0 };
	(void)state;

	/* The partial move touches the piece and the prison; each placement adds its square. */
	expect_gesture(pos, "c 5 4 9 4", "5 4|9 4", "releases prisoners");
	expect_gesture(pos, "c 5 4 9 4 / c 2 1", "5 4|9 4|2 1", "place the Chariot");
	expect_gesture(pos, "c 5 4 9 4 / c 2 1 / s 3 3", "5 4|9 4|2 1|3 3", "place the Soldier");
	/* Partial, one placement, both placements: three levels. */
	assert_true(check_gestures(pos, 2) > 33 * 32);

	/* The continuations of the partial move: one square more each, all different. */
	assert_int_equal(try_parse(pos, -1, "c 5 4 9 4", &m, &err), RULES_E_INCOMPLETE);
	assert_int_equal(G->continuations(pos, &m, &l), 33);
	for (size_t i = 0; i < l.n; i++) {
		rules_gesture g;
		char text[RULES_TEXT_MAX];
		G->gesture(pos, &l.v[i], &g);
		G->format(pos, &l.v[i], text, sizeof text);
		assert_int_equal(g.n, 3);
		assert_string_equal(g.at[0], "5 4");
		assert_string_equal(g.at[1], "9 4");
		/* "c 5 4 9 4 / c <row> <column>": the placement's square. */
		assert_int_equal(strlen(text), strlen("c 5 4 9 4 / c 2 1"));
		assert_string_equal(g.at[2], text + strlen("c 5 4 9 4 / c "));
		assert_string_equal(g.choice, "place the Chariot");
	}

	expect_gesture(capture, "c 5 4 9 4 4", "5 4|9 4", "to prison 4, releases prisoners");
	expect_gesture(capture, "c 5 4 9 4 6", "5 4|9 4", "to prison 6, releases prisoners");
	expect_gesture(capture, "c 5 4 9 4 6 / c 2 1", "5 4|9 4|2 1", "place the Chariot");
	check_gestures(capture, 2);

	/* A delayed release: whatever North moves frees the Knight, so every move is partial. */
	expect_gesture(delayed, "s 3 1 4 1", "3 1|4 1", "releases prisoners");
	expect_gesture(delayed, "s 3 1 4 1 / n 2 1", "3 1|4 1|2 1", "place the Knight");
	check_gestures(delayed, 2);
	rules_move_list_free(&l);
	G->free_position(pos);
	G->free_position(capture);
	G->free_position(delayed);
}

/* A gesture as one comparable line, "5 4|9 4#releases prisoners". */
static void gesture_text(const rules_position *pos, const rules_move *m, rules_gesture *g, char *buf,
			 size_t size)
{
	size_t len = 0;

	G->gesture(pos, m, g);
	buf[0] = 0;
	for (int i = 0; i < g->n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "|" : "", g->at[i]);
	snprintf(buf + len, size - len, "#%s", g->choice);
}

/*
 * Follows a partial move's first continuation to the end, checking at each step what
 * gesture_check checks to a small depth (every way to place many prisoners is too many): each
 * continuation's places start with its partial move's, and no two share places and words.
 * Returns the number of placements made.
 */
static int walk_first_continuations(const rules_position *pos, rules_move move)
{
	int steps = 0;

	while (move.partial) {
		rules_move_list l = { 0 };
		rules_gesture parent, g;
		char (*keys)[RULES_TOUCH_MAX * 9 + 80];
		char text[RULES_TOUCH_MAX * 9 + 80];

		gesture_text(pos, &move, &parent, text, sizeof text);
		assert_true(G->continuations(pos, &move, &l) > 0);
		keys = calloc(l.n, sizeof *keys);
		assert_non_null(keys);
		for (size_t i = 0; i < l.n; i++) {
			gesture_text(pos, &l.v[i], &g, keys[i], sizeof keys[i]);
			assert_true(g.n >= parent.n && g.n <= RULES_TOUCH_MAX);
			for (int k = 0; k < parent.n; k++)
				assert_string_equal(g.at[k], parent.at[k]);
			for (size_t j = 0; j < i; j++)
				if (!strcmp(keys[i], keys[j]))
					fail_msg("two continuations with the gesture %s", keys[i]);
		}
		move = l.v[0];
		steps++;
		free(keys);
		rules_move_list_free(&l);
	}
	return steps;
}

/* Eight prisoners freed at once: places for the first six placements, words for the rest. */
static void test_gestures_many_prisoners(void **state)
{
	char board[9][9];
	rules_position *pos;
	rules_move m;
	rules_error err;
	const char *all = "c 5 4 9 4 / m 2 2 / n 2 3 / s 2 4 / o 2 5 / c 2 6 / a 2 7 / m 2 9 / n 2 8";
	(void)state;

	/* North fills its half but for eight squares of row 2 ([2 2] to [2 9]). */
	memset(board, 0, sizeof board);
	place_pieces(board, "c 1 1, n 1 2, m 1 3, g 1 5, m 1 7, n 1 8, c 1 9, a 2 1, c 5 4, G 9 5");
	for (int r = 2; r < 4; r++)
		for (int c = 0; c < 9; c++)
			board[r][c] = 's';
	pos = setup_board(board, 0, 0, "nmacosnm", 0, 'N');

	/* Released newest first: m n s o c a m n. */
	expect_gesture(pos, "c 5 4 9 4", "5 4|9 4", "releases prisoners");
	expect_gesture(pos, "c 5 4 9 4 / m 2 2 / n 2 3 / s 2 4 / o 2 5 / c 2 6",
		       "5 4|9 4|2 2|2 3|2 4|2 5|2 6", "place the Chariot");
	expect_gesture(pos, "c 5 4 9 4 / m 2 2 / n 2 3 / s 2 4 / o 2 5 / c 2 6 / a 2 7",
		       "5 4|9 4|2 2|2 3|2 4|2 5|2 6|2 7", "place the Archer");
	expect_gesture(pos, "c 5 4 9 4 / m 2 2 / n 2 3 / s 2 4 / o 2 5 / c 2 6 / a 2 7 / m 2 8",
		       "5 4|9 4|2 2|2 3|2 4|2 5|2 6|2 7", "place the Minister on 2 8");
	expect_gesture(pos, "c 5 4 9 4 / m 2 2 / n 2 3 / s 2 4 / o 2 5 / c 2 6 / a 2 7 / m 2 9",
		       "5 4|9 4|2 2|2 3|2 4|2 5|2 6|2 7", "place the Minister on 2 9");
	expect_gesture(pos, all, "5 4|9 4|2 2|2 3|2 4|2 5|2 6|2 7", "place the Knight on 2 8");
	assert_int_equal(try_parse(pos, -1, all, &m, &err), RULES_OK);

	check_gestures(pos, 2);
	assert_int_equal(try_parse(pos, -1, "c 5 4 9 4", &m, &err), RULES_E_INCOMPLETE);
	assert_int_equal(walk_first_continuations(pos, m), 8);
	G->free_position(pos);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		start_test(test_n1_first_move_and_count),
		start_test(test_n2_south_moves_first),
		start_test(test_n3_soldier_directions),
		cmocka_unit_test(test_n4_chariot_and_river),
		cmocka_unit_test(test_n5_empty_prison_does_not_block),
		start_test(test_n6_archer),
		cmocka_unit_test(test_n7_knight_jumps),
		start_test(test_n8_minister),
		start_test(test_n9_general),
		cmocka_unit_test(test_n10_promotion),
		cmocka_unit_test(test_n11_capture_and_prison),
		cmocka_unit_test(test_n12_release),
		cmocka_unit_test(test_n13_not_enough_room),
		cmocka_unit_test(test_n14_delayed_release),
		cmocka_unit_test(test_n15_general_capture_ends_game),
		cmocka_unit_test(test_n16_no_legal_move_loses),
		start_test(test_n17_own_piece),
		start_test(test_n18_letters_and_case),
		start_test(test_n19_resign_and_draw_are_not_moves),
		cmocka_unit_test(test_n20_two_prisons),
		cmocka_unit_test(test_notation_examples),
		start_test(test_notation_rejected_examples),
		start_test(test_lexical_rules),
		cmocka_unit_test(test_serialize_round_trip_and_corruption),
		cmocka_unit_test(test_view),
		start_test(test_apply_rejects_bad_moves),
		cmocka_unit_test(test_round_trip_listed_moves),
		cmocka_unit_test(test_random_games),
		cmocka_unit_test(test_random_games_with_prisons),
		start_test(test_gestures_start_and_random_games),
		start_test(test_gestures_moves_and_captures),
		cmocka_unit_test(test_gestures_release),
		cmocka_unit_test(test_gestures_many_prisoners),
	};

	/* Gestures join Nchess squares ("7 1") with '|'; releases are partial moves. */
	check_use(&(rules_check){ .game = G, .sep = '|', .partial = 1 });
	return cmocka_run_group_tests(tests, NULL, NULL);
}
