/* fuzz_moves.c - every game's move parser (plus format/gesture/apply on the parsed move) and its strict
 * position reader (plus serialize/view of what it accepts). Lines of the input are played in
 * turn from the start position, so deeper positions are reached too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

static int fixed_roll(void *ctx, int sides, int *value)
{
	unsigned *n = ctx;

	if (sides <= 0)
		return -1;
	*value = (int)((*n)++ % (unsigned)sides) + 1;
	return 0;
}

static void check_view(const rules_game *g, const rules_position *pos)
{
	static rules_view view;
	rules_result res;

	g->view(pos, &view);
	if (g->view_for) {
		for (int s = -1; s < g->nseats; s++)
			g->view_for(pos, s, &view);
	}
	if (g->has_secrets)
		(void)g->has_secrets(pos);
	g->result(pos, &res);
	(void)g->turn(pos);
}

/* A parsed move's gesture stays within its bounds, with terminated strings. */
static void check_gesture(const rules_game *g, const rules_position *pos, const rules_move *mv)
{
	rules_gesture gesture;

	memset(&gesture, 0x55, sizeof gesture);
	g->gesture(pos, mv, &gesture);
	if (gesture.n < 0 || gesture.n > RULES_TOUCH_MAX || !memchr(gesture.choice, 0, sizeof gesture.choice))
		abort();
	for (int i = 0; i < gesture.n; i++)
		if (!memchr(gesture.at[i], 0, sizeof gesture.at[i]))
			abort();
}

/* Every seat's anytime moves in a position the input reached: listed moves have gestures too. */
static void check_anytime(const rules_game *g, const rules_position *pos)
{
	for (int seat = 0; g->anytime_moves && seat < g->nseats; seat++) {
		rules_move_list list = { 0 };
		g->anytime_moves(pos, seat, &list);
		for (size_t i = 0; i < list.n; i++)
			check_gesture(g, pos, &list.v[i]);
		rules_move_list_free(&list);
	}
}

/* Parse text for every seat; format and apply (on a clone) what parses. Returns the position
 * after the first move that applied, or NULL when none did. */
static rules_position *try_line(const rules_game *g, const rules_position *pos, const char *text,
				unsigned *rolls)
{
	rules_position *next = NULL;

	for (int seat = 0; seat < g->nseats; seat++) {
		rules_move mv;
		rules_error err;
		rules_outcome out;
		char buf[RULES_TEXT_MAX];
		rules_dice dice = { fixed_roll, rolls };

		memset(&mv, 0, sizeof mv);
		if (g->parse(pos, seat, text, &mv, &err) != 0)
			continue;
		g->format(pos, &mv, buf, sizeof buf);
		if (strlen(buf) >= sizeof buf)
			abort();
		check_gesture(g, pos, &mv);
		rules_position *c = g->clone(pos);
		memset(&out, 0, sizeof out);
		if (g->apply(c, &mv, &dice, &out, &err) == 0 && !next) {
			next = c;
			check_view(g, next);
			check_anytime(g, next);
		} else {
			g->free_position(c);
		}
	}
	return next;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;

	for (size_t gi = 0; rules_games[gi]; gi++) {
		const rules_game *g = rules_games[gi];
		rules_position *pos = NULL;
		rules_error err;
		unsigned rolls = 0;

		/* The whole input as a move, then line by line as a game. */
		if (g->start(NULL, &pos, &err) == 0) {
			rules_position *next = try_line(g, pos, text, &rolls);
			if (next)
				g->free_position(next);
			char *copy = strdup(text), *save = NULL;
			for (char *line = strtok_r(copy, "\n", &save); line && strchr(text, '\n');
			     line = strtok_r(NULL, "\n", &save)) {
				next = try_line(g, pos, line, &rolls);
				if (next) {
					g->free_position(pos);
					pos = next;
				}
			}
			free(copy);
			g->free_position(pos);
		}

		/* The whole input as a stored position. */
		pos = NULL;
		if (g->deserialize(text, &pos, &err) == 0) {
			char *s = g->serialize(pos);
			if (!s)
				abort();
			check_view(g, pos);
			/* What serialize writes, deserialize must read back the same. */
			rules_position *again = NULL;
			if (g->deserialize(s, &again, &err) != 0)
				abort();
			char *s2 = g->serialize(again);
			if (strcmp(s, s2) != 0)
				abort();
			free(s2);
			g->free_position(again);
			rules_position *next = try_line(g, pos, "resign", &rolls);
			if (next)
				g->free_position(next);
			free(s);
			g->free_position(pos);
		}
	}
	free(text);
	return 0;
}
