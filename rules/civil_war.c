/* civil_war.c - the rules of Civil War (four players on a 15x15 board with walled fortresses and a
 * Capital, valued pieces whose attacks are settled with a twelve-sided die, alliances, control of a
 * lost King's army and betrayal), as docs/rules/civil-war.md tells them, and its variants for two
 * and for three players (with a neutral army) on the same engine. */
#include "engine.h"
#include "notation.h"
#include "rules.h"
#include "square_names.h"
#include "xalloc.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Squares are held 0-based inside: board[r][f] with r = rank - 1 (r 0 is rank 1, drawn at the
 * bottom) and f = file - 'a'. Every message and text shows them as the notation writes them ("h8",
 * "o15"). Inside, a player is known by the number of its own army (army s is player s's army);
 * the seats of rules.h are numbered per variant and turned into armies only where a seat comes in
 * or goes out (army_of_seat, seat_of_army).
 */
enum { SOUTH = 0, WEST = 1, NORTH = 2, EAST = 3, NSEATS = 4 };

#define SIZE 15
#define NEUTRAL (-1)    /* the controller of an army that belongs to no player and nobody moves */

/*
 * A variant (docs/rules/civil-war.md, Civil War for two and for three): which armies are players
 * (their seats, in turn order), which stand on the board, whether alliances exist and whether a
 * draw is shared by every player. An army on the board that is no player's is neutral until a
 * player captures its King.
 */
typedef struct cw_variant {
	const char *tag;        /* the position text's prefix */
	int nseats;
	int army[NSEATS];       /* the army of each seat, in turn order */
	unsigned players;       /* the armies that are players (bit mask) */
	unsigned armies;        /* the armies on the board at the start (bit mask) */
	int alliances;          /* ally and break exist */
	int draw_shared;        /* every draw ranks every player first (two players) */
} cw_variant;

static const cw_variant FOUR = { "cw1:", 4, { SOUTH, WEST, NORTH, EAST }, 15u, 15u, 1, 0 };
static const cw_variant TWO = { "cw2p1:", 2, { SOUTH, NORTH }, 5u, 5u, 0, 1 };
static const cw_variant THREE = { "cw3p1:", 3, { SOUTH, WEST, NORTH }, 7u, 15u, 1, 0 };

/* ==========================================================================================
 * HOUSE LAYOUT - docs/rules/civil-war.md, The board, Players, turns and facing, and Starting
 * position, all house rules. The original pictures of the game are lost: the board geometry
 * (Capital, fortresses, gates), each army's forward direction and the starting squares below
 * are invented, and this table is the only place that holds them. It may be replaced (as a new
 * rules version) if the pictures are ever found. Coordinates are 0-based (file a = 0, rank 1 =
 * 0); the two neutral lanes are the file and the rank of the Capital.
 * ========================================================================================== */
typedef struct layout_fortress {
	int f0, r0, f1, r1;             /* the 3x3 block, inclusive corners */
	int in_f, in_r, out_f, out_r;   /* the gate: inside square | outside square */
} layout_fortress;

static const struct layout {
	int capital_f, capital_r;
	layout_fortress fortress[NSEATS];       /* per army */
	int fwd[NSEATS][2];                     /* forward per army: (file step, rank step) */
	int quarter_turns[NSEATS];              /* clockwise turns that bring the army's home to the bottom */
	const char *army[NSEATS];               /* starting pieces: letter and square */
} LAYOUT = {
	7, 7,                                                   /* Capital h8 */
	{
		{ 0, 0, 2, 2, 2, 1, 3, 1 },                     /* South a1-c3, gate c2|d2 */
		{ 0, 12, 2, 14, 1, 12, 1, 11 },                 /* West a13-c15, gate b13|b12 */
		{ 12, 12, 14, 14, 12, 13, 11, 13 },             /* North m13-o15, gate m14|l14 */
		{ 12, 0, 14, 2, 13, 2, 13, 3 },                 /* East m1-o3, gate n3|n4 */
	},
	{ { 0, 1 }, { 1, 0 }, { 0, -1 }, { -1, 0 } },       /* north, east, south, west */
	{ 0, 3, 2, 1 },
	{
		"Kb2 Qc2 Bd1 Bg1 Re1 Rf1 Nf2 Ng2 Pa4 Pb4 Pc4 Pd4 Pe4 Pf4 Pg4",
		"Kb14 Qb13 Ba12 Ba9 Ra11 Ra10 Nb10 Nb9 Pd15 Pd14 Pd13 Pd12 Pd11 Pd10 Pd9",
		"Kn14 Qm14 Bl15 Bi15 Rk15 Rj15 Nj14 Ni14 Po12 Pn12 Pm12 Pl12 Pk12 Pj12 Pi12",
		"Kn2 Qn3 Bo4 Bo7 Ro5 Ro6 Nn6 Nn7 Pl1 Pl2 Pl3 Pl4 Pl5 Pl6 Pl7",
	},
};
/* ===================================== end of the house layout ============================ */

#define MAX_DECL 8      /* declarations on one line */
#define MAX_TARGETS 64  /* destinations of one piece (a Grand Prince has at most 49) */

enum { OVER_NO, OVER_WIN, OVER_DRAW, OVER_PASSES };
enum { ACT_NONE, ACT_MOVE, ACT_ATTACK, ACT_CAPITAL, ACT_BETRAY, ACT_PASS };
enum { DECL_ALLY = 1, DECL_BREAK = 2 };
enum { SC_NONE, SC_MOVE, SC_CAP2, SC_BETRAY, SC_PASS };

typedef struct square {
	unsigned char type;     /* 0 empty, else K Q R G B A N O P M */
	unsigned char army;     /* 0-3 */
} square;

struct rules_position {
	const cw_variant *var;
	square board[SIZE][SIZE];
	int slot;               /* the army whose turn slot it is; -1 once over */
	int ctrl[NSEATS];       /* who moves each army; NEUTRAL for a neutral army (or a gone one of no player) */
	int bound[NSEATS];      /* a bound player's overlord, or -1 */
	unsigned decl[NSEATS];  /* standing alliance declarations: bit t = toward seat t */
	int passes;             /* passes in a row */
	int over;               /* OVER_* */
	unsigned holders;       /* once over: the players who held a King at the end */
};

/* Our move inside rules_move.raw. Unused bytes stay zero so that equal moves compare equal. */
typedef struct cw_move {
	unsigned char act;              /* ACT_* */
	unsigned char army;             /* the army acting (its slot); 0 for ACT_NONE */
	unsigned char type;             /* the piece letter; 'G' for a betrayal; 0 otherwise */
	unsigned char fr, ff, tr, tf;   /* from and to; a Capital attack in place has to = from */
	unsigned char ndecl;
	unsigned char decl[MAX_DECL][2];        /* DECL_*, seat */
} cw_move;

static_assert(sizeof(cw_move) <= RULES_MOVE_BYTES, "cw_move must fit in rules_move.raw");

static const char *const seat_names[] = { "South", "West", "North", "East" };
static const char seat_letters[] = "SWNE";
static const char army_codes[] = "swne";
static const char piece_letters[] = "KQRGBANOPM";
static const char *const fwd_words[NSEATS] = { "north", "east", "south", "west" };

/* ---- pieces ---- */

static int value_of(int type)
{
	switch (type) {
	case 'K': return 10;
	case 'G': return 9;
	case 'Q': return 8;
	case 'A': return 7;
	case 'R': return 6;
	case 'O': return 5;
	case 'B': return 4;
	case 'M': return 3;
	case 'N': return 2;
	case 'P': return 1;
	}
	return 0;
}

static const char *piece_name(int type)
{
	switch (type) {
	case 'K': return "King";
	case 'G': return "Grand Prince";
	case 'Q': return "Queen";
	case 'A': return "Archbishop";
	case 'R': return "Prince";
	case 'O': return "Baron";
	case 'B': return "Bishop";
	case 'M': return "Pikeman";
	case 'N': return "Knight";
	case 'P': return "Pawn";
	}
	return "piece";
}

static int promoted_form(int type)
{
	switch (type) {
	case 'R': return 'G';
	case 'B': return 'A';
	case 'N': return 'O';
	case 'P': return 'M';
	}
	return 0;
}

static int is_piece_letter(int ch)
{
	return ch && strchr(piece_letters, ch) != NULL;
}

/*
 * The moves of each piece as rays in the army's own frame: x to the right, y forward. A ray goes
 * up to len steps of (x, y); a bent ray (RB) makes one step (x, y) and then one step (x2, y2),
 * and only its second square is a destination. RM: may end there on an empty square; RA: may
 * attack an enemy there; RS: skips pieces on its way (walls and the Capital still stop it).
 */
enum { RM = 1, RA = 2, RS = 4, RB = 8 };
typedef struct ray {
	signed char x, y, x2, y2;
	unsigned char len, flags;
} ray;

#define ST(x, y, len, fl) { x, y, x, y, len, fl }
#define BENT(x, y, x2, y2, fl) { x, y, x2, y2, 2, (fl) | RB }
#define DIAG(len) ST(-1, 1, len, RM), ST(1, 1, len, RM), ST(-1, -1, len, RM), ST(1, -1, len, RM)
#define FAR (SIZE - 1)

static const ray rays_K[] = {
	ST(0, 1, 1, RM), ST(0, -1, 1, RM), ST(-1, 0, 1, RM), ST(1, 0, 1, RM), DIAG(1), { 0 },
};
static const ray rays_Q[] = {
	ST(0, 1, 1, RM | RA), ST(0, -1, 1, RM | RA), ST(-1, 0, 1, RM | RA), ST(1, 0, 1, RM | RA),
	DIAG(3), { 0 },
};
static const ray rays_R[] = {
	ST(0, 1, 3, RM | RA), ST(0, -1, 3, RM), ST(-1, 0, 3, RM), ST(1, 0, 3, RM), DIAG(1), { 0 },
};
static const ray rays_G[] = {
	ST(0, 1, FAR, RM | RA), ST(0, -1, 3, RM | RA), ST(-1, 0, FAR, RM), ST(1, 0, FAR, RM), DIAG(1),
	{ 0 },
};
static const ray rays_B[] = {
	ST(0, 1, 1, RM | RA), ST(-1, 0, 1, RM), ST(1, 0, 1, RM), ST(-1, 1, 3, RM), ST(1, 1, 3, RM),
	{ 0 },
};
static const ray rays_A[] = {
	ST(0, 1, 1, RM | RA), ST(0, -1, 1, RM | RA), ST(-1, 0, 1, RM), ST(1, 0, 1, RM), DIAG(3), { 0 },
};
static const ray rays_N[] = {
	ST(0, 1, 3, RM | RA | RS), ST(-1, 1, 1, RM), ST(1, 1, 1, RM),
	BENT(-1, 1, 0, 1, RM | RS), BENT(1, 1, 0, 1, RM | RS), { 0 },
};
static const ray rays_O[] = {
	ST(0, 1, 3, RM | RA | RS), ST(-1, 1, 1, RM), ST(1, 1, 1, RM),
	BENT(-1, 1, 0, 1, RM | RS), BENT(1, 1, 0, 1, RM | RS),
	ST(0, -1, 3, RM | RA), ST(-1, -1, 1, RM), ST(1, -1, 1, RM),
	BENT(-1, -1, 0, -1, RM), BENT(1, -1, 0, -1, RM), { 0 },
};
static const ray rays_P[] = {
	ST(0, 1, 1, RM | RA), ST(-1, 1, 1, RM), ST(1, 1, 1, RM), { 0 },
};
static const ray rays_M[] = {
	ST(0, 1, 1, RM | RA), ST(0, -1, 1, RM | RA), DIAG(1), { 0 },
};

static const ray *rays_of(int type)
{
	switch (type) {
	case 'K': return rays_K;
	case 'Q': return rays_Q;
	case 'R': return rays_R;
	case 'G': return rays_G;
	case 'B': return rays_B;
	case 'A': return rays_A;
	case 'N': return rays_N;
	case 'O': return rays_O;
	case 'P': return rays_P;
	case 'M': return rays_M;
	}
	return rays_K + 8;      /* the terminator */
}

/* How a piece moves and attacks, for messages; %s is the army's forward direction. */
static const char *moves_text(int type)
{
	switch (type) {
	case 'K': return "a King moves one square in any direction";
	case 'Q': return "a Queen moves one square orthogonally or 1-3 squares diagonally";
	case 'R': return "a Prince moves one square diagonally or 1-3 squares orthogonally";
	case 'G': return "a Grand Prince moves one square diagonally, any distance forward, left or right, or 1-3 squares backward";
	case 'B': return "a Bishop moves one square forward, left or right, or 1-3 squares diagonally forward";
	case 'A': return "an Archbishop moves one square forward, backward, left or right, or 1-3 squares diagonally";
	case 'N': return "a Knight moves 1-3 squares straight forward, one square diagonally forward, or diagonally forward and then forward";
	case 'O': return "a Baron moves like a Knight forward (skipping) and in the mirror pattern backward (not skipping)";
	case 'P': return "a Pawn moves one square forward or diagonally forward";
	case 'M': return "a Pikeman moves one square forward, backward or diagonally";
	}
	return "";
}

static const char *attacks_text(int type)
{
	switch (type) {
	case 'K': return "the King never attacks";
	case 'Q': return "a Queen attacks only one square orthogonally";
	case 'R': return "a Prince attacks only 1-3 squares straight forward";
	case 'G': return "a Grand Prince attacks only straight forward or 1-3 squares straight backward";
	case 'B': return "a Bishop attacks only one square straight forward";
	case 'A': return "an Archbishop attacks only one square straight forward or backward";
	case 'N': return "a Knight attacks only 1-3 squares straight forward";
	case 'O': return "a Baron attacks only 1-3 squares straight forward or backward";
	case 'P': return "a Pawn attacks only one square straight forward";
	case 'M': return "a Pikeman attacks only one square straight forward or backward";
	}
	return "";
}

/* ---- squares and terrain ---- */

static int on_board(int r, int f)
{
	return r >= 0 && r < SIZE && f >= 0 && f < SIZE;
}

static int is_capital(int r, int f)
{
	return r == LAYOUT.capital_r && f == LAYOUT.capital_f;
}

/* The army whose fortress holds (r,f), or -1. */
static int fortress_of(int r, int f)
{
	for (int a = 0; a < NSEATS; a++) {
		const layout_fortress *x = &LAYOUT.fortress[a];
		if (f >= x->f0 && f <= x->f1 && r >= x->r0 && r <= x->r1)
			return a;
	}
	return -1;
}

/* Whether a single step between neighbours (r1,f1) in fortress a and (r2,f2) in fortress b (-1:
 * none) is not blocked by a wall. */
static int step_ok_in(int a, int b, int r1, int f1, int r2, int f2)
{
	int x;
	const layout_fortress *g;

	if (a == b)
		return 1;
	if (r1 != r2 && f1 != f2)
		return 0;       /* every diagonal step across a fortress boundary */
	x = a >= 0 ? a : b;
	if (a >= 0 && b >= 0)
		return 0;
	g = &LAYOUT.fortress[x];
	return (r1 == g->in_r && f1 == g->in_f && r2 == g->out_r && f2 == g->out_f)
		|| (r2 == g->in_r && f2 == g->in_f && r1 == g->out_r && f1 == g->out_f);
}

/* Whether a single step between neighbours (r1,f1) and (r2,f2) is not blocked by a wall. */
static int step_ok(int r1, int f1, int r2, int f2)
{
	return step_ok_in(fortress_of(r1, f1), fortress_of(r2, f2), r1, f1, r2, f2);
}

/* A local (right, forward) step of army as a board step. */
static void to_board(int army, int x, int y, int *dr, int *df)
{
	int ff = LAYOUT.fwd[army][0], fr = LAYOUT.fwd[army][1];
	int rf = fr, rr = -ff;  /* right = forward turned a quarter clockwise */

	*df = x * rf + y * ff;
	*dr = x * rr + y * fr;
}

static int facing_of(int army)
{
	int df = LAYOUT.fwd[army][0], dr = LAYOUT.fwd[army][1];

	return dr > 0 ? RULES_FACING_UP : df > 0 ? RULES_FACING_RIGHT : dr < 0 ? RULES_FACING_DOWN
		: RULES_FACING_LEFT;
}

/* ---- players, armies, alliances ---- */

static int is_player(const rules_position *pos, int a)
{
	return a >= 0 && a < NSEATS && (pos->var->players >> a & 1u);
}

/* Who moves army a when nobody has taken it: its owner, or nobody for an army of no player. */
static int home_ctrl(const rules_position *pos, int a)
{
	return is_player(pos, a) ? a : NEUTRAL;
}

/* The player (army) of a seat of the variant, or -1. */
static int army_of_seat(const rules_position *pos, int seat)
{
	return seat >= 0 && seat < pos->var->nseats ? pos->var->army[seat] : -1;
}

/* The seat of a player (army), or -1 for an army of no player. */
static int seat_of_army(const rules_position *pos, int a)
{
	for (int s = 0; s < pos->var->nseats; s++)
		if (pos->var->army[s] == a)
			return s;
	return -1;
}

/* The number of pieces of each army, in one look at the board. */
static void army_counts(const rules_position *pos, int n[NSEATS])
{
	memset(n, 0, NSEATS * sizeof *n);
	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			if (pos->board[r][f].type)
				n[pos->board[r][f].army]++;
}

static int army_count(const rules_position *pos, int army)
{
	int n[NSEATS];

	army_counts(pos, n);
	return n[army];
}

static int army_has(const rules_position *pos, int army, int type)
{
	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			if (pos->board[r][f].type == type && pos->board[r][f].army == army)
				return 1;
	return 0;
}

static int is_out(const rules_position *pos, int s)
{
	return army_count(pos, s) == 0;
}

/* The players holding a King (H): a neutral army's King counts for nobody. */
static unsigned king_holders(const rules_position *pos)
{
	unsigned h = 0;

	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			if (pos->board[r][f].type == 'K')
				h |= 1u << pos->board[r][f].army;
	return h & pos->var->players;
}

static int holds_king(const rules_position *pos, int s)
{
	return (king_holders(pos) >> s) & 1u;
}

static int allied(const rules_position *pos, int a, int b)
{
	return a != b && (pos->decl[a] >> b & 1u) && (pos->decl[b] >> a & 1u);
}

static int popcount4(unsigned m)
{
	int n = 0;

	for (int s = 0; s < NSEATS; s++)
		n += (m >> s) & 1u;
	return n;
}

/* "South", "South and North", "South, West and North". */
static const char *names_of(unsigned mask, char *buf, size_t size)
{
	int n = popcount4(mask), k = 0;
	size_t len = 0;

	buf[0] = 0;
	for (int s = 0; s < NSEATS; s++) {
		if (!(mask >> s & 1u))
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
					k == 0 ? "" : k == n - 1 ? " and " : ", ", seat_names[s]);
		k++;
		if (len >= size)
			break;
	}
	return buf;
}

