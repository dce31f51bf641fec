/* db.h - the only interface to storage: games, seats, moves, actions, settings. */
#ifndef ROOKERY_DB_H
#define ROOKERY_DB_H

#include <stddef.h>

#define DB_HASH_BYTES 32
#define DB_SEED_BYTES 32
#define DB_MAX_SEATS 4
#define DB_GAME_ID_TEXT 33        /* a game id (at most 32 characters) and its NUL */
#define DB_BUSY_TIMEOUT_MS 5000   /* how long a statement waits for another connection's write lock */

enum db_status {
	DB_OK = 0,
	DB_E_NOTFOUND = -1,
	DB_E_CONFLICT = -2,   /* a unique key already exists */
	DB_E_IO = -3,         /* SQLite failed; see the message */
	DB_E_VERSION = -4,    /* the database is newer than this binary */
	DB_E_BUSY = -5,
};

typedef struct db_error {
	int code;
	char message[256];
} db_error;

typedef struct db db;

typedef struct db_seat {
	int seat;
	char *name;
	char *email;     /* NULL when none */
	char *client_seed;  /* the seat's client seed for the dice, NULL when none */
	int open;        /* waits for a player (migration 0015): its name is the seat's, nobody holds its token */
} db_seat;

typedef struct db_game {
	char *id;
	char *variant;
	int rules_version;
	char *options;
	int over;
	int ply;
	char *start_position;
	char *position;
	char *result;     /* NULL while running */
	char *ranks;      /* JSON array text, NULL while running */
	int draw_offer;   /* seat offering a draw, -1 when none */
	unsigned draw_accepts;  /* seats that agreed to the offer, the offerer included */
	unsigned char seed[DB_SEED_BYTES];
	char *commitment;
	int dice_version;       /* the recipe of the game's dice (dice.h) */
	int dice_rolled;        /* the game has rolled: its client seeds are fixed */
	long long version;      /* bumped by every change to what a view shows (migration 0012) */
	char *created_at;
	char *updated_at;
	int open_seats;         /* seats still open: the game has not started while running with any */
	char *open_until;       /* when an unfilled game lapses (UTC text), NULL when it had no open seat */
	int nseats;
	db_seat seats[DB_MAX_SEATS];
} db_game;

typedef struct db_move {
	int ply;
	int seat;
	char *move;
	char *note;
	char *channel;
	char *at;
	char *dice;            /* JSON array text */
	char *position_after;
	int secret;            /* hidden from the other seats until revealed */
	char *places;          /* JSON array of the square names the move touched */
} db_move;

typedef struct db_action {
	int seq, ply, seat;
	char *action, *channel, *at;
} db_action;

/*
 * Open (creating if needed) the database at path, set WAL with
 * synchronous=FULL and apply the embedded migrations. Refuses a database
 * whose schema is newer than this binary (DB_E_VERSION).
 */
int db_open(const char *path, db **out, db_error *err);
void db_close(db *d);

/*
 * Open a reading connection to the database db_open prepared: it refuses any
 * write (query_only) and a schema other than this binary's. Readers on their
 * own connections never wait for the writer (WAL), nor it for them.
 */
int db_open_reader(const char *path, db **out, db_error *err);

/* Schema version of this binary and of the open database. */
int db_schema_version_supported(void);
int db_schema_version(db *d);

/*
 * Write transactions: BEGIN IMMEDIATE ... COMMIT or ROLLBACK. Inside a group
 * they are one change's SAVEPOINT ... RELEASE or ROLLBACK TO: durable only
 * when the group commits.
 */
int db_begin(db *d, db_error *err);
int db_commit(db *d, db_error *err);
void db_rollback(db *d);

/*
 * Group commit: one write transaction holding many changes, each in its own
 * savepoint (db_begin...db_commit inside the group), made durable by one
 * COMMIT. db_group_intact is 0 once an error made SQLite roll the whole
 * transaction back (a full disk, an I/O error): the changes before it are
 * gone. db_group_commit fails then too; db_group_abort drops the group.
 */
int db_group_begin(db *d, db_error *err);
int db_group_intact(db *d);
int db_group_commit(db *d, db_error *err);
void db_group_abort(db *d);

