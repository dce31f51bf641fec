#!/usr/bin/env python3
"""nchess_typed.py - whole Nchess games played in a real, headless Chromium, moves typed into the form.

Usage: nchess_typed.py /path/to/rookery

Starts its own server (127.0.0.1, port 0, fresh database, --demo) and its own
headless Chromium, driven over the DevTools protocol on a pipe (tests/harness/cdp.py).
Python 3 standard library only. Chromium must be installed (scripts/deps.sh):
without it the test fails, it does not skip.

The moves are typed into the move form (the path that works without script);
the board is read from the drawn SVG (svg#board). One tab's moves reach the
other tab by reloading it, and a few times by the page's live updates (no
navigation: the tab's load count stays, its #game is replaced). No tab may log
a console error other than the 422 answer to a move the test has refused on
purpose. Screenshots (start, mid-game, end, phone) are kept as artifacts
($ROOKERY_ARTIFACTS, else ./screenshots). A seat's first visit must give the seat a
random client seed for the dice (GET /api/games/{id}), a later visit keep it.
"""

import json
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import cdp, daemon  # noqa: E402

SEED = int(os.environ.get("ROOKERY_BROWSER_SEED", "1"))
MAX_PLIES = 400          # a whole game must end before this
LIVE_TIMEOUT = 10.0      # seconds for a live update to reach another tab (it polls every 3 s)
MIDGAME = 20             # the ply of the mid-game screenshot
# The answer to a move the server refuses (an illegal one, a prefix that needs placements):
# Chromium logs it as a failed load, which is expected exactly where the test provokes it.
REFUSED_MOVE = r"status of 422 .*/games/\w+/move\)$"


def parse_move(text):
    """'S 7 1 6 1 4 / s 3 3' -> (letter, (fr, fc), (tr, tc)) of the main move."""
    m = re.match(r"\s*([A-Za-z])\s*(\d)\s*(\d)\s*(\d)\s*(\d)", text)
    if not m:
        raise AssertionError("unreadable legal move %r" % text)
    return m.group(1), (int(m.group(2)), int(m.group(3))), (int(m.group(4)), int(m.group(5)))


def sq(rc):
    return "%d %d" % rc


