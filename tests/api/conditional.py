#!/usr/bin/env python3
"""conditional.py - conditional moves (PUT/GET/DELETE /api/games/{id}/conditional) against the real daemon.

usage: python3 tests/api/conditional.py PATH-TO-ROOKERY [unittest options]

A seat stores a tree of expected replies and its answers; the daemon plays each answer as soon as
the game reaches it. Here: an Nchess tree matched twice in a row, then cleared on a deviation (the
seat told by mail each time); a Complex Allegiance tree whose expectation is the other three seats'
moves; a Civil War attack played conditionally with its roll in the dice record; the refusals
(illegal move, too deep, bad JSON, a hidden setup, the seat's own turn, another seat's token), each
with its code and nothing stored; and privacy: with a tree stored, every page, API answer, ETag,
live event and mail the other seat and a spectator can get is what it was without one.
"""
import json
import os
import random
import re
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.daemon import DaemonCase, LIMITS  # noqa: E402
from harness import civil_war, complex_allegiance  # noqa: E402
from harness.pages import hidden_fields  # noqa: E402
from live_events import KEEPALIVE, Stream  # noqa: E402

DEPTH = LIMITS["LIMIT_CONDITIONAL_DEPTH"]

# An Nchess line: South opened with S 7 1 6 1; North's replies and South's answers.
TREE = {"if": [
    {"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3",
     "next": {"if": [{"moves": ["m 1 3 2 4"], "then": "S 6 3 5 3",
                      "next": {"if": [{"moves": ["g 1 5 2 5"], "then": "S 7 5 6 5"}]}}]}},
    {"moves": ["c 1 9 2 9"], "then": "S 7 7 6 7"},
]}
# Moves that appear in no view North or a spectator gets before they are played.
SECRET_MOVES = ("S 7 3 6 3", "S 6 3 5 3", "S 7 5 6 5", "S 7 7 6 7")


