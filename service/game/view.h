/* view.h - a game as JSON: the one description the API, the pages and mails are built from. */
#ifndef ROOKERY_VIEW_H
#define ROOKERY_VIEW_H

#include "game/game.h"

#include <jansson.h>

/*
 * The position as viewer (a seat, or -1) may see it, as JSON: labels, board
 * rows (as drawn, first seat's view), cell kinds, holdings, notes; the
 * one-line notation unless the game holds secrets.
 */
json_t *view_position(const game_loaded *g, int viewer);

/* A stored move's text as viewer may see it: a secret move of another seat is hidden. */
const char *view_move_text(const db_move *m, int viewer);

/*
 * The drawable state as seat sees it (what it may see, in games with secrets): rotated so that seat's side is at the
 * bottom (seat -1: as the first seat sees it). Holdings keep their anchors
 * in the rotated grid.
 */
void view_oriented(const game_loaded *g, int seat, rules_view *out);

/* What anyone may see (a spectator's view: no seat's secrets), turned as view_oriented turns it for side. */
void view_oriented_public(const game_loaded *g, int side, rules_view *out);

/* The board as plain text from seat's side, with coordinates and the holdings, for mails. */
char *view_board_text(const game_loaded *g, int seat);

/*
 * A legal move of g->pos as JSON: {"move": canonical text, "places": the
 * squares it touches on the drawn board, "choice": what else tells it apart,
 * in words, "partial": whether it still needs continuations}.
 */
json_t *view_move_option(const game_loaded *g, const rules_move *mv);

/* Seat names of a mask, as a JSON array. */
json_t *view_seat_list(const rules_game *rules, unsigned mask);

/*
 * The public state of a game: id, variant, status, ply, turn, position,
 * result, draw offer, dice commitment and version, whether client seeds are
 * still open, seats (names and client seeds), the game's "version", and
 * last its "clock" (view_clock at the present time). With seat >= 0
 * (the viewer holds that seat) also "seat", "legal_moves" (texts) and
 * "legal" (the same moves as view_move_option gives them, then the moves
 * the seat may make at any time, such as alliance declarations).
 */
json_t *view_game(const game_loaded *g, int seat);

/*
 * view_game without its "clock", the one part that changes with time: a
 * function of the stored game alone, which a cache keeps by version
 * (view_served.h adds the clock when it serves it).
 */
json_t *view_game_timeless(const game_loaded *g, int seat);

/* Whether the game's seats may still set their client seeds: v2 dice, running, no roll yet. */
int view_client_seeds_open(const game_loaded *g);

/*
 * One page of a game's moves as viewer sees them, plies from .. from +
 * limit - 1 (read by key, never the whole history): {"moves": [{"ply",
 * "seat", "move", "note", "at", "dice", "hidden", "places"}...], "plies":
 * the game's ply count, "from", "limit", "next": the from of the next page,
 * or null after the last}.
 */
json_t *view_moves(app *a, const game_loaded *g, int viewer, int from, int limit, app_error *err);

/* Dice record of the plies of one page (as view_moves): version, commitment, client seeds, rolls, the seed once the game is over. */
json_t *view_dice(app *a, const game_loaded *g, int from, int limit, app_error *err);

/*
 * A game's clock as the API shows it at now: {"type", "days", ("increment_days",
 * "max_days" for a bank), "seats": [{"seat", "remaining_s", "deadline" (ISO
 * 8601 UTC or null when the game does not wait for it), "vacation_until"}]},
 * or JSON null for a game without one.
 */
json_t *view_clock(const game_loaded *g, long long now);

/* The same for a clock c of a game of these rules (NULL: JSON null). */
json_t *view_clock_of(const rules_game *rules, const db_clock *c, long long now);

#endif
