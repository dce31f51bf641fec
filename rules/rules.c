/* rules.c - what rules.h declares beside the games: the registry, errors and move lists. */
#include "rules.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const rules_game rules_nchess;
extern const rules_game rules_complex_allegiance;
extern const rules_game rules_civil_war;
extern const rules_game rules_civil_war_2;
extern const rules_game rules_civil_war_3;
extern const rules_game rules_conversion_chess;
extern const rules_game rules_cyvasse;

const rules_game *const rules_games[] = {
	&rules_nchess,
	&rules_complex_allegiance,
	&rules_civil_war,
	&rules_civil_war_2,
	&rules_civil_war_3,
	&rules_conversion_chess,
	&rules_cyvasse,
	NULL,
};

const rules_game *rules_find(const char *id, int version)
{
	if (!id)
		return NULL;
	for (size_t i = 0; rules_games[i]; i++) {
		const rules_game *g = rules_games[i];
		if (strcmp(g->id, id) == 0 && (version == 0 || version == g->version))
			return g;
	}
	return NULL;
}

int rules_seat_index(const rules_game *game, const char *name)
{
	for (int i = 0; i < game->nseats; i++)
		if (strcasecmp(game->seat_names[i], name) == 0)
			return i;
	return -1;
}

int rules_fail(rules_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}

void rules_move_list_push(rules_move_list *list, const rules_move *move)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 64;
		list->v = xrealloc(list->v, list->cap * sizeof *list->v);
	}
	list->v[list->n++] = *move;
}

void rules_move_list_clear(rules_move_list *list)
{
	list->n = 0;
}

void rules_move_list_free(rules_move_list *list)
{
	free(list->v);
	list->v = NULL;
	list->n = list->cap = 0;
}
