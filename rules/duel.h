/* duel.h - games of two seats taking turns in which a seat without a legal move loses (Nchess,
 * Conversion Chess, Cyvasse): how such a game stands, whose turn it is and its result. */
#ifndef ROOKERY_DUEL_H
#define ROOKERY_DUEL_H

#include "rules.h"

#include <ctype.h>

/* How such a game stands: part of the game's position. */
typedef struct duel_state {
	int to_move;    /* the seat to move, 0 or 1; once the game is over, the loser */
	int over;       /* the game has ended, as winner and reason say */
	int winner;
	int reason;     /* how it ended, in the game's own codes */
} duel_state;

/* A way the game can end, by reason code. */
typedef struct duel_reason {
	const char *word;       /* in position texts, "general"; NULL for a code that is no reason */
	const char *summary;    /* in results, "General captured"; unused for a loss for want of a move */
} duel_reason;

/* What the functions below need to know of a game. */
typedef struct duel_rules {
	const char *title;              /* "Nchess", for messages */
	const char *const *seat_names;
	const char *seat_letters;       /* the seats in position texts, "SN" */
	const duel_reason *reasons;     /* by reason code, nreasons of them */
	int nreasons;
	int nomove;                     /* the reason code of a loss for want of a legal move */
	/* Whether seat has a legal move in pos (or the game is in a phase where nobody is stuck). */
	int (*can_move)(const rules_position *pos, int seat);
} duel_rules;

/*
 * Whether the game of pos (standing as d says) has ended: as d records, or because the seat to
 * move has no legal move, which loses the game whoever notices first. When it has, *winner and
 * *reason say how.
 */
int duel_ended(const duel_rules *r, const rules_position *pos, const duel_state *d, int *winner,
	       int *reason);

/* Whether seat is to move in a game that goes on: the seat whose moves legal_moves lists. */
int duel_to_move(const duel_rules *r, const rules_position *pos, const duel_state *d, int seat);

/* The turn check of parse and apply: RULES_E_OVER once the game has ended, else RULES_E_TURN
 * unless seat (0 or 1) is to move; 0 when it is. */
int duel_check_turn(const duel_rules *r, const rules_position *pos, const duel_state *d, int seat,
		    rules_error *err);

/* turn(): the seat to move, nobody once the game has ended. */
unsigned duel_turn(const duel_rules *r, const rules_position *pos, const duel_state *d);

/* result(): whose move it is while the game goes on, else the winner first and how it was won. */
void duel_result(const duel_rules *r, const rules_position *pos, const duel_state *d,
		 rules_result *out);

/* Records the end of the game: winner wins for reason, and the loser is "to move". */
void duel_finish(duel_state *d, int winner, int reason);

/*
 * The standing as position texts end, "<seat to move>:<result>", the result '-' while the game
 * goes on, else "<winner>:<reason word>" ("N:S:general": South took the General). duel_write
 * writes it into buf (as snprintf, returning the length) and duel_write_result the result alone.
 */
int duel_write(const duel_rules *r, const duel_state *d, char *buf, size_t size);
int duel_write_result(const duel_rules *r, const duel_state *d, char *buf, size_t size);

enum { DUEL_BAD_TO_MOVE = 1, DUEL_BAD_RESULT };

/* Reads that text, the whole rest of p, into d (winner and reason only when the game is over).
 * Returns 0, or which part is wrong: DUEL_BAD_TO_MOVE or DUEL_BAD_RESULT. */
int duel_read(const duel_rules *r, const char *p, duel_state *d);

/* Pieces written as letters, seat 0's upper case and seat 1's lower case ("C", "c"): whose
 * piece it is, its letter in upper case, and a letter as seat writes it. */
static inline int duel_owner(char piece)
{
	return isupper((unsigned char)piece) ? 0 : 1;
}

static inline char duel_letter(char piece)
{
	return (char)toupper((unsigned char)piece);
}

static inline char duel_as_seat(char letter, int seat)
{
	return seat == 0 ? letter : (char)tolower((unsigned char)letter);
}

#endif
