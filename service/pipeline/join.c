/* join.c - open seats: a player taking one (the last starts the game), and open games lapsing unfilled. */
#include "pipeline/pipeline.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/token.h"
#include "core/utc.h"
#include "mail_out/notify.h"
#include "pipeline/change.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The seat of g a joiner asks for (NULL: the first open one): its index, or the error. */
static int seat_to_take(const game_loaded *g, const char *seat_name, int *seat, app_error *err)
{
	char now[32];

	if (g->rec->over)
		return app_fail(err, E_GAME_OVER, "the game is over: %s", g->rec->result ? g->rec->result : "");
	if (!game_open(g))
		return app_fail(err, E_SEAT_TAKEN, "every seat of this game is taken");
	/* Lapsed, and the sweeper has not ended it yet: it is over all the same. */
	utc_now(now);
	if (g->rec->open_until && strcmp(g->rec->open_until, now) <= 0)
		return app_fail(err, E_GAME_OVER, "the game is over: nobody took its open seats in time");
	for (int i = 0; i < g->rec->nseats; i++) {
		if (seat_name ? strcasecmp(seat_name, g->rules->seat_names[i]) : !g->rec->seats[i].open)
			continue;
		if (!g->rec->seats[i].open)
			return app_fail(err, E_SEAT_TAKEN, "%s is taken already", g->rules->seat_names[i]);
		*seat = i;
		return 0;
	}
	return app_fail(err, E_BAD_REQUEST, "%s has no seat \"%.40s\"", g->rules->title, seat_name ? seat_name : "");
}

int game_join(app *a, const char *client, const char *id, const char *seat_name, const game_seat_in *who,
	      game_joined *out, app_error *err)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	game_seat_in player = {who->name, who->email && *who->email ? who->email : NULL, 0};
	game_loaded g = {0};
	db_error de;
	char now[32];
	int r, seat = -1;

	memset(out, 0, sizeof *out);
	if ((r = create_seat_check(&player, "the player", err)) || (r = create_rate_limit(a, client, &player, 1, err)))
		return r;
	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	if ((r = game_load(a, id, &g, err)) || (r = seat_to_take(&g, seat_name, &seat, err)))
		goto out;
	token_new(out->token);
	token_hash(out->token, hash);
	utc_now(now);
	/* The writer runs one change at a time: the seat checked open above is still open here. */
	if ((r = db_seat_join(app_db(a), id, seat, player.name, player.email, hash, now, &de))) {
		r = r == DB_E_CONFLICT ? app_fail(err, E_SEAT_TAKEN, "%s is taken already", g.rules->seat_names[seat])
			: app_storage_fail(err, &de);
		goto out;
	}
	game_loaded_free(&g);
	if ((r = game_load(a, id, &g, err)))
		goto out;
	out->seat = seat;
	out->seat_name = g.rules->seat_names[seat];
	out->started = !game_open(&g);
	/* The game starts: the clocks of the seats it waits for run from now, before the mails that give deadlines. */
	if ((out->started && change_save_clock(a, &g, 0, &de)) || notify_joined(a, &g, seat, &de) ||
	    db_commit(app_db(a), &de))
		r = app_storage_fail(err, &de);
out:
	db_rollback(app_db(a));
	if (r)
		sodium_memzero(out->token, sizeof out->token);
	else
		log_event("game %s: %s taken by a player joining%s", id, g.rules->seat_names[seat],
			  out->started ? "; the game has begun" : "");
	game_loaded_free(&g);
	return r;
}

int game_expire_open(app *a, long long now, int *count, app_error *err)
{
	char ids[LIMIT_CLOCK_SWEEP_BATCH][DB_GAME_ID_TEXT], at[32];
	db_error de;

	*count = 0;
	clock_iso(now, at);
	if (db_begin(app_db(a), &de) ||
	    db_games_expire_open(app_db(a), at, ids, LIMIT_CLOCK_SWEEP_BATCH, count, &de) ||
	    db_commit(app_db(a), &de)) {
		db_rollback(app_db(a));
		*count = 0;
		return app_storage_fail(err, &de);
	}
	for (int i = 0; i < *count; i++)
		log_event("game %s over: expired, its open seats untaken", ids[i]);
	return 0;
}
