/* fuzz_mail.c - the incoming mail parser, the command line finder and the HTML-to-text converter. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail_in/mail_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int started;
	mail_incoming m;
	char why[256];
	char *text, *s;

	if (!started) {
		mail_parse_init();
		started = 1;
	}
	memset(&m, 0, sizeof m);
	if (mail_parse((const char *)data, size, &m, why) == 0 || m.from) {
		if (m.text && strlen(m.text) > MAIL_MAX_TEXT)
			abort();
	}
	mail_incoming_clear(&m);

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	s = mail_first_line(text);
	free(s);
	s = mail_html_to_text(text);
	if (!s)
		abort();
	free(s);
	free(text);
	return 0;
}
