/* change.h - the steps the pipeline's changes share (private to pipeline/). */
#ifndef ROOKERY_CHANGE_H
#define ROOKERY_CHANGE_H

#include "game/game.h"
#include "pipeline/pipeline.h"

/*
 * Begin a change of game id: open the transaction and load the game, which
 * must be running. On failure nothing is open and g holds nothing.
 */
int change_begin(app *a, const char *id, game_loaded *g, app_error *err);

/* change_begin for an action of seat: it also ends its player's vacation under way. */
int change_begin_seat(app *a, const char *id, int seat, game_loaded *g, app_error *err);

/*
 * Finish seat's side action (resign, offer, accept, decline, withdraw) on g,
 * whose record the caller changed: store the action and the game's state,
 * run the clocks, queue the mails, commit, log. Rolls back on failure.
 */
int change_finish_action(app *a, game_loaded *g, int seat, const char *action,
			 const char *channel, app_error *err);

/*
 * Store what just changed g->pos in the open transaction: the move row
 * (out->move by out->seat, with its note, dice and secrecy), the game's new
 * state in g->rec and in the database, and its mails. anytime: a move made
 * out of turn (an alliance), which leaves the seat's clock running. The
 * caller commits with change_commit_move.
 */
int change_store_move(app *a, game_loaded *g, game_move_done *out, const rules_outcome *oc,
		      const char *channel, int anytime, app_error *err);

/*
 * Play mv (read by the rules for seat in g->pos) in the open transaction:
 * its canonical text, its dice rolled from the game's seed, the rules'
 * outcome, then change_store_move. The caller commits.
 */
int change_play_move(app *a, game_loaded *g, int seat, const rules_move *mv, const char *channel, int anytime,
		     game_move_done *out, app_error *err);

/* The log line of a committed move (a secret move's text is not written). */
void change_log_move(const game_loaded *g, const game_move_done *done, const char *channel);

/* The conditional answers one move set off, for the log once committed. */
typedef struct conditional_followed {
	int n;
	game_move_done done[LIMIT_CONDITIONAL_CHAIN];
} conditional_followed;

/*
 * After a move stored in the open transaction on g: every seat's tree of
 * conditional moves (conditional.h) is matched against the moves made since
 * it was stored; a met expectation's answer is played at once (channel
 * "conditional"), which may meet another seat's (at most
 * LIMIT_CONDITIONAL_CHAIN answers); a tree the play left behind is cleared.
 * Each owner is told by mail. g is left as the last answer left it.
 */
int conditional_follow(app *a, game_loaded *g, conditional_followed *followed, app_error *err);

/*
 * Commit the move done on g, after conditional_follow played the conditional
 * answers it sets off (g is left as they left it), and log them all: 0, or
 * the error, and the caller rolls back.
 */
int change_commit_move(app *a, game_loaded *g, const game_move_done *done, const char *channel,
		       app_error *err);

/* The result of seat resigning g: the rules' own ranking, else the resigner last and "X wins: Y resigned". */
void change_resign_result(const game_loaded *g, int seat, rules_result *res);

/* Record the end of a game in rec from the rules' result. */
void change_record_result(db_game *rec, const rules_result *res, int nseats);

/* A draw for the seats of mask all: they share the game's draw rank, the others come after them. */
void change_draw_result(const game_loaded *g, unsigned all, const char *summary, rules_result *res);

/*
 * After a change to g (its record already updated): the clocks of the seats
 * it now waits for run, the others stand; movers just moved. Stored in the
 * change's transaction, before its mails, which state the deadlines.
 */
int change_save_clock(app *a, game_loaded *g, unsigned movers, db_error *de);

/*
 * A player's name and email address as a seat takes them (create.c), who
 * naming the seat in the error: 0, or E_BAD_REQUEST / E_TOO_LARGE.
 */
int create_seat_check(const game_seat_in *s, const char *who, app_error *err);

/*
 * Count a new seat-taking from client (a game created, or an open seat
 * joined) against the per-address limits of games and invitations by mail,
 * in a transaction of its own: 0, or E_RATE_LIMITED. client NULL: no limit.
 */
int create_rate_limit(app *a, const char *client, const game_seat_in *seats, int nseats, app_error *err);

/* Check seat's message text to the seat named to (NULL: all) for g into *out (message.c). */
int message_check(const game_loaded *g, int seat, const char *text, const char *to, game_message *out,
		  app_error *err);
/* Store the checked message *m in the open transaction (its rate limit first); fills seq, at, channel. */
int message_store(app *a, const game_loaded *g, game_message *m, const char *channel, app_error *err);

#endif
