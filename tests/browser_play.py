#!/usr/bin/env python3
"""browser_play.py - whole two-seat games played by clicking the drawn board in headless Chromium.

Usage: browser_play.py /path/to/rookery

Three games are played from the start to a finished result, one tab per seat (the seat links
/games/{id}?seat=<token> that POST /api/games returns), acting only by clicking: real mouse
clicks (Input.dispatchMouseEvent at the element's centre, hit-tested first) on the squares of
svg#board, on the pieces in hand, on the choice buttons (#choices), on the buttons of moves
that touch nothing (#actions) and on "Play this move". The page's list of legal moves
(#legal-list code[data-move][data-places][data-choice][data-partial]) and GET
/api/games/{id}/check (for the continuations of a partial move) are read to decide where to
click, never to act.

  Nchess (18 plies): the release line of blackbox.py: captures choosing the prison (the
      "to prison 4" / "to prison 6" buttons), then a capture on a prison square that frees a
      prisoner: a partial move, completed by clicking the square where the prisoner goes
      (play.js asks /check for the continuations); it ends with a General capture.
  Conversion Chess (17 plies): the scripted game of conversion_game.py: displacement with a
      demotion choice, assimilation, promotion instead of / before / after a move, a compound
      split into the hand, a drop clicked from the hand, and a King capture.
  Nine-Tile Cyvasse (2 setups + 11 plies): both seats set up with the "default setup" button;
      then a Rabble double move (four squares), a Light Horse capture with continuation, a
      Trebuchet capture (it steps back) and a King capture. The d6 decides who begins; the
      script is written for White and turned half round (squares and seats) when Black begins.

For every move: its places are clicked in order (the first must be shown movable, each next one
a target), the choice button is clicked when several moves share the places, #preview-move must
show the expected canonical text, "Play this move" posts it; then the mover's page (reloaded by
the form) and the other seat's page (updated live by its polling, without a page load) must both
show the move last in the history and the pieces where the move put them. Screenshots of the
start, the middle and the end of each game, and one at 360 px width (the board must fit, without
horizontal scrolling), go to $ROOKERY_ARTIFACTS (else ./screenshots). No tab may log a console
error. A fourth test plays Nchess's first move with the keyboard alone (arrow keys, Enter).

Uses tests/cdp.py. Python 3 standard library only.
"""
import json
import os
import re
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

LIVE_TIMEOUT = 15.0      # a live update reaches another tab within ~3 s (it polls every 3 s)
STEP_TIMEOUT = 10.0      # a click's effect on the page (highlights, buttons, the preview)

# ---------------------------------------------------------------------------------------------
# The games
# ---------------------------------------------------------------------------------------------

# Nchess: RELEASE_LINE of blackbox.py (captures into a chosen prison; North's Archer ends on
# [7 8] next to South's prison [9 6], which holds a North Soldier and South's Knight), then the
# Archer captures the Knight on the prison square into North's prison 4 and so frees the Soldier,
# placed on [3 9]; one quiet South move, and the Archer takes the General on [9 5].
NCHESS = [
    "S 7 7 7 8", "s 3 3 3 2", "N 9 2 8 4", "a 2 8 4 8", "C 9 1 8 1", "a 2 2 2 4",
    "A 8 8 5 5", "s 3 9 4 9", "A 5 5 3 5 6", "m 1 7 3 5 4", "N 8 4 9 6", "a 4 8 5 8",
    "A 8 2 6 2", "a 5 8 7 8 4", "A 6 2 8 2",
    "a 7 8 9 6 4 / s 3 9",      # a capture into prison 4 that releases s: placed on [3 9]
    "S 7 1 6 1",
    "a 9 6 9 5",                # the General captured: North wins
]
NCHESS_SEATS = ("South", "North")
# Prisoners shown at the foot of prison squares (Board.held), after a ply: the next released first.
NCHESS_HELD = {8: {"9 6": "s"}, 9: {"1 4": "A"}, 13: {"1 4": "S A"}, 15: {"1 4": "N S A"}}

