/* text.c - validation of user-supplied text. */
#include "text.h"

#include <string.h>

int text_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i];
		size_t n;
		unsigned cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1, cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2, cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3, cp = c & 0x07;
		} else {
			return 0;
		}
		if (i + n >= len)   /* the sequence runs past the end */
			return 0;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

int text_printable(const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
	}
	return text_utf8_valid(s, len);
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
