/*
 * movebench.c - end-to-end moves committed per second through the JSON API.
 *
 * 1. Learns a sequence of legal Nchess moves from the API: one game played by asking
 *    GET /api/games/{id} (with the seat's token) for the legal moves and taking one of them
 *    (a fixed pseudo-random choice), until --plies moves or the end of the game.
 * 2. Creates the games to replay it in (POST /api/games), over the connections of step 3.
 * 3. Replays the sequence in all of them over --conns keep-alive connections at once: each
 *    connection plays one game at a time, its moves back to back, then takes the next game; so
 *    --conns is the number of games moving at once. Each move goes with its seat's token and the
 *    right ply, for --seconds or until every game is played through. Every move must be answered 201.
 *    With several ports (daemons sharing one database) the connections take them in turn.
 *
 * usage: movebench --port P[,P...] [--conns 16] [--seconds 20] [--plies 120] [--games N]
 *                  [--games-out FILE] [--sequence-out FILE] [--seed S]
 * prints one line: moves=N errors=E seconds=S rate=R p50_ms=X p99_ms=Y games=G plies=L
 * --sequence-out writes the learnt sequence, one ply a line: "<seat> <request body>".
 */
#include "client.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLIES 1000
#define MAX_PORTS 8

/* The fixed sequence: seat and request body of each ply. */
static int nplies;
static int seq_seat[MAX_PLIES];
static char seq_body[MAX_PLIES][160];

static void learn_sequence(int want, unsigned seed)
{
	conn c = {.fd = -1};
	game g;
	char path[128];

	create_game(&c, &g);
	snprintf(path, sizeof path, "/api/games/%s", g.id);
	for (int ply = 0; ply < want; ply++) {
		/* Whose turn, then that seat's legal moves. */
		json_t *pub = request_json(&c, "GET", path, NULL, NULL, 200);
		if (strcmp(json_string_value(json_object_get(pub, "status")), "running")) {
			json_decref(pub);
			break;
		}
		const char *turn = json_string_value(json_array_get(json_object_get(pub, "turn"), 0));
		int seat = turn && !strcmp(turn, "North");
		json_decref(pub);
		json_t *v = request_json(&c, "GET", path, g.token[seat], NULL, 200);
		json_t *legal = json_object_get(v, "legal"), *m, *whole = json_array();
		size_t i;
		json_array_foreach(legal, i, m)
			if (!json_is_true(json_object_get(m, "partial")))
				json_array_append(whole, json_object_get(m, "move"));
		if (json_array_size(whole) == 0) {
			json_decref(whole);
			json_decref(v);
			break;
		}
		seed = seed * 1103515245u + 12345u;
		const char *text = json_string_value(json_array_get(whole, (seed >> 8) % json_array_size(whole)));
		json_t *body = json_pack("{s:s, s:i}", "move", text, "ply", ply);
		char *b = json_dumps(body, JSON_COMPACT);
		char mpath[160];
		snprintf(mpath, sizeof mpath, "%s/moves", path);
		json_decref(request_json(&c, "POST", mpath, g.token[seat], b, 201));
		seq_seat[ply] = seat;
		snprintf(seq_body[ply], sizeof seq_body[ply], "%s", b);
		nplies = ply + 1;
		free(b);
		json_decref(body);
		json_decref(whole);
		json_decref(v);
	}
	conn_close(&c);
}

/* ---- the replay ---- */

static game *games;
static int ngames;
static atomic_int next_game;
static double deadline;
static unsigned ports[MAX_PORTS];
static int nports;
static pthread_barrier_t created, start;

typedef struct worker {
	pthread_t thread;
	int index, conns;
	long ok, errors;
	double *lat;
	size_t nlat, cap;
	double finished;
} worker;

