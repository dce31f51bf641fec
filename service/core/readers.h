/* readers.h - a pool of reading connections, one per request that only reads. */
#ifndef ROOKERY_READERS_H
#define ROOKERY_READERS_H

#include "db.h"

typedef struct reader_pool reader_pool;

/*
 * Open n reading connections to the database at path (db_open_reader).
 * NULL, with err filled, when one cannot be opened.
 */
reader_pool *readers_open(const char *path, unsigned n, db_error *err);

/* Close every connection; none may be lent out. */
void readers_close(reader_pool *p);

/* Borrow a connection, waiting while all are lent; give it back with readers_give. */
db *readers_take(reader_pool *p);
void readers_give(reader_pool *p, db *d);

#endif
