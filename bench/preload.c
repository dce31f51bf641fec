/*
 * preload.c - a large database for bench/run: finished and running Nchess games written
 * straight into the schema of migrations/NNNN_*.sql (created by db_open, as the daemon does), in big
 * transactions.
 *
 * The rows are what the daemon would have written: games with real positions (taken from
 * random games played with the rules library), a dice seed and its commitment; two seats each,
 * some with an email address, each with a seat token stored as the daemon stores it (SHA-256 of
 * the 32-character base64url text, looked up by token_hash); finished games with their result
 * and ranks (General captured, no legal move, a resignation or a draw by agreement, with the
 * matching rows in actions); move rows (canonical text, note, places, position after) for every
 * running game and for every --history-every'th finished game. The rest of the finished games
 * carry their final position and ply without the history, to keep the file near 2.4 GB.
 *
 * usage: preload DB [--finished N] [--running N] [--history-every K] [--sample N] [--sample-out FILE]
 *                   [--long-plies N --long-out FILE]
 *        preload --schema-version
 * The sample file lists --sample games spread over the whole database, one per line:
 * "<id> <token of the seat to move>" for running games, "<id> -" for finished ones.
 * --long-plies adds one running game of N plies, its N move rows (moves of the random games
 * in turn: the rows are what matters, not their sequence) and, as its last position, a real
 * position of Nchess with the right seat to move; and one fresh game (ply 0) to compare it
 * with. --long-out gets two lines, "<id> <token of the seat to move>": the long game, the fresh one.
 * DB must not exist. Deterministic: the same arguments give the same games.
 */
#include "db.h"
#include "rules.h"

#include <getopt.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NTRAJ 512
#define MAX_PLY 160
#define ID_LEN 12

/* ---- deterministic randomness (splitmix64) ---- */

static uint64_t rng_state = 0x5eed5eed12345678ull;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static void rnd_bytes(unsigned char *out, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = rnd();
		memcpy(out + i, &v, n - i < 8 ? n - i : 8);
	}
}

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "preload: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

/* ---- trajectories: random games played with the rules ---- */

typedef struct traj {
	int len;                      /* plies played */
	int over;                     /* the last position ends the game */
	rules_result result;
	char *pos[MAX_PLY + 1];       /* pos[k]: the position after k plies */
	int seat[MAX_PLY];
	char *move[MAX_PLY], *note[MAX_PLY], *places[MAX_PLY];
} traj;

static traj trajs[NTRAJ];

static int no_dice(void *ctx, int sides, int *value)
{
	(void)ctx;
	*value = sides > 0 ? 1 : 0;
	return 0;
}

static char *places_json(const rules_gesture *g)
{
	char buf[160];
	size_t n = 0;

	buf[n++] = '[';
	for (int i = 0; i < g->n; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"%s\"", i ? "," : "", g->at[i]);
	snprintf(buf + n, sizeof buf - n, "]");
	return strdup(buf);
}

static void play_trajectories(const rules_game *rg)
{
	rules_dice dice = {no_dice, NULL};

	for (int t = 0; t < NTRAJ; t++) {
		traj *tr = &trajs[t];
		rules_position *pos;
		rules_error re;
		int limit = 20 + (int)rnd_below(MAX_PLY - 20);

		if (rg->start(NULL, &pos, &re))
			die("start", re.message);
		tr->pos[0] = rg->serialize(pos);
		for (int k = 0; k < limit; k++) {
			unsigned turn = rg->turn(pos);
			if (!turn)
				break;
			int seat = turn & 1 ? 0 : 1;
			rules_move_list list = {0};
			rg->legal_moves(pos, seat, &list);
			size_t whole = 0;
			for (size_t i = 0; i < list.n; i++)
				whole += !list.v[i].partial;
			if (!whole) {
				rules_move_list_free(&list);
				break;
			}
			size_t pick = rnd_below((unsigned)whole), i = 0;
			for (;; i++)
				if (!list.v[i].partial && pick-- == 0)
					break;
			rules_move mv = list.v[i];
			rules_move_list_free(&list);
			char text[RULES_TEXT_MAX];
			rules_gesture g;
			rules_outcome oc = {0};
			memset(&g, 0, sizeof g);
			rg->format(pos, &mv, text, sizeof text);
			if (rg->gesture)
				rg->gesture(pos, &mv, &g);
			if (rg->apply(pos, &mv, &dice, &oc, &re))
				die("apply", re.message);
			tr->seat[k] = seat;
			tr->move[k] = strdup(text);
			tr->note[k] = strdup(oc.note);
			tr->places[k] = places_json(&g);
			tr->pos[k + 1] = rg->serialize(pos);
			tr->len = k + 1;
		}
		rg->result(pos, &tr->result);
		tr->over = tr->result.over;
		rg->free_position(pos);
	}
}

