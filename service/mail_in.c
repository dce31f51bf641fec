/* mail_in.c - from a reply mail to a game action: find the reply token, read the first line, act or refuse. */
#include "mail_in.h"
#include "game.h"
#include "limits.h"
#include "log.h"
#include "mail.h"
#include "mail_parse.h"
#include "notify.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define REFUSALS_PER_HOUR 20   /* per sender: a looping autoresponder gets no more answers */

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

/* The command a line names, ignoring case, surrounding spaces and a final full stop; NULL for a move. */
static const char *command_action(const char *line)
{
	char word[32];
	size_t n = 0;

	for (const char *p = line; *p && n < sizeof word - 1; p++) {
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

/* Answer the sender with why, quoting the mail; unless they have had too many answers lately. */
static int refuse(app *a, const mail_incoming *m, const char *game_id, int seat, const char *why, char *msg,
		  size_t size)
{
	notify_refusal rf = {
		.to_addr = m->from, .to_name = m->from_name, .game_id = game_id, .seat = seat,
		.subject = m->subject, .message_id = m->message_id, .why = why, .original = m->text,
	};
	db_error de;
	char key[300];
	int allowed = 1, r;

	snprintf(msg, size, "refused: %s", why);
	if (!m->from)
		return MAIL_IN_DATAERR;
	snprintf(key, sizeof key, "refusal:%s", m->from);
	if (db_begin(a->db, &de))
		return MAIL_IN_TEMPFAIL;
	r = db_rate_hit(a->db, key, (long long)time(NULL), 3600, REFUSALS_PER_HOUR, &allowed, &de);
	if (!r && allowed)
		r = notify_refused(a, &rf, &de);
	if (!r)
		r = db_commit(a->db, &de);
	if (r) {
		db_rollback(a->db);
		return MAIL_IN_TEMPFAIL;
	}
	if (!allowed)
		snprintf(msg, size, "refused without an answer (too many refusals to %s): %s", m->from, why);
	return MAIL_IN_OK;
}

/* Act on the command; 0 or an app_code with err filled. */
static int act(app *a, const char *game, int seat, int ply, const char *line, app_error *err, char *done,
	       size_t done_size)
{
	const char *action = command_action(line);
	game_move_done d;
	int r;

	if (action && !strcmp(action, "resign")) {
		r = game_resign(a, game, seat, "mail", err);
		snprintf(done, done_size, "resigned");
	} else if (action) {
		r = game_draw(a, game, seat, action, "mail", err);
		snprintf(done, done_size, "draw %s", action);
	} else {
		r = game_submit_move(a, game, seat, ply, line, "mail", &d, err);
		snprintf(done, done_size, "%s %s", d.duplicate ? "already played" : "played", d.move);
	}
	return r;
}

static int handle(app *a, const mail_incoming *m, const char *recipient, char *msg, size_t size)
{
	char token[MAIL_TOKEN_TEXT], game[LIMIT_GAME_ID + 1], done[RULES_TEXT_MAX + 32], *seen = NULL, now[32];
	int seat, ply, r;
	app_error err = {0};
	db_error de;

	if (m->message_id && db_mail_seen(a->db, m->message_id, &seen, &de) == 0) {
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
	if (mail_token_check(a->mail_key, token, game, sizeof game, &seat, &ply)) {
		snprintf(msg, size, "the reply address is not one this Rookery gave out");
		return MAIL_IN_NOUSER;
	}
	if (!m->command) {
		r = refuse(a, m, game, seat, "no move found: write your move (or resign, offer draw, accept draw, "
			   "decline draw) on the first line of your reply", msg, size);
	} else if (act(a, game, seat, ply, m->command, &err, done, sizeof done)) {
		char why[600];
		if (err.code == E_STALE)
			snprintf(why, sizeof why, "this mail answered an earlier position (%s); reply to the latest "
				 "mail of the game", err.message);
		else
			snprintf(why, sizeof why, "\"%.200s\": %s", m->command, err.message);
		if (err.code == E_INTERNAL || err.code == E_UNAVAILABLE) {
			snprintf(msg, size, "try again later: %s", err.message);
			return MAIL_IN_TEMPFAIL;
		}
		r = refuse(a, m, game, seat, why, msg, size);
	} else {
		snprintf(msg, size, "game %s: %s", game, done);
		r = MAIL_IN_OK;
	}
	if (r == MAIL_IN_OK && m->message_id) {
		app_now(now);
		if (db_begin(a->db, &de) == 0) {
			if (db_mail_mark_seen(a->db, m->message_id, msg, now, &de) || db_commit(a->db, &de))
				db_rollback(a->db);
		}
	}
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
	pthread_mutex_lock(&a->lock);
	r = mail_parse(data, len, &m, why);
	if (r && r != MAIL_E_NO_TEXT) {
		pthread_mutex_unlock(&a->lock);
		snprintf(msg, msg_size, "unreadable message: %s", why);
		log_event("mail in: %s", msg);
		return MAIL_IN_DATAERR;
	}
	r = handle(a, &m, recipient, msg, msg_size);
	pthread_mutex_unlock(&a->lock);
	char safe[200];
	log_sanitize(safe, sizeof safe, msg);
	log_event("mail in: %s", safe);
	mail_incoming_clear(&m);
	return r;
}
