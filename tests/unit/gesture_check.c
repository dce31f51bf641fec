/* gesture_check.c - checks that legal moves can be told apart by pointing at the board. */
#include "gesture_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Whether place names a drawn cell of v or a piece in one of its holdings. */
static int place_exists(const rules_view *v, const char *place)
{
	if (place[0] == '@') {
		char piece[8];
		int h, used = 0;
		if (sscanf(place, "@%d:%7s%n", &h, piece, &used) != 2 || place[used] || h < 0 || h >= v->nholdings)
			return 0;
		for (int i = 0; i < v->holding[h].npieces; i++)
			if (!strcmp(v->holding[h].pieces[i], piece))
				return 1;
		return 0;
	}
	for (int r = 0; r < v->rows; r++)
		for (int c = 0; c < v->cols; c++) {
			char name[24];
			const rules_cell *cell = &v->cell[r][c];
			if (!strcmp(cell->kind, "off"))
				continue;
			/* An unnamed cell is called "<row label> <column label>", as the service names it. */
			if (cell->name[0])
				snprintf(name, sizeof name, "%s", cell->name);
			else
				snprintf(name, sizeof name, "%s %s", v->row_label[r], v->col_label[c]);
			if (!strcmp(name, place))
				return 1;
		}
	return 0;
}

/* A gesture as one comparable line. */
static void gesture_key(const rules_gesture *g, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < g->n; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s|", g->at[i]);
	snprintf(buf + used, size - used, "#%s", g->choice);
}

static size_t check_list(const rules_game *game, const rules_position *pos, const rules_view *v,
			 rules_move_list *list, const rules_gesture *prefix, int depth)
{
	size_t checked = 0;
	char (*keys)[RULES_TOUCH_MAX * 9 + 80] = calloc(list->n + 1, sizeof *keys);
	char text[RULES_TEXT_MAX];

	assert_non_null(keys);
	for (size_t i = 0; i < list->n; i++) {
		rules_gesture g;
		memset(&g, 0, sizeof g);
		game->gesture(pos, &list->v[i], &g);
		game->format(pos, &list->v[i], text, sizeof text);
		if (g.n < 0 || g.n > RULES_TOUCH_MAX)
			fail_msg("%s: %d places", text, g.n);
		if (g.n == 0 && !g.choice[0])
			fail_msg("%s: touches nothing and has no choice", text);
		for (int k = 0; k < g.n; k++)
			if (!place_exists(v, g.at[k]))
				fail_msg("%s: place %d \"%s\" is not on the drawn board", text, k, g.at[k]);
		if (prefix) {
			if (g.n < prefix->n)
				fail_msg("%s: shorter than its partial move", text);
			for (int k = 0; k < prefix->n; k++)
				if (strcmp(g.at[k], prefix->at[k]))
					fail_msg("%s: does not start with its partial move's places", text);
		}
		gesture_key(&g, keys[i], sizeof keys[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(keys[i], keys[j])) {
				char other[RULES_TEXT_MAX];
				game->format(pos, &list->v[j], other, sizeof other);
				fail_msg("\"%s\" and \"%s\" have the same gesture %s", text, other, keys[i]);
			}
		checked++;
		if (list->v[i].partial && depth > 0) {
			rules_move_list next = {0};
			game->continuations(pos, &list->v[i], &next);
			checked += check_list(game, pos, v, &next, &g, depth - 1);
			rules_move_list_free(&next);
		}
	}
	free(keys);
	return checked;
}

size_t gesture_check(const rules_game *game, const rules_position *pos, int seat, int depth)
{
	rules_move_list list = {0};
	rules_view *v = calloc(1, sizeof *v);
	size_t n;

	assert_non_null(v);
	assert_non_null(game->gesture);
	game->view(pos, v);
	game->legal_moves(pos, seat, &list);
	if (game->anytime_moves)
		game->anytime_moves(pos, seat, &list);
	n = check_list(game, pos, v, &list, NULL, depth);
	rules_move_list_free(&list);
	free(v);
	return n;
}

void gesture_expect(const rules_game *game, const rules_position *pos, const rules_move *move,
		    const char *text, const char *places, char sep, const char *choice)
{
	rules_gesture g;
	char joined[RULES_TOUCH_MAX * 9 + 1] = "";
	size_t len = 0;

	/* Garbage first, so that a field the hook forgets to set shows. */
	memset(&g, 0x55, sizeof g);
	game->gesture(pos, move, &g);
	assert_true(g.n >= 0 && g.n <= RULES_TOUCH_MAX);
	assert_non_null(memchr(g.choice, 0, sizeof g.choice));
	for (int i = 0; i < g.n; i++)
		len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", i ? (char[]){sep, 0} : "", g.at[i]);
	if (strcmp(joined, places) || strcmp(g.choice, choice))
		fail_msg("'%s': gesture %s (%s), want %s (%s)", text, joined, g.choice, places, choice);
}
