/* copy.c - `rookery copy`: an SQLite database copied into an empty PostgreSQL one, then every table counted and every game replayed on both sides. */
#include "daemon/copy.h"
#include "db.h"
#include "rules.h"
#include "xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOVES_PAGE 512        /* moves read at a time while a game is replayed */
#define DIFFERENCES_SHOWN 20  /* differences printed before the check gives up */

static const char usage_copy[] =
	"usage: rookery copy --from PATH --to URI\n"
	"\n"
	"Copy the SQLite database at PATH into the empty PostgreSQL database at URI (a libpq URI,\n"
	"postgresql://user@host/dbname), to move an installation to PostgreSQL: every table, the\n"
	"keys that sign seat links, forms and reply addresses included, so that every link and\n"
	"reply address keeps working. PATH is read in one snapshot: it may be a running server's\n"
	"database, though moves made after the snapshot are not copied (stop the server first).\n"
	"URI is made to the current schema if new, and written in one transaction: a database\n"
	"holding any row, or of a newer schema, is refused and left alone. Then the copy is checked\n"
	"before it is committed: every table's row count on both sides, and every game as stored\n"
	"on both sides and replayed move by move through the rules. Prints the rows copied.\n"
	"\n"
	"Exit status: 0 copied and checked; 64 bad usage; 66 PATH cannot be read (or its schema\n"
	"is not this rookery's: migrate it first); 69 URI cannot be reached (or its schema is\n"
	"newer); 73 URI is not empty; 65 the check found a difference and 74 writing failed\n"
	"(both rolled back: nothing is left in URI).\n"
	"\n"
	"options:\n"
	"  --from PATH       the SQLite database to copy\n"
	"  --to URI          the PostgreSQL database to copy it into\n"
	"  -h, --help        show this help\n";

/* What the check found: the differences, printed as found up to DIFFERENCES_SHOWN. */
struct check {
	int differences;
	long long games, plies;
};

