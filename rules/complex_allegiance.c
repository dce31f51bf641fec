/* complex_allegiance.c - the rules of Complex Allegiance Chess (four players, 10x10 board without
 * corners, shared pawns), as docs/rules/complex-allegiance.md tells them. */
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

/*
 * Squares are held 0-based inside: board[r][f] with r = rank - 1 (r 0 is
 * rank 1, North's edge, drawn at the top) and f = file - 'a' (f 0 is file a,
 * West's edge, drawn on the left). Every message and text shows them as the
 * notation writes them, "e2", "j10".
 */
enum { SIZE = 10, NORTH = 0, EAST = 1, SOUTH = 2, WEST = 3, NSEATS = 4 };

/* Owner codes: 0-3 the seats, 4-7 the shared pieces (controller pairs). */
enum { NW = 4, NE = 5, SW = 6, SE = 7 };

enum { SPECIAL_NONE, CASTLE_SHORT, CASTLE_LONG, EN_PASSANT };

enum { OVER_NO, OVER_KING, OVER_DRAW };

/* En passant rights alive at once: one per seat that double-stepped during the
 * last three turns, so at most three; one spare. */
#define MAX_EP 4

#define TAG "ca1:"

typedef struct square {
	unsigned char type;     /* 0 empty, else 'K' 'Q' 'R' 'B' 'N' 'P' */
	unsigned char owner;    /* seat 0-3, or NW..SE for a shared piece */
	unsigned char unmoved;  /* 1 for a King, Rook or Pawn that has never moved */
} square;

/* The right to take the pawn on (r2,f2), which double-stepped over (r1,f1),
 * en passant: held by the seats in holders, each on its next turn only. */
typedef struct ep_right {
	unsigned char r1, f1, r2, f2;
	unsigned char holders;  /* bit mask of seats */
} ep_right;

struct rules_position {
	square board[SIZE][SIZE];
	int to_move;            /* seat to move; -1 once the game is over */
	int nep;
	ep_right ep[MAX_EP];    /* oldest first */
	int over;               /* OVER_NO, OVER_KING or OVER_DRAW */
	int winner, loser;      /* for OVER_KING: the capturer and the King's owner */
};

/* Our move inside rules_move.raw. Unused bytes stay zero so that equal moves
 * compare equal with memcmp. */
typedef struct ca_move {
	unsigned char type;             /* the moving piece: 'K' 'Q' 'R' 'B' 'N' 'P' */
	unsigned char fr, ff, tr, tf;   /* 0-based rank and file; a castle is the King's move */
	unsigned char capture;          /* 1 when a piece is taken (en passant included) */
	unsigned char promo;            /* 0, or 'Q' 'R' 'B' 'N' */
	unsigned char special;          /* SPECIAL_NONE, CASTLE_SHORT, CASTLE_LONG, EN_PASSANT */
} ca_move;

static_assert(sizeof(ca_move) <= RULES_MOVE_BYTES, "ca_move must fit in rules_move.raw");

static const char *const seat_names[] = { "North", "East", "South", "West" };
static const char seat_letters[] = "NESW";
static const char owner_codes[] = "nesw";       /* seat pieces in the position text */
static const char *const group_names[] = { "NW", "NE", "SW", "SE" };
/* Controllers of each shared group, as seat bit masks. */
static const unsigned char group_seats[4] = {
	1u << NORTH | 1u << WEST, 1u << NORTH | 1u << EAST,
	1u << SOUTH | 1u << WEST, 1u << SOUTH | 1u << EAST,
};
/* "Forward" for each seat's pawns, as (rank step, file step). */
static const int fwd[NSEATS][2] = { { 1, 0 }, { 0, -1 }, { -1, 0 }, { 0, 1 } };
static const char *const toward[NSEATS] = {
	"toward rank 10", "toward file a", "toward rank 1", "toward file j",
};
static const char *const home_edge[NSEATS] = { "rank 1", "file j", "rank 10", "file a" };

/* The starting position as docs/rules/complex-allegiance.md, Starting position, draws
 * it: piece types and owners (n e s w, 1 = NW, 2 = NE, 3 = SW, 4 = SE). */
static const char *const start_types[SIZE] = {
	"-RNBKQBNR-", "RPPPPPPPPR", "NP......PN", "BP......PB", "QP......PK",
	"KP......PQ", "BP......PB", "NP......PN", "RPPPPPPPPR", "-RNBQKBNR-",
};
static const char *const start_owners[SIZE] = {
	"-nnnnnnnn-", "w1nnnnnn2e", "ww......ee", "ww......ee", "ww......ee",
	"ww......ee", "ww......ee", "ww......ee", "w3ssssss4e", "-ssssssss-",
};

/* Castling, per seat: the King's square and the directions of the Rook
 * 3 squares away (O-O) and 4 squares away (O-O-O). See
 * docs/rules/complex-allegiance.md, Castling. */
static const struct {
	int kr, kf;
	int dir[2][2];
} castles[NSEATS] = {
	{ 0, 4, { { 0, -1 }, { 0, 1 } } },      /* North: K e1, Rooks b1 and i1 */
	{ 4, 9, { { -1, 0 }, { 1, 0 } } },      /* East: K j5, Rooks j2 and j9 */
	{ 9, 5, { { 0, 1 }, { 0, -1 } } },      /* South: K f10, Rooks i10 and b10 */
	{ 5, 0, { { 1, 0 }, { -1, 0 } } },      /* West: K a6, Rooks a9 and a2 */
};

/* ---- small facts about squares, seats and pieces ---- */

static int on_board(int r, int f)
{
	if (r < 0 || r >= SIZE || f < 0 || f >= SIZE)
		return 0;
	return !((r == 0 || r == SIZE - 1) && (f == 0 || f == SIZE - 1));
}

static int is_corner(int r, int f)
{
	return (r == 0 || r == SIZE - 1) && (f == 0 || f == SIZE - 1);
}

static int opposite(int seat)
{
	return (seat + 2) % NSEATS;
}

static unsigned controllers(int owner)
{
	return owner < NSEATS ? 1u << owner : group_seats[owner - NSEATS];
}

static int may_move(int seat, int owner)
{
	return (controllers(owner) >> seat) & 1u;
}

/* Only the opposite seat's pieces and shared pieces one does not control
 * (docs/rules/complex-allegiance.md, Who may capture what). */
static int may_take(int seat, int owner)
{
	return owner < NSEATS ? owner == opposite(seat) : !may_move(seat, owner);
}

/* The other controller of a shared piece moved by seat. */
static int other_controller(int owner, int seat)
{
	unsigned m = controllers(owner) & ~(1u << seat);

	for (int s = 0; s < NSEATS; s++)
		if (m & (1u << s))
			return s;
	return seat;
}

static int at_far_edge(int seat, int r, int f)
{
	switch (seat) {
	case NORTH: return r == SIZE - 1;
	case EAST: return f == 0;
	case SOUTH: return r == 0;
	default: return f == SIZE - 1;
	}
}