static void *replay(void *arg)
{
	worker *w = arg;
	conn c = {.fd = -1, .src = w->index, .port = ports[w->index % nports]};
	char path[128];

	for (int gi = w->index; gi < ngames; gi += w->conns)
		create_game(&c, &games[gi]);
	pthread_barrier_wait(&created);
	pthread_barrier_wait(&start);
	for (;;) {
		int gi = atomic_fetch_add(&next_game, 1);
		if (gi >= ngames || now_s() >= deadline)
			break;
		snprintf(path, sizeof path, "/api/games/%s/moves", games[gi].id);
		for (int k = 0; k < nplies && now_s() < deadline; k++) {
			char *body;
			double t0 = now_s();
			int status = request(&c, "POST", path, games[gi].token[seq_seat[k]], seq_body[k], &body);
			double dt = now_s() - t0;
			if (status == 201) {
				w->ok++;
			} else {
				if (w->errors++ < 3)
					fprintf(stderr, "movebench: game %s ply %d: %d %.200s\n", games[gi].id, k, status, body);
				break;   /* the rest of this game cannot follow */
			}
			if (w->nlat == w->cap) {
				w->cap = w->cap ? w->cap * 2 : 4096;
				w->lat = realloc(w->lat, w->cap * sizeof *w->lat);
			}
			w->lat[w->nlat++] = dt;
		}
	}
	w->finished = now_s();
	conn_close(&c);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'}, {"conns", required_argument, NULL, 'c'},
		{"seconds", required_argument, NULL, 'd'}, {"plies", required_argument, NULL, 'l'},
		{"games", required_argument, NULL, 'n'}, {"games-out", required_argument, NULL, 'o'},
		{"seed", required_argument, NULL, 's'}, {"sequence-out", required_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	int conns = 16, want_plies = 120, opt;
	double secs = 20;
	unsigned seed = 1;
	const char *out = NULL, *seq_out = NULL;

	ngames = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			for (char *p = optarg; *p && nports < MAX_PORTS; p += *p == ',')
				ports[nports++] = (unsigned)strtoul(p, &p, 10);
			client_port = ports[0];
			break;
		case 'c': conns = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'l': want_plies = atoi(optarg); break;
		case 'n': ngames = atoi(optarg); break;
		case 'o': out = optarg; break;
		case 's': seed = (unsigned)atoi(optarg); break;
		case 'q': seq_out = optarg; break;
		default: return 2;
		}
	}
	for (int i = 0; i < nports; i++)
		if (!ports[i])
			client_port = 0;
	if (!client_port || conns < 1 || want_plies < 1 || want_plies > MAX_PLIES) {
		fprintf(stderr, "usage: movebench --port P[,P...] [--conns C] [--seconds S] [--plies L] [--games N] "
			"[--games-out FILE] [--sequence-out FILE] [--seed S]\n");
		return 2;
	}

	/* A sequence long enough to be worth replaying: a game that ends early is tried again. */
	for (int tries = 0; tries < 20 && nplies < want_plies / 2; tries++)
		learn_sequence(want_plies, seed + (unsigned)tries * 7919u);
	if (nplies < 2)
		die("%s", "no usable move sequence");
	if (ngames <= 0)
		ngames = conns * 4;
	if (seq_out) {
		FILE *f = fopen(seq_out, "w");
		if (!f)
			die("cannot write %s", seq_out);
		for (int k = 0; k < nplies; k++)
			fprintf(f, "%d %s\n", seq_seat[k], seq_body[k]);
		if (fclose(f))
			die("cannot write %s", seq_out);
	}

	games = calloc((size_t)ngames, sizeof *games);
	worker *ws = calloc((size_t)conns, sizeof *ws);
	pthread_barrier_init(&created, NULL, (unsigned)conns + 1);
	pthread_barrier_init(&start, NULL, (unsigned)conns + 1);
	for (int i = 0; i < conns; i++) {
		ws[i].index = i;
		ws[i].conns = conns;
		pthread_create(&ws[i].thread, NULL, replay, &ws[i]);
	}
	/* The clock starts once every game exists: creating them is not moving. */
	pthread_barrier_wait(&created);
	double t0 = now_s();
	deadline = t0 + secs;
	pthread_barrier_wait(&start);

	long ok = 0, errors = 0;
	double t1 = t0;
	size_t nlat = 0;
	double *lat = NULL;
	for (int i = 0; i < conns; i++) {
		pthread_join(ws[i].thread, NULL);
		ok += ws[i].ok;
		errors += ws[i].errors;
		if (ws[i].finished > t1)
			t1 = ws[i].finished;
		lat = realloc(lat, (nlat + ws[i].nlat + 1) * sizeof *lat);
		memcpy(lat + nlat, ws[i].lat, ws[i].nlat * sizeof *lat);
		nlat += ws[i].nlat;
		free(ws[i].lat);
	}
	sort_doubles(lat, nlat);
	double p50 = quantile(lat, nlat, 0.5), p99 = quantile(lat, nlat, 0.99);
	int played = atomic_load(&next_game) < ngames ? atomic_load(&next_game) : ngames;
	if (played >= ngames && t1 - t0 < secs * 0.9)
		fprintf(stderr, "movebench: warning: all %d games were played through after %.1f s; use --games\n",
			ngames, t1 - t0);

	if (out) {
		FILE *f = fopen(out, "w");
		if (!f)
			die("cannot write %s", out);
		for (int i = 0; i < ngames; i++)
			fprintf(f, "%s\n", games[i].id);
		fclose(f);
	}
	printf("moves=%ld errors=%ld seconds=%.3f rate=%.1f p50_ms=%.2f p99_ms=%.2f games=%d plies=%d\n",
	       ok, errors, t1 - t0, (double)ok / (t1 - t0), p50 * 1e3, p99 * 1e3, ngames, nplies);
	free(lat);
	free(ws);
	free(games);
	return errors ? 1 : 0;
}