/* Whether actor may attack a piece of army: not an army actor controls, nor, for a bound player,
 * one its overlord controls (docs/rules/civil-war.md, The pieces, and Losing your King: bound
 * players and controlled armies). */
static int may_attack(const rules_position *pos, int actor, int army)
{
	int c = pos->ctrl[army];

	if (c == actor)
		return 0;
	return !(pos->bound[actor] >= 0 && c == pos->bound[actor]);
}

/* The end condition (docs/rules/civil-war.md, End of the game): the King holders are one player
 * or all mutual allies. */
static int end_condition(const rules_position *pos)
{
	unsigned h = king_holders(pos);

	for (int a = 0; a < NSEATS; a++)
		for (int b = a + 1; b < NSEATS; b++)
			if ((h >> a & 1u) && (h >> b & 1u) && !allied(pos, a, b))
				return 0;
	return 1;
}

static int capital_king(const rules_position *pos)
{
	const square *c = &pos->board[LAYOUT.capital_r][LAYOUT.capital_f];

	return c->type == 'K' && is_player(pos, c->army);
}

/* Whether the army's owner may crown a Grand Prince (docs/rules/civil-war.md, Betrayal): no King
 * and a Grand Prince; an army of no player has no owner to crown one. */
static int can_betray(const rules_position *pos, int army)
{
	int g = 0;

	if (!is_player(pos, army))
		return 0;

	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			if (pos->board[r][f].army == army) {
				if (pos->board[r][f].type == 'K')
					return 0;
				g |= pos->board[r][f].type == 'G';
			}
	return g;
}

/* ---- move generation ---- */

typedef struct target {
	unsigned char r, f, attack;
} target;

/* Every destination of the piece on (r,f) when actor moves it: plain moves and attacks. */
static int piece_targets(const rules_position *pos, int actor, int r, int f, target *out)
{
	const square *c = &pos->board[r][f];
	int n = 0;

	for (const ray *ry = rays_of(c->type); ry->len; ry++) {
		int cr = r, cf = f;
		for (int k = 1; k <= ry->len; k++) {
			int x = (ry->flags & RB) && k > 1 ? ry->x2 : ry->x;
			int y = (ry->flags & RB) && k > 1 ? ry->y2 : ry->y;
			int dr, df, nr, nf, dest = !(ry->flags & RB) || k == ry->len;
			const square *t;
			to_board(c->army, x, y, &dr, &df);
			nr = cr + dr;
			nf = cf + df;
			if (!on_board(nr, nf) || !step_ok(cr, cf, nr, nf))
				break;
			if (is_capital(nr, nf) && c->type != 'K')
				break;
			t = &pos->board[nr][nf];
			if (dest && n < MAX_TARGETS) {
				if (!t->type && (ry->flags & RM)) {
					out[n].r = (unsigned char)nr;
					out[n].f = (unsigned char)nf;
					out[n++].attack = 0;
				} else if (t->type && (ry->flags & RA) && may_attack(pos, actor, t->army)) {
					out[n].r = (unsigned char)nr;
					out[n].f = (unsigned char)nf;
					out[n++].attack = 1;
				}
			}
			if (t->type && !(ry->flags & RS))
				break;
			cr = nr;
			cf = nf;
		}
	}
	return n;
}

/* Whether the piece type of army attacks in board direction (dr, df) one square away. */
static int attacks_toward(int type, int army, int dr, int df)
{
	for (const ray *ry = rays_of(type); ry->len; ry++) {
		int r2, f2;
		if (!(ry->flags & RA) || (ry->flags & RB))
			continue;
		to_board(army, ry->x, ry->y, &r2, &f2);
		if (r2 == dr && f2 == df)
			return 1;
	}
	return 0;
}

/* Whether a piece of type and army standing on (r,f) may attack the Capital for actor
 * (docs/rules/civil-war.md, Attacking a King on the Capital). */