/* Whether a transaction is open on the connection. */
int db_in_transaction(db *d);

/* Whether target (the --db option) names a PostgreSQL database: a libpq connection URI. */
int db_target_is_postgresql(const char *target);

/* target as it may be shown or logged: a URI without its password. */
#define DB_TARGET_TEXT 512
void db_target_describe(const char *target, char *out, size_t size);

/*
 * Whether other daemons may change the database beside this one (PostgreSQL): then nothing
 * read from it may be trusted in memory past its transaction, and their commits are learnt
 * by db_follow_changes.
 */
int db_shared(db *d);

/*
 * Inside a write transaction, before reading the game a change is for: hold the game against
 * every other daemon's changes until the transaction ends, so that two daemons accepting the
 * same ply serialize and the second sees the first. Nothing to do where one daemon holds the
 * database (its write transaction excludes every other writer).
 */
int db_game_lock(db *d, const char *id, db_error *err);

/*
 * A named hold one connection at a time has among the daemons sharing a database, for work
 * that must run once (the sweeper's jobs, migrations): 1 when taken (always where one daemon
 * holds the database), 0 when another connection holds it or on an error. db_hold waits for it.
 * db_hold_end gives it back. Not tied to transactions.
 */
int db_hold_try(db *d, const char *name);
int db_hold(db *d, const char *name, db_error *err);
void db_hold_end(db *d, const char *name);

/* A read transaction, so that a request's statements see one snapshot. */
int db_read_begin(db *d, db_error *err);
void db_read_end(db *d);

/*
 * Following changes: after db_watch_changes, the connection notes each game
 * its writes touch. db_changed_games calls fn with the id and the current
 * version of each noted game (call it outside a transaction, after the
 * commit) and forgets them. A noted game may be unchanged (its change was
 * rolled back): compare versions.
 *
 * committing (NULL: none) is called with ctx inside every COMMIT that may
 * keep a noted game, before the commit can be seen by any other connection;
 * it must not use d.
 */
typedef void (*db_changed_fn)(void *ctx, const char *game_id, long long version);
typedef void (*db_committing_fn)(void *ctx);
void db_watch_changes(db *d, db_committing_fn committing, void *ctx);
int db_changed_games(db *d, db_changed_fn fn, void *ctx, db_error *err);

/*
 * Wait up to timeout_ms for commits of any daemon on a shared database and call fn for each
 * game they changed, with its new version (the same game may be told more than once, and a
 * version already told again). Returns 0 on a timeout too. A connection of its own, used for
 * nothing else. DB_E_IO for a database that is not shared, or when the connection is lost.
 */
int db_follow_changes(db *d, db_changed_fn fn, void *ctx, int timeout_ms, db_error *err);

/* The game's version alone (cheap: for ETags before anything is loaded). */
int db_game_version(db *d, const char *id, long long *version, db_error *err);

/* Insert a new game and its seats; token_hashes[i] belongs to seats[i]. */
int db_game_insert(db *d, const db_game *g, const unsigned char token_hashes[][DB_HASH_BYTES],
		   db_error *err);

/*
 * Seat of a game fills an open seat: its name, email (may be NULL) and the
 * joiner's token hash are stored, the seat is no longer open and the game has
 * one open seat fewer. DB_E_CONFLICT when the seat is not open (nothing changed).
 */
int db_seat_join(db *d, const char *game_id, int seat, const char *name, const char *email,
		 const unsigned char token_hash[DB_HASH_BYTES], const char *now, db_error *err);

/*
 * Up to max running games with open seats whose open_until is at or before
 * now (UTC text) end unplayed: status over, result "expired", no ranks; *n
 * how many. Their ids are written to ids (each DB_GAME_ID_TEXT bytes).
 */
int db_games_expire_open(db *d, const char *now, char (*ids)[DB_GAME_ID_TEXT], int max, int *n, db_error *err);

/* Load a game with its seats. Caller frees with db_game_free. */
int db_game_load(db *d, const char *id, db_game **out, db_error *err);
void db_game_free(db_game *g);

