/* engine.h - the scaffolding every game's engine shares: moves packed into rules_move, the move
 * generator's tally, outcome notes, reading stored positions (and their errors), flat positions. */
#ifndef ROOKERY_ENGINE_H
#define ROOKERY_ENGINE_H

#include "rules.h"

/*
 * A game's own move struct m (size bytes, at most RULES_MOVE_BYTES) as a rules_move of seat:
 * everything else zeroed (not partial, not anytime), so that two equal moves compare equal with
 * memcmp as long as the game zeroes its own struct before filling it.
 */
void engine_pack(rules_move *move, const void *m, size_t size, int seat);

/*
 * The opening of a game's format: with room in buf (size > 0), buf emptied and move unpacked into
 * m (m_size bytes), 0; with no room, -1 and nothing written. The caller then checks m is well
 * formed before writing it.
 */
int engine_format_open(const rules_move *move, void *m, size_t m_size, char *buf, size_t size);

/* The game's move struct (size bytes) out of move. Copied rather than cast: raw has no declared
 * struct type, so this keeps the access clean under strict aliasing. */
void engine_unpack(const rules_move *move, void *m, size_t size);

/* The most bytes a game's scanned text (its struct between scan and check) may take. */
#define ENGINE_SCAN_BYTES 1024

/*
 * How a game reads a move's text, in the steps every game's parse takes: the grammar first (scan,
 * nothing about the position), then whether seat may act at all (check_turn), then the scanned
 * text against the position (check), which fills the game's move struct. The first step to fail
 * decides the error. apply() checks a stored move the same way, from the text it reads back from
 * (unscan).
 */
typedef struct engine_reader {
	size_t scan_size;       /* the game's scanned struct, at most ENGINE_SCAN_BYTES */
	size_t move_size;       /* the game's move struct, at most RULES_MOVE_BYTES */
	int (*scan)(const char *text, void *s, rules_error *err);
	/* NULL when check does it, or when any seat may act at any time. */
	int (*check_turn)(const rules_position *pos, int seat, rules_error *err);
	/* Fills m. RULES_E_INCOMPLETE: m is a legal start that still lacks a choice. */
	int (*check)(const rules_position *pos, int seat, const void *s, void *m, rules_error *err);
	/* Whether the scanned text may be sent outside seat's turn; NULL: never. */
	int (*anytime)(const void *s);
	/* The scanned text a stored move m reads back from; nonzero when m is malformed. NULL in a
	 * game that checks its stored moves its own way. */
	int (*unscan)(const void *m, void *s);
} engine_reader;

/*
 * parse() through r: move zeroed, for seat (marked anytime as soon as r->anytime says so, even
 * when a later step fails), then filled with the checked move, packed, and marked partial when
 * check found it incomplete. Returns 0 or the error of the first step that failed.
 */
int engine_parse(const engine_reader *r, const rules_position *pos, int seat, const char *text,
		 rules_move *move, rules_error *err);

/*
 * What apply() checks of a stored move once seat may act: move not partial (RULES_E_INCOMPLETE),
 * then unpacked into m (r->move_size bytes) and read back through r->unscan and r->check, which
 * must make the very same move of it (RULES_E_ILLEGAL "malformed move" otherwise). Returns 0 or
 * the first error.
 */
int engine_recheck(const engine_reader *r, const rules_position *pos, const rules_move *move,
		   void *m, rules_error *err);

/* The text after tag, with which every position the game writes starts; NULL when text is NULL or
 * starts otherwise, with RULES_E_DATA and "not <a_title> position" (a_title: "a Cyvasse"). */
const char *engine_position_body(const char *text, const char *tag, const char *a_title,
				 rules_error *err);

/* The seat whose letter ch is in letters (one a seat, in seat order); -1 for NUL or another. */
int engine_seat_of_letter(const char *letters, char ch);

/* A seat's letter from letters, or '-' for no seat (-1), then ':', at *pp in a stored position:
 * the seat in *seat and *pp past the ':', 0; -1 when the text is otherwise. */
int engine_read_seat_field(const char **pp, const char *letters, int *seat);

/* The seat letters from letters at *pp, strictly in seat order: their mask in *mask (0 when none
 * stands there) and *pp past them, 0; -1 when a letter is out of order. */
int engine_read_seat_set(const char **pp, const char *letters, unsigned *mask);

/* What gesture() does first: out emptied and move unpacked into m (r->move_size bytes); nonzero
 * when m is malformed, as r->unscan (not NULL) finds it, and there is nothing to point at. */
int engine_gesture_open(const engine_reader *r, const rules_move *move, void *m,
			rules_gesture *out);

/* A move generator's state: whose moves, in which position, and where they go. */
typedef struct engine_gen {
	const rules_position *pos;
	int seat;
	rules_move_list *out;   /* NULL: only find out whether any move exists */
	size_t count;           /* moves found so far */
} engine_gen;

/* Runs gen_all, a game's generator of every move of g->seat, for seat in pos: the number of moves
 * appended to out or, with out NULL, whether seat has a move at all (1 or 0). */
size_t engine_generate(int (*gen_all)(engine_gen *g), const rules_position *pos, int seat,
		       rules_move_list *out);

/*
 * One move found: counted, and appended to g->out (packed for g->seat, marked partial when
 * partial is set). Returns 1 when g only asks whether a move exists (g->out NULL, nothing
 * appended), so the generator stops there; 0 otherwise.
 */
int engine_push(engine_gen *g, const void *m, size_t size, int partial);

/* Appends the printf-style text to outcome's note (outcome may be NULL), after "; " when the
 * note holds something already. What does not fit is cut. */
void engine_note(rules_outcome *outcome, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* RULES_E_DATA, with "corrupt <title> position: <what>". */
int engine_corrupt(rules_error *err, const char *title, const char *what);

/*
 * What start() does first in a game whose position is one flat struct of size bytes and which
 * takes no options: a new position of zero bytes, in *out and returned, for the game to set up.
 * Options other than NULL or "" fail instead: NULL in *out and returned, and RULES_E_DATA with
 * "<title> takes no options".
 */
rules_position *engine_start(const char *options, const char *title, size_t size,
			     rules_position **out, rules_error *err);

/* free_position() for a flat position. */
void engine_free_flat(rules_position *pos);

/* continuations() for a game whose moves are never partial: there are none. */
size_t engine_no_continuations(const rules_position *pos, const rules_move *partial,
			       rules_move_list *out);

/* What format() returns: text copied into buf (size bytes, cut to fit when longer, always
 * NUL-terminated when size > 0) and the length copied. */
size_t engine_text_out(const char *text, char *buf, size_t size);

#endif
