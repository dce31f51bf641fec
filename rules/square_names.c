/* square_names.c - squares named by a file letter and a rank number (see square_names.h). */
#include "square_names.h"
#include "notation.h"

#include <ctype.h>
#include <stdio.h>

/* Written by hand rather than with snprintf: views name every square of the board. */
const char *square_name(char buf[4], int rank, int file)
{
	int number = (rank & 15) + 1, n = 0;

	buf[n++] = (char)('a' + (file & 15));
	if (number >= 10)
		buf[n++] = (char)('0' + number / 10);
	buf[n++] = (char)('0' + number % 10);
	buf[n] = 0;
	return buf;
}

int square_is_file(const square_names *b, int ch)
{
	ch = tolower(ch);
	return ch >= 'a' && ch < 'a' + b->files;
}

int square_name_at(const square_names *b, const char *p)
{
	return square_is_file(b, (unsigned char)p[0]) && isdigit((unsigned char)p[1]);
}

int square_scan(const square_names *b, const char **pp, int *rank, int *file, const char *what,
		rules_error *err)
{
	const char *p = *pp;
	int number = 0;

	if (!square_is_file(b, (unsigned char)*p)) {
		if (isalpha((unsigned char)*p))
			return rules_fail(err, RULES_E_PARSE,
					  "'%c' is not a file: a square is a file a-%c and a rank 1-%d, such as %s (expected %s)",
					  *p, 'a' + b->files - 1, b->ranks, b->example, what);
		return notation_unexpected_before(p, b->stops, what, err);
	}
	*file = tolower((unsigned char)*p) - 'a';
	p++;
	if (!isdigit((unsigned char)*p)) {
		char expected[96];
		snprintf(expected, sizeof expected, "a rank 1-%d after the file letter%s", b->ranks,
			 b->rank_hint);
		return notation_unexpected_before(p, b->stops, expected, err);
	}
	if (b->zero_first && *p == '0')
		return rules_fail(err, RULES_E_PARSE, "there is no rank 0: ranks run from 1 to %d", b->ranks);
	/* Up to four digits past any leading zeros: enough to name a wrong rank in the message. */
	while (isdigit((unsigned char)*p) && number < 1000)
		number = number * 10 + (*p++ - '0');
	if (number < 1 || number > b->ranks || isdigit((unsigned char)*p))
		return rules_fail(err, RULES_E_PARSE, "there is no rank %d: ranks run from 1 to %d", number,
				  b->ranks);
	*rank = number - 1;
	*pp = notation_skip_space(p);
	return 0;
}
