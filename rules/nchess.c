/* nchess.c - the rules of Nchess (9x9 chess with a river and prisons), as docs/rules/nchess.md tells them. */
#include "duel.h"
#include "engine.h"
#include "notation.h"
#include "rules.h"
#include "xalloc.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Squares are held 0-based inside: row 0 is the notation's row 1 (North's back
 * row), row 8 is row 9 (South's back row), row 4 is the river. Every message
 * and every text shows them 1-based, as the notation writes them.
 */
enum { SIZE = 9, RIVER = 4, SOUTH = 0, NORTH = 1 };

/* A placement needs an empty ordinary square of the owner's half: 4 rows of 9
 * minus the two prison squares. So no move ever carries more placements. */
#define MAX_PLACE 34

/* Pieces on the board plus all prisoners. Captures never raise the total, so
 * a prison can never overflow once a position has been accepted. */
#define MAX_PIECES 96

#define TAG "nchess1:"

enum { REASON_NONE, REASON_GENERAL, REASON_NOMOVE };

/*
 * Prisons, by index: 0 = [1 4] and 1 = [1 6] are North's and hold South
 * pieces; 2 = [9 4] and 3 = [9 6] are South's and hold North pieces. Each is
 * a list, oldest prisoner first.
 */
struct rules_position {
	char board[SIZE][SIZE];         /* 0 empty, else the piece letter (South upper case) */
	char prison[4][MAX_PIECES];
	int plen[4];
	duel_state duel;                /* SOUTH or NORTH to move; the result, with a REASON_* */
};

/* Our move inside rules_move.raw. Unused bytes stay zero so that equal moves
 * compare equal with memcmp. */
typedef struct nc_move {
	unsigned char type;             /* 'C' 'N' 'M' 'G' 'A' 'S' 'O', always upper case */
	unsigned char fr, fc, tr, tc;   /* 0-based */
	unsigned char prison;           /* 4 or 6 for the capture of a non-General, else 0 */
	unsigned char nplace;           /* placements written so far */
	unsigned char place[MAX_PLACE][3];  /* type (upper case), row, col (0-based) */
} nc_move;

static_assert(sizeof(nc_move) <= RULES_MOVE_BYTES, "nc_move must fit in rules_move.raw");

static const char *const seat_names[] = { "South", "North" };

/* ---- small facts about squares and pieces ---- */

static int is_piece_type(int t)
{
	return t && strchr("CNMGASO", t) != NULL;
}

static const char *piece_name(char type)
{
	switch (type) {
	case 'C': return "Chariot";
	case 'N': return "Knight";
	case 'M': return "Minister";
	case 'G': return "General";
	case 'A': return "Archer";
	case 'S': return "Soldier";
	case 'O': return "Officer";
	}
	return "piece";
}

static const char *article(char type)
{
	return type == 'A' || type == 'O' ? "an" : "a";
}

/* NORTH for rows 1-4, SOUTH for rows 6-9, -1 for the river. */
static int half_of(int r)
{
	return r < RIVER ? NORTH : r > RIVER ? SOUTH : -1;
}

static int is_prison_square(int r, int c)
{
	return (r == 0 || r == SIZE - 1) && (c == 3 || c == 5);
}

/* Where a placement may go: an ordinary square of the owner's half. */
static int is_home_square(int seat, int r, int c)
{
	return half_of(r) == seat && !is_prison_square(r, c);
}

static int forward(int seat)
{
	return seat == SOUTH ? -1 : 1;
}

static int last_row(int seat)
{
	return seat == SOUTH ? 0 : SIZE - 1;
}

/* The General's own last three rows. */
static int general_row_ok(int seat, int r)
{
	return seat == SOUTH ? r >= SIZE - 3 : r <= 2;
}

/* First prison index holding seat's pieces, i.e. the opponent's prisons. */
static int held_base(int seat)
{
	return seat == SOUTH ? 0 : 2;
}

/* First prison index of seat's own prisons, where its captures go. */
static int captor_base(int seat)
{
	return seat == SOUTH ? 2 : 0;
}

/* The board square of prison index k. */
static int prison_row(int k)
{
	return k < 2 ? 0 : SIZE - 1;
}

static int prison_col(int k)
{
	return k % 2 ? 5 : 3;
}

/* ---- how pieces move ---- */

/*
 * The river rule (docs/rules/nchess.md, The river rule) for Chariot, Archer
 * and Minister: no move from one side straight to the other, and only one
 * square along the river. Returns NULL when the move is fine.
 */
static const char *river_fault(int fr, int fc, int tr, int tc)
{
	int a = half_of(fr), b = half_of(tr);

	if (a >= 0 && b >= 0 && a != b)
		return "cannot cross the river in one move: it must stop on row 5 first";
	if (fr == RIVER && tr == RIVER && abs(fc - tc) > 1)
		return "moves only one square along the river";
	return NULL;
}

/*
 * Whether the piece on (fr,fc) may go to (tr,tc) by its pattern (including
 * the river rule and blocking). What stands on the destination is the
 * caller's business. On failure err says why.
 */
static int pattern_ok(const rules_position *pos, int fr, int fc, int tr, int tc,
		      rules_error *err)
{
	char piece = pos->board[fr][fc];
	char t = duel_letter(piece);
	int seat = duel_owner(piece);
	const char *name = piece_name(t);
	int dr = tr - fr, dc = tc - fc;
	int adr = abs(dr), adc = abs(dc);
	const char *fault;

	switch (t) {
	case 'C':
		if (dr && dc)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Chariot on [%d %d] moves only along a row or a column",
					  fr + 1, fc + 1);
		break;
	case 'M':
		if (adr != adc)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Minister on [%d %d] moves only diagonally", fr + 1, fc + 1);
		break;
	case 'A':
		if (dr && dc && adr != adc)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Archer on [%d %d] moves only in a straight line (row, column or diagonal)",
					  fr + 1, fc + 1);
		if (adr > 3 || adc > 3)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Archer on [%d %d] moves at most 3 squares", fr + 1, fc + 1);
		break;
	case 'N':
		if (!((adr == 2 && adc == 1) || (adr == 1 && adc == 2)))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Knight on [%d %d] moves in an L: two squares one way and one across",
					  fr + 1, fc + 1);
		return 0;
	case 'S':
		if ((dr == forward(seat) && dc == 0) || (dr == 0 && adc == 1))
			return 0;
		if (dc == 0 && dr == -forward(seat))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Soldier on [%d %d] cannot move backward", fr + 1, fc + 1);
		if (adr == adc)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Soldier on [%d %d] cannot move diagonally", fr + 1, fc + 1);
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the Soldier on [%d %d] moves one square forward or sideways",
				  fr + 1, fc + 1);
	case 'O':
		if (adr + adc != 1)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Officer on [%d %d] moves one square along a row or a column",
					  fr + 1, fc + 1);
		return 0;
	case 'G':
		if (adr + adc != 1)
			return rules_fail(err, RULES_E_ILLEGAL, adr == adc
					  ? "the General on [%d %d] cannot move diagonally"
					  : "the General on [%d %d] moves one square along a row or a column",
					  fr + 1, fc + 1);
		if (!general_row_ok(seat, tr))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the General must stay in rows %s", seat == SOUTH ? "7-9" : "1-3");
		return 0;
	default:
		return rules_fail(err, RULES_E_ILLEGAL, "there is no piece on [%d %d]",
				  fr + 1, fc + 1);
	}

	/* A slider: Chariot, Archer or Minister. */
	fault = river_fault(fr, fc, tr, tc);
	if (fault)
		return rules_fail(err, RULES_E_ILLEGAL, "the %s on [%d %d] %s", name,
				  fr + 1, fc + 1, fault);
	{
		int sr = (dr > 0) - (dr < 0), sc = (dc > 0) - (dc < 0);
		int dist = adr > adc ? adr : adc;
		/* Only pieces block: empty river and prison squares do not (house ruling 3). */
		for (int k = 1; k < dist; k++) {
			int r = fr + k * sr, c = fc + k * sc;
			if (pos->board[r][c])
				return rules_fail(err, RULES_E_ILLEGAL,
						  "the %s's path is blocked at [%d %d]", name, r + 1, c + 1);
		}
	}
	return 0;
}

