#!/usr/bin/env python3
"""bounded_work.py - black-box tests: no request costs more as a game grows longer.

usage: bounded_work.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (tests/harness).

1. The ply limit: a knight shuffle in Nchess, played through the API, is drawn
   when it reaches LIMIT_PLIES plies, with the reason in the result; a further
   move, a resignation and a draw offer are refused (409 game_over). The game
   page and the game JSON at that ply are hardly larger than at ply 20: they
   hold only the latest moves. The rules pages state the limit of each game.
2. Paging: GET /api/games/{id}/moves and /dice answer one page at a time
   (?from=PLY&limit=N, defaults and maximum from service/core/limits.h), with the
   game's ply count and the next page's from; walking the pages gives every
   move once, in order; bad values are refused with 400 bad_request; secret
   moves stay hidden from the other seats on every page; every dice page
   carries the commitment (and the seed once the game is over); the HTML
   record /games/{id}/moves pages the same way.

Without the limit the shuffle runs on for ever (the issue's 100,000-ply game
made GET /moves take seconds and the page answer 500); these tests fail on a
server without the limit or the paging.

Python standard library only.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, nchess  # noqa: E402

LIMITS = daemon.LIMITS
PLIES = LIMITS["LIMIT_PLIES"]
PAGE_DEFAULT = LIMITS["LIMIT_MOVES_PAGE_DEFAULT"]
PAGE_MAX = LIMITS["LIMIT_MOVES_PAGE_MAX"]
RECENT = LIMITS["LIMIT_PAGE_RECENT_MOVES"]

# Both Knights out and back again: the position repeats every four plies, and Nchess has no
# draw by repetition.
SHUFFLE = nchess.SHUFFLE
SEATS = ("South", "North")


def history_items(page):
    """The <li> of the game page's move list (the ol.moves)."""
    m = re.search(r'<ol class="moves"[^>]*>(.*?)</ol>', page, re.S)
    return re.findall(r"<li", m.group(1)) if m else []


