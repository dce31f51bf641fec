/* rules_check.c - the helpers every rules test shares (see rules_check.h). */
#include "rules_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static rules_check C;

void check_use(const rules_check *check)
{
	C = *check;
	if (!C.sep)
		C.sep = ' ';
}

/* ---- moves by their text ---- */

int to_move(const rules_position *pos)
{
	unsigned t;

	if (C.actor)
		return C.actor(pos);
	t = C.game->turn(pos);
	for (int s = 0; s < C.game->nseats; s++)
		if (t == 1u << s)
			return s;
	return -1;
}

rules_position *start_pos(void)
{
	rules_position *pos = NULL;

	assert_int_equal(C.game->start(NULL, &pos, NULL), 0);
	return pos;
}

int start_setup(void **state)
{
	*state = start_pos();
	return 0;
}

int start_teardown(void **state)
{
	C.game->free_position(*state);
	return 0;
}

int try_parse(const rules_position *pos, int seat, const char *text, rules_move *move, rules_error *err)
{
	return C.game->parse(pos, seat >= 0 ? seat : to_move(pos), text, move, err);
}

void expect_legal_by(const rules_position *pos, int seat, const char *text, const char *canon)
{
	rules_move m;
	rules_error err = { 0, "" };
	char buf[RULES_TEXT_MAX];
	int rc = try_parse(pos, seat, text, &m, &err);

	if (rc)
		fprintf(stderr, "'%s' rejected: %s\n", text, err.message);
	assert_int_equal(rc, RULES_OK);
	assert_int_equal(m.partial, 0);
	C.game->format(pos, &m, buf, sizeof buf);
	assert_string_equal(buf, canon);
}

void expect_legal(const rules_position *pos, const char *text, const char *canon)
{
	expect_legal_by(pos, -1, text, canon);
}

void expect_length_limit(const rules_position *pos, const char *text, const char *canon)
{
	char buf[2 * RULES_TEXT_MAX + 2];
	size_t n = strlen(text);

	memset(buf, ' ', sizeof buf);
	memcpy(buf + 2 * RULES_TEXT_MAX - n, text, n);
	buf[2 * RULES_TEXT_MAX] = 0;
	expect_legal(pos, buf, canon);
	/* One space more in front: a byte over the limit. */
	memset(buf, ' ', sizeof buf);
	memcpy(buf + 2 * RULES_TEXT_MAX - n + 1, text, n);
	buf[2 * RULES_TEXT_MAX + 1] = 0;
	expect_reject(pos, -1, buf, RULES_E_PARSE, "too long");
}

void expect_reject(const rules_position *pos, int seat, const char *text, int code, const char *msg)
{
	rules_move m;
	rules_error err = { 0, "" };
	int rc = try_parse(pos, seat, text, &m, &err);

	if (rc != code || !strstr(err.message, msg))
		fprintf(stderr, "'%s': got %d '%s', want %d '%s'\n", text, rc, err.message, code, msg);
	assert_int_equal(rc, code);
	assert_non_null(strstr(err.message, msg));
}

void expect_illegal(const rules_position *pos, const char *text, const char *msg)
{
	expect_reject(pos, -1, text, RULES_E_ILLEGAL, msg);
}

void expect_parse_error(const rules_position *pos, const char *text, const char *msg)
{
	expect_reject(pos, -1, text, RULES_E_PARSE, msg);
}

void play_as(rules_position *pos, int seat, const char *text, const char *canon, const char *note,
	     const rules_dice *dice, rules_outcome *outp)
{
	rules_move m;
	rules_error err = { 0, "" };
	rules_outcome out;
	char buf[RULES_TEXT_MAX];
	int rc = try_parse(pos, seat, text, &m, &err);

	if (rc)
		fprintf(stderr, "'%s' rejected: %s\n", text, err.message);
	assert_int_equal(rc, RULES_OK);
	C.game->format(pos, &m, buf, sizeof buf);
	if (canon)
		assert_string_equal(buf, canon);
	rc = C.game->apply(pos, &m, dice, &out, &err);
	if (rc)
		fprintf(stderr, "'%s' not applied: %s\n", text, err.message);
	assert_int_equal(rc, RULES_OK);
	if (note && strcmp(out.note, note))
		fprintf(stderr, "'%s': note '%s', want '%s'\n", text, out.note, note);
	if (note)
		assert_string_equal(out.note, note);
	if (outp)
		*outp = out;
}

