/* notation.h - pieces of move-text scanning that every game's parser shares. */
#ifndef ROOKERY_NOTATION_H
#define ROOKERY_NOTATION_H

#include "rules.h"

/* p past any spaces and tabs. */
const char *notation_skip_space(const char *p);

/*
 * A parse error for a text that expected what at p: it names the character
 * found there (printable or as hex), or says the line ended. Returns
 * RULES_E_PARSE.
 */
int notation_unexpected(const char *p, const char *what, rules_error *err);

#endif
