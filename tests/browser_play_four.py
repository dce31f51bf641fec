#!/usr/bin/env python3
"""browser_play_four.py - the two four-seat games played to the end by clicking, in four headless Chromium tabs.

Usage: browser_play_four.py /path/to/rookery

One tab per seat, each opened with the seat's private link (POST /api/games). Every move
is made as a player makes it: real mouse clicks (Input.dispatchMouseEvent at the centre of
the element) on the drawn board's squares (svg#board [data-touch]) in the order the move's
gesture lists them (#legal-list code[data-places]), then on the choice button if several
moves share those places (#choices), or on the move's button when it touches nothing
(#actions: Civil War's alliances); the preview (#preview-move) must show the expected
canonical text; "Play this move" posts it. The test reads the page (and GET /api/games) to
decide where to click; it never types a move nor calls a script of the page.

After every move: the mover's tab (reloaded by its form) shows the move last in the history
and draws the board as the API's position has it; the tab that acts next, or another seat's
tab, takes the new state by a live update (data-state changes, no page load) and shows the
same history and board. Each seat's board is drawn from its own side (its home edge is the
bottom row of squares on the screen). No tab may log a console error. Screenshots at the
start, middle and end of each game go to $ROOKERY_ARTIFACTS (else ./screenshots).

Complex Allegiance Chess: the 39-ply scripted game of four_players.py (shared-pawn double
steps by each controller, en passant, two castlings, a promotion whose piece is picked from
#choices), ending with the capture of North's King.

Civil War: the d12 comes from the game's committed seed, so the game is played adaptively
(the King hunt of civil_war_game.py, aimed at the Capital): South, North and East declare
alliances to each other out of turn by clicking their #actions buttons, West's King walks to
the Capital h8, and the others attack it there with Capital attacks (or anywhere, once
PATIENCE plies have passed); its capture leaves the three allied King holders, which ends
the game (spec 13).

The two games run side by side (two threads, one browser, eight tabs), so that their waits
for the live updates overlap; if one fails, the other stops at its next move.

Python standard library only. Chromium must be installed: without it the test fails.
"""
import json
import os
import random
import re
import sys
import threading
import time
import traceback
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blackbox  # noqa: E402  (the limits of service/core/limits.h)
import cdp  # noqa: E402
import civil_war_game as cw  # noqa: E402  (the King hunt's geometry and the echo's form)
import four_players as ca  # noqa: E402  (the scripted game, its seats and squares)

VIEWPORT = (1280, 1000)
LIVE_TIMEOUT = 12.0      # seconds for a live update to reach another tab (the page polls every 3 s)
CW_SEED = 20240611       # the Civil War moves' random choices (the dice are the server's)
CW_MAX_PLIES = 220       # the hunt must take West's King before this
PATIENCE = 60            # plies the hunters wait for West's King to reach the Capital
CAPITAL = "h8"
RECENT = blackbox.LIMITS["LIMIT_PAGE_RECENT_MOVES"]   # the latest moves a game page lists
CW_SEATS = cw.SEATS      # South, West, North, East: the turn order
CA_MOVE = re.compile(r"^[KQRBN]?(?P<fr>[a-j]\d{1,2})[-x](?P<to>[a-j]\d{1,2})(?:=(?P<promo>[QRBN]))?$")
CA_MID = 20              # the ply of the mid-game screenshot (North has just castled)
CW_MID = 24

# Civil War's alliances, each declared out of turn (by a seat not to move), as (declarer,
# toward); the first four while South is to move, the last two after South's first move.
CW_ALLIANCES_START = [("North", "South"), ("East", "South"), ("North", "East"), ("East", "North")]
CW_ALLIANCES_LATER = [("South", "North"), ("South", "East")]


def bottom_row_ca(seat):
    """The squares of a Complex Allegiance seat's bottom row, left to right (no corners)."""
    return [sq for sq in ca.expected_grid(seat)[9] if sq not in ca.CORNERS]