static int capital_ok(const rules_position *pos, int actor, int type, int army, int r, int f)
{
	int cr = LAYOUT.capital_r, cf = LAYOUT.capital_f;
	const square *k = &pos->board[cr][cf];

	if (abs(cr - r) + abs(cf - f) != 1 || k->type != 'K' || !may_attack(pos, actor, k->army))
		return 0;
	return step_ok(r, f, cr, cf) && attacks_toward(type, army, cr - r, cf - f);
}

/* Adds one action; returns 1 to stop (existence check). */
static int push(engine_gen *g, int act, int army, int type, int fr, int ff, int tr, int tf)
{
	cw_move m;

	memset(&m, 0, sizeof m);
	m.act = (unsigned char)act;
	m.army = (unsigned char)army;
	m.type = (unsigned char)type;
	m.fr = (unsigned char)fr;
	m.ff = (unsigned char)ff;
	m.tr = (unsigned char)tr;
	m.tf = (unsigned char)tf;
	return engine_push(g, &m, sizeof m, 0);
}

/* Every move, attack and Capital attack of army, moved by player actor (g->seat is the actor's
 * seat, written into the moves). Returns 1 when stopped. */
static int gen_army(engine_gen *g, int army, int actor)
{
	const rules_position *pos = g->pos;
	target t[MAX_TARGETS];

	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++) {
			const square *c = &pos->board[r][f];
			int n;
			if (!c->type || c->army != army)
				continue;
			n = piece_targets(pos, actor, r, f, t);
			for (int i = 0; i < n; i++)
				if (push(g, t[i].attack ? ACT_ATTACK : ACT_MOVE, army, c->type, r, f, t[i].r, t[i].f))
					return 1;
			if (capital_ok(pos, actor, c->type, army, r, f)
			    && push(g, ACT_CAPITAL, army, c->type, r, f, r, f))
				return 1;
			for (int i = 0; i < n; i++)
				if (!t[i].attack && capital_ok(pos, actor, c->type, army, t[i].r, t[i].f)
				    && push(g, ACT_CAPITAL, army, c->type, r, f, t[i].r, t[i].f))
					return 1;
		}
	return 0;
}

/* Whether the army in its slot has a move, an attack or a Capital attack; a neutral army never
 * acts. */
static int has_action(const rules_position *pos, int army)
{
	engine_gen g = { pos, -1, NULL, 0 };

	return pos->ctrl[army] != NEUTRAL && gen_army(&g, army, pos->ctrl[army]);
}

/* ---- checking one line ---- */

/* A line as written, before any look at the position. */
typedef struct scanned {
	int act;                /* SC_* */
	int army;               /* the army prefix, -1 when none */
	char letter;            /* piece letter written, 0 when none */
	int fr, ff, tr, tf;
	int capital;            /* '!' after the to-square */
	int ndecl;
	unsigned char decl[MAX_DECL][2];
} scanned;
static_assert(sizeof(scanned) <= ENGINE_SCAN_BYTES, "scanned must fit in engine_parse's buffer");

static int turn_message(const rules_position *pos, rules_error *err)
{
	int a = pos->slot, c = pos->ctrl[a];

	if (c == a)
		return rules_fail(err, RULES_E_TURN, "it is not your turn: %s is to act", seat_names[a]);
	return rules_fail(err, RULES_E_TURN, "it is not your turn: %s's army is to act, moved by %s",
			  seat_names[a], seat_names[c]);
}

/* Why the piece on (r,f) cannot go to (tr,tf); only called when it cannot. */
static int explain(const rules_position *pos, int actor, int r, int f, int tr, int tf,
		   rules_error *err)
{
	const square *c = &pos->board[r][f], *t = &pos->board[tr][tf];
	char s1[4], s2[4], s3[4], s4[4], d[40];

	if (!err)
		return RULES_E_ILLEGAL;
	square_name(s1, r, f);
	square_name(s2, tr, tf);
	snprintf(d, sizeof d, "the %s on %s", piece_name(c->type), s1);
	if (is_capital(tr, tf) && c->type != 'K')
		return rules_fail(err, RULES_E_ILLEGAL, "only a King may enter the Capital %s", s2);
	for (const ray *ry = rays_of(c->type); ry->len; ry++) {
		int cr = r, cf = f, hit = 0;
		/* Geometry first: is the square on this ray at all? */
		for (int k = 1; k <= ry->len && !hit; k++) {
			int x = (ry->flags & RB) && k > 1 ? ry->x2 : ry->x;
			int y = (ry->flags & RB) && k > 1 ? ry->y2 : ry->y;
			int dr, df;
			to_board(c->army, x, y, &dr, &df);
			cr += dr;
			cf += df;
			if (cr == tr && cf == tf && (!(ry->flags & RB) || k == ry->len))
				hit = 1;
		}
		if (!hit)
			continue;
		cr = r;
		cf = f;
		for (int k = 1; k <= ry->len; k++) {
			int x = (ry->flags & RB) && k > 1 ? ry->x2 : ry->x;
			int y = (ry->flags & RB) && k > 1 ? ry->y2 : ry->y;
			int dr, df, nr, nf;
			to_board(c->army, x, y, &dr, &df);
			nr = cr + dr;
			nf = cf + df;
			if (!step_ok(cr, cf, nr, nf))
				return rules_fail(err, RULES_E_ILLEGAL,
						  "%s cannot go to %s: a fortress wall stands between %s and %s (only the orthogonal step through the gate crosses it)",
						  d, s2, square_name(s3, cr, cf), square_name(s4, nr, nf));
			if (is_capital(nr, nf) && !(nr == tr && nf == tf))
				return rules_fail(err, RULES_E_ILLEGAL,
						  "%s cannot go to %s: no piece may pass through the Capital %s",
						  d, s2, square_name(s3, nr, nf));
			if (nr == tr && nf == tf)
				break;
			if (pos->board[nr][nf].type && !(ry->flags & RS))
				return rules_fail(err, RULES_E_ILLEGAL, "%s cannot go to %s: the path is blocked at %s",
						  d, s2, square_name(s3, nr, nf));
			cr = nr;
			cf = nf;
		}
		break;  /* the path is clear: the trouble is on the square itself */
	}
	if (t->type && !may_attack(pos, actor, t->army)) {
		if (pos->ctrl[t->army] == actor)
			return rules_fail(err, RULES_E_ILLEGAL, "%s holds a piece of %s's army, which you control",
					  s2, seat_names[t->army]);
		return rules_fail(err, RULES_E_ILLEGAL,
				  "you are bound to %s and may not attack %s's army, which %s controls",
				  seat_names[pos->bound[actor]], seat_names[t->army],
				  seat_names[pos->bound[actor]]);
	}
	if (t->type && c->type == 'K')
		return rules_fail(err, RULES_E_ILLEGAL, "the King never attacks");
	if (t->type)
		return rules_fail(err, RULES_E_ILLEGAL, "%s cannot attack %s: %s (forward is %s for %s's army)",
				  d, s2, attacks_text(c->type), fwd_words[c->army], seat_names[c->army]);
	return rules_fail(err, RULES_E_ILLEGAL, "%s cannot go to %s: %s (forward is %s for %s's army)", d,
			  s2, moves_text(c->type), fwd_words[c->army], seat_names[c->army]);
}

/* Why the piece on (r,f) cannot attack the Capital from (sr,sf); only called when it cannot. */
static int explain_capital(const rules_position *pos, int actor, int r, int f, int sr, int sf,
			   rules_error *err)
{
	int cr = LAYOUT.capital_r, cf = LAYOUT.capital_f;
	const square *c = &pos->board[r][f], *k = &pos->board[cr][cf];
	char s1[4], s2[4];

	if (!err)
		return RULES_E_ILLEGAL;
	square_name(s1, sr, sf);
	square_name(s2, cr, cf);
	if (k->type != 'K')
		return rules_fail(err, RULES_E_ILLEGAL, "there is no King on the Capital %s to attack", s2);
	if (!may_attack(pos, actor, k->army))
		return rules_fail(err, RULES_E_ILLEGAL, "the King on the Capital is %s's, which you may not attack",
				  seat_names[k->army]);
	if (abs(cr - sr) + abs(cf - sf) != 1)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a Capital attack is made from a square orthogonally next to %s, and %s is not one",
				  s2, s1);
	return rules_fail(err, RULES_E_ILLEGAL,
			  "the %s cannot attack the Capital from %s: %s (forward is %s for %s's army)",
			  piece_name(c->type), s1, attacks_text(c->type), fwd_words[c->army],
			  seat_names[c->army]);
}

static int check_action(const rules_position *pos, int seat, const scanned *s, cw_move *out,
			rules_error *err)
{
	int a = pos->slot, c = pos->ctrl[a];
	const square *p;
	target t[MAX_TARGETS];
	char s1[4], s2[4];
	int n;

	if (s->act == SC_BETRAY) {
		if (!is_player(pos, a) && seat == c)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s's army has no owner: nobody may crown a Grand Prince on its slot",
					  seat_names[a]);
		if (seat != a) {
			if (seat == c)
				return rules_fail(err, RULES_E_ILLEGAL,
						  "only %s, the owner of the army, may crown its Grand Prince", seat_names[a]);
			return turn_message(pos, err);
		}
	} else if (seat != c) {
		if (seat == a && can_betray(pos, a))
			return rules_fail(err, RULES_E_TURN,
					  "%s moves your army on this slot; you may only betray (G<square>=K)",
					  seat_names[c]);
		return turn_message(pos, err);
	}
	if (s->army >= 0 && s->army != a)
		return rules_fail(err, RULES_E_TURN, "it is %s's army's slot, not %s's", seat_names[a],
				  seat_names[s->army]);
	out->army = (unsigned char)a;
	if (s->act == SC_PASS) {
		if (has_action(pos, a))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "pass is allowed only when %s's army has no legal move, attack or Capital attack",
					  seat_names[a]);
		out->act = ACT_PASS;
		return 0;
	}
	if (!on_board(s->fr, s->ff) || (s->act == SC_MOVE && !on_board(s->tr, s->tf)))
		return rules_fail(err, RULES_E_ILLEGAL, "malformed move");
	square_name(s1, s->fr, s->ff);
	p = &pos->board[s->fr][s->ff];
	if (!p->type)
		return rules_fail(err, RULES_E_ILLEGAL, "there is no piece on %s", s1);
	if (p->army != a)
		return rules_fail(err, RULES_E_ILLEGAL, "the %s on %s belongs to %s's army, and it is %s's army's slot",
				  piece_name(p->type), s1, seat_names[p->army], seat_names[a]);
	if (s->act == SC_BETRAY) {
		if (army_has(pos, a, 'K'))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s holds a King: only a player without a King may betray", seat_names[a]);
		if (p->type != 'G' || (s->letter && s->letter != 'G'))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "only a Grand Prince can be crowned, and the piece on %s is a %s", s1,
					  piece_name(p->type));
		out->act = ACT_BETRAY;
		out->type = 'G';
		out->fr = out->tr = (unsigned char)s->fr;
		out->ff = out->tf = (unsigned char)s->ff;
		return 0;
	}
	if (s->letter && s->letter != p->type)
		return rules_fail(err, RULES_E_ILLEGAL, "wrong letter: the piece on %s is a %s (%c), not a %s (%c)",
				  s1, piece_name(p->type), p->type, piece_name(s->letter), s->letter);
	out->type = p->type;
	out->fr = (unsigned char)s->fr;
	out->ff = (unsigned char)s->ff;
	if (s->act == SC_CAP2) {
		if (!capital_ok(pos, seat, p->type, a, s->fr, s->ff))
			return explain_capital(pos, seat, s->fr, s->ff, s->fr, s->ff, err);
		out->act = ACT_CAPITAL;
		out->tr = (unsigned char)s->fr;
		out->tf = (unsigned char)s->ff;
		return 0;
	}
	square_name(s2, s->tr, s->tf);
	if (s->fr == s->tr && s->ff == s->tf)
		return rules_fail(err, RULES_E_ILLEGAL, "a move must go to another square");
	out->tr = (unsigned char)s->tr;
	out->tf = (unsigned char)s->tf;
	n = piece_targets(pos, seat, s->fr, s->ff, t);
	for (int i = 0; i < n; i++) {
		if (t[i].r != s->tr || t[i].f != s->tf)
			continue;
		if (!s->capital) {
			out->act = t[i].attack ? ACT_ATTACK : ACT_MOVE;
			return 0;
		}
		if (t[i].attack)
			break;
		if (!capital_ok(pos, seat, p->type, a, s->tr, s->tf))
			return explain_capital(pos, seat, s->fr, s->ff, s->tr, s->tf, err);
		out->act = ACT_CAPITAL;
		return 0;
	}
	if (s->capital && pos->board[s->tr][s->tf].type)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a Capital attack moves only onto an empty square next to the Capital, and %s is occupied",
				  s2);
	return explain(pos, seat, s->fr, s->ff, s->tr, s->tf, err);
}