/* A pawn promotes on the far edge of its owner, or of either controller for
 * a shared pawn (house ruling 5). */
static int promotes(int owner, int r, int f)
{
	for (int s = 0; s < NSEATS; s++)
		if (may_move(s, owner) && at_far_edge(s, r, f))
			return 1;
	return 0;
}

/*
 * Whether a capture by the shared piece owner, moved by seat, by (dr, df)
 * goes away from the other controller's home edge (house rulings 4 and 6). Away from
 * a seat's edge is that seat's forward direction.
 */
static int capture_away(int owner, int seat, int dr, int df)
{
	int y;

	if (owner < NSEATS)
		return 0;
	y = other_controller(owner, seat);
	return dr * fwd[y][0] + df * fwd[y][1] > 0;
}

static int is_piece_type(int t)
{
	return t && strchr("KQRBNP", t) != NULL;
}

static const char *piece_name(int type)
{
	switch (type) {
	case 'K': return "King";
	case 'Q': return "Queen";
	case 'R': return "Rook";
	case 'B': return "Bishop";
	case 'N': return "Knight";
	case 'P': return "Pawn";
	}
	return "piece";
}

/* "the Pawn on e2", "the shared NW Pawn on b2". */
static const char *describe(const rules_position *pos, int r, int f, char *buf, size_t size)
{
	const square *c = &pos->board[r][f];
	char s[4];

	if (c->owner >= NSEATS)
		snprintf(buf, size, "the shared %s %s on %s", group_names[c->owner - NSEATS],
			 piece_name(c->type), square_name(s, r, f));
	else
		snprintf(buf, size, "the %s on %s", piece_name(c->type), square_name(s, r, f));
	return buf;
}

/* "West's Pawn", "the shared NW Pawn": whose piece stands there. */
static const char *whose(const square *c, char *buf, size_t size)
{
	if (c->owner >= NSEATS)
		snprintf(buf, size, "the shared %s %s", group_names[c->owner - NSEATS],
			 piece_name(c->type));
	else
		snprintf(buf, size, "%s's %s", seat_names[c->owner], piece_name(c->type));
	return buf;
}

static int start_cell(int r, int f, int *owner, int *type)
{
	char t = start_types[r][f], o = start_owners[r][f];

	if (!is_piece_type(t))
		return 0;
	*type = t;
	*owner = o >= '1' && o <= '4' ? NSEATS + (o - '1') : (int)(strchr(owner_codes, o) - owner_codes);
	return 1;
}

/* Whether a piece of this owner and type stands on (r,f) at the start. */
static int is_start_square(int r, int f, int owner, int type)
{
	int o, t;

	return start_cell(r, f, &o, &t) && o == owner && t == type;
}

/* ---- en passant bookkeeping ---- */

static const ep_right *find_ep(const rules_position *pos, int r1, int f1)
{
	for (int i = 0; i < pos->nep; i++)
		if (pos->ep[i].r1 == r1 && pos->ep[i].f1 == f1)
			return &pos->ep[i];
	return NULL;
}

/* Drop seat's rights (its turn has come: used or lost) and every right on
 * the pawn of (r,f) when given (it moved or was taken). */
static void ep_forget(rules_position *pos, int seat, int r, int f)
{
	int n = 0;

	for (int i = 0; i < pos->nep; i++) {
		ep_right e = pos->ep[i];
		if (seat >= 0)
			e.holders &= (unsigned char)~(1u << seat);
		if (!e.holders || (e.r2 == r && e.f2 == f))
			continue;
		pos->ep[n++] = e;
	}
	pos->nep = n;
}

/* ---- checking one move ---- */

/* A move as written, before any look at the position. */
typedef struct scanned {
	int castle;             /* CASTLE_SHORT or CASTLE_LONG when written O-O / O-O-O, else 0 */
	char letter;            /* piece letter written, 0 when none */
	int fr, ff, tr, tf;
	char promo;             /* promotion letter written, 0 when none */
} scanned;
static_assert(sizeof(scanned) <= ENGINE_SCAN_BYTES, "scanned must fit in engine_parse's buffer");

static int castle_check(const rules_position *pos, int seat, int kind, ca_move *out,
			rules_error *err)
{
	int kr = castles[seat].kr, kf = castles[seat].kf;
	int dr = castles[seat].dir[kind - 1][0], df = castles[seat].dir[kind - 1][1];
	int dist = kind == CASTLE_SHORT ? 3 : 4;
	const char *name = kind == CASTLE_SHORT ? "O-O" : "O-O-O";
	const square *k = &pos->board[kr][kf];
	const square *rook = &pos->board[kr + dist * dr][kf + dist * df];
	char s[4];

	if (k->type != 'K' || k->owner != seat || !k->unmoved)
		return rules_fail(err, RULES_E_ILLEGAL, "cannot castle (%s): your King has moved", name);
	if (rook->type != 'R' || rook->owner != seat || !rook->unmoved)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "cannot castle (%s): there is no unmoved Rook of yours on %s", name,
				  square_name(s, kr + dist * dr, kf + dist * df));
	for (int i = 1; i < dist; i++)
		if (pos->board[kr + i * dr][kf + i * df].type)
			return rules_fail(err, RULES_E_ILLEGAL, "cannot castle (%s): %s is not empty",
					  name, square_name(s, kr + i * dr, kf + i * df));
	memset(out, 0, sizeof *out);
	out->type = 'K';
	out->fr = (unsigned char)kr;
	out->ff = (unsigned char)kf;
	out->tr = (unsigned char)(kr + 2 * dr);
	out->tf = (unsigned char)(kf + 2 * df);
	out->special = (unsigned char)kind;
	return 0;
}

/* Whether a capture target may be taken; fills the reason otherwise. */
static int target_check(const rules_position *pos, int seat, int tr, int tf, rules_error *err)
{
	const square *t = &pos->board[tr][tf];
	char s[4], w[48];

	if (may_take(seat, t->owner))
		return 0;
	if (!err)
		return RULES_E_ILLEGAL;
	if (t->owner == seat)
		return rules_fail(err, RULES_E_ILLEGAL, "%s holds your own %s", square_name(s, tr, tf),
				  piece_name(t->type));
	if (t->owner >= NSEATS)
		return rules_fail(err, RULES_E_ILLEGAL, "%s holds %s, which you control",
				  square_name(s, tr, tf), whose(t, w, sizeof w));
	return rules_fail(err, RULES_E_ILLEGAL,
			  "%s holds %s: %s may capture only %s's pieces and shared pieces it does not control",
			  square_name(s, tr, tf), whose(t, w, sizeof w), seat_names[seat],
			  seat_names[opposite(seat)]);
}

