/* game.c - create games and run the move pipeline: authenticate, check, apply, store, in one transaction. */
#include "game.h"
#include "dice.h"
#include "limits.h"
#include "log.h"
#include "notify.h"
#include "view.h"
#include "text.h"
#include "vacation.h"
#include "xalloc.h"

#include <ctype.h>
#include <glib.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Map a storage failure to the service's codes, keeping the message out of user view. */
static int storage_fail(app_error *err, const db_error *de)
{
	log_event("storage error: %s", de->message);
	if (de->code == DB_E_BUSY)
		return app_fail(err, E_UNAVAILABLE, "the server is busy; try again");
	return app_fail(err, E_INTERNAL, "the server could not store this; nothing was changed");
}

static void new_game_id(char out[GAME_ID_TEXT])
{
	/* No vowels and no look-alikes: ids are read aloud and typed. */
	static const char alphabet[] = "bcdfghjkmnpqrstvwxz23456789";

	for (int i = 0; i < GAME_ID_TEXT - 1; i++)
		out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	out[GAME_ID_TEXT - 1] = 0;
}

static int check_seat_input(const game_seat_in *s, int i, app_error *err)
{
	if (!s->name || !*s->name)
		return app_fail(err, E_BAD_REQUEST, "seat %d needs a name", i + 1);
	if (strlen(s->name) > LIMIT_NAME)
		return app_fail(err, E_TOO_LARGE, "seat %d: names are at most %d bytes", i + 1, LIMIT_NAME);
	if (!text_printable(s->name))
		return app_fail(err, E_BAD_REQUEST, "seat %d: the name must be UTF-8 text without control characters "
				"(line breaks, tabs, direction marks and overrides)", i + 1);
	if (s->email && *s->email) {
		if (strlen(s->email) > LIMIT_EMAIL)
			return app_fail(err, E_TOO_LARGE, "seat %d: the email address is too long", i + 1);
		if (!text_email_plausible(s->email))
			return app_fail(err, E_BAD_REQUEST, "seat %d: \"%s\" is not an email address", i + 1, s->email);
	}
	return 0;
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
static int limit_creation(app *a, const char *client, const game_seat_in *seats, int nseats,
			  app_error *err)
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
	if ((r = db_begin(a->db, &de)))
		return storage_fail(err, &de);
	if (a->games_per_hour) {
		key = xasprintf("games-client:%s", client);
		r = db_rate_hit(a->db, key, now, LIMIT_RATE_WINDOW_S, (int)a->games_per_hour, &games_ok, &de);
		free(key);
	}
	if (!r && any) {
		key = xasprintf("invite-client:%s", client);
		r = db_rate_hit(a->db, key, now, LIMIT_RATE_WINDOW_S, LIMIT_INVITING_GAMES_PER_HOUR, &ok, &de);
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
		r = db_rate_hit(a->db, key, now, LIMIT_RATE_WINDOW_S, LIMIT_INVITATIONS_PER_HOUR, &ok, &de);
		free(key);
		allowed &= ok;
	}
	if (!r)
		r = db_commit(a->db, &de);
	if (r) {
		db_rollback(a->db);
		return storage_fail(err, &de);
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

/* The clocks of a game just inserted: stopped, then started for the seats its first position waits for. */
static int insert_clock(app *a, const char *id, const game_clock_in *in, int nseats, unsigned turn, db_error *de)
{
	db_clock c;

	if (!in || in->type == DB_CLOCK_NONE)
		return 0;
	clock_init(&c, in->type, in->base_s, in->increment_s, in->max_s, nseats);
	clock_sync(&c, turn, 0, (long long)time(NULL));
	return db_clock_insert(a->db, id, &c, de);
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
	char now[32], commitment[DICE_COMMITMENT_HEX];
	int r;

	memset(out, 0, sizeof *out);
	if (!rg)
		return app_fail(err, E_UNKNOWN_VARIANT, "there is no game called \"%s\"", variant ? variant : "");
	if (nseats != rg->nseats)
		return app_fail(err, E_BAD_REQUEST, "%s needs exactly %d seats, not %d", rg->title, rg->nseats, nseats);
	for (int i = 0; i < nseats; i++)
		if ((r = check_seat_input(&seats[i], i, err)))
			return r;
	if ((r = limit_creation(a, client, seats, nseats, err)))
		return r;
	if (rg->start(NULL, &pos, &re))
		return app_fail(err, E_INTERNAL, "cannot set up %s: %s", rg->title, re.message);

	app_now(now);
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
		g.seats[i].name = (char *)seats[i].name;
		g.seats[i].email = seats[i].email && *seats[i].email ? (char *)seats[i].email : NULL;
		token_new(out->tokens[i]);
		token_hash(out->tokens[i], hashes[i]);
	}

	/* A clash of random ids is rare but possible: draw again. */
	for (int attempt = 0; attempt < 5; attempt++) {
		new_game_id(out->id);
		g.id = out->id;
		if ((r = db_begin(a->db, &de)))
			break;
		r = db_game_insert(a->db, &g, (const unsigned char (*)[DB_HASH_BYTES])hashes, &de);
		if (!r)
			r = insert_clock(a, out->id, clock, nseats, rg->turn(pos), &de);
		if (!r)
			r = queue_invitations(a, out, &de);
		if (!r)
			r = db_commit(a->db, &de);
		else
			db_rollback(a->db);
		if (r != DB_E_CONFLICT)
			break;
	}
	sodium_memzero(g.seed, sizeof g.seed);
	free(g.position);
	rg->free_position(pos);
	if (r) {
		sodium_memzero(out->tokens, sizeof out->tokens);
		return storage_fail(err, &de);
	}
	log_event("game %s created: %s, %d seats", out->id, rg->id, nseats);
	return 0;
}

int game_authenticate(app *a, const char *token, char **game_id, int *seat, app_error *err)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	db_error de;
	int r;

	*game_id = NULL;
	if (!token || !*token)
		return app_fail(err, E_UNAUTHORIZED, "this needs a seat token");
	if (!token_well_formed(token))
		return app_fail(err, E_UNAUTHORIZED, "that is not a valid seat token");
	token_hash(token, hash);
	r = db_seat_by_token(a->db, hash, game_id, seat, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_UNAUTHORIZED, "that seat token is not known");
	if (r)
		return storage_fail(err, &de);
	return 0;
}

