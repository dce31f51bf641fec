#!/usr/bin/env python3
"""civil_war_game.py - black-box test of a four-player Civil War game.

usage: civil_war_game.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (tests/harness), driven over the
JSON API and the HTML game page. The rules are those of docs/rules/civil-war.md, shown as its
rules page (templates/rules-civil-war.html, /rules/civil-war); its sections are cited by title
("Attacks and the die" and so on). The server rolls the d12 from the game's committed
secret seed, so the test cannot choose outcomes: it plays ADAPTIVELY, choosing
among the legal moves of the seat to act with a fixed random seed, preferring
attacks that need a roll, and reads each answer's note and dice until every
outcome band of an attack (success, draw, failure) has been seen. Alliance
declarations are sent out of turn on the way; the game is ended by a
resignation, and then the revealed dice are recomputed by
scripts/verify-dice.py.

Two King hunts (Losing your King: bound players and controlled armies; Betrayal)
play the same way: South, North and East chase West's King, which walks out of
its fortress, and attack it whenever they can, until an attack takes it.
Without a Grand Prince, West's army passes to the captor (who then moves it,
West's own token being refused); in the second game a West Prince first enters
a foreign fortress (promoting to Grand Prince), so West is bound instead and
then crowns the Grand Prince, ending the bond.

Client seeds (issue 14, item 8): all four seats set client seeds after the
commitment, three through PUT /api/games/{id}/client-seed and one through its
page's form (bad seeds, a missing form token and a foreign origin refused);
the game is played past its first roll, after which every seed change is
409 seeds_fixed, and ended; verify-dice.py checks every roll with the seeds,
and the rolls differ from those the committed server seed (read from the
database, as an operator could) gives without them. A game stored before
client seeds keeps dice version 1, takes none, and verifies by that recipe.

Python standard library only.
"""
import hashlib
import html
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database  # noqa: E402
from harness.civil_war import (ECHO, FILES, FORTRESS, HUNTERS, NAMES, RESULT, SEATS, VALUES,  # noqa: E402
                               VARIANT, attack_dirs, bfs, cell, find, fortress_of, name, owner,
                               step_ok, xy)
from harness.pages import hidden_fields, page_board  # noqa: E402

INITIAL = {s[0]: s for s in SEATS}
SEED = 20240611
MAX_PLIES = 400


def bands(d):
    """Attacks and the die, for d = v - a >= 0: (smallest successful roll, draw rolls)."""
    if d == 0:
        return 9, range(5, 9)
    return d + 2, range(d, d + 2)


SIDES = ("top", "right", "bottom", "left")        # as drawn; a clockwise quarter turn moves each one on
FACES = ("up", "right", "down", "left")
# Each army's forward as South's view draws it (Players, turns and facing).
HOME_FACING = {"South": "up", "West": "right", "North": "down", "East": "left"}
QUARTER_TURNS = {"South": 0, "West": 3, "North": 2, "East": 1}   # clockwise, to bring a home to the bottom


def turned(r, c, turns):
    """A drawn grid place of the 15 x 15 board after clockwise quarter turns of the drawing."""
    for _ in range(turns):
        r, c = c, 14 - r
    return r, c


def board_walls():
    """The board: {square: walled sides} as South sees the board (rank 15 at the top): a wall
    between orthogonal neighbours in and out of a fortress, but for the gates."""
    out = {}
    for f in range(15):
        for r in range(1, 16):
            sq = name(f, r)
            for (df, dr), side in zip(((0, 1), (1, 0), (0, -1), (-1, 0)), SIDES):
                n = name(f + df, r + dr)
                if n and not step_ok(sq, n):
                    out.setdefault(sq, set()).add(side)
    return out


