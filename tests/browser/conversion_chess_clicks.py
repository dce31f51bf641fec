#!/usr/bin/env python3
"""conversion_chess_clicks.py - a whole Conversion Chess game played by clicking the drawn board in headless Chromium.

Usage: conversion_chess_clicks.py /path/to/rookery

The scripted game of tests/harness/conversion_chess.py (17 plies), clicked (tests/harness/clicks.py):
displacement with a demotion choice, assimilation, promotion instead of / before / after a move,
a compound split into the hand, a drop clicked from the hand, and a King capture. For every move
the squares it changes and both hands must be as the script says, in the mover's tab and, live,
in the other's. Screenshots at the start, the middle and the end, and one at 360 px width.

Uses tests/harness/cdp.py. Python 3 standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.clicks import LEGAL_JS, ClickCase  # noqa: E402
from harness.conversion_chess import AFTER, NAMES, SCRIPT, SEATS, VARIANT, hands_after  # noqa: E402


class ConversionChessClickTest(ClickCase):

    def test_2_conversion_chess(self):
        tabs = self.new_game(VARIANT, SEATS, NAMES)
        tabs["White"].screenshot("play-conversion-start")
        hand_clicked = False
        for i, (seat, _text, goal, _note) in enumerate(SCRIPT):
            other = "Black" if seat == "White" else "White"

            def after(tab, i=i):
                b = tab.board()
                for sq, piece in AFTER[i].items():
                    self.assertEqual(b[sq], piece or "", "ply %d (%s): %s" % (i, SCRIPT[i][2], sq))
                white, black = hands_after(i)
                self.assertEqual(sorted(h["piece"] for h in b.hands), sorted(white + black), "ply %d: the hands" % i)
            if "*" in goal:
                entry = next(m for m in tabs[seat].js(LEGAL_JS) if m["move"] == goal)
                self.assertTrue(entry["places"][0].startswith("@"), entry)
                self.assertTrue(tabs[seat].js("!!document.querySelector('#board .pc.hand[data-touch=\"%s\"]')"
                                              % entry["places"][0]), "no hand piece %s drawn" % entry["places"][0])
                hand_clicked = True
            self.play(seat, goal, after, tabs[other])
            if i == 8:
                tabs[other].screenshot("play-conversion-mid")
                self.check_phone(tabs[other], "play-conversion-360px")
        self.assertTrue(hand_clicked)
        for label in ("by displacement, N to hand", "by assimilation", "promote to R",
                      "by displacement, S and A to hand", "promote to R first, by assimilation",
                      "then promote to B"):
            self.assertIn(label, self.choices_clicked)
        self.finish("conversion", "White wins")
        self.report("conversion chess: %d plies, choices %r" % (self.ply, self.choices_clicked))


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