static int direction_check(const rules_position *pos, int seat, int fr, int ff, int dr, int df,
			   rules_error *err)
{
	const square *c = &pos->board[fr][ff];
	char d[48];
	int y;

	if (!capture_away(c->owner, seat, dr, df))
		return 0;
	if (!err)
		return RULES_E_ILLEGAL;
	y = other_controller(c->owner, seat);
	return rules_fail(err, RULES_E_ILLEGAL,
			  "%s, moved by %s, may not capture away from %s's edge (%s): its captures must not go %s",
			  describe(pos, fr, ff, d, sizeof d), seat_names[seat], seat_names[y],
			  home_edge[y], toward[y]);
}

/* The pawn part of check_move: the pattern, the target and en passant. */
static int pawn_check(const rules_position *pos, int seat, int fr, int ff, int tr, int tf,
		      ca_move *m, rules_error *err)
{
	const square *c = &pos->board[fr][ff];
	const square *t = &pos->board[tr][tf];
	int dr = tr - fr, df = tf - ff, f0 = fwd[seat][0], f1 = fwd[seat][1];
	int sr = dr - f0, sf = df - f1;
	char d[48], s[4], s2[4];
	int rc;

	d[0] = 0;
	if (err)        /* messages only when somebody reads them: generation calls this a lot */
		describe(pos, fr, ff, d, sizeof d);
	if (dr == f0 && df == f1) {
		if (t->type)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s cannot capture straight ahead: %s is occupied", d,
					  square_name(s, tr, tf));
		return 0;
	}
	if (dr == 2 * f0 && df == 2 * f1) {
		if (!c->unmoved)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s has moved before, so it cannot advance two squares", d);
		if (pos->board[fr + f0][ff + f1].type)
			return rules_fail(err, RULES_E_ILLEGAL, "the path of %s is blocked at %s", d,
					  square_name(s, fr + f0, ff + f1));
		if (t->type)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s cannot capture straight ahead: %s is occupied", d,
					  square_name(s, tr, tf));
		return 0;
	}
	/* One step forward plus one to the side: the side is perpendicular. */
	if (abs(sr) + abs(sf) == 1 && sr * f0 + sf * f1 == 0) {
		const ep_right *e;
		if (t->type) {
			if ((rc = target_check(pos, seat, tr, tf, err))
			    || (rc = direction_check(pos, seat, fr, ff, dr, df, err)))
				return rc;
			m->capture = 1;
			return 0;
		}
		e = find_ep(pos, tr, tf);
		if (!e)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s moves diagonally only to capture, and %s is empty", d,
					  square_name(s, tr, tf));
		if (!(e->holders & (1u << seat)) || pos->board[e->r2][e->f2].type != 'P')
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s is empty, and you may not take the pawn on %s en passant",
					  square_name(s, tr, tf), square_name(s2, e->r2, e->f2));
		if ((rc = direction_check(pos, seat, fr, ff, dr, df, err)))
			return rc;
		m->capture = 1;
		m->special = EN_PASSANT;
		return 0;
	}
	return rules_fail(err, RULES_E_ILLEGAL,
			  "%s moves forward for %s, %s: one square, two from its starting square, or one diagonally forward to capture",
			  d, seat_names[seat], toward[seat]);
}

/*
 * Check a move written as s by seat against the position; on success fill
 * *out with the move in its one canonical encoding (a promotion without a
 * letter becomes a Queen). The turn itself is the caller's business.
 */
static int check_move(const rules_position *pos, int seat, const void *in, void *into,
		      rules_error *err)
{
	const scanned *s = in;
	ca_move *out = into;
	const square *c, *t;
	ca_move m;
	char d[48], s1[4], s2[4];
	int dr, df, adr, adf, rc;

	memset(out, 0, sizeof *out);
	if (s->castle) {
		if (s->castle != CASTLE_SHORT && s->castle != CASTLE_LONG)
			return rules_fail(err, RULES_E_ILLEGAL, "malformed move");
		return castle_check(pos, seat, s->castle, out, err);
	}
	if (s->fr < 0 || s->fr >= SIZE || s->ff < 0 || s->ff >= SIZE || s->tr < 0 || s->tr >= SIZE
	    || s->tf < 0 || s->tf >= SIZE || (s->letter && !is_piece_type(s->letter))
	    || (s->promo && !strchr("QRBN", s->promo)))
		return rules_fail(err, RULES_E_ILLEGAL, "malformed move");
	for (int i = 0; i < 2; i++) {
		int r = i ? s->tr : s->fr, f = i ? s->tf : s->ff;
		if (!on_board(r, f))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s is not on the board (the corners a1, j1, a10 and j10 do not exist)",
					  square_name(s1, r, f));
	}
	c = &pos->board[s->fr][s->ff];
	t = &pos->board[s->tr][s->tf];
	if (err) {
		square_name(s1, s->fr, s->ff);
		square_name(s2, s->tr, s->tf);
	}
	if (!c->type)
		return rules_fail(err, RULES_E_ILLEGAL, "there is no piece on %s", s1);
	if (!may_move(seat, c->owner)) {
		if (c->owner < NSEATS)
			return rules_fail(err, RULES_E_ILLEGAL, "the %s on %s is %s's, not yours",
					  piece_name(c->type), s1, seat_names[c->owner]);
		unsigned mask = controllers(c->owner);
		int a = -1, b = -1;
		for (int i = 0; i < NSEATS; i++)
			if (mask & (1u << i)) {
				if (a < 0)
					a = i;
				else
					b = i;
			}
		return rules_fail(err, RULES_E_ILLEGAL, "%s is moved only by %s and %s",
				  describe(pos, s->fr, s->ff, d, sizeof d), seat_names[a], seat_names[b]);
	}
	if (s->letter && s->letter != c->type)
		return rules_fail(err, RULES_E_ILLEGAL, "wrong letter: the piece on %s is a %s, not a %s",
				  s1, piece_name(c->type), piece_name(s->letter));
	if (s->promo && c->type != 'P')
		return rules_fail(err, RULES_E_ILLEGAL, "only a pawn promotes, and %s is a %s", s1,
				  piece_name(c->type));
	if (s->fr == s->tr && s->ff == s->tf)
		return rules_fail(err, RULES_E_ILLEGAL, "a move must go to another square");

	memset(&m, 0, sizeof m);
	m.type = c->type;
	m.fr = (unsigned char)s->fr;
	m.ff = (unsigned char)s->ff;
	m.tr = (unsigned char)s->tr;
	m.tf = (unsigned char)s->tf;
	dr = s->tr - s->fr;
	df = s->tf - s->ff;
	adr = abs(dr);
	adf = abs(df);
	d[0] = 0;
	if (err)
		describe(pos, s->fr, s->ff, d, sizeof d);

	switch (c->type) {
	case 'K':
		if (adr <= 1 && adf <= 1)
			break;
		/* Two squares along the edge from the King's square: castling. */
		if (s->fr == castles[seat].kr && s->ff == castles[seat].kf && c->owner == seat) {
			for (int k = 0; k < 2; k++)
				if (dr == 2 * castles[seat].dir[k][0] && df == 2 * castles[seat].dir[k][1])
					return castle_check(pos, seat, k + 1, out, err);
		}
		return rules_fail(err, RULES_E_ILLEGAL,
				  "%s moves one square in any direction (two along its edge only to castle)", d);
	case 'N':
		if (!((adr == 2 && adf == 1) || (adr == 1 && adf == 2)))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s moves in an L: two squares one way and one across", d);
		break;
	case 'B':
	case 'R':
	case 'Q':
		if (c->type == 'B' && adr != adf)
			return rules_fail(err, RULES_E_ILLEGAL, "%s moves only diagonally", d);
		if (c->type == 'R' && dr && df)
			return rules_fail(err, RULES_E_ILLEGAL, "%s moves only along a rank or a file", d);
		if (c->type == 'Q' && dr && df && adr != adf)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s moves only along a rank, a file or a diagonal", d);
		{
			int ur = (dr > 0) - (dr < 0), uf = (df > 0) - (df < 0);
			int dist = adr > adf ? adr : adf;
			/* A line through a corner ends there, so the squares between two
			 * board squares are all on the board. */
			for (int k = 1; k < dist; k++)
				if (pos->board[s->fr + k * ur][s->ff + k * uf].type)
					return rules_fail(err, RULES_E_ILLEGAL, "the path of %s is blocked at %s",
							  d, square_name(s1, s->fr + k * ur, s->ff + k * uf));
		}
		break;
	case 'P':
		if ((rc = pawn_check(pos, seat, s->fr, s->ff, s->tr, s->tf, &m, err)))
			return rc;
		if (promotes(c->owner, s->tr, s->tf)) {
			m.promo = (unsigned char)(s->promo ? s->promo : 'Q');
		} else if (s->promo) {
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s-%s is not a promotion: a promotion piece is written only when a pawn reaches its promotion edge",
					  s1, s2);
		}
		*out = m;
		return 0;
	default:
		return rules_fail(err, RULES_E_ILLEGAL, "malformed position");
	}
	if (t->type) {
		if ((rc = target_check(pos, seat, s->tr, s->tf, err))
		    || (rc = direction_check(pos, seat, s->fr, s->ff, dr, df, err)))
			return rc;
		m.capture = 1;
	}
	*out = m;
	return 0;
}

