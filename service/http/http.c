/* http.c - the server: libmicrohttpd callbacks, bounded bodies, auth, reads and changes dispatched, streams, the watchdog, one log line per request. */
#include "http/http.h"
#include "http/http_internal.h"
#include "core/errors.h"
#include "core/group_commit.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/text.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * One open connection, for the watchdog: libmicrohttpd's own timeout only
 * ends idle connections, so a client trickling a byte now and then could
 * hold one for ever. Linked from the server's list between the STARTED and
 * CLOSED notifications, under watch_lock.
 */
struct watch {
	int fd;
	double since;                /* when the current request began (monotonic seconds) */
	int receiving;               /* the request is still being received */
	int cut;                     /* the watchdog shut the socket down */
	struct http_stream *stream;  /* the stream this connection sends, or NULL */
	struct watch *prev, *next;
};

struct http_server {
	struct MHD_Daemon *daemon;
	app *app;
	const http_site *site;
	atomic_int in_flight;        /* requests begun and not yet completed */
	atomic_int waiting;          /* changes suspended for the writer, not yet resumed */
	atomic_int stopping;         /* http_stop began: changes are refused, connections close */
	pthread_mutex_t watch_lock;  /* the list, and the sockets in it staying open */
	pthread_cond_t watch_wake;
	struct watch *watches;
	int watch_stop;
	pthread_t watchdog;
	pthread_mutex_t stream_lock; /* the list of streams */
	struct http_stream *streams;
	atomic_int streams_end;      /* http_stop: every stream ends at its next read */
};

/*
 * A streamed answer (http_reply_stream), from the handler's reply until
 * libmicrohttpd frees the response. Listed on its server while queued, so
 * that http_stop can wake every one of them to end.
 */
struct http_stream {
	struct http_server *srv;                 /* set when the answer is queued */
	_Atomic(struct MHD_Connection *) conn;   /* likewise: until then a wake has nothing to wake */
	atomic_int gone;                         /* the watchdog saw the client hang up */
	http_stream_reader read;
	void (*done)(void *cls);
	void *cls;
	struct http_stream *prev, *next;
};

static struct watch *watch_of(struct MHD_Connection *conn);

/* Per-request state, from the first call of the access handler to completion. */
struct pending {
	http_request req;
	struct http_server *srv;
	int started;                 /* the access handler has seen this request */
	int uri_too_long;
	size_t discarded;            /* bytes of an oversized body read and dropped */
	struct timespec t0;
	int status;
	int code;
	/* A change waits for the writer with its connection suspended (see dispatch). */
	group_job job;
	http_response answer;        /* what the change answered, sent once it is durable */
	int waiting;                 /* submitted to the writer, not yet sent */
	atomic_int answered;         /* the writer finished it: the answer may go */
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* A stream that was replied but will not be sent: it is over before it began. */
void http_stream_drop(http_response *res)
{
	if (res->stream) {
		res->stream->done(res->stream->cls);
		free(res->stream);
		res->stream = NULL;
	}
}

http_stream *http_reply_stream(http_response *res, const char *content_type, http_stream_reader read,
			       void (*done)(void *cls), void *cls)
{
	http_stream *st = xcalloc(1, sizeof *st);

	http_reply(res, 200, content_type, NULL, 0);
	st->read = read;
	st->done = done;
	st->cls = cls;
	res->stream = st;
	return st;
}

void http_stream_wake(http_stream *st)
{
	struct MHD_Connection *conn = atomic_load(&st->conn);

	/* Before the rest begins, this makes libmicrohttpd's suspend a no-op: read runs again. */
	if (conn)
		MHD_resume_connection(conn);
}

/* libmicrohttpd asks for more of a stream: a 0 from read rests the connection. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	http_stream *st = cls;
	long n;
	(void)pos;

	if (atomic_load(&st->srv->streams_end) || atomic_load(&st->gone))
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = st->read(st->cls, buf, max);
	if (n < 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (n == 0)
		MHD_suspend_connection(atomic_load(&st->conn));
	return (ssize_t)n;
}

/* libmicrohttpd is done with a stream's response. */
static void stream_free(void *cls)
{
	http_stream *st = cls;
	http_server *srv = st->srv;
	struct watch *w = watch_of(atomic_load(&st->conn));

	st->done(st->cls);
	if (w) {
		pthread_mutex_lock(&srv->watch_lock);
		w->stream = NULL;
		pthread_mutex_unlock(&srv->watch_lock);
	}
	pthread_mutex_lock(&srv->stream_lock);
	if (st->prev)
		st->prev->next = st->next;
	else
		srv->streams = st->next;
	if (st->next)
		st->next->prev = st->prev;
	pthread_mutex_unlock(&srv->stream_lock);
	free(st);
}

/* The response of a stream, listed on its server; NULL (and the stream over) if none can be made. */
static struct MHD_Response *stream_response(struct pending *pd, http_stream *st)
{
	http_server *srv = pd->srv;
	struct MHD_Response *r;

