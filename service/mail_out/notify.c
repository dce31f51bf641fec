/* notify.c - the texts of the mails, and to whom they go; composed now, sent later by the outbox. */
#include "mail_out/notify.h"
#include "core/limits.h"
#include "core/links.h"
#include "core/token.h"
#include "core/utc.h"
#include "game/clock.h"
#include "game/conditional.h"
#include "game/view.h"
#include "mail_out/consent.h"
#include "mail_out/mail.h"
#include "mail_out/mail_board.h"
#include "mail_out/mail_compose.h"
#include "mail_out/mail_messages.h"
#include "mail_out/outbox.h"
#include "xalloc.h"

#include <glib.h>
#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The subject every mail of a game shares, so that mail clients thread them. */
static char *game_subject(const game_loaded *g)
{
	GString *s = g_string_new(NULL);
	char *out;

	g_string_append_printf(s, "[Rookery] %s game %s:", g->rules->title, g->rec->id);
	for (int i = 0; i < g->rec->nseats; i++)
		g_string_append_printf(s, "%s %s (%s)", i ? " vs" : "", g->rec->seats[i].name,
				       g->rules->seat_names[g->rec->seats[i].seat]);
	out = xstrdup(s->str);
	g_string_free(s, TRUE);
	return out;
}

/* The id all mails to one seat of one game reply to: the invitation's. */
static char *thread_root(const app *a, const char *game, int seat)
{
	return xasprintf("%s.%d.invite@%s", game, seat, a->mail->reply_domain);
}

static char *new_message_id(const app *a, const char *game, const char *kind)
{
	unsigned char r[6];
	char hex[13];

	randombytes_buf(r, sizeof r);
	sodium_bin2hex(hex, sizeof hex, r, sizeof r);
	return xasprintf("%s.%s.%s@%s", game ? game : "rookery", kind, hex, a->mail->reply_domain);
}

/* A fresh seat link for a mail (the seat's own token is only ever shown once). */
static char *mint_seat_link(app *a, const char *game, int seat, db_error *err)
{
	char token[TOKEN_TEXT];
	unsigned char hash[TOKEN_HASH_BYTES];

	token_new(token);
	token_hash(token, hash);
	if (db_seat_link_add(app_db(a), hash, game, seat, (long long)time(NULL) + LIMIT_SEAT_LINK_DAYS * CLOCK_DAY_S, err))
		return NULL;
	return link_seat(a, game, token);
}

/*
 * Queue m to the one address it is for. Every mail says how to stop them, in
 * its text and as RFC 8058 one-click List-Unsubscribe headers.
 */
static int queue(app *a, const char *game, const char *kind, mail_out *m, long long address_id, db_error *err)
{
	char now[32], *stop = consent_stop_url(a, address_id), *msg;
	char *text = xasprintf("%s\n-- \nRookery writes only about games you play, and to nobody who has not asked.\n"
			       "To choose how much mail you get (every move, a daily digest, or only the essentials), "
			       "or to stop it:\n%s\n", m->text, stop);
	int r;

	m->text = text;
	m->unsubscribe_url = stop;
	msg = mail_compose(a->mail, m);
	utc_now(now);
	r = db_outbox_add(app_db(a), game, kind, m->to_addr, msg, now, (long long)time(NULL), err);
	/* The worker looks at once (it also looks every few seconds). It waits for the
	 * database, which this change holds until it commits or rolls back. */
	if (!r)
		outbox_wake(a->outbox);
	free(msg);
	free(text);
	free(stop);
	return r;
}

/*
 * Whether seat's address may have a mail of kind now (see consent_gate): 0
 * with *ok set, or a storage error. A seat without an address gets nothing.
 */
static int seat_may_mail(app *a, const game_loaded *g, int seat, const char *kind, long long *address_id,
			 int *ok, db_error *err)
{
	const char *email = g->rec->seats[seat].email;
	int verdict = CONSENT_SKIP, r = 0;

	if (email)
		r = consent_gate(a, email, kind, g->rec->id, (long long)time(NULL), &verdict, address_id, err);
	*ok = !r && verdict == CONSENT_SEND;
	return r;
}

/*
 * Queue m to seat's own registered address (never anywhere else) with a
 * fresh reply address: the seat's previous one stops acting. A game that is
 * over takes no replies.
 */
static int queue_to_seat_address(app *a, const game_loaded *g, int seat, const char *kind, mail_out *m,
				 long long address_id, db_error *err)
{
	const db_seat *s = &g->rec->seats[seat];
	char token[MAIL_TOKEN_TEXT], *reply = NULL;
	int serial, r;

	if (!g->rec->over) {
		if ((r = db_reply_issue(app_db(a), g->rec->id, seat, g->rec->ply, &serial, err)))
			return r;
		mail_token_make(a->mail_key, g->rec->id, seat, serial, token);
		reply = mail_reply_address(a->mail, token);
	}
	m->to_name = s->name;
	m->to_addr = s->email;
	m->reply_to = reply;
	r = queue(a, g->rec->id, kind, m, address_id, err);
	free(reply);
	return r;
}