int game_authenticate_player(app *a, const char *token, char **email, app_error *err)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	db_error de;
	int r;

	*email = NULL;
	if (!token || !token_well_formed(token))
		return app_fail(err, E_UNAUTHORIZED, "that is not a valid token");
	token_hash(token, hash);
	r = db_player_token_email(a->db, hash, (long long)time(NULL), email, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_UNAUTHORIZED, "that token is not known or has expired");
	if (r)
		return storage_fail(err, &de);
	return 0;
}

int game_load(app *a, const char *id, game_loaded *out, app_error *err)
{
	rules_error re;
	db_error de;
	int r;

	memset(out, 0, sizeof *out);
	r = db_game_load(a->db, id, &out->rec, &de);
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_NOT_FOUND, "there is no game %s", id);
	if (r)
		return storage_fail(err, &de);
	out->rules = rules_find(out->rec->variant, out->rec->rules_version);
	if (!out->rules) {
		r = app_fail(err, E_INTERNAL, "game %s uses %s rules version %d, which this server does not have",
			     id, out->rec->variant, out->rec->rules_version);
		goto fail;
	}
	if (out->rules->deserialize(out->rec->position, &out->pos, &re)) {
		log_event("game %s: stored position is corrupt: %s", id, re.message);
		r = app_fail(err, E_INTERNAL, "game %s cannot be read", id);
		goto fail;
	}
	out->clock = xmalloc(sizeof *out->clock);
	if ((r = db_clock_load(a->db, id, out->clock, &de)) == DB_E_NOTFOUND) {
		free(out->clock);
		out->clock = NULL;
	} else if (r) {
		r = storage_fail(err, &de);
		goto fail;
	}
	return 0;
fail:
	game_loaded_free(out);
	return r;
}

void game_loaded_free(game_loaded *g)
{
	if (g->pos)
		g->rules->free_position(g->pos);
	free(g->clock);
	db_game_free(g->rec);
	memset(g, 0, sizeof *g);
}

unsigned game_turn_mask(const game_loaded *g)
{
	if (g->rec->over)
		return 0;
	return g->rules->turn(g->pos);
}

/* Rolls of one move, drawn from the game's committed seed (and its seats' client seeds). */
struct roller {
	const db_game *rec;
	int ply;
	game_move_done *done;
};

static int roll_from_seed(void *ctx, int sides, int *value)
{
	struct roller *r = ctx;

	if (sides < 1 || r->done->nrolls >= (int)(sizeof r->done->rolls / sizeof r->done->rolls[0]))
		return -1;
	if (r->rec->dice_version >= DICE_V2) {
		const char *client[DB_MAX_SEATS];
		for (int i = 0; i < r->rec->nseats; i++)
			client[i] = r->rec->seats[i].client_seed;
		*value = dice_roll_v2(r->rec->seed, r->rec->id, client, r->rec->nseats, r->ply,
				      r->done->nrolls, (uint32_t)sides);
	} else {
		*value = dice_roll(r->rec->seed, r->rec->id, r->ply, r->done->nrolls, (uint32_t)sides);
	}
	r->done->sides[r->done->nrolls] = sides;
	r->done->rolls[r->done->nrolls++] = *value;
	return 0;
}

