/*
 * eventbench.c - live events to many open streams: how fast a move reaches them all.
 *
 * 1. Creates an Nchess game (POST /api/games) and reads the daemon's VmRSS (--pid): idle.
 * 2. Opens --streams streams of GET /api/games/{id}/events at once, non-blocking, on one epoll
 *    loop, --per-address of them from each loopback address 127.1.x.y (the daemon caps the
 *    streams of one client address); a stream counts as open once its first event (the game as
 *    it is) has come.
 * 3. A second thread makes --moves moves in the game, the sequence of --sequence (movebench
 *    --sequence-out), one at a time: each once every open stream has the one before (or
 *    --wait-ms has passed). A stream has move k when an event says "ply" > k.
 * 4. Reads VmRSS again with the streams open.
 *
 * The delay of a move to a stream runs from the move's 201 to the end of the event that brings
 * it (an event that comes before the 201 counts 0: the commit was before both).
 *
 * usage: eventbench --port P --sequence FILE [--streams 1000] [--per-address 8] [--moves 50]
 *                   [--wait-ms 2000] [--pid PID]
 * prints one line: streams=N open=O refused=R status=S moves=M events=E lost=L seconds=T rate=R
 *                  p50_ms=X p99_ms=Y max_ms=Z move_p50_ms=A rss_idle_kb=B rss_open_kb=C
 * exits 3 (after that line) when the daemon has no event streams (the first answer is a 404).
 */
#define _GNU_SOURCE
#include "client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_MOVES 1000
#define RAW_SIZE 16384       /* bytes read from a stream at once, before de-chunking */
#define TEXT_SIZE 65536      /* an event's text at most (the game's JSON is a few KB) */

enum { CONNECTING, HEADERS, BODY, DONE };
enum { CHUNK_SIZE, CHUNK_DATA, CHUNK_END };

typedef struct stream {
	int fd, state, status;
	int chunked, chunk_state;
	long chunk_left;
	int ply;                 /* the highest "ply" of its events; -1 before the first */
	size_t nraw, ntext;
	char raw[RAW_SIZE];
	char text[TEXT_SIZE];
} stream;

static stream *streams;
static int nstreams, per_address = 8, nmoves = 50, wait_ms = 2000;
static char game_path[96];
static game g;

/* Sequence of moves (movebench --sequence-out). */
static int seq_seat[MAX_MOVES];
static char *seq_body[MAX_MOVES];
static int nseq;

/* Shared between the loop and the mover. */
static atomic_int opened;                 /* streams that had their first event */
static atomic_int delivered[MAX_MOVES];   /* streams that have move k */
static atomic_int moves_done;             /* moves answered (201 or not) */
static atomic_int mover_finished;
static double t_201[MAX_MOVES], t_sent[MAX_MOVES];
static double *recv_at;                   /* [stream * nmoves + k]: when it had move k, seconds after t0 */
static double t0, t_last;                 /* the start; the last delivery */

static long rss_kb(const char *pid)
{
	char path[64], line[256];
	long kb = -1;
	snprintf(path, sizeof path, "/proc/%s/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static void read_sequence(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	if (!f)
		die("cannot read %s", path);
	while (nseq < MAX_MOVES && fgets(line, sizeof line, f)) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		line[strcspn(line, "\n")] = 0;
		seq_seat[nseq] = atoi(line);
		seq_body[nseq++] = strdup(sp + 1);
	}
	fclose(f);
}

/* ---- the streams ---- */

static void stream_open(int ep, int i)
{
	stream *s = &streams[i];
	struct sockaddr_in sa, src;
	unsigned a = (unsigned)(i / per_address);
	struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.u32 = (uint32_t)i};

	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s->fd < 0)
		die("socket: %s (raise the limit of open files)", strerror(errno));
	memset(&src, 0, sizeof src);
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0x7f010000u | ((a / 250) << 8) | (a % 250 + 1));
	if (bind(s->fd, (struct sockaddr *)&src, sizeof src))
		die("bind: %s", strerror(errno));
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)client_port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(s->fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS)
		die("connect: %s", strerror(errno));
	s->state = CONNECTING;
	s->ply = -1;
	epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev);
}

static void stream_end(stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->state = DONE;
}

/* One whole event in s->text[0..n): a "ply" above the stream's gives it the moves up to it. */
static void on_event(stream *s, int i, const char *ev, size_t n, double now)
{
	const char *p = memmem(ev, n, "\"ply\":", 6);
	int ply;
	if (!p || (strncmp(ev, "data:", 5) && !memmem(ev, n, "\ndata:", 6)))
		return;
	ply = atoi(p + 6);
	if (s->ply < 0)
		atomic_fetch_add(&opened, 1);
	for (int k = s->ply < 0 ? 0 : s->ply; k < ply && k < nmoves; k++) {
		recv_at[(size_t)i * (size_t)nmoves + (size_t)k] = now - t0;
		atomic_fetch_add(&delivered[k], 1);
		t_last = now;
	}
	if (ply > s->ply)
		s->ply = ply;
}

