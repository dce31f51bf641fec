/* cyvasse.c - the rules of Nine-Tile Cyvasse (88 hexagonally connected squares, hidden tile setups,
 * engagement and armour), as docs/rules/cyvasse.md tells them. */
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
 * Squares are numbered 0-87 inside, row by row from White's back row (row 1,
 * squares 0-7) to Black's back row (row 9, squares 80-87), and within a row
 * from letter a. So the index order is the names' "row, then letter" order
 * (docs/rules/cyvasse.md, The board and its coordinates), and the 180-degree
 * rotation (Black's view of the same square) is 87 - s. Geometry uses axial
 * coordinates (x, y), computed on the fly: a step east adds (1, 1), north-east
 * (0, 1), north-west (-1, 0). Every message and text shows squares by name
 * ("e4").
 */
enum { NSQ = 88, WHITE = 0, BLACK = 1 };
enum { OPEN = 0, MOUNTAIN = 1, WATER = 2 };
enum { PHASE_SETUP, PHASE_PLAY };
enum { REASON_NONE, REASON_KING, REASON_NOMOVE };
enum { NKINDS = 10, NPIECES = 23, NSLOTS = 12 };

#define TAG "cy1:"

/* Most squares a setup line may list before the scanner gives up. */
#define MAX_SETUP_SQUARES 64
#define MAX_SETUP_SLOTS 16

struct rules_position {
	unsigned char terrain[NSQ];     /* OPEN, MOUNTAIN or WATER */
	char board[NSQ];                /* 0 empty, else the piece letter (White upper case) */
	int phase;                      /* PHASE_SETUP until both setups are in */
	unsigned submitted;             /* setup phase: bit mask of the seats whose setup is in */
	duel_state duel;                /* play: WHITE or BLACK to move; the result, with a REASON_* */
};

/* Our move inside rules_move.raw. Unused bytes stay zero so that equal moves
 * compare equal with memcmp. */
typedef struct cy_move {
	unsigned char type;             /* 'M' normal move, 'X' capture, 'S' setup */
	unsigned char piece;            /* the moving piece's letter, upper case */
	unsigned char fr, to, end;      /* squares; to = captured square; end = where the capturer ends */
	unsigned char two;              /* 1 when a second Rabble move follows */
	unsigned char fr2, to2;         /* the second Rabble move */
	unsigned char kpos;             /* setup: King's tile position 0-2 */
	unsigned char tile[NSLOTS];     /* setup: tile 1-8 in slot L0..L5, R0..R5 (relative), 0 unused */
	unsigned char rot[NSLOTS];      /* setup: 1 when the slot's tile is rotated 180 degrees */
	unsigned char sq[NPIECES];      /* setup: squares in the order R S L H E C T D W K, each kind sorted */
} cy_move;

static_assert(sizeof(cy_move) <= RULES_MOVE_BYTES, "cy_move must fit in rules_move.raw");

static const char *const seat_names[] = { "White", "Black" };

/* ---- geometry ---- */

static const int row_len[10] = { 0, 8, 9, 10, 11, 12, 11, 10, 9, 8 };
static const int row_start[10] = { 0, 0, 8, 17, 27, 38, 50, 61, 71, 80 };

/* The six directions as (dx, dy): E W NE SW NW SE; direction d ^ 1 is its opposite. */
static const int dirs[6][2] = { { 1, 1 }, { -1, -1 }, { 0, 1 }, { 0, -1 }, { -1, 0 }, { 1, 0 } };
enum { DIR_E, DIR_W, DIR_NE, DIR_SW, DIR_NW, DIR_SE };

static int sq_row(int s)
{
	int n = 9;

	while (s < row_start[n])
		n--;
	return n;
}

static int sq_letter(int s)
{
	return s - row_start[sq_row(s)];
}

static void sq_xy(int s, int *x, int *y)
{
	int n = sq_row(s), i = s - row_start[n];

	if (n >= 5) {
		*x = i;
		*y = n - 5 + i;
	} else {
		*x = 5 - n + i;
		*y = i;
	}
}

static int sq_at(int x, int y)
{
	int n;

	if (x < 0 || y < 0 || x > 11 || y > 11 || abs(x - y) > 4)
		return -1;
	n = 5 - x + y;
	return row_start[n] + (n >= 5 ? x : y);
}

/* The neighbour of s in direction d, or -1 off the board. */
static int step(int s, int d)
{
	int x, y;

	sq_xy(s, &x, &y);
	return sq_at(x + dirs[d][0], y + dirs[d][1]);
}

/* k steps from s in direction d, or -1 once off the board. */
static int walk(int s, int d, int k)
{
	int x, y;

	sq_xy(s, &x, &y);
	return sq_at(x + k * dirs[d][0], y + k * dirs[d][1]);
}

static int hex_dist(int a, int b)
{
	int xa, ya, xb, yb, dx, dy;

	sq_xy(a, &xa, &ya);
	sq_xy(b, &xb, &yb);
	dx = xb - xa;
	dy = yb - ya;
	if ((dx >= 0) == (dy >= 0))
		return abs(dx) > abs(dy) ? abs(dx) : abs(dy);
	return abs(dx) + abs(dy);
}

/* Whether b is in a straight line from a (a != b): its direction and distance. */
static int in_line(int a, int b, int *dir, int *dist)
{
	int xa, ya, xb, yb, dx, dy;

	sq_xy(a, &xa, &ya);
	sq_xy(b, &xb, &yb);
	dx = xb - xa;
	dy = yb - ya;
	if (a == b)
		return 0;
	if (dx == 0) {
		*dir = dy > 0 ? DIR_NE : DIR_SW;
		*dist = abs(dy);
	} else if (dy == 0) {
		*dir = dx > 0 ? DIR_SE : DIR_NW;
		*dist = abs(dx);
	} else if (dx == dy) {
		*dir = dx > 0 ? DIR_E : DIR_W;
		*dist = abs(dx);
	} else {
		return 0;
	}
	return 1;
}

/* "e4". */
static const char *sqname(char buf[4], int s)
{
	if (s < 0 || s >= NSQ) {
		snprintf(buf, 4, "??");
		return buf;
	}
	buf[0] = (char)('a' + sq_letter(s));
	buf[1] = (char)('0' + sq_row(s));
	buf[2] = 0;
	return buf;
}

/* The square of a name as the tables below write it ("e4"). */
static int name_sq(const char *name)
{
	int n = name[1] - '0', i = name[0] - 'a';

	return row_start[n] + i;
}

/* Whose half a row is: WHITE rows 1-4, BLACK rows 6-9, -1 for row 5. */
static int half_of_row(int n)
{
	return n < 5 ? WHITE : n > 5 ? BLACK : -1;
}

static int half_of(int s)
{
	return half_of_row(sq_row(s));
}

/* The square seat sees where White sees s (Black's view is rotated). */
static int as_seen(int seat, int s)
{
	return seat == BLACK ? NSQ - 1 - s : s;
}

/* ---- pieces ---- */

static const struct kind {
	char letter;
	const char *name;
	int count, armour, allowance, range, capture;
} kinds[NKINDS] = {
	{ 'R', "Rabble", 6, 1, 1, 1, 1 },
	{ 'S', "Spears", 3, 1, 1, 1, 1 },
	{ 'L', "Light Horse", 3, 1, 3, 1, 3 },
	{ 'H', "Heavy Horse", 2, 2, 2, 1, 2 },
	{ 'E', "Elephant", 2, 2, 1, 2, 2 },
	{ 'C', "Crossbows", 2, 0, 2, 3, 0 },
	{ 'T', "Trebuchet", 1, 0, 1, 4, 0 },
	{ 'D', "Dragon", 1, 2, 4, 2, 4 },
	{ 'W', "Tower", 2, 2, 0, 1, 0 },
	{ 'K', "King", 1, 1, 1, 1, 1 },
};

enum { K_R, K_S, K_L, K_H, K_E, K_C, K_T, K_D, K_W, K_K };

/* Kind index of a letter in either case, -1 if none. */
static int kind_of(int letter)
{
	int up = toupper((unsigned char)letter);

	for (int k = 0; k < NKINDS; k++)
		if (kinds[k].letter == up)
			return k;
	return -1;
}

static const char *piece_name(char piece)
{
	int k = kind_of(piece);

	return k < 0 ? "piece" : kinds[k].name;
}

static const char *article(char piece)
{
	char l = duel_letter(piece);

	return l == 'E' ? "an" : "a";
}

/* Whether square t is one of the two front squares of a Spears of seat on s. */
static int is_front(int s, int seat, int t)
{
	if (seat == WHITE)
		return t >= 0 && (t == step(s, DIR_NW) || t == step(s, DIR_NE));
	return t >= 0 && (t == step(s, DIR_SE) || t == step(s, DIR_SW));
}

/* The zone squares for seat: front squares of the opponent's Spears. */
static void zones(const rules_position *p, int seat, unsigned char zone[NSQ])
{
	memset(zone, 0, NSQ);
	for (int s = 0; s < NSQ; s++) {
		char pc = p->board[s];
		int a, b;
		if (!pc || duel_letter(pc) != 'S' || duel_owner(pc) == seat)
			continue;
		a = step(s, seat == WHITE ? DIR_SE : DIR_NW);
		b = step(s, seat == WHITE ? DIR_SW : DIR_NE);
		if (a >= 0)
			zone[a] = 1;
		if (b >= 0)
			zone[b] = 1;
	}
}

static int opposing(const rules_position *p, int seat, int s)
{
	return p->board[s] && duel_owner(p->board[s]) != seat;
}

/* ---- engagement: docs/rules/cyvasse.md, Engagement and capture ---- */

/* Why the piece on a does not engage the opposing piece on t, or NULL when it does. */
static const char *engage_fault(const rules_position *p, int a, int t)
{
	char pa = p->board[a], pt = p->board[t];
	int sa = duel_owner(pa), k = kind_of(pa), near_tower = 0, t_tower = 0, d, n, lo;

	if (p->terrain[a] == WATER)
		return "it stands on water";
	for (int i = 0; i < 6; i++) {
		int s = step(a, i);
		if (s >= 0 && p->board[s] && duel_owner(p->board[s]) != sa && duel_letter(p->board[s]) == 'W') {
			near_tower = 1;
			t_tower |= s == t;
		}
	}
	if (near_tower && !t_tower)
		return "it stands next to an opposing Tower and engages only that Tower";
	if (k == K_S)
		return is_front(a, sa, t) ? NULL : "a Spears engages only its two front squares";
	if (!in_line(a, t, &d, &n))
		return "not in a straight line";
	lo = k == K_T ? 2 : 1;
	if (n < lo)
		return "a Trebuchet never engages an adjacent piece";
	if (n > kinds[k].range)
		return "out of its engagement range";
	for (int i = 1; i < n; i++) {
		int s = walk(a, d, i);
		if (p->terrain[s] == MOUNTAIN)
			return "a mountain is in the way";
		if (p->board[s] && duel_owner(p->board[s]) == duel_owner(pt))
			return "a piece of the target's colour is in the way";
	}
	return NULL;
}

/* How many opposing pieces engage the piece on t, counting up to limit. */
static int engagers(const rules_position *p, int t, int limit)
{
	int n = 0, st = duel_owner(p->board[t]);

	for (int a = 0; a < NSQ && n < limit; a++)
		if (p->board[a] && duel_owner(p->board[a]) != st && hex_dist(a, t) <= 4
		    && !engage_fault(p, a, t))
			n++;
	return n;
}

static int armour_of(char piece)
{
	return kinds[kind_of(piece)].armour;
}

static int sufficiently_engaged(const rules_position *p, int t)
{
	int need = armour_of(p->board[t]);

	return need == 0 || engagers(p, t, need) >= need;
}

/* ---- normal moves ---- */

/*
 * Shortest path lengths from a for the piece on it (docs/rules/cyvasse.md,
 * Normal moves): every square entered is not a mountain and holds no opposing
 * piece (the Dragon may pass both), and only squares that are not zone squares
 * are passed through.
 * dist is 255 where nothing leads.
 */
static void reach(const rules_position *p, int a, const unsigned char *zone, unsigned char dist[NSQ])
{
	int seat = duel_owner(p->board[a]), k = kind_of(p->board[a]);
	int allow = kinds[k].allowance, dragon = k == K_D;
	int queue[NSQ], head = 0, tail = 0;

	memset(dist, 255, NSQ);
	dist[a] = 0;
	queue[tail++] = a;
	while (head < tail) {
		int s = queue[head++];
		if (dist[s] >= allow || (s != a && zone[s]))
			continue;
		for (int d = 0; d < 6; d++) {
			int n = step(s, d);
			if (n < 0 || dist[n] != 255)
				continue;
			if (!dragon && (p->terrain[n] == MOUNTAIN || opposing(p, seat, n)))
				continue;
			dist[n] = (unsigned char)(dist[s] + 1);
			queue[tail++] = n;
		}
	}
}

/* A square a normal move may end on. */
static int free_square(const rules_position *p, int s)
{
	return s >= 0 && !p->board[s] && p->terrain[s] != MOUNTAIN;
}

/* The King's Tower jump from a over its own Tower to 'to' (docs/rules/cyvasse.md,
 * Special rules of the pieces): the Tower's square when to is two squares away
 * straight over one, else -1. */
static int jump_tower(const rules_position *p, int a, int to)
{
	int d, n, w;

	if (!in_line(a, to, &d, &n) || n != 2)
		return -1;
	w = step(a, d);
	if (p->board[w] && duel_letter(p->board[w]) == 'W' && duel_owner(p->board[w]) == duel_owner(p->board[a]))
		return w;
	return -1;
}

/* Whether the piece on a (seat's) may make a normal move to the empty square 'to'. */
static int check_normal(const rules_position *p, int a, int to, const unsigned char *zone,
			rules_error *err)
{
	char pc = p->board[a], A[4], B[4];
	int k = kind_of(pc), allow = kinds[k].allowance, w;
	unsigned char dist[NSQ];

	if (k == K_W)
		return rules_fail(err, RULES_E_ILLEGAL, "a Tower never moves");
	if (to == a)
		return rules_fail(err, RULES_E_ILLEGAL, "a move must end on another square");
	if (p->board[to])
		return rules_fail(err, RULES_E_ILLEGAL, "%s holds your own %s", sqname(A, to),
				  piece_name(p->board[to]));
	if (p->terrain[to] == MOUNTAIN)
		return rules_fail(err, RULES_E_ILLEGAL, "%s is a mountain: no piece may end its move there",
				  sqname(A, to));
	reach(p, a, zone, dist);
	if (dist[to] <= allow)
		return 0;
	if (k == K_K && (w = jump_tower(p, a, to)) >= 0) {
		if (zone[w])
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the King cannot jump over the Tower on %s: it stands on a Spears zone square",
					  sqname(A, w));
		return 0;
	}
	if (hex_dist(a, to) > allow) {
		if (k == K_E)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Elephant moves only 1 square (it captures up to 2 squares away)");
		if (k == K_K)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the King moves 1 square, or 2 straight over its own Tower; %s is %d away",
					  sqname(A, to), hex_dist(a, to));
		return rules_fail(err, RULES_E_ILLEGAL, "the %s moves at most %d square%s; %s is %d away",
				  kinds[k].name, allow, allow == 1 ? "" : "s", sqname(A, to), hex_dist(a, to));
	}
	return rules_fail(err, RULES_E_ILLEGAL,
			  "no free path of at most %d step%s leads the %s from %s to %s: %s",
			  allow, allow == 1 ? "" : "s", kinds[k].name, sqname(A, a), sqname(B, to),
			  k == K_D ? "a Dragon may not pass a Spears zone square"
			  : "mountains, opposing pieces and Spears zone squares block the way");
}