/* ---- rows ---- */

typedef struct gen_game {
	char id[ID_LEN + 1];
	int finished;
} gen_game;

static int cmp_game(const void *a, const void *b)
{
	return strcmp(((const gen_game *)a)->id, ((const gen_game *)b)->id);
}

static void new_id(char out[ID_LEN + 1])
{
	static const char alphabet[] = "bcdfghjkmnpqrstvwxz23456789";   /* as service/pipeline/create.c */

	for (int i = 0; i < ID_LEN; i++)
		out[i] = alphabet[rnd_below(sizeof alphabet - 1)];
	out[ID_LEN] = 0;
}

static void stamp(time_t t, char out[32])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static sqlite3 *conn;

static void exec(const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(conn, sql, NULL, NULL, &msg) != SQLITE_OK)
		die(sql, msg);
}

static sqlite3_stmt *prepare(const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) != SQLITE_OK)
		die(sql, sqlite3_errmsg(conn));
	return st;
}

static void step(sqlite3_stmt *st, const char *what)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		die(what, sqlite3_errmsg(conn));
	sqlite3_reset(st);
}

static void text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static const char *const names[] = {
	"Ann", "Ben", "Chloé", "Dmitri", "Eun-ji", "Farah", "Gustavo", "Hana", "Ivo", "Jiang",
	"Kofi", "Lena", "Mateus", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tomasz",
};

static sqlite3_stmt *ins_game, *ins_seat, *ins_move;
static const char *const channels[] = {"web", "api", "mail", "web"};

/* One row of moves: ply k of game id, played by seat, at the time "at". */
static void insert_move(const char *id, int k, int seat, const char *move, const char *note, const char *at,
			const char *position_after, const char *places)
{
	text(ins_move, 1, id);
	sqlite3_bind_int(ins_move, 2, k);
	sqlite3_bind_int(ins_move, 3, seat);
	text(ins_move, 4, move);
	text(ins_move, 5, note);
	text(ins_move, 6, channels[rnd_below(4)]);
	text(ins_move, 7, at);
	text(ins_move, 8, position_after);
	text(ins_move, 9, places);
	step(ins_move, "insert move");
}

/* The row of games (over: finished, with result and ranks), with a dice seed and its commitment. */
static void insert_game(const char *id, const rules_game *rg, int over, int ply, const char *start,
			const char *position, const char *result, const char *ranks, const char *created,
			const char *updated)
{
	unsigned char seed[32], hash[32];
	char commitment[65];

	rnd_bytes(seed, sizeof seed);
	crypto_hash_sha256(hash, seed, sizeof seed);
	sodium_bin2hex(commitment, sizeof commitment, hash, sizeof hash);
	text(ins_game, 1, id);
	sqlite3_bind_int(ins_game, 2, rg->version);
	text(ins_game, 3, over ? "over" : "running");
	sqlite3_bind_int(ins_game, 4, ply);
	text(ins_game, 5, start);
	text(ins_game, 6, position);
	text(ins_game, 7, over ? result : NULL);
	text(ins_game, 8, over ? ranks : NULL);
	sqlite3_bind_blob(ins_game, 9, seed, sizeof seed, SQLITE_TRANSIENT);
	text(ins_game, 10, commitment);
	text(ins_game, 11, created);
	text(ins_game, 12, updated);
	step(ins_game, "insert game");
}

