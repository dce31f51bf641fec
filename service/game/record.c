/* record.c - a game's record as text: the format of docs/record.md, what a spectator may see. */
#include "game/record.h"
#include "core/links.h"
#include "db.h"
#include "game/clock.h"
#include "game/view.h"
#include "xalloc.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a seat's resignation or draw action reads as in the record (docs/record.md, "Actions"). */
static const char *action_words(const char *action)
{
	static const char *const words[][2] = {
		{"resign", "resigns"}, {"offer", "offers a draw"}, {"accept", "accepts the draw"},
		{"decline", "declines the draw"}, {"withdraw", "withdraws the draw offer"},
	};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(words[i][0], action))
			return words[i][1];
	return NULL;
}

/* A tag pair: [Name "value"], the value's backslashes and double quotes escaped with a backslash. */
static void tag(FILE *f, const char *name, const char *value)
{
	fprintf(f, "[%s \"", name);
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputs("\"]\n", f);
}

/* The result token: "*" while running; 1-0, 0-1 or 1/2-1/2 for two seats; else each seat's place. */
static void result_token(const game_loaded *g, char *out, size_t size)
{
	json_t *ranks = g->rec->over && g->rec->ranks ? json_loads(g->rec->ranks, 0, NULL) : NULL;
	int n = g->rules->nseats;

	snprintf(out, size, "*");
	if (json_is_array(ranks) && (int)json_array_size(ranks) == n) {
		long long a = json_integer_value(json_array_get(ranks, 0)), b = json_integer_value(json_array_get(ranks, 1));
		if (n == 2) {
			snprintf(out, size, "%s", a < b ? "1-0" : a > b ? "0-1" : "1/2-1/2");
		} else {
			size_t used = 0;
			for (int i = 0; i < n && used < size; i++)
				used += (size_t)snprintf(out + used, size - used, "%s%lld", i ? "-" : "",
							 json_integer_value(json_array_get(ranks, (size_t)i)));
		}
	}
	json_decref(ranks);
}

/* Whole seconds as PGN writes a time control: "1/<s>" a move per period, "<base>+<increment>" a bank. */
static void time_control(FILE *f, const db_clock *c)
{
	char text[64];

	if (!c || c->type == DB_CLOCK_NONE) {
		tag(f, "TimeControl", "-");
		return;
	}
	if (c->type == DB_CLOCK_PER_MOVE) {
		snprintf(text, sizeof text, "1/%lld", c->base_s);
		tag(f, "TimeControl", text);
		return;
	}
	snprintf(text, sizeof text, "%lld+%lld", c->base_s, c->increment_s);
	tag(f, "TimeControl", text);
	snprintf(text, sizeof text, "%lld", c->max_s);
	tag(f, "TimeMax", text);
}

static void tags(FILE *f, app *a, const game_loaded *g, const char *result)
{
	const db_game *rec = g->rec;
	char text[160];

	snprintf(text, sizeof text, "%s game", g->rules->title);
	tag(f, "Event", text);
	char *site = link_game(a, rec->id);
	tag(f, "Site", site);
	free(site);
	/* created_at is "YYYY-MM-DDTHH:MM:SSZ". */
	if (strlen(rec->created_at) >= 10)
		snprintf(text, sizeof text, "%.4s.%.2s.%.2s", rec->created_at, rec->created_at + 5, rec->created_at + 8);
	else
		snprintf(text, sizeof text, "????.??.??");
	tag(f, "Date", text);
	tag(f, "Variant", rec->variant);
	snprintf(text, sizeof text, "%d", rec->rules_version);
	tag(f, "RulesVersion", text);
	for (int i = 0; i < rec->nseats; i++)
		tag(f, g->rules->seat_names[rec->seats[i].seat], rec->seats[i].name);
	tag(f, "Result", result);
	tag(f, "Termination", rec->over && rec->result ? rec->result : "unterminated");
	time_control(f, g->clock);
	snprintf(text, sizeof text, "%d", rec->ply);
	tag(f, "PlyCount", text);
	snprintf(text, sizeof text, "%d", rec->dice_version);
	tag(f, "DiceVersion", text);
	tag(f, "DiceCommitment", rec->commitment);
	for (int i = 0; rec->dice_version >= 2 && i < rec->nseats; i++) {
		snprintf(text, sizeof text, "ClientSeed%s", g->rules->seat_names[rec->seats[i].seat]);
		tag(f, text, rec->seats[i].client_seed ? rec->seats[i].client_seed : "");
	}
	/* The seed is secret while the game runs (docs/api.md, "The dice record"). */
	if (rec->over) {
		char hex[DB_SEED_BYTES * 2 + 1];
		sodium_bin2hex(hex, sizeof hex, rec->seed, DB_SEED_BYTES);
		tag(f, "DiceSeed", hex);
	}
}