/* ---- captures ---- */

/*
 * Whether the piece on a may capture the opposing piece on t, apart from
 * engagement (docs/rules/cyvasse.md, Engagement and capture, and Special rules
 * of the pieces). *end is where the capturer ends without a continuation: t,
 * or the Trebuchet's retreat square.
 */
static int check_capture_path(const rules_position *p, int seat, int a, int t, const unsigned char *zone,
			      int *end, rules_error *err)
{
	char pc = p->board[a], A[4], B[4], C[4];
	int k = kind_of(pc), d, n;

	*end = t;
	if (k == K_C)
		return rules_fail(err, RULES_E_ILLEGAL, "the Crossbows never capture");
	if (k == K_W)
		return rules_fail(err, RULES_E_ILLEGAL, "a Tower never moves, so it never captures");
	if (!in_line(a, t, &d, &n))
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a capture goes in a straight line, and %s is not in line with %s",
				  sqname(A, t), sqname(B, a));
	if (k == K_T) {
		const char *why = engage_fault(p, a, t);
		int r;
		if (why)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Trebuchet on %s captures only a piece it engages, and it does not engage %s: %s",
					  sqname(A, a), sqname(B, t), why);
		r = step(a, d ^ 1);
		if (r < 0)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Trebuchet cannot step back away from %s: it stands at the edge",
					  sqname(A, t));
		if (!free_square(p, r))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the Trebuchet cannot step back to %s: it is %s", sqname(A, r),
					  p->board[r] ? "occupied" : "a mountain");
		*end = r;
		return 0;
	}
	if (k == K_S) {
		if (!is_front(a, seat, t))
			return rules_fail(err, RULES_E_ILLEGAL,
					  "a Spears captures only on its two front squares (%s)",
					  seat == WHITE ? "north-west and north-east" : "south-east and south-west");
		return 0;
	}
	if (k == K_K && n == 2) {
		int w = jump_tower(p, a, t);
		if (w < 0)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the King captures only next to it, or two squares away straight over its own Tower");
		if (zone[w])
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the King cannot jump over the Tower on %s: it stands on a Spears zone square",
					  sqname(A, w));
		return 0;
	}
	if (n > kinds[k].capture)
		return rules_fail(err, RULES_E_ILLEGAL, "the %s captures at most %d square%s away; %s is %d away",
				  kinds[k].name, kinds[k].capture, kinds[k].capture == 1 ? "" : "s",
				  sqname(A, t), n);
	for (int i = 1; i < n; i++) {
		int s = walk(a, d, i);
		sqname(A, a);
		sqname(B, t);
		sqname(C, s);
		if (k != K_D && p->terrain[s] == MOUNTAIN)
			return rules_fail(err, RULES_E_ILLEGAL, "the way from %s to %s is blocked by the mountain on %s",
					  A, B, C);
		if (k != K_D && opposing(p, seat, s))
			return rules_fail(err, RULES_E_ILLEGAL, "the way from %s to %s is blocked by the opposing %s on %s",
					  A, B, piece_name(p->board[s]), C);
		if (k == K_E && p->board[s])
			return rules_fail(err, RULES_E_ILLEGAL,
					  "an Elephant cannot capture through a piece, and %s is occupied", C);
		if (zone[s])
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the way from %s to %s passes %s, a Spears zone square", A, B, C);
	}
	return 0;
}

/* Whether the opposing piece on t is sufficiently engaged to be captured. */
static int check_engaged(const rules_position *p, int t, rules_error *err)
{
	char pt = p->board[t], A[4];
	int need = armour_of(pt), have;

	if (need == 0)
		return 0;
	have = engagers(p, t, need);
	if (have >= need)
		return 0;
	return rules_fail(err, RULES_E_ILLEGAL,
			  "the %s %s on %s is not sufficiently engaged: %s armour needs %d engager%s, it has %d",
			  seat_names[duel_owner(pt)], piece_name(pt), sqname(A, t),
			  need == 2 ? "heavy" : "light", need, need == 1 ? "" : "s", have);
}

/* A Horse's continuation from the capture of t to e (docs/rules/cyvasse.md, Special rules of
 * the pieces). */