/* ---- move generation ---- */

static const int kings[8][2] = {
	{ -1, -1 }, { -1, 0 }, { -1, 1 }, { 0, -1 }, { 0, 1 }, { 1, -1 }, { 1, 0 }, { 1, 1 },
};
static const int jumps[8][2] = {
	{ -2, -1 }, { -2, 1 }, { 2, -1 }, { 2, 1 }, { -1, -2 }, { -1, 2 }, { 1, -2 }, { 1, 2 },
};

/*
 * One candidate (from, to): listed when check_move accepts it, so the list
 * and the parser cannot disagree. A promotion is listed once per piece.
 * Returns 1 to stop (existence check), 0 to go on.
 */
static int candidate(engine_gen *g, int fr, int ff, int tr, int tf)
{
	scanned s;
	ca_move m;

	if (!on_board(tr, tf))
		return 0;
	memset(&s, 0, sizeof s);
	s.fr = fr;
	s.ff = ff;
	s.tr = tr;
	s.tf = tf;
	if (check_move(g->pos, g->seat, &s, &m, NULL))
		return 0;
	if (!g->out) {
		g->count++;
		return 1;
	}
	if (m.promo) {
		for (const char *p = "QRBN"; *p; p++) {
			m.promo = (unsigned char)*p;
			engine_push(g, &m, sizeof m, 0);
		}
	} else {
		engine_push(g, &m, sizeof m, 0);
	}
	return 0;
}

static int gen_slides(engine_gen *g, int r, int f, int diagonal, int straight)
{
	for (int d = 0; d < 8; d++) {
		int ur = kings[d][0], uf = kings[d][1];
		if ((ur && uf) ? !diagonal : !straight)
			continue;
		for (int k = 1;; k++) {
			int tr = r + k * ur, tf = f + k * uf;
			if (!on_board(tr, tf))
				break;
			if (candidate(g, r, f, tr, tf))
				return 1;
			if (g->pos->board[tr][tf].type)
				break;
		}
	}
	return 0;
}

static int gen_piece(engine_gen *g, int r, int f)
{
	const square *c = &g->pos->board[r][f];
	int seat = g->seat, f0 = fwd[seat][0], f1 = fwd[seat][1];

	switch (c->type) {
	case 'K':
		for (int d = 0; d < 8; d++)
			if (candidate(g, r, f, r + kings[d][0], f + kings[d][1]))
				return 1;
		if (r == castles[seat].kr && f == castles[seat].kf)
			for (int k = 0; k < 2; k++)
				if (candidate(g, r, f, r + 2 * castles[seat].dir[k][0],
					      f + 2 * castles[seat].dir[k][1]))
					return 1;
		return 0;
	case 'N':
		for (int d = 0; d < 8; d++)
			if (candidate(g, r, f, r + jumps[d][0], f + jumps[d][1]))
				return 1;
		return 0;
	case 'B':
		return gen_slides(g, r, f, 1, 0);
	case 'R':
		return gen_slides(g, r, f, 0, 1);
	case 'Q':
		return gen_slides(g, r, f, 1, 1);
	case 'P':
		/* Forward one and two, and diagonally forward to both sides. */
		return candidate(g, r, f, r + f0, f + f1)
			|| candidate(g, r, f, r + 2 * f0, f + 2 * f1)
			|| candidate(g, r, f, r + f0 + f1, f + f1 + f0)
			|| candidate(g, r, f, r + f0 - f1, f + f1 - f0);
	}
	return 0;
}

/* Every legal move of g->seat, whoever's turn it is. Returns 1 when stopped early. */
static int gen_all(engine_gen *g)
{
	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++) {
			const square *c = &g->pos->board[r][f];
			if (c->type && may_move(g->seat, c->owner) && gen_piece(g, r, f))
				return 1;
		}
	return 0;
}

static int has_legal_move(const rules_position *pos, int seat)
{
	return engine_generate(gen_all, pos, seat, NULL) != 0;
}

/* ---- parsing ---- */

/* Squares as the notation names them: files a-j, ranks 1-10. */
static const square_names squares = { SIZE, SIZE, "e2", "", "", 0 };

static int is_castle_o(char ch)
{
	return ch == 'O' || ch == 'o' || ch == '0';
}

