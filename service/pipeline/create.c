/* create.c - a new game: its seats, tokens, dice commitment, clocks and invitations. */
#include "pipeline/pipeline.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/text.h"
#include "core/token.h"
#include "core/utc.h"
#include "game/dice.h"
#include "mail_out/notify.h"
#include "pipeline/change.h"
#include "xalloc.h"

#include <ctype.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void new_game_id(char out[GAME_ID_TEXT])
{
	/* No vowels and no look-alikes: ids are read aloud and typed. */
	static const char alphabet[] = "bcdfghjkmnpqrstvwxz23456789";

	for (int i = 0; i < GAME_ID_TEXT - 1; i++)
		out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	out[GAME_ID_TEXT - 1] = 0;
}

int create_seat_check(const game_seat_in *s, const char *who, app_error *err)
{
	if (!s->name || !*s->name)
		return app_fail(err, E_BAD_REQUEST, "%s needs a name", who);
	if (strlen(s->name) > LIMIT_NAME)
		return app_fail(err, E_TOO_LARGE, "%s: names are at most %d bytes", who, LIMIT_NAME);
	if (!text_printable(s->name))
		return app_fail(err, E_BAD_REQUEST, "%s: the name must be UTF-8 text without control characters "
				"(line breaks, tabs, direction marks and overrides)", who);
	if (s->email && *s->email) {
		if (strlen(s->email) > LIMIT_EMAIL)
			return app_fail(err, E_TOO_LARGE, "%s: the email address is too long", who);
		if (!text_email_plausible(s->email))
			return app_fail(err, E_BAD_REQUEST, "%s: \"%s\" is not an email address", who, s->email);
	}
	return 0;
}

/* Seat i of a new game: a player's, or an open seat with neither name nor address. */
static int check_seat_input(const game_seat_in *s, int i, app_error *err)
{
	char who[24];

	snprintf(who, sizeof who, "seat %d", i + 1);
	if (s->open)
		return (s->name && *s->name) || (s->email && *s->email) ?
			app_fail(err, E_BAD_REQUEST, "%s is open: it takes no name or email address", who) : 0;
	return create_seat_check(s, who, err);
}

/* The invitations of a game just inserted, in the same transaction. */
static int queue_invitations(app *a, game_created *c, db_error *de)
{
	game_loaded g;
	app_error err;
	int r;

	if (!a->mail)
		return 0;
	if (game_load(a, c->id, &g, &err))
		return DB_E_IO;
	r = notify_created(a, &g, de);
	game_loaded_free(&g);
	return r;
}

/* Whether seat i's address is one of the seats' before it (a game counts once per address). */
static int invited_before(const game_seat_in *seats, int i)
{
	for (int k = 0; k < i; k++)
		if (seats[k].email && strcasecmp(seats[k].email, seats[i].email) == 0)
			return 1;
	return 0;
}

/*
 * Every game costs storage, so a client address may create only
 * a->games_per_hour games an hour. Invitations go to whatever addresses a
 * game's creator types in: so that Rookery cannot be used to flood a
 * mailbox, a client address may also create only so many games with
 * invitations an hour, and an email address receive only so many. The
 * counts are committed even when a limit is hit, so that hammering does not
 * reset them; the refused game is not created.
 */