/* Text of the body (de-chunked, without CR): events end at an empty line. */
static void on_text(stream *s, int i, const char *data, size_t n, double now)
{
	for (size_t j = 0; j < n; j++) {
		if (data[j] == '\r')
			continue;
		if (s->ntext == TEXT_SIZE)
			die("%s", "an event larger than TEXT_SIZE");
		s->text[s->ntext++] = data[j];
		if (data[j] == '\n' && s->ntext >= 2 && s->text[s->ntext - 2] == '\n') {
			on_event(s, i, s->text, s->ntext, now);
			s->ntext = 0;
		}
	}
}

/* The body as it comes: chunked (HTTP/1.1 without a length) or not. Returns -1 at its end. */
static int on_body(stream *s, int i, double now)
{
	size_t pos = 0;

	if (!s->chunked) {
		on_text(s, i, s->raw, s->nraw, now);
		s->nraw = 0;
		return 0;
	}
	while (pos < s->nraw) {
		char *end;
		size_t n;
		switch (s->chunk_state) {
		case CHUNK_SIZE:
			end = memmem(s->raw + pos, s->nraw - pos, "\r\n", 2);
			if (!end)
				goto keep;
			s->chunk_left = strtol(s->raw + pos, NULL, 16);
			pos = (size_t)(end + 2 - s->raw);
			if (s->chunk_left == 0)
				return -1;
			s->chunk_state = CHUNK_DATA;
			break;
		case CHUNK_DATA:
			n = s->nraw - pos < (size_t)s->chunk_left ? s->nraw - pos : (size_t)s->chunk_left;
			on_text(s, i, s->raw + pos, n, now);
			pos += n;
			s->chunk_left -= (long)n;
			if (!s->chunk_left)
				s->chunk_state = CHUNK_END;
			break;
		case CHUNK_END:
			if (s->nraw - pos < 2)
				goto keep;
			pos += 2;
			s->chunk_state = CHUNK_SIZE;
			break;
		}
	}
keep:
	memmove(s->raw, s->raw + pos, s->nraw - pos);
	s->nraw -= pos;
	return 0;
}

static void on_readable(stream *s, int i, double now)
{
	for (;;) {
		ssize_t r = recv(s->fd, s->raw + s->nraw, sizeof s->raw - s->nraw, 0);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r <= 0) {
			stream_end(s);
			return;
		}
		s->nraw += (size_t)r;
		if (s->state == HEADERS) {
			char *end = memmem(s->raw, s->nraw, "\r\n\r\n", 4);
			if (!end) {
				if (s->nraw == sizeof s->raw)
					die("%s", "answer headers too large");
				continue;
			}
			if (sscanf(s->raw, "HTTP/1.%*d %d", &s->status) != 1 || s->status != 200) {
				stream_end(s);
				return;
			}
			*end = 0;
			s->chunked = strcasestr(s->raw, "\r\nTransfer-Encoding: chunked") != NULL;
			size_t hlen = (size_t)(end + 4 - s->raw);
			memmove(s->raw, s->raw + hlen, s->nraw - hlen);
			s->nraw -= hlen;
			s->state = BODY;
		}
		if (s->state == BODY && on_body(s, i, now) < 0) {
			stream_end(s);
			return;
		}
	}
}

static void on_writable(int ep, stream *s, int i)
{
	char req[256];
	int err = 0, n;
	socklen_t len = sizeof err;
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};

	getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		stream_end(s);
		return;
	}
	n = snprintf(req, sizeof req, "GET %s/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
		     game_path);
	if (send(s->fd, req, (size_t)n, MSG_NOSIGNAL) != n) {   /* a fresh socket takes 100 bytes */
		stream_end(s);
		return;
	}
	s->state = HEADERS;
	epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &ev);
}

/* ---- the mover ---- */