/* The grammar of docs/rules/complex-allegiance.md, Writing moves; nothing about the position. */
static int scan(const char *text, void *into, rules_error *err)
{
	scanned *s = into;
	const char *p;
	int rc;

	memset(s, 0, sizeof *s);
	if ((rc = notation_check_text(text, "move", err)))
		return rc;
	p = notation_skip_space(text);
	if (is_castle_o(*p)) {
		int n = 1;
		p = notation_skip_space(p + 1);
		while (*p == '-') {
			p = notation_skip_space(p + 1);
			if (!is_castle_o(*p))
				return notation_unexpected(p, "O after '-' in castling (O-O or O-O-O)", err);
			n++;
			p = notation_skip_space(p + 1);
		}
		if (n != 2 && n != 3)
			return rules_fail(err, RULES_E_PARSE, "castling is written O-O or O-O-O");
		s->castle = n == 2 ? CASTLE_SHORT : CASTLE_LONG;
	} else {
		int up = toupper((unsigned char)*p);
		if (is_piece_type(up)) {
			const char *q = notation_skip_space(p + 1);
			if (square_name_at(&squares, q)) {
				s->letter = (char)up;
				p = q;
			} else if (up != 'B') {
				/* 'b' may start a square; the others cannot. */
				return rules_fail(err, RULES_E_PARSE,
						  "the piece letter '%c' must be followed by the square the piece moves from, such as e2",
						  *p);
			}
		}
		if ((rc = square_scan(&squares, &p, &s->fr, &s->ff, "the square the piece moves from", err)))
			return rc;
		if (*p == '-' || *p == 'x' || *p == 'X' || *p == ':')
			p = notation_skip_space(p + 1);
		if ((rc = square_scan(&squares, &p, &s->tr, &s->tf, "the square the piece moves to", err)))
			return rc;
		if (*p == '=' || *p == '/') {
			p = notation_skip_space(p + 1);
			if (!isalpha((unsigned char)*p))
				return notation_unexpected(p, "a promotion piece Q, R, B or N", err);
		}
		if (isalpha((unsigned char)*p) && tolower((unsigned char)*p) != 'e') {
			int up2 = toupper((unsigned char)*p);
			if (!strchr("QRBN", up2))
				return rules_fail(err, RULES_E_PARSE,
						  "'%c' is not a promotion piece: write Q, R, B or N", *p);
			s->promo = (char)up2;
			p = notation_skip_space(p + 1);
		}
		if (tolower((unsigned char)p[0]) == 'e' && tolower((unsigned char)p[1]) == 'p')
			p = notation_skip_space(p + 2);
		else if (tolower((unsigned char)p[0]) == 'e' && p[1] == '.'
			 && tolower((unsigned char)p[2]) == 'p' && p[3] == '.')
			p = notation_skip_space(p + 4);
	}
	while (*p == '+')
		p = notation_skip_space(p + 1);
	if (*p && *p != '#')
		return notation_unexpected(p, s->castle ? "'+', '#' or the end of the move"
				  : "a promotion piece, 'ep', '+', '#' or the end of the move", err);
	return 0;
}

static int check_turn(const rules_position *pos, int seat, rules_error *err)
{
	if (pos->over)
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if (seat < 0 || seat >= NSEATS)
		return rules_fail(err, RULES_E_TURN, "Complex Allegiance Chess has no seat %d", seat);
	if (seat != pos->to_move)
		return rules_fail(err, RULES_E_TURN, "it is not your turn: %s is to move",
				  seat_names[pos->to_move]);
	return 0;
}

/* Whether the move's fields are in range (says nothing about legality). */
static int well_formed(const ca_move *m)
{
	if (!is_piece_type(m->type) || !on_board(m->fr, m->ff) || !on_board(m->tr, m->tf)
	    || m->capture > 1 || m->special > EN_PASSANT)
		return 0;
	if (m->promo && (m->type != 'P' || !strchr("QRBN", m->promo)))
		return 0;
	if ((m->special == CASTLE_SHORT || m->special == CASTLE_LONG) && m->type != 'K')
		return 0;
	return 1;
}

/* The stored move m as written, to check it exactly as parse did; -1 when m is malformed. */
static int unscan(const void *in, void *into)
{
	const ca_move *m = in;
	scanned *s = into;

	if (!well_formed(m))
		return -1;
	memset(s, 0, sizeof *s);
	s->letter = (char)m->type;
	s->fr = m->fr;
	s->ff = m->ff;
	s->tr = m->tr;
	s->tf = m->tf;
	s->promo = (char)m->promo;
	return 0;
}

static const engine_reader reader = {
	sizeof(scanned), sizeof(ca_move), scan, check_turn, check_move, NULL, unscan,
};

static int ca_parse(const rules_position *pos, int seat, const char *text, rules_move *move,
		    rules_error *err)
{
	return engine_parse(&reader, pos, seat, text, move, err);
}

/* ---- the rules_game functions ---- */

static int ca_start(const char *options, rules_position **out, rules_error *err)
{
	rules_position *p = engine_start(options, "Complex Allegiance Chess", sizeof *p, out, err);

	if (!p)
		return RULES_E_DATA;
	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++) {
			int owner, type;
			if (!start_cell(r, f, &owner, &type))
				continue;
			p->board[r][f].type = (unsigned char)type;
			p->board[r][f].owner = (unsigned char)owner;
			p->board[r][f].unmoved = type == 'K' || type == 'R' || type == 'P';
		}
	p->to_move = NORTH;
	return 0;
}

static rules_position *ca_clone(const rules_position *pos)
{
	return xmemdup(pos, sizeof *pos);
}

static size_t ca_format(const rules_position *pos, const rules_move *move, char *buf, size_t size)
{
	ca_move m;
	char tmp[32], a[4], b[4];

	(void)pos;
	if (engine_format_open(move, &m, sizeof m, buf, size) || !well_formed(&m))
		return 0;
	if (m.special == CASTLE_SHORT || m.special == CASTLE_LONG) {
		snprintf(tmp, sizeof tmp, "%s", m.special == CASTLE_SHORT ? "O-O" : "O-O-O");
	} else {
		char letter[2] = { m.type == 'P' ? 0 : (char)m.type, 0 };
		char promo[3] = { m.promo ? '=' : 0, (char)m.promo, 0 };
		snprintf(tmp, sizeof tmp, "%s%s%c%s%s", letter, square_name(a, m.fr, m.ff), m.capture ? 'x' : '-',
			 square_name(b, m.tr, m.tf), promo);
	}
	return engine_text_out(tmp, buf, size);
}

static size_t ca_legal_moves(const rules_position *pos, int seat, rules_move_list *out)
{
	if (pos->over || seat != pos->to_move)
		return 0;
	return engine_generate(gen_all, pos, seat, out);
}