/* ---- executing moves ---- */

/*
 * Steps 1-2 of a turn (docs/rules/nchess.md, What happens in a turn): move
 * the piece, imprison what it captured (unless the General, which ends the
 * game and goes nowhere) and promote. Returns the captured piece, 0 when none.
 */
static char do_base(rules_position *p, const nc_move *m, int seat)
{
	char piece = p->board[m->fr][m->fc];
	char victim = p->board[m->tr][m->tc];

	p->board[m->fr][m->fc] = 0;
	if (duel_letter(piece) == 'S' && m->tr == last_row(seat))
		piece = duel_as_seat('O', seat);
	p->board[m->tr][m->tc] = piece;
	if (victim && duel_letter(victim) != 'G') {
		int k = captor_base(seat) + (m->prison == 6);
		p->prison[k][p->plen[k]++] = victim;
	}
	return victim;
}

/* Whether seat's prisoners in prison k (an opponent prison) are released now:
 * one of seat's pieces stands on its square and it holds someone (house ruling 12). */
static int prison_triggered(const rules_position *p, int seat, int k)
{
	char occ = p->board[prison_row(k)][prison_col(k)];

	return occ && duel_owner(occ) == seat && p->plen[k] > 0;
}

/*
 * The prisoners seat frees at the end of its move, in release order (the
 * column-4 prison newest first, then the column-6 prison newest first), into
 * rel; returns how many. *room is the number of squares they could go to
 * (0 when nobody is released).
 */
static int release_plan(const rules_position *p, int seat, char *rel, int *room)
{
	int n = 0, free_squares = 0;

	for (int k = held_base(seat); k < held_base(seat) + 2; k++) {
		if (!prison_triggered(p, seat, k))
			continue;
		for (int i = p->plen[k] - 1; i >= 0; i--)
			rel[n++] = p->prison[k][i];
	}
	/* Room matters only when someone is released. */
	for (int r = 0; n && r < SIZE; r++)
		for (int c = 0; c < SIZE; c++)
			if (is_home_square(seat, r, c) && !p->board[r][c])
				free_squares++;
	*room = free_squares;
	return n;
}

/* How many placements a (pattern-legal) move needs: every released prisoner
 * for whom there is room (house ruling 14). None after taking the General. */
static int placements_needed(const rules_position *pos, const nc_move *m, int seat)
{
	rules_position after;
	char rel[2 * MAX_PIECES];
	int room, n;
	char victim;

	/* The common case, nobody of seat's in prison: skip the copy. */
	if (!pos->plen[held_base(seat)] && !pos->plen[held_base(seat) + 1])
		return 0;
	after = *pos;
	victim = do_base(&after, m, seat);
	if (victim && duel_letter(victim) == 'G')
		return 0;
	n = release_plan(&after, seat, rel, &room);
	return n < room ? n : room;
}

/* ---- move generation ---- */