/*
 * The HTML part's board for a mail to seat, a table after the text's own
 * board (append_position writes it): m points into *table and *text, which
 * the caller frees.
 */
static void attach_board(const game_loaded *g, int seat, mail_out *m, char **table, char **text)
{
	*table = mail_board_html(g, seat);
	*text = view_board_text(g, seat);
	m->with_html = 1;
	m->html_board = *table;
	m->board_after = *text;
}

/*
 * Send text to one seat of g, threaded under that seat's invitation, with the
 * messages the seat has not had by mail yet after its first paragraph.
 */
static int queue_to_seat(app *a, const game_loaded *g, int seat, const char *kind, const char *text,
			 long long address_id, int is_root, db_error *err)
{
	char *subject = game_subject(g), *root = thread_root(a, g->rec->id, seat);
	char *id = is_root ? xstrdup(root) : new_message_id(a, g->rec->id, kind);
	GString *said = g_string_new(NULL), *full = g_string_new(text);
	const char *greeting = strstr(text, "\n\n"), *para = greeting ? strstr(greeting + 2, "\n\n") : NULL;
	long long upto = 0;
	int r = mail_messages_append(a, g, seat, said, &upto, err);

	g_string_insert(full, para ? para - text + 1 : -1, said->str);
	mail_out m = {
		.subject = subject, .message_id = id, .in_reply_to = is_root ? NULL : root,
		.references = is_root ? NULL : root, .text = full->str, .with_html = 1,
	};
	char *table, *board;
	attach_board(g, seat, &m, &table, &board);
	if (!r)
		r = queue_to_seat_address(a, g, seat, kind, &m, address_id, err);
	if (!r && upto)
		r = db_messages_mailed_set(app_db(a), g->rec->id, seat, upto, err);
	g_string_free(said, TRUE);
	g_string_free(full, TRUE);
	free(table);
	free(board);
	free(subject);
	free(root);
	free(id);
	return r;
}

static const char *opponents(const game_loaded *g, int seat, GString *buf)
{
	int first = 1;

	for (int i = 0; i < g->rec->nseats; i++) {
		if (i == seat)
			continue;
		if (g->rec->seats[i].open)
			g_string_append_printf(buf, "%swhoever takes the open seat %s", first ? "" : ", ",
					       g->rules->seat_names[i]);
		else
			g_string_append_printf(buf, "%s%s (%s)", first ? "" : ", ", g->rec->seats[i].name,
					       g->rules->seat_names[i]);
		first = 0;
	}
	return buf->str;
}

/* Rolls as stored with a move ([{"sides": 12, "value": 7}, ...]) written as "  d12: 7, 3". */
static void append_dice(GString *t, const char *stored)
{
	json_t *rolls = stored ? json_loads(stored, 0, NULL) : NULL, *roll;
	size_t i;

	json_array_foreach(rolls, i, roll)
		g_string_append_printf(t, "%sd%d: %d", i ? ", " : "  ",
				       (int)json_integer_value(json_object_get(roll, "sides")),
				       (int)json_integer_value(json_object_get(roll, "value")));
	json_decref(rolls);
}

/* The last few moves, numbered, with notes and dice, as seat may see them. */
static void append_last_moves(app *a, const game_loaded *g, int seat, GString *t)
{
	db_move *moves;
	size_t n;
	db_error de;

	if (db_moves_range(app_db(a), g->rec->id, g->rec->ply > 6 ? g->rec->ply - 6 : 0, 6, &moves, &n, &de) || n == 0) {
		if (n == 0)
			g_string_append(t, "No moves yet.\n");
		return;
	}
	g_string_append(t, "Last moves:\n");
	for (size_t i = 0; i < n; i++) {
		int hidden = moves[i].secret && moves[i].seat != seat;
		g_string_append_printf(t, "  %3d. %-6s %s", moves[i].ply + 1, g->rules->seat_names[moves[i].seat],
				       view_move_text(&moves[i], seat));
		if (!hidden && moves[i].note && *moves[i].note)
			g_string_append_printf(t, "  (%s)", moves[i].note);
		append_dice(t, moves[i].dice);
		g_string_append_c(t, '\n');
	}
	db_moves_free(moves, n);
}

/* A complete legal move of seat, as an example of what to write. */
static void example_move(const game_loaded *g, int seat, char out[RULES_TEXT_MAX])
{
	rules_move_list list = {0};

	snprintf(out, RULES_TEXT_MAX, "?");
	g->rules->legal_moves(g->pos, seat, &list);
	for (size_t i = 0; i < list.n; i++)
		if (!list.v[i].partial) {
			g->rules->format(g->pos, &list.v[i], out, RULES_TEXT_MAX);
			break;
		}
	rules_move_list_free(&list);
}

