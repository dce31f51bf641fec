/* conversion_chess.c - the rules of Conversion Chess (four tiers of pieces; captures displace,
 * assimilate or convert; drops; one-tier promotion), as docs/rules/conversion-chess.md tells them. */
#include "duel.h"
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
 * Squares are held 0-based inside: board[r][f] with r = rank - 1 (r 0 is rank 1, White's back
 * rank) and f = file - 'a'. Every message and text shows them as the notation writes them, "e4".
 */
enum { SIZE = 9, WHITE = 0, BLACK = 1 };

#define TAG "cc1:"

/*
 * ==== HOUSE SETUP (docs/rules/conversion-chess.md, Starting position; house ruling 1) ====
 * The published setup is lost: this starting position is invented by the house. It is the board
 * part of a position text (see cc_serialize): rank 9 first, files a to i in each rank, upper case
 * White, lower case Black, '.' an empty square. Both hands start empty; White moves first.
 * Replacing it is a new rules version (bump .version below).
 */
static const char house_setup[] =
	"dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND";
/* ==== end of HOUSE SETUP ==== */

/*
 * A piece is a set of movement powers, one bit each, in the fixed order compounds are written in
 * (docs/rules/conversion-chess.md, The pieces and their tiers; house ruling 20): B R G P S A D N,
 * then K (never part of a compound).
 */
enum {
	PW_B = 0x001, PW_R = 0x002, PW_G = 0x004, PW_P = 0x008, PW_S = 0x010,
	PW_A = 0x020, PW_D = 0x040, PW_N = 0x080, PW_K = 0x100,
	PW_ALL = 0x1ff,
};
#define NPOWERS 9
static const char power_letters[] = "BRGPSADNK";
static const char *const power_names[NPOWERS] = {
	"Bishop", "Rook", "Gold", "Pawn", "Silver", "Alfil", "Dabbaba", "Knight", "King",
};

/* What a hand may hold (First and Second Tier pieces, never a King), in the order hands are
 * written and shown. */
#define NHAND 6
static const char hand_letters[] = "ANDPSG";

/* Power units (one per power of a board piece, one per hand piece) never increase in play: the
 * start has 44. A position text may hold at most this many, which keeps every hand count small. */
#define MAX_UNITS 99

/* The capture table (docs/rules/conversion-chess.md, Capturing), indexed [captor tier - 1]
 * [captive tier - 1], methods as bits. */
enum { M_DISP = 1, M_ASSIM = 2, M_ATTACK = 4 };
static const unsigned char capture_table[4][4] = {
	/* captive:  First  Second  Third  Fourth */
	{ M_DISP | M_ASSIM | M_ATTACK, M_DISP, M_ASSIM, M_ATTACK },     /* First Tier captor */
	{ M_DISP, M_DISP, M_DISP, M_DISP },                             /* Second Tier captor */
	{ M_ASSIM, M_DISP | M_ASSIM, M_ATTACK, M_ATTACK },              /* Third Tier captor */
	{ M_ATTACK, M_DISP | M_ATTACK, M_ATTACK, M_ATTACK },            /* Fourth Tier captor */
};

enum { REASON_NONE, REASON_KING, REASON_CONVERTED, REASON_NOMOVE };

typedef struct square {
	unsigned short powers;  /* 0 when empty */
	unsigned char owner;    /* WHITE or BLACK */
} square;

struct rules_position {
	square board[SIZE][SIZE];
	unsigned char hand[2][NHAND];   /* counts, by hand_letters */
	duel_state duel;                /* WHITE or BLACK to move; the result, with a REASON_* */
};

enum { KIND_MOVE = 1, KIND_DROP, KIND_PROMOTE };
enum { WHEN_NONE, WHEN_BEFORE, WHEN_AFTER };

/* A captive has at most five powers whose demotion is chosen: B R G P S. */
#define MAX_DEMOTE 5

/* Our move inside rules_move.raw: bytes only, so no padding, and unused fields stay zero so that
 * equal moves compare equal with memcmp. */
typedef struct cc_move {
	unsigned char kind;             /* KIND_MOVE, KIND_DROP or KIND_PROMOTE */
	unsigned char fr, ff;           /* MOVE, PROMOTE: the piece's square (0-based rank, file) */
	unsigned char tr, tf;           /* MOVE, DROP: the destination */
	unsigned char pw_lo, pw_hi;     /* MOVE, PROMOTE: the piece's powers before any promotion */
	unsigned char capture;          /* MOVE: 1 when the destination holds an enemy piece */
	unsigned char method;           /* MOVE: M_DISP or M_ASSIM for a capture other than the King's */
	unsigned char ndemote;          /* MOVE with M_DISP: choices made, one per B R G P S power */
	unsigned char demote[MAX_DEMOTE];   /* the hand pieces chosen, in that power order */
	unsigned char promo;            /* MOVE, PROMOTE: 0 or the new piece 'P' 'S' 'G' 'B' 'R' */
	unsigned char when;             /* MOVE: WHEN_NONE, WHEN_BEFORE or WHEN_AFTER */
	unsigned char drop;             /* DROP: the hand piece 'A' 'N' 'D' 'P' 'S' 'G' */
} cc_move;

static_assert(sizeof(cc_move) <= RULES_MOVE_BYTES, "cc_move must fit in rules_move.raw");

static const char *const seat_names[] = { "White", "Black" };
static const char *const zone_names[] = { "White's zone (ranks 7-9)", "Black's zone (ranks 1-3)" };
static const char *const forward_names[] = { "toward rank 9", "toward rank 1" };
static const char *const tier_names[] = { "", "First Tier", "Second Tier", "Third Tier", "Fourth Tier" };

static unsigned move_powers(const cc_move *m)
{
	return (unsigned)m->pw_lo | (unsigned)m->pw_hi << 8;
}

static void set_move_powers(cc_move *m, unsigned powers)
{
	m->pw_lo = (unsigned char)(powers & 0xff);
	m->pw_hi = (unsigned char)(powers >> 8);
}

/* ---- small facts about squares and pieces ---- */

static int on_board(int r, int f)
{
	return r >= 0 && r < SIZE && f >= 0 && f < SIZE;
}

static int in_zone(int seat, int r)
{
	return seat == WHITE ? r >= SIZE - 3 : r <= 2;
}

static int forward(int seat)
{
	return seat == WHITE ? 1 : -1;
}

/* The power of a piece letter (either case), 0 when it is none. */
static unsigned power_of(int letter)
{
	const char *p = letter ? strchr(power_letters, toupper(letter)) : NULL;

	return p ? 1u << (p - power_letters) : 0;
}

static int hand_index(int letter)
{
	const char *p = letter ? strchr(hand_letters, toupper(letter)) : NULL;

	return p ? (int)(p - hand_letters) : -1;
}

static int bit_index(unsigned bit)
{
	for (int i = 0; i < NPOWERS; i++)
		if (bit == 1u << i)
			return i;
	return 0;
}

static int is_single(unsigned powers)
{
	return powers && !(powers & (powers - 1));
}

static int count_powers(unsigned powers)
{
	int n = 0;

	for (; powers; powers &= powers - 1)
		n++;
	return n;
}

/* A compound (two or more powers) is Fourth Tier (docs/rules/conversion-chess.md, The pieces and
 * their tiers). */
static int tier_of(unsigned powers)
{
	if (!is_single(powers))
		return 4;
	if (powers & (PW_A | PW_N | PW_D))
		return 1;
	if (powers & (PW_P | PW_S | PW_G | PW_K))
		return 2;
	return 3;
}

/* The pieces a piece may promote to, NULL when it never promotes (docs/rules/conversion-chess.md,
 * Promotion; house rulings 12-13). */
static const char *promotions(unsigned powers)
{
	if (!is_single(powers) || powers == PW_K)
		return NULL;
	switch (tier_of(powers)) {
	case 1: return "PSG";
	case 2: return "BR";
	}
	return NULL;
}

/* The hand pieces a displaced power may become, NULL when it goes unchanged (house ruling 10). */
static const char *demotions(unsigned bit)
{
	if (bit & (PW_B | PW_R))
		return "PSG";
	if (bit & (PW_G | PW_P | PW_S))
		return "AND";
	return NULL;
}

/* "P", or "(RN)" for a compound: upper case, the fixed order. */
static const char *piece_text(unsigned powers, char buf[16])
{
	size_t n = 0;

	if (is_single(powers)) {
		buf[n++] = power_letters[bit_index(powers)];
	} else {
		buf[n++] = '(';
		for (int i = 0; i < NPOWERS; i++)
			if (powers & (1u << i))
				buf[n++] = power_letters[i];
		buf[n++] = ')';
	}
	buf[n] = 0;
	return buf;
}

/* "Rook", or "compound (RN)". */
static const char *piece_name(unsigned powers, char buf[32])
{
	char t[16];

	if (is_single(powers))
		snprintf(buf, 32, "%s", power_names[bit_index(powers)]);
	else
		snprintf(buf, 32, "compound %s", piece_text(powers, t));
	return buf;
}

