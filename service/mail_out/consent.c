/* consent.c - who may be mailed: one invitation until the owner acts, the owner's stop, a daily cap. */
#include "mail_out/consent.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/token.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The kinds of mail an address that never acted may get: its one invitation. */
static int is_invitation(const char *kind)
{
	return !strcmp(kind, "invitation");
}

/*
 * The mails about the moment of a game, which a daily digest replaces and "only the essentials"
 * leaves out. Every other kind is essential and goes out whatever the address chose:
 * invitations, reminders, results (game_over), sign-in links, summaries, digests, and the answers
 * to what the owner just did by mail (accepted, refused).
 */
static int is_moment(const char *kind)
{
	static const char *const moments[] = {"your_turn", "draw_offer", "draw_answer"};

	for (size_t i = 0; i < sizeof moments / sizeof *moments; i++)
		if (!strcmp(kind, moments[i]))
			return 1;
	return 0;
}

/* The mails that are one a day at most and go out whatever the day's count. */
static int is_daily(const char *kind)
{
	return !strcmp(kind, "summary") || !strcmp(kind, "digest");
}

int consent_gate(app *a, const char *email, const char *kind, const char *game_id, long long now,
		 int *verdict, long long *address_id, db_error *err)
{
	db_address ad;
	long long today = now / CLOCK_DAY_S;
	int r = db_address_get(app_db(a), email, &ad, err);

	*verdict = CONSENT_SKIP;
	*address_id = ad.id;
	if (r)
		return r;
	if (ad.stopped || (is_invitation(kind) && ad.no_invites))
		goto out;
	if (ad.consent != DB_CONSENT_CONFIRMED) {
		/* One mail, the invitation, until the owner acts. */
		if (!is_invitation(kind) || ad.consent == DB_CONSENT_INVITED)
			goto out;
		ad.consent = DB_CONSENT_INVITED;
	}
	if (ad.mail_mode != DB_MAIL_EVERY_MOVE && is_moment(kind)) {
		/* Not sent, not counted: the digest lists the games that wait, from their state. */
		*verdict = ad.mail_mode == DB_MAIL_DIGEST ? CONSENT_DIGEST : CONSENT_SKIP;
		goto out;
	}
	if (ad.day != today) {
		ad.day = today;
		ad.day_count = 0;
	}
	/* The next day's summary of what was held, and the digest, are one mail more, whatever the count. */
	if (ad.day_count >= LIMIT_MAILS_PER_ADDRESS_DAY && !is_daily(kind)) {
		*verdict = CONSENT_HOLD;
		r = db_held_add(app_db(a), ad.id, game_id, kind, today, err);
		goto out;
	}
	ad.day_count++;
	*verdict = CONSENT_SEND;
	r = db_address_save(app_db(a), &ad, err);
out:
	db_address_clear(&ad);
	return r;
}

int consent_confirm_seat(app *a, const char *game_id, int seat, db_error *err)
{
	db_game *g = NULL;
	int r = db_game_load(app_db(a), game_id, &g, err);

	if (!r && g->seats[seat].email)
		r = consent_confirm(a, g->seats[seat].email, err);
	db_game_free(g);
	return r;
}

int consent_confirm(app *a, const char *email, db_error *err)
{
	db_address ad;
	int r = db_address_get(app_db(a), email, &ad, err);

	if (!r && ad.consent != DB_CONSENT_CONFIRMED) {
		ad.consent = DB_CONSENT_CONFIRMED;
		r = db_address_save(app_db(a), &ad, err);
	}
	db_address_clear(&ad);
	return r;
}

/* The game and seat of a mailed seat link, or -1. *game is malloc'd. */
static int mailed_seat(app *a, const char *token, char **game, int *seat)
{
	unsigned char hash[TOKEN_HASH_BYTES];
	db_error de;

	*game = NULL;
	if (!token || !token_well_formed(token))
		return -1;
	token_hash(token, hash);
	return db_seat_link_find(app_db(a), hash, game, seat, &de) ? -1 : 0;
}

int consent_token_mailed(app *a, const char *token, const char *game_id, int seat)
{
	char *game;
	int s, yes = mailed_seat(a, token, &game, &s) == 0 && !strcmp(game, game_id) && s == seat;

	free(game);
	return yes;
}

int consent_token_acted(app *a, const char *token)
{
	db_error de;
	char *game;
	int seat, r;

	if (!a->mail || mailed_seat(a, token, &game, &seat))
		return 0;
	if ((r = db_begin(app_db(a), &de)) == 0) {
		r = consent_confirm_seat(a, game, seat, &de);
		if (!r)
			r = db_commit(app_db(a), &de);
		if (r)
			db_rollback(app_db(a));
	}
	if (r)
		log_event("game %s: cannot record that a player acted by mail: %s", game, de.message);
	free(game);
	return 1;
}

int consent_may_offer(app *a, const char *email)
{
	db_address ad;
	db_error de;
	int offer;

	if (!a->mail || !email)
		return 0;
	if (db_address_find(app_db(a), email, &ad, &de))
		return 1;
	offer = ad.consent != DB_CONSENT_CONFIRMED || ad.stopped;
	db_address_clear(&ad);
	return offer;
}

int consent_request_mail(app *a, const char *token, const char *game_id, int seat, app_error *err)
{
	db_address ad = {0};
	db_game *g = NULL;
	db_error de;
	int r;

	if (!a->mail)
		return app_fail(err, E_BAD_REQUEST, "this server sends no mail");
	if (!consent_token_mailed(a, token, game_id, seat))
		return app_fail(err, E_FORBIDDEN, "only a link that came by mail to this seat's address can ask for "
				"mail: open the link in your invitation");
	if ((r = db_begin(app_db(a), &de)) == 0) {
		r = db_game_load(app_db(a), game_id, &g, &de);
		if (!r && !g->seats[seat].email) {
			db_rollback(app_db(a));
			db_game_free(g);
			return app_fail(err, E_BAD_REQUEST, "this seat has no email address");
		}
		if (!r)
			r = db_address_get(app_db(a), g->seats[seat].email, &ad, &de);
		if (!r) {
			ad.consent = DB_CONSENT_CONFIRMED;
			ad.stopped = 0;
			r = db_address_save(app_db(a), &ad, &de);
		}
		if (!r)
			r = db_commit(app_db(a), &de);
		if (r)
			db_rollback(app_db(a));
	}
	db_address_clear(&ad);
	db_game_free(g);
	if (r) {
		log_event("game %s: cannot record a request for mail: %s", game_id, de.message);
		return app_fail(err, E_INTERNAL, "the server could not store this; nothing was changed");
	}
	return 0;
}

char *consent_stop_url(const app *a, long long address_id)
{
	char token[MAIL_TOKEN_TEXT];

	mail_stop_token_make(a->mail_key, address_id, token);
	return xasprintf("%s/mail/stop/%s", a->base_url, token);
}
