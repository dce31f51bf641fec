/* mail_in.c - from a reply mail to a game action: find the reply token, read the first line, act or refuse. */
#include "mail_in/mail_in.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/token.h"
#include "core/utc.h"
#include "game/conditional.h"
#include "game/game.h"
#include "mail_in/mail_parse.h"
#include "mail_out/consent.h"
#include "mail_out/mail.h"
#include "mail_out/mail_prefs.h"
#include "mail_out/notify.h"
#include "pipeline/pipeline.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The commands a reply may hold instead of a move, and the draw action each means. */
static const struct {
	const char *words;
	const char *action;    /* "resign" or a draw action */
} commands[] = {
	{"resign", "resign"},
	{"draw", "offer"}, {"offer draw", "offer"},
	{"accept draw", "accept"}, {"accept", "accept"},
	{"decline draw", "decline"}, {"decline", "decline"},
	{"withdraw draw", "withdraw"}, {"withdraw", "withdraw"},
};

#define COMMAND_WORDS 32

/* The start of line in lower case, with single spaces and without surrounding spaces or a final full stop. */
static void command_words(const char *line, char word[COMMAND_WORDS])
{
	size_t n = 0;

	for (const char *p = line; *p && n < COMMAND_WORDS - 1; p++) {
		if (isspace((unsigned char)*p)) {
			if (n && word[n - 1] != ' ')
				word[n++] = ' ';
		} else {
			word[n++] = (char)tolower((unsigned char)*p);
		}
	}
	while (n && (word[n - 1] == ' ' || word[n - 1] == '.' || word[n - 1] == '!'))
		n--;
	word[n] = 0;
}

/* The command a line names, ignoring case, surrounding spaces and a final full stop; NULL for a move. */
static const char *command_action(const char *line)
{
	char word[COMMAND_WORDS];

	command_words(line, word);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(word, commands[i].words))
			return commands[i].action;
	return NULL;
}

/* Find our reply token among the addresses the mail was sent to. */
static int find_token(const app *a, const mail_incoming *m, const char *recipient, char token[MAIL_TOKEN_TEXT])
{
	if (recipient && mail_token_from_address(a->mail, recipient, token) == 0)
		return 0;
	for (size_t i = 0; i < m->nrecipients; i++)
		if (mail_token_from_address(a->mail, m->recipients[i], token) == 0)
			return 0;
	return -1;
}

/*
 * Tell the seat why its reply address did not act, quoting the mail; unless
 * the seat or the game has had too many such answers lately (a loop, or
 * someone replaying an old mail). The answer goes to the seat's own address.
 */
static int refuse(app *a, const mail_incoming *m, const char *game_id, int seat, const char *why, char *msg,
		  size_t size)
{
	notify_refusal rf = {
		.game_id = game_id, .seat = seat, .subject = m->subject, .message_id = m->message_id,
		.why = why, .original = m->text,
	};
	db_error de;
	char *key_seat = xasprintf("refusal-seat:%s:%d", game_id, seat), *key_game = xasprintf("refusal-game:%s", game_id);
	int seat_ok = 0, game_ok = 0, r;
	long long now = (long long)time(NULL);

	snprintf(msg, size, "refused: %s", why);
	if ((r = db_begin(app_db(a), &de)) == 0) {
		r = db_rate_hit(app_db(a), key_seat, now, LIMIT_RATE_WINDOW_S, LIMIT_REFUSALS_PER_SEAT_HOUR, &seat_ok, &de);
		if (!r)
			r = db_rate_hit(app_db(a), key_game, now, LIMIT_RATE_WINDOW_S, LIMIT_REFUSALS_PER_GAME_HOUR, &game_ok, &de);
		if (!r && seat_ok && game_ok)
			r = notify_refused(a, &rf, &de);
		if (!r)
			r = db_commit(app_db(a), &de);
		if (r)
			db_rollback(app_db(a));
	}
	free(key_seat);
	free(key_game);
	if (r)
		return MAIL_IN_TEMPFAIL;
	if (!seat_ok || !game_ok)
		snprintf(msg, size, "refused without an answer (too many refusals for this %s): %s",
			 seat_ok ? "game" : "seat", why);
	return MAIL_IN_OK;
}

