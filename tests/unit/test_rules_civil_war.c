/* test_rules_civil_war.c - the Civil War rules against docs/rules/civil-war.md: scenarios CW1-CW31,
 * the attack table with scripted dice and with the server's dice recipe, notation, position text,
 * view, round trips and random games; the variants for two and for three players (CW2-1 to
 * CW3-5). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_check.h"

extern const rules_game rules_civil_war;
extern const rules_game rules_civil_war_2;
extern const rules_game rules_civil_war_3;

/* The game under test: the four-player game, or a variant while its tests run (variant_setup). */
static const rules_game *G = &rules_civil_war;
static const char *tag = "cw1:";        /* its position texts' prefix */

enum { SOUTH = 0, WEST = 1, NORTH = 2, EAST = 3 };

#define TAIL0 "SWNE:----:-,-,-,-:0:-"
#define START "cw1:...sBsRsRsB....eP.../.sKsQ..sNsN....eP.eK./...........eP.eQ./" \
	"sPsPsPsPsPsPsP....eP..eB/...........eP..eR/...........eP.eNeR/...........eP.eNeB/" \
	".............../wBwN.wP.........../wRwN.wP.........../wR..wP.........../" \
	"wB..wP....nPnPnPnPnPnPnP/.wQ.wP.........../.wK.wP....nNnN..nQnK./" \
	"...wP....nBnRnRnB...:S:" TAIL0

/* ---- helpers ---- */

typedef char grid_t[15][15][4];

/* "e2" -> rank index 1, file index 4. */
static void square_of(const char *s, int *r, int *f)
{
	*f = s[0] - 'a';
	*r = atoi(s + 1) - 1;
	assert_true(*f >= 0 && *f < 15 && *r >= 0 && *r < 15);
}

/* Pieces as "sK b2, wP e7": army (s w n e), letter, square. */
static void place(grid_t g, const char *pieces)
{
	const char *p = pieces;

	while (*p) {
		int r, f;
		if (*p == ' ' || *p == ',') {
			p++;
			continue;
		}
		assert_non_null(strchr("swne", p[0]));
		assert_non_null(strchr("KQRGBANOPM", p[1]));
		assert_int_equal(p[2], ' ');
		square_of(p + 3, &r, &f);
		assert_string_equal(g[r][f], "");
		g[r][f][0] = p[0];
		g[r][f][1] = p[1];
		p += 3;
		while (*p && *p != ',')
			p++;
	}
}