static const int orth[4][2] = { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
static const int diag[4][2] = { { -1, -1 }, { -1, 1 }, { 1, -1 }, { 1, 1 } };
static const int jumps[8][2] = {
	{ -2, -1 }, { -2, 1 }, { 2, -1 }, { 2, 1 }, { -1, -2 }, { -1, 2 }, { 1, -2 }, { 1, 2 },
};

/*
 * One pattern-legal (from, to) pair onto an empty or enemy square. A capture
 * of an ordinary piece is listed once per prison; a move that frees
 * prisoners is listed once, partial, without placements. Returns 1 to stop
 * (existence check), 0 to go on.
 */
static int emit(engine_gen *g, int fr, int fc, int tr, int tc)
{
	const rules_position *pos = g->pos;
	char victim = pos->board[tr][tc];
	nc_move m;
	int partial;

	if (!g->out) {
		g->count++;
		return 1;
	}
	memset(&m, 0, sizeof m);
	m.type = (unsigned char)duel_letter(pos->board[fr][fc]);
	m.fr = (unsigned char)fr;
	m.fc = (unsigned char)fc;
	m.tr = (unsigned char)tr;
	m.tc = (unsigned char)tc;
	partial = placements_needed(pos, &m, g->seat) > 0;
	if (victim && duel_letter(victim) != 'G') {
		m.prison = 4;
		engine_push(g, &m, sizeof m, partial);
		m.prison = 6;
		engine_push(g, &m, sizeof m, partial);
	} else {
		engine_push(g, &m, sizeof m, partial);
	}
	return 0;
}

static int on_board(int r, int c)
{
	return r >= 0 && r < SIZE && c >= 0 && c < SIZE;
}

/* A destination a piece of seat may enter: on the board and not its own. */
static int enterable(const rules_position *pos, int seat, int r, int c)
{
	return on_board(r, c) && (!pos->board[r][c] || duel_owner(pos->board[r][c]) != seat);
}

/* Slides along the given directions, up to max squares (river rule applied). */
static int gen_slides(engine_gen *g, int r, int c, const int (*dirs)[2], int ndirs, int max)
{
	const rules_position *pos = g->pos;

	for (int d = 0; d < ndirs; d++) {
		for (int k = 1; k <= max; k++) {
			int tr = r + k * dirs[d][0], tc = c + k * dirs[d][1];
			char there;
			/* Once a ray breaks the river rule, every farther square on it
			 * does too: it stays across the river or farther along it. */
			if (!on_board(tr, tc) || river_fault(r, c, tr, tc))
				break;
			there = pos->board[tr][tc];
			if (there && duel_owner(there) == g->seat)
				break;
			if (emit(g, r, c, tr, tc))
				return 1;
			if (there)
				break;
		}
	}
	return 0;
}

static int gen_steps(engine_gen *g, int r, int c, const int (*steps)[2], int nsteps, int general)
{
	for (int d = 0; d < nsteps; d++) {
		int tr = r + steps[d][0], tc = c + steps[d][1];
		if (!enterable(g->pos, g->seat, tr, tc))
			continue;
		if (general && !general_row_ok(g->seat, tr))
			continue;
		if (emit(g, r, c, tr, tc))
			return 1;
	}
	return 0;
}

/* Every legal move of g->seat. Returns 1 when stopped early. */
static int gen_all(engine_gen *g)
{
	const rules_position *pos = g->pos;
	int fwd = forward(g->seat);
	const int soldier[3][2] = { { fwd, 0 }, { 0, -1 }, { 0, 1 } };

	for (int r = 0; r < SIZE; r++) {
		for (int c = 0; c < SIZE; c++) {
			char p = pos->board[r][c];
			int stop = 0;
			if (!p || duel_owner(p) != g->seat)
				continue;
			switch (duel_letter(p)) {
			case 'C':
				stop = gen_slides(g, r, c, orth, 4, SIZE - 1);
				break;
			case 'M':
				stop = gen_slides(g, r, c, diag, 4, SIZE - 1);
				break;
			case 'A':
				stop = gen_slides(g, r, c, orth, 4, 3) || gen_slides(g, r, c, diag, 4, 3);
				break;
			case 'N':
				stop = gen_steps(g, r, c, jumps, 8, 0);
				break;
			case 'S':
				stop = gen_steps(g, r, c, soldier, 3, 0);
				break;
			case 'O':
				stop = gen_steps(g, r, c, orth, 4, 0);
				break;
			case 'G':
				stop = gen_steps(g, r, c, orth, 4, 1);
				break;
			}
			if (stop)
				return 1;
		}
	}
	return 0;
}

static int has_legal_move(const rules_position *pos, int seat)
{
	return engine_generate(gen_all, pos, seat, NULL) != 0;
}

/* A side to move without a legal move has lost (house ruling 17), whoever noticed first. */
static const duel_reason reasons[] = {
	[REASON_GENERAL] = { "general", "General captured" }, [REASON_NOMOVE] = { "nomove", NULL },
};
static const duel_rules two_seats = {
	"Nchess", seat_names, "SN", reasons, sizeof reasons / sizeof *reasons, REASON_NOMOVE, has_legal_move,
};

/* ---- validation shared by parse and apply ---- */

static int check_turn(const rules_position *pos, int seat, rules_error *err)
{
	return duel_check_turn(&two_seats, pos, &pos->duel, seat, err);
}

/* "c, s" from the letters in rel[from..n). */
static void letter_list(const char *rel, int from, int n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = from; i < n && len + 4 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%c", i > from ? ", " : "", rel[i]);
}

/*
 * Check a move by seat. digit is the prison digit as written (-1 when
 * none); nwritten the number of placements written (it may exceed what m
 * holds). Fixes up m: the prison digit and placements of a General capture
 * are dropped (house ruling 10; What happens in a turn, step 3). Sets
 * *needed to the placements the move requires; the caller decides whether
 * fewer is an error.
 */
static int check_move(const rules_position *pos, int seat, nc_move *m, int digit,
		      int nwritten, int *needed, rules_error *err)
{
	char piece, victim, rel[2 * MAX_PIECES];
	int room, nrel, need, rc;
	rules_position after;

	*needed = 0;
	if (m->fr >= SIZE || m->fc >= SIZE || m->tr >= SIZE || m->tc >= SIZE
	    || !is_piece_type(m->type) || m->nplace > MAX_PLACE)
		return rules_fail(err, RULES_E_ILLEGAL, "malformed move");
	piece = pos->board[m->fr][m->fc];
	if (!piece)
		return rules_fail(err, RULES_E_ILLEGAL, "there is no piece on [%d %d]",
				  m->fr + 1, m->fc + 1);
	if (duel_owner(piece) != seat)
		return rules_fail(err, RULES_E_ILLEGAL, "the %s on [%d %d] is %s's, not yours",
				  piece_name(duel_letter(piece)), m->fr + 1, m->fc + 1,
				  seat_names[duel_owner(piece)]);
	if (duel_letter(piece) != m->type)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "wrong letter: the piece on [%d %d] is %s %s, not %s %s",
				  m->fr + 1, m->fc + 1, article(duel_letter(piece)),
				  piece_name(duel_letter(piece)), article(m->type), piece_name(m->type));
	if (m->fr == m->tr && m->fc == m->tc)
		return rules_fail(err, RULES_E_ILLEGAL, "a move must go to another square");
	rc = pattern_ok(pos, m->fr, m->fc, m->tr, m->tc, err);
	if (rc)
		return rc;
	victim = pos->board[m->tr][m->tc];
	if (victim && duel_owner(victim) == seat)
		return rules_fail(err, RULES_E_ILLEGAL, "[%d %d] holds your own %s",
				  m->tr + 1, m->tc + 1, piece_name(duel_letter(victim)));

	/* The prison digit (house ruling 10). */
	if (!victim && digit >= 0)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a prison digit is written only for a capture, and [%d %d] is empty",
				  m->tr + 1, m->tc + 1);
	if (digit >= 0 && digit != 4 && digit != 6)
		return rules_fail(err, RULES_E_ILLEGAL, "the prison must be 4 or 6, not %d", digit);
	if (victim && duel_letter(victim) == 'G') {
		/* The game ends here: digit and placements mean nothing. */
		m->prison = 0;
		m->nplace = 0;
		memset(m->place, 0, sizeof m->place);
		return 0;
	}
	if (victim && digit < 0)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "prison digit missing: a capture must name prison 4 or 6");
	m->prison = victim ? (unsigned char)digit : 0;

	/* Release placements (docs/rules/nchess.md, Prisons: capture, imprisonment and release),
	 * checked on the position after the move. */
	after = *pos;
	do_base(&after, m, seat);
	nrel = release_plan(&after, seat, rel, &room);
	need = nrel < room ? nrel : room;
	*needed = need;
	if (nwritten > need) {
		if (nrel == 0)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "this move releases no prisoners, so no placement may follow it");
		if (need < nrel)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "too many placements: there is room in %s's half for only %d of the %d released prisoners",
					  seat_names[seat], need, nrel);
		return rules_fail(err, RULES_E_ILLEGAL,
				  "too many placements: this move releases only %d prisoner%s",
				  nrel, nrel == 1 ? "" : "s");
	}
	for (int i = 0; i < m->nplace; i++) {
		int t = m->place[i][0], r = m->place[i][1], c = m->place[i][2];
		char want = duel_letter(rel[i]);
		if (r >= SIZE || c >= SIZE || !is_piece_type(t))
			return rules_fail(err, RULES_E_ILLEGAL, "malformed placement");
		if (t != want)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "wrong placement: prisoners are released last imprisoned first, column-4 prison before column-6, so placement %d is %s %s (%c), not %s %s",
					  i + 1, article(want), piece_name(want), rel[i],
					  article((char)t), piece_name((char)t));
		if (r == RIVER)
			return rules_fail(err, RULES_E_ILLEGAL, "[%d %d] is a river square", r + 1, c + 1);
		if (is_prison_square(r, c))
			return rules_fail(err, RULES_E_ILLEGAL, "[%d %d] is a prison square", r + 1, c + 1);
		if (half_of(r) != seat)
			return rules_fail(err, RULES_E_ILLEGAL, "[%d %d] is not in %s's half (rows %s)",
					  r + 1, c + 1, seat_names[seat], seat == SOUTH ? "6-9" : "1-4");
		if (after.board[r][c] == 1)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "[%d %d] is already taken by an earlier placement", r + 1, c + 1);
		if (after.board[r][c])
			return rules_fail(err, RULES_E_ILLEGAL, "[%d %d] is not empty", r + 1, c + 1);
		after.board[r][c] = 1;  /* a marker: taken by this turn's placement */
	}
	return 0;
}