class Base(DaemonCase):
    def put(self, gid, token, tree, **kw):
        return self.d.request("PUT", f"/api/games/{gid}/conditional", tree, token=token, **kw)

    def read(self, gid, token):
        r = self.d.get(f"/api/games/{gid}/conditional", token=token)
        self.assertEqual(r.status, 200, r)
        return r.json()

    def moves(self, gid):
        return [(m["seat"], m["move"]) for m in self.d.all_moves(gid)]

    def stored(self):
        return daemon.db_query(self.d.db, "SELECT game_id, seat, from_ply, tree FROM conditionals")

    def mails_to(self, address):
        return [m for m in self.d.maildir_mails() if m["To"].addresses[0].addr_spec.lower() == address]

    def wait_mail(self, address, pattern, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            for m in self.mails_to(address):
                if re.search(pattern, m.get_body(("plain",)).get_content()):
                    return m
            if time.monotonic() > deadline:
                self.fail(f"no mail to {address} matching {pattern!r}")
            time.sleep(0.1)


class TwoSeats(Base):
    def test_matched_twice_then_cleared_on_a_deviation(self):
        d = self.d
        gid, tok, _ = d.create_game(emails=("ann@example.org", "ben@example.org"))
        d.confirm_by_invitation(gid, "ann@example.org")
        self.assertEqual(d.move(gid, tok["South"], "S 7 1 6 1", 0).status, 201)
        version = d.game(gid)["version"]
        r = self.put(gid, tok["South"], TREE)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json(), TREE, "a canonical tree comes back as it went")
        self.assertEqual(self.read(gid, tok["South"]), TREE)
        self.assertEqual(d.game(gid)["version"], version, "a stored tree does not move the game's version")

        # North plays the expected reply: South's answer is played at once, in the same change.
        r = d.move(gid, tok["North"], "c 1 1 2 1", 1)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["game"]["ply"], 3, "the answer is in the mover's answer already")
        self.assertEqual(self.moves(gid)[-1], ("South", "S 7 3 6 3"))
        self.assertEqual(self.read(gid, tok["South"]), TREE["if"][0]["next"], "the subtree is kept")
        self.wait_mail("ann@example.org", r"your conditional move S 7 3 6 3 was played")
        # The record says how the move came.
        chan = daemon.db_query(d.db, "SELECT channel FROM moves WHERE game_id = ? AND ply = 2", (gid,))
        self.assertEqual(chan, [("conditional",)])

        # Matched a second time.
        self.assertEqual(d.move(gid, tok["North"], "m 1 3 2 4", 3).status, 201)
        self.assertEqual(self.moves(gid)[-2:], [("North", "m 1 3 2 4"), ("South", "S 6 3 5 3")])
        self.assertEqual(self.read(gid, tok["South"]), TREE["if"][0]["next"]["if"][0]["next"])
        self.assertEqual(d.game(gid)["turn"], ["North"])

        # North plays something else: the tree is cleared and South told; nothing is played.
        self.assertEqual(d.move(gid, tok["North"], "c 1 9 2 9", 5).status, 201)
        self.assertEqual(len(self.moves(gid)), 6)
        self.assertEqual(d.game(gid)["turn"], ["South"])
        self.assertEqual(self.read(gid, tok["South"]), {"if": []})
        self.assertEqual([r for r in self.stored() if r[0] == gid], [])
        self.wait_mail("ann@example.org", r"conditional moves in Nchess game \w+ are cleared: North played c 1 9 2 9")
        # Ann was asked for a move once: after the deviation. Her answers played at once needed none.
        asked = [m for m in self.mails_to("ann@example.org")
                 if "It is your move" in m.get_body(("plain",)).get_content()]
        self.assertEqual(len(asked), 1, [m.get_body(("plain",)).get_content()[:300] for m in asked])
        self.assertIn("Ben (North) played c 1 9 2 9", asked[0].get_body(("plain",)).get_content())

    def test_delete_and_last_answer_end_the_tree(self):
        d = self.d
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        self.assertEqual(self.put(gid, tok["South"], TREE).status, 200)
        r = d.request("DELETE", f"/api/games/{gid}/conditional", token=tok["South"])
        self.assertEqual((r.status, r.json()), (200, {"if": []}))
        self.assertEqual(self.read(gid, tok["South"]), {"if": []})
        self.assertEqual(d.move(gid, tok["North"], "c 1 1 2 1", 1).status, 201)
        self.assertEqual(len(self.moves(gid)), 2, "a cleared tree plays nothing")
        # A one-level tree: its answer is its last; then nothing is left.
        self.assertEqual(d.move(gid, tok["South"], "S 7 3 6 3", 2).status, 201)
        self.assertEqual(self.put(gid, tok["South"], {"if": [{"moves": ["c 2 1 1 1"], "then": "S 7 5 6 5"}]}).status, 200)
        self.assertEqual(d.move(gid, tok["North"], "c 2 1 1 1", 3).status, 201)
        self.assertEqual(self.moves(gid)[-1], ("South", "S 7 5 6 5"))
        self.assertEqual(self.read(gid, tok["South"]), {"if": []})

    def test_the_seat_to_move_stores_none(self):
        d = self.d
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        self.assertError(self.put(gid, tok["North"], {"if": [{"moves": ["S 7 3 6 3"], "then": "c 1 1 2 1"}]}),
                         409, "conditional_not_now")
        self.assertEqual(self.put(gid, tok["South"], {"if": [{"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3"}]}).status,
                         200)
        # South's answer played, North's turn again: now North may not, South still may.
        self.assertEqual(d.move(gid, tok["North"], "c 1 1 2 1", 1).status, 201)
        self.assertEqual(self.moves(gid)[-1], ("South", "S 7 3 6 3"))
        self.assertError(self.put(gid, tok["North"], {"if": []}), 409, "conditional_not_now")


