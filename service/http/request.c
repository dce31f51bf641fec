/* request.c - what a request carries: query, headers, cookies, the client's address, bodies. */
#include "http/http.h"
#include "http/http_internal.h"
#include "core/errors.h"
#include "core/limits.h"
#include "http/json_body.h"
#include "xalloc.h"
#include "core/text.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

const char *http_query(http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

struct query_check {
	const char *const *names;
	unsigned seen;          /* a bit per name */
	const char *wrong;      /* the first argument refused */
	const char *why;
};

static enum MHD_Result query_arg_check(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
				       const char *value, size_t value_size)
{
	struct query_check *q = cls;
	size_t i;

	(void)kind;
	for (i = 0; q->names[i] && strcmp(q->names[i], key); i++)
		;
	/* A NUL sent as %00 would cut the value short of what was sent: refused. */
	q->why = !q->names[i] || i >= 32 || strlen(key) != key_size ? "unknown query parameter %.40s" :
		 (q->seen >> i) & 1 ? "the query gives %.40s twice" :
		 !value ? "the query gives %.40s without a value" :
		 strlen(value) != value_size ? "the query's %.40s holds a NUL" : NULL;
	if (q->why) {
		q->wrong = key;
		return MHD_NO;
	}
	q->seen |= 1u << i;
	return MHD_YES;
}

int http_query_only(http_request *req, const char *const names[], app_error *err)
{
	struct query_check q = {names, 0, NULL, NULL};

	MHD_get_connection_values_n(req->conn, MHD_GET_ARGUMENT_KIND, query_arg_check, &q);
	return q.wrong ? app_fail(err, E_BAD_REQUEST, q.why, q.wrong) : 0;
}

/* An IPv4 or IPv6 address written the one canonical way into out; 0 when text is not one. */
static int canonical_address(const char *text, char *out, size_t size)
{
	unsigned char raw[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, text, raw) == 1)
		return inet_ntop(AF_INET, raw, out, (socklen_t)size) != NULL;
	if (inet_pton(AF_INET6, text, raw) == 1)
		return inet_ntop(AF_INET6, raw, out, (socklen_t)size) != NULL;
	return 0;
}

/*
 * The address the proxy put last in X-Forwarded-For: the one it received the
 * request from (earlier entries come from the client and prove nothing).
 */
static int forwarded_for(http_request *req, char *out, size_t size)
{
	const char *h = http_header(req, "X-Forwarded-For"), *last;
	char entry[INET6_ADDRSTRLEN];
	size_t n;

	if (!h)
		return 0;
	last = strrchr(h, ',');
	last = last ? last + 1 : h;
	last += strspn(last, " \t");
	n = strcspn(last, " \t");
	if (n == 0 || n >= sizeof entry || last[n + strspn(last + n, " \t")])
		return 0;
	memcpy(entry, last, n);
	entry[n] = 0;
	return canonical_address(entry, out, size);
}

void http_client_address(http_request *req, char *out, size_t size)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	snprintf(out, size, "unknown");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
	/* Only the proxy's own word is taken: anyone else could write the header. */
	if (req->app->proxy && strcmp(out, req->app->proxy) == 0) {
		char client[INET6_ADDRSTRLEN];
		if (forwarded_for(req, client, sizeof client))
			snprintf(out, size, "%s", client);
	}
}

int http_proxy_address(const char *text, char *out, size_t size)
{
	return canonical_address(text, out, size) ? 0 : -1;
}

const char *http_cookie(http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_COOKIE_KIND, name);
}

const char *http_header(http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

/* A query argument of up to 9 digits (so no overflow) in [min, max] into *out; def when absent. */
static int query_count(http_request *req, const char *name, int def, int min, int max, int *out)
{
	const char *v = http_query(req, name);
	long long n;

	*out = def;
	if (!v)
		return 0;
	if (text_whole_number(v, 9, &n))
		return -1;
	*out = (int)n;
	return *out < min || *out > max ? -1 : 0;
}

int http_page_query(http_request *req, int *from, int *limit, app_error *err)
{
	if (query_count(req, "from", 0, 0, 999999999, from))
		return app_fail(err, E_BAD_REQUEST, "from must be a ply: a whole number from 0");
	if (query_count(req, "limit", LIMIT_MOVES_PAGE_DEFAULT, 1, LIMIT_MOVES_PAGE_MAX, limit))
		return app_fail(err, E_BAD_REQUEST, "limit must be a whole number from 1 to %d",
				LIMIT_MOVES_PAGE_MAX);
	return 0;
}

int http_json_body(http_request *req, json_t **out, app_error *err)
{
	return http_json_body_depth(req, LIMIT_JSON_DEPTH, out, err);
}

int http_json_body_depth(http_request *req, int depth, json_t **out, app_error *err)
{
	const char *ct = http_header(req, "Content-Type");

	*out = NULL;
	if (!ct || strncasecmp(ct, "application/json", 16) != 0 || (ct[16] && ct[16] != ';' && ct[16] != ' '))
		return app_fail(err, E_MEDIA_TYPE, "send the body as application/json");
	return json_body_decode_depth(req->body, req->body_len, depth, out, err);
}

int http_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *http_url_decode(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%') {
			int h, l;
			if (i + 2 >= len) {
				free(out);
				return NULL;
			}
			h = http_hexval((unsigned char)s[i + 1]);
			l = http_hexval((unsigned char)s[i + 2]);
			if (h < 0 || l < 0 || (h == 0 && l == 0)) {
				free(out);
				return NULL;
			}
			*o++ = (char)(h << 4 | l);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = 0;
	return out;
}

char *http_form_field(http_request *req, const char *name)
{
	const char *p = req->body, *end = req->body + req->body_len;
	size_t nlen = strlen(name);

	if (!p)
		return NULL;
	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *stop = amp ? amp : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));
		if (eq && (size_t)(eq - p) == nlen && memcmp(p, name, nlen) == 0)
			return http_url_decode(eq + 1, (size_t)(stop - eq - 1));
		p = stop + 1;
	}
	return NULL;
}