static int check_continuation(const rules_position *p, int seat, int a, int t, int e,
			      const unsigned char *zone, rules_error *err)
{
	char pc = p->board[a], A[4], B[4], C[4];
	int k = kind_of(pc), total = kinds[k].capture, d, n, d2, j;

	in_line(a, t, &d, &n);
	if (!in_line(t, e, &d2, &j) || d2 != d)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the %s can only continue straight on beyond %s, and %s is not on that line",
				  kinds[k].name, sqname(A, t), sqname(B, e));
	if (n + j > total)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the %s moves at most %d squares in all, and %s is %d squares from %s",
				  kinds[k].name, total, sqname(A, e), n + j, sqname(B, a));
	if (zone[t])
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the %s cannot continue: the captured piece stood on a Spears zone square",
				  kinds[k].name);
	for (int i = 1; i <= j; i++) {
		int s = walk(t, d, i);
		sqname(A, s);
		if (p->terrain[s] == MOUNTAIN)
			return rules_fail(err, RULES_E_ILLEGAL, "the continuation is blocked by the mountain on %s", A);
		if (opposing(p, seat, s))
			return rules_fail(err, RULES_E_ILLEGAL, "the continuation is blocked by the opposing %s on %s",
					  piece_name(p->board[s]), A);
		if (i < j && zone[s])
			return rules_fail(err, RULES_E_ILLEGAL,
					  "the continuation cannot pass %s, a Spears zone square (it may stop there)", A);
	}
	if (p->board[e])
		return rules_fail(err, RULES_E_ILLEGAL, "the continuation must end on an empty square, and %s holds your own %s",
				  sqname(C, e), piece_name(p->board[e]));
	return 0;
}

/* ---- move generation ---- */

/* The common generator's state, and what every move of the seat is checked against, worked
 * out once. */
typedef struct gen {
	engine_gen base;
	unsigned char zone[NSQ];    /* the opponent's Spears zones */
	signed char engaged[NSQ];   /* -1 not yet known, else sufficiently engaged 0/1 */
} gen;

static void gen_init(gen *g, const rules_position *pos, int seat, rules_move_list *out)
{
	memset(g, 0, sizeof *g);
	g->base.pos = pos;
	g->base.seat = seat;
	g->base.out = out;
	zones(pos, seat, g->zone);
	memset(g->engaged, -1, sizeof g->engaged);
}

/* Records a move; returns 1 to stop (existence check). */
static int emit(gen *g, const cy_move *m)
{
	return engine_push(&g->base, m, sizeof *m, 0);
}

static void normal_move(cy_move *m, char piece, int fr, int to)
{
	memset(m, 0, sizeof *m);
	m->type = 'M';
	m->piece = (unsigned char)duel_letter(piece);
	m->fr = (unsigned char)fr;
	m->to = (unsigned char)to;
	m->end = (unsigned char)to;
}

/* The position after the normal move fr -> to. */
static void move_piece(rules_position *p, int fr, int to)
{
	p->board[to] = p->board[fr];
	p->board[fr] = 0;
}

/* The Rabble double moves after the Rabble move first (docs/rules/cyvasse.md, Special rules of
 * the pieces). */
static int gen_doubles(gen *g, const cy_move *first)
{
	rules_position after = *g->base.pos;

	move_piece(&after, first->fr, first->to);
	for (int r = 0; r < NSQ; r++) {
		char pc = after.board[r];
		if (r == first->to || !pc || duel_owner(pc) != g->base.seat || duel_letter(pc) != 'R')
			continue;
		for (int d = 0; d < 6; d++) {
			int to = step(r, d);
			cy_move m = *first;
			if (!free_square(&after, to))
				continue;
			m.two = 1;
			m.fr2 = (unsigned char)r;
			m.to2 = (unsigned char)to;
			if (emit(g, &m))
				return 1;
		}
	}
	return 0;
}

static int gen_normal(gen *g, int a)
{
	const rules_position *p = g->base.pos;
	char pc = p->board[a];
	int k = kind_of(pc);
	unsigned char dist[NSQ];
	cy_move m;

	if (k == K_W)
		return 0;
	reach(p, a, g->zone, dist);
	for (int s = 0; s < NSQ; s++) {
		if (s == a || dist[s] > kinds[k].allowance || !free_square(p, s))
			continue;
		normal_move(&m, pc, a, s);
		if (emit(g, &m))
			return 1;
		if (k == K_R && g->base.out && gen_doubles(g, &m))
			return 1;
	}
	if (k == K_K) {
		for (int d = 0; d < 6; d++) {
			int w = step(a, d), to = w >= 0 ? step(w, d) : -1;
			if (to < 0 || jump_tower(p, a, to) != w || g->zone[w] || !free_square(p, to))
				continue;
			normal_move(&m, pc, a, to);
			if (emit(g, &m))
				return 1;
		}
	}
	return 0;
}

static int gen_captures(gen *g, int a)
{
	const rules_position *p = g->base.pos;
	char pc = p->board[a];
	int k = kind_of(pc);

	if (k == K_C || k == K_W)
		return 0;
	for (int t = 0; t < NSQ; t++) {
		int end, d, n;
		cy_move m;
		if (!opposing(p, g->base.seat, t) || !in_line(a, t, &d, &n) || n > 4
		    || check_capture_path(p, g->base.seat, a, t, g->zone, &end, NULL))
			continue;
		if (g->engaged[t] < 0)
			g->engaged[t] = (signed char)sufficiently_engaged(p, t);
		if (!g->engaged[t])
			continue;
		memset(&m, 0, sizeof m);
		m.type = 'X';
		m.piece = (unsigned char)duel_letter(pc);
		m.fr = (unsigned char)a;
		m.to = (unsigned char)t;
		m.end = (unsigned char)end;
		if (emit(g, &m))
			return 1;
		if (k == K_L || k == K_H) {
			for (int j = 1; n + j <= kinds[k].capture; j++) {
				int e = walk(t, d, j);
				if (e < 0)
					break;
				if (check_continuation(p, g->base.seat, a, t, e, g->zone, NULL))
					continue;
				m.end = (unsigned char)e;
				if (emit(g, &m))
					return 1;
			}
		}
	}
	return 0;
}

/* Every legal move of g->base.seat in play. Returns 1 when stopped early. */
static int gen_all(gen *g)
{
	for (int a = 0; a < NSQ; a++) {
		char pc = g->base.pos->board[a];
		if (!pc || duel_owner(pc) != g->base.seat)
			continue;
		if (gen_normal(g, a))
			return 1;
	}
	for (int a = 0; a < NSQ; a++) {
		char pc = g->base.pos->board[a];
		if (!pc || duel_owner(pc) != g->base.seat)
			continue;
		if (gen_captures(g, a))
			return 1;
	}
	return 0;
}

static int has_legal_move(const rules_position *pos, int seat)
{
	gen g;

	gen_init(&g, pos, seat, NULL);
	return gen_all(&g);
}

/* Whether seat has a legal move; while the setups are being made, nobody is stuck. */
static int can_move(const rules_position *pos, int seat)
{
	return pos->phase != PHASE_PLAY || has_legal_move(pos, seat);
}

static const duel_reason reasons[] = {
	[REASON_KING] = { "king", "King captured" }, [REASON_NOMOVE] = { "nomove", NULL },
};
static const duel_rules two_seats = {
	"Cyvasse", seat_names, "WB", reasons, sizeof reasons / sizeof *reasons, REASON_NOMOVE, can_move,
};

/*
 * Whether the game has ended, and how. Besides the stored result this
 * catches a position (built by hand) whose side to move has no move at all:
 * that side has lost (docs/rules/cyvasse.md, Turns and the end of the game).
 */
static int ended(const rules_position *pos, int *winner, int *reason)
{
	return duel_ended(&two_seats, pos, &pos->duel, winner, reason);
}

/* ---- tiles and setups: docs/rules/cyvasse.md, Terrain and tiles, and The setup phase ---- */

/* Terrain of tiles 1-8 per face (A, B), positions TL TR BL BR. */
static const char *const tile_faces[8][2] = {
	{ "X..X", ".X.." }, { "~~..", "~..." }, { "X...", "~..." }, { ".~..", ".X.." },
	{ "X...", "...." }, { ".~..", "...." }, { "....", "...." }, { "....", "...." },
};

/* White's slots L0-L5, R0-R5: squares TL TR BL BR. Black's are these rotated. */
static const char *const slot_names[NSLOTS][4] = {
	{ "a4", "b4", "a3", "b3" }, { "c4", "d4", "c3", "d3" }, { "e4", "f4", "e3", "f3" },
	{ "a2", "b2", "a1", "b1" }, { "c2", "d2", "c1", "d1" }, { "e2", "f2", "e1", "f1" },
	{ "f4", "g4", "e3", "f3" }, { "h4", "i4", "g3", "h3" }, { "j4", "k4", "i3", "j3" },
	{ "d2", "e2", "c1", "d1" }, { "f2", "g2", "e1", "f1" }, { "h2", "i2", "g1", "h1" },
};

/* The slots each King's tile position uses, as bit masks over L0..L5, R0..R5. */
static const unsigned kpos_slots[3] = {
	1u << 0 | 1u << 3 | 1u << 6 | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 10 | 1u << 11,
	1u << 0 | 1u << 1 | 1u << 3 | 1u << 4 | 1u << 7 | 1u << 8 | 1u << 10 | 1u << 11,
	1u << 0 | 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5 | 1u << 8 | 1u << 11,
};

/* White's King's tile per position (3 + 2 + 1 squares), the circle last. */
static const char *const king_tiles[3][6] = {
	{ "c4", "d4", "e4", "c3", "d3", "c2" },
	{ "e4", "f4", "g4", "e3", "f3", "e2" },
	{ "g4", "h4", "i4", "g3", "h3", "g2" },
};

static const char *const default_white =
	"setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a3,j3,b4,c4,h4,k4 "
	"S=e4,f4,g4 L=g2,b3,i3 H=c3,h3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2";

static int slot_square(int seat, int slot, int k)
{
	return as_seen(seat, name_sq(slot_names[slot][k]));
}

