/* square_names.h - squares named by a file letter and a rank number ("e4", "j10", "h8"), read
 * and written in one place for every game whose notation names its squares so. */
#ifndef ROOKERY_SQUARE_NAMES_H
#define ROOKERY_SQUARE_NAMES_H

#include "rules.h"

/* A board's square names, and the words its games' messages use about them. */
typedef struct square_names {
	int files;              /* files a, b, ...: at most 26 */
	int ranks;              /* ranks 1, 2, ...: at most 16 */
	const char *example;    /* a square in messages, "e2" */
	const char *stops;      /* characters that end the text, for messages, as its end does (";#") */
	const char *rank_hint;  /* words after "a rank 1-N after the file letter", or "" */
	int zero_first;         /* 1: a rank written with a leading 0 is refused ("there is no rank 0") */
} square_names;

/* "e4", "j10" for the 0-based rank and file (each below 16). Returns buf. */
const char *square_name(char buf[4], int rank, int file);

/* Whether ch is one of the board's file letters, in either case. */
int square_is_file(const square_names *b, int ch);

/* Whether p starts like a square: a file letter and a digit. */
int square_name_at(const square_names *b, const char *p);

/*
 * The square named at *pp (any case): 0-based rank and file into *rank and *file, and *pp past
 * the name and the spaces after it. what names what was expected there, for messages. Returns 0,
 * or RULES_E_PARSE with a message when no square of the board stands there.
 */
int square_scan(const square_names *b, const char **pp, int *rank, int *file, const char *what,
		rules_error *err);

#endif
