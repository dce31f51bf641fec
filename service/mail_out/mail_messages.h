/* mail_messages.h - the messages a seat has not had by mail yet, carried by its next mail. */
#ifndef ROOKERY_MAIL_MESSAGES_H
#define ROOKERY_MAIL_MESSAGES_H

#include "db.h"
#include "game/game.h"

#include <glib.h>

/*
 * Append to t the messages seat may read in g that its mails have not carried
 * yet (not its own; at most LIMIT_MESSAGES_PER_MAIL, the rest in a later mail);
 * *upto is the last one appended (0: none), for db_messages_mailed_set once
 * the mail is queued.
 */
int mail_messages_append(app *a, const game_loaded *g, int seat, GString *t, long long *upto, db_error *err);

#endif
