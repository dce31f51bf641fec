/* app.c - shared service state: keys kept in the database, and the clock. */
#include "core/app.h"
#include "core/errors.h"
#include "core/log.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Load the secret key named name, creating and storing it on first use. */
static int load_key(app *a, const char *name, unsigned char key[APP_KEY_BYTES])
{
	void *value;
	size_t len;
	db_error de;
	int r = db_setting_get(a->db, name, &value, &len, &de);

	if (r == 0 && len == APP_KEY_BYTES) {
		memcpy(key, value, APP_KEY_BYTES);
		sodium_memzero(value, len);
		free(value);
		return 0;
	}
	free(value);
	randombytes_buf(key, APP_KEY_BYTES);
	if (db_begin(a->db, &de) || db_setting_put(a->db, name, key, APP_KEY_BYTES, &de) ||
	    db_commit(a->db, &de)) {
		db_rollback(a->db);
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