class CivilWarPlay:
    """What the Civil War tests share: games, moves, and ending a game. Needs self.d (a Daemon)."""

    def new_game(self):
        r = self.d.post("/api/games", {"variant": VARIANT, "seats": [{"name": n} for n in NAMES]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.assertEqual([s["seat"] for s in g["seats"]], list(SEATS))
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def send(self, gid, token, text, ply, status=201):
        r = self.d.move(gid, token, text, ply)
        self.assertEqual(r.status, status, (text, ply, r))
        return r.json()

    def classify(self, army, pos, legal):
        """The attacks among the legal moves, those of them that need a roll, and forward Pawn steps."""
        attacks, rolled, forward = [], [], []
        for text in legal:
            e = ECHO.match(text)
            if not e:
                continue
            if e["sep"] == "x" or e["cap"]:
                self.assertEqual(owner(pos, e["fr"]), army, text)
                self.assertNotEqual(owner(pos, e["to"]), army, text)
                attacks.append(text)
                if not e["cap"] and VALUES[e["piece"]] <= VALUES[cell(pos["board"], e["to"])]:
                    rolled.append(text)
            elif e["piece"] == "P":
                same = 0 if army in ("South", "North") else 1     # the file, or the rank, stays
                if (e["fr"][0], e["fr"][1:])[same] == (e["to"][0], e["to"][1:])[same]:
                    forward.append(text)
        return attacks, rolled, forward

    def play_for_rolls(self, gid, tokens, rnd, rolls):
        """Play, preferring attacks that need a roll, until the game has rolled `rolls` dice in all."""
        for _ in range(MAX_PLIES):
            rec = self.d.dice_record(gid)
            g = self.d.game(gid)
            if len(rec["rolls"]) >= rolls or g["status"] != "running":
                return rec["rolls"]
            mover = g["turn"][0]
            v = self.d.game(gid, tokens[mover])
            army = v["legal_moves"][0].split(": ", 1)[0]
            army = next(s for s in SEATS if s[0] == army)
            attacks, rolled, forward = self.classify(army, v["position"], v["legal_moves"])
            choice = rolled or attacks or (forward if rnd.random() < 0.8 else []) or v["legal_moves"]
            self.send(gid, tokens[mover], rnd.choice(choice).split(": ", 1)[1], v["ply"])
        self.fail(f"fewer than {rolls} rolls in {MAX_PLIES} plies")

    def resign_to_end(self, gid, tokens, rnd):
        """End the game by resignations (End of the game: the resigner's army leaves the board;
        the game ends when the end condition holds, else play goes on). Returns the game and the
        resigners."""
        g = self.d.game(gid)
        resigned = []
        while g["status"] == "running" and len(resigned) < 4:
            out = [n for n in g["position"]["notes"] if n.startswith("Out: ")]
            live = [x for x in SEATS if not out or x not in out[0]]
            seat = live[rnd.randrange(len(live))]
            r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens[seat])
            self.assertEqual(r.status, 200, r)
            resigned.append(seat)
            g = self.d.game(gid)
            if g["status"] == "running":
                self.assertTrue(any(n.startswith("Out: ") and seat in n for n in g["position"]["notes"]),
                                g["position"]["notes"])
        self.assertEqual(g["status"], "over", g["position"]["notes"])
        return g, resigned

    def verify_dice(self, record):
        """scripts/verify-dice.py run on a saved copy of a dice record."""
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(record, f)
        try:
            return subprocess.run([sys.executable, daemon.VERIFY_DICE, f.name], capture_output=True,
                                  text=True, timeout=60)
        finally:
            os.unlink(f.name)

    def server_seed(self, gid):
        """The secret seed of a game as the operator can read it from the database."""
        return daemon.db_query(self.d.db, "SELECT dice_seed FROM games WHERE id = ?", (gid,))[0][0]


class CivilWarGame(CivilWarPlay, daemon.DaemonCase):

    # ---- the game page (The board) ----

    def test_page_walls_capital_facings(self):
        gid, tokens = self.new_game()
        pos = self.d.game(gid)["position"]
        pages = {}
        for seat in SEATS + (None,):
            r = self.d.get(f"/games/{gid}" + (f"?seat={tokens[seat]}" if seat else ""))
            self.assertEqual(r.status, 200, r)
            pages[seat] = page_board(r.text)
        south = pages["South"]
        cells = south.squares
        self.assertEqual(len(cells), 225, sorted(cells)[:10])
        # South (and the public) see the board as the rules draw it (The board): rank 15 at the top,
        # file a on the left.
        for sq, c in cells.items():
            f, rank = xy(sq)
            self.assertEqual((c["r"], c["c"]), (15 - rank, f), sq)
        self.assertEqual(south.row_labels(), [[str(n), str(n)] for n in range(15, 0, -1)])
        self.assertEqual(south.col_labels(), [[f, f] for f in FILES])
        self.assertEqual([t for t, c in cells.items() if c["kind"] == "capital"], ["h8"])
        fortress = {t for t, c in cells.items() if c["kind"] == "fortress"}
        expect = {f"{f}{r}" for fs, rs in (("abc", (1, 2, 3)), ("abc", (13, 14, 15)), ("mno", (13, 14, 15)),
                                           ("mno", (1, 2, 3))) for f in fs for r in rs}
        self.assertEqual(fortress, expect)
        for sq, c in cells.items():
            self.assertEqual(c["kind"], cell(pos["kinds"], sq) or "plain", sq)
        # Wall segments (The board): inside | outside, drawn on both cells.
        for sq, side in (("c1", "right"), ("d1", "left"), ("a3", "top"), ("a4", "bottom"),
                         ("c3", "top"), ("c3", "right"), ("c13", "bottom"), ("c13", "right"),
                         ("m13", "left"), ("m13", "bottom"), ("l1", "right"), ("o3", "top")):
            self.assertIn(side, south.walls.get(sq, set()), sq)
        # Gates are open: c2|d2, b13|b12, m14|l14, n3|n4.
        for sq, side in (("c2", "right"), ("d2", "left"), ("b13", "bottom"), ("b12", "top"),
                         ("m14", "left"), ("l14", "right"), ("n3", "top"), ("n4", "bottom"),
                         ("h8", "top"), ("e5", "left")):
            self.assertNotIn(side, south.walls.get(sq, set()), sq)
        # And no other walls than The board lists, which the API's position has too (bits top 1,
        # right 2, bottom 4, left 8).
        self.assertEqual(south.walls, board_walls())
        for sq in cells:
            self.assertEqual({s for k, s in enumerate(SIDES) if cell(pos["walls"], sq) & (1 << k)},
                             south.walls.get(sq, set()), sq)
        # Pieces and their facing arrows (Players, turns and facing: forward away from the owner).
        for sq, piece, arrow in (("b2", "K", "up"), ("d15", "P", "right"), ("n14", "K", "down"),
                                 ("l7", "P", "left"), ("c2", "Q", "up"), ("b13", "Q", "right"),
                                 ("m14", "Q", "down"), ("n3", "Q", "left")):
            self.assertEqual(cells[sq]["piece"], piece, (sq, cells[sq]))
            self.assertEqual(cells[sq]["facing"], arrow, (sq, cells[sq]))
        self.assertIsNone(cells["e5"]["facing"])
        self.assertEqual(sum(1 for c in cells.values() if c["facing"] is not None), 60)
        for sq, c in cells.items():
            self.assertEqual((c["side"], c["piece"]), (owner(pos, sq), cell(pos["board"], sq)), sq)
            self.assertEqual(c["facing"], c["side"] and HOME_FACING[c["side"]], sq)
            self.assertEqual(c["facing"], None if cell(pos["facings"], sq) is None else FACES[cell(pos["facings"], sq)])
            self.assertEqual(c["title"], sq + (f": {c['side']} {c['piece']}" if c["piece"] else ""))
        # The public page is South's; each seat sees the same board turned so that its own
        # fortress is at the bottom, walls and facings turning with it.
        self.assertEqual(pages[None].squares, south.squares)
        self.assertEqual(pages[None].walls, south.walls)
        for seat in SEATS[1:]:
            with self.subTest(seat=seat):
                b, t = pages[seat], QUARTER_TURNS[seat]
                self.assertEqual(set(b.squares), set(cells))
                for sq, c in cells.items():
                    s = b.squares[sq]
                    self.assertEqual((s["r"], s["c"]), turned(c["r"], c["c"], t), sq)
                    self.assertEqual((s["kind"], s["side"], s["piece"]), (c["kind"], c["side"], c["piece"]), sq)
                    self.assertEqual(s["facing"], c["facing"] and FACES[(FACES.index(c["facing"]) + t) % 4], sq)
                    self.assertEqual(b.walls.get(sq, set()),
                                     {SIDES[(SIDES.index(w) + t) % 4] for w in south.walls.get(sq, ())}, sq)
                king = [s for s in b.squares.values() if (s["side"], s["piece"]) == (seat, "K")]
                self.assertEqual(len(king), 1)
                self.assertGreaterEqual(king[0]["r"], 12, "the seat's King is in the bottom three rows")
                self.assertEqual(king[0]["facing"], "up", "the seat's own pieces face up its page")

    # ---- alliances out of turn (Alliances; scenario CW26) ----

    def test_declarations_out_of_turn(self):
        gid, tokens = self.new_game()
        g = self.d.game(gid)
        self.assertEqual(g["turn"], ["South"])
        self.assertEqual(g["position"]["notes"][:2], ["To act: South", "Alliances: none"])
        # East and North are not to act; any ply is accepted for a declaration.
        a = self.send(gid, tokens["East"], "ally north", 77)
        self.assertEqual(a["move"], "ally North")
        self.assertEqual(a["note"], "")
        self.assertEqual(a["game"]["turn"], ["South"])
        self.assertIn("Declared, not returned: East to North", a["game"]["position"]["notes"])
        b = self.send(gid, tokens["North"], "ally East", a["game"]["ply"] + 5)
        self.assertEqual(b["note"], "alliance formed: North and East")
        notes = b["game"]["position"]["notes"]
        self.assertEqual(notes[:2], ["To act: South", "Alliances: North and East"], notes)
        self.assertFalse(any(n.startswith("Declared") for n in notes), notes)
        self.assertEqual(b["game"]["turn"], ["South"])
        # Rejected (house ruling 31): a repeat, a break without a declaration, toward oneself.
        for seat, text in (("East", "ally North"), ("West", "break South"), ("West", "ally West")):
            r = self.d.move(gid, tokens[seat], text, b["game"]["ply"])
            self.assertGreaterEqual(r.status, 400, (seat, text, r))
            self.assertLess(r.status, 500, (seat, text, r))
        # South still acts: its slot was never used by the declarations.
        g = self.d.game(gid, tokens["South"])
        self.assertEqual(g["turn"], ["South"])
        self.assertEqual(len(g["legal_moves"]), 52)      # scenario CW1
        m = self.send(gid, tokens["South"], "Pa4-a5", g["ply"])
        self.assertEqual(m["game"]["turn"], ["West"])
        # A break of an existing alliance by a King holder ends it.
        c = self.send(gid, tokens["North"], "break East", m["game"]["ply"])
        self.assertEqual(c["note"], "alliance ended: North and East")
        self.assertIn("Alliances: none", c["game"]["position"]["notes"])
        self.assertIn("Declared, not returned: East to North", c["game"]["position"]["notes"])
        self.assertEqual(c["game"]["turn"], ["West"])

    def test_declaration_with_played_ply(self):
        # Declarations are taken whatever the ply (docs/api.md): one sent with a ply already
        # played is accepted (201) and recorded once.
        gid, tokens = self.new_game()
        self.send(gid, tokens["South"], "Pa4-a5", 0)
        r = self.d.move(gid, tokens["North"], "ally South", 0)
        self.assertEqual(r.status, 201, r)
        moves = self.d.all_moves(gid)
        self.assertEqual(len([m for m in moves if m["move"] == "ally South"]), 1, moves)

    def test_notes_after_resignation(self):
        # Three resignations leave one King holder: the end condition holds (End of the game) and
        # the notes say so.
        gid, tokens = self.new_game()
        for seat in ("North", "East", "West"):
            r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens[seat])
            self.assertEqual(r.status, 200, r)
        g = self.d.game(gid)
        self.assertEqual(g["status"], "over", g)
        self.assertEqual(g["turn"], [], g)
        self.assertTrue(g["position"]["notes"][0].startswith("Game over: "), g["position"]["notes"])

    # ---- client seeds: dice the operator cannot steer (issue 14, item 8) ----

    def put_seed(self, gid, token, body):
        return self.d.request("PUT", f"/api/games/{gid}/client-seed", body, token=token)

    def test_client_seeds(self):
        """All four seats set client seeds after the commitment (one through its page's form);
        the rolls depend on them, so the seed the server committed to alone foretells nothing;
        after the first roll the seeds are fixed; verify-dice.py checks every roll with them."""
        rnd = random.Random(SEED + 3)
        gid, tokens = self.new_game()
        other_gid, other_tokens = self.new_game()
        g = self.d.game(gid)
        self.assertEqual((g["dice_version"], g["client_seeds_open"]), (2, True))
        self.assertEqual([s["client_seed"] for s in g["seats"]], [None] * 4)
        # What an operator knows when the commitment is published: the server seed itself.
        server_seed = self.server_seed(gid)
        self.assertEqual(hashlib.sha256(server_seed).hexdigest(), g["dice_commitment"])

        # Bad seeds and bad requests are refused and change nothing.
        limit = daemon.LIMITS["LIMIT_CLIENT_SEED"]
        for body, status, code in (
                ({"client_seed": ""}, 400, "bad_request"),
                ({"client_seed": "x" * (limit + 1)}, 413, "too_large"),
                ({"client_seed": "caf\u00e9"}, 400, "bad_request"),
                ({"client_seed": "tab\there"}, 400, "bad_request"),
                ({"client_seed": "line\n"}, 400, "bad_request"),
                ({"client_seed": 7}, 400, "bad_request"),
                ({"seed": "x"}, 400, "bad_request"),
                ({"client_seed": "x", "extra": 1}, 400, "bad_request")):
            with self.subTest(body=body):
                msg = self.assertError(self.put_seed(gid, tokens["South"], body), status, code)
                if list(body) == ["client_seed"] and isinstance(body["client_seed"], str):
                    self.assertIn(f"1 to {limit} printable ASCII characters", msg)
        self.assertError(self.put_seed(gid, None, {"client_seed": "x"}), 401, "unauthorized")
        self.assertError(self.put_seed(gid, other_tokens["South"], {"client_seed": "x"}), 401, "unauthorized")
        self.assertEqual([s["client_seed"] for s in self.d.game(gid)["seats"]], [None] * 4)

        # South, West and North through the API (South replaces its first seed), East through
        # its page's form.
        seeds = {"South": "south's lucky seed", "West": "w", "North": "N0rth ~!@#$%^&*()|1:", "East": "e" * limit}
        r = self.put_seed(gid, tokens["South"], {"client_seed": "a first try"})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["seats"][0]["client_seed"], "a first try")
        for seat in ("South", "West", "North"):
            r = self.put_seed(gid, tokens[seat], {"client_seed": seeds[seat]})
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json()["seat"], seat)
        form = f"/games/{gid}/client-seed"
        page = self.d.get(f"/games/{gid}?seat={tokens['East']}").text
        fields = hidden_fields(page, form)
        self.assertEqual(set(fields), {"seat", "csrf"})
        self.assertEqual(self.d.post_form(form, {"seat": tokens["East"], "client_seed": "no form token"}).status, 403)
        self.assertEqual(self.d.post_form(form, dict(fields, client_seed="cross-site"),
                                          origin="http://evil.example").status, 403)
        r = self.d.post_form(form, dict(fields, client_seed=seeds["East"]))
        self.assertEqual(r.status, 303, r)
        self.assertEqual(r.header("Location"), f"/games/{gid}?seat={tokens['East']}")
        g = self.d.game(gid)
        self.assertEqual([s["client_seed"] for s in g["seats"]], [seeds[s] for s in SEATS])
        self.assertTrue(g["client_seeds_open"])
        # Everyone sees them: the public page shows the commitment and every client seed.
        page = self.d.get(f"/games/{gid}").text
        self.assertIn(g["dice_commitment"], page)
        self.assertNotIn('id="seed-form"', page)
        page = html.unescape(page)
        for seat in SEATS:
            self.assertIn(f'<code class="seed" data-seat="{seat}">{seeds[seat]}</code>', page)

        # A move that rolls nothing leaves the seeds open: West replaces its seed after one.
        self.send(gid, tokens["South"], "Pa4-a5", 0)
        seeds["West"] = "west, after the first move"
        self.assertEqual(self.put_seed(gid, tokens["West"], {"client_seed": seeds["West"]}).status, 200)

        # Play to the first roll: from then on the seeds are fixed, by the API and by the form.
        self.play_for_rolls(gid, tokens, rnd, 1)
        for seat in SEATS:
            self.assertError(self.put_seed(gid, tokens[seat], {"client_seed": "too late"}), 409, "seeds_fixed",
                             "already rolled")
        r = self.d.post_form(form, dict(fields, client_seed="too late"))
        self.assertEqual(r.status, 409, r)
        self.assertIn("the dice have already rolled", r.text)
        g = self.d.game(gid)
        self.assertFalse(g["client_seeds_open"])
        self.assertEqual([s["client_seed"] for s in g["seats"]], [seeds[s] for s in SEATS])
        self.assertNotIn('id="seed-form"', self.d.get(f"/games/{gid}?seat={tokens['East']}").text)

        # More rolls, then the end; the record carries the seeds and verify-dice.py checks every roll.
        rolls = self.play_for_rolls(gid, tokens, rnd, 8)
        self.assertGreaterEqual(len(rolls), 8)
        self.resign_to_end(gid, tokens, rnd)
        rec = self.d.dice_record(gid)
        self.assertEqual(rec["version"], 2)
        self.assertEqual(rec["client_seeds"], [{"seat": s, "client_seed": seeds[s]} for s in SEATS])
        self.assertEqual(bytes.fromhex(rec["seed"]), server_seed)
        self.assertEqual(rec["rolls"][:len(rolls)], rolls)
        p = self.verify_dice(rec)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("dice version 2, client seeds: South \"south's lucky seed\"", p.stdout)
        self.assertIn(f"{len(rec['rolls'])} rolls checked, 0 wrong", p.stdout)

        # The operator's foresight: the rolls the committed seed gives by itself (the old recipe,
        # or the new one without client seeds) are not the rolls that were made.
        vd = load_verify_dice()
        values = [r["value"] for r in rec["rolls"]]
        key = [(r["ply"], r["k"], r["sides"]) for r in rec["rolls"]]
        self.assertEqual(values, [vd.roll(server_seed, gid, p_, k, n, [seeds[s] for s in SEATS]) for p_, k, n in key])
        self.assertNotEqual(values, [vd.roll(server_seed, gid, p_, k, n) for p_, k, n in key])
        self.assertNotEqual(values, [vd.roll(server_seed, gid, p_, k, n, [None] * 4) for p_, k, n in key])
        # A record with another client seed, or read as the old recipe, fails.
        bad = json.loads(json.dumps(rec))
        bad["client_seeds"][3]["client_seed"] = "e" * (limit - 1)
        self.assertEqual(self.verify_dice(bad).returncode, 1)
        self.assertEqual(self.verify_dice(dict(rec, version=1)).returncode, 1)
        print(f"\nclient seeds: {len(rec['rolls'])} rolls verified", file=sys.stderr)

    # ---- the adaptive game ----

    def test_adaptive_game(self):
        rnd = random.Random(SEED)
        gid, tokens = self.new_game()
        dice_seen = {}        # ply -> rolls as the move's answer gave them
        seen = {}             # band -> first echo
        kings_lost = []
        plies = 0
        # Out of turn on the way: West and South declare to each other (Alliances).
        g = self.d.game(gid)
        a = self.send(gid, tokens["West"], "ally South", 0)
        self.assertEqual(a["game"]["turn"], ["South"])
        a = self.send(gid, tokens["South"], "ally West", 999)
        self.assertEqual(a["note"], "alliance formed: South and West")
        self.assertIn("Alliances: South and West", a["game"]["position"]["notes"])
        self.assertEqual(a["game"]["turn"], ["South"])
        self.assertEqual(a["game"]["position"]["notes"][0], "To act: South")

        while plies < MAX_PLIES:
            g = self.d.game(gid)
            if g["status"] != "running":
                break
            turn = g["turn"]
            self.assertEqual(len(turn), 1, g["turn"])
            mover = turn[0]
            first = g["position"]["notes"][0]
            m = re.match(r"^To act: (?:(\w+)'s army, moved by (\w+)|(\w+))", first)
            self.assertTrue(m, first)
            army, controller = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(3))
            self.assertEqual(controller, mover, g["position"]["notes"])
            v = self.d.game(gid, tokens[mover])
            legal = v["legal_moves"]
            self.assertTrue(legal, v["position"]["notes"])
            pos, board = v["position"], v["position"]["board"]
            for text in legal:
                self.assertTrue(text.startswith(army[0] + ": "), (army, text))
            attacks, rolled, forward = self.classify(army, pos, legal)
            need = {"success", "draw", "failure"} - set(seen)
            if rolled and (need or rnd.random() < 0.5):
                text = rnd.choice(rolled)
            elif attacks:
                text = rnd.choice(attacks)
            elif forward and rnd.random() < 0.8:
                text = rnd.choice(forward)
            else:
                text = rnd.choice(legal)
            ans = self.send(gid, tokens[mover], text.split(": ", 1)[1], v["ply"])
            plies += 1
            self.assertEqual(ans["move"], text)
            self.assertEqual(ans["ply"], v["ply"])
            dice_seen[ans["ply"]] = ans["dice"]
            e = ECHO.match(text)
            after = ans["game"]["position"]
            if e and (e["sep"] == "x" or e["cap"]):
                self.check_attack(e, pos, after, ans, seen)
            else:
                self.assertEqual(ans["dice"], [], ans)
            if "King lost" in ans["note"]:
                kings_lost.append(ans["note"])
                self.check_king_loss(gid, tokens, ans)
            if not ({"success", "draw", "failure"} - set(seen)) and plies >= 40:
                break
        self.assertEqual(set(seen), {"success", "draw", "failure"},
                         f"after {plies} plies: {seen}")

        # The dice of every move, in the moves list and in the dice record.
        moves = self.d.all_moves(gid)
        by_ply = {mv["ply"]: mv for mv in moves}
        for ply, dice in dice_seen.items():
            self.assertEqual(by_ply[ply]["dice"], dice, ply)
        rec = self.d.dice_record(gid)
        self.assertEqual(rec["status"], "running")
        self.assertIsNone(rec["seed"])
        rolled_plies = {p for p, d in dice_seen.items() if d}
        self.assertTrue(rolled_plies)
        self.assertEqual({r["ply"] for r in rec["rolls"]}, rolled_plies)
        for r in rec["rolls"]:
            self.assertEqual(r["sides"], 12, r)
            self.assertEqual(r["k"], 0, r)
            self.assertEqual([r["value"]], dice_seen[r["ply"]], r)
            self.assertEqual(r["seat"], by_ply[r["ply"]]["seat"], r)
        g = self.d.game(gid)
        self.assertEqual(rec["commitment"], g["dice_commitment"])

        g, resigned = self.resign_to_end(gid, tokens, rnd)
        self.assertTrue(g["result"], g)
        self.assertEqual(g["turn"], [], g)
        ranks = dict(zip(SEATS, g["result"]["ranks"]))
        for seat in resigned:
            self.assertEqual(ranks[seat], max(ranks.values()), g["result"])
        rec = self.d.dice_record(gid)
        self.assertIsNotNone(rec["seed"])
        p = self.verify_dice(rec)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        out = [m["move"] + " (" + m["note"] + ")" for m in moves if " is out" in m["note"]]
        
        print(f"\nadaptive play: {plies} plies; bands {seen}; Kings lost {kings_lost}; outs {out}; resigned {resigned}; result {g['result']['summary']}",
              file=sys.stderr)

    # ---- the King hunt: a King lost, control passing, a bond and a betrayal (Losing your King:
    # bound players and controlled armies; Betrayal) ----

    VICTIM, REFUGE = "West", "e10"      # West's King walks out of its fortress to e10

    def hunt_move(self, army, pos, legal, rnd, betrayal):
        """The move to play: South, North and East chase West's King; West walks it out."""
        board = pos["board"]
        moves = [(t, ECHO.match(t)) for t in legal]
        moves = [(t, e) for t, e in moves if e]
        quiet = [(t, e) for t, e in moves if e["sep"] == "-" and not e["cap"]]
        ksq = find(pos, "K", self.VICTIM)[0]
        has_g = bool(find(pos, "G", self.VICTIM))
        route = {"b13", "b12", self.REFUGE} if ksq != self.REFUGE else set()

        def best(cands, dist, key=lambda t, e: 0):
            cands = [(t, e) for t, e in cands if dist.get(e["to"], 99) < dist.get(e["fr"], 99)]
            if not cands:
                return None
            low = min(dist[e["to"]] + key(t, e) for t, e in cands)
            return rnd.choice([t for t, e in cands if dist[e["to"]] + key(t, e) == low])

        if army == self.VICTIM:
            if betrayal and not has_g and rnd.random() < 0.85:
                # A Prince into a foreign fortress: compulsory promotion to Grand Prince.
                dist = bfs([sq for s, (fs, rs) in FORTRESS.items() if s != army for f in fs for r in rs
                            for sq in [f"{f}{r}"] if cell(board, sq) is None])
                t = best([(t, e) for t, e in quiet if e["piece"] == "R"], dist)
                if t:
                    return t
            if ksq != self.REFUGE and (has_g or not betrayal or rnd.random() < 0.5):
                dist = bfs([self.REFUGE], lambda sq: cell(board, sq) is None or sq == ksq)
                t = best([(t, e) for t, e in quiet if e["piece"] == "K"], dist)
                if t:
                    return t
                qs = [(t, e) for t, e in quiet if e["piece"] == "Q" and e["fr"] in ("b13", "b12")
                      and e["to"] not in ("b13", ksq)]
                if qs:
                    return rnd.choice(qs)[0]
            filler = [t for t, e in quiet if e["piece"] not in "KG" and e["to"] not in route
                      and not (e["piece"] == "R" and not betrayal and fortress_of(e["to"]) not in (None, army))]
            if filler:
                pawns = [t for t in filler if ECHO.match(t)["piece"] == "P"]
                return rnd.choice(pawns if pawns and rnd.random() < 0.5 else filler)
        else:
            ready = has_g or not betrayal
            regicide = [t for t, e in moves if e["sep"] == "x" and not e["cap"] and e["to"] == ksq]
            if regicide and ready:
                return rnd.choice(regicide)
            aim = ksq if fortress_of(ksq) is None else self.REFUGE
            ax, ay = xy(aim)
            cands = []
            dists = {}
            for t, e in quiet:
                if e["piece"] not in HUNTERS or e["to"] in route:
                    continue
                dirs = attack_dirs(army, e["piece"])
                if dirs not in dists:
                    targets = [n for df, dr in dirs for n in [name(ax - df, ay - dr)]
                               if n and n != "h8" and step_ok(n, aim)]
                    dists[dirs] = bfs(targets)
                d = dists[dirs]
                if d.get(e["to"], 99) < d.get(e["fr"], 99):
                    cands.append((d[e["to"]] - VALUES[e["piece"]] / 10, t))
            if cands and rnd.random() < 0.85:
                low = min(c for c, t in cands)
                return rnd.choice([t for c, t in cands if c == low])
            filler = [t for t, e in quiet if e["to"] not in route]
            if filler:
                return rnd.choice(filler)
        others = [t for t in legal if "x" not in t.split(": ", 1)[1] and "=" not in t]
        return rnd.choice(others or legal)

    def hunt(self, seed, betrayal):
        """Play until West's King is taken by a successful attack; return the game and answer."""
        rnd = random.Random(seed)
        gid, tokens = self.new_game()
        seen = {}
        for plies in range(3000):
            g = self.d.game(gid)
            self.assertEqual(g["status"], "running", g["position"]["notes"])
            mover = g["turn"][0]
            m = re.match(r"^To act: (\w+)$", g["position"]["notes"][0])
            self.assertTrue(m, g["position"]["notes"])
            army = m.group(1)
            self.assertEqual(army, mover)
            v = self.d.game(gid, tokens[mover])
            pos = v["position"]
            text = self.hunt_move(army, pos, v["legal_moves"], rnd, betrayal)
            ans = self.send(gid, tokens[mover], text.split(": ", 1)[1], v["ply"])
            self.assertEqual(ans["move"], text)
            e = ECHO.match(text)
            if e and (e["sep"] == "x" or e["cap"]):
                self.check_attack(e, pos, ans["game"]["position"], ans, seen)
            else:
                self.assertEqual(ans["dice"], [], ans)
            if "King lost" in ans["note"]:
                self.assertEqual(e["to"], find(pos, "K", self.VICTIM)[0], ans)
                self.assertTrue(ans["note"].startswith("roll ") or ans["note"].startswith("no roll"), ans)
                self.assertIn("success", ans["note"].split(";")[0], ans)
                self.assertEqual(find(ans["game"]["position"], "K", self.VICTIM), [], ans)
                return gid, tokens, mover, ans, plies + 1, rnd, seen
        self.fail(f"West's King still stands after 3000 plies (seed {seed}): {seen}")

    def play_until(self, gid, tokens, first_note, rnd):
        """Quiet moves of the other slots until the notes start with first_note."""
        for _ in range(8):
            g = self.d.game(gid)
            self.assertEqual(g["status"], "running", g["position"]["notes"])
            if g["position"]["notes"][0] == first_note:
                return g
            seat = g["turn"][0]
            v = self.d.game(gid, tokens[seat])
            quiet = [t for t in v["legal_moves"] if ECHO.match(t) and ECHO.match(t)["sep"] == "-"
                     and not ECHO.match(t)["cap"]]
            self.assertTrue(quiet, v["position"]["notes"])
            self.send(gid, tokens[seat], rnd.choice(quiet).split(": ", 1)[1], v["ply"])
        self.fail(f"never reached {first_note!r}: {g['position']['notes']}")

    def test_king_lost_control_passes(self):
        gid, tokens, captor, ans, plies, rnd, seen = self.hunt(SEED + 1, betrayal=False)
        self.assertIn(f"King lost: West's army passes to {captor}", ans["note"])
        notes = ans["game"]["position"]["notes"]
        self.assertTrue(any(n.startswith("Without a King: ") and f"West (army moved by {captor})" in n
                            for n in notes), notes)
        g = self.play_until(gid, tokens, f"To act: West's army, moved by {captor}", rnd)
        self.assertEqual(g["turn"], [captor], g)
        v = self.d.game(gid, tokens[captor])
        legal = v["legal_moves"]
        self.assertTrue(legal, v)
        self.assertTrue(all(t.startswith("W: ") for t in legal), legal)
        quiet = [t for t in legal if ECHO.match(t) and ECHO.match(t)["sep"] == "-"]
        text = rnd.choice(quiet)
        # West's own token is refused on its army's slot; the controller's is taken.
        r = self.d.move(gid, tokens["West"], text.split(": ", 1)[1], v["ply"])
        self.assertEqual(r.status, 403, r)
        a = self.send(gid, tokens[captor], text, v["ply"])
        self.assertEqual(a["move"], text)
        self.assertEqual(a["game"]["ply"], v["ply"] + 1)
        print(f"\nKing hunt: {plies} plies; {ans['move']} ({ans['note']}); then {text} by {captor}",
              file=sys.stderr)

    def test_king_lost_bound_then_betrayal(self):
        gid, tokens, captor, ans, plies, rnd, seen = self.hunt(SEED + 2, betrayal=True)
        self.assertIn(f"King lost: West bound to {captor}", ans["note"])
        notes = ans["game"]["position"]["notes"]
        self.assertTrue(any(n.startswith("Without a King: ") and f"West (bound to {captor})" in n
                            for n in notes), notes)
        g = self.play_until(gid, tokens, "To act: West (West may crown a Grand Prince instead)", rnd)
        self.assertEqual(g["turn"], ["West"], g)
        v = self.d.game(gid, tokens["West"])
        gsq = find(v["position"], "G", "West")[0]
        self.assertIn(f"W: G{gsq}=K", v["legal_moves"])
        # Not the overlord's to send, nor out of turn for anyone else.
        r = self.d.move(gid, tokens[captor], f"G{gsq}=K", v["ply"])
        self.assertGreaterEqual(r.status, 400, r)
        self.assertLess(r.status, 500, r)
        a = self.send(gid, tokens["West"], f"G{gsq}=K", v["ply"])
        self.assertEqual(a["move"], f"W: G{gsq}=K")
        self.assertEqual(a["dice"], [])
        self.assertIn(f"West is no longer bound to {captor}", a["note"])
        after = a["game"]["position"]
        self.assertEqual(cell(after["board"], gsq), "K")
        self.assertEqual(owner(after, gsq), "West")
        self.assertFalse(any("bound to" in n for n in after["notes"]), after["notes"])
        print(f"\nKing hunt with betrayal: {plies} plies; {ans['move']} ({ans['note']}); "
              f"then {a['move']} ({a['note']})", file=sys.stderr)

    def check_attack(self, e, pos, after, ans, seen):
        """The note, the roll and the board after an attack (Attacks and the die; Writing moves)."""
        text = ans["move"]
        fr, to = e["fr"], e["to"]
        a = VALUES[e["piece"]]
        v = VALUES[cell(pos["board"], to if not e["cap"] else "h8")]
        note = ans["note"]
        m = RESULT.match(note)
        self.assertTrue(m, (text, note))
        if a > v:
            self.assertTrue(note.startswith("no roll: success"), (text, note))
            self.assertEqual(ans["dice"], [], ans)
            band = "success"
        else:
            self.assertTrue(m["roll"], (text, note))
            roll, needs = int(m["roll"]), int(m["needs"])
            self.assertEqual(len(ans["dice"]), 1, ans)
            self.assertEqual(ans["dice"], [roll], ans)
            best, draws = bands(v - a)
            self.assertEqual(needs, best, (text, note, a, v))
            band = m["band"].split(",")[0]
            want = "success" if roll >= best else "draw" if roll in draws else "failure"
            self.assertEqual(band, want, (text, note))
            if band == "draw":
                self.assertEqual(m["back"], fr, (text, note))
        seen.setdefault(band, f"{text} ({note})")
        board, owners = after["board"], after
        piece = cell(pos["board"], fr)
        if band == "success" and not e["cap"]:
            self.assertIsNone(cell(board, fr), text)
            self.assertEqual(owner(owners, to), owner(pos, fr), text)
            promoted = re.search(r"promotes to ([GAOM])", note)
            self.assertEqual(cell(board, to), promoted.group(1) if promoted else piece, (text, note))
        elif band == "draw":
            self.assertEqual(cell(board, fr), piece, text)
            self.assertEqual(cell(board, to), cell(pos["board"], to), text)
            self.assertEqual(owner(owners, to), owner(pos, to), text)
        elif band == "failure":
            self.assertIsNone(cell(board, fr), text)
            self.assertEqual(cell(board, to), cell(pos["board"], to), text)
            self.assertEqual(owner(owners, to), owner(pos, to), text)

    def check_king_loss(self, gid, tokens, ans):
        """The note, the notes and who moves the victim's army now (Losing your King: bound players
        and controlled armies)."""
        m = re.search(r"King lost: (\w+) bound to (\w+)|King lost: (\w+)'s army passes to (\w+)", ans["note"])
        self.assertTrue(m, ans["note"])
        notes = ans["game"]["position"]["notes"]
        if ans["game"]["status"] != "running":
            return
        if m.group(1):
            victim, lord = m.group(1), m.group(2)
            self.assertTrue(any(f"{victim} (bound to {lord})" in n for n in notes), notes)
        else:
            victim, ctrl = m.group(3), m.group(4)
            self.assertTrue(any(f"{victim} (army moved by {ctrl})" in n for n in notes), notes)
            # Play on until the victim's slot: the controller's token moves that army.
            for _ in range(4):
                g = self.d.game(gid)
                if g["status"] != "running":
                    return
                if g["position"]["notes"][0] == f"To act: {victim}'s army, moved by {ctrl}":
                    self.assertEqual(g["turn"], [ctrl])
                    v = self.d.game(gid, tokens[ctrl])
                    self.assertTrue(v["legal_moves"], v)
                    self.assertTrue(all(t.startswith(victim[0] + ": ") for t in v["legal_moves"]))
                    r = self.d.move(gid, tokens[victim], v["legal_moves"][0].split(": ", 1)[1], g["ply"])
                    self.assertEqual(r.status, 403, r)
                    return
                seat = g["turn"][0]
                v = self.d.game(gid, tokens[seat])
                self.send(gid, tokens[seat], v["legal_moves"][0].split(": ", 1)[1], v["ply"])