void play(rules_position *pos, const char *text, const char *canon, const char *note)
{
	play_as(pos, -1, text, canon, note, NULL, NULL);
}

void expect_position(const rules_position *pos, const char *text)
{
	char *s = C.game->serialize(pos);

	assert_string_equal(s, text);
	free(s);
}

rules_position *position_of(const char *text)
{
	rules_position *pos = NULL;
	rules_error err = { 0, "" };
	int rc = C.game->deserialize(text, &pos, &err);

	if (rc)
		fprintf(stderr, "setup failed: %s (%s)\n", err.message, text);
	assert_int_equal(rc, 0);
	return pos;
}

void expect_grid(const rules_view *v, int rows, int cols, const char *first_row, const char *last_row,
		 const char *first_col, const char *last_col)
{
	assert_int_equal(v->rows, rows);
	assert_int_equal(v->cols, cols);
	assert_string_equal(v->row_label[0], first_row);
	assert_string_equal(v->row_label[rows - 1], last_row);
	assert_string_equal(v->col_label[0], first_col);
	assert_string_equal(v->col_label[cols - 1], last_col);
}

void expect_text_round_trip(const char *text)
{
	rules_position *pos = NULL;
	rules_error err = { 0, "" };

	if (C.game->deserialize(text, &pos, &err))
		fail_msg("position refused: %s (%s)", err.message, text);
	expect_position(pos, text);
	C.game->free_position(pos);
}

const char *expect_corrupt(const char *text)
{
	static rules_error err;
	rules_position *pos = (rules_position *)&err;   /* must be reset to NULL */
	int rc;

	err.code = 0;
	rc = C.game->deserialize(text, &pos, &err);
	if (rc != RULES_E_DATA)
		fprintf(stderr, "accepted corrupt position: %s\n", text ? text : "(null)");
	assert_int_equal(rc, RULES_E_DATA);
	assert_int_equal(err.code, RULES_E_DATA);
	assert_true(err.message[0]);
	assert_null(pos);
	return err.message;
}

void expect_prefixes_refused(const char *text)
{
	for (size_t n = 0; n < strlen(text); n++) {
		char *prefix = strndup(text, n);
		expect_corrupt(prefix);
		free(prefix);
	}
	expect_text_round_trip(text);
}

void expect_game(const char *id, const char *title, int version, const char *seats)
{
	const rules_game *g = C.game;
	char name[32];
	int n = 0;

	assert_ptr_equal(rules_find(id, 0), g);
	assert_ptr_equal(rules_find(id, version), g);
	assert_string_equal(g->id, id);
	assert_string_equal(g->title, title);
	assert_int_equal(g->version, version);
	for (const char *p = seats; *p; n++) {
		size_t len = strcspn(p, " ");
		assert_true(n < g->nseats);
		snprintf(name, sizeof name, "%.*s", (int)len, p);
		assert_string_equal(g->seat_names[n], name);
		for (char *c = name; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		assert_int_equal(rules_seat_index(g, name), n);
		p += len + (p[len] == ' ');
	}
	assert_int_equal(g->nseats, n);
}

size_t count_moves(const rules_position *pos, int seat)
{
	rules_move_list l = { 0 };
	size_t n = C.game->legal_moves(pos, seat, &l);

	assert_int_equal(n, l.n);
	rules_move_list_free(&l);
	return n;
}

void expect_turn_passed(const rules_position *pos, int mover)
{
	rules_result res;

	C.game->result(pos, &res);
	if (res.over) {
		assert_int_equal(C.game->turn(pos), 0u);
		assert_int_equal(count_moves(pos, 0), 0);
		assert_int_equal(count_moves(pos, 1), 0);
		assert_int_equal(res.rank[mover], 1);
	} else {
		assert_int_equal(C.game->turn(pos), 1u << (1 - mover));
		assert_int_equal(count_moves(pos, mover), 0);
		assert_true(count_moves(pos, 1 - mover) > 0);
	}
}

int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *listed_moves(const rules_position *pos, int seat, const char *sep)
{
	rules_move_list l = { 0 };
	char **texts, *out;
	size_t cap = 16, len = 0;

	C.game->legal_moves(pos, seat, &l);
	texts = calloc(l.n + 1, sizeof *texts);
	assert_non_null(texts);
	for (size_t i = 0; i < l.n; i++) {
		char buf[RULES_TEXT_MAX];
		C.game->format(pos, &l.v[i], buf, sizeof buf);
		texts[i] = strdup(buf);
		cap += strlen(buf) + strlen(sep);
	}
	qsort(texts, l.n, sizeof *texts, cmp_str);
	out = calloc(1, cap);
	assert_non_null(out);
	for (size_t i = 0; i < l.n; i++) {
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? sep : "", texts[i]);
		free(texts[i]);
	}
	free(texts);
	rules_move_list_free(&l);
	return out;
}

