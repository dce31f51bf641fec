#!/usr/bin/env python3
"""civil_war_clicks.py - a Civil War game played to the end by clicking, in four headless Chromium tabs.

Usage: civil_war_clicks.py /path/to/rookery

One tab per seat, each opened with the seat's private link (POST /api/games), every move made by
clicking as tests/harness/four_tabs.py does it. The d12 comes from the game's committed seed, so
the game is played adaptively (the King hunt of tests/harness/civil_war.py, aimed at the
Capital): South, North and East declare alliances to each other out of turn by clicking their
#actions buttons, West's King walks to the Capital h8, and the others attack it there with
Capital attacks (or anywhere, once PATIENCE plies have passed); its capture leaves the three
allied King holders, which ends the game (docs/rules/civil-war.md, End of the game). After every
move the mover's tab shows the move and the board as the API's position has it, and the move's
effect as its roll decided it; the tab that acts next takes it by a live update. Each seat's
board is drawn from its own side. No tab may log a console error. Screenshots at the start,
middle and end go to $ROOKERY_ARTIFACTS (else ./screenshots).

Python standard library only. Chromium must be installed: without it the test fails.
"""
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import civil_war as cw, daemon  # noqa: E402
from harness.four_tabs import LEGAL_JS, FourTabsCase  # noqa: E402

CW_SEED = 20240611       # the Civil War moves' random choices (the dice are the server's)
CW_MAX_PLIES = 220       # the hunt must take West's King before this
PATIENCE = 60            # plies the hunters wait for West's King to reach the Capital
CAPITAL = "h8"
CW_SEATS = cw.SEATS      # South, West, North, East: the turn order
CW_MID = 24

# Civil War's alliances, each declared out of turn (by a seat not to move), as (declarer,
# toward); the first four while South is to move, the last two after South's first move.
CW_ALLIANCES_START = [("North", "South"), ("East", "South"), ("North", "East"), ("East", "North")]
CW_ALLIANCES_LATER = [("South", "North"), ("South", "East")]


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


class CivilWarClickTest(FourTabsCase):

    def test_civil_war(self):
        sys.stderr.write("  Civil War: %s\n" % self.play_civil_war())
        self.report("the game")

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
        game = self.start_game("civil-war", CW_SEATS, cw.NAMES, cw.bottom_row)
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
            self.check_orientation(game.tabs[s], s, cw.bottom_row(s))
        self.no_console_errors(game)
        return ("%d plies (%d moves, %d declarations), %d clicks; attacks %d; Capital attacks %s; "
                "choices %s; King lost: %s; %s (%.1f s)" % (
                    len(game.history), moves, len(declared), game.clicks, len(attacks), capital,
                    game.choices, kings_lost, result, time.monotonic() - self.t_start))


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
