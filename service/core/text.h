/* text.h - checks on user-supplied text: UTF-8, control characters, email shape. */
#ifndef ROOKERY_TEXT_H
#define ROOKERY_TEXT_H

#include <stddef.h>

/* True when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates). */
int text_utf8_valid(const char *s, size_t len);

/*
 * True when s is valid UTF-8 with no control characters: C0 (tabs
 * included), DEL, C1, U+2028/U+2029, and the bidirectional controls
 * (U+061C, U+200E/U+200F, U+202A-U+202E, U+2066-U+2069).
 */
int text_printable(const char *s);

/*
 * text_printable for text of several lines: line feeds are allowed, every
 * other control is not. *chars (may be NULL): how many characters s holds.
 */
int text_printable_lines(const char *s, size_t *chars);

/* True for a plausible address: local@domain, printable ASCII, no spaces. */
int text_email_plausible(const char *s);

/*
 * A whole number written in decimal digits only (no sign, no space), 1 to
 * digits of them (at most 18, so that it fits): 0 with it in *out, else -1.
 * What the query parameters, headers and options that count are read with.
 */
int text_whole_number(const char *s, int digits, long long *out);

#endif
