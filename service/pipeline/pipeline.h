/* pipeline.h - every change to a game, from any channel, in one transaction with its mails. */
#ifndef ROOKERY_PIPELINE_H
#define ROOKERY_PIPELINE_H

/*
 * The web pages, the API, mail replies and the sweeper change games only
 * through these functions. Each is one transaction, begun and committed
 * here: it checks the change, stores it, and queues the mails it causes,
 * so that a change and its mails are kept or lost together.
 */

#include "core/app.h"
#include "core/errors.h"
#include "core/token.h"
#include "game/game.h"

#include <jansson.h>

typedef struct game_seat_in {
	const char *name;
	const char *email;   /* may be NULL */
	int open;            /* left for anyone to take (POST /api/games/{id}/join): no name, no email */
} game_seat_in;

typedef struct game_created {
	char id[GAME_ID_TEXT];
	int nseats;
	char tokens[RULES_MAX_SEATS][TOKEN_TEXT];   /* "" for an open seat */
} game_created;

/*
 * Create a game of variant with one entry per seat (exactly the variant's
 * seat count), commit to a fresh dice seed and issue one token per seat.
 * The tokens exist only in *out. client is the creator's address, whose
 * games with invitations by mail are limited (E_RATE_LIMITED, nothing
 * created), or NULL for the server's own games (the demo).
 *
 * Seats may be open (any number, all of them too: a game set up for
 * others): such a seat's row has the seat's name and a token nobody holds,
 * and the game is open until LIMIT_OPEN_GAME_DAYS from now. An open game
 * has not started: its clocks stand and its filled seats get only their
 * invitations, until game_join fills the last seat.
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

/* A seat taken by game_join. */
typedef struct game_joined {
	int seat;
	const char *seat_name;       /* its name, as /api/variants gives it */
	int started;                 /* it was the last open seat: the game has begun */
	char token[TOKEN_TEXT];      /* the seat's new token, which exists only here */
} game_joined;

/*
 * A player (who: name and email, checked as create checks them) takes the
 * open seat named seat_name (case-insensitive; NULL: the first open seat) of
 * game id, first come first served, in one transaction: the seat gets a new
 * token, the game one open seat fewer, and the player its invitation by
 * mail. Taking the last one starts the game: the clocks of the seats to move
 * run and they get the first your-move mails. client counts against
 * create's per-address limits (E_RATE_LIMITED). E_SEAT_TAKEN when the seat
 * (or every seat) is taken, E_GAME_OVER for a game over or lapsed,
 * E_BAD_REQUEST for no such seat.
 */
int game_join(app *a, const char *client, const char *id, const char *seat_name, const game_seat_in *who,
	      game_joined *out, app_error *err);

/*
 * Open games whose open_until passed by now end unplayed (result "expired",
 * no ranks, no mail), at most LIMIT_CLOCK_SWEEP_BATCH at a time in one
 * transaction; *count how many.
 */
int game_expire_open(app *a, long long now, int *count, app_error *err);

/*
 * Submit a move line for seat at the expected ply. One transaction, begun
 * and committed here: check, apply, store, queue its mails. Re-sending the
 * exact move already made at ply answers as before with duplicate set. On
 * success, when after is not NULL, *after is the game as the move left it
 * (caller frees with game_loaded_free).
 */
int game_submit_move(app *a, const char *id, int seat, int ply, const char *text,
		     const char *channel, game_move_done *out, game_loaded *after, app_error *err);

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

/* A message between seats (message.c): from a seat to another, or to every seat (to -1). */
typedef struct game_message {
	long long seq;          /* its number in the game, from 1 */
	int from, to;
	char *text;             /* as kept: line ends made "\n", blank space around it dropped */
	char channel[8];
	char at[32];
	const rules_game *rules; /* the game's rules (their seat names), which never change */
} game_message;

/*
 * Seat sends text to the seat named to (case-insensitive; NULL: every seat)
 * in its own transaction; the game is not changed, only its version moves.
 * E_BAD_MESSAGE for an empty text, a control character other than a line
 * end, no such seat or the sender's own; E_TOO_LARGE over LIMIT_MESSAGE_BYTES
 * or LIMIT_MESSAGE_CHARS; E_RATE_LIMITED over LIMIT_MESSAGES_PER_SEAT_HOUR.
 * *out is the stored message (free with game_message_clear).
 */
int game_send_message(app *a, const char *id, int seat, const char *text, const char *to, const char *channel,
		      game_message *out, app_error *err);
void game_message_clear(game_message *m);

/*
 * game_submit_move with a message (may be NULL) from the mover to the seat
 * named to (NULL: every seat), checked like game_send_message and stored in
 * the move's transaction: a refused message refuses the move, and the other
 * way round. *said is the stored message (seq 0 when none); free it with
 * game_message_clear.
 */
int game_submit_move_said(app *a, const char *id, int seat, int ply, const char *text, const char *message,
			  const char *to, const char *channel, game_move_done *out, game_message *said,
			  game_loaded *after, app_error *err);

/*
 * Store tree (conditional.h) as seat's conditional moves, replacing any,
 * once every move of it is checked where it would be played: 0 with *canon
 * the stored tree in canonical text (an empty one stores nothing and clears),
 * or the error of conditional_check and nothing stored. The game's version
 * does not change: nobody else can tell. By channel "mail", the seat's own
 * address gets a confirmation listing what is stored. add: tree's entries
 * join those stored instead, level by level (an entry expecting the same
 * moves with another answer replaces the stored one).
 */
int game_conditional_put(app *a, const char *id, int seat, const json_t *tree, int add, const char *channel,
			 json_t **canon, app_error *err);

/* Seat's conditional moves as stored ({"if": []} when none), or NULL with err. Reads only. */
json_t *game_conditional_get(app *a, const char *id, int seat, app_error *err);

/* Clear seat's conditional moves (none is no error; E_NOT_STARTED before the game starts). */
int game_conditional_clear(app *a, const char *id, int seat, app_error *err);

#endif