/* When seat must have moved by, in UTC and from now: every mail that asks a timed seat for a move says it. */
static void append_deadline(const game_loaded *g, int seat, GString *t)
{
	long long now = (long long)time(NULL);
	char at[32], left[64];

	if (!g->clock || !g->clock->seats[seat].deadline)
		return;
	clock_iso(g->clock->seats[seat].deadline, at);
	clock_duration_text(clock_remaining(g->clock, seat, now), left, sizeof left);
	g_string_append_printf(t, "\nYour deadline: %s (UTC), %s from now. If you have not moved by then, "
			       "you lose on time.\n", at, left);
}

/* The board, the moves and how to answer: the body of every mail that asks for a move. */
static void append_position(app *a, const game_loaded *g, int seat, int to_move, const char *link, GString *t)
{
	char *board = view_board_text(g, seat);

	g_string_append_printf(t, "\n%s\n", board);
	free(board);
	append_last_moves(a, g, seat, t);
	if (to_move)
		append_deadline(g, seat, t);
	if (to_move) {
		char example[RULES_TEXT_MAX];
		example_move(g, seat, example);
		g_string_append_printf(t, "\nTo move, reply to this mail with your move on the first line, "
				       "for example:\n\n    %s\n\n"
				       "You may also reply with one of: resign, offer draw, accept draw, decline draw.\n"
				       "Words below your move go to the other players as a message (not the quoted mail "
				       "or your signature);\na reply of words alone, a sentence on its first line, "
				       "is a message alone.\n"
				       "Only a reply to the latest mail of the game acts, and only once.\n",
				       example);
	}
	if (!to_move && !g->rec->over)
		g_string_append(t, "\nWhile the others move, you may reply with conditional moves on the first line: "
				"\"if THEIR MOVE then YOUR ANSWER\", several joined by commas (\"if A then B, if C then D\"; "
				"with more than one seat before your turn, their moves joined by \"and\"). Each answer is "
				"played as soon as the game reaches it; \"no conditional moves\" clears them.\n");
	if (link)
		g_string_append_printf(t, "\nPlay in the browser (this link is yours alone):\n%s\n", link);
	g_string_append_printf(t, "Rules of %s: %s/rules/%s\n", g->rules->title, a->base_url, g->rules->id);
	g_string_append_printf(t, "\nDice commitment: %s\n(SHA-256 of this game's secret dice seed, "
			       "revealed when the game ends.)\n", g->rec->commitment);
}

/* Seat i's invitation to g, with a seat link of its own, if its address may have one. */
static int invite(app *a, const game_loaded *g, int i, db_error *err)
{
	const db_seat *s = &g->rec->seats[i];
	GString *t, *opp;
	char *link;
	long long address;
	int to_move = (game_turn_mask(g) >> i) & 1, first = consent_may_offer(a, s->email), ok, r;

	if ((r = seat_may_mail(a, g, i, "invitation", &address, &ok, err)))
		return r;
	if (!ok)
		return 0;
	/* A link of the mail's own, not the seat's token: using it shows the mail was read. */
	if (!(link = mint_seat_link(a, g->rec->id, i, err)))
		return err->code;
	t = g_string_new(NULL);
	opp = g_string_new(NULL);
	g_string_append_printf(t, "Hello %s,\n\nyou are invited to play %s on Rookery, as %s against %s.\n"
			       "%s\n\nPlay from your mail client by replying to the mails of this game, "
			       "or in the browser.\n", s->name, g->rules->title, g->rules->seat_names[i],
			       opponents(g, i, opp), g->rules->summary);
	if (game_open(g))
		g_string_append_printf(t, "\nThe game starts once its open seats are taken (%d still wait for a "
				       "player; anyone may take one at %s/games/%s). If nobody does by %s (UTC), "
				       "it lapses unplayed.\n", g->rec->open_seats, a->base_url, g->rec->id,
				       g->rec->open_until ? g->rec->open_until : "");
	if (first)
		g_string_append(t, "\nThis is the only mail Rookery sends you until you answer it: reply to it, "
				"play a move with your link below, or open the link and press \"Send me mail about "
				"this game\". If you do nothing, Rookery will not write to you again.\n");
	g_string_append_printf(t, to_move ? "\nYou move first.\n" : first ?
			       "\nOnce you answer, you will get a mail whenever it is your move.\n" :
			       "\nYou will get a mail whenever it is your move.\n");
	append_position(a, g, i, to_move, link, t);
	r = queue_to_seat(a, g, i, "invitation", t->str, address, 1, err);
	free(link);
	g_string_free(t, TRUE);
	g_string_free(opp, TRUE);
	return r;
}