static int circle_square(int seat, int kpos)
{
	return as_seen(seat, name_sq(king_tiles[kpos][5]));
}

/* "L0", "R5". */
static const char *slot_name(char buf[4], int slot)
{
	snprintf(buf, 4, "%c%d", slot < 6 ? 'L' : 'R', slot % 6);
	return buf;
}

static int terrain_code(char c)
{
	return c == 'X' ? MOUNTAIN : c == '~' ? WATER : OPEN;
}

/* The terrain a setup gives seat's half (other squares untouched). */
static void setup_terrain(int seat, const cy_move *m, unsigned char terr[NSQ])
{
	for (int i = 0; i < 6; i++)
		terr[as_seen(seat, name_sq(king_tiles[m->kpos][i]))] = OPEN;
	for (int slot = 0; slot < NSLOTS; slot++) {
		const char *face;
		if (!m->tile[slot])
			continue;
		face = tile_faces[m->tile[slot] - 1][slot >= 6];
		for (int k = 0; k < 4; k++)
			terr[slot_square(seat, slot, k)] =
				(unsigned char)terrain_code(face[m->rot[slot] ? 3 - k : k]);
	}
}

/* A setup line as written. */
typedef struct scanned_setup {
	int is_default;
	int kpos;
	int nslots;
	struct {
		int slot, tile, face, rot;
	} slot[MAX_SETUP_SLOTS];
	int nsq;
	char letter[MAX_SETUP_SQUARES];
	int sq[MAX_SETUP_SQUARES];
} scanned_setup;

static void slot_list(char *buf, size_t size, unsigned mask)
{
	size_t len = 0;
	char s[4];

	buf[0] = 0;
	for (int i = 0; i < NSLOTS && len + 5 < size; i++)
		if (mask & (1u << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", slot_name(s, i));
}

/*
 * Checks a written setup for seat (docs/rules/cyvasse.md, The setup phase) and
 * builds its canonical move. Every message talks only about the submitter's
 * own setup.
 */
static int validate_setup(const scanned_setup *s, int seat, cy_move *m, rules_error *err)
{
	unsigned used, seen = 0;
	int tile_slot[9], count[NKINDS], circle, king_sq = -1, n = 0;
	char taken[NSQ], A[4], B[4], list[64];
	unsigned char terr[NSQ];

	memset(m, 0, sizeof *m);
	m->type = 'S';
	if (s->kpos < 0 || s->kpos > 2)
		return rules_fail(err, RULES_E_ILLEGAL, "the King's tile position is K0, K1 or K2");
	m->kpos = (unsigned char)s->kpos;
	used = kpos_slots[s->kpos];
	slot_list(list, sizeof list, used);
	for (int i = 0; i < 9; i++)
		tile_slot[i] = -1;
	for (int i = 0; i < s->nslots; i++) {
		int slot = s->slot[i].slot, tile = s->slot[i].tile, face = slot < 6 ? 'A' : 'B';
		if (slot < 0 || slot >= NSLOTS || tile < 1 || tile > 8)
			return rules_fail(err, RULES_E_ILLEGAL, "malformed slot assignment");
		slot_name(A, slot);
		if (!(used & (1u << slot)))
			return rules_fail(err, RULES_E_ILLEGAL, "K%d does not use slot %s (K%d uses %s)",
					  s->kpos, A, s->kpos, list);
		if (seen & (1u << slot))
			return rules_fail(err, RULES_E_ILLEGAL, "slot %s is given twice", A);
		if (s->slot[i].face && s->slot[i].face != face)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "slot %s takes face %c (%s slots take face %c), not %d%c", A, face,
					  slot < 6 ? "L" : "R", face, tile, s->slot[i].face);
		if (tile_slot[tile] >= 0)
			return rules_fail(err, RULES_E_ILLEGAL, "tile %d is placed twice, in %s and %s", tile,
					  slot_name(B, tile_slot[tile]), A);
		seen |= 1u << slot;
		tile_slot[tile] = slot;
		m->tile[slot] = (unsigned char)tile;
		m->rot[slot] = (unsigned char)(s->slot[i].rot != 0);
	}
	for (int slot = 0; slot < NSLOTS; slot++)
		if ((used & (1u << slot)) && !(seen & (1u << slot)))
			return rules_fail(err, RULES_E_ILLEGAL, "slot %s has no tile (K%d uses %s)",
					  slot_name(A, slot), s->kpos, list);

	/* The pieces, on the terrain these tiles make. */
	memset(terr, OPEN, sizeof terr);
	setup_terrain(seat, m, terr);
	memset(taken, 0, sizeof taken);
	memset(count, 0, sizeof count);
	circle = circle_square(seat, s->kpos);
	for (int i = 0; i < s->nsq; i++) {
		int sq = s->sq[i], k = kind_of(s->letter[i]);
		if (sq < 0 || sq >= NSQ || k < 0)
			return rules_fail(err, RULES_E_ILLEGAL, "malformed piece group");
		sqname(A, sq);
		if (sq_row(sq) == 5)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s is on the middle row, which belongs to nobody: pieces start in your own half",
					  A);
		if (half_of(sq) != seat)
			return rules_fail(err, RULES_E_ILLEGAL, "%s is not in your half: %s sets up on rows %s",
					  A, seat_names[seat], seat == WHITE ? "1-4" : "6-9");
		if (terr[sq] == MOUNTAIN) {
			int slot = -1;
			for (int j = 0; j < NSLOTS; j++)
				for (int c = 0; c < 4; c++)
					if (m->tile[j] && slot_square(seat, j, c) == sq)
						slot = j;
			return rules_fail(err, RULES_E_ILLEGAL, "%s is a mountain in your setup (tile %d in %s)",
					  A, slot >= 0 ? m->tile[slot] : 0, slot_name(B, slot >= 0 ? slot : 0));
		}
		if (taken[sq])
			return rules_fail(err, RULES_E_ILLEGAL, "%s is used twice", A);
		taken[sq] = kinds[k].letter;
		count[k]++;
		if (k == K_K)
			king_sq = sq;
	}
	if (count[K_K] > 1)
		return rules_fail(err, RULES_E_ILLEGAL, "a setup has one King, not %d", count[K_K]);
	if (count[K_K] == 1 && king_sq != circle)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the King must stand on the circle of the King's tile, %s for K%d, not %s",
				  sqname(A, circle), s->kpos, sqname(B, king_sq));
	if (count[K_K] == 0) {
		if (taken[circle])
			return rules_fail(err, RULES_E_ILLEGAL,
					  "%s is the King's square (the circle of K%d) and must be left for the King",
					  sqname(A, circle), s->kpos);
		taken[circle] = 'K';
		count[K_K] = 1;
	}
	for (int k = 0; k < NKINDS; k++)
		if (count[k] != kinds[k].count)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "your setup has %d %s (%c); it needs exactly %d", count[k],
					  kinds[k].name, kinds[k].letter, kinds[k].count);
	for (int k = 0; k < NKINDS; k++)
		for (int sq = 0; sq < NSQ; sq++)
			if (taken[sq] == kinds[k].letter)
				m->sq[n++] = (unsigned char)sq;
	return 0;
}

/* The written form of a setup move, to check it again. Returns -1 if malformed. */
static int unscan_setup(const cy_move *m, scanned_setup *s)
{
	int n = 0;

	memset(s, 0, sizeof *s);
	s->kpos = m->kpos;
	for (int slot = 0; slot < NSLOTS; slot++) {
		if (!m->tile[slot])
			continue;
		if (s->nslots >= MAX_SETUP_SLOTS || m->rot[slot] > 1)
			return -1;
		s->slot[s->nslots].slot = slot;
		s->slot[s->nslots].tile = m->tile[slot];
		s->slot[s->nslots].rot = m->rot[slot];
		s->nslots++;
	}
	for (int k = 0; k < NKINDS; k++)
		for (int i = 0; i < kinds[k].count; i++, n++) {
			s->letter[n] = kinds[k].letter;
			s->sq[n] = m->sq[n];
		}
	s->nsq = n;
	return 0;
}

/* Whether a stored setup move is a valid, canonical setup of seat. */
static int check_setup_move(const cy_move *m, int seat, rules_error *err)
{
	scanned_setup s;
	cy_move again;
	int rc;

	if (unscan_setup(m, &s))
		return rules_fail(err, RULES_E_ILLEGAL, "malformed setup");
	if ((rc = validate_setup(&s, seat, &again, err)))
		return rc;
	if (memcmp(&again, m, sizeof again) != 0)
		return rules_fail(err, RULES_E_ILLEGAL, "malformed setup");
	return 0;
}

/* ---- parsing ---- */

/* A square name starts at p: a letter a-l and a digit 1-9. */
static int looks_square(const char *p)
{
	int c = tolower((unsigned char)*p);

	return c >= 'a' && c <= 'l' && p[1] >= '1' && p[1] <= '9';
}

static int scan_square(const char **pp, int *sq, rules_error *err)
{
	const char *p = *pp;
	int i, n;

	if (!looks_square(p))
		return notation_unexpected(p, "a square such as e4", err);
	i = tolower((unsigned char)*p) - 'a';
	n = p[1] - '0';
	if (isdigit((unsigned char)p[2]))
		return rules_fail(err, RULES_E_PARSE, "there is no row %c%c: rows run from 1 to 9", p[1], p[2]);
	if (i >= row_len[n])
		return rules_fail(err, RULES_E_PARSE, "there is no square %c%d: row %d runs from a%d to %c%d",
				  'a' + i, n, n, n, 'a' + row_len[n] - 1, n);
	*sq = row_start[n] + i;
	*pp = p + 2;
	return 0;
}

/* Whether p starts the word w (case-insensitive) followed by a non-letter. */
static int word_is(const char *p, const char *w)
{
	size_t n = strlen(w);

	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != w[i])
			return 0;
	return !isalnum((unsigned char)p[n]);
}

