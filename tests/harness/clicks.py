"""harness.clicks - two-seat games played by clicking the drawn board in headless Chromium, one tab a seat.

ClickCase (a cdp.BrowserTestCase) creates a game over the API and opens each seat's link in a tab
of its own; play() makes a move as a player makes it: real mouse clicks (Input.dispatchMouseEvent
at the element's centre, hit-tested first) on the squares of svg#board, on the pieces in hand, on
the choice buttons (#choices), on the buttons of moves that touch nothing (#actions) and on "Play
this move". The page's list of legal moves (#legal-list code[data-move][data-places][data-choice]
[data-partial]) and GET /api/games/{id}/check (for the continuations of a partial move) are read to
decide where to click, never to act. press() and key_to() act by keyboard.

After every move the mover's page (reloaded by the form) and the other seat's page (updated live
by its polling, without a page load) must both show the move last in the history.

Python 3 standard library and harness.cdp.
"""
import json
import time
import urllib.parse

from harness import cdp

LIVE_TIMEOUT = 15.0      # a live update reaches another tab within ~3 s (it polls every 3 s)
STEP_TIMEOUT = 10.0      # a click's effect on the page (highlights, buttons, the preview)

LEGAL_JS = r"""[...document.querySelectorAll('#legal-list code[data-move]')].map(c => ({
  move: c.getAttribute('data-move'),
  places: c.getAttribute('data-places') ? c.getAttribute('data-places').split('|') : [],
  choice: c.getAttribute('data-choice') || '',
  partial: c.getAttribute('data-partial') === '1'}))"""

# The picker's state: what is highlighted, the choice buttons, the preview.
PICKER_JS = r"""(() => {
  const q = s => document.querySelector(s);
  const touches = cls => [...document.querySelectorAll('#board [data-touch].' + cls)].map(e => e.getAttribute('data-touch'));
  const preview = q('#preview');
  return {
    movable: touches('movable'), selected: touches('selected'), target: touches('target'),
    choices: [...document.querySelectorAll('#choices button[data-choice]')].map(b => ({
      move: b.getAttribute('data-choice'), text: b.textContent.trim()})),
    actions: [...document.querySelectorAll('#actions button[data-choice]')].map(b => ({
      move: b.getAttribute('data-choice'), text: b.textContent.trim()})),
    preview: preview && !preview.hidden ? q('#preview-move').textContent : null,
    preview_choice: preview && !preview.hidden ? q('#preview-choice').textContent : null,
    hint: q('#pick-hint') ? q('#pick-hint').textContent : null,
    picker: !!q('#picker') && !q('#picker').hidden,
  };
})()"""

HISTORY_JS = "[...document.querySelectorAll('ol.moves li code')].map(c => c.textContent)"

# Scroll an element into view and say where its centre is and what a click there would hit.
# The element: sel, optionally the one whose attribute attr equals value.
LOCATE_JS = r"""((sel, attr, value) => {
  const el = [...document.querySelectorAll(sel)].find(e => attr === null || e.getAttribute(attr) === value);
  if (!el) return {found: false};
  el.scrollIntoView({block: 'center', inline: 'center'});
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {found: true, x: x, y: y, w: r.width, h: r.height,
          hits: !!hit && (hit === el || el.contains(hit)),
          hit: hit ? hit.tagName + (hit.getAttribute('class') ? '.' + hit.getAttribute('class') : '') +
            (hit.closest('[data-touch]') ? ' in [data-touch=' + hit.closest('[data-touch]').getAttribute('data-touch') + ']' : '') : null};
})"""


def move_text(entry):
    """A history entry's move without a trailing note in parentheses."""
    return entry.split(" (")[0] if entry.endswith(")") and " (" in entry and not entry.startswith("setup") else entry