int notify_created(app *a, const game_loaded *g, db_error *err)
{
	int r = 0;

	if (!a->mail)
		return 0;
	/* An open seat has no address: it gets its invitation when a player takes it. */
	for (int i = 0; !r && i < g->rec->nseats; i++)
		r = invite(a, g, i, err);
	return r;
}

/* The game is over: tell everyone with an address the result, the final position and the seed. */
static int notify_over(app *a, const game_loaded *g, db_error *err)
{
	char seed[DB_SEED_BYTES * 2 + 1];

	sodium_bin2hex(seed, sizeof seed, g->rec->seed, DB_SEED_BYTES);
	for (int i = 0; i < g->rec->nseats; i++) {
		const db_seat *s = &g->rec->seats[i];
		GString *t;
		long long address;
		int ok, r;

		if ((r = seat_may_mail(a, g, i, "game_over", &address, &ok, err)))
			return r;
		if (!ok)
			continue;
		t = g_string_new(NULL);
		g_string_append_printf(t, "Hello %s,\n\nthe %s game %s is over: %s.\n\nFinal position:\n",
				       s->name, g->rules->title, g->rec->id, g->rec->result ? g->rec->result : "");
		append_position(a, g, i, 0, NULL, t);
		g_string_append_printf(t, "Dice seed (revealed now): %s\nCheck every roll: %s/api/games/%s/dice\n",
				       seed, a->base_url, g->rec->id);
		g_string_append(t, "\nThank you for playing.\n");
		r = queue_to_seat(a, g, i, "game_over", t->str, address, 0, err);
		g_string_free(t, TRUE);
		if (r)
			return r;
	}
	return 0;
}

/* Your-move mails to the seats g now waits for but except (-1: none), each opening with lead, a sentence. */
static int notify_turns(app *a, const game_loaded *g, int except, const char *lead, db_error *err)
{
	unsigned turn = game_turn_mask(g);

	for (int i = 0; i < g->rec->nseats; i++) {
		const db_seat *s = &g->rec->seats[i];
		char *link;
		GString *t;
		long long address;
		int ok, r;

		if (!((turn >> i) & 1) || i == except)
			continue;
		/* A seat whose conditional answer is played at once hears of that instead. */
		conditional_state st;
		if ((r = conditional_state_of(a, g, i, &st, err)))
			return r;
		ok = st.tree && st.verdict == CONDITIONAL_PLAY;
		conditional_state_clear(&st);
		if (ok)
			continue;
		if ((r = seat_may_mail(a, g, i, "your_turn", &address, &ok, err)))
			return r;
		if (!ok)
			continue;
		if (!(link = mint_seat_link(a, g->rec->id, i, err)))
			return err->code;
		t = g_string_new(NULL);
		g_string_append_printf(t, "Hello %s,\n\n%s It is your move in %s game %s (you play %s).\n",
				       s->name, lead, g->rules->title, g->rec->id, g->rules->seat_names[i]);
		append_position(a, g, i, 1, link, t);
		r = queue_to_seat(a, g, i, "your_turn", t->str, address, 0, err);
		g_string_free(t, TRUE);
		free(link);
		if (r)
			return r;
	}
	return 0;
}

/* A confirmation to the seat that acted by mail, saying said: its reply address has acted, here is the next. */
static int confirm_to_seat(app *a, const game_loaded *g, int seat, const char *said, db_error *err)
{
	long long address;
	int ok, r;

	if ((r = seat_may_mail(a, g, seat, "accepted", &address, &ok, err)) || !ok)
		return r;
	GString *t = g_string_new(NULL);
	g_string_append_printf(t, "Hello %s,\n\n%s\n", g->rec->seats[seat].name, said);
	append_position(a, g, seat, (game_turn_mask(g) >> seat) & 1, NULL, t);
	r = queue_to_seat(a, g, seat, "accepted", t->str, address, 0, err);
	g_string_free(t, TRUE);
	return r;
}

static int notify_accepted(app *a, const game_loaded *g, int seat, const char *what, db_error *err)
{
	char *said = xasprintf("your %s in %s game %s is accepted.", what, g->rules->title, g->rec->id);
	int r = confirm_to_seat(a, g, seat, said, err);

	free(said);
	return r;
}

int notify_conditional(app *a, const game_loaded *g, int seat, const char *said, db_error *err)
{
	return a->mail ? confirm_to_seat(a, g, seat, said, err) : 0;
}

int notify_mail_mode(app *a, const game_loaded *g, int seat, const char *choice, db_error *err)
{
	char *said;
	int r;

	if (!a->mail)
		return 0;
	said = xasprintf("your choice of mail is recorded: from now on Rookery sends %s %s.\n\n"
			 "To change it, reply to a mail of a game with \"every move\", \"digest\" (\"digest 7\" for "
			 "07:00 UTC) or \"essentials\" on the first line, or use the link at the foot of every mail.",
			 g->rec->seats[seat].email, choice);
	r = confirm_to_seat(a, g, seat, said, err);
	free(said);
	return r;
}

