#!/usr/bin/env python3
"""complex_allegiance_typed.py - a four-player game (Complex Allegiance Chess) in four headless Chromium tabs.

Usage: complex_allegiance_typed.py /path/to/rookery

The game is created by choosing it on the home page and filling in its new game form (four name
fields for this variant); each seat's link is opened in a tab of its own. The tabs play the
first two rounds of the scripted game of tests/harness/complex_allegiance.py by typing into the
move field, each checking that only the seat to move has the move form and
that the other tabs show the move after a reload; then East resigns through
the resign form (confirm box ticked) and all four tabs show the result with
the places.

The board is read from the drawn SVG (svg#board, keyed by data-square). The
first move also reaches the three other tabs by the page's live updates (no
page load). No tab may log a console error; screenshots of the start, the
middle and the end are kept as artifacts ($ROOKERY_ARTIFACTS, else ./screenshots).

Uses tests/harness/cdp.py (headless Chromium over the DevTools pipe, Python standard
library only). Chromium must be installed: without it the test fails, it does
not skip.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import cdp, complex_allegiance, daemon  # noqa: E402

VARIANT = complex_allegiance.VARIANT
SEATS = complex_allegiance.SEATS
NAMES = ("Nadia", "Ezra", "Sofia", "Wim")
PLIES = 8                # the first two rounds of the scripted game
LIVE_TIMEOUT = 10.0      # seconds for a live update to reach another tab (it polls every 3 s)


def board_by_square(st):
    """{square: piece letter or ''} from a tab's drawn board, keyed by the square's name ('e1')."""
    return dict(st["board"].items())


class FourTabsTest(cdp.BrowserTestCase):
    PREFIX = "rookery-browser-four-"

    def setUp(self):
        super().setUp()
        self.tabs = {seat: self.new_tab() for seat in SEATS}
        for tab in self.tabs.values():
            tab.set_viewport(1200, 900)

    def create_game(self):
        """Choose Complex Allegiance Chess on the home page, fill in its form; return {seat: url}."""
        tab = self.tabs["North"]
        tab.goto(self.base + "/")
        tab.act("document.querySelector('a[href=\"/new/%s\"]').click()" % VARIANT)
        self.assertEqual(tab.url(), self.base + "/new/" + VARIANT)
        form = tab.js("""(() => {
  const f = [...document.querySelectorAll('form.create')].find(f =>
    f.querySelector('input[name=variant]').value === %s);
  if (!f) return null;
  return {names: [...f.querySelectorAll('input[name^=name]')].map(i => i.name),
          labels: [...f.querySelectorAll('label')].map(l => l.textContent.trim())};
})()""" % json.dumps(VARIANT))
        self.assertIsNotNone(form, "no create form for %s on its new game page" % VARIANT)
        self.assertEqual(form["names"], ["name0", "name1", "name2", "name3"])
        self.assertEqual(form["labels"], ["North (moves first)", "leave open for anyone to join", "East",
                                          "leave open for anyone to join", "South", "leave open for anyone to join",
                                          "West", "leave open for anyone to join", "Time control",
                                          "Days per move, or in the bank", "Bank: days added after each move",
                                          "Bank: the most days it may hold"])
        tab.act("""(() => {
  const f = [...document.querySelectorAll('form.create')].find(f =>
    f.querySelector('input[name=variant]').value === %s);
  const names = %s;
  names.forEach((n, i) => { f.querySelector('input[name=name' + i + ']').value = n; });
  f.querySelector('button[type=submit]').click();
})()""" % (json.dumps(VARIANT), json.dumps(NAMES)))
        links = tab.js("""[...document.querySelectorAll('ul.links li')].map(li => ({
  seat: li.querySelector('strong').textContent, text: li.textContent,
  url: li.querySelector('a').href}))""")
        self.assertEqual([l["seat"] for l in links], list(SEATS), links)
        for link, name in zip(links, NAMES):
            self.assertIn("(%s)" % name, link["text"])
            self.assertTrue(link["url"].startswith(self.base + "/games/"), link["url"])
            self.assertIn("?seat=", link["url"])
        self.assertEqual(len({l["url"] for l in links}), 4)
        return {l["seat"]: l["url"] for l in links}

    def places(self, tab):
        return tab.js("""(() => { const p = document.querySelector('p.places');
  return p ? p.textContent.replace(/\\s+/g, ' ').trim() : null; })()""")

    def wait_live(self, tab, data_state, what):
        """tab's page, left alone, takes the new state by a live update (no page load)."""
        loads = tab.load_count()
        try:
            tab.wait_for("(document.querySelector('#game') || {getAttribute: () => ''})"
                         ".getAttribute('data-state') === %s" % json.dumps(data_state), timeout=LIVE_TIMEOUT)
        except cdp.WaitTimeout:
            self.fail("%s: no live update within %.0f s (data-state %r, want %r)" % (
                what, LIVE_TIMEOUT, tab.js("document.querySelector('#game') && "
                                           "document.querySelector('#game').getAttribute('data-state')"),
                data_state))
        self.assertEqual(tab.load_count(), loads, "%s: the tab loaded a page instead of updating itself" % what)
        return tab.state()

    def assert_waiting(self, st, seat, to_move):
        """A running game as seat's tab shows it while to_move is to move."""
        self.assertTrue(st["has_board"], st)
        # 10 x 10 but for the four corners, which do not exist and are not drawn.
        board = board_by_square(st)
        self.assertEqual(len(board), 96, sorted(board))
        for corner in ("a1", "j1", "a10", "j10"):
            self.assertNotIn(corner, board)
        self.assertIsNone(st["result"], st)
        self.assertIsNone(st["error"], st)
        if seat == to_move:
            self.assertIn("Your move", st["turn"])
            self.assertTrue(st["move_form"], "%s is to move and has no move form" % seat)
            self.assertTrue(st["move_input"], st)
            self.assertTrue(st["legal"], "no legal moves listed for %s" % seat)
        else:
            self.assertNotIn("Your move", st["turn"])
            self.assertIn("You play %s" % seat, st["turn"])
            self.assertIn("Waiting for %s (%s) to move" % (to_move, NAMES[SEATS.index(to_move)]), st["turn"])
            self.assertFalse(st["move_form"], "%s is not to move but has the move form" % seat)
            self.assertFalse(st["move_input"], st)
            self.assertEqual(st["legal"], [])
        self.assertTrue(st["can_resign"], st)

    def test_four_tabs(self):
        urls = self.create_game()
        for seat in SEATS:
            self.tabs[seat].goto(urls[seat])
        # The shared pawns are drawn in the shared colour in every tab.
        for seat in SEATS:
            board = self.tabs[seat].board()
            by_square = {name: name for name in board}
            shared = sorted(sq for sq, name in by_square.items() if board.sides[name] == "shared")
            self.assertEqual(shared, ["b2", "b9", "i2", "i9"], seat)
            for sq in shared:
                self.assertEqual(board[by_square[sq]], "P", (seat, sq))
        self.tabs["North"].screenshot("browser-four-start-north", full_page=True)
        self.tabs["East"].screenshot("browser-four-start-east", full_page=True)
        played = []
        for ply, (seat, text, canon, note) in enumerate(complex_allegiance.SCRIPT[:PLIES]):
            # Every tab: only the seat to move has the move form.
            states = {s: self.tabs[s].state() for s in SEATS}
            for s in SEATS:
                self.assert_waiting(states[s], s, seat)
                self.assertEqual(states[s]["history"], played)
            self.assertEqual(states[seat]["ply"], str(ply))
            before = board_by_square(states[seat])
            frm, to = canon.split("-")[0][-2:], canon.split("-")[1]
            piece = before[frm]
            self.assertTrue(piece, "%s: no piece on %s" % (canon, frm))
            places = [p for p in states[seat]["legal_places"][states[seat]["legal"].index(canon)].split("|")
                      if p] if canon in states[seat]["legal"] else []
            # Type the move as the script writes it and send it.
            self.tabs[seat].play(text)
            after = self.tabs[seat].state()
            self.assertIsNone(after["error"], "%s refused: %r" % (text, after["error"]))
            played.append(canon)
            self.assertEqual(after["history"], played)
            self.assertIn(canon, after["last"])
            self.assertTrue(after["data_state"].startswith("%d|running|" % (ply + 1)), after["data_state"])
            if places:
                # The move's places are outlined as the last move's.
                self.assertLessEqual(set(places), set(after["board"].last),
                                     "%s touched %r; the squares marked last are %r" %
                                     (canon, places, after["board"].last))
            if ply + 1 == PLIES // 2:
                self.tabs[seat].screenshot("browser-four-midgame", full_page=True)
            # The other tabs show the move in the history and on the board: by live updates
            # after the first move (no page load), after a reload for the others.
            for s in SEATS:
                if s == seat:
                    continue
                if ply == 0:
                    seen = self.wait_live(self.tabs[s], after["data_state"], "%s's tab after %s" % (s, canon))
                    self.assertEqual(dict(seen["board"]), dict(after["board"]), s)
                else:
                    self.tabs[s].goto(urls[s])
                    seen = self.tabs[s].state()
                self.assertEqual(seen["history"], played, s)
                board = board_by_square(seen)
                self.assertEqual(board[frm], "", "%s's tab: %s still on %s after %s" % (s, piece, frm, canon))
                self.assertEqual(board[to], piece, "%s's tab: %s not on %s after %s" % (s, piece, to, canon))
        self.report("%d plies" % PLIES)

        # North is to move; East resigns meanwhile through its form: West wins
        # (docs/rules/complex-allegiance.md, End of the game; house ruling 12).
        self.tabs["East"].goto(urls["East"])
        st = self.tabs["East"].state()
        self.assert_waiting(st, "East", "North")
        self.tabs["East"].resign()
        want = "place 1: West place 2: North South place 4: East"
        for s in SEATS:
            self.tabs[s].goto(urls[s])
            st = self.tabs[s].state()
            self.assertIsNone(st["error"], st)
            self.assert_over(st, "West wins: East resigned")
            self.assertEqual(self.places(self.tabs[s]), want, s)
            self.assertEqual(st["history"], played)
            self.tabs[s].screenshot("browser-four-end-%s" % s.lower(), full_page=True)
        self.assert_no_console_errors()
        self.report("resigned")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