	st->srv = srv;
	pthread_mutex_lock(&srv->stream_lock);
	st->next = srv->streams;
	if (st->next)
		st->next->prev = st;
	srv->streams = st;
	pthread_mutex_unlock(&srv->stream_lock);
	atomic_store(&st->conn, pd->req.conn);
	struct watch *w = watch_of(pd->req.conn);
	if (w) {
		/* The watchdog looks after a resting stream's socket, which libmicrohttpd does not poll. */
		pthread_mutex_lock(&srv->watch_lock);
		w->stream = st;
		pthread_mutex_unlock(&srv->watch_lock);
	}
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, LIMIT_STREAM_BLOCK, stream_read, st, stream_free);
	if (!r)
		stream_free(st);
	return r;
}

/* Wake every stream to end (streams_end is set): libmicrohttpd must not stop with one resting. */
static void end_streams(http_server *srv)
{
	pthread_mutex_lock(&srv->stream_lock);
	atomic_store(&srv->streams_end, 1);
	for (http_stream *st = srv->streams; st; st = st->next)
		http_stream_wake(st);
	pthread_mutex_unlock(&srv->stream_lock);
}

static void add_common_headers(struct MHD_Response *r, const http_response *res)
{
	MHD_add_response_header(r, "Content-Type", res->content_type ? res->content_type : "text/plain");
	/* The origin only, never a path or query (seat links are secrets); but the
	 * origin, so that browsers name it in the Origin of our own forms. */
	MHD_add_response_header(r, "Referrer-Policy", "strict-origin");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	if (res->etag[0]) {
		MHD_add_response_header(r, "ETag", res->etag);
		char cc[48];
		if (res->max_age > 0 && !res->personal)
			snprintf(cc, sizeof cc, "public, max-age=%d", res->max_age);
		else
			snprintf(cc, sizeof cc, "%s", res->personal ? "private, no-cache" : "no-cache");
		MHD_add_response_header(r, "Cache-Control", cc);
		MHD_add_response_header(r, "Vary", "Authorization");
	} else {
		MHD_add_response_header(r, "Cache-Control", "no-store");
	}
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "
				"form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
	if (res->location)
		MHD_add_response_header(r, "Location", res->location);
	if (res->allow)
		MHD_add_response_header(r, "Allow", res->allow);
	if (res->set_cookie)
		MHD_add_response_header(r, "Set-Cookie", res->set_cookie);
	if (res->disposition)
		MHD_add_response_header(r, "Content-Disposition", res->disposition);
	if (res->status == 429 && res->code == E_RATE_LIMITED) {
		char retry[24];
		snprintf(retry, sizeof retry, "%d", LIMIT_RATE_WINDOW_S);
		MHD_add_response_header(r, "Retry-After", retry);
	}
}

/* The watch of conn's connection, or NULL. */
static struct watch *watch_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/*
 * The request on conn has been received (receiving 0: its answer is
 * queued), or it completed and the next one may begin (receiving 1, from now).
 */
static void watch_mark(http_server *srv, struct MHD_Connection *conn, int receiving)
{
	struct watch *w = watch_of(conn);

	if (!w)
		return;
	pthread_mutex_lock(&srv->watch_lock);
	w->receiving = receiving;
	if (receiving)
		w->since = now_s();
	pthread_mutex_unlock(&srv->watch_lock);
}