static int ca_apply(rules_position *pos, const rules_move *move, const rules_dice *dice,
		    rules_outcome *outcome, rules_error *err)
{
	ca_move m;
	square mover, victim;
	int seat = move->seat, rc, passes;
	char a[4];

	(void)dice;     /* no dice in this game */
	if (outcome)
		outcome->note[0] = 0;
	if ((rc = check_turn(pos, seat, err)) || (rc = engine_recheck(&reader, pos, move, &m, err)))
		return rc;

	/* Valid: from here on nothing fails. */
	mover = pos->board[m.fr][m.ff];
	victim = pos->board[m.tr][m.tf];
	memset(&pos->board[m.fr][m.ff], 0, sizeof(square));
	if (m.special == EN_PASSANT) {
		const ep_right *e = find_ep(pos, m.tr, m.tf);
		victim = pos->board[e->r2][e->f2];
		memset(&pos->board[e->r2][e->f2], 0, sizeof(square));
		engine_note(outcome, "en passant, removes %s", square_name(a, e->r2, e->f2));
		ep_forget(pos, -1, e->r2, e->f2);
	}
	if (m.special == CASTLE_SHORT || m.special == CASTLE_LONG) {
		int dist = m.special == CASTLE_SHORT ? 3 : 4;
		int dr = castles[seat].dir[m.special - 1][0], df = castles[seat].dir[m.special - 1][1];
		square rook = pos->board[m.fr + dist * dr][m.ff + dist * df];
		memset(&pos->board[m.fr + dist * dr][m.ff + dist * df], 0, sizeof(square));
		rook.unmoved = 0;
		pos->board[m.fr + dr][m.ff + df] = rook;
	}
	mover.unmoved = 0;
	if (m.promo) {
		mover.type = m.promo;
		if (mover.owner >= NSEATS)
			engine_note(outcome, "shared %s %s", group_names[mover.owner - NSEATS],
				    piece_name(m.promo));
	}
	pos->board[m.tr][m.tf] = mover;

	/* En passant rights: the mover's turn has come, and a pawn that moved
	 * or was taken can no longer be taken en passant. */
	ep_forget(pos, seat, m.fr, m.ff);
	ep_forget(pos, seat, m.tr, m.tf);
	if (m.type == 'P' && (abs(m.tr - m.fr) == 2 || abs(m.tf - m.ff) == 2)) {
		ep_right e;
		memset(&e, 0, sizeof e);
		e.r1 = (unsigned char)((m.fr + m.tr) / 2);
		e.f1 = (unsigned char)((m.ff + m.tf) / 2);
		e.r2 = m.tr;
		e.f2 = m.tf;
		for (int s2 = 0; s2 < NSEATS; s2++)
			if (may_take(s2, mover.owner))
				e.holders |= (unsigned char)(1u << s2);
		if (pos->nep < MAX_EP)
			pos->ep[pos->nep++] = e;
	}

	if (victim.type == 'K') {
		pos->over = OVER_KING;
		pos->winner = seat;
		pos->loser = victim.owner;
		pos->to_move = -1;
		pos->nep = 0;
		engine_note(outcome, "captures %s's King: %s wins", seat_names[victim.owner],
			    seat_names[seat]);
		return 0;
	}

	/* The next seat with a legal move; the others pass (house ruling 11). */
	for (passes = 0; passes < NSEATS; passes++) {
		int next = (seat + 1 + passes) % NSEATS;
		if (has_legal_move(pos, next)) {
			pos->to_move = next;
			break;
		}
		engine_note(outcome, "%s passes", seat_names[next]);
		ep_forget(pos, next, -1, -1);
	}
	if (passes == NSEATS) {
		pos->over = OVER_DRAW;
		pos->to_move = -1;
		pos->nep = 0;
		engine_note(outcome, "nobody can move: draw, all four share 2nd");
	}
	return 0;
}

static unsigned ca_turn(const rules_position *pos)
{
	return pos->over ? 0 : 1u << pos->to_move;
}

/* "South 1st, East and West share 2nd, North 4th". */
static void standings(int winner, int loser, char *buf, size_t size)
{
	int others[2], n = 0;

	for (int s = 0; s < NSEATS; s++)
		if (s != winner && s != loser && n < 2)
			others[n++] = s;
	snprintf(buf, size, "%s 1st, %s and %s share 2nd, %s 4th", seat_names[winner],
		 seat_names[others[0]], seat_names[others[1]], seat_names[loser]);
}

static void set_ranks(rules_result *out, int winner, int loser)
{
	out->over = 1;
	for (int s = 0; s < NSEATS; s++)
		out->rank[s] = s == winner ? 1 : s == loser ? 4 : 2;
}

static void ca_result(const rules_position *pos, rules_result *out)
{
	char pl[80];

	memset(out, 0, sizeof *out);
	if (pos->over == OVER_KING) {
		set_ranks(out, pos->winner, pos->loser);
		standings(pos->winner, pos->loser, pl, sizeof pl);
		snprintf(out->summary, sizeof out->summary, "%s wins: %s's King captured (%s)",
			 seat_names[pos->winner], seat_names[pos->loser], pl);
	} else if (pos->over == OVER_DRAW) {
		out->over = 1;
		for (int s = 0; s < NSEATS; s++)
			out->rank[s] = 2;
		snprintf(out->summary, sizeof out->summary,
			 "Draw: nobody can move (all four share 2nd)");
	} else {
		snprintf(out->summary, sizeof out->summary, "%s to move", seat_names[pos->to_move]);
	}
}

/* Resigning counts as the resigner's King being captured by the opposite
 * player (house ruling 12). */
static void ca_resign_result(const rules_position *pos, int seat, rules_result *out)
{
	char pl[80];

	(void)pos;
	memset(out, 0, sizeof *out);
	if (seat < 0 || seat >= NSEATS)
		return;
	set_ranks(out, opposite(seat), seat);
	standings(opposite(seat), seat, pl, sizeof pl);
	snprintf(out->summary, sizeof out->summary, "%s wins: %s resigned (%s)",
		 seat_names[opposite(seat)], seat_names[seat], pl);
}

/*
 * Serialized position, one line:
 *
 *   ca1:<rank 1>/<rank 2>/.../<rank 10>:<to move>:<en passant>:<result>
 *
 * Each rank lists its 10 squares from file a to file j: '#' for a corner
 * (a1, j1, a10, j10, and nowhere else), '.' for an empty square, or a piece:
 * its owner (n, e, s, w for a seat's own piece; NW, NE, SW, SE for a shared
 * piece), its letter (K Q R B N P) and '*' when it is a King, Rook or Pawn
 * that has never moved (only possible on its starting square).
 * <to move> is N, E, S or W, or '-' once the game is over.
 * <en passant> is '-' or, oldest first and separated by ',', the open rights
 * as <passed square><pawn square>=<holders> (holders in the order N E S W),
 * e.g. "d3d4=S": South may take the pawn on d4 en passant by moving onto d3.
 * <result> is '-' while the game goes on, "draw" after four passes in a
 * row, or <capturer>x<loser> after a King capture, e.g. "SxN".
 * The start position's ranks, 1 to 10, separated by '/' in the text, are
 *   #nR*nNnBnK*nQnBnNnR*#        wR*NWP*nP*nP*nP*nP*nP*nP*NEP*eR*
 *   wNwP*......eP*eN             wBwP*......eP*eB
 *   wQwP*......eP*eK*            wK*wP*......eP*eQ
 *   wBwP*......eP*eB             wNwP*......eP*eN
 *   wR*SWP*sP*sP*sP*sP*sP*sP*SEP*eR*   #sR*sNsBsQsK*sBsNsR*#
 * followed by ":N:-:-".
 */