static char *grid_text(grid_t g, const char *tail)
{
	static char text[1024];
	size_t n = (size_t)snprintf(text, sizeof text, "%s", tag);

	for (int r = 0; r < 15; r++) {
		for (int f = 0; f < 15; f++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s", g[r][f][0] ? g[r][f] : ".");
		text[n++] = r < 14 ? '/' : ':';
	}
	snprintf(text + n, sizeof text - n, "%s", tail);
	return text;
}

/*
 * A position from a piece list; the armies in kings ("swne") get their King on the start square
 * the Scenarios assume (sK b2, wK b14, nK n14, eK n2) unless the list places one. tail is the
 * text after the board: "<slot>:<controllers>:<bonds>:<declarations>:<passes>:<result>".
 */
static rules_position *setup_k(const char *pieces, const char *kings, const char *tail)
{
	static const char *const home[4] = { "b2", "b14", "n14", "n2" };
	grid_t g;

	memset(g, 0, sizeof g);
	place(g, pieces);
	for (int a = 0; a < 4; a++) {
		int found = 0, r, f;
		char code = "swne"[a];
		if (!strchr(kings, code))
			continue;
		for (r = 0; r < 15; r++)
			for (f = 0; f < 15; f++)
				if (g[r][f][0] == code && g[r][f][1] == 'K')
					found = 1;
		if (found)
			continue;
		square_of(home[a], &r, &f);
		assert_string_equal(g[r][f], "");
		g[r][f][0] = code;
		g[r][f][1] = 'K';
	}
	return position_of(grid_text(g, tail));
}

/* All four Kings (default squares unless placed), nobody allied, armies with their owners. */
static rules_position *setup(const char *pieces, char slot)
{
	char tail[64];

	snprintf(tail, sizeof tail, "%c:" TAIL0, slot);
	return setup_k(pieces, "swne", tail);
}

/* Fields of the position text after the board: 0 slot, 1 controllers, 2 bonds, 3 declarations,
 * 4 passes, 5 result. */
static const char *field(const rules_position *pos, int k)
{
	static char buf[64];
	char *s = G->serialize(pos), *p = s;

	for (int i = 0; i < 15; i++)
		p = strchr(p, i < 14 ? '/' : ':') + 1;
	for (int i = 0; i < k; i++)
		p = strchr(p, ':') + 1;
	snprintf(buf, sizeof buf, "%.*s", (int)strcspn(p, ":"), p);
	free(s);
	return buf;
}

static int seat_of_letter(char ch)
{
	const char *p = strchr("SWNE", ch);

	return ch && p ? (int)(p - "SWNE") : -1;
}

/* The seat of the player who moves the army whose slot it is, or -1 once over. */
static int actor(const rules_position *pos)
{
	static const char *const names[] = { "South", "West", "North", "East" };
	char *s = G->serialize(pos), *p = s;
	int slot, who = -1;

	for (int i = 0; i < 15; i++)
		p = strchr(p, i < 14 ? '/' : ':') + 1;
	slot = seat_of_letter(p[0]);
	if (slot >= 0)
		who = seat_of_letter(p[2 + slot]);
	free(s);
	return who < 0 ? -1 : rules_seat_index(G, names[who]);
}

static int slot_of(const rules_position *pos)
{
	return seat_of_letter(field(pos, 0)[0]);
}

/* The piece on a square as "sK", "" when empty. */
static const char *at(const rules_position *pos, const char *square)
{
	static char buf[8];
	rules_view v;
	int r, f;

	square_of(square, &r, &f);
	G->view(pos, &v);
	const rules_cell *c = &v.cell[14 - r][f];
	if (!c->piece[0])
		return "";
	assert_true(c->owner >= 0 && c->owner < 4);
	snprintf(buf, sizeof buf, "%c%s", "swne"[c->owner], c->piece);
	return buf;
}

/* Parse as seat (-1: the actor), check the canonical text, apply with the die showing roll (0:
 * no roll may be asked for) and check the note. */
static void play_roll_by(rules_position *pos, int seat, const char *text, const char *canon, int roll,
			 const char *note)
{
	script sc = { { roll }, roll > 0, 0, 0, 12 };
	rules_dice dice = { script_roll, &sc };

	play_as(pos, seat, text, canon, note, &dice, NULL);
	assert_int_equal(sc.used, sc.n);
}

static void play_roll(rules_position *pos, const char *text, const char *canon, int roll, const char *note)
{
	play_roll_by(pos, -1, text, canon, roll, note);
}

/* The position text after the board: "<slot>:<controllers>:...". */
static void expect_state(const rules_position *pos, const char *tail)
{
	char *s = G->serialize(pos), *p = s;

	for (int i = 0; i < 15; i++)
		p = strchr(p, i < 14 ? '/' : ':') + 1;
	if (strcmp(p, tail))
		fprintf(stderr, "state %s, want %s\n", p, tail);
	assert_string_equal(p, tail);
	free(s);
}

/* Whether text (as the actor) is among the listed moves. */
static int is_listed(const rules_position *pos, int seat, const char *canon)
{
	char *all = listed_moves(pos, seat, " | "), *p = all;
	size_t n = strlen(canon);
	int found = 0;

	while (!found && (p = strstr(p, canon)) != NULL) {
		found = (p == all || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ');
		p++;
	}
	free(all);
	return found;
}

/* ---- the Scenarios ---- */

static void test_cw1_start(void **state)
{
	rules_position *pos = *state, *none = NULL;
	rules_result res;
	rules_error err;
	rules_move_list l = { 0 };

	expect_position(pos, START);
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	assert_int_equal(count_moves(pos, SOUTH), 52);
	for (int s = WEST; s <= EAST; s++)
		assert_int_equal(count_moves(pos, s), 0);
	expect_legal(pos, "Pa4-a5", "S: Pa4-a5");
	expect_reject(pos, WEST, "Pd9-e9", RULES_E_TURN, "not your turn: South is to act");
	expect_position(pos, START);
	G->result(pos, &res);
	assert_int_equal(res.over, 0);
	assert_string_equal(res.summary, "South to act");
	assert_int_equal(G->continuations(pos, NULL, &l), 0);
	/* Civil War takes no options. */
	assert_int_equal(G->start("x", &none, &err), RULES_E_DATA);
	assert_null(none);

	/* Every army has 52 legal moves in its slot. */
	for (int s = SOUTH; s <= EAST; s++) {
		char text[sizeof START];
		rules_position *p = NULL;
		strcpy(text, START);
		strstr(text, ":S:SWNE")[1] = "SWNE"[s];
		assert_int_equal(G->deserialize(text, &p, NULL), 0);
		assert_int_equal(G->turn(p), 1u << s);
		assert_int_equal(count_moves(p, s), 52);
		G->free_position(p);
	}

	/* Turn order South, West, North, East. */
	play_roll(pos, "Pa4-a5", "S: Pa4-a5", 0, "");
	assert_int_equal(G->turn(pos), 1u << WEST);
	play_roll(pos, "Pd9-e9", "W: Pd9-e9", 0, "");
	assert_int_equal(G->turn(pos), 1u << NORTH);
	play_roll(pos, "Pi12-i11", "N: Pi12-i11", 0, "");
	assert_int_equal(G->turn(pos), 1u << EAST);
	play_roll(pos, "Pl7-k7", "E: Pl7-k7", 0, "");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
}

/* The start position is South's army turned by (f, r) -> (r, 16 - f) for each next seat. */
static void test_start_rotation(void **state)
{
	rules_position *pos = *state;
	rules_view v;
	int n = 0;

	G->view(pos, &v);
	for (int r = 1; r <= 15; r++)
		for (int f = 1; f <= 15; f++) {
			const rules_cell *c = &v.cell[15 - r][f - 1];
			const rules_cell *d = &v.cell[15 - (16 - f)][r - 1];
			if (!c->piece[0]) {
				assert_string_equal(d->piece, "");
				continue;
			}
			n++;
			assert_string_equal(c->piece, d->piece);
			assert_int_equal(d->owner, (c->owner + 1) % 4);
			assert_int_equal(d->facing, (c->facing + 1) % 4);
		}
	assert_int_equal(n, 60);
}

static void test_cw2_gate(void **state)
{
	rules_position *pos = *state, *p;

	expect_legal(pos, "Qc2-d2", "S: Qc2-d2");
	expect_illegal(pos, "Qc2-d3", "wall stands between c2 and d3");
	expect_illegal(pos, "Qc2-d1", "wall stands between c2 and d1");
	expect_legal(pos, "Qc2-b3", "S: Qc2-b3");
	expect_legal(pos, "Kb2-c3", "S: Kb2-c3");
	expect_legal(pos, "Kb2-c1", "S: Kb2-c1");

	/* Steps touching a wall's end point from outside are not blocked; the gate works both ways. */
	p = setup("sQ d2, sK d4", 'S');
	expect_legal(p, "Qd2-c2", "S: Qd2-c2");
	expect_illegal(p, "Qd2-c3", "wall stands between d2 and c3");
	expect_illegal(p, "Kd4-c3", "wall stands between d4 and c3");
	expect_legal(p, "Kd4-d3", "S: Kd4-d3");
	G->free_position(p);
}

static void test_cw3_pawn(void **state)
{
	rules_position *pos = *state;

	expect_legal(pos, "Pa4-a5", "S: Pa4-a5");
	expect_legal(pos, "Pa4-b5", "S: Pa4-b5");
	expect_illegal(pos, "Pa4-a3", "Pawn moves one square forward or diagonally forward");
}

static void test_cw4_bishop(void **state)
{
	rules_position *pos = *state;

	expect_legal(pos, "Bd1-d2", "S: Bd1-d2");
	expect_legal(pos, "Bd1-e2", "S: Bd1-e2");
	expect_legal(pos, "Bd1-f3", "S: Bd1-f3");
	expect_illegal(pos, "Bd1-c1", "wall stands between d1 and c1");
	expect_illegal(pos, "Bd1-g4", "g4 holds a piece of South's army, which you control");
}

static void test_cw5_knight(void **state)
{
	rules_position *pos = *state;

	expect_legal(pos, "Nf2-f5", "S: Nf2-f5");
	expect_legal(pos, "Nf2-f3", "S: Nf2-f3");
	expect_legal(pos, "Nf2-e3", "S: Nf2-e3");
	expect_legal(pos, "Nf2-g3", "S: Nf2-g3");
	expect_illegal(pos, "Nf2-f4", "f4 holds a piece of South's army");
	expect_illegal(pos, "Nf2-e4", "e4 holds a piece of South's army");
	expect_legal(pos, "Ng2-h4", "S: Ng2-h4");
	expect_illegal(pos, "Nf2-f6", "Knight moves 1-3 squares straight forward");
}

static void test_cw6_prince(void **state)
{
	rules_position *pos = *state;

	expect_legal(pos, "Re1-e2", "S: Re1-e2");
	expect_legal(pos, "Re1-e3", "S: Re1-e3");
	expect_illegal(pos, "Re1-e4", "e4 holds a piece of South's army");
	expect_legal(pos, "Re1-d2", "S: Re1-d2");
}

static void test_cw7_attacks_forward(void **state)
{
	rules_position *pos = setup("sR e5, wP e7, wP f5, wP e3", 'S');
	(void)state;

	expect_illegal(pos, "Re5xf5", "Prince attacks only 1-3 squares straight forward");
	expect_illegal(pos, "Re5xe3", "Prince attacks only 1-3 squares straight forward");
	expect_legal(pos, "Re5-e6", "S: Re5-e6");
	assert_true(is_listed(pos, SOUTH, "S: Re5xe7"));
	play_roll(pos, "Re5xe7", "S: Re5xe7", 0, "no roll: success");
	assert_string_equal(at(pos, "e7"), "sR");
	assert_string_equal(at(pos, "e5"), "");
	assert_int_equal(G->turn(pos), 1u << WEST);
	G->free_position(pos);
}

/* Attacker on e6, defender on e7: the note and the squares for every roll. */
static void attack_rolls(const char *pieces, const char *mover, const char *defender, int fail_max,
			 int draw_max)
{
	for (int roll = 1; roll <= 12; roll++) {
		rules_position *pos = setup(pieces, 'S');
		char note[128];
		const char *band = roll <= fail_max ? "failure, attacker removed"
			: roll <= draw_max ? "draw, back to e6" : "success";
		char canon[32];
		snprintf(canon, sizeof canon, "S: %ce6xe7", mover[1]);
		snprintf(note, sizeof note, "roll %d on d12, needs %d+: %s", roll, draw_max + 1, band);
		play_roll(pos, "e6xe7", canon, roll, note);
		if (roll <= fail_max) {
			assert_string_equal(at(pos, "e6"), "");
			assert_string_equal(at(pos, "e7"), defender);
		} else if (roll <= draw_max) {
			assert_string_equal(at(pos, "e6"), mover);
			assert_string_equal(at(pos, "e7"), defender);
		} else {
			assert_string_equal(at(pos, "e6"), "");
			assert_string_equal(at(pos, "e7"), mover);
		}
		G->free_position(pos);
	}
}

static void test_cw8_die_d1(void **state)
{
	(void)state;
	attack_rolls("sP e6, wN e7", "sP", "wN", 0, 2);
}

static void test_cw9_die_equal(void **state)
{
	(void)state;
	attack_rolls("sP e6, wP e7", "sP", "wP", 4, 8);
}

static void test_cw10_die_pawn_king(void **state)
{
	(void)state;

	for (int roll = 1; roll <= 12; roll++) {
		rules_position *pos = setup("sP e6, wK e7, wP d12, wB a12", 'S');
		char note[160];
		if (roll <= 8) {
			snprintf(note, sizeof note, "roll %d on d12, needs 11+: failure, attacker removed", roll);
			play_roll(pos, "Pe6xe7", "S: Pe6xe7", roll, note);
			assert_string_equal(at(pos, "e6"), "");
			assert_string_equal(at(pos, "e7"), "wK");
			expect_state(pos, "W:" TAIL0);
		} else if (roll <= 10) {
			snprintf(note, sizeof note, "roll %d on d12, needs 11+: draw, back to e6", roll);
			play_roll(pos, "Pe6xe7", "S: Pe6xe7", roll, note);
			assert_string_equal(at(pos, "e6"), "sP");
			assert_string_equal(at(pos, "e7"), "wK");
		} else {
			snprintf(note, sizeof note,
				 "roll %d on d12, needs 11+: success; King lost: West's army passes to South", roll);
			play_roll(pos, "Pe6xe7", "S: Pe6xe7", roll, note);
			assert_string_equal(at(pos, "e7"), "sP");
			/* West's slot, played by South. */
			expect_state(pos, "W:SSNE:----:-,-,-,-:0:-");
			assert_int_equal(G->turn(pos), 1u << SOUTH);
		}
		G->free_position(pos);
	}
}

static void test_cw11_queen(void **state)
{
	rules_position *pos = setup("sQ e5, wP f5, wP e4, wP f6", 'S');
	(void)state;

	expect_legal(pos, "Qe5xe4", "S: Qe5xe4");
	expect_illegal(pos, "Qe5xf6", "Queen attacks only one square orthogonally");
	expect_legal(pos, "Qe5-d4", "S: Qe5-d4");
	expect_illegal(pos, "Qe5-c3", "wall stands between d4 and c3");
	play_roll(pos, "Qe5xf5", "S: Qe5xf5", 0, "no roll: success");
	assert_string_equal(at(pos, "f5"), "sQ");
	G->free_position(pos);
}

static void test_cw12_king_never_attacks(void **state)
{
	rules_position *pos = setup("sK e5, wP e6", 'S');
	(void)state;

	expect_illegal(pos, "Ke5xe6", "the King never attacks");
	expect_legal(pos, "Ke5-d6", "S: Ke5-d6");
	G->free_position(pos);
}

static void test_cw13_promotion(void **state)
{
	rules_position *pos = setup("sP b12, sP a12, sP c12", 'S');
	(void)state;

	expect_illegal(pos, "Pa12-a13", "wall stands between a12 and a13");
	expect_illegal(pos, "Pc12-b13", "wall stands between c12 and b13");
	expect_illegal(pos, "Pc12-c13", "wall stands between c12 and c13");
	play_roll(pos, "Pb12-b13", "S: Pb12-b13", 0, "promotes to M");
	assert_string_equal(at(pos, "b13"), "sM");
	G->free_position(pos);

	/* Every promoting piece, and no promotion in one's own fortress. */
	pos = setup("sR l14", 'S');
	play_roll(pos, "Rl14-m14", "S: Rl14-m14", 0, "promotes to G");
	assert_string_equal(at(pos, "m14"), "sG");
	G->free_position(pos);
	pos = setup("sB l13, sK e5, sP b1", 'S');
	expect_illegal(pos, "Bl13-m14", "wall stands between l13 and m14");
	G->free_position(pos);
	pos = setup("sB l14, sK e5", 'S');
	play_roll(pos, "Bl14-m14", "S: Bl14-m14", 0, "promotes to A");
	G->free_position(pos);
	pos = setup("sN b11, sK e5", 'S');
	play_roll(pos, "Nb11-b13", "S: Nb11-b13", 0, "promotes to O");
	G->free_position(pos);
	/* Inside one's own fortress nothing happens; West's Pawn entering South's fortress promotes. */
	pos = setup("sP a1", 'S');
	play_roll(pos, "Pa1-a2", "S: Pa1-a2", 0, "");
	assert_string_equal(at(pos, "a2"), "sP");
	G->free_position(pos);
	pos = setup("wB d2", 'W');
	expect_illegal(pos, "Bd2-c2", "Bishop moves one square forward, left or right");
	G->free_position(pos);
	pos = setup("eP d2", 'E');
	play_roll(pos, "Pd2-c2", "E: Pd2-c2", 0, "promotes to M");
	assert_string_equal(at(pos, "c2"), "eM");
	G->free_position(pos);
}

static void test_cw14_knight_through_gate(void **state)
{
	(void)state;

	for (int roll = 1; roll <= 12; roll++) {
		rules_position *pos = setup("sN b10, wB b11, wQ b13", 'S');
		char note[128];
		if (roll <= 5)
			snprintf(note, sizeof note, "roll %d on d12, needs 8+: failure, attacker removed", roll);
		else if (roll <= 7)
			snprintf(note, sizeof note, "roll %d on d12, needs 8+: draw, back to b10", roll);
		else
			snprintf(note, sizeof note, "roll %d on d12, needs 8+: success; promotes to O", roll);
		play_roll(pos, "Nb10xb13", "S: Nb10xb13", roll, note);
		assert_string_equal(at(pos, "b13"), roll <= 7 ? "wQ" : "sO");
		assert_string_equal(at(pos, "b10"), roll <= 5 || roll >= 8 ? "" : "sN");
		assert_string_equal(at(pos, "b11"), "wB");
		G->free_position(pos);
	}
	rules_position *pos = setup("sN a10", 'S');
	expect_illegal(pos, "Na10-a13", "wall stands between a12 and a13");
	G->free_position(pos);
}

static void test_cw15_pikeman(void **state)
{
	rules_position *pos = setup("sM e5, wP e6, wP e4, wP d6", 'S');
	(void)state;

	expect_legal(pos, "Me5xe6", "S: Me5xe6");
	expect_legal(pos, "Me5xe4", "S: Me5xe4");
	expect_illegal(pos, "Me5xd6", "Pikeman attacks only one square straight forward or backward");
	expect_legal(pos, "Me5-d4", "S: Me5-d4");
	play_roll(pos, "Me5xe4", "S: Me5xe4", 0, "no roll: success");
	G->free_position(pos);
}

static void test_cw16_archbishop(void **state)
{
	rules_position *pos = setup("sA e5, wP e6, wP e4", 'S');
	(void)state;

	expect_legal(pos, "Ae5xe4", "S: Ae5xe4");
	expect_legal(pos, "Ae5-h2", "S: Ae5-h2");
	expect_legal(pos, "Ae5-d5", "S: Ae5-d5");
	expect_legal(pos, "Ae5xe6", "S: Ae5xe6");
	expect_illegal(pos, "Ae5-a1", "Archbishop moves one square forward");
	G->free_position(pos);
}

static void test_cw17_baron(void **state)
{
	rules_position *pos = setup("sO e5, wP e6, wP e4, wP e2, sP d4", 'S');
	(void)state;

	expect_legal(pos, "Oe5xe6", "S: Oe5xe6");
	expect_legal(pos, "Oe5-e7", "S: Oe5-e7");
	expect_legal(pos, "Oe5xe4", "S: Oe5xe4");
	expect_illegal(pos, "Oe5-e3", "the path is blocked at e4");
	expect_illegal(pos, "Oe5-d3", "the path is blocked at d4");
	expect_legal(pos, "Oe5-f3", "S: Oe5-f3");
	expect_illegal(pos, "Oe5xe2", "the path is blocked at e4");
	G->free_position(pos);
}

static void test_cw18_grand_prince(void **state)
{
	rules_position *pos = setup("sG e5, wP e9, wP e3, wP a5", 'S');
	(void)state;

	expect_legal(pos, "Ge5xe9", "S: Ge5xe9");
	expect_legal(pos, "Ge5-o5", "S: Ge5-o5");
	expect_illegal(pos, "Ge5xa5", "Grand Prince attacks only straight forward");
	expect_legal(pos, "Ge5xe3", "S: Ge5xe3");
	play_roll(pos, "Ge5xe9", "S: Ge5xe9", 0, "no roll: success");
	G->free_position(pos);
	pos = setup("sG e5, wP e1", 'S');
	expect_illegal(pos, "Ge5xe1", "Grand Prince");
	expect_legal(pos, "Ge5-e2", "S: Ge5-e2");
	G->free_position(pos);
}

static void test_cw19_capital_blocks(void **state)
{
	rules_position *pos = setup("sR h7", 'S');
	(void)state;

	expect_illegal(pos, "Rh7-h8", "only a King may enter the Capital h8");
	G->free_position(pos);
	pos = setup("sQ g7", 'S');
	expect_illegal(pos, "Qg7-i9", "no piece may pass through the Capital h8");
	G->free_position(pos);
	pos = setup("sN h6", 'S');
	expect_illegal(pos, "Nh6-h9", "no piece may pass through the Capital h8");
	expect_legal(pos, "Nh6-h7", "S: Nh6-h7");
	G->free_position(pos);
	pos = setup("sK g7", 'S');
	play_roll(pos, "Kg7-h8", "S: Kg7-h8", 0, "");
	assert_string_equal(at(pos, "h8"), "sK");
	G->free_position(pos);
	/* The Knight's bent path may not pass h8 either. */
	pos = setup("sN g7", 'S');
	expect_illegal(pos, "Ng7-h9", "no piece may pass through the Capital h8");
	G->free_position(pos);
}

static void test_cw20_capital_attack(void **state)
{
	rules_position *pos;
	(void)state;

	for (int roll = 1; roll <= 12; roll++) {
		char note[160];
		pos = setup("wK h8, sR h5, wP d12", 'S');
		if (roll <= 3)
			snprintf(note, sizeof note, "roll %d on d12, needs 6+: failure, attacker removed", roll);
		else if (roll <= 5)
			snprintf(note, sizeof note, "roll %d on d12, needs 6+: draw, back to h5", roll);
		else
			snprintf(note, sizeof note,
				 "roll %d on d12, needs 6+: success; King lost: West's army passes to South", roll);
		play_roll(pos, "Rh5-h7!", "S: Rh5-h7!", roll, note);
		assert_string_equal(at(pos, "h5"), roll >= 4 && roll <= 5 ? "sR" : "");
		assert_string_equal(at(pos, "h7"), roll >= 6 ? "sR" : "");
		assert_string_equal(at(pos, "h8"), roll >= 6 ? "" : "wK");
		G->free_position(pos);
	}
	/* The plain move to h7 is legal too, and listed apart from the attack. */
	pos = setup("wK h8, sR h5, wP d12", 'S');
	expect_legal(pos, "Rh5-h7", "S: Rh5-h7");
	assert_true(is_listed(pos, SOUTH, "S: Rh5-h7"));
	assert_true(is_listed(pos, SOUTH, "S: Rh5-h7!"));
	expect_illegal(pos, "Rh5-h6!", "a Capital attack is made from a square orthogonally next to h8");
	G->free_position(pos);

	pos = setup("wK h8, sR h7", 'S');
	play_roll(pos, "Rh7!", "S: Rh7!", 4, "roll 4 on d12, needs 6+: draw, back to h7");
	assert_string_equal(at(pos, "h7"), "sR");
	G->free_position(pos);
	pos = setup("wK h8, sR h7", 'S');
	play_roll(pos, "Rh7!", "S: Rh7!", 2, "roll 2 on d12, needs 6+: failure, attacker removed");
	assert_string_equal(at(pos, "h7"), "");
	G->free_position(pos);

	pos = setup("wK h8, sR g8", 'S');
	expect_illegal(pos, "Rg8!", "Prince attacks only 1-3 squares straight forward");
	G->free_position(pos);

	for (int roll = 1; roll <= 4; roll++) {
		static const char *const band[] = { "", "failure, attacker removed", "draw, back to g8",
			"draw, back to g8", "success; King lost: West's army passes to South" };
		char note[160];
		pos = setup("wK h8, sQ g8, wP d12", 'S');
		snprintf(note, sizeof note, "roll %d on d12, needs 4+: %s", roll, band[roll]);
		play_roll(pos, "Qg8!", "S: Qg8!", roll, note);
		assert_string_equal(at(pos, "g8"), roll == 1 ? "" : "sQ");
		G->free_position(pos);
	}
	for (int roll = 6; roll <= 9; roll++) {
		char note[160];
		pos = setup("wK h8, sM h9, wG a5", 'S');
		snprintf(note, sizeof note, "roll %d on d12, needs 9+: %s", roll,
			 roll == 6 ? "failure, attacker removed" : roll <= 8 ? "draw, back to h9"
			 : "success; King lost: West bound to South");
		play_roll(pos, "Mh9!", "S: Mh9!", roll, note);
		G->free_position(pos);
	}
	pos = setup("wK h8, sP h9", 'S');
	expect_illegal(pos, "Ph9!", "Pawn attacks only one square straight forward");
	G->free_position(pos);
	pos = setup("sR h7", 'S');
	expect_illegal(pos, "Rh7!", "there is no King on the Capital h8 to attack");
	G->free_position(pos);
	/* One's own King on the Capital is not attacked. */
	pos = setup("sK h8, sQ g8", 'S');
	expect_illegal(pos, "Qg8!", "the King on the Capital is South's, which you may not attack");
	G->free_position(pos);
	/* A Knight attacks the Capital only from the adjacent square. */
	pos = setup("wK h8, sN h6, sN h7", 'S');
	expect_illegal(pos, "Nh6-h8", "only a King may enter the Capital h8");
	expect_legal(pos, "Nh7!", "S: Nh7!");
	G->free_position(pos);
}

static void test_cw21_bound_player(void **state)
{
	rules_position *pos = setup_k("sR e5, wK e7, wG c10, sP f10", "sne", "S:" TAIL0);
	(void)state;

	play_roll(pos, "Re5xe7", "S: Re5xe7", 9, "roll 9 on d12, needs 6+: success; King lost: West bound to South");
	expect_state(pos, "W:SWNE:-S--:-,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << WEST);
	expect_illegal(pos, "Gc10xf10", "you are bound to South and may not attack South's army");
	expect_legal(pos, "Gc10-e10", "W: Gc10-e10");
	expect_legal(pos, "Gc10=K", "W: Gc10=K");
	expect_legal(pos, "betray c10", "W: Gc10=K");
	G->free_position(pos);

	/* The bound player may attack other armies. */
	pos = setup_k("wG c10, nP f10", "sne", "W:SWNE:-S--:-,-,-,-:0:-");
	play_roll(pos, "Gc10xf10", "W: Gc10xf10", 0, "no roll: success");
	G->free_position(pos);

	/* The bond ends when the overlord loses its King: North takes it and controls South's army. */
	pos = setup_k("sR e7, wG c10, sP f10, nQ b3", "sne", "N:SWNE:-S--:-,-,-,-:0:-");
	play_roll(pos, "Qb3xb2", "N: Qb3xb2", 4,
	     "roll 4 on d12, needs 4+: success; King lost: South's army passes to North; West is free");
	expect_state(pos, "E:NWNE:----:-,-,-,-:0:-");
	play_roll(pos, "Kn2-n1", "E: Kn2-n1", 0, "");
	assert_int_equal(G->turn(pos), 1u << NORTH);    /* South's slot, moved by North */
	play_roll_by(pos, NORTH, "S: Re7-e8", "S: Re7-e8", 0, "");
	assert_int_equal(G->turn(pos), 1u << WEST);
	expect_legal(pos, "Gc10xf10", "W: Gc10xf10");
	expect_legal(pos, "Gc10=K", "W: Gc10=K");
	play_roll(pos, "Gc10xf10", "W: Gc10xf10", 0, "no roll: success");
	G->free_position(pos);
}

static void test_cw22_controlled_army(void **state)
{
	rules_position *pos = setup("sP e6, wK e7, wP d12, wB a12, sP e12, sR a10", 'S');
	(void)state;

	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 12,
	     "roll 12 on d12, needs 11+: success; King lost: West's army passes to South");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	assert_int_equal(slot_of(pos), WEST);
	expect_reject(pos, WEST, "Pd12-e13", RULES_E_TURN, "West's army is to act, moved by South");
	expect_illegal(pos, "W: Pd12xe12", "e12 holds a piece of South's army, which you control");
	expect_reject(pos, SOUTH, "S: Ra10-a11", RULES_E_TURN, "it is West's army's slot, not South's");
	/* West's Pawns still move east. */
	expect_illegal(pos, "Pd12-d13", "Pawn moves one square forward or diagonally forward (forward is east");
	play_roll_by(pos, SOUTH, "W: Pd12-e13", "W: Pd12-e13", 0, "");
	assert_int_equal(G->turn(pos), 1u << NORTH);
	play_roll(pos, "Kn14-n15", "N: Kn14-n15", 0, "");
	play_roll(pos, "Kn2-n1", "E: Kn2-n1", 0, "");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	assert_int_equal(slot_of(pos), SOUTH);
	expect_illegal(pos, "Ra10xa12", "a12 holds a piece of West's army, which you control");
	play_roll(pos, "Ra10-b11", "S: Ra10-b11", 0, "");
	assert_int_equal(slot_of(pos), WEST);
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	G->free_position(pos);
}

static void test_cw23_recipient(void **state)
{
	rules_position *pos;
	(void)state;

	/* West allied with North, which holds a King: North receives the army. */
	pos = setup_k("sP e6, wK e7, wP d12, wB a12", "swne", "S:SWNE:----:-,N,W,-:0:-");
	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 11,
	     "roll 11 on d12, needs 11+: success; King lost: West's army passes to North");
	expect_state(pos, "W:SNNE:----:-,N,W,-:0:-");
	assert_int_equal(G->turn(pos), 1u << NORTH);
	G->free_position(pos);

	/* Allied with South (the captor) as well: the captor. */
	pos = setup_k("sP e6, wK e7, wP d12, wB a12", "swne", "S:SWNE:----:W,SN,W,-:0:-");
	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 11,
	     "roll 11 on d12, needs 11+: success; King lost: West's army passes to South");
	expect_state(pos, "W:SSNE:----:W,SN,W,-:0:-");
	G->free_position(pos);

	/* Allied with North and East, captor South: the first after West in turn order. */
	pos = setup_k("sP e6, wK e7, wP d12, wB a12", "swne", "S:SWNE:----:-,NE,W,W:0:-");
	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 11,
	     "roll 11 on d12, needs 11+: success; King lost: West's army passes to North");
	G->free_position(pos);
	/* Allied with East only: East, although North comes first. */
	pos = setup_k("sP e6, wK e7, wP d12, wB a12", "swne", "S:SWNE:----:-,E,-,W:0:-");
	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 11,
	     "roll 11 on d12, needs 11+: success; King lost: West's army passes to East");
	G->free_position(pos);

	/* A King-less captor: West, bound to South, takes North's King and controls its army. */
	pos = setup_k("wG c10, nK g10, nP i12", "se", "W:SWNE:-S--:-,-,-,-:0:-");
	play_roll(pos, "Gc10xg10", "W: Gc10xg10", 5,
	     "roll 5 on d12, needs 3+: success; King lost: North's army passes to West");
	expect_state(pos, "N:SWWE:-S--:-,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << WEST);
	play_roll_by(pos, WEST, "N: Pi12-i11", "N: Pi12-i11", 0, "");
	G->free_position(pos);

	/* The victim's own controlled armies pass too, and its bound players are freed. */
	pos = setup_k("sP e6, wK e7, wP d12, eG l5, nP i12", "sw", "S:SWWE:---W:-,-,-,-:0:-");
	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 12,
	     "roll 12 on d12, needs 11+: success; King lost: West's army passes to South; "
	     "North's army passes to South; East is free; game over: draw for South (no King on the Capital)");
	expect_state(pos, "-:SSSE:----:-,-,-,-:0:draw=S");
	G->free_position(pos);
}

