/* reply.c - answers: bodies made now or after the change is durable, validators, errors. */
#include "http/http.h"
#include "http/http_internal.h"
#include "core/errors.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Forget an answer to be finished later, without finishing it. */
static void drop_later(http_response *res)
{
	if (res->drop)
		res->drop(res->render_arg);
	res->render = NULL;
	res->drop = NULL;
	res->render_arg = NULL;
}

void http_reply(http_response *res, int status, const char *content_type, char *body, size_t len)
{
	drop_later(res);
	http_stream_drop(res);
	free(res->body);
	res->status = status;
	res->content_type = content_type;
	res->body = body;
	res->len = len;
}

void http_reply_later(http_response *res, int status, void (*render)(void *arg, http_response *res),
		      void (*drop)(void *arg), void *arg)
{
	http_reply(res, status, NULL, NULL, 0);
	res->render = render;
	res->drop = drop;
	res->render_arg = arg;
}

/* Finish an answer made with http_reply_later (a render may itself answer later: JSON). */
void http_finish_later(http_response *res)
{
	while (res->render) {
		void (*render)(void *, http_response *) = res->render;
		void (*drop)(void *) = res->drop;
		void *arg = res->render_arg;

		res->render = NULL;
		res->drop = NULL;
		res->render_arg = NULL;
		render(arg, res);
		if (drop)
			drop(arg);
	}
}

struct json_later {
	int status;
	json_t *value;
};

static void json_render(void *arg, http_response *res)
{
	struct json_later *j = arg;
	char *s = json_dumps(j->value, JSON_COMPACT | JSON_ENSURE_ASCII);

	if (!s)
		abort();
	http_reply(res, j->status, "application/json", s, strlen(s));
}

static void json_drop(void *arg)
{
	struct json_later *j = arg;

	json_decref(j->value);
	free(j);
}

void http_reply_json(http_response *res, int status, json_t *value)
{
	struct json_later *j = xmalloc(sizeof *j);

	/* Serializing waits until the change is durable and the writer is free. */
	j->status = status;
	j->value = value;
	http_reply_later(res, status, json_render, json_drop, j);
}

void http_redirect(http_response *res, const char *location)
{
	free(res->location);
	res->location = xstrdup(location);
	http_reply(res, 303, "text/plain; charset=utf-8", xstrdup("See Other\n"), 10);
}

void http_validated(http_response *res, const char *etag, int personal)
{
	snprintf(res->etag, sizeof res->etag, "%s", etag);
	res->personal = personal;
}

void http_validated_for(http_response *res, const char *etag, int max_age)
{
	http_validated(res, etag, 0);
	res->max_age = max_age;
}

/* The opaque part of a tag, "x" of "x" or W/"x", as a span of s (*n bytes); NULL when malformed. */
static const char *opaque_tag(const char *s, size_t *n)
{
	const char *close;

	if (s[0] == 'W' && s[1] == '/')
		s += 2;
	if (s[0] != '"' || !(close = strchr(s + 1, '"')))
		return NULL;
	*n = (size_t)(close - s) + 1;
	return s;
}

int http_etag_held(http_request *req, const char *etag)
{
	const char *h = http_header(req, "If-None-Match"), *ours, *p;
	size_t our_len, n;

	if (!h || !(ours = opaque_tag(etag, &our_len)))
		return 0;
	for (p = h;;) {
		p += strspn(p, " \t,");
		if (!*p)
			return 0;
		if (*p == '*')
			return 1;
		const char *t = opaque_tag(p, &n);
		if (!t)
			return 0;     /* a malformed list: answer in full */
		if (n == our_len && memcmp(t, ours, n) == 0)
			return 1;
		p = t + n;
	}
}

void http_reply_not_modified(http_response *res)
{
	http_reply(res, 304, "application/json", xstrdup(""), 0);
}

void http_attachment(http_response *res, const char *filename)
{
	free(res->disposition);
	res->disposition = xasprintf("attachment; filename=\"%s\"", filename);
}

void http_reply_error(http_request *req, http_response *res, int code, const char *message)
{
	res->etag[0] = 0;
	free(res->disposition);
	res->disposition = NULL;
	res->code = code;
	if (!req->route || req->route->api) {
		json_t *e = json_pack("{s:{s:s, s:s}}", "error", "code", app_code_name(code),
				      "message", message);
		http_reply_json(res, app_code_status(code), e);
	} else {
		req->site->error_page(req, res, code, message);
	}
}

void http_answer_clear(http_response *res)
{
	drop_later(res);
	http_stream_drop(res);
	free(res->body);
	free(res->location);
	free(res->set_cookie);
	free(res->disposition);
	memset(res, 0, sizeof *res);
}