/* Store the mutable state of g: ply, position, over, result, ranks, the draw offer, updated_at. */
int db_game_save_state(db *d, const db_game *g, db_error *err);

/* Set (or replace) seat's client seed; the caller checks that the game still takes one. */
int db_seat_set_client_seed(db *d, const char *game_id, int seat, const char *client_seed,
			    db_error *err);

/* Record that the game has rolled its first die (dice_rolled). */
int db_game_mark_rolled(db *d, const char *game_id, db_error *err);

/* Find the game and seat a token hash belongs to. *game_id is malloc'd. */
int db_seat_by_token(db *d, const unsigned char hash[DB_HASH_BYTES], char **game_id,
		     int *seat, db_error *err);

int db_move_append(db *d, const char *game_id, const db_move *m, db_error *err);
/* Every secret move of the game becomes visible to all. */
int db_moves_reveal(db *d, const char *game_id, db_error *err);
/* Load one move. Caller frees the fields with db_move_clear. */
int db_move_get(db *d, const char *game_id, int ply, db_move *out, db_error *err);
/*
 * The moves of plies from, from + 1, ... in ply order, at most limit of them
 * (fewer at the end of the game, none past it): read by the (game, ply) key,
 * never the whole history. Caller frees with db_moves_free (*out is NULL when
 * *n is 0).
 */
int db_moves_range(db *d, const char *game_id, int from, int limit, db_move **out, size_t *n,
		   db_error *err);
void db_move_clear(db_move *m);
void db_moves_free(db_move *v, size_t n);

int db_action_append(db *d, const char *game_id, int ply, int seat, const char *action,
		     const char *channel, const char *at, db_error *err);
int db_actions_list(db *d, const char *game_id, db_action **out, size_t *n, db_error *err);
void db_actions_free(db_action *v, size_t n);

/* Small server-wide values (such as the form-token key). *value is malloc'd. */
int db_setting_get(db *d, const char *key, void **value, size_t *len, db_error *err);
int db_setting_put(db *d, const char *key, const void *value, size_t len, db_error *err);
/* Store key's value only when key has none yet (an existing one is kept, no error). */
int db_setting_add(db *d, const char *key, const void *value, size_t len, db_error *err);

/* ---- mail (db_mail.c) ---- */

typedef struct db_outbox_row {
	long long id;
	char *game_id;     /* may be NULL */
	char *kind;
	char *recipient;
	char *message;
	int attempts;      /* including the one just claimed */
} db_outbox_row;

/* Queue a composed mail, due at once. Call inside the transaction of the change it reports. */
int db_outbox_add(db *d, const char *game_id, const char *kind, const char *recipient,
		  const char *message, const char *created_at, long long now, db_error *err);

/*
 * Claim up to limit due mails (state queued, next_attempt_at <= now): mark
 * them sending and count the attempt, in one transaction of its own. A mail
 * marked sending is never claimed again, so it is sent at most once.
 */
int db_outbox_claim(db *d, long long now, int limit, db_outbox_row **rows, size_t *n, db_error *err);
void db_outbox_rows_free(db_outbox_row *rows, size_t n);

/*
 * After an attempt: sent; or back to queued for next_at; or failed for good. Sent and failed
 * mails keep only their Date, From, To, Subject, Message-ID, In-Reply-To and References headers
 * and the line DB_OUTBOX_WIPED in place of the body (which holds links that act for the
 * recipient), written by the same statement that changes the state.
 */
#define DB_OUTBOX_WIPED "[Body removed once the mail was sent or given up: its links acted for the recipient.]"
int db_outbox_sent(db *d, long long id, const char *sent_at, db_error *err);
int db_outbox_retry(db *d, long long id, long long next_at, const char *error, db_error *err);
int db_outbox_failed(db *d, long long id, const char *error, db_error *err);

/* Mails left "sending" by a crash may have gone out; mark those claimed before claimed_before
 * (unix time) failed (wiped as above), never resend. */
int db_outbox_abandon_interrupted(db *d, long long claimed_before, int *count, db_error *err);

/* Number of outbox rows in state (or all when state is NULL), for tests and status. */
int db_outbox_count(db *d, const char *state, int *count, db_error *err);

