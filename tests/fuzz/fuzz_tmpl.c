/* fuzz_tmpl.c - the template engine with the fuzz input as the template, rendered with a fixed
 * model full of hostile strings: a value's '<' must never reach the output unescaped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The header declares the table const; the harness rebuilds it for every input. */
#define tmpl_files tmpl_files_declared_in_header
#include "pages/tmpl.h"
#undef tmpl_files

struct tmpl_file tmpl_files[3];

/*
 * Every hostile value carries a tracer byte, U+0001, right after its '<'; no
 * value starts with it. A '<' followed by the tracer in the output can then
 * only be a value's '<' left unescaped, whatever the template does around
 * it (unless the template holds the tracer itself: not checked then).
 */
#define TRACER "\x01"
#define PAYLOAD "<\\u0001script>xss()</script>"

static const char model_text[] =
	"{\"v\": \"\\\">" PAYLOAD "\","
	" \"x\": \"'>" PAYLOAD "<!--\","
	" \"u\": \"javascript:" PAYLOAD "\","
	" \"name\": \"</textarea>" PAYLOAD "\","
	" \"s\": \"" PAYLOAD "\","
	" \"i\": 42, \"neg\": -1, \"r\": 1.5, \"t\": true, \"f\": false, \"n\": null,"
	" \"items\": [{\"name\": \"" PAYLOAD "\", \"owner\": \"a&b\"},"
	"            {\"name\": \"}}{{v}}" PAYLOAD "\", \"owner\": \"<!--\"}],"
	" \"xs\": [\"" PAYLOAD "\", 1, \"]]>\"],"
	" \"a\": {\"b\": {\"c\": \"" PAYLOAD "\"}, \"x\": \"-->" PAYLOAD "\"},"
	" \"kids\": [{\"name\": \"k1" PAYLOAD "\", \"kids\": [{\"name\": \"" PAYLOAD "\"}]}],"
	" \"on\": true, \"id\": \"../" PAYLOAD "\", \"q\": \"a b&c=" PAYLOAD "\"}";

static int contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *model;
	tmpl_error err;
	char *text, *out;

	if (!model) {
		json_error_t je;
		model = json_loads(model_text, 0, &je);
		if (!model)
			abort();
	}
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	tmpl_files[0] = (struct tmpl_file){ "fuzz.html", text, size };
	tmpl_files[1] = (struct tmpl_file){ "item.html", "<b>{{name}}</b>", 15 };
	tmpl_files[2] = (struct tmpl_file){ NULL, NULL, 0 };

	out = tmpl_render("fuzz.html", model, &err);
	if (out) {
		if (!contains(text, size, TRACER) && strstr(out, "<" TRACER))
			abort();
		free(out);
	}
	tmpl_cleanup();
	free(text);
	return 0;
}