def bottom_row_cw(seat):
    """Civil War: South sees rank 1 (a1 to o1) at the bottom; every next seat's view is
    South's turned by (file, rank) -> (rank, 16 - file) (the rules, section 4)."""
    turns = CW_SEATS.index(seat)
    out = []
    for f in range(1, 16):
        x, y = f, 1
        for _ in range(turns):
            x, y = y, 16 - x
        out.append("%s%d" % (cw.FILES[x - 1], y))
    return out


def ca_expected(game):
    """{square: (letter, side)} from a Complex Allegiance game's position (no corners)."""
    out = {}
    for sq, piece in ca.notation_squares(game["position"]["notation"]).items():
        if sq in ca.CORNERS:
            continue
        if piece is None:
            out[sq] = ("", "")
        elif piece[0] in "nesw":
            out[sq] = (piece[-1], {"n": "North", "e": "East", "s": "South", "w": "West"}[piece[0]])
        else:
            out[sq] = (piece[-1], "shared")
    return out


def cw_expected(game):
    pos = game["position"]
    out = {}
    for i, row in enumerate(pos["board"]):
        for f, letter in enumerate(row):
            sq = "%s%d" % (cw.FILES[f], 15 - i)
            out[sq] = (letter or "", pos["owners"][i][f] or "" if letter else "")
    return out


def cw_capital_hunt(army, pos, legal, rnd, ply):
    """The Civil War move to play (its canonical text, from legal): West's King walks to the
    Capital; South, North and East bring their hunters next to it and attack it there
    (Capital attacks, '!'), or anywhere once PATIENCE plies have passed."""
    board = pos["board"]
    moves = [(t, cw.ECHO.match(t)) for t in legal]
    moves = [(t, e) for t, e in moves if e]
    quiet = [(t, e) for t, e in moves if e["sep"] == "-" and not e["cap"]]
    ksq = cw.find(pos, "K", "West")[0]
    route = {"b13", "b12"} if ksq != CAPITAL else set()
    if army == "West":
        if ksq != CAPITAL:
            dist = cw.bfs([CAPITAL], lambda sq: cw.cell(board, sq) is None or sq == ksq)
            steps = [(t, e) for t, e in quiet if e["piece"] == "K"
                     and dist.get(e["to"], 99) < dist.get(e["fr"], 99)]
            if steps:
                low = min(dist[e["to"]] for t, e in steps)
                return rnd.choice([t for t, e in steps if dist[e["to"]] == low])
            queen = [t for t, e in quiet if e["piece"] == "Q" and e["fr"] in ("b13", "b12")
                     and e["to"] not in ("b13", ksq)]
            if queen:
                return rnd.choice(queen)
        filler = [t for t, e in quiet if e["piece"] not in "KG" and e["to"] not in route
                  and cw.fortress_of(e["to"]) in (None, army)]
        if filler:
            return rnd.choice(filler)
    else:
        capital = [t for t in legal if t.endswith("!")]
        if capital and ksq == CAPITAL:
            return max(capital, key=lambda t: (cw.VALUES[t.split(": ", 1)[1][0]], t))
        regicide = [t for t, e in moves if e["sep"] == "x" and not e["cap"] and e["to"] == ksq]
        if regicide and ply >= PATIENCE:
            return rnd.choice(regicide)
        ax, ay = cw.xy(CAPITAL)
        cands, dists = [], {}
        for t, e in quiet:
            if e["piece"] not in cw.HUNTERS:
                continue
            dirs = cw.attack_dirs(army, e["piece"])
            if dirs not in dists:
                targets = [n for df, dr in dirs for n in [cw.name(ax - df, ay - dr)]
                           if n and n != CAPITAL and cw.step_ok(n, CAPITAL)]
                dists[dirs] = cw.bfs(targets)
            d = dists[dirs]
            if d.get(e["to"], 99) < d.get(e["fr"], 99):
                cands.append((d[e["to"]] - cw.VALUES[e["piece"]] / 10, t))
        if cands and rnd.random() < 0.85:
            low = min(c for c, t in cands)
            return rnd.choice([t for c, t in cands if c == low])
        filler = [t for t, e in quiet if e["to"] not in route and e["piece"] != "K"]
        if filler:
            return rnd.choice(filler)
    others = [t for t in legal if "x" not in t.split(": ", 1)[-1] and "!" not in t and "=" not in t
              and not t.startswith(("ally ", "break "))]
    return rnd.choice(others or legal)


