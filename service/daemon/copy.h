/* copy.h - `rookery copy`: an SQLite database moved into an empty PostgreSQL one, then checked. */
#ifndef ROOKERY_COPY_H
#define ROOKERY_COPY_H

#include <sysexits.h>

/* Exit codes of `rookery copy` (sysexits.h), one a kind of failure. */
enum {
	COPY_OK = 0,
	COPY_USAGE = EX_USAGE,               /* bad arguments */
	COPY_VERIFY_FAILED = EX_DATAERR,     /* the copy differs from its source: rolled back */
	COPY_SOURCE = EX_NOINPUT,            /* the source cannot be read, or its schema is not this rookery's */
	COPY_DESTINATION = EX_UNAVAILABLE,   /* the destination cannot be reached, or its schema is newer */
	COPY_NOT_EMPTY = EX_CANTCREAT,       /* the destination holds rows: left alone */
	COPY_FAILED = EX_IOERR,              /* writing the copy failed: rolled back */
};

/*
 * rookery copy --from PATH --to URI (argv[0] is "copy"): copy every table of the SQLite
 * database at PATH, read in one snapshot, into the empty PostgreSQL database at URI, in one
 * transaction; then check it (every table's row count on both sides, every game as stored on
 * both sides and replayed move by move through the rules) and commit, or roll back and say what
 * differs. Prints what it copied; returns one of the codes above.
 */
int copy_main(int argc, char **argv);

#endif
