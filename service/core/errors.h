/* errors.h - the service's error codes: one stable name and one HTTP status each. */
#ifndef ROOKERY_ERRORS_H
#define ROOKERY_ERRORS_H

enum app_code {
	E_OK = 0,
	E_BAD_REQUEST = -1,     /* a field is missing or malformed */
	E_BAD_JSON = -2,        /* the body is not strict JSON */
	E_MEDIA_TYPE = -3,      /* wrong Content-Type */
	E_TOO_LARGE = -4,       /* body or field over its limit */
	E_NOT_FOUND = -5,       /* no such route or game */
	E_METHOD = -6,          /* the route exists, the method does not */
	E_UNAUTHORIZED = -7,    /* missing or wrong token */
	E_FORBIDDEN = -8,       /* cross-site request or bad form token */
	E_NOT_YOUR_TURN = -9,
	E_STALE = -10,          /* ply does not match the game */
	E_GAME_OVER = -11,
	E_BAD_MOVE = -12,       /* the move text does not parse */
	E_ILLEGAL = -13,        /* the rules forbid the move */
	E_INCOMPLETE = -14,     /* the move needs more choices */
	E_NO_OFFER = -15,       /* draw answer without an offer */
	E_OFFER_PENDING = -16,  /* a draw offer is already open */
	E_UNKNOWN_VARIANT = -17,
	E_INTERNAL = -18,
	E_UNAVAILABLE = -19,    /* storage busy or shutting down */
	E_URI_TOO_LONG = -20,
	E_RATE_LIMITED = -21,   /* too many requests of this kind lately */
	E_SEEDS_FIXED = -22,    /* the dice have rolled: client seeds can no longer change */
	E_BAD_CLOCK = -23,      /* a time control or a gift of time that cannot be */
	E_NO_CLOCK = -24,       /* the game has no clock */
	E_BAD_VACATION = -25,   /* a vacation with bad or past dates, or none to end */
	E_VACATION_OVERLAP = -26, /* a vacation overlapping one already taken */
	E_VACATION_DAYS = -27,  /* more vacation days than the year has left */
	E_TOO_MANY_STREAMS = -28, /* this client address follows as many event streams as it may */
	E_BAD_MESSAGE = -29,    /* a message that is empty, holds control characters or goes to no other seat */
	E_BAD_CONDITIONAL = -30, /* a conditional tree that is malformed, too big, or cannot be checked */
	E_CONDITIONAL_NOT_NOW = -31, /* no conditional tree now: the seat's turn, or a hidden setup */
	E_SEAT_TAKEN = -32,     /* the open seat asked for was taken first, or there is none left */
	E_NOT_STARTED = -33,    /* the game still waits for players to take its open seats */
	E_CODE_COUNT_ = 34
};

typedef struct app_error {
	int code;
	char message[256];
} app_error;

/* Fill err (may be NULL) and return code. */
int app_fail(app_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The stable machine-readable name of a code, e.g. "not_your_turn". */
const char *app_code_name(int code);

/* The HTTP status that answers a code. */
int app_code_status(int code);

#endif
