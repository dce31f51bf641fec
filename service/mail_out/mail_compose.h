/* mail_compose.h - one outgoing mail as RFC 5322 text, built with GMime. */
#ifndef ROOKERY_MAIL_COMPOSE_H
#define ROOKERY_MAIL_COMPOSE_H

#include "mail_out/mail.h"

typedef struct mail_out {
	const char *to_name;      /* display name, any UTF-8 (encoded per RFC 2047) */
	const char *to_addr;
	const char *reply_to;     /* NULL for none */
	const char *subject;      /* UTF-8 */
	const char *message_id;   /* without angle brackets */
	const char *in_reply_to;  /* without angle brackets, or NULL */
	const char *references;   /* message ids without brackets, separated by spaces, or NULL */
	const char *text;         /* the plain-text body, UTF-8 */
	int with_html;            /* add an HTML alternative built from text */
	const char *html_board;   /* an HTML fragment (the board as a table) for the HTML part, or NULL */
	const char *board_after;  /* ... placed after the first place the text holds this (the text's board); else at the end */
	const char *unsubscribe_url;  /* List-Unsubscribe with one-click POST (RFC 8058), or NULL */
} mail_out;

/*
 * The whole message (headers and body, LF line ends), malloc'd. From is
 * "Rookery <mc->from>", Date is now, and the mail says it was sent
 * automatically (Auto-Submitted), so that vacation responders stay quiet.
 * mail_compose_init must have run (it starts GMime).
 */
char *mail_compose(const mail_config *mc, const mail_out *m);

/* Start and stop GMime for the whole process; safe to call more than once. */
void mail_compose_init(void);
void mail_compose_shutdown(void);

#endif
