"""harness.four_tabs - four-seat games played by clicking, in four headless Chromium tabs, one a seat.

FourTabsCase (a cdp.BrowserTestCase) creates a game over the API and opens each seat's private
link in a tab of its own. play() makes a move as a player makes it: real mouse clicks
(Input.dispatchMouseEvent at the centre of the element) on the drawn board's squares
(svg#board [data-touch]) in the order the move's gesture lists them (#legal-list
code[data-places]), then on the choice button if several moves share those places (#choices), or
on the move's button when it touches nothing (#actions); the preview (#preview-move) must show
the expected canonical text; "Play this move" posts it. The test reads the page (and GET
/api/games) to decide where to click; it never types a move nor calls a script of the page.

After every move the mover's tab (reloaded by its form) shows the move last in the history
(witness() then checks that another seat's tab takes it by a live update: data-state changes, no
page load); check_board() compares a tab's drawn board with the API's position, and
check_orientation() that each seat's home edge is drawn at the bottom.

Python standard library and harness.cdp.
"""
import json
import sys
import time

from harness import cdp, daemon

VIEWPORT = (1280, 1000)
LIVE_TIMEOUT = 12.0      # seconds for a live update to reach another tab (the page polls every 3 s)
RECENT = daemon.LIMITS["LIMIT_PAGE_RECENT_MOVES"]   # the latest moves a game page lists


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


class FourTabsCase(cdp.BrowserTestCase):
    """Four-seat games by clicking, one tab a seat (a Game holds them)."""
    PREFIX = "rookery-browser-play-four-"

    def setUp(self):
        super().setUp()
        self.t_start = time.monotonic()

    # ---- the API, for creating a game and for reading what to expect ----

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