static void test_cw24_betrayal_in_controlled_army(void **state)
{
	rules_position *pos, *other;
	(void)state;

	pos = setup_k("wR l14, wP d12, wB a12", "sne", "W:SSNE:----:W,S,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	play_roll_by(pos, SOUTH, "W: Rl14-m14", "W: Rl14-m14", 0, "promotes to G");
	assert_string_equal(at(pos, "m14"), "wG");
	/* A betrayal sent before West's slot is not accepted. */
	expect_reject(pos, WEST, "Gm14=K", RULES_E_TURN, "not your turn");
	play_roll(pos, "Kn14-n15", "N: Kn14-n15", 0, "");
	play_roll(pos, "Kn2-n1", "E: Kn2-n1", 0, "");
	play_roll(pos, "Kb2-b3", "S: Kb2-b3", 0, "");
	/* West's slot: both the controller and the owner may submit. */
	assert_int_equal(G->turn(pos), 1u << SOUTH | 1u << WEST);
	expect_reject(pos, SOUTH, "Gm14=K", RULES_E_ILLEGAL, "only West, the owner of the army, may crown");
	expect_reject(pos, WEST, "Pd12-e12", RULES_E_TURN, "South moves your army on this slot; you may only betray");
	char *l = listed_moves(pos, WEST, " | ");
	assert_string_equal(l, "W: Gm14=K");
	free(l);
	other = G->clone(pos);

	/* The owner's betrayal first. */
	play_roll_by(pos, WEST, "Gm14=K", "W: Gm14=K", 0, "West's army returns to West; alliance ended: West and South");
	expect_state(pos, "N:SWNE:----:-,-,-,-:0:-");
	assert_string_equal(at(pos, "m14"), "wK");
	expect_reject(pos, SOUTH, "W: Pd12-e12", RULES_E_TURN, "not your turn");
	G->free_position(pos);

	/* The controller's action first: the betrayal must wait for a later West slot. */
	play_roll_by(other, SOUTH, "W: Pd12-e12", "W: Pd12-e12", 0, "");
	expect_reject(other, WEST, "Gm14=K", RULES_E_TURN, "not your turn");
	G->free_position(other);
}

static void test_cw25_end_of_game(void **state)
{
	rules_position *pos;
	rules_result res;
	(void)state;

	pos = setup_k("sK h8, nK d5, wK e7, sR e5", "", "S:SWNE:----:N,-,S,-:0:-");
	play_roll(pos, "Re5xe7", "S: Re5xe7", 6,
	     "roll 6 on d12, needs 6+: success; King lost: West's army passes to South; West is out; "
	     "game over: South and North win (King on the Capital)");
	assert_int_equal(G->turn(pos), 0u);
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[NORTH], 1);
	assert_int_equal(res.rank[WEST], 3);
	assert_int_equal(res.rank[EAST], 3);
	assert_string_equal(res.summary, "South and North win: King on the Capital (West and East lose)");
	expect_state(pos, "-:SWNE:----:N,-,S,-:0:win=SN");
	for (int s = 0; s < 4; s++)
		assert_int_equal(count_moves(pos, s), 0);
	expect_reject(pos, NORTH, "ally South", RULES_E_OVER, "the game is over");
	G->free_position(pos);

	/* Three allies and one loser: "loses", not "lose". */
	pos = setup_k("sK h8, nK d5, eK o1, wK e7, sR e5", "", "S:SWNE:----:NE,-,SE,SN:0:-");
	play_roll(pos, "Re5xe7", "S: Re5xe7", 6,
	     "roll 6 on d12, needs 6+: success; King lost: West's army passes to South; West is out; "
	     "game over: South, North and East win (King on the Capital)");
	G->result(pos, &res);
	assert_string_equal(res.summary, "South, North and East win: King on the Capital (West loses)");
	G->free_position(pos);

	/* South's King on g8: a draw for South and North. */
	pos = setup_k("sK g8, nK d5, wK e7, sR e5", "", "S:SWNE:----:N,-,S,-:0:-");
	play_roll(pos, "Re5xe7", "S: Re5xe7", 7,
	     "roll 7 on d12, needs 6+: success; King lost: West's army passes to South; West is out; "
	     "game over: draw for South and North (no King on the Capital)");
	G->result(pos, &res);
	assert_string_equal(res.summary, "Draw for South and North: no King on the Capital (West and East lose)");
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[WEST], 3);
	G->free_position(pos);

	/* Not allied: the game goes on (West is out, its slot is skipped). */
	pos = setup_k("sK h8, nK d5, wK e7, sR e5", "", "S:" TAIL0);
	play_roll(pos, "Re5xe7", "S: Re5xe7", 6,
	     "roll 6 on d12, needs 6+: success; King lost: West's army passes to South; West is out");
	expect_state(pos, "N:" TAIL0);
	G->free_position(pos);

	/* Only South's King remains, not on h8: a draw for South alone. */
	pos = setup_k("sK g8, wK e7, sR e5", "", "S:" TAIL0);
	play_roll(pos, "Re5xe7", "S: Re5xe7", 12,
	     "roll 12 on d12, needs 6+: success; King lost: West's army passes to South; West is out; "
	     "game over: draw for South (no King on the Capital)");
	G->result(pos, &res);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[WEST], 2);
	assert_int_equal(res.rank[NORTH], 2);
	assert_int_equal(res.rank[EAST], 2);
	G->free_position(pos);

	/* A declaration after the deciding action is ignored. */
	pos = setup_k("sK h8, nK d5, wK e7, sR e5", "", "S:SWNE:----:N,-,S,-:0:-");
	play_roll(pos, "Re5xe7 ; break North", "S: Re5xe7; break North", 6,
	     "roll 6 on d12, needs 6+: success; King lost: West's army passes to South; West is out; "
	     "game over: South and North win (King on the Capital)");
	expect_state(pos, "-:SWNE:----:N,-,S,-:0:win=SN");
	G->free_position(pos);
}

static void test_cw26_alliances(void **state)
{
	rules_position *pos = *state, *p;
	rules_move m;

	assert_int_equal(G->parse(pos, SOUTH, "ally North", &m, NULL), 0);
	assert_int_equal(m.anytime, 1);
	assert_int_equal(G->parse(pos, SOUTH, "Pa4-a5", &m, NULL), 0);
	assert_int_equal(m.anytime, 0);
	play_roll_by(pos, SOUTH, "ally North", "ally North", 0, "");
	expect_state(pos, "S:SWNE:----:N,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	expect_reject(pos, SOUTH, "ally North", RULES_E_ILLEGAL, "your declaration toward North stands already");
	/* North declares out of its turn: the alliance exists, and it is still South's slot. */
	play_roll_by(pos, NORTH, "ally south", "ally South", 0, "alliance formed: North and South");
	expect_state(pos, "S:SWNE:----:N,-,S,-:0:-");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	play_roll_by(pos, SOUTH, "break North", "break North", 0, "alliance ended: South and North");
	expect_state(pos, "S:SWNE:----:-,-,S,-:0:-");
	expect_reject(pos, SOUTH, "break East", RULES_E_ILLEGAL, "you have no declaration toward East to withdraw");
	expect_reject(pos, SOUTH, "ally South", RULES_E_ILLEGAL, "a declaration toward oneself is not allowed");
	/* Several on one line, checked one after the other. */
	play_roll_by(pos, EAST, "ally West; ally South ; break West", "ally West; ally South; break West", 0, "");
	expect_state(pos, "S:SWNE:----:-,-,S,S:0:-");

	/* A King-less player cannot end an existing alliance; its partner can. */
	p = setup_k("wG c10", "sne", "S:SWNE:----:-,N,W,-:0:-");
	expect_reject(p, WEST, "break North", RULES_E_ILLEGAL, "a player without a King cannot end an alliance");
	play_roll_by(p, NORTH, "break West", "break West", 0, "alliance ended: North and West");
	/* ... but may withdraw a one-sided declaration. */
	play_roll_by(p, WEST, "break North", "break North", 0, "");
	G->free_position(p);

	/* An alliance can end the game. */
	p = setup_k("sK h8, nK n14, wP d12, eP l4", "", "W:" TAIL0);
	play_roll_by(p, SOUTH, "ally North", "ally North", 0, "");
	play_roll_by(p, NORTH, "ally South", "ally South", 0,
		"alliance formed: North and South; game over: South and North win (King on the Capital)");
	assert_int_equal(G->turn(p), 0u);
	G->free_position(p);

	/* Declarations toward a player who is out are rejected. */
	p = setup_k("sK h8, nK d5, wK e7", "", "S:" TAIL0);
	expect_reject(p, SOUTH, "ally East", RULES_E_ILLEGAL, "East is out of the game");
	expect_reject(p, EAST, "ally South", RULES_E_ILLEGAL, "East is out of the game and cannot declare");
	G->free_position(p);
}

static void test_cw27_army_out(void **state)
{
	rules_position *pos = setup_k("eP l4, sR l2", "swn", "S:SWNN:----:-,-,-,-:0:-");
	rules_view v;
	(void)state;

	play_roll(pos, "Rl2xl4", "S: Rl2xl4", 0, "no roll: success; East is out");
	expect_state(pos, "W:" TAIL0);
	play_roll(pos, "Kb14-b15", "W: Kb14-b15", 0, "");
	play_roll(pos, "Kn14-n15", "N: Kn14-n15", 0, "");
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	G->view(pos, &v);
	int found = 0;
	for (int i = 0; i < v.nnotes; i++)
		found |= !strcmp(v.notes[i], "Out: East");
	assert_true(found);
	G->free_position(pos);

	/* A failed attack can put the attacker's own army out; its controlled armies go home. */
	pos = setup_k("sP e6, wQ e7, nP i12", "we", "S:SWSE:----:-,-,-,-:0:-");
	play_roll(pos, "Pe6xe7", "S: Pe6xe7", 1,
	     "roll 1 on d12, needs 9+: failure, attacker removed; South is out; North's army returns to North");
	expect_state(pos, "W:" TAIL0);
	G->free_position(pos);
}

static void test_cw28_automatic_pass(void **state)
{
	const char *east = "eK o1, eP m1, eP m2, eP m3, eP n1, eP n2, eP n3, eP o2, eQ o3";
	rules_position *pos = setup(east, 'N');
	(void)state;

	play_roll(pos, "Kn14-n15", "N: Kn14-n15", 0, "E: pass");
	expect_state(pos, "S:SWNE:----:-,-,-,-:1:-");
	play_roll(pos, "Kb2-b3", "S: Kb2-b3", 0, "");
	expect_state(pos, "W:" TAIL0);
	G->free_position(pos);

	/* Met in its own slot, the army may (only) pass. */
	pos = setup(east, 'E');
	char *l = listed_moves(pos, EAST, " | ");
	assert_string_equal(l, "E: pass");
	free(l);
	play_roll(pos, "pass", "E: pass", 0, "");
	expect_state(pos, "S:SWNE:----:-,-,-,-:1:-");
	expect_illegal(pos, "pass", "pass is allowed only when South's army has no legal move");
	G->free_position(pos);
}

/* Resigning in play: the army leaves, the game goes on without it (End of the game). */
static void test_resignation_in_play(void **state)
{
	rules_position *pos = *state;
	rules_outcome oc = {0};
	rules_error err;
	rules_result res;
	rules_view *v = malloc(sizeof *v);

	/* North resigns while South has the slot: South still acts, three are left in play. */
	assert_int_equal(G->resign(pos, 2, &oc, &err), 0);
	assert_non_null(strstr(oc.note, "North resigns; North is out"));
	G->result(pos, &res);
	assert_false(res.over);
	assert_int_equal(G->turn(pos), 1u << 0);
	assert_int_equal(G->in_play(pos), 0xbu);
	G->view(pos, v);
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++)
			assert_true(!v->cell[r][c].piece[0] || v->cell[r][c].owner != 2);
	/* Resigning twice is refused. The seat whose slot it is may resign too: the slot passes on. */
	assert_int_equal(G->resign(pos, 2, &oc, &err), RULES_E_ILLEGAL);
	memset(&oc, 0, sizeof oc);
	assert_int_equal(G->resign(pos, 0, &oc, &err), 0);
	G->result(pos, &res);
	assert_false(res.over);
	assert_int_equal(G->turn(pos), 1u << 1);
	assert_int_equal(G->in_play(pos), 0xau);
	char *text = G->serialize(pos);
	rules_position *back;
	assert_int_equal(G->deserialize(text, &back, &err), 0);
	free(text);
	G->free_position(back);
	free(v);
}

static void test_cw29_resignation(void **state)
{
	rules_position *pos = setup_k("wP d12, wB a12", "sne", "S:SNNE:----:-,-,-,-:0:-");
	rules_result res;
	(void)state;

	G->resign_result(pos, NORTH, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[EAST], 1);
	assert_int_equal(res.rank[WEST], 3);
	assert_int_equal(res.rank[NORTH], 3);
	assert_string_equal(res.summary, "North resigned. The game stops: draw for South and East (West and North lose)");
	G->free_position(pos);

	/* The end condition after the resignation decides when it holds. */
	pos = setup_k("sK h8, nK n14, eK n2", "", "S:SWNE:----:E,-,-,S:0:-");
	G->resign_result(pos, NORTH, &res);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[EAST], 1);
	assert_int_equal(res.rank[WEST], 3);
	assert_int_equal(res.rank[NORTH], 3);
	assert_string_equal(res.summary, "North resigned. South and East win: King on the Capital (West and North lose)");
	G->resign_result(pos, SOUTH, &res);
	assert_string_equal(res.summary, "South resigned. The game stops: draw for North and East (South and West lose)");
	G->free_position(pos);
}

static void test_cw30_draw_by_agreement(void **state)
{
	rules_position *pos;
	(void)state;
	/* Everybody still in the game shares first place; the server asks only them. */
	assert_int_equal(G->draw_rank, 1);
	pos = setup_k("", "swne", "S:" TAIL0);
	assert_int_equal(G->in_play(pos), 15u);
	G->free_position(pos);
	/* East's army is gone: East is out, and a draw is for the three others. */
	pos = setup_k("", "swn", "S:" TAIL0);
	assert_int_equal(G->in_play(pos), 7u);
	G->free_position(pos);
}