/* The tail of a line: optional '+' signs, then a '#' comment or the end. */
static int scan_tail(const char *p, const char *what, rules_error *err)
{
	p = notation_skip_space(p);
	while (*p == '+')
		p = notation_skip_space(p + 1);
	if (*p && *p != '#')
		return notation_unexpected(p, what, err);
	return 0;
}

/* The grammar of a setup line (docs/rules/cyvasse.md, The setup phase), after the word "setup". */
static int scan_setup(const char *p, scanned_setup *s, rules_error *err)
{
	int in_groups = 0;

	memset(s, 0, sizeof *s);
	p = notation_skip_space(p);
	if (word_is(p, "default")) {
		s->is_default = 1;
		return scan_tail(p + 7, "the end of the line after \"setup default\"", err);
	}
	if (toupper((unsigned char)*p) != 'K' || !isdigit((unsigned char)p[1]))
		return notation_unexpected(p, "the King's tile position K0, K1 or K2, or \"default\"", err);
	if (p[1] > '2' || isalnum((unsigned char)p[2]))
		return rules_fail(err, RULES_E_PARSE,
				  "the King's tile position is K0, K1 or K2 (left, centre, right)");
	s->kpos = p[1] - '0';
	p = notation_skip_space(p + 2);
	while (*p && *p != '#') {
		int c = toupper((unsigned char)*p);
		if (!isalpha(c))
			return notation_unexpected(p, "a slot assignment such as L0=5A or a piece group such as R=a3,b4", err);
		if ((c == 'L' || c == 'R') && isdigit((unsigned char)p[1])) {
			int slot, tile, face = 0, rot = 0;
			if (in_groups)
				return rules_fail(err, RULES_E_PARSE,
						  "slot %c%c follows a piece group: slot assignments come first",
						  c, p[1]);
			if (p[1] > '5' || isalnum((unsigned char)p[2]))
				return rules_fail(err, RULES_E_PARSE,
						  "there is no slot %c%c: slots are L0-L5 and R0-R5", c, p[1]);
			slot = (c == 'R') * 6 + p[1] - '0';
			p = notation_skip_space(p + 2);
			if (*p != '=')
				return notation_unexpected(p, "'=' after the slot", err);
			p = notation_skip_space(p + 1);
			if (isdigit((unsigned char)*p) && (*p < '1' || *p > '8'))
				return rules_fail(err, RULES_E_PARSE, "there is no tile %c: tiles are 1-8", *p);
			if (!isdigit((unsigned char)*p))
				return notation_unexpected(p, "a tile number 1-8", err);
			tile = *p++ - '0';
			if (toupper((unsigned char)*p) == 'A' || toupper((unsigned char)*p) == 'B')
				face = toupper((unsigned char)*p++);
			if (toupper((unsigned char)*p) == 'R' && *notation_skip_space(p + 1) != '=') {
				rot = 1;
				p++;
			}
			if (isdigit((unsigned char)*p))
				return notation_unexpected(p, "a space after the tile", err);
			if (s->nslots >= MAX_SETUP_SLOTS)
				return rules_fail(err, RULES_E_PARSE, "too many slot assignments");
			s->slot[s->nslots].slot = slot;
			s->slot[s->nslots].tile = tile;
			s->slot[s->nslots].face = face;
			s->slot[s->nslots].rot = rot;
			s->nslots++;
		} else {
			int k = kind_of(c);
			if (c == 'K' && isdigit((unsigned char)p[1]))
				return rules_fail(err, RULES_E_PARSE,
						  "the King's tile position is written once, first");
			if (k < 0 || *notation_skip_space(p + 1) != '=') {
				if (k < 0 && *notation_skip_space(p + 1) == '=')
					return rules_fail(err, RULES_E_PARSE,
							  "'%c' is not a piece letter (R, S, L, H, E, C, T, D, W or K)",
							  *p);
				return notation_unexpected(p, "a slot assignment such as L0=5A or a piece group such as R=a3,b4", err);
			}
			in_groups = 1;
			p = notation_skip_space(notation_skip_space(p + 1) + 1);
			for (;;) {
				int sq, rc;
				if ((rc = scan_square(&p, &sq, err)))
					return rc;
				if (s->nsq >= MAX_SETUP_SQUARES)
					return rules_fail(err, RULES_E_PARSE, "too many squares in the setup");
				s->letter[s->nsq] = kinds[k].letter;
				s->sq[s->nsq++] = sq;
				p = notation_skip_space(p);
				if (*p != ',')
					break;
				p = notation_skip_space(p + 1);
			}
		}
		p = notation_skip_space(p);
	}
	return scan_tail(p, "the end of the setup line", err);
}

/* One move of a turn as written. */
typedef struct move_part {
	char piece;     /* upper case, 0 when not written */
	int from, to;
	int end;        /* -1 when not written */
	char sep;       /* 'x', '-' or 0 */
} move_part;

typedef struct scanned {
	int nparts;     /* 1 or 2, 3 for "too many" */
	move_part p[2];
} scanned;

static int scan_part(const char **pp, move_part *pt, rules_error *err)
{
	const char *p = notation_skip_space(*pp);
	int rc;

	memset(pt, 0, sizeof *pt);
	pt->end = -1;
	if (isalpha((unsigned char)*p) && !looks_square(p)) {
		const char *q = notation_skip_space(p + 1);
		if (!looks_square(q))
			return notation_unexpected(p, "a square such as e4, or a piece letter and a square", err);
		if (kind_of(*p) < 0)
			return rules_fail(err, RULES_E_PARSE,
					  "'%c' is not a piece letter (R, S, L, H, E, C, T, D, W or K)", *p);
		pt->piece = duel_letter(*p);
		p = q;
	}
	if ((rc = scan_square(&p, &pt->from, err)))
		return rc;
	p = notation_skip_space(p);
	if (*p == 'x' || *p == 'X' || *p == '-') {
		pt->sep = *p == '-' ? '-' : 'x';
		p = notation_skip_space(p + 1);
	}
	if ((rc = scan_square(&p, &pt->to, err)))
		return rc;
	p = notation_skip_space(p);
	if (*p == '-') {
		p = notation_skip_space(p + 1);
		if ((rc = scan_square(&p, &pt->end, err)))
			return rc;
	}
	*pp = p;
	return 0;
}

/* The grammar of docs/rules/cyvasse.md, Writing moves; nothing about the position. */
static int scan_move(const char *p, scanned *s, rules_error *err)
{
	int rc;

	memset(s, 0, sizeof *s);
	for (;;) {
		move_part pt;
		if ((rc = scan_part(&p, &pt, err)))
			return rc;
		if (s->nparts < 2)
			s->p[s->nparts] = pt;
		s->nparts++;
		p = notation_skip_space(p);
		if (*p != '/')
			break;
		p++;
	}
	if (s->nparts > 3)
		s->nparts = 3;
	return scan_tail(p, "'/', '+', '#' or the end of the move", err);
}

/* ---- checking a move against the position ---- */

static int check_turn(const rules_position *pos, int seat, rules_error *err)
{
	int winner, reason;

	if (seat != WHITE && seat != BLACK)
		return rules_fail(err, RULES_E_TURN, "Cyvasse has no seat %d", seat);
	if (ended(pos, &winner, &reason))
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if (pos->phase == PHASE_SETUP)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "no move can be made before both setups are in: send your setup line (or \"setup default\")");
	if (seat != pos->duel.to_move)
		return rules_fail(err, RULES_E_TURN, "it is not your turn: %s is to move",
				  seat_names[pos->duel.to_move]);
	return 0;
}

/* The piece on pt->from must be seat's, and of the written kind. */
static int check_mover(const rules_position *pos, int seat, const move_part *pt, rules_error *err)
{
	char pc = pos->board[pt->from], A[4];

	sqname(A, pt->from);
	if (!pc)
		return rules_fail(err, RULES_E_ILLEGAL, "there is no piece on %s", A);
	if (duel_owner(pc) != seat)
		return rules_fail(err, RULES_E_ILLEGAL, "the %s on %s is %s's, not yours", piece_name(pc), A,
				  seat_names[duel_owner(pc)]);
	if (pt->piece && pt->piece != duel_letter(pc))
		return rules_fail(err, RULES_E_ILLEGAL, "wrong letter: the piece on %s is %s %s (%c), not %s %s (%c)",
				  A, article(pc), piece_name(pc), duel_letter(pc), article(pt->piece),
				  piece_name(pt->piece), pt->piece);
	return 0;
}

/* One move of a turn; fills the first-move fields of m. */
static int check_part(const rules_position *pos, int seat, const move_part *pt, const unsigned char *zone,
		      cy_move *m, rules_error *err)
{
	char pc, A[4], B[4];
	int rc, end;

	if ((rc = check_mover(pos, seat, pt, err)))
		return rc;
	pc = pos->board[pt->from];
	memset(m, 0, sizeof *m);
	m->piece = (unsigned char)duel_letter(pc);
	m->fr = (unsigned char)pt->from;
	m->to = (unsigned char)pt->to;
	m->end = (unsigned char)pt->to;
	if (!opposing(pos, seat, pt->to)) {
		if (pt->sep == 'x')
			return rules_fail(err, RULES_E_ILLEGAL, "there is no opposing piece on %s to capture",
					  sqname(A, pt->to));
		if (pt->end >= 0)
			return rules_fail(err, RULES_E_ILLEGAL,
					  "a third square follows only a capture (a Horse's continuation or a Trebuchet's retreat)");
		if ((rc = check_normal(pos, pt->from, pt->to, zone, err)))
			return rc;
		m->type = 'M';
		return 0;
	}
	m->type = 'X';
	if ((rc = check_capture_path(pos, seat, pt->from, pt->to, zone, &end, err))
	    || (rc = check_engaged(pos, pt->to, err)))
		return rc;
	m->end = (unsigned char)end;
	if (pt->end < 0)
		return 0;
	if (duel_letter(pc) == 'T') {
		if (pt->end != end)
			return rules_fail(err, RULES_E_ILLEGAL, "the Trebuchet steps back to %s, not %s",
					  sqname(A, end), sqname(B, pt->end));
		return 0;
	}
	if (duel_letter(pc) != 'L' && duel_letter(pc) != 'H')
		return rules_fail(err, RULES_E_ILLEGAL,
				  "only a Horse may continue beyond the captured piece: the %s ends on %s",
				  piece_name(pc), sqname(A, pt->to));
	if (pt->end != pt->to
	    && (rc = check_continuation(pos, seat, pt->from, pt->to, pt->end, zone, err)))
		return rc;
	m->end = (unsigned char)pt->end;
	return 0;
}

