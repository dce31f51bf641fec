/* gesture_check.h - a property every game's gestures must have, checked from the unit tests. */
#ifndef ROOKERY_GESTURE_CHECK_H
#define ROOKERY_GESTURE_CHECK_H

#include "rules.h"

/*
 * Checks seat's legal moves and anytime moves in pos (and, for partial moves, their
 * continuations, to the given depth): every move has a gesture; every
 * place is the name of a drawn cell of game->view(pos), or "@h:P" for a
 * piece P in holding h; moves touching nothing carry a choice; no two
 * moves share places and choice; a continuation's gesture starts with its
 * partial move's places. Fails the cmocka test otherwise. Returns the number
 * of moves checked.
 */
size_t gesture_check(const rules_game *game, const rules_position *pos, int seat, int depth);

/*
 * Fails the cmocka test unless the gesture of move (text is its text, for
 * messages) touches places, written joined by sep ("e2 e4" or "7 1|6 1"),
 * and says choice.
 */
void gesture_expect(const rules_game *game, const rules_position *pos, const rules_move *move,
		    const char *text, const char *places, char sep, const char *choice);

#endif