/* An incoming Message-ID already handled: *result is what was done (malloc'd), or DB_E_NOTFOUND. */
int db_mail_seen(db *d, const char *message_id, char **result, db_error *err);
int db_mail_mark_seen(db *d, const char *message_id, const char *result, const char *at, db_error *err);

/* Extra seat links (signed-in players): valid until expires_at (unix time). */
int db_seat_link_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *game_id, int seat,
		     long long expires_at, db_error *err);

/* Sign-in links for "my games". */
int db_signin_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *email,
		  long long expires_at, db_error *err);
/* The email of a valid sign-in token (malloc'd), or DB_E_NOTFOUND when unknown or expired. */
int db_signin_email(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
		    db_error *err);
/* The same, using the token up: it is deleted, so it works once. Call inside the transaction
 * that acts on it, so that a failure leaves it usable. */
int db_signin_take(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
		   db_error *err);

/* Delete the seat links and sign-in tokens that expired at or before now; *count: how many. */
int db_links_expire(db *d, long long now, int *count, db_error *err);

/*
 * A player's API token (given on the signed-in "My games" page) speaks for
 * an email address until expires_at; the email of a valid one (malloc'd), or
 * DB_E_NOTFOUND. Expired ones are deleted with the links (db_links_expire).
 */
int db_player_token_add(db *d, const unsigned char hash[DB_HASH_BYTES], const char *email, long long expires_at,
			db_error *err);
int db_player_token_email(db *d, const unsigned char hash[DB_HASH_BYTES], long long now, char **email,
			  db_error *err);

/* The seats held by an email address (case-insensitive), newest game first. */
typedef struct db_player_seat {
	char *game_id;
	int seat;
} db_player_seat;
int db_seats_by_email(db *d, const char *email, db_player_seat **out, size_t *n, db_error *err);
void db_player_seats_free(db_player_seat *v, size_t n);

/*
 * Count one event against key in a fixed window of window_s seconds;
 * *allowed is 0 once more than limit events fall in the current window.
 */
int db_rate_hit(db *d, const char *key, long long now, int window_s, int limit, int *allowed,
		db_error *err);

/*
 * Copy the whole database, consistently, into a new file at dest with
 * SQLite's online backup (never copy the files of a live database). The
 * copy is mode 0600, written in a private directory "<dest>.part" made for
 * this call, and hard-linked to dest when complete, so that nothing there is
 * ever replaced. Refused (and nothing touched): a dest that exists, even as
 * a symbolic link (DB_E_CONFLICT, also when it appears meanwhile); an
 * existing "<dest>.part" (DB_E_CONFLICT); a directory of dest that is itself
 * a symbolic link (DB_E_IO). Only what this call created is ever removed.
 */
int db_backup(db *d, const char *dest, db_error *err);

/* ---- mail consent (db_consent.c) ---- */

enum db_consent { DB_CONSENT_NONE, DB_CONSENT_INVITED, DB_CONSENT_CONFIRMED };
/* Every move (the default), a daily digest, or only the essentials (consent.h says which are). */
enum db_mail_mode { DB_MAIL_EVERY_MOVE, DB_MAIL_DIGEST, DB_MAIL_ESSENTIALS };

/* What Rookery may send to one email address (compared case-insensitively). */
typedef struct db_address {
	long long id;
	char *email;
	int consent;       /* enum db_consent: none yet, one invitation sent, the owner acted */
	int stopped;       /* the owner wants no mail at all */
	int no_invites;    /* the owner wants no further invitations */
	long long day;     /* the UTC day day_count counts (unix time / 86400) */
	int day_count;     /* mails queued to the address that day */
	int mail_mode;     /* enum db_mail_mode: how much mail the owner wants */
	int digest_hour;   /* the UTC hour of its digest, -1 until chosen */
	long long digest_day;  /* the UTC day of its last digest */
} db_address;

