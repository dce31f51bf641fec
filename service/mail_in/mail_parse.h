/* mail_parse.h - incoming reply mails: headers, the chosen text part, and the command line in it. */
#ifndef ROOKERY_MAIL_PARSE_H
#define ROOKERY_MAIL_PARSE_H

#include <stddef.h>

#include "core/limits.h"

/* Largest message mail_parse looks at; larger ones are refused unparsed. */
#define MAIL_MAX_BYTES LIMIT_MAIL_SIZE
/* Longest command line the server accepts (a move's); mail_parse still returns longer ones. */
#define MAIL_MAX_COMMAND LIMIT_MOVE_TEXT
/* Most bytes kept in mail_incoming.text (cut at a UTF-8 character boundary). */
#define MAIL_MAX_TEXT LIMIT_MAIL_TEXT

#define MAIL_E_MALFORMED (-1) /* not a parseable message: no headers */
#define MAIL_E_TOO_LARGE (-2) /* over MAIL_MAX_BYTES */
#define MAIL_E_NO_TEXT (-3)   /* no text/plain or text/html part at all */
#define MAIL_E_BINARY (-4)    /* NUL bytes or other control characters in the headers */

typedef struct mail_incoming {
	char *message_id;      /* Message-ID without angle brackets, or NULL */
	char *from;            /* the From address (addr-spec only), or NULL */
	char *from_name;       /* display name, decoded to UTF-8, or NULL */
	char *subject;         /* decoded to UTF-8, or NULL */
	char **recipients;     /* addr-specs from Delivered-To, X-Original-To, To, Cc (in that order, deduplicated, lower-cased) */
	size_t nrecipients;
	char *in_reply_to;     /* without brackets, or NULL */
	int automatic;         /* sent by a machine: Auto-Submitted other than "no" (RFC 3834), or
				  Precedence bulk, junk or list; such mails are never answered */
	char *command;         /* first line of the reply's own text (see mail_first_line), UTF-8, or NULL */
	char *words;           /* the reply's own text after the command line (mail_reply_words), or NULL */
	char *text;            /* the message's text (UTF-8, LF line ends, from text/plain, else converted from text/html), at most MAIL_MAX_TEXT bytes */
} mail_incoming;

/* Start GMime. Call once before any mail_parse; returns 0. */
int mail_parse_init(void);

/* Stop GMime; no mail_parse after it (until mail_parse_init again). */
void mail_parse_shutdown(void);

/* Parse one RFC 5322 message data[0..len) into *out (all strings malloc'd,
 * release with mail_incoming_clear). Returns 0, or a negative MAIL_E_* code
 * with why filled with one sentence. On MAIL_E_NO_TEXT the header fields are
 * still filled so that a refusal can be addressed; on the other errors *out
 * is left empty. A message without a command is not an error: command is NULL.
 * The text part chosen is the first text/plain that is not an attachment
 * (falling back to the first text/html when there is none, or when that plain
 * part is blank), walking multiparts but not attached messages. */
int mail_parse(const char *data, size_t len, mail_incoming *out, char why[256]);

/* Free every field of *m and zero it; safe on a zeroed or already cleared one. */
void mail_incoming_clear(mail_incoming *m);

/* The first line of the user's own text in body (plain UTF-8 text, LF or
 * CRLF lines), or NULL when there is none; malloc'd. Skips blank lines (NBSP,
 * other Unicode spaces and zero-width characters count as white space),
 * quoted lines ("> ...") and an attribution ("On ... wrote:", also wrapped
 * over two lines, French, German and some other forms) that is followed by
 * quoted text, so a reply below the quote is found. Stops at a signature
 * separator ("-- "), an Outlook separator ("-----Original Message-----", a
 * line of underscores or dashes), a quoted header block ("From:" followed by
 * "Sent:"/"Date:"/"To:"/"Subject:"), "Begin forwarded message:", a mobile
 * signature ("Sent from my ..."), or an attribution not followed by quoted
 * text. The line is returned trimmed, with inner white space characters made
 * plain spaces and zero-width ones dropped; it may be longer than
 * MAIL_MAX_COMMAND. Exposed for tests. */
char *mail_first_line(const char *body);

/* The player's own lines after the first (mail_first_line's) up to the
 * first quoted line, attribution, signature or other stop line, without
 * blank lines after them and with runs of blank lines made one (so a blank
 * line after the first line shows as a leading "\n"); NULL when there are
 * none. Lines are trimmed as mail_first_line's are. malloc'd.
 * Exposed for tests. */
char *mail_reply_words(const char *body);

/* body as text: drops head, style and script; block elements become line
 * breaks; text inside blockquote and known quote containers (gmail_quote,
 * moz-cite-prefix, ...) gets "> " prefixes, as does everything from Outlook's
 * reply header (divRplyFwdMsg, appendonsend, border-top separator) on;
 * entities are decoded. malloc'd, never NULL. Exposed for tests. */
char *mail_html_to_text(const char *html);

#endif
