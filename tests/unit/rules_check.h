/* rules_check.h - what the rules tests share: moves played and refused by their text, position
 * texts, the listed moves' round trips and gestures, scripted dice, and random games. */
#ifndef ROOKERY_RULES_CHECK_H
#define ROOKERY_RULES_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "rules.h"

/*
 * The game the helpers act on. Each test program sets it once (check_use) before its tests run;
 * a test over several games sets it before each.
 */
typedef struct rules_check {
	const rules_game *game;
	/* The seat that acts in pos, -1 when none (the game is over, or several seats may act).
	 * NULL: the one seat turn() names. */
	int (*actor)(const rules_position *pos);
	char sep;          /* what joins a gesture's places in expect_gesture(): ' ', or '|' */
	int partial;       /* the game lists partial moves; else every listed move must be complete */
} rules_check;

void check_use(const rules_check *check);

/*
 * cmocka fixtures for a test that starts from the game's start position: start_setup puts it
 * (start_pos) in *state, start_teardown frees it, whether the test passed or not. The test takes
 * it as `rules_position *pos = *state;`, may play on it, and never frees it. start_test(f)
 * registers f with both; it expands in a file that includes <cmocka.h>.
 */
int start_setup(void **state);
int start_teardown(void **state);
#define start_test(f) cmocka_unit_test_setup_teardown(f, start_setup, start_teardown)

/* ---- moves by their text; seat -1 is the seat to act (to_move) ---- */

/* The seat to act, as the rules_check says; -1 when no single seat acts. */
int to_move(const rules_position *pos);

/* The game's start position without options; fails the test if start() fails. */
rules_position *start_pos(void);

/* parse() of text for seat; returns its code. */
int try_parse(const rules_position *pos, int seat, const char *text, rules_move *move, rules_error *err);

/* text is a complete legal move of seat whose canonical text is canon. */
void expect_legal_by(const rules_position *pos, int seat, const char *text, const char *canon);
void expect_legal(const rules_position *pos, const char *text, const char *canon);

/* text, with spaces in front up to 2 * RULES_TEXT_MAX characters, is legal as canon; one
 * character more is too long to read. */
void expect_length_limit(const rules_position *pos, const char *text, const char *canon);

/* text is refused with code and a message containing msg. */
void expect_reject(const rules_position *pos, int seat, const char *text, int code, const char *msg);
void expect_illegal(const rules_position *pos, const char *text, const char *msg);
void expect_parse_error(const rules_position *pos, const char *text, const char *msg);

/*
 * Parses text as seat, checks its canonical text (unless canon is NULL), applies it with dice
 * (NULL: none may be asked for), checks the note (unless note is NULL); the outcome goes to
 * *outp when given. Fails the test at the first difference.
 */
void play_as(rules_position *pos, int seat, const char *text, const char *canon, const char *note,
	     const rules_dice *dice, rules_outcome *outp);
void play(rules_position *pos, const char *text, const char *canon, const char *note);

/* The position text reads back into; fails the test, showing why, if it does not. */
rules_position *position_of(const char *text);

/* The view's grid: its size and its first and last row and column labels. */
void expect_grid(const rules_view *v, int rows, int cols, const char *first_row, const char *last_row,
		 const char *first_col, const char *last_col);

/* pos serializes to text. */
void expect_position(const rules_position *pos, const char *text);

/* text reads back (deserialize) into a position that serializes to text again. */
void expect_text_round_trip(const char *text);

/* deserialize refuses text: RULES_E_DATA, the error filled in, no position. Returns the error's
 * message (until the next call). */
const char *expect_corrupt(const char *text);

/* Every proper prefix of text is refused, never read past; text itself reads back. */
void expect_prefixes_refused(const char *text);

/*
 * The game under test is registered as id and found by it (version 0) and by version, with
 * this title and version and the seats named in seats ("South North"), in turn order, each
 * found by its name in lower case.
 */
void expect_game(const char *id, const char *title, int version, const char *seats);

/* The number of seat's legal moves. */
size_t count_moves(const rules_position *pos, int seat);

/* After mover's ply in a game of two seats that take turns: once it is over the mover ranks
 * first and neither seat has a move; else the other seat alone acts, and has a legal move. */
void expect_turn_passed(const rules_position *pos, int mover);

/* strcmp for qsort over an array of strings. */
int cmp_str(const void *a, const void *b);

/* seat's legal moves' canonical texts, sorted, joined by sep; the caller frees it. */
char *listed_moves(const rules_position *pos, int seat, const char *sep);

/* text, parsed as seat in pos, with byte `byte` of its packed move set to value: apply refuses
 * it with code, and pos is unchanged. (test_rules.c changes every byte of legal moves of every
 * game; this names a change that means something in one game.) */
void expect_tampered(rules_position *pos, int seat, const char *text, size_t byte, int value, int code);

/* ---- dice ---- */