/*
 * Track each connection from accept to close. libmicrohttpd notifies CLOSED
 * before it closes the socket, and the watchdog shuts sockets down only
 * under watch_lock while they are listed: it never touches a descriptor
 * that has been closed (and perhaps reused).
 */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	http_server *srv = cls;
	struct watch *w = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!ci)
			return;
		w = xcalloc(1, sizeof *w);
		w->fd = ci->connect_fd;
		w->since = now_s();
		w->receiving = 1;
		pthread_mutex_lock(&srv->watch_lock);
		w->next = srv->watches;
		if (w->next)
			w->next->prev = w;
		srv->watches = w;
		pthread_mutex_unlock(&srv->watch_lock);
		*socket_context = w;
	} else if (w) {
		pthread_mutex_lock(&srv->watch_lock);
		if (w->prev)
			w->prev->next = w->next;
		else
			srv->watches = w->next;
		if (w->next)
			w->next->prev = w->prev;
		pthread_mutex_unlock(&srv->watch_lock);
		free(w);
		*socket_context = NULL;
	}
}

/*
 * End the streams whose client has hung up (under watch_lock). Nobody polls
 * a resting stream's socket, so without this look it would count against
 * its address's streams until a keep-alive found the client gone.
 */
static void end_gone_streams(http_server *srv)
{
	for (struct watch *w = srv->watches; w; w = w->next) {
		char c;
		ssize_t n;
		if (!w->stream || atomic_load(&w->stream->gone))
			continue;
		n = recv(w->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			atomic_store(&w->stream->gone, 1);
			http_stream_wake(w->stream);
		}
	}
}

/*
 * Once a second, shut down the connections whose request has not been
 * received whole LIMIT_REQUEST_RECEIVE_S after it began: libmicrohttpd
 * then sees the connection end and closes it itself.
 */
static void *watchdog(void *arg)
{
	http_server *srv = arg;

	pthread_mutex_lock(&srv->watch_lock);
	while (!srv->watch_stop) {
		struct timespec until;
		double now = now_s();
		int cut = 0;

		for (struct watch *w = srv->watches; w; w = w->next)
			if (w->receiving && !w->cut && now - w->since >= LIMIT_REQUEST_RECEIVE_S) {
				shutdown(w->fd, SHUT_RDWR);
				w->cut = 1;
				cut++;
			}
		if (cut)
			log_event("http: closed %d connection%s whose request took over %d s to arrive", cut,
				  cut == 1 ? "" : "s", LIMIT_REQUEST_RECEIVE_S);
		end_gone_streams(srv);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&srv->watch_wake, &srv->watch_lock, &until);
	}
	pthread_mutex_unlock(&srv->watch_lock);
	return NULL;
}

static enum MHD_Result send_response(struct pending *pd, http_response *res)
{
	struct MHD_Response *r;
	enum MHD_Result ok;

	watch_mark(pd->srv, pd->req.conn, 0);
	http_finish_later(res);
	if (res->stream)
		r = stream_response(pd, res->stream);
	else if (!(r = MHD_create_response_from_buffer(res->len, res->body, MHD_RESPMEM_MUST_FREE)))
		free(res->body);
	res->stream = NULL;
	res->body = NULL;
	if (r) {
		add_common_headers(r, res);
		if (atomic_load(&pd->srv->stopping))
			MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
		ok = MHD_queue_response(pd->req.conn, (unsigned)res->status, r);
		MHD_destroy_response(r);
	} else {
		ok = MHD_NO;
	}
	pd->status = res->status;
	pd->code = res->code;
	free(res->location);
	free(res->set_cookie);
	free(res->disposition);
	res->location = res->set_cookie = res->disposition = NULL;
	return ok;
}

static enum MHD_Result send_error(struct pending *pd, int code, const char *message)
{
	http_response res = {0};

	http_reply_error(&pd->req, &res, code, message);
	return send_response(pd, &res);
}

/* Bearer token authentication for routes that take one. */
static int authenticate(http_request *req, app_error *err)
{
	const char *h = http_header(req, "Authorization");
	int r;

	if (req->route->auth == AUTH_NONE)
		return 0;
	if (!h) {
		if (req->route->auth == AUTH_SEAT)
			return app_fail(err, E_UNAUTHORIZED, "send the seat token as Authorization: Bearer <token>");
		if (req->route->auth == AUTH_PLAYER)
			return app_fail(err, E_UNAUTHORIZED, "send a seat token, or your player token from \"My games\", "
					"as Authorization: Bearer <token>");
		return 0;
	}
	if (strncasecmp(h, "Bearer ", 7) != 0)
		return app_fail(err, E_UNAUTHORIZED, "the Authorization header must be Bearer <token>");
	/* A player's route takes the player's own token as well as any of its seats' tokens. */
	if (req->route->auth == AUTH_PLAYER && req->site->player_token(req->app, h + 7, &req->auth_player, err) == 0)
		return 0;
	r = req->site->seat_token(req->app, h + 7, &req->auth_game, &req->auth_seat, err);
	if (r)
		return r;
	/* A token opens its own game only. */
	if (req->nparams > 0 && strcmp(req->params[0], req->auth_game) != 0)
		return app_fail(err, E_UNAUTHORIZED, "that seat token belongs to another game");
	return 0;
}

