/* notify.h - which mails each change sends; queued in the outbox inside the change's transaction. */
#ifndef ROOKERY_NOTIFY_H
#define ROOKERY_NOTIFY_H

#include "db.h"
#include "game.h"

/* A new game: an invitation (with the seat link) to every seat that has an email address. */
int notify_created(app *a, const game_loaded *g, char tokens[][TOKEN_TEXT], db_error *err);

/*
 * After mover's move: your-turn mails to the seats now to move, or game-over
 * mails to all; and when the move came by mail, a confirmation to the mover.
 */
int notify_moved(app *a, const game_loaded *g, int mover, const char *channel, db_error *err);

/* After a side action ("resign", "offer", "accept", "decline", "withdraw") by seat. */
int notify_action(app *a, const game_loaded *g, int seat, const char *action, db_error *err);

/* A sign-in link for "my games", to address. */
int notify_signin(app *a, const char *address, const char *link, db_error *err);

/* What an incoming mail is answered with when it cannot be acted on. */
typedef struct notify_refusal {
	const char *to_addr, *to_name;  /* the sender of the mail refused */
	const char *game_id;            /* NULL when no game could be told */
	int seat;                       /* the seat the mail spoke for, or -1: then the answer shows
					   the game as it stands, with a reply address for its move */
	const char *subject;            /* of the refused mail, may be NULL */
	const char *message_id;         /* of the refused mail, may be NULL */
	const char *why;                /* one sentence */
	const char *original;           /* the refused mail's text, quoted back */
} notify_refusal;

int notify_refused(app *a, const notify_refusal *r, db_error *err);

#endif
