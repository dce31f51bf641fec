/*
 * movebench.c - end-to-end moves committed per second through the JSON API.
 *
 * 1. Learns a sequence of legal Nchess moves from the API: one game played by asking
 *    GET /api/games/{id} (with the seat's token) for the legal moves and taking one of them
 *    (a fixed pseudo-random choice), until --plies moves or the end of the game.
 * 2. Creates the games to replay it in (POST /api/games).
 * 3. Replays the sequence in all of them at once over --conns keep-alive connections, one game
 *    at a time per connection, each move with its seat's token and the right ply, for
 *    --seconds or until every game is played through. Every move must be answered 201.
 *
 * usage: movebench --port P [--conns 16] [--seconds 20] [--plies 120] [--games N]
 *                  [--games-out FILE] [--seed S]
 * prints one line: moves=N errors=E seconds=S rate=R p50_ms=X p99_ms=Y games=G plies=L
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PLIES 1000

static unsigned port;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *fmt, const char *detail)
{
	fprintf(stderr, "movebench: ");
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
	exit(1);
}

/* ---- a minimal HTTP/1.1 keep-alive client ---- */

typedef struct conn {
	int fd;
	int src;            /* source address 127.0.0.(2 + src % 4) */
	char buf[65536];
	size_t have;        /* bytes in buf not yet consumed */
} conn;

static void conn_open(conn *c)
{
	struct sockaddr_in sa, src;
	int one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		die("socket: %s", strerror(errno));
	memset(&src, 0, sizeof src);
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + (unsigned)(c->src % 4));
	bind(c->fd, (struct sockaddr *)&src, sizeof src);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa))
		die("connect: %s", strerror(errno));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->have = 0;
}

static void conn_close(conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->have = 0;
}

/*
 * Send one request and read its answer. Returns the status; *body points into c->buf (NUL
 * terminated) until the next request. Reconnects when the server closed the connection.
 */
static int request(conn *c, const char *method, const char *path, const char *token,
		   const char *body, char **out_body)
{
	char req[2048];
	int n, retried = 0;

again:
	if (c->fd < 0)
		conn_open(c);
	if (body)
		n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%s"
			     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", method, path,
			     token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "",
			     strlen(body), body);
	else
		n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%s\r\n", method, path,
			     token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "");
	if (n <= 0 || (size_t)n >= sizeof req)
		die("request too long: %s", path);
	for (int off = 0; off < n;) {
		ssize_t w = send(c->fd, req + off, (size_t)(n - off), MSG_NOSIGNAL);
		if (w <= 0) {
			conn_close(c);
			if (retried++)
				die("send: %s", strerror(errno));
			goto again;
		}
		off += (int)w;
	}
	/* Headers. */
	char *end;
	c->have = 0;
	for (;;) {
		c->buf[c->have] = 0;
		if ((end = strstr(c->buf, "\r\n\r\n")))
			break;
		if (c->have >= sizeof c->buf - 1)
			die("%s", "answer headers too large");
		ssize_t r = recv(c->fd, c->buf + c->have, sizeof c->buf - 1 - c->have, 0);
		if (r <= 0) {
			/* A keep-alive connection closed before any answer: open a new one, once. */
			conn_close(c);
			if (retried++)
				die("recv: %s", r < 0 ? strerror(errno) : "connection closed");
			goto again;
		}
		c->have += (size_t)r;
	}
	int status = 0;
	if (sscanf(c->buf, "HTTP/1.%*d %d", &status) != 1)
		die("bad status line: %.40s", c->buf);
	size_t hlen = (size_t)(end + 4 - c->buf), clen = 0;
	int closing = 0;
	for (char *line = strstr(c->buf, "\r\n") + 2; line < end; line = strstr(line, "\r\n") + 2) {
		if (!strncasecmp(line, "Content-Length:", 15))
			clen = strtoul(line + 15, NULL, 10);
		else if (!strncasecmp(line, "Connection: close", 17))
			closing = 1;
	}
	if (hlen + clen >= sizeof c->buf)
		die("%s", "answer too large");
	while (c->have < hlen + clen) {
		ssize_t r = recv(c->fd, c->buf + c->have, hlen + clen - c->have, 0);
		if (r <= 0)
			die("recv body: %s", r < 0 ? strerror(errno) : "connection closed");
		c->have += (size_t)r;
	}
	c->buf[hlen + clen] = 0;
	if (out_body)
		*out_body = c->buf + hlen;
	if (closing)
		conn_close(c);
	return status;
}