/* The row of email, created (consent none) when missing. Free with db_address_clear. */
int db_address_get(db *d, const char *email, db_address *out, db_error *err);
/* The row of email, or of id, when there is one (DB_E_NOTFOUND), without creating it. */
int db_address_find(db *d, const char *email, db_address *out, db_error *err);
int db_address_by_id(db *d, long long id, db_address *out, db_error *err);
/* Store consent, stopped, no_invites, day, day_count, mail_mode, digest_hour and digest_day of a. */
int db_address_save(db *d, const db_address *a, db_error *err);
void db_address_clear(db_address *a);
/*
 * An address whose digest is due: mode digest, its digest hour (default_hour
 * when it chose none) is hour, none sent on day yet, mail neither stopped nor
 * unconfirmed. DB_E_NOTFOUND when there is none.
 */
int db_digest_due(db *d, int hour, int default_hour, long long day, long long *address_id, db_error *err);
/* The running games in which email holds a seat, those updated longest ago first; at most limit. */
int db_seats_running_by_email(db *d, const char *email, int limit, db_player_seat **out, size_t *n,
			      db_error *err);

/* A mail held back by the daily cap on day: only its game and kind are kept. */
int db_held_add(db *d, long long address_id, const char *game_id, const char *kind, long long day,
		db_error *err);
/* An address with mails held before day, or DB_E_NOTFOUND. */
int db_held_due(db *d, long long day, long long *address_id, db_error *err);
/* The held mails of an address, counted by game (game_id NULL for none), and forget them. */
typedef struct db_held_game {
	char *game_id;
	int count;
} db_held_game;
int db_held_take(db *d, long long address_id, db_held_game **out, size_t *n, db_error *err);
void db_held_games_free(db_held_game *v, size_t n);

/*
 * Reply addresses: each seat has one live at a time, the latest mailed to
 * it. Issuing one for a mail about the game at ply returns its serial: the
 * live one when it was issued at the same ply and has not acted, else a new
 * one, which kills the previous.
 */
typedef struct db_reply {
	int serial;   /* of the latest reply address; 0 when none was ever issued */
	int ply;      /* the game's ply when it was issued */
	int used;     /* it has acted already (or none is live) */
} db_reply;
int db_reply_issue(db *d, const char *game_id, int seat, int ply, int *serial, db_error *err);
int db_reply_get(db *d, const char *game_id, int seat, db_reply *out, db_error *err);
/* Mark the reply address serial of a seat used (or, used 0, not used); no change if it is not the live one. */
int db_reply_use(db *d, const char *game_id, int seat, int serial, int used, db_error *err);

/* The seat of a seat link that was minted into a mail (not a seat's own token); DB_E_NOTFOUND if none. */
int db_seat_link_find(db *d, const unsigned char hash[DB_HASH_BYTES], char **game_id, int *seat,
		      db_error *err);

/* Count of rows in games, for tests and the demo. */
int db_game_count(db *d, int *count, db_error *err);

/* ---- clocks (db_clock.c) ---- */

enum db_clock_type { DB_CLOCK_NONE, DB_CLOCK_PER_MOVE, DB_CLOCK_BANK };
enum { DB_CLOCK_REMINDED_DAY = 1, DB_CLOCK_REMINDED_LAST = 2 };

/* One seat's clock; times are unix seconds, 0 for "none" (SQL NULL). */
typedef struct db_seat_clock {
	long long remaining_s;    /* the seat's time when its clock started, or its time now when stopped */
	long long running_since;  /* when the clock started; 0 when stopped */
	long long deadline;       /* when the seat runs out; 0 when the game does not wait for it */
	int reminded;             /* DB_CLOCK_REMINDED_* bits, for this deadline */
	long long paused_until;   /* room for vacations; 0 */
} db_seat_clock;

/* A game's time control and its seats' clocks. */
typedef struct db_clock {
	int type;                 /* enum db_clock_type */
	long long base_s, increment_s, max_s;
	int nseats;
	db_seat_clock seats[DB_MAX_SEATS];
} db_clock;

/* Store a new game's time control and its seats' clocks (the game row exists). */
int db_clock_insert(db *d, const char *game_id, const db_clock *c, db_error *err);
/* A game's clock, or DB_E_NOTFOUND for a game without one. */
int db_clock_load(db *d, const char *game_id, db_clock *out, db_error *err);
/* Store the seats' clocks of c. */
int db_clock_save(db *d, const char *game_id, const db_clock *c, db_error *err);

