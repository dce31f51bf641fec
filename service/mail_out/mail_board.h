/* mail_board.h - the board as an HTML table for the HTML part of mails, coloured inline as the game page draws it. */
#ifndef ROOKERY_MAIL_BOARD_H
#define ROOKERY_MAIL_BOARD_H

#include "game/game.h"

/*
 * g's board as seat sees it (view_oriented: the same board as
 * view_board_text, turned to seat's side), as an HTML fragment (malloc'd):
 * a <table> whose cells carry the page's square and piece colours in
 * inline styles (mail clients ignore stylesheets, and many show no
 * images), each square's cell with data-square, and each piece's with
 * data-piece and data-side; then the holdings off the board.
 */
char *mail_board_html(const game_loaded *g, int seat);

#endif
