/* game.h - a stored game read back: the record and its position, whose turn it is, a move read in it. */
#ifndef ROOKERY_GAME_H
#define ROOKERY_GAME_H

#include "core/app.h"
#include "core/errors.h"
#include "core/limits.h"
#include "game/clock.h"
#include "rules.h"


#define GAME_ID_TEXT 13   /* 12 characters and a NUL */

/* A game loaded for reading: the stored record and its rebuilt position. */
typedef struct game_loaded {
	db_game *rec;
	const rules_game *rules;
	rules_position *pos;
	db_clock *clock;   /* the game's clocks, NULL when it has no time control */
} game_loaded;

typedef struct game_move_done {
	int ply;                        /* the ply the move made */
	int seat;
	int duplicate;                  /* the same move had already been stored */
	int secret;                     /* shown to nobody but its author until revealed (a hidden setup) */
	char move[RULES_TEXT_MAX];      /* canonical */
	char note[RULES_NOTE_MAX];
	int nrolls;
	int rolls[LIMIT_ROLLS_PER_MOVE];
	int sides[LIMIT_ROLLS_PER_MOVE];   /* the die each roll was made with */
	rules_gesture gesture;          /* the places the move touched (n = 0 for resignations) */
} game_move_done;

/*
 * Read text as seat's move in g's current position without playing it: 0
 * with *mv filled (mv->partial set when it still needs continuations), or
 * the error a submission would get (too long, unreadable, illegal, not the
 * seat's turn, game over).
 */
int game_read_move(const game_loaded *g, int seat, const char *text, rules_move *mv, app_error *err);

/* Which game and seat a seat token opens. *game_id is malloc'd. */
int game_authenticate(app *a, const char *token, char **game_id, int *seat, app_error *err);

/*
 * Which email address a player's API token (given on the signed-in "My
 * games" page) speaks for. *email is malloc'd.
 */
int game_authenticate_player(app *a, const char *token, char **email, app_error *err);

/* Load a game for reading. Caller frees with game_loaded_free. */
int game_load(app *a, const char *id, game_loaded *out, app_error *err);
void game_loaded_free(game_loaded *g);

/*
 * The ply at which a game of these rules ends in a draw if nothing ended it
 * before: LIMIT_PLIES for two seats, and the same number of turns for each
 * seat in games of more seats (a ply is one seat's turn).
 */
int game_ply_limit(const rules_game *rules);

/*
 * Whether g is open: running with seats that wait for players (migration
 * 0015). An open game has not started: it waits for nobody's move, its
 * clocks stand, and nothing may change it but a player taking a seat.
 */
int game_open(const game_loaded *g);

/* Seat names that may act now in a loaded game (bit mask of seats; none while it is open). */
unsigned game_turn_mask(const game_loaded *g);

/* Seats still in the game (bit mask): a draw is theirs, and the others lose. */
unsigned game_seats_in_play(const game_loaded *g);

/* E_GAME_OVER with the result when g is over, E_NOT_STARTED while it is open; 0 while it runs. */
int game_check_running(const game_loaded *g, app_error *err);

/* A rules error (a move refused) as the service's error code and message. */
int game_rules_fail(const rules_error *re, app_error *err);

#endif