static const char *article(unsigned powers)
{
	return powers == PW_A ? "an" : "a";
}

/* "P, S or G" from "PSG". */
static const char *choice_list(const char *letters, char buf[32])
{
	size_t n = strlen(letters), len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && len + 6 < 32; i++)
		len += (size_t)snprintf(buf + len, 32 - len, "%s%c",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", letters[i]);
	return buf;
}

/* ---- how pieces move and attack ---- */

static const int orth[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
static const int diag[4][2] = { { 1, 1 }, { 1, -1 }, { -1, 1 }, { -1, -1 } };
static const int knight[8][2] = {
	{ 2, 1 }, { 2, -1 }, { -2, 1 }, { -2, -1 }, { 1, 2 }, { -1, 2 }, { 1, -2 }, { -1, -2 },
};

typedef unsigned char sqmap[SIZE][SIZE];

static void mark(sqmap map, int r, int f)
{
	if (on_board(r, f))
		map[r][f] = 1;
}

static void slide(const rules_position *pos, int r, int f, const int (*dirs)[2], sqmap map)
{
	for (int d = 0; d < 4; d++)
		for (int k = 1;; k++) {
			int tr = r + k * dirs[d][0], tf = f + k * dirs[d][1];
			if (!on_board(tr, tf))
				break;
			map[tr][tf] = 1;
			if (pos->board[tr][tf].powers)
				break;
		}
}

/*
 * The squares a piece with these powers, owned by owner and standing on (r,f), reaches: where it
 * may move if the square is empty or holds an enemy piece it may take, and which it attacks
 * (docs/rules/conversion-chess.md, Capturing; house ruling 7): leap targets, unblocked
 * lame-Knight targets, step targets, and each slider line up to and including its first occupied
 * square.
 */
static void reach_map(const rules_position *pos, int r, int f, unsigned powers, int owner, sqmap map)
{
	int fw = forward(owner);

	memset(map, 0, sizeof(sqmap));
	if (powers & PW_B)
		slide(pos, r, f, diag, map);
	if (powers & PW_R)
		slide(pos, r, f, orth, map);
	if (powers & PW_G) {
		for (int d = 0; d < 4; d++)
			mark(map, r + orth[d][0], f + orth[d][1]);
		mark(map, r + fw, f - 1);
		mark(map, r + fw, f + 1);
	}
	if (powers & PW_P)
		mark(map, r + fw, f);
	if (powers & PW_S) {
		for (int d = 0; d < 4; d++)
			mark(map, r + diag[d][0], f + diag[d][1]);
		mark(map, r + fw, f);
	}
	if (powers & PW_A)
		for (int d = 0; d < 4; d++)
			mark(map, r + 2 * diag[d][0], f + 2 * diag[d][1]);
	if (powers & PW_D)
		for (int d = 0; d < 4; d++)
			mark(map, r + 2 * orth[d][0], f + 2 * orth[d][1]);
	if (powers & PW_N)
		for (int d = 0; d < 8; d++) {
			int dr = knight[d][0], df = knight[d][1];
			/* The first square: the orthogonal neighbour toward the long leg (house ruling 9). */
			int mr = r + (abs(dr) == 2 ? dr / 2 : 0), mf = f + (abs(df) == 2 ? df / 2 : 0);
			if (on_board(r + dr, f + df) && !pos->board[mr][mf].powers)
				map[r + dr][f + df] = 1;
		}
	if (powers & PW_K)
		for (int d = 0; d < 4; d++) {
			mark(map, r + orth[d][0], f + orth[d][1]);
			mark(map, r + diag[d][0], f + diag[d][1]);
		}
}

/*
 * Whether one power of a piece of seat goes from (fr,ff) to (tr,tf): 1 yes, 0 not its pattern,
 * -1 its pattern but blocked at (*br,*bf). Only for explaining a refusal; reach_map decides.
 */
static int power_reaches(const rules_position *pos, int seat, unsigned bit, int fr, int ff,
			 int tr, int tf, int *br, int *bf)
{
	int dr = tr - fr, df = tf - ff, adr = abs(dr), adf = abs(df), fw = forward(seat);

	switch (bit) {
	case PW_A: return adr == 2 && adf == 2;
	case PW_D: return (adr == 2 && !df) || (adf == 2 && !dr);
	case PW_P: return dr == fw && !df;
	case PW_S: return (adr == 1 && adf == 1) || (dr == fw && !df);
	case PW_G: return adr + adf == 1 || (dr == fw && adf == 1);
	case PW_K: return adr <= 1 && adf <= 1 && adr + adf > 0;
	case PW_N:
		if (!((adr == 2 && adf == 1) || (adr == 1 && adf == 2)))
			return 0;
		*br = fr + (adr == 2 ? dr / 2 : 0);
		*bf = ff + (adf == 2 ? df / 2 : 0);
		return pos->board[*br][*bf].powers ? -1 : 1;
	case PW_B:
	case PW_R: {
		int ur = (dr > 0) - (dr < 0), uf = (df > 0) - (df < 0);
		int dist = adr > adf ? adr : adf;
		if (bit == PW_B ? adr != adf || !adr : (dr && df) || (!dr && !df))
			return 0;
		for (int k = 1; k < dist; k++)
			if (pos->board[fr + k * ur][ff + k * uf].powers) {
				*br = fr + k * ur;
				*bf = ff + k * uf;
				return -1;
			}
		return 1;
	}
	}
	return 0;
}

/* Why the piece on (fr,ff) cannot go to (tr,tf), as an error. */
static int movement_fault(const rules_position *pos, int seat, int fr, int ff, int tr, int tf,
			  unsigned powers, rules_error *err)
{
	char s1[4], s2[4], s3[4], name[32], names[96];
	size_t len = 0;

	if (!err)
		return RULES_E_ILLEGAL;
	square_name(s1, fr, ff);
	square_name(s2, tr, tf);
	piece_name(powers, name);
	for (int i = 0; i < NPOWERS; i++) {
		int br = 0, bf = 0;
		if (!(powers & (1u << i)))
			continue;
		if (power_reaches(pos, seat, 1u << i, fr, ff, tr, tf, &br, &bf) < 0)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the %s on %s cannot move to %s: the %s move is blocked at %s%s",
					  name, s1, s2, power_names[i], square_name(s3, br, bf),
					  (1u << i) == PW_N ? " (the Knight is lame)" : "");
	}
	if (is_single(powers)) {
		int i = bit_index(powers);
		char fw[48] = "";
		if (powers & (PW_P | PW_S | PW_G))
			snprintf(fw, sizeof fw, " (%s's forward is %s)", seat_names[seat], forward_names[seat]);
		return rules_fail(err, RULES_E_ILLEGAL, "the %s on %s cannot move to %s: %s %s %s%s",
				  name, s1, s2, article(powers), power_names[i],
				  i == bit_index(PW_N) ? "moves one square orthogonally and then one diagonally outward"
				  : i == bit_index(PW_A) ? "leaps exactly two squares diagonally"
				  : i == bit_index(PW_D) ? "leaps exactly two squares orthogonally"
				  : i == bit_index(PW_P) ? "moves one square straight forward"
				  : i == bit_index(PW_S) ? "moves one square diagonally or one straight forward"
				  : i == bit_index(PW_G) ? "moves one square orthogonally or one diagonally forward"
				  : i == bit_index(PW_K) ? "moves one square in any direction"
				  : i == bit_index(PW_B) ? "moves any number of squares diagonally"
				  : "moves any number of squares orthogonally",
				  fw);
	}
	names[0] = 0;
	for (int i = 0; i < NPOWERS; i++)
		if (powers & (1u << i))
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
						power_names[i]);
	return rules_fail(err, RULES_E_ILLEGAL,
			  "the %s on %s cannot move to %s: none of its powers (%s) goes there", name, s1,
			  s2, names);
}

/* ---- end of game ---- */

static int gen_all(engine_gen *g);

static int has_legal_move(const rules_position *pos, int seat)
{
	return engine_generate(gen_all, pos, seat, NULL) != 0;
}

/* A side to move without a legal move has lost (house ruling 18). */
static const duel_reason reasons[] = {
	[REASON_KING] = { "king", "King captured" }, [REASON_CONVERTED] = { "converted", "King converted" },
	[REASON_NOMOVE] = { "nomove", NULL },
};
static const duel_rules two_seats = {
	"Conversion Chess", seat_names, "WB", reasons, sizeof reasons / sizeof *reasons, REASON_NOMOVE, has_legal_move,
};

static int check_turn(const rules_position *pos, int seat, rules_error *err)
{
	return duel_check_turn(&two_seats, pos, &pos->duel, seat, err);
}

/* ---- move generation ---- */