class Page(Base):
    def page(self, gid, token):
        r = self.d.get(f"/games/{gid}?seat={token}")
        self.assertEqual(r.status, 200, r)
        return r.text

    def send(self, gid, token, fields):
        form = hidden_fields(self.page(gid, token), f"/games/{gid}/conditional")
        form = {k: form[k] for k in ("seat", "csrf")}    # the clear form comes first: its fields only
        return self.d.post_form(f"/games/{gid}/conditional", {**form, **fields}, origin=self.d.base)

    def test_read_add_and_clear_on_the_seat_page(self):
        d = self.d
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        self.assertIn("None stored.", self.page(gid, tok["South"]))
        self.assertEqual(self.put(gid, tok["South"], {"if": [TREE["if"][1]]}).status, 200)
        html = self.page(gid, tok["South"])
        self.assertIn("if c 1 9 2 9 then S 7 7 6 7\n", html)
        # A line added joins the stored ones; one for the same moves replaces it.
        r = self.send(gid, tok["South"], {"line": "if c 1 1 2 1 then S 7 3 6 3, if c 1 9 2 9 then S 7 5 6 5"})
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.read(gid, tok["South"]), {"if": [
            {"moves": ["c 1 9 2 9"], "then": "S 7 5 6 5"}, {"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3"}]})
        self.assertIn("if c 1 9 2 9 then S 7 5 6 5\nif c 1 1 2 1 then S 7 3 6 3\n", self.page(gid, tok["South"]))
        # A bad line is answered on the page with the reason; nothing changes.
        r = self.send(gid, tok["South"], {"line": "if c 1 1 2 1 then S 7 3 3 3"})
        self.assertEqual(r.status, 422, r)
        self.assertIn("S 7 3 3 3", r.text)
        r = self.send(gid, tok["South"], {"line": "c 1 1 2 1 S 7 3 6 3"})
        self.assertEqual(r.status, 422, r)
        self.assertEqual(len(self.read(gid, tok["South"])["if"]), 2)
        # Without the form token, from another site: refused.
        r = d.post_form(f"/games/{gid}/conditional", {"seat": tok["South"], "clear": "yes"}, origin=d.base)
        self.assertEqual(r.status, 403, r)
        self.assertEqual(len(self.read(gid, tok["South"])["if"]), 2)
        r = self.send(gid, tok["South"], {"clear": "yes"})
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.read(gid, tok["South"]), {"if": []})
        # The seat to move gets no form to add (it plays), only the list.
        self.assertNotIn("add-conditional", self.page(gid, tok["North"]))
        self.assertIn("add-conditional", self.page(gid, tok["South"]))


