/* test_rules.c - what every registered game must do, whatever its rules: what it says of itself
 * (one row of a table each), random games played to the end with every position and listed move
 * round-tripping through its text, replays that rebuild the same game, gestures and views that
 * hold together, damaged and tampered moves and position texts refused. The games' own rules are
 * tested in test_rules_<game>.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_check.h"

#define GAMES 8           /* random games per game */
#define PLY_CAP 4000      /* the most plies a game is played: the service's limit for four seats */

static const rules_game *G;

/* Makes g the game under test, knowing nothing of it but its interface. */
static void use(const rules_game *g)
{
	G = g;
	check_use(&(rules_check){ .game = g, .partial = 1 });
}

/* What each game says of itself; every registered game has a row. */
typedef struct game_facts {
	const char *id, *title;
	int version;
	const char *seats;          /* the seat names in turn order, as expect_game() takes them */
	int draw_rank;
	int resigns;                /* has its own resign_result (four seats: who ranks where) */
	int secrets;                /* has view_for and has_secrets (hidden setups) */
	int zero_move;              /* what apply makes of a zeroed move of seat 0 */
	const char *help[3];        /* phrases the choice help holds */
} game_facts;

static const game_facts facts[] = {
	{ "nchess", "Nchess", 1, "South North", 0, 0, 0, RULES_E_ILLEGAL,
	  { "c 5 4 9 4", " / <letter> <row> <column>" } },
	{ "complex-allegiance", "Complex Allegiance Chess", 1, "North East South West", 2, 1, 0,
	  RULES_E_ILLEGAL, { "=N" } },
	/* Civil War reads a zeroed move as South's declarations, none of them: allowed, and idle. */
	{ "civil-war", "Civil War", 1, "South West North East", 1, 1, 0, RULES_OK,
	  { "G<square>=K", "ally <seat>, break <seat>" } },
	/* Two players: no alliances, and a resignation ends the game with the other player's win. */
	{ "civil-war-2", "Civil War for two", 1, "South North", 1, 0, 0, RULES_OK,
	  { "G<square>=K", "no alliances" } },
	{ "civil-war-3", "Civil War for three", 1, "South West North", 1, 1, 0, RULES_OK,
	  { "G<square>=K", "ally <seat>, break <seat>" } },
	{ "conversion-chess", "Conversion Chess", 1, "White Black", 0, 0, 0, RULES_E_ILLEGAL,
	  { "Pe4xe5 disp(S)", "Pe6-e7 / Pe7=B" } },
	{ "cyvasse", "Nine-Tile Cyvasse", 1, "White Black", 0, 0, 1, RULES_E_ILLEGAL, { "setup default" } },
};

/* The row of facts of G. */
static const game_facts *facts_of_game(void)
{
	for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
		if (!strcmp(facts[i].id, G->id))
			return &facts[i];
	fail_msg("%s has no row of facts", G->id);
	return NULL;
}

/* ---- the registry ---- */

static void test_registry(void **state)
{
	size_t n = 0;
	(void)state;

	for (const rules_game *const *g = rules_games; *g; g++, n++) {
		use(*g);
		for (const rules_game *const *h = rules_games; h < g; h++)
			assert_string_not_equal((*h)->id, G->id);
		assert_true(G->id[0] && G->title[0]);
		assert_true(G->version >= 1);
		assert_ptr_equal(rules_find(G->id, 0), G);
		assert_ptr_equal(rules_find(G->id, G->version), G);
		assert_null(rules_find(G->id, G->version + 1));
		assert_true(strlen(G->summary) > 10);
		assert_null(strchr(G->summary, '\n'));
		assert_true(G->nseats >= 2 && G->nseats <= RULES_MAX_SEATS);
		for (int s = 0; s < G->nseats; s++) {
			assert_int_equal(rules_seat_index(G, G->seat_names[s]), s);
			for (int t = 0; t < s; t++)
				assert_string_not_equal(G->seat_names[t], G->seat_names[s]);
		}
		assert_int_equal(rules_seat_index(G, "nobody"), -1);
		assert_true(G->draw_rank >= 0 && G->draw_rank < G->nseats);
		assert_true(G->choice_help && G->legend);
		assert_true(G->start && G->free_position && G->clone && G->parse && G->format);
		assert_true(G->legal_moves && G->continuations && G->apply && G->turn && G->result);
		assert_true(G->serialize && G->deserialize && G->view && G->gesture && G->view_quarter_turns);
		assert_int_equal(G->view_for == NULL, G->has_secrets == NULL);
	}
	assert_int_equal(n, 7);
	assert_null(rules_find("no-such-game", 0));
}

