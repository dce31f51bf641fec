/* app.c - shared service state: the connection each thread uses, keys kept in the database. */
#include "core/app.h"
#include "core/errors.h"
#include "core/log.h"
#include "core/readers.h"
#include "core/versions.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The calling thread's read (app_read_begin): its pool, and the connection once taken. */
static _Thread_local struct {
	reader_pool *pool;
	db *d;
	uint64_t mark;   /* versions_mark when the read began, before its snapshot */
} reading;

db *app_db(app *a)
{
	if (!reading.pool)
		return a->db;
	if (!reading.d) {
		db_error de;
		reading.d = readers_take(reading.pool);
		/* Failing, each statement reads in a snapshot of its own: still committed data. */
		if (db_read_begin(reading.d, &de))
			log_event("cannot begin a read: %s", de.message);
	}
	return reading.d;
}

void app_read_begin(app *a)
{
	reading.pool = a->readers;
	reading.d = NULL;
	reading.mark = versions_mark(a->versions);
}

uint64_t app_read_mark(void)
{
	return reading.mark;
}

void app_read_end(app *a)
{
	(void)a;
	if (reading.d) {
		db_read_end(reading.d);
		readers_give(reading.pool, reading.d);
	}
	reading.pool = NULL;
	reading.d = NULL;
}

int app_reading(void)
{
	return reading.pool != NULL;
}

void app_writer_lock(app *a)
{
	pthread_mutex_lock(&a->lock);
}

static void tell_changed(void *arg, const char *game_id, long long version)
{
	app *a = arg;

	versions_committed(a->versions, game_id, version);
	if (a->game_changed)
		a->game_changed(a, game_id, version);
}

/* Inside the writer's COMMIT: until its versions are told, readers do not trust those in memory. */
static void committing(void *arg)
{
	app *a = arg;

	versions_commit_begins(a->versions);
}

void app_watch_changes(app *a)
{
	db_watch_changes(a->db, committing, a);
}

void app_writer_unlock(app *a)
{
	db_error de;

	/*
	 * Only what is committed is told: a transaction still open here would be a bug upstream
	 * (what it changes is told at a later release, after its commit).
	 */
	if (db_in_transaction(a->db)) {
		log_event("writer released inside a transaction");
	} else {
		if (db_changed_games(a->db, tell_changed, a, &de))
			log_event("cannot read the changed games: %s", de.message);
		versions_commit_told(a->versions);
	}
	pthread_mutex_unlock(&a->lock);
}

/*
 * Load the secret key named name, creating and storing it on first use. Daemons that share a
 * database may start together: a new key is only added when none is stored yet, and the one
 * stored is then read back, so that every daemon holds the same key.
 */
static int load_key(app *a, const char *name, unsigned char key[APP_KEY_BYTES])
{
	db_error de;

	for (int round = 0; round < 2; round++) {
		void *value;
		size_t len;
		int r = db_setting_get(app_db(a), name, &value, &len, &de);

		if (r == 0 && len == APP_KEY_BYTES) {
			memcpy(key, value, APP_KEY_BYTES);
			sodium_memzero(value, len);
			free(value);
			return 0;
		}
		free(value);
		if (r && r != DB_E_NOTFOUND)
			break;
		randombytes_buf(key, APP_KEY_BYTES);
		/* A stored value of the wrong size is no key: replaced. */
		if (db_begin(app_db(a), &de) ||
		    (r == 0 ? db_setting_put : db_setting_add)(app_db(a), name, key, APP_KEY_BYTES, &de) ||
		    db_commit(app_db(a), &de)) {
			db_rollback(app_db(a));
			break;
		}
		sodium_memzero(key, APP_KEY_BYTES);
	}
	log_event("cannot store the %s: %s", name, de.message);
	return E_INTERNAL;
}

int app_load_keys(app *a)
{
	int r = load_key(a, "form_key", a->form_key);

	return r ? r : load_key(a, "mail_key", a->mail_key);
}

int app_storage_fail(app_error *err, const db_error *de)
{
	log_event("storage error: %s", de->message);
	if (de->code == DB_E_BUSY)
		return app_fail(err, E_UNAVAILABLE, "the server is busy; try again");
	return app_fail(err, E_INTERNAL, "the server could not store this; nothing was changed");
}