static json_t *request_json(conn *c, const char *method, const char *path, const char *token,
			    const char *body, int want)
{
	char *text;
	int status = request(c, method, path, token, body, &text);
	json_t *v;

	if (status != want) {
		fprintf(stderr, "movebench: %s %s: %d %s\n", method, path, status, text);
		exit(1);
	}
	v = json_loads(text, 0, NULL);
	if (!v)
		die("not JSON: %.60s", text);
	return v;
}

/* ---- games ---- */

typedef struct game {
	char id[32];
	char token[2][48];
} game;

static const char create_body[] = "{\"variant\":\"nchess\",\"seats\":[{\"name\":\"Ann\"},{\"name\":\"Ben\"}]}";

static void create_game(conn *c, game *g)
{
	json_t *v = request_json(c, "POST", "/api/games", NULL, create_body, 201);

	snprintf(g->id, sizeof g->id, "%s", json_string_value(json_object_get(v, "id")));
	for (int s = 0; s < 2; s++)
		snprintf(g->token[s], sizeof g->token[s], "%s", json_string_value(
			json_object_get(json_array_get(json_object_get(v, "seats"), (size_t)s), "token")));
	json_decref(v);
}

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
static pthread_barrier_t start;

typedef struct worker {
	pthread_t thread;
	int index;
	long ok, errors;
	double *lat;
	size_t nlat, cap;
	double finished;
} worker;

static void *replay(void *arg)
{
	worker *w = arg;
	conn c = {.fd = -1, .src = w->index};
	char path[128];

	conn_open(&c);
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'}, {"conns", required_argument, NULL, 'c'},
		{"seconds", required_argument, NULL, 'd'}, {"plies", required_argument, NULL, 'l'},
		{"games", required_argument, NULL, 'n'}, {"games-out", required_argument, NULL, 'o'},
		{"seed", required_argument, NULL, 's'}, {NULL, 0, NULL, 0},
	};
	int conns = 16, want_plies = 120, opt;
	double secs = 20;
	unsigned seed = 1;
	const char *out = NULL;

	ngames = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': port = (unsigned)atoi(optarg); break;
		case 'c': conns = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'l': want_plies = atoi(optarg); break;
		case 'n': ngames = atoi(optarg); break;
		case 'o': out = optarg; break;
		case 's': seed = (unsigned)atoi(optarg); break;
		default: return 2;
		}
	}
	if (!port || conns < 1 || want_plies < 1 || want_plies > MAX_PLIES) {
		fprintf(stderr, "usage: movebench --port P [--conns C] [--seconds S] [--plies L] [--games N] "
			"[--games-out FILE] [--seed S]\n");
		return 2;
	}

	/* A sequence long enough to be worth replaying: a game that ends early is tried again. */
	for (int tries = 0; tries < 20 && nplies < want_plies / 2; tries++)
		learn_sequence(want_plies, seed + (unsigned)tries * 7919u);
	if (nplies < 2)
		die("%s", "no usable move sequence");
	if (ngames <= 0)
		ngames = conns * 4;

	games = calloc((size_t)ngames, sizeof *games);
	{
		conn c = {.fd = -1};
		for (int i = 0; i < ngames; i++)
			create_game(&c, &games[i]);
		conn_close(&c);
	}

	worker *ws = calloc((size_t)conns, sizeof *ws);
	pthread_barrier_init(&start, NULL, (unsigned)conns + 1);
	deadline = now_s() + 1e9;
	for (int i = 0; i < conns; i++) {
		ws[i].index = i;
		pthread_create(&ws[i].thread, NULL, replay, &ws[i]);
	}
	double t0 = now_s();
	deadline = t0 + secs;
	pthread_barrier_wait(&start);
	t0 = now_s();
	deadline = t0 + secs;

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
	qsort(lat, nlat, sizeof *lat, cmp_double);
	double p50 = nlat ? lat[nlat / 2] : 0, p99 = nlat ? lat[(size_t)((double)nlat * 0.99)] : 0;
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
