/* app.h - what every request handler shares: the database and the public address. */
#ifndef ROOKERY_APP_H
#define ROOKERY_APP_H

#include "core/errors.h"
#include "db.h"

#include <pthread.h>
#include <stdint.h>

#define APP_KEY_BYTES 32

struct reader_pool;
struct group_writer;
struct view_cache;
struct event_hub;

typedef struct app {
	db *db;                                /* the one writing connection: use app_db() */
	pthread_mutex_t lock;                  /* held while using db: the group writer, mail-in, delivery and sweeper threads share it */
	struct reader_pool *readers;           /* reading connections for requests that only read */
	struct group_writer *writer;           /* applies the HTTP changes in groups (group_commit.h) */
	struct versions *versions;             /* games' latest committed versions in memory (versions.h); NULL: none */
	struct view_cache *views;              /* rendered views of games (game/view_cache.h); NULL: none kept */
	/* Told of each game whose version moved, after the commit is durable; NULL: nobody follows. */
	void (*game_changed)(struct app *a, const char *game_id, long long version);
	struct event_hub *events;              /* who follows which game live (live/events.h), or NULL */
	char *base_url;                        /* "http://127.0.0.1:8080", no trailing slash */
	const char *proxy;                     /* the reverse proxy's address (--proxy), or NULL */
	unsigned games_per_hour;               /* games one client address may create an hour; 0: no limit */
	unsigned sweep_interval_s;             /* how often the sweeper's jobs run (serve --sweep-seconds) */
	unsigned vacation_days;                /* vacation days a player has each calendar year (--vacation-days) */
	unsigned char form_key[APP_KEY_BYTES]; /* keys the per-form tokens; kept in the database */
	unsigned char mail_key[APP_KEY_BYTES]; /* keys the reply addresses of mails */
	struct mail_config *mail;              /* NULL: no mail at all (tests of the core) */
	struct outbox *outbox;                 /* the delivery worker, woken after changes */
} app;

/*
 * The connection the calling thread works with: between app_read_begin and
 * app_read_end a reading connection of a->readers, else the writer, which
 * only a holder of a->lock may use.
 */
db *app_db(app *a);

/*
 * Read on the calling thread from a reading connection of a->readers (which
 * must be open), all in one snapshot. The connection is taken, and its read
 * transaction begun, when app_db is first asked for it: an answer made from
 * memory alone touches no connection and takes no file lock. app_read_end
 * ends the transaction and gives the connection back.
 */
void app_read_begin(app *a);
void app_read_end(app *a);

/*
 * The mark of a->versions taken when the calling thread's read began, before
 * its snapshot: what versions_learn needs for a version this read found.
 */
uint64_t app_read_mark(void);

/*
 * Whether the calling thread reads on a reading connection: what it reads
 * is committed, which what the writer reads in its transaction may not yet be.
 */
int app_reading(void);

/*
 * Follow the games a->db's commits change (db_watch_changes), for
 * app_writer_unlock to tell, and for a->versions to know a commit is on its
 * way from inside its COMMIT (versions_commit_begins).
 */
void app_watch_changes(app *a);

/*
 * Take and release the writing connection. Releasing tells a->versions and
 * a->game_changed of the games the holder's committed writes changed.
 */
void app_writer_lock(app *a);
void app_writer_unlock(app *a);

/*
 * Load (or create on first start) the server's form and mail keys. Returns 0 or a
 * negative app_code.
 */
int app_load_keys(app *a);


/*
 * A storage failure as the service's error: logged, and told to the user
 * without the database's message (E_UNAVAILABLE when the database was busy,
 * E_INTERNAL otherwise). Returns the code.
 */
int app_storage_fail(app_error *err, const db_error *de);

#endif