static char *ca_serialize(const rules_position *pos)
{
	size_t cap = sizeof TAG + SIZE * (SIZE * 4 + 1) + MAX_EP * 16 + 32, len = 0;
	char *s = xmalloc(cap), a[4], b[4];

	len += (size_t)snprintf(s, cap, "%s", TAG);
	for (int r = 0; r < SIZE; r++) {
		for (int f = 0; f < SIZE; f++) {
			const square *c = &pos->board[r][f];
			if (is_corner(r, f)) {
				s[len++] = '#';
			} else if (!c->type) {
				s[len++] = '.';
			} else {
				if (c->owner < NSEATS) {
					s[len++] = owner_codes[c->owner];
				} else {
					s[len++] = group_names[c->owner - NSEATS][0];
					s[len++] = group_names[c->owner - NSEATS][1];
				}
				s[len++] = (char)c->type;
				if (c->unmoved)
					s[len++] = '*';
			}
		}
		s[len++] = r < SIZE - 1 ? '/' : ':';
	}
	s[len++] = pos->over ? '-' : seat_letters[pos->to_move];
	s[len++] = ':';
	if (!pos->nep)
		s[len++] = '-';
	for (int i = 0; i < pos->nep; i++) {
		const ep_right *e = &pos->ep[i];
		len += (size_t)snprintf(s + len, cap - len, "%s%s%s=", i ? "," : "",
					square_name(a, e->r1, e->f1), square_name(b, e->r2, e->f2));
		for (int t = 0; t < NSEATS; t++)
			if (e->holders & (1u << t))
				s[len++] = seat_letters[t];
	}
	s[len++] = ':';
	if (pos->over == OVER_KING)
		snprintf(s + len, cap - len, "%cx%c", seat_letters[pos->winner], seat_letters[pos->loser]);
	else
		snprintf(s + len, cap - len, "%s", pos->over == OVER_DRAW ? "draw" : "-");
	return s;
}

static int bad_data(rules_error *err, const char *what)
{
	return engine_corrupt(err, "Complex Allegiance Chess", what);
}

static int seat_of_letter(char ch)
{
	return engine_seat_of_letter(seat_letters, ch);
}

/* A square written in the position text, strictly as serialize writes it. */
static int read_square(const char **pp, int *r, int *f)
{
	const char *p = *pp;

	if (*p < 'a' || *p > 'j' || p[1] < '1' || p[1] > '9')
		return -1;
	*f = *p - 'a';
	if (p[1] == '1' && p[2] == '0') {
		*r = 9;
		p += 3;
	} else {
		*r = p[1] - '1';
		p += 2;
	}
	*pp = p;
	return on_board(*r, *f) ? 0 : -1;
}

/* One en passant right; checks it against the board and the seat to move. */
static int read_ep(const char **pp, const rules_position *pos, ep_right *e, int *mover,
		   rules_error *err)
{
	const char *p = *pp;
	int r1, f1, r2, f2, d = -1;
	unsigned holders;
	const square *c;

	if (read_square(&p, &r1, &f1) || read_square(&p, &r2, &f2) || *p++ != '=')
		return bad_data(err, "bad en passant right");
	memset(e, 0, sizeof *e);
	if (engine_read_seat_set(&p, seat_letters, &holders))
		return bad_data(err, "en passant holders out of order");
	if (!holders)
		return bad_data(err, "en passant right without holders");
	e->holders = (unsigned char)holders;
	/* Who double-stepped: the controller of the pawn whose forward step it was. */
	c = &pos->board[r2][f2];
	for (int s = 0; s < NSEATS; s++)
		if (r2 - r1 == fwd[s][0] && f2 - f1 == fwd[s][1] && c->type == 'P' && may_move(s, c->owner))
			d = s;
	if (d < 0 || c->unmoved || !on_board(2 * r1 - r2, 2 * f1 - f2)
	    || !is_start_square(2 * r1 - r2, 2 * f1 - f2, c->owner, 'P'))
		return bad_data(err, "en passant right without a double-stepped pawn");
	for (int s = 0; s < NSEATS; s++) {
		/* Holders may take the pawn and have not had their turn since:
		 * they come from the seat to move up to the double-stepper. */
		int age = (s - pos->to_move + NSEATS) % NSEATS, dage = (d - pos->to_move + NSEATS) % NSEATS;
		if ((e->holders & (1u << s)) && (!may_take(s, c->owner) || age >= dage))
			return bad_data(err, "en passant right held by a seat that cannot have it");
	}
	e->r1 = (unsigned char)r1;
	e->f1 = (unsigned char)f1;
	e->r2 = (unsigned char)r2;
	e->f2 = (unsigned char)f2;
	*mover = d;
	*pp = p;
	return 0;
}