/* A move's rolls as " {roll d12:7 d6:3}", from the stored JSON [{"sides", "value"}...]; nothing without rolls. */
static void rolls(FILE *f, const char *dice)
{
	json_t *list = json_loads(dice ? dice : "[]", 0, NULL), *roll;
	size_t k;

	if (json_array_size(list)) {
		fputs(" {roll", f);
		json_array_foreach(list, k, roll)
			fprintf(f, " d%lld:%lld", json_integer_value(json_object_get(roll, "sides")),
				json_integer_value(json_object_get(roll, "value")));
		fputc('}', f);
	}
	json_decref(list);
}

/* A note as a comment to the end of the line: " ; note", line breaks made spaces. */
static void note(FILE *f, const char *text)
{
	if (!text || !*text)
		return;
	fputs(" ; ", f);
	for (const char *p = text; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
}

/* The lines of the actions taken when the game had ply plies, from *next on in seq order. */
static void actions_at(FILE *f, const game_loaded *g, const db_action *v, size_t n, size_t *next, int ply)
{
	for (; *next < n && v[*next].ply <= ply; ++*next) {
		const char *words = action_words(v[*next].action);
		if (words)
			fprintf(f, "{%s %s}\n", g->rules->seat_names[v[*next].seat], words);
	}
}

char *record_text(app *a, const game_loaded *g, size_t *len, app_error *err)
{
	char result[64], *out = NULL;
	db_action *actions = NULL;
	size_t nactions = 0, next_action = 0;
	db_error de;
	FILE *f = open_memstream(&out, len);
	int r = 0;

	if (!f)
		abort();
	result_token(g, result, sizeof result);
	tags(f, a, g, result);
	fputc('\n', f);
	if (db_actions_list(app_db(a), g->rec->id, &actions, &nactions, &de))
		r = app_storage_fail(err, &de);
	actions_at(f, g, actions, nactions, &next_action, 0);
	/* Page by page, by the (game, ply) key: a long game's record never holds all its rows at once. */
	for (int from = 0; !r && from < g->rec->ply; from += LIMIT_MOVES_PAGE_MAX) {
		db_move *moves;
		size_t n;
		if (db_moves_range(app_db(a), g->rec->id, from, LIMIT_MOVES_PAGE_MAX, &moves, &n, &de)) {
			r = app_storage_fail(err, &de);
			break;
		}
		for (size_t i = 0; i < n && moves[i].ply < g->rec->ply; i++) {
			const db_move *m = &moves[i];
			fprintf(f, "%d. %s: ", m->ply + 1, g->rules->seat_names[m->seat]);
			/* A secret move is no spectator's until revealed: neither its text nor its note. */
			if (m->secret) {
				fputs("{hidden}", f);
				rolls(f, m->dice);
			} else {
				fputs(m->move, f);
				rolls(f, m->dice);
				note(f, m->note);
			}
			fputc('\n', f);
			actions_at(f, g, actions, nactions, &next_action, m->ply + 1);
		}
		db_moves_free(moves, n);
		if (n < LIMIT_MOVES_PAGE_MAX)
			break;
	}
	fprintf(f, "%s\n", result);
	fclose(f);
	db_actions_free(actions, nactions);
	if (r) {
		free(out);
		return NULL;
	}
	return out;
}