class PlyLimitTests(daemon.DaemonCase):
    """One game played to the ply limit, shared by the tests of this class (2000 moves take a while)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        d = cls.d
        cls.gid, cls.tokens, _ = d.create_game()
        conn = d.connect()
        try:
            cls.last = None
            for ply in range(PLIES):
                if ply == 20:
                    cls.small = cls.sizes()
                r = d.request("POST", f"/api/games/{cls.gid}/moves", {"move": SHUFFLE[ply % 4], "ply": ply},
                              token=cls.tokens[SEATS[ply % 2]], conn=conn)
                assert r.status == 201, (ply, r)
                cls.last = r.json()
        finally:
            conn.close()

    @classmethod
    def sizes(cls):
        """The bytes of what a spectator and a seat read of the game: page and JSON."""
        d, gid, tok = cls.d, cls.gid, cls.tokens["South"]
        out = {}
        for name, path, token in (("page", f"/games/{gid}", None), ("seat page", f"/games/{gid}?seat={tok}", None),
                                  ("json", f"/api/games/{gid}", None), ("seat json", f"/api/games/{gid}", tok)):
            r = d.get(path, token=token)
            assert r.status == 200, (path, r)
            out[name] = r.body
        return out

    def test_the_limit_ends_the_game_in_a_draw(self):
        last = self.last
        self.assertEqual(last["ply"], PLIES - 1)
        g = self.d.game(self.gid)
        self.assertEqual((g["ply"], g["status"], g["turn"]), (PLIES, "over", []))
        self.assertEqual(g["result"]["summary"], f"drawn: the {PLIES}-ply limit was reached")
        self.assertEqual(g["result"]["ranks"], [1, 1])
        self.assertEqual(g["result"]["places"], [{"place": 1, "seats": ["South", "North"]}])
        self.assertEqual(last["game"]["status"], "over", "the answer to the last move says the game is over")
        # The dice seed of a finished game is revealed.
        self.assertRegex(self.d.get(f"/api/games/{self.gid}/dice").json()["seed"], daemon.HEX64)

    def test_nothing_more_is_played(self):
        gid, tok = self.gid, self.tokens
        self.assertError(self.d.move(gid, tok["South"], SHUFFLE[0], PLIES), 409, "game_over", "ply limit")
        self.assertError(self.d.post(f"/api/games/{gid}/resign", token=tok["North"]), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tok["South"]),
                         409, "game_over")
        self.assertEqual(self.d.game(gid)["ply"], PLIES)
        self.assertEqual(self.d.game(gid, tok["South"])["legal_moves"], [])

    def test_page_and_game_json_stay_small(self):
        big = self.sizes()
        for name, body in big.items():
            self.assertLessEqual(len(body), 1.5 * len(self.small[name]) + 2048,
                                 f"the {name} grew from {len(self.small[name])} to {len(body)} bytes")
        page = big["page"].decode()
        self.assertEqual(len(history_items(page)), RECENT, "the page lists only the latest moves")
        self.assertIn(f'<ol class="moves" start="{PLIES - RECENT + 1}">', page)
        self.assertIn(f'These are the latest moves. <a href="/games/{self.gid}/moves">The full record</a>', page,
                      "the page links to the full record")
        self.assertIn(f"drawn: the {PLIES}-ply limit was reached", page)

    def test_moves_default_page(self):
        r = self.d.get(f"/api/games/{self.gid}/moves")
        self.assertEqual(r.status, 200, r)
        body = r.json()
        self.assertEqual((body["plies"], body["from"], body["limit"], body["next"]), (PLIES, 0, PAGE_DEFAULT, PAGE_DEFAULT))
        self.assertEqual([m["ply"] for m in body["moves"]], list(range(PAGE_DEFAULT)))
        self.assertEqual([m["move"] for m in body["moves"][:4]], SHUFFLE)

    def test_walking_every_page_gives_every_move_once(self):
        for limit in (None, PAGE_MAX, 7):
            seen, frm, pages = [], 0, 0
            while frm is not None:
                q = f"?from={frm}" + (f"&limit={limit}" if limit else "")
                body = self.d.get(f"/api/games/{self.gid}/moves{q}").json()
                self.assertEqual(body["plies"], PLIES)
                self.assertLessEqual(len(body["moves"]), limit or PAGE_DEFAULT)
                seen += [(m["ply"], m["move"], m["seat"]) for m in body["moves"]]
                frm = body["next"]
                pages += 1
            self.assertEqual(seen, [(p, SHUFFLE[p % 4], SEATS[p % 2]) for p in range(PLIES)], limit)
            self.assertEqual(pages, -(-PLIES // (limit or PAGE_DEFAULT)), limit)

    def test_pages_at_the_end(self):
        gid = self.gid
        body = self.d.get(f"/api/games/{gid}/moves?from={PLIES - 3}&limit=10").json()
        self.assertEqual(([m["ply"] for m in body["moves"]], body["next"]), ([PLIES - 3, PLIES - 2, PLIES - 1], None))
        for frm in (PLIES, PLIES + 1, 999999999):
            body = self.d.get(f"/api/games/{gid}/moves?from={frm}").json()
            self.assertEqual((body["moves"], body["next"], body["plies"]), ([], None, PLIES), frm)
            dice = self.d.get(f"/api/games/{gid}/dice?from={frm}").json()
            self.assertEqual((dice["rolls"], dice["next"], dice["plies"]), ([], None, PLIES), frm)

    def test_dice_pages(self):
        body = self.d.get(f"/api/games/{self.gid}/dice?from=100&limit=50").json()
        self.assertEqual((body["from"], body["limit"], body["next"], body["plies"]), (100, 50, 150, PLIES))
        self.assertEqual((body["rolls"], body["status"], body["game"]), ([], "over", self.gid))
        for key in ("commitment", "seed", "algorithm"):
            self.assertTrue(body[key], key)

    def test_html_record(self):
        gid = self.gid
        r = self.d.get(f"/games/{gid}/moves")
        self.assertEqual(r.status, 200, r)
        self.assertIn(f"Moves 1 to {PAGE_DEFAULT} of {PLIES}", r.text)
        self.assertEqual(len(re.findall(r"<li>", r.text)), PAGE_DEFAULT)
        self.assertIn(f'href="/games/{gid}/moves?from={PAGE_DEFAULT}&amp;limit={PAGE_DEFAULT}" rel="next"', r.text)
        self.assertNotIn('rel="prev"', r.text)
        r = self.d.get(f"/games/{gid}/moves?from={PLIES - 10}&limit=30")
        self.assertIn(f"Moves {PLIES - 9} to {PLIES} of {PLIES}", r.text)
        self.assertIn(f'<ol class="moves" start="{PLIES - 9}">', r.text)
        self.assertIn(f'href="/games/{gid}/moves?from={PLIES - 40}&amp;limit=30" rel="prev"', r.text)
        self.assertNotIn('rel="next"', r.text)
        r = self.d.get(f"/games/{gid}/moves?limit=0")
        self.assertEqual(r.status, 400, r)
        self.assertIn("limit must be a whole number", r.text)


class FourSeatLimitTests(daemon.DaemonCase):
    def test_four_seats_get_as_many_turns_each(self):
        """Complex Allegiance: each seat's Knight out and back; drawn at twice the plies, all sharing 2nd."""
        d = self.d
        r = d.post("/api/games", {"variant": "complex-allegiance", "seats": [{"name": n} for n in "ABCD"]})
        self.assertEqual(r.status, 201, r)
        gid = r.json()["id"]
        seats = [s["seat"] for s in r.json()["seats"]]
        tok = {s["seat"]: s["token"] for s in r.json()["seats"]}
        d.secrets.update(tok.values())
        cycle, limit = [None] * 8, PLIES // 2 * len(seats)
        conn = d.connect()
        try:
            for ply in range(limit):
                if ply < 4:   # the first round finds each seat's Knight move, out and back
                    move = next(m for m in d.game(gid, tok[seats[ply]])["legal_moves"] if m.startswith("N"))
                    frm, to = move[1:].split("-")
                    cycle[ply], cycle[ply + 4] = move, f"N{to}-{frm}"
                r = d.request("POST", f"/api/games/{gid}/moves", {"move": cycle[ply % 8], "ply": ply},
                              token=tok[seats[ply % 4]], conn=conn)
                self.assertEqual(r.status, 201, (ply, r))
                self.assertEqual(r.json()["game"]["status"], "over" if ply == limit - 1 else "running", ply)
        finally:
            conn.close()
        g = d.game(gid)
        self.assertEqual((g["ply"], g["result"]["summary"]), (limit, f"drawn: the {limit}-ply limit was reached"))
        self.assertEqual(g["result"]["places"], [{"place": 2, "seats": seats}], "a draw is equal second here")
        self.assertError(d.move(gid, tok[seats[0]], cycle[0], limit), 409, "game_over")


