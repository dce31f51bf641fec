#!/usr/bin/env python3
"""messages_clicks.py - sending a message from the game page in a browser.

Usage: messages_clicks.py /path/to/rookery

Headless Chromium (tests/harness/cdp.py) on the seat links of a four-seat Complex Allegiance game:
North types a message of two lines into the page's box and sends it to everyone, then one to East
only; each seat's page shows what it may read, the lines kept and nothing run as markup; a
spectator's page has no messages and no box. A message half written when another seat moves stays
in the box while the page updates itself. No tab may log a console error.

Python 3 standard library only. Chromium must be installed (scripts/deps.sh).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import cdp, daemon  # noqa: E402

TEXTS_JS = "[...document.querySelectorAll('ol.messages .message-text')].map(p => p.innerText)"
STATE_JS = "document.getElementById('game').getAttribute('data-state')"


class MessagesClicks(cdp.BrowserTestCase):

    def send(self, tab, text, to):
        tab.act("""(() => {
  const t = document.querySelector('#message-text');
  t.focus(); t.value = %s;
  document.querySelector('#message-to').value = %s;
  t.form.querySelector('button[type=submit]').click();
})()""" % (json.dumps(text), json.dumps(to)))

    def test_send_from_the_page(self):
        g = self.api("/api/games", {"variant": "complex-allegiance", "seats": [{"name": n} for n in "ABCD"]})
        gid, urls = g["id"], {s["seat"]: s["url"] for s in g["seats"]}
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        north = self.new_tab()
        north.goto(urls["North"])
        self.send(north, "Hello table,\n<b>no markup</b> here", "")
        self.send(north, "East, shall we?", "East")
        self.assertEqual(north.js(TEXTS_JS), ["Hello table,\n<b>no markup</b> here", "East, shall we?"])
        self.assertIsNone(north.js("document.querySelector('ol.messages b')"), "text, not markup")
        # One more tab, for every other reader in turn (a browser opens few streams to one server).
        reader = self.new_tab()
        for seat, want in (("East", 2), ("South", 1), ("West", 1)):
            reader.goto(urls[seat])
            self.assertEqual(len(reader.js(TEXTS_JS)), want, seat)
        public = reader
        public.goto(f"{self.base}/games/{gid}")
        self.assertIsNone(public.js("document.getElementById('messages')"))
        self.assertNotIn("Hello table", public.js("document.body.innerText"))

        # A message half written survives the page's own update when North moves.
        east = reader
        east.goto(urls["East"])
        east.wait_for("document.documentElement.getAttribute('data-live') === 'open'")
        east.js("""(() => { const t = document.querySelector('#message-text'); t.focus(); t.value = 'half a tho'; })()""")
        east.js("document.querySelector('#message-to').value = 'North'")
        before = east.js(STATE_JS)
        move = self.api(f"/api/games/{gid}", token=tokens["North"])["legal_moves"][0]
        self.api(f"/api/games/{gid}/moves", {"move": move, "ply": 0}, token=tokens["North"])
        east.wait_for(STATE_JS + " !== %s" % json.dumps(before))
        self.assertEqual(east.js("document.querySelector('#message-text').value"), "half a tho")
        self.assertEqual(east.js("document.querySelector('#message-to').value"), "North")
        self.assertEqual(east.js("document.activeElement && document.activeElement.id"), "message-text")
        self.assert_no_console_errors()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