static void test_cw31_round_of_passes(void **state)
{
	static const char *const locked =
		"sK a1, sQ c1, sP a2, sP a3, sP b1, sP b2, sP b3, sP c2, sP c3, "
		"wK a15, wQ a13, wP a14, wP b13, wP b14, wP b15, wP c13, wP c14, wP c15, "
		"nK o15, nQ m15, nP m13, nP m14, nP n13, nP n14, nP n15, nP o13, nP o14, "
		"eP m1, eP m2, eP m3, eP n1, eP n2, eP n3, eP o2, eQ o3";
	char pieces[512];
	rules_position *pos, *other;
	rules_result res;
	(void)state;

	snprintf(pieces, sizeof pieces, "%s, eK o1", locked);
	pos = setup_k(pieces, "", "S:" TAIL0);
	for (int s = 0; s < 4; s++)
		assert_int_equal(count_moves(pos, s), s == SOUTH);
	play_roll(pos, "pass", "S: pass", 0,
	     "W: pass; N: pass; E: pass; round of passes: draw for South, West, North and East");
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	for (int s = 0; s < 4; s++)
		assert_int_equal(res.rank[s], 1);
	assert_string_equal(res.summary, "Draw for South, West, North and East: nobody can act");
	expect_state(pos, "-:SWNE:----:-,-,-,-:4:passes=SWNE");
	G->free_position(pos);

	/* East has a Grand Prince instead of its King and is bound to North: its slot waits. */
	snprintf(pieces, sizeof pieces, "%s, eG o1", locked);
	pos = setup_k(pieces, "", "S:SWNE:---N:-,-,-,-:0:-");
	play_roll(pos, "pass", "S: pass", 0, "W: pass; N: pass");
	assert_int_equal(G->turn(pos), 1u << EAST);
	char *l = listed_moves(pos, EAST, " | ");
	assert_string_equal(l, "E: Go1=K | E: pass");
	free(l);
	other = G->clone(pos);
	play_roll(pos, "pass", "E: pass", 0, "round of passes: draw for South, West and North");
	G->result(pos, &res);
	assert_int_equal(res.rank[SOUTH], 1);
	assert_int_equal(res.rank[WEST], 1);
	assert_int_equal(res.rank[NORTH], 1);
	assert_int_equal(res.rank[EAST], 4);
	G->free_position(pos);
	play_roll(other, "Go1=K", "E: Go1=K", 0,
	     "East is no longer bound to North; S: pass; W: pass; N: pass; E: pass; "
	     "round of passes: draw for South, West, North and East");
	G->result(other, &res);
	for (int s = 0; s < 4; s++)
		assert_int_equal(res.rank[s], 1);
	G->free_position(other);
}

/* House ruling 27: a resignation breaks a round of passes. South passes, West passes
 * automatically, North resigns and East passes automatically: South's King, walled in by North's
 * Pikemen until then, may move, so the game goes on. */
static void test_resignation_breaks_round_of_passes(void **state)
{
	rules_position *pos = setup_k(
		"sK a1, nM a2, nM b1, nM b2, "
		"wK a15, wQ a13, wP a14, wP b13, wP b14, wP b15, wP c13, wP c14, wP c15, "
		"nK o15, nQ m15, nP m13, nP m14, nP n13, nP n14, nP n15, nP o13, nP o14, "
		"eK o1, eP m1, eP m2, eP m3, eP n1, eP n2, eP n3, eP o2, eQ o3", "", "S:" TAIL0);
	rules_outcome oc = { 0 };
	rules_error err;
	rules_result res;
	(void)state;

	assert_int_equal(count_moves(pos, SOUTH), 1);
	play_roll(pos, "pass", "S: pass", 0, "W: pass");
	assert_int_equal(G->turn(pos), 1u << NORTH);
	assert_int_equal(G->resign(pos, NORTH, &oc, &err), 0);
	assert_string_equal(oc.note, "North resigns; North is out; E: pass");
	G->result(pos, &res);
	assert_false(res.over);
	assert_int_equal(G->turn(pos), 1u << SOUTH);
	expect_state(pos, "S:SWNE:----:-,-,-,-:1:-");
	expect_legal(pos, "Ka1-b2", "S: Ka1-b2");
	G->free_position(pos);
}

/* ---- the attack table ---- */

/* The table of Attacks and the die, as printed: for d = v - a, the highest failing and the highest
 * drawing roll. */
static const struct {
	int d, fail_max, draw_max;
} table[] = {
	{ 0, 4, 8 }, { 1, 0, 2 }, { 2, 1, 3 }, { 3, 2, 4 }, { 4, 3, 5 },
	{ 5, 4, 6 }, { 6, 5, 7 }, { 7, 6, 8 }, { 8, 7, 9 }, { 9, 8, 10 },
};

static int piece_value(char p)
{
	static const char order[] = "PNMBORAQGK";

	return (int)(strchr(order, p) - order) + 1;
}

/* Attacker mover (e.g. "sP") on e6 attacks defender on e7 for every roll. */
static void bands(char mover, char defender)
{
	int d = piece_value(defender) - piece_value(mover), fail_max = -1, draw_max = -1;

	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].d == d) {
			fail_max = table[i].fail_max;
			draw_max = table[i].draw_max;
		}
	for (int roll = 1; roll <= 12; roll++) {
		char pieces[64], note[200], canon[32];
		rules_position *pos;
		snprintf(pieces, sizeof pieces, "s%c e6, w%c e7, wP d12", mover, defender);
		pos = setup(pieces, 'S');
		snprintf(canon, sizeof canon, "S: %ce6xe7", mover);
		if (d < 0) {
			play_roll(pos, "e6-e7", canon, 0, "no roll: success");
		} else {
			const char *band = roll <= fail_max ? "failure, attacker removed"
				: roll <= draw_max ? "draw, back to e6"
				: defender == 'K' ? "success; King lost: West's army passes to South" : "success";
			snprintf(note, sizeof note, "roll %d on d12, needs %d+: %s", roll, draw_max + 1, band);
			play_roll(pos, "e6-e7", canon, roll, note);
		}
		char want6[4] = { 0 }, want7[4] = { 'w', defender, 0 };
		if (d < 0 || roll > draw_max) {
			want7[0] = 's';
			want7[1] = mover;
		} else if (roll > fail_max) {
			want6[0] = 's';
			want6[1] = mover;
		}
		assert_string_equal(at(pos, "e6"), want6);
		assert_string_equal(at(pos, "e7"), want7);
		G->free_position(pos);
		if (d < 0)
			break;
	}
}

static void test_attack_table(void **state)
{
	static const char *const pairs[] = {
		/* every d for a Pawn */
		"PP", "PN", "PM", "PB", "PO", "PR", "PA", "PQ", "PG", "PK",
		/* other attackers */
		"NK", "NQ", "RG", "RR", "QK", "GK", "BA", "MO", "OQ", "AG", "QQ",
		/* higher values: no roll */
		"QR", "GP", "RN", "BP", "NP",
	};
	(void)state;

	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
		bands(pairs[i][0], pairs[i][1]);
}

/* No die, a failing die or a value out of range: RULES_E_DICE and nothing changes. */
static void test_dice_failures(void **state)
{
	rules_position *pos = setup("sP e6, wN e7, sQ f6, wP f7", 'S');
	char *before = G->serialize(pos), *after;
	rules_move m;
	rules_error err;
	rules_outcome out;
	script empty = { { 0 }, 0, 0, 0, 12 }, wild = { { 13 }, 1, 0, 0, 12 }, zero = { { 0 }, 1, 0, 0, 12 };
	rules_dice d1 = { script_roll, &empty }, d2 = { script_roll, &wild }, d3 = { script_roll, &zero };
	rules_dice d4 = { NULL, NULL };
	(void)state;

	assert_int_equal(G->parse(pos, SOUTH, "Pe6xe7", &m, &err), 0);
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_DICE);
	assert_int_equal(G->apply(pos, &m, &d1, &out, &err), RULES_E_DICE);
	assert_int_equal(G->apply(pos, &m, &d2, &out, &err), RULES_E_DICE);
	assert_int_equal(G->apply(pos, &m, &d3, &out, &err), RULES_E_DICE);
	assert_int_equal(G->apply(pos, &m, &d4, &out, &err), RULES_E_DICE);
	after = G->serialize(pos);
	assert_string_equal(before, after);
	free(after);
	/* An attack without a roll needs no dice. */
	assert_int_equal(G->parse(pos, SOUTH, "Qf6xf7", &m, &err), 0);
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), 0);
	assert_string_equal(out.note, "no roll: success");
	free(before);
	G->free_position(pos);
}

/* ---- the server's dice recipe, computed here independently ---- */

/* HMAC-SHA256 from SHA-256 (RFC 2104), not libsodium's HMAC. */
static void hmac_manual(const unsigned char *key, size_t keylen, const unsigned char *msg, size_t len,
			unsigned char out[32])
{
	unsigned char k[64], pad[64], inner[32];
	crypto_hash_sha256_state st;

	memset(k, 0, sizeof k);
	if (keylen > 64)
		crypto_hash_sha256(k, key, keylen);
	else
		memcpy(k, key, keylen);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, pad, 64);
	crypto_hash_sha256_update(&st, msg, len);
	crypto_hash_sha256_final(&st, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, pad, 64);
	crypto_hash_sha256_update(&st, inner, 32);
	crypto_hash_sha256_final(&st, out);
}

/* Roll k of ply for game: "rookery-dice/v1|<game>|<ply>|<k>" (then "|<attempt>" if all eight
 * words are rejected), big-endian words below 2^32 - 2^32 mod sides, word mod sides + 1. */
static int expected_roll(const unsigned char seed[32], const char *game, int ply, int k, int sides)
{
	uint64_t limit = (UINT64_C(1) << 32) - ((UINT64_C(1) << 32) % (uint64_t)sides);

	for (int attempt = 0;; attempt++) {
		char msg[160];
		unsigned char mac[32];
		int len = attempt ? snprintf(msg, sizeof msg, "rookery-dice/v1|%s|%d|%d|%d", game, ply, k, attempt)
			: snprintf(msg, sizeof msg, "rookery-dice/v1|%s|%d|%d", game, ply, k);
		hmac_manual(seed, 32, (const unsigned char *)msg, (size_t)len, mac);
		for (int i = 0; i < 32; i += 4) {
			uint64_t w = (uint64_t)mac[i] << 24 | (uint64_t)mac[i + 1] << 16 | (uint64_t)mac[i + 2] << 8 | mac[i + 3];
			if (w < limit)
				return (int)(w % (uint64_t)sides) + 1;
		}
	}
}

/* The dice callback: the same recipe through libsodium's crypto_auth_hmacsha256. */
typedef struct recipe {
	const unsigned char *seed;
	const char *game;
	int ply, k;
} recipe;

static int recipe_roll(void *ctx, int sides, int *value)
{
	recipe *r = ctx;
	uint32_t limit = (uint32_t)(UINT64_C(4294967296) - UINT64_C(4294967296) % (uint64_t)sides);

	for (int attempt = 0;; attempt++) {
		char msg[160];
		unsigned char mac[crypto_auth_hmacsha256_BYTES];
		int len = snprintf(msg, sizeof msg, "rookery-dice/v1|%s|%d|%d", r->game, r->ply, r->k);
		if (attempt)
			len += snprintf(msg + len, sizeof msg - (size_t)len, "|%d", attempt);
		crypto_auth_hmacsha256(mac, (const unsigned char *)msg, (unsigned long long)len, r->seed);
		for (size_t i = 0; i + 4 <= sizeof mac; i += 4) {
			uint32_t w = (uint32_t)mac[i] << 24 | (uint32_t)mac[i + 1] << 16 | (uint32_t)mac[i + 2] << 8 | mac[i + 3];
			if (w < limit) {
				*value = (int)(w % (uint32_t)sides) + 1;
				r->k++;
				return 0;
			}
		}
	}
}

static void test_recipe_hmac(void **state)
{
	/* RFC 4231 test case 2. */
	static const unsigned char want[32] = {
		0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
		0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
	};
	unsigned char mac[32], mac2[32], key[32];
	const char *msg = "what do ya want for nothing?";
	(void)state;

	assert_true(sodium_init() >= 0);
	hmac_manual((const unsigned char *)"Jefe", 4, (const unsigned char *)msg, strlen(msg), mac);
	assert_memory_equal(mac, want, 32);
	for (int i = 0; i < 32; i++)
		key[i] = (unsigned char)(7 * i + 3);
	hmac_manual(key, 32, (const unsigned char *)msg, strlen(msg), mac);
	crypto_auth_hmacsha256(mac2, (const unsigned char *)msg, strlen(msg), key);
	assert_memory_equal(mac, mac2, 32);
	/* The two code paths give the same rolls. */
	for (int ply = 0; ply < 50; ply++) {
		recipe r = { key, "cwtest", ply, 0 };
		int v;
		assert_int_equal(recipe_roll(&r, 12, &v), 0);
		assert_int_equal(v, expected_roll(key, "cwtest", ply, 0, 12));
		assert_true(v >= 1 && v <= 12);
	}
}

/* Attacks resolved with the real recipe: for each band, a ply whose roll falls in it. */
static void test_recipe_bands(void **state)
{
	static const struct {
		const char *pieces, *text, *canon, *back;
		int fail_max, draw_max;
		const char *success;
	} cases[] = {
		{ "sP e6, wP e7", "Pe6xe7", "S: Pe6xe7", "e6", 4, 8, "success" },                    /* CW9 */
		{ "wK h8, sR h5, wP d12", "Rh5-h7!", "S: Rh5-h7!", "h5", 3, 5,
		  "success; King lost: West's army passes to South" },                               /* CW20 */
		{ "sN b10, wB b11, wQ b13", "Nb10xb13", "S: Nb10xb13", "b10", 5, 7, "success; promotes to O" }, /* CW14 */
		{ "sP e6, wK e7, wP d12, wB a12", "Pe6xe7", "S: Pe6xe7", "e6", 8, 10,
		  "success; King lost: West's army passes to South" },                               /* CW10 */
	};
	unsigned char seed[32];
	(void)state;

	assert_true(sodium_init() >= 0);
	for (int i = 0; i < 32; i++)
		seed[i] = (unsigned char)(0xa5 ^ (i * 29));
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int band = 0; band < 3; band++) {
			int ply = -1, want = 0;
			for (int p = 0; p < 2000 && ply < 0; p++) {
				int v = expected_roll(seed, "cw-recipe", p, 0, 12);
				int b = v <= cases[c].fail_max ? 0 : v <= cases[c].draw_max ? 1 : 2;
				if (b == band) {
					ply = p;
					want = v;
				}
			}
			assert_true(ply >= 0);
			rules_position *pos = setup(cases[c].pieces, 'S');
			rules_move m;
			rules_error err;
			rules_outcome out;
			recipe r = { seed, "cw-recipe", ply, 0 };
			rules_dice dice = { recipe_roll, &r };
			char buf[RULES_TEXT_MAX], note[200];
			assert_int_equal(G->parse(pos, SOUTH, cases[c].text, &m, &err), 0);
			G->format(pos, &m, buf, sizeof buf);
			assert_string_equal(buf, cases[c].canon);
			assert_int_equal(G->apply(pos, &m, &dice, &out, &err), 0);
			assert_int_equal(r.k, 1);
			if (band == 0)
				snprintf(note, sizeof note, "roll %d on d12, needs %d+: failure, attacker removed", want,
					 cases[c].draw_max + 1);
			else if (band == 1)
				snprintf(note, sizeof note, "roll %d on d12, needs %d+: draw, back to %s", want,
					 cases[c].draw_max + 1, cases[c].back);
			else
				snprintf(note, sizeof note, "roll %d on d12, needs %d+: %s", want, cases[c].draw_max + 1,
					 cases[c].success);
			assert_string_equal(out.note, note);
			G->free_position(pos);
		}
}

/* ---- notation ---- */

static void test_notation_examples(void **state)
{
	rules_position *pos;
	(void)state;

	pos = start_pos();
	play_roll(pos, "pa4-a5", "S: Pa4-a5", 0, "");                                       /* 1 */
	G->free_position(pos);
	pos = start_pos();
	play_roll(pos, "Qc2 d2", "S: Qc2-d2", 0, "");                                       /* 2 */
	G->free_position(pos);
	pos = setup("sR e5, wP e7", 'S');
	play_roll(pos, "Re5xe7", "S: Re5xe7", 0, "no roll: success");                        /* 3 */
	G->free_position(pos);
	pos = setup("sP e6, wN e7", 'S');
	play_roll(pos, "e6xe7", "S: Pe6xe7", 7, "roll 7 on d12, needs 3+: success");         /* 4 */
	G->free_position(pos);
	pos = setup("wK h8, sR h5, wP d12", 'S');
	play_roll(pos, "Rh5-h7!", "S: Rh5-h7!", 4, "roll 4 on d12, needs 6+: draw, back to h5"); /* 5 */
	G->free_position(pos);
	pos = setup("wK h8, sQ g8, wP d12", 'S');
	play_roll(pos, "Qg8!", "S: Qg8!", 9,
	     "roll 9 on d12, needs 4+: success; King lost: West's army passes to South"); /* 6 */
	G->free_position(pos);
	pos = setup_k("wG d12", "sne", "W:" TAIL0);
	expect_legal(pos, "Gd12=K", "W: Gd12=K");                                      /* 7 */
	expect_legal(pos, "betray d12", "W: Gd12=K");
	expect_legal(pos, "gd12 = k", "W: Gd12=K");
	expect_legal(pos, "d12=K", "W: Gd12=K");
	play_roll(pos, "betray d12", "W: Gd12=K", 0, "");
	assert_string_equal(at(pos, "d12"), "wK");
	G->free_position(pos);
	pos = setup("sP b12", 'S');
	play_roll(pos, "Pb12-b13 ; ally North", "S: Pb12-b13; ally North", 0, "promotes to M"); /* 8 */
	expect_state(pos, "W:SWNE:----:N,-,-,-:0:-");
	G->free_position(pos);
	pos = setup_k("sP a4", "swne", "S:SWNE:----:W,-,-,-:0:-");
	play_roll_by(pos, SOUTH, "break West", "break West", 0, "");                          /* 9 */
	G->free_position(pos);
	pos = setup_k("wN b10, wP d12", "sne", "W:SSNE:----:-,-,-,-:0:-");
	play_roll_by(pos, SOUTH, "W: Nb10-c10", "W: Nb10-c10", 0, "");                        /* 10 */
	G->free_position(pos);
	pos = setup("eK o1, eP m1, eP m2, eP m3, eP n1, eP n2, eP n3, eP o2, eQ o3", 'E');
	play_roll(pos, "pass", "E: pass", 0, "");                                           /* 11 */
	G->free_position(pos);
	pos = setup("sO e5, wP e2", 'S');
	play_roll(pos, "Oe5xe2", "S: Oe5xe2", 0, "no roll: success");                        /* 12 */
	G->free_position(pos);
	pos = start_pos();
	play_roll(pos, "B d1-f3", "S: Bd1-f3", 0, "");                                      /* 13 */
	G->free_position(pos);
	pos = setup_k("wN b10, wP d12", "sne", "W:SSNE:----:-,-,-,-:0:-");
	play_roll_by(pos, SOUTH, "W: Nb10-c10 ; ally North", "W: Nb10-c10; ally North", 0, ""); /* 14 */
	expect_state(pos, "N:SSNE:----:N,-,-,-:0:-");     /* South's declaration, not West's */
	G->free_position(pos);
}

