/* http.h - the HTTP server: requests in, route dispatch, responses out. */
#ifndef ROOKERY_HTTP_H
#define ROOKERY_HTTP_H

#include "core/app.h"
#include "core/errors.h"

#include <jansson.h>
#include <stddef.h>

#define HTTP_MAX_PARAMS 4
#define HTTP_ETAG_TEXT 128   /* an entity tag, quoted, with its NUL */

enum http_body { BODY_NONE, BODY_JSON, BODY_FORM, BODY_RAW };   /* RAW: the handler reads any body */
enum http_auth { AUTH_NONE, AUTH_OPTIONAL, AUTH_SEAT, AUTH_PLAYER };   /* PLAYER: a seat token or a player's API token */

typedef struct http_request http_request;
typedef struct http_response http_response;
typedef struct http_stream http_stream;
typedef struct http_site http_site;
typedef void (*http_handler)(http_request *req, http_response *res);

/* One row of the route table: see routes.c. */
typedef struct http_route {
	const char *method;
	const char *pattern;     /* "/api/games/{}/moves": {} captures one path segment, {token} a secret one (never logged) */
	enum http_auth auth;     /* Bearer seat token for API routes */
	enum http_body body;
	size_t max_body;
	int api;                 /* errors as JSON (1) or as an HTML page (0) */
	http_handler handler;
} http_route;

struct http_request {
	void *conn;                      /* struct MHD_Connection */
	app *app;
	const http_site *site;
	const http_route *route;
	char method[8];
	char *path;
	char *params[HTTP_MAX_PARAMS];   /* captured segments, in order */
	int nparams;
	char *body;                      /* NUL-terminated */
	size_t body_len;
	int body_too_large;
	/* Filled by AUTH_OPTIONAL / AUTH_SEAT routes when a valid Bearer token came. */
	char *auth_game;
	int auth_seat;
	char *auth_player;               /* AUTH_PLAYER with a player's API token: the email it speaks for */
};

struct http_response {
	int status;
	char *body;                      /* malloc'd */
	size_t len;
	const char *content_type;
	char *location;                  /* malloc'd, for redirects */
	const char *allow;               /* for 405 */
	char *set_cookie;                /* malloc'd Set-Cookie value, or NULL */
	char *disposition;               /* malloc'd Content-Disposition value, or NULL (http_attachment) */
	int code;                        /* the app_code of an error answer, for the log */
	/* An answer finished later (http_reply_later): render fills the rest, drop frees arg. */
	void (*render)(void *arg, http_response *res);
	void (*drop)(void *arg);
	void *render_arg;
	char etag[HTTP_ETAG_TEXT];       /* set by http_validated; "" for answers never kept (no-store) */
	int personal;                    /* ... made for the request's credential: private */
	int max_age;                     /* ... and never changes: caches may keep it so many seconds unasked */
	http_stream *stream;             /* a streamed body (http_reply_stream) instead of body */
};

/*
 * What a server serves: its route table and what the layers above the server
 * decide for it. The server knows no page, no game and no token; main hands
 * it the site that routes.c puts together.
 */
struct http_site {
	const http_route *routes;   /* terminated by a NULL method */
	/* The HTML error page of a route that is not part of the API. */
	void (*error_page)(http_request *req, http_response *res, int code, const char *message);
	/* Which game and seat a seat token opens (*game_id malloc'd): 0 or an app_code. */
	int (*seat_token)(app *a, const char *token, char **game_id, int *seat, app_error *err);
	/* Which player a player's API token speaks for (*email malloc'd): 0 or an app_code. */
	int (*player_token)(app *a, const char *token, char **email, app_error *err);
};

typedef struct http_server http_server;

/*
 * Start serving on address:port (address may be IPv4 or IPv6) with a pool
 * of threads polling connections. A GET runs on the polling thread with a
 * reading connection of a->readers bound to it; any other request is a
 * change, applied by a->writer (group_commit.h) while its connection rests,
 * and answered once it is durable. Returns NULL and prints why on failure.
 */
http_server *http_start(app *a, const http_site *site, const char *address, unsigned port, unsigned threads);

/* The port actually bound (useful after asking for port 0). */
unsigned http_port(http_server *s);

/* Stop accepting, end every stream, give in-flight requests up to grace_s seconds, then stop. */
void http_stop(http_server *s, int grace_s);

/* Look up a query-string argument; NULL when absent. */
const char *http_query(http_request *req, const char *name);
/*
 * 0 when every query argument is one of names (NULL-terminated) and none
 * comes twice; else E_BAD_REQUEST with err naming the first that is not.
 */
int http_query_only(http_request *req, const char *const names[], app_error *err);

#define HTTP_ADDRESS_TEXT 64   /* room for an IPv4 or IPv6 address as text, with its NUL */