void expect_tampered(rules_position *pos, int seat, const char *text, size_t byte, int value, int code)
{
	rules_move m;
	rules_error err = { 0, "" };
	rules_outcome out;
	char *before = C.game->serialize(pos);

	assert_true(byte < sizeof m.raw);
	if (C.game->parse(pos, seat, text, &m, &err) != RULES_OK)
		fail_msg("'%s' rejected: %s", text, err.message);
	m.raw[byte] = (unsigned char)value;
	assert_int_equal(C.game->apply(pos, &m, NULL, &out, &err), code);
	expect_position(pos, before);
	free(before);
}

/* ---- dice ---- */

int script_roll(void *ctx, int sides, int *value)
{
	script *s = ctx;

	if (s->want_sides)
		assert_int_equal(sides, s->want_sides);
	s->sides = sides;
	if (s->used >= s->n)
		return -1;
	*value = s->v[s->used++];
	return 0;
}

/* ---- the listed moves ---- */

/* m formats to a text that parses back to m; a partial move's continuations too (the first of
 * each followed to the end, some others sampled). */
static void round_trip(const rules_position *pos, const rules_move *m, int depth)
{
	char buf[RULES_TEXT_MAX];
	rules_move back;
	rules_error err = { 0, "" };
	rules_move_list l = { 0 };
	int rc;

	C.game->format(pos, m, buf, sizeof buf);
	rc = C.game->parse(pos, m->seat, buf, &back, &err);
	if (rc != (m->partial ? RULES_E_INCOMPLETE : RULES_OK) || memcmp(&back, m, sizeof back) != 0)
		fail_msg("round trip of listed move '%s' fails: %d %s", buf, rc, err.message);
	if (!m->partial) {
		assert_int_equal(C.game->continuations(pos, m, &l), 0);
		return;
	}
	assert_true(C.partial);
	assert_true(C.game->continuations(pos, m, &l) > 0);
	for (size_t i = 0; i < l.n; i++)
		if (i == 0 || (depth == 0 && i % 7 == 3))
			round_trip(pos, &l.v[i], depth + 1);
	rules_move_list_free(&l);
}

void check_round_trip(const rules_position *pos, const rules_move *move)
{
	round_trip(pos, move, 0);
}

void check_round_trips(const rules_position *pos, int seat)
{
	for (int s = seat < 0 ? 0 : seat; s < (seat < 0 ? C.game->nseats : seat + 1); s++) {
		rules_move_list l = { 0 };
		C.game->legal_moves(pos, s, &l);
		if (l.n)
			assert_true(C.game->turn(pos) & (1u << s));
		for (size_t i = 0; i < l.n; i++) {
			assert_int_equal(l.v[i].seat, s);
			assert_int_equal(l.v[i].anytime, 0);
			round_trip(pos, &l.v[i], 0);
			for (size_t j = 0; j < i; j++)
				assert_int_not_equal(memcmp(&l.v[j], &l.v[i], sizeof l.v[i]), 0);
		}
		rules_move_list_free(&l);
	}
}

/* ---- gestures ---- */

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