static int ca_deserialize(const char *text, rules_position **out, rules_error *err)
{
	rules_position pos;
	const char *p;
	int kings[NSEATS] = { 0, 0, 0, 0 }, shared[4] = { 0, 0, 0, 0 }, rc;

	*out = NULL;
	if (!(p = engine_position_body(text, TAG, "a Complex Allegiance Chess", err)))
		return RULES_E_DATA;
	memset(&pos, 0, sizeof pos);
	for (int r = 0; r < SIZE; r++) {
		for (int f = 0; f < SIZE; f++) {
			square *c = &pos.board[r][f];
			int owner;
			if (is_corner(r, f)) {
				if (*p++ != '#')
					return bad_data(err, "a corner square is not '#'");
				continue;
			}
			if (*p == '.') {
				p++;
				continue;
			}
			if ((owner = engine_seat_of_letter(owner_codes, *p)) >= 0) {
				p++;
			} else if ((*p == 'N' || *p == 'S') && (p[1] == 'W' || p[1] == 'E')) {
				owner = NSEATS + (*p == 'S') * 2 + (p[1] == 'E');
				p += 2;
			} else {
				return bad_data(err, "bad square");
			}
			if (!is_piece_type(*p))
				return bad_data(err, "bad piece letter");
			c->type = (unsigned char)*p++;
			c->owner = (unsigned char)owner;
			if (*p == '*') {
				p++;
				if (!strchr("KRP", c->type) || !is_start_square(r, f, owner, c->type))
					return bad_data(err, "an unmoved piece away from its starting square");
				c->unmoved = 1;
			}
			if (c->type == 'K') {
				if (owner >= NSEATS)
					return bad_data(err, "a shared King");
				kings[owner]++;
			}
			if (owner >= NSEATS && ++shared[owner - NSEATS] > 1)
				return bad_data(err, "two shared pieces of the same pair");
			if (c->type == 'P' && promotes(owner, r, f))
				return bad_data(err, "a pawn on its promotion edge");
		}
		if (*p++ != (r < SIZE - 1 ? '/' : ':'))
			return bad_data(err, "bad rank");
	}

	/* Seat to move, en passant rights, result. */
	if (engine_read_seat_field(&p, seat_letters, &pos.to_move))
		return bad_data(err, "bad seat to move");
	if (*p == '-') {
		p++;
	} else if (pos.to_move < 0) {
		return bad_data(err, "en passant rights in a finished game");
	} else {
		int last_age = NSEATS;
		for (;;) {
			int d = 0, age;
			if (pos.nep >= MAX_EP - 1)
				return bad_data(err, "too many en passant rights");
			if ((rc = read_ep(&p, &pos, &pos.ep[pos.nep], &d, err)))
				return rc;
			/* Oldest first, one per double-stepper. */
			age = (pos.to_move - d + NSEATS) % NSEATS;
			if (age == 0 || age >= last_age)
				return bad_data(err, "en passant rights out of order");
			last_age = age;
			pos.nep++;
			if (*p != ',')
				break;
			p++;
		}
	}
	if (*p++ != ':')
		return bad_data(err, "bad en passant rights");
	if (strcmp(p, "-") == 0) {
		pos.over = OVER_NO;
	} else if (strcmp(p, "draw") == 0) {
		pos.over = OVER_DRAW;
	} else if (strlen(p) == 3 && p[1] == 'x' && seat_of_letter(p[0]) >= 0
		   && seat_of_letter(p[2]) >= 0) {
		pos.over = OVER_KING;
		pos.winner = seat_of_letter(p[0]);
		pos.loser = seat_of_letter(p[2]);
		if (pos.winner != opposite(pos.loser))
			return bad_data(err, "a King taken by a seat other than the opposite one");
	} else {
		return bad_data(err, "bad result");
	}
	if ((pos.over != OVER_NO) != (pos.to_move < 0))
		return bad_data(err, "the seat to move does not fit the result");

	/* Consistency: one King each, except the one just captured. */
	for (int s = 0; s < NSEATS; s++) {
		int want = pos.over == OVER_KING && s == pos.loser ? 0 : 1;
		if (kings[s] != want)
			return bad_data(err, "wrong number of Kings");
	}
	/* Play never leaves a seat to move without a move: it would have passed.
	 * A draw needs everybody stuck. */
	if (pos.over == OVER_NO && !has_legal_move(&pos, pos.to_move))
		return bad_data(err, "the seat to move has no legal move");
	if (pos.over == OVER_DRAW)
		for (int s = 0; s < NSEATS; s++)
			if (has_legal_move(&pos, s))
				return bad_data(err, "a draw by passes although a seat can move");
	*out = ca_clone(&pos);
	return 0;
}

/*
 * As drawn: rank 1 (North's edge) at the top, file a on the left; corners
 * are kind "off". A cell holds the bare piece letter; the seats are told
 * apart by owner. A shared piece has owner -1 and controllers = the bit mask
 * of its two controllers (NW = North|West, NE = North|East, SW = South|West,
 * SE = South|East); a seat's own piece has controllers 0.
 */
static void ca_view(const rules_position *pos, rules_view *out)
{
	memset(out, 0, sizeof *out);
	out->rows = SIZE;
	out->cols = SIZE;
	for (int r = 0; r < SIZE; r++) {
		snprintf(out->row_label[r], sizeof out->row_label[r], "%d", r + 1);
		snprintf(out->col_label[r], sizeof out->col_label[r], "%c", 'a' + r);
		for (int f = 0; f < SIZE; f++) {
			rules_cell *cell = &out->cell[r][f];
			const square *c = &pos->board[r][f];
			cell->owner = -1;
			square_name(cell->name, r, f);
			if (is_corner(r, f)) {
				strcpy(cell->kind, "off");
				continue;
			}
			if (!c->type)
				continue;
			cell->piece[0] = (char)c->type;
			if (c->owner < NSEATS)
				cell->owner = (signed char)c->owner;
			else
				cell->controllers = (unsigned char)controllers(c->owner);
		}
	}
}

/*
 * How a move is pointed at on the board: the piece and where it goes, with
 * the squares named as ca_view names them. Castling is the King's move of two
 * squares ("castle"; the Rook follows). En passant is the pawn's diagonal
 * step onto the empty passed square, which nothing else can be, so it needs
 * no words. A promotion is listed once per piece, so the words name it:
 * "promote to Knight".
 */
static void ca_gesture(const rules_position *pos, const rules_move *move, rules_gesture *out)
{
	ca_move m;

	(void)pos;
	if (engine_gesture_open(&reader, move, &m, out))
		return;
	square_name(out->at[0], m.fr, m.ff);
	square_name(out->at[1], m.tr, m.tf);
	out->n = 2;
	if (m.special == CASTLE_SHORT || m.special == CASTLE_LONG)
		snprintf(out->choice, sizeof out->choice, "castle");
	else if (m.promo)
		snprintf(out->choice, sizeof out->choice, "promote to %s", piece_name(m.promo));
}

/* The view is drawn with North's edge (rank 1) at the top and East's edge
 * (file j) on the right: a quarter turn clockwise brings the right-hand edge
 * to the bottom. */
static int ca_view_quarter_turns(int seat)
{
	switch (seat) {
	case NORTH: return 2;
	case EAST: return 1;
	case WEST: return 3;
	}
	return 0;
}

const rules_game rules_complex_allegiance = {
	.id = "complex-allegiance",
	.title = "Complex Allegiance Chess",
	.summary = "Four-player chess on a 10x10 board without corners: you may capture only the player opposite you, "
		"the corner pawns are shared with your neighbours, and the first King captured ends the game.",
	.version = 1,
	.nseats = NSEATS,
	.seat_names = seat_names,
	.legend = "K King, Q Queen, R Rook, B Bishop, N Knight, P Pawn",
	.choice_help =
		"No move is ever partial. A pawn reaching its promotion edge becomes a Queen unless another piece "
		"is written after the move: =Q, =R, =B or =N (for example h9-h10=N); the list of legal moves shows "
		"each of the four choices as a move of its own.",
	.draw_rank = 2,
	.start = ca_start,
	.free_position = engine_free_flat,
	.clone = ca_clone,
	.parse = ca_parse,
	.format = ca_format,
	.legal_moves = ca_legal_moves,
	.continuations = engine_no_continuations,      /* a promotion is listed once per piece */
	.apply = ca_apply,
	.turn = ca_turn,
	.result = ca_result,
	.serialize = ca_serialize,
	.deserialize = ca_deserialize,
	.resign_result = ca_resign_result,
	.view = ca_view,
	.gesture = ca_gesture,
	.view_quarter_turns = ca_view_quarter_turns,
};