/*
 * The client's IP address as text (IPv4 or IPv6), for rate limits. For a
 * request from the configured reverse proxy (app.proxy), the address the
 * proxy wrote last in X-Forwarded-For, when it wrote a valid one.
 */
void http_client_address(http_request *req, char *out, size_t size);

/* Write the address text (--proxy) the way http_client_address compares it: 0, or -1 if it is none. */
int http_proxy_address(const char *text, char *out, size_t size);

/* Look up a cookie the request sent; NULL when absent. */
const char *http_cookie(http_request *req, const char *name);

/* Look up a request header; NULL when absent. */
const char *http_header(http_request *req, const char *name);

/* Replies. Each replaces whatever res held. */
void http_reply(http_response *res, int status, const char *content_type, char *body, size_t len);
void http_reply_json(http_response *res, int status, json_t *value);   /* steals value */
void http_redirect(http_response *res, const char *location);          /* 303 See Other */

/*
 * An answer whose making needs no database and no lock (serializing JSON,
 * rendering a template, a view of a game already loaded): render(arg, res)
 * runs after the handler returns, and for a change only once the change is
 * durable, on the request's polling thread while the writer goes on with
 * the next group. It fills res with the replies above. drop(arg) frees arg,
 * whether render ran or not (the change may be lost, or run again).
 */
void http_reply_later(http_response *res, int status, void (*render)(void *arg, http_response *res),
		      void (*drop)(void *arg), void *arg);

/*
 * Let caches keep the answer and ask again with If-None-Match before using
 * it: ETag etag (quoted, as "..." or W/"..."), Cache-Control "no-cache",
 * or "private, no-cache" when personal (the answer was made for the
 * request's credential, which no shared cache may hand to another), and
 * Vary: Authorization. Any other answer is sent with "no-store". An error
 * reply after it forgets it.
 */
void http_validated(http_response *res, const char *etag, int personal);

/*
 * An answer validated by etag (public) that never changes: caches may use it
 * for max_age seconds without asking (Cache-Control "public, max-age=N").
 */
void http_validated_for(http_response *res, const char *etag, int max_age);

/*
 * Whether the request's If-None-Match names etag (weak comparison: W/"x"
 * matches "x"; a list matches when one of its tags does; "*" matches any).
 */
int http_etag_held(http_request *req, const char *etag);

/* 304 Not Modified: no body; the validator set by http_validated goes with it. */
void http_reply_not_modified(http_response *res);

/* Have browsers save the answer as a file named filename (letters, digits, . _ -): Content-Disposition. */
void http_attachment(http_response *res, const char *filename);

/*
 * A streamed answer, 200 with a body of unknown length (Server-Sent Events):
 * read is called on a polling thread whenever the connection can take more,
 * and returns how many bytes it wrote into buf (at most max), 0 when it has
 * nothing yet, or HTTP_STREAM_END. After a 0 the connection rests, holding no
 * thread, until http_stream_wake; a wake that comes before the rest begins is
 * not lost (read is called again). done(cls) runs once, when the stream is
 * over for any reason (the client left, read ended it, the server stops:
 * http_stop ends every stream first); the stream must not be woken after
 * done has begun. Returns the stream, for http_stream_wake.
 */
#define HTTP_STREAM_END (-1L)
typedef long (*http_stream_reader)(void *cls, char *buf, size_t max);
http_stream *http_reply_stream(http_response *res, const char *content_type, http_stream_reader read,
			       void (*done)(void *cls), void *cls);

/* Have the stream's read called again soon. Safe from any thread. */
void http_stream_wake(http_stream *st);

/* An error answer for code, as JSON or as the HTML error page per the route. */
void http_reply_error(http_request *req, http_response *res, int code, const char *message);

/*
 * Parse the request body as strict JSON (an object, no duplicate keys,
 * nesting bounded). Returns 0 or an app_code with err filled.
 */
int http_json_body(http_request *req, json_t **out, app_error *err);
/* http_json_body nested at most depth deep, for a body that is a tree of bounded depth. */
int http_json_body_depth(http_request *req, int depth, json_t **out, app_error *err);

/*
 * The page of moves a request asks for: ?from= (a ply, default 0) and
 * ?limit= (1 to LIMIT_MOVES_PAGE_MAX, default LIMIT_MOVES_PAGE_DEFAULT).
 * 0, or E_BAD_REQUEST with err saying what is wrong.
 */
int http_page_query(http_request *req, int *from, int *limit, app_error *err);
/* A field of an application/x-www-form-urlencoded body, decoded; malloc'd or NULL. */
char *http_form_field(http_request *req, const char *name);

/* Percent-decode s[0..len) into a new string; NULL when malformed. */
char *http_url_decode(const char *s, size_t len);

#endif