/* Declarations (docs/rules/civil-war.md, Alliances), one after another, on a copy of the
 * declarations. */
static int check_decls(const rules_position *pos, int seat, const scanned *s, cw_move *out,
		       rules_error *err)
{
	unsigned decl[NSEATS];

	memcpy(decl, pos->decl, sizeof decl);
	for (int i = 0; i < s->ndecl; i++) {
		int op = s->decl[i][0], t = s->decl[i][1];
		const char *word = op == DECL_ALLY ? "ally" : "break";
		if (!pos->var->alliances)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s %s: Civil War for two has no alliances", word, seat_names[t]);
		if (!is_player(pos, t))
			return rules_fail(err, RULES_E_ILLEGAL, "%s %s: %s is no player of this game%s", word,
					  seat_names[t], seat_names[t],
					  pos->var->armies >> t & 1u ? " (its army is neutral or taken)" : "");
		if (is_out(pos, seat))
			return rules_fail(err, RULES_E_ILLEGAL, "%s is out of the game and cannot declare",
					  seat_names[seat]);
		if (t == seat)
			return rules_fail(err, RULES_E_ILLEGAL, "%s %s: a declaration toward oneself is not allowed",
					  word, seat_names[t]);
		if (is_out(pos, t))
			return rules_fail(err, RULES_E_ILLEGAL, "%s %s: %s is out of the game", word,
					  seat_names[t], seat_names[t]);
		if (op == DECL_ALLY) {
			if (decl[seat] >> t & 1u)
				return rules_fail(err, RULES_E_ILLEGAL,
						  "ally %s: your declaration toward %s stands already", seat_names[t],
						  seat_names[t]);
			decl[seat] |= 1u << t;
		} else {
			if (!(decl[seat] >> t & 1u))
				return rules_fail(err, RULES_E_ILLEGAL,
						  "break %s: you have no declaration toward %s to withdraw",
						  seat_names[t], seat_names[t]);
			if ((decl[t] >> seat & 1u) && !holds_king(pos, seat))
				return rules_fail(err, RULES_E_ILLEGAL,
						  "break %s: a player without a King cannot end an alliance",
						  seat_names[t]);
			decl[seat] &= ~(1u << t);
		}
		out->decl[i][0] = (unsigned char)op;
		out->decl[i][1] = (unsigned char)t;
	}
	out->ndecl = (unsigned char)s->ndecl;
	return 0;
}

static int check_line(const rules_position *pos, int seat, const void *in, void *into,
		      rules_error *err)
{
	const scanned *s = in;
	cw_move *out = into;
	int rc, player;

	memset(out, 0, sizeof *out);
	if (pos->over)
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if ((player = army_of_seat(pos, seat)) < 0)
		return rules_fail(err, RULES_E_TURN, "Civil War has no seat %d", seat);
	if (s->act != SC_NONE && (rc = check_action(pos, player, s, out, err)))
		return rc;
	return check_decls(pos, player, s, out, err);
}

/* ---- parsing ---- */

/* Here ';' (declarations follow) and '#' (a comment) also end what is being read. */
static int unexpected(const char *p, const char *what, rules_error *err)
{
	return notation_unexpected_before(p, ";#", what, err);
}

/* Squares as the notation names them: files a-o, ranks 1-15, never "h08". */
static const square_names squares = {
	SIZE, SIZE, "h8", ";#", " (a square has no spaces inside)", 1,
};

/* A word of letters at p, lower-cased into buf; returns its length (0 when none). */
static size_t word_at(const char *p, char *buf, size_t size)
{
	size_t n = 0;

	while (isalpha((unsigned char)p[n])) {
		if (n + 1 < size)
			buf[n] = (char)tolower((unsigned char)p[n]);
		n++;
	}
	buf[n < size ? n : size - 1] = 0;
	return n;
}

static int seat_of_word(const char *w)
{
	for (int s = 0; s < NSEATS; s++)
		if (!strcasecmp(w, seat_names[s]) || (w[0] && !w[1] && toupper((unsigned char)w[0]) == seat_letters[s]))
			return s;
	return -1;
}

/* "ally North" / "break W" from p (spaces skipped), up to the end of its segment. */
static int scan_decl(const char **pp, scanned *s, rules_error *err)
{
	const char *p = notation_skip_space(*pp);
	char w[16];
	size_t n = word_at(p, w, sizeof w);
	int op, t;

	if (!strcmp(w, "ally"))
		op = DECL_ALLY;
	else if (!strcmp(w, "break"))
		op = DECL_BREAK;
	else
		return n ? rules_fail(err, RULES_E_PARSE, "'%.*s' is not a declaration: write ally <seat> or break <seat>",
				      (int)(n > 20 ? 20 : n), p)
			: unexpected(p, "a declaration: ally <seat> or break <seat>", err);
	p = notation_skip_space(p + n);
	n = word_at(p, w, sizeof w);
	if (!n)
		return unexpected(p, "a seat (South, West, North, East or S, W, N, E)", err);
	if ((t = seat_of_word(w)) < 0)
		return rules_fail(err, RULES_E_PARSE, "'%.*s' is not a seat: write South, West, North or East",
				  (int)(n > 20 ? 20 : n), p);
	p = notation_skip_space(p + n);
	if (s->ndecl >= MAX_DECL)
		return rules_fail(err, RULES_E_PARSE, "at most %d declarations fit on one line", MAX_DECL);
	s->decl[s->ndecl][0] = (unsigned char)op;
	s->decl[s->ndecl][1] = (unsigned char)t;
	s->ndecl++;
	*pp = p;
	return 0;
}

/* The action part of a line (docs/rules/civil-war.md, Writing moves), up to ';', '#' or the end. */
static int scan_action(const char **pp, scanned *s, rules_error *err)
{
	const char *p = notation_skip_space(*pp), *q;
	char w[16];
	size_t n;
	int rc;

	/* The army prefix: a word and a colon. */
	n = word_at(p, w, sizeof w);
	q = notation_skip_space(p + n);
	if (n && *q == ':') {
		if ((s->army = seat_of_word(w)) < 0)
			return rules_fail(err, RULES_E_PARSE, "'%.*s' is not an army: write South, West, North or East",
					  (int)(n > 20 ? 20 : n), p);
		p = notation_skip_space(q + 1);
		n = word_at(p, w, sizeof w);
	}
	if (!strcmp(w, "pass")) {
		s->act = SC_PASS;
		p = notation_skip_space(p + n);
	} else if (!strcmp(w, "betray")) {
		s->act = SC_BETRAY;
		p = notation_skip_space(p + n);
		if ((rc = square_scan(&squares, &p, &s->fr, &s->ff, "the square of the Grand Prince to crown", err)))
			return rc;
	} else if (!strcmp(w, "ally") || !strcmp(w, "break")) {
		return rules_fail(err, RULES_E_PARSE, "a declaration stands alone or after an action and ';'");
	} else {
		int up = toupper((unsigned char)*p);
		if (isalpha((unsigned char)*p) && square_name_at(&squares, notation_skip_space(p + 1))) {
			if (!is_piece_letter(up))
				return rules_fail(err, RULES_E_PARSE,
						  "'%c' is not a piece letter: write K, Q, R, G, B, A, N, O, P or M", *p);
			s->letter = (char)up;
			p = notation_skip_space(p + 1);
		} else if (isalpha((unsigned char)*p) && !square_name_at(&squares, p) && *p != 0) {
			q = notation_skip_space(p + 1);
			if (isalpha((unsigned char)q[0]) && isdigit((unsigned char)q[1]))
				return rules_fail(err, RULES_E_PARSE,
						  "'%c' is not a file: a square is a file a-o and a rank 1-15, such as h8", *q);
			if (is_piece_letter(up))
				return rules_fail(err, RULES_E_PARSE,
						  "the piece letter '%c' must be followed by the square the piece stands on, such as e5 (a square has no spaces inside)",
						  *p);
		}
		if ((rc = square_scan(&squares, &p, &s->fr, &s->ff, "the square of the piece that acts", err)))
			return rc;
		if (*p == '=') {
			p = notation_skip_space(p + 1);
			if (toupper((unsigned char)*p) != 'K')
				return unexpected(p, "K after '=' (a betrayal is written G<square>=K)", err);
			s->act = SC_BETRAY;
			p = notation_skip_space(p + 1);
		} else if (*p == '!') {
			s->act = SC_CAP2;
			p = notation_skip_space(p + 1);
		} else {
			s->act = SC_MOVE;
			if (*p == '-' || *p == 'x' || *p == 'X')
				p = notation_skip_space(p + 1);
			if ((rc = square_scan(&squares, &p, &s->tr, &s->tf, "the square the piece moves to", err)))
				return rc;
			if (*p == '!') {
				s->capital = 1;
				p = notation_skip_space(p + 1);
			}
		}
	}
	while (*p == '+')
		p = notation_skip_space(p + 1);
	if (*p && *p != ';' && *p != '#') {
		if (*p == '!')
			return rules_fail(err, RULES_E_PARSE, "'!' (a Capital attack) may only follow the last square");
		return unexpected(p, "';', '#' or the end of the line", err);
	}
	*pp = p;
	return 0;
}

/* The grammar of docs/rules/civil-war.md, Writing moves; nothing about the position. */
static int scan(const char *text, void *into, rules_error *err)
{
	scanned *s = into;
	const char *p;
	int rc;
	char w[16];

	memset(s, 0, sizeof *s);
	s->army = -1;
	if ((rc = notation_check_text(text, "line", err)))
		return rc;
	p = notation_skip_space(text);
	if (!*p || *p == '#')
		return rules_fail(err, RULES_E_PARSE, "the line is empty: write an action or a declaration");
	word_at(p, w, sizeof w);
	if (!strcmp(w, "ally") || !strcmp(w, "break")) {
		if ((rc = scan_decl(&p, s, err)))
			return rc;
	} else if ((rc = scan_action(&p, s, err))) {
		return rc;
	}
	while (*p == ';') {
		p++;
		if ((rc = scan_decl(&p, s, err)))
			return rc;
	}
	if (*p && *p != '#')
		return unexpected(p, "';', '#' or the end of the line", err);
	return 0;
}