static void test_notation_lexical(void **state)
{
	rules_position *pos = *state;

	expect_legal(pos, "b4-b5", "S: Pb4-b5");
	expect_legal(pos, "bd1-f3", "S: Bd1-f3");
	expect_legal(pos, "Bd1-f3", "S: Bd1-f3");
	expect_legal(pos, "B  d1 - f3", "S: Bd1-f3");
	expect_legal(pos, "\tPA4xA5 ", "S: Pa4-a5");
	expect_legal(pos, "a4a5", "S: Pa4-a5");
	expect_legal(pos, "Pa4-a5+", "S: Pa4-a5");
	expect_legal(pos, "Pa4-a5 ++ # a comment; ally North", "S: Pa4-a5");
	expect_legal(pos, "S: Pa4-a5", "S: Pa4-a5");
	expect_legal(pos, "south : Pa4-a5", "S: Pa4-a5");
	expect_legal(pos, "Pa4-a5;ally n;ally EAST", "S: Pa4-a5; ally North; ally East");
	expect_parse_error(pos, "Bd 1-f3", "a square has no spaces inside");
	expect_parse_error(pos, "b 4-b5", "a square has no spaces inside");
	expect_parse_error(pos, "Pa16-a5", "there is no rank 16");
	expect_parse_error(pos, "Pa0-a5", "there is no rank 0");
	expect_parse_error(pos, "Pp4-a5", "'p' is not a file");
	expect_parse_error(pos, "Xa4-a5", "'X' is not a piece letter");
	expect_parse_error(pos, "Rxe5", "must be followed by the square");
	expect_parse_error(pos, "Pa4!-a5", "unexpected '-'");
	expect_parse_error(pos, "!Pa4-a5", "unexpected '!'");
	expect_parse_error(pos, "Pa4-a5!!", "'!' (a Capital attack) may only follow the last square");
	expect_parse_error(pos, "Pa4-a5 ;", "expected a declaration");
	expect_parse_error(pos, "Pa4-a5 ; hello North", "'hello' is not a declaration");
	expect_parse_error(pos, "ally Nowhere", "'Nowhere' is not a seat");
	expect_parse_error(pos, "ally", "expected a seat");
	expect_parse_error(pos, "S: ally North", "a declaration stands alone or after an action");
	expect_parse_error(pos, "X: Pa4-a5", "'X' is not an army");
	expect_parse_error(pos, "", "the line is empty");
	expect_parse_error(pos, "# nothing", "the line is empty");
	expect_parse_error(pos, "Pa4-a5 pass", "unexpected 'p'");
	expect_parse_error(pos, "Gd12=Q", "K after '='");
	expect_parse_error(pos, "Pa4-a5 \xc3\xa9", "only ASCII");
	expect_reject(pos, SOUTH, "W: Pa4-a5", RULES_E_TURN, "it is South's army's slot, not West's");
	expect_illegal(pos, "Qa4-a5", "wrong letter: the piece on a4 is a Pawn (P), not a Queen (Q)");
	expect_illegal(pos, "Pa5-a6", "there is no piece on a5");
	expect_illegal(pos, "Pd9-e9", "belongs to West's army");
	expect_illegal(pos, "Pa4-a4", "a move must go to another square");
	expect_illegal(pos, "Pa4!", "there is no King on the Capital h8");
	expect_illegal(pos, "Kb2=K", "South holds a King");
	expect_illegal(pos, "pass", "pass is allowed only when");
	/* A bad declaration after a good action spoils the line. */
	expect_illegal(pos, "Pa4-a5 ; break North", "you have no declaration toward North");
	char longline[1000];
	memset(longline, ' ', sizeof longline);
	longline[sizeof longline - 1] = 0;
	expect_parse_error(pos, longline, "too long");
	/* Nine declarations are too many for one line. */
	expect_parse_error(pos, "ally W; break W; ally W; break W; ally W; break W; ally W; break W; ally W",
			   "at most 8 declarations");
	expect_legal_by(pos, NORTH, "ally W; break W; ally W; break W; ally W; break W; ally W; break W",
			"ally West; break West; ally West; break West; ally West; break West; ally West; break West");
}

/* ---- position text ---- */

static void test_serialize_round_trip_and_corruption(void **state)
{
	static const struct {
		const char *from, *to;
	} edits[] = {
		{ "cw1:", "cw2:" },
		{ ".sKsQ.", ".sKsK." },             /* two Kings */
		{ ".sKsQ.", ".sKsX." },             /* bad letter */
		{ ".sKsQ.", ".sKxQ." },             /* bad army */
		{ ".sKsQ.", ".sKsQ" },              /* short rank */
		{ ":S:SWNE", ":X:SWNE" },
		{ ":S:SWNE", ":-:SWNE" },           /* over without a result */
		{ ":S:SWNE", ":S:SSNE" },           /* West holds a King but is controlled */
		{ ":S:SWNE", ":S:SWN" },
		{ ":----:", ":-W--:" },             /* bound to oneself */
		{ ":----:", ":-S--:" },             /* bound with a King */
		{ "-,-,-,-", "S,-,-,-" },            /* declaration toward oneself */
		{ "-,-,-,-", "NW,-,-,-" },           /* out of order */
		{ "-,-,-,-", "-,-,-" },
		{ ":0:-", ":5:-" },
		{ ":0:-", ":4:-" },                 /* passes of every army while running */
		{ ":0:-", ":0:win=SWNE" },
		{ ":0:-", ":0:-x" },
		{ ":0:-", ":0:" },
		{ "wBwN.wP", "wB.wNwP" },            /* the control case: a Knight one square on */
	};
	rules_position *pos = NULL;
	rules_error err;
	(void)state;

	expect_text_round_trip(START);
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		char text[sizeof START + 16];
		const char *at_ = strstr(START, edits[i].from);
		size_t k;
		assert_non_null(at_);
		k = (size_t)(at_ - START);
		snprintf(text, sizeof text, "%.*s%s%s", (int)k, START, edits[i].to, at_ + strlen(edits[i].from));
		if (i == sizeof edits / sizeof edits[0] - 1) {
			expect_text_round_trip(text);    /* the control case */
			continue;
		}
		assert_non_null(strstr(expect_corrupt(text), "Civil War position"));
	}

	/* Consistency rules about control, bonds, armies out and the end. */
	static const struct {
		const char *pieces, *kings, *tail;
		int ok;
	} cases[] = {
		{ "sP b12", "swne", "S:" TAIL0, 1 },
		{ "sP b13", "swne", "S:" TAIL0, 0 },                 /* unpromoted in West's fortress */
		{ "sP b3", "swne", "S:" TAIL0, 1 },                  /* in its own fortress */
		{ "sR h8", "swne", "S:" TAIL0, 0 },                  /* only a King on the Capital */
		{ "", "swn", "S:SWNE:----:E,-,-,-:0:-", 0 },         /* declaration toward a player out */
		{ "", "swn", "E:" TAIL0, 0 },                        /* the slot of an army out */
		{ "", "swn", "S:SWNS:----:-,-,-,-:0:-", 0 },         /* an army out under control */
		{ "eP l4", "swn", "S:SWNS:----:-,-,-,-:0:-", 1 },
		{ "eP l4", "swn", "S:SWNW:----:-,-,-,-:0:-", 1 },
		{ "eP l4, wP d12", "sn", "S:SWNW:----:-,-,-,-:0:-", 1 },   /* a King-less controller */
		{ "eP l4, wP d12", "sn", "S:SWSW:----:-,-,-,-:0:-", 0 },   /* controller's own army controlled */
		{ "eG l4", "swn", "S:SWNE:---W:-,-,-,-:0:-", 1 },
		{ "eG l4", "swn", "S:SWNW:---W:-,-,-,-:0:-", 0 },          /* bound and controlled */
		{ "", "sw", "S:" TAIL0, 1 },
		{ "", "s", "S:" TAIL0, 0 },                                 /* one King left: over */
		{ "", "sw", "S:SWNE:----:W,S,-,-:0:-", 0 },                /* all King holders allied */
		{ "", "sw", "-:SWNE:----:W,S,-,-:0:draw=SW", 1 },
		{ "", "sw", "-:SWNE:----:W,S,-,-:0:win=SW", 0 },           /* no King on the Capital */
		{ "", "sw", "-:SWNE:----:W,S,-,-:0:draw=S", 0 },
		{ "", "sw", "-:SWNE:----:-,-,-,-:2:passes=SW", 1 },
		{ "", "sw", "-:SWNE:----:-,-,-,-:1:passes=SW", 0 },
		{ "", "sw", "S:SWNE:----:-,-,-,-:1:-", 1 },
		{ "", "sw", "S:SWNE:----:-,-,-,-:2:-", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		grid_t g;
		static const char *const home[4] = { "b2", "b14", "n14", "n2" };
		memset(g, 0, sizeof g);
		place(g, cases[i].pieces);
		for (int a = 0; a < 4; a++)
			if (strchr(cases[i].kings, "swne"[a])) {
				int r, f;
				square_of(home[a], &r, &f);
				g[r][f][0] = "swne"[a];
				g[r][f][1] = 'K';
			}
		pos = NULL;
		int rc = G->deserialize(grid_text(g, cases[i].tail), &pos, &err);
		if ((rc == 0) != cases[i].ok)
			fprintf(stderr, "case %zu: rc %d (%s)\n", i, rc, rc ? err.message : "");
		assert_int_equal(rc == 0, cases[i].ok);
		if (!rc) {
			char *s = G->serialize(pos);
			assert_string_equal(s, grid_text(g, cases[i].tail));
			free(s);
			G->free_position(pos);
		}
	}
}

/* ---- view ---- */

static void test_view(void **state)
{
	rules_position *pos = *state, *p;
	rules_view v;

	G->view(pos, &v);
	expect_grid(&v, 15, 15, "15", "1", "a", "o");
	assert_int_equal(v.has_facing, 1);
	assert_string_equal(v.cell[7][7].kind, "capital");
	assert_string_equal(v.cell[7][7].name, "h8");
	assert_string_equal(v.cell[0][14].name, "o15");
	assert_string_equal(v.cell[7][0].kind, "lane");
	assert_string_equal(v.cell[0][7].kind, "lane");
	assert_string_equal(v.cell[8][0].kind, "");
	int nfort = 0, nlane = 0;
	for (int r = 0; r < 15; r++)
		for (int c = 0; c < 15; c++) {
			nfort += !strcmp(v.cell[r][c].kind, "fortress");
			nlane += !strcmp(v.cell[r][c].kind, "lane");
			if (!v.cell[r][c].piece[0]) {
				assert_int_equal(v.cell[r][c].owner, -1);
				assert_int_equal(v.cell[r][c].facing, RULES_FACING_NONE);
			} else {
				assert_int_equal(v.cell[r][c].facing, v.cell[r][c].owner == SOUTH ? RULES_FACING_UP
						 : v.cell[r][c].owner == WEST ? RULES_FACING_RIGHT
						 : v.cell[r][c].owner == NORTH ? RULES_FACING_DOWN : RULES_FACING_LEFT);
				assert_int_equal(v.cell[r][c].controllers, 0);
			}
		}
	assert_int_equal(nfort, 36);
	assert_int_equal(nlane, 28);
	/* Walls: the square, its wall bits as drawn (none on a gate). */
	static const struct {
		const char *sq;
		unsigned walls;
	} walls[] = {
		{ "c1", RULES_WALL_RIGHT }, { "c2", 0 }, { "c3", RULES_WALL_RIGHT | RULES_WALL_TOP },
		{ "a3", RULES_WALL_TOP }, { "b3", RULES_WALL_TOP }, { "d1", RULES_WALL_LEFT }, { "d2", 0 },
		{ "d3", RULES_WALL_LEFT }, { "a4", RULES_WALL_BOTTOM }, { "c4", RULES_WALL_BOTTOM }, { "d4", 0 },
		{ "b2", 0 }, { "b12", 0 }, { "a12", RULES_WALL_TOP }, { "c12", RULES_WALL_TOP },
		{ "b13", 0 }, { "c13", RULES_WALL_RIGHT | RULES_WALL_BOTTOM }, { "a13", RULES_WALL_BOTTOM },
		{ "c15", RULES_WALL_RIGHT }, { "d14", RULES_WALL_LEFT }, { "l14", 0 }, { "m14", 0 },
		{ "l13", RULES_WALL_RIGHT }, { "m13", RULES_WALL_LEFT | RULES_WALL_BOTTOM },
		{ "o12", RULES_WALL_TOP }, { "n4", 0 }, { "n3", 0 }, { "m4", RULES_WALL_BOTTOM },
		{ "m3", RULES_WALL_LEFT | RULES_WALL_TOP }, { "o3", RULES_WALL_TOP }, { "l1", RULES_WALL_RIGHT },
		{ "h8", 0 }, { "o1", 0 }, { "a1", 0 },
	};
	int total = 0;
	for (size_t i = 0; i < sizeof walls / sizeof walls[0]; i++) {
		int r, f;
		square_of(walls[i].sq, &r, &f);
		if (v.cell[14 - r][f].walls != walls[i].walls)
			fprintf(stderr, "%s: walls %u\n", walls[i].sq, v.cell[14 - r][f].walls);
		assert_int_equal(v.cell[14 - r][f].walls, walls[i].walls);
	}
	for (int r = 0; r < 15; r++)
		for (int c = 0; c < 15; c++)
			for (int k = 0; k < 4; k++)
				total += (v.cell[r][c].walls >> k) & 1;
	assert_int_equal(total, 4 * 5 * 2);     /* five segments per fortress, drawn on both cells */
	assert_string_equal(v.cell[13][1].piece, "K");
	assert_int_equal(v.cell[13][1].owner, SOUTH);
	assert_int_equal(v.nnotes, 2);
	assert_string_equal(v.notes[0], "To act: South");
	assert_string_equal(v.notes[1], "Alliances: none");

	/* Notes with control, bonds, declarations, armies out and passes. */
	p = setup_k("wP d12, nG k10", "se", "N:SSNE:--S-:N,-,S,SW:1:-");
	G->view(p, &v);
	assert_int_equal(v.nnotes, 5);
	assert_string_equal(v.notes[0], "To act: North (North may crown a Grand Prince instead)");
	assert_string_equal(v.notes[1], "Alliances: South and North");
	assert_string_equal(v.notes[2], "Declared, not returned: East to South; East to West");
	assert_string_equal(v.notes[3], "Without a King: West (army moved by South); North (bound to South)");
	assert_string_equal(v.notes[4], "Passes in a row: 1");
	G->free_position(p);
	p = setup_k("wP d12, eP l4", "sn", "W:SNNN:----:-,-,-,-:0:-");
	G->view(p, &v);
	assert_string_equal(v.notes[0], "To act: West's army, moved by North");
	assert_string_equal(v.notes[2], "Without a King: West (army moved by North); East (army moved by North)");
	G->free_position(p);
	p = setup_k("sK h8, nK n14", "", "S:" TAIL0);
	G->view(p, &v);
	assert_string_equal(v.notes[2], "Out: West and East");
	G->free_position(p);

	/* Each seat's home comes to the bottom. */
	assert_int_equal(G->view_quarter_turns(SOUTH), 0);
	assert_int_equal(G->view_quarter_turns(WEST), 3);
	assert_int_equal(G->view_quarter_turns(NORTH), 2);
	assert_int_equal(G->view_quarter_turns(EAST), 1);
	/* Turned as the server turns it (n-1-r, c for one quarter turn), every army faces up from its
	 * own seat, and its King is where South's King is drawn. */
	p = start_pos();
	G->view(p, &v);
	for (int s = 0; s < 4; s++) {
		int t = G->view_quarter_turns(s), kr = -1, kc = -1;
		for (int r = 0; r < 15; r++)
			for (int c = 0; c < 15; c++) {
				int sr = r, sc = c;
				for (int i = 0; i < t; i++) {   /* undo one clockwise turn at a time */
					int nr = 14 - sc, nc = sr;
					sr = nr;
					sc = nc;
				}
				const rules_cell *cell = &v.cell[sr][sc];
				if (cell->piece[0] && cell->owner == s) {
					assert_int_equal((cell->facing + t) % 4, RULES_FACING_UP);
					if (!strcmp(cell->piece, "K")) {
						kr = r;
						kc = c;
					}
				}
			}
		assert_int_equal(kr, 13);
		assert_int_equal(kc, 1);
	}
	G->free_position(p);
}

