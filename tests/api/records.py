#!/usr/bin/env python3
"""records.py - black-box tests of game records (GET /api/games/{id}/record, docs/record.md).

usage: records.py path/to/rookery path/to/record_replay [unittest options]

Games of all five variants are played over the API (the scripts and helpers of tests/harness, as
the tests/api/*_game.py play them), and their records fetched while they run and once they are
over. Each record is read by a strict reader written from docs/record.md (not from the server's
code): the tag pairs, their order and escaping, one line per ply numbered without gaps, the rolls
in braces, the actions, the result token. The record must agree with what the API shows (the game,
its moves and its dice record), and its plies, replayed with their rolls through the rules library
by record_replay (tests/unit/record_replay.c: no server involved), must reach the very position
the daemon holds. Also: a spectator's record holds no hidden setup, tokens change nothing, names
with quotes and backslashes come back through the escaping, a bad id is 404, and the ETag.

Python standard library only.
"""
import hashlib
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness import civil_war as cw  # noqa: E402
from harness import complex_allegiance as ca  # noqa: E402
from harness import conversion_chess as cc  # noqa: E402
from harness.nchess import OPENING, complete_release  # noqa: E402
from harness.record import RecordError, read_record, replay  # noqa: E402

def result_token(ranks, nseats):
    """The result token docs/record.md gives for the API's ranks."""
    if ranks is None:
        return "*"
    if nseats == 2:
        return "1-0" if ranks[0] < ranks[1] else "0-1" if ranks[0] > ranks[1] else "1/2-1/2"
    return "-".join(map(str, ranks))


def time_control(clock):
    if clock is None:
        return "-", None
    days = lambda d: str(round(d * 86400))
    if clock["type"] == "per_move":
        return "1/" + days(clock["days"]), None
    return days(clock["days"]) + "+" + days(clock.get("increment_days", 0)), days(clock["max_days"])


class RecordCase(daemon.DaemonCase):
    maxDiff = None

    def new_game(self, variant, names, clock=None):
        gid, tokens, _ = self.d.create_game(names, variant=variant, clock=clock)
        return gid, tokens

    def fetch(self, gid, token=None):
        r = self.d.get(f"/api/games/{gid}/record", token=token)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "text/plain; charset=utf-8")
        self.assertEqual(r.header("Content-Disposition"), f'attachment; filename="rookery-{gid}.txt"')
        return r.body.decode("utf-8")

    def check_record(self, gid, actions=(), token=None):
        """Fetch gid's record (with token, when given: it must change nothing), read it, check it
        against the API's game, moves and dice record, and, when no move is hidden, replay it
        through the rules to the daemon's position. Returns (record, game, text)."""
        d = self.d
        text = self.fetch(gid, token)
        g = d.game(gid)
        seats = [s["seat"] for s in g["seats"]]
        rec = read_record(text, seats)
        tag = rec["tag"]
        # The tags say what the API says.
        self.assertEqual(tag["Event"], g["title"] + " game")
        self.assertEqual(tag["Site"], f"{d.base}/games/{gid}")
        self.assertEqual(tag["Variant"], g["variant"])
        self.assertEqual(int(tag["RulesVersion"]), g["rules_version"])
        self.assertEqual([(n, v) for n, v in rec["tags"] if n in seats], [(s["seat"], s["name"]) for s in g["seats"]])
        self.assertEqual(tag["Result"], result_token(g["result"] and g["result"]["ranks"], len(seats)))
        self.assertEqual(tag["Termination"], g["result"]["summary"] if g["result"] else "unterminated")
        tc, tmax = time_control(g["clock"])
        self.assertEqual((tag["TimeControl"], tag.get("TimeMax")), (tc, tmax))
        self.assertEqual(int(tag["PlyCount"]), g["ply"])
        self.assertEqual(int(tag["DiceVersion"]), g["dice_version"])
        self.assertEqual(tag["DiceCommitment"], g["dice_commitment"])
        for s in g["seats"]:
            self.assertEqual(tag["ClientSeed" + s["seat"]], s["client_seed"] or "")
        dice = d.dice_record(gid)
        self.assertEqual(tag.get("DiceSeed"), dice["seed"])
        if "DiceSeed" in tag:
            self.assertEqual(hashlib.sha256(bytes.fromhex(tag["DiceSeed"])).hexdigest(), tag["DiceCommitment"])
        # The plies are the public move list, with each roll on its die.
        moves = d.all_moves(gid)
        self.assertEqual(len(rec["plies"]), len(moves))
        sides = {(x["ply"], x["k"]): x["sides"] for x in dice["rolls"]}
        for p, m in zip(rec["plies"], moves):
            self.assertEqual(p["seat"], m["seat"], m)
            self.assertEqual(p["move"], None if m["hidden"] else m["move"], m)
            self.assertEqual(p["note"], m["note"], m)
            self.assertEqual(p["rolls"], [(sides[(m["ply"], k)], v) for k, v in enumerate(m["dice"])], m)
        self.assertEqual(rec["actions"], list(actions))
        # The replay through the rules reaches the daemon's position.
        if all(p["move"] is not None for p in rec["plies"]):
            got = replay(tag["Variant"], int(tag["RulesVersion"]), rec["plies"])
            self.assertIsNotNone(g["position"]["notation"], "a game without secrets shows its position")
            self.assertEqual(got["position"], g["position"]["notation"], "the replayed position is the daemon's")
            if g["status"] == "running":
                self.assertEqual(got["turn"], g["turn"])
            elif got["over"]:
                self.assertEqual(got["ranks"], g["result"]["ranks"], "the rules' result is the record's")
        return rec, g, text

    def move(self, gid, token, text, ply):
        r = self.d.move(gid, token, text, ply)
        self.assertEqual(r.status, 201, (text, ply, r))
        return r.json()

    def act(self, gid, token, path, body):
        r = self.d.post(f"/api/games/{gid}/{path}", body, token=token)
        self.assertEqual(r.status, 200, (path, body, r))
        return r.json()