/* Each game's id, title, version, seats, draw rank, hooks and choice help, as its row says. */
static void test_metadata(void **state)
{
	(void)state;

	assert_int_equal(sizeof facts / sizeof facts[0], 7);
	for (const rules_game *const *g = rules_games; *g; g++) {
		const game_facts *f;

		use(*g);
		f = facts_of_game();
		expect_game(f->id, f->title, f->version, f->seats);
		assert_int_equal(G->draw_rank, f->draw_rank);
		assert_int_equal(G->resign_result != NULL, f->resigns);
		assert_int_equal(G->view_for != NULL, f->secrets);
		assert_int_equal(G->has_secrets != NULL, f->secrets);
		for (int i = 0; i < 3 && f->help[i]; i++)
			if (!strstr(G->choice_help, f->help[i]))
				fail_msg("%s: the choice help lacks \"%s\"", G->id, f->help[i]);
	}
}

/* ---- random games ---- */

/* The drawn state holds together: cells within the board, a piece with an owner, controllers or
 * none when neutral, an empty cell with neither; holdings of known seats. */
static void check_view(const rules_position *pos)
{
	rules_view v;

	G->view(pos, &v);
	assert_true(v.rows > 0 && v.rows <= RULES_MAX_ROWS && v.cols > 0 && v.cols <= RULES_MAX_COLS);
	for (int r = 0; r < v.rows; r++)
		for (int c = 0; c < v.cols; c++) {
			const rules_cell *cell = &v.cell[r][c];
			assert_non_null(memchr(cell->piece, 0, sizeof cell->piece));
			assert_true(cell->owner >= -1 && cell->owner < G->nseats);
			if (!cell->piece[0]) {
				assert_int_equal(cell->owner, -1);
				assert_int_equal(cell->controllers, 0);
				assert_int_equal(cell->neutral, 0);
			} else if (cell->neutral) {
				assert_int_equal(cell->owner, -1);
				assert_int_equal(cell->controllers, 0);
			} else {
				assert_true(cell->owner >= 0 || cell->controllers != 0);
			}
			assert_int_equal(cell->controllers >> G->nseats, 0);
		}
	assert_true(v.nholdings >= 0 && v.nholdings <= RULES_MAX_HOLDINGS);
	for (int h = 0; h < v.nholdings; h++) {
		assert_true(v.holding[h].owner >= -1 && v.holding[h].owner < G->nseats);
		assert_true(v.holding[h].npieces >= 0 && v.holding[h].npieces <= 32);
	}
}

/* What the random games of one game met. */
typedef struct tally {
	int plies, over, gestures;
} tally;

/* After every ply: the view and the outcome's words; every tenth ply, every seat's gestures (the
 * check compares every two moves). The canonical text fits a record's ply line (docs/record.md):
 * no brace, semicolon or line break, and it does not begin or end with a space. */
static void random_ply(const rules_position *pos, int seat, const char *text, const rules_outcome *out,
		       void *ctx)
{
	tally *t = ctx;

	assert_true(text[0] && text[0] != ' ' && text[strlen(text) - 1] != ' ');
	assert_null(strpbrk(text, "{};\r\n"));
	assert_true(seat >= 0 && seat < G->nseats);
	assert_non_null(memchr(out->note, 0, sizeof out->note));
	check_view(pos);
	for (int s = 0; t->plies % 10 == 0 && s < G->nseats; s++)
		t->gestures += (int)gesture_check(G, pos, s, 1);
	t->plies++;
}

/* Random games of every game from its start to the end: every listed move of every seat
 * round-trips through its text at every ply, and each game replayed from its record reaches
 * the same position. */
static void test_random_games_to_the_end(void **state)
{
	static play_record record;
	(void)state;

	for (const rules_game *const *g = rules_games; *g; g++) {
		tally t = { 0, 0, 0 };
		random_play how = { .check = random_ply, .every = 1, .ctx = &t };

		use(*g);
		rng_seed(0x5eed0000ULL + (uint64_t)(g - rules_games));
		for (int k = 0; k < GAMES; k++) {
			rules_position *pos = start_pos();
			rules_result res;
			char *end;

			record.n = record.nrolls = 0;
			random_game(pos, PLY_CAP, &how, &record);
			G->result(pos, &res);
			t.over += res.over;
			end = G->serialize(pos);
			check_replay(&record, end);
			free(end);
			G->free_position(pos);
		}
		if (getenv("RULES_STATS"))
			fprintf(stderr, "%s: %d games, %d over, %d plies, %d gestures\n", G->id, GAMES, t.over,
				t.plies, t.gestures);
		/* Random play ends a game sooner or later, whatever the game. */
		assert_true(t.over * 2 > GAMES);
	}
}