/* Whether the move's fields are in range (says nothing about legality). */
static int well_formed(const cw_move *m)
{
	if (m->act > ACT_PASS || m->army >= NSEATS || m->ndecl > MAX_DECL)
		return 0;
	for (int i = 0; i < m->ndecl; i++)
		if ((m->decl[i][0] != DECL_ALLY && m->decl[i][0] != DECL_BREAK) || m->decl[i][1] >= NSEATS)
			return 0;
	if (m->act == ACT_MOVE || m->act == ACT_ATTACK || m->act == ACT_CAPITAL || m->act == ACT_BETRAY)
		return is_piece_letter(m->type) && on_board(m->fr, m->ff) && on_board(m->tr, m->tf);
	return 1;
}

/* The unscanned form of a stored move, to check it exactly as parse did; -1 when malformed. */
static int unscan(const void *in, void *into)
{
	const cw_move *m = in;
	scanned *s = into;

	if (!well_formed(m))
		return -1;
	memset(s, 0, sizeof *s);
	s->army = m->act == ACT_NONE ? -1 : m->army;
	s->fr = m->fr;
	s->ff = m->ff;
	s->tr = m->tr;
	s->tf = m->tf;
	s->letter = (char)m->type;
	switch (m->act) {
	case ACT_NONE: s->act = SC_NONE; break;
	case ACT_MOVE:
	case ACT_ATTACK: s->act = SC_MOVE; break;
	case ACT_CAPITAL:
		s->act = m->fr == m->tr && m->ff == m->tf ? SC_CAP2 : SC_MOVE;
		s->capital = s->act == SC_MOVE;
		break;
	case ACT_BETRAY: s->act = SC_BETRAY; break;
	default: s->act = SC_PASS; break;
	}
	s->ndecl = m->ndecl;
	memcpy(s->decl, m->decl, sizeof s->decl);
	return 0;
}

/* Declarations may come from any seat at any time: a line without an action. */
static int only_declarations(const void *in)
{
	const scanned *s = in;

	return s->act == SC_NONE;
}

/* No turn to check: check_line knows whose turn an action needs. */
static const engine_reader reader = {
	sizeof(scanned), sizeof(cw_move), scan, NULL, check_line, only_declarations, unscan,
};

static int cw_parse(const rules_position *pos, int seat, const char *text, rules_move *move,
		    rules_error *err)
{
	return engine_parse(&reader, pos, seat, text, move, err);
}

/* ---- the rules_game functions ---- */

static int start_variant(const cw_variant *var, const char *options, rules_position **out,
			 rules_error *err)
{
	rules_position *p = engine_start(options, "Civil War", sizeof *p, out, err);

	if (!p)
		return RULES_E_DATA;
	p->var = var;
	for (int a = 0; a < NSEATS; a++) {
		const char *s = var->armies >> a & 1u ? LAYOUT.army[a] : "";
		p->ctrl[a] = home_ctrl(p, a);
		p->bound[a] = -1;
		while (*s) {
			int f = s[1] - 'a', r = atoi(s + 2) - 1;
			p->board[r][f].type = (unsigned char)s[0];
			p->board[r][f].army = (unsigned char)a;
			s += strcspn(s, " ");
			s += strspn(s, " ");
		}
	}
	p->slot = SOUTH;
	return 0;
}

static rules_position *cw_clone(const rules_position *pos)
{
	return xmemdup(pos, sizeof *pos);
}

static size_t cw_format(const rules_position *pos, const rules_move *move, char *buf, size_t size)
{
	cw_move m;
	char tmp[RULES_TEXT_MAX], a[4], b[4];
	size_t len = 0;

	(void)pos;
	if (engine_format_open(move, &m, sizeof m, buf, size) || !well_formed(&m))
		return 0;
	tmp[0] = 0;
	switch (m.act) {
	case ACT_MOVE:
	case ACT_ATTACK:
		len = (size_t)snprintf(tmp, sizeof tmp, "%c: %c%s%c%s", seat_letters[m.army], m.type,
				       square_name(a, m.fr, m.ff), m.act == ACT_ATTACK ? 'x' : '-',
				       square_name(b, m.tr, m.tf));
		break;
	case ACT_CAPITAL:
		if (m.fr == m.tr && m.ff == m.tf)
			len = (size_t)snprintf(tmp, sizeof tmp, "%c: %c%s!", seat_letters[m.army], m.type,
					       square_name(a, m.fr, m.ff));
		else
			len = (size_t)snprintf(tmp, sizeof tmp, "%c: %c%s-%s!", seat_letters[m.army], m.type,
					       square_name(a, m.fr, m.ff), square_name(b, m.tr, m.tf));
		break;
	case ACT_BETRAY:
		len = (size_t)snprintf(tmp, sizeof tmp, "%c: G%s=K", seat_letters[m.army], square_name(a, m.fr, m.ff));
		break;
	case ACT_PASS:
		len = (size_t)snprintf(tmp, sizeof tmp, "%c: pass", seat_letters[m.army]);
		break;
	}
	for (int i = 0; i < m.ndecl && len < sizeof tmp; i++)
		len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%s%s %s", len ? "; " : "",
					m.decl[i][0] == DECL_ALLY ? "ally" : "break", seat_names[m.decl[i][1]]);
	return engine_text_out(tmp, buf, size);
}

static size_t cw_legal_moves(const rules_position *pos, int seat, rules_move_list *out)
{
	engine_gen g = { pos, seat, out, 0 };
	int a = pos->slot, player = army_of_seat(pos, seat);

	if (pos->over || player < 0)
		return 0;
	if (player == pos->ctrl[a]) {
		gen_army(&g, a, player);
		if (!g.count)
			push(&g, ACT_PASS, a, 0, 0, 0, 0, 0);
	}
	if (player == a && can_betray(pos, a))
		for (int r = 0; r < SIZE; r++)
			for (int f = 0; f < SIZE; f++)
				if (pos->board[r][f].type == 'G' && pos->board[r][f].army == a)
					push(&g, ACT_BETRAY, a, 'G', r, f, r, f);
	return g.count;
}

/* Every declaration seat could send now, one per other player: "ally X" or "break X". */
static size_t cw_anytime_moves(const rules_position *pos, int seat, rules_move_list *out)
{
	size_t count = 0;
	int player = army_of_seat(pos, seat);

	for (int t = 0; t < NSEATS && !pos->over && player >= 0; t++) {
		char text[32];
		rules_move move;
		if (t == player || !is_player(pos, t))
			continue;
		snprintf(text, sizeof text, "%s %s", pos->decl[player] >> t & 1u ? "break" : "ally", seat_names[t]);
		if (cw_parse(pos, seat, text, &move, NULL) == 0) {
			rules_move_list_push(out, &move);
			count++;
		}
	}
	return count;
}

/* A player who left the game gives back the armies it controlled and its bonds
 * (docs/rules/civil-war.md, Losing your King: bound players and controlled armies). */
static void leave(rules_position *p, int s, rules_outcome *oc)
{
	for (int x = 0; x < NSEATS; x++) {
		if (x != s && p->ctrl[x] == s) {
			p->ctrl[x] = home_ctrl(p, x);
			if (p->ctrl[x] == NEUTRAL)
				engine_note(oc, "%s's army is neutral again", seat_names[x]);
			else
				engine_note(oc, "%s's army returns to %s", seat_names[x], seat_names[x]);
		}
		if (p->bound[x] == s) {
			p->bound[x] = -1;
			engine_note(oc, "%s is free", seat_names[x]);
		}
		p->decl[x] &= ~(1u << s);
	}
	p->decl[s] = 0;
	p->ctrl[s] = home_ctrl(p, s);
	p->bound[s] = -1;
}

/* Victim's King was removed by captor (docs/rules/civil-war.md, Losing your King: bound players
 * and controlled armies). */
static void king_lost(rules_position *p, int victim, int captor, rules_outcome *oc)
{
	int rec = -1;

	for (int k = 1; k < NSEATS; k++) {
		int s = (victim + k) % NSEATS;
		if (allied(p, victim, s) && holds_king(p, s)) {
			if (s == captor) {
				rec = s;
				break;
			}
			if (rec < 0)
				rec = s;
		}
	}
	if (rec < 0)
		rec = captor;
	if (is_player(p, victim) && army_has(p, victim, 'G')) {
		p->bound[victim] = rec;
		engine_note(oc, "King lost: %s bound to %s", seat_names[victim], seat_names[rec]);
	} else {
		p->ctrl[victim] = rec;
		engine_note(oc, "King lost: %s's army passes to %s", seat_names[victim], seat_names[rec]);
	}
	for (int x = 0; x < NSEATS; x++) {
		if (x != victim && p->ctrl[x] == victim) {
			p->ctrl[x] = x == rec ? x : rec;
			engine_note(oc, "%s's army passes to %s", seat_names[x], seat_names[p->ctrl[x]]);
		}
		if (p->bound[x] == victim) {
			p->bound[x] = -1;
			engine_note(oc, "%s is free", seat_names[x]);
		}
	}
}

/* The players sharing the end of a game that ended how: those holding a King, or, where a draw
 * is shared (two players), every player. */
static unsigned sharers(const rules_position *p, int how)
{
	return how != OVER_WIN && p->var->draw_shared ? p->var->players : p->holders;
}

/* The game ends now (docs/rules/civil-war.md, End of the game); how is OVER_WIN/OVER_DRAW (end
 * condition) or OVER_PASSES. */
static void finish(rules_position *p, int how, rules_outcome *oc)
{
	char who[64];

	p->holders = king_holders(p);
	p->over = how;
	p->slot = -1;
	if (how != OVER_PASSES)
		p->passes = 0;
	names_of(sharers(p, how), who, sizeof who);
	if (how == OVER_WIN)
		engine_note(oc, "game over: %s %s (King on the Capital)", who,
			    popcount4(p->holders) == 1 ? "wins" : "win");
	else if (how == OVER_DRAW)
		engine_note(oc, "game over: draw for %s (no King on the Capital)", who);
	else
		engine_note(oc, "round of passes: draw for %s", who);
}

/* The armies that have a slot: those with pieces (n, as army_counts gives them) that someone
 * moves. */
static int slot_armies(const rules_position *p, const int n[NSEATS])
{
	int k = 0;

	for (int a = 0; a < NSEATS; a++)
		k += n[a] > 0 && p->ctrl[a] != NEUTRAL;
	return k;
}

static int check_end(rules_position *p, rules_outcome *oc)
{
	if (!end_condition(p))
		return 0;
	finish(p, capital_king(p) ? OVER_WIN : OVER_DRAW, oc);
	return 1;
}

/* The next slot, passing automatically for armies that cannot act (docs/rules/civil-war.md, Your
 * turn, passing). */
static void advance(rules_position *p, rules_outcome *oc)
{
	int in_play, a = p->slot, n[NSEATS];

	army_counts(p, n);
	in_play = slot_armies(p, n);
	for (;;) {
		if (p->passes >= in_play) {
			finish(p, OVER_PASSES, oc);
			return;
		}
		do
			a = (a + 1) % NSEATS;
		while (!n[a] || p->ctrl[a] == NEUTRAL);
		p->slot = a;
		if (has_action(p, a) || can_betray(p, a))
			return;
		engine_note(oc, "%c: pass", seat_letters[a]);
		p->passes++;
	}
}

/* Declarations taking effect (docs/rules/civil-war.md, Alliances); those involving a player who
 * is out lapse. */