int notify_moved(app *a, const game_loaded *g, const game_move_done *done, const char *channel, db_error *err)
{
	char *what;
	int r;

	if (!a->mail)
		return 0;
	if (g->rec->over)
		return notify_over(a, g, err);
	/* A secret move (a hidden setup) is named to nobody but its author. */
	what = done->secret ? xstrdup("made a hidden move") : *done->note ?
		xasprintf("played %s (%s)", done->move, done->note) : xasprintf("played %s", done->move);
	char *lead = xasprintf("%s (%s) %s.", g->rec->seats[done->seat].name, g->rules->seat_names[done->seat], what);
	r = notify_turns(a, g, -1, lead, err);
	free(lead);
	if (!r && !strcmp(channel, "mail")) {
		char *mine = *done->note ? xasprintf("move %s (%s)", done->move, done->note) :
			xasprintf("move %s", done->move);
		r = notify_accepted(a, g, done->seat, mine, err);
		free(mine);
	}
	free(what);
	return r;
}

int notify_joined(app *a, const game_loaded *g, int seat, db_error *err)
{
	char *lead;
	int r;

	if (!a->mail)
		return 0;
	if ((r = invite(a, g, seat, err)) || game_open(g))
		return r;
	lead = xasprintf("%s took the last open seat (%s): the game has begun.", g->rec->seats[seat].name,
			 g->rules->seat_names[seat]);
	r = notify_turns(a, g, seat, lead, err);
	free(lead);
	return r;
}

int notify_action(app *a, const game_loaded *g, int seat, const char *action, const char *channel,
		  db_error *err)
{
	const char *who = g->rec->seats[seat].name, *side = g->rules->seat_names[seat];

	if (!a->mail)
		return 0;
	if (g->rec->over)
		return notify_over(a, g, err);
	for (int i = 0; i < g->rec->nseats; i++) {
		GString *t;
		long long address;
		int ok, r;

		if (i == seat)
			continue;
		if ((r = seat_may_mail(a, g, i, !strcmp(action, "offer") ? "draw_offer" : "draw_answer", &address,
				       &ok, err)))
			return r;
		if (!ok)
			continue;
		t = g_string_new(NULL);
		g_string_append_printf(t, "Hello %s,\n\n", g->rec->seats[i].name);
		if (!strcmp(action, "offer"))
			g_string_append_printf(t, "%s (%s) offers a draw in %s game %s. Reply \"accept draw\" "
					       "or \"decline draw\" on the first line; a move also declines it.\n",
					       who, side, g->rules->title, g->rec->id);
		else if (!strcmp(action, "decline"))
			g_string_append_printf(t, "%s (%s) declined the draw in %s game %s; the game goes on.\n",
					       who, side, g->rules->title, g->rec->id);
		else if (!strcmp(action, "accept"))
			g_string_append_printf(t, "%s (%s) agreed to the draw in %s game %s; it needs everyone's "
					       "agreement. Reply \"accept draw\" or \"decline draw\" if you have not "
					       "answered yet.\n", who, side, g->rules->title, g->rec->id);
		else
			g_string_append_printf(t, "%s (%s) withdrew the draw offer in %s game %s.\n",
					       who, side, g->rules->title, g->rec->id);
		append_position(a, g, i, (game_turn_mask(g) >> i) & 1, NULL, t);
		r = queue_to_seat(a, g, i, !strcmp(action, "offer") ? "draw_offer" : "draw_answer", t->str,
				  address, 0, err);
		g_string_free(t, TRUE);
		if (r)
			return r;
	}
	if (!strcmp(channel, "mail")) {
		static const char *const said[][2] = {
			{"offer", "draw offer"}, {"accept", "agreement to the draw"}, {"decline", "refusal of the draw"},
			{"withdraw", "withdrawal of your draw offer"},
		};
		for (size_t k = 0; k < sizeof said / sizeof said[0]; k++)
			if (!strcmp(action, said[k][0]))
				return notify_accepted(a, g, seat, said[k][1], err);
	}
	return 0;
}

