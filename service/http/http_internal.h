/* http_internal.h - what the server's files share and nothing outside http/ may use. */
#ifndef ROOKERY_HTTP_INTERNAL_H
#define ROOKERY_HTTP_INTERNAL_H

#include "http/http.h"

#include <stddef.h>

/* Make an answer of http_reply_later (renders may answer later again: JSON). */
void http_finish_later(http_response *res);

/* Forget an answer without sending it (its change is run again, was lost, or its client left). */
void http_answer_clear(http_response *res);

/* End a stream that was replied but will not be sent (a reply replaced it, or it was lost). */
void http_stream_drop(http_response *res);

/* The value of a hexadecimal digit, or -1. */
int http_hexval(int c);

/*
 * The route for req's method and path, with req->params filled; NULL when
 * none, with allow listing the methods the path takes (for a 405).
 */
const http_route *http_find_route(http_request *req, char *allow, size_t allow_size);

/*
 * The path as the log may show it: credentials and words that may be secrets
 * as "*". route is the request's route when it has one (NULL: looked for).
 */
void http_log_path(const http_site *site, const http_route *route, const char *path, char *out, size_t size);

#endif
