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

A fifth test builds both hidden Cyvasse setups in the setup editor (#setup-editor, setup.js) by
clicking: the King's tile buttons, a slot's tile chosen from its <select> (a click opens the
list, then the tile's digit and Enter), the turn buttons, a piece moved to an empty square and
two pieces swapped (piece, then square); after each step the board's draft (the mountain/water
classes of the seat's half, the pieces) and .setup-line must match a model of the spec (2.3
tiles and slots, 8.3 canonical order), and the select or turn button keeps the focus. A click on
the King is refused with a message. "Use this setup" asks GET /check and previews the canonical
line; "Play this move" posts it. White's history shows its setup; Black's page (live update)
shows "(hidden until revealed)" and nothing of White's half. White replaces its setup from its
own latest one: a changed draft withdraws an earlier preview, and a Rabble on a mountain gets the
server's message in .setup-message and no preview. Black's draft, started before White's setup
came in, survives the live updates. After Black's setup both boards show both halves; one move
each by clicking. Screenshots of both editors, also at 360 px (no sideways scrolling).

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


# The Cyvasse setup as the spec gives it (rules/cyvasse.md 2.3, 4.3, 8.3), for the editor's test:
# slots' squares TL TR BL BR per seat, the King's tile positions, the terrain per face.
SETUP_SLOTS = {
    "White": {"L0": "a4 b4 a3 b3", "L1": "c4 d4 c3 d3", "L2": "e4 f4 e3 f3", "L3": "a2 b2 a1 b1",
              "L4": "c2 d2 c1 d1", "L5": "e2 f2 e1 f1", "R0": "f4 g4 e3 f3", "R1": "h4 i4 g3 h3",
              "R2": "j4 k4 i3 j3", "R3": "d2 e2 c1 d1", "R4": "f2 g2 e1 f1", "R5": "h2 i2 g1 h1"},
    "Black": {"L0": "k6 j6 j7 i7", "L1": "i6 h6 h7 g7", "L2": "g6 f6 f7 e7", "L3": "i8 h8 h9 g9",
              "L4": "g8 f8 f9 e9", "L5": "e8 d8 d9 c9", "R0": "f6 e6 f7 e7", "R1": "d6 c6 d7 c7",
              "R2": "b6 a6 b7 a7", "R3": "f8 e8 f9 e9", "R4": "d8 c8 d9 c9", "R5": "b8 a8 b9 a9"},
}
SETUP_KPOS = {  # slots used, the King's tile per seat (its last square is the circle)
    "K0": ("L0 L3 R0 R1 R2 R3 R4 R5", {"White": "c4 d4 e4 c3 d3 c2", "Black": "i6 h6 g6 h7 g7 g8"}),
    "K1": ("L0 L1 L3 L4 R1 R2 R4 R5", {"White": "e4 f4 g4 e3 f3 e2", "Black": "g6 f6 e6 f7 e7 e8"}),
    "K2": ("L0 L1 L2 L3 L4 L5 R2 R5", {"White": "g4 h4 i4 g3 h3 g2", "Black": "e6 d6 c6 d7 c7 c8"}),
}
SETUP_FACES = {1: ("X..X", ".X.."), 2: ("~~..", "~..."), 3: ("X...", "~..."), 4: (".~..", ".X.."),
               5: ("X...", "...."), 6: (".~..", "...."), 7: ("....", "...."), 8: ("....", "....")}
SETUP_ORDER = "RSLHECTDWK"
ROW_LENGTH = {1: 8, 2: 9, 3: 10, 4: 11, 5: 12, 6: 11, 7: 10, 8: 9, 9: 8}
HALF = {seat: ["abcdefghijkl"[i] + str(n) for n in rows for i in range(ROW_LENGTH[n])]
        for seat, rows in (("White", (1, 2, 3, 4)), ("Black", (6, 7, 8, 9)))}
CYVASSE_DEFAULT = {
    "White": "setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a3,j3,b4,c4,h4,k4 S=e4,f4,g4 "
             "L=g2,b3,i3 H=c3,h3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2",
    "Black": "setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a6,d6,i6,j6,a7,j7 S=e6,f6,g6 "
             "L=b7,i7,c8 H=c7,h7 E=d7,g7 C=e7,f7 T=d9 D=g8 W=d8,f8 K=e8",
}


class Setup:
    """A seat's setup: kpos, slots {slot: [tile, turned]}, pieces {square: letter}."""

    def __init__(self, seat, line):
        t = line.split()
        assert t[0] == "setup", line
        self.seat, self.kpos, self.slots, self.pieces = seat, t[1], {}, {}
        for tok in t[2:]:
            m = re.match(r"^([LR][0-5])=([1-8])[AB](r?)$", tok)
            if m:
                self.slots[m.group(1)] = [int(m.group(2)), m.group(3) == "r"]
            else:
                letter, squares = tok.split("=")
                for sq in squares.split(","):
                    self.pieces[sq] = letter

    def copy(self):
        c = Setup(self.seat, "setup " + self.kpos)
        c.slots = {k: list(v) for k, v in self.slots.items()}
        c.pieces = dict(self.pieces)
        return c

    def line(self):
        """The canonical echo (8.3): slots L0..L5 R0..R5, groups R S L H E C T D W K, squares by row then letter."""
        parts = ["setup", self.kpos]
        for slot in sorted(self.slots, key=lambda s: (s[0] != "L", s)):
            tile, turned = self.slots[slot]
            parts.append("%s=%d%s%s" % (slot, tile, "A" if slot[0] == "L" else "B", "r" if turned else ""))
        for letter in SETUP_ORDER:
            squares = sorted((sq for sq, p in self.pieces.items() if p == letter), key=lambda q: (int(q[1:]), q[0]))
            if squares:
                parts.append("%s=%s" % (letter, ",".join(squares)))
        return " ".join(parts)

    def terrain(self):
        """{square: 'X' mountain, '~' water, '.' open} over the seat's half (2.3)."""
        land = {sq: "." for sq in HALF[self.seat]}
        used, _ = SETUP_KPOS[self.kpos]
        assert sorted(used.split()) == sorted(self.slots), (used, self.slots)
        for slot, (tile, turned) in self.slots.items():
            face = SETUP_FACES[tile][0 if slot[0] == "L" else 1]
            for k, sq in enumerate(SETUP_SLOTS[self.seat][slot].split()):
                land[sq] = face[3 - k if turned else k]
        return land


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

    # The Cyvasse setup editor ------------------------------------------------------------------

    def editor(self, tab):
        """The setup editor's state: its line, message, King's tile, slots, what is selected, the preview."""
        return tab.js(r"""(() => {
  const p = document.querySelector('#setup-editor'), q = s => p.querySelector(s), pv = document.querySelector('#preview');
  if (!p) return null;
  return {hidden: p.hidden, line: q('.setup-line').textContent, message: q('.setup-message').textContent,
    king: [...p.querySelectorAll('[data-king][aria-pressed=true]')].map(b => b.getAttribute('data-king')),
    slots: Object.fromEntries([...p.querySelectorAll('select[data-slot]')].map(s => [s.getAttribute('data-slot'),
      [+s.value, p.querySelector('[data-rotate=' + s.getAttribute('data-slot') + ']').getAttribute('aria-pressed') === 'true']])),
    selected: [...document.querySelectorAll('#board [data-square].selected')].map(e => e.getAttribute('data-square')),
    focus: document.activeElement ? (document.activeElement.getAttribute('data-slot') || document.activeElement.getAttribute('data-rotate') ||
      document.activeElement.getAttribute('data-king') || document.activeElement.tagName) : null,
    preview: pv && !pv.hidden ? document.querySelector('#preview-move').textContent : null};
})()""")

    def wait_editor(self, tab, cond, what):
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            st = self.editor(tab)
            if st is not None and cond(st):
                return st
            if time.monotonic() > deadline:
                self.fail("%s: the setup editor shows %r" % (what, st))
            time.sleep(0.05)

    def check_draft(self, tab, setup, what):
        """The editor's line is setup's, and the board draws its terrain and pieces on the seat's half."""
        st = self.wait_editor(tab, lambda e: e["line"] == setup.line(), what)
        self.assertEqual(st["king"], [setup.kpos], what)
        self.assertEqual(st["slots"], setup.slots, "%s: the slot controls" % what)
        self.check_half(tab, setup, what)
        return st

    def check_half(self, tab, setup, what):
        """The drawn board shows setup's terrain and pieces on its seat's half, nothing else there."""
        b, land = tab.board(), setup.terrain()
        drawn = {sq: ("X" if "mountain" in b.kinds[sq] else "~" if "water" in b.kinds[sq] else ".") for sq in HALF[setup.seat]}
        self.assertEqual(drawn, land, "%s: the terrain of %s's half" % (what, setup.seat))
        pieces = {sq: (b[sq], b.sides[sq]) for sq in HALF[setup.seat] if b[sq]}
        case = str.upper if setup.seat == "White" else str.lower
        self.assertEqual(pieces, {sq: (case(p), setup.seat) for sq, p in setup.pieces.items()},
                         "%s: the pieces of %s's half" % (what, setup.seat))

    def choose_tile(self, tab, slot, tile):
        """Choose a tile for a slot as a user does: click the select (its list opens), type the number, Enter."""
        self.click(tab, "select[data-slot]", "data-slot", slot, "the tile of %s" % slot)
        tab.wait_for("document.activeElement && document.activeElement.getAttribute('data-slot') === %s" % json.dumps(slot),
                     timeout=STEP_TIMEOUT)
        self.type_char(tab, str(tile))
        self.press(tab, "Enter")
        self.wait_editor(tab, lambda e: e["slots"].get(slot, [0])[0] == tile, "tile %d in %s" % (tile, slot))

    def type_char(self, tab, ch):
        code = ord(ch.upper())
        tab.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "code": "Digit" + ch if ch.isdigit() else "Key" + ch.upper(),
                                            "text": ch, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})
        tab.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch, "code": "Digit" + ch if ch.isdigit() else "Key" + ch.upper(),
                                            "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def square(self, tab, sq):
        self.click(tab, "#board [data-square]", "data-square", sq, "the square %s" % sq)

    def move_piece(self, tab, setup, frm, to, what):
        """Click the piece on frm, then the square to: it moves there, or the two swap."""
        self.square(tab, frm)
        st = self.wait_editor(tab, lambda e: e["selected"] == [frm], "%s: %s selected" % (what, frm))
        self.assertIn("tap where it goes", st["message"])
        self.square(tab, to)
        moving = setup.pieces.pop(frm)
        if to in setup.pieces:
            setup.pieces[frm] = setup.pieces[to]
        setup.pieces[to] = moving
        st = self.check_draft(tab, setup, what)
        self.assertEqual(st["selected"], [], what)

    def editor_phone(self, tab, name):
        """At 360 px the setup editor fits, and the page does not scroll sideways."""
        tab.set_viewport(360, 800, mobile=True)
        try:
            box = tab.js("""new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const e = document.querySelector('#setup-editor');
  e.scrollIntoView({block: 'start'});
  const r = e.getBoundingClientRect(), wide = [...e.querySelectorAll('*')].filter(c => {
    const b = c.getBoundingClientRect(); return b.width && (b.left < 0 || b.right > window.innerWidth); }).map(c => c.tagName + '.' + c.className);
  done({left: r.left, right: r.right, inner: window.innerWidth, scroll: document.documentElement.scrollWidth, wide: wide});
})))""")
            tab.screenshot(name)
            self.assertEqual(box["inner"], 360, box)
            self.assertGreaterEqual(box["left"], 0, box)
            self.assertLessEqual(box["right"], 360, "the setup editor is wider than the screen: %r" % box)
            self.assertEqual(box["wide"], [], "parts of the setup editor stick out: %r" % box)
            self.assertLessEqual(box["scroll"], 360, "the page scrolls sideways at 360 px: %r" % box)
        finally:
            tab.clear_viewport()
            tab.set_viewport(1200, 1000)

    def use_setup(self, seat, setup, other):
        """"Use this setup": the server's check, the preview of the canonical line, "Play this move"; the other
        seat's page takes it in live and shows it hidden (until both are in)."""
        tab = self.tabs[seat]
        self.click(tab, "#setup-editor [data-action=check-setup]", None, None, "Use this setup")
        st = self.wait_editor(tab, lambda e: e["preview"] is not None, "the preview of %s's setup" % seat)
        self.assertEqual(st["preview"], setup.line(), "the preview shows the canonical setup line")
        self.assertEqual(st["message"], "")
        self.assertEqual(tab.js("document.querySelector('#preview-choice').textContent"), "(your setup)")
        before, other_loads = tab.load_count(), other.load_count()
        self.click(tab, "#preview [data-action=confirm]", None, None, "Play this move")
        tab.b.wait_load(tab.session, before)
        self.assertIsNone(tab.js("(() => { const e = document.querySelector('#error'); return e ? e.textContent : null; })()"))
        self.ply += 1
        self.assertTrue(self.ply_of(tab).startswith("%d|" % self.ply), self.ply_of(tab))
        self.wait_live(other, self.ply, other_loads)
        return [move_text(h) for h in tab.js(HISTORY_JS)], other.js(HISTORY_JS)

    def test_5_cyvasse_setup_editor(self):
        """Both seats build a hidden Cyvasse setup in #setup-editor by clicking, White replaces its own once."""
        tabs = self.new_game("cyvasse", ("White", "Black"), ("Wes", "Bea"))
        W, B = tabs["White"], tabs["Black"]
        ws, bs = Setup("White", CYVASSE_DEFAULT["White"]), Setup("Black", CYVASSE_DEFAULT["Black"])
        for seat, setup in (("White", ws), ("Black", bs)):
            st = self.check_draft(tabs[seat], setup, "%s's editor at the start (the default setup)" % seat)
            self.assertFalse(st["hidden"])
        # Black's board is drawn turned half round: its back row (9) nearest, at the bottom.
        ys = {seat: tabs[seat].js("['a1', 'a9'].map(s => [...document.querySelectorAll('#board [data-square]')].find("
                                  "e => e.getAttribute('data-square') === s).getBoundingClientRect().top)") for seat in tabs}
        self.assertGreater(ys["White"][0], ys["White"][1], "White's row 1 is at the bottom")
        self.assertLess(ys["Black"][0], ys["Black"][1], "Black's row 9 is at the bottom")

        # Black starts a draft (the King's tile "right") before White's setup arrives: the live update keeps it.
        self.click(B, "[data-king]", "data-king", "K2", "Black's King's tile right")
        bs.kpos = "K2"
        bs.slots = {"L0": [5, False], "L1": [6, False], "L2": [4, False], "L3": [7, False], "L4": [8, False],
                    "L5": [2, True], "R2": [3, False], "R5": [1, False]}       # R1's tile to L2, R4's to L5
        bs.pieces["c8"], bs.pieces["e8"] = "K", "L"                            # the L on the new circle swaps with K
        self.check_draft(B, bs, "Black: King's tile right")

        # White: the King's tile left; the slots it frees (L1, L4) give their tiles to R0 and R3.
        self.click(W, "[data-king]", "data-king", "K0", "White's King's tile left")
        ws.kpos = "K0"
        ws.slots = {"L0": [5, False], "L3": [7, False], "R0": [6, False], "R1": [4, False], "R2": [3, False],
                    "R3": [8, False], "R4": [2, True], "R5": [1, False]}
        ws.pieces["c2"], ws.pieces["e2"] = "K", "D"
        self.check_draft(W, ws, "White: King's tile left")
        self.assertNotIn("water", W.board().kinds["d4"], "d4 is under the King's tile now")
        # Tile 3 into R3 (tile 8 goes to R2, where 3 was): d2 becomes water, j4 open.
        self.choose_tile(W, "R3", 3)
        ws.slots["R3"], ws.slots["R2"] = [3, False], [8, False]
        st = self.check_draft(W, ws, "White: tile 3 in R3")
        self.assertEqual(st["focus"], "R3", "the select keeps the focus")
        self.assertEqual((ws.terrain()["d2"], ws.terrain()["j4"]), ("~", "."))
        # Turned: the water goes from d2 (top left) to d1 (bottom right).
        self.click(W, "[data-rotate]", "data-rotate", "R3", "turn R3")
        ws.slots["R3"] = [3, True]
        st = self.check_draft(W, ws, "White: R3 turned")
        self.assertEqual((st["focus"], W.js("document.querySelector('[data-rotate=R3]').textContent")), ("R3", "turned"))
        self.assertEqual((ws.terrain()["d2"], ws.terrain()["d1"]), (".", "~"))
        self.move_piece(W, ws, "a3", "d4", "White: the Rabble a3 to the empty d4")
        titles = W.js("Object.fromEntries([...document.querySelectorAll('#board [data-square]')].filter(e => "
                      "['a3', 'd4', 'd1'].includes(e.getAttribute('data-square'))).map(e => "
                      "[e.getAttribute('data-square'), e.querySelector('title').textContent]))")
        self.assertEqual(titles, {"a3": "a3", "d4": "d4: White R", "d1": "d1 (water)"}, "the squares' tooltips")
        self.move_piece(W, ws, "e3", "h3", "White: Crossbows e3 and Heavy Horse h3 swapped")
        # The King stays on its circle.
        self.square(W, "c2")
        st = self.wait_editor(W, lambda e: "King stays on the circle" in e["message"], "a click on White's King")
        self.assertEqual(st["selected"], [])
        self.check_draft(W, ws, "White: after clicking the King")
        W.screenshot("play-setup-editor-White")
        self.editor_phone(W, "play-setup-editor-White-360px")
        first = ws.line()
        self.assertEqual(first, "setup K0 L0=5A L3=7A R0=6B R1=4B R2=8B R3=3Br R4=2Br R5=1B R=j3,b4,c4,d4,h4,k4 "
                                "S=e4,f4,g4 L=g2,b3,i3 H=c3,e3 E=d3,g3 C=f3,h3 T=e1 D=e2 W=d2,f2 K=c2")
        mine, theirs = self.use_setup("White", ws, B)
        self.assertEqual(mine, [first], "White's history shows its setup")
        self.assertEqual(theirs, ["(hidden until revealed)"], "Black sees White's setup")
        self.assert_nothing_of_white(B, first)
        self.check_draft(B, bs, "Black's draft after White's setup arrived")

        # White replaces its setup: the editor starts from White's own latest setup (the history's).
        self.check_draft(W, ws, "White's editor after its setup")
        # A checked line is previewed; changing the draft then withdraws the preview (no stale setup to confirm).
        self.click(W, "#setup-editor [data-action=check-setup]", None, None, "Use this setup (unchanged)")
        self.assertEqual(self.wait_editor(W, lambda e: e["preview"] is not None, "the preview")["preview"], first)
        self.move_piece(W, ws, "b4", "a4", "White: a Rabble onto the mountain a4")
        self.assertIsNone(self.editor(W)["preview"], "the preview of the older line is withdrawn")
        self.assertIn("mountain", W.board().kinds["a4"])
        status, refusal = self.api("GET", "/api/games/%s/check?move=%s" % (self.gid, urllib.parse.quote(ws.line())),
                                   token=self.tokens["White"])
        self.assertEqual(status, 422, refusal)
        self.click(W, "#setup-editor [data-action=check-setup]", None, None, "Use this setup (a bad one)")
        st = self.wait_editor(W, lambda e: e["message"] not in ("", "Checking…"), "the server's answer to a bad setup")
        self.assertEqual(st["message"], refusal["error"]["message"])
        self.assertIn("a4 is a mountain", st["message"])
        self.assertIsNone(st["preview"], "a refused setup has no preview")
        self.assertEqual(len(W.forget_console_errors(r"status of 422 .*/check\?move=")), 1, W.console_errors())
        # Tile 7 into L0 (5 goes to L3): a4 is open, a2 a mountain.
        self.choose_tile(W, "L0", 7)
        ws.slots["L0"], ws.slots["L3"] = [7, False], [5, False]
        self.check_draft(W, ws, "White: tile 7 in L0")
        self.assertEqual((ws.terrain()["a4"], ws.terrain()["a2"]), (".", "X"))
        second = ws.line()
        mine, theirs = self.use_setup("White", ws, B)
        self.assertEqual(mine, [first, second], "White's history shows both its setups")
        self.assertEqual(theirs, ["(hidden until revealed)"] * 2)
        self.assert_nothing_of_white(B, first, second)
        self.check_draft(W, ws, "White's editor after its second setup")

        # Black: its draft (King's tile right) goes on; tile 7 into R5 (1 goes to L3), R2 turned,
        # a Rabble moved, Crossbows and Dragon swapped.
        self.check_draft(B, bs, "Black's draft after White's second setup")
        self.choose_tile(B, "R5", 7)
        bs.slots["R5"], bs.slots["L3"] = [7, False], [1, False]
        self.check_draft(B, bs, "Black: tile 7 in R5")
        self.click(B, "[data-rotate]", "data-rotate", "R2", "turn R2")
        bs.slots["R2"] = [3, True]
        self.check_draft(B, bs, "Black: R2 turned")
        self.move_piece(B, bs, "a6", "c6", "Black: the Rabble a6 to the empty c6")
        self.move_piece(B, bs, "e7", "g8", "Black: Crossbows e7 and Dragon g8 swapped")
        self.assertEqual(bs.terrain(), dict({sq: "." for sq in HALF["Black"]}, k6="X", h6="~", f6="~", i8="X",
                                            g9="X", d9="~", c9="~", a7="~"))
        B.screenshot("play-setup-editor-Black")
        self.editor_phone(B, "play-setup-editor-Black-360px")
        black = bs.line()
        self.assertEqual(black, "setup K2 L0=5A L1=6A L2=4A L3=1A L4=8A L5=2Ar R2=3Br R5=7B R=c6,d6,i6,j6,a7,j7 "
                                "S=e6,f6,g6 L=b7,i7,e8 H=c7,h7 E=d7,g7 C=f7,g8 T=d9 D=e7 W=d8,f8 K=c8")
        mine, theirs = self.use_setup("Black", bs, W)
        self.assertEqual(mine, [first, second, black], "the setups are revealed to Black")
        self.assertEqual([move_text(h) for h in theirs], mine, "the setups are revealed to White")

        # Both boards show both setups, with the terrain their tiles give; the editor is gone.
        for seat, tab in tabs.items():
            self.assertIsNone(self.editor(tab), "%s's page still has the setup editor" % seat)
            for setup in (ws, bs):
                self.check_half(tab, setup, "%s's board after the reveal" % seat)
            b = tab.board()
            self.assertEqual([sq for sq in b if sq[1] == "5" and (b[sq] or {"mountain", "water"} & set(b.kinds[sq]))], [])
            tab.screenshot("play-setup-revealed-%s" % seat)
        status, g = self.api("GET", "/api/games/%s" % self.gid)
        first_seat = g["turn"][0]
        # The game goes on: one move each, by clicking.
        order = (first_seat, "Black" if first_seat == "White" else "White")
        for i, seat in enumerate(order):
            legal = tabs[seat].js(LEGAL_JS)
            by_places = {}
            for m in legal:
                by_places.setdefault(tuple(m["places"]), []).append(m)
            goal = next(m["move"] for m in legal if len(m["places"]) == 2 and not m["partial"]
                        and len(by_places[tuple(m["places"])]) == 1)
            frm, to = next(m["places"] for m in legal if m["move"] == goal)

            def after(tab, frm=frm, to=to, seat=seat, goal=goal):
                b = tab.board()
                self.assertEqual(b[frm], "", "%s: %s is not empty" % (goal, frm))
                self.assertEqual((b[to].upper(), b.sides[to]), (goal[0], seat), goal)
            self.play(seat, goal, after, tabs[order[1 - i]])
        self.assertEqual(len(W.js(HISTORY_JS)), 5)
        self.assert_no_console_errors()
        self.report("cyvasse setup editor: %s first" % first_seat)

    def assert_nothing_of_white(self, tab, *lines):
        """Black's page shows none of White's hidden setups: no piece or terrain on White's half, no line."""
        b = tab.board()
        self.assertEqual({sq: b[sq] for sq in HALF["White"] if b[sq]}, {}, "Black sees White's pieces")
        self.assertEqual([sq for sq in HALF["White"] if {"mountain", "water"} & set(b.kinds[sq])], [],
                         "Black sees White's terrain")
        text = tab.js("document.body.textContent")
        for line in lines:
            self.assertNotIn(line, text)
            self.assertNotIn(line.split(" R=")[1], text)

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
