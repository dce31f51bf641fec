/*
 * sqlite_commits.c - the ceiling for committed moves: one row per transaction into SQLite with
 * the daemon's settings (WAL, synchronous=FULL, BEGIN IMMEDIATE ... COMMIT), as fast as one
 * connection can go. A row is about the size of a stored move (game id, ply, ~240 bytes of text).
 *
 * usage: sqlite_commits DB SECONDS [ROW_BYTES]
 * prints: commits=N seconds=S rate=R   (commits per second)
 */
#include <sqlite3.h>
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

static void die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "sqlite_commits: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
	exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(db, sql);
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *begin, *ins, *commit;
	double secs, t0, t1;
	size_t row = 240;
	long n = 0;
	char *payload;

	if (argc < 3) {
		fprintf(stderr, "usage: sqlite_commits DB SECONDS [ROW_BYTES]\n");
		return 2;
	}
	secs = atof(argv[2]);
	if (argc > 3)
		row = (size_t)atol(argv[3]);
	payload = malloc(row + 1);
	for (size_t i = 0; i < row; i++)
		payload[i] = "abcdefghijklmnopqrstuvwxyz./~+-:"[i % 32];
	payload[row] = 0;

	remove(argv[1]);
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		die(db, "open");
	sqlite3_busy_timeout(db, 5000);
	/* The daemon's settings (db/db.c). */
	exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
	exec(db, "CREATE TABLE IF NOT EXISTS moves (game_id TEXT NOT NULL, ply INTEGER NOT NULL, "
		 "payload TEXT NOT NULL, PRIMARY KEY (game_id, ply)) STRICT");
	if (sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO moves (game_id, ply, payload) VALUES ('bcdfghjkmnpq', ?1, ?2)",
			       -1, &ins, NULL) ||
	    sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL))
		die(db, "prepare");

	t0 = now_s();
	do {
		if (sqlite3_step(begin) != SQLITE_DONE)
			die(db, "begin");
		sqlite3_reset(begin);
		sqlite3_bind_int64(ins, 1, n);
		sqlite3_bind_text(ins, 2, payload, (int)row, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE)
			die(db, "insert");
		sqlite3_reset(ins);
		if (sqlite3_step(commit) != SQLITE_DONE)
			die(db, "commit");
		sqlite3_reset(commit);
		n++;
		t1 = now_s();
	} while (t1 - t0 < secs);

	printf("commits=%ld seconds=%.3f rate=%.1f\n", n, t1 - t0, (double)n / (t1 - t0));
	sqlite3_finalize(begin);
	sqlite3_finalize(ins);
	sqlite3_finalize(commit);
	sqlite3_close(db);
	free(payload);
	return 0;
}
