/* notation.h - pieces of move-text scanning that every game's parser shares. */
#ifndef ROOKERY_NOTATION_H
#define ROOKERY_NOTATION_H

#include "rules.h"

/*
 * The checks every move text passes before its grammar is read: it is given ("no move given"),
 * at most 2 * RULES_TEXT_MAX bytes ("the <noun> is too long") and ASCII only. noun is what the
 * game calls a text, "move" or "line". Returns 0, or RULES_E_PARSE with the message.
 */
int notation_check_text(const char *text, const char *noun, rules_error *err);

/* p past any spaces and tabs. */
const char *notation_skip_space(const char *p);

/*
 * A parse error for a text that expected what at p: it names the character
 * found there (printable or as hex), or says the line ended. Returns
 * RULES_E_PARSE.
 */
int notation_unexpected(const char *p, const char *what, rules_error *err);

/* notation_unexpected where the characters of stops (";#", say: what follows them is not read
 * here) end the text just as its end does. */
int notation_unexpected_before(const char *p, const char *stops, const char *what, rules_error *err);

#endif
