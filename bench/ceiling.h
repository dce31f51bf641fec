/*
 * ceiling.h - what the commit ceilings (sqlite_commits, pg_commits) share: their command line,
 * a row of a move's size, and the timed loop of one-row transactions with its report.
 */
#ifndef BENCH_CEILING_H
#define BENCH_CEILING_H

#include <stddef.h>

typedef struct ceiling {
	const char *target;   /* the database: a file, or a libpq URI */
	double secs;          /* how long to commit */
	char *payload;        /* row bytes of text (NUL terminated), about a stored move's */
	size_t row;
} ceiling;

/* Read "TARGET SECONDS [ROW_BYTES]" into c (prints usage and exits 2 when it is not there) and
 * make the payload; ceiling_free frees it. */
void ceiling_args(ceiling *c, int argc, char **argv, const char *usage);
void ceiling_free(ceiling *c);

/* Call commit(ctx, n, c) with n = 0, 1, 2... (one transaction each: it exits on failure) until
 * c->secs have passed, then print "commits=N seconds=S rate=R" (commits per second). */
void ceiling_run(const ceiling *c, void (*commit)(void *ctx, long n, const ceiling *c), void *ctx);

#endif