/* A seat of a running game whose clock needs a look. */
typedef struct db_clock_due {
	char game_id[DB_GAME_ID_TEXT];
	int seat;
} db_clock_due;
/*
 * Up to max seats of running games whose deadline is at or before now
 * (timeouts), earliest first; *n how many.
 */
int db_clocks_expired(db *d, long long now, db_clock_due *out, int max, int *n, db_error *err);
/* When a clock's reminders go (the service's limits say: a day left, the last tenth or an hour). */
typedef struct db_reminder_rule {
	long long day_s;        /* one when this much is left, if the period is longer */
	long long last_share;   /* one when 1/last_share of the period is left... */
	long long last_min_s;   /* ...or this much, whichever is longer */
} db_reminder_rule;
/*
 * Up to max seats of running games owed a reminder at now by rule, not yet
 * sent for this deadline (the same rule as clock_reminder_due); *n how many.
 */
int db_clocks_remind(db *d, long long now, const db_reminder_rule *rule, db_clock_due *out, int max, int *n,
		     db_error *err);
/* Move every running clock's start and deadline on by by seconds (an outage); *count: how many. */
int db_clocks_extend(db *d, long long by, int *count, db_error *err);

/* ---- vacations (db_vacation.c) ---- */

/* One vacation of a player: unix seconds, end_at exclusive. */
typedef struct db_vacation {
	long long id;
	long long start_at;
	long long end_at;
} db_vacation;

/* Store a vacation of player (vacation_player's key) from start to end. */
int db_vacation_add(db *d, const char *player, long long start, long long end, db_error *err);
/* Up to max of player's vacations ending after since, earliest first; *n how many. */
int db_vacations_list(db *d, const char *player, long long since, db_vacation *out, int max, int *n,
		      db_error *err);
/* Make vacation id end at end (ended early), or delete it when end is 0 (withdrawn before it began). */
int db_vacation_set_end(db *d, long long id, long long end, db_error *err);
/*
 * Every vacation under way at now stops its player's clocks in running games
 * not yet stopped for it: each running clock's start and deadline move on by
 * the part of the vacation after its start, and paused_until is the
 * vacation's end; *count: how many clocks.
 */
int db_vacations_pause(db *d, long long now, int *count, db_error *err);
/* Player's clocks standing still for a vacation run again from now (it ended early). */
int db_vacation_unpause(db *d, const char *player, long long now, db_error *err);
/*
 * After db_clocks_extend moved every running clock on by an outage from last
 * to now: a clock standing still for a vacation is moved back by the part of
 * the outage before the vacation's end, which it was not charged anyway.
 */
int db_vacations_outage(db *d, long long last, long long now, db_error *err);

/* ---- messages between the seats of a game (db_messages.c) ---- */

/* One message: to_seat -1 when it went to every seat. */
typedef struct db_message {
	long long seq;
	int from_seat;
	int to_seat;
	char *text;
	char *channel;
	char *at;
} db_message;

/* Store a message of game_id from from_seat to to_seat (-1: every seat) at now; *seq its number. */
int db_message_add(db *d, const char *game_id, int from_seat, int to_seat, const char *text,
		   const char *channel, const char *now, long long *seq, db_error *err);
/* How many messages from_seat sent in game_id in the last hour. */
int db_messages_last_hour(db *d, const char *game_id, int from_seat, int *count, db_error *err);
/*
 * The messages of game_id seat may read (to every seat, to it or from it)
 * with seq >= from (from < 0: the latest), at most limit, in order;
 * others_only leaves out its own.
 * Caller frees with db_messages_free (*out is NULL when *n is 0).
 */
int db_messages_for(db *d, const char *game_id, int seat, long long from, int limit, int others_only,
		    db_message **out, size_t *n, db_error *err);
void db_messages_free(db_message *v, size_t n);
/* The last message seat's mails carried (0: none), and its update after a mail carried up to seq. */
int db_messages_mailed_get(db *d, const char *game_id, int seat, long long *seq, db_error *err);
int db_messages_mailed_set(db *d, const char *game_id, int seat, long long seq, db_error *err);