/* A whole turn as written; fills m (canonical). */
static int check_move(const rules_position *pos, int seat, const scanned *s, cy_move *m,
		      rules_error *err)
{
	unsigned char zone[NSQ];
	rules_position after;
	cy_move second;
	int rc;

	if (s->nparts > 2)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "a turn is one move, or two Rabble moves (the double move): not more");
	zones(pos, seat, zone);
	if ((rc = check_part(pos, seat, &s->p[0], zone, m, err)))
		return rc;
	if (s->nparts == 1)
		return 0;
	if (m->type != 'M' || m->piece != 'R')
		return rules_fail(err, RULES_E_ILLEGAL,
				  "only a Rabble's normal move (not a capture) may be followed by a second move");
	after = *pos;
	move_piece(&after, m->fr, m->to);
	if ((rc = check_mover(&after, seat, &s->p[1], err)))
		return rc;
	if (duel_letter(after.board[s->p[1].from]) != 'R')
		return rules_fail(err, RULES_E_ILLEGAL, "the second move must be made with a Rabble");
	if (s->p[1].from == m->to)
		return rules_fail(err, RULES_E_ILLEGAL,
				  "the second move must be made with a different Rabble");
	if (s->p[1].sep == 'x' || opposing(&after, seat, s->p[1].to) || s->p[1].end >= 0)
		return rules_fail(err, RULES_E_ILLEGAL, "the second Rabble move cannot capture");
	zones(&after, seat, zone);
	if ((rc = check_part(&after, seat, &s->p[1], zone, &second, err)))
		return rc;
	m->two = 1;
	m->fr2 = second.fr;
	m->to2 = second.to;
	return 0;
}

/* The written form of a stored play move. Returns -1 if malformed. */
static int unscan_move(const cy_move *m, scanned *s)
{
	memset(s, 0, sizeof *s);
	if ((m->type != 'M' && m->type != 'X') || m->fr >= NSQ || m->to >= NSQ || m->end >= NSQ
	    || kind_of(m->piece) < 0 || m->two > 1 || (m->two && (m->fr2 >= NSQ || m->to2 >= NSQ)))
		return -1;
	s->nparts = 1 + m->two;
	s->p[0].piece = (char)m->piece;
	s->p[0].from = m->fr;
	s->p[0].to = m->to;
	s->p[0].sep = m->type == 'X' ? 'x' : '-';
	s->p[0].end = m->type == 'X' && m->end != m->to ? m->end : -1;
	if (m->two) {
		s->p[1].piece = 'R';
		s->p[1].from = m->fr2;
		s->p[1].to = m->to2;
		s->p[1].sep = '-';
		s->p[1].end = -1;
	}
	return 0;
}

/* ---- the default setup ---- */

static void default_setup(int seat, cy_move *m)
{
	scanned_setup s;
	int rc = scan_setup(default_white + strlen("setup"), &s, NULL);

	assert(rc == 0);
	rc = validate_setup(&s, WHITE, m, NULL);
	assert(rc == 0);
	(void)rc;
	if (seat == BLACK) {
		for (int i = 0; i < s.nsq; i++)
			s.sq[i] = as_seen(BLACK, s.sq[i]);
		rc = validate_setup(&s, BLACK, m, NULL);
		assert(rc == 0);
	}
}

/* ---- reading a line ---- */

enum { LINE_SETUP = 1, LINE_PASS, LINE_MOVE };

/* A line as written: a setup, a pass or a turn. */
typedef struct scanned_line {
	int kind;               /* LINE_* */
	scanned_setup setup;    /* LINE_SETUP */
	scanned move;           /* LINE_MOVE */
} scanned_line;
static_assert(sizeof(scanned_line) <= ENGINE_SCAN_BYTES, "scanned_line must fit in engine_parse's buffer");

static int scan_line(const char *text, void *into, rules_error *err)
{
	scanned_line *s = into;
	const char *p;
	int rc;

	if ((rc = notation_check_text(text, "line", err)))
		return rc;
	p = notation_skip_space(text);
	if (word_is(p, "setup")) {
		s->kind = LINE_SETUP;
		return scan_setup(p + 5, &s->setup, err);
	}
	if (word_is(p, "pass")) {
		s->kind = LINE_PASS;
		return scan_tail(p + 4, "the end of the line", err);
	}
	s->kind = LINE_MOVE;
	return scan_move(p, &s->move, err);
}

/* A setup line answers to the phase, not to a turn (docs/rules/cyvasse.md, The setup phase). */
static int check_setup(const rules_position *pos, int seat, const scanned_setup *s, cy_move *m,
		       rules_error *err)
{
	int winner, reason;

	if (seat != WHITE && seat != BLACK)
		return rules_fail(err, RULES_E_TURN, "Cyvasse has no seat %d", seat);
	if (ended(pos, &winner, &reason))
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if (pos->phase != PHASE_SETUP)
		return rules_fail(err, RULES_E_ILLEGAL, "the setup phase is over: both setups are final");
	if (s->is_default) {
		default_setup(seat, m);
		return 0;
	}
	return validate_setup(s, seat, m, err);
}

/* The turn is checked here rather than by engine_parse: a setup line answers to the phase. */
static int check_line(const rules_position *pos, int seat, const void *in, void *into,
		      rules_error *err)
{
	const scanned_line *s = in;
	int rc;

	if (s->kind == LINE_SETUP)
		return check_setup(pos, seat, &s->setup, into, err);
	if ((rc = check_turn(pos, seat, err)))
		return rc;
	if (s->kind == LINE_PASS)
		return rules_fail(err, RULES_E_ILLEGAL, "passing is not allowed: you must move a piece");
	return check_move(pos, seat, &s->move, into, err);
}

/* A stored play move as the line it reads back from; -1 when malformed. Setups have their own. */
static int unscan_line(const void *in, void *into)
{
	scanned_line *s = into;

	s->kind = LINE_MOVE;
	return unscan_move(in, &s->move);
}

static const engine_reader reader = {
	sizeof(scanned_line), sizeof(cy_move), scan_line, NULL, check_line, NULL, unscan_line,
};

/* A stored play move checked again by apply, which has asked the turn already. */
static int check_play(const rules_position *pos, int seat, const void *in, void *into,
		      rules_error *err)
{
	const scanned_line *s = in;

	return check_move(pos, seat, &s->move, into, err);
}

static const engine_reader play_reader = {
	sizeof(scanned_line), sizeof(cy_move), scan_line, NULL, check_play, NULL, unscan_line,
};

static int cy_parse(const rules_position *pos, int seat, const char *text,
		    rules_move *move, rules_error *err)
{
	return engine_parse(&reader, pos, seat, text, move, err);
}

/* ---- the rules_game functions ---- */

/* The setup phase, nothing on the board. */
static int cy_start(const char *options, rules_position **out, rules_error *err)
{
	rules_position *p = engine_start(options, "Cyvasse", sizeof *p, out, err);

	if (!p)
		return RULES_E_DATA;
	p->phase = PHASE_SETUP;
	return 0;
}

static rules_position *cy_clone(const rules_position *pos)
{
	return xmemdup(pos, sizeof *pos);
}

static size_t format_setup(const cy_move *m, char *tmp, size_t cap)
{
	size_t len = (size_t)snprintf(tmp, cap, "setup K%d", m->kpos);
	int n = 0;
	char A[4];

	for (int slot = 0; slot < NSLOTS; slot++)
		if (m->tile[slot])
			len += (size_t)snprintf(tmp + len, cap - len, " %s=%d%c%s", slot_name(A, slot),
						m->tile[slot], slot < 6 ? 'A' : 'B', m->rot[slot] ? "r" : "");
	for (int k = 0; k < NKINDS; k++)
		for (int i = 0; i < kinds[k].count; i++, n++) {
			if (i == 0)
				len += (size_t)snprintf(tmp + len, cap - len, " %c=", kinds[k].letter);
			len += (size_t)snprintf(tmp + len, cap - len, "%s%s", i ? "," : "",
						sqname(A, m->sq[n]));
		}
	return len;
}

static size_t cy_format(const rules_position *pos, const rules_move *move, char *buf, size_t size)
{
	cy_move m;
	char tmp[RULES_TEXT_MAX + 64], A[4], B[4], C[4];
	size_t len;
	scanned s;

	(void)pos;
	if (engine_format_open(move, &m, sizeof m, buf, size))
		return 0;
	if (m.type == 'S') {
		scanned_setup ss;
		if (m.kpos > 2 || unscan_setup(&m, &ss))
			return 0;
		for (int slot = 0; slot < NSLOTS; slot++)
			if (m.tile[slot] > 8)
				return 0;
		for (int i = 0; i < NPIECES; i++)
			if (m.sq[i] >= NSQ)
				return 0;
		len = format_setup(&m, tmp, sizeof tmp);
	} else {
		if (unscan_move(&m, &s))
			return 0;
		len = (size_t)snprintf(tmp, sizeof tmp, "%c%s%c%s", m.piece, sqname(A, m.fr),
				       m.type == 'X' ? 'x' : '-', sqname(B, m.to));
		if (m.type == 'X' && m.end != m.to)
			len += (size_t)snprintf(tmp + len, sizeof tmp - len, "-%s", sqname(C, m.end));
		if (m.two)
			len += (size_t)snprintf(tmp + len, sizeof tmp - len, " / R%s-%s", sqname(A, m.fr2),
						sqname(B, m.to2));
	}
	return engine_text_out(tmp, buf, size);
}

