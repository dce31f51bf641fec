#!/usr/bin/env python3
"""cyvasse_clicks.py - Nine-Tile Cyvasse played by clicking in headless Chromium: a whole game, and the setup editor.

Usage: cyvasse_clicks.py /path/to/rookery

Played by clicking (tests/harness/clicks.py), one tab a seat.

A whole game (2 setups + 11 plies): both seats set up with the "default setup" button; then a
Rabble double move (four squares), a Light Horse capture with continuation, a Trebuchet capture
(it steps back) and a King capture. The d6 decides who begins; the script is written for White
and turned half round (squares and seats) when Black begins.

The setup editor: both hidden setups are built in #setup-editor (setup.js) by clicking: the
King's tile buttons, a slot's tile chosen from its <select> (a click opens the list, then the
tile's digit and Enter), the turn buttons, a piece moved to an empty square and two pieces
swapped (piece, then square); after each step the board's draft (the mountain/water classes of
the seat's half, the pieces) and .setup-line must match a model of docs/rules/cyvasse.md (tiles
and slots as in Terrain and tiles, the canonical order as in Writing a setup), and the select or
turn button keeps the focus. A click on the King is refused with a message. "Use this setup" asks
GET /check and previews the canonical line; "Play this move" posts it. White's history shows its
setup; Black's page (live update) shows "(hidden until revealed)" and nothing of White's half.
White replaces its setup from its own latest one: a changed draft withdraws an earlier preview,
and a Rabble on a mountain gets the server's message in .setup-message and no preview. Black's
draft, started before White's setup came in, survives the live updates. After Black's setup both
boards show both halves; one move each by clicking. Screenshots of both editors, also at 360 px
(no sideways scrolling).

Uses tests/harness/cdp.py. Python 3 standard library only.
"""
import json
import os
import re
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.clicks import HISTORY_JS, LEGAL_JS, STEP_TIMEOUT, ClickCase, move_text  # noqa: E402

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


# The Cyvasse setup as docs/rules/cyvasse.md gives it (Terrain and tiles, The default setup, Writing
# a setup), for the editor's test: slots' squares TL TR BL BR per seat, the King's tile positions,
# the terrain per face.
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
        """The canonical echo (Writing a setup): slots L0..L5 R0..R5, groups R S L H E C T D W K,
        squares by row then letter."""
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
        """{square: 'X' mountain, '~' water, '.' open} over the seat's half (Terrain and tiles)."""
        land = {sq: "." for sq in HALF[self.seat]}
        used, _ = SETUP_KPOS[self.kpos]
        assert sorted(used.split()) == sorted(self.slots), (used, self.slots)
        for slot, (tile, turned) in self.slots.items():
            face = SETUP_FACES[tile][0 if slot[0] == "L" else 1]
            for k, sq in enumerate(SETUP_SLOTS[self.seat][slot].split()):
                land[sq] = face[3 - k if turned else k]
        return land


class CyvasseClickTest(ClickCase):

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


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
