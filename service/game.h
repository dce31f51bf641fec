/* game.h - game actions: the one path every channel (web, API, mail) goes through. */
#ifndef ROOKERY_GAME_H
#define ROOKERY_GAME_H

#include "app.h"
#include "clock.h"
#include "errors.h"
#include "limits.h"
#include "rules.h"
#include "token.h"

#include <jansson.h>

#define GAME_ID_TEXT 13   /* 12 characters and a NUL */

typedef struct game_seat_in {
	const char *name;
	const char *email;   /* may be NULL */
} game_seat_in;

typedef struct game_created {
	char id[GAME_ID_TEXT];
	int nseats;
	char tokens[RULES_MAX_SEATS][TOKEN_TEXT];
} game_created;

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
	char move[RULES_TEXT_MAX];      /* canonical */
	char note[RULES_NOTE_MAX];
	int nrolls;
	int rolls[LIMIT_ROLLS_PER_MOVE];
	int sides[LIMIT_ROLLS_PER_MOVE];                 /* the die each roll was made with */
	rules_gesture gesture;          /* the places the move touched (n = 0 for resignations) */
} game_move_done;

/*
 * Create a game of variant with one entry per seat (exactly the variant's
 * seat count), commit to a fresh dice seed and issue one token per seat.
 * The tokens exist only in *out. client is the creator's address, whose
 * games with invitations by mail are limited (E_RATE_LIMITED, nothing
 * created), or NULL for the server's own games (the demo).
 */
int game_create(app *a, const char *client, const char *variant, const game_seat_in *seats, int nseats,
		game_created *out, app_error *err);

/* A time control asked for at creation (clock.h): type DB_CLOCK_NONE for none. */
typedef struct game_clock_in {
	int type;
	long long base_s, increment_s, max_s;
} game_clock_in;

/*
 * Read a time control from JSON ({"type": "per_move", "days": 3} or {"type":
 * "bank", "days": 30, "increment_days": 1, "max_days": 45}; NULL or JSON null
 * for none) into *out: 0, or E_BAD_CLOCK with the reason.
 */
int game_clock_parse(const json_t *j, game_clock_in *out, app_error *err);

/* game_create with a time control (NULL or type DB_CLOCK_NONE: none). */
int game_create_timed(app *a, const char *client, const char *variant, const game_seat_in *seats, int nseats,
		      const game_clock_in *clock, game_created *out, app_error *err);

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
 * Submit a move line for seat at the expected ply. One transaction: check,
 * apply, store. Re-sending the exact move already made at ply answers as
 * before with duplicate set.
 */
int game_submit_move(app *a, const char *id, int seat, int ply, const char *text,
		     const char *channel, game_move_done *out, app_error *err);

/* Resign: the seat loses at once. */
int game_resign(app *a, const char *id, int seat, const char *channel, app_error *err);

/* Draw by agreement: action is "offer", "accept", "decline" or "withdraw". */
int game_draw(app *a, const char *id, int seat, const char *action, const char *channel,
	      app_error *err);

/*
 * Set or replace seat's client seed for the dice (1 to LIMIT_CLIENT_SEED
 * printable ASCII characters): only while the game runs and has rolled no
 * die (E_SEEDS_FIXED after, and for games whose dice take no client seeds).
 */
int game_set_client_seed(app *a, const char *id, int seat, const char *client_seed,
			 const char *channel, app_error *err);

/*
 * The ply at which a game of these rules ends in a draw if nothing ended it
 * before: LIMIT_PLIES for two seats, and the same number of turns for each
 * seat in games of more seats (a ply is one seat's turn).
 */
int game_ply_limit(const rules_game *rules);

/*
 * Seat ran out of time at now (the sweeper's check): in one transaction, if
 * its deadline has indeed passed, a two-seat game is lost on time by it, and
 * in a game that goes on without a resigner the seat leaves as if it had
 * resigned, with the note "ran out of time". 0 also when nothing was due.
 */
int game_timeout(app *a, const char *id, int seat, long long now, app_error *err);

/*
 * The reminder seat is owed at now (clock_reminder_due), if any, in one
 * transaction: marked sent for this deadline and mailed (consent rules
 * apply); *sent is 1 when one was due.
 */
int game_remind(app *a, const char *id, int seat, long long now, int *sent, app_error *err);

/*
 * Seat gives seconds more time to the seat named to (a seat
 * name such as "North", case-insensitive): only while the game runs, has a
 * clock, and to another seat still in the game. The receiver is told by mail.
 */
int game_give_time(app *a, const char *id, int seat, const char *to, long long seconds,
		   const char *channel, app_error *err);

/* Seat names that may act now in a loaded game (bit mask of seats). */
unsigned game_turn_mask(const game_loaded *g);

#endif