class BrowserTest(cdp.BrowserTestCase):
    SERVER_ARGS = ("--demo",)
    PREFIX = "rookery-browser-"

    def setUp(self):
        super().setUp()
        self.assertEqual(set(self.server.demo), {"South", "North"},
                         "no demo seat links: %r" % self.server.lines)
        self.a = self.new_tab()
        self.b = self.new_tab()
        for tab in (self.a, self.b):
            tab.set_viewport(1200, 900)

    # Helpers -----------------------------------------------------------

    def create_game(self, south, north):
        """Choose Nchess on the home page, fill in its form; return {seat: url} from the created page."""
        self.a.goto(self.base + "/")
        self.assertIn("Rookery", self.a.js("document.title"))
        self.a.act("document.querySelector('a.game-pick[href=\"/new/nchess\"]').click()")
        self.assertEqual(self.a.url(), self.base + "/new/nchess")
        self.a.act("""(() => {
  const f = document.querySelector('form.create');
  f.querySelector('input[name=name0]').value = %s;
  f.querySelector('input[name=name1]').value = %s;
  f.querySelector('button[type=submit]').click();
})()""" % (json.dumps(south), json.dumps(north)))
        links = self.a.js("""[...document.querySelectorAll('ul.links li')].map(li => ({
  seat: li.querySelector('strong').textContent, text: li.textContent,
  url: li.querySelector('a').href}))""")
        self.assertEqual([l["seat"] for l in links], ["South", "North"], links)
        self.assertIn("(%s)" % south, links[0]["text"])
        self.assertIn("(%s)" % north, links[1]["text"])
        for l in links:
            self.assertTrue(l["url"].startswith(self.base + "/games/"), l["url"])
            self.assertIn("seat=", l["url"])
        self.assertIn("only once", self.a.js("document.body.textContent"))
        return {l["seat"]: l["url"] for l in links}

    def open_seats(self, urls):
        """Open each seat's page and wait until its first visit has set the seat's client seed:
        a change made at once (a resignation) may otherwise end the game before the seed comes,
        which is then refused (409) in the console."""
        tabs = {"South": self.a, "North": self.b}
        for seat, tab in tabs.items():
            tab.goto(urls[seat])
            tab.wait_for("!!document.querySelector('#client-seeds code[data-seat=\"%s\"]')" % seat)
        return tabs

    def assert_running_seat(self, st, seat, to_move):
        self.assertTrue(st["has_board"], st)
        self.assertEqual(len(st["board"]), 81, st["board"])
        self.assertIsNone(st["result"], st)
        self.assertIsNotNone(st["turn"], st)
        self.assertRegex(st["data_state"] or "", r"^\d+\|running\|", st)
        if to_move:
            self.assertIn("Your move", st["turn"])
            self.assertTrue(st["move_input"], st)
            self.assertTrue(st["legal"], "no legal moves listed")
        else:
            self.assertNotIn("Your move", st["turn"])
            self.assertIn("You play %s" % seat, st["turn"])
            self.assertFalse(st["move_form"], st)
            self.assertEqual(st["legal"], [])

    def wait_live(self, tab, data_state_prefix, what):
        """tab's page, left alone, takes the new state by a live update (no page load);
        returns its state afterwards."""
        loads = tab.load_count()
        t = time.monotonic()
        try:
            tab.wait_for("(document.querySelector('#game') || {getAttribute: () => ''})"
                         ".getAttribute('data-state').startsWith(%s)" % json.dumps(data_state_prefix),
                         timeout=LIVE_TIMEOUT)
        except cdp.WaitTimeout:
            self.fail("%s: the other tab did not update itself within %.0f s (its data-state is %r)"
                      % (what, LIVE_TIMEOUT, tab.js("document.querySelector('#game') && "
                                                    "document.querySelector('#game').getAttribute('data-state')")))
        self.assertEqual(tab.load_count(), loads, "%s: the tab loaded a page instead of updating itself" % what)
        self.live_updates = getattr(self, "live_updates", []) + ["%s %.1f s" % (what, time.monotonic() - t)]
        return tab.state()

    def expect_refused(self, tab, what):
        """The one failed load a refused move leaves in the console, and no other."""
        gone = tab.forget_console_errors(REFUSED_MOVE)
        self.assertEqual(len(gone), 1, "%s: expected one 422 in the console, saw %r (all: %r)"
                         % (what, gone, tab.console_errors()))

    # The tests ---------------------------------------------------------

    def test_1_demo_links(self):
        """The --demo seat links open their seats; only South may move first."""
        d = self.server.demo
        self.assertEqual(d["South"][0], "Ann")
        self.assertEqual(d["North"][0], "Ben")
        tabs = self.open_seats({"South": d["South"][1], "North": d["North"][1]})
        south, north = tabs["South"].state(), tabs["North"].state()
        self.assert_running_seat(south, "South", True)
        self.assert_running_seat(north, "North", False)
        self.assertIn("Ann (South)", south["turn"])
        self.assertIn("South (Ann) to move", north["turn"])
        for st in (south, north):
            self.assertRegex(st["players"], r"South: Ann\s*North: Ben")
            self.assertEqual(st["data_state"], "0|running||")
        # The start position, seen from both sides (by square name, not by position).
        for st in (south, north):
            board = st["board"]
            self.assertEqual(board["9 5"], "G")
            self.assertEqual(board["1 5"], "g")
            self.assertEqual(board["7 1"], "S")
            self.assertEqual(board["5 5"], "")
            self.assertEqual(board.sides["9 5"], "South")
            self.assertEqual(board.sides["1 5"], "North")
            self.assertIn("river", board.kinds["5 5"])
            self.assertIn("prison", board.kinds["9 4"])
            self.assertEqual(board.held, {})
            self.assertEqual(board.last, [])
            self.assertEqual(board.hands, [])
        # Each square's <title> names it and its piece.
        self.assertEqual(tabs["South"].js(
            "document.querySelector('svg#board [data-square=\"9 5\"] > title').textContent"), "9 5: South G")
        # South sees row 1 at the top; North's view is turned round.
        at = {s: {rc: name for name, rc in st["board"].rc.items()} for s, st in
              (("South", south), ("North", north))}
        self.assertEqual(at["South"][(0, 0)], "1 1")
        self.assertEqual(at["South"][(8, 8)], "9 9")
        self.assertEqual(at["North"][(0, 0)], "9 9")
        self.assertEqual(at["North"][(8, 8)], "1 1")
        tabs["South"].screenshot("browser-start-south", full_page=True)
        tabs["North"].screenshot("browser-start-north", full_page=True)
        self.assert_no_console_errors()
        self.report("demo links")

    def test_2_whole_game(self):
        """A new game from the home page, played to the capture of a General."""
        rng = random.Random(SEED)
        urls = self.create_game("Ann", "Ben")
        tabs = self.open_seats(urls)
        other = {"South": "North", "North": "South"}
        plies = 0
        illegal_tried = False
        phone_checked = False
        seat = "South"
        while True:
            tab = tabs[seat]
            st = tab.state()
            if st["result"] is not None:
                break
            self.assertLess(plies, MAX_PLIES, "the game did not end in %d plies" % MAX_PLIES)
            self.assert_running_seat(st, seat, True)
            self.assertEqual(st["ply"], str(plies))
            self.assertTrue(st["data_state"].startswith("%d|" % plies), st["data_state"])
            if not phone_checked and plies >= 6:
                self.check_phone(tab, urls[seat])
                phone_checked = True
                st = tab.state()
            if not illegal_tried:
                self.check_illegal(tab, urls[seat], tabs[other[seat]], urls[other[seat]], st, seat)
                illegal_tried = True
                st = tab.state()
            move, dest, letter, places = self.play_one(tab, st, seat, rng)
            plies += 1
            after = tab.state()
            self.assertIsNone(after["error"], "move %r refused: %r" % (move, after["error"]))
            self.assertEqual(after["history"][-1].split(" (")[0].lower()[:9], move.lower()[:9])
            self.assertTrue(after["data_state"].startswith("%d|" % plies), after["data_state"])
            if places:
                # The move's places are outlined as the last move's.
                self.assertLessEqual(set(places), set(after["board"].last),
                                     "%s touched %r; the squares marked last are %r" %
                                     (move, places, after["board"].last))
            if plies == MIDGAME:
                tab.screenshot("browser-midgame", full_page=True)
            # The other seat's tab shows the piece on its destination: by a live update for
            # the game's first and last moves, by a reload for the others.
            peer = tabs[other[seat]]
            if plies == 1 or after["result"] is not None:
                seen = self.wait_live(peer, after["data_state"],
                                      "ply %d (%s)" % (plies, "the first move" if plies == 1 else "the end"))
                self.assertEqual(seen["data_state"], after["data_state"])
            else:
                peer.goto(urls[other[seat]])
                seen = peer.state()
            shown = seen["board"][sq(dest)]
            expect = {letter}
            if letter in "Ss":  # promotion on the last row
                expect.add("O" if letter == "S" else "o")
            self.assertIn(shown, expect, "after %s the %s tab shows %r on [%s]" %
                          (move, other[seat], shown, sq(dest)))
            self.assertEqual(seen["history"], after["history"])
            self.assertEqual(dict(seen["board"]), dict(after["board"]))
            self.assertEqual(sorted(seen["board"].last), sorted(after["board"].last))
            if after["result"] is None:
                self.assert_running_seat(after, seat, False)
                self.assert_running_seat(seen, other[seat], True)
            seat = other[seat]
        # Both tabs show the end; neither can move any more.
        live_end = {s: tabs[s].state() for s in ("South", "North")}
        for s in ("South", "North"):
            tabs[s].screenshot("browser-end-%s" % s.lower(), full_page=True)
            tabs[s].goto(urls[s])
        south, north = tabs["South"].state(), tabs["North"].state()
        for s, st in (("South", south), ("North", north)):
            self.assertEqual(st["history"], live_end[s]["history"])
            self.assertEqual(st["result"], live_end[s]["result"])
        self.assertEqual(south["result"], north["result"])
        self.assertRegex(south["result"], r"(South|North) wins")
        self.assert_over(south, "wins")
        self.assert_over(north, "wins")
        self.assertTrue(phone_checked, "the game ended before the phone check")
        self.assertTrue(illegal_tried, "the game ended before the illegal move")
        self.assert_no_console_errors()
        notes = " ".join(tabs["South"].js("[...document.querySelectorAll('ol.moves li .note')].map(n => n.textContent)"))
        self.report("whole game: %d plies, %s; %d captures, %d releases, %d promotions, %d completed; "
                    "live updates: %s" % (
                        plies, south["result"], notes.count("captures"), notes.count("releases"),
                        notes.count("promotes"), getattr(self, "placements_done", 0),
                        ", ".join(getattr(self, "live_updates", []))))

    def test_3_draw(self):
        urls = self.create_game("Cy", "Di")
        tabs = self.open_seats(urls)
        tabs["South"].play("S 7 5 6 5")
        self.assertIsNone(tabs["South"].state()["error"])
        # North offers; South sees the offer come (live) and accepts.
        tabs["North"].goto(urls["North"])
        self.assertTrue(tabs["North"].state()["can_offer"])
        tabs["North"].click_draw("offer")
        st = tabs["North"].state()
        self.assertIsNone(st["error"], st)
        self.assertIn("North offers a draw", st["offer"] or "")
        self.assertFalse(st["can_accept"], "the offering side may not accept its own offer")
        self.assertEqual(st["data_state"], "1|running|North|North,")
        st = self.wait_live(tabs["South"], "1|running|North|", "the draw offer")
        self.assertIn("North offers a draw", st["offer"] or "")
        self.assertTrue(st["can_accept"], st)
        # Accepted from the page the live update put in place.
        tabs["South"].click_draw("accept")
        st = self.wait_live(tabs["North"], "1|over|", "the accepted draw")
        self.assert_over(st, "drawn by agreement")
        tabs["North"].goto(urls["North"])
        for s in ("South", "North"):
            st = tabs[s].state()
            self.assertIsNone(st["error"], st)
            self.assert_over(st, "drawn by agreement")
        self.assert_no_console_errors()
        self.report("draw")

    def test_4_resign(self):
        urls = self.create_game("Ed", "Flo")
        tabs = self.open_seats(urls)
        # North resigns while it is South's turn (resigning is allowed at any time).
        self.assertTrue(tabs["North"].state()["can_resign"])
        tabs["North"].resign()
        st = self.wait_live(tabs["South"], "0|over|", "the resignation")
        self.assert_over(st, "South wins")
        tabs["South"].goto(urls["South"])
        for s in ("South", "North"):
            st = tabs[s].state()
            self.assertIsNone(st["error"], st)
            self.assert_over(st, "South wins")
        self.assert_no_console_errors()
        self.report("resign")

    def test_5_client_seed_by_default(self):
        """A seat's first visit sets a random client seed for the dice (play.js through the seat's
        own form); a later visit keeps it, a spectator sets none, and the page shows it."""
        d = self.server.demo
        gid = re.search(r"/games/(\w+)\?seat=", d["South"][1]).group(1)

        def seeds():
            g = self.api("/api/games/%s" % gid)
            self.assertTrue(g["client_seeds_open"], g)
            return {s["seat"]: s["client_seed"] for s in g["seats"]}

        self.assertEqual(seeds(), {"South": None, "North": None})
        self.a.goto("%s/games/%s" % (self.base, gid))
        self.assertIsNone(self.a.js("document.getElementById('seed-form')"))
        self.b.goto(d["South"][1])
        deadline = time.monotonic() + LIVE_TIMEOUT
        while seeds()["South"] is None and time.monotonic() < deadline:
            time.sleep(0.1)
        south = seeds()["South"]
        self.assertRegex(south or "", r"^[0-9a-f]{32}$")
        self.assertIsNone(seeds()["North"], "only the visited seat gets a seed")
        # The page shows the seed it set, in the form and in the list of client seeds.
        self.b.wait_for("!!document.querySelector('#client-seeds code[data-seat=\"South\"]')")
        self.assertEqual(self.b.js("document.querySelector('#client-seeds code[data-seat=\"South\"]').textContent"), south)
        self.assertEqual(self.b.js("document.getElementById('client-seed').value"), south)
        # A second visit keeps the seed; North's first visit sets another one.
        self.b.goto(d["South"][1])
        self.assertEqual(self.b.js("document.getElementById('seed-form').getAttribute('data-auto')"), "")
        self.assertEqual(self.b.js("document.getElementById('client-seed').value"), south)
        self.a.goto(d["North"][1])
        deadline = time.monotonic() + LIVE_TIMEOUT
        while seeds()["North"] is None and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(seeds()["South"], south)
        self.assertRegex(seeds()["North"] or "", r"^[0-9a-f]{32}$")
        self.assertNotEqual(seeds()["North"], south)
        self.assert_no_console_errors()
        self.report("client seeds")

    def test_6_deadline_in_local_time(self):
        """A timed game's page gives each deadline in UTC (<time datetime>), which play.js shows
        in the reader's own time zone."""
        gid = self.api("/api/games", {"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}],
                                      "clock": {"type": "per_move", "days": 2}})["id"]
        deadline = self.api("/api/games/%s" % gid)["clock"]["seats"][0]["deadline"]
        self.a.send("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Kolkata"})
        try:
            self.a.goto("%s/games/%s" % (self.base, gid))
            self.a.wait_for("!!document.querySelector('#clock time')")
            shown = self.a.js("(() => { const t = document.querySelector('#clock time'); "
                              "return [t.getAttribute('datetime'), t.textContent]; })()")
        finally:
            self.a.send("Emulation.setTimezoneOverride", {"timezoneId": ""})
        self.assertEqual(shown[0], deadline)
        self.assertNotIn("UTC", shown[1])
        # India is 5:30 ahead of UTC all year: the minutes move by half an hour.
        minute = (int(deadline[14:16]) + 30) % 60
        self.assertIn(":%02d" % minute, shown[1])
        self.assertIn("GMT+5:30", shown[1])
        self.assert_no_console_errors()
        self.report("deadline in local time")

    # Pieces of the whole game -----------------------------------------

    def play_one(self, tab, st, seat, rng):
        """Choose a legal move from the page, play it; complete it if it frees prisoners.
        Returns the move, its destination, the piece moved and the places the page lists for it."""
        board = st["board"]
        mine = str.isupper if seat == "South" else str.islower
        theirs = str.islower if seat == "South" else str.isupper
        enemy_general = "g" if seat == "South" else "G"
        target = next(k for k, v in board.items() if v == enemy_general)
        tr, tc = map(int, target.split())
        # The enemy's prison squares, which hold my captured pieces.
        prisons = ("1 4", "1 6") if seat == "South" else ("9 4", "9 6")
        wins, frees, captures, closer, rest = [], [], [], [], []
        for text in st["legal"]:
            letter, frm, dest = parse_move(text)
            self.assertTrue(mine(board[sq(frm)]), "listed move %r starts on %r"
                            % (text, board[sq(frm)]))
            held = board[sq(dest)]
            if held == enemy_general:
                wins.append(text)
            elif sq(dest) in prisons and board.held.get(sq(dest)) and not (held and theirs(held)):
                frees.append(text)
            elif held and theirs(held):
                captures.append(text)
            elif abs(dest[0] - tr) + abs(dest[1] - tc) < abs(frm[0] - tr) + abs(frm[1] - tc):
                closer.append(text)
            else:
                rest.append(text)
        if wins:
            pool = wins
        elif frees:
            pool = frees
        elif captures and rng.random() < 0.5:
            pool = captures
        elif closer and rng.random() < 0.5:
            pool = closer
        else:
            pool = frees + captures + closer + rest
        move = rng.choice(pool)
        places = [p for p in st["legal_places"][st["legal"].index(move)].split("|") if p]
        letter, frm, dest = parse_move(move)
        piece = board[sq(frm)]
        tab.play(move)
        after = tab.state()
        if after["error"] and "placement" in after["error"]:
            # A listed prefix: the move frees prisoners, who need a square each.
            self.expect_refused(tab, "the prefix %r" % move)
            self.assertEqual(after["ply"], st["ply"], "a refused move changed the ply")
            m = re.search(r"for ([A-Za-z](?:, [A-Za-z])*) in that order", after["error"])
            self.assertIsNotNone(m, after["error"])
            rows = range(6, 10) if seat == "South" else range(1, 5)
            free = ["%d %d" % (r, c) for r in rows for c in range(1, 10)
                    if (r, c) not in ((1, 4), (1, 6), (9, 4), (9, 6))
                    and board["%d %d" % (r, c)] == "" and (r, c) != dest]
            parts = [move]
            for p in m.group(1).split(", "):
                parts.append("%s %s" % (p, free.pop(0)))
            move = " / ".join(parts)
            self.placements_done = getattr(self, "placements_done", 0) + 1
            tab.play(move)
        return move, dest, piece, places

    def check_illegal(self, tab, url, peer, peer_url, st, seat):
        """An illegal move is refused with #error, and nothing changes."""
        # A Soldier steps backward: never legal.
        soldier = "S" if seat == "South" else "s"
        frm = next(k for k, v in sorted(st["board"].items()) if v == soldier)
        r, c = map(int, frm.split())
        back = (r + 1, c) if seat == "South" else (r - 1, c)
        move = "%s %d %d %d %d" % (soldier, r, c, back[0], back[1])
        self.assertNotIn(move, st["legal"])
        tab.play(move)
        self.expect_refused(tab, "the illegal %r" % move)
        bad = tab.state()
        self.assertIsNotNone(bad["error"], "illegal %r was not refused" % move)
        self.assertTrue(bad["error"], bad)
        self.assertEqual(dict(bad["board"]), dict(st["board"]))
        self.assertEqual(sorted(bad["board"].last), sorted(st["board"].last))
        self.assertEqual(bad["ply"], st["ply"])
        self.assertEqual(bad["data_state"], st["data_state"])
        self.assertEqual(bad["history"], st["history"])
        self.assertIn("Your move", bad["turn"])
        self.assertEqual(tab.js("document.querySelector('input#move').value"), move,
                         "the refused move is kept in the input for correction")
        # Reloaded, the error is gone and still nothing changed; the other side still waits.
        tab.goto(url)
        again = tab.state()
        self.assertIsNone(again["error"])
        self.assertEqual(dict(again["board"]), dict(st["board"]))
        self.assertEqual(again["ply"], st["ply"])
        peer.goto(peer_url)
        self.assertNotIn("Your move", peer.state()["turn"])

    def check_phone(self, tab, url):
        """At a phone's size the board fits the screen; keep a screenshot as an artifact."""
        tab.set_viewport(390, 844, mobile=True)
        try:
            tab.goto(url)
            box = tab.js("""(() => {
  const r = document.querySelector('svg#board').getBoundingClientRect();
  return {left: r.left, right: r.right, width: r.width, height: r.height, inner: window.innerWidth,
          doc: document.documentElement.clientWidth,
          scroll: document.documentElement.scrollWidth};
})()""")
            tab.screenshot("browser-phone")
            self.assertEqual(box["inner"], 390, box)
            self.assertGreaterEqual(box["left"], 0, box)
            self.assertLessEqual(box["right"], 390, "the board is wider than a phone: %r" % box)
            self.assertGreater(box["width"], 300, "the board is drawn too small on a phone: %r" % box)
            self.assertLessEqual(box["scroll"], 390, "the page scrolls sideways on a phone: %r" % box)
        finally:
            tab.set_viewport(1200, 900)
        tab.goto(url)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