void expect_gesture_by(const rules_position *pos, int seat, const char *text, const char *places,
		       const char *choice)
{
	rules_move m;
	rules_error err = { 0, "" };
	rules_gesture g;
	char joined[RULES_TOUCH_MAX * 9 + 1] = "";
	size_t len = 0;
	int rc = try_parse(pos, seat, text, &m, &err);

	if (rc != RULES_OK && !(C.partial && rc == RULES_E_INCOMPLETE))
		fail_msg("'%s' rejected: %s", text, err.message);
	/* Garbage first, so that a field the hook forgets to set shows. */
	memset(&g, 0x55, sizeof g);
	C.game->gesture(pos, &m, &g);
	assert_true(g.n >= 0 && g.n <= RULES_TOUCH_MAX);
	assert_non_null(memchr(g.choice, 0, sizeof g.choice));
	for (int i = 0; i < g.n; i++) {
		assert_non_null(memchr(g.at[i], 0, sizeof g.at[i]));
		len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", i ? (char[]){C.sep, 0} : "",
					g.at[i]);
	}
	if (strcmp(joined, places) || strcmp(g.choice, choice))
		fail_msg("'%s': gesture %s (%s), want %s (%s)", text, joined, g.choice, places, choice);
}

void expect_gesture(const rules_position *pos, const char *text, const char *places, const char *choice)
{
	expect_gesture_by(pos, -1, text, places, choice);
}

void gestures_along(rules_position *pos, int cap, size_t (*check)(const rules_position *pos),
		    void (*choose)(const rules_position *pos, rules_move *move, void *ctx), gesture_tally *tally)
{
	for (int ply = 0; ply < cap && C.game->turn(pos); ply++) {
		rules_move m;
		rules_error err = { 0, "" };

		tally->moves += check ? check(pos) : gesture_check(C.game, pos, to_move(pos), 2);
		tally->positions++;
		if (choose)
			choose(pos, &m, NULL);
		else
			random_move(pos, to_move(pos), &m);
		if (C.game->apply(pos, &m, NULL, NULL, &err) != RULES_OK)
			fail_msg("apply failed: %s", err.message);
	}
}

/* ---- random games ---- */

static uint64_t rng_state;

void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

void random_move(const rules_position *pos, int seat, rules_move *out)
{
	rules_move_list l = { 0 };

	assert_true(C.game->legal_moves(pos, seat, &l) > 0);
	*out = l.v[rng() % l.n];
	assert_true(C.partial || !out->partial);
	while (out->partial) {
		rules_move_list c = { 0 };
		assert_true(C.game->continuations(pos, out, &c) > 0);
		*out = c.v[rng() % c.n];
		rules_move_list_free(&c);
	}
	rules_move_list_free(&l);
}

/* The default choice: now and then an anytime move of any seat; else a move of the seat to act,
 * or of one of the seats turn() names. */
static void choose_any(const rules_position *pos, rules_move *move, void *ctx)
{
	const rules_game *g = C.game;
	unsigned t = g->turn(pos);
	int seat = to_move(pos), can[RULES_MAX_SEATS], ncan = 0;
	(void)ctx;

	if (g->anytime_moves && rng() % 8 == 0) {
		rules_move_list l = { 0 };
		if (g->anytime_moves(pos, (int)(rng() % (uint64_t)g->nseats), &l) > 0) {
			*move = l.v[rng() % l.n];
			assert_int_equal(move->anytime, 1);
			rules_move_list_free(&l);
			return;
		}
		rules_move_list_free(&l);
	}
	if (seat < 0) {
		for (int s = 0; s < g->nseats; s++)
			if (t & (1u << s) && count_moves(pos, s) > 0)
				can[ncan++] = s;
		assert_true(ncan > 0);
		seat = can[rng() % (uint64_t)ncan];
	}
	random_move(pos, seat, move);
}

void record_ply(play_record *record, int seat, const char *text, const int *rolls, int nrolls)
{
	if (!record || record->n >= RECORD_MAX)
		return;
	record->seat[record->n] = seat;
	snprintf(record->text[record->n], sizeof record->text[0], "%s", text);
	record->n++;
	for (int i = 0; i < nrolls && record->nrolls < RECORD_MAX; i++)
		record->rolls[record->nrolls++] = rolls[i];
}

typedef struct rolling {
	int sides;
	play_record *record;
} rolling;

static int random_roll(void *ctx, int sides, int *value)
{
	rolling *r = ctx;

	if (r->sides)
		assert_int_equal(sides, r->sides);
	*value = (int)(rng() % (uint64_t)sides) + 1;
	if (r->record && r->record->nrolls < RECORD_MAX)
		r->record->rolls[r->record->nrolls++] = *value;
	return 0;
}

