#!/usr/bin/env python3
"""complex_allegiance_clicks.py - a Complex Allegiance Chess game played to the end by clicking, in four headless Chromium tabs.

Usage: complex_allegiance_clicks.py /path/to/rookery

One tab per seat, each opened with the seat's private link (POST /api/games), every move made by
clicking as tests/harness/four_tabs.py does it. The 39-ply scripted game of
tests/harness/complex_allegiance.py (shared-pawn double steps by each controller, en passant, two
castlings, a promotion whose piece is picked from #choices), ending with the capture of North's
King. After every move: the mover's tab (reloaded by its form) shows the move last in the
history and draws the board as the API's position has it, and the squares the move changed as
the script says; the tab that acts next takes the new state by a live update (data-state
changes, no page load) and shows the same history and board; only the seat to move has the move
form. Each seat's board is drawn from its own side (its home edge is the bottom row of squares
on the screen). No tab may log a console error. Screenshots at the start, middle and end go to
$ROOKERY_ARTIFACTS (else ./screenshots).

Python standard library only. Chromium must be installed: without it the test fails.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import complex_allegiance as ca, daemon  # noqa: E402
from harness.four_tabs import LEGAL_JS, FourTabsCase  # noqa: E402

CA_MOVE = re.compile(r"^[KQRBN]?(?P<fr>[a-j]\d{1,2})[-x](?P<to>[a-j]\d{1,2})(?:=(?P<promo>[QRBN]))?$")
CA_MID = 20              # the ply of the mid-game screenshot (North has just castled)


def bottom_row_ca(seat):
    """The squares of a Complex Allegiance seat's bottom row, left to right (no corners)."""
    return [sq for sq in ca.expected_grid(seat)[9] if sq not in ca.CORNERS]


def ca_expected(game):
    """{square: (letter, side)} from a Complex Allegiance game's position (no corners)."""
    out = {}
    for sq, piece in ca.notation_squares(game["position"]["notation"]).items():
        if sq in ca.CORNERS:
            continue
        if piece is None:
            out[sq] = ("", "")
        elif piece[0] in "nesw":
            out[sq] = (piece[-1], {"n": "North", "e": "East", "s": "South", "w": "West"}[piece[0]])
        else:
            out[sq] = (piece[-1], "shared")
    return out


class ComplexAllegianceClickTest(FourTabsCase):

    def test_complex_allegiance(self):
        sys.stderr.write("  Complex Allegiance: %s\n" % self.play_complex_allegiance())
        self.report("the game")

    # ---- Complex Allegiance Chess: the scripted game ----

    def play_complex_allegiance(self):
        game = self.start_game(ca.VARIANT, ca.SEATS, ca.NAMES, bottom_row_ca)
        for s in ca.SEATS:
            game.tabs[s].screenshot("play-four-ca-start-%s" % s.lower(), full_page=True)
        for ply, (seat, _text, canon, note) in enumerate(ca.SCRIPT):
            what = "ply %d, %s %s" % (ply, seat, canon)
            choices = None
            if canon.startswith("b2-b1="):
                choices = ["b2-b1=%s" % p for p in "QRBN"]
            if ply == 26:
                legal = [m["move"] for m in game.tabs[seat].js(LEGAL_JS)]
                self.assertIn("c4xb3", legal, "en passant is offered to South")
            before = ca_expected(self.api("/api/games/%s" % game.gid))
            last = self.play(game, seat, canon, choices=choices, cancel_first=ply == 0)
            self.assertEqual(last["note"], "(%s)" % note if note else "", what)
            after = ca_expected(self.api("/api/games/%s" % game.gid))
            board = self.check_board(game, seat, after, what)
            # The move itself, from the script: the squares it changes.
            for sq, piece in ca.AFTER.get(ply, {}).items():
                self.assertEqual(board[sq], piece[-1] if piece else "", "%s: %s" % (what, sq))
            m = CA_MOVE.match(canon)
            if m:
                frm, to = m.group("fr"), m.group("to")
                self.assertEqual(board[frm], "", "%s: %s is still occupied" % (what, frm))
                self.assertEqual((board[to], board.sides[to]), (m.group("promo") or before[frm][0], before[frm][1]),
                                 "%s: %s" % (what, to))
            else:
                self.assertEqual(canon, "O-O", what)
            self.check_last(game, board, what)
            nxt = ca.SEATS[(ply + 1) % 4]
            if ply + 1 < len(ca.SCRIPT):
                w = self.witness(game, seat, nxt, what)
                self.check_board(game, w, after, what + " (live)")
                # Only the seat to move has the move form; its pieces that can move are marked.
                for s in (seat, w):
                    self.assertEqual(game.tabs[s].js("!!document.querySelector('#move-form')"), s == nxt, s)
                self.assertGreater(game.tabs[w].js("document.querySelectorAll('svg#board .movable').length"), 0)
            if ply == CA_MID:
                game.tabs[seat].screenshot("play-four-ca-mid", full_page=True)
        result, places = self.end(game, "the end", "South wins: North's King captured")
        self.assertIn("South 1st, East and West share 2nd, North 4th", result)
        for s in ca.SEATS:
            game.tabs[s].screenshot("play-four-ca-end-%s" % s.lower(), full_page=True)
            self.check_orientation(game.tabs[s], s, bottom_row_ca(s))
        final = self.api("/api/games/%s" % game.gid)
        self.assertEqual(final["status"], "over")
        self.assertEqual(final["ply"], len(ca.SCRIPT))
        self.no_console_errors(game)
        self.assertEqual(len(game.choices), 1, game.choices)
        return "%d plies, %d clicks, choices %s; %s (%.1f s)" % (
            len(game.history), game.clicks, game.choices, result, time.monotonic() - self.t_start)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
