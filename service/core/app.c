/* app.c - shared service state: the connection each thread uses, keys kept in the database. */
#include "core/app.h"
#include "core/errors.h"
#include "core/log.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local db *thread_reader;

db *app_db(app *a)
{
	return thread_reader ? thread_reader : a->db;
}

void app_bind_reader(db *d)
{
	thread_reader = d;
}

int app_reading(void)
{
	return thread_reader != NULL;
}

void app_writer_lock(app *a)
{
	pthread_mutex_lock(&a->lock);
}

static void tell_changed(void *arg, const char *game_id, long long version)
{
	app *a = arg;
	if (a->game_changed)
		a->game_changed(a, game_id, version);
}

void app_writer_unlock(app *a)
{
	db_error de;

	/* Only what is committed is told: a transaction still open here would be a bug upstream. */
	if (db_in_transaction(a->db))
		log_event("writer released inside a transaction");
	else if (db_changed_games(a->db, tell_changed, a, &de))
		log_event("cannot read the changed games: %s", de.message);
	pthread_mutex_unlock(&a->lock);
}

/* Load the secret key named name, creating and storing it on first use. */
static int load_key(app *a, const char *name, unsigned char key[APP_KEY_BYTES])
{
	void *value;
	size_t len;
	db_error de;
	int r = db_setting_get(app_db(a), name, &value, &len, &de);

	if (r == 0 && len == APP_KEY_BYTES) {
		memcpy(key, value, APP_KEY_BYTES);
		sodium_memzero(value, len);
		free(value);
		return 0;
	}
	free(value);
	randombytes_buf(key, APP_KEY_BYTES);
	if (db_begin(app_db(a), &de) || db_setting_put(app_db(a), name, key, APP_KEY_BYTES, &de) ||
	    db_commit(app_db(a), &de)) {
		db_rollback(app_db(a));
		log_event("cannot store the %s: %s", name, de.message);
		return E_INTERNAL;
	}
	return 0;
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