# Conversion Chess: SCRIPT and AFTER of conversion_game.py (the canonical texts, and what stands
# where after a ply: upper case White, lower case Black, a compound as its letters).
CONVERSION = [
    ("White", "Pe3-e4"), ("Black", "Pe7-e6"), ("White", "Pe4-e5"),
    ("Black", "Pe6xe5 disp(N)"),          # displacement, the Pawn demoted to a Knight in hand
    ("White", "Pc3-c4"), ("Black", "Gd9-e8"),
    ("White", "Bb2xe5 assim"),            # assimilation: (BP), which converts c7 and g7
    ("Black", "Ge8-e7"),
    ("White", "Pg7=R"),                   # promotion instead of a move
    ("Black", "Ge7-e6"),
    ("White", "Rg7xh7 disp(N)"),
    ("Black", "Ge6xe5 disp(S,A)"),        # a compound split into the hand, both demoted
    ("White", "Pc7=R / Rc7xc8 assim"),    # promotion before the move
    ("Black", "S*e8"),                    # a drop from the hand
    ("White", "Sc9-d8 / Sd8=B"),          # promotion after the move
    ("Black", "Pa7-a6"),
    ("White", "Bd8xe9"),                  # the King captured: White wins
]
CONVERSION_AFTER = {
    0: {"e3": "", "e4": "P"},
    1: {"e7": "", "e6": "p"},
    2: {"e4": "", "e5": "P", "e6": "p"},
    3: {"e6": "", "e5": "p"},
    4: {"c3": "", "c4": "P"},
    5: {"d9": "", "e8": "g"},
    6: {"b2": "", "e5": "BP", "c7": "P", "g7": "P", "d7": "p", "f7": "p"},
    7: {"e8": "", "e7": "g"},
    8: {"g7": "R"},
    9: {"e7": "", "e6": "g"},
    10: {"g7": "", "h7": "R", "h8": "B", "f7": "p", "i7": "p"},
    11: {"e6": "", "e5": "g"},
    12: {"c7": "", "c8": "RA", "b8": "R", "c9": "S", "g8": "A", "e9": "k"},
    13: {"e8": "s"},
    14: {"c9": "", "d8": "B"},
    15: {"a7": "", "a6": "p"},
    16: {"d8": "", "e9": "B", "e1": "K"},
}
# The pieces in hand after a ply (Board.hands, in drawing order), where they change.
CONVERSION_HANDS = {3: ["n"], 10: ["n", "N"], 11: ["a", "n", "s", "N"], 13: ["a", "n", "N"]}

# Nine-Tile Cyvasse from both default setups, written for White moving first (the d6 decides).
CYVASSE = [
    "Rk4-k5 / Ra3-a2",   # W: a Rabble double move (four squares clicked)
    "Rd6-d5",            # B
    "Lb3xd5-d6",         # W: the Light Horse captures d5 and continues to d6
    "Se6-e5",            # B
    "Ke2-d1",            # W: makes room for the Trebuchet
    "Ce7-f5",            # B
    "Te1-e2",            # W
    "Ke8-e7",            # B: the King walks out
    "Te2xe5-e1",         # W: the Trebuchet captures e5 and steps back to e1
    "Ke7-e6",            # B
    "Ld6xe6",            # W: the King captured
]
CYVASSE_ROW = {1: 8, 2: 9, 3: 10, 4: 11, 5: 12, 6: 11, 7: 10, 8: 9, 9: 8}
CYVASSE_MOVE = re.compile(r"^([RSLHECTDWK])([a-l][1-9])([-x])([a-l][1-9])(?:-([a-l][1-9]))?(?: / R([a-l][1-9])-([a-l][1-9]))?$")


def cyvasse_turned(square):
    """A square turned half round (Black's side as White's): row n, index i -> row 10-n, last-i."""
    n, i = int(square[1:]), "abcdefghijkl".index(square[0])
    return "abcdefghijkl"[CYVASSE_ROW[n] - 1 - i] + str(10 - n)


def cyvasse_turn_move(move):
    return re.sub(r"[a-l][1-9]", lambda m: cyvasse_turned(m.group(0)), move)


# ---------------------------------------------------------------------------------------------
# Reading the page
# ---------------------------------------------------------------------------------------------

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