int create_rate_limit(app *a, const char *client, const game_seat_in *seats, int nseats, app_error *err)
{
	long long now = (long long)time(NULL);
	int any = 0, games_ok = 1, allowed = 1, ok = 0, r = 0;
	db_error de;
	char *key;

	for (int i = 0; i < nseats; i++)
		any |= seats[i].email && *seats[i].email;
	any &= a->mail != NULL;
	if (!client || (!any && !a->games_per_hour))
		return 0;
	if ((r = db_begin(app_db(a), &de)))
		return app_storage_fail(err, &de);
	if (a->games_per_hour) {
		key = xasprintf("games-client:%s", client);
		r = db_rate_hit(app_db(a), key, now, LIMIT_RATE_WINDOW_S, (int)a->games_per_hour, &games_ok, &de);
		free(key);
	}
	if (!r && any) {
		key = xasprintf("invite-client:%s", client);
		r = db_rate_hit(app_db(a), key, now, LIMIT_RATE_WINDOW_S, LIMIT_INVITING_GAMES_PER_HOUR, &ok, &de);
		free(key);
		allowed &= ok;
	}
	for (int i = 0; !r && any && i < nseats; i++) {
		if (!seats[i].email || !*seats[i].email || invited_before(seats, i))
			continue;
		key = xasprintf("invite-address:%s", seats[i].email);
		/* Addresses differ in case only in the rarest of set-ups: count them as one. */
		for (char *p = key; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		r = db_rate_hit(app_db(a), key, now, LIMIT_RATE_WINDOW_S, LIMIT_INVITATIONS_PER_HOUR, &ok, &de);
		free(key);
		allowed &= ok;
	}
	if (!r)
		r = db_commit(app_db(a), &de);
	if (r) {
		db_rollback(app_db(a));
		return app_storage_fail(err, &de);
	}
	if (!games_ok)
		return app_fail(err, E_RATE_LIMITED, "too many games created from here; try again in an hour");
	if (!allowed)
		return app_fail(err, E_RATE_LIMITED, "too many invitations by mail from here or to one of "
				"these addresses; try again in an hour, or leave the addresses out");
	return 0;
}

int game_create(app *a, const char *client, const char *variant, const game_seat_in *seats, int nseats,
		game_created *out, app_error *err)
{
	return game_create_timed(a, client, variant, seats, nseats, NULL, out, err);
}

/* Days of field name in j (absent: *s stays 0 unless required), within [1/24, max] days. */
static int clock_days_field(const json_t *j, const char *name, double max, int required, long long *s,
			    app_error *err)
{
	const json_t *v = json_object_get(j, name);

	if (!v && !required)
		return 0;
	if (!json_is_number(v) || clock_days_seconds(json_number_value(v), max, s))
		return app_fail(err, E_BAD_CLOCK, "clock: %s must be a number of days from 1/24 (an hour) to %g",
				name, max);
	return 0;
}

int game_clock_parse(const json_t *j, game_clock_in *out, app_error *err)
{
	const char *type = json_string_value(json_object_get(j, "type"));
	const char *key;
	json_t *v;
	int r, bank;

	memset(out, 0, sizeof *out);
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j) || !type || (strcmp(type, "per_move") && strcmp(type, "bank")))
		return app_fail(err, E_BAD_CLOCK, "clock must be {\"type\": \"per_move\", \"days\": ...} or "
				"{\"type\": \"bank\", \"days\": ..., \"increment_days\": ..., \"max_days\": ...}");
	bank = !strcmp(type, "bank");
	json_object_foreach((json_t *)j, key, v)
		if (strcmp(key, "type") && strcmp(key, "days") &&
		    (!bank || (strcmp(key, "increment_days") && strcmp(key, "max_days"))))
			return app_fail(err, E_BAD_CLOCK, "clock: a %s clock has no field \"%.40s\"", type, key);
	out->type = bank ? DB_CLOCK_BANK : DB_CLOCK_PER_MOVE;
	if ((r = clock_days_field(j, "days", LIMIT_CLOCK_DAYS_MAX, 1, &out->base_s, err)))
		return r;
	if (!bank)
		return 0;
	if ((r = clock_days_field(j, "increment_days", LIMIT_CLOCK_INCREMENT_DAYS_MAX, 0, &out->increment_s, err)) ||
	    (r = clock_days_field(j, "max_days", LIMIT_CLOCK_DAYS_MAX, 0, &out->max_s, err)))
		return r;
	if (!json_object_get(j, "max_days"))
		out->max_s = out->base_s;
	if (out->max_s < out->base_s)
		return app_fail(err, E_BAD_CLOCK, "clock: max_days must be at least days");
	return 0;
}

/*
 * The clocks of a game just inserted: stopped, then started for the seats its
 * first position waits for (none in an open game: they start when it does).
 */