class PagingTests(daemon.DaemonCase):
    def test_bad_page_arguments(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, SHUFFLE)
        before = self.d.snapshot()
        for what in ("moves", "dice"):
            for q in ("from=-1", "from=x", "from=", "from=1.5", "from=0x10", "from=+1", "from=1%200",
                      "from=9999999999", "from=1e3"):
                self.assertError(self.d.get(f"/api/games/{gid}/{what}?{q}"), 400, "bad_request", "from must be")
            for q in ("limit=0", "limit=-5", f"limit={PAGE_MAX + 1}", "limit=", "limit=ten", "limit=99999999999"):
                self.assertError(self.d.get(f"/api/games/{gid}/{what}?{q}"), 400, "bad_request",
                                 f"limit must be a whole number from 1 to {PAGE_MAX}")
            self.assertError(self.d.get(f"/api/games/nosuchgame12/{what}?from=0"), 404, "not_found")
        self.assertEqual(self.d.snapshot(), before, "a refused request changes nothing")
        body = self.d.get(f"/api/games/{gid}/moves?limit={PAGE_MAX}").json()
        self.assertEqual((len(body["moves"]), body["next"], body["limit"]), (4, None, PAGE_MAX))
        body = self.d.get(f"/api/games/{gid}/moves?from=1&limit=2").json()
        self.assertEqual(([m["move"] for m in body["moves"]], body["next"], body["plies"]), (SHUFFLE[1:3], 3, 4))

    def test_new_game_has_an_empty_page(self):
        gid, _, _ = self.d.create_game()
        self.assertEqual(self.d.get(f"/api/games/{gid}/moves").json(),
                         {"moves": [], "plies": 0, "from": 0, "limit": PAGE_DEFAULT, "next": None})

    def test_secret_moves_stay_hidden_on_every_page(self):
        r = self.d.post("/api/games", {"variant": "cyvasse", "seats": [{"name": "Wen"}, {"name": "Bo"}]})
        self.assertEqual(r.status, 201, r)
        gid = r.json()["id"]
        tok = {s["seat"]: s["token"] for s in r.json()["seats"]}
        self.d.secrets.update(tok.values())
        self.assertEqual(self.d.move(gid, tok["White"], "setup default", 0).status, 201)
        hidden = "(hidden until revealed)"
        for frm, limit in ((0, 1), (0, PAGE_MAX)):
            q = f"?from={frm}&limit={limit}"
            mine = self.d.get(f"/api/games/{gid}/moves{q}", token=tok["White"]).json()["moves"]
            self.assertTrue(mine[0]["move"].startswith("setup "), mine)
            self.assertNotEqual(mine[0]["move"], hidden)
            for token in (tok["Black"], None):
                theirs = self.d.get(f"/api/games/{gid}/moves{q}", token=token).json()["moves"]
                self.assertEqual((theirs[0]["move"], theirs[0]["note"], theirs[0]["places"]), (hidden, "", []))
        record = self.d.get(f"/games/{gid}/moves").text
        self.assertIn(hidden.replace("(", "").replace(")", ""), record)
        self.assertNotIn(mine[0]["move"], record)
        # Black's setup reveals both and rolls for the first player: ply 1 has the game's first roll.
        self.assertEqual(self.d.move(gid, tok["Black"], "setup default", 1).status, 201)
        moves = self.d.get(f"/api/games/{gid}/moves?from=1&limit=1").json()
        self.assertEqual(moves["next"], None)
        first = self.d.get(f"/api/games/{gid}/dice?from=0&limit=1").json()
        second = self.d.get(f"/api/games/{gid}/dice?from=1&limit=1").json()
        self.assertEqual((first["rolls"], first["next"]), ([], 1))
        self.assertEqual(len(second["rolls"]), 1, second)
        self.assertEqual((second["rolls"][0]["ply"], second["rolls"][0]["sides"], second["next"]), (1, 6, None))
        for page in (first, second):
            self.assertEqual(page["commitment"], self.d.game(gid)["dice_commitment"])
            self.assertIsNone(page["seed"])
        # Once over, every page reveals the seed, and the checker walks the pages from the address.
        self.d.post(f"/api/games/{gid}/resign", token=tok["Black"])
        for frm in (0, 1, 2):
            self.assertRegex(self.d.get(f"/api/games/{gid}/dice?from={frm}&limit=1").json()["seed"], daemon.HEX64)
        v = subprocess.run([sys.executable, daemon.VERIFY_DICE, f"{self.d.base}/api/games/{gid}/dice?limit=1"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("1 rolls checked, 0 wrong", v.stdout)


class RulesPageTests(daemon.DaemonCase):
    def test_each_rules_page_states_its_ply_limit(self):
        for variant in self.d.get("/api/variants").json()["variants"]:
            text = " ".join(self.d.get(f"/rules/{variant['id']}").text.split())
            limit = PLIES // 2 * variant["players"]
            where = variant["id"]
            self.assertTrue('<li id="ply-limit"><span class="house">house rule</span>' in text, where)
            self.assertTrue(f"a game that reaches {limit} plies" in text, where)
            self.assertTrue(f'<a href="#ply-limit">ply limit</a> ({limit} plies)' in text, where)
            self.assertFalse(re.search(r"no (move limit|limit on the number of moves|other draws?\.)", text), where)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