class PlayTest(cdp.BrowserTestCase):
    PREFIX = "rookery-browser-play-"
    maxDiff = None

    # -----------------------------------------------------------------------------------------
    # Setting up

    def api(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        req = urllib.request.Request(self.base + path, method=method, headers=headers,
                                     data=json.dumps(body).encode() if body is not None else None)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

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

    # -----------------------------------------------------------------------------------------
    # The games

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

    def test_2_conversion_chess(self):
        tabs = self.new_game("conversion-chess", ("White", "Black"), ("Wes", "Bea"))
        tabs["White"].screenshot("play-conversion-start")
        hand_clicked = False
        for i, (seat, goal) in enumerate(CONVERSION):
            other = "Black" if seat == "White" else "White"

            def after(tab, i=i):
                b = tab.board()
                for sq, piece in CONVERSION_AFTER[i].items():
                    self.assertEqual(b[sq], piece, "ply %d (%s): %s" % (i, CONVERSION[i][1], sq))
                hands = CONVERSION_HANDS[max([p for p in CONVERSION_HANDS if p <= i] or [-1])] \
                    if any(p <= i for p in CONVERSION_HANDS) else []
                self.assertEqual(sorted(h["piece"] for h in b.hands), sorted(hands), "ply %d: the hands" % i)
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

    def test_3_cyvasse(self):
        tabs = self.new_game("cyvasse", ("White", "Black"), ("Wes", "Bea"))
        tabs["White"].screenshot("play-cyvasse-start")
        # The setups: the "default setup" button of each seat; the second reveals both.
        for seat, other in (("White", "Black"), ("Black", "White")):
            legal = tabs[seat].js(LEGAL_JS)
            self.assertEqual(len(legal), 1, legal)
            self.assertEqual((legal[0]["places"], legal[0]["choice"]), ([], "default setup"))
            self.assertEqual(self.picker(tabs[seat])["actions"], [{"move": legal[0]["move"], "text": "default setup"}])
            mine, theirs = self.play(seat, legal[0]["move"], None, tabs[other])
            if seat == "White":
                self.assertEqual(theirs, ["(hidden until revealed)"], "Black sees White's setup")
                self.assertEqual([p for p in tabs["Black"].board().values() if p and p.isupper()], [])
            else:
                self.assertEqual(theirs, mine, "the setups are revealed to both")
        status, g = self.api("GET", "/api/games/%s" % self.gid)
        first = g["turn"][0]
        script = CYVASSE if first == "White" else [cyvasse_turn_move(m) for m in CYVASSE]
        seats = (first, "Black" if first == "White" else "White")
        kinds = []
        for i, goal in enumerate(script):
            seat, other = seats[i % 2], seats[(i + 1) % 2]
            m = CYVASSE_MOVE.match(goal)
            self.assertTrue(m, goal)
            piece, frm, op, to, end, frm2, to2 = m.groups()
            kinds.append("double" if frm2 else "horse" if end and piece in "LH" else
                         "trebuchet" if op == "x" and piece == "T" else "capture" if op == "x" else "move")

            def after(tab, seat=seat, piece=piece, frm=frm, to=to, end=end, frm2=frm2, to2=to2, goal=goal):
                b = tab.board()
                stop = end or to
                self.assertEqual(b[frm], "", "%s: %s is not empty" % (goal, frm))
                self.assertEqual(b[stop].upper(), piece, "%s: %s" % (goal, stop))
                self.assertEqual(b.sides[stop], seat, "%s: the piece on %s" % (goal, stop))
                if end:
                    self.assertEqual(b[to], "", "%s: the captured square %s" % (goal, to))
                if frm2:
                    self.assertEqual((b[frm2], b[to2].upper()), ("", "R"), "%s: the second Rabble" % goal)
            self.play(seat, goal, after, tabs[other])
            if i == 5:
                tabs[other].screenshot("play-cyvasse-mid")
                self.check_phone(tabs[other], "play-cyvasse-360px")
        for k in ("double", "horse", "trebuchet"):
            self.assertIn(k, kinds)
        self.finish("cyvasse", "%s wins" % first)
        self.report("cyvasse: %d plies (2 setups), %s first; moves %r" % (self.ply, first, kinds))

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


if __name__ == "__main__":
    cdp.main("browser_play.py /path/to/rookery")
