/* rules.h - the common interface every game implements; pure logic, no I/O. */
#ifndef ROOKERY_RULES_H
#define ROOKERY_RULES_H

#include <stddef.h>

#define RULES_MAX_SEATS 4
#define RULES_MAX_ROWS 16
#define RULES_MAX_COLS 16
#define RULES_MAX_HOLDINGS 8
#define RULES_MOVE_BYTES 192
#define RULES_TEXT_MAX 320      /* longest canonical move text, with NUL (34 placements fit) */
#define RULES_NOTE_MAX 256      /* longest result note, with NUL */
#define RULES_MESSAGE_MAX 256

/* Error codes returned (negated) by the rules functions. */
enum rules_status {
	RULES_OK = 0,
	RULES_E_PARSE = -1,      /* the text is not a move of this game */
	RULES_E_ILLEGAL = -2,    /* well formed, but the rules forbid it */
	RULES_E_INCOMPLETE = -3, /* a legal start that still lacks a choice */
	RULES_E_TURN = -4,       /* this seat may not act now */
	RULES_E_OVER = -5,       /* the game has ended */
	RULES_E_DATA = -6,       /* a stored position or option text is corrupt */
	RULES_E_DICE = -7,       /* the dice callback failed */
};

/* A message for users explaining why an operation failed. */
typedef struct rules_error {
	int code;                         /* one of enum rules_status */
	char message[RULES_MESSAGE_MAX];  /* one sentence, no trailing newline */
} rules_error;

