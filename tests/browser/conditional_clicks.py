#!/usr/bin/env python3
"""conditional_clicks.py - a line of conditional moves built by clicking the board in headless Chromium.

Usage: conditional_clicks.py /path/to/rookery

South, after its first Nchess move, opens "Build a line on the board" on its seat page, clicks the
reply it expects of North (the board drawn as the game stands), then its own answer (the board
drawn as North's reply would leave it), then a second level the same way, and stores the line;
the seat page lists it. North's
tab shows nothing of it. When North plays those replies, South's answers are played at once.

Uses tests/harness/cdp.py. Python 3 standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.clicks import HISTORY_JS, LEGAL_JS, ClickCase  # noqa: E402


class ConditionalClicks(ClickCase):

    def click_move(self, tab, goal):
        """Pick goal on the line editor's board by clicking its places, then confirm it."""
        legal = tab.js(LEGAL_JS)
        entry = next((m for m in legal if m["move"] == goal), None)
        self.assertIsNotNone(entry, "%s is not offered: %r" % (goal, [m["move"] for m in legal][:40]))
        self.touch(tab, entry["places"], [], goal)
        self.pick(tab, entry, goal)
        st = self.wait_picker(tab, lambda s: s["preview"] is not None, "the preview of %s" % goal)
        self.assertEqual(st["preview"], goal)
        before = tab.load_count()
        self.click(tab, "#preview [data-action=confirm]", None, None, "Add to the line")
        tab.b.wait_load(tab.session, before)
        err = tab.js("(() => { const e = document.querySelector('#error'); return e ? e.textContent : null; })()")
        self.assertIsNone(err, "%s refused: %s" % (goal, err))

    def test_build_and_store_a_line(self):
        self.choices_clicked = []
        tabs = self.new_game("nchess", ("South", "North"), ("Ann", "Ben"))
        status, _ = self.api("POST", "/api/games/%s/moves" % self.gid, {"move": "S 7 1 6 1", "ply": 0},
                             token=self.tokens["South"])
        self.assertEqual(status, 201)
        south = tabs["South"]
        south.goto("%s/games/%s?seat=%s" % (self.base, self.gid, self.tokens["South"]))
        before = south.load_count()
        self.click(south, "#build-line", None, None, "Build a line on the board")
        south.b.wait_load(south.session, before)
        self.assertIn("North", south.js("document.querySelector('.line-next').textContent"))
        # North's pieces are the ones offered: the board as the game stands.
        self.assertIn("c 1 1 2 1", [m["move"] for m in south.js(LEGAL_JS)])
        self.click_move(south, "c 1 1 2 1")
        self.assertEqual(south.board()["2 1"], "c", "the board shows North's reply played")
        self.assertIn("Your answer", south.js("document.querySelector('.line-next').textContent"))
        self.click_move(south, "S 7 3 6 3")
        self.assertEqual(south.js("document.querySelector('#store-line pre').textContent"),
                         "if c 1 1 2 1 then S 7 3 6 3\n")
        # The line goes on: North's next reply, South's answer to it.
        self.click_move(south, "m 1 3 2 4")
        self.click_move(south, "S 6 3 5 3")
        self.assertEqual(south.board()["5 3"], "S", "the board shows the whole line played")
        self.assertEqual(south.js("document.querySelector('#store-line pre').textContent"),
                         "if c 1 1 2 1 then S 7 3 6 3\n  if m 1 3 2 4 then S 6 3 5 3\n")
        south.screenshot("conditional-line")
        before = south.load_count()
        self.click(south, "#store-line button", None, None, "Store this line")
        south.b.wait_load(south.session, before)
        self.assertEqual(south.js("document.querySelector('.conditional-lines').textContent"),
                         "if c 1 1 2 1 then S 7 3 6 3\n  if m 1 3 2 4 then S 6 3 5 3\n")
        self.assertEqual(self.api("GET", "/api/games/%s/conditional" % self.gid, token=self.tokens["South"]),
                         (200, {"if": [{"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3", "next": {
                             "if": [{"moves": ["m 1 3 2 4"], "then": "S 6 3 5 3"}]}}]}))
        north = tabs["North"]
        north.goto("%s/games/%s?seat=%s" % (self.base, self.gid, self.tokens["North"]))
        self.assertNotIn("S 7 3 6 3", north.js("document.body.innerText"))
        # North plays the reply: South's answer follows at once.
        status, body = self.api("POST", "/api/games/%s/moves" % self.gid, {"move": "c 1 1 2 1", "ply": 1},
                                token=self.tokens["North"])
        self.assertEqual(status, 201, body)
        self.assertEqual(body["game"]["ply"], 3)
        status, body = self.api("POST", "/api/games/%s/moves" % self.gid, {"move": "m 1 3 2 4", "ply": 3},
                                token=self.tokens["North"])
        self.assertEqual(status, 201, body)
        south.goto("%s/games/%s?seat=%s" % (self.base, self.gid, self.tokens["South"]))
        self.assertEqual(south.js(HISTORY_JS), ["S 7 1 6 1", "c 1 1 2 1", "S 7 3 6 3", "m 1 3 2 4", "S 6 3 5 3"])
        self.assert_no_console_errors()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