def load_verify_dice():
    """scripts/verify-dice.py as a module, for its roll()."""
    spec = importlib.util.spec_from_file_location("verify_dice", daemon.VERIFY_DICE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class LegacyDice(CivilWarPlay, daemon.DaemonCase):
    """A game stored before client seeds existed keeps dice version 1 and takes no client seed."""

    def test_games_stored_before_keep_v1(self):
        rnd = random.Random(SEED + 4)
        gid, tokens = self.new_game()
        # As the migration leaves a game stored before it.
        self.d.stop()
        database.execute(self.d.db, "UPDATE games SET dice_version = 1 WHERE id = ?", (gid,))
        self.d.start()
        g = self.d.game(gid)
        self.assertEqual((g["dice_version"], g["client_seeds_open"]), (1, False))
        self.assertError(self.d.request("PUT", f"/api/games/{gid}/client-seed", {"client_seed": "x"},
                                        token=tokens["South"]), 409, "seeds_fixed", "take none")
        self.assertNotIn('id="seed-form"', self.d.get(f"/games/{gid}?seat={tokens['South']}").text)
        self.play_for_rolls(gid, tokens, rnd, 4)
        self.resign_to_end(gid, tokens, rnd)
        rec = self.d.dice_record(gid)
        self.assertEqual(rec["version"], 1)
        self.assertIn("rookery-dice/v1|", rec["algorithm"])
        p = self.verify_dice(rec)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(f"{len(rec['rolls'])} rolls checked, 0 wrong", p.stdout)
        self.assertEqual(self.verify_dice(dict(rec, version=2)).returncode, 1)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
