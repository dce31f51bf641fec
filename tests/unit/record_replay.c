/* record_replay.c - replays a game's moves and rolls through the rules library, for the record test.
 *
 * usage: record_replay < plies.json
 *
 * Reads {"variant": id, "rules_version": n, "plies": [{"seat": name, "move": text,
 * "rolls": [[sides, value], ...]}, ...]} from standard input: the plies of a game's record
 * (docs/record.md) as tests/api/records.py read them. Plays them from the variant's start position with the
 * rules library's rules_replay_ply: each move text must be that seat's complete move, canonical
 * already; "resign" in a game that goes on without its resigner is that seat's resignation; every
 * roll the rules ask for must be the next recorded one, of the same die, and every recorded roll
 * must be used. Prints {"position": the serialized position (as the API's
 * position.notation writes it), "over", "ranks", "turn"} and exits 0; else says why on standard
 * error, naming the ply, and exits 1.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("record_replay: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* Play one ply of the record on pos, as the rules library replays a recorded ply. */
static void play(const rules_game *game, rules_position *pos, int ply, json_t *entry)
{
	const char *seat_name = json_string_value(json_object_get(entry, "seat"));
	const char *text = json_string_value(json_object_get(entry, "move"));
	json_t *rolls = json_object_get(entry, "rolls"), *roll;
	rules_error err = {0, ""};
	int seat, *sides, *values;
	size_t i;

	if (!seat_name || !text || !json_is_array(rolls))
		fail("ply %d: expected {\"seat\", \"move\", \"rolls\"}", ply);
	if ((seat = rules_seat_index(game, seat_name)) < 0 || strcmp(game->seat_names[seat], seat_name))
		fail("ply %d: %s has no seat \"%s\"", ply, game->title, seat_name);
	sides = calloc(json_array_size(rolls) + 1, sizeof *sides);
	values = calloc(json_array_size(rolls) + 1, sizeof *values);
	if (!sides || !values)
		fail("out of memory");
	json_array_foreach(rolls, i, roll) {
		sides[i] = (int)json_integer_value(json_array_get(roll, 0));
		values[i] = (int)json_integer_value(json_array_get(roll, 1));
	}
	rules_ply p = {seat, text, (int)json_array_size(rolls), sides, values};
	int r = rules_replay_ply(game, pos, &p, &err);
	free(sides);
	free(values);
	if (r)
		fail("ply %d: %s", ply, err.message);
}

int main(void)
{
	json_error_t je;
	json_t *in = json_loadf(stdin, JSON_REJECT_DUPLICATES, &je), *plies, *entry, *out, *ranks, *turn;
	rules_position *pos = NULL;
	rules_error err = {0, ""};
	rules_result res;
	size_t i;

	if (!in)
		fail("standard input is not JSON: %s", je.text);
	const rules_game *game = rules_find(json_string_value(json_object_get(in, "variant")),
					    (int)json_integer_value(json_object_get(in, "rules_version")));
	if (!game)
		fail("no such variant and rules version");
	if (!json_is_array(plies = json_object_get(in, "plies")))
		fail("expected \"plies\": [...]");
	if (game->start(NULL, &pos, &err))
		fail("no start position: %s", err.message);
	json_array_foreach(plies, i, entry)
		play(game, pos, (int)i, entry);
	char *text = game->serialize(pos);
	game->result(pos, &res);
	ranks = json_array();
	turn = json_array();
	for (int s = 0; s < game->nseats; s++) {
		json_array_append_new(ranks, json_integer(res.rank[s]));
		if (game->turn(pos) & (1u << s))
			json_array_append_new(turn, json_string(game->seat_names[s]));
	}
	out = json_pack("{s:s, s:b, s:o, s:o}", "position", text, "over", res.over, "ranks", ranks, "turn", turn);
	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	free(text);
	game->free_position(pos);
	json_decref(in);
	return 0;
}