static char *rolls_json(const game_move_done *d)
{
	json_t *arr = json_array();
	char *s;

	for (int i = 0; i < d->nrolls; i++)
		json_array_append_new(arr, json_pack("{s:i, s:i}", "sides", d->sides[i],
						     "value", d->rolls[i]));
	s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return s;
}

static int map_rules_error(const rules_error *re, app_error *err)
{
	int code;

	switch (re->code) {
	case RULES_E_PARSE: code = E_BAD_MOVE; break;
	case RULES_E_ILLEGAL: code = E_ILLEGAL; break;
	case RULES_E_INCOMPLETE: code = E_INCOMPLETE; break;
	case RULES_E_TURN: code = E_NOT_YOUR_TURN; break;
	case RULES_E_OVER: code = E_GAME_OVER; break;
	default: code = E_INTERNAL; break;
	}
	return app_fail(err, code, "%s", re->message);
}

static int check_running(const game_loaded *g, app_error *err);

int game_read_move(const game_loaded *g, int seat, const char *text, rules_move *mv, app_error *err)
{
	rules_error re;
	int r;

	if (!text || strlen(text) > LIMIT_MOVE_TEXT)
		return app_fail(err, E_TOO_LARGE, "a move is at most %d bytes", LIMIT_MOVE_TEXT);
	if (!text_utf8_valid(text, strlen(text)))
		return app_fail(err, E_BAD_MOVE, "the move is not valid UTF-8 text");
	if ((r = check_running(g, err)))
		return r;
	r = g->rules->parse(g->pos, seat, text, mv, &re);
	if (r && r != RULES_E_INCOMPLETE)
		return map_rules_error(&re, err);
	return 0;
}

/* Parse text as seat's move in the stored position before ply. */
static int canonical_at(app *a, const game_loaded *g, int ply, int seat, const char *text,
			char out[RULES_TEXT_MAX])
{
	rules_position *pos = NULL;
	rules_move mv;
	rules_error re;
	db_move prev;
	db_error de;
	int r;

	if (ply == 0) {
		r = g->rules->deserialize(g->rec->start_position, &pos, &re);
	} else {
		if (db_move_get(a->db, g->rec->id, ply - 1, &prev, &de))
			return -1;
		r = g->rules->deserialize(prev.position_after, &pos, &re);
		db_move_clear(&prev);
	}
	if (r)
		return -1;
	r = g->rules->parse(pos, seat, text, &mv, &re);
	if (!r)
		g->rules->format(pos, &mv, out, RULES_TEXT_MAX);
	g->rules->free_position(pos);
	return r ? -1 : 0;
}

/* An earlier submission of the same move: answer as the first time. */
static int answer_duplicate(app *a, game_loaded *g, int ply, int seat, const char *text,
			    game_move_done *out, app_error *err)
{
	char canon[RULES_TEXT_MAX];
	db_move m;
	db_error de;
	int r = db_move_get(a->db, g->rec->id, ply, &m, &de);

	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_STALE, "the game is at ply %d, not %d", g->rec->ply, ply);
	if (r)
		return storage_fail(err, &de);
	if (m.seat != seat || canonical_at(a, g, ply, seat, text, canon) || strcmp(canon, m.move) != 0) {
		r = app_fail(err, E_STALE, "ply %d has already been played (%s); the game is at ply %d",
			     ply, view_move_text(&m, seat), g->rec->ply);
		goto out;
	}
	out->ply = ply;
	out->seat = seat;
	out->duplicate = 1;
	snprintf(out->move, sizeof out->move, "%s", m.move);
	snprintf(out->note, sizeof out->note, "%s", m.note);
	json_t *dice = json_loads(m.dice, 0, NULL);
	size_t i;
	json_t *v;
	json_array_foreach(dice, i, v) {
		if (out->nrolls < LIMIT_ROLLS_PER_MOVE) {
			out->sides[out->nrolls] = (int)json_integer_value(json_object_get(v, "sides"));
			out->rolls[out->nrolls++] = (int)json_integer_value(json_object_get(v, "value"));
		}
	}
	json_decref(dice);
out:
	db_move_clear(&m);
	return r;
}

/* Record the end of a game in rec from the rules' result. */
static void record_result(db_game *rec, const rules_result *res, int nseats)
{
	json_t *ranks = json_array();

	for (int i = 0; i < nseats; i++)
		json_array_append_new(ranks, json_integer(res->rank[i]));
	rec->over = 1;
	free(rec->result);
	rec->result = xstrdup(res->summary);
	free(rec->ranks);
	rec->ranks = json_dumps(ranks, JSON_COMPACT);
	json_decref(ranks);
	rec->draw_offer = -1;
}

