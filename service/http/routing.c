/* routing.c - matching a path to its route, and the path as the log may show it. */
#include "http/http.h"
#include "http/http_internal.h"
#include "core/limits.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A captured path segment: short, and only characters ids and tokens use. */
static int segment_ok(const char *s, size_t n)
{
	if (n == 0 || n > LIMIT_TOKEN)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			return 0;
	}
	return 1;
}

/* Append n bytes of s to out (size bytes, *len used), cutting at the end. */
static void append(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (!out || *len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
}

/* A path segment that cannot be a secret: short, lower case, digits and punctuation only. */
static int plain_word(const char *s, size_t n)
{
	if (n > LIMIT_LOG_PATH_WORD)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

/*
 * Match path against pattern. On success fill req->params (when req is
 * given) and write into shown (when given) the path as it may be logged:
 * each {token} segment as "*", and each {} segment that is not a plain word.
 */
static int match(const char *pattern, const char *path, http_request *req, char *shown, size_t size)
{
	const char *p = pattern, *s = path;
	size_t len = 0;
	int n = 0;

	if (shown && size)
		shown[0] = 0;
	while (*p && *s) {
		if (p[0] == '{') {
			const char *close = strchr(p, '}'), *slash = strchr(s, '/');
			size_t seg = slash ? (size_t)(slash - s) : strlen(s);
			int credential = close && close - p == 6 && !strncmp(p, "{token}", 7);
			if (!close || (close != p + 1 && !credential))
				goto no;     /* a pattern names no other kind of parameter */
			if (!segment_ok(s, seg) || n == HTTP_MAX_PARAMS)
				goto no;
			if (req)
				req->params[n] = xstrndup(s, seg);
			n++;
			/* A plain parameter that is no plain word may be a secret typed at the wrong place. */
			if (credential || !plain_word(s, seg))
				append(shown, size, &len, "*", 1);
			else
				append(shown, size, &len, s, seg);
			s += seg;
			p = close + 1;
		} else if (*p == *s) {
			append(shown, size, &len, s, 1);
			p++, s++;
		} else {
			goto no;
		}
	}
	if (*p || *s)
		goto no;
	if (req)
		req->nparams = n;
	return 1;
no:
	for (int i = 0; req && i < n; i++) {
		free(req->params[i]);
		req->params[i] = NULL;
	}
	return 0;
}

/*
 * The path as logged. A path of a route shows its plain parameters (those
 * that are plain words) and "*" for each credential; any other path (a mistyped token link too) only
 * up to its first segment that is not a plain word.
 */
void http_log_path(const http_site *site, const http_route *route, const char *path, char *out, size_t size)
{
	size_t len = 0;

	/* The request's own route was found when it came: no second search through the table. */
	if (route && match(route->pattern, path, NULL, out, size))
		return;
	for (const http_route *r = site->routes; r->method; r++)
		if (match(r->pattern, path, NULL, out, size))
			return;
	out[0] = 0;
	for (const char *s = path; *s == '/';) {
		size_t seg = strcspn(s + 1, "/");
		if (!plain_word(s + 1, seg)) {
			append(out, size, &len, "/*", 2);
			return;
		}
		append(out, size, &len, s, seg + 1);
		s += seg + 1;
	}
	if (!len)
		append(out, size, &len, "*", 1);
}

/* Find the route; *allow lists the methods of a path that matched with another method. */
const http_route *http_find_route(http_request *req, char *allow, size_t allow_size)
{
	const char *method = strcmp(req->method, "HEAD") == 0 ? "GET" : req->method;

	allow[0] = 0;
	for (const http_route *r = req->site->routes; r->method; r++) {
		if (!match(r->pattern, req->path, req, NULL, 0))
			continue;
		if (strcmp(r->method, method) == 0)
			return r;
		if (!strstr(allow, r->method)) {
			if (*allow)
				strncat(allow, ", ", allow_size - strlen(allow) - 1);
			strncat(allow, r->method, allow_size - strlen(allow) - 1);
		}
		for (int i = 0; i < req->nparams; i++) {
			free(req->params[i]);
			req->params[i] = NULL;
		}
		req->nparams = 0;
	}
	return NULL;
}