static void apply_decls(rules_position *p, int seat, const cw_move *m, rules_outcome *oc)
{
	for (int i = 0; i < m->ndecl; i++) {
		int t = m->decl[i][1], was;
		if (is_out(p, seat) || is_out(p, t))
			continue;
		was = allied(p, seat, t);
		if (m->decl[i][0] == DECL_ALLY)
			p->decl[seat] |= 1u << t;
		else
			p->decl[seat] &= ~(1u << t);
		if (!was && allied(p, seat, t))
			engine_note(oc, "alliance formed: %s and %s", seat_names[seat], seat_names[t]);
		else if (was && !allied(p, seat, t))
			engine_note(oc, "alliance ended: %s and %s", seat_names[seat], seat_names[t]);
	}
}

static int cw_apply(rules_position *pos, const rules_move *move, const rules_dice *dice,
		    rules_outcome *outcome, rules_error *err)
{
	cw_move m;
	rules_position np;
	int seat = army_of_seat(pos, move->seat), rc, roll = 0, need = 0, result = 2;   /* 2 success, 1 draw, 0 failure */
	int count[NSEATS], after[NSEATS];
	char a1[4];

	if (outcome)
		outcome->note[0] = 0;
	if (pos->over)
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if ((rc = engine_recheck(&reader, pos, move, &m, err)))
		return rc;

	/* The die first: nothing changes when it cannot be rolled. */
	if (m.act == ACT_ATTACK || m.act == ACT_CAPITAL) {
		int cr = m.act == ACT_CAPITAL ? LAYOUT.capital_r : m.tr;
		int cf = m.act == ACT_CAPITAL ? LAYOUT.capital_f : m.tf;
		int av = value_of(m.type), dv = value_of(pos->board[cr][cf].type);
		if (av <= dv) {
			need = av == dv ? 9 : dv - av + 2;
			if (!dice || !dice->roll || dice->roll(dice->ctx, 12, &roll) < 0 || roll < 1 || roll > 12)
				return rules_fail(err, RULES_E_DICE, "the attack needs a roll of the die, and none could be made");
			if (roll >= need)
				result = 2;
			else if (av == dv)
				result = roll >= 5;
			else
				result = roll >= dv - av;
		}
	}

	/* Valid: from here on nothing fails. */
	np = *pos;
	army_counts(&np, count);
	if (m.act == ACT_MOVE || m.act == ACT_ATTACK || m.act == ACT_CAPITAL) {
		square mover = np.board[m.fr][m.ff], victim;
		int capital = m.act == ACT_CAPITAL;
		int vr = capital ? LAYOUT.capital_r : m.tr, vf = capital ? LAYOUT.capital_f : m.tf;
		victim = np.board[vr][vf];
		if (m.act != ACT_MOVE) {
			if (!need)
				engine_note(outcome, "no roll: success");
			else if (result == 2)
				engine_note(outcome, "roll %d on d12, needs %d+: success", roll, need);
			else if (result == 1)
				engine_note(outcome, "roll %d on d12, needs %d+: draw, back to %s", roll, need,
					    square_name(a1, m.fr, m.ff));
			else
				engine_note(outcome, "roll %d on d12, needs %d+: failure, attacker removed", roll, need);
		}
		if (result == 2) {
			memset(&np.board[vr][vf], 0, sizeof(square));
			memset(&np.board[m.fr][m.ff], 0, sizeof(square));
			if (promoted_form(mover.type) && fortress_of(m.tr, m.tf) >= 0
			    && fortress_of(m.tr, m.tf) != mover.army) {
				mover.type = (unsigned char)promoted_form(mover.type);
				engine_note(outcome, "promotes to %c", mover.type);
			}
			np.board[m.tr][m.tf] = mover;
			if (m.act != ACT_MOVE && victim.type == 'K')
				king_lost(&np, victim.army, seat, outcome);
		} else if (result == 0) {
			memset(&np.board[m.fr][m.ff], 0, sizeof(square));
		}
		np.passes = 0;
	} else if (m.act == ACT_BETRAY) {
		int a = m.army, former = np.bound[a] >= 0 ? np.bound[a] : np.ctrl[a] != a ? np.ctrl[a] : -1;
		np.board[m.fr][m.ff].type = 'K';
		if (former >= 0) {
			int was = allied(&np, a, former);
			if (np.bound[a] >= 0)
				engine_note(outcome, "%s is no longer bound to %s", seat_names[a], seat_names[former]);
			else
				engine_note(outcome, "%s's army returns to %s", seat_names[a], seat_names[a]);
			np.bound[a] = -1;
			np.ctrl[a] = a;
			np.decl[a] &= ~(1u << former);
			np.decl[former] &= ~(1u << a);
			if (was)
				engine_note(outcome, "alliance ended: %s and %s", seat_names[a], seat_names[former]);
		}
		np.passes = 0;
	} else if (m.act == ACT_PASS) {
		np.passes++;
	}

	/* Armies left without pieces are out (docs/rules/civil-war.md, End of the game). */
	army_counts(&np, after);
	for (int x = 0; x < NSEATS; x++)
		if (count[x] && !after[x]) {
			engine_note(outcome, "%s is out", seat_names[x]);
			leave(&np, x, outcome);
		}
	if (!check_end(&np, outcome)) {
		apply_decls(&np, seat, &m, outcome);
		if (!check_end(&np, outcome) && m.act != ACT_NONE)
			advance(&np, outcome);
	}
	*pos = np;
	return 0;
}

static unsigned cw_turn(const rules_position *pos)
{
	unsigned m;

	if (pos->over)
		return 0;
	m = 1u << seat_of_army(pos, pos->ctrl[pos->slot]);
	if (can_betray(pos, pos->slot))
		m |= 1u << seat_of_army(pos, pos->slot);
	return m;
}

/* Ranks from the players sharing the end: they are 1st, everybody else shares the next rank; the
 * ranks are the seats' (a neutral army has none). */
static void set_ranks(const rules_position *p, rules_result *out, unsigned sharing)
{
	out->over = 1;
	for (int s = 0; s < p->var->nseats; s++)
		out->rank[s] = (sharing >> army_of_seat(p, s) & 1u) ? 1 : popcount4(sharing) + 1;
}

static void summary_of(const rules_position *p, int how, const char *prefix, char *buf, size_t size)
{
	char who[64], rest[64];
	unsigned sharing = sharers(p, how), others = p->var->players & ~sharing;

	names_of(sharing, who, sizeof who);
	names_of(others, rest, sizeof rest);
	if (how == OVER_WIN)
		snprintf(buf, size, "%.18s%.36s %s: King on the Capital%s%.30s%s", prefix, who,
			 popcount4(sharing) == 1 ? "wins" : "win", others ? " (" : "", rest,
			 !others ? "" : popcount4(others) == 1 ? " loses)" : " lose)");
	else
		snprintf(buf, size, "%.18sDraw for %.36s: %s%s%.30s%s", prefix, who,
			 how == OVER_PASSES ? "nobody can act" : "no King on the Capital",
			 others ? " (" : "", rest, !others ? "" : popcount4(others) == 1 ? " loses)" : " lose)");
}

static void cw_result(const rules_position *pos, rules_result *out)
{
	memset(out, 0, sizeof *out);
	if (pos->over) {
		set_ranks(pos, out, sharers(pos, pos->over));
		summary_of(pos, pos->over, "", out->summary, sizeof out->summary);
	} else if (pos->ctrl[pos->slot] == pos->slot) {
		snprintf(out->summary, sizeof out->summary, "%s to act", seat_names[pos->slot]);
	} else {
		snprintf(out->summary, sizeof out->summary, "%s's army to act, moved by %s",
			 seat_names[pos->slot], seat_names[pos->ctrl[pos->slot]]);
	}
}

/*
 * Resignation (docs/rules/civil-war.md, End of the game): the resigner's own army leaves the
 * board, the armies it controlled go back to their owners, its alliances lapse and the players
 * bound to it are free; then the end condition is checked, and otherwise play goes on (from the
 * next army when the resigner's army had the slot). A resignation breaks a round of passes
 * (house ruling 27): the armies that passed may be able to act on the changed board.
 */
static int cw_resign(rules_position *pos, int player_seat, rules_outcome *oc, rules_error *err)
{
	int seat = army_of_seat(pos, player_seat);

	if (seat < 0)
		return rules_fail(err, RULES_E_ILLEGAL, "there is no such seat");
	if (pos->over)
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if (is_out(pos, seat))
		return rules_fail(err, RULES_E_ILLEGAL, "%s is already out of the game", seat_names[seat]);
	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			if (pos->board[r][f].type && pos->board[r][f].army == seat)
				memset(&pos->board[r][f], 0, sizeof(square));
	engine_note(oc, "%s resigns; %s is out", seat_names[seat], seat_names[seat]);
	leave(pos, seat, oc);
	pos->passes = 0;
	if (check_end(pos, oc))
		return 0;
	if (pos->slot == seat || !(has_action(pos, pos->slot) || can_betray(pos, pos->slot)))
		advance(pos, oc);
	return 0;
}

/* Players still in the game: those whose army has pieces, controlled or not
 * (docs/rules/civil-war.md, End of the game; scenario CW30). */
static unsigned cw_in_play(const rules_position *pos)
{
	unsigned m = 0;

	for (int s = 0; s < pos->var->nseats; s++)
		if (!is_out(pos, army_of_seat(pos, s)))
			m |= 1u << s;
	return m;
}

/*
 * Resignation (docs/rules/civil-war.md, End of the game) removes the resigner's army, gives
 * back the armies it controlled and frees the players bound to it, and then the end condition
 * is checked. The server ends the game at a resignation, so when the end condition does not
 * hold the game stops there as if nobody could act: a draw for every player still holding a
 * King; everybody else loses.
 */
static void cw_resign_result(const rules_position *pos, int player_seat, rules_result *out)
{
	rules_position p = *pos;
	char prefix[64];
	int seat = army_of_seat(pos, player_seat);
	unsigned players = pos->var->players;

	memset(out, 0, sizeof *out);
	if (seat < 0 || pos->over)
		return;
	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			if (p.board[r][f].type && p.board[r][f].army == seat)
				memset(&p.board[r][f], 0, sizeof(square));
	leave(&p, seat, NULL);
	snprintf(prefix, sizeof prefix, "%s resigned. ", seat_names[seat]);
	if (end_condition(&p))
		finish(&p, capital_king(&p) ? OVER_WIN : OVER_DRAW, NULL);
	else
		finish(&p, OVER_PASSES, NULL);
	set_ranks(&p, out, p.holders);
	if (p.over == OVER_PASSES) {
		char who[64], rest[64];
		names_of(p.holders, who, sizeof who);
		names_of(players & ~p.holders, rest, sizeof rest);
		snprintf(out->summary, sizeof out->summary, "%.18sThe game stops: draw for %.40s (%.30s %s)",
			 prefix, who, rest, popcount4(players & ~p.holders) == 1 ? "loses" : "lose");
	} else {
		summary_of(&p, p.over, prefix, out->summary, sizeof out->summary);
	}
}