int game_ply_limit(const rules_game *rules)
{
	return LIMIT_PLIES / 2 * rules->nseats;
}

/* Seats still in the game (bit mask): a draw is theirs, and the others lose. */
static unsigned seats_in_play(const game_loaded *g)
{
	return g->rules->in_play ? g->rules->in_play(g->pos) : (1u << g->rules->nseats) - 1;
}

/* A draw for the seats of mask all: they share the game's draw rank, the others come after them. */
static void draw_result(const game_loaded *g, unsigned all, const char *summary, rules_result *res)
{
	int rank = g->rules->draw_rank ? g->rules->draw_rank : 1, n = 0;

	memset(res, 0, sizeof *res);
	for (int i = 0; i < g->rules->nseats; i++)
		n += (all >> i) & 1;
	res->over = 1;
	for (int i = 0; i < g->rules->nseats; i++)
		res->rank[i] = (all >> i) & 1 ? rank : rank + n;
	snprintf(res->summary, sizeof res->summary, "%s", summary);
}

static int check_running(const game_loaded *g, app_error *err)
{
	if (g->rec->over)
		return app_fail(err, E_GAME_OVER, "the game is over: %s", g->rec->result ? g->rec->result : "");
	return 0;
}

/* The places of a gesture as JSON array text. */
static char *places_json(const rules_gesture *gesture)
{
	json_t *a = json_array();
	char *text;

	for (int i = 0; i < gesture->n; i++)
		json_array_append_new(a, json_string(gesture->at[i]));
	text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return text;
}

/*
 * After a change to g (its record already updated): the clocks of the seats
 * it now waits for run, the others stand (clock_sync); movers just moved.
 * Stored in the change's transaction, before its mails, which state the deadlines.
 */
static int save_clock(app *a, game_loaded *g, unsigned movers, db_error *de)
{
	if (!g->clock)
		return 0;
	clock_sync(g->clock, game_turn_mask(g), movers, (long long)time(NULL));
	return db_clock_save(a->db, g->rec->id, g->clock, de);
}

/*
 * Store what just changed g->pos: the move row (out->move by out->seat, with
 * its note, dice and secrecy), the game's new state and its mails; then
 * commit. The transaction is the caller's, already open.
 */
static int store_move(app *a, game_loaded *g, game_move_done *out, const rules_outcome *oc,
		      const char *channel, int anytime, app_error *err)
{
	db_move rec = {0};
	db_error de;
	char now[32];
	rules_result res;
	int r, seat = out->seat;

	snprintf(out->note, sizeof out->note, "%s", oc->note);
	app_now(now);
	rec.ply = g->rec->ply;
	rec.seat = seat;
	rec.move = out->move;
	rec.note = out->note;
	rec.channel = (char *)channel;
	rec.at = now;
	rec.dice = rolls_json(out);
	rec.position_after = g->rules->serialize(g->pos);
	rec.secret = oc->secret;
	rec.places = places_json(&out->gesture);
	free(g->rec->position);
	g->rec->position = xstrdup(rec.position_after);
	g->rec->ply++;
	free(g->rec->updated_at);
	g->rec->updated_at = xstrdup(now);
	/* A move by a seat that has not agreed to the draw offer lets it lapse. */
	if (g->rec->draw_offer >= 0 && !(g->rec->draw_accepts & (1u << seat)))
		g->rec->draw_offer = -1;
	g->rules->result(g->pos, &res);
	/* However a game goes, it ends: at the ply limit it is drawn, which bounds every game's record. */
	if (!res.over && g->rec->ply >= game_ply_limit(g->rules)) {
		char why[sizeof res.summary];
		snprintf(why, sizeof why, "drawn: the %d-ply limit was reached", game_ply_limit(g->rules));
		draw_result(g, seats_in_play(g), why, &res);
	}
	if (res.over)
		record_result(g->rec, &res, g->rules->nseats);
	r = db_move_append(a->db, g->rec->id, &rec, &de);
	if (!r && oc->reveals)
		r = db_moves_reveal(a->db, g->rec->id, &de);
	if (!r)
		r = db_game_save_state(a->db, g->rec, &de);
	/* From the first roll on, the client seeds that made it stay as they are. */
	if (!r && out->nrolls && !g->rec->dice_rolled) {
		r = db_game_mark_rolled(a->db, g->rec->id, &de);
		g->rec->dice_rolled = 1;
	}
	if (!r)
		r = save_clock(a, g, anytime ? 0 : 1u << seat, &de);
	if (!r)
		r = notify_moved(a, g, seat, channel, &de);
	if (!r)
		r = db_commit(a->db, &de);
	if (r) {
		r = storage_fail(err, &de);
	} else {
		/* Even the log keeps a secret move (a hidden setup) to itself. */
		log_event("game %s ply %d: %s played %s%s%s via %s", g->rec->id, rec.ply,
			  g->rules->seat_names[seat], rec.secret ? "a secret move" : out->move,
			  *out->note && !rec.secret ? " " : "", rec.secret ? "" : out->note, channel);
		if (res.over)
			log_event("game %s over: %s", g->rec->id, res.summary);
	}
	free(rec.dice);
	free(rec.position_after);
	free(rec.places);
	return r;
}

