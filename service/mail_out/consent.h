/* consent.h - who may be mailed: one invitation until the owner acts, the owner's stop, a daily cap. */
#ifndef ROOKERY_CONSENT_H
#define ROOKERY_CONSENT_H

#include "core/app.h"
#include "core/errors.h"
#include "mail_out/mail.h"

enum consent_verdict {
	CONSENT_SEND,    /* queue it (counted against the day's cap) */
	CONSENT_SKIP,    /* the address has not agreed to it, or wants none: drop it */
	CONSENT_HOLD,    /* over the day's cap: only noted, for the next day's summary */
	CONSENT_DIGEST,  /* the address takes a daily digest: not sent now, nor counted */
};

/*
 * May a mail of kind ("invitation", "your_turn", "signin", ...) about
 * game_id (NULL for none) go to email at unix time now? Call inside the
 * transaction that would queue it. An address that has never acted gets one
 * invitation and nothing else; one whose owner stopped mail gets nothing;
 * one that had LIMIT_MAILS_PER_ADDRESS_DAY mails today gets the rest noted
 * for one summary the next day. An address that chose a daily digest or
 * only the essentials gets no "your move" or draw mails (kinds your_turn,
 * draw_offer, draw_answer); every other kind, "reminder" included, is
 * essential. *address_id names the address (for its unsubscribe link).
 * Returns 0 or a db status.
 */
int consent_gate(app *a, const char *email, const char *kind, const char *game_id, long long now,
		 int *verdict, long long *address_id, db_error *err);

/* The owner of email has acted: mail about their games may follow. Inside a transaction. */
int consent_confirm(app *a, const char *email, db_error *err);

/* The same for the address of a game's seat, if it has one. */
int consent_confirm_seat(app *a, const char *game_id, int seat, db_error *err);

/*
 * After a POST made with a seat token: when the token is a seat link that
 * was mailed (an invitation's, a "your move" mail's or a signed-in list's),
 * whoever used it read that seat's mail, so the seat's address is confirmed.
 * A seat's own token proves nothing (the game's creator holds them all).
 * Runs its own transaction; returns 1 when the token was a mailed link.
 */
int consent_token_acted(app *a, const char *token);

/* Whether token is a mailed seat link of game_id's seat (see consent_token_acted). */
int consent_token_mailed(app *a, const char *token, const char *game_id, int seat);

/*
 * Whether the seat's page should offer its reader, who came by a mailed link,
 * to ask for mail: the seat has an address that is not confirmed, or stopped.
 */
int consent_may_offer(app *a, const char *email);

/*
 * The owner of a mailed seat link asks for mail about the game (the button
 * on the seat page): confirms the address and lifts a stop. Own transaction;
 * E_FORBIDDEN when token is not a mailed link of that seat (the creator's
 * copy of the seat's token proves nothing about the address).
 */
int consent_request_mail(app *a, const char *token, const char *game_id, int seat, app_error *err);

/* The unsubscribe page of an address: BASE/mail/stop/<token>. Caller frees. */
char *consent_stop_url(const app *a, long long address_id);

#endif
