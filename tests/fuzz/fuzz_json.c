/* fuzz_json.c - the API's strict JSON body decoding (service/http/json_body.c, as http_json_body calls
 * it) and the unpacking the handlers in service/api/games.c do. */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "core/limits.h"
#include "http/json_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	app_error err;
	json_t *body, *jply = NULL, *jseats = NULL, *s;
	const char *text, *variant, *action, *name, *email;
	size_t i;

	if (json_body_decode((const char *)data, size, &body, &err)) {
		/* Refused: nothing decoded, and a message and the one code for bad JSON. */
		if (body || err.code != E_BAD_JSON || !err.message[0])
			abort();
		return 0;
	}
	if (!json_is_object(body))
		abort();
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