/* ---- parsing ---- */

/* A move as written, before any look at the position. */
typedef struct scanned {
	char type;
	int sq[4];
	int digit;                      /* -1 when none */
	int nplace;                     /* placements written, may exceed MAX_PLACE */
	char ptype[MAX_PLACE];
	int prow[MAX_PLACE], pcol[MAX_PLACE];
} scanned;
static_assert(sizeof(scanned) <= ENGINE_SCAN_BYTES, "scanned must fit in engine_parse's buffer");

static const char *skip_sep(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	return p;
}

static int scan_letter(const char **pp, char *type, rules_error *err)
{
	const char *p = *pp;
	int t = toupper((unsigned char)*p);

	if (!is_piece_type(t)) {
		if (isalpha((unsigned char)*p))
			return rules_fail(err, RULES_E_PARSE,
					  "'%c' is not a piece letter (C, N, M, G, A, S or O)", *p);
		return notation_unexpected(p, "a piece letter", err);
	}
	*type = (char)t;
	*pp = skip_sep(p + 1);
	return 0;
}

static int scan_coord(const char **pp, int *value, rules_error *err)
{
	const char *p = *pp;

	if (*p == '0')
		return rules_fail(err, RULES_E_PARSE, "0 is not a row or column: they run from 1 to 9");
	if (*p < '1' || *p > '9')
		return notation_unexpected(p, "a row or column digit 1-9", err);
	*value = *p - '1';
	*pp = skip_sep(p + 1);
	return 0;
}

