/* duel.c - games of two seats taking turns in which a seat without a legal move loses (see duel.h). */
#include "duel.h"
#include "engine.h"

#include <stdio.h>
#include <string.h>

int duel_ended(const duel_rules *r, const rules_position *pos, const duel_state *d, int *winner,
	       int *reason)
{
	if (d->over) {
		*winner = d->winner;
		*reason = d->reason;
		return 1;
	}
	if (!r->can_move(pos, d->to_move)) {
		*winner = 1 - d->to_move;
		*reason = r->nomove;
		return 1;
	}
	return 0;
}

int duel_to_move(const duel_rules *r, const rules_position *pos, const duel_state *d, int seat)
{
	int winner, reason;

	return seat == d->to_move && !duel_ended(r, pos, d, &winner, &reason);
}

int duel_check_turn(const duel_rules *r, const rules_position *pos, const duel_state *d, int seat,
		    rules_error *err)
{
	int winner, reason;

	if (duel_ended(r, pos, d, &winner, &reason))
		return rules_fail(err, RULES_E_OVER, "the game is over");
	if (seat != 0 && seat != 1)
		return rules_fail(err, RULES_E_TURN, "%s has no seat %d", r->title, seat);
	if (seat != d->to_move)
		return rules_fail(err, RULES_E_TURN, "it is not your turn: %s is to move",
				  r->seat_names[d->to_move]);
	return 0;
}

unsigned duel_turn(const duel_rules *r, const rules_position *pos, const duel_state *d)
{
	int winner, reason;

	return duel_ended(r, pos, d, &winner, &reason) ? 0 : 1u << d->to_move;
}

void duel_result(const duel_rules *r, const rules_position *pos, const duel_state *d,
		 rules_result *out)
{
	int winner, reason;

	memset(out, 0, sizeof *out);
	if (!duel_ended(r, pos, d, &winner, &reason)) {
		snprintf(out->summary, sizeof out->summary, "%s to move", r->seat_names[d->to_move]);
		return;
	}
	out->over = 1;
	out->rank[winner] = 1;
	out->rank[1 - winner] = 2;
	if (reason == r->nomove)
		snprintf(out->summary, sizeof out->summary, "%s wins: %s has no legal move",
			 r->seat_names[winner], r->seat_names[1 - winner]);
	else
		snprintf(out->summary, sizeof out->summary, "%s wins: %s", r->seat_names[winner],
			 r->reasons[reason].summary);
}

void duel_finish(duel_state *d, int winner, int reason)
{
	d->over = 1;
	d->winner = winner;
	d->reason = reason;
	d->to_move = 1 - winner;
}

int duel_write(const duel_rules *r, const duel_state *d, char *buf, size_t size)
{
	int len = snprintf(buf, size, "%c:", r->seat_letters[d->to_move]);

	if (len < 0 || (size_t)len >= size)
		return len;
	return len + duel_write_result(r, d, buf + len, size - (size_t)len);
}

int duel_write_result(const duel_rules *r, const duel_state *d, char *buf, size_t size)
{
	if (!d->over)
		return snprintf(buf, size, "-");
	return snprintf(buf, size, "%c:%s", r->seat_letters[d->winner], r->reasons[d->reason].word);
}

/* The seat whose letter is ch, or -1. */
static int seat_of(const duel_rules *r, char ch)
{
	return engine_seat_of_letter(r->seat_letters, ch);
}

int duel_read(const duel_rules *r, const char *p, duel_state *d)
{
	if (seat_of(r, p[0]) < 0 || p[1] != ':')
		return DUEL_BAD_TO_MOVE;
	d->to_move = seat_of(r, p[0]);
	p += 2;
	if (strcmp(p, "-") == 0) {
		d->over = 0;
		return 0;
	}
	if (seat_of(r, p[0]) < 0 || p[1] != ':')
		return DUEL_BAD_RESULT;
	for (int i = 0; i < r->nreasons; i++)
		if (r->reasons[i].word && strcmp(p + 2, r->reasons[i].word) == 0) {
			d->over = 1;
			d->winner = seat_of(r, p[0]);
			d->reason = i;
			return 0;
		}
	return DUEL_BAD_RESULT;
}