/* A form body must be urlencoded, decode cleanly, and be UTF-8 text. */
static int check_form(http_request *req, app_error *err)
{
	const char *ct = http_header(req, "Content-Type");
	const char *p = req->body, *end = req->body + req->body_len;

	if (!ct || strncasecmp(ct, "application/x-www-form-urlencoded", 33) != 0)
		return app_fail(err, E_MEDIA_TYPE, "send the form as application/x-www-form-urlencoded");
	while (p && p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *stop = amp ? amp : end;
		char *field = http_url_decode(p, (size_t)(stop - p));
		int utf8 = field && text_utf8_valid(field, strlen(field));
		free(field);
		if (!field)
			return app_fail(err, E_BAD_REQUEST, "the form data has a malformed %%-escape");
		if (!utf8)
			return app_fail(err, E_BAD_REQUEST, "the form data is not UTF-8 text");
		p = stop + 1;
	}
	return 0;
}

/* Authenticate and run the route's handler into res, on whichever connection the thread uses. */
static void handle(http_request *req, http_response *res)
{
	app_error err = {0};

	if (authenticate(req, &err)) {
		http_reply_error(req, res, err.code, err.message);
		return;
	}
	res->status = 200;
	req->route->handler(req, res);
	if (!res->body && !res->render && !res->stream)
		http_reply(res, res->status ? res->status : 204, "text/plain", xstrdup(""), 0);
}

/* The writer's side of a change (group_commit.h): run, lost, finish. */
static void change_run(void *arg)
{
	struct pending *pd = arg;

	http_answer_clear(&pd->answer);
	free(pd->req.auth_game);
	free(pd->req.auth_player);
	pd->req.auth_game = pd->req.auth_player = NULL;
	pd->req.auth_seat = -1;
	handle(&pd->req, &pd->answer);
}

static void change_lost(void *arg)
{
	struct pending *pd = arg;

	http_answer_clear(&pd->answer);
	http_reply_error(&pd->req, &pd->answer, E_INTERNAL, "the server could not store this; nothing was changed");
}

static void change_finish(void *arg)
{
	struct pending *pd = arg;
	http_server *srv = pd->srv;

	atomic_store(&pd->answered, 1);
	MHD_resume_connection(pd->req.conn);
	/* pd may be gone from here on: the polling thread answers and frees it. */
	atomic_fetch_sub(&srv->waiting, 1);
}

/* A request that only reads: on a reading connection of its own, in one snapshot. */
static enum MHD_Result dispatch_read(struct pending *pd)
{
	app *a = pd->req.app;
	http_response res = {0};

	app_read_begin(a);
	handle(&pd->req, &res);
	app_read_end(a);
	return send_response(pd, &res);
}

static enum MHD_Result dispatch(struct pending *pd)
{
	http_request *req = &pd->req;
	app *a = req->app;
	app_error err = {0};

	watch_mark(pd->srv, req->conn, 0);
	if (req->body_too_large) {
		char msg[96];
		snprintf(msg, sizeof msg, "the body is larger than %zu bytes", req->route->max_body);
		return send_error(pd, E_TOO_LARGE, msg);
	}
	if (req->route->body == BODY_FORM && check_form(req, &err))
		return send_error(pd, err.code, err.message);
	if (a->readers && strcmp(req->route->method, "GET") == 0)
		return dispatch_read(pd);
	if (a->writer) {
		/* The connection rests until the commit holding the change is durable;
		 * change_finish wakes it and on_request sends the answer. */
		/* Counted before looking at stopping, which http_stop sets before it waits for
		 * the count to fall to 0: one of the two sees the other. */
		atomic_fetch_add(&pd->srv->waiting, 1);
		if (atomic_load(&pd->srv->stopping)) {
			atomic_fetch_sub(&pd->srv->waiting, 1);
			return send_error(pd, E_UNAVAILABLE, "the server is stopping; try again in a moment");
		}
		pd->job = (group_job){.run = change_run, .lost = change_lost, .finish = change_finish, .arg = pd};
		pd->waiting = 1;
		MHD_suspend_connection(req->conn);
		group_writer_submit(a->writer, &pd->job);
		return MHD_YES;
	}
	/* No writer thread (a server started without one): one change at a time, here. */
	http_response res = {0};
	app_writer_lock(a);
	handle(req, &res);
	app_writer_unlock(a);
	return send_response(pd, &res);
}