static size_t cy_legal_moves(const rules_position *pos, int seat, rules_move_list *out)
{
	gen g;
	int winner, reason;

	if ((seat != WHITE && seat != BLACK) || ended(pos, &winner, &reason))
		return 0;
	if (pos->phase == PHASE_SETUP) {
		/* Setups are far too many to list: only the default setup. */
		cy_move m;
		rules_move rm;
		default_setup(seat, &m);
		engine_pack(&rm, &m, sizeof m, seat);
		rules_move_list_push(out, &rm);
		return 1;
	}
	if (seat != pos->duel.to_move)
		return 0;
	gen_init(&g, pos, seat, out);
	gen_all(&g);
	return g.base.count;
}

static void end_if_stuck(rules_position *pos, int mover, rules_outcome *outcome)
{
	if (has_legal_move(pos, pos->duel.to_move))
		return;
	duel_finish(&pos->duel, mover, REASON_NOMOVE);
	engine_note(outcome, "%s has no legal move \xe2\x80\x94 %s wins", seat_names[pos->duel.to_move],
		    seat_names[mover]);
}

static int apply_setup(rules_position *pos, const cy_move *m, int seat, const rules_dice *dice,
		       rules_outcome *outcome, rules_error *err)
{
	int rc, other = 1 - seat, completes, roll = 0, winner, reason;
	unsigned char terr[NSQ];

	if (ended(pos, &winner, &reason))
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if (pos->phase != PHASE_SETUP)
		return rules_fail(err, RULES_E_ILLEGAL, "the setup phase is over: both setups are final");
	if ((rc = check_setup_move(m, seat, err)))
		return rc;
	completes = (pos->submitted >> other) & 1u;
	if (completes) {
		if (!dice || !dice->roll || dice->roll(dice->ctx, 6, &roll) < 0 || roll < 1 || roll > 6)
			return rules_fail(err, RULES_E_DICE,
					  "no die roll available to choose who moves first");
	}

	/* Valid: from here on nothing fails. */
	memcpy(terr, pos->terrain, sizeof terr);
	setup_terrain(seat, m, terr);
	for (int s = 0; s < NSQ; s++) {
		if (half_of(s) != seat)
			continue;
		pos->terrain[s] = terr[s];
		pos->board[s] = 0;
	}
	for (int k = 0, n = 0; k < NKINDS; k++)
		for (int i = 0; i < kinds[k].count; i++, n++)
			pos->board[m->sq[n]] = duel_as_seat(kinds[k].letter, seat);
	if (outcome)
		outcome->secret = 1;
	if (!completes) {
		engine_note(outcome, "%s", (pos->submitted >> seat) & 1u
			    ? "setup replaced, hidden until both setups are in"
			    : "setup accepted, hidden until both setups are in");
		pos->submitted |= 1u << seat;
		return 0;
	}
	pos->phase = PHASE_PLAY;
	pos->submitted = 0;
	pos->duel.to_move = roll <= 3 ? WHITE : BLACK;
	if (outcome)
		outcome->reveals = 1;
	engine_note(outcome, "setups revealed; d6: %d \xe2\x80\x94 %s moves first", roll,
		    seat_names[pos->duel.to_move]);
	end_if_stuck(pos, 1 - pos->duel.to_move, outcome);
	return 0;
}

static int cy_apply(rules_position *pos, const rules_move *move, const rules_dice *dice,
		    rules_outcome *outcome, rules_error *err)
{
	cy_move m;
	int seat = move->seat, rc;
	char victim;

	if (outcome) {
		outcome->note[0] = 0;
		outcome->secret = 0;
		outcome->reveals = 0;
	}
	if (move->partial)
		return rules_fail(err, RULES_E_INCOMPLETE, "a partial move cannot be applied");
	engine_unpack(move, &m, sizeof m);
	if (m.type == 'S') {
		if (seat != WHITE && seat != BLACK)
			return rules_fail(err, RULES_E_TURN, "Cyvasse has no seat %d", seat);
		return apply_setup(pos, &m, seat, dice, outcome, err);
	}
	/* The turn before the move's form, as in the other games. */
	if ((rc = check_turn(pos, seat, err)) || (rc = engine_recheck(&play_reader, pos, move, &m, err)))
		return rc;

	/* Valid: from here on nothing fails. */
	victim = m.type == 'X' ? pos->board[m.to] : 0;
	{
		char pc = pos->board[m.fr];
		pos->board[m.fr] = 0;
		pos->board[m.to] = 0;
		pos->board[m.end] = pc;
	}
	if (m.two)
		move_piece(pos, m.fr2, m.to2);
	pos->duel.to_move = 1 - seat;
	if (victim) {
		char colour = duel_owner(victim) == WHITE ? 'w' : 'b';
		if (duel_letter(victim) == 'K') {
			duel_finish(&pos->duel, seat, REASON_KING);
			engine_note(outcome, "captures %cK \xe2\x80\x94 %s wins", colour, seat_names[seat]);
			return 0;
		}
		engine_note(outcome, "captures %c%c", colour, duel_letter(victim));
	}
	end_if_stuck(pos, seat, outcome);
	return 0;
}

/* Both seats act during the setup phase. */
static unsigned cy_turn(const rules_position *pos)
{
	int winner, reason;

	if (pos->phase == PHASE_SETUP && !ended(pos, &winner, &reason))
		return 3u;
	return duel_turn(&two_seats, pos, &pos->duel);
}

static void cy_result(const rules_position *pos, rules_result *out)
{
	int winner, reason;

	if (pos->phase == PHASE_SETUP && !ended(pos, &winner, &reason)) {
		memset(out, 0, sizeof *out);
		snprintf(out->summary, sizeof out->summary, "Setup: waiting for %s",
			 pos->submitted == 0 ? "both setups" : pos->submitted & 1u
			 ? "Black's setup" : "White's setup");
		return;
	}
	duel_result(&two_seats, pos, &pos->duel, out);
}

/*
 * Serialized position, one line:
 *
 *   cy1:<terrain>:<pieces>:<phase>:<result>
 *
 * <terrain> and <pieces> are the nine rows, row 1 (White's back row, 8
 * squares) first, separated by '/', each row from letter a: in <terrain> '.'
 * open, 'X' mountain, '~' water; in <pieces> '.' empty or the piece letter
 * (R S L H E C T D W K; White upper case, Black lower case).
 * <phase> is the setup phase, "S" followed by whose setups are in ("--",
 * "W-", "-B"; a half whose setup is not in is open and empty), or in play the
 * seat to move, W or B (once the game is over, the loser).
 * <result> is '-' while the game goes on, else winner:reason with winner W
 * or B and reason "king" (King captured) or "nomove" (the loser had no
 * legal move). The start position is
 *   cy1:......../........./........../.........../............/.........../
 *   ........../........./........:......../........./........../.........../
 *   ............/.........../........../........./........:S--:-
 * (one line).
 */
static char *cy_serialize(const rules_position *pos)
{
	size_t cap = sizeof TAG + 2 * (NSQ + 9) + 32, len = 0;
	char *s = xmalloc(cap);

	len += (size_t)snprintf(s, cap, "%s", TAG);
	for (int layer = 0; layer < 2; layer++) {
		for (int n = 1; n <= 9; n++) {
			for (int i = 0; i < row_len[n]; i++) {
				int sq = row_start[n] + i;
				if (layer == 0)
					s[len++] = ".X~"[pos->terrain[sq]];
				else
					s[len++] = pos->board[sq] ? pos->board[sq] : '.';
			}
			s[len++] = n < 9 ? '/' : ':';
		}
	}
	if (pos->phase == PHASE_SETUP)
		len += (size_t)snprintf(s + len, cap - len, "S%c%c:", pos->submitted & 1u ? 'W' : '-',
					pos->submitted & 2u ? 'B' : '-');
	else
		len += (size_t)snprintf(s + len, cap - len, "%c:", two_seats.seat_letters[pos->duel.to_move]);
	duel_write_result(&two_seats, &pos->duel, s + len, cap - len);
	return s;
}

static int bad_data(rules_error *err, const char *what)
{
	return engine_corrupt(err, "Cyvasse", what);
}

/* Tries tiles for the used slots from index i on; see half_from_tiles. */
static int match_tiles(const rules_position *p, int seat, const int *slots, int i, unsigned tiles_used)
{
	if (i == 8)
		return 1;
	for (int t = 0; t < 8; t++) {
		const char *face = tile_faces[t][slots[i] >= 6];
		if (tiles_used & (1u << t))
			continue;
		for (int rot = 0; rot < 2; rot++) {
			int ok = 1;
			for (int k = 0; k < 4 && ok; k++)
				ok = p->terrain[slot_square(seat, slots[i], k)]
					== terrain_code(face[rot ? 3 - k : k]);
			if (ok && match_tiles(p, seat, slots, i + 1, tiles_used | 1u << t))
				return 1;
		}
	}
	return 0;
}

/* Whether seat's half holds a complete legal setup (docs/rules/cyvasse.md, The setup phase),
 * during the setup phase. */
static int half_is_setup(const rules_position *p, int seat)
{
	int count[NKINDS], kpos = -1, slots[8], n = 0;

	memset(count, 0, sizeof count);
	for (int s = 0; s < NSQ; s++) {
		if (half_of(s) != seat || !p->board[s])
			continue;
		count[kind_of(p->board[s])]++;
		if (duel_letter(p->board[s]) == 'K')
			for (int k = 0; k < 3; k++)
				if (s == circle_square(seat, k))
					kpos = k;
	}
	for (int k = 0; k < NKINDS; k++)
		if (count[k] != kinds[k].count)
			return 0;
	if (kpos < 0)
		return 0;
	for (int i = 0; i < 6; i++)
		if (p->terrain[as_seen(seat, name_sq(king_tiles[kpos][i]))] != OPEN)
			return 0;
	for (int slot = 0; slot < NSLOTS; slot++)
		if (kpos_slots[kpos] & (1u << slot))
			slots[n++] = slot;
	return match_tiles(p, seat, slots, 0, 0);
}

