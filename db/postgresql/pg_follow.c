/* pg_follow.c - every daemon's commits, learnt by LISTEN: the version trigger notifies each game's new version. */
#include "pg_db.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The channel the trigger of migration 0018 notifies on; a payload is "<game id> <version>". */
#define CHANNEL "rookery_games"

static void tell(PGnotify *n, db_changed_fn fn, void *ctx)
{
	char id[DB_GAME_ID_TEXT];
	const char *space = strrchr(n->extra, ' ');
	size_t len = space ? (size_t)(space - n->extra) : 0;

	if (!space || len == 0 || len >= sizeof id)
		return;
	memcpy(id, n->extra, len);
	id[len] = 0;
	fn(ctx, id, atoll(space + 1));
}

int pg_follow(db *d, db_changed_fn fn, void *ctx, int timeout_ms, db_error *err)
{
	struct pg_db *p = pg_of(d);
	struct pollfd pfd;
	PGnotify *n;
	int told = 0;

	if (!p->listening) {
		PGresult *res = PQexec(p->conn, "LISTEN " CHANNEL);
		int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
		if (!ok)
			pg_note_error(p, res);
		PQclear(res);
		if (!ok)
			return dbi_sql_fail(d, err, "listen");
		p->listening = 1;
	}
	for (;;) {
		if (!PQconsumeInput(p->conn)) {
			pg_note_error(p, NULL);
			return dbi_sql_fail(d, err, "follow the commits");
		}
		while ((n = PQnotifies(p->conn))) {
			tell(n, fn, ctx);
			PQfreemem(n);
			told = 1;
		}
		if (told)
			return 0;
		pfd.fd = PQsocket(p->conn);
		pfd.events = POLLIN;
		pfd.revents = 0;
		int r = poll(&pfd, 1, timeout_ms);
		if (r == 0 || (r < 0 && errno == EINTR))
			return 0;
		if (r < 0)
			return dbi_fail(err, DB_E_IO, "follow the commits: %s", strerror(errno));
	}
}