class ReaderTests(RecordCase):
    """The reader refuses what docs/record.md does not allow: it is no test if it takes anything."""

    def test_reader_is_strict(self):
        gid, tokens = self.new_game("nchess", ("Ann", "Ben"))
        self.move(gid, tokens["South"], OPENING[0], 0)
        text = self.fetch(gid)
        read_record(text, ["South", "North"])
        broken = [
            text.replace('[North "Ben"]\n', ""),                       # a seat tag missing
            text.replace("1. South:", "2. South:"),                    # a number out of sequence
            text.replace("1. South:", "1. West:"),                     # no such seat
            text.replace('[South "Ann"]', '[South "A"nn"]'),           # an unescaped quote
            text.replace("\n*\n", "\n1-0\n"),                          # the result line is not the tag
            text.replace(OPENING[0], OPENING[0] + " {roll d6:7}"),      # a face the die has not
            text.replace(OPENING[0], OPENING[0] + " {roll 6}"),         # a roll without its die
            text.replace(OPENING[0], OPENING[0] + " ;note"),            # a note without its space
            text[:-1],                                                 # no final line feed
            text.replace("\n\n", "\n{North offers}\n\n"),              # an action among the tags
            text.replace("1. South", "{North shrugs}\n1. South"),      # an unknown action
        ]
        for b in broken:
            self.assertNotEqual(b, text)
            with self.assertRaises(RecordError, msg=b):
                read_record(b, ["South", "North"])


