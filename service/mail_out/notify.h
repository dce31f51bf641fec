/* notify.h - which mails each change sends; queued in the outbox inside the change's transaction. */
#ifndef ROOKERY_NOTIFY_H
#define ROOKERY_NOTIFY_H

#include "db.h"
#include "game/game.h"

/*
 * Every mail below goes only where consent_gate lets it (consent.h): to a
 * seat's own registered address, once its owner has acted, within the day's
 * cap. Each mail to a seat carries the seat's live reply address.
 */

/*
 * A new game: an invitation (with a seat link of its own) to every seat that
 * has an email address. In an open game it says that the game starts once its
 * open seats are taken.
 */
int notify_created(app *a, const game_loaded *g, db_error *err);

/*
 * Seat was just taken by a player joining g (as it now is): its invitation;
 * and when that was the last open seat, the game has begun: your-move mails
 * to the other seats it waits for (the joiner's invitation says it moves first).
 */
int notify_joined(app *a, const game_loaded *g, int seat, db_error *err);

/*
 * After the move done (g as it left it): your-turn mails to the seats now to move, or game-over
 * mails to all; and when the move came by mail, a confirmation to the mover.
 */
int notify_moved(app *a, const game_loaded *g, const game_move_done *done, const char *channel, db_error *err);

/*
 * After a side action ("resign", "offer", "accept", "decline", "withdraw") by
 * seat: the others are told; when it came by mail, the seat gets a confirmation.
 */
int notify_action(app *a, const game_loaded *g, int seat, const char *action, const char *channel,
		  db_error *err);

/*
 * After a seat's owner chose by mail how much mail its address gets: a
 * confirmation to that address saying what it gets now (choice, the end of a
 * sentence: mail_prefs_describe), with the seat's next live reply address.
 */
int notify_mail_mode(app *a, const game_loaded *g, int seat, const char *choice, db_error *err);

/*
 * About seat's own conditional moves, said being the sentence that tells what
 * happened (its answer played, its tree cleared and why): to that seat only,
 * with the game as it stands. The other seats are never told of a tree.
 */
int notify_conditional(app *a, const game_loaded *g, int seat, const char *said, db_error *err);

/* A sign-in link for "my games", to address. */
int notify_signin(app *a, const char *address, const char *link, db_error *err);

/*
 * What a mail to a seat's reply address is answered with when it cannot act.
 * The answer goes to the seat's registered address, never to the mail's
 * sender (who may be anyone): it shows the game as it stands, with the seat's
 * live reply address.
 */
typedef struct notify_refusal {
	const char *game_id;
	int seat;
	const char *subject;            /* of the refused mail, may be NULL */
	const char *message_id;         /* of the refused mail, may be NULL */
	const char *why;                /* one sentence */
	const char *original;           /* the refused mail's text, quoted back */
} notify_refusal;

int notify_refused(app *a, const notify_refusal *r, db_error *err);

/*
 * The daily summaries: to each address with mails held back by the daily cap
 * before today, one mail naming their games. Own transactions; *sent counts
 * the addresses done.
 */
int notify_summaries(app *a, long long now, int *sent, db_error *err);

/*
 * The daily digests due at now: to each address that chose one for this UTC
 * hour and had none today, one mail listing its running games that wait for
 * it (its move, or a draw offer it has not answered), each with a fresh seat
 * link; none when nothing waits, and the day counts as done either way. Own
 * transactions; *sent counts the addresses done.
 */
int notify_digests(app *a, long long now, int *sent, db_error *err);

/*
 * Seat was given seconds more time by giver: it is told, with its new
 * deadline when it is to move; a giver who gave by mail gets a confirmation.
 */
int notify_time_given(app *a, const game_loaded *g, int giver, int seat, long long seconds, const char *channel,
		      db_error *err);

/* Seat's time is running out (a day, or its last tenth, is left): a reminder with its deadline. */
int notify_reminder(app *a, const game_loaded *g, int seat, db_error *err);

#endif