/* ---- conditional moves (db_conditional.c) ---- */

/* Seat's tree of conditional moves in game (malloc'd JSON) and the ply it starts at, or DB_E_NOTFOUND. */
int db_conditional_get(db *d, const char *game_id, int seat, char **tree, int *from_ply, db_error *err);
/* Store (or replace) seat's tree, starting at from_ply. */
int db_conditional_put(db *d, const char *game_id, int seat, int from_ply, const char *tree, db_error *err);
/* Clear seat's tree (nothing to clear is no error); seat -1 clears every seat's. */
int db_conditional_delete(db *d, const char *game_id, int seat, db_error *err);
/* The seats of game with a tree, as a bit mask. */
int db_conditional_seats(db *d, const char *game_id, unsigned *mask, db_error *err);

/* ---- copying a whole database into an empty one (db_copy.c) ---- */

/*
 * Open the database at path (or URI) as a copy's source: a reading connection in one read
 * transaction, so that everything read from it until db_close is one snapshot (it may be a
 * running daemon's database). DB_E_VERSION when its schema is not this rookery's (newer; or
 * older: migrate it first); DB_E_IO when it cannot be opened or read.
 */
int db_copy_source(const char *path, db **out, db_error *err);

/*
 * Open the database at target as a copy's destination, in one write transaction that
 * db_copy_end ends, under the hold of migrations (a daemon starting on it meanwhile waits).
 * Refused, and nothing changed: a schema newer than this rookery's (DB_E_VERSION); any row in
 * any of its tables (DB_E_CONFLICT). A new (or older) database is migrated inside the
 * transaction; DB_E_IO when it cannot be reached.
 */
int db_copy_destination(const char *target, db **out, db_error *err);

/* A table copied: the rows copied, then how many each side holds once every table is copied. */
typedef struct db_copied {
	char *table;
	long long copied;
	long long source_rows, dest_rows;
} db_copied;

/*
 * Copy every table of src's schema into dst (db_copy_destination's) as it is: every column
 * both schemas list, by name, but those the database computes; the numbers of identity
 * columns (new rows are numbered past them) and each game's version (what the version
 * triggers did meanwhile is undone) included. DB_E_VERSION when the two schemas do not have
 * the same tables, or a column of the source has no place in the destination. *out: one
 * entry a table in the order copied (each table after those it refers to), with both sides'
 * counts; free with db_copied_free.
 */
int db_copy_tables(db *src, db *dst, db_copied **out, size_t *n, db_error *err);
void db_copied_free(db_copied *v, size_t n);

/* End a copy into dst: commit it when keep (else roll it back), give the hold back, close dst. */
int db_copy_end(db *dst, int keep, db_error *err);

/* Every game's id, in order of id; free with db_game_ids_free. */
int db_game_ids(db *d, char ***ids, size_t *n, db_error *err);
void db_game_ids_free(char **ids, size_t n);

/* ---- lists of games (db_game_list.c) ---- */

/* A seat as a list shows it: its name, and whether it waits for a player (0015). */
typedef struct db_listed_seat {
	int seat;
	char *name;
	int open;
} db_listed_seat;

/* A game as a list shows it; listing is "open", "active" or "finished" (migration 0016). */
typedef struct db_listed_game {
	char *id, *variant, *listing, *result, *created_at, *updated_at;
	int ply;
	int nseats;
	db_listed_seat seats[DB_MAX_SEATS];
} db_listed_game;

/*
 * Up to limit listed games (never an open game that lapsed unfilled), newest
 * first: created_at, then id, both descending. listing NULL lists every
 * listed game, else only those of that listing; variant NULL any variant.
 * With before_at and before_id (a row of an earlier page), only the games
 * after it in that order, so that games created meanwhile move no page.
 * Free *out with db_listed_games_free (*out is NULL when *n is 0).
 */
int db_games_listed(db *d, const char *listing, const char *variant, const char *before_at, const char *before_id,
		    int limit, db_listed_game **out, size_t *n, db_error *err);
void db_listed_games_free(db_listed_game *v, size_t n);

#endif