class RecordTests(RecordCase):

    def test_bad_id_and_etag(self):
        d = self.d
        r = d.get("/api/games/nosuchgame12/record")
        self.assertError(r, 404, "not_found")
        self.assertIsNone(r.header("Content-Disposition"))
        gid, tokens = self.new_game("nchess", ("Ann", "Ben"))
        r = d.get(f"/api/games/{gid}/record")
        tag = r.header("ETag")
        self.assertTrue(tag)
        self.assertEqual(r.header("Cache-Control"), "no-cache")
        again = d.get(f"/api/games/{gid}/record", headers={"If-None-Match": tag})
        self.assertEqual((again.status, again.body, again.header("ETag")), (304, b"", tag))
        self.move(gid, tokens["South"], OPENING[0], 0)
        moved = d.get(f"/api/games/{gid}/record", headers={"If-None-Match": tag})
        self.assertEqual(moved.status, 200)
        self.assertNotEqual(moved.header("ETag"), tag)
        self.assertIn("1. South: S 7 7 7 8", moved.text)
        # Another answer of the same version has a tag of its own: the record's is not the moves'.
        self.assertNotEqual(d.get(f"/api/games/{gid}/moves").header("ETag"), moved.header("ETag"))
        # The game page links the record for download.
        page = d.get(f"/games/{gid}").text
        self.assertTrue(re.search(r'<a href="/api/games/%s/record"[^>]*>Download the record</a>' % gid, page),
                        "the game page links the record")

    def test_nchess_whole_game_with_a_quoted_name(self):
        d = self.d
        names = ('Ann "the Rook" \\ O\'Neil \\"', "Ben \u00e9\u4e2d")
        gid, tokens = self.new_game("nchess", names, clock={"type": "bank", "days": 30, "increment_days": 1,
                                                            "max_days": 45})
        rec, _, text = self.check_record(gid)
        self.assertIn('[South "Ann \\"the Rook\\" \\\\ O\'Neil \\\\\\""]\n', text)
        self.assertEqual(rec["tag"]["South"], names[0])
        self.assertEqual(rec["tag"]["North"], names[1])
        self.assertEqual(rec["plies"], [])
        rnd = random.Random(35)
        actions = []
        for _ in range(1000):
            g = d.game(gid)
            if g["status"] == "over":
                break
            seat = g["turn"][0]
            view = d.game(gid, tokens[seat])
            text = rnd.choice(view["legal_moves"])
            r = d.move(gid, tokens[seat], text, view["ply"])
            if r.status == 422 and r.json()["error"]["code"] == "incomplete_move":
                r = d.move(gid, tokens[seat], complete_release(text, seat, view["position"], rnd), view["ply"])
            self.assertEqual(r.status, 201, (text, r))
            if view["ply"] == 10:
                # A draw offered and declined: two action lines after ply 11.
                self.act(gid, tokens["North"], "draw", {"action": "offer"})
                self.act(gid, tokens["South"], "draw", {"action": "decline"})
                actions += [(11, "North", "offers a draw"), (11, "South", "declines the draw")]
            if view["ply"] in (20, 21):
                self.check_record(gid, actions)
        else:
            self.fail("the game did not end in 1000 plies")
        rec, g, _ = self.check_record(gid, actions)
        self.assertIn(rec["result"], ("1-0", "0-1"))
        self.assertGreater(len(rec["plies"]), 21)

    def test_nchess_resigned_with_a_clock(self):
        gid, tokens = self.new_game("nchess", ("Ann", "Ben"), clock={"type": "per_move", "days": 3})
        for ply, text in enumerate(OPENING + ["S 7 3 6 3", "s 3 1 4 1"]):
            self.move(gid, tokens[("South", "North")[ply % 2]], text, ply)
            if ply == 2:
                self.act(gid, tokens["South"], "draw", {"action": "offer"})
                self.act(gid, tokens["North"], "draw", {"action": "decline"})
        self.act(gid, tokens["South"], "resign", {})
        rec, g, text = self.check_record(gid, [(3, "South", "offers a draw"), (3, "North", "declines the draw"),
                                               (6, "South", "resigns")])
        self.assertEqual((rec["tag"]["TimeControl"], rec["result"]), ("1/259200", "0-1"))
        self.assertEqual(rec["tag"]["Termination"], "North wins: South resigned")
        self.assertTrue(text.endswith("6. North: s 3 1 4 1\n{South resigns}\n0-1\n"), text)

    def test_complex_allegiance_to_a_king_capture(self):
        gid, tokens = self.new_game(ca.VARIANT, ca.NAMES)
        actions = []
        for ply, (seat, sent, canon, note) in enumerate(ca.SCRIPT):
            echo = self.move(gid, tokens[seat], sent, ply)
            self.assertEqual(echo["move"], canon)
            if ply == 4:
                self.act(gid, tokens["West"], "draw", {"action": "offer"})
                self.act(gid, tokens["North"], "draw", {"action": "accept"})
                self.act(gid, tokens["West"], "draw", {"action": "withdraw"})
                actions += [(5, "West", "offers a draw"), (5, "North", "accepts the draw"),
                            (5, "West", "withdraws the draw offer")]
            if ply in (11, 26):
                rec, _, _ = self.check_record(gid, actions)
                self.assertEqual(rec["result"], "*")
        rec, g, _ = self.check_record(gid, actions)
        self.assertEqual(g["result"]["ranks"], [4, 2, 1, 2])
        self.assertEqual(rec["result"], "4-2-1-2")
        self.assertEqual([p["move"] for p in rec["plies"]], [c for _, _, c, _ in ca.SCRIPT])

    def test_conversion_chess_to_a_king_capture(self):
        gid, tokens = self.new_game(cc.VARIANT, cc.NAMES)
        for ply, (seat, sent, canon, note) in enumerate(cc.SCRIPT):
            echo = self.move(gid, tokens[seat], sent, ply)
            self.assertEqual((echo["move"], echo["note"]), (canon, note))
            if ply == 12:
                self.check_record(gid)
        rec, g, _ = self.check_record(gid)
        self.assertEqual(rec["result"], "1-0")
        self.assertEqual(rec["plies"][-1]["note"], cc.SCRIPT[-1][3])

    def test_civil_war_rolls_alliances_and_resignations(self):
        d = self.d
        gid, tokens = self.new_game(cw.VARIANT, cw.NAMES)
        # A client seed with a quote and a backslash comes back through the escaping too.
        seed = 'x"\\y \\" z'
        r = d.request("PUT", f"/api/games/{gid}/client-seed", {"client_seed": seed}, token=tokens["West"])
        self.assertEqual(r.status, 200, r)
        rnd = random.Random(20261126)
        rolls = declared = 0
        for _ in range(400):
            g = d.game(gid)
            self.assertEqual(g["status"], "running")
            if not declared and g["ply"] >= 6:
                # A declaration out of turn, by a seat that is not to act: a ply of its own.
                seat = next(s for s in cw.SEATS if s not in g["turn"])
                other = next(s for s in cw.SEATS if s != seat)
                self.move(gid, tokens[seat], f"ally {other}", g["ply"])
                declared = 1
                continue
            view = d.game(gid, tokens[g["turn"][0]])
            army = next(s for s in cw.SEATS if s[0] == view["legal_moves"][0][0])
            attacks = [t for t in view["legal_moves"] if (e := cw.ECHO.match(t)) and (e["sep"] == "x" or e["cap"])
                       and cw.owner(view["position"], e["to"]) != army]
            text = rnd.choice(attacks or view["legal_moves"])
            rolls += len(self.move(gid, tokens[g["turn"][0]], text, view["ply"])["dice"])
            if rolls >= 3 and g["ply"] >= 12:
                break
        self.assertGreaterEqual(rolls, 3, "the game rolled dice")
        rec, _, text = self.check_record(gid)
        self.assertEqual(rec["tag"]["ClientSeedWest"], seed)
        self.assertIn('[ClientSeedWest "x\\"\\\\y \\\\\\" z"]', text)
        self.assertTrue(any(p["rolls"] and all(s == 12 for s, _ in p["rolls"]) for p in rec["plies"]))
        self.assertNotIn("DiceSeed", rec["tag"])
        # Resignations: each a ply "resign" while the game goes on, until it ends.
        resigned = []
        for seat in ("East", "North", "South"):
            if d.game(gid)["status"] != "running":
                break
            self.act(gid, tokens[seat], "resign", {})
            resigned.append(seat)
            self.check_record(gid)
        rec, g, _ = self.check_record(gid)
        self.assertEqual(g["status"], "over")
        self.assertEqual([p["seat"] for p in rec["plies"] if p["move"] == "resign"], resigned)
        self.assertRegex(rec["result"], r"^\d-\d-\d-\d$")
        self.assertEqual(rec["tag"]["DiceSeed"], d.dice_record(gid)["seed"])


