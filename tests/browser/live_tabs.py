#!/usr/bin/env python3
"""live_tabs.py - a move made in one tab reaches the other tab through the game's event stream.

Usage: live_tabs.py /path/to/rookery

Two headless Chromium tabs (tests/harness/cdp.py) open the two seats' links of an Nchess game.
Polling is made impossible: each tab blocks GET /api/games/{id} (Network.setBlockedURLs), the
address the page polls, so only the event stream (GET /api/games/{id}/events) can tell a tab of
the other's move. Each tab reports its open stream (<html data-live="open">). A move typed in one
tab must show in the other within a second (its #game replaced, no page load); when the game ends
the pages close their streams. With the event stream blocked instead, the page falls back to
polling and the move still arrives. No tab may log a console error but the blocked requests.

Python 3 standard library only. Chromium must be installed (scripts/deps.sh).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import cdp, daemon  # noqa: E402

LIVE_WITHIN = 1.0        # seconds for a move to reach the other tab through the event stream
POLL_TIMEOUT = 30.0      # ... by polling, after the stream failed a few times
LIVE_JS = "document.documentElement.getAttribute('data-live')"
STATE_JS = "(document.getElementById('game') || {getAttribute: () => ''}).getAttribute('data-state')"
BLOCKED = r"net::ERR_BLOCKED_BY_CLIENT"


class LiveTabs(cdp.BrowserTestCase):
    def open_game(self, block):
        """A new game in two tabs (South's, North's), each blocking the addresses in block."""
        g = self.api("/api/games", {"variant": "nchess", "seats": [{"name": "Sue"}, {"name": "Nat"}]})
        self.gid = g["id"]
        self.tokens = {s["seat"]: s["token"] for s in g["seats"]}
        tabs = {}
        for seat in ("South", "North"):
            tab = self.new_tab()
            tab.send("Network.enable")
            # URL patterns match whole addresses: the game's address is blocked, not its events'.
            tab.send("Network.setBlockedURLs", {"urlPatterns": [
                {"urlPattern": self.base + path % self.gid, "block": True} for path in block]})
            tab.goto(next(s["url"] for s in g["seats"] if s["seat"] == seat))
            tabs[seat] = tab
        return tabs

    def legal_move(self, seat):
        return self.api(f"/api/games/{self.gid}", token=self.tokens[seat])["legal_moves"][0]

    def test_a_move_reaches_the_other_tab_through_the_event_stream(self):
        tabs = self.open_game(["/api/games/%s"])
        for tab in tabs.values():
            tab.wait_for(LIVE_JS + " === 'open'")
        for ply, (mover, watcher) in enumerate((("South", "North"), ("North", "South"), ("South", "North"))):
            move = self.legal_move(mover)
            loads = tabs[watcher].load_count()
            tabs[mover].play(move)
            t0 = time.monotonic()
            tabs[watcher].wait_for(STATE_JS + ".startsWith('%d|')" % (ply + 1), timeout=LIVE_WITHIN, interval=0.02)
            print("ply %d reached the other tab %.0f ms after the mover's page loaded"
                  % (ply + 1, (time.monotonic() - t0) * 1000))
            self.assertEqual(tabs[watcher].load_count(), loads, "the watching tab loaded a page")
            self.assertIn(move, tabs[watcher].js("document.querySelector('ol.moves').textContent"))
        # The game ends: both pages show it, and close their streams.
        self.api(f"/api/games/{self.gid}/resign", {}, token=self.tokens["North"])
        for tab in tabs.values():
            tab.wait_for(STATE_JS + ".indexOf('|over|') >= 0", timeout=LIVE_WITHIN * 5)
            tab.wait_for(LIVE_JS + " === null")
        self.assert_no_console_errors()

    def test_without_the_event_stream_the_page_polls(self):
        tabs = self.open_game(["/api/games/%s/events"])
        move = self.legal_move("South")
        tabs["South"].play(move)
        tabs["North"].wait_for(STATE_JS + ".startsWith('1|')", timeout=POLL_TIMEOUT)
        self.assertIsNone(tabs["North"].js(LIVE_JS))
        for tab in tabs.values():
            tab.forget_console_errors(BLOCKED)
        self.assert_no_console_errors()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