/* The grammar of docs/rules/nchess.md, Writing moves; nothing about the position. */
static int scan(const char *text, void *into, rules_error *err)
{
	scanned *s = into;
	const char *p;
	int rc;

	memset(s, 0, sizeof *s);
	s->digit = -1;
	if ((rc = notation_check_text(text, "move", err)))
		return rc;
	p = skip_sep(text);
	if (*p == '[')
		p = skip_sep(p + 1);
	if ((rc = scan_letter(&p, &s->type, err)))
		return rc;
	for (int i = 0; i < 4; i++)
		if ((rc = scan_coord(&p, &s->sq[i], err)))
			return rc;
	if (isdigit((unsigned char)*p)) {
		s->digit = *p - '0';
		p = skip_sep(p + 1);
		if (isdigit((unsigned char)*p))
			return rules_fail(err, RULES_E_PARSE,
					  "too many digits: a move is four digits and, for a capture, a prison digit");
	}
	if (*p == ']')
		p = skip_sep(p + 1);
	while (*p == '/') {
		char t = 0;
		int r = 0, c = 0;
		p = skip_sep(p + 1);
		if (*p == '[')
			p = skip_sep(p + 1);
		if ((rc = scan_letter(&p, &t, err)) || (rc = scan_coord(&p, &r, err))
		    || (rc = scan_coord(&p, &c, err)))
			return rc;
		if (isdigit((unsigned char)*p))
			return rules_fail(err, RULES_E_PARSE, "too many digits: a placement is a letter and two digits");
		if (*p == ']')
			p = skip_sep(p + 1);
		if (s->nplace < MAX_PLACE) {
			s->ptype[s->nplace] = t;
			s->prow[s->nplace] = r;
			s->pcol[s->nplace] = c;
		}
		s->nplace++;
	}
	while (*p == '+')
		p = skip_sep(p + 1);
	if (*p && *p != '#')
		return notation_unexpected(p, "'/', '+', '#' or the end of the move", err);
	return 0;
}

/*
 * The move written as s, checked into *m. Fewer placements than the move releases prisoners is
 * RULES_E_INCOMPLETE, with m the legal start (the placements written so far).
 */
static int check_scanned(const rules_position *pos, int seat, const void *in, void *into,
			 rules_error *err)
{
	const scanned *s = in;
	nc_move *m = into;
	int rc, needed;

	memset(m, 0, sizeof *m);
	m->type = (unsigned char)s->type;
	m->fr = (unsigned char)s->sq[0];
	m->fc = (unsigned char)s->sq[1];
	m->tr = (unsigned char)s->sq[2];
	m->tc = (unsigned char)s->sq[3];
	m->nplace = (unsigned char)(s->nplace < MAX_PLACE ? s->nplace : MAX_PLACE);
	for (int i = 0; i < m->nplace; i++) {
		m->place[i][0] = (unsigned char)s->ptype[i];
		m->place[i][1] = (unsigned char)s->prow[i];
		m->place[i][2] = (unsigned char)s->pcol[i];
	}
	if ((rc = check_move(pos, seat, m, s->digit, s->nplace, &needed, err)))
		return rc;
	if (m->nplace < needed) {
		rules_position after = *pos;
		char rel[2 * MAX_PIECES], list[160];
		int room, nrel, more = needed - m->nplace;
		do_base(&after, m, seat);
		nrel = release_plan(&after, seat, rel, &room);
		letter_list(rel, m->nplace, nrel < needed ? nrel : needed, list, sizeof list);
		return rules_fail(err, RULES_E_INCOMPLETE,
				  "this move releases prisoners: %d more placement%s needed, for %s in that order (append \" / <letter> <row> <column>\" for each)",
				  more, more == 1 ? "" : "s", list);
	}
	return 0;
}

static const engine_reader reader = {
	sizeof(scanned), sizeof(nc_move), scan, check_turn, check_scanned, NULL, NULL,
};

static int nc_parse(const rules_position *pos, int seat, const char *text,
		    rules_move *move, rules_error *err)
{
	return engine_parse(&reader, pos, seat, text, move, err);
}

/* ---- the rules_game functions ---- */