CYVASSE_WHITE = ("setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1Br R=a3,j3,b4,c4,h4,k4 "
                 "S=e4,f4,g4 L=g2,c3,h3 H=b3,i3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2")
CYVASSE_LEAKS = ("R5=1Br", "H=b3,i3", "L=g2,c3,h3", "setup")


class CyvasseRecordTests(RecordCase):

    def test_hidden_setup_then_a_game(self):
        d = self.d
        gid, tokens = self.new_game("cyvasse", ("Wes", "Bea"))
        W, B = tokens["White"], tokens["Black"]
        self.move(gid, W, "setup default", 0)
        self.move(gid, W, CYVASSE_WHITE, 1)
        # While Black's setup is not in, White's is nobody else's: not a spectator's, not with
        # Black's token, not even with White's own (the record is the public's).
        for token in (None, B, W):
            rec, _, text = self.check_record(gid, token=token)
            self.assertEqual([(p["seat"], p["move"], p["note"]) for p in rec["plies"]],
                             [("White", None, ""), ("White", None, "")])
            self.assertIn("\n1. White: {hidden}\n2. White: {hidden}\n*\n", text)
            for leak in CYVASSE_LEAKS:
                self.assertNotIn(leak, text)
        setup = self.move(gid, B, "setup default", 2)
        self.assertEqual(len(setup["dice"]), 1)
        rec, g, text = self.check_record(gid)
        self.assertEqual(rec["plies"][1]["move"], CYVASSE_WHITE)
        self.assertEqual(rec["plies"][2]["rolls"], [(6, setup["dice"][0])])
        # Then moves, captures first, for a while; then a resignation if no King fell.
        rnd = random.Random(11)
        for _ in range(120):
            g = d.game(gid)
            if g["status"] != "running":
                break
            view = d.game(gid, tokens[g["turn"][0]])
            caps = [t for t in view["legal_moves"] if "x" in t.split(" / ")[0]]
            self.move(gid, tokens[g["turn"][0]], rnd.choice(caps or view["legal_moves"]), view["ply"])
            if g["ply"] == 20:
                self.check_record(gid)
        actions = []
        if d.game(gid)["status"] == "running":
            self.act(gid, B, "resign", {})
            actions = [(d.game(gid)["ply"], "Black", "resigns")]
        rec, g, _ = self.check_record(gid, actions)
        self.assertIn(rec["result"], ("1-0", "0-1"))


if __name__ == "__main__":
    paths = daemon.arguments(__doc__, most=2)
    if len(paths) < 2 or not os.access(paths[1], os.X_OK):
        sys.exit(__doc__.strip())
    os.environ["ROOKERY_RECORD_REPLAY"] = paths[1]
    sys.exit(daemon.run_tests())
