/* client.c - the blocking HTTP/1.1 client of the bench programs (client.h). */
#define _GNU_SOURCE
#include "client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

unsigned client_port;

double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

double quantile(const double *sorted, size_t n, double q)
{
	return n ? sorted[(size_t)((double)n * q)] : 0;
}

void die(const char *fmt, const char *detail)
{
	fprintf(stderr, "%s: ", program_invocation_short_name);
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
	exit(1);
}

/* ---- a minimal HTTP/1.1 keep-alive client ---- */

void conn_open(conn *c)
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
	sa.sin_port = htons((uint16_t)(c->port ? c->port : client_port));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa))
		die("connect: %s", strerror(errno));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->have = 0;
}

void conn_close(conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->have = 0;
}

int request(conn *c, const char *method, const char *path, const char *token,
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

json_t *request_json(conn *c, const char *method, const char *path, const char *token,
			    const char *body, int want)
{
	char *text;
	int status = request(c, method, path, token, body, &text);
	json_t *v;

	if (status != want) {
		fprintf(stderr, "%s: %s %s: %d %s\n", program_invocation_short_name, method, path, status, text);
		exit(1);
	}
	v = json_loads(text, 0, NULL);
	if (!v)
		die("not JSON: %.60s", text);
	return v;
}

/* ---- games ---- */

static const char create_body[] = "{\"variant\":\"nchess\",\"seats\":[{\"name\":\"Ann\"},{\"name\":\"Ben\"}]}";

void create_game(conn *c, game *g)
{
	json_t *v = request_json(c, "POST", "/api/games", NULL, create_body, 201);

	snprintf(g->id, sizeof g->id, "%s", json_string_value(json_object_get(v, "id")));
	for (int s = 0; s < 2; s++)
		snprintf(g->token[s], sizeof g->token[s], "%s", json_string_value(
			json_object_get(json_array_get(json_object_get(v, "seats"), (size_t)s), "token")));
	json_decref(v);
}
