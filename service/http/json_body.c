/* json_body.c - strict JSON request bodies: one object, no repeated key, a bounded depth. */
#include "http/json_body.h"
#include "core/limits.h"

/* How deep v nests: 0 for a scalar, 1 for an empty or flat object or array. */
static int json_depth(json_t *v)
{
	int deepest = 0;
	size_t i;
	const char *k;
	json_t *c;

	if (json_is_object(v)) {
		json_object_foreach(v, k, c) {
			int d = json_depth(c);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, c) {
			int d = json_depth(c);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	return 0;
}

int json_body_decode(const char *data, size_t len, json_t **out, app_error *err)
{
	return json_body_decode_depth(data, len, LIMIT_JSON_DEPTH, out, err);
}

int json_body_decode_depth(const char *data, size_t len, int depth, json_t **out, app_error *err)
{
	json_error_t je;
	json_t *v;

	*out = NULL;
	if (len == 0)
		return app_fail(err, E_BAD_JSON, "the body is empty; a JSON object is expected");
	/* jansson's own limit on nesting (2048) keeps the parser itself from running deep. */
	v = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	if (!v)
		return app_fail(err, E_BAD_JSON, "invalid JSON at line %d column %d: %s", je.line, je.column, je.text);
	if (!json_is_object(v)) {
		json_decref(v);
		return app_fail(err, E_BAD_JSON, "the body must be a JSON object");
	}
	if (json_depth(v) > depth) {
		json_decref(v);
		return app_fail(err, E_BAD_JSON, "the JSON is nested too deeply");
	}
	*out = v;
	return 0;
}