/* Set err (which may be NULL) and return code. printf-style message. */
int rules_fail(rules_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Where dice come from. roll() stores a value in 1..sides in *value and
 * returns 0, or returns a negative value when no roll can be made (for
 * example a replay that ran out of recorded rolls). Games never draw
 * randomness of their own.
 */
typedef struct rules_dice {
	int (*roll)(void *ctx, int sides, int *value);
	void *ctx;
} rules_dice;

/*
 * One move in a game's own encoding. Games cast raw to their own struct,
 * and always zero the whole move before filling it so that two equal moves
 * compare equal with memcmp. partial is set when the move is a legal start
 * that still needs a free choice (see rules_game.continuations).
 */
typedef struct rules_move {
	_Alignas(8) unsigned char raw[RULES_MOVE_BYTES];
	int seat;
	int partial;
	int anytime;     /* may be made outside the seat's turn (an alliance declaration, say) */
} rules_move;

/* A growable list of moves; the caller frees it with rules_move_list_free. */
typedef struct rules_move_list {
	rules_move *v;
	size_t n, cap;
} rules_move_list;

void rules_move_list_push(rules_move_list *list, const rules_move *move);
void rules_move_list_clear(rules_move_list *list);
void rules_move_list_free(rules_move_list *list);

/* What a move did, in words: "captures n; promotes to O". Empty when nothing. */
typedef struct rules_outcome {
	char note[RULES_NOTE_MAX];
	int secret;    /* the move's text is shown to no other seat until a later move reveals it */
	int reveals;   /* every secret move made so far may now be shown */
} rules_outcome;

/* How a game stands. rank[s] is 1 for the winner(s); equal ranks share. */
typedef struct rules_result {
	int over;
	int rank[RULES_MAX_SEATS];
	char summary[128];       /* "South wins: General captured" */
} rules_result;

/* The drawable state: a grid of cells and named off-board holdings. */
typedef struct rules_cell {
	char piece[4];   /* "" when empty; else the piece as written, e.g. "C", "c" */
	signed char owner;   /* seat owning the piece, -1 when empty (or shared: see controllers) */
	unsigned char controllers;  /* bit mask of the seats that may move a shared piece; 0 otherwise */
	char kind[12];   /* "" ordinary, or a class such as "river", "prison", "off" */
	char name[8];    /* the square as the notation writes it ("5 3", "e1"); "" = "<row> <col>" labels */
	unsigned char walls;  /* sides of the cell with a wall, as drawn: RULES_WALL_* bits */
	signed char facing;   /* where the piece's front points, as drawn: RULES_FACING_*, or -1 (0 if unused) */
	unsigned char neutral;  /* a piece of a neutral army, which belongs to no seat (owner -1) */
} rules_cell;

#define RULES_WALL_TOP 1
#define RULES_WALL_RIGHT 2
#define RULES_WALL_BOTTOM 4
#define RULES_WALL_LEFT 8

/* Facings are quarter turns clockwise from "up the page"; 0 also means "no facing" for games without. */
#define RULES_FACING_NONE (-1)
#define RULES_FACING_UP 0
#define RULES_FACING_RIGHT 1
#define RULES_FACING_DOWN 2
#define RULES_FACING_LEFT 3

typedef struct rules_holding {
	char name[48];       /* "South's prison 4" */
	int row, col;        /* anchor cell, or -1 when none */
	int owner;           /* seat whose pieces are held there */
	int npieces;
	char pieces[32][4];  /* oldest first */
} rules_holding;

typedef struct rules_view {
	int rows, cols;
	rules_cell cell[RULES_MAX_ROWS][RULES_MAX_COLS];  /* [row][col], 0-based, as drawn for the first seat */
	char row_label[RULES_MAX_ROWS][4];
	char col_label[RULES_MAX_COLS][4];
	int nholdings;
	rules_holding holding[RULES_MAX_HOLDINGS];
	int has_facing;          /* cells carry facings */
	int brick;               /* rows are laid like bricks (hexagonal cells): each row's cells are centred */
	int nnotes;              /* public state in words: alliances, who controls which army... */
	char notes[8][160];
} rules_view;

/*
 * How a move is entered by pointing at the drawn board: the places touched in
 * order (usually the piece, then where it goes) and, in words, whatever else
 * tells it apart from other moves touching the same places. A place is a
 * square's name as the notation writes it ("7 1", "e4"), or "@h:P" for a
 * piece P taken from holding h of the view (a drop from hand). Moves that
 * touch nothing (an alliance, the default setup) have n == 0 and a choice.
 */
#define RULES_TOUCH_MAX 8
typedef struct rules_gesture {
	int n;
	char at[RULES_TOUCH_MAX][8];
	char choice[64];   /* "to prison 4", "promote to Q", "by displacement, G to hand"; "" when nothing */
} rules_gesture;

typedef struct rules_position rules_position;  /* opaque, one per game */

/*
 * A game: a table of functions. Every function is pure: no I/O, no globals,
 * no clock, no randomness except through the dice callback.
 */
typedef struct rules_game {
	const char *id;                 /* "nchess": stable, used in URLs and the database */
	const char *title;              /* "Nchess" */
	const char *summary;            /* one line for lists */
	int version;                    /* rules version; a game keeps the version it started with */
	int nseats;
	const char *const *seat_names;  /* nseats names, in turn order of the first round */
	const char *choice_help;        /* how a partial move is completed, for documentation */
	const char *legend;             /* the piece letters in words, for the board's legend */
	int draw_rank;                  /* the rank all seats share in a draw by agreement (0: first) */

	/* Start position. options may be NULL or "". Caller frees with free_position. */
	int (*start)(const char *options, rules_position **out, rules_error *err);
	void (*free_position)(rules_position *pos);
	rules_position *(*clone)(const rules_position *pos);

	/* Parse text as a move by seat. Fills *move; returns 0, or RULES_E_PARSE,
	 * RULES_E_ILLEGAL, RULES_E_INCOMPLETE (move filled, marked partial),
	 * RULES_E_TURN or RULES_E_OVER, with a message naming the problem. */
	int (*parse)(const rules_position *pos, int seat, const char *text,
		     rules_move *move, rules_error *err);

	/* Canonical text of a move (complete or partial) without notes. Returns
	 * the length written; buf is always NUL-terminated. */
	size_t (*format)(const rules_position *pos, const rules_move *move,
			 char *buf, size_t size);

	/* Append seat's legal moves to out. Moves needing a free choice with
	 * many combinations are listed once, partial. Returns the count added. */
	size_t (*legal_moves)(const rules_position *pos, int seat, rules_move_list *out);

	/*
	 * Append the moves seat may make whoever is to move (Civil War's
	 * alliance declarations), which legal_moves leaves out because they
	 * answer no position. NULL: there are none. Returns the count added.
	 */
	size_t (*anytime_moves)(const rules_position *pos, int seat, rules_move_list *out);

	/* Append every way to extend a partial move by one more choice. */
	size_t (*continuations)(const rules_position *pos, const rules_move *partial,
				rules_move_list *out);

	/* Apply a complete legal move (as returned by parse; moves with anytime set
	 * may come from a seat that is not to move). Draws any dice
	 * through dice. On error pos is unchanged. */
	int (*apply)(rules_position *pos, const rules_move *move, const rules_dice *dice,
		     rules_outcome *outcome, rules_error *err);

	/* Bit mask of seats that may act now; 0 once the game is over. */
	unsigned (*turn)(const rules_position *pos);
	void (*result)(const rules_position *pos, rules_result *out);

	/* A position as one line of printable ASCII, and back. serialize returns
	 * a malloc'd string. */
	char *(*serialize)(const rules_position *pos);
	int (*deserialize)(const char *text, rules_position **out, rules_error *err);

	/*
	 * The result when seat resigns in pos. NULL: the game's seats other
	 * than seat share rank 1 and seat ranks last (right for two seats).
	 */
	void (*resign_result)(const rules_position *pos, int seat, rules_result *out);

	/*
	 * Resignation in games that go on without the resigner: change pos
	 * (the game may or may not end) and say what happened in outcome.
	 * NULL: a resignation ends the game, with resign_result.
	 */
	int (*resign)(rules_position *pos, int seat, rules_outcome *outcome, rules_error *err);

	/*
	 * Seats still in the game (bit mask), whose agreement a draw needs; the
	 * others lose when it is drawn. NULL: every seat, always.
	 */
	unsigned (*in_play)(const rules_position *pos);

	void (*view)(const rules_position *pos, rules_view *out);

	/*
	 * The gesture of a legal move (complete or partial) of pos. For a
	 * continuation, the gesture of the whole move so far: its first places
	 * are the partial move's. Two legal moves of one seat never have the
	 * same places and choice.
	 */
	void (*gesture)(const rules_position *pos, const rules_move *move, rules_gesture *out);

	/*
	 * Hidden information; both NULL for games where everything is public.
	 * view_for: what viewer (a seat, or -1 for spectators) may see.
	 * has_secrets: true while pos holds something some seat may not see;
	 * the serialized position is then never shown to anyone.
	 */
	void (*view_for)(const rules_position *pos, int viewer, rules_view *out);
	int (*has_secrets)(const rules_position *pos);

	/* Quarter turns (clockwise) to rotate the view so seat sits at the bottom. */
	int (*view_quarter_turns)(int seat);
} rules_game;

/* All games of this binary, NULL-terminated, in the order they are listed. */
extern const rules_game *const rules_games[];

/* The game with this id and version (version 0 = the newest), or NULL. */
const rules_game *rules_find(const char *id, int version);

/* Seat index of a seat name (case-insensitive), or -1. */
int rules_seat_index(const rules_game *game, const char *name);

/* One ply of a game's record: who played it, its text and the rolls it made, in order. */
typedef struct rules_ply {
	int seat;
	const char *move;       /* canonical; "resign" for a resignation in a game that goes on */
	int nrolls;
	const int *sides;       /* the die of each roll */
	const int *values;      /* what each roll gave */
} rules_ply;

/*
 * Play a recorded ply again on pos (replay.c): its text must parse as the seat's complete move
 * and be canonical already (formatted back to the same text); "resign" in a game that goes on
 * without its resigner is the seat's resignation; every roll the rules ask for must be the next
 * recorded one, of the same die, and every recorded roll must be used. 0, or the error with a
 * message that says why (pos may then hold part of the ply).
 */
int rules_replay_ply(const rules_game *game, rules_position *pos, const rules_ply *ply, rules_error *err);

#endif
