/* text.c - validation of user-supplied text. */
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

/* The code point at s[*i..len), moving *i past it; -1 for malformed UTF-8. */
static long next_code_point(const unsigned char *s, size_t len, size_t *i)
{
	unsigned c = s[*i];
	size_t n;
	unsigned cp;

	if (c < 0x80) {
		(*i)++;
		return c;
	} else if ((c & 0xe0) == 0xc0) {
		n = 1, cp = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		n = 2, cp = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		n = 3, cp = c & 0x07;
	} else {
		return -1;
	}
	if (*i + n >= len)   /* the sequence runs past the end */
		return -1;
	for (size_t k = 1; k <= n; k++) {
		if ((s[*i + k] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[*i + k] & 0x3f);
	}
	if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*i += n + 1;
	return cp;
}

int text_utf8_valid(const char *str, size_t len)
{
	size_t i = 0;

	while (i < len)
		if (next_code_point((const unsigned char *)str, len, &i) < 0)
			return 0;
	return 1;
}

/*
 * Characters that change how the text around a name looks rather than
 * standing for themselves: C0 and C1 controls and DEL, the line and
 * paragraph separators, and the bidirectional marks, embeddings, overrides
 * and isolates (which can make a name read backwards, or reorder the text
 * after it on a page or in a mail).
 */
static int invisible_control(long cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

int text_printable(const char *s)
{
	size_t len = strlen(s), i = 0;

	while (i < len) {
		long cp = next_code_point((const unsigned char *)s, len, &i);
		if (cp < 0 || invisible_control(cp))
			return 0;
	}
	return 1;
}

int text_printable_lines(const char *s, size_t *chars)
{
	size_t len = strlen(s), i = 0, n = 0;

	while (i < len) {
		long cp = next_code_point((const unsigned char *)s, len, &i);
		if (cp < 0 || (cp != '\n' && invisible_control(cp)))
			return 0;
		n++;
	}
	if (chars)
		*chars = n;
	return 1;
}

int text_email_plausible(const char *s)
{
	const char *at = strchr(s, '@');

	if (!at || at == s || !at[1] || strchr(at + 1, '@') || !strchr(at + 1, '.'))
		return 0;
	for (; *s; s++)
		if (*s <= 0x20 || *s >= 0x7f || strchr("<>()[]\\,;:\"", *s))
			return 0;
	return 1;
}

int text_whole_number(const char *s, int digits, long long *out)
{
	size_t len = s ? strlen(s) : 0;

	if (len == 0 || len > (size_t)digits || digits > 18 || strspn(s, "0123456789") != len)
		return -1;
	*out = strtoll(s, NULL, 10);
	return 0;
}
