/*
 * pg_commits.c - the ceiling for committed moves on PostgreSQL: one row per transaction through
 * libpq with the server's own settings (synchronous_commit as the server has it), as fast as one
 * connection can go. A row is about the size of a stored move (game id, ply, ~240 bytes of text),
 * in a table of its own that is dropped at the end.
 *
 * usage: pg_commits URI SECONDS [ROW_BYTES]
 * prints: commits=N seconds=S rate=R   (commits per second)
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(PGconn *c, const char *what)
{
	fprintf(stderr, "pg_commits: %s: %s", what, c ? PQerrorMessage(c) : "?\n");
	exit(1);
}

static void exec(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		die(c, sql);
	PQclear(r);
}

int main(int argc, char **argv)
{
	double secs, t0, t1;
	size_t row = 240;
	long n = 0;
	char *payload, ply[24];

	if (argc < 3) {
		fprintf(stderr, "usage: pg_commits URI SECONDS [ROW_BYTES]\n");
		return 2;
	}
	secs = atof(argv[2]);
	if (argc > 3)
		row = (size_t)atol(argv[3]);
	payload = malloc(row + 1);
	for (size_t i = 0; i < row; i++)
		payload[i] = "abcdefghijklmnopqrstuvwxyz./~+-:"[i % 32];
	payload[row] = 0;

	PGconn *c = PQconnectdb(argv[1]);
	if (PQstatus(c) != CONNECTION_OK)
		die(c, "connect");
	exec(c, "SET client_min_messages = warning");
	exec(c, "DROP TABLE IF EXISTS bench_commits");
	exec(c, "CREATE TABLE bench_commits (game_id text NOT NULL, ply bigint NOT NULL, "
		"payload text NOT NULL, PRIMARY KEY (game_id, ply))");
	PGresult *r = PQprepare(c, "ins", "INSERT INTO bench_commits (game_id, ply, payload) "
				"VALUES ('bcdfghjkmnpq', $1, $2)", 2, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die(c, "prepare");
	PQclear(r);

	/* BEGIN, the row, COMMIT: the shape of the daemon's writes, each change its own transaction. */
	t0 = now_s();
	do {
		const char *values[2] = {ply, payload};
		snprintf(ply, sizeof ply, "%ld", n);
		exec(c, "BEGIN");
		r = PQexecPrepared(c, "ins", 2, values, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			die(c, "insert");
		PQclear(r);
		exec(c, "COMMIT");
		n++;
		t1 = now_s();
	} while (t1 - t0 < secs);

	printf("commits=%ld seconds=%.3f rate=%.1f\n", n, t1 - t0, (double)n / (t1 - t0));
	exec(c, "DROP TABLE bench_commits");
	PQfinish(c);
	free(payload);
	return 0;
}