static int nc_start(const char *options, rules_position **out, rules_error *err)
{
	static const char *const rows[SIZE] = {
		"cnm g mnc", " a     a ", "s s s s s", "         ", "         ",
		"         ", "S S S S S", " A     A ", "CNM G MNC",
	};
	rules_position *p = engine_start(options, "Nchess", sizeof *p, out, err);

	if (!p)
		return RULES_E_DATA;
	for (int r = 0; r < SIZE; r++)
		for (int c = 0; c < SIZE; c++)
			p->board[r][c] = rows[r][c] == ' ' ? 0 : rows[r][c];
	p->duel.to_move = SOUTH;
	return 0;
}

static rules_position *nc_clone(const rules_position *pos)
{
	return xmemdup(pos, sizeof *pos);
}

static size_t nc_format(const rules_position *pos, const rules_move *move, char *buf, size_t size)
{
	nc_move m;
	char tmp[16 + 8 * MAX_PLACE];
	size_t len;
	int seat = move->seat == NORTH ? NORTH : SOUTH;

	(void)pos;
	if (engine_format_open(move, &m, sizeof m, buf, size))
		return 0;
	if (!is_piece_type(m.type) || m.fr >= SIZE || m.fc >= SIZE || m.tr >= SIZE || m.tc >= SIZE)
		return 0;
	len = (size_t)snprintf(tmp, sizeof tmp, "%c %d %d %d %d", duel_as_seat((char)m.type, seat),
			       m.fr + 1, m.fc + 1, m.tr + 1, m.tc + 1);
	if (m.prison)
		len += (size_t)snprintf(tmp + len, sizeof tmp - len, " %d", m.prison % 10);
	for (int i = 0; i < m.nplace && i < MAX_PLACE; i++) {
		int t = m.place[i][0], r = m.place[i][1], c = m.place[i][2];
		if (!is_piece_type(t) || r >= SIZE || c >= SIZE)
			break;
		len += (size_t)snprintf(tmp + len, sizeof tmp - len, " / %c %d %d",
					duel_as_seat((char)t, seat), r + 1, c + 1);
	}
	return engine_text_out(tmp, buf, size);
}

static size_t nc_legal_moves(const rules_position *pos, int seat, rules_move_list *out)
{
	if (!duel_to_move(&two_seats, pos, &pos->duel, seat))
		return 0;
	return engine_generate(gen_all, pos, seat, out);
}

static size_t nc_continuations(const rules_position *pos, const rules_move *partial,
			       rules_move_list *out)
{
	nc_move m;
	rules_position after;
	char rel[2 * MAX_PIECES];
	int needed, room, seat = partial->seat;
	size_t count = 0;

	if (!partial->partial || check_turn(pos, seat, NULL))
		return 0;
	engine_unpack(partial, &m, sizeof m);
	if (check_move(pos, seat, &m, m.prison ? m.prison : -1, m.nplace, &needed, NULL)
	    || m.nplace >= needed)
		return 0;
	after = *pos;
	do_base(&after, &m, seat);
	release_plan(&after, seat, rel, &room);
	for (int i = 0; i < m.nplace; i++)
		after.board[m.place[i][1]][m.place[i][2]] = 1;
	for (int r = 0; r < SIZE; r++) {
		for (int c = 0; c < SIZE; c++) {
			nc_move next = m;
			rules_move rm;
			if (!is_home_square(seat, r, c) || after.board[r][c])
				continue;
			next.place[m.nplace][0] = (unsigned char)duel_letter(rel[m.nplace]);
			next.place[m.nplace][1] = (unsigned char)r;
			next.place[m.nplace][2] = (unsigned char)c;
			next.nplace++;
			engine_pack(&rm, &next, sizeof next, seat);
			rm.partial = next.nplace < needed;
			rules_move_list_push(out, &rm);
			count++;
		}
	}
	return count;
}

static int nc_apply(rules_position *pos, const rules_move *move, const rules_dice *dice,
		    rules_outcome *outcome, rules_error *err)
{
	nc_move m;
	int seat = move->seat, needed, rc, left = 0;
	char victim, rel[2 * MAX_PIECES];
	int promoted;

	(void)dice;     /* Nchess has no dice. */
	if (outcome)
		outcome->note[0] = 0;
	if ((rc = check_turn(pos, seat, err)))
		return rc;
	engine_unpack(move, &m, sizeof m);
	if ((rc = check_move(pos, seat, &m, m.prison ? m.prison : -1, m.nplace, &needed, err)))
		return rc;
	if (m.nplace < needed)
		return rules_fail(err, RULES_E_INCOMPLETE,
				  "the move still needs %d release placement%s", needed - m.nplace,
				  needed - m.nplace == 1 ? "" : "s");
	if (move->partial)
		return rules_fail(err, RULES_E_INCOMPLETE, "a partial move cannot be applied");

	/* Valid: from here on nothing fails. */
	promoted = m.type == 'S' && m.tr == last_row(seat);
	victim = do_base(pos, &m, seat);
	if (victim && duel_letter(victim) != 'G')
		engine_note(outcome, "captures %c", victim);
	if (promoted)
		engine_note(outcome, "promotes to %c", duel_as_seat('O', seat));
	pos->duel.to_move = 1 - seat;
	if (victim && duel_letter(victim) == 'G') {
		duel_finish(&pos->duel, seat, REASON_GENERAL);
		engine_note(outcome, "wins: General captured");
		return 0;
	}

	/* Releases: pop in the order release_plan lists them; which prisons are
	 * triggered cannot change meanwhile (placements avoid prison squares). */
	{
		int trig[2];
		for (int k = 0; k < 2; k++)
			trig[k] = prison_triggered(pos, seat, held_base(seat) + k);
		for (int i = 0; i < m.nplace; i++) {
			int k = held_base(seat) + (trig[0] && pos->plen[held_base(seat)] ? 0 : 1);
			char piece = pos->prison[k][--pos->plen[k]];
			pos->board[m.place[i][1]][m.place[i][2]] = piece;
			rel[i] = piece;
		}
		for (int k = 0; k < 2; k++)
			if (trig[k])
				left += pos->plen[held_base(seat) + k];
	}
	if (m.nplace) {
		char list[160];
		letter_list(rel, 0, m.nplace, list, sizeof list);
		engine_note(outcome, "releases %s", list);
	}
	if (left)
		engine_note(outcome, "%d %s imprisoned (no room)", left, left == 1 ? "stays" : "stay");
	if (!has_legal_move(pos, pos->duel.to_move)) {
		duel_finish(&pos->duel, seat, REASON_NOMOVE);
		engine_note(outcome, "wins: %s has no legal move", seat_names[1 - seat]);
	}
	return 0;
}

