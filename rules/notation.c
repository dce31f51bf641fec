/* notation.c - the scanning helpers the games' move parsers share. */
#include "notation.h"

#include <ctype.h>
#include <string.h>

int notation_check_text(const char *text, const char *noun, rules_error *err)
{
	size_t len;

	if (!text)
		return rules_fail(err, RULES_E_PARSE, "no move given");
	len = strnlen(text, 2 * RULES_TEXT_MAX + 1);
	if (len > 2 * RULES_TEXT_MAX)
		return rules_fail(err, RULES_E_PARSE, "the %s is too long", noun);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] >= 0x80)
			return rules_fail(err, RULES_E_PARSE, "the %s may contain only ASCII characters", noun);
	return 0;
}

const char *notation_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int notation_unexpected(const char *p, const char *what, rules_error *err)
{
	if (!*p)
		return rules_fail(err, RULES_E_PARSE, "the line ends too early: expected %s", what);
	if (isprint((unsigned char)*p))
		return rules_fail(err, RULES_E_PARSE, "unexpected '%c': expected %s", *p, what);
	return rules_fail(err, RULES_E_PARSE, "unexpected character 0x%02x: expected %s",
			  (unsigned char)*p, what);
}

int notation_unexpected_before(const char *p, const char *stops, const char *what, rules_error *err)
{
	return notation_unexpected(*p && strchr(stops, *p) ? "" : p, what, err);
}
