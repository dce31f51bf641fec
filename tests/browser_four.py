#!/usr/bin/env python3
"""browser_four.py - a four-player game (Complex Allegiance Chess) in four headless Chromium tabs.

Usage: browser_four.py /path/to/rookery

The game is created through the home page's form (four name fields for this
variant); each seat's link is opened in a tab of its own. The tabs play the
first two rounds of the scripted game of four_players.py by typing into the
move field, each checking that only the seat to move has the move form and
that the other tabs show the move after a reload; then East resigns through
the resign form (confirm box ticked) and all four tabs show the result with
the places.

Reuses the Browser, Tab and Server classes of browser.py (headless Chromium
over the DevTools pipe, Python standard library only). Chromium must be
installed: without it the test fails, it does not skip.
"""
import json
import os
import shutil
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blackbox  # noqa: E402
import browser  # noqa: E402  (Browser, Tab, Server)
import four_players  # noqa: E402  (the scripted game, seats, square names)

VARIANT = four_players.VARIANT
SEATS = four_players.SEATS
NAMES = ("Nadia", "Ezra", "Sofia", "Wim")
PLIES = 8                # the first two rounds of the scripted game


def board_by_square(st):
    """{square: piece letter or ''} from a tab's state, keyed 'e1' whatever the title spelling."""
    return {four_players.parse_title(title)[0]: piece for title, piece in st["board"].items()}


class FourTabsTest(unittest.TestCase):
    def setUp(self):
        self.t0 = time.monotonic()
        self.tmp = tempfile.mkdtemp(prefix="rookery-browser-four-")
        self.server = None
        self.browser = None
        self.addCleanup(self.cleanup)
        if not os.access(browser.CHROMIUM, os.X_OK):
            self.fail("%s is missing: install Debian's chromium (scripts/deps.sh)" % browser.CHROMIUM)
        self.server = browser.Server(self.tmp)
        self.assertIsNotNone(self.server.base, "server did not announce its address: %r" % self.server.lines)
        self.base = self.server.base
        self.browser = browser.Browser(self.tmp)
        self.browser.send("Browser.getVersion")
        self.tabs = {seat: self.browser.new_tab() for seat in SEATS}

    def cleanup(self):
        problems = []
        try:
            if self.browser:
                self.browser.close()
        finally:
            if self.server:
                rc = self.server.stop()
                if rc != 0:
                    problems.append("rookery exited with status %r" % rc)
                with open(os.path.join(self.tmp, "rookery.log"), errors="replace") as f:
                    log = f.read()
                problems += ["the log shows %r" % m for m in blackbox.SANITIZER_MARKS if m in log]
        if problems or os.environ.get("ROOKERY_KEEP_TMP"):
            sys.stderr.write("browser test files kept in %s\n" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
        if problems:
            sys.stderr.write(log[-4000:])
            raise AssertionError("; ".join(problems))

    def create_game(self):
        """Fill in the home page's Complex Allegiance form; return {seat: url}."""
        tab = self.tabs["North"]
        tab.goto(self.base + "/")
        form = tab.js("""(() => {
  const f = [...document.querySelectorAll('form.create')].find(f =>
    f.querySelector('input[name=variant]').value === %s);
  if (!f) return null;
  return {names: [...f.querySelectorAll('input[name^=name]')].map(i => i.name),
          labels: [...f.querySelectorAll('label')].map(l => l.textContent.trim())};
})()""" % json.dumps(VARIANT))
        self.assertIsNotNone(form, "no create form for %s on the home page" % VARIANT)
        self.assertEqual(form["names"], ["name0", "name1", "name2", "name3"])
        self.assertEqual(form["labels"], ["North (moves first)", "East", "South", "West"])
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

    def assert_waiting(self, st, seat, to_move):
        """A running game as seat's tab shows it while to_move is to move."""
        self.assertTrue(st["has_board"], st)
        self.assertEqual(len(st["board"]), 100, "10 x 10 cells")
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
        played = []
        for ply, (seat, text, canon, note) in enumerate(four_players.SCRIPT[:PLIES]):
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
            # Type the move as the script writes it and send it.
            self.tabs[seat].play(text)
            after = self.tabs[seat].state()
            self.assertIsNone(after["error"], "%s refused: %r" % (text, after["error"]))
            played.append(canon)
            self.assertEqual(after["history"], played)
            self.assertIn(canon, after["last"])
            # The other tabs, reloaded, show the move in the history and on the board.
            for s in SEATS:
                if s == seat:
                    continue
                self.tabs[s].goto(urls[s])
                seen = self.tabs[s].state()
                self.assertEqual(seen["history"], played, s)
                board = board_by_square(seen)
                self.assertEqual(board[frm], "", "%s's tab: %s still on %s after %s" % (s, piece, frm, canon))
                self.assertEqual(board[to], piece, "%s's tab: %s not on %s after %s" % (s, piece, to, canon))
        self.report("%d plies" % PLIES)

        # North is to move; East resigns meanwhile through its form: West wins (spec 7).
        self.tabs["East"].goto(urls["East"])
        st = self.tabs["East"].state()
        self.assert_waiting(st, "East", "North")
        self.tabs["East"].resign()
        want = "place 1: West place 2: North South place 4: East"
        for s in SEATS:
            self.tabs[s].goto(urls[s])
            st = self.tabs[s].state()
            self.assertIsNone(st["error"], st)
            self.assertIsNotNone(st["result"], "%s's tab shows no result" % s)
            self.assertIn("West wins: East resigned", st["result"])
            self.assertEqual(self.places(self.tabs[s]), want, s)
            self.assertIsNone(st["turn"], st)
            self.assertFalse(st["move_form"], st)
            self.assertFalse(st["move_input"], st)
            self.assertEqual(st["legal"], [])
            self.assertFalse(st["can_resign"], st)
            self.assertFalse(st["can_offer"], st)
            self.assertFalse(st["can_accept"], st)
            self.assertEqual(st["history"], played)
        self.report("resigned")

    def report(self, what):
        sys.stderr.write("  %s: %.1f s\n" % (what, time.monotonic() - self.t0))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: browser_four.py /path/to/rookery")
    browser.ROOKERY = os.path.abspath(sys.argv.pop(1))
    blackbox.ROOKERY = browser.ROOKERY
    unittest.main(verbosity=2)