static int push(engine_gen *g, const cc_move *m)
{
	return engine_push(g, m, sizeof *m, 0);
}

/* The move, then its variants with a promotion after it when one is possible
 * (docs/rules/conversion-chess.md, Promotion): the move begins or ends in the zone, and the
 * piece, post (its powers after the move), promotes. */
static int push_with_after(engine_gen *g, const cc_move *m, unsigned post)
{
	const char *up = promotions(post);

	if (push(g, m))
		return 1;
	if (m->when == WHEN_BEFORE || !up || !(in_zone(g->seat, m->fr) || in_zone(g->seat, m->tr)))
		return 0;
	for (; *up; up++) {
		cc_move p = *m;
		p.promo = (unsigned char)*up;
		p.when = WHEN_AFTER;
		if (push(g, &p))
			return 1;
	}
	return 0;
}

/* Displacement of captive: every combination of demotion choices, from component k on. */
static int push_demotions(engine_gen *g, cc_move *m, unsigned captive, unsigned post, int from_bit, int k)
{
	for (int i = from_bit; i < NPOWERS; i++) {
		const char *choices = demotions(1u << i);
		if (!(captive & (1u << i)) || !choices)
			continue;
		for (; *choices; choices++) {
			m->demote[k] = (unsigned char)*choices;
			if (push_demotions(g, m, captive, post, i + 1, k + 1))
				return 1;
		}
		m->demote[k] = 0;
		return 0;
	}
	m->ndemote = (unsigned char)k;
	return push_with_after(g, m, post);
}

/*
 * Every move of the piece of powers orig on (r,f), moving with powers moving (orig, or the piece
 * it became by a promotion before the move, letter promo). Returns 1 to stop.
 */
static int gen_from(engine_gen *g, int r, int f, unsigned orig, unsigned moving, int promo)
{
	const rules_position *pos = g->pos;
	sqmap map;
	int ct = tier_of(moving);

	reach_map(pos, r, f, moving, g->seat, map);
	for (int tr = 0; tr < SIZE; tr++)
		for (int tf = 0; tf < SIZE; tf++) {
			const square *t = &pos->board[tr][tf];
			cc_move m;
			int allowed;
			if (!map[tr][tf] || (t->powers && t->owner == g->seat))
				continue;
			memset(&m, 0, sizeof m);
			m.kind = KIND_MOVE;
			m.fr = (unsigned char)r;
			m.ff = (unsigned char)f;
			m.tr = (unsigned char)tr;
			m.tf = (unsigned char)tf;
			set_move_powers(&m, orig);
			if (promo) {
				m.promo = (unsigned char)promo;
				m.when = WHEN_BEFORE;
			}
			if (!t->powers) {
				if (push_with_after(g, &m, moving))
					return 1;
				continue;
			}
			m.capture = 1;
			if (t->powers == PW_K) {
				/* Taking the King ends the game: nothing follows it. */
				if (push(g, &m))
					return 1;
				continue;
			}
			allowed = capture_table[ct - 1][tier_of(t->powers) - 1];
			if (allowed & M_DISP) {
				m.method = M_DISP;
				if (push_demotions(g, &m, t->powers, moving, 0, 0))
					return 1;
				memset(m.demote, 0, sizeof m.demote);
				m.ndemote = 0;
			}
			if (allowed & M_ASSIM) {
				m.method = M_ASSIM;
				if (push_with_after(g, &m, moving | t->powers))
					return 1;
			}
		}
	return 0;
}

/* Every legal move of g->seat, whoever's turn it is. Returns 1 when stopped early. */
static int gen_all(engine_gen *g)
{
	const rules_position *pos = g->pos;
	int seat = g->seat, empty = 0;

	for (int r = 0; r < SIZE; r++)
		for (int f = 0; f < SIZE; f++) {
			const square *c = &pos->board[r][f];
			const char *up;
			if (!c->powers) {
				empty++;
				continue;
			}
			if (c->owner != seat)
				continue;
			if (gen_from(g, r, f, c->powers, c->powers, 0))
				return 1;
			up = promotions(c->powers);
			if (!up || !in_zone(seat, r))
				continue;
			for (; *up; up++) {
				cc_move m;
				memset(&m, 0, sizeof m);
				m.kind = KIND_PROMOTE;
				m.fr = (unsigned char)r;
				m.ff = (unsigned char)f;
				set_move_powers(&m, c->powers);
				m.promo = (unsigned char)*up;
				if (push(g, &m) || gen_from(g, r, f, c->powers, power_of(*up), *up))
					return 1;
			}
		}
	for (int i = 0; i < NHAND && empty; i++) {
		if (!pos->hand[seat][i])
			continue;
		for (int r = 0; r < SIZE; r++)
			for (int f = 0; f < SIZE; f++) {
				cc_move m;
				if (pos->board[r][f].powers)
					continue;
				memset(&m, 0, sizeof m);
				m.kind = KIND_DROP;
				m.tr = (unsigned char)r;
				m.tf = (unsigned char)f;
				m.drop = (unsigned char)hand_letters[i];
				if (push(g, &m))
					return 1;
			}
	}
	return 0;
}

/* ---- parsing ---- */

enum { PART_MOVE = 1, PART_PROMO, PART_DROP };
#define MAX_PARTS 4
#define MAX_LIST 8

/* One part of a turn as written, before any look at the position. */
typedef struct part {
	int kind;               /* PART_MOVE, PART_PROMO or PART_DROP */
	unsigned piece;         /* powers named by the piece designation, 0 when none */
	int fr, ff;             /* MOVE, PROMO: the piece's square */
	int tr, tf;             /* MOVE, DROP: the destination */
	int method;             /* MOVE: 0 when none written, M_DISP or M_ASSIM */
	int nlist;              /* MOVE: demotion list length, -1 when no list written */
	char list[MAX_LIST];    /* upper case */
	char letter;            /* PROMO: the new piece; DROP: the dropped piece (upper case) */
} part;

typedef struct scanned {
	int nparts;             /* 1 or 2 */
	part p[2];
} scanned;
static_assert(sizeof(scanned) <= ENGINE_SCAN_BYTES, "scanned must fit in engine_parse's buffer");

/* Squares as the notation names them: files a-i, ranks 1-9. */
static const square_names squares = { SIZE, SIZE, "e4", "", "", 0 };

/* A piece letter at p, as a power; a parse error otherwise. */
static int scan_letter(const char *p, unsigned *power, const char *what, rules_error *err)
{
	if (!isalpha((unsigned char)*p))
		return notation_unexpected(p, what, err);
	*power = power_of((unsigned char)*p);
	if (!*power)
		return rules_fail(err, RULES_E_PARSE,
				  "'%c' is not a piece letter (A, N, D, P, S, G, K, B or R)", *p);
	return 0;
}

/* A method word at p ("disp", "d", "assim", "a", any case, not followed by a letter or digit);
 * its length in *len. */
static int method_word(const char *p, size_t *len)
{
	static const struct {
		const char *word;
		int method;
	} words[] = { { "disp", M_DISP }, { "assim", M_ASSIM }, { "d", M_DISP }, { "a", M_ASSIM } };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i].word);
		if (strncasecmp(p, words[i].word, n) == 0 && !isalnum((unsigned char)p[n])) {
			*len = n;
			return words[i].method;
		}
	}
	return 0;
}

