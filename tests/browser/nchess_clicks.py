#!/usr/bin/env python3
"""nchess_clicks.py - whole Nchess games played by clicking the drawn board in headless Chromium.

Usage: nchess_clicks.py /path/to/rookery

The release line of tests/harness/nchess.py, clicked (tests/harness/clicks.py): captures choosing
the prison (the "to prison 4" / "to prison 6" buttons), then a capture on a prison square that
frees a prisoner: a partial move, completed by clicking the square where the prisoner goes
(play.js asks /check for the continuations); it ends with a General capture (18 plies). For
every move the pieces and the prisoners shown at the foot of the prison squares must be where the
move put them, in the mover's tab and, live, in the other's. Screenshots at the start, the
middle and the end, and one at 360 px width (the board must fit, without horizontal scrolling).
A second test plays Nchess's first move with the keyboard alone (arrow keys, Enter).

Uses tests/harness/cdp.py. Python 3 standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, nchess  # noqa: E402
from harness.clicks import HISTORY_JS, ClickCase, move_text  # noqa: E402

# Nchess: RELEASE_LINE (captures into a chosen prison; North's Archer ends on [7 8] next to
# South's prison [9 6], which holds a North Soldier and South's Knight), then the Archer captures
# the Knight on the prison square into North's prison 4 and so frees the Soldier, placed on
# [3 9]; one quiet South move, and the Archer takes the General on [9 5].
NCHESS = nchess.RELEASE_LINE + [
    "a 7 8 9 6 4 / s 3 9",      # a capture into prison 4 that releases s: placed on [3 9]
    "S 7 1 6 1",
    "a 9 6 9 5",                # the General captured: North wins
]
NCHESS_SEATS = ("South", "North")
# Prisoners shown at the foot of prison squares (Board.held), after a ply: the next released first.
NCHESS_HELD = {8: {"9 6": "s"}, 9: {"1 4": "A"}, 13: {"1 4": "S A"}, 15: {"1 4": "N S A"}}


class NchessClickTest(ClickCase):

    def test_1_nchess(self):
        tabs = self.new_game("nchess", NCHESS_SEATS, ("Ann", "Ben"))
        tabs["South"].screenshot("play-nchess-start")
        for i, goal in enumerate(NCHESS):
            seat, other = NCHESS_SEATS[i % 2], NCHESS_SEATS[(i + 1) % 2]
            parts = goal.split(" / ")
            f = parts[0].split()
            letter, frm, to = f[0], "%s %s" % (f[1], f[2]), "%s %s" % (f[3], f[4])

            def after(tab, i=i, letter=letter, frm=frm, to=to, parts=parts):
                b = tab.board()
                self.assertEqual(b[frm], "", "ply %d: [%s] is not empty" % (i, frm))
                self.assertEqual(b[to], letter, "ply %d: [%s]" % (i, to))
                for p in parts[1:]:
                    pl, r, c = p.split()
                    self.assertEqual(b["%s %s" % (r, c)], pl, "ply %d: the released %s" % (i, pl))
                for sq, held in NCHESS_HELD.get(i, {}).items():
                    self.assertEqual(" ".join(b.held.get(sq, "").split()), held, "ply %d: prisoners on [%s]" % (i, sq))
                if i == 15:
                    self.assertNotIn("9 6", b.held, "the released prison is empty")
            self.play(seat, goal, after, tabs[other])
            if i == 8:
                tabs[other].screenshot("play-nchess-mid")
                self.check_phone(tabs[other], "play-nchess-360px")
        self.assertIn("to prison 4", self.choices_clicked)
        self.assertIn("to prison 6", self.choices_clicked)
        self.assertGreaterEqual(self.continuations, 1, "no release was completed by clicking")
        self.finish("nchess", "North wins")
        self.report("nchess: %d plies, choices %r, %d placement(s) clicked"
                    % (self.ply, sorted(set(self.choices_clicked)), self.continuations))

    def test_4_keyboard(self):
        """Nchess's first move with the keyboard: arrows to the piece, Enter, arrows, Enter, Enter."""
        tabs = self.new_game("nchess", NCHESS_SEATS, ("Kay", "Lee"))
        tab = tabs["South"]
        tab.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        start = tab.js("(() => { const e = document.querySelector('#board [data-touch][tabindex=\"0\"]');"
                       " e.focus(); return document.activeElement === e ? e.getAttribute('data-touch') : null; })()")
        self.assertIsNotNone(start, "the board has no focusable square")
        goal, frm, to = "S 7 5 6 5", "7 5", "6 5"
        self.key_to(tab, frm)
        self.press(tab, "Enter")
        st = self.wait_picker(tab, lambda s: frm in s["selected"], "Enter on [%s]" % frm)
        self.assertIn(to, st["target"])
        self.key_to(tab, to)
        self.press(tab, "Enter")
        st = self.wait_picker(tab, lambda s: s["preview"] is not None, "Enter on [%s]" % to)
        self.assertEqual(st["preview"], goal)
        self.assertEqual(tab.js("document.activeElement.getAttribute('data-action')"), "confirm")
        before, other = tab.load_count(), tabs["North"].load_count()
        self.press(tab, "Enter")
        tab.b.wait_load(tab.session, before)
        self.ply = 1
        self.assertEqual([move_text(h) for h in tab.js(HISTORY_JS)], [goal])
        self.assertEqual((tab.board()[frm], tab.board()[to]), ("", "S"))
        self.wait_live(tabs["North"], 1, other)
        self.assertEqual([move_text(h) for h in tabs["North"].js(HISTORY_JS)], [goal])
        tab.screenshot("play-keyboard")
        self.assert_no_console_errors()
        self.report("keyboard: %s from [%s]" % (goal, start))


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