int game_submit_move(app *a, const char *id, int seat, int ply, const char *text,
		     const char *channel, game_move_done *out, app_error *err)
{
	game_loaded g = {0};
	rules_move mv;
	rules_error re;
	rules_outcome oc = {0};
	db_error de;
	int r;

	memset(out, 0, sizeof *out);
	if (!text || strlen(text) > LIMIT_MOVE_TEXT)
		return app_fail(err, E_TOO_LARGE, "a move is at most %d bytes", LIMIT_MOVE_TEXT);
	if (!text_utf8_valid(text, strlen(text)))
		return app_fail(err, E_BAD_MOVE, "the move is not valid UTF-8 text");
	/* A line ending (from a pasted line or a mail body) is not part of the move. */
	char line[LIMIT_MOVE_TEXT + 1];
	size_t len = strlen(text);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	memcpy(line, text, len);
	line[len] = 0;
	text = line;
	if ((r = db_begin(a->db, &de)))
		return storage_fail(err, &de);
	if ((r = game_load(a, id, &g, err)))
		goto out;
	/* Parse first: some actions (alliance declarations) may be made out of turn and
	 * whatever the ply, since they do not answer a position. */
	int parsed = g.rules->parse(g.pos, seat, text, &mv, &re);
	int anytime = !parsed && mv.anytime;
	if (ply >= 0 && ply < g.rec->ply) {
		r = answer_duplicate(a, &g, ply, seat, text, out, err);
		if (r != E_STALE || !anytime)
			goto out;
		/* Not a repeat: an out-of-turn action sent with an old ply is taken as it is. */
		memset(out, 0, sizeof *out);
		if (err)
			memset(err, 0, sizeof *err);
	}
	if ((r = check_running(&g, err)))
		goto out;
	if (ply >= 0 && ply != g.rec->ply && !anytime) {
		r = app_fail(err, E_STALE, "the game is at ply %d, not %d", g.rec->ply, ply);
		goto out;
	}
	/* Out of turn, a text the rules could not read is answered with the rules' reason
	 * (a malformed declaration, say); a readable move with "not your turn". */
	if (!(game_turn_mask(&g) & (1u << seat)) && !anytime && (!parsed || re.code == RULES_E_TURN)) {
		r = app_fail(err, E_NOT_YOUR_TURN, "it is not %s's turn", g.rules->seat_names[seat]);
		goto out;
	}
	if (parsed) {
		r = map_rules_error(&re, err);
		goto out;
	}
	out->ply = g.rec->ply;
	out->seat = seat;
	g.rules->format(g.pos, &mv, out->move, sizeof out->move);
	if (g.rules->gesture)
		g.rules->gesture(g.pos, &mv, &out->gesture);
	struct roller roller = {g.rec, g.rec->ply, out};
	rules_dice dice = {roll_from_seed, &roller};
	if (g.rules->apply(g.pos, &mv, &dice, &oc, &re)) {
		r = map_rules_error(&re, err);
		goto out;
	}
	if (vacation_acted(a, &g, seat, (long long)time(NULL), &de)) {
		r = storage_fail(err, &de);
		goto out;
	}
	/* An action made at any time (an alliance) is not the seat's turn: its clock goes on. */
	r = store_move(a, &g, out, &oc, channel, anytime, err);
out:
	db_rollback(a->db);
	game_loaded_free(&g);
	return r;
}

/* Load the game for a side action inside an open transaction. */
static int begin_action(app *a, const char *id, game_loaded *g, app_error *err)
{
	db_error de;
	int r;

	if ((r = db_begin(a->db, &de)))
		return storage_fail(err, &de);
	if ((r = game_load(a, id, g, err)) == 0 && (r = check_running(g, err)))
		game_loaded_free(g);
	if (r)
		db_rollback(a->db);
	return r;
}

/* begin_action for an action of seat: it ends its player's vacation under way (vacation_acted). */
static int begin_seat_action(app *a, const char *id, int seat, game_loaded *g, app_error *err)
{
	db_error de;
	int r = begin_action(a, id, g, err);

	if (!r && vacation_acted(a, g, seat, (long long)time(NULL), &de)) {
		r = storage_fail(err, &de);
		db_rollback(a->db);
		game_loaded_free(g);
	}
	return r;
}