static int cy_deserialize(const char *text, rules_position **out, rules_error *err)
{
	rules_position pos;
	const char *p;
	int count[2][NKINDS], rc;

	*out = NULL;
	if (!(p = engine_position_body(text, TAG, "a Cyvasse", err)))
		return RULES_E_DATA;
	memset(&pos, 0, sizeof pos);
	memset(count, 0, sizeof count);
	for (int layer = 0; layer < 2; layer++) {
		for (int n = 1; n <= 9; n++) {
			for (int i = 0; i < row_len[n]; i++, p++) {
				int sq = row_start[n] + i;
				if (layer == 0) {
					const char *t = *p ? strchr(".X~", *p) : NULL;
					if (!t)
						return bad_data(err, "bad terrain");
					if (n == 5 && *p != '.')
						return bad_data(err, "terrain on the middle row");
					pos.terrain[sq] = (unsigned char)(t - ".X~");
				} else if (*p != '.') {
					int k = isalpha((unsigned char)*p) ? kind_of(*p) : -1;
					if (k < 0)
						return bad_data(err, "bad square");
					if (pos.terrain[sq] == MOUNTAIN)
						return bad_data(err, "a piece on a mountain");
					if (++count[duel_owner(*p)][k] > kinds[k].count)
						return bad_data(err, "too many pieces of a kind");
					pos.board[sq] = *p;
				}
			}
			if (*p++ != (n < 9 ? '/' : ':'))
				return bad_data(err, "bad row");
		}
	}
	if (p[0] == 'S' && (p[1] == 'W' || p[1] == '-') && (p[2] == 'B' || p[2] == '-') && p[3] == ':') {
		pos.phase = PHASE_SETUP;
		pos.submitted = (p[1] == 'W' ? 1u : 0u) | (p[2] == 'B' ? 2u : 0u);
		if (pos.submitted == 3u)
			return bad_data(err, "both setups in, but still in the setup phase");
		p += 4;
		if (strcmp(p, "-") != 0)
			return bad_data(err, "bad result");
		for (int s = 0; s < NSQ; s++) {
			int h = half_of(s);
			if (h < 0 ? pos.board[s] != 0
			    : !((pos.submitted >> h) & 1u) && (pos.board[s] || pos.terrain[s]))
				return bad_data(err, "pieces or terrain outside the setups that are in");
			if (pos.board[s] && duel_owner(pos.board[s]) != h)
				return bad_data(err, "a piece outside its own half during the setup");
		}
		for (int seat = 0; seat < 2; seat++)
			if (((pos.submitted >> seat) & 1u) && !half_is_setup(&pos, seat))
				return bad_data(err, "a setup that breaks the setup rules");
		*out = cy_clone(&pos);
		return 0;
	}
	pos.phase = PHASE_PLAY;
	if ((rc = duel_read(&two_seats, p, &pos.duel)))
		return bad_data(err, rc == DUEL_BAD_TO_MOVE ? "bad phase" : "bad result");
	for (int s = 0; s < 2; s++) {
		int want = pos.duel.over && pos.duel.reason == REASON_KING && s != pos.duel.winner ? 0 : 1;
		if (count[s][K_K] != want)
			return bad_data(err, "wrong number of Kings");
	}
	if (pos.duel.over && pos.duel.to_move == pos.duel.winner)
		return bad_data(err, "the finished game's side to move is not the loser");
	if (pos.duel.over && pos.duel.reason == REASON_NOMOVE && has_legal_move(&pos, pos.duel.to_move))
		return bad_data(err, "a game lost for want of a move, although the loser can move");
	*out = cy_clone(&pos);
	return 0;
}

/*
 * The board as drawn for White: row 9 at the top (grid row 0), row 1 at the
 * bottom (grid row 8); 12 columns. The rows are shifted half a square
 * against each other, which a grid cannot show: row n's letter i is drawn in
 * column i + offset(n), offset 0 for rows 4-6, 1 for rows 2, 3, 7 and 8, 2
 * for rows 1 and 9 (the 12-, 10- and 8-square rows are centred exactly; the
 * 11- and 9-square rows sit half a column to the left). Other cells are kind
 * "off". Columns have no labels: a column holds different letters in
 * different rows, and every cell carries its square's name. The view says
 * brick, so drawings centre each row and draw hexagons, which shows the
 * true layout.
 * show[s] says whether seat s's half (terrain and pieces) is drawn.
 */
static const int row_offset[10] = { 0, 2, 1, 1, 0, 0, 0, 1, 1, 2 };

static void fill_view(const rules_position *pos, const int show[2], rules_view *out)
{
	memset(out, 0, sizeof *out);
	out->rows = 9;
	out->cols = 12;
	out->brick = 1;
	for (int r = 0; r < 9; r++) {
		int n = 9 - r;
		snprintf(out->row_label[r], sizeof out->row_label[r], "%d", n);
		for (int c = 0; c < 12; c++) {
			out->cell[r][c].owner = -1;
			strcpy(out->cell[r][c].kind, "off");
		}
		for (int i = 0; i < row_len[n]; i++) {
			int sq = row_start[n] + i, h = half_of_row(n);
			rules_cell *cell = &out->cell[r][row_offset[n] + i];
			char A[4];
			snprintf(cell->name, sizeof cell->name, "%s", sqname(A, sq));
			cell->kind[0] = 0;
			if (h >= 0 && !show[h])
				continue;
			if (pos->terrain[sq] == MOUNTAIN)
				strcpy(cell->kind, "mountain");
			else if (pos->terrain[sq] == WATER)
				strcpy(cell->kind, "water");
			if (pos->board[sq]) {
				cell->piece[0] = pos->board[sq];
				cell->owner = (signed char)duel_owner(pos->board[sq]);
			}
		}
	}
}

static void cy_view(const rules_position *pos, rules_view *out)
{
	static const int all[2] = { 1, 1 };

	fill_view(pos, all, out);
}

/* During the setup phase a seat sees its own setup only, spectators none. */
static void cy_view_for(const rules_position *pos, int viewer, rules_view *out)
{
	int show[2] = { 1, 1 };

	if (pos->phase == PHASE_SETUP) {
		show[WHITE] = viewer == WHITE;
		show[BLACK] = viewer == BLACK;
	}
	fill_view(pos, show, out);
}

static int cy_has_secrets(const rules_position *pos)
{
	return pos->phase == PHASE_SETUP && pos->submitted != 0;
}

/*
 * How a move is pointed at on the board: the piece and where it goes, or
 * the piece it captures; a Horse that continues beyond its capture also
 * touches its end square (a Trebuchet's retreat square follows from the
 * capture, so it is not touched); the Rabble double move touches the four
 * squares of both moves. A setup touches nothing: "default setup", or
 * "setup" for any other.
 */
static void cy_gesture(const rules_position *pos, const rules_move *move, rules_gesture *out)
{
	cy_move m;
	scanned s;

	(void)pos;
	memset(out, 0, sizeof *out);
	engine_unpack(move, &m, sizeof m);
	if (m.type == 'S') {
		cy_move def;
		int is_default = 0;
		if (move->seat == WHITE || move->seat == BLACK) {
			default_setup(move->seat, &def);
			is_default = memcmp(&def, &m, sizeof m) == 0;
		}
		snprintf(out->choice, sizeof out->choice, "%s", is_default ? "default setup" : "setup");
		return;
	}
	if (unscan_move(&m, &s))
		return;
	sqname(out->at[out->n++], m.fr);
	sqname(out->at[out->n++], m.to);
	if (m.type == 'X' && m.end != m.to && (m.piece == 'L' || m.piece == 'H'))
		sqname(out->at[out->n++], m.end);
	if (m.two) {
		sqname(out->at[out->n++], m.fr2);
		sqname(out->at[out->n++], m.to2);
	}
}

static int cy_view_quarter_turns(int seat)
{
	return seat == BLACK ? 2 : 0;
}

const rules_game rules_cyvasse = {
	.id = "cyvasse",
	.title = "Nine-Tile Cyvasse",
	.summary = "Build your half of a hex-connected board from nine terrain tiles in a hidden setup, then "
		"capture the enemy King: pieces must be engaged before they can be taken.",
	.version = 1,
	.nseats = 2,
	.seat_names = seat_names,
	.legend = "R Rabble, S Spears, L Light Horse, H Heavy Horse, E Elephant, C Crossbows, T Trebuchet, D Dragon, W Tower, K King",
	.choice_help =
		"No move is ever partial. The game starts with a setup phase: each player sends one setup line, "
		"\"setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a3,j3,b4,c4,h4,k4 S=e4,f4,g4 "
		"L=g2,b3,i3 H=c3,h3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2\": the King's tile position (K0, K1 "
		"or K2), the tile in each of its eight slots (face A for L slots, B for R slots, r = rotated), "
		"then the squares of each kind of piece. \"setup default\" asks for the default setup. Setups are "
		"far too many to list, so during the setup phase the list of legal moves holds only the default "
		"setup. A setup stays hidden, and may be replaced, until the opponent's setup is in; then both "
		"are revealed and a die roll decides who moves first. In play the Rabble double move "
		"(\"Rc4-c5 / Rd4-d5\"), Horse continuations (\"Le3xf4-g5\") and Trebuchet retreats "
		"(\"Te2xe5-e1\") are listed as complete moves.",
	.start = cy_start,
	.free_position = engine_free_flat,
	.clone = cy_clone,
	.parse = cy_parse,
	.format = cy_format,
	.legal_moves = cy_legal_moves,
	.continuations = engine_no_continuations,
	.apply = cy_apply,
	.turn = cy_turn,
	.result = cy_result,
	.serialize = cy_serialize,
	.deserialize = cy_deserialize,
	.view = cy_view,
	.gesture = cy_gesture,
	.view_for = cy_view_for,
	.has_secrets = cy_has_secrets,
	.view_quarter_turns = cy_view_quarter_turns,
};