# The legal moves as the page lists them (what play.js reads).
LEGAL_JS = """[...document.querySelectorAll('#legal-list code[data-move]')].map(c => ({
  move: c.getAttribute('data-move'),
  places: c.getAttribute('data-places') ? c.getAttribute('data-places').split('|') : [],
  choice: c.getAttribute('data-choice') || '', partial: c.getAttribute('data-partial') === '1'}))"""

# Where an element is on the screen, brought into view first; whether a click at its centre
# reaches it (and not something drawn over it).
WHERE_JS = """((sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  e.scrollIntoView({block: 'center', inline: 'center'});
  const b = e.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {x: x, y: y, w: b.width, h: b.height, hit: !!hit && (hit === e || e.contains(hit)),
          hidden: !!e.closest('[hidden]'), what: hit ? hit.outerHTML.slice(0, 80) : null};
})(%s)"""

# The squares of the drawn board as the screen shows them: name and centre.
SQUARES_JS = """[...document.querySelectorAll('svg#board g.sq[data-square]')].map(g => {
  const b = g.getBoundingClientRect();
  return {sq: g.getAttribute('data-square'), x: b.left + b.width / 2, y: b.top + b.height / 2};
})"""

HISTORY_JS = """[...document.querySelectorAll('ol.moves li')].map(li => ({
  who: (li.querySelector('.who') || {}).textContent, move: li.querySelector('code').textContent,
  note: li.querySelector('.note') ? li.querySelector('.note').textContent : ''}))"""


class Stopped(Exception):
    """The other game failed: this one stops at its next move."""


class Game:
    """One game in four tabs: its id, seats' tabs, links and tokens, and what is known of it."""

    def __init__(self, variant, gid, seats, tabs, urls, tokens):
        self.variant, self.gid, self.seats = variant, gid, seats
        self.tabs, self.urls, self.tokens = tabs, urls, tokens
        self.state = "0|running||"      # the data-state every tab should reach
        self.loads = {}                 # seat -> the tab's load count after its last own page load
        self.history = []               # [(seat, move)]
        self.clicks = 0
        self.last_places = []
        self.choices = []               # the choices clicked from #choices, with the others offered