static int finish_action(app *a, game_loaded *g, int seat, const char *action,
			 const char *channel, app_error *err)
{
	db_error de;
	char now[32];
	int r;

	app_now(now);
	free(g->rec->updated_at);
	g->rec->updated_at = xstrdup(now);
	r = db_action_append(a->db, g->rec->id, g->rec->ply, seat, action, channel, now, &de);
	if (!r)
		r = db_game_save_state(a->db, g->rec, &de);
	if (!r)
		r = save_clock(a, g, 0, &de);
	if (!r)
		r = notify_action(a, g, seat, action, channel, &de);
	if (!r)
		r = db_commit(a->db, &de);
	if (r) {
		db_rollback(a->db);
		return storage_fail(err, &de);
	}
	static const char *const said[][2] = {
		{"resign", "resigned"}, {"offer", "offered a draw"}, {"accept", "accepted the draw"},
		{"decline", "declined the draw"}, {"withdraw", "withdrew the draw offer"},
	};
	const char *what = action;
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
		if (!strcmp(said[i][0], action))
			what = said[i][1];
	log_event("game %s: %s %s via %s", g->rec->id, g->rules->seat_names[seat], what, channel);
	if (g->rec->over)
		log_event("game %s over: %s", g->rec->id, g->rec->result);
	return 0;
}

int game_resign(app *a, const char *id, int seat, const char *channel, app_error *err)
{
	game_loaded g;
	rules_result res = {0};
	int r;

	if ((r = begin_seat_action(a, id, seat, &g, err)))
		return r;
	/* Games that go on without the resigner record the resignation as a move of its own. */
	if (g.rules->resign) {
		rules_outcome oc = {0};
		rules_error re;
		game_move_done done = {.ply = g.rec->ply, .seat = seat};
		if (g.rules->resign(g.pos, seat, &oc, &re)) {
			r = map_rules_error(&re, err);
			db_rollback(a->db);
		} else {
			snprintf(done.move, sizeof done.move, "resign");
			r = store_move(a, &g, &done, &oc, channel, 0, err);
			db_rollback(a->db);
		}
		game_loaded_free(&g);
		return r;
	}
	if (g.rules->resign_result) {
		g.rules->resign_result(g.pos, seat, &res);
	} else {
		res.over = 1;
		for (int i = 0; i < g.rules->nseats; i++)
			res.rank[i] = i == seat ? g.rules->nseats : 1;
		if (g.rules->nseats == 2)
			snprintf(res.summary, sizeof res.summary, "%s wins: %s resigned",
				 g.rules->seat_names[1 - seat], g.rules->seat_names[seat]);
		else
			snprintf(res.summary, sizeof res.summary, "%s resigned", g.rules->seat_names[seat]);
	}
	record_result(g.rec, &res, g.rules->nseats);
	r = finish_action(a, &g, seat, "resign", channel, err);
	game_loaded_free(&g);
	return r;
}

int game_draw(app *a, const char *id, int seat, const char *action, const char *channel,
	      app_error *err)
{
	game_loaded g;
	unsigned me = 1u << seat, all;
	int r, offer;

	if (!action || (strcmp(action, "offer") && strcmp(action, "accept") &&
			strcmp(action, "decline") && strcmp(action, "withdraw")))
		return app_fail(err, E_BAD_REQUEST, "action must be offer, accept, decline or withdraw");
	if ((r = begin_seat_action(a, id, seat, &g, err)))
		return r;
	offer = g.rec->draw_offer;
	/* A draw needs the seats still in the game; the others lose when it is drawn. */
	all = seats_in_play(&g);
	if (!(all & me)) {
		r = app_fail(err, E_FORBIDDEN, "you are out of the game: draws are for the players still in it");
		goto out;
	}
	if (!strcmp(action, "offer")) {
		if (offer >= 0) {
			r = app_fail(err, E_OFFER_PENDING, g.rec->draw_accepts & me ? "you have already agreed to a draw"
				     : "%s has offered a draw: accept or decline it", g.rules->seat_names[offer]);
			goto out;
		}
		g.rec->draw_offer = seat;
		g.rec->draw_accepts = me;
	} else if (!strcmp(action, "withdraw")) {
		if (offer != seat) {
			r = app_fail(err, E_NO_OFFER, "you have no draw offer to withdraw");
			goto out;
		}
		g.rec->draw_offer = -1;
	} else if (offer < 0 || (g.rec->draw_accepts & me)) {
		r = app_fail(err, E_NO_OFFER, offer < 0 ? "there is no draw offer to %s" :
			     "you have already agreed to this draw (the offerer may withdraw it)", action);
		goto out;
	} else if (!strcmp(action, "decline")) {
		g.rec->draw_offer = -1;
	} else {
		g.rec->draw_accepts |= me;
		/* Everybody still in the game must agree; they share one rank, the rest lose. */
		if ((g.rec->draw_accepts & all) == all) {
			rules_result res;
			draw_result(&g, all, "drawn by agreement", &res);
			record_result(g.rec, &res, g.rules->nseats);
		}
	}
	r = finish_action(a, &g, seat, action, channel, err);
	game_loaded_free(&g);
	return r;
out:
	db_rollback(a->db);
	game_loaded_free(&g);
	return r;
}

