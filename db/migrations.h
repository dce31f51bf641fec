/* migrations.h - the SQL migrations compiled into the binary, in order. */
#ifndef ROOKERY_MIGRATIONS_H
#define ROOKERY_MIGRATIONS_H

#include <stddef.h>

struct db_migration {
	const char *name;  /* "0001_init.sql" */
	const char *data;  /* the SQL text */
	size_t len;
};

/* Terminated by an entry whose name is NULL: SQLite's (migrations/) and PostgreSQL's (migrations/postgresql/). */
extern const struct db_migration db_migrations[];
extern const struct db_migration db_pg_migrations[];

#endif