/*
 * Serialized position, one line:
 *
 *   cw1:<rank 1>/<rank 2>/.../<rank 15>:<slot>:<controllers>:<bonds>:<declarations>:<passes>:<result>
 *
 * Each rank lists its 15 squares from file a to file o: '.' for an empty square, or a piece as its
 * army (s, w, n, e) and its letter (K Q R G B A N O P M).
 * <slot> is the army whose slot it is (S, W, N or E), or '-' once the game is over.
 * <controllers> is four letters, the player moving the South, West, North and East army ("SWNE"
 * when everybody moves their own; "SSNE" when South moves West's army), or '-' for an army of no
 * player that nobody moves: the neutral army, or an army not in the game.
 * <bonds> is four characters, for South, West, North and East: '-' or the overlord's letter.
 * <declarations> is four fields separated by ',', for South, West, North and East: '-' or the
 * letters of the seats that player has declared alliance with, in seat order ("N,-,S,-": South
 * and North are allied).
 * <passes> is the number of passes in a row (0-4).
 * <result> is '-' while the game goes on, else "win=" or "draw=" and the letters of the players
 * holding a King at the end ("win=SN"), or "passes=" and those letters after a round of passes.
 * The start position's ranks, 1 to 15, separated by '/' in the text, are
 *   ...sBsRsRsB....eP...        .sKsQ..sNsN....eP.eK.       ...........eP.eQ.
 *   sPsPsPsPsPsPsP....eP..eB    ...........eP..eR           ...........eP.eNeR
 *   ...........eP.eNeB          ...............             wBwN.wP...........
 *   wRwN.wP...........          wR..wP...........           wB..wP....nPnPnPnPnPnPnP
 *   .wQ.wP...........           .wK.wP....nNnN..nQnK.       ...wP....nBnRnRnB...
 * followed by ":S:SWNE:----:-,-,-,-:0:-".
 *
 * The variants write the same text after their own prefix: "cw2p1:" for two players (no West or
 * East pieces; controllers "S-N-"), "cw3p1:" for three (controllers "SWN-" while East's army is
 * neutral, "SWNS" once South has captured its King).
 */
static char *cw_serialize(const rules_position *pos)
{
	size_t cap = strlen(pos->var->tag) + SIZE * (SIZE * 2 + 1) + 64, len = 0;
	char *s = xmalloc(cap);

	len += (size_t)snprintf(s, cap, "%s", pos->var->tag);
	for (int r = 0; r < SIZE; r++) {
		for (int f = 0; f < SIZE; f++) {
			const square *c = &pos->board[r][f];
			if (!c->type) {
				s[len++] = '.';
			} else {
				s[len++] = army_codes[c->army];
				s[len++] = (char)c->type;
			}
		}
		s[len++] = r < SIZE - 1 ? '/' : ':';
	}
	s[len++] = pos->over ? '-' : seat_letters[pos->slot];
	s[len++] = ':';
	for (int a = 0; a < NSEATS; a++)
		s[len++] = pos->ctrl[a] == NEUTRAL ? '-' : seat_letters[pos->ctrl[a]];
	s[len++] = ':';
	for (int a = 0; a < NSEATS; a++)
		s[len++] = pos->bound[a] >= 0 ? seat_letters[pos->bound[a]] : '-';
	s[len++] = ':';
	for (int a = 0; a < NSEATS; a++) {
		if (a)
			s[len++] = ',';
		if (!pos->decl[a])
			s[len++] = '-';
		for (int t = 0; t < NSEATS; t++)
			if (pos->decl[a] >> t & 1u)
				s[len++] = seat_letters[t];
	}
	len += (size_t)snprintf(s + len, cap - len, ":%d:", pos->passes);
	if (!pos->over) {
		s[len++] = '-';
		s[len] = 0;
	} else {
		len += (size_t)snprintf(s + len, cap - len, "%s=", pos->over == OVER_WIN ? "win"
					: pos->over == OVER_DRAW ? "draw" : "passes");
		for (int t = 0; t < NSEATS; t++)
			if (pos->holders >> t & 1u)
				s[len++] = seat_letters[t];
		s[len] = 0;
	}
	return s;
}

static int bad_data(rules_error *err, const char *what)
{
	return engine_corrupt(err, "Civil War", what);
}

static int seat_of_letter(char ch)
{
	return engine_seat_of_letter(seat_letters, ch);
}

/* A set of seat letters in seat order, or '-' for none; returns -1 on a bad set. */
static int read_set(const char **pp, unsigned *mask)
{
	if (**pp == '-') {
		++*pp;
		*mask = 0;
		return 0;
	}
	return engine_read_seat_set(pp, seat_letters, mask) || !*mask ? -1 : 0;
}

static int deserialize_variant(const cw_variant *var, const char *text, rules_position **out,
			       rules_error *err)
{
	rules_position pos;
	const char *p;
	int kings[NSEATS] = { 0, 0, 0, 0 }, count[NSEATS] = { 0, 0, 0, 0 }, in_play;

	*out = NULL;
	if (!(p = engine_position_body(text, var->tag, "a Civil War", err)))
		return RULES_E_DATA;
	memset(&pos, 0, sizeof pos);
	pos.var = var;
	for (int r = 0; r < SIZE; r++) {
		for (int f = 0; f < SIZE; f++) {
			square *c = &pos.board[r][f];
			int army, fo;
			if (*p == '.') {
				p++;
				continue;
			}
			if ((army = engine_seat_of_letter(army_codes, *p)) < 0)
				return bad_data(err, "bad square");
			c->army = (unsigned char)army;
			p++;
			if (!is_piece_letter(*p))
				return bad_data(err, "bad piece letter");
			c->type = (unsigned char)*p++;
			count[c->army]++;
			kings[c->army] += c->type == 'K';
			if (is_capital(r, f) && c->type != 'K')
				return bad_data(err, "a piece other than a King on the Capital");
			fo = fortress_of(r, f);
			if (promoted_form(c->type) && fo >= 0 && fo != c->army)
				return bad_data(err, "an unpromoted piece in a foreign fortress");
		}
		if (*p++ != (r < SIZE - 1 ? '/' : ':'))
			return bad_data(err, "bad rank");
	}
	for (int a = 0; a < NSEATS; a++) {
		if (kings[a] > 1 || count[a] > 15)
			return bad_data(err, "too many pieces in an army");
		if (count[a] && !(var->armies >> a & 1u))
			return bad_data(err, "pieces of an army that is not in this game");
	}
	if (engine_read_seat_field(&p, seat_letters, &pos.slot))
		return bad_data(err, "bad slot");
	for (int a = 0; a < NSEATS; a++) {
		char ch = *p++;
		if (ch == '-' && !is_player(&pos, a))
			pos.ctrl[a] = NEUTRAL;
		else if ((pos.ctrl[a] = seat_of_letter(ch)) < 0 || !is_player(&pos, pos.ctrl[a]))
			return bad_data(err, "bad controllers");
	}
	if (*p++ != ':')
		return bad_data(err, "bad controllers");
	for (int a = 0; a < NSEATS; a++) {
		char ch = *p++;
		if (ch == '-')
			pos.bound[a] = -1;
		else if ((pos.bound[a] = seat_of_letter(ch)) < 0 || !is_player(&pos, a))
			return bad_data(err, "bad bonds");
	}
	if (*p++ != ':')
		return bad_data(err, "bad bonds");
	for (int a = 0; a < NSEATS; a++) {
		if (read_set(&p, &pos.decl[a]) || *p++ != (a < NSEATS - 1 ? ',' : ':'))
			return bad_data(err, "bad declarations");
	}
	if (*p < '0' || *p > '4' || p[1] != ':')
		return bad_data(err, "bad passes");
	pos.passes = *p - '0';
	p += 2;
	if (!strcmp(p, "-")) {
		pos.over = OVER_NO;
	} else {
		size_t n = strcspn(p, "=");
		if (n == 3 && !strncmp(p, "win", 3))
			pos.over = OVER_WIN;
		else if (n == 4 && !strncmp(p, "draw", 4))
			pos.over = OVER_DRAW;
		else if (n == 6 && !strncmp(p, "passes", 6))
			pos.over = OVER_PASSES;
		else
			return bad_data(err, "bad result");
		p += n;
		if (*p++ != '=' || read_set(&p, &pos.holders) || *p || !pos.holders)
			return bad_data(err, "bad result");
	}
	in_play = slot_armies(&pos, count);

	/* Consistency of control, bonds and declarations (docs/rules/civil-war.md, Losing your King:
	 * bound players and controlled armies, Betrayal, Alliances). */
	for (int a = 0; a < NSEATS; a++) {
		int c = pos.ctrl[a], o = pos.bound[a], home = home_ctrl(&pos, a);
		if (!count[a] && (c != home || o >= 0 || pos.decl[a]))
			return bad_data(err, "an army that is out still takes part");
		if (pos.decl[a] & (1u << a))
			return bad_data(err, "a declaration toward oneself");
		if (pos.decl[a] && (!var->alliances || !is_player(&pos, a)))
			return bad_data(err, "a declaration where there are no alliances");
		for (int t = 0; t < NSEATS; t++)
			if ((pos.decl[a] >> t & 1u) && (!count[t] || !is_player(&pos, t)))
				return bad_data(err, "a declaration toward a player who is out");
		if (c != home && (kings[a] || !count[c] || pos.ctrl[c] != c || o >= 0))
			return bad_data(err, "an impossible controller");
		if (o >= 0 && (o == a || kings[a] || !count[o] || pos.ctrl[o] != o))
			return bad_data(err, "an impossible bond");
	}
	if (pos.over == OVER_NO) {
		if (pos.slot < 0 || !count[pos.slot] || pos.ctrl[pos.slot] == NEUTRAL || pos.passes >= in_play)
			return bad_data(err, "the slot does not fit the armies in play");
		if (end_condition(&pos) || !king_holders(&pos))
			return bad_data(err, "a game that should have ended");
	} else {
		if (pos.slot >= 0 || pos.holders != king_holders(&pos))
			return bad_data(err, "the result does not fit the Kings on the board");
		if (pos.over == OVER_PASSES ? pos.passes != in_play
		    : pos.passes != 0 || !end_condition(&pos) || (pos.over == OVER_WIN) != capital_king(&pos))
			return bad_data(err, "the result does not fit the position");
	}
	*out = cw_clone(&pos);
	return 0;
}

/*
 * As drawn for South: rank 15 at the top, file a on the left. A cell holds the piece letter, its
 * army's seat as owner (for an army of no player: its controller's seat, or none and neutral) and
 * its army's facing; kinds are "fortress", "capital" and "lane" (rank 8 and
 * file h); walls are drawn on both cells of every wall segment, never on a gate.
 */
