/* replay.c - a recorded ply played again through a game's rules: its text read back as canonical, its rolls given back in order. */
#include "rules.h"

#include <stdio.h>
#include <string.h>

/* The recorded rolls of one ply, handed to the rules as they ask; why the first mismatch failed. */
struct recorded {
	const rules_ply *ply;
	int next;
	char why[RULES_MESSAGE_MAX];
};

static int recorded_roll(void *ctx, int sides, int *value)
{
	struct recorded *r = ctx;
	const rules_ply *p = r->ply;

	if (r->next >= p->nrolls) {
		snprintf(r->why, sizeof r->why, "the rules ask for roll %d (a d%d), which the record does not have",
			 r->next + 1, sides);
		return -1;
	}
	if (p->sides[r->next] != sides) {
		snprintf(r->why, sizeof r->why, "roll %d is recorded on a d%d, the rules roll a d%d", r->next + 1,
			 p->sides[r->next], sides);
		return -1;
	}
	if (p->values[r->next] < 1 || p->values[r->next] > sides) {
		snprintf(r->why, sizeof r->why, "roll %d is %d, not a face of a d%d", r->next + 1, p->values[r->next],
			 sides);
		return -1;
	}
	*value = p->values[r->next++];
	return 0;
}

int rules_replay_ply(const rules_game *game, rules_position *pos, const rules_ply *ply, rules_error *err)
{
	struct recorded rec = {ply, 0, ""};
	rules_dice dice = {recorded_roll, &rec};
	rules_outcome oc = {0};
	rules_error re = {0, ""};
	rules_move mv;
	char canon[RULES_TEXT_MAX];
	const char *seat = ply->seat >= 0 && ply->seat < game->nseats ? game->seat_names[ply->seat] : "?";

	if (ply->seat < 0 || ply->seat >= game->nseats)
		return rules_fail(err, RULES_E_DATA, "%s has no seat %d", game->title, ply->seat);
	if (game->resign && !strcmp(ply->move, "resign")) {
		if (game->resign(pos, ply->seat, &oc, &re))
			return rules_fail(err, re.code, "%s cannot resign: %s", seat, re.message);
	} else {
		int r = game->parse(pos, ply->seat, ply->move, &mv, &re);
		if (r)
			return rules_fail(err, r, "\"%s\" by %s is refused (%d): %s", ply->move, seat, r, re.message);
		game->format(pos, &mv, canon, sizeof canon);
		if (strcmp(canon, ply->move))
			return rules_fail(err, RULES_E_DATA, "\"%s\" is not canonical: the rules write it \"%s\"",
					  ply->move, canon);
		if (game->apply(pos, &mv, &dice, &oc, &re))
			return rules_fail(err, re.code, "\"%s\" by %s cannot be played: %s", ply->move, seat,
					  rec.why[0] ? rec.why : re.message);
	}
	if (rec.next != ply->nrolls)
		return rules_fail(err, RULES_E_DICE, "%d rolls recorded, the rules rolled %d", ply->nrolls, rec.next);
	return 0;
}