/* ---- damaged moves and texts ---- */

/*
 * Moves no parse makes are refused in pos and change nothing: one of 0xff bytes, a legal move
 * sent by a seat that may not act now, or marked partial. A zeroed move is refused too (the
 * game's zero_move), unless the game reads it as an action of nothing, which then changes
 * nothing. format writes as much of a move's text as the buffer holds, always terminated.
 */
static void check_damaged_moves(rules_position *pos)
{
	rules_move m, first;
	rules_error err;
	rules_outcome out;
	rules_move_list l = { 0 };
	char *before = G->serialize(pos), buf[RULES_TEXT_MAX], part[RULES_TEXT_MAX];
	int seat = to_move(pos);
	size_t len;

	for (seat = seat >= 0 ? seat : 0; !(G->turn(pos) & (1u << seat)); seat++)
		;
	memset(&m, 0, sizeof m);
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), facts_of_game()->zero_move);
	expect_position(pos, before);
	memset(m.raw, 0xff, sizeof m.raw);
	m.seat = seat;
	assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_ILLEGAL);
	assert_int_equal(G->format(pos, &m, buf, sizeof buf), 0);
	assert_string_equal(buf, "");
	assert_int_equal(G->continuations(pos, &m, &l), 0);
	assert_int_equal(l.n, 0);

	assert_true(G->legal_moves(pos, seat, &l) > 0);
	first = l.v[0];
	len = G->format(pos, &first, buf, sizeof buf);
	assert_int_equal(len, strlen(buf));
	for (size_t size = 1; size <= len + 1; size++) {
		size_t want = size - 1 < len ? size - 1 : len;
		memset(part, 'x', sizeof part);
		assert_int_equal(G->format(pos, &first, part, size), want);
		assert_int_equal(strncmp(part, buf, want), 0);
		assert_int_equal(part[want], 0);
	}
	part[0] = 'x';
	assert_int_equal(G->format(pos, &first, part, 0), 0);
	assert_int_equal(part[0], 'x');

	for (int s = 0; s < G->nseats; s++) {
		if (G->turn(pos) & (1u << s))
			continue;
		m = first;
		m.seat = s;
		assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_TURN);
	}
	if (!first.partial) {
		m = first;
		m.partial = 1;
		assert_int_equal(G->apply(pos, &m, NULL, &out, &err), RULES_E_INCOMPLETE);
	}
	expect_position(pos, before);
	rules_move_list_free(&l);
	free(before);
}

/* At the start of every game, and some random plies on. */
static void test_damaged_moves(void **state)
{
	(void)state;

	for (const rules_game *const *g = rules_games; *g; g++) {
		rules_position *pos;

		use(*g);
		rng_seed(0xbad0000ULL + (uint64_t)(g - rules_games));
		pos = start_pos();
		check_damaged_moves(pos);
		random_game(pos, 12, NULL, NULL);
		if (G->turn(pos))
			check_damaged_moves(pos);
		G->free_position(pos);
	}
}

/* A die that always shows its highest face, so that a move and the legal move it is read as
 * roll alike. */
static int highest(void *ctx, int sides, int *value)
{
	(void)ctx;
	*value = sides;
	return 0;
}

static const rules_dice top = { highest, NULL };

/*
 * Changes each byte of the packed form of legal, a complete legal move in pos, in turn: to 0, 1,
 * 0xff, one up, one down, with its top bit flipped, and to two random values. apply either
 * refuses the changed move with an error and leaves the position as it was, or reads it as a
 * legal move: its text parses, for its seat, into a legal move that leaves the same position
 * and note. (A game reads only the bytes of its own move struct, and some of those only where
 * the move uses them, so the changed move need not equal a listed move byte for byte.) Returns
 * the changed moves tried.
 */