static int insert_clock(app *a, const char *id, const game_clock_in *in, int nseats, unsigned turn, db_error *de)
{
	db_clock c;

	if (!in || in->type == DB_CLOCK_NONE)
		return 0;
	clock_init(&c, in->type, in->base_s, in->increment_s, in->max_s, nseats);
	clock_sync(&c, turn, 0, (long long)time(NULL));
	return db_clock_insert(app_db(a), id, &c, de);
}

int game_create_timed(app *a, const char *client, const char *variant, const game_seat_in *seats, int nseats,
		      const game_clock_in *clock, game_created *out, app_error *err)
{
	const rules_game *rg = rules_find(variant, 0);
	unsigned char hashes[RULES_MAX_SEATS][DB_HASH_BYTES];
	rules_position *pos = NULL;
	rules_error re;
	db_error de;
	db_game g = {0};
	char now[32], commitment[DICE_COMMITMENT_HEX], until[32];
	int r;

	memset(out, 0, sizeof *out);
	if (!rg)
		return app_fail(err, E_UNKNOWN_VARIANT, "there is no game called \"%s\"", variant ? variant : "");
	if (nseats != rg->nseats)
		return app_fail(err, E_BAD_REQUEST, "%s needs exactly %d seats, not %d", rg->title, rg->nseats, nseats);
	for (int i = 0; i < nseats; i++)
		if ((r = check_seat_input(&seats[i], i, err)))
			return r;
	if ((r = create_rate_limit(a, client, seats, nseats, err)))
		return r;
	if (rg->start(NULL, &pos, &re))
		return app_fail(err, E_INTERNAL, "cannot set up %s: %s", rg->title, re.message);

	utc_now(now);
	g.variant = (char *)rg->id;
	g.rules_version = rg->version;
	g.options = "";
	g.position = rg->serialize(pos);
	g.draw_offer = -1;
	dice_new_seed(g.seed);
	dice_commitment(g.seed, commitment);
	g.commitment = commitment;
	g.dice_version = DICE_VERSION_CURRENT;
	g.created_at = g.updated_at = now;
	g.nseats = nseats;
	out->nseats = nseats;
	for (int i = 0; i < nseats; i++) {
		g.seats[i].seat = i;
		g.seats[i].name = (char *)(seats[i].open ? rg->seat_names[i] : seats[i].name);
		g.seats[i].email = !seats[i].open && seats[i].email && *seats[i].email ? (char *)seats[i].email : NULL;
		g.seats[i].open = seats[i].open;
		g.open_seats += seats[i].open;
		token_new(out->tokens[i]);
		token_hash(out->tokens[i], hashes[i]);
		/* An open seat's token is thrown away: nobody holds it until a player joins with a new one. */
		if (seats[i].open)
			sodium_memzero(out->tokens[i], sizeof out->tokens[i]);
	}
	if (g.open_seats) {
		clock_iso((long long)time(NULL) + LIMIT_OPEN_GAME_DAYS * CLOCK_DAY_S, until);
		g.open_until = until;
	}

	/* A clash of random ids is rare but possible: draw again. */
	for (int attempt = 0; attempt < 5; attempt++) {
		new_game_id(out->id);
		g.id = out->id;
		if ((r = db_begin(app_db(a), &de)))
			break;
		r = db_game_insert(app_db(a), &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &de);
		if (!r)
			r = insert_clock(a, out->id, clock, nseats, g.open_seats ? 0 : rg->turn(pos), &de);
		if (!r)
			r = queue_invitations(a, out, &de);
		if (!r)
			r = db_commit(app_db(a), &de);
		else
			db_rollback(app_db(a));
		if (r != DB_E_CONFLICT)
			break;
	}
	sodium_memzero(g.seed, sizeof g.seed);
	free(g.position);
	rg->free_position(pos);
	if (r) {
		sodium_memzero(out->tokens, sizeof out->tokens);
		return app_storage_fail(err, &de);
	}
	log_event("game %s created: %s, %d seats, %d open", out->id, rg->id, nseats, g.open_seats);
	return 0;
}