/* What every game's position must satisfy, whoever moved. */
static void check_state(const rules_position *pos)
{
	const rules_game *g = C.game;
	rules_position *back = NULL;
	rules_result res;
	unsigned t = g->turn(pos);
	char *s = g->serialize(pos), *s2;
	int acting = 0, first = 0;

	if (g->deserialize(s, &back, NULL))
		fail_msg("position does not read back: %s", s);
	s2 = g->serialize(back);
	assert_string_equal(s, s2);
	free(s2);
	free(s);
	g->free_position(back);

	g->result(pos, &res);
	assert_int_equal(res.over, t == 0);
	for (int seat = 0; seat < g->nseats; seat++) {
		size_t n = count_moves(pos, seat);
		if (!(t & (1u << seat)))
			assert_int_equal(n, 0);
		acting += n > 0;
		if (res.over) {
			assert_true(res.rank[seat] >= 1 && res.rank[seat] <= g->nseats);
			first += res.rank[seat] == 1;
		}
	}
	if (res.over)
		assert_true(first > 0);
	else
		assert_true(acting > 0);
}

int random_game(rules_position *pos, int cap, const random_play *how, play_record *record)
{
	static const random_play plain;
	const random_play *h = how ? how : &plain;
	rolling roll = { h->sides, record };
	rules_dice dice = { random_roll, &roll };
	int ply = 0;

	while (C.game->turn(pos) && ply < cap) {
		rules_move m, back;
		rules_outcome out;
		rules_error err = { 0, "" };
		char buf[RULES_TEXT_MAX];

		if (h->every && ply % h->every == 0) {
			check_round_trips(pos, -1);
			if (h->deep && ply % (h->deep_every ? h->deep_every : h->every) == 0)
				h->deep(pos);
		}
		(h->choose ? h->choose : choose_any)(pos, &m, h->ctx);
		C.game->format(pos, &m, buf, sizeof buf);
		assert_int_equal(C.game->parse(pos, m.seat, buf, &back, &err), RULES_OK);
		assert_int_equal(memcmp(&back, &m, sizeof m), 0);
		record_ply(record, m.seat, buf, NULL, 0);
		if (C.game->apply(pos, &m, &dice, &out, &err) != RULES_OK)
			fail_msg("apply failed for %s: %s", buf, err.message);
		ply++;
		check_state(pos);
		if (h->check)
			h->check(pos, m.seat, buf, &out, h->ctx);
	}
	return ply;
}

/* Replays record's first n plies with the first nrolls of its rolls; returns the code of the first
 * apply that fails (0: none), pos left as it was before that ply. */
static int replay(rules_position *pos, const play_record *record, int n, int nrolls, int *used)
{
	script sc = { { 0 }, 0, 0, 0, 0 };
	int next = 0;

	for (int i = 0; i < n; i++) {
		rules_move m;
		rules_error err = { 0, "" };
		int rc = C.game->parse(pos, record->seat[i], record->text[i], &m, &err);
		if (rc)
			fail_msg("replay of '%s' failed: %s", record->text[i], err.message);
		/* The rolls left, as a script of at most 8 at a time. */
		sc.n = 0;
		sc.used = 0;
		for (int k = next; k < nrolls && sc.n < 8; k++)
			sc.v[sc.n++] = record->rolls[k];
		rules_dice dice = { script_roll, &sc };
		char *before = C.game->serialize(pos);
		rc = C.game->apply(pos, &m, &dice, NULL, &err);
		if (rc) {
			char *after = C.game->serialize(pos);
			assert_string_equal(before, after);
			free(after);
			free(before);
			*used = next;
			return rc;
		}
		free(before);
		next += sc.used;
	}
	*used = next;
	return 0;
}

void check_replay(const play_record *record, const char *want)
{
	rules_position *again = start_pos();
	int used;
	char *got;

	assert_int_equal(replay(again, record, record->n, record->nrolls, &used), 0);
	assert_int_equal(used, record->nrolls);
	got = C.game->serialize(again);
	assert_string_equal(got, want);
	free(got);
	C.game->free_position(again);
	if (record->nrolls == 0)
		return;
	/* Without the last roll the replay stops there, and the position stays as it was. */
	again = start_pos();
	assert_int_equal(replay(again, record, record->n, record->nrolls - 1, &used), RULES_E_DICE);
	assert_int_equal(used, record->nrolls - 1);
	C.game->free_position(again);
}