class ClickCase(cdp.BrowserTestCase):
    """Two-seat games played by clicking, one tab a seat (self.tabs); self.ply counts the plies."""
    PREFIX = "rookery-browser-play-"
    maxDiff = None

    # -----------------------------------------------------------------------------------------
    # Setting up

    def api(self, method, path, body=None, token=None):
        """(status, JSON answer or None) of one request, refusals included."""
        status, _, data = self._checked(path, body, token, method)
        return status, json.loads(data or b"null")

    def new_game(self, variant, seats, names):
        """Create a game over the API and open one tab per seat on its seat link."""
        status, g = self.api("POST", "/api/games", {"variant": variant, "seats": [{"name": n} for n in names]})
        self.assertEqual(status, 201, g)
        self.assertEqual([s["seat"] for s in g["seats"]], list(seats))
        self.gid = g["id"]
        self.tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.tabs = {}
        for seat in seats:
            tab = self.new_tab()
            tab.set_viewport(1200, 1000)
            tab.goto("%s/games/%s?seat=%s" % (self.base, self.gid, self.tokens[seat]))
            self.assertTrue(tab.js("!!document.querySelector('svg#board')"), "no drawn board for %s" % seat)
            self.tabs[seat] = tab
        self.ply = 0
        return self.tabs

    def ply_of(self, tab):
        return tab.js("(() => { const g = document.querySelector('#game'); return g ? g.getAttribute('data-state') : null; })()")

    # -----------------------------------------------------------------------------------------
    # Acting: clicks only

    def click(self, tab, sel, attr=None, value=None, what=None):
        """A real mouse click at the centre of the element (hit-tested first)."""
        what = what or ("%s[%s=%r]" % (sel, attr, value) if attr else sel)
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            at = tab.js("%s(%s, %s, %s)" % (LOCATE_JS, json.dumps(sel), json.dumps(attr), json.dumps(value)))
            if at["found"] or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertTrue(at["found"], "nothing to click: %s" % what)
        self.assertGreater(at["w"] * at["h"], 0, "%s is not drawn: %r" % (what, at))
        self.assertTrue(at["hits"], "a click on %s would hit %s instead" % (what, at["hit"]))
        base = {"x": at["x"], "y": at["y"], "button": "left", "clickCount": 1}
        tab.send("Input.dispatchMouseEvent", dict(base, type="mouseMoved", button="none"))
        tab.send("Input.dispatchMouseEvent", dict(base, type="mousePressed"))
        tab.send("Input.dispatchMouseEvent", dict(base, type="mouseReleased"))

    def picker(self, tab):
        return tab.js(PICKER_JS)

    def wait_picker(self, tab, cond, what):
        """Wait until cond(picker state) holds; return the state."""
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            st = self.picker(tab)
            if cond(st):
                return st
            if time.monotonic() > deadline:
                self.fail("%s: the picker shows %r" % (what, st))
            time.sleep(0.05)

    def touch(self, tab, places, already, move):
        """Click places in order (already: the places touched before), checking the highlights."""
        for place in places:
            st = self.picker(tab)
            if not already:
                self.assertIn(place, st["movable"], "%s: [%s] is not shown movable" % (move, place))
            else:
                self.assertIn(place, st["target"], "%s: [%s] is not a target after %s; targets %r"
                              % (move, place, already, st["target"]))
            self.click(tab, "#board [data-touch]", "data-touch", place, "the place [%s] of %s" % (place, move))
            already = already + [place]
            self.wait_picker(tab, lambda s: all(p in s["selected"] for p in already),
                             "after touching [%s] of %s" % (place, move))
        return already

    def pick(self, tab, entry, goal):
        """After touching entry's places: click its choice button if several moves share them."""
        st = self.wait_picker(tab, lambda s: s["preview"] is not None or s["choices"]
                              or (entry["partial"] and s["target"]),
                              "after the places of %s" % entry["move"])
        if st["preview"] is None and st["choices"]:
            buttons = {c["move"]: c["text"] for c in st["choices"]}
            self.assertIn(entry["move"], buttons, "no choice button for %s (goal %s)" % (entry["move"], goal))
            self.assertEqual(buttons[entry["move"]], entry["choice"] or entry["move"])
            self.assertEqual(len(set(buttons.values())), len(buttons), "choice labels repeat: %r" % buttons)
            self.choices_clicked.append(entry["choice"])
            self.click(tab, "#choices button[data-choice]", "data-choice", entry["move"], "the choice %r" % entry["choice"])
        elif not entry["partial"]:
            self.assertEqual(st["preview"], entry["move"])

    def check(self, seat, move):
        status, body = self.api("GET", "/api/games/%s/check?move=%s" % (self.gid, urllib.parse.quote(move)),
                                token=self.tokens[seat])
        self.assertEqual(status, 200, body)
        return body

    def play(self, seat, goal, after=None, other=None):
        """Play goal (canonical text) in seat's tab by clicking; other: the tab that must see it live."""
        tab = self.tabs[seat]
        ply = self.ply
        state = self.ply_of(tab)
        self.assertTrue(state.startswith("%d|running|" % ply), "%s's page is at %r, not ply %d" % (seat, state, ply))
        legal = tab.js(LEGAL_JS)
        entry = next((m for m in legal if m["move"] == goal), None) or next(
            (m for m in legal if m["partial"] and goal.startswith(m["move"] + " / ")), None)
        self.assertIsNotNone(entry, "%s is not among %s's legal moves: %r" % (goal, seat, [m["move"] for m in legal][:60]))
        if not entry["places"]:
            self.assertIn(entry["move"], [a["move"] for a in self.picker(tab)["actions"]])
            self.click(tab, "#actions button[data-choice]", "data-choice", entry["move"], "the button of %s" % goal)
        else:
            touched = self.touch(tab, entry["places"], [], goal)
            self.pick(tab, entry, goal)
            # A partial move: play.js asks /check for the ways on; the test asks too, to know which to click.
            current = entry
            while current["partial"]:
                conts = self.check(seat, current["move"])["continuations"]
                nxt = next((c for c in conts if c["move"] == goal or
                            (c["partial"] and goal.startswith(c["move"] + " / "))), None)
                self.assertIsNotNone(nxt, "no continuation of %s leads to %s: %r" % (current["move"], goal, conts))
                self.assertEqual(nxt["places"][:len(touched)], touched, nxt)
                st = self.wait_picker(tab, lambda s: nxt["places"][len(touched)] in s["target"],
                                      "the continuations of %s" % current["move"])
                self.assertEqual(sorted(st["target"]), sorted({c["places"][len(touched)] for c in conts}),
                                 "the targets are the continuations' squares")
                if nxt["choice"]:
                    self.assertIn(nxt["choice"], st["hint"], "the hint names what is placed")
                self.continuations += 1
                touched = self.touch(tab, nxt["places"][len(touched):], touched, goal)
                self.pick(tab, nxt, goal)
                current = nxt
        st = self.wait_picker(tab, lambda s: s["preview"] is not None, "the preview of %s" % goal)
        self.assertEqual(st["preview"], goal)
        self.assertEqual(tab.js("document.activeElement && document.activeElement.getAttribute('data-action')"),
                         "confirm", "the confirm button has the focus")
        before, other_loads = tab.load_count(), other.load_count() if other else None
        self.click(tab, "#preview [data-action=confirm]", None, None, "Play this move")
        tab.b.wait_load(tab.session, before)
        err = tab.js("(() => { const e = document.querySelector('#error'); return e ? e.textContent : null; })()")
        self.assertIsNone(err, "%s refused: %s" % (goal, err))
        self.ply += 1
        self.assertTrue(self.ply_of(tab).startswith("%d|" % self.ply), self.ply_of(tab))
        history = tab.js(HISTORY_JS)
        self.assertEqual(len(history), self.ply)
        self.assertEqual(move_text(history[-1]), goal, "the history's last entry")
        if after:
            after(tab)
        if other:
            self.wait_live(other, self.ply, other_loads)
            if after:
                after(other)
            return history, other.js(HISTORY_JS)
        return history, None

    def wait_live(self, tab, ply, loads):
        """The other seat's page takes the move in by a live update: no page load."""
        try:
            tab.wait_for("(() => { const g = document.querySelector('#game'); return !!g && "
                         "g.getAttribute('data-state').split('|')[0] === '%d'; })()" % ply, timeout=LIVE_TIMEOUT)
        except cdp.WaitTimeout:
            self.fail("the other tab did not show ply %d within %.0f s (it shows %r)"
                      % (ply, LIVE_TIMEOUT, self.ply_of(tab)))
        self.assertEqual(tab.load_count(), loads, "the other tab reloaded instead of updating live")

    def check_phone(self, tab, name):
        """At 360 px the drawn board fits, and the page does not scroll sideways."""
        tab.set_viewport(360, 800, mobile=True)
        try:
            box = tab.js("""new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const r = document.querySelector('svg#board').getBoundingClientRect();
  done({left: r.left, right: r.right, width: r.width, inner: window.innerWidth,
        scroll: document.documentElement.scrollWidth});
})))""")
            tab.screenshot(name)
            self.assertEqual(box["inner"], 360, box)
            self.assertLessEqual(box["width"], 360, "the board is wider than the screen: %r" % box)
            self.assertGreaterEqual(box["left"], 0, box)
            self.assertLessEqual(box["right"], 360, box)
            self.assertLessEqual(box["scroll"], 360, "the page scrolls sideways at 360 px: %r" % box)
        finally:
            tab.clear_viewport()
            tab.set_viewport(1200, 1000)

    def finish(self, name, winner_words):
        """Both tabs show the same result; no tab can move; screenshots; no console errors."""
        for seat, tab in self.tabs.items():
            st = tab.state()
            self.assertIsNotNone(st["result"], "%s's page shows no result" % seat)
            self.assertIn(winner_words, st["result"])
            self.assertTrue(st["data_state"].startswith("%d|over|" % self.ply), st["data_state"])
            self.assertFalse(st["move_form"], "%s can still move" % seat)
            self.assertEqual(st["legal"], [])
            tab.screenshot("play-%s-end-%s" % (name, seat))
        status, g = self.api("GET", "/api/games/%s" % self.gid)
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["ply"], self.ply)
        self.assert_no_console_errors()

    def setUp(self):
        super().setUp()
        self.choices_clicked = []
        self.continuations = 0

    # Keys -------------------------------------------------------------------------------------

    KEYS = {"ArrowUp": 38, "ArrowDown": 40, "ArrowLeft": 37, "ArrowRight": 39, "Enter": 13}

    def press(self, tab, key):
        code = self.KEYS[key]
        down = {"type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code,
                "nativeVirtualKeyCode": code}
        if key == "Enter":
            down["text"] = "\r"
        else:
            down["type"] = "rawKeyDown"
        tab.send("Input.dispatchKeyEvent", down)
        tab.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": key,
                                            "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def key_to(self, tab, place):
        """Move the focus across the board with the arrow keys until it is on place."""
        where = "(() => { const e = document.activeElement; return e && e.hasAttribute('data-r') ? " \
                "[e.getAttribute('data-touch'), +e.getAttribute('data-r'), +e.getAttribute('data-c')] : null; })()"
        goal = tab.js("(() => { const e = [...document.querySelectorAll('#board [data-touch]')].find("
                      "e => e.getAttribute('data-touch') === %s); return [+e.getAttribute('data-r'), "
                      "+e.getAttribute('data-c')]; })()" % json.dumps(place))
        for _ in range(40):
            at = tab.js(where)
            self.assertIsNotNone(at, "the focus left the board")
            if at[0] == place:
                return
            key = "ArrowDown" if goal[0] > at[1] else "ArrowUp" if goal[0] < at[1] else \
                "ArrowRight" if goal[1] > at[2] else "ArrowLeft"
            self.press(tab, key)
        self.fail("the arrow keys did not reach [%s]" % place)



    def type_char(self, tab, ch):
        code = ord(ch.upper())
        tab.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "code": "Digit" + ch if ch.isdigit() else "Key" + ch.upper(),
                                            "text": ch, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})
        tab.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch, "code": "Digit" + ch if ch.isdigit() else "Key" + ch.upper(),
                                            "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})