/*
 * Called before the request line is parsed: create the request state here,
 * so that the raw URI (with its query, which may hold a seat token) is seen
 * only for its length and never logged.
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct http_server *srv = cls;
	struct pending *pd = xcalloc(1, sizeof *pd);

	atomic_fetch_add(&srv->in_flight, 1);
	clock_gettime(CLOCK_MONOTONIC, &pd->t0);
	pd->srv = srv;
	pd->req.conn = conn;
	pd->req.app = srv->app;
	pd->req.site = srv->site;
	pd->req.auth_seat = -1;
	pd->uri_too_long = strlen(uri) > LIMIT_URL_LENGTH;
	return pd;
}

/*
 * Percent-decoding of paths and query values, except that control
 * characters (%00, %0a...) stay encoded: a NUL would cut the path short and
 * a line break would forge log lines. The '%' left behind fails any route.
 */
static size_t on_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	char *in = s, *out = s;
	(void)cls;
	(void)conn;

	while (*in) {
		int h, l;
		if (in[0] == '%' && (h = http_hexval((unsigned char)in[1])) >= 0 &&
		    (l = http_hexval((unsigned char)in[2])) >= 0 && (h << 4 | l) >= 0x20 && (h << 4 | l) != 0x7f) {
			*out++ = (char)(h << 4 | l);
			in += 3;
		} else {
			*out++ = *in++;
		}
	}
	*out = 0;
	return (size_t)(out - s);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct pending *pd = *con_cls;
	(void)cls;
	(void)conn;
	(void)version;

	if (pd->waiting) {
		/* Woken by change_finish (or by libmicrohttpd before: keep waiting). */
		if (!atomic_load(&pd->answered))
			return MHD_YES;
		pd->waiting = 0;
		return send_response(pd, &pd->answer);
	}
	if (!pd->started) {
		char allow[64];
		pd->started = 1;
		snprintf(pd->req.method, sizeof pd->req.method, "%s", method);
		pd->req.path = xstrdup(url);
		if (pd->uri_too_long)
			return send_error(pd, E_URI_TOO_LONG, "the address is too long");
		pd->req.route = http_find_route(&pd->req, allow, sizeof allow);
		if (!pd->req.route) {
			if (*allow) {
				http_response res = {0};
				http_reply_error(&pd->req, &res, E_METHOD, "this address does not take that method");
				res.allow = allow;
				/* The Allow text lives on this stack frame: send now. */
				return send_response(pd, &res);
			}
			return send_error(pd, E_NOT_FOUND, "there is nothing at this address");
		}
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		if (cl && strtoull(cl, NULL, 10) > pd->req.route->max_body) {
			pd->req.body_too_large = 1;
			return dispatch(pd);   /* refuse before reading; the connection closes */
		}
		/* Returning without a response keeps the connection alive (see DESIGN). */
		return MHD_YES;
	}
	if (pd->status)
		return MHD_YES;
	if (*upload_size) {
		const http_route *rt = pd->req.route;
		if (pd->req.body_too_large || pd->req.body_len + *upload_size > rt->max_body) {
			/* A chunked body over the limit: drop it, answer when it ends. */
			pd->req.body_too_large = 1;
			pd->discarded += *upload_size;
			*upload_size = 0;
			return pd->discarded > LIMIT_BODY_DISCARD ? MHD_NO : MHD_YES;
		}
		pd->req.body = xrealloc(pd->req.body, pd->req.body_len + *upload_size + 1);
		memcpy(pd->req.body + pd->req.body_len, upload, *upload_size);
		pd->req.body_len += *upload_size;
		pd->req.body[pd->req.body_len] = 0;
		*upload_size = 0;
		return MHD_YES;
	}
	return dispatch(pd);
}

