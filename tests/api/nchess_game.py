#!/usr/bin/env python3
"""nchess_game.py - Nchess over the JSON API and on its game page, against the real daemon.

usage: python3 tests/api/nchess_game.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

Games created with POST /api/games and played move by move: the new game's view, the legal moves
a seat's token shows, canonical echoes and re-sent moves, stale and future plies, turns, bad and
illegal moves, tokens, resignation, draw offers, the dice record (committed, then revealed and
checked with scripts/verify-dice.py), a release that needs placements and what /check says of it,
the gestures of legal moves, and whole games to their end. Then the game page: a move through the
form, and the board as each seat and the public see it.

Each test class starts its own daemon (tests/harness/daemon.py). Python standard library only.
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.daemon import HEX64, DaemonCase, VERIFY_DICE  # noqa: E402
from harness.nchess import (CANONICAL_MOVE, RELEASE_LINE, START_BOARD, complete_release,  # noqa: E402
                            square_of)
from harness.pages import hidden_fields, page_board  # noqa: E402

LIMIT_NAME = daemon.LIMITS["LIMIT_NAME"]


# --------------------------------------------------------------------------------------------
# The JSON API
# --------------------------------------------------------------------------------------------

class ApiTests(DaemonCase):

    def test_variants(self):
        r = self.d.get("/api/variants")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.header("Content-Type"), "application/json")
        v = r.json()["variants"]
        nchess = [x for x in v if x["id"] == "nchess"]
        self.assertEqual(len(nchess), 1, v)
        n = nchess[0]
        self.assertEqual(n["seats"], ["South", "North"])
        self.assertEqual(n["players"], 2)
        self.assertEqual(n["rules_url"], "/rules/nchess")
        self.assertIsInstance(n["rules_version"], int)
        self.assertTrue(n["title"] and n["summary"])

    def test_create_game(self):
        r = self.d.post("/api/games", {"variant": "nchess", "seats": [
            {"name": "Ann", "email": "ann@example.org"}, {"name": "Ben"}]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.d.secrets.update(s["token"] for s in g["seats"])
        self.assertRegex(g["id"], r"^[a-z0-9]{12}$")
        self.assertEqual(g["variant"], "nchess")
        self.assertEqual(g["url"], f"{self.d.base}/games/{g['id']}")
        self.assertEqual([s["seat"] for s in g["seats"]], ["South", "North"])
        self.assertEqual([s["name"] for s in g["seats"]], ["Ann", "Ben"])
        for s in g["seats"]:
            self.assertEqual(set(s), {"seat", "name", "token", "url"})
            self.assertRegex(s["token"], r"^[A-Za-z0-9_-]{20,64}$")
            self.assertEqual(s["url"], f"{self.d.base}/games/{g['id']}?seat={s['token']}")
        self.assertNotEqual(g["seats"][0]["token"], g["seats"][1]["token"])
        self.assertNotIn("ann@example.org", r.text, "the creator's answer needs no emails either")
        # Names are counted in bytes: LIMIT_NAME bytes of two-byte letters is fine.
        name = "\u00e9" * (LIMIT_NAME // 2)
        gid, tokens, g = self.d.create_game((name, "B"))
        self.assertEqual(self.d.game(gid)["seats"][0]["name"], name)

    def test_new_game_view(self):
        gid, tokens, _ = self.d.create_game()
        g = self.d.game(gid)
        self.assertEqual(g["id"], gid)
        self.assertEqual(g["variant"], "nchess")
        self.assertEqual(g["status"], "running")
        self.assertEqual(g["ply"], 0)
        self.assertEqual(g["turn"], ["South"])
        self.assertIsNone(g["result"])
        self.assertIsNone(g["draw_offer"])
        self.assertRegex(g["dice_commitment"], HEX64)
        self.assertEqual(g["seats"], [{"seat": "South", "name": "Ann", "client_seed": None, "open": False},
                                      {"seat": "North", "name": "Ben", "client_seed": None, "open": False}])
        self.assertEqual(g["open_seats"], 0)
        self.assertNotIn("open_until", g)
        self.assertEqual((g["dice_version"], g["client_seeds_open"]), (2, True))
        self.assertNotIn("legal_moves", g)
        self.assertNotIn("seat", g)
        pos = g["position"]
        self.assertEqual(pos["board"], START_BOARD)
        self.assertEqual(pos["rows"], [str(i) for i in range(1, 10)])
        self.assertEqual(pos["cols"], [str(i) for i in range(1, 10)])
        self.assertTrue(pos["notation"].startswith("nchess1:"), pos["notation"])
        self.assertEqual(pos["kinds"][4], ["river"] * 9)
        self.assertEqual(pos["kinds"][0][3], "prison")
        self.assertEqual({(h["row"], h["col"]) for h in pos["holdings"]},
                         {("1", "4"), ("1", "6"), ("9", "4"), ("9", "6")})
        self.assertTrue(all(h["pieces"] == [] for h in pos["holdings"]))

    def test_legal_moves_only_with_a_token(self):
        gid, tokens, _ = self.d.create_game()
        south = self.d.game(gid, tokens["South"])
        self.assertEqual(south["seat"], "South")
        self.assertEqual(len(south["legal_moves"]), 36, south["legal_moves"])
        self.assertEqual(len(set(south["legal_moves"])), 36)
        for m in south["legal_moves"]:
            self.assertRegex(m, CANONICAL_MOVE)
            self.assertTrue(m[0].isupper(), m)
        self.assertIn("S 7 1 6 1", south["legal_moves"])
        self.assertIn("N 9 2 8 4", south["legal_moves"])
        self.assertNotIn("N 9 2 7 3", south["legal_moves"], "a Soldier stands there")
        # "legal" holds the same moves, in the same order, with what the page needs to point at them.
        self.assertEqual([o["move"] for o in south["legal"]], south["legal_moves"])
        north = self.d.game(gid, tokens["North"])
        self.assertEqual(north["seat"], "North")
        self.assertEqual(north["legal_moves"], [], "North may not move before South")
        self.assertEqual(north["legal"], [])
        # The rest of the view is the public one.
        public = self.d.game(gid)
        for k in ("seat", "legal_moves", "legal"):
            self.assertNotIn(k, public)
            south.pop(k)
            north.pop(k)
        self.assertEqual(south, public)
        self.assertEqual(north, public)

    def test_move_canonical_and_duplicate(self):
        gid, tokens, _ = self.d.create_game()
        r = self.d.move(gid, tokens["South"], "[s 7, 1, 6, 1]", 0)
        self.assertEqual(r.status, 201, r)
        m = r.json()
        self.assertEqual(m["ply"], 0)
        self.assertEqual(m["seat"], "South")
        self.assertEqual(m["move"], "S 7 1 6 1")
        self.assertEqual(m["note"], "")
        self.assertEqual(m["dice"], [])
        self.assertIs(m["duplicate"], False)
        self.assertEqual(m["game"]["ply"], 1)
        self.assertEqual(m["game"]["turn"], ["North"])
        self.assertEqual(m["game"]["seat"], "South")
        self.assertEqual(m["game"]["legal_moves"], [])
        self.assertEqual(m["game"]["position"]["board"][5][0], "S")
        self.assertIsNone(m["game"]["position"]["board"][6][0])
        # The same move again, in any spelling: the same answer, stored once.
        stored = self.d.snapshot()
        for text in ("[s 7, 1, 6, 1]", "S7161", "S 7 1 6 1  # again"):
            with self.subTest(text=text):
                r2 = self.d.move(gid, tokens["South"], text, 0)
                self.assertEqual(r2.status, 200, r2)
                d = r2.json()
                self.assertIs(d["duplicate"], True)
                self.assertEqual((d["ply"], d["seat"], d["move"], d["note"]), (0, "South", "S 7 1 6 1", ""))
                self.assertEqual(d["game"]["ply"], 1)
        self.assertEqual(self.d.snapshot(), stored, "a re-sent move changed the database")
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(len(moves), 1, moves)
        self.assertEqual(moves[0]["move"], "S 7 1 6 1")
        self.assertEqual(moves[0]["seat"], "South")
        self.assertRegex(moves[0]["at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(self.d.game(gid)["ply"], 1)
        # North's first move: lower case, canonical.
        r = self.d.move(gid, tokens["North"], "S31 41", 1)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["move"], "s 3 1 4 1")

    def test_stale_and_future_ply(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, ["S 7 1 6 1", "s 3 1 4 1"])
        before = self.d.game(gid)
        msg = self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 0), 409, "stale_ply")
        self.assertIn("S 7 1 6 1", msg)
        self.assertError(self.d.move(gid, tokens["North"], "s 3 3 4 3", 1), 409, "stale_ply")
        # The right move but the wrong seat for an old ply is stale too.
        self.assertError(self.d.move(gid, tokens["North"], "S 7 1 6 1", 0), 409, "stale_ply")
        self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 3), 409, "stale_ply", "ply 2")
        self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 1000), 409, "stale_ply")
        self.assertEqual(self.d.game(gid), before)
        self.assertEqual(len(self.d.get(f"/api/games/{gid}/moves").json()["moves"]), 2)

    def test_not_your_turn(self):
        gid, tokens, _ = self.d.create_game()
        self.assertError(self.d.move(gid, tokens["North"], "s 3 1 4 1", 0), 403, "not_your_turn")
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 1), 403, "not_your_turn")
        self.assertEqual(self.d.game(gid)["ply"], 1)

    def test_bad_and_illegal_moves(self):
        gid, tokens, _ = self.d.create_game()
        t = tokens["South"]
        for text in ("hello", "S 7 5", "S 0 5 6 5", "X 7 1 6 1", "", "   ", "S 7 1 6 1 4 4 4", "[[S 7 1 6 1"):
            with self.subTest(text=text):
                self.assertError(self.d.move(gid, t, text, 0), 422, "bad_move")
        illegal = {
            "S 7 5 8 5": "backward",            # Soldiers never retreat
            "S 7 5 6 4": "diagonal",
            "C 9 1 7 1": "[7 1]",               # own piece there
            "N 9 1 8 1": "Chariot",             # wrong letter
            "S 7 1 6 1 4": "prison digit",      # prison digit on a non-capture
            "S 7 5 6 5 / S 8 1": "no placement",
            "G 9 5 8 4": "General",
            "M 9 3 7 1": "[8 2]",               # blocked by the Archer
            "S 6 1 5 1": "[6 1]",               # no piece there
            "s 3 1 4 1": "North",               # an enemy piece
        }
        for text, part in illegal.items():
            with self.subTest(text=text):
                r = self.d.move(gid, t, text, 0)
                self.assertEqual(r.status, 422, r)
                err = r.json()["error"]
                self.assertIn(err["code"], ("illegal_move", "not_your_turn") if text[0] == "s" else ("illegal_move",))
                self.assertIn(part.lower(), err["message"].lower(), err)
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["position"]["board"]), (0, START_BOARD))
        self.assertEqual(self.d.get(f"/api/games/{gid}/moves").json()["moves"], [])

    def test_unauthorized(self):
        gid, tokens, _ = self.d.create_game()
        other, other_tokens, _ = self.d.create_game()
        body = {"move": "S 7 1 6 1", "ply": 0}
        path = f"/api/games/{gid}/moves"
        self.assertError(self.d.post(path, body), 401, "unauthorized")
        self.assertError(self.d.post(path, body, token="A" * 32), 401, "unauthorized")
        self.assertError(self.d.post(path, body, token="not a token!"), 401, "unauthorized")
        self.assertError(self.d.post(path, body, token=""), 401, "unauthorized")
        self.assertError(self.d.post(path, body, headers={"Authorization": "Basic " + tokens["South"]}), 401,
                         "unauthorized")
        self.assertError(self.d.post(path, body, token=other_tokens["South"]), 401, "unauthorized")
        # Reading with a bad token is refused too, not silently public.
        self.assertError(self.d.get(f"/api/games/{gid}", token="A" * 32), 401, "unauthorized")
        self.assertError(self.d.get(f"/api/games/{gid}", token=other_tokens["South"]), 401, "unauthorized")
        for action in ("resign", "draw"):
            self.assertError(self.d.post(f"/api/games/{gid}/{action}", {"action": "offer"} if action == "draw" else {},
                                         token=other_tokens["North"]), 401, "unauthorized")
            self.assertError(self.d.post(f"/api/games/{gid}/{action}", {"action": "offer"} if action == "draw" else {}),
                             401, "unauthorized")
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["status"], g["draw_offer"]), (0, "running", None))
        g = self.d.game(other)
        self.assertEqual((g["ply"], g["status"], g["draw_offer"]), (0, "running", None))

    def test_resign(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        # An empty body is allowed; fields are not.
        self.assertError(self.d.post(f"/api/games/{gid}/resign", {"really": True}, token=tokens["South"]),
                         400, "bad_request")
        r = self.d.post(f"/api/games/{gid}/resign", token=tokens["South"])
        self.assertEqual(r.status, 200, r)
        g = r.json()
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"], {"summary": "North wins: South resigned", "ranks": [2, 1],
                                       "places": [{"place": 1, "seats": ["North"]}, {"place": 2, "seats": ["South"]}]})
        self.assertEqual(g["turn"], [])
        self.assertEqual(g["legal_moves"], [])
        self.assertEqual(self.d.game(gid)["result"]["summary"], "North wins: South resigned")
        # Over: moves and side actions are refused with game_over.
        self.assertError(self.d.move(gid, tokens["North"], "s 3 1 4 1", 1), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["North"]), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tokens["North"]),
                         409, "game_over")
        # An old ply stays answerable: duplicate or stale, never game_over.
        self.assertEqual(self.d.move(gid, tokens["South"], "S 7 1 6 1", 0).status, 200)
        self.assertEqual(self.d.game(gid)["ply"], 1)

    def test_resign_with_empty_json_object(self):
        gid, tokens, _ = self.d.create_game()
        r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["North"])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["result"], {"summary": "South wins: North resigned", "ranks": [1, 2],
                                              "places": [{"place": 1, "seats": ["South"]},
                                                         {"place": 2, "seats": ["North"]}]})

    def test_draw_offers(self):
        gid, tokens, _ = self.d.create_game()
        S, N = tokens["South"], tokens["North"]
        draw = lambda tok, action: self.d.post(f"/api/games/{gid}/draw", {"action": action}, token=tok)
        self.assertError(draw(N, "accept"), 409, "no_draw_offer")
        self.assertError(draw(N, "decline"), 409, "no_draw_offer")
        self.assertError(draw(N, "withdraw"), 409, "no_draw_offer")
        self.assertError(draw(N, "surrender"), 400, "bad_request")
        # Offer (any time, not only on one's turn) and withdraw.
        r = draw(N, "offer")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["draw_offer"], "North")
        self.assertEqual(self.d.game(gid)["draw_offer"], "North")
        self.assertError(draw(N, "offer"), 409, "draw_offer_pending")
        self.assertError(draw(S, "offer"), 409, "draw_offer_pending")
        self.assertError(draw(N, "accept"), 409, "no_draw_offer")   # not one's own offer
        self.assertError(draw(S, "withdraw"), 409, "no_draw_offer")
        r = draw(N, "withdraw")
        self.assertEqual(r.status, 200, r)
        self.assertIsNone(r.json()["draw_offer"])
        # Offer and decline.
        self.assertEqual(draw(S, "offer").status, 200)
        r = draw(N, "decline")
        self.assertEqual(r.status, 200, r)
        self.assertIsNone(r.json()["draw_offer"])
        self.assertEqual(r.json()["status"], "running")
        # The offer lapses when the opponent moves instead of answering.
        self.assertEqual(draw(N, "offer").status, 200)
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        self.assertIsNone(self.d.game(gid)["draw_offer"])
        self.assertError(draw(S, "accept"), 409, "no_draw_offer")
        # The offerer's own move keeps the offer open.
        self.assertEqual(draw(S, "offer").status, 200)
        self.d.play(gid, tokens, ["s 3 1 4 1"], first_ply=1)
        self.assertIsNone(self.d.game(gid)["draw_offer"])
        self.assertEqual(draw(S, "offer").status, 200)
        self.d.play(gid, tokens, ["S 7 3 6 3"], first_ply=2)
        self.assertEqual(self.d.game(gid)["draw_offer"], "South")
        # Offer and accept: drawn.
        r = draw(N, "accept")
        self.assertEqual(r.status, 200, r)
        g = r.json()
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"], {"summary": "drawn by agreement", "ranks": [1, 1],
                                       "places": [{"place": 1, "seats": ["South", "North"]}]})
        self.assertIsNone(g["draw_offer"])
        self.assertError(draw(S, "offer"), 409, "game_over")
        self.assertError(self.d.move(gid, S, "S 7 5 6 5", 4), 409, "game_over")
        self.assertEqual(len(self.d.get(f"/api/games/{gid}/moves").json()["moves"]), 3)

    def test_dice_record(self):
        gid, tokens, _ = self.d.create_game()
        commitment = self.d.game(gid)["dice_commitment"]
        self.d.play(gid, tokens, ["S 7 1 6 1", "s 3 1 4 1"])
        d = self.d.get(f"/api/games/{gid}/dice").json()
        self.assertEqual(d["game"], gid)
        self.assertEqual(d["commitment"], commitment)
        self.assertEqual(d["status"], "running")
        self.assertIsNone(d["seed"], "the seed stays secret while the game runs")
        self.assertEqual(d["rolls"], [], "Nchess has no dice")
        self.assertIn("HMAC-SHA256", d["algorithm"])
        path = os.path.join(self.d.workdir, f"dice-{gid}-running.json")
        with open(path, "w") as f:
            json.dump(d, f)
        r = subprocess.run([sys.executable, VERIFY_DICE, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, "nothing to verify before the end: " + r.stdout + r.stderr)
        self.d.post(f"/api/games/{gid}/resign", token=tokens["North"])
        self.check_revealed_dice(gid, commitment)

    def check_revealed_dice(self, gid, commitment):
        r = self.d.get(f"/api/games/{gid}/dice")
        self.assertEqual(r.status, 200, r)
        d = r.json()
        self.assertEqual(d["status"], "over")
        self.assertEqual(d["commitment"], commitment)
        self.assertRegex(d["seed"], HEX64)
        self.assertEqual(hashlib.sha256(bytes.fromhex(d["seed"])).hexdigest(), commitment)
        path = os.path.join(self.d.workdir, f"dice-{gid}.json")
        with open(path, "wb") as f:
            f.write(r.body)
        v = subprocess.run([sys.executable, VERIFY_DICE, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("commitment matches", v.stdout)
        self.assertIn(f"{len(d['rolls'])} rolls checked, 0 wrong", v.stdout)
        # A tampered record fails.
        bad = dict(d, commitment="0" * 64)
        with open(path, "w") as f:
            json.dump(bad, f)
        v = subprocess.run([sys.executable, VERIFY_DICE, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 1, v.stdout + v.stderr)
        return d

    def test_release_needs_placements(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, RELEASE_LINE)
        N = tokens["North"]
        g = self.d.game(gid, N)
        self.assertEqual(g["ply"], 15)
        prisons = {(h["row"], h["col"]): h["pieces"] for h in g["position"]["holdings"]}
        self.assertEqual(prisons[("9", "6")], ["s"])
        # The legal move that releases is listed as its prefix only.
        self.assertIn("a 7 8 9 6 4", g["legal_moves"])
        msg = self.assertError(self.d.move(gid, N, "a 7 8 9 6 4", 15), 422, "incomplete_move")
        self.assertIn("1 more placement", msg)
        self.assertIn(" s ", msg + " ")
        # Wrong completions are refused with a reason.
        for text in ("a 7 8 9 6 4 / n 3 9",     # the prisoner is a Soldier
                     "a 7 8 9 6 4 / s 5 1",     # river
                     "a 7 8 9 6 4 / s 1 4",     # prison square
                     "a 7 8 9 6 4 / s 6 1",     # not North's half
                     "a 7 8 9 6 4 / s 1 1",     # occupied
                     "a 7 8 9 6 4 / s 3 9 / s 3 8"):
            with self.subTest(text=text):
                r = self.d.move(gid, N, text, 15)
                self.assertEqual(r.status, 422, r)
                self.assertIn(r.json()["error"]["code"], ("illegal_move", "bad_move"))
        # The capture still needs its prison digit.
        self.assertError(self.d.move(gid, N, "a 7 8 9 6 / s 3 9", 15), 422, "illegal_move")
        self.assertEqual(self.d.game(gid)["ply"], 15)
        r = self.d.move(gid, N, "A 7, 8, 9, 6, 4 / S 3 9", 15)
        self.assertEqual(r.status, 201, r)
        m = r.json()
        self.assertEqual(m["move"], "a 7 8 9 6 4 / s 3 9")
        self.assertIn("captures N", m["note"])
        self.assertIn("releases s", m["note"])
        board = m["game"]["position"]["board"]
        self.assertEqual((board[2][8], board[8][5]), ("s", "a"))
        prisons = {(h["row"], h["col"]): h["pieces"] for h in m["game"]["position"]["holdings"]}
        self.assertEqual(prisons[("9", "6")], [])
        self.assertEqual(prisons[("1", "4")], ["A", "S", "N"], "the newest prisoner last")
        self.assertEqual(prisons[("9", "4")], [])
        # Re-sent with the placement: a duplicate.
        r = self.d.move(gid, N, "a 7 8 9 6 4 / s 3 9", 15)
        self.assertEqual((r.status, r.json()["duplicate"]), (200, True))

    def check(self, gid, token, text):
        q = "" if text is None else "?move=" + urllib.parse.quote(text)
        return self.d.get(f"/api/games/{gid}/check{q}", token=token)

    def test_check_reads_without_playing(self):
        gid, tokens, _ = self.d.create_game()
        S, N = tokens["South"], tokens["North"]
        before = self.d.snapshot()
        r = self.check(gid, S, "[s 7, 1, 6, 1]")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json(), {"move": "S 7 1 6 1", "places": ["7 1", "6 1"], "choice": "",
                                    "partial": False, "continuations": []})
        self.assertError(self.check(gid, N, "s 3 1 4 1"), 403, "not_your_turn")
        self.assertError(self.check(gid, S, "S 7 1 5 1"), 422, "illegal_move")
        self.assertError(self.check(gid, S, "hello"), 422, "bad_move")
        self.assertError(self.check(gid, S, None), 400, "bad_request")
        self.assertError(self.check(gid, S, "S" * 401), 413, "too_large")
        self.assertError(self.check(gid, None, "S 7 1 6 1"), 401, "unauthorized")
        self.assertError(self.check(gid, "x" * 32, "S 7 1 6 1"), 401, "unauthorized")
        self.assertEqual(self.d.snapshot(), before, "checking a move changed nothing")
        self.assertEqual(self.d.game(gid)["ply"], 0)

    def test_check_lists_a_release_continuations(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, RELEASE_LINE)
        N = tokens["North"]
        g = self.d.game(gid, N)
        option = [o for o in g["legal"] if o["move"] == "a 7 8 9 6 4"]
        self.assertEqual(len(option), 1, g["legal"])
        self.assertTrue(option[0]["partial"])
        self.assertEqual(option[0]["places"], ["7 8", "9 6"])
        r = self.check(gid, N, "a 7 8 9 6 4")
        self.assertEqual(r.status, 200, r)
        c = r.json()
        self.assertTrue(c["partial"])
        self.assertEqual(c["places"], ["7 8", "9 6"])
        by_move = {o["move"]: o for o in c["continuations"]}
        self.assertIn("a 7 8 9 6 4 / s 3 9", by_move)
        self.assertEqual(by_move["a 7 8 9 6 4 / s 3 9"]["places"], ["7 8", "9 6", "3 9"])
        self.assertNotIn("a 7 8 9 6 4 / s 5 1", by_move, "a river square is no placement")
        for o in c["continuations"]:
            self.assertEqual(o["places"][:2], ["7 8", "9 6"])
            self.assertFalse(o["partial"])
        # A continuation checked on its own is complete; the move it names is then played as usual.
        r = self.check(gid, N, "a 7 8 9 6 4 / s 3 9")
        self.assertEqual((r.status, r.json()["partial"], r.json()["continuations"]), (200, False, []))
        self.assertEqual(self.d.move(gid, N, "a 7 8 9 6 4 / s 3 9", 15).status, 201)
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(moves[-1]["places"], ["7 8", "9 6", "3 9"])

    def test_legal_moves_carry_gestures(self):
        gid, tokens, _ = self.d.create_game()
        g = self.d.game(gid, tokens["South"])
        self.assertEqual([o["move"] for o in g["legal"]], g["legal_moves"])
        for o in g["legal"]:
            self.assertEqual(set(o), {"move", "places", "choice", "partial"})
            self.assertEqual(len(o["places"]), 2, o)
        keys = [(tuple(o["places"]), o["choice"]) for o in g["legal"]]
        self.assertEqual(len(keys), len(set(keys)), "no two moves are pointed at the same way")
        self.assertNotIn("legal", self.d.game(gid))
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(moves[0]["places"], ["7 1", "6 1"])
        # The page marks the last move's squares, and only them.
        for token in (None, tokens["South"], tokens["North"]):
            board = page_board(self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else "")).text)
            self.assertEqual({n for n, s in board.squares.items() if s["last"]}, {"7 1", "6 1"})

    def test_whole_game_over_the_api(self):
        gid, tokens, _ = self.d.create_game(("Ada", "Bob"))
        commitment = self.d.game(gid)["dice_commitment"]
        rnd = random.Random(35)   # this seed currently meets a two-prisoner release
        played, releases = [], 0
        conn = self.d.connect()   # one keep-alive connection for the whole game
        self.addCleanup(conn.close)
        for _ in range(1000):
            g = self.d.get(f"/api/games/{gid}", conn=conn).json()
            if g["status"] == "over":
                break
            seat = g["turn"][0]
            view = self.d.get(f"/api/games/{gid}", token=tokens[seat], conn=conn).json()
            moves = view["legal_moves"]
            self.assertTrue(moves, "a running game's player to move has a legal move")
            general = square_of(view["position"]["board"], "g" if seat == "South" else "G")
            kills = [m for m in moves if general and tuple(map(int, m.split()[3:5])) == general]
            candidates = kills or moves
            text = rnd.choice(candidates)
            r = self.d.move(gid, tokens[seat], text, view["ply"])
            if r.status == 422 and r.json()["error"]["code"] == "incomplete_move":
                text = complete_release(text, seat, view["position"], rnd)
                r = self.d.move(gid, tokens[seat], text, view["ply"])
                releases += 1
            self.assertEqual(r.status, 201, (text, r))
            m = r.json()
            self.assertEqual(m["ply"], view["ply"])
            self.assertEqual(m["seat"], seat)
            self.assertRegex(m["move"], CANONICAL_MOVE)
            self.assertEqual(m["move"], text, "canonical texts come back unchanged")
            if kills:
                self.assertIn("wins: General captured", m["note"])
            played.append((seat, m["move"], m["note"]))
        else:
            self.fail("the game did not end in 1000 plies")
        self.assertEqual(g["ply"], len(played))
        self.assertRegex(g["result"]["summary"], r"^(South|North) wins: (General captured|(South|North) has no legal move)$")
        winner = g["result"]["summary"].split()[0]
        self.assertEqual(g["result"]["ranks"], [1, 2] if winner == "South" else [2, 1])
        self.assertEqual(g["turn"], [])
        self.assertEqual(self.d.game(gid, tokens["South"])["legal_moves"], [])
        # The history has one entry per ply, in order, with the canonical texts.
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual([m["ply"] for m in moves], list(range(len(played))))
        self.assertEqual([(m["seat"], m["move"], m["note"]) for m in moves], played)
        self.assertEqual([m["seat"] for m in moves], [("South", "North")[i % 2] for i in range(len(moves))])
        # Over: no more moves.
        loser = "North" if winner == "South" else "South"
        self.assertError(self.d.move(gid, tokens[loser], "S 7 1 6 1", len(played)), 409, "game_over")
        # The winning move sent again is still a duplicate, not an error.
        winner_move = played[-1][1]
        r = self.d.move(gid, tokens[winner], winner_move, len(played) - 1)
        self.assertEqual((r.status, r.json()["duplicate"], r.json()["note"]), (200, True, played[-1][2]), r)
        self.check_revealed_dice(gid, commitment)

    def test_secrets_stay_private(self):
        gid, tokens, _ = self.d.create_game(("Ann", "Ben"), ("ann.secret@example.org", "ben.secret@example.org"))
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        # Use every token in every way it may be used, then look where it must not be.
        self.d.get(f"/api/games/{gid}", token=tokens["North"])
        self.d.get(f"/games/{gid}?seat={tokens['North']}")
        self.d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tokens["North"])
        public = [
            self.d.get(f"/api/games/{gid}"),
            self.d.get(f"/api/games/{gid}/moves"),
            self.d.get(f"/api/games/{gid}/dice"),
            self.d.get(f"/games/{gid}"),
            self.d.get("/"),
        ]
        own = [self.d.get(f"/api/games/{gid}", token=tokens["South"]),
               self.d.get(f"/games/{gid}?seat={tokens['South']}")]
        for r in public + own:
            self.assertEqual(r.status, 200, r)
            self.assertNotIn("secret@example.org", r.text)
            self.assertNotIn(tokens["North"], r.text)
        for r in public:
            self.assertNotIn(tokens["South"], r.text)
        self.assertNotIn(tokens["South"], own[0].text, "the API view of a seat does not echo its token")
        time.sleep(0.05)
        log = self.d.stderr()
        for t in tokens.values():
            self.assertNotIn(t, log)
        self.assertNotIn("secret@example.org", log)


# --------------------------------------------------------------------------------------------
# The game page
# --------------------------------------------------------------------------------------------

class NchessPageTests(DaemonCase):

    def test_play_through_the_form(self):
        gid, tokens, _ = self.d.create_game()
        page = f"/games/{gid}?seat={tokens['South']}"
        html = self.d.get(page).text
        fields = hidden_fields(html, f"/games/{gid}/move")
        self.assertEqual(fields["seat"], tokens["South"])
        self.assertRegex(fields["csrf"], HEX64)
        self.assertEqual(fields["ply"], "0")
        self.assertIn('<option value="S 7 1 6 1">', html)
        before = page_board(html).squares
        self.assertEqual((before["7 1"]["side"], before["7 1"]["piece"], before["6 1"]["piece"]), ("South", "S", None))
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "s 7 1 6 1"},
                             origin=f"http://127.0.0.1:{self.d.port}")
        self.assertEqual(r.status, 303, r)
        self.assertEqual(r.header("Location"), page)
        html = self.d.get(page).text
        after = page_board(html).squares
        # The Soldier stepped from 7 1 to 6 1, both squares marked as the last move's; nothing else changed.
        self.assertEqual((after["7 1"]["piece"], after["6 1"]["side"], after["6 1"]["piece"]), (None, "South", "S"))
        self.assertEqual({n for n, s in after.items() if s["last"]}, {"7 1", "6 1"})
        self.assertEqual({n for n in before if before[n] != after[n]}, {"7 1", "6 1"})
        self.assertIn("<code>S 7 1 6 1</code>", html)
        self.assertNotIn(f'action="/games/{gid}/move"', html, "no move form when it is not one's turn")
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["position"]["board"][5][0]), (1, "S"))
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(moves[0]["move"], "S 7 1 6 1")
        # The same form sent again (a double click) changes nothing and lands on the page.
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "s 7 1 6 1"})
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.d.game(gid)["ply"], 1)
        # North answers; a bad move shows the page again with the message and the typed text.
        npage = self.d.get(f"/games/{gid}?seat={tokens['North']}").text
        nfields = hidden_fields(npage, f"/games/{gid}/move")
        self.assertEqual(nfields["ply"], "1")
        r = self.d.post_form(f"/games/{gid}/move", {**nfields, "move": "s 3 1 2 1"})
        self.assertEqual(r.status, 422, r)
        self.assertIn("cannot move backward", r.text)
        self.assertIn('value="s 3 1 2 1"', r.text)
        self.assertIn('class="error"', r.text)
        r = self.d.post_form(f"/games/{gid}/move", {**nfields, "move": "s 3 1 4 1"})
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.d.game(gid)["ply"], 2)

    def check_board(self, html, position, seat, last=()):
        """The page's board shows the API's position from seat's side: South and the public see
        row 1 at the top and column 1 on the left, North the board turned half round. Every square
        is drawn once with its kind, its piece in its owner's colour, what a prison holds on its
        square (newest first) and in the list beside the board; last: the squares marked as the
        last move's."""
        b = page_board(html)
        self.assertEqual(len(b.squares), 81)
        turned = seat == "North"
        for name, s in b.squares.items():
            row, col = (int(x) for x in name.split())
            self.assertEqual((s["r"], s["c"]), (9 - row, 9 - col) if turned else (row - 1, col - 1), name)
            piece = position["board"][row - 1][col - 1]
            self.assertEqual(s["piece"], piece, name)
            self.assertEqual(s["side"], piece and ("South" if piece.isupper() else "North"), name)
            self.assertEqual(s["kind"], position["kinds"][row - 1][col - 1] or "plain", name)
            self.assertIsNone(s["facing"], name)
            self.assertEqual(s["last"], name in last, name)
            self.assertEqual(s["shade"], "dark" if (s["r"] + s["c"]) % 2 else "light", name)
        self.assertEqual({n for n, s in b.squares.items() if s["kind"] == "prison"}, {"1 4", "1 6", "9 4", "9 6"})
        self.assertEqual({n for n, s in b.squares.items() if s["kind"] == "river"}, {f"5 {c}" for c in range(1, 10)})
        for h in position["holdings"]:
            s = b.squares[f"{h['row']} {h['col']}"]
            newest = list(reversed(h["pieces"]))
            shown = " ".join(newest) if len(newest) <= 4 else " ".join(newest[:3]) + f" +{len(newest) - 3}"
            self.assertEqual((s["held"], s["held_side"]), (shown, h["seat"]) if h["pieces"] else (None, None), h)
        self.assertEqual([(h["name"], h["square"], h["pieces"]) for h in b.holdings],
                         [(h["name"], f"{h['row']} {h['col']}", h["pieces"]) for h in position["holdings"]])
        for h, p in zip(position["holdings"], b.holdings):
            self.assertEqual(p["class"], ["prisoners", "side-" + h["seat"]] if h["pieces"] else [], p)
        self.assertEqual((b.walls, b.hands), ({}, []))
        labels = [str(n) for n in (range(9, 0, -1) if turned else range(1, 10))]
        self.assertEqual(b.row_labels(), [[n, n] for n in labels], "row labels left and right")
        self.assertEqual(b.col_labels(), [[n, n] for n in labels], "column labels above and below")
        return b

    def test_board_drawn_from_each_side(self):
        gid, tokens, _ = self.d.create_game()
        viewers = {"South": tokens["South"], "North": tokens["North"], None: None}
        for seat, token in viewers.items():
            with self.subTest(seat=seat, ply=0):
                html = self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else "")).text
                b = self.check_board(html, self.d.game(gid)["position"], seat)
                # The viewer's own back row is the bottom one; the General stands in its middle.
                self.assertEqual(b.grid()[8][4], "1 5" if seat == "North" else "9 5")
        # Up to the release: prisons hold pieces of both sides, one of them under a Knight.
        self.d.play(gid, tokens, RELEASE_LINE)
        position = self.d.game(gid)["position"]
        self.assertTrue(all(any(h["pieces"] for h in position["holdings"] if h["seat"] == s) for s in ("South", "North")))
        last = self.d.get(f"/api/games/{gid}/moves").json()["moves"][-1]["places"]
        self.assertEqual(len(last), 2)
        for seat, token in viewers.items():
            with self.subTest(seat=seat, ply=len(RELEASE_LINE)):
                html = self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else "")).text
                b = self.check_board(html, position, seat, last)
                self.assertEqual((b.squares["9 6"]["piece"], b.squares["9 6"]["held"]), ("N", "s"))
                self.assertEqual(b.squares["9 6"]["title"], "9 6: South N (holds s)")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