static void test_apply_rejects_bad_moves(void **state)
{
	rules_position *pos = *state, *over;
	rules_move m;
	rules_error err;
	rules_outcome out;

	assert_int_equal(G->parse(pos, SOUTH, "Pa4-a5", &m, &err), 0);
	m.seat = WEST;
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_TURN);
	m.seat = 9;
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_TURN);
	m.seat = SOUTH;
	m.partial = 1;
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_INCOMPLETE);
	expect_tampered(pos, SOUTH, "Pa4-a5", 0, 9, RULES_E_ILLEGAL);
	expect_tampered(pos, SOUTH, "Pa4-a5", 0, 2, RULES_E_ILLEGAL);  /* claims to be an attack */
	expect_tampered(pos, SOUTH, "Pa4-a5", 5, 3, RULES_E_ILLEGAL);  /* to a square that is not one of its moves */
	expect_position(pos, START);
	over = setup_k("sK h8, nK d5, wK e7, sR e5", "", "S:SWNE:----:N,-,S,-:0:-");
	assert_int_equal(G->parse(over, SOUTH, "Re5xe7", &m, &err), 0);
	play_roll(over, "Re5xe7", "S: Re5xe7", 6, "roll 6 on d12, needs 6+: success; King lost: West's army passes "
	     "to South; West is out; game over: South and North win (King on the Capital)");
	assert_int_equal(G->apply(over, &m, NULL, &out, &err), RULES_E_OVER);
	assert_int_equal(G->parse(over, SOUTH, "Ke5-e6", &m, &err), RULES_E_OVER);
	assert_int_equal(count_moves(over, SOUTH), 0);
	G->free_position(over);
}

/* ---- listed moves: round trips and agreement with the parser ---- */

/* Every from-to (and from-to!, from!) of the acting army that parse accepts is listed, and
 * nothing else is. */
static void cross_check(const rules_position *pos)
{
	int seat = actor(pos);
	char *all;
	rules_view v;
	size_t accepted = 0, nlisted = 0;

	if (seat < 0)
		return;
	all = listed_moves(pos, seat, " | ");
	G->view(pos, &v);
	for (char *p = all; *p;) {
		/* Each listed item on its own (strncmp into the joined list upsets GCC's overread check
		 * under the sanitizers). */
		size_t n = strcspn(p, "|");
		char item[RULES_TEXT_MAX];
		snprintf(item, sizeof item, "%.*s", (int)n, p);
		nlisted += !strstr(item, ": pass") && !strchr(item, '=');
		p += n;
		if (*p)
			p += 2;
	}
	for (int fr = 0; fr < 15; fr++)
		for (int ff = 0; ff < 15; ff++) {
			const rules_cell *c = &v.cell[14 - fr][ff];
			if (!c->piece[0] || c->owner != slot_of(pos))
				continue;
			for (int k = 0; k <= 225 * 2; k++) {
				char text[24], buf[RULES_TEXT_MAX];
				rules_move m;
				int tr = (k % 225) / 15, tf = (k % 225) % 15, rc;
				if (k == 450)
					snprintf(text, sizeof text, "%c%d!", 'a' + ff, fr + 1);
				else
					snprintf(text, sizeof text, "%c%d-%c%d%s", 'a' + ff, fr + 1, 'a' + tf, tr + 1,
						 k >= 225 ? "!" : "");
				rc = G->parse(pos, seat, text, &m, NULL);
				assert_true(rc == RULES_OK || rc == RULES_E_ILLEGAL);
				if (rc)
					continue;
				accepted++;
				G->format(pos, &m, buf, sizeof buf);
				if (!is_listed(pos, seat, buf))
					fail_msg("'%s' (%s) parses but is not listed", text, buf);
			}
		}
	if (accepted != nlisted)
		fprintf(stderr, "accepted %zu, listed %zu: %s\n", accepted, nlisted, all);
	assert_int_equal(accepted, nlisted);
	free(all);
}

static void test_round_trip_listed_moves(void **state)
{
	rules_position *p[7];
	(void)state;

	p[0] = start_pos();
	p[1] = setup("wK h8, sR h5, sQ g8, sM h9, sN h6, sP g7, wP d12", 'S');
	p[2] = setup("sG e5, sO f5, sA g5, sM h5, sB i5, sN j5, wP e9, wP f7, wP g6, wP i6, wP j8", 'S');
	p[3] = setup_k("wR l14, wP d12, wB a12, wG c9", "sne", "W:SSNE:----:W,S,-,-:0:-");
	p[4] = setup_k("eK h8, wG i7, wO h9, wQ g8", "sne", "W:SWNE:----:-,-,-,-:0:-");
	p[5] = setup("nN n4, nR o6, nP n12, eQ n3, eB o4", 'N');
	p[6] = setup("eK o1, eP m1, eP m2, eP m3, eP n1, eP n2, eP n3, eP o2, eQ o3", 'E');
	for (int i = 0; i < 7; i++) {
		check_round_trips(p[i], -1);
		cross_check(p[i]);
		G->free_position(p[i]);
	}
}

/* ---- random games ---- */

/* What the random games did. */
static int n_roll, n_attack, n_capital, n_king, n_bound, n_control, n_out, n_promo, n_betray,
	n_pass, n_alliance, n_win, n_draw, n_passes_end, n_free, n_return, n_neutral;

