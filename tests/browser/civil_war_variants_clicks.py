#!/usr/bin/env python3
"""civil_war_variants_clicks.py - the first round of Civil War for two and for three, by clicking.

Usage: civil_war_variants_clicks.py /path/to/rookery

For each variant (docs/rules/civil-war.md, Civil War for two and for three) one headless Chromium
tab per seat, each opened with the seat's private link (POST /api/games), every board drawn from
its seat's side. Each seat in turn order makes a quiet move by clicking, as
tests/harness/four_tabs.py does it; after every move the mover's tab draws the board as the API's
position has it, with the move's squares marked, and the seat acting next takes it by a live
update. In the two-player game the West and East quadrants stay empty; in the three-player game
the neutral East army is drawn in its own colour (side "neutral", with its legend chip), and its
slot never comes: after North's move South acts again. No tab may log a console error.

Python standard library only. Chromium must be installed: without it the test fails.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import civil_war as cw, daemon  # noqa: E402
from harness.four_tabs import LEGAL_JS, FourTabsCase  # noqa: E402

SEED = 20261126
def expected(game):
    """{square: (letter, side)} of the API's position; a piece of no seat is the neutral army's."""
    pos = game["position"]
    out = {}
    for i, row in enumerate(pos["board"]):
        for f, letter in enumerate(row):
            out["%s%d" % (cw.FILES[f], 15 - i)] = (letter or "", (pos["owners"][i][f] or "neutral") if letter else "")
    return out


class CivilWarVariantsClickTest(FourTabsCase):

    def first_round(self, variant, seats):
        game = self.start_game(variant, seats, cw.NAMES[:len(seats)], cw.bottom_row)
        rnd = random.Random(SEED)
        start = expected(self.api("/api/games/%s" % game.gid))
        for s in seats:
            self.check_board(game, s, start, "%s start" % variant)
        for seat in seats:
            g = self.api("/api/games/%s" % game.gid)
            self.assertEqual(g["turn"], [seat], g["position"]["notes"])
            self.wait_current(game, seat, "%s, %s to move" % (variant, seat))
            mine = self.api("/api/games/%s" % game.gid, token=game.tokens[seat])
            listed = game.tabs[seat].js(LEGAL_JS)
            self.assertEqual(listed, mine["legal"], "the page lists the API's legal moves")
            quiet = [m["move"] for m in listed if cw.ECHO.match(m["move"]) and cw.ECHO.match(m["move"])["sep"] == "-"]
            self.assertTrue(quiet, listed)
            move = rnd.choice(quiet)
            what = "%s: %s %s" % (variant, seat, move)
            self.play(game, seat, move, choices="any", cancel_first=seat == seats[0])
            after = self.api("/api/games/%s" % game.gid)
            board = self.check_board(game, seat, expected(after), what)
            self.check_last(game, board, what)
            nxt = after["turn"][0]
            self.assertEqual(nxt, seats[(seats.index(seat) + 1) % len(seats)], what)
            w = self.witness(game, seat, nxt, what)
            self.check_board(game, w, expected(after), what + " (live)")
        for s in seats:
            game.tabs[s].screenshot("play-%s-round-%s" % (variant, s.lower()), full_page=True)
        self.no_console_errors(game)
        return game, start

    def test_two_players(self):
        game, start = self.first_round("civil-war-2", ("South", "North"))
        sides = {side for _letter, side in start.values() if side}
        self.assertEqual(sides, {"South", "North"})
        self.assertFalse(any(letter for sq, (letter, _s) in start.items()
                             if cw.FILES.index(sq[0]) < 7 and int(sq[1:]) > 8), "West's quadrant is empty")
        self.report("civil-war-2, first round: %d clicks" % game.clicks)

    def test_three_players(self):
        game, start = self.first_round("civil-war-3", ("South", "West", "North"))
        self.assertEqual(start["n2"], ("K", "neutral"))
        self.assertEqual(start["l7"], ("P", "neutral"))
        for s in game.seats:
            self.assertEqual(game.tabs[s].js("document.querySelectorAll('.legend .side-neutral').length"), 1, s)
        self.report("civil-war-3, first round: %d clicks" % game.clicks)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