int notify_refused(app *a, const notify_refusal *rf, db_error *err)
{
	GString *t, *refs;
	char *id, *subject;
	game_loaded g;
	app_error ae;
	long long address;
	int ok, r;

	if (game_load(a, rf->game_id, &g, &ae))
		return 0;
	/* Only the seat's own address hears of it, whoever wrote the mail. */
	if ((r = seat_may_mail(a, &g, rf->seat, "refused", &address, &ok, err)) || !ok) {
		game_loaded_free(&g);
		return r;
	}
	t = g_string_new(NULL);
	refs = g_string_new(NULL);
	id = new_message_id(a, rf->game_id, "refused");
	subject = rf->subject && *rf->subject ? (strncasecmp(rf->subject, "Re:", 3) ?
		xasprintf("Re: %s", rf->subject) : xstrdup(rf->subject)) : xstrdup("Re: your mail to Rookery");
	g_string_append_printf(t, "Hello %s,\n\na mail to the reply address of your seat could not be acted on: "
			       "%s\n\nNothing was changed.\n", g.rec->seats[rf->seat].name, rf->why);
	/* Show the game as it stands now; this mail's reply address is the seat's live one. */
	int to_move = (game_turn_mask(&g) >> rf->seat) & 1;
	if (to_move)
		g_string_append(t, "\nIt is your move; reply to this mail with it.\n");
	else if (!g.rec->over)
		g_string_append(t, "\nIt is not your move now; you will get a mail when it is.\n");
	else
		g_string_append_printf(t, "\nThe game is over: %s.\n", g.rec->result ? g.rec->result : "");
	append_position(a, &g, rf->seat, to_move, NULL, t);
	if (rf->original && *rf->original) {
		g_string_append(t, "\nThe mail said:\n\n");
		gchar **lines = g_strsplit(rf->original, "\n", LIMIT_REFUSAL_QUOTE_LINES + 1);
		for (int i = 0; lines[i] && i < LIMIT_REFUSAL_QUOTE_LINES; i++)
			g_string_append_printf(t, "> %s\n", lines[i]);
		g_strfreev(lines);
	}
	if (rf->message_id)
		g_string_append(refs, rf->message_id);
	mail_out m = {
		.subject = subject, .message_id = id, .in_reply_to = rf->message_id,
		.references = refs->len ? refs->str : NULL, .text = t->str,
	};
	char *table, *board;
	attach_board(&g, rf->seat, &m, &table, &board);
	r = queue_to_seat_address(a, &g, rf->seat, "refused", &m, address, err);
	free(table);
	free(board);
	game_loaded_free(&g);
	g_string_free(t, TRUE);
	g_string_free(refs, TRUE);
	free(id);
	free(subject);
	return r;
}

int notify_signin(app *a, const char *address, const char *link, db_error *err)
{
	char *id, *text;
	long long address_id;
	int verdict, r;

	if (!a->mail)
		return 0;
	if ((r = consent_gate(a, address, "signin", NULL, (long long)time(NULL), &verdict, &address_id, err)) ||
	    verdict != CONSENT_SEND)
		return r;
	id = new_message_id(a, NULL, "signin");
	text = xasprintf("Hello,\n\nsomeone (we hope you) asked for a list of your games at Rookery.\n"
			 "Open this link within %lld minutes to see them (it works once):\n\n%s\n\n"
			 "If it was not you, ignore this mail: nothing happens without the link.\n",
			 LIMIT_SIGNIN_TTL_S / CLOCK_MINUTE_S, link);
	mail_out m = {
		.to_addr = address, .subject = "[Rookery] Your games", .message_id = id, .text = text,
	};
	r = queue(a, NULL, "signin", &m, address_id, err);
	free(id);
	free(text);
	return r;
}

int notify_summaries(app *a, long long now, int *sent, db_error *err)
{
	long long id;
	int r = 0;

	*sent = 0;
	/* A bounded batch a run: the next run takes the rest. */
	while (*sent < LIMIT_SUMMARIES_PER_RUN && (r = db_held_due(app_db(a), now / CLOCK_DAY_S, &id, err)) == 0) {
		db_address ad = {0};
		db_held_game *held = NULL;
		size_t n = 0;
		long long address_id;
		int verdict, total = 0;

		if ((r = db_begin(app_db(a), err)))
			break;
		r = db_address_by_id(app_db(a), id, &ad, err);
		if (!r)
			r = db_held_take(app_db(a), id, &held, &n, err);
		if (!r)
			r = consent_gate(a, ad.email, "summary", NULL, now, &verdict, &address_id, err);
		if (!r && verdict == CONSENT_SEND) {
			GString *t = g_string_new(NULL);
			char *mid = new_message_id(a, NULL, "summary");
			for (size_t i = 0; i < n; i++)
				total += held[i].count;
			g_string_append_printf(t, "Hello,\n\nRookery sends at most %d mails a day to one address, so "
					       "it held back %d mail%s about your games:\n\n", LIMIT_MAILS_PER_ADDRESS_DAY,
					       total, total == 1 ? "" : "s");
			for (size_t i = 0; i < n; i++)
				g_string_append_printf(t, "  %s: %d mail%s (%s/games/%s)\n", held[i].game_id ?
						       held[i].game_id : "no game", held[i].count,
						       held[i].count == 1 ? "" : "s", a->base_url,
						       held[i].game_id ? held[i].game_id : "");
			g_string_append_printf(t, "\nSee where it is your move, with links to play: %s/me\n", a->base_url);
			mail_out m = {
				.to_addr = ad.email, .subject = "[Rookery] Mails held back yesterday",
				.message_id = mid, .text = t->str,
			};
			r = queue(a, NULL, "summary", &m, address_id, err);
			g_string_free(t, TRUE);
			free(mid);
		}
		if (!r)
			r = db_commit(app_db(a), err);
		if (r)
			db_rollback(app_db(a));
		db_address_clear(&ad);
		db_held_games_free(held, n);
		if (r)
			break;
		(*sent)++;
	}
	return r == DB_E_NOTFOUND ? 0 : r;
}