class LineEditor(Base):
    """The seat page's line editor, over plain HTTP (tests/browser/conditional_clicks.py clicks it)."""

    def line_page(self, gid, token, line, move=None, status=200):
        q = {"seat": token, "line": "|".join(line)}
        if move:
            q["move"] = move
        r = self.d.get(f"/games/{gid}?" + urllib.parse.urlencode(q))
        self.assertEqual(r.status, status, r)
        return r.text

    def test_a_line_built_move_by_move(self):
        d = self.d
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        html = self.line_page(gid, tok["South"], [])
        self.assertIn("Pick the move you expect of <strong>North</strong>", html)
        offered = re.findall(r'data-move="([^"]+)"', html)
        self.assertEqual(offered, d.game(gid, tok["North"])["legal_moves"], "North's moves, as the game stands")
        html = self.line_page(gid, tok["South"], [], "c 1 1 2 1")
        self.assertIn('name="line" value="c 1 1 2 1"', html)
        self.assertIn("S 7 3 6 3", re.findall(r'data-move="([^"]+)"', html))
        # A move that does not fit is refused with the reason; the line stays as it was.
        html = self.line_page(gid, tok["South"], ["c 1 1 2 1"], "S 7 3 3 3")
        self.assertIn('id="error">move 2: &quot;S 7 3 3 3&quot;', html)
        self.assertIn('name="line" value="c 1 1 2 1"', html)
        html = self.line_page(gid, tok["South"], ["c 1 1 2 1"], "S 7 3 6 3")
        self.assertIn('name="path" value="c 1 1 2 1|S 7 3 6 3"', html)
        self.assertIn('<pre class="conditional-lines">if c 1 1 2 1 then S 7 3 6 3\n</pre>', html)
        self.assertIn("Pick the move you expect of <strong>North</strong>", html, "the line may go on")
        # A second level: North's next reply and South's answer to it.
        html = self.line_page(gid, tok["South"], ["c 1 1 2 1", "S 7 3 6 3", "m 1 3 2 4"], "S 6 3 5 3")
        path = "c 1 1 2 1|S 7 3 6 3|m 1 3 2 4|S 6 3 5 3"
        self.assertIn(f'name="path" value="{path}"', html)
        self.assertIn("if c 1 1 2 1 then S 7 3 6 3\n  if m 1 3 2 4 then S 6 3 5 3\n", html)
        # Building stores nothing, and changes nothing anyone sees.
        self.assertEqual(self.read(gid, tok["South"]), {"if": []})
        self.assertEqual([r for r in self.stored() if r[0] == gid], [])
        # Stored with its button: the two levels, joined to what was stored (here a line for
        # another reply, and the first level again, whose answer is the same: merged level by level).
        self.assertEqual(self.put(gid, tok["South"], {"if": [TREE["if"][1], {"moves": ["c 1 1 2 1"],
                                                                               "then": "S 7 3 6 3"}]}).status, 200)
        form = hidden_fields(html, f"/games/{gid}/conditional")
        self.assertEqual(form["path"], path)
        r = d.post_form(f"/games/{gid}/conditional", form, origin=d.base)
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.read(gid, tok["South"]), {"if": [TREE["if"][1], {
            "moves": ["c 1 1 2 1"], "then": "S 7 3 6 3",
            "next": {"if": [{"moves": ["m 1 3 2 4"], "then": "S 6 3 5 3"}]}}]})
        # A path that does not end with an answer is refused and stores nothing more.
        form["path"] = "c 1 1 2 1"
        self.assertEqual(d.post_form(f"/games/{gid}/conditional", form, origin=d.base).status, 422)
        self.assertEqual(len(self.read(gid, tok["South"])["if"]), 2)
        # A path longer than any line (depth times the most seats) is refused before any move of it is read.
        form["path"] = "|".join(["c 1 1 2 1"] * (DEPTH * 4 + 1))  # 4: the most seats of any game
        self.assertEqual(d.post_form(f"/games/{gid}/conditional", form, origin=d.base).status, 413)
        self.assertEqual(len(self.read(gid, tok["South"])["if"]), 2)
        # Played out: both answers of the line.
        d.play(gid, tok, ["c 1 1 2 1"], first_ply=1)
        d.play(gid, tok, ["m 1 3 2 4"], first_ply=3)
        self.assertEqual(self.moves(gid)[-1], ("South", "S 6 3 5 3"))
        # The seat to move builds none; a spectator's page ignores the parameter.
        self.assertIn("it is your turn", self.line_page(gid, tok["North"], [], status=409))
        d.request("DELETE", f"/api/games/{gid}/conditional", token=tok["South"])
        r = d.get(f"/games/{gid}?line=c%201%201%202%201")
        self.assertEqual(r.status, 200)
        self.assertNotIn("a line of conditional moves", r.text)