/* Free a request's state, with an answer never sent (its client left while the change waited). */
static void free_pending(struct pending *pd)
{
	http_answer_clear(&pd->answer);
	for (int i = 0; i < pd->req.nparams; i++)
		free(pd->req.params[i]);
	free(pd->req.path);
	free(pd->req.body);
	free(pd->req.auth_game);
	free(pd->req.auth_player);
	free(pd);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	struct http_server *srv = cls;
	struct pending *pd = *con_cls;

	/* The next request on this connection begins now. */
	watch_mark(srv, conn, 1);
	if (!pd)
		return;
	atomic_fetch_sub(&srv->in_flight, 1);
	/* The path is logged without its query string and its credentials (see routes.c). */
	char shown[160], path[160];
	if (pd->req.path)
		http_log_path(pd->req.site, pd->req.route, pd->req.path, shown, sizeof shown);
	else
		snprintf(shown, sizeof shown, "-");
	log_sanitize(path, sizeof path, shown);
	log_event("%s %s %d%s%s %.1fms%s", pd->req.method[0] ? pd->req.method : "-", path, pd->status,
		  pd->code ? " " : "", pd->code ? app_code_name(pd->code) : "", elapsed_ms(&pd->t0),
		  why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
	*con_cls = NULL;
	free_pending(pd);
}


static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	log_event("http: %s", msg);
}

/* Free the server once libmicrohttpd and the watchdog have stopped. */
static void http_free(http_server *s)
{
	/* libmicrohttpd has closed every connection: nothing is listed any more. */
	while (s->watches) {
		struct watch *w = s->watches;
		s->watches = w->next;
		free(w);
	}
	pthread_cond_destroy(&s->watch_wake);
	pthread_mutex_destroy(&s->watch_lock);
	pthread_mutex_destroy(&s->stream_lock);
	free(s);
}

http_server *http_start(app *a, const http_site *site, const char *address, unsigned port, unsigned threads)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG | MHD_USE_ITC |
			 MHD_ALLOW_SUSPEND_RESUME;
	http_server *s;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else {
		fprintf(stderr, "rookery: --address %s is not an IPv4 or IPv6 address\n", address);
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->app = a;
	s->site = site;
	pthread_mutex_init(&s->watch_lock, NULL);
	pthread_cond_init(&s->watch_wake, NULL);
	pthread_mutex_init(&s->stream_lock, NULL);
	/* A pool of polling threads: reads run on them in parallel, each on a reading connection
	 * of its own; changes wait, their connections suspended, for the writer thread. */
	s->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s,
				     MHD_OPTION_THREAD_POOL_SIZE, threads,
				     MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)LIMIT_CONNECTION_TIMEOUT_S,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)LIMIT_CONNECTIONS,
				     /* Behind a proxy every connection comes from it: the proxy limits clients. */
				     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)(a->proxy ? 0 : LIMIT_CONNECTIONS_PER_IP),
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LIMIT_HEADER_MEMORY,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				     MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				     MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
				     MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, s,
				     MHD_OPTION_END);
	if (!s->daemon) {
		fprintf(stderr, "rookery: cannot listen on %s port %u: %s\n", address, port,
			errno ? strerror(errno) : "libmicrohttpd refused");
		http_free(s);
		return NULL;
	}
	if (pthread_create(&s->watchdog, NULL, watchdog, s)) {
		fprintf(stderr, "rookery: cannot start the request watchdog\n");
		MHD_stop_daemon(s->daemon);
		http_free(s);
		return NULL;
	}
	return s;
}

unsigned http_port(http_server *s)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	return info ? info->port : 0;
}

void http_stop(http_server *s, int grace_s)
{
	if (!s)
		return;
	MHD_quiesce_daemon(s->daemon);
	/* Let requests already begun finish (streams end now); new changes are refused, and
	 * every answer closes its connection, so that keep-alive clients go too. */
	atomic_store(&s->stopping, 1);
	end_streams(s);
	for (int i = 0; i < grace_s * 1000 / LIMIT_SHUTDOWN_POLL_MS && atomic_load(&s->in_flight) > 0; i++)
		usleep(LIMIT_SHUTDOWN_POLL_MS * 1000);
	/* libmicrohttpd cannot stop with a connection suspended: every change handed to the
	 * writer is answered first (the writer finishes each, committed or lost). */
	while (atomic_load(&s->waiting) > 0)
		usleep(LIMIT_SHUTDOWN_POLL_MS * 1000);
	MHD_stop_daemon(s->daemon);
	pthread_mutex_lock(&s->watch_lock);
	s->watch_stop = 1;
	pthread_cond_signal(&s->watch_wake);
	pthread_mutex_unlock(&s->watch_lock);
	pthread_join(s->watchdog, NULL);
	http_free(s);
}