int game_set_client_seed(app *a, const char *id, int seat, const char *client_seed,
			 const char *channel, app_error *err)
{
	game_loaded g;
	db_error de;
	int r;

	r = dice_client_seed_check(client_seed, LIMIT_CLIENT_SEED);
	if (r)
		return app_fail(err, r == 1 && client_seed && *client_seed ? E_TOO_LARGE : E_BAD_REQUEST,
				"a client seed is 1 to %d printable ASCII characters (letters, digits, "
				"punctuation, spaces)", LIMIT_CLIENT_SEED);
	if ((r = begin_seat_action(a, id, seat, &g, err)))
		return r;
	if (g.rec->dice_version < DICE_V2)
		r = app_fail(err, E_SEEDS_FIXED, "this game's dice were committed before client seeds existed: "
			     "they take none");
	else if (g.rec->dice_rolled)
		r = app_fail(err, E_SEEDS_FIXED, "the dice have already rolled: client seeds are set before "
			     "the game's first roll");
	else if (db_seat_set_client_seed(a->db, id, seat, client_seed, &de) || db_commit(a->db, &de))
		r = storage_fail(err, &de);
	db_rollback(a->db);
	if (!r)
		log_event("game %s: %s set a client seed via %s", id, g.rules->seat_names[seat], channel);
	game_loaded_free(&g);
	return r;
}

/* The resignation's summary told as a loss on time: "X wins: Y resigned" becomes "X wins on time: Y ran out of time". */
static void time_summary(const char *resigned, char *out, size_t size)
{
	const char *wins = strstr(resigned, "wins: "), *res = strstr(resigned, "resigned");
	GString *s = g_string_new(NULL);

	for (const char *p = resigned; *p;) {
		if (p == wins) {
			g_string_append(s, "wins on time: ");
			p += strlen("wins: ");
		} else if (p == res) {
			g_string_append(s, "ran out of time");
			p += strlen("resigned");
		} else {
			g_string_append_c(s, *p++);
		}
	}
	snprintf(out, size, "%s", s->str);
	g_string_free(s, TRUE);
}

/* A game that goes on without the seat: it leaves as by its rules' resignation, the note says why. */
static int timeout_leaves(app *a, game_loaded *g, int seat, app_error *err)
{
	rules_outcome oc = {0};
	rules_error re;
	game_move_done done = {.ply = g->rec->ply, .seat = seat};
	char why[sizeof oc.note];
	const char *said = "ran out of time";

	if (g->rules->resign(g->pos, seat, &oc, &re))
		return map_rules_error(&re, err);
	/* The reason first; the rules' note (where the army went) after it, cut short if need be. */
	memcpy(why, oc.note, sizeof why);
	snprintf(oc.note, sizeof oc.note, "%s%s", said, *why ? "; " : "");
	size_t len = strlen(oc.note);
	memcpy(oc.note + len, why, sizeof oc.note - len - 1);
	oc.note[sizeof oc.note - 1] = 0;
	snprintf(done.move, sizeof done.move, "resign");
	return store_move(a, g, &done, &oc, "clock", 0, err);
}

/* A game that ends when the seat resigns: it is lost on time, as its rules' resignation ranks it. */
static int timeout_ends(app *a, game_loaded *g, int seat, app_error *err)
{
	rules_result res = {0};
	db_error de;
	char now[32];
	int r;

	if (g->rules->resign_result) {
		rules_result resigned;
		g->rules->resign_result(g->pos, seat, &resigned);
		res = resigned;
		time_summary(resigned.summary, res.summary, sizeof res.summary);
	} else {
		res.over = 1;
		for (int i = 0; i < g->rules->nseats; i++)
			res.rank[i] = i == seat ? g->rules->nseats : 1;
		if (g->rules->nseats == 2)
			snprintf(res.summary, sizeof res.summary, "%s wins on time: %s ran out of time",
				 g->rules->seat_names[1 - seat], g->rules->seat_names[seat]);
		else
			snprintf(res.summary, sizeof res.summary, "%s ran out of time", g->rules->seat_names[seat]);
	}
	record_result(g->rec, &res, g->rules->nseats);
	app_now(now);
	free(g->rec->updated_at);
	g->rec->updated_at = xstrdup(now);
	r = db_game_save_state(a->db, g->rec, &de);
	if (!r)
		r = save_clock(a, g, 0, &de);
	if (!r)
		r = notify_action(a, g, seat, "time", "clock", &de);
	if (!r)
		r = db_commit(a->db, &de);
	if (r)
		return storage_fail(err, &de);
	log_event("game %s over: %s", g->rec->id, g->rec->result);
	return 0;
}