class Refusals(Base):
    def scratch_line(self, n):
        """n legal plies of an Nchess game after S 7 1 6 1, played in a game of their own."""
        d, rnd = self.d, random.Random(7)
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        line = []
        for ply in range(1, n + 1):
            seat = ("South", "North")[ply % 2]
            legal = d.game(gid, tok[seat])["legal_moves"]
            line.append(rnd.choice(legal))
            self.assertEqual(d.move(gid, tok[seat], line[-1], ply).status, 201)
        return line

    def assertNothingStored(self, gid):
        self.assertEqual([r for r in self.stored() if r[0] == gid], [])

    def test_refusals_store_nothing(self):
        d = self.d
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        version = d.game(gid)["version"]
        plies = self.scratch_line(2 * (DEPTH + 1))
        deep = {"if": []}
        node = deep
        for i in range(DEPTH + 1):
            entry = {"moves": [plies[2 * i]], "then": plies[2 * i + 1]}
            node["if"].append(entry)
            if i < DEPTH:
                entry["next"] = {"if": []}
                node = entry["next"]
        cases = [
            ({"if": [{"moves": ["c 1 1 2 1"], "then": "S 7 3 3 3"}]}, 422, "illegal_move"),
            ({"if": [{"moves": ["c 1 1 5 1"], "then": "S 7 3 6 3"}]}, 422, "illegal_move"),
            ({"if": [{"moves": ["zz"], "then": "S 7 3 6 3"}]}, 422, "bad_move"),
            ({"if": [{"moves": ["c 1 1 2 1", "m 1 3 2 4"], "then": "S 7 3 6 3"}]}, 422, "bad_conditional"),
            ({"if": [{"moves": [], "then": "S 7 3 6 3"}]}, 422, "bad_conditional"),
            ({"if": [{"moves": ["c 1 1 2 1"]}]}, 422, "bad_conditional"),
            ({"if": [{"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3", "else": 1}]}, 422, "bad_conditional"),
            ({"if": [{"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3"}, {"moves": ["c 1 1 2 1"], "then": "S 7 5 6 5"}]},
             422, "bad_conditional"),
            ({"when": []}, 422, "bad_conditional"),
            (deep, 413, "too_large"),
        ]
        for tree, status, code in cases:
            with self.subTest(code=code, tree=json.dumps(tree)[:80]):
                self.assertError(self.put(gid, tok["South"], tree), status, code)
                self.assertNothingStored(gid)
        # The tree one level shallower is taken: the limit is where it says.
        ok = json.loads(json.dumps(deep))
        node = ok
        for _ in range(DEPTH - 1):
            node = node["if"][0]["next"]
        del node["if"][0]["next"]
        self.assertEqual(self.put(gid, tok["South"], ok).status, 200)
        d.request("DELETE", f"/api/games/{gid}/conditional", token=tok["South"])
        self.assertNothingStored(gid)

        bad = d.request("PUT", f"/api/games/{gid}/conditional", '{"if": [', token=tok["South"],
                        headers={"Content-Type": "application/json"})
        self.assertError(bad, 400, "bad_json")
        self.assertError(d.request("PUT", f"/api/games/{gid}/conditional", "if", token=tok["South"],
                                   headers={"Content-Type": "text/plain"}), 415, "unsupported_media_type")
        # The seat to move stores none: it plays.
        self.assertError(self.put(gid, tok["North"], {"if": [{"moves": ["S 7 3 6 3"], "then": "c 1 1 2 1"}]}),
                         409, "conditional_not_now")
        # No token, a made-up one, another game's.
        self.assertError(self.put(gid, None, TREE), 401, "unauthorized")
        self.assertError(self.put(gid, "x" * 32, TREE), 401, "unauthorized")
        other, otok, _ = d.create_game()
        self.assertError(self.put(gid, otok["South"], TREE), 401, "unauthorized")
        self.assertError(d.get(f"/api/games/{gid}/conditional", token=otok["North"]), 401, "unauthorized")
        self.assertError(d.get(f"/api/games/{gid}/conditional"), 401, "unauthorized")
        self.assertNothingStored(gid)
        self.assertEqual(d.game(gid)["version"], version)

    def test_game_over(self):
        d = self.d
        gid, tok, _ = d.create_game()
        d.play(gid, tok, ["S 7 1 6 1"])
        self.assertEqual(self.put(gid, tok["South"], TREE).status, 200)
        self.assertEqual(d.post(f"/api/games/{gid}/resign", {}, token=tok["North"]).status, 200)
        self.assertError(self.put(gid, tok["South"], TREE), 409, "game_over")
        self.assertEqual(self.read(gid, tok["South"]), {"if": []}, "a game over keeps no tree")
        self.assertNothingStored(gid)

    def test_cyvasse_hidden_setup(self):
        d = self.d
        r = d.post("/api/games", {"variant": "cyvasse", "seats": [{"name": "A"}, {"name": "B"}]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        d.secrets.update(s["token"] for s in g["seats"])
        for s in g["seats"]:
            self.assertError(self.put(g["id"], s["token"], {"if": [{"moves": ["x"], "then": "y"}]}),
                             409, "conditional_not_now")
        self.assertNothingStored(g["id"])


class FourSeats(Base):
    def create(self, variant, names):
        r = self.d.post("/api/games", {"variant": variant, "seats": [{"name": n} for n in names]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def test_complex_allegiance_expects_the_three_others(self):
        d = self.d
        gid, tok = self.create(complex_allegiance.VARIANT, complex_allegiance.NAMES)
        script = complex_allegiance.SCRIPT
        self.assertEqual(d.move(gid, tok["North"], script[0][1], 0).status, 201)
        tree = {"if": [{"moves": [s[2] for s in script[1:4]], "then": script[4][2],
                        "next": {"if": [{"moves": [s[2] for s in script[5:8]], "then": script[8][2]}]}}]}
        r = self.put(gid, tok["North"], tree)
        self.assertEqual((r.status, r.json()), (200, tree))
        # A tree naming too few moves never reaches its seat's turn.
        short = {"if": [{"moves": [s[2] for s in script[1:3]], "then": script[4][2]}]}
        self.assertError(self.put(gid, tok["North"], short), 422, "bad_conditional")
        self.assertEqual(self.read(gid, tok["North"]), tree)
        for ply in range(1, 4):
            seat, text = script[ply][0], script[ply][1]
            self.assertEqual(d.move(gid, tok[seat], text, ply).status, 201)
            if ply < 3:
                self.assertEqual(self.read(gid, tok["North"]), tree, "waiting for the rest of the round")
                self.assertEqual(len(d.all_moves(gid)), ply + 1)
        self.assertEqual([m["move"] for m in d.all_moves(gid)][-1], script[4][2])
        self.assertEqual(self.read(gid, tok["North"]), tree["if"][0]["next"])
        for ply in range(5, 8):
            seat, text = script[ply][0], script[ply][1]
            self.assertEqual(d.move(gid, tok[seat], text, ply).status, 201)
        moves = [m["move"] for m in d.all_moves(gid)]
        self.assertEqual(moves, [s[2] for s in script[:9]])
        self.assertEqual(self.read(gid, tok["North"]), {"if": []})

    def test_answers_chain_round_the_table(self):
        """East's move meets South's tree, whose answer meets West's, whose answer meets North's."""
        d = self.d
        gid, tok = self.create(complex_allegiance.VARIANT, complex_allegiance.NAMES)
        script = [s[2] for s in complex_allegiance.SCRIPT]
        self.assertEqual(d.move(gid, tok["North"], script[0], 0).status, 201)
        for seat, n in (("South", 1), ("West", 2), ("North", 3)):
            r = self.put(gid, tok[seat], {"if": [{"moves": script[1:1 + n], "then": script[1 + n]}]})
            self.assertEqual(r.status, 200, (seat, r))
        r = d.move(gid, tok["East"], script[1], 1)
        self.assertEqual(r.status, 201, r)
        self.assertEqual([m["move"] for m in d.all_moves(gid)], script[:5])
        self.assertEqual(d.game(gid)["turn"], ["East"])
        for seat in ("South", "West", "North"):
            self.assertEqual(self.read(gid, tok[seat]), {"if": []})

    def test_civil_war_attack_played_conditionally(self):
        """A scouting game finds a line without rolls that gives some army an attack needing a roll;
        a second game plays it, the attack left to that army's tree, and its roll is in /dice."""
        d = self.d
        rnd = random.Random(18)
        scout, stok = self.create(civil_war.VARIANT, civil_war.NAMES)
        line = []
        for _ in range(400):
            g = d.game(scout)
            mover = g["turn"][0]
            v = d.game(scout, stok[mover])
            rolled, quiet = [], []
            for text in v["legal_moves"]:
                e = civil_war.ECHO.match(text)
                if not e:
                    continue
                if e["sep"] == "x" or e["cap"]:
                    if (not e["cap"] and civil_war.VALUES[e["piece"]]
                            <= civil_war.VALUES[civil_war.cell(v["position"]["board"], e["to"])]):
                        rolled.append(text)
                else:
                    quiet.append(text)
            if rolled and len(line) >= 4:
                attack = (mover, rolled[0])
                break
            text = rnd.choice(quiet)
            line.append((mover, text))
            r = d.move(scout, stok[mover], text.split(": ", 1)[1], v["ply"])
            self.assertEqual(r.status, 201, r)
        else:
            self.fail("no attack needing a roll came up")
        self.assertEqual(d.dice_record(scout)["rolls"], [], "the scouting line rolled nothing")

        gid, tok = self.create(civil_war.VARIANT, civil_war.NAMES)
        n = len(line)
        for ply, (seat, text) in enumerate(line[:n - 3]):
            self.assertEqual(d.move(gid, tok[seat], text.split(": ", 1)[1], ply).status, 201)
        seat = attack[0]
        self.assertEqual(line[n - 4][0], seat, "the attacker moved a round before")
        tree = {"if": [{"moves": [t for _, t in line[n - 3:]], "then": attack[1]}]}
        r = self.put(gid, tok[seat], tree)
        self.assertEqual((r.status, r.json()), (200, tree))
        for ply in range(n - 3, n):
            s, text = line[ply]
            self.assertEqual(d.move(gid, tok[s], text.split(": ", 1)[1], ply).status, 201)
        last = d.all_moves(gid)[-1]
        self.assertEqual((last["seat"], last["move"]), attack)
        self.assertEqual(len(last["dice"]), 1, last)
        rolls = d.dice_record(gid)["rolls"]
        self.assertEqual([(x["ply"], x["seat"], x["sides"], x["value"]) for x in rolls],
                         [(n, seat, 12, last["dice"][0])])
        self.assertEqual(self.read(gid, tok[seat]), {"if": []})


class Privacy(Base):
    daemon_args = KEEPALIVE

    def views(self, gid, tok):
        """Everything North and a spectator can read of the game, with the ETags, form tokens left out."""
        d = self.d
        out = {}
        paths = [f"/api/games/{gid}", f"/api/games/{gid}/moves", f"/api/games/{gid}/dice",
                 f"/api/games/{gid}/record", f"/games/{gid}", f"/games/{gid}/moves"]
        for who, token in (("North", tok["North"]), ("spectator", None)):
            for p in paths:
                r = d.get(p, token=token) if p.startswith("/api/") else \
                    d.get(p + (f"?seat={token}" if token else ""))
                self.assertEqual(r.status, 200, (p, r))
                text = re.sub(r'name="csrf" value="[0-9a-f]+"', "", r.text)
                out[(who, p)] = (text, r.header("ETag"))
        r = d.get(f"/api/games/{gid}/check?move=" + "c%201%201%202%201", token=tok["North"])
        out[("North", "check")] = (r.text, r.header("ETag"))
        return out

    def test_no_trace_anywhere_else(self):
        d = self.d
        gid, tok, _ = d.create_game(emails=("ann@example.org", "ben@example.org"))
        d.confirm_by_invitation(gid, "ann@example.org")
        d.confirm_by_invitation(gid, "ben@example.org")
        self.assertEqual(d.move(gid, tok["South"], "S 7 1 6 1", 0).status, 201)
        time.sleep(0.5)
        before = self.views(gid, tok)
        version = d.game(gid)["version"]
        stream = Stream(d, gid, last_id=version)
        self.addCleanup(stream.close)
        self.assertEqual(stream.read(), {"comment": "keep-alive"})
        mails_before = len(d.maildir_mails())

        self.assertEqual(self.put(gid, tok["South"], TREE).status, 200)
        after = self.views(gid, tok)
        for key in before:
            with self.subTest(view=key):
                self.assertEqual(after[key], before[key], "a stored tree changes nothing anyone else reads")
                for text in SECRET_MOVES:
                    self.assertNotIn(text, after[key][0])
        self.assertEqual(d.game(gid)["version"], version)
        self.assertEqual(self.read(gid, tok["North"]), {"if": []}, "North's token reads North's own, none")
        self.assertEqual(stream.read(), {"comment": "keep-alive"}, "no live event for a stored tree")
        time.sleep(0.5)
        self.assertEqual(len(d.maildir_mails()), mails_before, "no mail for a stored tree")
        # South's own page shows it (so the scan above would see it, were it shown elsewhere).
        self.assertIn("if c 1 1 2 1 then S 7 3 6 3", d.get(f"/games/{gid}?seat={tok['South']}").text)

        # North deviates: the tree is cleared. North's mails (and every event) carry no trace of it.
        self.assertEqual(d.move(gid, tok["North"], "g 1 5 2 5", 1).status, 201)
        e = stream.event()
        self.assertEqual(e["event"], "move")
        self.wait_mail("ann@example.org", r"are cleared")
        for m in self.mails_to("ben@example.org"):
            body = m.get_body(("plain",)).get_content()
            for text in SECRET_MOVES:
                self.assertNotIn(text, body)
            # Every mail may explain conditional moves; none speaks of anyone's.
            self.assertNotRegex(body.lower(), r"your conditional|are cleared|was played|are stored")
            self.assertNotIn("conditional", m["Subject"].lower())
        for text in SECRET_MOVES:
            self.assertNotIn(text, json.dumps(e))
        # The log never names the tree's moves either.
        self.assertNotIn("S 7 7 6 7", d.stderr())


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
