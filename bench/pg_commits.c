/*
 * pg_commits.c - the ceiling for committed moves on PostgreSQL: one row per transaction through
 * libpq with the server's own settings (synchronous_commit as the server has it), as fast as one
 * connection can go. A row is about the size of a stored move (game id, ply, ~240 bytes of text),
 * in a table of its own that is dropped at the end.
 *
 * usage: pg_commits URI SECONDS [ROW_BYTES]
 * prints: commits=N seconds=S rate=R   (commits per second)
 */
#include "ceiling.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>

static void die(PGconn *pg, const char *what)
{
	fprintf(stderr, "pg_commits: %s: %s", what, pg ? PQerrorMessage(pg) : "?\n");
	exit(1);
}

static void exec(PGconn *pg, const char *sql)
{
	PGresult *r = PQexec(pg, sql);

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		die(pg, sql);
	PQclear(r);
}

/* BEGIN, the row, COMMIT: the shape of the daemon's writes, each change its own transaction. */
static void commit_one(void *ctx, long n, const ceiling *c)
{
	PGconn *pg = ctx;
	char ply[24];
	const char *values[2] = {ply, c->payload};

	snprintf(ply, sizeof ply, "%ld", n);
	exec(pg, "BEGIN");
	PGresult *r = PQexecPrepared(pg, "ins", 2, values, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die(pg, "insert");
	PQclear(r);
	exec(pg, "COMMIT");
}

int main(int argc, char **argv)
{
	ceiling c;

	ceiling_args(&c, argc, argv, "usage: pg_commits URI SECONDS [ROW_BYTES]");
	PGconn *pg = PQconnectdb(c.target);
	if (PQstatus(pg) != CONNECTION_OK)
		die(pg, "connect");
	exec(pg, "SET client_min_messages = warning");
	exec(pg, "DROP TABLE IF EXISTS bench_commits");
	exec(pg, "CREATE TABLE bench_commits (game_id text NOT NULL, ply bigint NOT NULL, "
		 "payload text NOT NULL, PRIMARY KEY (game_id, ply))");
	PGresult *r = PQprepare(pg, "ins", "INSERT INTO bench_commits (game_id, ply, payload) "
				"VALUES ('bcdfghjkmnpq', $1, $2)", 2, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die(pg, "prepare");
	PQclear(r);

	ceiling_run(&c, commit_one, pg);

	exec(pg, "DROP TABLE bench_commits");
	PQfinish(pg);
	ceiling_free(&c);
	return 0;
}
