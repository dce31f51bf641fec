/* fuzz_json.c - the API's strict JSON body decoding, as service/http.c (http_json_body) and the
 * handlers in service/api.c do it. */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#define FUZZ_JSON_DEPTH 8   /* LIMIT_JSON_DEPTH in service/limits.h */

/* A copy of json_depth in service/http.c. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *body, *jply = NULL, *jseats = NULL, *s;
	const char *text, *variant, *action, *name, *email;
	size_t i;

	if (size == 0)
		return 0;
	body = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	if (!body)
		return 0;
	if (!json_is_object(body) || json_depth(body) > FUZZ_JSON_DEPTH) {
		json_decref(body);
		return 0;
	}
	/* A move. */
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s:s, s:o}", "move", &text, "ply", &jply) == 0) {
		if (!text || !jply)
			abort();
		if (json_is_integer(jply))
			(void)json_integer_value(jply);
	}
	/* A new game. */
	if (json_unpack_ex(body, &je, JSON_STRICT, "{s:s, s:o}", "variant", &variant, "seats", &jseats) == 0 &&
	    json_is_array(jseats) && json_array_size(jseats) > 0 && json_array_size(jseats) <= 4) {
		json_array_foreach(jseats, i, s) {
			email = NULL;
			if (json_unpack_ex(s, &je, JSON_STRICT, "{s:s, s?s}", "name", &name, "email", &email))
				break;
			if (!name)
				abort();
		}
	}
	(void)json_unpack_ex(body, &je, JSON_STRICT, "{}");
	(void)json_unpack_ex(body, &je, JSON_STRICT, "{s:s}", "action", &action);
	/* What the API writes back must load again. */
	char *dump = json_dumps(body, JSON_COMPACT);
	if (dump) {
		json_t *again = json_loads(dump, JSON_REJECT_DUPLICATES, &je);
		if (!again || !json_equal(again, body))
			abort();
		json_decref(again);
		free(dump);
	}
	json_decref(body);
	return 0;
}