/* One part: a move, a promotion or a drop (docs/rules/conversion-chess.md, Writing moves). */
static int scan_part(const char **pp, part *w, rules_error *err)
{
	const char *p = notation_skip_space(*pp);
	unsigned bit;
	size_t len;
	int rc;

	memset(w, 0, sizeof *w);
	w->nlist = -1;
	if (*p == '(') {
		p++;
		do {
			if ((rc = scan_letter(p, &bit, "a piece letter in the parentheses", err)))
				return rc;
			if (w->piece & bit)
				return rules_fail(err, RULES_E_PARSE,
						  "the letter %c appears twice in the piece in parentheses",
						  toupper((unsigned char)*p));
			w->piece |= bit;
			p++;
		} while (*p != ')');
		p = notation_skip_space(p + 1);
	} else if (isalpha((unsigned char)*p)) {
		const char *q = notation_skip_space(p + 1);
		if (*q == '*') {
			if ((rc = scan_letter(p, &bit, "a piece letter", err)))
				return rc;
			w->kind = PART_DROP;
			w->letter = (char)toupper((unsigned char)*p);
			p = notation_skip_space(q + 1);
			if ((rc = square_scan(&squares, &p, &w->tr, &w->tf, "the square to drop on", err)))
				return rc;
			*pp = notation_skip_space(p);
			return 0;
		}
		if (power_of((unsigned char)*p) && square_name_at(&squares, q)) {
			w->piece = power_of((unsigned char)*p);
			p = q;
		} else if (!square_is_file(&squares, (unsigned char)*p)) {
			if (power_of((unsigned char)*p))
				return rules_fail(err, RULES_E_PARSE,
						  "the piece letter '%c' must be followed by the square the piece stands on, such as e4",
						  *p);
			return rules_fail(err, RULES_E_PARSE,
					  "'%c' is neither a piece letter nor a file (a move looks like e3-e4 or Pe3-e4)",
					  *p);
		}
	}
	if ((rc = square_scan(&squares, &p, &w->fr, &w->ff, "a square, such as e3 in e3-e4", err)))
		return rc;
	p = notation_skip_space(p);
	if (*p == '=') {
		p = notation_skip_space(p + 1);
		if ((rc = scan_letter(p, &bit, "the piece to promote to (P, S, G, B or R)", err)))
			return rc;
		w->kind = PART_PROMO;
		w->letter = (char)toupper((unsigned char)*p);
		*pp = notation_skip_space(p + 1);
		return 0;
	}
	if (*p == '-' || *p == 'x' || *p == 'X')
		p = notation_skip_space(p + 1);
	if ((rc = square_scan(&squares, &p, &w->tr, &w->tf, "the square the piece moves to", err)))
		return rc;
	w->kind = PART_MOVE;
	p = notation_skip_space(p);
	w->method = method_word(p, &len);
	if (w->method) {
		p = notation_skip_space(p + len);
		if (*p == '(') {
			if (w->method == M_ASSIM)
				return rules_fail(err, RULES_E_PARSE,
						  "assimilation takes no demotion list: write assim alone");
			w->nlist = 0;
			p++;
			for (;;) {
				p = notation_skip_space(p);
				if ((rc = scan_letter(p, &bit, "a hand piece letter (A, N, D, P, S or G)", err)))
					return rc;
				if (w->nlist == MAX_LIST)
					return rules_fail(err, RULES_E_PARSE, "the demotion list is too long");
				w->list[w->nlist++] = (char)toupper((unsigned char)*p);
				p = notation_skip_space(p + 1);
				if (*p == ',') {
					p++;
					continue;
				}
				if (*p == ')')
					break;
				return notation_unexpected(p, "',' or ')' in the demotion list", err);
			}
			p = notation_skip_space(p + 1);
		}
	}
	*pp = p;
	return 0;
}

/* The grammar of docs/rules/conversion-chess.md, Writing moves; nothing about the position. */
static int scan(const char *text, void *into, rules_error *err)
{
	scanned *s = into;
	part parts[MAX_PARTS];
	int n = 0, promos = 0, moves = 0, drops = 0, rc;
	const char *p;

	memset(s, 0, sizeof *s);
	if ((rc = notation_check_text(text, "move", err)))
		return rc;
	p = text;
	for (;;) {
		if (n == MAX_PARTS)
			return rules_fail(err, RULES_E_PARSE,
					  "too many parts: a turn is a move, a drop or a promotion, or a promotion and a move separated by '/'");
		if ((rc = scan_part(&p, &parts[n], err)))
			return rc;
		n++;
		if (*p != '/')
			break;
		p++;
	}
	while (*p == '+')
		p = notation_skip_space(p + 1);
	if (*p && *p != '#')
		return notation_unexpected(p, parts[n - 1].kind == PART_MOVE && !parts[n - 1].method
				  ? "a capture method (disp or assim), '/', '+', '#' or the end of the move"
				  : "'/', '+', '#' or the end of the move", err);
	for (int i = 0; i < n; i++) {
		promos += parts[i].kind == PART_PROMO;
		moves += parts[i].kind == PART_MOVE;
		drops += parts[i].kind == PART_DROP;
	}
	if (promos > 1)
		return rules_fail(err, RULES_E_PARSE,
				  "at most one promotion per turn, before or after the move (house ruling 13)");
	if (drops && n > 1)
		return rules_fail(err, RULES_E_PARSE, "a drop is the whole turn: nothing may go with it");
	if (moves > 1)
		return rules_fail(err, RULES_E_PARSE, "a turn moves one piece only");
	s->nparts = n;
	for (int i = 0; i < n; i++)
		s->p[i] = parts[i];
	return 0;
}

/* ---- checking a turn against the position ---- */

/* The piece of seat on (r,f), matching the designation named (or alt) when one is written. */
static int own_piece(const rules_position *pos, int seat, int r, int f, unsigned named, unsigned alt,
		     unsigned *powers, rules_error *err)
{
	const square *c = &pos->board[r][f];
	char s[4], a[32], b[32];

	square_name(s, r, f);
	if (!c->powers)
		return rules_fail(err, RULES_E_ILLEGAL, "there is no piece on %s", s);
	if (c->owner != seat)
		return rules_fail(err, RULES_E_ILLEGAL, "the %s on %s is %s's, not yours",
				  piece_name(c->powers, a), s, seat_names[c->owner]);
	if (named && named != c->powers && named != alt)
		return rules_fail(err, RULES_E_ILLEGAL, "wrong piece: %s holds %s %s, not %s %s", s,
				  article(c->powers), piece_name(c->powers, a), article(named),
				  piece_name(named, b));
	*powers = c->powers;
	return 0;
}

/* Whether a piece of these powers may promote to letter (docs/rules/conversion-chess.md,
 * Promotion); the zone is the caller's. */
static int promotion_check(unsigned powers, int letter, const char *where, rules_error *err)
{
	const char *up = promotions(powers);
	char name[32], list[32];

	piece_name(powers, name);
	if (!is_single(powers))
		return rules_fail(err, RULES_E_ILLEGAL, "the %s %s cannot promote: compounds never promote",
				  name, where);
	if (powers == PW_K)
		return rules_fail(err, RULES_E_ILLEGAL, "the King never promotes");
	if (!up)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the %s %s cannot promote: Third Tier pieces never promote", name, where);
	if (power_of(letter) == PW_K)
		return rules_fail(err, RULES_E_ILLEGAL, "nothing ever promotes to a King");
	if (!strchr(up, letter))
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a promotion goes exactly one tier up: the %s (%s) promotes to %s, not %c",
				  name, tier_names[tier_of(powers)], choice_list(up, list), letter);
	return 0;
}

static int zone_fault(int seat, const char *what, int r, int f, rules_error *err)
{
	char s[4];

	return rules_fail(err, RULES_E_ILLEGAL, "%s needs the piece in %s, and %s is outside it",
			  what, zone_names[seat], square_name(s, r, f));
}

/*
 * The movement part: the piece of seat moving with powers moving from (w->fr,w->ff) to
 * (w->tr,w->tf), and the capture written in w (docs/rules/conversion-chess.md, Capturing). Fills
 * the movement fields of m.
 */
static int check_movement(const rules_position *pos, int seat, unsigned moving, const part *w,
			  cc_move *m, rules_error *err)
{
	sqmap map;
	const square *t = &pos->board[w->tr][w->tf];
	char s1[4], s2[4], name[32], vname[32], list[32];
	int allowed, method, n = 0, ct, vt;
	unsigned comps[MAX_DEMOTE];

	square_name(s1, w->fr, w->ff);
	square_name(s2, w->tr, w->tf);
	if (w->fr == w->tr && w->ff == w->tf)
		return rules_fail(err, RULES_E_ILLEGAL, "a move must go to another square");
	reach_map(pos, w->fr, w->ff, moving, seat, map);
	if (!map[w->tr][w->tf])
		return movement_fault(pos, seat, w->fr, w->ff, w->tr, w->tf, moving, err);
	if (t->powers && t->owner == seat)
		return rules_fail(err, RULES_E_ILLEGAL, "%s holds your own %s", s2,
				  piece_name(t->powers, vname));
	m->kind = KIND_MOVE;
	m->fr = (unsigned char)w->fr;
	m->ff = (unsigned char)w->ff;
	m->tr = (unsigned char)w->tr;
	m->tf = (unsigned char)w->tf;
	if (!t->powers) {
		if (w->method)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "a capture method is written only for a capture, and %s is empty", s2);
		return 0;
	}
	m->capture = 1;
	if (t->powers == PW_K)
		return 0;       /* a written method is accepted and ignored (house ruling 17) */

	ct = tier_of(moving);
	vt = tier_of(t->powers);
	piece_name(moving, name);
	piece_name(t->powers, vname);
	allowed = capture_table[ct - 1][vt - 1] & (M_DISP | M_ASSIM);
	if (!allowed)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the %s may not move onto the %s on %s: %s against %s is attacking only (3), so that piece can only be converted after a move",
				  name, vname, s2, tier_names[ct], tier_names[vt]);
	method = w->method;
	if (!method) {
		if (allowed == (M_DISP | M_ASSIM))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "capture method required: %s against %s may displace or assimilate, so write disp or assim after %s",
					  tier_names[ct], tier_names[vt], s2);
		method = allowed;
	} else if (!(allowed & method)) {
		return rules_fail(err, RULES_E_ILLEGAL,
				  "%s against %s allows only %s, not %s", tier_names[ct], tier_names[vt],
				  allowed == M_DISP ? "displacement (disp)" : "assimilation (assim)",
				  method == M_DISP ? "displacement" : "assimilation");
	}
	m->method = (unsigned char)method;
	if (method == M_ASSIM)
		return 0;

	/* Displacement: one choice per Second and Third Tier power, in the order B R G P S. */
	for (int i = 0; i < NPOWERS; i++)
		if ((t->powers & (1u << i)) && demotions(1u << i))
			comps[n++] = 1u << i;
	if (!n) {
		if (w->nlist >= 0)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "no demotion choice here: the %s goes to your hand unchanged, so write disp without a list",
					  vname);
		return 0;
	}
	if (w->nlist < 0) {
		if (n == 1 && is_single(t->powers))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "demotion choice required: the %s goes to your hand as %s: write disp(%c), disp(%c) or disp(%c)",
					  vname, choice_list(demotions(comps[0]), list), demotions(comps[0])[0],
					  demotions(comps[0])[1], demotions(comps[0])[2]);
		{
			char need[160];
			size_t len = 0;
			for (int k = 0; k < n; k++)
				len += (size_t)snprintf(need + len, sizeof need - len, "%s%s to %s",
							k ? ", then " : "",
							power_names[bit_index(comps[k])],
							choice_list(demotions(comps[k]), list));
			return rules_fail(err, RULES_E_ILLEGAL,
					  "demotion choice required: write disp(...) with one hand piece for each power of the %s that is demoted by choice: %s",
					  vname, need);
		}
	}
	if (w->nlist != n)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the demotion list has %d piece%s, but the %s needs %d (one for each of its Second and Third Tier powers, in the order B, R, G, P, S)",
				  w->nlist, w->nlist == 1 ? "" : "s", vname, n);
	for (int k = 0; k < n; k++) {
		const char *choices = demotions(comps[k]);
		if (!strchr(choices, w->list[k]))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the %s%s demotes to %s, not %c", power_names[bit_index(comps[k])],
					  is_single(t->powers) ? "" : " power", choice_list(choices, list),
					  w->list[k]);
		m->demote[k] = (unsigned char)w->list[k];
	}
	m->ndemote = (unsigned char)n;
	return 0;
}