static unsigned nc_turn(const rules_position *pos)
{
	return duel_turn(&two_seats, pos, &pos->duel);
}

static void nc_result(const rules_position *pos, rules_result *out)
{
	duel_result(&two_seats, pos, &pos->duel, out);
}

/*
 * Serialized position, one line:
 *
 *   nchess1:<row 1>/<row 2>/.../<row 9>:<[1 4]>:<[1 6]>:<[9 4]>:<[9 6]>:<to move>:<result>
 *
 * Each row is 9 characters, column 1 first: a piece letter (South upper
 * case, North lower case), or for an empty square '.' (ordinary), '~'
 * (river, row 5) or '+' (prison square). Each prison is its prisoners'
 * letters, oldest first, or '-' when empty ([1 4] and [1 6] hold South
 * pieces, [9 4] and [9 6] North pieces). <to move> is S or N (once the game
 * is over, the loser). <result> is '-' while the game goes on, else
 * winner:reason with winner S or N and reason "general" (General captured)
 * or "nomove" (the loser had no legal move).
 * The start position is
 *   nchess1:cnm+g+mnc/.a.....a./s.s.s.s.s/........./~~~~~~~~~/........./S.S.S.S.S/.A.....A./CNM+G+MNC:-:-:-:-:S:-
 */
static char empty_char(int r, int c)
{
	return r == RIVER ? '~' : is_prison_square(r, c) ? '+' : '.';
}

static char *nc_serialize(const rules_position *pos)
{
	size_t cap = sizeof TAG + SIZE * (SIZE + 1) + 4 * (MAX_PIECES + 1) + 32, len = 0;
	char *s = xmalloc(cap);

	len += (size_t)snprintf(s, cap, "%s", TAG);
	for (int r = 0; r < SIZE; r++) {
		for (int c = 0; c < SIZE; c++)
			s[len++] = pos->board[r][c] ? pos->board[r][c] : empty_char(r, c);
		s[len++] = r < SIZE - 1 ? '/' : ':';
	}
	for (int k = 0; k < 4; k++) {
		if (!pos->plen[k])
			s[len++] = '-';
		for (int i = 0; i < pos->plen[k]; i++)
			s[len++] = pos->prison[k][i];
		s[len++] = ':';
	}
	duel_write(&two_seats, &pos->duel, s + len, cap - len);
	return s;
}

static int bad_data(rules_error *err, const char *what)
{
	return engine_corrupt(err, "Nchess", what);
}

static int nc_deserialize(const char *text, rules_position **out, rules_error *err)
{
	rules_position pos;
	const char *p;
	int total = 0, generals[2] = { 0, 0 }, rc, loser;

	*out = NULL;
	if (!(p = engine_position_body(text, TAG, "an Nchess", err)))
		return RULES_E_DATA;
	memset(&pos, 0, sizeof pos);
	for (int r = 0; r < SIZE; r++) {
		for (int c = 0; c < SIZE; c++, p++) {
			if (*p == empty_char(r, c))
				continue;
			if (!is_piece_type(toupper((unsigned char)*p)) || !isalpha((unsigned char)*p))
				return bad_data(err, "bad square");
			if (duel_letter(*p) == 'S' && r == last_row(duel_owner(*p)))
				return bad_data(err, "a Soldier on its last row");
			if (duel_letter(*p) == 'G')
				generals[duel_owner(*p)]++;
			pos.board[r][c] = *p;
			total++;
		}
		if (*p++ != (r < SIZE - 1 ? '/' : ':'))
			return bad_data(err, "bad row");
	}
	for (int k = 0; k < 4; k++) {
		int seat = k < 2 ? SOUTH : NORTH;
		if (*p == '-') {
			p++;
		} else {
			do {
				if (!isalpha((unsigned char)*p) || !is_piece_type(toupper((unsigned char)*p))
				    || duel_owner(*p) != seat || duel_letter(*p) == 'G')
					return bad_data(err, "bad prisoner");
				if (++total > MAX_PIECES)
					return bad_data(err, "too many pieces");
				pos.prison[k][pos.plen[k]++] = *p++;
			} while (*p != ':');
		}
		if (*p++ != ':')
			return bad_data(err, "bad prison");
	}
	if ((rc = duel_read(&two_seats, p, &pos.duel)))
		return bad_data(err, rc == DUEL_BAD_TO_MOVE ? "bad side to move" : "bad result");

	/* Consistency: one General each, except the one just captured. */
	loser = 1 - pos.duel.winner;
	for (int s = 0; s < 2; s++) {
		int want = pos.duel.over && pos.duel.reason == REASON_GENERAL && s == loser ? 0 : 1;
		if (generals[s] != want)
			return bad_data(err, "wrong number of Generals");
	}
	if (pos.duel.over && pos.duel.to_move != loser)
		return bad_data(err, "the finished game's side to move is not the loser");
	*out = nc_clone(&pos);
	return 0;
}

