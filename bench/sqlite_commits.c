/*
 * sqlite_commits.c - the ceiling for committed moves: one row per transaction into SQLite with
 * the daemon's settings (WAL, synchronous=FULL, BEGIN IMMEDIATE ... COMMIT), as fast as one
 * connection can go. A row is about the size of a stored move (game id, ply, ~240 bytes of text).
 *
 * usage: sqlite_commits DB SECONDS [ROW_BYTES]
 * prints: commits=N seconds=S rate=R   (commits per second)
 */
#include "ceiling.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct lite {
	sqlite3 *db;
	sqlite3_stmt *begin, *ins, *commit;
} lite;

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

static void commit_one(void *ctx, long n, const ceiling *c)
{
	lite *l = ctx;

	if (sqlite3_step(l->begin) != SQLITE_DONE)
		die(l->db, "begin");
	sqlite3_reset(l->begin);
	sqlite3_bind_int64(l->ins, 1, n);
	sqlite3_bind_text(l->ins, 2, c->payload, (int)c->row, SQLITE_STATIC);
	if (sqlite3_step(l->ins) != SQLITE_DONE)
		die(l->db, "insert");
	sqlite3_reset(l->ins);
	if (sqlite3_step(l->commit) != SQLITE_DONE)
		die(l->db, "commit");
	sqlite3_reset(l->commit);
}

int main(int argc, char **argv)
{
	ceiling c;
	lite l;

	ceiling_args(&c, argc, argv, "usage: sqlite_commits DB SECONDS [ROW_BYTES]");
	remove(c.target);
	if (sqlite3_open_v2(c.target, &l.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		die(l.db, "open");
	sqlite3_busy_timeout(l.db, 5000);
	/* The daemon's settings (db/db.c). */
	exec(l.db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
	exec(l.db, "CREATE TABLE IF NOT EXISTS moves (game_id TEXT NOT NULL, ply INTEGER NOT NULL, "
		 "payload TEXT NOT NULL, PRIMARY KEY (game_id, ply)) STRICT");
	if (sqlite3_prepare_v2(l.db, "BEGIN IMMEDIATE", -1, &l.begin, NULL) ||
	    sqlite3_prepare_v2(l.db, "INSERT INTO moves (game_id, ply, payload) VALUES ('bcdfghjkmnpq', ?1, ?2)",
			       -1, &l.ins, NULL) ||
	    sqlite3_prepare_v2(l.db, "COMMIT", -1, &l.commit, NULL))
		die(l.db, "prepare");

	ceiling_run(&c, commit_one, &l);

	sqlite3_finalize(l.begin);
	sqlite3_finalize(l.ins);
	sqlite3_finalize(l.commit);
	sqlite3_close(l.db);
	ceiling_free(&c);
	return 0;
}