static int count_str(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* Invariants after each ply; *npieces is the count before. */
/* The seat of an army in the game under test, -1 for an army of no player. */
static int seat_of_army(int army)
{
	static const char *const names[] = { "South", "West", "North", "East" };

	return rules_seat_index(G, names[army]);
}

/* What holds after every ply of any Civil War game (the variants' too): pieces and Kings per
 * army (known by its facing), promotions, the Capital, the result's ranks by seat, who may act. */
static void check_invariants(const rules_position *pos, const char *note, int *npieces)
{
	/* The army facing each way as drawn for South: up, right, down, left. */
	static const int army_facing[4] = { SOUTH, WEST, NORTH, EAST };
	rules_view v;
	rules_result res;
	int kings[4] = { 0 }, count = 0, armies[4] = { 0 };
	unsigned mask = G->turn(pos);

	G->view(pos, &v);
	G->result(pos, &res);
	for (int r = 0; r < 15; r++)
		for (int c = 0; c < 15; c++) {
			const rules_cell *cell = &v.cell[r][c];
			int rank = 15 - r, file = c + 1, fort;
			fort = file <= 3 && rank <= 3 ? SOUTH : file <= 3 && rank >= 13 ? WEST
				: file >= 13 && rank >= 13 ? NORTH : file >= 13 && rank <= 3 ? EAST : -1;
			int army;
			if (!cell->piece[0])
				continue;
			count++;
			assert_true(cell->facing >= 0 && cell->facing < 4);
			army = army_facing[cell->facing];
			if (seat_of_army(army) >= 0)
				assert_int_equal(cell->owner, seat_of_army(army));
			else    /* an army of no player: neutral, or drawn as its controller's */
				assert_int_equal(cell->neutral, cell->owner < 0);
			armies[army]++;
			assert_non_null(strchr("KQRGBANOPM", cell->piece[0]));
			if (cell->piece[0] == 'K')
				kings[army]++;
			if (fort >= 0 && fort != army)
				assert_null(strchr("RBNP", cell->piece[0]));
			if (rank == 8 && file == 8)
				assert_string_equal(cell->piece, "K");
		}
	assert_true(count <= *npieces);
	*npieces = count;
	for (int t = 0; t < 4; t++)
		assert_true(kings[t] <= 1);
	if (res.over) {
		unsigned h = 0;
		/* In a game of two a draw is both players'. */
		int shared = G == &rules_civil_war_2 && !strstr(res.summary, "wins");
		assert_int_equal(mask, 0u);
		for (int t = 0; t < G->nseats; t++) {
			assert_int_equal(count_moves(pos, t), 0);
			for (int a = 0; a < 4; a++)
				h |= (unsigned)(kings[a] > 0 && seat_of_army(a) == t) << t;
		}
		for (int t = 0; t < G->nseats; t++)
			assert_int_equal(res.rank[t], shared || h >> t & 1u ? 1 : __builtin_popcount(h) + 1);
		assert_true(strstr(note, "game over") || strstr(note, "round of passes"));
	} else {
		int a = actor(pos), slot = slot_of(pos);
		assert_true(a >= 0 && slot >= 0);
		assert_true(armies[slot] > 0);
		assert_true(mask & (1u << a));
		if (mask != 1u << a) {
			/* The owner of a controlled army with a Grand Prince may betray. */
			assert_int_equal(mask, 1u << a | 1u << seat_of_army(slot));
			assert_int_equal(kings[slot], 0);
		}
		/* The actor's own moves are listed by the caller on the next ply. */
		for (int t = 0; t < G->nseats; t++)
			if (!(mask & (1u << t)))
				assert_int_equal(count_moves(pos, t), 0);
	}
	n_pass += count_str(note, ": pass");
	n_king += count_str(note, "King lost");
	n_bound += count_str(note, "bound to");
	n_control += count_str(note, "army passes to");
	n_out += count_str(note, " is out");
	n_promo += count_str(note, "promotes to");
	n_roll += count_str(note, "roll ");
	n_alliance += count_str(note, "alliance formed");
	n_free += count_str(note, "is free") + count_str(note, "no longer bound");
	n_return += count_str(note, "returns to");
	n_win += strstr(note, "game over") && strstr(note, " win") ? 1 : 0;
	n_draw += count_str(note, "game over: draw");
	n_passes_end += count_str(note, "round of passes");
	n_neutral += count_str(note, "East's army passes to") * (G == &rules_civil_war_3);
}

/* Whether a King move "b2-c3" ends nearer to the Capital h8 than it started. */
static int king_closer(const char *mv)
{
	int f1 = mv[0] - 'a', r1 = atoi(mv + 1) - 1;
	const char *to = strchr(mv, '-');
	int f2, r2, d1, d2;

	if (!to)
		return 0;
	f2 = to[1] - 'a';
	r2 = atoi(to + 2) - 1;
	d1 = abs(f1 - 7) > abs(r1 - 7) ? abs(f1 - 7) : abs(r1 - 7);
	d2 = abs(f2 - 7) > abs(r2 - 7) ? abs(f2 - 7) : abs(r2 - 7);
	return d2 < d1;
}

/* Called by random_game on every position of the game, the last one included, when set. */
static void (*each_position)(const rules_position *pos);

/* How a random game chooses: attack_pct, decl_in as random_game_cw says. */
typedef struct cw_play {
	int attack_pct, decl_in, npieces;
} cw_play;

/*
 * The actor plays a random listed action, an attack with probability attack_pct when there is
 * one; an owner who may betray does so sometimes; now and then a random player sends an alliance
 * declaration.
 */
static void choose_cw(const rules_position *pos, rules_move *move, void *ctx)
{
	const cw_play *how = ctx;
	rules_move m;
	rules_error err;
	char buf[RULES_TEXT_MAX];
	unsigned mask = G->turn(pos);
	int seat = actor(pos);

	if (rng() % (unsigned)how->decl_in == 0) {
		/* A declaration by anybody, at any time: one ply in decl_in. */
		static const char *const words[] = { "ally", "break" };
		char text[32];
		int s = (int)(rng() % (unsigned)G->nseats), t = (int)(rng() % (unsigned)G->nseats);
		snprintf(text, sizeof text, "%s %s", words[rng() % 8 == 0], G->seat_names[t]);
		if (G->parse(pos, s, text, &m, &err) == 0) {
			assert_int_equal(m.anytime, 1);
			*move = m;
			return;
		}
	}
	if (mask != 1u << seat && rng() % 3 == 0) {
		seat = seat_of_army(slot_of(pos));  /* the owner betrays */
	}
	rules_move_list l = { 0 }, att = { 0 }, home = { 0 };
	assert_true(G->legal_moves(pos, seat, &l) > 0);
	for (size_t i = 0; i < l.n; i++) {
		G->format(pos, &l.v[i], buf, sizeof buf);
		if (strchr(buf, 'x') || strchr(buf, '!'))
			rules_move_list_push(&att, &l.v[i]);
		if (buf[3] == 'K' && king_closer(buf + 4))
			rules_move_list_push(&home, &l.v[i]);
	}
	if (att.n && (int)(rng() % 100) < how->attack_pct)
		*move = att.v[rng() % att.n];
	else if (home.n && rng() % 4 == 0)
		*move = home.v[rng() % home.n];      /* Kings head for the Capital now and then */
	else
		*move = l.v[rng() % l.n];
	assert_int_equal(move->seat, seat);
	rules_move_list_free(&l);
	rules_move_list_free(&att);
	rules_move_list_free(&home);
}

/* Called by random_game_cw on every position of the game, the last one included, when set. */
static void (*each_position)(const rules_position *pos);

static void random_ply(const rules_position *pos, int seat, const char *text, const rules_outcome *out,
		       void *ctx)
{
	cw_play *how = ctx;

	(void)seat;
	n_attack += strchr(text, 'x') != NULL;
	n_capital += strchr(text, '!') != NULL;
	n_betray += strchr(text, '=') != NULL;
	check_invariants(pos, out->note, &how->npieces);
	if (each_position)
		each_position(pos);
}

/*
 * One random game from pos, chosen as choose_cw does with attack_pct and decl_in; the round trips
 * checked every 25 plies and the parser every 100 when deep. Returns the plies played.
 */
static int random_game_cw(rules_position *pos, int cap, int attack_pct, int decl_in, int deep)
{
	cw_play cw = { attack_pct, decl_in, 60 };
	random_play how = { .choose = choose_cw, .check = random_ply, .every = deep ? 25 : 0, .deep = cross_check,
			    .deep_every = 100, .sides = 12, .ctx = &cw };

	if (each_position)
		each_position(pos);
	return random_game(pos, cap, &how, NULL);
}

static void reset_counts(void)
{
	n_roll = n_attack = n_capital = n_king = n_bound = n_control = n_out = n_promo = n_betray = 0;
	n_pass = n_alliance = n_win = n_draw = n_passes_end = n_free = n_return = n_neutral = 0;
}

static void print_counts(const char *what, int games, int over, int plies)
{
	if (getenv("CW_STATS"))
		fprintf(stderr, "%s: %d games, %d over (win %d, draw %d, passes %d), plies %d, attacks %d, "
			"capital %d, rolls %d, King lost %d (bound %d, control %d), out %d, promotions %d, "
			"betrayals %d, passes %d, alliances %d, freed %d, returned %d\n", what, games, over,
			n_win, n_draw, n_passes_end, plies, n_attack, n_capital, n_roll, n_king, n_bound,
			n_control, n_out, n_promo, n_betray, n_pass, n_alliance, n_free, n_return);
}

/* The counts reset, games random games from the start (random_game_cw with cap, attack_pct and
 * decl_in; the first deep of them checked deeply); returns how many ended, their plies in *plies. */
static int random_games_from_start(int games, int cap, int attack_pct, int decl_in, int deep, int *plies)
{
	int over = 0;

	reset_counts();
	*plies = 0;
	for (int g = 0; g < games; g++) {
		rules_position *pos = start_pos();
		rules_result res;
		*plies += random_game_cw(pos, cap, attack_pct, decl_in, g < deep);
		G->result(pos, &res);
		over += res.over;
		G->free_position(pos);
	}
	return over;
}

static void test_random_games(void **state)
{
	int games = 150, over, total;
	(void)state;

	rng_seed(0x9e3779b97f4a7c15ULL);
	over = random_games_from_start(games, 400, 50, 4, 3, &total);
	print_counts("random", games, over, total);
	assert_int_equal(over, n_win + n_draw + n_passes_end);
	assert_true(over > games / 2);
	assert_true(n_alliance > 100);
	assert_true(n_king > 0);
	assert_true(n_roll > 0);
	assert_true(n_promo > 0);
	assert_true(n_alliance > 0);
}

static void test_random_games_many_attacks(void **state)
{
	int over = 0, total = 0, games = 30;
	(void)state;

	reset_counts();
	rng_seed(4242);
	for (int g = 0; g < games; g++) {
		/* Every other game starts with Grand Princes for Princes: Kings lost then bind. */
		char text[sizeof START];
		rules_position *pos = NULL;
		rules_result res;
		strcpy(text, START);
		for (char *p = text + 4; g % 2 && *p != ':'; p++)
			if (*p == 'R')
				*p = 'G';
		assert_int_equal(G->deserialize(text, &pos, NULL), 0);
		total += random_game_cw(pos, 1500, 95, 200, g < 2);
		G->result(pos, &res);
		over += res.over;
		G->free_position(pos);
	}
	print_counts("attacks", games, over, total);
	assert_true(over > games / 2);
	assert_true(n_attack > 1000);
	assert_true(n_capital > 0);
	assert_true(n_king > 20);
	assert_true(n_bound > 0);
	assert_true(n_control > 0);
	assert_true(n_out > 0);
	assert_true(n_betray > 0);
}

/* ---- gestures: pointing at moves on the drawn board ---- */

/* The gesture of move as "a4 a5#choice". */
static void gesture_text(const rules_position *pos, const rules_move *move, char *buf, size_t size)
{
	rules_gesture g;
	size_t len = 0;

	memset(&g, 0x55, sizeof g);   /* the hook must set every field it leaves empty */
	G->gesture(pos, move, &g);
	assert_true(g.n >= 0 && g.n <= RULES_TOUCH_MAX);
	assert_non_null(memchr(g.choice, 0, sizeof g.choice));
	buf[0] = 0;
	for (int i = 0; i < g.n; i++) {
		assert_non_null(memchr(g.at[i], 0, sizeof g.at[i]));
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", g.at[i]);
	}
	snprintf(buf + len, size - len, "#%s", g.choice);
}

/*
 * The gesture a listed move must have, read from its canonical text alone: "S: Pa4-a5" and
 * "S: Re5xe7" touch both squares, "S: Rh5-h7!" too with "attack the Capital", "S: Rh7!" the
 * piece and the King on h8, "W: Gc10=K" the Grand Prince, and "E: pass" nothing.
 */
static void gesture_of_text(const char *text, char *buf, size_t size)
{
	const char *p = text + 3;
	char a[4], b[4];
	int n;

	if (!strcmp(p, "pass")) {
		snprintf(buf, size, "#pass");
		return;
	}
	p++;    /* the piece letter */
	n = (int)strspn(p + 1, "0123456789") + 1;
	snprintf(a, sizeof a, "%.*s", n, p);
	p += n;
	if (*p == '=') {
		snprintf(buf, size, "%s#crown as King (betrayal)", a);
	} else if (*p == '!') {
		snprintf(buf, size, "%s h8#attack the Capital", a);
	} else {
		assert_non_null(strchr("-x", *p));
		p++;
		n = (int)strspn(p + 1, "0123456789") + 1;
		snprintf(b, sizeof b, "%.*s", n, p);
		snprintf(buf, size, "%s %s#%s", a, b, p[n] == '!' ? "attack the Capital" : "");
	}
}

/* What the gesture checks below met. */
static int g_positions, g_capital, g_capital2, g_betray, g_pass, g_decl;

/*
 * Every seat's listed moves pass gesture_check and have the gesture their text calls for; every
 * declaration a seat may send now touches nothing and says what it declares.
 */
static void check_gestures(const rules_position *pos)
{
	g_positions++;
	for (int seat = 0; seat < 4; seat++) {
		rules_move_list l = { 0 };
		gesture_check(G, pos, seat, 2);
		G->legal_moves(pos, seat, &l);
		for (size_t i = 0; i < l.n; i++) {
			char text[RULES_TEXT_MAX], got[256], want[256];
			G->format(pos, &l.v[i], text, sizeof text);
			gesture_text(pos, &l.v[i], got, sizeof got);
			gesture_of_text(text, want, sizeof want);
			if (strcmp(got, want))
				fail_msg("'%s': gesture %s, want %s", text, got, want);
			g_capital += strchr(text, '!') != NULL;
			g_capital2 += strchr(text, '!') && !strchr(text, '-');
			g_betray += strchr(text, '=') != NULL;
			g_pass += strstr(text, "pass") != NULL;
		}
		rules_move_list_free(&l);
		for (int t = 0; t < 4; t++)
			for (int op = 0; op < 2; op++) {
				static const char *const words[] = { "ally", "break" };
				char text[32], want[64], got[256];
				rules_move m;
				snprintf(text, sizeof text, "%s %s", words[op], G->seat_names[t]);
				if (G->parse(pos, seat, text, &m, NULL))
					continue;
				assert_int_equal(m.anytime, 1);
				gesture_text(pos, &m, got, sizeof got);
				snprintf(want, sizeof want, "#%s with %s", words[op], G->seat_names[t]);
				assert_string_equal(got, want);
				g_decl++;
			}
	}
}

static void test_gesture_start(void **state)
{
	rules_position *pos = *state;

	/* South's 52 moves and, for every seat, a declaration toward each other player. */
	assert_int_equal(gesture_check(G, pos, SOUTH, 2), 52 + 3);
	for (int s = WEST; s <= EAST; s++)
		assert_int_equal(gesture_check(G, pos, s, 2), 3);
	check_gestures(pos);
	expect_gesture_by(pos, SOUTH, "Pa4-a5", "a4 a5", "");
	expect_gesture_by(pos, SOUTH, "Qc2-d2", "c2 d2", "");
	expect_gesture_by(pos, SOUTH, "Nf2-f5", "f2 f5", "");

	/* Every army in its slot of the start position. */
	for (int s = SOUTH; s <= EAST; s++) {
		char text[sizeof START];
		rules_position *p = NULL;
		strcpy(text, START);
		strstr(text, ":S:SWNE")[1] = "SWNE"[s];
		assert_int_equal(G->deserialize(text, &p, NULL), 0);
		assert_int_equal(gesture_check(G, p, s, 2), 52 + 3);
		check_gestures(p);
		G->free_position(p);
	}
}

/* An attack touches the two squares like a move (the die decides it); a promotion says nothing. */
static void test_gesture_attack_and_promotion(void **state)
{
	rules_position *pos = setup("sR e5, wP e7, wP f5, wP e3", 'S');
	(void)state;

	expect_gesture_by(pos, SOUTH, "Re5xe7", "e5 e7", "");
	expect_gesture_by(pos, SOUTH, "Re5-e6", "e5 e6", "");
	check_gestures(pos);
	G->free_position(pos);

	pos = setup("sP b12, sP a12, sP c12", 'S');
	expect_gesture_by(pos, SOUTH, "Pb12-b13", "b12 b13", "");
	check_gestures(pos);
	G->free_position(pos);
}

/* Both forms of the Capital attack; the first shares its squares with a plain move. */
static void test_gesture_capital_attack(void **state)
{
	rules_position *pos = setup("wK h8, sR h5, wP d12", 'S');
	(void)state;

	expect_gesture_by(pos, SOUTH, "Rh5-h7!", "h5 h7", "attack the Capital");
	expect_gesture_by(pos, SOUTH, "Rh5-h7", "h5 h7", "");
	check_gestures(pos);
	G->free_position(pos);

	pos = setup("wK h8, sR h7", 'S');
	expect_gesture_by(pos, SOUTH, "Rh7!", "h7 h8", "attack the Capital");
	check_gestures(pos);
	G->free_position(pos);

	pos = setup("wK h8, sQ g8, sM h9, sN h7", 'S');
	expect_gesture_by(pos, SOUTH, "Qg8!", "g8 h8", "attack the Capital");
	expect_gesture_by(pos, SOUTH, "Mh9!", "h9 h8", "attack the Capital");
	expect_gesture_by(pos, SOUTH, "Nh7!", "h7 h8", "attack the Capital");
	check_gestures(pos);
	G->free_position(pos);

	/* The moves of the round-trip positions, Capital attacks of both forms among them. */
	pos = setup("wK h8, sR h5, sQ g8, sM h9, sN h6, sP g7, wP d12", 'S');
	check_gestures(pos);
	G->free_position(pos);
	pos = setup_k("eK h8, wG i7, wO h9, wQ g8", "sne", "W:SWNE:----:-,-,-,-:0:-");
	expect_gesture_by(pos, WEST, "Gi7-i8!", "i7 i8", "attack the Capital");
	expect_gesture_by(pos, WEST, "Gi7-i8", "i7 i8", "");
	check_gestures(pos);
	G->free_position(pos);
}

/* A betrayal touches the Grand Prince, for a bound player and for the owner of a controlled army. */
static void test_gesture_betrayal(void **state)
{
	rules_position *pos = setup_k("wG c10, nP f10", "sne", "W:SWNE:-S--:-,-,-,-:0:-");
	(void)state;

	expect_gesture_by(pos, WEST, "Gc10=K", "c10", "crown as King (betrayal)");
	expect_gesture_by(pos, WEST, "betray c10", "c10", "crown as King (betrayal)");
	expect_gesture_by(pos, WEST, "Gc10xf10", "c10 f10", "");
	check_gestures(pos);
	G->free_position(pos);

	/* West's army, moved by South, with a Grand Prince on m14: only West may crown it. */
	pos = setup_k("wG m14, wP d12, wB a12", "sne", "W:SSNE:----:W,S,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << SOUTH | 1u << WEST);
	assert_int_equal(gesture_check(G, pos, WEST, 2), 1 + 2);
	expect_gesture_by(pos, WEST, "Gm14=K", "m14", "crown as King (betrayal)");
	expect_gesture_by(pos, SOUTH, "W: Pd12-e12", "d12 e12", "");
	check_gestures(pos);
	G->free_position(pos);
}

/* The texts of seat's anytime moves, space-separated with ";" between moves. */
static void anytime_texts(const rules_position *pos, int seat, char *out, size_t size)
{
	rules_move_list list = {0};
	char text[RULES_TEXT_MAX];

	out[0] = 0;
	G->anytime_moves(pos, seat, &list);
	for (size_t i = 0; i < list.n; i++) {
		assert_int_equal(list.v[i].anytime, 1);
		G->format(pos, &list.v[i], text, sizeof text);
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? "; " : "", text);
	}
	rules_move_list_free(&list);
}

/* Every seat may declare toward every other player at any time: ally, or break what it declared. */
static void test_anytime_declarations(void **state)
{
	rules_position *pos = *state;
	char got[256];

	anytime_texts(pos, SOUTH, got, sizeof got);
	assert_string_equal(got, "ally West; ally North; ally East");
	anytime_texts(pos, NORTH, got, sizeof got);
	assert_string_equal(got, "ally South; ally West; ally East");
	play_roll_by(pos, SOUTH, "ally North", "ally North", 0, "");
	anytime_texts(pos, SOUTH, got, sizeof got);
	assert_string_equal(got, "ally West; break North; ally East");
}

/* Declarations and a pass touch nothing and say what they are. */
static void test_gesture_declarations_and_pass(void **state)
{
	static const char *const locked =
		"sK a1, sQ c1, sP a2, sP a3, sP b1, sP b2, sP b3, sP c2, sP c3, eK o1";
	rules_position *pos = *state, *p;
	rules_move m;
	rules_gesture g;

	assert_int_equal(G->parse(pos, NORTH, "ally South", &m, NULL), 0);
	assert_int_equal(m.anytime, 1);
	G->gesture(pos, &m, &g);
	assert_int_equal(g.n, 0);
	assert_string_equal(g.choice, "ally with South");
	expect_gesture_by(pos, SOUTH, "ally North", "", "ally with North");
	expect_gesture_by(pos, EAST, "ally W", "", "ally with West");
	play_roll_by(pos, SOUTH, "ally North", "ally North", 0, "");
	expect_gesture_by(pos, SOUTH, "break North", "", "break with North");
	/* Several on one line; after an action they add to its words. */
	expect_gesture_by(pos, EAST, "ally West; ally South ; break West", "",
		       "ally with West, ally with South, break with West");
	expect_gesture_by(pos, SOUTH, "Pa4-a5 ; ally East", "a4 a5", "ally with East");
	check_gestures(pos);

	/* South cannot move: its only action is a pass. */
	p = setup_k(locked, "", "S:" TAIL0);
	assert_int_equal(gesture_check(G, p, SOUTH, 2), 1 + 1);
	expect_gesture_by(p, SOUTH, "pass", "", "pass");
	check_gestures(p);
	G->free_position(p);
}

/* Every position of random games, every seat: the start, and armies with Grand Princes. */
static void test_gesture_random_games(void **state)
{
	(void)state;

	g_positions = g_capital = g_capital2 = g_betray = g_pass = g_decl = 0;
	each_position = check_gestures;
	rng_seed(0x5eed5eedULL);
	for (int g = 0; g < 20; g++) {
		rules_position *pos = start_pos();
		random_game_cw(pos, 400, 50, 4, 0);
		G->free_position(pos);
	}
	for (int g = 0; g < 10; g++) {
		/* Grand Princes for Princes and many attacks: Kings lost, bonds and betrayals. */
		char text[sizeof START];
		rules_position *pos = NULL;
		strcpy(text, START);
		for (char *p = text + 4; *p != ':'; p++)
			if (*p == 'R')
				*p = 'G';
		assert_int_equal(G->deserialize(text, &pos, NULL), 0);
		random_game_cw(pos, 1500, 95, 200, 0);
		G->free_position(pos);
	}
	each_position = NULL;
	if (getenv("CW_STATS"))
		fprintf(stderr, "gestures: %d positions, Capital attacks %d (in place %d), betrayals %d, "
			"passes %d, declarations %d\n", g_positions, g_capital, g_capital2, g_betray, g_pass,
			g_decl);
	assert_true(g_positions > 1000);
	assert_true(g_capital > 0);
	assert_true(g_betray > 0);
	assert_true(g_decl > 1000);
}

/* ---- the variants for two and for three players (docs/rules/civil-war.md, Civil War for two and
 * for three) ---- */

static int variant_use(const rules_game *g, const char *t)
{
	G = g;
	tag = t;
	check_use(&(rules_check){ .game = G, .actor = actor });
	return 0;
}

static int two_setup(void **state)
{
	(void)state;
	return variant_use(&rules_civil_war_2, "cw2p1:");
}

static int three_setup(void **state)
{
	(void)state;
	return variant_use(&rules_civil_war_3, "cw3p1:");
}

static int four_again(void **state)
{
	(void)state;
	return variant_use(&rules_civil_war, "cw1:");
}

#define variant_test(f, setup) cmocka_unit_test_setup_teardown(f, setup, four_again)

/* The letter of a neutral piece on a square as drawn, 0 when there is none there. */
static char neutral_at(const rules_position *pos, const char *square)
{
	rules_view v;
	int r, f;

	square_of(square, &r, &f);
	G->view(pos, &v);
	const rules_cell *c = &v.cell[14 - r][f];
	if (!c->piece[0] || !c->neutral)
		return 0;
	assert_int_equal(c->owner, -1);
	return c->piece[0];
}

/* The board part of a position text, after its prefix. */
static const char *board_part(const char *text, char *buf, size_t size)
{
	const char *p = strchr(text, ':') + 1;

	snprintf(buf, size, "%.*s", (int)(strlen(p) - strlen(strstr(p, ":"))), p);
	return buf;
}

static void test_cw2_1_two_player_start(void **state)
{
	rules_position *pos = start_pos();
	rules_view v;
	int pieces = 0;
	(void)state;

	expect_state(pos, "S:S-N-:----:-,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << 0);
	assert_int_equal(count_moves(pos, 0), 52);
	assert_int_equal(count_moves(pos, 1), 0);
	assert_null(G->anytime_moves);
	/* South and North at their start squares; the West and East quadrants empty. */
	G->view(pos, &v);
	for (int r = 0; r < 15; r++)
		for (int f = 0; f < 15; f++)
			if (v.cell[r][f].piece[0]) {
				pieces++;
				assert_true(v.cell[r][f].owner == 0 || v.cell[r][f].owner == 1);
				assert_int_equal(v.cell[r][f].neutral, 0);
				assert_true(f < 7 ? r > 7 : r < 7 ? f > 7 : 0);  /* never West's or East's quadrant */
			}
	assert_int_equal(pieces, 30);
	expect_reject(pos, 0, "S: ally North", RULES_E_PARSE, "a declaration stands alone");
	expect_reject(pos, 0, "ally North", RULES_E_ILLEGAL, "Civil War for two has no alliances");
	expect_reject(pos, 0, "Pa4-a5; ally North", RULES_E_ILLEGAL, "no alliances");
	expect_reject(pos, 0, "W: Pd9-e9", RULES_E_TURN, "it is South's army's slot, not West's");
	play_roll(pos, "Pa4-a5", "S: Pa4-a5", 0, "");
	expect_state(pos, "N:S-N-:----:-,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << 1);
	expect_reject(pos, 1, "break South", RULES_E_ILLEGAL, "no alliances");
	play_roll(pos, "Pi12-i11", "N: Pi12-i11", 0, "");
	assert_int_equal(G->turn(pos), 1u << 0);
	G->free_position(pos);
}

#define CW2_TAIL "S:S-N-:----:-,-,-,-:0:-"

/* South's successful Qn13xn14 (roll) in the two-player position of pieces ends the game: South
 * first, North at north_rank, with this summary and the note's ending end_note; the ended
 * position's text reads back. */
static void expect_capture_ends(const char *pieces, int roll, int north_rank, const char *summary,
				const char *end_note)
{
	rules_position *pos = setup_k(pieces, "", CW2_TAIL);
	script sc = { { roll }, 1, 0, 0, 12 };
	rules_dice dice = { script_roll, &sc };
	rules_outcome oc;
	rules_result res;
	char *text;

	play_as(pos, -1, "Qn13xn14", "S: Qn13xn14", NULL, &dice, &oc);
	assert_non_null(strstr(oc.note, end_note));
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[0], 1);
	assert_int_equal(res.rank[1], north_rank);
	assert_string_equal(res.summary, summary);
	assert_int_equal(G->turn(pos), 0);
	text = G->serialize(pos);
	expect_text_round_trip(text);
	free(text);
	G->free_position(pos);
}

static void test_cw2_2_win_in_capital(void **state)
{
	const char *pieces = "sK h8, sQ n13, nK n14, nP a12";
	rules_position *pos = setup_k(pieces, "", CW2_TAIL);
	rules_result res;
	(void)state;

	assert_true(is_listed(pos, 0, "S: Qn13xn14"));
	/* Queen 8 against King 10: 1 fails, 2-3 draw, 4-12 succeed; the game goes on unless it
	 * succeeds. */
	play_roll(pos, "Qn13xn14", "S: Qn13xn14", 1, "roll 1 on d12, needs 4+: failure, attacker removed");
	G->result(pos, &res);
	assert_int_equal(res.over, 0);
	assert_int_equal(G->turn(pos), 1u << 1);
	G->free_position(pos);
	pos = setup_k(pieces, "", CW2_TAIL);
	play_roll(pos, "Qn13xn14", "S: Qn13xn14", 3, "roll 3 on d12, needs 4+: draw, back to n13");
	assert_string_equal(at(pos, "n13"), "sQ");
	expect_state(pos, "N:S-N-:----:-,-,-,-:0:-");
	G->free_position(pos);

	expect_capture_ends(pieces, 4, 2, "South wins: King on the Capital (North loses)",
			    "; game over: South wins (King on the Capital)");
}

static void test_cw2_3_capture_without_capital(void **state)
{
	(void)state;

	expect_capture_ends("sK b2, sQ n13, nK n14, nP a12", 12, 1,
			    "Draw for South and North: no King on the Capital",
			    "; game over: draw for South and North (no King on the Capital)");
	/* A resignation ends a game of two: the other player wins (rules.h's default). */
	assert_null(G->resign);
	assert_null(G->resign_result);
}

static void test_cw3_1_three_player_start(void **state)
{
	rules_position *pos = start_pos();
	rules_move_list l = { 0 };
	char *text = G->serialize(pos), b1[512], b2[512];
	(void)state;

	/* Every army at its start squares, East's neutral. */
	assert_string_equal(board_part(text, b1, sizeof b1), board_part(START, b2, sizeof b2));
	free(text);
	expect_state(pos, "S:SWN-:----:-,-,-,-:0:-");
	assert_int_equal(neutral_at(pos, "n2"), 'K');
	assert_int_equal(neutral_at(pos, "l7"), 'P');
	assert_int_equal(neutral_at(pos, "b2"), 0);
	expect_reject(pos, 0, "ally East", RULES_E_ILLEGAL, "East is no player of this game");
	expect_reject(pos, 0, "E: Kn2-n1", RULES_E_TURN, "it is South's army's slot, not East's");
	assert_int_equal(G->anytime_moves(pos, 0, &l), 2);      /* ally West, ally North */
	rules_move_list_free(&l);
	/* The slots: South, West, North, South...; East's never comes. */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(G->turn(pos), 1u << 0);
		play_roll(pos, round ? "Pb4-b5" : "Pa4-a5", NULL, 0, "");
		assert_int_equal(G->turn(pos), 1u << 1);
		play_roll(pos, round ? "Pd14-e14" : "Pd15-e15", NULL, 0, "");
		assert_int_equal(G->turn(pos), 1u << 2);
		play_roll(pos, round ? "Pj12-j11" : "Pi12-i11", NULL, 0, "");
	}
	assert_int_equal(G->turn(pos), 1u << 0);
	assert_int_equal(neutral_at(pos, "l7"), 'P');
	G->free_position(pos);
}

#define CW3_TAIL "S:SWN-:----:-,-,-,-:0:-"

static void test_cw3_2_attacking_neutral_piece(void **state)
{
	rules_position *pos = setup_k("sR l6, eP l7, eQ n3", "swne", CW3_TAIL);
	(void)state;

	/* Prince 6 against Pawn 1: a sure success, no roll. */
	assert_true(is_listed(pos, 0, "S: Rl6xl7"));
	play_roll(pos, "Rl6xl7", "S: Rl6xl7", 0, "no roll: success");
	assert_string_equal(at(pos, "l7"), "sR");
	assert_int_equal(neutral_at(pos, "n3"), 'Q');
	expect_state(pos, "W:SWN-:----:-,-,-,-:0:-");
	G->free_position(pos);

	/* Equal values: the die decides as between players. */
	pos = setup_k("sP l6, eP l7", "swne", CW3_TAIL);
	play_roll(pos, "Pl6xl7", "S: Pl6xl7", 5, "roll 5 on d12, needs 9+: draw, back to l6");
	assert_int_equal(neutral_at(pos, "l7"), 'P');
	G->free_position(pos);
}

/* CW3-3's game up to East's slot, after South took the neutral King. */
static rules_position *gained_east(void)
{
	rules_position *pos = setup_k("sQ o2, sP a4, eP l7, eQ n3", "swne", CW3_TAIL);

	play_roll(pos, "Qo2xn2", "S: Qo2xn2", 12,
		  "roll 12 on d12, needs 4+: success; King lost: East's army passes to South");
	expect_state(pos, "W:SWNS:----:-,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << 1);
	play_roll(pos, "Kb14-c14", "W: Kb14-c14", 0, "");
	assert_int_equal(G->turn(pos), 1u << 2);
	play_roll(pos, "Kn14-n15", "N: Kn14-n15", 0, "");
	expect_state(pos, "E:SWNS:----:-,-,-,-:0:-");
	return pos;
}

static void test_cw3_3_gaining_new_set(void **state)
{
	rules_position *pos = gained_east();
	(void)state;

	assert_int_equal(neutral_at(pos, "l7"), 0);
	assert_string_equal(at(pos, "l7"), "sP");       /* drawn as South's now... */
	assert_int_equal(G->turn(pos), 1u << 0);        /* ...and moved by South */
	expect_reject(pos, 1, "E: Pl7-k7", RULES_E_TURN, "East's army is to act, moved by South");
	expect_reject(pos, 2, "E: Pl7-k7", RULES_E_TURN, "East's army is to act, moved by South");
	expect_illegal(pos, "E: Qn3xn2", "n2 holds a piece of South's army, which you control");
	expect_illegal(pos, "E: Gn3=K", "East's army has no owner: nobody may crown a Grand Prince on its slot");
	play_roll_by(pos, 0, "E: Pl7-k7", "E: Pl7-k7", 0, "");
	/* South's own slot follows: two actions a round. */
	expect_state(pos, "S:SWNS:----:-,-,-,-:0:-");
	assert_int_equal(G->turn(pos), 1u << 0);
	G->free_position(pos);
}

static void test_cw3_4_control_lapses(void **state)
{
	rules_position *pos = gained_east();
	rules_outcome oc = { "", 0, 0 };
	rules_error err;
	(void)state;

	play_roll_by(pos, 0, "E: Pl7-k7", "E: Pl7-k7", 0, "");
	assert_int_equal(G->resign(pos, 0, &oc, &err), 0);
	assert_string_equal(oc.note, "South resigns; South is out; East's army is neutral again");
	expect_state(pos, "W:SWN-:----:-,-,-,-:0:-");
	assert_string_equal(at(pos, "n2"), "");
	assert_int_equal(neutral_at(pos, "k7"), 'P');
	assert_int_equal(neutral_at(pos, "n3"), 'Q');
	assert_int_equal(G->in_play(pos), 6u);
	play_roll(pos, "Kc14-b14", "W: Kc14-b14", 0, "");
	play_roll(pos, "Kn15-n14", "N: Kn15-n14", 0, "");
	assert_int_equal(G->turn(pos), 1u << 1);        /* East's slot skipped again */
	G->free_position(pos);

	/* Resigning on East's slot: it is skipped at once. */
	pos = gained_east();
	oc.note[0] = 0;
	assert_int_equal(G->resign(pos, 0, &oc, &err), 0);
	expect_state(pos, "W:SWN-:----:-,-,-,-:0:-");
	assert_int_equal(neutral_at(pos, "l7"), 'P');
	G->free_position(pos);
}

/* 6.7 item 4: the East army passes with its controller's armies when the controller's King is lost. */
static void test_cw3_4_control_passes_with_lost_king(void **state)
{
	rules_position *pos = setup_k("sK b2, sP a4, wQ c2, eP l7", "wn", "W:SWNS:----:-,-,-,-:0:-");
	(void)state;

	play_roll(pos, "Qc2xb2", "W: Qc2xb2", 12,
		  "roll 12 on d12, needs 4+: success; King lost: South's army passes to West; East's army passes to West");
	expect_state(pos, "N:WWNW:----:-,-,-,-:0:-");
	play_roll(pos, "Kn14-n15", "N: Kn14-n15", 0, "");
	assert_int_equal(G->turn(pos), 1u << 1);        /* East's slot, moved by West */
	play_roll_by(pos, 1, "E: Pl7-k7", "E: Pl7-k7", 0, "");
	G->free_position(pos);
}

static void test_cw3_5_results(void **state)
{
	rules_position *pos = setup_k("sK h8, sQ n13, nK n14, nP a12, wP d12, eK n2, eP l7", "",
				      "S:SSN-:----:-,-,-,-:0:-");
	rules_result res;
	(void)state;

	G->result(pos, &res);
	assert_int_equal(res.over, 0);          /* the neutral King is nobody's: H is South and North */
	play_roll(pos, "Qn13xn14", "S: Qn13xn14", 12, NULL);
	G->result(pos, &res);
	assert_int_equal(res.over, 1);
	assert_int_equal(res.rank[0], 1);
	assert_int_equal(res.rank[1], 2);
	assert_int_equal(res.rank[2], 2);
	assert_int_equal(res.rank[3], 0);       /* three seats: the neutral army has no place */
	assert_string_equal(res.summary, "South wins: King on the Capital (West and North lose)");
	assert_int_equal(neutral_at(pos, "n2"), 'K');
	G->free_position(pos);
}

/* The variants' position texts read back, and what cannot be is refused. */
static void test_variant_position_texts(void **state)
{
	rules_position *pos;
	char *text;
	(void)state;

	variant_use(&rules_civil_war_2, "cw2p1:");
	pos = start_pos();
	text = G->serialize(pos);
	assert_memory_equal(text, "cw2p1:", 6);
	expect_text_round_trip(text);
	expect_corrupt(text + 2);               /* another game's prefix */
	G->free_position(pos);
	free(text);
	{
		static const char *const bad[][2] = {
			{ "sK b2, nK n14, wP d12", CW2_TAIL },                  /* a West piece */
			{ "sK b2, nK n14", "S:SWNE:----:-,-,-,-:0:-" },         /* West and East as players */
			{ "sK b2, nK n14", "S:S-N-:----:N,-,S,-:0:-" },         /* an alliance */
			{ "sK b2, nK n14", "W:S-N-:----:-,-,-,-:0:-" },         /* West's slot */
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			grid_t g;
			memset(g, 0, sizeof g);
			place(g, bad[i][0]);
			expect_corrupt(grid_text(g, bad[i][1]));
		}
	}
	variant_use(&rules_civil_war_3, "cw3p1:");
	{
		static const char *const bad[] = {
			"S:SWNE:----:-,-,-,-:0:-",     /* East moves itself */
			"E:SWN-:----:-,-,-,-:0:-",     /* the neutral army's slot */
			"S:SWN-:---S:-,-,-,-:0:-",     /* the neutral army bound */
			"S:SWN-:----:E,-,-,-:0:-",     /* a declaration toward the neutral army */
			"S:SWNS:----:-,-,-,-:0:-",     /* South controls East, whose King stands */
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			grid_t g;
			memset(g, 0, sizeof g);
			place(g, "sK b2, wK b14, nK n14, eK n2");
			expect_corrupt(grid_text(g, bad[i]));
		}
	}
	four_again(state);
}

/* Random games of the variants, attacks preferred, with the invariants of every ply: the game of
 * two ends at its first King taken; in the game of three the neutral King falls to some. */
static void test_variant_random_games(void **state)
{
	static const struct {
		const rules_game *game;
		const char *tag;
	} variants[] = { { &rules_civil_war_2, "cw2p1:" }, { &rules_civil_war_3, "cw3p1:" } };
	int games = 30;

	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		int over, total;
		variant_use(variants[i].game, variants[i].tag);
		rng_seed(0x5eed2100ULL + i);
		over = random_games_from_start(games, 1500, 95, 200, 2, &total);
		print_counts(G->id, games, over, total);
		assert_true(over > games / 2);
		assert_int_equal(over, n_win + n_draw + n_passes_end);
		assert_true(n_king > 0);
		if (G == &rules_civil_war_2) {
			assert_int_equal(n_alliance, 0);
			assert_true(n_king <= over);    /* the first King taken ends the game */
		} else {
			assert_true(n_neutral > 0);
		}
	}
	four_again(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		start_test(test_cw1_start),
		start_test(test_start_rotation),
		start_test(test_cw2_gate),
		start_test(test_cw3_pawn),
		start_test(test_cw4_bishop),
		start_test(test_cw5_knight),
		start_test(test_cw6_prince),
		cmocka_unit_test(test_cw7_attacks_forward),
		cmocka_unit_test(test_cw8_die_d1),
		cmocka_unit_test(test_cw9_die_equal),
		cmocka_unit_test(test_cw10_die_pawn_king),
		cmocka_unit_test(test_cw11_queen),
		cmocka_unit_test(test_cw12_king_never_attacks),
		cmocka_unit_test(test_cw13_promotion),
		cmocka_unit_test(test_cw14_knight_through_gate),
		cmocka_unit_test(test_cw15_pikeman),
		cmocka_unit_test(test_cw16_archbishop),
		cmocka_unit_test(test_cw17_baron),
		cmocka_unit_test(test_cw18_grand_prince),
		cmocka_unit_test(test_cw19_capital_blocks),
		cmocka_unit_test(test_cw20_capital_attack),
		cmocka_unit_test(test_cw21_bound_player),
		cmocka_unit_test(test_cw22_controlled_army),
		cmocka_unit_test(test_cw23_recipient),
		cmocka_unit_test(test_cw24_betrayal_in_controlled_army),
		cmocka_unit_test(test_cw25_end_of_game),
		start_test(test_cw26_alliances),
		cmocka_unit_test(test_cw27_army_out),
		cmocka_unit_test(test_cw28_automatic_pass),
		cmocka_unit_test(test_cw29_resignation),
		start_test(test_resignation_in_play),
		cmocka_unit_test(test_cw30_draw_by_agreement),
		cmocka_unit_test(test_cw31_round_of_passes),
		cmocka_unit_test(test_resignation_breaks_round_of_passes),
		cmocka_unit_test(test_attack_table),
		cmocka_unit_test(test_dice_failures),
		cmocka_unit_test(test_recipe_hmac),
		cmocka_unit_test(test_recipe_bands),
		cmocka_unit_test(test_notation_examples),
		start_test(test_notation_lexical),
		cmocka_unit_test(test_serialize_round_trip_and_corruption),
		start_test(test_view),
		start_test(test_apply_rejects_bad_moves),
		cmocka_unit_test(test_round_trip_listed_moves),
		cmocka_unit_test(test_random_games),
		cmocka_unit_test(test_random_games_many_attacks),
		start_test(test_gesture_start),
		cmocka_unit_test(test_gesture_attack_and_promotion),
		cmocka_unit_test(test_gesture_capital_attack),
		cmocka_unit_test(test_gesture_betrayal),
		start_test(test_gesture_declarations_and_pass),
		start_test(test_anytime_declarations),
		cmocka_unit_test(test_gesture_random_games),
		variant_test(test_cw2_1_two_player_start, two_setup),
		variant_test(test_cw2_2_win_in_capital, two_setup),
		variant_test(test_cw2_3_capture_without_capital, two_setup),
		variant_test(test_cw3_1_three_player_start, three_setup),
		variant_test(test_cw3_2_attacking_neutral_piece, three_setup),
		variant_test(test_cw3_3_gaining_new_set, three_setup),
		variant_test(test_cw3_4_control_lapses, three_setup),
		variant_test(test_cw3_4_control_passes_with_lost_king, three_setup),
		variant_test(test_cw3_5_results, three_setup),
		variant_test(test_variant_position_texts, four_again),
		variant_test(test_variant_random_games, four_again),
	};

	check_use(&(rules_check){ .game = G, .actor = actor });
	return cmocka_run_group_tests(tests, NULL, NULL);
}
