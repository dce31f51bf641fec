/* json_body.h - strict JSON request bodies: one object, no repeated key, a bounded depth. */
#ifndef ROOKERY_JSON_BODY_H
#define ROOKERY_JSON_BODY_H

#include "core/errors.h"

#include <jansson.h>
#include <stddef.h>

/*
 * Decode len bytes of data as a request body: a JSON object without
 * duplicate keys, nested at most LIMIT_JSON_DEPTH deep. 0 with *out set (the
 * caller owns it), or E_BAD_JSON with err saying where and why.
 */
int json_body_decode(const char *data, size_t len, json_t **out, app_error *err);

/* json_body_decode nested at most depth deep (a body whose shape is a tree of bounded depth). */
int json_body_decode_depth(const char *data, size_t len, int depth, json_t **out, app_error *err);

#endif