static void cw_view(const rules_position *pos, rules_view *out)
{
	char who[64];
	int n = 0, counts[NSEATS];
	signed char fort[SIZE][SIZE];

	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++)
			fort[r][f] = (signed char)fortress_of(r, f);
	army_counts(pos, counts);
	memset(out, 0, sizeof *out);
	out->rows = SIZE;
	out->cols = SIZE;
	out->has_facing = 1;
	for (int row = 0; row < SIZE; row++) {
		int r = SIZE - 1 - row;
		snprintf(out->row_label[row], sizeof out->row_label[row], "%d", r + 1);
		snprintf(out->col_label[row], sizeof out->col_label[row], "%c", 'a' + row);
		for (int f = 0; f < SIZE; f++) {
			rules_cell *cell = &out->cell[row][f];
			const square *c = &pos->board[r][f];
			static const int side[4][3] = {
				{ 1, 0, RULES_WALL_TOP }, { 0, 1, RULES_WALL_RIGHT },
				{ -1, 0, RULES_WALL_BOTTOM }, { 0, -1, RULES_WALL_LEFT },
			};
			square_name(cell->name, r, f);
			cell->owner = -1;
			cell->facing = RULES_FACING_NONE;
			if (is_capital(r, f))
				strcpy(cell->kind, "capital");
			else if (fort[r][f] >= 0)
				strcpy(cell->kind, "fortress");
			else if (r == LAYOUT.capital_r || f == LAYOUT.capital_f)
				strcpy(cell->kind, "lane");
			for (int k = 0; k < 4; k++) {
				int nr = r + side[k][0], nf = f + side[k][1];
				if (on_board(nr, nf) && !step_ok_in(fort[r][f], fort[nr][nf], r, f, nr, nf))
					cell->walls |= (unsigned char)side[k][2];
			}
			if (!c->type)
				continue;
			cell->piece[0] = (char)c->type;
			/* An army of no player is drawn as its controller's, or neutral. */
			cell->owner = (signed char)seat_of_army(pos, is_player(pos, c->army) ? c->army
								 : pos->ctrl[c->army]);
			cell->neutral = cell->owner < 0;
			cell->facing = (signed char)facing_of(c->army);
		}
	}

	/* Notes: who acts, alliances, declarations, control and bonds, armies out, passes. */
	if (pos->over) {
		rules_result res;
		cw_result(pos, &res);
		snprintf(out->notes[n++], sizeof out->notes[0], "Game over: %s", res.summary);
	} else {
		int a = pos->slot, c = pos->ctrl[a];
		if (c == a)
			snprintf(out->notes[n], sizeof out->notes[0], "To act: %s", seat_names[a]);
		else
			snprintf(out->notes[n], sizeof out->notes[0], "To act: %s's army, moved by %s",
				 seat_names[a], seat_names[c]);
		if (can_betray(pos, a)) {
			size_t len = strlen(out->notes[n]);
			snprintf(out->notes[n] + len, sizeof out->notes[0] - len,
				 " (%s may crown a Grand Prince instead)", seat_names[a]);
		}
		n++;
	}
	{
		char line[160] = "Alliances: ";
		int any = 0;
		for (int a = 0; a < NSEATS; a++)
			for (int b = a + 1; b < NSEATS; b++)
				if (allied(pos, a, b)) {
					size_t len = strlen(line);
					snprintf(line + len, sizeof line - len, "%s%s and %s", any ? "; " : "",
						 seat_names[a], seat_names[b]);
					any = 1;
				}
		if (!any)
			strcat(line, "none");
		snprintf(out->notes[n++], sizeof out->notes[0], "%s", line);
		line[0] = 0;
		any = 0;
		for (int a = 0; a < NSEATS; a++)
			for (int b = 0; b < NSEATS; b++)
				if ((pos->decl[a] >> b & 1u) && !allied(pos, a, b)) {
					size_t len = strlen(line);
					snprintf(line + len, sizeof line - len, "%s%s to %s", any ? "; " : "",
						 seat_names[a], seat_names[b]);
					any = 1;
				}
		if (any)
			snprintf(out->notes[n++], sizeof out->notes[0], "Declared, not returned: %.130s", line);
		line[0] = 0;
		any = 0;
		for (int a = 0; a < NSEATS; a++) {
			size_t len = strlen(line);
			if (!counts[a] || army_has(pos, a, 'K') || !is_player(pos, a))
				continue;
			if (pos->ctrl[a] != a)
				snprintf(line + len, sizeof line - len, "%s%s (army moved by %s)", any ? "; " : "",
					 seat_names[a], seat_names[pos->ctrl[a]]);
			else if (pos->bound[a] >= 0)
				snprintf(line + len, sizeof line - len, "%s%s (bound to %s)", any ? "; " : "",
					 seat_names[a], seat_names[pos->bound[a]]);
			else
				snprintf(line + len, sizeof line - len, "%s%s (free)", any ? "; " : "", seat_names[a]);
			any = 1;
		}
		if (any)
			snprintf(out->notes[n++], sizeof out->notes[0], "Without a King: %.140s", line);
	}
	for (int a = 0; a < NSEATS; a++) {
		if (!counts[a] || is_player(pos, a))
			continue;
		if (pos->ctrl[a] == NEUTRAL)
			snprintf(out->notes[n++], sizeof out->notes[0],
				 "Neutral: %s's army (never moves; whoever captures its King takes it)", seat_names[a]);
		else
			snprintf(out->notes[n++], sizeof out->notes[0], "%s's army (no player's): moved by %s",
				 seat_names[a], seat_names[pos->ctrl[a]]);
	}
	{
		unsigned outs = 0;
		for (int a = 0; a < NSEATS; a++)
			outs |= (unsigned)(!counts[a] && is_player(pos, a)) << a;
		if (outs)
			snprintf(out->notes[n++], sizeof out->notes[0], "Out: %s", names_of(outs, who, sizeof who));
	}
	if (!pos->over && pos->passes)
		snprintf(out->notes[n++], sizeof out->notes[0], "Passes in a row: %d", pos->passes);
	out->nnotes = n;
}

/* Appends words to a gesture's choice, after ", " when it holds some already; words that would not
 * fit whole are left out rather than cut in the middle. */
static void choice_add(rules_gesture *out, const char *words)
{
	size_t len = strlen(out->choice), sep = len ? 2 : 0, n = strlen(words);

	if (len + sep + n >= sizeof out->choice)
		return;
	memcpy(out->choice + len, ", ", sep);
	memcpy(out->choice + len + sep, words, n + 1);
}

/*
 * How an action is pointed at on the drawn board. A move or an attack touches the piece and where
 * it goes, with no words: the board decides which it is and the die decides an attack. A Capital
 * attack touches the piece and the square it attacks from after its move (Rh5-h7!), or the
 * King on the Capital when it attacks where it stands (Rh7!); the move next to the Capital is also
 * a plain move, so both forms say "attack the Capital". A betrayal touches the Grand Prince to
 * crown. A pass and the declarations touch nothing and are told in words; declarations sent after
 * an action add their words to the action's. Promotions are compulsory and need no words.
 */
static void cw_gesture(const rules_position *pos, const rules_move *move, rules_gesture *out)
{
	cw_move m;

	(void)pos;
	if (engine_gesture_open(&reader, move, &m, out))
		return;
	switch (m.act) {
	case ACT_MOVE:
	case ACT_ATTACK:
		square_name(out->at[out->n++], m.fr, m.ff);
		square_name(out->at[out->n++], m.tr, m.tf);
		break;
	case ACT_CAPITAL:
		square_name(out->at[out->n++], m.fr, m.ff);
		if (m.fr == m.tr && m.ff == m.tf)
			square_name(out->at[out->n++], LAYOUT.capital_r, LAYOUT.capital_f);
		else
			square_name(out->at[out->n++], m.tr, m.tf);
		choice_add(out, "attack the Capital");
		break;
	case ACT_BETRAY:
		square_name(out->at[out->n++], m.fr, m.ff);
		choice_add(out, "crown as King (betrayal)");
		break;
	case ACT_PASS:
		choice_add(out, "pass");
		break;
	}
	for (int i = 0; i < m.ndecl; i++) {
		char words[32];
		snprintf(words, sizeof words, "%s with %s", m.decl[i][0] == DECL_ALLY ? "ally" : "break",
			 seat_names[m.decl[i][1]]);
		choice_add(out, words);
	}
}

/* South's home (the bottom-left quadrant, forward up) is at the bottom as drawn; the others are
 * the same layout turned (see the house layout table). */
static int quarter_turns_of(const cw_variant *var, int seat)
{
	return seat >= 0 && seat < var->nseats ? LAYOUT.quarter_turns[var->army[seat]] : 0;
}

/* The functions of rules.h that start from no position, one set per variant. */
#define CW_VARIANT_ENTRIES(prefix, var) \
	static int prefix##_start(const char *options, rules_position **out, rules_error *err) \
	{ \
		return start_variant(&var, options, out, err); \
	} \
	static int prefix##_deserialize(const char *text, rules_position **out, rules_error *err) \
	{ \
		return deserialize_variant(&var, text, out, err); \
	} \
	static int prefix##_view_quarter_turns(int seat) \
	{ \
		return quarter_turns_of(&var, seat); \
	}

CW_VARIANT_ENTRIES(cw, FOUR)
CW_VARIANT_ENTRIES(cw2, TWO)
CW_VARIANT_ENTRIES(cw3, THREE)

/* What the three games share: the engine's functions but those that start from no position. */
#define CW_ENGINE \
	.version = 1, \
	.legend = "K King, Q Queen, R Prince, G Grand Prince (promoted Prince), B Bishop, A Archbishop, N Knight, O Baron, P Pawn, M Pikeman", \
	.draw_rank = 1, \
	.free_position = engine_free_flat, \
	.clone = cw_clone, \
	.parse = cw_parse, \
	.format = cw_format, \
	.legal_moves = cw_legal_moves, \
	.continuations = engine_no_continuations, \
	.apply = cw_apply, \
	.turn = cw_turn, \
	.result = cw_result, \
	.serialize = cw_serialize, \
	.in_play = cw_in_play, \
	.view = cw_view, \
	.gesture = cw_gesture

#define CW_CHOICE_HELP \
	"No move is ever partial: every action is written whole, a Capital attack with '!' " \
	"(Rh5-h7! or Rh7!) and a betrayal as G<square>=K."
#define CW_ALLIANCE_HELP \
	" Alliance declarations (ally <seat>, break <seat>) may be sent at any time, alone or after an " \
	"action and ';'."

const rules_game rules_civil_war = {
	CW_ENGINE,
	.id = "civil-war",
	.title = "Civil War",
	.summary = "Four-player war game on a 15x15 board with walled fortresses and a Capital: attacks are "
		"settled with a twelve-sided die, alliances are declared in public, and a player who loses the "
		"King may lose the army or betray with a Grand Prince.",
	.nseats = NSEATS,
	.seat_names = seat_names,
	.choice_help = CW_CHOICE_HELP CW_ALLIANCE_HELP,
	.start = cw_start,
	.anytime_moves = cw_anytime_moves,
	.deserialize = cw_deserialize,
	.resign_result = cw_resign_result,
	.resign = cw_resign,
	.view_quarter_turns = cw_view_quarter_turns,
};

static const char *const seat_names_2[] = { "South", "North" };

/* Two players: a resignation ends the game, won by the other player (rules.h's default). */
const rules_game rules_civil_war_2 = {
	CW_ENGINE,
	.id = "civil-war-2",
	.title = "Civil War for two",
	.summary = "Civil War for two players, South against North on the walled 15x15 board: the first "
		"King captured ends the game, won by a captor whose King holds the Capital, else drawn.",
	.nseats = 2,
	.seat_names = seat_names_2,
	.choice_help = CW_CHOICE_HELP " There are no alliances.",
	.start = cw2_start,
	.deserialize = cw2_deserialize,
	.view_quarter_turns = cw2_view_quarter_turns,
};

static const char *const seat_names_3[] = { "South", "West", "North" };

const rules_game rules_civil_war_3 = {
	CW_ENGINE,
	.id = "civil-war-3",
	.title = "Civil War for three",
	.summary = "Civil War for three players beside a neutral East army that never moves: whoever "
		"captures its King takes its pieces; alliances, control and betrayal as for four.",
	.nseats = 3,
	.seat_names = seat_names_3,
	.choice_help = CW_CHOICE_HELP CW_ALLIANCE_HELP,
	.start = cw3_start,
	.anytime_moves = cw_anytime_moves,
	.deserialize = cw3_deserialize,
	.resign_result = cw_resign_result,
	.resign = cw_resign,
	.view_quarter_turns = cw3_view_quarter_turns,
};