static void differs(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void differs(struct check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->differences++ >= DIFFERENCES_SHOWN)
		return;
	va_start(ap, fmt);
	fputs("rookery copy: differs: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The stored game on both sides, field by field (the version included, which the copy restored). */
static void compare_games(struct check *c, const db_game *s, const db_game *d)
{
	if (!same_text(s->variant, d->variant) || s->rules_version != d->rules_version ||
	    !same_text(s->options, d->options) || s->ply != d->ply || s->over != d->over ||
	    !same_text(s->result, d->result) || !same_text(s->ranks, d->ranks) || s->version != d->version ||
	    s->draw_offer != d->draw_offer || s->draw_accepts != d->draw_accepts ||
	    memcmp(s->seed, d->seed, sizeof s->seed) || !same_text(s->commitment, d->commitment) ||
	    s->dice_version != d->dice_version || s->dice_rolled != d->dice_rolled ||
	    !same_text(s->start_position, d->start_position) || !same_text(s->position, d->position) ||
	    s->open_seats != d->open_seats || s->nseats != d->nseats)
		differs(c, "game %s: its row is not the same on both sides", s->id);
	for (int i = 0; i < s->nseats && i < d->nseats; i++)
		if (s->seats[i].seat != d->seats[i].seat || !same_text(s->seats[i].name, d->seats[i].name) ||
		    !same_text(s->seats[i].email, d->seats[i].email) ||
		    !same_text(s->seats[i].client_seed, d->seats[i].client_seed) || s->seats[i].open != d->seats[i].open)
			differs(c, "game %s: seat %d is not the same on both sides", s->id, s->seats[i].seat);
}

/* A stored move's rolls ([{"sides", "value"}, ...]) as the rules replay them; -1 when unreadable. */
static int read_rolls(const char *dice, int **sides, int **values)
{
	json_t *a = json_loads(dice ? dice : "[]", 0, NULL), *v;
	size_t i;
	int n;

	if (!json_is_array(a)) {
		json_decref(a);
		return -1;
	}
	n = (int)json_array_size(a);
	*sides = xcalloc((size_t)n + 1, sizeof **sides);
	*values = xcalloc((size_t)n + 1, sizeof **values);
	json_array_foreach(a, i, v) {
		(*sides)[i] = (int)json_integer_value(json_object_get(v, "sides"));
		(*values)[i] = (int)json_integer_value(json_object_get(v, "value"));
	}
	json_decref(a);
	return n;
}

/*
 * Replay the moves of game g as the destination holds them from its start position through
 * the rules, each ply's position compared with the one stored with the move; the position
 * reached must be the game's on both sides (source_position).
 */
static void replay_game(struct check *c, db *dst, const db_game *g, const char *source_position)
{
	const rules_game *rules = rules_find(g->variant, g->rules_version);
	rules_position *pos = NULL;
	rules_error re = {0, ""};
	int ply = 0, broken = 0;

	if (!rules || rules->deserialize(g->start_position, &pos, &re)) {
		differs(c, "game %s: its start position cannot be read (%s rules version %d)", g->id, g->variant,
			g->rules_version);
		return;
	}
	while (ply < g->ply && !broken) {
		db_move *moves;
		size_t n;
		db_error de;

		if (db_moves_range(dst, g->id, ply, MOVES_PAGE, &moves, &n, &de) || n == 0) {
			differs(c, "game %s: its moves from ply %d cannot be read", g->id, ply);
			break;
		}
		for (size_t i = 0; i < n && !broken; i++, ply++) {
			const db_move *m = &moves[i];
			int *sides = NULL, *values = NULL, nrolls = read_rolls(m->dice, &sides, &values);
			rules_ply p = {m->seat, m->move, nrolls, sides, values};
			char *after;

			if (m->ply != ply || nrolls < 0) {
				differs(c, "game %s: ply %d is missing or its dice are unreadable", g->id, ply);
				broken = 1;
			} else if (rules_replay_ply(rules, pos, &p, &re)) {
				differs(c, "game %s: ply %d cannot be replayed: %s", g->id, ply, re.message);
				broken = 1;
			} else if (strcmp(after = rules->serialize(pos), m->position_after)) {
				free(after);
				differs(c, "game %s: replaying ply %d does not reach the position stored with it", g->id, ply);
				broken = 1;
			} else {
				free(after);
				c->plies++;
			}
			free(sides);
			free(values);
		}
		db_moves_free(moves, n);
	}
	if (!broken) {
		char *reached = rules->serialize(pos);
		if (strcmp(reached, g->position) || strcmp(reached, source_position))
			differs(c, "game %s: its moves replayed do not reach its position on both sides", g->id);
		free(reached);
	}
	rules->free_position(pos);
}

/* Every game on both sides: the same ids, the same rows, and moves that replay to the position. */
static void check_games(struct check *c, db *src, db *dst)
{
	char **sids = NULL, **dids = NULL;
	size_t ns = 0, nd = 0;
	db_error de;

	if (db_game_ids(src, &sids, &ns, &de) || db_game_ids(dst, &dids, &nd, &de)) {
		differs(c, "the games cannot be listed: %s", de.message);
		goto out;
	}
	if (ns != nd)
		differs(c, "%zu games in the source, %zu in the copy", ns, nd);
	for (size_t i = 0; i < ns && i < nd && c->differences < DIFFERENCES_SHOWN; i++) {
		db_game *s = NULL, *d = NULL;

		if (strcmp(sids[i], dids[i])) {
			differs(c, "game %s of the source is not in the copy", sids[i]);
			break;
		}
		if (db_game_load(src, sids[i], &s, &de) || db_game_load(dst, dids[i], &d, &de)) {
			differs(c, "game %s cannot be read: %s", sids[i], de.message);
		} else {
			compare_games(c, s, d);
			replay_game(c, dst, d, s->position);
			c->games++;
		}
		db_game_free(s);
		db_game_free(d);
	}
out:
	db_game_ids_free(sids, ns);
	db_game_ids_free(dids, nd);
}

/* Copy, check, and commit or roll back; the exit code. */
static int copy(const char *from, const char *to)
{
	char shown[DB_TARGET_TEXT];
	struct check c = {0, 0, 0};
	db_copied *tables = NULL;
	size_t n = 0;
	db *src, *dst;
	db_error de;
	int r;

	db_target_describe(to, shown, sizeof shown);
	if ((r = db_copy_source(from, &src, &de))) {
		fprintf(stderr, "rookery copy: cannot read %s: %s\n", from, de.message);
		return COPY_SOURCE;
	}
	if ((r = db_copy_destination(to, &dst, &de))) {
		fprintf(stderr, "rookery copy: %s %s: %s\n", r == DB_E_CONFLICT ? "refusing to copy into" : "cannot use",
			shown, de.message);
		db_close(src);
		return r == DB_E_CONFLICT ? COPY_NOT_EMPTY : COPY_DESTINATION;
	}
	if ((r = db_copy_tables(src, dst, &tables, &n, &de))) {
		fprintf(stderr, "rookery copy: the copy failed, nothing was kept: %s\n", de.message);
		db_copy_end(dst, 0, NULL);
		db_close(src);
		return COPY_FAILED;
	}
	for (size_t i = 0; i < n; i++)
		if (tables[i].copied != tables[i].source_rows || tables[i].dest_rows != tables[i].source_rows)
			differs(&c, "table %s: %lld rows in the source, %lld copied, %lld in the copy", tables[i].table,
				tables[i].source_rows, tables[i].copied, tables[i].dest_rows);
	check_games(&c, src, dst);
	db_close(src);
	if (c.differences) {
		fprintf(stderr, "rookery copy: %d difference%s: the copy is rolled back, nothing was kept in %s\n",
			c.differences, c.differences == 1 ? "" : "s", shown);
		db_copy_end(dst, 0, NULL);
		db_copied_free(tables, n);
		return COPY_VERIFY_FAILED;
	}
	if (db_copy_end(dst, 1, &de)) {
		fprintf(stderr, "rookery copy: the copy could not be committed, nothing was kept: %s\n", de.message);
		db_copied_free(tables, n);
		return COPY_FAILED;
	}
	printf("rookery copy: %s copied into %s\n", from, shown);
	for (size_t i = 0; i < n; i++)
		printf("  %-16s %lld row%s\n", tables[i].table, tables[i].copied, tables[i].copied == 1 ? "" : "s");
	printf("rookery copy: checked: %zu tables with as many rows on both sides, %lld games replayed "
	       "(%lld plies) to the positions stored\n", n, c.games, c.plies);
	db_copied_free(tables, n);
	return COPY_OK;
}

int copy_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *from = NULL, *to = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': from = optarg; break;
		case 't': to = optarg; break;
		case 'h': fputs(usage_copy, stdout); return COPY_OK;
		default: fputs(usage_copy, stderr); return COPY_USAGE;
		}
	}
	if (optind != argc || !from || !to) {
		fputs(usage_copy, stderr);
		return COPY_USAGE;
	}
	if (db_target_is_postgresql(from) || !db_target_is_postgresql(to)) {
		fprintf(stderr, "rookery copy: --from is an SQLite database's path, --to a PostgreSQL URI "
			"(postgresql://user@host/dbname)\n");
		return COPY_USAGE;
	}
	return copy(from, to);
}
