/* follow.c - the thread that follows a shared database's commits of games, for this daemon's event streams. */
#include "live/follow.h"
#include "core/log.h"
#include "live/events.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* How long one wait for commits lasts: the longest a stop waits for the thread. */
#define FOLLOW_WAIT_MS 200
/* Between two tries to reconnect after the connection was lost. */
#define FOLLOW_RECONNECT_S 1

struct follower {
	app *app;
	char *target;
	db *conn;
	atomic_int stopping;
	pthread_t thread;
};

static void tell(void *arg, const char *game_id, long long version)
{
	app *a = arg;

	if (a->game_changed)
		a->game_changed(a, game_id, version);
}

/* A followed game's version as the database has it now, told as any commit's. */
static void recheck(void *arg, const char *game_id)
{
	follower *f = arg;
	long long version;
	db_error de;

	if (db_game_version(f->conn, game_id, &version, &de) == 0)
		tell(f->app, game_id, version);
}

static void *follow_main(void *arg)
{
	follower *f = arg;
	db_error de;

	while (!atomic_load(&f->stopping)) {
		if (!f->conn) {
			if (db_open_reader(f->target, &f->conn, &de)) {
				sleep(FOLLOW_RECONNECT_S);
				continue;
			}
			/* Commits made while the connection was down were told to nobody: the versions of
			 * the followed games are read once, after LISTEN, so that none is missed. */
			if (db_follow_changes(f->conn, tell, f->app, 0, &de) == 0)
				events_each_followed(f->app, recheck, f);
			log_event("live events: following the database's commits again");
		}
		if (db_follow_changes(f->conn, tell, f->app, FOLLOW_WAIT_MS, &de)) {
			/* Streams then hear nothing until the connection is back: say so. */
			log_event("live events: lost the database's commits (%s); reconnecting", de.message);
			db_close(f->conn);
			f->conn = NULL;
		}
	}
	return NULL;
}

follower *follower_start(app *a, const char *target, db_error *err)
{
	follower *f = xcalloc(1, sizeof *f);

	f->app = a;
	f->target = xstrdup(target);
	/* The first LISTEN before any request is served: no commit after the start goes untold. */
	if (db_open_reader(target, &f->conn, err) || db_follow_changes(f->conn, tell, a, 0, err))
		goto fail;
	if (pthread_create(&f->thread, NULL, follow_main, f)) {
		snprintf(err->message, sizeof err->message, "cannot start the thread");
		goto fail;
	}
	return f;
fail:
	db_close(f->conn);
	free(f->target);
	free(f);
	return NULL;
}

void follower_stop(follower *f)
{
	if (!f)
		return;
	atomic_store(&f->stopping, 1);
	pthread_join(f->thread, NULL);
	db_close(f->conn);
	free(f->target);
	free(f);
}