/* A choice of how much mail for the address of the seat: stored, and confirmed to that address. */
static int set_mail_mode(app *a, const char *game, int seat, int mode, int hour, app_error *err)
{
	game_loaded g;
	db_address ad = {0};
	db_error de;
	char *choice = NULL;
	int r;

	if (game_load(a, game, &g, err))
		return err->code;
	if (!g.rec->seats[seat].email) {
		game_loaded_free(&g);
		return app_fail(err, E_BAD_REQUEST, "this seat has no email address");
	}
	if ((r = db_begin(app_db(a), &de)) == 0) {
		r = db_address_get(app_db(a), g.rec->seats[seat].email, &ad, &de);
		if (!r) {
			mail_prefs_apply(&ad, mode, hour);
			r = db_address_save(app_db(a), &ad, &de);
		}
		if (!r) {
			choice = mail_prefs_describe(&ad);
			r = notify_mail_mode(a, &g, seat, choice, &de);
		}
		if (!r)
			r = db_commit(app_db(a), &de);
		if (r)
			db_rollback(app_db(a));
	}
	if (r)
		log_event("mail in: game %s: cannot store a choice of mail: %s", game, de.message);
	else
		log_event("mail preference of address %lld: %s, digest hour %d", ad.id, mail_prefs_name(&ad),
			  mail_prefs_hour(&ad));
	free(choice);
	db_address_clear(&ad);
	game_loaded_free(&g);
	return r ? app_fail(err, E_INTERNAL, "the server could not store this; nothing was changed") : 0;
}

/*
 * Whether a first line the game could not read as a move reads as words
 * instead: three words or more of two letters or more (letters outside
 * ASCII count), such as no move notation has. A shorter line is answered as
 * a move that does not parse.
 */
static int reads_as_words(const char *line)
{
	char *copy = xstrdup(line), *save = NULL;
	int words = 0;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t n = strlen(w), letters = 0;
		while (n > 0 && strchr(",.!?;:", w[n - 1]))
			n--;
		for (size_t i = 0; i < n; i++)
			letters += isalpha((unsigned char)w[i]) || (unsigned char)w[i] >= 0x80 || w[i] == '\'';
		words += n >= 2 && letters == n;
	}
	free(copy);
	return words >= 3;
}