int game_timeout(app *a, const char *id, int seat, long long now, app_error *err)
{
	game_loaded g;
	int r;

	if ((r = begin_action(a, id, &g, err)))
		return r == E_GAME_OVER ? 0 : r;
	/* Checked again inside the transaction: a move or a gift may have come first. */
	if (g.clock && seat < g.clock->nseats && g.clock->seats[seat].deadline &&
	    g.clock->seats[seat].deadline <= now) {
		if (game_turn_mask(&g) & (1u << seat)) {
			log_event("game %s: %s ran out of time", id, g.rules->seat_names[seat]);
			r = g.rules->resign ? timeout_leaves(a, &g, seat, err) : timeout_ends(a, &g, seat, err);
		} else {
			/* A clock that runs for a seat the game does not wait for stands (and leaves the list). */
			db_error de;
			if (save_clock(a, &g, 0, &de) || db_commit(a->db, &de))
				r = storage_fail(err, &de);
		}
	}
	db_rollback(a->db);
	game_loaded_free(&g);
	return r;
}

int game_give_time(app *a, const char *id, int seat, const char *to, long long seconds,
		   const char *channel, app_error *err)
{
	long long now = (long long)time(NULL);
	game_loaded g;
	db_error de;
	char said[64];
	int r, k = -1;

	if (seconds < CLOCK_HOUR_S || seconds > LIMIT_CLOCK_GIVE_DAYS_MAX * CLOCK_DAY_S)
		return app_fail(err, E_BAD_CLOCK, "give from 1/24 of a day (an hour) to %d days",
				LIMIT_CLOCK_GIVE_DAYS_MAX);
	if ((r = begin_seat_action(a, id, seat, &g, err)))
		return r;
	for (int i = 0; to && i < g.rules->nseats; i++)
		if (!strcasecmp(to, g.rules->seat_names[i]))
			k = i;
	if (!g.clock)
		r = app_fail(err, E_NO_CLOCK, "this game has no clock");
	else if (k < 0)
		r = app_fail(err, E_BAD_REQUEST, "%s has no seat \"%.40s\"", g.rules->title, to ? to : "");
	else if (k == seat)
		r = app_fail(err, E_BAD_CLOCK, "time is given to another seat, not to your own");
	else if (!(seats_in_play(&g) & (1u << k)))
		r = app_fail(err, E_BAD_CLOCK, "%s is out of the game", g.rules->seat_names[k]);
	if (r)
		goto out;
	clock_give(g.clock, k, seconds, now);
	if ((r = db_clock_save(a->db, id, g.clock, &de)) == 0 &&
	    (r = notify_time_given(a, &g, seat, k, seconds, channel, &de)) == 0)
		r = db_commit(a->db, &de);
	if (r) {
		r = storage_fail(err, &de);
		goto out;
	}
	clock_duration_text(seconds, said, sizeof said);
	log_event("game %s: %s gave %s %s via %s", id, g.rules->seat_names[seat], g.rules->seat_names[k], said,
		  channel);
out:
	db_rollback(a->db);
	game_loaded_free(&g);
	return r;
}

int game_remind(app *a, const char *id, int seat, long long now, int *sent, app_error *err)
{
	game_loaded g;
	db_error de;
	int r, due;

	*sent = 0;
	if ((r = begin_action(a, id, &g, err)))
		return r == E_GAME_OVER ? 0 : r;
	due = g.clock && seat < g.clock->nseats ? clock_reminder_due(g.clock, seat, now) : 0;
	if (due) {
		/* The last reminder makes the day's one pointless: each goes at most once a deadline. */
		g.clock->seats[seat].reminded |= due == DB_CLOCK_REMINDED_LAST ?
			DB_CLOCK_REMINDED_LAST | DB_CLOCK_REMINDED_DAY : due;
		if ((r = db_clock_save(a->db, id, g.clock, &de)) == 0 && (r = notify_reminder(a, &g, seat, &de)) == 0)
			r = db_commit(a->db, &de);
		if (r)
			r = storage_fail(err, &de);
		else
			*sent = 1;
	}
	db_rollback(a->db);
	game_loaded_free(&g);
	return r;
}
