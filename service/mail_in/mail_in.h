/* mail_in.h - act on one incoming mail: a move or a command by reply, through the same game actions. */
#ifndef ROOKERY_MAIL_IN_H
#define ROOKERY_MAIL_IN_H

#include "core/app.h"

#include <stddef.h>
#include <sysexits.h>

/* Exit codes of sysexits.h, which MTAs understand: bounce, or keep and retry. */
enum mail_in_status {
	MAIL_IN_OK = 0,         /* handled: acted on, or answered with a refusal mail */
	MAIL_IN_DATAERR = EX_DATAERR,   /* not a message we can read or answer: bounce */
	MAIL_IN_NOUSER = EX_NOUSER,     /* no such reply address: bounce */
	MAIL_IN_SOFTWARE = EX_SOFTWARE, /* the daemon did not understand the request */
	MAIL_IN_TEMPFAIL = EX_TEMPFAIL, /* try again later */
};

/*
 * Handle one message. recipient is the envelope recipient when the MTA
 * tells it (may be NULL: then Delivered-To, X-Original-To, To and Cc are
 * searched for a reply address). Takes a->lock for its database work.
 * Returns a mail_in_status and a one-line outcome in msg.
 */
int mail_in_handle(app *a, const char *data, size_t len, const char *recipient, char *msg, size_t msg_size);

#endif