static void nc_view(const rules_position *pos, rules_view *out)
{
	static const char *const names[4] = {
		"North prison 4", "North prison 6", "South prison 4", "South prison 6",
	};

	memset(out, 0, sizeof *out);
	out->rows = SIZE;
	out->cols = SIZE;
	for (int r = 0; r < SIZE; r++) {
		snprintf(out->row_label[r], sizeof out->row_label[r], "%d", r + 1);
		snprintf(out->col_label[r], sizeof out->col_label[r], "%d", r + 1);
		for (int c = 0; c < SIZE; c++) {
			rules_cell *cell = &out->cell[r][c];
			char piece = pos->board[r][c];
			cell->owner = -1;
			if (piece) {
				cell->piece[0] = piece;
				cell->owner = (signed char)duel_owner(piece);
			}
			if (r == RIVER)
				strcpy(cell->kind, "river");
			else if (is_prison_square(r, c))
				strcpy(cell->kind, "prison");
		}
	}
	out->nholdings = 4;
	for (int k = 0; k < 4; k++) {
		rules_holding *h = &out->holding[k];
		int n = pos->plen[k] < 32 ? pos->plen[k] : 32;
		snprintf(h->name, sizeof h->name, "%s", names[k]);
		h->row = prison_row(k);
		h->col = prison_col(k);
		h->owner = k < 2 ? SOUTH : NORTH;
		h->npieces = n;
		for (int i = 0; i < n; i++)
			h->pieces[i][0] = pos->prison[k][i];
	}
}

/* A square as the drawn board names it: the view leaves cells unnamed, so
 * "<row label> <column label>", 1-based like the notation: "7 1". (The masks
 * only tell the compiler that the text fits.) */
static void board_square(char at[8], int r, int c)
{
	snprintf(at, 8, "%d %d", (r & 15) + 1, (c & 15) + 1);
}

/*
 * How a move is pointed at on the board: the piece, then where it goes. A
 * capture says in words which of the captor's prisons takes the captive
 * ("to prison 4"); both are listed, so this is what tells them apart. A move
 * that frees prisoners is listed partial ("releases prisoners"); each
 * placement then touches its square, so a continuation's gesture is its
 * partial move's followed by one more square, and its words name the piece
 * placed ("place the Chariot", which the board shows as the hint while the
 * next square is chosen). A gesture holds only RULES_TOUCH_MAX places: from
 * the 7th placement on (seven prisoners freed at once, rare) the square goes
 * into the words instead, "place the Soldier on 3 3", and the board offers
 * those as buttons.
 */
static void nc_gesture(const rules_position *pos, const rules_move *move, rules_gesture *out)
{
	nc_move m;

	(void)pos;
	memset(out, 0, sizeof *out);
	engine_unpack(move, &m, sizeof m);
	if (!is_piece_type(m.type) || m.fr >= SIZE || m.fc >= SIZE || m.tr >= SIZE || m.tc >= SIZE
	    || m.nplace > MAX_PLACE)
		return;
	board_square(out->at[out->n++], m.fr, m.fc);
	board_square(out->at[out->n++], m.tr, m.tc);
	for (int i = 0; i < m.nplace && out->n < RULES_TOUCH_MAX; i++)
		board_square(out->at[out->n++], m.place[i][1], m.place[i][2]);
	if (m.nplace) {
		int last = m.nplace - 1;
		const char *name = piece_name((char)m.place[last][0]);
		if (2 + last < RULES_TOUCH_MAX)
			snprintf(out->choice, sizeof out->choice, "place the %s", name);
		else
			snprintf(out->choice, sizeof out->choice, "place the %s on %d %d", name,
				 m.place[last][1] + 1, m.place[last][2] + 1);
		return;
	}
	if (m.prison)
		snprintf(out->choice, sizeof out->choice, "to prison %d", m.prison);
	if (move->partial) {
		size_t len = strlen(out->choice);
		snprintf(out->choice + len, sizeof out->choice - len, "%sreleases prisoners",
			 len ? ", " : "");
	}
}

static int nc_view_quarter_turns(int seat)
{
	return seat == NORTH ? 2 : 0;
}

const rules_game rules_nchess = {
	.id = "nchess",
	.title = "Nchess",
	.summary = "Chess on a 9x9 board with a river: captured pieces go to prison, and stepping onto an enemy prison square frees them.",
	.version = 1,
	.nseats = 2,
	.seat_names = seat_names,
	.legend = "C Chariot, A Archer, M Minister, N Knight, S Soldier, O Officer (promoted Soldier), G General",
	.choice_help =
		"A move that frees prisoners is listed as a partial move, for example \"c 5 4 9 4\". "
		"Complete it by appending one placement per released prisoner, \" / <letter> <row> <column>\", "
		"on an empty ordinary square of your own half, in last-in-first-out order "
		"(the column-4 prison before the column-6 prison): \"c 5 4 9 4 / c 2 1 / s 3 3\".",
	.start = nc_start,
	.free_position = engine_free_flat,
	.clone = nc_clone,
	.parse = nc_parse,
	.format = nc_format,
	.legal_moves = nc_legal_moves,
	.continuations = nc_continuations,
	.apply = nc_apply,
	.turn = nc_turn,
	.result = nc_result,
	.serialize = nc_serialize,
	.deserialize = nc_deserialize,
	.view = nc_view,
	.gesture = nc_gesture,
	.view_quarter_turns = nc_view_quarter_turns,
};
