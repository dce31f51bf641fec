/* follow.h - on a database several daemons share: every daemon's commits, told to this daemon's live events. */
#ifndef ROOKERY_FOLLOW_H
#define ROOKERY_FOLLOW_H

#include "core/app.h"

typedef struct follower follower;

/*
 * Start a thread with a connection of its own to target that hears every commit of a game's
 * new version, by any daemon, and calls a->game_changed for it (this daemon's own commits
 * too: on a shared database they are told this way only). It reconnects when the connection
 * is lost. NULL when the connection or the thread cannot be made, err filled.
 */
follower *follower_start(app *a, const char *target, db_error *err);

/* Stop the thread and close its connection; NULL is fine. */
void follower_stop(follower *f);

#endif