/* What of g waits for seat, or NULL: its move, a draw offer it has not answered, or both. */
static const char *waiting_for(const game_loaded *g, int seat)
{
	int to_move = (game_turn_mask(g) >> seat) & 1;
	int draw = g->rec->draw_offer >= 0 && g->rec->draw_offer != seat && !((g->rec->draw_accepts >> seat) & 1);

	return to_move && draw ? "your move, and a draw offer waits for your answer" : to_move ? "your move" :
		draw ? "a draw offer waits for your answer" : NULL;
}

/*
 * The games among seats (running ones of one address) that wait for it, each with a fresh seat
 * link and the messages its mails have not carried yet (upto[i]: the last of seats[i]'s, 0 for
 * none), appended to t; returns how many.
 */
static int append_waiting(app *a, const db_player_seat *seats, size_t n, GString *t, long long *upto, db_error *err)
{
	int listed = 0;

	for (size_t i = 0; i < n; i++) {
		game_loaded g;
		app_error ae;
		const char *what;
		char *link;

		if (game_load(a, seats[i].game_id, &g, &ae))
			continue;
		if (!(what = waiting_for(&g, seats[i].seat))) {
			game_loaded_free(&g);
			continue;
		}
		if (!(link = mint_seat_link(a, g.rec->id, seats[i].seat, err))) {
			game_loaded_free(&g);
			return -1;
		}
		GString *opp = g_string_new(NULL);
		g_string_append_printf(t, "%s game %s, you play %s against %s: %s (ply %d).\n", g.rules->title, g.rec->id,
				       g.rules->seat_names[seats[i].seat], opponents(&g, seats[i].seat, opp), what,
				       g.rec->ply);
		/* A timed seat's deadline, in UTC as everywhere in mails. */
		if (g.clock && g.clock->seats[seats[i].seat].deadline) {
			char deadline[32];
			clock_iso(g.clock->seats[seats[i].seat].deadline, deadline);
			g_string_append_printf(t, "  Deadline: %s (UTC)\n", deadline);
		}
		g_string_append_printf(t, "  %s\n", link);
		/* The messages of the game it has not had by mail, under it. */
		GString *said = g_string_new(NULL);
		int r = mail_messages_append(a, &g, seats[i].seat, said, &upto[i], err);
		for (char *line = said->str; !r && *line;) {
			char *nl = strchr(line, '\n');
			*nl = 0;
			g_string_append_printf(t, "%s%s\n", *line ? "  " : "", line);
			line = nl + 1;
		}
		g_string_append_c(t, '\n');
		g_string_free(said, TRUE);
		g_string_free(opp, TRUE);
		if (r) {
			free(link);
			game_loaded_free(&g);
			return -1;
		}
		free(link);
		game_loaded_free(&g);
		listed++;
	}
	return listed;
}

