/* conditional.h - a seat's tree of conditional moves: checked, made canonical, matched against play. */
#ifndef ROOKERY_CONDITIONAL_H
#define ROOKERY_CONDITIONAL_H

#include "game/game.h"

#include <jansson.h>

/*
 * A tree is {"if": [{"moves": [...], "then": "...", "next": {"if": [...]}}]}:
 * each entry names the moves the other seats are expected to make, in turn
 * order, up to the seat's next turn ("moves"), the seat's answer ("then") and
 * optionally what it expects after that answer ("next"). At most
 * LIMIT_CONDITIONAL_DEPTH levels and LIMIT_CONDITIONAL_ANSWERS answers.
 */

/*
 * Check tree as seat's conditional moves from g's current position: every
 * move is replayed through the rules where it would be played. 0 with
 * *canon the tree with every move in canonical text (new reference; an
 * empty "if" list is kept as it is: nothing to store), or the error:
 * E_BAD_CONDITIONAL (shape, size, a line that cannot be checked),
 * E_TOO_LARGE (over the limits), E_BAD_MOVE / E_ILLEGAL / E_INCOMPLETE
 * (a move, named by where it is), E_CONDITIONAL_NOT_NOW (the seat's turn, a
 * hidden setup), E_GAME_OVER.
 */
int conditional_check(const game_loaded *g, int seat, const json_t *tree, json_t **canon, app_error *err);

/* The most moves of one line: each level's others' moves up to the seat's turn, and its answer. */
#define CONDITIONAL_LINE_MAX (LIMIT_CONDITIONAL_DEPTH * RULES_MAX_SEATS)

/*
 * Replay a line being built (the line editor of the seat's page): texts[0..n)
 * are, level after level, the other seats' moves in turn order up to the
 * seat's turn, then the seat's answer. 0 with *pos the position after them
 * (free with the rules' free_position), canon[i] each move's canonical text,
 * movers[i] (may be NULL) who makes it, *mover the seat to move next in the
 * line (-1: nobody, or several at once, or a roll makes what follows
 * unknown), *complete set when the seat's answer ends it; or the error of
 * conditional_check (the move at fault named), *pos NULL.
 */
int conditional_replay(const game_loaded *g, int seat, const char *const *texts, int n, rules_position **pos,
		       char (*canon)[RULES_TEXT_MAX], int *movers, int *mover, int *complete, app_error *err);

/*
 * The tree of one line (conditional_replay's texts, ending with the seat's
 * answer): one entry a level, each the next's parent. New reference, or NULL
 * with err (E_BAD_CONDITIONAL when the line does not end with an answer).
 */
json_t *conditional_line_tree(const game_loaded *g, int seat, const char *const *texts, int n, app_error *err);

enum conditional_verdict {
	CONDITIONAL_WAIT,      /* the moves so far begin an expectation: wait for more */
	CONDITIONAL_PLAY,      /* an expectation is met: play *answer, then keep *next (may be NULL) */
	CONDITIONAL_DEVIATED,  /* the moves so far are no expectation's */
};

/*
 * What tree says of the moves played since it was stored (canonical texts,
 * oldest first), when mine_now tells whether it is the seat's turn. On
 * CONDITIONAL_PLAY, *answer points into tree and *next is the subtree to keep
 * (borrowed from tree; NULL when the line ends).
 */
enum conditional_verdict conditional_match(const json_t *tree, const char *const *played, int nplayed,
					   int mine_now, const char **answer, const json_t **next);

/* Where a seat's stored tree stands in a game. */
typedef struct conditional_state {
	json_t *tree;                     /* the stored tree; NULL when the seat has none */
	enum conditional_verdict verdict;
	const char *answer;               /* CONDITIONAL_PLAY: the answer due now (into tree) */
	const json_t *next;               /* CONDITIONAL_PLAY: the subtree to keep, or NULL */
	char why[RULES_TEXT_MAX + 96];    /* CONDITIONAL_DEVIATED: why, the end of a sentence */
} conditional_state;

/*
 * Read seat's stored tree and match it (conditional_match) against the moves
 * made in g since it was stored: 0 with *st filled (st->tree NULL when there
 * is none; a move by the seat itself is a deviation), or a storage error.
 * Release with conditional_state_clear.
 */
int conditional_state_of(app *a, const game_loaded *g, int seat, conditional_state *st, db_error *de);
void conditional_state_clear(conditional_state *st);

/*
 * Read mail lines "if MOVES then ANSWER, if MOVES then ANSWER" (several
 * moves of an expectation joined by " and "; one line may hold several
 * entries separated by commas, and several lines add entries) into a
 * one-level tree (new reference), or NULL with err set when a line is not of
 * that form. The moves are checked later by conditional_check.
 */
json_t *conditional_from_lines(const char *text, app_error *err);

/* The tree as lines of that grammar, one entry a line, nested levels indented (malloc'd). */
char *conditional_to_lines(const json_t *tree);

#endif
