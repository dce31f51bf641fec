/* fuzz_tmpl.c - the template engine with the fuzz input as the template, rendered with a fixed
 * model full of hostile strings: the raw payload must never reach the output unescaped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The header declares the table const; the harness rebuilds it for every input. */
#define tmpl_files tmpl_files_declared_in_header
#include "tmpl.h"
#undef tmpl_files

struct tmpl_file tmpl_files[3];

#define MARK "xss_7f3a"
#define PAYLOAD "<script>" MARK "()</script>"

static const char model_text[] =
	"{\"v\": \"\\\"><" "script>" MARK "()</script>\","
	" \"x\": \"'><" "script>" MARK "()</script><!--\","
	" \"u\": \"javascript:<" "script>" MARK "()</script>\","
	" \"name\": \"</textarea><" "script>" MARK "()</script>\","
	" \"s\": \"<" "script>" MARK "()</script>\","
	" \"i\": 42, \"neg\": -1, \"r\": 1.5, \"t\": true, \"f\": false, \"n\": null,"
	" \"items\": [{\"name\": \"<" "script>" MARK "()</script>\", \"owner\": \"a&b\"},"
	"            {\"name\": \"}}{{v}}<" "script>" MARK "()</script>\", \"owner\": \"<!--\"}],"
	" \"xs\": [\"<" "script>" MARK "()</script>\", 1, \"]]>\"],"
	" \"a\": {\"b\": {\"c\": \"<" "script>" MARK "()</script>\"}, \"x\": \"--><" "script>" MARK "()</script>\"},"
	" \"kids\": [{\"name\": \"k1<" "script>" MARK "()</script>\", \"kids\": [{\"name\": \"<" "script>" MARK "()</script>\"}]}],"
	" \"on\": true, \"id\": \"../<" "script>" MARK "()</script>\", \"q\": \"a b&c=<" "script>" MARK "()</script>\"}";

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
		/* The template itself may contain the marker; only values must never come out raw. */
		if (!contains(text, size, MARK) && strstr(out, "<script>" MARK))
			abort();
		free(out);
	}
	tmpl_cleanup();
	free(text);
	return 0;
}
