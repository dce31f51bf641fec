#!/usr/bin/env python3
"""civil_war_variants.py - black-box test of Civil War for two and for three players.

usage: civil_war_variants.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (tests/harness), driven over the JSON API and the HTML pages. The
rules are docs/rules/civil-war.md, section 16 (Civil War for two and for three), shown on the
Civil War rules page. Each variant is listed by GET /api/variants and played to a result: the
server rolls the d12 from the game's committed seed, so the test plays ADAPTIVELY with a fixed
random seed, preferring attacks (on a King first, in the three-player game on the neutral army
next), for a bounded number of plies, and then ends the game by resignations when no King
capture has ended it. The dice record of each game verifies with scripts/verify-dice.py.

Python standard library only.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.civil_war import ECHO, FILES, NAMES, cell  # noqa: E402

SEED = 20261126
PLIES = 240
EAST = [f"l{r}" for r in range(1, 8)] + ["n2", "n3", "o4", "o7", "o5", "o6", "n6", "n7"]   # its start squares


def owner_at(pos, sq):
    return pos["owners"][15 - int(sq[1:])][FILES.index(sq[0])]


class CivilWarVariants(daemon.DaemonCase):

    def new_game(self, variant, seats):
        r = self.d.post("/api/games", {"variant": variant, "seats": [{"name": n} for n in NAMES[:len(seats)]]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.assertEqual([s["seat"] for s in g["seats"]], list(seats))
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def play(self, gid, tokens, rnd, prefer_neutral=False):
        """Up to PLIES plies, attacks first; returns the game and the notes of the answers."""
        notes = []
        for _ in range(PLIES):
            g = self.d.game(gid)
            if g["status"] != "running":
                break
            self.assertEqual(len(g["turn"]), 1, g["turn"])
            mover = g["turn"][0]
            v = self.d.game(gid, tokens[mover])
            pos, legal = v["position"], v["legal_moves"]
            self.assertTrue(legal, pos["notes"])
            attacks = [t for t in legal if ECHO.match(t) and (ECHO.match(t)["sep"] == "x" or ECHO.match(t)["cap"])]
            kings = [t for t in attacks if ECHO.match(t)["cap"] or cell(pos["board"], ECHO.match(t)["to"]) == "K"]
            neutral = [t for t in attacks if owner_at(pos, ECHO.match(t)["to"]) is None]
            choice = kings or (neutral if prefer_neutral else []) or attacks or legal
            text = rnd.choice(choice)
            r = self.d.move(gid, tokens[mover], text.split(": ", 1)[1], v["ply"])
            self.assertEqual(r.status, 201, (text, r))
            a = r.json()
            self.assertEqual(a["move"], text)
            notes.append(a["note"])
        return self.d.game(gid), notes

    def verify_dice(self, gid):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(self.d.dice_record(gid), f)
        try:
            out = subprocess.run([sys.executable, daemon.VERIFY_DICE, f.name], capture_output=True, text=True,
                                 timeout=60)
        finally:
            os.unlink(f.name)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_variants_listed(self):
        r = self.d.get("/api/variants")
        self.assertEqual(r.status, 200, r)
        by_id = {v["id"]: v for v in r.json()["variants"]}
        self.assertEqual(by_id["civil-war-2"]["seats"], ["South", "North"])
        self.assertEqual(by_id["civil-war-2"]["players"], 2)
        self.assertEqual(by_id["civil-war-3"]["seats"], ["South", "West", "North"])
        self.assertEqual(by_id["civil-war-3"]["players"], 3)
        self.assertIn("neutral East army", by_id["civil-war-3"]["summary"])
        for vid, title in (("civil-war-2", "Civil War for two"), ("civil-war-3", "Civil War for three")):
            with self.subTest(variant=vid):
                self.assertEqual(by_id[vid]["rules_url"], f"/rules/{vid}")
                page = self.d.get(f"/rules/{vid}")
                self.assertEqual(page.status, 200, page)
                self.assertIn(f"<h1>{title} rules</h1>", page.text)
                self.assertIn("Civil War for two and for three", page.text)
                self.assertIn("<code>civil-war-2</code> (South and North only;", page.text)
                self.assertIn(f"/new/{vid}", self.d.get("/").text)
        # The game choice draws each start board: only the three-player one has neutral pieces.
        home = self.d.get("/").text
        self.assertEqual(home.count('class="pc side-neutral"'), 15, "the neutral army's 15 pieces")
        # The four-player page shows the section too, without the variant's notice.
        self.assertNotIn("is played by these rules with the changes", self.d.get("/rules/civil-war").text)

    def test_two_players_to_a_result(self):
        gid, tokens = self.new_game("civil-war-2", ("South", "North"))
        g = self.d.game(gid)
        pos = g["position"]
        # The West and East quadrants are empty; no alliances.
        for sq in EAST + ["d9", "b14", "a12"]:
            self.assertFalse(cell(pos["board"], sq), sq)
        v = self.d.game(gid, tokens["South"])
        r = self.d.move(gid, tokens["South"], "ally North", v["ply"])
        self.assertEqual(r.status, 422, r)
        self.assertIn("no alliances", r.json()["error"]["message"])
        g, notes = self.play(gid, tokens, random.Random(SEED))
        if g["status"] == "running":
            # No King taken yet: South resigns and North wins (section 16).
            r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["South"])
            self.assertEqual(r.status, 200, r)
            g = self.d.game(gid)
            self.assertEqual(g["result"]["ranks"], [2, 1], g["result"])
        else:
            ends = [n for n in notes if "game over" in n]
            self.assertEqual(len(ends), 1, notes)
            if "wins" in ends[0]:
                self.assertEqual(sorted(g["result"]["ranks"]), [1, 2], g["result"])
            else:
                self.assertEqual(g["result"]["ranks"], [1, 1], g["result"])
                self.assertIn("Draw for South and North", g["result"]["summary"])
        self.assertEqual(g["status"], "over", g)
        print(f"\ncivil-war-2: {g['ply']} plies, {g['result']['summary']}", file=sys.stderr)
        self.verify_dice(gid)

    def test_three_players_to_a_result(self):
        gid, tokens = self.new_game("civil-war-3", ("South", "West", "North"))
        g = self.d.game(gid)
        pos = g["position"]
        # The neutral East army: on its start squares, no owner, its own colour on the page.
        for sq in EAST:
            self.assertTrue(cell(pos["board"], sq), sq)
            self.assertIsNone(owner_at(pos, sq), sq)
        self.assertIn("Neutral: East's army (never moves; whoever captures its King takes it)", pos["notes"])
        _, page = self.game_page(gid)
        self.assertIn("side-neutral", page)
        v = self.d.game(gid, tokens["South"])
        r = self.d.move(gid, tokens["South"], "ally East", v["ply"])
        self.assertEqual(r.status, 422, r)
        g, notes = self.play(gid, tokens, random.Random(SEED + 3), prefer_neutral=True)
        gained = [n for n in notes if "King lost: East's army passes to" in n]
        if gained:
            captor = gained[0].rsplit(" ", 1)[1].split(";")[0]
            print(f"\ncivil-war-3: the neutral King taken by {captor}", file=sys.stderr)
        resigned = []
        while g["status"] == "running":
            out = [n for n in g["position"]["notes"] if n.startswith("Out: ")]
            seat = next(s for s in ("South", "West", "North") if not out or s not in out[0])
            r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens[seat])
            self.assertEqual(r.status, 200, r)
            resigned.append(seat)
            g = self.d.game(gid)
            if g["status"] == "running":
                # A neutral army never holds the slot: the seat to act is a player's.
                self.assertIn(g["turn"][0], ("South", "West", "North"))
        self.assertEqual(len(g["result"]["ranks"]), 3, g["result"])     # the neutral army has no place
        self.assertNotIn("East", g["result"]["summary"].split(":")[0])
        for seat in resigned:
            self.assertEqual(g["result"]["ranks"][("South", "West", "North").index(seat)],
                             max(g["result"]["ranks"]), g["result"])
        print(f"civil-war-3: {g['ply']} plies, resigned {resigned}, {g['result']['summary']}", file=sys.stderr)
        self.verify_dice(gid)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