/* Whether sig is one or more whole words of name (as "Kwame" of "Kwame Mensah"). */
static int name_part(const char *name, const char *sig)
{
	size_t n = strlen(sig);

	if (n < 2)
		return 0;
	for (const char *p = name; (p = strstr(p, sig)) != NULL; p++)
		if ((p == name || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	return 0;
}

/*
 * The words of a reply kept as a message: without a last line that only
 * signs it with (part of) the sender's name, as mail
 * programs without a "-- " separator add, and cut to a message's limits.
 * NULL when nothing is left.
 */
static char *message_words(const char *words, const char *from_name)
{
	char *w = words ? xstrdup(words) : NULL, *last;

	if (!w)
		return NULL;
	last = strrchr(w, '\n');
	const char *sig = last ? last + 1 : w;
	if (from_name && name_part(from_name, sig)) {
		char *end = last ? last : w;
		while (end > w && end[-1] == '\n')
			end--;
		*end = 0;
	}
	if (!*w) {
		free(w);
		return NULL;
	}
	/* A mail's words past a message's limits are cut (marked so) rather than refusing its move. */
	/* A blank line after the command line leads the words: a move's message drops it, so it does not count. */
	size_t bytes = strspn(w, "\n"), chars = 0, len = strlen(w);
	while (bytes < len && chars < LIMIT_MESSAGE_CHARS - 6) {
		size_t next = bytes + 1;
		while (next < len && ((unsigned char)w[next] & 0xc0) == 0x80)
			next++;
		if (next > LIMIT_MESSAGE_BYTES - 6)
			break;
		bytes = next;
		chars++;
	}
	if (bytes < len)
		strcpy(w + bytes, " [...]");
	return w;
}

/* Whether a first line (its command_words in words) is about conditional moves. */
static int conditional_command(const char *words, const char *line)
{
	return (!strncmp(words, "if ", 3) && strstr(line, " then ")) || !strcmp(words, "no conditional moves");
}

/*
 * Conditional moves by mail: "if MOVE then MOVE, if MOVE and MOVE then MOVE"
 * (conditional_from_lines) replaces the seat's tree; "no conditional moves"
 * clears it. Confirmed to the seat's own address.
 */
static int set_conditional(app *a, const char *game, int seat, const char *line, app_error *err)
{
	json_t *tree = strncasecmp(line, "if ", 3) ? json_pack("{s:[]}", "if") : conditional_from_lines(line, err);
	json_t *canon = NULL;
	int r;

	if (!tree)
		return err->code;
	r = game_conditional_put(a, game, seat, tree, 0, "mail", &canon, err);
	json_decref(tree);
	json_decref(canon);
	return r;
}

/* Act on the command with words (may be NULL) as a message to every seat; 0 or an app_code with err filled. */
static int act(app *a, const char *game, int seat, int ply, const char *line, const char *said_words,
	       app_error *err, char *done, size_t done_size)
{
	const char *action = command_action(line);
	char words[COMMAND_WORDS];
	game_move_done d;
	char to[32];
	long long seconds;
	int r, mode, hour, choice;

	command_words(line, words);
	choice = mail_prefs_from_command(words, &mode, &hour);
	if (choice < 0)
		return app_fail(err, E_BAD_REQUEST, "the hour of a digest is a whole hour of the day in UTC, 0 to 23: "
				"for example \"digest 7\" for 07:00 UTC");
	if (choice) {
		r = set_mail_mode(a, game, seat, mode, hour, err);
		snprintf(done, done_size, "mail preference set");
	} else if (conditional_command(words, line)) {
		r = set_conditional(a, game, seat, line, err);
		snprintf(done, done_size, "conditional moves stored");
	} else if (clock_give_command(line, to, sizeof to, &seconds)) {
		r = game_give_time(a, game, seat, to, seconds, "mail", err);
		snprintf(done, done_size, "gave time to %s", to);
	} else if (action && !strcmp(action, "resign")) {
		r = game_resign(a, game, seat, "mail", err);
		snprintf(done, done_size, "resigned");
	} else if (action) {
		r = game_draw(a, game, seat, action, "mail", err);
		snprintf(done, done_size, "draw %s", action);
	} else {
		game_message said;
		r = game_submit_move_said(a, game, seat, ply, line, said_words, NULL, "mail", &d, &said, NULL, err);
		snprintf(done, done_size, "%s %s%s", d.duplicate ? "already played" : "played", d.move,
			 said.seq ? " with a message" : "");
		game_message_clear(&said);
		return r;
	}
	/* The other commands are no move: their words follow as a message of their own. */
	if (!r && said_words) {
		game_message said;
		app_error merr = {0};
		if (!game_send_message(a, game, seat, said_words, NULL, "mail", &said, &merr)) {
			size_t n = strlen(done);
			snprintf(done + n, done_size - n, " with a message");
			game_message_clear(&said);
		}
	}
	return r;
}

/*
 * A reply of words alone (its first line no move, no command, but words):
 * the whole of it is a message to every seat. 1 when it was one (*r the
 * outcome: 0, or an app_code with err filled), 0 when the line is to be
 * answered as a move.
 */
static int words_alone(app *a, const char *game, int seat, const mail_incoming *m, const char *rest, int *r,
		       app_error *err)
{
	game_message said;
	game_loaded g;
	rules_move mv;
	rules_error re;
	app_error lerr;
	char words[COMMAND_WORDS];
	int mode, hour, unread;

	command_words(m->command, words);
	if (command_action(m->command) || mail_prefs_from_command(words, &mode, &hour) ||
	    conditional_command(words, m->command) ||
	    clock_give_command(m->command, words, sizeof words, &(long long){0}) || !reads_as_words(m->command))
		return 0;
	/* A game that cannot be read now: the act that follows answers for it. */
	if (game_load(a, game, &g, &lerr))
		return 0;
	unread = g.rules->parse(g.pos, seat, m->command, &mv, &re) && re.code == RULES_E_PARSE;
	game_loaded_free(&g);
	if (!unread)
		return 0;
	char *text = rest ? xasprintf("%s\n%s", m->command, rest) : xstrdup(m->command);
	if (!(*r = game_send_message(a, game, seat, text, NULL, "mail", &said, err)))
		game_message_clear(&said);
	free(text);
	return 1;
}

/*
 * Claim the reply address (game, seat, serial) for this mail: it must be the
 * seat's live one, the latest mailed to it, not used yet; once claimed it acts
 * no more (mails the action sends carry the next). A mail to it comes from
 * someone who read the seat's mail, so the seat's address is confirmed
 * (consent.h). 0 with *ply set to the ply it answers, E_STALE, or a storage
 * failure (-1).
 */
static int check_reply(app *a, const char *game, int seat, int serial, int *ply)
{
	db_reply rp;
	db_error de;
	int r;

	if (db_begin(app_db(a), &de))
		return -1;
	r = db_reply_get(app_db(a), game, seat, &rp, &de);
	if (r == DB_E_NOTFOUND) {
		db_rollback(app_db(a));
		return E_STALE;
	}
	if (!r && (rp.used || rp.serial != serial)) {
		db_rollback(app_db(a));
		return E_STALE;
	}
	*ply = rp.ply;
	if (!r)
		r = db_reply_use(app_db(a), game, seat, serial, 1, &de);
	if (!r)
		r = consent_confirm_seat(a, game, seat, &de);
	if (!r)
		r = db_commit(app_db(a), &de);
	if (r)
		db_rollback(app_db(a));
	return r ? -1 : 0;
}

/* The mail will be delivered again (the server failed): its reply address must still act then. */
static void release_reply(app *a, const char *game, int seat, int serial)
{
	db_error de;

	if (db_begin(app_db(a), &de) || db_reply_use(app_db(a), game, seat, serial, 0, &de) || db_commit(app_db(a), &de)) {
		db_rollback(app_db(a));
		log_event("mail in: game %s: cannot release a reply address: %s", game, de.message);
	}
}

/* handle, with the reply's words after its first line as kept for a message (or NULL). */
static int handle_words(app *a, const mail_incoming *m, const char *recipient, const char *words, char *msg,
			size_t size)
{
	char token[MAIL_TOKEN_TEXT], game[LIMIT_GAME_ID + 1], done[RULES_TEXT_MAX + 32], *seen = NULL, now[32];
	int seat, serial, ply = -1, r;
	app_error err = {0};
	db_error de;

	if (m->message_id && db_mail_seen(app_db(a), m->message_id, &seen, &de) == 0) {
		snprintf(msg, size, "already handled: %s", seen);
		free(seen);
		return MAIL_IN_OK;
	}
	if (m->automatic) {
		/* An out-of-office answer or a list: acting or answering could start a mail loop. */
		snprintf(msg, size, "ignored: the mail says it was sent automatically");
		return MAIL_IN_OK;
	}
	if (find_token(a, m, recipient, token)) {
		snprintf(msg, size, "no Rookery reply address (play+...@%s) among the recipients", a->mail->reply_domain);
		return MAIL_IN_NOUSER;
	}
	if (mail_token_check(a->mail_key, token, game, sizeof game, &seat, &serial) || seat < 0 ||
	    seat >= RULES_MAX_SEATS) {
		snprintf(msg, size, "the reply address is not one this Rookery gave out");
		return MAIL_IN_NOUSER;
	}
	/* The sender's From: proves nothing; the reply address is the credential, and acts once. */
	r = check_reply(a, game, seat, serial, &ply);
	if (r == E_STALE) {
		r = refuse(a, m, game, seat, "it went to an old reply address of your seat: only a reply to the "
			   "latest mail of the game acts, and only once. This mail has the live one", msg, size);
	} else if (r) {
		snprintf(msg, size, "try again later: the server could not read the game");
		return MAIL_IN_TEMPFAIL;
	} else if (!m->command) {
		r = refuse(a, m, game, seat, "no move found: write your move (or resign, offer draw, accept draw, "
			   "decline draw, or while another seat is to move conditional moves such as "
			   "\"if THEIR MOVE then YOUR ANSWER\") on the first line of your reply", msg, size);
	} else if (words_alone(a, game, seat, m, words, &r, &err)) {
		/* Not an act on the game: the reply address still takes the seat's move. */
		release_reply(a, game, seat, serial);
		if (r && (err.code == E_INTERNAL || err.code == E_UNAVAILABLE)) {
			snprintf(msg, size, "try again later: %s", err.message);
			return MAIL_IN_TEMPFAIL;
		}
		if (r) {
			char why[600];
			snprintf(why, sizeof why, "your message was not sent: %s", err.message);
			r = refuse(a, m, game, seat, why, msg, size);
		} else {
			snprintf(msg, size, "game %s: sent a message", game);
			r = MAIL_IN_OK;
		}
	} else if (act(a, game, seat, ply, m->command, words, &err, done, sizeof done)) {
		char why[600];
		if (err.code == E_INTERNAL || err.code == E_UNAVAILABLE) {
			release_reply(a, game, seat, serial);
			snprintf(msg, size, "try again later: %s", err.message);
			return MAIL_IN_TEMPFAIL;
		}
		if (err.code == E_STALE)
			snprintf(why, sizeof why, "this mail answered an earlier position (%s); reply to the latest "
				 "mail of the game", err.message);
		else
			snprintf(why, sizeof why, "\"%.200s\": %s", m->command, err.message);
		r = refuse(a, m, game, seat, why, msg, size);
	} else {
		snprintf(msg, size, "game %s: %s", game, done);
		r = MAIL_IN_OK;
	}
	if (r == MAIL_IN_OK && m->message_id) {
		utc_now(now);
		if (db_begin(app_db(a), &de) == 0) {
			if (db_mail_mark_seen(app_db(a), m->message_id, msg, now, &de) || db_commit(app_db(a), &de))
				db_rollback(app_db(a));
		}
	}
	return r;
}

/* From a parsed reply mail to an act, a message or a refusal: MAIL_IN_*, with msg saying what was done. */
static int handle(app *a, const mail_incoming *m, const char *recipient, char *msg, size_t size)
{
	char *words = message_words(m->words, m->from_name);
	int r = handle_words(a, m, recipient, words, msg, size);

	free(words);
	return r;
}

int mail_in_handle(app *a, const char *data, size_t len, const char *recipient, char *msg, size_t msg_size)
{
	mail_incoming m = {0};
	char why[256];
	int r;

	if (!a->mail) {
		snprintf(msg, msg_size, "this server does not take mail");
		return MAIL_IN_NOUSER;
	}
	/* GMime is not promised to be thread-safe: parse under the same lock as the composer. */
	app_writer_lock(a);
	r = mail_parse(data, len, &m, why);
	if (r && r != MAIL_E_NO_TEXT) {
		app_writer_unlock(a);
		snprintf(msg, msg_size, "unreadable message: %s", why);
		log_event("mail in: %s", msg);
		return MAIL_IN_DATAERR;
	}
	r = handle(a, &m, recipient, msg, msg_size);
	app_writer_unlock(a);
	char safe[200];
	log_sanitize(safe, sizeof safe, msg);
	log_event("mail in: %s", safe);
	mail_incoming_clear(&m);
	return r;
}