static int check_drop(const rules_position *pos, int seat, const part *w, cc_move *m, rules_error *err)
{
	int i = hand_index(w->letter);
	char s[4], name[32];

	square_name(s, w->tr, w->tf);
	if (i < 0)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a %s is never in a hand: hands hold only A, N, D, P, S and G",
				  piece_name(power_of(w->letter), name));
	if (!pos->hand[seat][i])
		return rules_fail(err, RULES_E_ILLEGAL, "you have no %s in your hand",
				  power_names[bit_index(power_of(w->letter))]);
	if (pos->board[w->tr][w->tf].powers)
		return rules_fail(err, RULES_E_ILLEGAL, "%s is not empty: a piece is dropped on an empty square", s);
	m->kind = KIND_DROP;
	m->tr = (unsigned char)w->tr;
	m->tf = (unsigned char)w->tf;
	m->drop = (unsigned char)w->letter;
	return 0;
}

static int check_in_place(const rules_position *pos, int seat, const part *w, cc_move *m,
			  rules_error *err)
{
	unsigned powers;
	char s[4], where[8];
	int rc;

	if ((rc = own_piece(pos, seat, w->fr, w->ff, w->piece, 0, &powers, err)))
		return rc;
	snprintf(where, sizeof where, "on %s", square_name(s, w->fr, w->ff));
	if ((rc = promotion_check(powers, w->letter, where, err)))
		return rc;
	if (!in_zone(seat, w->fr))
		return zone_fault(seat, "a promotion in place", w->fr, w->ff, err);
	m->kind = KIND_PROMOTE;
	m->fr = (unsigned char)w->fr;
	m->ff = (unsigned char)w->ff;
	set_move_powers(m, powers);
	m->promo = (unsigned char)w->letter;
	return 0;
}

/* Promotion before moving: a in place, then the move b with the new powers (house ruling 14). */
static int check_before(const rules_position *pos, int seat, const part *a, const part *b,
			cc_move *m, rules_error *err)
{
	unsigned powers, now, named;
	char s1[4], s2[4], where[8];
	int rc;

	square_name(s1, a->fr, a->ff);
	if (a->fr != b->fr || a->ff != b->ff)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a promotion before a move is written on the square the piece moves from: %s is promoted, but the move starts on %s",
				  s1, square_name(s2, b->fr, b->ff));
	if ((rc = own_piece(pos, seat, a->fr, a->ff, a->piece, 0, &powers, err)))
		return rc;
	snprintf(where, sizeof where, "on %s", s1);
	if ((rc = promotion_check(powers, a->letter, where, err)))
		return rc;
	if (!in_zone(seat, a->fr))
		return zone_fault(seat, "promotion before moving", a->fr, a->ff, err);
	now = power_of(a->letter);
	if ((rc = own_piece(pos, seat, b->fr, b->ff, b->piece, now, &named, err)))
		return rc;
	if ((rc = check_movement(pos, seat, now, b, m, err)))
		return rc;
	set_move_powers(m, powers);
	m->promo = (unsigned char)a->letter;
	m->when = WHEN_BEFORE;
	return 0;
}

/* Promotion after moving: the move a, then b on its destination (docs/rules/conversion-chess.md,
 * Promotion). */
static int check_after(const rules_position *pos, int seat, const part *a, const part *b,
		       cc_move *m, rules_error *err)
{
	unsigned powers, post;
	const square *t = &pos->board[a->tr][a->tf];
	char s1[4], s2[4], where[24], name[32], bname[32];
	int rc;

	if ((rc = own_piece(pos, seat, a->fr, a->ff, a->piece, 0, &powers, err))
	    || (rc = check_movement(pos, seat, powers, a, m, err)))
		return rc;
	square_name(s1, a->tr, a->tf);
	if (b->fr != a->tr || b->ff != a->tf)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a promotion after a move is written on the square the piece moved to (%s), not %s",
				  s1, square_name(s2, b->fr, b->ff));
	if (m->capture && t->powers == PW_K)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "nothing may follow the capture of the King: the game ends with it");
	post = m->method == M_ASSIM ? powers | t->powers : powers;
	snprintf(where, sizeof where, "on %s after the move", s1);
	if ((rc = promotion_check(post, b->letter, where, err)))
		return rc;
	if (b->piece && b->piece != post)
		return rules_fail(err, RULES_E_ILLEGAL, "wrong piece: after the move %s holds %s %s, not %s %s",
				  s1, article(post), piece_name(post, name), article(b->piece),
				  piece_name(b->piece, bname));
	if (!in_zone(seat, a->fr) && !in_zone(seat, a->tr))
		return rules_fail(err, RULES_E_ILLEGAL,
				  "promotion after moving needs the move to begin or end in %s", zone_names[seat]);
	set_move_powers(m, powers);
	m->promo = (unsigned char)b->letter;
	m->when = WHEN_AFTER;
	return 0;
}

/*
 * Check a turn written as s by seat against the position; on success fill *out with the move in
 * its one canonical encoding. The turn itself is the caller's business.
 */
static int check_text(const rules_position *pos, int seat, const void *in, void *into,
		      rules_error *err)
{
	const scanned *s = in;
	cc_move *out = into;
	const part *a = &s->p[0], *b = &s->p[1];
	unsigned powers;
	int rc;

	memset(out, 0, sizeof *out);
	if (s->nparts == 1) {
		switch (a->kind) {
		case PART_DROP:
			return check_drop(pos, seat, a, out, err);
		case PART_PROMO:
			return check_in_place(pos, seat, a, out, err);
		}
		if ((rc = own_piece(pos, seat, a->fr, a->ff, a->piece, 0, &powers, err))
		    || (rc = check_movement(pos, seat, powers, a, out, err)))
			return rc;
		set_move_powers(out, powers);
		return 0;
	}
	if (a->kind == PART_PROMO)
		return check_before(pos, seat, a, b, out, err);
	return check_after(pos, seat, a, b, out, err);
}

/* Whether the move's fields are in range (says nothing about legality). */
static int well_formed(const cc_move *m)
{
	unsigned powers = move_powers(m);

	switch (m->kind) {
	case KIND_DROP:
		return m->tr < SIZE && m->tf < SIZE && hand_index(m->drop) >= 0;
	case KIND_PROMOTE:
		return m->fr < SIZE && m->ff < SIZE && powers && !(powers & ~PW_ALL)
			&& m->promo && power_of(m->promo);
	case KIND_MOVE:
		if (m->fr >= SIZE || m->ff >= SIZE || m->tr >= SIZE || m->tf >= SIZE || !powers
		    || (powers & ~PW_ALL) || m->capture > 1 || m->method > M_ASSIM
		    || m->ndemote > MAX_DEMOTE || m->when > WHEN_AFTER || (m->when && !power_of(m->promo)))
			return 0;
		for (int i = 0; i < m->ndemote; i++)
			if (hand_index(m->demote[i]) < 0)
				return 0;
		return 1;
	}
	return 0;
}

