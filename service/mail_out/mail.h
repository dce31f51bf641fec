/* mail.h - how this server sends mail, and the reply addresses that let players move by mail. */
#ifndef ROOKERY_MAIL_H
#define ROOKERY_MAIL_H

#include <stddef.h>

enum mail_tls { MAIL_TLS_TRY, MAIL_TLS_REQUIRE, MAIL_TLS_NONE };

typedef struct mail_config {
	char *smtp_url;      /* smtp://host:port or smtps://user:pass@host; NULL: write to maildir */
	enum mail_tls tls;   /* STARTTLS policy for smtp:// (smtps:// is always TLS) */
	char *from;          /* the sender address, e.g. rookery@example.org */
	char *reply_domain;  /* replies go to play+TOKEN@reply_domain */
	char *maildir;       /* where mails are written when there is no SMTP server */
	const char *link_base; /* the server's base URL: HTML mails link only URLs under it; NULL: none */
} mail_config;

/* Reply tokens: lower-case, so that mail systems that fold case keep them valid. */
#define MAIL_TOKEN_TEXT 48

/*
 * The token of a reply address bound to (game, seat, serial), where serial
 * counts the reply addresses mailed to that seat (only the latest one acts):
 * "<game>-<seat>-<serial>-<mac>", mac = 16 base32 characters of
 * HMAC-SHA256(key, "rookery-reply/v1|<game>|<seat>|<serial>").
 */
void mail_token_make(const unsigned char key[32], const char *game, int seat, int serial,
		     char out[MAIL_TOKEN_TEXT]);

/* Check a token; on success fill game (at least 33 bytes), seat and serial. Returns 0 or -1. */
int mail_token_check(const unsigned char key[32], const char *token, char *game, size_t game_size,
		     int *seat, int *serial);

/*
 * The token of an address's unsubscribe link: "<address id>-<mac>", mac =
 * 16 base32 characters of HMAC-SHA256(key, "rookery-stop/v1|<id>").
 */
void mail_stop_token_make(const unsigned char key[32], long long address_id, char out[MAIL_TOKEN_TEXT]);

/* Check an unsubscribe token; 0 with *address_id filled, or -1. */
int mail_stop_token_check(const unsigned char key[32], const char *token, long long *address_id);

/* The reply address for a token: play+<token>@<domain>. Caller frees. */
char *mail_reply_address(const mail_config *mc, const char *token);

/* The token in a reply address of our domain ("play+TOKEN@domain", any case), copied to out; -1 if none. */
int mail_token_from_address(const mail_config *mc, const char *address, char out[MAIL_TOKEN_TEXT]);

#endif