/* The digest of one address: queued when something waits for it. */
static int digest_one(app *a, const db_address *ad, long long now, db_error *err)
{
	db_player_seat *seats = NULL;
	size_t n = 0;
	long long address_id;
	int verdict, listed, r = db_seats_running_by_email(app_db(a), ad->email, LIMIT_DIGEST_GAMES + 1, &seats, &n, err);
	GString *list = g_string_new(NULL), *t = g_string_new(NULL);
	char *subject = NULL, *mid = NULL;
	long long upto[LIMIT_DIGEST_GAMES] = {0};

	if (r)
		goto out;
	if ((listed = append_waiting(a, seats, n < LIMIT_DIGEST_GAMES ? n : LIMIT_DIGEST_GAMES, list, upto, err)) < 0) {
		r = err->code;
		goto out;
	}
	if (listed == 0)
		goto out;
	if ((r = consent_gate(a, ad->email, "digest", NULL, now, &verdict, &address_id, err)) || verdict != CONSENT_SEND)
		goto out;
	g_string_append_printf(t, "Hello,\n\nhere is your daily digest from Rookery: %d game%s wait%s for you.\n\n%s",
			       listed, listed == 1 ? "" : "s", listed == 1 ? "s" : "", list->str);
	if (n > LIMIT_DIGEST_GAMES)
		g_string_append_printf(t, "A digest reads %d of your running games, those updated longest ago; "
				       "see them all in My games.\n", LIMIT_DIGEST_GAMES);
	g_string_append_printf(t, "Each link is yours alone and opens your seat in the browser.\n"
			       "All your games, with links to play: %s/me\n", a->base_url);
	subject = xasprintf("[Rookery] Your daily digest: %d game%s wait%s for you", listed, listed == 1 ? "" : "s",
			    listed == 1 ? "s" : "");
	mid = new_message_id(a, NULL, "digest");
	mail_out m = {.to_addr = ad->email, .subject = subject, .message_id = mid, .text = t->str};
	r = queue(a, NULL, "digest", &m, address_id, err);
	/* Only a digest queued carried its messages. */
	for (size_t i = 0; !r && i < n && i < LIMIT_DIGEST_GAMES; i++)
		if (upto[i])
			r = db_messages_mailed_set(app_db(a), seats[i].game_id, seats[i].seat, upto[i], err);
out:
	g_string_free(list, TRUE);
	g_string_free(t, TRUE);
	db_player_seats_free(seats, n);
	free(subject);
	free(mid);
	return r;
}

int notify_digests(app *a, long long now, int *sent, db_error *err)
{
	long long id, today = now / CLOCK_DAY_S;
	int hour = (int)(now % CLOCK_DAY_S / CLOCK_HOUR_S), r = 0;

	*sent = 0;
	/* A bounded batch a run: the next run, within the same hour, takes the rest. */
	while (*sent < LIMIT_DIGESTS_PER_RUN &&
	       (r = db_digest_due(app_db(a), hour, LIMIT_DIGEST_HOUR_DEFAULT, today, &id, err)) == 0) {
		db_address ad = {0};

		if ((r = db_begin(app_db(a), err)))
			break;
		r = db_address_by_id(app_db(a), id, &ad, err);
		/* Done for today whether or not anything waits: at most one digest a day. */
		if (!r) {
			ad.digest_day = today;
			r = db_address_save(app_db(a), &ad, err);
		}
		if (!r)
			r = digest_one(a, &ad, now, err);
		if (!r)
			r = db_commit(app_db(a), err);
		if (r)
			db_rollback(app_db(a));
		db_address_clear(&ad);
		if (r)
			break;
		(*sent)++;
	}
	return r == DB_E_NOTFOUND ? 0 : r;
}

int notify_time_given(app *a, const game_loaded *g, int giver, int seat, long long seconds, const char *channel,
		      db_error *err)
{
	char given[64];
	long long address;
	int ok, r;

	if (!a->mail)
		return 0;
	clock_duration_text(seconds, given, sizeof given);
	if ((r = seat_may_mail(a, g, seat, "time_given", &address, &ok, err)))
		return r;
	if (!ok)
		return !strcmp(channel, "mail") ? notify_accepted(a, g, giver, "gift of time", err) : 0;
	GString *t = g_string_new(NULL);
	g_string_append_printf(t, "Hello %s,\n\n%s (%s) gave you %s more time in %s game %s.\n",
			       g->rec->seats[seat].name, g->rec->seats[giver].name, g->rules->seat_names[giver],
			       given, g->rules->title, g->rec->id);
	append_position(a, g, seat, (game_turn_mask(g) >> seat) & 1, NULL, t);
	r = queue_to_seat(a, g, seat, "time_given", t->str, address, 0, err);
	g_string_free(t, TRUE);
	/* A gift by mail used the giver's reply address: the confirmation brings the next. */
	if (!r && !strcmp(channel, "mail")) {
		char *what = xasprintf("gift of %s to %s", given, g->rules->seat_names[seat]);
		r = notify_accepted(a, g, giver, what, err);
		free(what);
	}
	return r;
}

int notify_reminder(app *a, const game_loaded *g, int seat, db_error *err)
{
	long long address;
	char *link;
	int ok, r;

	if (!a->mail)
		return 0;
	if ((r = seat_may_mail(a, g, seat, "reminder", &address, &ok, err)) || !ok)
		return r;
	if (!(link = mint_seat_link(a, g->rec->id, seat, err)))
		return err->code;
	GString *t = g_string_new(NULL);
	g_string_append_printf(t, "Hello %s,\n\na reminder: it is your move in %s game %s (you play %s), "
			       "and your time is running out.\n", g->rec->seats[seat].name, g->rules->title,
			       g->rec->id, g->rules->seat_names[seat]);
	append_position(a, g, seat, 1, link, t);
	r = queue_to_seat(a, g, seat, "reminder", t->str, address, 0, err);
	g_string_free(t, TRUE);
	free(link);
	return r;
}
