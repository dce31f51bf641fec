#!/usr/bin/env python3
"""open_seats_clicks.py - taking an open seat from the game's page in a browser, and the game starting.

Usage: open_seats_clicks.py /path/to/rookery

Headless Chromium (tests/harness/cdp.py): Ann creates an Nchess game with North left open and
waits on her seat's page, which says that the game waits for a player and offers her no move. A
stranger comes to the home page, follows "Find a game" to /games, finds the game among the open
seats to take, opens its public page, picks North in its join form, types a name and takes the
seat: the browser lands on the new seat's page, which shows the game under way. Ann's page takes
the start by a live update (no page load) and offers her move, which she plays. No tab may log a
console error.

Python 3 standard library only. Chromium must be installed (scripts/deps.sh).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import cdp, daemon  # noqa: E402

STATE_JS = "document.getElementById('game').getAttribute('data-state')"
TEXT_JS = "document.getElementById('game').innerText"


class OpenSeatsClicks(cdp.BrowserTestCase):

    def test_join_from_the_page_and_play(self):
        g = self.api("/api/games", {"variant": "nchess", "seats": [{"name": "Ann"}, {"open": True}]})
        gid, ann_url = g["id"], g["seats"][0]["url"]
        ann = self.new_tab()
        ann.goto(ann_url)
        ann.wait_for("document.documentElement.getAttribute('data-live') === 'open'")
        self.assertIn("waits for 1 more player", ann.js(TEXT_JS))
        self.assertIsNone(ann.js("document.querySelector('input#move')"), "no move before the start")
        self.assertIsNone(ann.js("document.querySelector('form[action$=\"/join\"]')"), "Ann holds a seat")
        loads = ann.load_count()

        # A stranger finds the game: from the home page to the lists, then the game among the open ones.
        stranger = self.new_tab()
        stranger.goto(self.base + "/")
        stranger.act("document.querySelector('nav a[href=\"/games\"]').click()")
        self.assertEqual(stranger.url(), f"{self.base}/games")
        self.assertIsNone(stranger.js(f"document.querySelector('#active a[href=\"/games/{gid}\"]')"),
                          "an open game is not among the games in progress")
        self.assertIn("North: open seat", stranger.js(
            f"document.querySelector('#open a[href=\"/games/{gid}\"]').parentNode.innerText"))
        stranger.act(f"document.querySelector('#open a[href=\"/games/{gid}\"]').click()")
        self.assertEqual(stranger.url(), f"{self.base}/games/{gid}")
        self.assertEqual(stranger.js("[...document.querySelectorAll('#join-seat option')].map(o => o.value)"),
                         ["North"])
        stranger.act("""(() => {
  document.querySelector('#join-seat').value = 'North';
  const n = document.querySelector('#join-name');
  n.focus(); n.value = %s;
  n.form.querySelector('button[type=submit]').click();
})()""" % json.dumps("Ben"))
        url = stranger.url()
        self.assertIn(f"/games/{gid}?seat=", url)
        self.assertIn("You play North", stranger.js(TEXT_JS))
        self.assertNotIn("waits for", stranger.js(TEXT_JS))

        # Ann's page notices the start by itself and offers her move.
        ann.wait_for(STATE_JS + ".indexOf('|o1') < 0")
        ann.wait_for("!!document.querySelector('input#move')")
        self.assertEqual(ann.load_count(), loads, "a live update, not a page load")
        self.assertIn("Your move", ann.js(TEXT_JS))
        ann.play("S 7 1 6 1")
        self.assertEqual(self.api(f"/api/games/{gid}")["ply"], 1)
        stranger.wait_for(STATE_JS + ".split('|')[0] === '1'")

        # The game has left the open seats for the games in progress.
        stranger.goto(self.base + "/games")
        self.assertIsNone(stranger.js(f"document.querySelector('#open a[href=\"/games/{gid}\"]')"))
        self.assertIsNotNone(stranger.js(f"document.querySelector('#active a[href=\"/games/{gid}\"]')"))
        self.assert_no_console_errors()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