/* Dice that give the scripted values v[0..n-1] in turn and then fail; used counts the rolls
 * made, sides the last roll's die. With want_sides set, any other die fails the test. */
typedef struct script {
	int v[8];
	int n, used, sides, want_sides;
} script;

int script_roll(void *ctx, int sides, int *value);

/* ---- the listed moves ---- */

/* move formats to a text that parses back to it (a partial move as RULES_E_INCOMPLETE, with
 * continuations that do the same, where the game has partial moves); a complete move has no
 * continuations. */
void check_round_trip(const rules_position *pos, const rules_move *move);

/*
 * The legal moves of seat (-1: of every seat) round-trip through their text: each is seat's,
 * not an anytime move, formats to a text that parses back to the same move (partial ones as
 * RULES_E_INCOMPLETE, their continuations followed too), and no two are equal. A seat with
 * legal moves is one turn() names. Partial moves only where the rules_check allows them.
 */
void check_round_trips(const rules_position *pos, int seat);

/*
 * Checks seat's legal moves and anytime moves in pos (and, for partial moves, their
 * continuations, to the given depth): every move has a gesture; every place is the name of a
 * drawn cell of game->view(pos), or "@h:P" for a piece P in holding h; moves touching nothing
 * carry a choice; no two moves share places and choice; a continuation's gesture starts with
 * its partial move's places. Fails the cmocka test otherwise. Returns the number of moves
 * checked.
 */
size_t gesture_check(const rules_game *game, const rules_position *pos, int seat, int depth);

/* The gesture of text, parsed as seat, touches places (joined by the rules_check's sep) and
 * says choice. A partial move only in a game that has them. */
void expect_gesture_by(const rules_position *pos, int seat, const char *text, const char *places,
		       const char *choice);
void expect_gesture(const rules_position *pos, const char *text, const char *places, const char *choice);

/* What gestures_along() looked at: the positions, and the moves their checks counted. */
typedef struct gesture_tally {
	size_t positions, moves;
} gesture_tally;

/*
 * Plays pos on without dice for at most cap plies, or to its end. Before each ply, check looks
 * at the position and returns the moves it checked (NULL: gesture_check of the seat to act, to
 * depth 2); then the seat to act plays the move choose picks (NULL: random_move). Adds to tally.
 */
void gestures_along(rules_position *pos, int cap, size_t (*check)(const rules_position *pos),
		    void (*choose)(const rules_position *pos, rules_move *move, void *ctx), gesture_tally *tally);

/* ---- random games ---- */

/* The same pseudo-random numbers every run, from the seed last given (xorshift64*). */
void rng_seed(uint64_t seed);
uint64_t rng(void);

/* A random listed move of seat, its partial moves completed by random continuations. */
void random_move(const rules_position *pos, int seat, rules_move *out);

/* What a random game played: each ply's seat and text, and the rolls in order. */
#define RECORD_MAX 4000
typedef struct play_record {
	int n, nrolls;
	int seat[RECORD_MAX];
	char text[RECORD_MAX][RULES_TEXT_MAX];
	int rolls[RECORD_MAX];
} play_record;

/* Appends a ply played outside random_game to record (when not NULL): seat, its text, and the
 * nrolls rolls it drew. */
void record_ply(play_record *record, int seat, const char *text, const int *rolls, int nrolls);

/* How random_game plays and checks; fields left zero take the defaults. */
typedef struct random_play {
	/* The next move, its seat in move->seat. NULL: random_move for the seat to act, or for a
	 * random seat turn() names, now and then an anytime move of a random seat. */
	void (*choose)(const rules_position *pos, rules_move *move, void *ctx);
	/* Called after each ply with its seat, canonical text and outcome. */
	void (*check)(const rules_position *pos, int seat, const char *text, const rules_outcome *out, void *ctx);
	/* Every `every` plies (from ply 0), before the move: check_round_trips of every seat (0:
	 * never); and deep, when set, every deep_every plies (0: with the round trips). */
	int every;
	void (*deep)(const rules_position *pos);
	int deep_every;
	int sides;         /* the die every roll must be, when set */
	void *ctx;
} random_play;

/*
 * Plays pos on for at most cap plies or to the end of the game, choosing moves as how says and
 * rolling dice from rng(). Every move chosen round-trips through its text; after every ply the
 * position round-trips through its text, turn() and result() agree (nobody to act and no legal
 * moves once over; a seat turn() names with a legal or anytime move while running, no legal
 * move for the others), then how->check runs. record (may be NULL) gets what was played,
 * appended to what it holds. Returns the plies played.
 */
int random_game(rules_position *pos, int cap, const random_play *how, play_record *record);

/*
 * Replays record from a new start position (seat, text and rolls as recorded): the game ends in
 * a position that serializes to want, with every roll used. When it rolled, the replay with its
 * last roll missing stops at that roll with RULES_E_DICE and leaves that position unchanged.
 */
void check_replay(const play_record *record, const char *want);

#endif