class PlayFourTest(cdp.BrowserTestCase):
    PREFIX = "rookery-browser-play-four-"

    def setUp(self):
        super().setUp()
        self.t_start = time.monotonic()
        self.stop = threading.Event()     # set when one of the games running side by side failed

    def test_both_games(self):
        """The two games side by side, each in four tabs of its own (so that their waits for
        the live updates overlap); each ends with its own result."""
        outcome = {}

        def run(name, play):
            try:
                outcome[name] = (True, play())
            except Stopped:
                outcome[name] = (False, "stopped, since the other game failed")
            except BaseException:      # noqa: B036  (reported below, with its traceback)
                outcome[name] = (False, traceback.format_exc())
                self.stop.set()

        threads = [threading.Thread(target=run, args=(name, play), name=name) for name, play in
                   (("Complex Allegiance", self.play_complex_allegiance), ("Civil War", self.play_civil_war))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        failed = ["%s:\n%s" % (name, text) for name, (ok, text) in sorted(outcome.items()) if not ok]
        if failed:
            self.fail("\n".join(failed))
        self.assertEqual(len(outcome), 2, outcome)
        for name, (_ok, summary) in sorted(outcome.items()):
            sys.stderr.write("  %s: %s\n" % (name, summary))
        self.report("both games")

    # ---- the API, for creating a game and for reading what to expect ----

    def api(self, path, body=None, token=None):
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode() if body is not None else None,
                                     method="POST" if body is not None else "GET")
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)

    def start_game(self, variant, seats, names, bottom_row):
        g = self.api("/api/games", {"variant": variant, "seats": [{"name": n} for n in names]})
        self.assertEqual([s["seat"] for s in g["seats"]], list(seats))
        urls = {s["seat"]: s["url"] for s in g["seats"]}
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        for s in seats:
            self.assertEqual(urls[s], "%s/games/%s?seat=%s" % (self.base, g["id"], tokens[s]))
        tabs = {}
        for s in seats:
            tab = self.new_tab()
            tab.set_viewport(*VIEWPORT)
            tab.goto(urls[s])
            tabs[s] = tab
        game = Game(variant, g["id"], seats, tabs, urls, tokens)
        for s in seats:
            game.loads[s] = tabs[s].load_count()
            st = tabs[s].js("document.querySelector('#game').getAttribute('data-state')")
            self.assertEqual(st, game.state, s)
            self.check_orientation(tabs[s], s, bottom_row(s))
        return game

    # ---- acting by clicking ----

    def click(self, game, tab, selector, what):
        """A real mouse click at the centre of the element selector names."""
        at = tab.js(WHERE_JS % json.dumps(selector))
        self.assertIsNotNone(at, "%s: nothing matches %s" % (what, selector))
        self.assertFalse(at["hidden"], "%s: %s is hidden" % (what, selector))
        self.assertTrue(at["w"] > 0 and at["h"] > 0, "%s: %s has no size" % (what, selector))
        self.assertTrue(at["hit"], "%s: a click at the centre of %s lands on %s" % (what, selector, at["what"]))
        base = {"x": at["x"], "y": at["y"], "button": "left", "clickCount": 1}
        tab.send("Input.dispatchMouseEvent", dict(base, type="mouseMoved", button="none", clickCount=0))
        tab.send("Input.dispatchMouseEvent", dict(base, type="mousePressed", buttons=1))
        tab.send("Input.dispatchMouseEvent", dict(base, type="mouseReleased", buttons=0))
        game.clicks += 1

    def classes(self, tab, place):
        return tab.js("""((sel) => { const e = document.querySelector(sel);
  return e ? (e.getAttribute('class') || '').split(/\\s+/) : null; })(%s)""" % json.dumps(self.sel_touch(place)))

    def touched(self, tab):
        return tab.js("[...document.querySelectorAll('svg#board .selected')].map(e => e.getAttribute('data-touch'))")

    def sel_touch(self, place):
        return "svg#board [data-touch=%s]" % json.dumps(place)

    def wait_current(self, game, seat, what):
        """seat's tab shows the game's current state, reached by live updates (no page load)."""
        tab = game.tabs[seat]
        want = game.state
        try:
            tab.wait_for("(() => { const g = document.querySelector('#game');"
                         " return g && g.getAttribute('data-state') === %s; })()" % json.dumps(want),
                         timeout=LIVE_TIMEOUT)
        except cdp.WaitTimeout:
            self.fail("%s: %s's tab did not update itself to %r within %.0f s (it shows %r)" % (
                what, seat, want, LIVE_TIMEOUT,
                tab.js("document.querySelector('#game') && document.querySelector('#game').getAttribute('data-state')")))
        self.assertEqual(tab.load_count(), game.loads[seat],
                         "%s: %s's tab loaded a page instead of updating itself" % (what, seat))

    def play(self, game, seat, move, choices=None, cancel_first=False):
        """seat plays move (its canonical text) by clicking; returns the mover's history entry.

        choices: the moves the #choices buttons must offer once the places are touched
        (None: no choice buttons may appear). cancel_first: preview it, cancel, then again."""
        ply = len(game.history)
        what = "ply %d, %s %s" % (ply, seat, move)
        if self.stop.is_set():
            raise Stopped()
        tab = game.tabs[seat]
        self.wait_current(game, seat, what)
        legal = tab.js(LEGAL_JS)
        entry = [m for m in legal if m["move"] == move]
        self.assertEqual(len(entry), 1, "%s: not among the legal moves of the page: %r" % (
            what, [m["move"] for m in legal]))
        entry = entry[0]
        self.assertFalse(entry["partial"], what)
        for attempt in range(2 if cancel_first else 1):
            if entry["places"]:
                self.click_places(game, tab, legal, entry, choices, what)
            else:
                self.assertIsNone(choices, "%s touches nothing: no choices to make" % what)
                sel = "#actions button[data-choice=%s]" % json.dumps(move)
                self.assertEqual(tab.js("document.querySelector(%s).textContent" % json.dumps(sel)),
                                 entry["choice"] or move, what)
                self.click(game, tab, sel, what)
            shown = tab.wait_for("""(() => { const p = document.querySelector('#preview');
  return p && !p.hidden ? document.querySelector('#preview-move').textContent : null; })()""", timeout=10)
            self.assertEqual(shown, move, "%s: the preview shows %r" % (what, shown))
            if attempt == 0 and cancel_first:
                self.click(game, tab, "#preview [data-action=cancel]", what + " (cancel)")
                self.assertTrue(tab.js("document.querySelector('#preview').hidden"), what)
                self.assertEqual(self.touched(tab), [], "%s: cancel leaves squares selected" % what)
        before = tab.load_count()
        self.click(game, tab, "#preview [data-action=confirm]", what + " (confirm)")
        self.browser.wait_load(tab.session, before)
        self.assertEqual(tab.load_count(), before + 1, what)
        game.loads[seat] = tab.load_count()
        err = tab.js("(document.querySelector('#error') || {}).textContent || null")
        self.assertIsNone(err, "%s: the server refused it: %s" % (what, err))
        state = tab.js("document.querySelector('#game').getAttribute('data-state')")
        self.assertTrue(state.startswith("%d|" % (ply + 1)), "%s: the page's state is %r" % (what, state))
        game.state = state
        game.history.append((seat, move))
        game.last_places = entry["places"]
        hist = tab.js(HISTORY_JS)
        self.assertEqual([(h["who"], h["move"]) for h in hist], game.history[-RECENT:], what)
        return hist[-1]

    def click_places(self, game, tab, legal, entry, choices, what):
        places = entry["places"]
        for i, place in enumerate(places):
            cls = self.classes(tab, place)
            self.assertIsNotNone(cls, "%s: no square %s on the board" % (what, place))
            self.assertIn("movable" if i == 0 else "target", cls,
                          "%s: %s is not highlighted before touch %d" % (what, place, i + 1))
            self.click(game, tab, self.sel_touch(place), "%s (touch %s)" % (what, place))
            if i + 1 < len(places):
                self.assertEqual(self.touched(tab), places[:i + 1], what)
        same = sorted(m["move"] for m in legal if m["places"] == places)
        buttons = tab.js("[...document.querySelectorAll('#choices button[data-choice]')]"
                         ".map(b => b.getAttribute('data-choice'))")
        if choices == "any":
            # Whatever the page lists: the moves sharing these places, if more than one.
            choices = same if len(same) > 1 else None
        if choices is None:
            self.assertEqual(buttons, [], "%s: unexpected choices after touching %s" % (what, places))
            self.assertEqual(same, [entry["move"]], what)
        else:
            self.assertEqual(sorted(buttons), sorted(choices), "%s: the choices after %s" % (what, places))
            self.assertEqual(same, sorted(choices), what)
            labels = tab.js("Object.fromEntries([...document.querySelectorAll('#choices button[data-choice]')]"
                            ".map(b => [b.getAttribute('data-choice'), b.textContent]))")
            for m in legal:
                if m["move"] in labels:
                    self.assertEqual(labels[m["move"]], m["choice"] or m["move"], what)
            self.click(game, tab, "#choices button[data-choice=%s]" % json.dumps(entry["move"]),
                       what + " (choice)")
            game.choices.append("%s from %s" % (entry["move"], sorted(choices)))

    # ---- checking what the tabs show ----

    def check_orientation(self, tab, seat, want):
        """The seat's home edge is drawn at the bottom, left to right as want lists it."""
        squares = tab.js(SQUARES_JS)
        ys = sorted({round(s["y"]) for s in squares})
        bottom = sorted((s for s in squares if round(s["y"]) >= ys[-1] - 2), key=lambda s: s["x"])
        self.assertEqual([s["sq"] for s in bottom], want, "%s's bottom row" % seat)
        top = [s for s in squares if round(s["y"]) <= ys[0] + 2]
        self.assertFalse({s["sq"] for s in top} & set(want), seat)

    def check_board(self, game, seat, expected, what):
        board = game.tabs[seat].board()
        self.assertIsNotNone(board, what)
        self.assertEqual(set(board), set(expected), "%s: %s's board has other squares" % (what, seat))
        wrong = {sq: ((board[sq], board.sides[sq]), want) for sq, want in expected.items()
                 if (board[sq], board.sides[sq]) != want}
        self.assertEqual(wrong, {}, "%s: %s's tab draws (piece, side) != the position's" % (what, seat))
        return board

    def check_last(self, game, board, what):
        """The squares the move touched are outlined as the last move's."""
        self.assertLessEqual(set(game.last_places), set(board.last),
                             "%s touched %s; the squares marked last are %s" % (what, game.last_places, board.last))

    def witness(self, game, mover, nxt, what):
        """The tab that acts next (or another seat's, when the mover acts again) takes the
        move by a live update; its history and board are the mover's. Returns its seat."""
        seat = nxt if nxt != mover else game.seats[(game.seats.index(mover) + 1) % 4]
        self.wait_current(game, seat, what)
        hist = game.tabs[seat].js(HISTORY_JS)
        self.assertEqual(hist, game.tabs[mover].js(HISTORY_JS), "%s: %s's history" % (what, seat))
        return seat

    def end(self, game, what, result_words):
        """Every tab shows the end by a live update (the mover's by its own load)."""
        texts = {}
        for s in game.seats:
            self.wait_current(game, s, what)
            st = game.tabs[s].state()
            self.assertIn(result_words, st["result"] or "", s)
            self.assertIsNone(st["turn"], s)
            self.assertFalse(st["move_form"], s)
            self.assertFalse(st["can_resign"], s)
            self.assertEqual([m for _s, m in game.history[-RECENT:]], st["history"], s)
            texts[s] = (st["result"], game.tabs[s].js("(document.querySelector('p.places') || {}).textContent"))
            self.assertEqual(game.tabs[s].js("[...document.querySelectorAll('#actions button, #choices button')].length"), 0)
        self.assertEqual(len(set(texts.values())), 1, texts)
        return texts[game.seats[0]]

    def no_console_errors(self, game):
        for s in game.seats:
            cdp.assert_no_console_errors(self, game.tabs[s])

    def report(self, what):
        sys.stderr.write("  %s (%.1f s)\n" % (what, time.monotonic() - self.t_start))

    # ---- Complex Allegiance Chess: the scripted game ----

    def play_complex_allegiance(self):
        game = self.start_game(ca.VARIANT, ca.SEATS, ca.NAMES, bottom_row_ca)
        for s in ca.SEATS:
            game.tabs[s].screenshot("play-four-ca-start-%s" % s.lower(), full_page=True)
        for ply, (seat, _text, canon, note) in enumerate(ca.SCRIPT):
            what = "ply %d, %s %s" % (ply, seat, canon)
            choices = None
            if canon.startswith("b2-b1="):
                choices = ["b2-b1=%s" % p for p in "QRBN"]
            if ply == 26:
                legal = [m["move"] for m in game.tabs[seat].js(LEGAL_JS)]
                self.assertIn("c4xb3", legal, "en passant is offered to South")
            before = ca_expected(self.api("/api/games/%s" % game.gid))
            last = self.play(game, seat, canon, choices=choices, cancel_first=ply == 0)
            self.assertEqual(last["note"], "(%s)" % note if note else "", what)
            after = ca_expected(self.api("/api/games/%s" % game.gid))
            board = self.check_board(game, seat, after, what)
            # The move itself, from the script: the squares it changes.
            for sq, piece in ca.AFTER.get(ply, {}).items():
                self.assertEqual(board[sq], piece[-1] if piece else "", "%s: %s" % (what, sq))
            m = CA_MOVE.match(canon)
            if m:
                frm, to = m.group("fr"), m.group("to")
                self.assertEqual(board[frm], "", "%s: %s is still occupied" % (what, frm))
                self.assertEqual((board[to], board.sides[to]), (m.group("promo") or before[frm][0], before[frm][1]),
                                 "%s: %s" % (what, to))
            else:
                self.assertEqual(canon, "O-O", what)
            self.check_last(game, board, what)
            nxt = ca.SEATS[(ply + 1) % 4]
            if ply + 1 < len(ca.SCRIPT):
                w = self.witness(game, seat, nxt, what)
                self.check_board(game, w, after, what + " (live)")
                # Only the seat to move has the move form; its pieces that can move are marked.
                for s in (seat, w):
                    self.assertEqual(game.tabs[s].js("!!document.querySelector('#move-form')"), s == nxt, s)
                self.assertGreater(game.tabs[w].js("document.querySelectorAll('svg#board .movable').length"), 0)
            if ply == CA_MID:
                game.tabs[seat].screenshot("play-four-ca-mid", full_page=True)
        result, places = self.end(game, "the end", "South wins: North's King captured")
        self.assertIn("South 1st, East and West share 2nd, North 4th", result)
        for s in ca.SEATS:
            game.tabs[s].screenshot("play-four-ca-end-%s" % s.lower(), full_page=True)
            self.check_orientation(game.tabs[s], s, bottom_row_ca(s))
        final = self.api("/api/games/%s" % game.gid)
        self.assertEqual(final["status"], "over")
        self.assertEqual(final["ply"], len(ca.SCRIPT))
        self.no_console_errors(game)
        self.assertEqual(len(game.choices), 1, game.choices)
        return "%d plies, %d clicks, choices %s; %s (%.1f s)" % (
            len(game.history), game.clicks, game.choices, result, time.monotonic() - self.t_start)

    # ---- Civil War: alliances, the King hunt to the Capital ----

    def cw_declare(self, game, seat, toward):
        """seat, not to move, declares alliance toward another seat by its #actions button."""
        g = self.api("/api/games/%s" % game.gid)
        self.assertNotIn(seat, g["turn"], "the declaration is meant to be out of turn")
        move = "ally %s" % toward
        # Not to move, the seat has the move form for its declarations only: buttons, no board moves.
        tab = game.tabs[seat]
        self.wait_current(game, seat, "%s %s" % (seat, move))
        listed = tab.js(LEGAL_JS)
        self.assertTrue(listed and all(m["move"].startswith(("ally ", "break ")) and not m["places"]
                                       for m in listed), listed)
        self.assertEqual(sorted(tab.js("[...document.querySelectorAll('#actions button')]"
                                       ".map(b => b.getAttribute('data-choice'))")),
                         sorted(m["move"] for m in listed))
        self.assertEqual(tab.js("document.querySelectorAll('svg#board .movable').length"), 0)
        last = self.play(game, seat, move)
        what = "%s %s" % (seat, move)
        after = self.api("/api/games/%s" % game.gid)
        self.assertEqual(after["turn"], g["turn"], "%s: a declaration is not an action" % what)
        self.check_board(game, seat, cw_expected(after), what)
        nxt = after["turn"][0]
        w = self.witness(game, seat, nxt, what)
        self.check_board(game, w, cw_expected(after), what + " (live)")
        return last, after

    def cw_turn(self, game):
        g = self.api("/api/games/%s" % game.gid)
        self.assertEqual(g["status"], "running", g["position"]["notes"])
        self.assertEqual(len(g["turn"]), 1, g["turn"])
        m = re.match(r"^To act: (?:(\w+)'s army, moved by (\w+)|(\w+))", g["position"]["notes"][0])
        self.assertTrue(m, g["position"]["notes"])
        army = m.group(1) or m.group(3)
        return g, g["turn"][0], army

    def check_cw_move(self, move, note, before, board, what):
        """The drawn board after a Civil War move, from the move and the roll's result."""
        e = cw.ECHO.match(move)
        if not e:
            return
        fr, to = e["fr"], e["to"]
        piece = before[fr]
        band = "success"
        if e["sep"] == "x" or e["cap"]:
            m = cw.RESULT.match(note)
            self.assertTrue(m, "%s: %r" % (what, note))
            band = m["band"].split(",")[0]
        promoted = re.search(r"promotes to ([GAOM])", note)
        if band == "draw":
            self.assertEqual((board[fr], board.sides[fr]), piece, what)
            self.assertEqual((board[to], board.sides[to]), before[to], what)
        elif band == "failure":
            self.assertEqual(board[fr], "", what)
            self.assertEqual((board[to], board.sides[to]), before[to], what)
        else:
            self.assertEqual(board[fr], "", what)
            self.assertEqual((board[to], board.sides[to]),
                             (promoted.group(1) if promoted else piece[0], piece[1]), what)
        if e["cap"] and band == "success":
            self.assertEqual(board[CAPITAL], "", "%s: the King stays on the Capital" % what)

    def play_civil_war(self):
        game = self.start_game("civil-war", CW_SEATS, cw.NAMES, bottom_row_cw)
        for s in CW_SEATS:
            game.tabs[s].screenshot("play-four-cw-start-%s" % s.lower(), full_page=True)
        rnd = random.Random(CW_SEED)
        declared, capital, attacks, kings_lost = [], [], [], []
        on_capital = False      # West's King has reached the Capital
        for seat, toward in CW_ALLIANCES_START:
            declared.append(self.cw_declare(game, seat, toward)[0])
        later = list(CW_ALLIANCES_LATER)
        moves = 0
        while True:
            g, mover, army = self.cw_turn(game)
            if later and mover != "South" and moves:
                for seat, toward in later:
                    declared.append(self.cw_declare(game, seat, toward)[0])
                later = []
                g, mover, army = self.cw_turn(game)
            self.assertLess(moves, CW_MAX_PLIES, "West's King still stands after %d moves" % moves)
            self.wait_current(game, mover, "ply %d" % len(game.history))
            mine = self.api("/api/games/%s" % game.gid, token=game.tokens[mover])
            listed = game.tabs[mover].js(LEGAL_JS)
            self.assertEqual(listed, mine["legal"], "the page lists the API's legal moves")
            legal = [m["move"] for m in listed]
            pos = mine["position"]
            move = cw_capital_hunt(army, pos, [t for t in legal if not t.startswith(("ally ", "break "))],
                                   rnd, len(game.history))
            what = "ply %d, %s %s" % (len(game.history), mover, move)
            before = cw_expected(g)
            last = self.play(game, mover, move, choices="any", cancel_first=moves == 0)
            moves += 1
            note = last["note"][1:-1] if last["note"] else ""
            after_g = self.api("/api/games/%s" % game.gid)
            after = cw_expected(after_g)
            board = self.check_board(game, mover, after, what)
            self.check_cw_move(move, note, before, board, what)
            self.check_last(game, board, what)
            if move.endswith("!"):
                capital.append("%s (%s)" % (move, note))
            elif "x" in move.split(": ", 1)[1]:
                attacks.append("%s (%s)" % (move, note))
            if after_g["status"] == "running" and cw.find(after_g["position"], "K", "West") == [CAPITAL]:
                on_capital = True
            if "King lost" in note:
                kings_lost.append("%s (%s)" % (move, note))
            if after_g["status"] != "running":
                break
            nxt = after_g["turn"][0]
            w = self.witness(game, mover, nxt, what)
            self.check_board(game, w, after, what + " (live)")
            if moves == CW_MID:
                game.tabs[mover].screenshot("play-four-cw-mid", full_page=True)
        self.assertTrue(kings_lost, "the game ended without a King captured")
        self.assertIn("West's army passes to", kings_lost[-1])
        if on_capital:
            self.assertTrue(capital, "West's King stood on the Capital and no Capital attack was made")
        result, places = self.end(game, "the end", "Draw for South, North and East")
        final = self.api("/api/games/%s" % game.gid)
        self.assertEqual(final["status"], "over")
        self.assertEqual(final["result"]["ranks"], [1, 4, 1, 1], final["result"])
        for s in CW_SEATS:
            game.tabs[s].screenshot("play-four-cw-end-%s" % s.lower(), full_page=True)
            self.check_orientation(game.tabs[s], s, bottom_row_cw(s))
        self.no_console_errors(game)
        return ("%d plies (%d moves, %d declarations), %d clicks; attacks %d; Capital attacks %s; "
                "choices %s; King lost: %s; %s (%.1f s)" % (
                    len(game.history), moves, len(declared), game.clicks, len(attacks), capital,
                    game.choices, kings_lost, result, time.monotonic() - self.t_start))


if __name__ == "__main__":
    cdp.main("browser_play_four.py /path/to/rookery")