static void *mover(void *arg)
{
	conn c = {.fd = -1};
	char path[128], *body;
	(void)arg;

	snprintf(path, sizeof path, "%s/moves", game_path);
	for (int k = 0; k < nmoves; k++) {
		/* Every open stream has the move before, or it is late. */
		double give_up = now_s() + wait_ms / 1e3;
		while (k && atomic_load(&delivered[k - 1]) < atomic_load(&opened) && now_s() < give_up)
			usleep(200);
		t_sent[k] = now_s();
		int status = request(&c, "POST", path, g.token[seq_seat[k]], seq_body[k], &body);
		t_201[k] = now_s();
		if (status != 201) {
			fprintf(stderr, "eventbench: move %d: %d %.200s\n", k, status, body);
			break;
		}
		atomic_store(&moves_done, k + 1);
	}
	conn_close(&c);
	atomic_store(&mover_finished, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'}, {"sequence", required_argument, NULL, 'q'},
		{"streams", required_argument, NULL, 'n'}, {"per-address", required_argument, NULL, 'a'},
		{"moves", required_argument, NULL, 'm'}, {"wait-ms", required_argument, NULL, 'w'},
		{"pid", required_argument, NULL, 'P'}, {NULL, 0, NULL, 0},
	};
	const char *seq = NULL, *pid = NULL;
	struct rlimit rl;
	conn c = {.fd = -1};
	pthread_t th;
	int opt, ep;

	nstreams = 1000;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': client_port = (unsigned)atoi(optarg); break;
		case 'q': seq = optarg; break;
		case 'n': nstreams = atoi(optarg); break;
		case 'a': per_address = atoi(optarg); break;
		case 'm': nmoves = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 'P': pid = optarg; break;
		default: return 2;
		}
	}
	if (!client_port || !seq || nstreams < 1 || per_address < 1 || nmoves < 1 || nmoves > MAX_MOVES) {
		fprintf(stderr, "usage: eventbench --port P --sequence FILE [--streams N] [--per-address K] "
			"[--moves M] [--wait-ms MS] [--pid PID]\n");
		return 2;
	}
	read_sequence(seq);
	if (nmoves > nseq)
		nmoves = nseq;
	if (nmoves < 1)
		die("no moves in %s", seq);
	/* A descriptor a stream, and a few more. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}

	create_game(&c, &g);
	conn_close(&c);
	snprintf(game_path, sizeof game_path, "/api/games/%s", g.id);
	long rss_idle = pid ? rss_kb(pid) : -1, rss_open = -1;

	streams = calloc((size_t)nstreams, sizeof *streams);
	recv_at = calloc((size_t)nstreams * (size_t)nmoves, sizeof *recv_at);
	if (!streams || !recv_at)
		die("%s", "out of memory");
	ep = epoll_create1(0);
	t0 = now_s();
	for (int i = 0; i < nstreams; i++)
		stream_open(ep, i);

	/* Open, then move, then wait for the last deliveries. */
	int phase = 0, refused = 0, status = 0;
	double phase_end = now_s() + 10;
	struct epoll_event evs[256];
	for (;;) {
		int n = epoll_wait(ep, evs, 256, 5);
		double now = now_s();
		for (int j = 0; j < n; j++) {
			int i = (int)evs[j].data.u32;
			stream *s = &streams[i];
			if (s->state == CONNECTING)
				on_writable(ep, s, i);
			else if (s->state != DONE)
				on_readable(s, i, now);
		}
		int live = 0;
		refused = 0;
		for (int i = 0; i < nstreams; i++) {
			live += streams[i].state != DONE;
			refused += streams[i].state == DONE && streams[i].ply < 0;
			if (streams[i].status && streams[i].status != 200)
				status = streams[i].status;
		}
		if (phase == 0 && (atomic_load(&opened) + refused >= nstreams || now > phase_end)) {
			if (!atomic_load(&opened))
				break;
			phase = 1;
			if (pthread_create(&th, NULL, mover, NULL))
				die("%s", "cannot start the mover");
		} else if (phase == 1 && atomic_load(&mover_finished)) {
			phase = 2;
			phase_end = now + wait_ms / 1e3;
		} else if (phase == 2) {
			int done = moves_done ? atomic_load(&delivered[moves_done - 1]) >= live : 1;
			if (done || now > phase_end)
				break;
		}
	}
	if (phase)
		pthread_join(th, NULL);
	if (pid)
		rss_open = rss_kb(pid);

	/* Delays of every (stream, move) that arrived; a missing one is lost. */
	int made = atomic_load(&moves_done), open = atomic_load(&opened);
	size_t nd = 0;
	long lost = 0;
	double *delay = malloc(((size_t)nstreams * (size_t)(made ? made : 1)) * sizeof *delay);
	for (int i = 0; i < nstreams; i++) {
		if (streams[i].ply < 0 && streams[i].state == DONE)
			continue;   /* never open */
		for (int k = 0; k < made; k++) {
			double at = recv_at[(size_t)i * (size_t)nmoves + (size_t)k];
			if (at == 0) {
				lost++;
				continue;
			}
			double d = at - (t_201[k] - t0);
			delay[nd++] = d > 0 ? d : 0;
		}
	}
	sort_doubles(delay, nd);
	double mv[MAX_MOVES];
	for (int k = 0; k < made; k++)
		mv[k] = t_201[k] - t_sent[k];
	sort_doubles(mv, (size_t)made);
	double span = made && t_last > t_sent[0] ? t_last - t_sent[0] : 0;
	printf("streams=%d open=%d refused=%d status=%d moves=%d events=%zu lost=%ld seconds=%.3f rate=%.1f "
	       "p50_ms=%.2f p99_ms=%.2f max_ms=%.2f move_p50_ms=%.2f rss_idle_kb=%ld rss_open_kb=%ld\n",
	       nstreams, open, refused, status, made, nd, lost, span, span > 0 ? (double)nd / span : 0,
	       quantile(delay, nd, 0.5) * 1e3, quantile(delay, nd, 0.99) * 1e3, nd ? delay[nd - 1] * 1e3 : 0,
	       quantile(mv, (size_t)made, 0.5) * 1e3, rss_idle, rss_open);
	for (int i = 0; i < nstreams; i++)
		if (streams[i].fd >= 0)
			close(streams[i].fd);
	free(delay);
	free(recv_at);
	free(streams);
	for (int k = 0; k < nseq; k++)
		free(seq_body[k]);
	return !open && status == 404 ? 3 : 0;
}
