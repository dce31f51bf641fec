/*
 * client.h - the blocking HTTP/1.1 keep-alive client of the bench programs (movebench,
 * eventbench): one request at a time on a connection, answers with a Content-Length.
 */
#ifndef BENCH_CLIENT_H
#define BENCH_CLIENT_H

#include <jansson.h>
#include <stddef.h>

typedef struct conn {
	int fd;             /* -1 until the first request opens it */
	int src;            /* leaves from 127.0.0.(2 + src % 4): the daemon limits connections per address */
	unsigned port;      /* the daemon's port; 0: client_port */
	char buf[65536];
	size_t have;        /* bytes in buf not yet consumed */
} conn;

typedef struct game {
	char id[32];
	char token[2][48];  /* the seats' tokens */
} game;

/* The port of the connections that name none (127.0.0.1); set it before the first request. */
extern unsigned client_port;

/* Print "<prog>: " fmt (with detail) and exit(1). */
void die(const char *fmt, const char *detail);

/* Seconds on the monotonic clock. */
double now_s(void);

/* Sort v ascending; then quantile(v, n, 0.99) is its p99 (0 when n is 0). */
void sort_doubles(double *v, size_t n);
double quantile(const double *sorted, size_t n, double q);

void conn_open(conn *c);
void conn_close(conn *c);

/*
 * Send one request (body: JSON, or NULL) and read its answer. Returns the status; *out_body
 * points into c->buf (NUL terminated) until the next request. Reopens a connection the server
 * closed, once.
 */
int request(conn *c, const char *method, const char *path, const char *token, const char *body,
	    char **out_body);

/* The same, exits unless the status is want; returns the answer's JSON (the caller frees it). */
json_t *request_json(conn *c, const char *method, const char *path, const char *token, const char *body,
		     int want);

/* POST /api/games: a new two-seat Nchess game, with its id and seat tokens in *g. */
void create_game(conn *c, game *g);

#endif