/* The parts of a stored move, as if written in full; -1 when the move is malformed. */
static int to_scanned(const void *in, void *into)
{
	const cc_move *m = in;
	scanned *s = into;
	part mv, pr;

	if (!well_formed(m))
		return -1;
	memset(s, 0, sizeof *s);
	memset(&mv, 0, sizeof mv);
	memset(&pr, 0, sizeof pr);
	s->nparts = 1;
	if (m->kind == KIND_DROP) {
		s->p[0].kind = PART_DROP;
		s->p[0].tr = m->tr;
		s->p[0].tf = m->tf;
		s->p[0].letter = (char)m->drop;
		return 0;
	}
	if (m->kind == KIND_PROMOTE) {
		s->p[0].kind = PART_PROMO;
		s->p[0].piece = move_powers(m);
		s->p[0].fr = m->fr;
		s->p[0].ff = m->ff;
		s->p[0].letter = (char)m->promo;
		return 0;
	}
	mv.kind = PART_MOVE;
	mv.piece = m->when == WHEN_BEFORE ? 0 : move_powers(m);
	mv.fr = m->fr;
	mv.ff = m->ff;
	mv.tr = m->tr;
	mv.tf = m->tf;
	mv.method = m->method;
	mv.nlist = m->method == M_DISP && m->ndemote ? m->ndemote : -1;
	for (int i = 0; i < m->ndemote && i < MAX_DEMOTE; i++)
		mv.list[i] = (char)m->demote[i];
	pr.kind = PART_PROMO;
	pr.letter = (char)m->promo;
	if (m->when == WHEN_BEFORE) {
		pr.piece = move_powers(m);
		pr.fr = m->fr;
		pr.ff = m->ff;
		s->p[0] = pr;
		s->p[1] = mv;
		s->nparts = 2;
	} else if (m->when == WHEN_AFTER) {
		pr.fr = m->tr;
		pr.ff = m->tf;
		s->p[0] = mv;
		s->p[1] = pr;
		s->nparts = 2;
	} else {
		s->p[0] = mv;
	}
	return 0;
}

static const engine_reader reader = {
	sizeof(scanned), sizeof(cc_move), scan, check_turn, check_text, NULL, to_scanned,
};

static int cc_parse(const rules_position *pos, int seat, const char *text, rules_move *move,
		    rules_error *err)
{
	return engine_parse(&reader, pos, seat, text, move, err);
}

/* ---- the rules_game functions ---- */

static int read_position(const char *text, rules_position *pos, rules_error *err);

/* The house setup, both hands empty, White to move. */
static int cc_start(const char *options, rules_position **out, rules_error *err)
{
	rules_position *p = engine_start(options, "Conversion Chess", sizeof *p, out, err);
	char text[sizeof TAG + sizeof house_setup + 16];
	int rc;

	if (!p)
		return RULES_E_DATA;
	snprintf(text, sizeof text, "%s%s:-:-:W:-", TAG, house_setup);
	if ((rc = read_position(text, p, err))) {
		engine_free_flat(p);
		*out = NULL;
	}
	return rc;
}

static rules_position *cc_clone(const rules_position *pos)
{
	return xmemdup(pos, sizeof *pos);
}

/*
 * Canonical text (docs/rules/conversion-chess.md, Writing moves): the piece always written
 * (upper case, compounds in parentheses in the fixed order), '-' or 'x', the method word for
 * every capture but the King's, the demotion list in parentheses, parts separated by " / ",
 * drops as X*sq.
 */
static size_t cc_format(const rules_position *pos, const rules_move *move, char *buf, size_t size)
{
	cc_move m;
	char tmp[96], a[4], b[4], pt[16], method[32] = "";
	size_t len = 0;

	(void)pos;
	if (engine_format_open(move, &m, sizeof m, buf, size) || !well_formed(&m))
		return 0;
	switch (m.kind) {
	case KIND_DROP:
		snprintf(tmp, sizeof tmp, "%c*%s", m.drop, square_name(a, m.tr, m.tf));
		break;
	case KIND_PROMOTE:
		snprintf(tmp, sizeof tmp, "%s%s=%c", piece_text(move_powers(&m), pt), square_name(a, m.fr, m.ff),
			 m.promo);
		break;
	default:
		if (m.method == M_ASSIM) {
			snprintf(method, sizeof method, " assim");
		} else if (m.method == M_DISP) {
			size_t n = (size_t)snprintf(method, sizeof method, " disp");
			for (int i = 0; i < m.ndemote; i++)
				n += (size_t)snprintf(method + n, sizeof method - n, "%c%c", i ? ',' : '(',
						      m.demote[i]);
			if (m.ndemote)
				snprintf(method + n, sizeof method - n, ")");
		}
		if (m.when == WHEN_BEFORE)
			len = (size_t)snprintf(tmp, sizeof tmp, "%s%s=%c / ",
					       piece_text(move_powers(&m), pt), square_name(a, m.fr, m.ff), m.promo);
		len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%s%s%c%s%s",
					m.when == WHEN_BEFORE ? piece_text(power_of(m.promo), pt)
					: piece_text(move_powers(&m), pt),
					square_name(a, m.fr, m.ff), m.capture ? 'x' : '-',
					square_name(b, m.tr, m.tf), method);
		if (m.when == WHEN_AFTER)
			snprintf(tmp + len, sizeof tmp - len, " / %s%s=%c", piece_text(move_powers(&m), pt),
				 square_name(b, m.tr, m.tf), m.promo);
		break;
	}
	return engine_text_out(tmp, buf, size);
}

static size_t cc_legal_moves(const rules_position *pos, int seat, rules_move_list *out)
{
	if (!duel_to_move(&two_seats, pos, &pos->duel, seat))
		return 0;
	return engine_generate(gen_all, pos, seat, out);
}

/* Steps 1-5 of a turn (docs/rules/conversion-chess.md, What happens in a turn) for a move on the
 * board. Returns 1 when the game ended. */
static int do_move(rules_position *pos, const cc_move *m, int seat, rules_outcome *outcome)
{
	square mover = pos->board[m->fr][m->ff], victim = pos->board[m->tr][m->tf];
	char list[RULES_NOTE_MAX], pt[16], a[4];
	size_t len = 0;
	sqmap map;
	int tier, king = 0;

	if (m->when == WHEN_BEFORE)
		mover.powers = (unsigned short)power_of(m->promo);
	memset(&pos->board[m->fr][m->ff], 0, sizeof(square));
	if (m->capture && victim.powers == PW_K) {
		pos->board[m->tr][m->tf] = mover;
		duel_finish(&pos->duel, seat, REASON_KING);
		engine_note(outcome, "King captured \u2014 %s wins", seat_names[seat]);
		return 1;
	}
	if (m->capture && m->method == M_DISP) {
		/* Every power to the captor's hand, demoted (house ruling 10). */
		int k = 0;
		list[0] = 0;
		for (int i = 0; i < NPOWERS; i++) {
			char letter;
			if (!(victim.powers & (1u << i)))
				continue;
			letter = demotions(1u << i) ? (char)m->demote[k++] : power_letters[i];
			pos->hand[seat][hand_index(letter)]++;
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%c", len ? ", " : "", letter);
		}
		engine_note(outcome, "to hand: %s", list);
	} else if (m->capture) {
		unsigned now = mover.powers | victim.powers;
		if (now != mover.powers) {
			engine_note(outcome, "becomes %s", piece_text(now, pt));
		}
		mover.powers = (unsigned short)now;
	}
	pos->board[m->tr][m->tf] = mover;

	/* Conversions by attacking (docs/rules/conversion-chess.md, Capturing), simultaneous: the map
	 * is taken before any change. */
	tier = tier_of(mover.powers);
	reach_map(pos, m->tr, m->tf, mover.powers, seat, map);
	len = 0;
	list[0] = 0;
	for (int f = 0; f < SIZE; f++)
		for (int r = 0; r < SIZE; r++) {
			square *c = &pos->board[r][f];
			if (!map[r][f] || !c->powers || c->owner == seat
			    || !(capture_table[tier - 1][tier_of(c->powers) - 1] & M_ATTACK))
				continue;
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
						square_name(a, r, f));
			if (c->powers == PW_K) {
				/* Converting the King captures it: it leaves the board (house ruling 17). */
				memset(c, 0, sizeof *c);
				king = 1;
			} else {
				c->owner = (unsigned char)seat;
			}
		}
	if (len && king)
		engine_note(outcome, "converts %s: King converted \u2014 %s wins", list, seat_names[seat]);
	else if (len)
		engine_note(outcome, "converts %s", list);
	if (king) {
		duel_finish(&pos->duel, seat, REASON_CONVERTED);
		return 1;
	}
	if (m->when == WHEN_AFTER)
		pos->board[m->tr][m->tf].powers = (unsigned short)power_of(m->promo);
	return 0;
}