/* The two seats of game id, some with an email address; their tokens in token[]. */
static void insert_seats(const char *id, char token[2][33])
{
	for (int s = 0; s < 2; s++) {
		unsigned char raw[24], hash[32];
		char email[64];
		unsigned who = rnd_below(200000);
		rnd_bytes(raw, sizeof raw);
		sodium_bin2base64(token[s], 33, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
		crypto_hash_sha256(hash, (const unsigned char *)token[s], strlen(token[s]));
		snprintf(email, sizeof email, "player%u@example.org", who);
		text(ins_seat, 1, id);
		sqlite3_bind_int(ins_seat, 2, s);
		text(ins_seat, 3, names[who % (sizeof names / sizeof names[0])]);
		text(ins_seat, 4, rnd_below(10) < 3 ? email : NULL);
		sqlite3_bind_blob(ins_seat, 5, hash, sizeof hash, SQLITE_TRANSIENT);
		step(ins_seat, "insert seat");
	}
}

/*
 * The long game of --long-plies and a fresh one, written to out. Its moves are those of the
 * random games in turn; its position is one of a random game that is not over, reached after
 * a number of plies of the same parity, so that the seat to move is the one a game of this
 * many plies has.
 */
static void write_long_game(const rules_game *rg, int plies, FILE *out, time_t epoch)
{
	const traj *end = NULL;
	int at_ply = 0;
	char id[ID_LEN + 1], token[2][33], created[32], at[32];
	time_t t = epoch;

	for (int i = 0; i < NTRAJ && !end; i++) {
		const traj *tr = &trajs[i];
		int last = tr->over ? tr->len - 1 : tr->len;
		for (int k = last; k >= 1 && !end; k--)
			if (k % 2 == plies % 2) {
				end = tr;
				at_ply = k;
			}
	}
	if (!end)
		die("no position for the long game", NULL);
	new_id(id);
	stamp(t, created);
	for (int k = 0, n = 0; k < plies; n++) {
		const traj *tr = &trajs[n % NTRAJ];
		for (int j = 0; j < tr->len && k < plies; j++, k++) {
			t += 60;
			stamp(t, at);
			insert_move(id, k, k % 2, tr->move[j], tr->note[j], at, tr->pos[j + 1], tr->places[j]);
		}
	}
	insert_game(id, rg, 0, plies, end->pos[0], end->pos[at_ply], NULL, NULL, created, at);
	insert_seats(id, token);
	fprintf(out, "%s %s\n", id, token[plies % 2]);
	new_id(id);
	insert_game(id, rg, 0, 0, trajs[0].pos[0], trajs[0].pos[0], NULL, NULL, at, at);
	insert_seats(id, token);
	fprintf(out, "%s %s\n", id, token[0]);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"finished", required_argument, NULL, 'f'}, {"running", required_argument, NULL, 'r'},
		{"history-every", required_argument, NULL, 'h'}, {"sample", required_argument, NULL, 'n'},
		{"sample-out", required_argument, NULL, 'o'}, {"schema-version", no_argument, NULL, 'v'},
		{"long-plies", required_argument, NULL, 'l'}, {"long-out", required_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	long nfinished = 1000000, nrunning = 100000, every = 20, nsample = 20000, long_plies = 0;
	const char *sample_out = NULL, *long_out = NULL, *path;
	const rules_game *rg = rules_find("nchess", 0);
	db *d;
	db_error de;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': nfinished = atol(optarg); break;
		case 'r': nrunning = atol(optarg); break;
		case 'h': every = atol(optarg) > 0 ? atol(optarg) : 1; break;
		case 'n': nsample = atol(optarg); break;
		case 'o': sample_out = optarg; break;
		case 'l': long_plies = atol(optarg); break;
		case 'L': long_out = optarg; break;
		case 'v': printf("%d\n", db_schema_version_supported()); return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1 || !rg || long_plies < 0 || long_plies > 10000000 || (long_plies && !long_out)) {
		fprintf(stderr, "usage: preload DB [--finished N] [--running N] [--history-every K] "
			"[--sample N] [--sample-out FILE] [--long-plies N --long-out FILE]\n"
			"       preload --schema-version\n");
		return 2;
	}
	path = argv[optind];
	if (access(path, F_OK) == 0)
		die(path, "exists already");
	if (sodium_init() < 0)
		die("libsodium", NULL);

	/* The schema exactly as the daemon makes it. */
	if (db_open(path, &d, &de))
		die("db_open", de.message);
	db_close(d);

	play_trajectories(rg);

	long total = nfinished + nrunning;
	gen_game *gs = malloc((size_t)total * sizeof *gs);
	for (long i = 0; i < total; i++) {
		new_id(gs[i].id);
		gs[i].finished = i < nfinished;
	}
	/* Inserted in id order: every key but the token hashes and emails is appended. */
	qsort(gs, (size_t)total, sizeof *gs, cmp_game);
	for (long i = 1; i < total; i++)
		while (!strcmp(gs[i].id, gs[i - 1].id))
			new_id(gs[i].id);   /* (a clash of 12 random letters: only in theory) */

	if (sqlite3_open(path, &conn) != SQLITE_OK)
		die("open", sqlite3_errmsg(conn));
	exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -1000000; "
	     "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY;");
	ins_game = prepare(
		"INSERT INTO games (id, variant, rules_version, options, status, ply, start_position, position, "
		"result, ranks, draw_offer, draw_accepts, dice_seed, dice_commitment, created_at, updated_at) "
		"VALUES (?1, 'nchess', ?2, '', ?3, ?4, ?5, ?6, ?7, ?8, NULL, 0, ?9, ?10, ?11, ?12)");
	ins_seat = prepare(
		"INSERT INTO seats (game_id, seat, name, email, token_hash) VALUES (?1, ?2, ?3, ?4, ?5)");
	ins_move = prepare(
		"INSERT INTO moves (game_id, ply, seat, move, note, channel, at, dice, secret, position_after, places) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '[]', 0, ?8, ?9)");
	sqlite3_stmt *ins_action = prepare(
		"INSERT INTO actions (game_id, seq, ply, seat, action, channel, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");

	FILE *sample = sample_out ? fopen(sample_out, "w") : NULL;
	if (sample_out && !sample)
		die("cannot write", sample_out);
	long sample_step = nsample > 0 && total > nsample ? total / nsample : 1;
	time_t epoch = 1704067200;   /* 2024-01-01 */
	long nmoves = 0;

	exec("BEGIN");
	for (long i = 0; i < total; i++) {
		const gen_game *gg = &gs[i];
		const traj *tr = &trajs[rnd_below(NTRAJ)];
		int ply, status_over, history;
		char result[128] = "", ranks[16] = "", created[32], updated[32], at[32];
		const char *action = NULL;
		int actor = 0;

		if (gg->finished) {
			/* Ends where its random game ended, or earlier by resignation or agreement. */
			int lo = tr->len < 10 ? tr->len : 10;
			ply = tr->over && rnd_below(2) ? tr->len : lo + (int)rnd_below((unsigned)(tr->len - lo + 1));
			status_over = 1;
			if (ply == tr->len && tr->over) {
				snprintf(result, sizeof result, "%s", tr->result.summary);
				snprintf(ranks, sizeof ranks, "[%d,%d]", tr->result.rank[0], tr->result.rank[1]);
			} else if (rnd_below(10) == 0) {
				snprintf(result, sizeof result, "drawn by agreement");
				snprintf(ranks, sizeof ranks, "[1,1]");
				action = "accept";
				actor = ply % 2;
			} else {
				actor = ply % 2;   /* the seat to move resigns */
				snprintf(result, sizeof result, "%s wins: %s resigned", rg->seat_names[1 - actor],
					 rg->seat_names[actor]);
				snprintf(ranks, sizeof ranks, actor ? "[1,2]" : "[2,1]");
				action = "resign";
			}
			history = i % every == 0;
		} else {
			/* Running: any position before the end. */
			int last = tr->over ? tr->len - 1 : tr->len;
			ply = (int)rnd_below((unsigned)last + 1);
			status_over = 0;
			history = 1;
		}
		time_t t0 = epoch + (time_t)rnd_below(700 * 86400);
		time_t t = t0;
		stamp(t0, created);

		if (history) {
			for (int k = 0; k < ply; k++) {
				t += 60 + (time_t)rnd_below(86400);
				stamp(t, at);
				insert_move(gg->id, k, tr->seat[k], tr->move[k], tr->note[k], at, tr->pos[k + 1],
					    tr->places[k]);
				nmoves++;
			}
		} else {
			t += (time_t)ply * (60 + (time_t)rnd_below(43200));
		}
		if (action) {
			t += 60 + (time_t)rnd_below(86400);
			stamp(t, at);
			int seq = 1;
			if (!strcmp(action, "accept")) {
				text(ins_action, 1, gg->id);
				sqlite3_bind_int(ins_action, 2, seq++);
				sqlite3_bind_int(ins_action, 3, ply);
				sqlite3_bind_int(ins_action, 4, 1 - actor);
				text(ins_action, 5, "offer");
				text(ins_action, 6, "web");
				text(ins_action, 7, at);
				step(ins_action, "insert action");
			}
			text(ins_action, 1, gg->id);
			sqlite3_bind_int(ins_action, 2, seq);
			sqlite3_bind_int(ins_action, 3, ply);
			sqlite3_bind_int(ins_action, 4, actor);
			text(ins_action, 5, action);
			text(ins_action, 6, "web");
			text(ins_action, 7, at);
			step(ins_action, "insert action");
		}
		stamp(t, updated);

		insert_game(gg->id, rg, status_over, ply, tr->pos[0], tr->pos[ply], result, ranks, created, updated);
		char token[2][33];
		insert_seats(gg->id, token);
		if (sample && i % sample_step == 0)
			fprintf(sample, "%s %s\n", gg->id, status_over ? "-" : token[ply % 2]);
		if (i % 200000 == 199999) {
			exec("COMMIT; BEGIN");
			fprintf(stderr, "preload: %ld games, %ld moves\n", i + 1, nmoves);
		}
	}
	if (long_plies) {
		FILE *f = fopen(long_out, "w");
		if (!f)
			die("cannot write", long_out);
		write_long_game(rg, (int)long_plies, f, epoch);
		if (fclose(f))
			die("cannot write", long_out);
	}
	exec("COMMIT");
	sqlite3_finalize(ins_game);
	sqlite3_finalize(ins_seat);
	sqlite3_finalize(ins_move);
	sqlite3_finalize(ins_action);
	/* Back to the daemon's journal mode. */
	exec("PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = WAL;");
	sqlite3_close(conn);
	if (sample && fclose(sample))
		die("cannot write", sample_out);
	printf("preload: %ld finished and %ld running games, %ld moves in %s\n", nfinished, nrunning, nmoves, path);
	free(gs);
	return 0;
}
