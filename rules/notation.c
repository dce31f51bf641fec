/* notation.c - the scanning helpers the games' move parsers share. */
#include "notation.h"

#include <ctype.h>

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