static int cc_apply(rules_position *pos, const rules_move *move, const rules_dice *dice,
		    rules_outcome *outcome, rules_error *err)
{
	cc_move m;
	int seat = move->seat, rc;

	(void)dice;     /* no dice in this game */
	if (outcome)
		outcome->note[0] = 0;
	if ((rc = check_turn(pos, seat, err)) || (rc = engine_recheck(&reader, pos, move, &m, err)))
		return rc;

	/* Valid: from here on nothing fails. */
	switch (m.kind) {
	case KIND_DROP:
		pos->hand[seat][hand_index(m.drop)]--;
		pos->board[m.tr][m.tf].powers = (unsigned short)power_of(m.drop);
		pos->board[m.tr][m.tf].owner = (unsigned char)seat;
		break;
	case KIND_PROMOTE:
		pos->board[m.fr][m.ff].powers = (unsigned short)power_of(m.promo);
		break;
	default:
		if (do_move(pos, &m, seat, outcome))
			return 0;
		break;
	}
	pos->duel.to_move = 1 - seat;
	if (!has_legal_move(pos, pos->duel.to_move)) {
		duel_finish(&pos->duel, seat, REASON_NOMOVE);
		engine_note(outcome, "%s has no legal move \u2014 %s wins", seat_names[1 - seat],
			    seat_names[seat]);
	}
	return 0;
}

static unsigned cc_turn(const rules_position *pos)
{
	return duel_turn(&two_seats, pos, &pos->duel);
}

static void cc_result(const rules_position *pos, rules_result *out)
{
	duel_result(&two_seats, pos, &pos->duel, out);
}

/*
 * Serialized position, one line:
 *
 *   cc1:<rank 9>/<rank 8>/.../<rank 1>:<White's hand>:<Black's hand>:<to move>:<result>
 *
 * Each rank lists its squares from file a to file i: '.' for an empty square, a piece letter
 * (B R G P S A D N K; upper case White, lower case Black), or a compound as its letters in the
 * fixed order B R G P S A D N inside parentheses, e.g. "(RN)" or "(rn)" (two or more letters,
 * never K). A hand is '-' when empty, else its pieces in the order A N D P S G, each as often as
 * it is held, in its owner's case ("NNS", "a"). <to move> is W or B (once the game is over, the
 * loser). <result> is '-' while the game goes on, else winner:reason with winner W or B and
 * reason "king" (King captured by moving onto it), "converted" (King converted by attacking; it
 * left the board) or "nomove" (the loser had no legal move). The start position is
 *   cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-
 */
static char *cc_serialize(const rules_position *pos)
{
	size_t cap = sizeof TAG + SIZE * SIZE * 12 + 2 * (MAX_UNITS + 2) + 32, len = 0;
	char *s = xmalloc(cap);

	len += (size_t)snprintf(s, cap, "%s", TAG);
	for (int r = SIZE - 1; r >= 0; r--) {
		for (int f = 0; f < SIZE; f++) {
			const square *c = &pos->board[r][f];
			char pt[16];
			if (!c->powers) {
				s[len++] = '.';
				continue;
			}
			piece_text(c->powers, pt);
			for (const char *p = pt; *p; p++)
				s[len++] = c->owner == WHITE ? *p : (char)tolower((unsigned char)*p);
		}
		s[len++] = r > 0 ? '/' : ':';
	}
	for (int seat = 0; seat < 2; seat++) {
		int n = 0;
		for (int i = 0; i < NHAND; i++)
			for (int k = 0; k < pos->hand[seat][i] && len + 8 < cap; k++, n++)
				s[len++] = seat == WHITE ? hand_letters[i]
					: (char)tolower((unsigned char)hand_letters[i]);
		if (!n)
			s[len++] = '-';
		s[len++] = ':';
	}
	duel_write(&two_seats, &pos->duel, s + len, cap - len);
	return s;
}

static int bad_data(rules_error *err, const char *what)
{
	return engine_corrupt(err, "Conversion Chess", what);
}

/* One square of the position text: '.', a letter, or a compound in parentheses. */
static int read_square(const char **pp, square *c, rules_error *err)
{
	const char *p = *pp;
	int last = -1, upper = -1;

	memset(c, 0, sizeof *c);
	if (*p == '.') {
		*pp = p + 1;
		return 0;
	}
	if (*p != '(') {
		if (!isalpha((unsigned char)*p) || !power_of((unsigned char)*p))
			return bad_data(err, "bad square");
		c->powers = (unsigned short)power_of((unsigned char)*p);
		c->owner = isupper((unsigned char)*p) ? WHITE : BLACK;
		*pp = p + 1;
		return 0;
	}
	for (p++; *p != ')'; p++) {
		unsigned bit = isalpha((unsigned char)*p) ? power_of((unsigned char)*p) : 0;
		int idx = bit ? bit_index(bit) : -1;
		if (!bit || bit == PW_K)
			return bad_data(err, "bad compound");
		if (idx <= last)
			return bad_data(err, "compound letters out of order");
		if (upper >= 0 && upper != !!isupper((unsigned char)*p))
			return bad_data(err, "compound letters in mixed case");
		upper = !!isupper((unsigned char)*p);
		last = idx;
		c->powers |= (unsigned short)bit;
	}
	if (count_powers(c->powers) < 2)
		return bad_data(err, "a compound needs two or more powers");
	c->owner = upper ? WHITE : BLACK;
	*pp = p + 1;
	return 0;
}

static int read_position(const char *text, rules_position *pos, rules_error *err)
{
	const char *p;
	int kings[2] = { 0, 0 }, units = 0, rc;

	if (!(p = engine_position_body(text, TAG, "a Conversion Chess", err)))
		return RULES_E_DATA;
	memset(pos, 0, sizeof *pos);
	for (int r = SIZE - 1; r >= 0; r--) {
		for (int f = 0; f < SIZE; f++) {
			square *c = &pos->board[r][f];
			if ((rc = read_square(&p, c, err)))
				return rc;
			if (c->powers == PW_K)
				kings[c->owner]++;
			units += count_powers(c->powers);
		}
		if (*p++ != (r > 0 ? '/' : ':'))
			return bad_data(err, "bad rank");
	}
	for (int seat = 0; seat < 2; seat++) {
		if (*p == '-') {
			p++;
		} else {
			int last = 0;
			do {
				int i = hand_index((unsigned char)*p);
				if (i < 0 || !isalpha((unsigned char)*p)
				    || !!isupper((unsigned char)*p) != (seat == WHITE))
					return bad_data(err, "bad hand piece");
				if (i < last)
					return bad_data(err, "hand pieces out of order");
				if (++units > MAX_UNITS)
					return bad_data(err, "too many pieces");
				last = i;
				pos->hand[seat][i]++;
				p++;
			} while (*p != ':');
		}
		if (*p++ != ':')
			return bad_data(err, "bad hand");
	}
	if (units > MAX_UNITS)
		return bad_data(err, "too many pieces");
	if ((rc = duel_read(&two_seats, p, &pos->duel)))
		return bad_data(err, rc == DUEL_BAD_TO_MOVE ? "bad side to move" : "bad result");
	if (pos->duel.over && pos->duel.to_move != 1 - pos->duel.winner)
		return bad_data(err, "the finished game's side to move is not the loser");

	/* Consistency: one King each, except the one just taken (house ruling 17, "only one King"). */
	for (int seat = 0; seat < 2; seat++) {
		int want = pos->duel.over && pos->duel.reason != REASON_NOMOVE && seat != pos->duel.winner ? 0 : 1;
		if (kings[seat] != want)
			return bad_data(err, "wrong number of Kings");
	}
	if (pos->duel.over && pos->duel.reason == REASON_NOMOVE && has_legal_move(pos, pos->duel.to_move))
		return bad_data(err, "the loser by lack of moves has a legal move");
	return 0;
}

static int cc_deserialize(const char *text, rules_position **out, rules_error *err)
{
	rules_position pos;
	int rc;

	*out = NULL;
	if ((rc = read_position(text, &pos, err)))
		return rc;
	*out = cc_clone(&pos);
	return 0;
}

/* The entry of hand piece i in seat's holding as cc_view writes it: the letter in its owner's case
 * ("N", "n"), or the count and the letter ("3N") when the hand is too big to show piece by piece. */
static const char *hand_entry(const rules_position *pos, int seat, int i, char buf[16])
{
	char letter = seat == WHITE ? hand_letters[i] : (char)tolower((unsigned char)hand_letters[i]);
	int total = 0, k = pos->hand[seat][i];

	for (int j = 0; j < NHAND; j++)
		total += pos->hand[seat][j];
	if (total > 32)
		snprintf(buf, 16, "%d%c", k > 99 ? 99 : k, letter);
	else
		snprintf(buf, 16, "%c", letter);
	return buf;
}