static int check_tampered(const rules_position *pos, const rules_move *legal)
{
	rules_position *work = G->clone(pos);
	rules_outcome out;
	rules_error err = { 0, "" };
	char *before = G->serialize(pos), *after, note[RULES_NOTE_MAX];
	int tried = 0;

	assert_int_equal(G->apply(work, legal, &top, &out, &err), RULES_OK);
	after = G->serialize(work);
	snprintf(note, sizeof note, "%s", out.note);
	G->free_position(work);
	work = G->clone(pos);
	for (size_t b = 0; b < RULES_MOVE_BYTES; b++) {
		unsigned char was = legal->raw[b];
		unsigned char to[8] = { 0, 1, 0xff, (unsigned char)(was + 1), (unsigned char)(was - 1),
					was ^ 0x80, (unsigned char)rng(), (unsigned char)rng() };
		for (size_t k = 0; k < sizeof to; k++) {
			rules_move m = *legal, back;
			char text[RULES_TEXT_MAX], *got;
			int rc;

			if (to[k] == was)
				continue;
			m.raw[b] = to[k];
			tried++;
			rc = G->apply(work, &m, &top, &out, &err);
			got = G->serialize(work);
			if (rc != RULES_OK) {
				if (rc > 0 || strcmp(got, before))
					fail_msg("%s: byte %zu of a legal move changed to %d: refused with %d and "
						 "the position changed", G->id, b, to[k], rc);
				free(got);
				continue;
			}
			G->format(pos, &m, text, sizeof text);
			if (G->parse(pos, m.seat, text, &back, &err) != RULES_OK)
				fail_msg("%s: byte %zu of a legal move changed to %d: applied, but its text '%s' is "
					 "no legal move: %s", G->id, b, to[k], text, err.message);
			if (memcmp(&back, legal, sizeof back)) {
				/* Read as another legal move: that move's own effect. */
				rules_outcome out2;
				rules_position *again = G->clone(pos);
				char *want;
				assert_int_equal(G->apply(again, &back, &top, &out2, &err), RULES_OK);
				want = G->serialize(again);
				assert_string_equal(got, want);
				assert_string_equal(out.note, out2.note);
				free(want);
				G->free_position(again);
			} else {
				assert_string_equal(got, after);
				assert_string_equal(out.note, note);
			}
			free(got);
			G->free_position(work);
			work = G->clone(pos);
		}
	}
	G->free_position(work);
	free(after);
	free(before);
	return tried;
}

/* Up to 12 of the complete legal moves of every seat that may act in pos, changed byte by
 * byte. */
static int check_tampered_moves(const rules_position *pos)
{
	int tried = 0;

	for (int s = 0; s < G->nseats; s++) {
		rules_move_list l = { 0 };
		size_t n = G->legal_moves(pos, s, &l), from = n > 12 ? rng() % n : 0;

		for (size_t i = 0, done = 0; i < n && done < 12; i++) {
			const rules_move *m = &l.v[(from + i) % n];
			if (!m->partial) {
				tried += check_tampered(pos, m);
				done++;
			}
		}
		rules_move_list_free(&l);
	}
	return tried;
}

/* At the start of every game, and 12 and 40 random plies on. */
static void test_tampered_moves(void **state)
{
	(void)state;

	for (const rules_game *const *g = rules_games; *g; g++) {
		rules_position *pos;
		int tried = 0;

		use(*g);
		rng_seed(0x7a3e0000ULL + (uint64_t)(g - rules_games));
		pos = start_pos();
		tried += check_tampered_moves(pos);
		random_game(pos, 12, NULL, NULL);
		tried += check_tampered_moves(pos);
		random_game(pos, 28, NULL, NULL);
		tried += check_tampered_moves(pos);
		if (getenv("RULES_STATS"))
			fprintf(stderr, "%s: %d changed moves tried\n", G->id, tried);
		assert_true(tried > 0);
		G->free_position(pos);
	}
}

/* The start position's text reads back; its every prefix, no text at all and text after it are
 * refused. No game knows an option called "variant"; no options at all are the start's. */
static void test_position_texts(void **state)
{
	(void)state;

	for (const rules_game *const *g = rules_games; *g; g++) {
		rules_position *pos;
		char *text, *longer;

		use(*g);
		pos = (rules_position *)g;
		assert_int_equal(G->start("variant", &pos, NULL), RULES_E_DATA);
		assert_null(pos);
		assert_int_equal(G->start("", &pos, NULL), 0);
		text = G->serialize(pos);
		G->free_position(pos);
		pos = start_pos();
		expect_position(pos, text);
		free(text);
		text = G->serialize(pos);
		expect_prefixes_refused(text);
		expect_corrupt(NULL);
		expect_corrupt("");
		longer = malloc(strlen(text) + 2);
		assert_non_null(longer);
		sprintf(longer, "%s ", text);
		expect_corrupt(longer);
		free(longer);
		free(text);
		G->free_position(pos);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_random_games_to_the_end),
		cmocka_unit_test(test_damaged_moves),
		cmocka_unit_test(test_tampered_moves),
		cmocka_unit_test(test_position_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