/*
 * As drawn for White: rank 9 at the top, file a on the left. A cell holds the piece's letters in
 * its owner's case without parentheses ("R", "rn", "BPA"); a compound of four or more powers,
 * which does not fit, shows its first two letters and '+' ("BR+"), and the notes give it in
 * full. The hands are two holdings without an anchor square, pieces in the order A N D P S G
 * (more than 32 pieces are shown counted, "3N").
 */
static void cc_view(const rules_position *pos, rules_view *out)
{
	size_t nlen = 0;

	memset(out, 0, sizeof *out);
	out->rows = SIZE;
	out->cols = SIZE;
	for (int i = 0; i < SIZE; i++) {
		snprintf(out->row_label[i], sizeof out->row_label[i], "%d", SIZE - i);
		snprintf(out->col_label[i], sizeof out->col_label[i], "%c", 'a' + i);
	}
	for (int i = 0; i < SIZE; i++) {
		int r = SIZE - 1 - i;
		for (int f = 0; f < SIZE; f++) {
			rules_cell *cell = &out->cell[i][f];
			const square *c = &pos->board[r][f];
			char pt[16], full[16], *letters = pt;
			size_t n;
			square_name(cell->name, r, f);
			cell->owner = -1;
			if (!c->powers)
				continue;
			piece_text(c->powers, pt);
			if (*letters == '(') {
				letters++;
				letters[strlen(letters) - 1] = 0;
			}
			n = strlen(letters);
			if (n > 3) {
				char entry[48];
				letters[2] = '+';
				letters[3] = 0;
				snprintf(entry, sizeof entry, "%s: %s %s", cell->name, seat_names[c->owner],
					 piece_text(c->powers, full));
				/* Pack the entries into the notes, as many to a line as fit. */
				if (out->nnotes && nlen + strlen(entry) + 2 < sizeof out->notes[0]) {
					char *line = out->notes[out->nnotes - 1];
					nlen += (size_t)snprintf(line + nlen, sizeof out->notes[0] - nlen, "; %s", entry);
				} else if (out->nnotes < 8) {
					nlen = (size_t)snprintf(out->notes[out->nnotes++], sizeof out->notes[0],
								"%s", entry);
				}
			}
			for (size_t k = 0; letters[k] && k < 3; k++)
				cell->piece[k] = c->owner == WHITE || letters[k] == '+' ? letters[k]
					: (char)tolower((unsigned char)letters[k]);
			cell->owner = (signed char)c->owner;
		}
	}
	out->nholdings = 2;
	for (int seat = 0; seat < 2; seat++) {
		rules_holding *h = &out->holding[seat];
		int total = 0, n = 0;
		snprintf(h->name, sizeof h->name, "%s's hand", seat_names[seat]);
		h->row = -1;
		h->col = -1;
		h->owner = seat;
		for (int i = 0; i < NHAND; i++)
			total += pos->hand[seat][i];
		for (int i = 0; i < NHAND; i++) {
			char entry[16] = "";
			int k = total > 32 ? 1 : pos->hand[seat][i];
			if (!pos->hand[seat][i])
				continue;
			hand_entry(pos, seat, i, entry);
			while (k-- > 0)
				memcpy(h->pieces[n++], entry, sizeof h->pieces[0] - 1);
		}
		h->npieces = n;
	}
}

/*
 * The hand pieces a displacement puts in the captor's hand, in the order of the captive's powers
 * (B R G P S A D N, as the note "to hand: ..." lists them): "G and N" in words, or "G,N" compact.
 */
static void hand_list(const cc_move *m, unsigned captive, int compact, char *buf, size_t size)
{
	char letters[NPOWERS];
	int n = 0, k = 0;
	size_t len = 0;

	for (int i = 0; i < NPOWERS; i++)
		if ((captive & (1u << i)) && (1u << i) != PW_K)
			letters[n++] = demotions(1u << i) && k < m->ndemote ? (char)m->demote[k++]
				: power_letters[i];
	buf[0] = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%c",
					i == 0 ? "" : compact ? "," : i + 1 == n ? " and " : ", ", letters[i]);
}

/*
 * How a move is pointed at on the board: a move touches its piece and its destination, a drop the
 * piece in the hand ("@<seat>:<entry>", the holding and entry as cc_view draws them) and the square,
 * a promotion in place the piece alone. The choice tells apart the variants of one move: "promote to
 * G" in place; for a move "promote to B first", the capture method ("by assimilation", "by
 * displacement", with the pieces going to the hand when the capturer chose their demotion, "by
 * displacement, G and N to hand"), "then promote to R", joined by commas. Taking the King needs no
 * method, and conversions by attacking are automatic.
 */
static void cc_gesture(const rules_position *pos, const rules_move *move, rules_gesture *out)
{
	cc_move m;
	char entry[16], list[32], method[64] = "", before[24] = "", after[24] = "";
	unsigned captive;

	if (engine_gesture_open(&reader, move, &m, out)
	    || (move->seat != WHITE && move->seat != BLACK))
		return;
	switch (m.kind) {
	case KIND_DROP:
		snprintf(out->at[0], sizeof out->at[0], "@%d:%s", move->seat,
			 hand_entry(pos, move->seat, hand_index(m.drop), entry));
		square_name(out->at[1], m.tr, m.tf);
		out->n = 2;
		return;
	case KIND_PROMOTE:
		square_name(out->at[0], m.fr, m.ff);
		out->n = 1;
		snprintf(out->choice, sizeof out->choice, "promote to %c", m.promo);
		return;
	}
	square_name(out->at[0], m.fr, m.ff);
	square_name(out->at[1], m.tr, m.tf);
	out->n = 2;
	if (m.when == WHEN_BEFORE)
		snprintf(before, sizeof before, "promote to %c first", m.promo);
	if (m.when == WHEN_AFTER)
		snprintf(after, sizeof after, "then promote to %c", m.promo);
	captive = pos->board[m.tr][m.tf].powers;
	if (m.capture && m.method == M_ASSIM) {
		snprintf(method, sizeof method, "by assimilation");
	} else if (m.capture && m.method == M_DISP) {
		if (m.ndemote) {
			hand_list(&m, captive, 0, list, sizeof list);
			snprintf(method, sizeof method, "by displacement, %s to hand", list);
		} else {
			snprintf(method, sizeof method, "by displacement");
		}
	}
	if ((size_t)snprintf(out->choice, sizeof out->choice, "%s%s%s%s%s", before,
			     *before && (*method || *after) ? ", " : "", method,
			     *method && *after ? ", " : "", after) < sizeof out->choice)
		return;
	/* Too long (a captive of many powers): the hand pieces without the words. */
	hand_list(&m, captive, 1, list, sizeof list);
	if ((size_t)snprintf(out->choice, sizeof out->choice, "%s%sby displacement, %s to hand%s%s", before,
			     *before ? ", " : "", list, *after ? ", " : "", after) >= sizeof out->choice)
		return;  /* cannot happen: the short form of the longest choice fits (see the gesture tests) */
}

/* White's side (rank 1) is drawn at the bottom. */
static int cc_view_quarter_turns(int seat)
{
	return seat == BLACK ? 2 : 0;
}

const rules_game rules_conversion_chess = {
	.id = "conversion-chess",
	.title = "Conversion Chess",
	.summary = "Shogi-like chess in four tiers on a 9x9 board (house setup): a capture displaces the victim into "
		"your hand, assimilates its powers into a compound piece, or converts attacked pieces in place.",
	.version = 1,
	.nseats = 2,
	.seat_names = seat_names,
	.legend = "A Alfil, N Knight, D Dabbaba, P Pawn, S Silver, G Gold, K King, B Bishop, R Rook; several letters: a compound with all those powers",
	.choice_help =
		"No move is ever partial: every choice is written in the move line, and the list of legal moves "
		"shows each complete variant as a move of its own. After a capture write the method, disp or "
		"assim (Rb2xb7 assim); after disp the demotion choice for each Second or Third Tier power of the "
		"captive, in the order B, R, G, P, S (Pe4xe5 disp(S), Pd4xd5 disp(G)). A promotion is its own "
		"part: alone (Pe7=R), before the move (Ac7=S / Sc7-d6) or after it (Pe6-e7 / Pe7=B). "
		"A drop is written like S*e5.",
	.start = cc_start,
	.free_position = engine_free_flat,
	.clone = cc_clone,
	.parse = cc_parse,
	.format = cc_format,
	.legal_moves = cc_legal_moves,
	.continuations = engine_no_continuations,      /* every choice is listed as a move of its own */
	.apply = cc_apply,
	.turn = cc_turn,
	.result = cc_result,
	.serialize = cc_serialize,
	.deserialize = cc_deserialize,
	.view = cc_view,
	.gesture = cc_gesture,
	.view_quarter_turns = cc_view_quarter_turns,
};
